//! What every stage of the pipeline carries, at the bottom of the broker:
//! the unit of work ([`TaskSpec`]), its outcome ([`CallResult`]), what a
//! task inherits from the instance that started it ([`Parent`]), and
//! [`Call`], one call as the pipeline carries it, built once when the call
//! gets its id (`InstanceBroker::call`, a `parallel` slot, a pipeline
//! stage, a `submit`): the typed request, the request object serialised
//! once for the fingerprint and the journal, the fingerprint, and the
//! redacted label and phase.

use super::LoadedComponent;
use super::request::{AgentRequest, CapabilityRequest};
use crate::vm::limits::HostTrap;
use hwf_core::call::CallFailure;
use hwf_core::fingerprint::Fingerprint;
use hwf_core::redact::redact_text;
use serde_json::{Value, json};

/// The outcome of a call: a result or typed failure for the guest, or a trap
/// that ends the run.
pub type CallResult = Result<Result<Value, CallFailure>, HostTrap>;

/// One unit of work, as the broker runs it.
#[derive(Debug, Clone)]
pub enum TaskSpec {
    /// An agent call (`invalid` when a JSON field was bad).
    Agent(Box<AgentRequest>),
    /// A capability call.
    Capability(CapabilityRequest),
    /// A branch of the calling instance's component.
    Branch {
        /// Branch name.
        name: String,
        /// Branch input.
        input: Value,
    },
    /// A saved workflow run as a nested child.
    Workflow {
        /// Script name (`name` or `name@3`).
        name: String,
        /// Arguments.
        args: Value,
    },
    /// A task refused before it ran (bad JSON from the guest).
    Invalid {
        /// Call kind.
        kind: &'static str,
        /// What the guest sent.
        request: Value,
        /// Why it is refused.
        failure: CallFailure,
    },
}

impl TaskSpec {
    /// An agent request's answer rules (`x-hwf`); the default for any
    /// other task.
    pub fn answer_rules(&self) -> hwf_core::schema::AnswerRules {
        match self {
            Self::Agent(req) => req.answer_rules,
            _ => hwf_core::schema::AnswerRules::default(),
        }
    }

    /// Whether the task runs guest code (a branch or nested workflow), so
    /// that its composite call must bound it; agent and capability tasks
    /// are bounded by the run-wide width pool instead.
    pub fn runs_guest_code(&self) -> bool {
        matches!(self, TaskSpec::Branch { .. } | TaskSpec::Workflow { .. })
    }

    /// The call kind journaled and fingerprinted.
    pub fn kind(&self) -> &'static str {
        match self {
            TaskSpec::Agent(_) => "agent",
            TaskSpec::Capability(_) => "capability",
            TaskSpec::Branch { .. } => "branch",
            TaskSpec::Workflow { .. } => "workflow",
            TaskSpec::Invalid { kind, .. } => kind,
        }
    }

    /// The request object that is fingerprinted and journaled.
    pub fn request(&self) -> Value {
        match self {
            TaskSpec::Agent(a) => a.to_value(),
            TaskSpec::Capability(c) => c.to_value(),
            TaskSpec::Branch { name, input } => json!({"name": name, "input": input}),
            TaskSpec::Workflow { name, args } => json!({"name": name, "args": args}),
            TaskSpec::Invalid { request, .. } => request.clone(),
        }
    }
}

/// What a task inherits from the instance that started it.
#[derive(Clone, Default)]
pub struct Parent {
    /// The component whose `branch` export branch tasks call.
    pub component: Option<LoadedComponent>,
    /// Nested-workflow depth (0 for the root run).
    pub depth: u8,
    /// Instance nesting level of the caller (0 for the root instance).
    pub level: u8,
    /// Whether the task may still be answered from the replay index.
    pub replay: bool,
}

/// One call through the pipeline.
#[derive(Debug, Clone)]
pub struct Call {
    /// Its id in the run (`3`, `3.1.2`).
    pub id: String,
    /// The typed request.
    pub spec: TaskSpec,
    /// The request object fingerprinted and journaled (not yet redacted).
    pub request: Value,
    /// Fingerprint of `{kind, request}`.
    pub fingerprint: Fingerprint,
    /// The label, redacted (stored and shown).
    pub label: Option<String>,
    /// The phase, redacted.
    pub phase: Option<String>,
}

impl Call {
    /// Call `id` running `spec`.
    pub fn new(id: String, spec: TaskSpec) -> Self {
        let request = spec.request();
        let fingerprint = Fingerprint::of(spec.kind(), &request);
        let redacted = |s: Option<&str>| s.map(|s| redact_text(s).into_owned());
        let (label, phase) = match &spec {
            TaskSpec::Agent(a) => (redacted(a.label.as_deref()), redacted(a.phase.as_deref())),
            TaskSpec::Capability(c) => (redacted(c.label.as_deref()), None),
            TaskSpec::Invalid { request, .. } => (
                redacted(request.get("label").and_then(Value::as_str)),
                redacted(request.get("phase").and_then(Value::as_str)),
            ),
            TaskSpec::Branch { .. } | TaskSpec::Workflow { .. } => (None, None),
        };
        Self {
            id,
            spec,
            request,
            fingerprint,
            label,
            phase,
        }
    }

    /// The call kind journaled and fingerprinted.
    pub fn kind(&self) -> &'static str {
        self.spec.kind()
    }

    /// The same call with its request's input replaced (a fork's input
    /// edit): a new request object and fingerprint. Only agent and
    /// capability calls have an input to replace; others are unchanged.
    pub fn with_input(self, input: Value) -> Self {
        let spec = match self.spec {
            TaskSpec::Agent(mut a) => {
                a.input = Some(input);
                TaskSpec::Agent(a)
            }
            TaskSpec::Capability(mut c) => {
                c.input = input;
                TaskSpec::Capability(c)
            }
            other => return Self { spec: other, ..self },
        };
        Self::new(self.id, spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_and_the_stored_label_are_made_once_from_the_request() {
        let spec = TaskSpec::Agent(Box::new(AgentRequest {
            prompt: Some("p".into()),
            label: Some("finder:totals".into()),
            phase: Some("Find".into()),
            ..AgentRequest::default()
        }));
        let call = Call::new("4".into(), spec.clone());
        assert_eq!(call.fingerprint, Fingerprint::of("agent", &spec.request()));
        assert_eq!(
            call.request,
            serde_json::json!({"prompt": "p", "label": "finder:totals", "phase": "Find"})
        );
        assert_eq!(
            (call.label.as_deref(), call.phase.as_deref()),
            (Some("finder:totals"), Some("Find"))
        );
        assert_eq!(call.kind(), "agent");
        let branch = Call::new(
            "5".into(),
            TaskSpec::Branch {
                name: "b".into(),
                input: serde_json::json!(1),
            },
        );
        assert_eq!(branch.label, None);
    }
}
