//! Running an instance: build its store, instantiate from the pre-linked
//! component, call an export, and turn whatever went wrong into a typed
//! [`Error`].

use super::bindings::hermes::workflow::types::Meta;
use super::engine::{LoadedComponent, Vm};
use super::limits::{HostTrap, MemoryLimiter};
use super::state::HostState;
use super::wasi::{locked_down_ctx, Capture};
use crate::broker::{InstanceBroker, RunContext};
use crate::error::{Error, ErrorCode};
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
    h.update(run.run_id().as_str().as_bytes());
    h.update(b"\0");
    h.update(scope.as_bytes());
    *h.finalize().as_bytes()
}

fn new_store(vm: &Vm, run: &Arc<RunContext>, epoch_ms: u64) -> Store<HostState> {
    let (out, err) = Capture::pair(run.limits().max_output_bytes);
    let wasi = locked_down_ctx(seed_for(run, ""), epoch_ms, out.clone(), err);
    let state = HostState::new(
        wasi,
        MemoryLimiter::new(run.limits().memory_bytes),
        InstanceBroker::root(run.clone()),
        out,
    );
    vm.new_store(state, run)
}

/// Instantiate the component and call its `run` export with `args` (JSON
/// text). Returns the guest's answer (`Err(message)` when `run` returned an
/// error) and its captured output.
///
/// # Errors
///
/// A typed [`Error`] when the instance trapped, hit a limit, or could not be
/// instantiated.
pub async fn call_run(
    vm: &Vm,
    component: &LoadedComponent,
    run: &Arc<RunContext>,
    epoch_ms: u64,
    args: &String,
) -> (Result<Result<String, String>, Error>, InstanceOutput) {
    let mut store = new_store(vm, run, epoch_ms);
    let result = async {
        let harness = component.pre.instantiate_async(&mut store).await.map_err(|e| classify(e, &[]))?;
        run.mark_started();
        let wall = run.limits().wall();
        match tokio::time::timeout(wall, harness.call_run(&mut store, args)).await {
            Ok(r) => r.map_err(|e| classify(e, &store.data().take_output().1)),
            Err(_) => Err(Error::new(ErrorCode::Timeout, format!("the run exceeded its wall-clock limit of {} ms", run.limits().wall_ms))),
        }
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
    let mut store = new_store(vm, run, 0);
    let harness = component.pre.instantiate_async(&mut store).await.map_err(|e| classify(e, &[]))?;
    run.mark_started();
    harness.call_meta(&mut store).await.map_err(|e| classify(e, &store.data().take_output().1))
}

/// Turn a wasmtime error into a typed [`Error`]. `stderr` (what the guest
/// printed) supplies the panic message of a Rust guest.
pub fn classify(err: wasmtime::Error, stderr: &[u8]) -> Error {
    if let Some(t) = err.downcast_ref::<HostTrap>() {
        return Error::new(t.code, t.message.clone());
    }
    if let Some(exit) = err.downcast_ref::<wasmtime_wasi::I32Exit>() {
        return Error::new(ErrorCode::GuestExit, format!("the guest exited with status {} instead of returning a result", exit.0));
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
    let mut store = new_store(vm, run, 0);
    component.pre.instantiate_async(&mut store).await.map_err(|e| classify(e, &[]))?;
    Ok(())
}
