//! Instances of a run in the sandbox: the store of each built around the
//! broker's [`WitHost`] (seed from the run lineage, limits and memory
//! budget from the run), and the describing instances of `meta()` /
//! `check()`, which need no run at all ([`WitHost::NoHost`]).
//!
//! Composite calls start child instances through the [`Instances`] trait
//! (`children.rs`), not the sandbox directly: the real one is [`ExecEnv`]
//! here (the VM and the run's clock origin); the broker's unit tests
//! answer branches from a table.

use super::children::{Child, Instances, Started};
use super::instance::InstanceBroker;
use super::wit_host::WitHost;
use super::{CallErrorKind, CallFailure, LoadedComponent, RunContext, Vm};
use crate::vm::bindings::hermes::workflow::types::{Diagnostic, Meta};
use crate::vm::limits::{Limits, RunMemory};
use crate::vm::sandbox::{Export, WallLimit};
use crate::vm::{InstanceConfig, InstanceState};
use hwf_core::BoxFuture;
use hwf_core::error::Error;
use serde_json::Value;
use std::sync::Arc;

pub use crate::vm::sandbox::{Answer, InstanceOutput, classify, diagnostics_error};

/// Where branch instances come from: the VM and the run's virtual epoch.
#[derive(Clone)]
pub struct ExecEnv {
    /// The VM that instantiates branches.
    pub vm: Arc<Vm>,
    /// The run's virtual clock start (ms since the Unix epoch): the creation
    /// time of the first run of its resume lineage, so a replay sees the
    /// same clock.
    pub epoch_ms: u64,
    /// The run's workspace, where `workflow({scriptPath})` finds files
    /// (`script_path.rs`); none refuses such paths.
    pub workspace: Option<std::path::PathBuf>,
}

fn seed_for(run: &RunContext, scope: &str) -> [u8; 32] {
    let mut h = blake3::Hasher::new_derive_key("hwf guest random seed v1");
    // The lineage's first run: a `--resume-from` replay sees the same bytes.
    h.update(run.seed_run_id().as_str().as_bytes());
    h.update(b"\0");
    h.update(scope.as_bytes());
    *h.finalize().as_bytes()
}

/// The store data of one instance of `broker`'s run. Its memory is drawn
/// from the run's budget, which must hold one more instance.
/// `scope` seeds the guest's randomness: `""` for a `run` export (root or
/// nested workflow), the call-id prefix for a branch.
fn run_state(broker: InstanceBroker, epoch_ms: u64, scope: &str) -> Result<InstanceState<WitHost>, Error> {
    let run = broker.run().clone();
    let config = InstanceConfig::from_limits(run.limits(), seed_for(&run, scope), epoch_ms)
        .with_run_memory(run.memory_budget().clone());
    InstanceState::new(&config, WitHost::instance(broker))
}

/// The store data of a describing instance: the run's sandbox limits, no
/// run, imports that trap.
fn describe_state(limits: &Limits) -> Result<InstanceState<WitHost>, Error> {
    let seed = *blake3::Hasher::new_derive_key("hwf describe seed v1")
        .finalize()
        .as_bytes();
    let config = InstanceConfig::from_limits(limits, seed, 0).with_run_memory(RunMemory::new(limits.run_memory_bytes));
    InstanceState::new(&config, WitHost::no_host(limits))
}

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
    let state = match run_state(broker, epoch_ms, "") {
        Ok(s) => s,
        Err(e) => return (Err(e), InstanceOutput::default()),
    };
    let wall = WallLimit {
        left: run.limits().wall().saturating_sub(run.elapsed()),
        limit_ms: run.limits().wall_ms,
    };
    vm.call_export(component, state, Export::Run { args }, Some(wall)).await
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
    let state = match run_state(broker, epoch_ms, &scope) {
        Ok(s) => s,
        Err(e) => return (Err(e), InstanceOutput::default()),
    };
    let name = name.to_owned();
    vm.call_export(component, state, Export::Branch { name: &name, input }, None)
        .await
}

/// Call the component's `meta` export (a script runtime: `check`) under
/// `limits`, with no run.
///
/// # Errors
///
/// A typed [`Error`] when the instance trapped or hit a limit.
pub async fn call_meta(vm: &Vm, component: &LoadedComponent, limits: &Limits) -> Result<Meta, Error> {
    vm.call_meta(component, describe_state(limits)?).await
}

/// `check` a script runtime's source under `limits`, with no run: its
/// meta and warnings.
///
/// # Errors
///
/// A typed [`Error`] when the instance trapped; the script's own problems
/// are the inner `Err`.
pub async fn call_check(
    vm: &Vm,
    component: &LoadedComponent,
    limits: &Limits,
) -> Result<Result<crate::vm::sandbox::Checked, Vec<Diagnostic>>, Error> {
    vm.call_check(component, describe_state(limits)?).await
}

/// Instantiate the component in a fresh store and drop it (benchmarks).
///
/// # Errors
///
/// A typed [`Error`] when instantiation fails.
pub async fn instantiate_only(vm: &Vm, component: &LoadedComponent, limits: &Limits) -> Result<(), Error> {
    vm.instantiate_only(component, describe_state(limits)?).await
}

fn failed(code: &str, message: impl AsRef<str>) -> CallFailure {
    CallFailure::new(CallErrorKind::Failed, code, message)
}

impl Instances for ExecEnv {
    fn branch<'a>(&'a self, child: Child, name: &'a str, input: &'a Value) -> BoxFuture<'a, Started> {
        Box::pin(async move {
            let Some(component) = child.component().cloned() else {
                return Err(failed("no_component", "branches need the run's component"));
            };
            let broker = InstanceBroker::for_child(child, None);
            let input = input.to_string();
            Ok(call_branch(&self.vm, &component, broker, self.epoch_ms, name, &input).await)
        })
    }

    fn workflow<'a>(&'a self, child: Child, name: &'a str, args: &'a Value) -> BoxFuture<'a, Started> {
        Box::pin(async move {
            let Some(store) = child.run().services().store.clone() else {
                return Err(failed("no_store", "nested workflows need the run's store"));
            };
            let limits = child.run().limits();
            let loaded = match crate::scripts::Target::parse(name) {
                // A saved component, or a saved script in its runtime:
                // nested workflows run in whatever language they were saved.
                Ok(crate::scripts::Target::Saved { name, version }) => {
                    crate::scripts::load_saved(&self.vm, &store, limits, &name, version)
                }
                // Claude Code's `{scriptPath}`: a file in the workspace or a
                // saved version, nothing outside.
                Ok(crate::scripts::Target::Path(_)) => {
                    let saved_exists = |n: &str, v: u32| store.script_meta(n, Some(v)).is_ok();
                    let scripts_dir = store.local().root().join("scripts");
                    let found = super::script_path::resolve(
                        name,
                        self.workspace.as_deref(),
                        &scripts_dir,
                        saved_exists,
                        limits.max_component_bytes,
                    );
                    match found.map_err(|r| CallFailure::new(CallErrorKind::Denied, r.code, r.message))? {
                        super::script_path::ScriptPath::Saved { name, version } => {
                            crate::scripts::load_saved(&self.vm, &store, limits, &name, Some(version))
                        }
                        super::script_path::ScriptPath::File { language, bytes } => {
                            load_file(&self.vm, &store, limits, name, language, &bytes)
                        }
                    }
                }
                Err(e) => return Err(failed(e.code().as_str(), e.message())),
            };
            let component = loaded.map_err(|e| failed(e.code().as_str(), e.message()))?;
            let broker = InstanceBroker::for_child(child, Some(component.clone()));
            let args = args.to_string();
            Ok(call_run(&self.vm, &component, broker, self.epoch_ms, &args).await)
        })
    }
}

/// A nested workflow's file: a component as it is, a script in its runtime.
fn load_file(
    vm: &Vm,
    store: &crate::store::Store,
    limits: &Limits,
    path: &str,
    language: crate::scripts::Language,
    bytes: &[u8],
) -> Result<LoadedComponent, Error> {
    match language {
        crate::scripts::Language::Wasm => vm.load(bytes, Some(store.local()), limits),
        lang => {
            let source = std::str::from_utf8(bytes).map_err(|_| {
                Error::new(
                    hwf_core::error::ErrorCode::InvalidParams,
                    format!("scriptPath {path:?} is not UTF-8 text"),
                )
            })?;
            crate::scripts::load_runtime(vm, store.local(), limits, lang, source)
        }
    }
}
