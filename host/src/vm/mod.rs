//! The sandbox: engine, linker, import gate, locked-down WASI, limits, and
//! running a harness instance. It knows neither the broker nor the store:
//! the `hermes:workflow/host` imports are answered by any [`SandboxHost`]
//! (the broker's WIT host), and compiled components are cached through any
//! [`CompileCache`].
//!
//! - [`engine`]: the wasmtime [`Vm`] (pooling allocator, epoch interruption,
//!   precompile cache; built on first use, or ahead on its own thread with
//!   [`prestart`]) and component loading;
//! - [`gate`]: the import allow-list, checked on the raw bytes;
//! - [`wasi`]: the WASI a guest sees (captured output, virtual clocks,
//!   seeded randomness, nothing else);
//! - [`limits`]: per-run limits, the memory limiter, [`limits::HostTrap`];
//! - [`sandbox`]: the store data around a [`SandboxHost`], calling `meta`,
//!   `check`, `run` and `branch`, classifying traps;
//! - [`bindings`]: `bindgen!` output.

pub mod bindings;
pub mod engine;
pub mod gate;
pub mod limits;
pub mod sandbox;
pub mod wasi;

pub use engine::{Bundle, CompileCache, CompileHook, FileIdentity, InstanceAllocation, LoadedComponent, Vm, prestart};
pub use limits::Limits;
pub use sandbox::{InstanceConfig, InstanceState, SandboxHost};
