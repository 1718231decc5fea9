//! One instance's sandbox: the store data (locked-down WASI, virtual
//! clocks, memory limiter, captured output) around a host `H` that answers
//! the `hermes:workflow/host` imports, and calling an export in it.
//!
//! The sandbox does not know who answers the imports: `H` is any
//! [`SandboxHost`] (the broker's WIT host, or one whose imports all trap
//! for `meta`/`check`), the way `wasmtime-wasi` is generic over its
//! `WasiView`.

use super::bindings::hermes::workflow::types::{Diagnostic, Meta, Severity};
use super::bindings::hermes::workflow::{host, types};
pub use super::bindings::script::Checked;
use super::engine::{LoadedComponent, Pre, Vm};
use super::limits::{HostTrap, Limits, MemoryLimiter, RunMemory};
use super::wasi::{Capture, VirtualClockView, VirtualTime, locked_down_ctx};
use hwf_core::error::{Error, ErrorCode};
use std::sync::Arc;
use std::time::Duration;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

/// What answers an instance's `hermes:workflow/host` imports, plus the
/// check the engine makes on every epoch tick while guest code runs.
pub trait SandboxHost: host::Host + types::Host + Send + 'static {
    /// Checks made on every epoch tick (a stop, the run's wall clock).
    ///
    /// # Errors
    ///
    /// The trap that ends the instance.
    fn check_tick(&self) -> Result<(), HostTrap>;
}

/// How one instance's sandbox is set up.
#[derive(Debug, Clone)]
pub struct InstanceConfig {
    /// Seed of the guest's random and insecure-random streams.
    pub seed: [u8; 32],
    /// Where the virtual clocks start (ms since the Unix epoch).
    pub epoch_ms: u64,
    /// CPU limit (ms, metered as fuel).
    pub cpu_ms: u64,
    /// Linear memory limit per memory (bytes).
    pub memory_bytes: u64,
    /// stdout + stderr captured at most (bytes; more traps).
    pub max_output_bytes: u64,
    /// The run-wide memory budget the instance also draws from.
    pub run_memory: Option<Arc<RunMemory>>,
}

impl InstanceConfig {
    /// The sandbox `limits` describe, with the clocks at `epoch_ms`.
    pub fn from_limits(limits: &Limits, seed: [u8; 32], epoch_ms: u64) -> Self {
        Self {
            seed,
            epoch_ms,
            cpu_ms: limits.cpu_ms,
            memory_bytes: limits.memory_bytes,
            max_output_bytes: limits.max_output_bytes,
            run_memory: None,
        }
    }

    /// Also draw from `budget`.
    pub fn with_run_memory(mut self, budget: Arc<RunMemory>) -> Self {
        self.run_memory = Some(budget);
        self
    }
}

/// Data of one wasmtime `Store`: the locked-down WASI, the memory limiter,
/// the captured output and the host answering the imports.
pub struct InstanceState<H> {
    wasi: WasiCtx,
    table: ResourceTable,
    time: Arc<VirtualTime>,
    pub(crate) limiter: MemoryLimiter,
    stdout: Capture,
    cpu_ms: u64,
    host: H,
}

impl<H: std::fmt::Debug> std::fmt::Debug for InstanceState<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstanceState")
            .field("host", &self.host)
            .finish_non_exhaustive()
    }
}

impl<H> InstanceState<H> {
    /// Store data for one instance answering imports with `host`.
    ///
    /// # Errors
    ///
    /// `memory_limit` when the run's budget cannot hold one more instance.
    pub fn new(config: &InstanceConfig, host: H) -> Result<Self, Error> {
        let mut limiter = MemoryLimiter::new(config.memory_bytes);
        if let Some(run) = &config.run_memory {
            limiter = limiter
                .with_run(run.clone())
                .map_err(|t| Error::new(t.code, t.message))?;
        }
        let (out, err) = Capture::pair(config.max_output_bytes);
        let time = VirtualTime::new(config.epoch_ms, config.cpu_ms);
        let wasi = locked_down_ctx(config.seed, &time, out.clone(), err);
        Ok(Self {
            wasi,
            table: ResourceTable::new(),
            time,
            limiter,
            stdout: out,
            cpu_ms: config.cpu_ms,
            host,
        })
    }

    /// The host answering the imports.
    pub fn host(&self) -> &H {
        &self.host
    }

    /// The host answering the imports (mutable; for the linker).
    pub fn host_mut(&mut self) -> &mut H {
        &mut self.host
    }

    /// The virtual monotonic clock's view (for the linker).
    pub(crate) fn clock_view(&mut self) -> VirtualClockView<'_> {
        VirtualClockView {
            time: &self.time,
            table: &mut self.table,
        }
    }

    /// Take the captured output so far.
    pub fn take_output(&self) -> InstanceOutput {
        let (stdout, stderr) = self.stdout.take();
        InstanceOutput { stdout, stderr }
    }

    /// The instance's CPU limit (ms), converted to fuel by the engine.
    pub fn cpu_ms(&self) -> u64 {
        self.cpu_ms
    }

    /// A copy of the captured stderr (to name a panic), leaving the output
    /// in place to be journaled.
    pub fn peek_stderr(&self) -> Vec<u8> {
        self.stdout.stderr_copy()
    }
}

impl<H: Send> WasiView for InstanceState<H> {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// What one instance produced besides its result: captured output.
#[derive(Debug, Default)]
pub struct InstanceOutput {
    /// Captured stdout.
    pub stdout: Vec<u8>,
    /// Captured stderr.
    pub stderr: Vec<u8>,
}

/// What an instance's export answered: the guest's `Ok(json)` or
/// `Err(message)`, or a typed error when it trapped or hit a limit.
pub type Answer = Result<Result<String, String>, Error>;

/// Which export to call.
#[derive(Debug, Clone, Copy)]
pub enum Export<'a> {
    /// `run(args)`.
    Run {
        /// JSON text.
        args: &'a String,
    },
    /// `branch(name, input)`.
    Branch {
        /// Branch name.
        name: &'a String,
        /// JSON text.
        input: &'a String,
    },
}

/// A wall-clock bound on one export call.
#[derive(Debug, Clone, Copy)]
pub struct WallLimit {
    /// Time left.
    pub left: Duration,
    /// The limit as configured (ms), named in the error.
    pub limit_ms: u64,
}

/// How long `meta()` or a runtime's `check()` may take (wall time; its CPU
/// is bounded by fuel like any instance, and sleeps are virtual).
pub const DESCRIBE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a run's instance waits for the pooled engine to have a free
/// component-instance slot (a runner with many runs in flight, each with
/// its branches, can hold all 1,000) before its call fails: the slots free
/// as other instances end.
pub const POOL_WAIT: Duration = Duration::from_secs(60);

/// Whether instantiating failed only because every component-instance slot
/// of the pool is taken. That check comes before anything is put in the
/// store, so trying again in the same store is safe (the other pool limits,
/// hit part-way through, are not retried).
fn pool_full(e: &wasmtime::Error) -> bool {
    e.downcast_ref::<wasmtime::PoolConcurrencyLimitError>()
        .is_some_and(|p| p.to_string().contains("component instances"))
}

/// `$pre.instantiate_async(&mut $store)`, waiting (up to [`POOL_WAIT`])
/// while the pool is full.
macro_rules! instantiate_when_free {
    ($pre:expr, $store:expr) => {{
        let mut waited = Duration::ZERO;
        let mut pause = Duration::from_millis(2);
        loop {
            match $pre.instantiate_async(&mut $store).await {
                Err(e) if pool_full(&e) && waited < POOL_WAIT => {
                    if waited.is_zero() {
                        tracing::debug!("the instance pool is full; waiting for a free slot");
                    }
                    tokio::time::sleep(pause).await;
                    waited += pause;
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                r => break r,
            }
        }
    }};
}

impl<H: SandboxHost> Vm<H> {
    /// Instantiate `component` in a fresh store over `state` and call
    /// `export`, bounded by `wall` if given. The output captured so far is
    /// returned whatever happened.
    pub async fn call_export(
        &self,
        component: &LoadedComponent<H>,
        state: InstanceState<H>,
        export: Export<'_>,
        wall: Option<WallLimit>,
    ) -> (Answer, InstanceOutput) {
        let mut store = self.new_store(component, state);
        let fuel_at_start = store.get_fuel().unwrap_or(0);
        let result = {
            let call = async {
                let source = component.source.as_deref().unwrap_or("").to_owned();
                let source = &source;
                match (&component.pre, export) {
                    (Pre::Harness(pre), Export::Run { args }) => {
                        let h = instantiate_when_free!(pre, store)?;
                        h.call_run(&mut store, args).await
                    }
                    (Pre::Script(pre), Export::Run { args }) => {
                        let h = instantiate_when_free!(pre, store)?;
                        h.call_run(&mut store, source, args).await
                    }
                    (Pre::Harness(pre), Export::Branch { name, input }) => {
                        let h = instantiate_when_free!(pre, store)?;
                        h.call_branch(&mut store, name, input).await
                    }
                    (Pre::Script(pre), Export::Branch { name, input }) => {
                        let h = instantiate_when_free!(pre, store)?;
                        h.call_branch(&mut store, source, name, input).await
                    }
                }
            };
            match wall {
                Some(w) => match tokio::time::timeout(w.left, call).await {
                    Ok(r) => r.map_err(|e| classify(e, &store.data().peek_stderr())),
                    Err(_) => Err(Error::new(
                        ErrorCode::Timeout,
                        format!("the run exceeded its wall-clock limit of {} ms", w.limit_ms),
                    )),
                },
                None => call.await.map_err(|e| classify(e, &store.data().peek_stderr())),
            }
        };
        // The guest's work, deterministic where CPU time is not (what a
        // change to a runtime costs per call: `-vv`).
        tracing::debug!(
            fuel_used = fuel_at_start.saturating_sub(store.get_fuel().unwrap_or(0)),
            "instance finished"
        );
        let output = store.data().take_output();
        (result, output)
    }

    /// Instantiate the component and call its `meta` export (a script
    /// runtime: its `check`, whose diagnostics become one error).
    ///
    /// # Errors
    ///
    /// A typed [`Error`] when the instance trapped or hit a limit.
    pub async fn call_meta(&self, component: &LoadedComponent<H>, state: InstanceState<H>) -> Result<Meta, Error> {
        match &component.pre {
            Pre::Harness(pre) => {
                let mut store = self.new_store(component, state);
                let call = async {
                    let harness = pre.instantiate_async(&mut store).await.map_err(|e| classify(e, &[]))?;
                    harness
                        .call_meta(&mut store)
                        .await
                        .map_err(|e| classify(e, &store.data().peek_stderr()))
                };
                within_describe_limit("meta()", call).await
            }
            Pre::Script(_) => match self.call_check(component, state).await? {
                Ok(checked) => Ok(checked.meta),
                Err(diags) => Err(diagnostics_error(&diags)),
            },
        }
    }

    /// Instantiate a script runtime and `check` its source: its meta and
    /// warnings.
    ///
    /// # Errors
    ///
    /// A typed [`Error`] when the instance trapped; the script's own
    /// problems are the inner `Err`.
    pub async fn call_check(
        &self,
        component: &LoadedComponent<H>,
        state: InstanceState<H>,
    ) -> Result<Result<Checked, Vec<Diagnostic>>, Error> {
        let Pre::Script(pre) = &component.pre else {
            return Err(Error::new(ErrorCode::Internal, "check needs a script runtime"));
        };
        let mut store = self.new_store(component, state);
        let call = async {
            let h = pre.instantiate_async(&mut store).await.map_err(|e| classify(e, &[]))?;
            let source = component.source.as_deref().unwrap_or("").to_owned();
            h.call_check(&mut store, &source)
                .await
                .map_err(|e| classify(e, &store.data().peek_stderr()))
        };
        within_describe_limit("check()", call).await
    }

    /// Instantiate the component in a fresh store and drop it (benchmarks).
    ///
    /// # Errors
    ///
    /// A typed [`Error`] when instantiation fails.
    pub async fn instantiate_only(&self, component: &LoadedComponent<H>, state: InstanceState<H>) -> Result<(), Error> {
        let mut store = self.new_store(component, state);
        match &component.pre {
            Pre::Harness(pre) => {
                pre.instantiate_async(&mut store).await.map_err(|e| classify(e, &[]))?;
            }
            Pre::Script(pre) => {
                pre.instantiate_async(&mut store).await.map_err(|e| classify(e, &[]))?;
            }
        }
        Ok(())
    }
}

async fn within_describe_limit<T>(
    what: &str,
    f: impl std::future::Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    match tokio::time::timeout(DESCRIBE_TIMEOUT, f).await {
        Ok(r) => r,
        Err(_) => Err(Error::new(
            ErrorCode::Timeout,
            format!("{what} took longer than {} s", DESCRIBE_TIMEOUT.as_secs()),
        )),
    }
}

/// A script's diagnostics as one `invalid_script` error (the first error
/// named, the rest counted).
pub fn diagnostics_error(diags: &[Diagnostic]) -> Error {
    let errors: Vec<&Diagnostic> = diags.iter().filter(|d| matches!(d.severity, Severity::Error)).collect();
    let first = errors.first().copied().or(diags.first());
    let text = first.map_or("the script is invalid".to_owned(), |d| {
        let at = d
            .pointer
            .clone()
            .or_else(|| d.line.map(|l| format!("line {l}")))
            .unwrap_or_default();
        format!(
            "{}: {}{}",
            d.code,
            d.message,
            if at.is_empty() {
                String::new()
            } else {
                format!(" (at {at})")
            }
        )
    });
    let more = if errors.len() > 1 {
        format!(" (and {} more)", errors.len() - 1)
    } else {
        String::new()
    };
    Error::new(ErrorCode::InvalidScript, format!("{text}{more}"))
}

/// Turn a wasmtime error into a typed [`Error`]. `stderr` (what the guest
/// printed) supplies the panic message of a Rust guest.
pub fn classify(err: wasmtime::Error, stderr: &[u8]) -> Error {
    if let Some(t) = err.downcast_ref::<HostTrap>() {
        return Error::new(t.code, t.message.clone());
    }
    if let Some(exit) = err.downcast_ref::<wasmtime_wasi::I32Exit>() {
        return Error::new(
            ErrorCode::GuestExit,
            format!("the guest exited with status {} instead of returning a result", exit.0),
        );
    }
    if let Some(trap) = err.downcast_ref::<wasmtime::Trap>() {
        let code = match trap {
            wasmtime::Trap::StackOverflow => ErrorCode::StackOverflow,
            wasmtime::Trap::OutOfFuel => ErrorCode::CpuLimit,
            wasmtime::Trap::Interrupt => ErrorCode::CpuLimit,
            _ => ErrorCode::GuestTrap,
        };
        let panic = last_panic_line(stderr);
        let msg = match (code, panic) {
            (ErrorCode::StackOverflow, _) => "the guest overflowed its stack (unbounded recursion?)".to_owned(),
            (ErrorCode::CpuLimit, _) if matches!(trap, wasmtime::Trap::OutOfFuel) => {
                "the guest used more than its CPU limit (limits.cpu_ms, metered as fuel)".to_owned()
            }
            (_, Some(p)) => format!("the guest trapped ({trap}): {p}"),
            (_, None) => format!("the guest trapped: {trap}"),
        };
        return Error::new(code, msg);
    }
    // Anything else: keep the first line, no debug dump.
    let text = format!("{err:#}");
    let first = text.lines().next().unwrap_or("unknown error");
    Error::new(ErrorCode::GuestTrap, first.to_owned())
}

fn last_panic_line(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let mut lines = text.lines();
    let idx = text.lines().position(|l| l.contains("panicked at"))?;
    let msg: Vec<&str> = lines.by_ref().skip(idx).take(2).collect();
    Some(msg.join(" ").chars().take(300).collect())
}
