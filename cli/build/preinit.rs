//! Pre-initialisation of a script runtime (wizer's snapshot, on components).
//!
//! A runtime's `prepare` export sets its interpreter up without calling the
//! host (for the JS runtime: QuickJS, the natives and the 55 KB prelude).
//! Here the build instantiates the runtime once, calls `prepare`, and
//! writes the instance's memory and globals back into the component as its
//! initial state (`wasmtime-wizer`'s instrument, snapshot and rewrite).
//! Every instance of the shipped runtime then starts prepared; wasmtime maps
//! that initial memory copy-on-write, so a run pays for the pages it
//! touches instead of parsing and running the prelude again.
//!
//! The snapshot runs with every import a trap: `prepare` that reached the
//! host (or WASI) would fail the build here, naming the import, instead of
//! capturing one machine's clock or randomness into every run.

use std::future::Future;
use wasmtime::component::{Component, Instance, Linker, Val, WasmList};
use wasmtime::{Engine, Store};

/// The seed `insecure-seed` gives `prepare` (the digits of pi).
const HASH_SEED: (u64, u64) = (0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344);

/// `wasm` with `prepare` already run in it.
pub fn preinitialize(wasm: &[u8]) -> Result<Vec<u8>, String> {
    let mut wizer = wasmtime_wizer::Wizer::new();
    // `prepare` stays exported: the world has it, and again it does nothing.
    wizer.init_func("prepare").keep_init_func(true);
    let (cx, instrumented) = wizer
        .instrument_component(wasm)
        .map_err(|e| format!("instrumenting the component: {e:#}"))?;
    let engine = Engine::new(&wasmtime::Config::new()).map_err(|e| format!("engine: {e:#}"))?;
    let component = Component::new(&engine, &instrumented).map_err(|e| format!("compiling the component: {e:#}"))?;
    let mut linker = Linker::<()>::new(&engine);
    // Two seeds are taken once per instance, and the snapshot fixes them
    // (build-wide constants, so builds stay reproducible): Rust's std seeds
    // its hash maps (`RandomState`) from `insecure-seed`, and QuickJS its
    // context's hash and `Math.random` state (which scripts cannot call)
    // from the wall clock, which reads the epoch here, and the origin of
    // `performance` (which the prelude deletes) from the monotonic clock,
    // which reads 0 (hwf's is virtual and starts at 0 too). Hash flooding in a
    // script's own run only spends that run's CPU limit.
    for (name, _) in component.component_type().imports(&engine) {
        let linked = if name.starts_with("wasi:random/insecure-seed@") {
            linker
                .instance(name)
                .and_then(|mut i| i.func_wrap("insecure-seed", |_, ()| Ok((HASH_SEED,))))
        } else if name.starts_with("wasi:clocks/wall-clock@") {
            linker.instance(name).and_then(|mut i| {
                i.func_new("now", |_, _, _, results| {
                    results[0] = Val::Record(vec![
                        ("seconds".into(), Val::U64(0)),
                        ("nanoseconds".into(), Val::U32(0)),
                    ]);
                    Ok(())
                })
            })
        } else if name.starts_with("wasi:clocks/monotonic-clock@") {
            linker
                .instance(name)
                .and_then(|mut i| i.func_wrap("now", |_, ()| Ok((0u64,))))
        } else {
            Ok(())
        };
        linked.map_err(|e| format!("linking {name}: {e:#}"))?;
    }
    linker
        .define_unknown_imports_as_traps(&component)
        .map_err(|e| format!("linking: {e:#}"))?;
    let mut store = Store::new(&engine, ());
    let instance = linker
        .instantiate(&mut store, &component)
        .map_err(|e| format!("instantiating: {e:#}"))?;
    let prepare = instance
        .get_typed_func::<(), ()>(&mut store, "prepare")
        .map_err(|e| format!("the component has no `prepare: func()` export: {e:#}"))?;
    prepare
        .call(&mut store, ())
        .map_err(|e| format!("`prepare` failed (it may call no import): {e:?}"))?;
    let mut state = Snapshot { store, instance };
    ready(wizer.snapshot_component(&cx, &mut state)).map_err(|e| format!("snapshotting the instance: {e:#}"))
}

/// The prepared instance, as wizer reads it (through the accessors its
/// instrumentation exported).
struct Snapshot {
    store: Store<()>,
    instance: Instance,
}

impl Snapshot {
    /// Calls `func` of the exported instance `instance`, which takes
    /// nothing and returns one `R`.
    fn call<R>(&mut self, instance: &str, func: &str) -> R
    where
        R: wasmtime::component::Lift + wasmtime::component::ComponentType + 'static,
    {
        let found = self
            .instance
            .get_export_index(&mut self.store, None, instance)
            .and_then(|i| self.instance.get_export_index(&mut self.store, Some(&i), func))
            .unwrap_or_else(|| panic!("wizer's accessor {instance}#{func} is not exported"));
        let f = self
            .instance
            .get_typed_func::<(), (R,)>(&mut self.store, found)
            .unwrap_or_else(|e| panic!("wizer's accessor {instance}#{func}: {e:#}"));
        f.call(&mut self.store, ())
            .unwrap_or_else(|e| panic!("wizer's accessor {instance}#{func} failed: {e:#}"))
            .0
    }
}

impl wasmtime_wizer::ComponentInstanceState for Snapshot {
    async fn call_func_ret_list_u8(&mut self, instance: &str, func: &str, contents: impl FnOnce(&[u8]) + Send) {
        let list: WasmList<u8> = self.call(instance, func);
        contents(list.as_le_slice(&self.store));
    }

    async fn call_func_ret_s32(&mut self, instance: &str, func: &str) -> i32 {
        self.call(instance, func)
    }

    async fn call_func_ret_s64(&mut self, instance: &str, func: &str) -> i64 {
        self.call(instance, func)
    }

    async fn call_func_ret_f32(&mut self, instance: &str, func: &str) -> u32 {
        self.call::<f32>(instance, func).to_bits()
    }

    async fn call_func_ret_f64(&mut self, instance: &str, func: &str) -> u64 {
        self.call::<f64>(instance, func).to_bits()
    }
}

/// The value of a future that never waits (every call above is
/// synchronous).
fn ready<T>(future: impl Future<Output = T>) -> T {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => panic!("wizer's snapshot waited on something"),
    }
}
