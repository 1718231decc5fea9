//! Running an instance: build its store, instantiate from the pre-linked
//! component, call an export, and turn whatever went wrong into a typed
//! [`Error`].

use super::bindings::hermes::workflow::types::{Diagnostic, Meta, Severity};
use super::engine::{LoadedComponent, Pre, Vm};
use super::limits::{HostTrap, MemoryLimiter};
use super::state::HostState;
use super::wasi::{Capture, locked_down_ctx};
use crate::broker::{InstanceBroker, RunContext};
use hwf_core::error::{Error, ErrorCode};
use std::sync::Arc;
use wasmtime::Store;

/// What one instance produced besides its result: captured output.
#[derive(Debug, Default)]
pub struct InstanceOutput {
    /// Captured stdout.
    pub stdout: Vec<u8>,
    /// Captured stderr.
    pub stderr: Vec<u8>,
}

fn seed_for(run: &RunContext, scope: &str) -> [u8; 32] {
    let mut h = blake3::Hasher::new_derive_key("hwf guest random seed v1");
    // The lineage's first run: a `--resume-from` replay sees the same bytes.
    h.update(run.seed_run_id().as_str().as_bytes());
    h.update(b"\0");
    h.update(scope.as_bytes());
    *h.finalize().as_bytes()
}

/// A fresh store for one instance. Its memory is drawn from the run's
/// budget, which must hold one more instance.
fn new_store(vm: &Vm, broker: InstanceBroker, epoch_ms: u64, scope: &str) -> Result<Store<HostState>, Error> {
    let run = broker.run().clone();
    let limiter = MemoryLimiter::new(run.limits().memory_bytes)
        .with_run(run.memory_budget().clone())
        .map_err(|t| Error::new(t.code, t.message))?;
    let (out, err) = Capture::pair(run.limits().max_output_bytes);
    let time = super::wasi::VirtualTime::new(epoch_ms, run.limits().cpu_ms);
    let wasi = locked_down_ctx(seed_for(&run, scope), &time, out.clone(), err);
    let state = HostState::new(wasi, time, limiter, broker, out);
    Ok(vm.new_store(state))
}

/// What an instance's export answered: the guest's `Ok(json)` or
/// `Err(message)`, or a typed error when it trapped or hit a limit.
pub type Answer = Result<Result<String, String>, Error>;

/// Instantiate the component and call its `run` export with `args` (JSON
/// text), under the run's wall-clock limit.
pub async fn call_run(
    vm: &Vm,
    component: &LoadedComponent,
    broker: InstanceBroker,
    epoch_ms: u64,
    args: &String,
) -> (Answer, InstanceOutput) {
    let run = broker.run().clone();
    let scope = String::new();
    let mut store = match new_store(vm, broker, epoch_ms, &scope) {
        Ok(s) => s,
        Err(e) => return (Err(e), InstanceOutput::default()),
    };
    let result = async {
        let wall = run.limits().wall().saturating_sub(run.elapsed());
        let call = async {
            match &component.pre {
                Pre::Harness(pre) => {
                    let h = pre.instantiate_async(&mut store).await?;
                    h.call_run(&mut store, args).await
                }
                Pre::Script(pre) => {
                    let source = component.source.as_deref().unwrap_or("").to_owned();
                    let h = pre.instantiate_async(&mut store).await?;
                    h.call_run(&mut store, &source, args).await
                }
            }
        };
        match tokio::time::timeout(wall, call).await {
            Ok(r) => r.map_err(|e| classify(e, &store.data().peek_stderr())),
            Err(_) => Err(Error::new(
                ErrorCode::Timeout,
                format!("the run exceeded its wall-clock limit of {} ms", run.limits().wall_ms),
            )),
        }
    }
    .await;
    let (stdout, stderr) = store.data().take_output();
    (result, InstanceOutput { stdout, stderr })
}

/// Instantiate the component afresh and call its `branch` export.
pub async fn call_branch(
    vm: &Vm,
    component: &LoadedComponent,
    broker: InstanceBroker,
    epoch_ms: u64,
    name: &str,
    input: &String,
) -> (Answer, InstanceOutput) {
    let scope = broker.scope_prefix().to_owned();
    let mut store = match new_store(vm, broker, epoch_ms, &scope) {
        Ok(s) => s,
        Err(e) => return (Err(e), InstanceOutput::default()),
    };
    let result = async {
        let name = name.to_owned();
        let call = async {
            match &component.pre {
                Pre::Harness(pre) => {
                    let h = pre.instantiate_async(&mut store).await?;
                    h.call_branch(&mut store, &name, input).await
                }
                Pre::Script(pre) => {
                    let source = component.source.as_deref().unwrap_or("").to_owned();
                    let h = pre.instantiate_async(&mut store).await?;
                    h.call_branch(&mut store, &source, &name, input).await
                }
            }
        };
        let r = call.await;
        r.map_err(|e| classify(e, &store.data().peek_stderr()))
    }
    .await;
    let (stdout, stderr) = store.data().take_output();
    (result, InstanceOutput { stdout, stderr })
}

/// Instantiate the component and call its `meta` export.
///
/// # Errors
///
/// A typed [`Error`] when the instance trapped or hit a limit.
pub async fn call_meta(vm: &Vm, component: &LoadedComponent, run: &Arc<RunContext>) -> Result<Meta, Error> {
    let mut store = new_store(vm, InstanceBroker::root(run.clone(), None), 0, "")?;
    match &component.pre {
        Pre::Harness(pre) => {
            let call = async {
                let harness = pre.instantiate_async(&mut store).await.map_err(|e| classify(e, &[]))?;
                harness
                    .call_meta(&mut store)
                    .await
                    .map_err(|e| classify(e, &store.data().peek_stderr()))
            };
            within_describe_limit("meta()", call).await
        }
        Pre::Script(_) => match call_check(vm, component, run).await? {
            Ok(meta) => Ok(meta),
            Err(diags) => Err(diagnostics_error(&diags)),
        },
    }
}

/// How long `meta()` or a runtime's `check()` may take (wall time; its CPU
/// is bounded by fuel like any instance, and sleeps are virtual).
pub const DESCRIBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

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

/// Instantiate a script runtime and `check` its source.
///
/// # Errors
///
/// A typed [`Error`] when the instance trapped; the script's own problems
/// are the inner `Err`.
pub async fn call_check(
    vm: &Vm,
    component: &LoadedComponent,
    run: &Arc<RunContext>,
) -> Result<Result<Meta, Vec<Diagnostic>>, Error> {
    let Pre::Script(pre) = &component.pre else {
        return Err(Error::new(ErrorCode::Internal, "check needs a script runtime"));
    };
    let mut store = new_store(vm, InstanceBroker::root(run.clone(), None), 0, "")?;
    let call = async {
        let h = pre.instantiate_async(&mut store).await.map_err(|e| classify(e, &[]))?;
        let source = component.source.as_deref().unwrap_or("").to_owned();
        h.call_check(&mut store, &source)
            .await
            .map_err(|e| classify(e, &store.data().peek_stderr()))
    };
    within_describe_limit("check()", call).await
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

/// Instantiate the component in a fresh store and drop it (benchmarks).
///
/// # Errors
///
/// A typed [`Error`] when instantiation fails.
pub async fn instantiate_only(vm: &Vm, component: &LoadedComponent, run: &Arc<RunContext>) -> Result<(), Error> {
    let mut store = new_store(vm, InstanceBroker::root(run.clone(), None), 0, "")?;
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
