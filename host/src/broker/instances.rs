//! Instances of a run in the sandbox: the store of each built around the
//! broker's [`WitHost`] (seed from the run lineage, limits and memory
//! budget from the run), and the describing instances of `meta()` /
//! `check()`, which need no run at all ([`WitHost::NoHost`]).
//!
//! Composite calls start child instances through [`Instances`], not the
//! sandbox directly: the real one is [`ExecEnv`] (the VM and the run's
//! clock origin); the broker's unit tests answer branches from a table.

use super::instance::InstanceBroker;
use super::wit_host::WitHost;
use super::{CallErrorKind, CallFailure, ExecEnv, RunContext};
use crate::vm::bindings::hermes::workflow::types::{Diagnostic, Meta};
use crate::vm::limits::{Limits, RunMemory};
use crate::vm::sandbox::{Export, WallLimit};
use crate::vm::{InstanceConfig, InstanceState};
use hwf_core::BoxFuture;
use hwf_core::error::Error;
use serde_json::Value;
use std::sync::Arc;

pub use crate::vm::sandbox::{Answer, InstanceOutput, classify, diagnostics_error};

/// The sandbox with the broker answering its imports.
pub type Vm = crate::vm::Vm<WitHost>;

/// A component loaded into [`Vm`].
pub type LoadedComponent = crate::vm::LoadedComponent<WitHost>;

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

/// `check` a script runtime's source under `limits`, with no run.
///
/// # Errors
///
/// A typed [`Error`] when the instance trapped; the script's own problems
/// are the inner `Err`.
pub async fn call_check(
    vm: &Vm,
    component: &LoadedComponent,
    limits: &Limits,
) -> Result<Result<Meta, Vec<Diagnostic>>, Error> {
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

/// A child instance a composite call is about to start: a branch of the
/// caller's component or a nested workflow, as call `call_id` of `run`.
pub struct Child {
    run: Arc<RunContext>,
    call_id: String,
    component: Option<LoadedComponent>,
    depth: u8,
    level: u8,
    replay: bool,
}

impl std::fmt::Debug for Child {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Child")
            .field("call_id", &self.call_id)
            .field("level", &self.level)
            .finish_non_exhaustive()
    }
}

impl Child {
    /// The child started as `call_id` (its calls are numbered under it),
    /// running `component` (a branch: the caller's), nested-workflow
    /// `depth`, instance nesting `level`, still replaying or not.
    pub(crate) fn new(
        run: Arc<RunContext>,
        call_id: &str,
        component: Option<LoadedComponent>,
        depth: u8,
        level: u8,
        replay: bool,
    ) -> Self {
        Self {
            run,
            call_id: call_id.to_owned(),
            component,
            depth,
            level,
            replay,
        }
    }

    /// The run it belongs to.
    pub fn run(&self) -> &Arc<RunContext> {
        &self.run
    }

    /// The call that starts it.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The component a branch runs (the caller's).
    pub fn component(&self) -> Option<&LoadedComponent> {
        self.component.as_ref()
    }

    /// The child's broker; `component` replaces the inherited one (a
    /// nested workflow runs its own).
    pub fn broker(self, component: Option<LoadedComponent>) -> InstanceBroker {
        let component = component.or(self.component);
        InstanceBroker::child(self.run, &self.call_id, component, self.depth, self.level, self.replay)
    }
}

/// What a child instance answered and printed, or why it could not start
/// (a failure of the call, not of the run).
pub type Started = Result<(Answer, InstanceOutput), CallFailure>;

/// Starts the child instances of composite calls.
pub trait Instances: Send + Sync + 'static {
    /// Run branch `name` of the child's component with `input`.
    fn branch<'a>(&'a self, child: Child, name: &'a str, input: &'a Value) -> BoxFuture<'a, Started>;

    /// Run the saved workflow `name` (`name` or `name@3`) with `args`.
    fn workflow<'a>(&'a self, child: Child, name: &'a str, args: &'a Value) -> BoxFuture<'a, Started>;
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
            let broker = child.broker(None);
            let input = input.to_string();
            Ok(call_branch(&self.vm, &component, broker, self.epoch_ms, name, &input).await)
        })
    }

    fn workflow<'a>(&'a self, child: Child, name: &'a str, args: &'a Value) -> BoxFuture<'a, Started> {
        Box::pin(async move {
            let Some(store) = child.run().services().store.clone() else {
                return Err(failed("no_store", "nested workflows need the run's store"));
            };
            let (script, version) = match crate::scripts::Target::parse(name) {
                Ok(crate::scripts::Target::Saved { name, version }) => (name, version),
                Ok(_) => {
                    return Err(failed(
                        "invalid_workflow",
                        format!("{name:?} is not a saved script name"),
                    ));
                }
                Err(e) => return Err(failed(e.code().as_str(), e.message())),
            };
            // A saved component, or a saved script in its runtime: nested
            // workflows run in whatever language they were saved.
            let loaded = crate::scripts::load_saved(&self.vm, &store, child.run().limits(), &script, version);
            let component = loaded.map_err(|e| failed(e.code().as_str(), e.message()))?;
            let broker = child.broker(Some(component.clone()));
            let args = args.to_string();
            Ok(call_run(&self.vm, &component, broker, self.epoch_ms, &args).await)
        })
    }
}
