//! The sandbox: engine, linker, import gate, locked-down WASI, limits, and
//! running a harness instance.
//!
//! - [`engine`]: the wasmtime [`Vm`] (pooling allocator, epoch interruption,
//!   precompile cache) and component loading;
//! - [`gate`]: the import allow-list, checked on the raw bytes;
//! - [`wasi`]: the WASI a guest sees (captured output, virtual clocks,
//!   seeded randomness, nothing else);
//! - [`limits`]: per-run limits, the memory limiter, [`limits::HostTrap`];
//! - [`state`]: the store data and the host side of the WIT imports;
//! - [`exec`]: instantiate and call `meta` / `run`, classify traps;
//! - [`bindings`]: `bindgen!` output.

pub mod bindings;
pub mod engine;
pub mod exec;
pub mod gate;
pub mod limits;
pub mod state;
pub mod wasi;

pub use engine::{LoadedComponent, Vm};
pub use limits::Limits;
