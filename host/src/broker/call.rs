//! [`Call`]: one call as the pipeline carries it, built once when the call
//! gets its id (`InstanceBroker::call`, a `parallel` slot, a pipeline
//! stage, a `submit`): the typed request, the request object serialised
//! once for the fingerprint and the journal, the fingerprint, and the
//! redacted label and phase.

use super::{Fingerprint, TaskSpec};
use hwf_core::redact::redact_text;
use serde_json::Value;

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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::AgentRequest;

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
