//! Operator controls as data: `pause`, `resume`, `stop`, `task_stop`,
//! `retry`, `decide`. Recording and validating them is the application's
//! job (`hwf_host::control`); a store only keeps them in order.

use crate::model::now_ms;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashSet;

/// What a control asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Park the run at its next call.
    Pause,
    /// Let a paused run continue.
    #[serde(rename = "resume")]
    Unpause,
    /// End the run (terminal).
    Stop,
    /// Cancel one call.
    TaskStop,
    /// Run a failed call live again on the next resume.
    Retry,
    /// Answer an approval or a question.
    Decide,
}

/// An operator's decision on a parked call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Run the call as asked.
    Approve,
    /// Refuse it (the harness gets a typed error).
    Reject,
    /// Run it with `value` as its input instead.
    Edit,
    /// Answer it with `value` (`human.ask`).
    Respond,
}

/// One control record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Control {
    /// Idempotency id.
    pub id: String,
    /// When it was recorded.
    pub ts_ms: u64,
    /// What it asks for.
    pub action: Action,
    /// The call it is about (`task_stop`, `retry`, `decide`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// The decision (`decide`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    /// The edited input or the answer (redacted when stored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// Who asked.
    pub actor: String,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Where the decision came from (e.g. `slack`, `cli`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// The message that carried it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The fingerprint of the request decided on: a decision applies only
    /// to that exact request, not to whatever later takes the call id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
}

impl Control {
    /// A control with a fresh id, recorded now, by `actor`.
    pub fn new(action: Action, actor: impl Into<String>) -> Self {
        Self {
            id: format!("c{}", uuid::Uuid::now_v7().simple()),
            ts_ms: now_ms(),
            action,
            call: None,
            decision: None,
            value: None,
            actor: actor.into(),
            reason: None,
            channel: None,
            message_id: None,
            fingerprint: None,
        }
    }
}

/// The controls of one run, in order.
#[derive(Debug, Clone, Default)]
pub struct Controls(pub Vec<Control>);

impl Controls {
    /// Whether a `stop` was recorded.
    pub fn stopped(&self) -> bool {
        self.0.iter().any(|c| c.action == Action::Stop)
    }

    /// Whether the last pause/resume is a pause.
    pub fn paused(&self) -> bool {
        self.0
            .iter()
            .rev()
            .find(|c| matches!(c.action, Action::Pause | Action::Unpause))
            .is_some_and(|c| c.action == Action::Pause)
    }

    /// Calls named by `task_stop`.
    pub fn stopped_calls(&self) -> HashSet<String> {
        self.0
            .iter()
            .filter(|c| c.action == Action::TaskStop)
            .filter_map(|c| c.call.clone())
            .collect()
    }

    /// Calls named by `retry`.
    pub fn retried_calls(&self) -> HashSet<String> {
        self.0
            .iter()
            .filter(|c| c.action == Action::Retry)
            .filter_map(|c| c.call.clone())
            .collect()
    }

    /// The last decision on `call`.
    pub fn decision(&self, call: &str) -> Option<&Control> {
        self.0
            .iter()
            .rev()
            .find(|c| c.action == Action::Decide && c.call.as_deref() == Some(call))
    }
}
