//! The wasmtime configuration every hwf engine is built from.
//!
//! Two consumers need the same settings: `hwf-host`, which runs components
//! (and adds an instance allocator on top, which does not change what
//! compiles), and the `hwf` binary's build script, which precompiles the
//! bundled script runtimes so that a user's first script run loads machine
//! code instead of compiling it. An artifact only loads into an engine whose
//! compile settings match the ones it was made with (wasmtime checks its
//! version, target, CPU flags, tunables and wasm features when it
//! deserializes); keeping the settings in one function keeps the two
//! engines' artifacts interchangeable.
//!
//! ```
//! let engine = wasmtime::Engine::new(&hwf_engine::config()).expect("engine");
//! assert_eq!(hwf_engine::compatibility_key(&engine).len(), 16);
//! ```

use std::hash::{Hash, Hasher};

/// Largest wasm stack a guest may use, in bytes. Deep enough for the JS
/// runtime's own limit (`JS_STACK`, 3 MiB of QuickJS's C stack) to fire
/// first in every recursion shape: a recursion through `Array#flat` uses
/// between 4 and 6.4 bytes of wasm stack per byte of C stack, so 8x (before
/// the sixteenth session: 1 MiB, with a 160 KiB JS limit, 6.4x). Pages are
/// touched only as deep as a guest recurses.
pub const MAX_WASM_STACK: usize = 24 << 20;

/// The fiber stack an instance runs on (the wasm stack plus the host's
/// frames on it), in bytes.
pub const ASYNC_STACK: usize = 26 << 20;

/// The engine configuration hwf compiles and runs components with: epoch
/// interruption and fuel (the CPU and wall limits), async host calls, the
/// stack sizes above, and one memory per core module (multi-memory off:
/// the pooling allocator holds one). Everything that changes compiled code
/// is set here; the instance allocator (pooled or on demand) is the
/// caller's and does not.
pub fn config() -> wasmtime::Config {
    let mut cfg = wasmtime::Config::new();
    cfg.epoch_interruption(true);
    cfg.consume_fuel(true);
    cfg.max_wasm_stack(MAX_WASM_STACK);
    cfg.async_stack_size(ASYNC_STACK);
    // The pool holds one memory per core module; refuse more at compile
    // time on both kinds of engine, rather than only when pooled.
    cfg.wasm_multi_memory(false);
    cfg
}

/// A short, stable name for what `engine` compiles (its precompile
/// compatibility hash: wasmtime's version, the target and its CPU flags,
/// tunables and features), 16 hex digits. Two engines with the same key
/// load each other's artifacts.
pub fn compatibility_key(engine: &wasmtime::Engine) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut h);
    format!("{:016x}", h.finish())
}
