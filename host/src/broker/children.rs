//! Stage 9 for calls that run guest code: a **branch** (a fresh instance
//! of the caller's component) or a **nested workflow** (a saved script run
//! as a child sharing the run's budget, width and stop). The depth and
//! nesting limits are checked here; the child instance itself is started
//! through [`Instances`] (the sandbox's `ExecEnv` in `instances.rs`; a
//! table in the broker's unit tests), and what it answered becomes the
//! call's outcome (run-ending codes travel up as traps).

use super::call::Parent;
use super::{CallErrorKind, CallFailure, Event, LoadedComponent, RunContext};
use crate::vm::limits::HostTrap;
use crate::vm::sandbox::{Answer, InstanceOutput};
use hwf_core::BoxFuture;
use hwf_core::error::ErrorCode;
use hwf_core::redact::{clip, redact_block, redact_text};
use serde_json::Value;
use std::sync::Arc;

/// A child instance a composite call is about to start: a branch of the
/// caller's component or a nested workflow, as call `call_id` of `run`.
pub struct Child {
    pub(super) run: Arc<RunContext>,
    pub(super) call_id: String,
    pub(super) component: Option<LoadedComponent>,
    pub(super) depth: u8,
    pub(super) level: u8,
    pub(super) replay: bool,
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

/// Codes that end (or park) the whole run even when they happen inside a
/// branch or a nested workflow: a stop, the run's call and wall limits, and
/// a wait — a park anywhere in the tree parks the root.
fn is_run_ending(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::Stopped | ErrorCode::LimitCalls | ErrorCode::Timeout | ErrorCode::Waiting
    )
}

impl RunContext {
    /// Refuse an instance nested deeper than `limits.max_depth`.
    pub(crate) fn check_level(&self, parent_level: u8, what: &str, name: &str) -> Result<(), CallFailure> {
        if u64::from(parent_level) + 1 > self.limits.max_depth {
            return Err(CallFailure::new(
                CallErrorKind::Denied,
                "nesting_too_deep",
                format!(
                    "{what} {name:?} would nest instances {} levels deep; the limit is {} (limits.max_depth)",
                    u64::from(parent_level) + 1,
                    self.limits.max_depth
                ),
            ));
        }
        Ok(())
    }

    /// Run a branch in a fresh instance of the parent's component.
    pub(crate) async fn execute_branch(
        self: &Arc<Self>,
        call_id: &str,
        name: &str,
        input: &Value,
        parent: Parent,
    ) -> Result<Result<Value, CallFailure>, HostTrap> {
        let Some(instances) = self.instances().cloned() else {
            return Ok(Err(CallFailure::new(
                CallErrorKind::Failed,
                "no_component",
                "branches need the run's component",
            )));
        };
        if let Err(f) = self.check_level(parent.level, "branch", name) {
            return Ok(Err(f));
        }
        let child = Child::new(
            self.clone(),
            call_id,
            parent.component,
            parent.depth,
            parent.level + 1,
            parent.replay,
        );
        let (answer, output) = match instances.branch(child, name, input).await {
            Ok(ran) => ran,
            Err(refused) => return Ok(Err(refused)),
        };
        self.journal_output(Some(call_id), &output);
        self.instance_outcome("branch", name, answer)
    }

    /// Run a saved workflow as a nested child sharing this run's budget,
    /// width and stop (one level deep).
    pub(crate) async fn execute_workflow(
        self: &Arc<Self>,
        call_id: &str,
        name: &str,
        args: &Value,
        parent: Parent,
    ) -> Result<Result<Value, CallFailure>, HostTrap> {
        if let Err(f) = self.check_level(parent.level, "workflow", name) {
            return Ok(Err(f));
        }
        if parent.depth >= 1 {
            return Ok(Err(CallFailure::new(
                CallErrorKind::Denied,
                "nesting_too_deep",
                format!("workflow {name:?} cannot start another workflow: nesting is one level deep"),
            )));
        }
        let Some(instances) = self.instances().cloned() else {
            return Ok(Err(CallFailure::new(
                CallErrorKind::Failed,
                "no_store",
                "nested workflows need the run's store",
            )));
        };
        let child = Child::new(
            self.clone(),
            call_id,
            None,
            parent.depth + 1,
            parent.level + 1,
            parent.replay,
        );
        let (answer, output) = match instances.workflow(child, name, args).await {
            Ok(ran) => ran,
            Err(refused) => return Ok(Err(refused)),
        };
        self.journal_output(Some(call_id), &output);
        self.instance_outcome("workflow", name, answer)
    }

    /// Map what a child instance returned to a call outcome; run-ending
    /// codes propagate as traps.
    fn instance_outcome(&self, what: &str, name: &str, answer: Answer) -> Result<Result<Value, CallFailure>, HostTrap> {
        match answer {
            Ok(Ok(text)) => Ok(serde_json::from_str(&text).map_err(|e| {
                CallFailure::new(
                    CallErrorKind::Failed,
                    "invalid_json",
                    format!("{what} {name:?} returned invalid JSON: {e}"),
                )
            })),
            Ok(Err(msg)) => Ok(Err(CallFailure::new(
                CallErrorKind::Failed,
                &format!("{what}_failed"),
                format!("{name}: {msg}"),
            ))),
            Err(e) if is_run_ending(e.code()) => Err(HostTrap::new(e.code(), e.message().to_owned())),
            // Over the run-wide memory budget: the run, not this branch.
            Err(e) if e.code() == ErrorCode::MemoryLimit && self.memory_budget().exhausted() => {
                Err(HostTrap::new(e.code(), e.message().to_owned()))
            }
            Err(e) => {
                let kind = if e.code() == ErrorCode::CpuLimit {
                    CallErrorKind::TimedOut
                } else {
                    CallErrorKind::Failed
                };
                Ok(Err(CallFailure::new(
                    kind,
                    e.code().as_str(),
                    format!("{what} {name:?}: {}", e.message()),
                )))
            }
        }
    }

    /// Journal what an instance printed, one `log` line per output line
    /// (redacted, clipped).
    pub fn journal_output(&self, call: Option<&str>, output: &InstanceOutput) {
        for (source, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
            if bytes.is_empty() {
                continue;
            }
            let text = redact_block(&String::from_utf8_lossy(bytes));
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let line = redact_text(clip(line, 4096));
                let level = if source == "stderr" { "warn" } else { "info" };
                if self
                    .journal(&Event::Log {
                        call,
                        level,
                        source,
                        message: &line,
                    })
                    .is_err()
                {
                    return;
                }
            }
        }
    }
}
