//! Typed call requests, built once at the door ([`super::wit_host`]) from
//! the WIT records and serialised only where a JSON object is needed: the
//! fingerprint, the journal, and the agent runner.

use serde::Serialize;
use serde_json::Value;

/// An agent request as the guest sent it: absent fields `None`, the JSON
/// fields (`input`, `schema`, `context`) parsed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AgentRequest {
    /// A named agent (a command / backend agent); `None` for a prompt agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// A label shown in status and the journal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The phase the call belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Model override.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Effort override.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// A named agent type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// Isolation mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
    /// Input (parsed JSON; the raw text when it did not parse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// Output schema (parsed JSON; the raw text when it did not parse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    /// Context (parsed JSON; the raw text when it did not parse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<Value>,
    /// Tools the agent may use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Bypass the run's prompt cache. A directive to this run's cache, not
    /// part of what is asked: it is left out of the request object, so it
    /// changes neither the fingerprint nor what the agent receives (a call
    /// and the same call with `fresh` replay each other's results).
    #[serde(skip)]
    pub fresh: Option<bool>,
    /// How the broker checks the answer, taken off the schema's root at
    /// the door (`x-hwf`, [`hwf_core::schema::AnswerRules`]). A directive to
    /// the broker, not part of what is asked: like `fresh`, it changes
    /// neither the fingerprint nor what the agent receives.
    #[serde(skip)]
    pub answer_rules: hwf_core::schema::AnswerRules,
    /// A field the call cannot be made with, if any: its code
    /// (`invalid_json`, `invalid_schema`) and what is wrong (the call fails
    /// with it). Not part of the request object.
    #[serde(skip)]
    pub invalid: Option<(&'static str, String)>,
}

impl AgentRequest {
    /// Whether the run's prompt cache may answer it: a prompt agent (no
    /// named agent) not asking for a `fresh` answer.
    pub fn cacheable(&self) -> bool {
        self.agent.is_none() && self.fresh != Some(true) && self.invalid.is_none()
    }

    /// The request object fingerprinted, journaled and given to the agent
    /// runner (absent fields omitted).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A capability request as the guest sent it (`input` parsed).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CapabilityRequest {
    /// The capability's registered name.
    pub name: String,
    /// Its input.
    pub input: Value,
    /// A label shown in status and the journal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The approval this call carries, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
}

impl CapabilityRequest {
    /// The request object fingerprinted, journaled and handled.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absent_fields_are_omitted_and_json_fields_stay_parsed() {
        let req = AgentRequest {
            prompt: Some("hi".into()),
            input: Some(json!({"a": 1})),
            fresh: Some(false),
            invalid: Some(("invalid_json", "ignored".into())),
            ..AgentRequest::default()
        };
        assert_eq!(req.to_value(), json!({"prompt": "hi", "input": {"a": 1}}));
        // A request that cannot be made is never answered by the cache.
        assert!(!req.cacheable());
        let req = AgentRequest { invalid: None, ..req };
        assert!(req.cacheable());
        let fresh = AgentRequest {
            fresh: Some(true),
            ..req.clone()
        };
        assert_eq!(
            fresh.to_value(),
            req.to_value(),
            "fresh is not part of the request object"
        );
        assert!(!fresh.cacheable());
        let named = AgentRequest {
            agent: Some("coder".into()),
            ..AgentRequest::default()
        };
        assert!(!named.cacheable());
    }

    #[test]
    fn capability_request_has_the_journaled_keys() {
        let req = CapabilityRequest {
            name: "fs.read".into(),
            input: json!({"path": "a"}),
            label: None,
            approval_id: Some("ap1".into()),
        };
        assert_eq!(
            req.to_value(),
            json!({"name": "fs.read", "input": {"path": "a"}, "approval_id": "ap1"})
        );
    }
}
