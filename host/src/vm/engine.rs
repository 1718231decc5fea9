//! The wasmtime engine, the linker, and component loading with the
//! precompile cache.

use super::bindings::script::ScriptRuntimePre;
use super::bindings::{Harness, HarnessPre};
use super::gate;
use super::limits::Limits;
use super::sandbox::{InstanceState, SandboxHost};
use hwf_core::error::{Error, ErrorCode, Result};
use std::hash::{Hash, Hasher};
use std::sync::mpsc::Receiver;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;
use wasmtime::component::{Component, HasSelf, Linker};
use wasmtime::{Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store, UpdateDeadline};

/// How often the epoch advances; CPU, wall and stop checks run this often
/// while guest code executes.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Fuel per millisecond of the CPU limit. Guest CPU is measured in fuel
/// (about one unit per wasm instruction), not in time: host work, host
/// calls and a loaded machine do not count, and the same guest hits the
/// limit at the same instruction on every run. Calibrated on a 2-core
/// x86_64 machine (a tight loop retires ~8 million fuel per ms; see
/// `docs/BENCHMARKS.md`), so `cpu_ms` keeps roughly its meaning.
pub const FUEL_PER_CPU_MS: u64 = 8_000_000;

/// Live instances the pooling allocator is sized for.
const POOL_INSTANCES: u32 = 1_000;

/// Bytes at the top of a pooled fiber stack kept resident (zeroed with
/// memset) when it returns to the pool. 256 KiB cost ~7 µs per instance
/// (the pooled instantiation went from 9.6 to 16.3 µs); 64 KiB is ~2 µs,
/// and a run that goes deeper faults its pages back in.
const STACK_KEEP_RESIDENT: usize = 64 << 10;

/// How the engine allocates instances, linear memories, tables and the
/// fiber stacks guest code runs on. Either way every store has the same
/// limiter (memory per memory and per run, [`super::limits::MAX_TABLE_ELEMENTS`]
/// per table, [`super::limits::MAX_STORE_OBJECTS`] instances, tables and
/// memories), fuel and epochs, one memory per core module (multi-memory is
/// off, as the pool allows one), and the same compiled artifacts load (the
/// compile cache's key does not depend on it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum InstanceAllocation {
    /// One pool reserved and guarded when the engine is built, sized for
    /// 1,000 live instances: the fastest instantiation and slot reuse, at a
    /// set-up of a few ms (a guard page per fiber stack) and as much again
    /// to tear it down. For processes that run many workflows: `serve`,
    /// `mcp`, runners, embedders.
    #[default]
    Pooled,
    /// Each instance's memory, tables and stack mapped when it is created:
    /// nothing to set up, a few µs more per instantiation, no pool to run
    /// out of. For a process that runs one workflow and exits (`hwf run`).
    OnDemand,
}

/// Where compiled components are kept between processes (artifacts this
/// engine serialized, by a key that includes the engine's compatibility
/// hash): the store's port, defined in hwf-core, so the sandbox names no
/// store.
pub use hwf_core::store::CompileCache;

/// The engine, its epoch ticker, and a linker holding exactly the allowed
/// imports, the `hermes:workflow/host` ones answered by `H`.
///
/// Creating a `Vm` is free: the engine (whose pooling allocator reserves
/// and guards the address space of every slot, the bulk of a cached run's
/// set-up) and the linker are built on first use, so a command that runs
/// nothing never pays for them. [`prestart`] builds the engine on another
/// thread while the process does its other set-up.
pub struct Vm<H: SandboxHost> {
    allocation: InstanceAllocation,
    ready: OnceLock<std::result::Result<Ready<H>, String>>,
    /// Components this VM loaded from files, by path and file identity
    /// (see [`Vm::load_memoized`]); a few entries, newest last.
    memo: Mutex<Vec<Memoized<H>>>,
}

/// A file's identity as the memo compares it: device, inode, size and
/// modification time (ns). A file replaced (a new inode) or rewritten (a
/// new size or time) is another file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileIdentity {
    /// Device and inode.
    pub dev_ino: (u64, u64),
    /// Size in bytes.
    pub len: u64,
    /// Modification time, ns since the epoch.
    pub mtime_ns: i128,
}

impl FileIdentity {
    /// The identity of the file `meta` describes.
    pub fn of(meta: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        Self {
            dev_ino: (meta.dev(), meta.ino()),
            len: meta.len(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        }
    }
}

/// One entry of a [`Vm`]'s memo.
struct Memoized<H: SandboxHost> {
    path: std::path::PathBuf,
    identity: FileIdentity,
    loaded: LoadedComponent<H>,
}

/// Entries a [`Vm`]'s memo keeps (the bundled runtimes fit).
const MEMO_ENTRIES: usize = 8;

/// What a [`Vm`] builds on first use.
struct Ready<H: SandboxHost> {
    engine: Engine,
    linker: Linker<InstanceState<H>>,
    engine_key: String,
}

impl<H: SandboxHost> std::fmt::Debug for Vm<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let key = match self.ready.get() {
            Some(Ok(r)) => Some(r.engine_key.as_str()),
            _ => None,
        };
        f.debug_struct("Vm")
            .field("allocation", &self.allocation)
            .field("engine_key", &key)
            .finish_non_exhaustive()
    }
}

/// An engine being built on another thread by [`prestart`], for the first
/// [`Vm`] with the same allocation to take.
type Prestarted = (InstanceAllocation, Receiver<std::result::Result<Engine, String>>);
static PRESTARTED: Mutex<Option<Prestarted>> = Mutex::new(None);

/// Start building the engine on another thread now, so that the first
/// [`Vm`] to need it finds it ready (or waits less). The thread then
/// stays on as the engine's epoch ticker, so it costs no thread the VM
/// would not have started anyway. For a process about to run a component;
/// calling it more than once, or never using the engine, is harmless; a
/// [`Vm`] wanting another [`InstanceAllocation`] builds its own.
pub fn prestart(allocation: InstanceAllocation) {
    let Ok(mut slot) = PRESTARTED.lock() else { return };
    if slot.is_some() {
        return;
    }
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new().name("hwf-epoch".into()).spawn(move || {
        let built = build_engine(allocation);
        let weak = built.as_ref().ok().map(Engine::weak);
        // Buffered: never blocks, whether or not the engine is taken.
        let _ = tx.send(built);
        if let Some(weak) = weak {
            tick_epochs(&weak);
        }
    });
    match spawned {
        Ok(_) => *slot = Some((allocation, rx)),
        Err(e) => tracing::debug!(error = %e, "could not prestart the engine; it is built on first use"),
    }
}

/// The engine [`prestart`] began with `allocation`, if any (waiting for it
/// to be built); its epoch ticker is already running.
fn take_prestarted(allocation: InstanceAllocation) -> Option<std::result::Result<Engine, String>> {
    let mut slot = PRESTARTED.lock().ok()?;
    if slot.as_ref()?.0 != allocation {
        return None;
    }
    let (_, rx) = slot.take()?;
    drop(slot);
    Some(rx.recv().unwrap_or_else(|_| Err("the engine thread ended".to_owned())))
}

/// Advance the engine's epoch every [`EPOCH_TICK`] while it lives.
fn tick_epochs(weak: &wasmtime::EngineWeak) {
    while let Some(engine) = weak.upgrade() {
        engine.increment_epoch();
        drop(engine);
        std::thread::sleep(EPOCH_TICK);
    }
}

/// The wasmtime engine: [`hwf_engine::config`] (epoch interruption, fuel,
/// async, the stacks), instances allocated as `allocation` says.
fn build_engine(allocation: InstanceAllocation) -> std::result::Result<Engine, String> {
    let started = std::time::Instant::now();
    // The settings the bundled runtimes were precompiled with, too.
    let mut cfg = hwf_engine::config();
    if allocation == InstanceAllocation::Pooled {
        cfg.allocation_strategy(InstanceAllocationStrategy::Pooling(pool_config()));
        // A pooled fiber stack goes back to the pool zeroed: no guest reads
        // another's stack, and the pages a deep recursion touched (up to
        // `MAX_WASM_STACK`) are returned to the system instead of staying
        // resident in the slot.
        cfg.async_stack_zeroing(true);
    }
    let engine = Engine::new(&cfg).map_err(|e| format!("wasmtime engine: {e}"));
    tracing::debug!(?allocation, elapsed_us = started.elapsed().as_micros(), "engine built");
    engine
}

/// The compile cache's name for what `engine` compiles: its compatibility
/// hash and this version of hwf.
fn engine_key(engine: &Engine) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut h);
    env!("CARGO_PKG_VERSION").hash(&mut h);
    format!("{:016x}", h.finish())
}

/// The pool of [`InstanceAllocation::Pooled`], for [`POOL_INSTANCES`].
fn pool_config() -> PoolingAllocationConfig {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(POOL_INSTANCES)
        .total_core_instances(POOL_INSTANCES * 4)
        .total_memories(POOL_INSTANCES * 2)
        .total_tables(POOL_INSTANCES * 2)
        .total_stacks(POOL_INSTANCES)
        // The part of a returned stack zeroed with memset (kept resident):
        // what an ordinary run touches; the rest is decommitted.
        .async_stack_keep_resident(STACK_KEEP_RESIDENT)
        // Reset reused slots with memset instead of madvise so a fresh
        // instance does not page-fault its first pages back in.
        .linear_memory_keep_resident(1 << 20)
        .table_keep_resident(64 << 10)
        .pagemap_scan(wasmtime::Enabled::Auto);
    pool
}

impl<H: SandboxHost> Ready<H> {
    /// The engine (prestarted or built now), its epoch ticker, the linker.
    fn build(allocation: InstanceAllocation) -> std::result::Result<Self, String> {
        let started = std::time::Instant::now();
        let engine = match take_prestarted(allocation) {
            Some(prestarted) => prestarted?,
            None => {
                let engine = build_engine(allocation)?;
                let weak = engine.weak();
                std::thread::Builder::new()
                    .name("hwf-epoch".into())
                    .spawn(move || tick_epochs(&weak))
                    .map_err(|e| format!("epoch thread: {e}"))?;
                engine
            }
        };

        let mut linker = Linker::new(&engine);
        add_allowed_wasi(&mut linker).map_err(|e| format!("linker: {e}"))?;
        Harness::add_to_linker::<InstanceState<H>, HasSelf<H>>(&mut linker, InstanceState::host_mut)
            .map_err(|e| format!("linker: {e}"))?;

        let engine_key = engine_key(&engine);
        tracing::debug!(elapsed_us = started.elapsed().as_micros(), "engine ready");
        Ok(Self {
            engine,
            linker,
            engine_key,
        })
    }
}

/// A component that passed the gate and compiled, ready to instantiate
/// (cheap to clone).
pub struct LoadedComponent<H: SandboxHost> {
    /// `b3:<hex>` of the component bytes.
    pub digest: String,
    /// Its imports (all allowed).
    pub imports: Vec<String>,
    /// Whether it came from the precompile cache.
    pub from_cache: bool,
    pub(crate) pre: Pre<H>,
    /// For a script runtime: the script it runs (set with
    /// [`LoadedComponent::with_source`]).
    pub(crate) source: Option<std::sync::Arc<str>>,
}

impl<H: SandboxHost> LoadedComponent<H> {
    /// The engine the component was compiled for.
    fn engine(&self) -> &Engine {
        match &self.pre {
            Pre::Harness(p) => p.instance_pre().engine(),
            Pre::Script(p) => p.instance_pre().engine(),
        }
    }
}

impl<H: SandboxHost> Clone for LoadedComponent<H> {
    fn clone(&self) -> Self {
        Self {
            digest: self.digest.clone(),
            imports: self.imports.clone(),
            from_cache: self.from_cache,
            pre: self.pre.clone(),
            source: self.source.clone(),
        }
    }
}

/// Which world a component implements.
pub(crate) enum Pre<H: SandboxHost> {
    /// A compiled harness (`meta`, `run`, `branch`).
    Harness(HarnessPre<InstanceState<H>>),
    /// An interpreter (`check`, `run`, `branch` over a source text).
    Script(ScriptRuntimePre<InstanceState<H>>),
}

impl<H: SandboxHost> Clone for Pre<H> {
    fn clone(&self) -> Self {
        match self {
            Pre::Harness(p) => Pre::Harness(p.clone()),
            Pre::Script(p) => Pre::Script(p.clone()),
        }
    }
}

impl<H: SandboxHost> LoadedComponent<H> {
    /// Whether this is a script runtime rather than a harness.
    pub fn is_script_runtime(&self) -> bool {
        matches!(self.pre, Pre::Script(_))
    }

    /// Bind the script a script runtime runs.
    pub fn with_source(mut self, source: std::sync::Arc<str>) -> Self {
        self.source = Some(source);
        self
    }
}

impl<H: SandboxHost> std::fmt::Debug for LoadedComponent<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedComponent")
            .field("digest", &self.digest)
            .finish_non_exhaustive()
    }
}

impl<H: SandboxHost> Vm<H> {
    /// A VM with a pooled engine ([`InstanceAllocation::Pooled`]), built
    /// on first use (see [`prestart`]).
    ///
    /// # Errors
    ///
    /// None today: a configuration wasmtime refuses is reported, as
    /// `internal`, by the first call that needs the engine.
    pub fn new() -> Result<Self> {
        Ok(Self::with_allocation(InstanceAllocation::Pooled))
    }

    /// A VM whose engine allocates instances as `allocation` says, built
    /// on first use (see [`prestart`]).
    pub fn with_allocation(allocation: InstanceAllocation) -> Self {
        Self {
            allocation,
            ready: OnceLock::new(),
            memo: Mutex::new(Vec::new()),
        }
    }

    /// The memo, whatever a panicking holder left in it (entries are
    /// whole: pushed and removed under the lock).
    fn memo(&self) -> std::sync::MutexGuard<'_, Vec<Memoized<H>>> {
        self.memo.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The component at `path` as this VM last loaded it, when the file is
    /// still the same one (`identity`); otherwise `load` (which reads,
    /// gates and loads it) and remember the result. A long-lived process
    /// (`serve`, `mcp`, a runner) then runs a script runtime again without
    /// reading, hashing and gating its megabytes each time.
    ///
    /// # Errors
    ///
    /// What `load` returns (an error is not remembered).
    pub fn load_memoized(
        &self,
        path: &std::path::Path,
        identity: FileIdentity,
        load: impl FnOnce() -> Result<LoadedComponent<H>>,
    ) -> Result<LoadedComponent<H>> {
        if let Some(hit) = self.memo().iter().find(|m| m.path == path && m.identity == identity) {
            return Ok(hit.loaded.clone());
        }
        let loaded = load()?;
        let mut memo = self.memo();
        memo.retain(|m| m.path != path);
        if memo.len() >= MEMO_ENTRIES {
            memo.remove(0);
        }
        memo.push(Memoized {
            path: path.to_path_buf(),
            identity,
            loaded: loaded.clone(),
        });
        Ok(loaded)
    }

    /// How this VM's engine allocates instances.
    pub fn allocation(&self) -> InstanceAllocation {
        self.allocation
    }

    /// The engine and linker, built on the first call.
    fn ready(&self) -> Result<&Ready<H>> {
        match self.ready.get_or_init(|| Ready::build(self.allocation)) {
            Ok(ready) => Ok(ready),
            Err(e) => Err(Error::new(ErrorCode::Internal, e.clone())),
        }
    }

    /// The wasmtime engine (built now if it was not yet).
    ///
    /// # Errors
    ///
    /// `internal` when wasmtime refuses the configuration.
    pub fn engine(&self) -> Result<&Engine> {
        Ok(&self.ready()?.engine)
    }

    /// The name the compile cache keeps `bytes`' artifact under for this
    /// engine: the component's digest and the engine's compatibility key.
    ///
    /// # Errors
    ///
    /// `internal` when wasmtime refuses the configuration.
    pub fn cache_key(&self, bytes: &[u8]) -> Result<String> {
        Ok(artifact_key(&blake3::hash(bytes), &self.ready()?.engine_key))
    }

    /// Gate, compile (or load from the cache in `cache`), and pre-link a
    /// component.
    ///
    /// # Errors
    ///
    /// The gate's codes (`component_too_large`, `not_a_component`,
    /// `invalid_component`, `forbidden_import`), `invalid_component` when
    /// wasmtime refuses it, `missing_export` when it is not a harness.
    pub fn load(&self, bytes: &[u8], cache: Option<&dyn CompileCache>, limits: &Limits) -> Result<LoadedComponent<H>> {
        self.load_gated(bytes, cache, limits, gate::Gate::Harness)
    }

    /// [`Vm::load`] with a chosen gate: bundled script runtimes may also
    /// import `wasi:filesystem` (linked with no preopens: nothing to reach).
    ///
    /// # Errors
    ///
    /// As [`Vm::load`].
    pub fn load_gated(
        &self,
        bytes: &[u8],
        cache: Option<&dyn CompileCache>,
        limits: &Limits,
        which: gate::Gate,
    ) -> Result<LoadedComponent<H>> {
        self.load_observed(bytes, cache, limits, which, None)
    }

    /// [`Vm::load_gated`], telling `hook` about a compile the cache could
    /// not spare (and letting it serialise compiles of the same component
    /// across processes).
    ///
    /// # Errors
    ///
    /// As [`Vm::load`].
    pub fn load_observed(
        &self,
        bytes: &[u8],
        cache: Option<&dyn CompileCache>,
        limits: &Limits,
        which: gate::Gate,
        hook: Option<&dyn CompileHook>,
    ) -> Result<LoadedComponent<H>> {
        let imports = gate::check_component_with(bytes, limits.max_component_bytes, which)?;
        let hash = blake3::hash(bytes);
        let digest = format!("b3:{}", hash.to_hex());
        let ready = self.ready()?;
        let key = artifact_key(&hash, &ready.engine_key);
        let mut component = cache.and_then(|c| ready.cached(c, &key));
        let mut from_cache = true;
        if component.is_none() {
            // Another process may be compiling the same component: wait
            // for it and take its artifact rather than compile it twice.
            let _guard = match (cache, hook) {
                (Some(_), Some(h)) => h.lock(&key),
                _ => None,
            };
            component = cache.and_then(|c| ready.cached(c, &key));
            if component.is_none() {
                if let Some(h) = hook {
                    h.compiling(&key);
                }
                let started = std::time::Instant::now();
                component = Some(ready.compile(bytes, cache, &key)?);
                from_cache = false;
                if let Some(h) = hook {
                    h.compiled(&key, started.elapsed());
                }
            }
        }
        let Some(component) = component else {
            return Err(Error::new(ErrorCode::Internal, "no component after compiling"));
        };
        ready.link(component, digest, imports, from_cache)
    }

    /// Load a component its owner holds as a digest plus, at a cost, its
    /// bytes and a precompiled artifact (a runtime embedded compressed in
    /// the binary): from the compile cache when it is there; else from
    /// [`Bundle::precompiled`] when wasmtime accepts that artifact for this
    /// engine (it checks the artifact's compatibility header: wasmtime
    /// version, target, CPU flags, tunables, features), which is then
    /// written to the cache for the next process; else compiled from
    /// [`Bundle::component`] as [`Vm::load_observed`] does, told to `hook`.
    /// A component that did not go through the byte-level gate has its
    /// import names (as wasmtime lists them) checked against the same
    /// allow-list.
    ///
    /// # Errors
    ///
    /// As [`Vm::load`], and what [`Bundle::component`] returns.
    pub fn load_bundled(
        &self,
        bundle: &dyn Bundle,
        cache: Option<&dyn CompileCache>,
        limits: &Limits,
        which: gate::Gate,
        hook: Option<&dyn CompileHook>,
    ) -> Result<LoadedComponent<H>> {
        let hash = bundle.digest();
        let ready = self.ready()?;
        let key = artifact_key(&hash, &ready.engine_key);
        let component = match cache.and_then(|c| ready.cached(c, &key)) {
            Some(c) => c,
            None => match ready.precompiled(bundle, cache, &key) {
                Some(c) => c,
                None => {
                    let bytes = bundle.component()?;
                    return self.load_observed(&bytes, cache, limits, which, hook);
                }
            },
        };
        // As the byte-level gate reads them: type imports carry no
        // behaviour; an `implements` annotation is gated too.
        let mut names = Vec::new();
        for (name, item) in component.component_type().imports(&ready.engine) {
            if matches!(item.ty, wasmtime::component::types::ComponentItem::Type(_)) {
                continue;
            }
            names.push(name.to_owned());
            names.extend(item.implements.map(str::to_owned));
        }
        let imports = gate::check_import_names(names, which)?;
        ready.link(component, format!("b3:{}", hash.to_hex()), imports, true)
    }
}

impl<H: SandboxHost> Ready<H> {
    /// Pre-link a compiled component and tell which world it implements.
    fn link(
        &self,
        component: Component,
        digest: String,
        imports: Vec<String>,
        from_cache: bool,
    ) -> Result<LoadedComponent<H>> {
        let instance_pre = self.linker.instantiate_pre(&component).map_err(|e| {
            Error::new(
                ErrorCode::ForbiddenImport,
                format!("the component's imports cannot be satisfied: {e}"),
            )
        })?;
        let pre = match HarnessPre::new(instance_pre.clone()) {
            Ok(p) => Pre::Harness(p),
            Err(harness_err) => match ScriptRuntimePre::new(instance_pre) {
                Ok(p) => Pre::Script(p),
                Err(_) => {
                    return Err(Error::new(
                        ErrorCode::MissingExport,
                        format!("the component is not an hwf harness (meta/run/branch exports): {harness_err}"),
                    ));
                }
            },
        };
        tracing::debug!(%digest, from_cache, "component ready");
        Ok(LoadedComponent {
            digest,
            imports,
            from_cache,
            pre,
            source: None,
        })
    }
}

impl<H: SandboxHost> Vm<H> {
    /// A fresh store for one instance of `component`: memory limiter,
    /// epoch deadline, and the tick callback (stop, CPU, wall).
    pub fn new_store(&self, component: &LoadedComponent<H>, state: InstanceState<H>) -> Store<InstanceState<H>> {
        let mut store = Store::new(component.engine(), state);
        store.limiter(|s| &mut s.limiter);
        let fuel = store.data().cpu_ms().saturating_mul(FUEL_PER_CPU_MS);
        // Fuel is always set: a store with fuel on and none set traps at once.
        if let Err(e) = store.set_fuel(fuel) {
            tracing::error!(error = %e, "could not set the instance's fuel");
        }
        store.set_epoch_deadline(1);
        store.epoch_deadline_callback(move |ctx| {
            ctx.data().host().check_tick().map_err(wasmtime::Error::new)?;
            Ok(UpdateDeadline::Yield(1))
        });
        store
    }
}

impl<H: SandboxHost> Ready<H> {
    /// The artifact cached under `key`, mapped rather than read (an
    /// unusable one is ignored: it is compiled again).
    fn cached(&self, cache: &dyn CompileCache, key: &str) -> Option<Component> {
        let path = cache.artifact_path(key)?;
        // SAFETY: the cache holds only artifacts this engine configuration
        // serialized (the key includes the engine's compatibility hash),
        // written atomically by `put_artifact`.
        #[expect(unsafe_code, reason = "loading our own precompiled artifact via mmap")]
        let loaded = unsafe { Component::deserialize_file(&self.engine, &path) };
        match loaded {
            Ok(c) => Some(c),
            Err(e) => {
                tracing::warn!(error = %e, "ignoring unusable cache entry");
                None
            }
        }
    }

    /// The bundle's precompiled artifact, when it has one and wasmtime
    /// accepts it for this engine; kept in `cache` under `key` so the next
    /// process maps it instead.
    fn precompiled(&self, bundle: &dyn Bundle, cache: Option<&dyn CompileCache>, key: &str) -> Option<Component> {
        let started = std::time::Instant::now();
        let artifact = bundle.precompiled()?;
        // SAFETY: the artifact was made by this binary's own build with the
        // engine settings this engine has (`hwf_engine::config`), and
        // wasmtime refuses one whose compatibility header (version, target,
        // CPU flags, tunables, features) does not match this engine.
        #[expect(unsafe_code, reason = "loading the binary's own precompiled runtime")]
        let loaded = unsafe { Component::deserialize(&self.engine, &artifact) };
        let component = match loaded {
            Ok(c) => c,
            Err(e) => {
                tracing::info!(error = %e, "the precompiled artifact does not fit this engine; compiling instead");
                return None;
            }
        };
        if let Some(store) = cache
            && let Err(e) = store.put_artifact(key, &artifact)
        {
            tracing::warn!(error = %e, "could not write the compile cache");
        }
        tracing::debug!(
            elapsed_us = started.elapsed().as_micros(),
            bytes = artifact.len(),
            "precompiled component loaded"
        );
        Some(component)
    }

    /// Compile `bytes` and keep the artifact in `cache` under `key`.
    fn compile(&self, bytes: &[u8], cache: Option<&dyn CompileCache>, key: &str) -> Result<Component> {
        let c = Component::new(&self.engine, bytes).map_err(|e| {
            Error::new(
                ErrorCode::InvalidComponent,
                format!("wasmtime refused the component: {e}"),
            )
        })?;
        if let Some(store) = cache {
            match c.serialize() {
                Ok(art) => {
                    if let Err(e) = store.put_artifact(key, &art) {
                        tracing::warn!(error = %e, "could not write the compile cache");
                    }
                }
                Err(e) => tracing::warn!(error = %e, "could not serialize the component"),
            }
        }
        Ok(c)
    }
}

/// The compile cache's name for a component's artifact under an engine.
fn artifact_key(hash: &blake3::Hash, engine_key: &str) -> String {
    format!("{}-{engine_key}.cwasm", &hash.to_hex()[..32])
}

/// A component held as a digest and, at a cost, as bytes and as an
/// artifact precompiled for some engine (see [`Vm::load_bundled`]).
pub trait Bundle {
    /// The BLAKE3 hash of [`Bundle::component`]'s bytes.
    fn digest(&self) -> blake3::Hash;
    /// An artifact precompiled with [`hwf_engine::config`] (which wasmtime
    /// may still refuse for this engine), if there is one.
    fn precompiled(&self) -> Option<Vec<u8>>;
    /// The component's bytes.
    ///
    /// # Errors
    ///
    /// Whatever producing them can fail with.
    fn component(&self) -> Result<Vec<u8>>;
}

/// Told about a compile the cache could not spare (a component's first
/// run under this engine), e.g. to show progress and to keep two processes
/// from compiling the same component at once.
pub trait CompileHook {
    /// Called before compiling `key`: a guard held until the artifact is
    /// written (a lock another process compiling the same key holds, so
    /// that returning from here may find the artifact cached), or `None`.
    fn lock(&self, key: &str) -> Option<Box<dyn std::any::Any>>;
    /// The compile of `key` starts (nothing cached, even after the lock).
    fn compiling(&self, key: &str);
    /// The compile of `key` took `elapsed`.
    fn compiled(&self, key: &str, elapsed: Duration);
}

/// Link only the WASI interfaces the gate allows: cli, io, clocks, random.
fn add_allowed_wasi<H: SandboxHost>(l: &mut Linker<InstanceState<H>>) -> wasmtime::Result<()> {
    use wasmtime_wasi::cli::{WasiCli, WasiCliView};
    use wasmtime_wasi::clocks::{WasiClocks, WasiClocksView};
    use wasmtime_wasi::p2::bindings::{cli, clocks, random};
    use wasmtime_wasi::random::WasiRandom;
    wasmtime_wasi_io::bindings::wasi::io::error::add_to_linker::<InstanceState<H>, HasIo>(l, io_table::<H>)?;
    wasmtime_wasi_io::bindings::wasi::io::poll::add_to_linker::<InstanceState<H>, HasIo>(l, io_table::<H>)?;
    wasmtime_wasi_io::bindings::wasi::io::streams::add_to_linker::<InstanceState<H>, HasIo>(l, io_table::<H>)?;
    clocks::wall_clock::add_to_linker::<InstanceState<H>, WasiClocks>(l, |t| t.clocks())?;
    // The monotonic clock is hwf's own: virtual, and sleeps never block.
    clocks::monotonic_clock::add_to_linker::<InstanceState<H>, super::wasi::VirtualClock>(
        l,
        InstanceState::clock_view,
    )?;
    random::random::add_to_linker::<InstanceState<H>, WasiRandom>(l, |t| wasmtime_wasi::WasiView::ctx(t).ctx.random())?;
    random::insecure::add_to_linker::<InstanceState<H>, WasiRandom>(l, |t| {
        wasmtime_wasi::WasiView::ctx(t).ctx.random()
    })?;
    random::insecure_seed::add_to_linker::<InstanceState<H>, WasiRandom>(l, |t| {
        wasmtime_wasi::WasiView::ctx(t).ctx.random()
    })?;
    cli::exit::add_to_linker::<InstanceState<H>, WasiCli>(l, |t| t.cli())?;
    cli::environment::add_to_linker::<InstanceState<H>, WasiCli>(l, |t| t.cli())?;
    cli::stdin::add_to_linker::<InstanceState<H>, WasiCli>(l, |t| t.cli())?;
    cli::stdout::add_to_linker::<InstanceState<H>, WasiCli>(l, |t| t.cli())?;
    cli::stderr::add_to_linker::<InstanceState<H>, WasiCli>(l, |t| t.cli())?;
    cli::terminal_input::add_to_linker::<InstanceState<H>, WasiCli>(l, |t| t.cli())?;
    cli::terminal_output::add_to_linker::<InstanceState<H>, WasiCli>(l, |t| t.cli())?;
    cli::terminal_stdin::add_to_linker::<InstanceState<H>, WasiCli>(l, |t| t.cli())?;
    cli::terminal_stdout::add_to_linker::<InstanceState<H>, WasiCli>(l, |t| t.cli())?;
    cli::terminal_stderr::add_to_linker::<InstanceState<H>, WasiCli>(l, |t| t.cli())?;
    // Filesystem, for the bundled script runtimes only (the gate refuses it
    // for everything else). The context has no preopens, so there is no
    // directory to reach: every path operation fails.
    use wasmtime_wasi::filesystem::{WasiFilesystem, WasiFilesystemView};
    wasmtime_wasi::p2::bindings::filesystem::types::add_to_linker::<InstanceState<H>, WasiFilesystem>(l, |t| {
        t.filesystem()
    })?;
    wasmtime_wasi::p2::bindings::filesystem::preopens::add_to_linker::<InstanceState<H>, WasiFilesystem>(l, |t| {
        t.filesystem()
    })?;
    Ok(())
}

struct HasIo;

impl wasmtime::component::HasData for HasIo {
    type Data<'a> = &'a mut wasmtime::component::ResourceTable;
}

fn io_table<H: SandboxHost>(t: &mut InstanceState<H>) -> &mut wasmtime::component::ResourceTable {
    wasmtime_wasi::WasiView::ctx(t).table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_allocations_share_one_compile_cache_key() {
        // `hwf run` (on demand) and `hwf serve` (pooled) must find each
        // other's compiled runtimes in the per-user cache.
        let pooled = build_engine(InstanceAllocation::Pooled).expect("pooled");
        let on_demand = build_engine(InstanceAllocation::OnDemand).expect("on demand");
        assert_eq!(engine_key(&pooled), engine_key(&on_demand));
    }

    /// A compile cache in a directory.
    struct Dir(std::path::PathBuf);

    impl CompileCache for Dir {
        fn artifact_path(&self, key: &str) -> Option<std::path::PathBuf> {
            Some(self.0.join(key)).filter(|p| p.is_file())
        }
        fn put_artifact(&self, key: &str, artifact: &[u8]) -> Result<()> {
            std::fs::write(self.0.join(key), artifact).map_err(|e| Error::io("artifact", e))
        }
    }

    /// The hello harness as a bundle, counting how often it had to be
    /// decompressed (compiled).
    struct Hello {
        bytes: Vec<u8>,
        artifact: Option<Vec<u8>>,
        compiled: std::sync::atomic::AtomicUsize,
    }

    impl Bundle for Hello {
        fn digest(&self) -> blake3::Hash {
            blake3::hash(&self.bytes)
        }
        fn precompiled(&self) -> Option<Vec<u8>> {
            self.artifact.clone()
        }
        fn component(&self) -> Result<Vec<u8>> {
            self.compiled.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(self.bytes.clone())
        }
    }

    #[test]
    fn a_bundle_loads_its_artifact_when_it_fits_and_compiles_when_it_does_not() {
        let bytes = std::fs::read(hwf_tests::harnesses::HELLO).expect("hello.wasm");
        let precompile = |cfg: &wasmtime::Config| {
            Engine::new(cfg)
                .and_then(|e| e.precompile_component(&bytes))
                .expect("precompile")
        };
        let limits = Limits::default();
        let load = |artifact: Option<Vec<u8>>| {
            let dir = tempfile::tempdir().expect("tempdir");
            let vm: Vm<crate::broker::wit_host::WitHost> = Vm::with_allocation(InstanceAllocation::OnDemand);
            let bundle = Hello {
                bytes: bytes.clone(),
                artifact,
                compiled: Default::default(),
            };
            let cache = Dir(dir.path().to_path_buf());
            let loaded = vm
                .load_bundled(&bundle, Some(&cache), &limits, gate::Gate::Harness, None)
                .expect("loads");
            assert_eq!(loaded.digest, format!("b3:{}", blake3::hash(&bytes).to_hex()));
            assert!(
                std::fs::read_dir(dir.path()).expect("cache").count() > 0,
                "the artifact is cached for the next process"
            );
            bundle.compiled.load(std::sync::atomic::Ordering::SeqCst)
        };
        // Precompiled with the engine settings hwf runs with: nothing compiles.
        assert_eq!(load(Some(precompile(&hwf_engine::config()))), 0);
        // Precompiled with other settings (no fuel): wasmtime refuses it, and
        // the component compiles instead; likewise with no artifact at all.
        let mut other = hwf_engine::config();
        other.consume_fuel(false);
        assert_eq!(load(Some(precompile(&other))), 1);
        assert_eq!(load(Some(b"not an artifact".to_vec())), 1);
        assert_eq!(load(None), 1);
    }

    #[test]
    fn a_prestarted_engine_goes_only_to_a_vm_of_its_allocation() {
        prestart(InstanceAllocation::OnDemand);
        assert!(
            take_prestarted(InstanceAllocation::Pooled).is_none(),
            "not taken by a pooled VM"
        );
        let taken = take_prestarted(InstanceAllocation::OnDemand).expect("taken by its own kind");
        assert!(taken.is_ok());
    }
}
