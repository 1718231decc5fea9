//! Agent runners: what answers an `agent` call once the broker has let it
//! through.
//!
//! [`AgentBackend`] is the trait host adapters implement. Runners here:
//! [`FixtureRunner`] (the embedded default and the test double: answers
//! from a JSON file of rules), [`CommandRunner`] (a CLI agent per call),
//! [`OpenAiRunner`] (any OpenAI-compatible chat-completions endpoint), and
//! [`Router`] (picks one per call by agent id, agent type, or default).
//! [`answer`] reads what command and HTTP agents print: the answer, the
//! tokens by kind, and failures classified ([`AgentErrorKind`]).

pub mod answer;
pub mod command;
mod fixture;
pub mod guard;
pub mod openai;
pub mod router;
pub mod types;

pub use command::{CommandConfig, CommandRunner};
pub use fixture::FixtureRunner;
pub use openai::{OpenAiConfig, OpenAiRunner};
pub use router::Router;
pub use types::{AgentType, AgentTypes};

use serde_json::Value;

pub use hwf_core::model::TokenUsage;

/// A boxed, sendable future (the trait must stay object-safe).
pub use hwf_core::BoxFuture;

/// One attempt of an agent call, as the runner sees it.
#[derive(Debug, Clone, Copy)]
pub struct AgentCall<'a> {
    /// The request object: `agent`, `prompt`, `input`, `label`, `phase`,
    /// `schema`, `model`, `effort`, `agent_type`, `tools`, `context`,
    /// `isolation` (absent fields omitted).
    pub request: &'a Value,
    /// `<root run id>:<call id>`: the same on every retry and resume
    /// (runners that send one per attempt append `:<attempt>`).
    pub idempotency_key: &'a str,
    /// 1 for the first attempt; schema retries count up.
    pub attempt: u32,
    /// On a schema retry, why the previous output was refused.
    pub feedback: Option<&'a str>,
    /// The resolved agent type (system prompt, defaults), for prompt agents
    /// and calls that name a type.
    pub agent_type: Option<&'a AgentType>,
    /// The model to use: the call's `model`, else the type's.
    pub model: Option<&'a str>,
    /// The effort to use: the call's `effort`, else the type's.
    pub effort: Option<&'a str>,
    /// The call's place among calls answered in arrival order, reserved in
    /// a deterministic order ([`AgentBackend::reserve`]) for each attempt.
    pub place: Option<u64>,
}

/// What an agent answered.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentReply {
    /// The output: JSON, or a JSON string holding text (possibly fenced).
    pub output: Value,
    /// Tokens processed, by kind (see [`TokenUsage`]).
    pub usage: TokenUsage,
    /// Cost reported by the agent, in USD (Claude Code's `total_cost_usd`).
    pub cost_usd: Option<f64>,
}

impl AgentReply {
    /// An answer with nothing reported spent.
    pub fn new(output: Value) -> Self {
        Self {
            output,
            usage: TokenUsage::default(),
            cost_usd: None,
        }
    }
}

/// What kind of failure an agent call ended with; each has a stable code
/// (see [`AgentErrorKind::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentErrorKind {
    /// The agent failed (its own error text in the message).
    Failed,
    /// The agent took too long.
    TimedOut,
    /// The call was cancelled.
    Cancelled,
    /// The agent is not authenticated: a missing or rejected API key, a
    /// CLI that is not logged in. Not retried.
    Auth,
    /// The agent cannot be started: its program is not installed.
    Unavailable,
    /// The model declined to answer. Not retried.
    Refused,
    /// The answer was cut off at the model's output limit. Not retried.
    Truncated,
    /// The model asked to call a tool instead of answering. Not retried.
    ToolCall,
    /// No agent answers the named agent id: a fixture none of whose rules
    /// names it (the seed's registry refuses such an id as
    /// `unknown_agent`). Not retried.
    Unknown,
}

impl AgentErrorKind {
    /// The stable code a failed call carries: `agent_failed`,
    /// `agent_timeout`, `agent_cancelled`, `agent_auth`,
    /// `agent_unavailable`, `agent_refused`, `agent_truncated`,
    /// `agent_tool_call`, `agent_unknown`.
    pub fn code(self) -> &'static str {
        match self {
            Self::Failed => "agent_failed",
            Self::TimedOut => "agent_timeout",
            Self::Cancelled => "agent_cancelled",
            Self::Auth => "agent_auth",
            Self::Unavailable => "agent_unavailable",
            Self::Refused => "agent_refused",
            Self::Truncated => "agent_truncated",
            Self::ToolCall => "agent_tool_call",
            Self::Unknown => "agent_unknown",
        }
    }

    /// The kind a code names ([`AgentErrorKind::code`]'s inverse).
    pub fn from_code(code: &str) -> Option<Self> {
        [
            Self::Failed,
            Self::TimedOut,
            Self::Cancelled,
            Self::Auth,
            Self::Unavailable,
            Self::Refused,
            Self::Truncated,
            Self::ToolCall,
            Self::Unknown,
        ]
        .into_iter()
        .find(|k| k.code() == code)
    }
}

/// Why an agent call did not answer: the kind, a message a user can act on
/// (the agent's own error text, exit status, stderr tail), and what the
/// agent said and spent when it said something.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct AgentError {
    /// What kind of failure.
    pub kind: AgentErrorKind,
    /// What went wrong, for a person.
    pub message: String,
    /// What the agent answered, when it answered something (a refusal, a
    /// truncated answer, the tool calls it asked for); kept with the call.
    pub answer: Option<String>,
    /// Tokens the failed attempt processed.
    pub usage: TokenUsage,
    /// Cost the failed attempt reported, in USD.
    pub cost_usd: Option<f64>,
}

impl AgentError {
    /// An error of `kind`.
    pub fn new(kind: AgentErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            answer: None,
            usage: TokenUsage::default(),
            cost_usd: None,
        }
    }

    /// `agent_failed`.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(AgentErrorKind::Failed, message)
    }

    /// `agent_timeout`.
    pub fn timed_out(message: impl Into<String>) -> Self {
        Self::new(AgentErrorKind::TimedOut, message)
    }

    /// `agent_cancelled`.
    pub fn cancelled(message: impl Into<String>) -> Self {
        Self::new(AgentErrorKind::Cancelled, message)
    }

    /// With what the agent answered.
    #[must_use]
    pub fn with_answer(mut self, answer: impl Into<String>) -> Self {
        self.answer = Some(answer.into());
        self
    }

    /// With what the attempt spent.
    #[must_use]
    pub fn with_spend(mut self, usage: TokenUsage, cost_usd: Option<f64>) -> Self {
        self.usage = usage;
        self.cost_usd = cost_usd;
        self
    }

    /// The stable code ([`AgentErrorKind::code`]).
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }
}

/// The former name of [`AgentBackend`].
pub use AgentBackend as AgentRunner;

/// An agent backend: something that answers agent calls (fixture, command,
/// OpenAI-compatible, router) — not the queue runner. Implementations must be cancel-safe:
/// dropping the future abandons the call.
pub trait AgentBackend: Send + Sync + 'static {
    /// Answer one attempt.
    fn call<'a>(&'a self, call: AgentCall<'a>) -> BoxFuture<'a, Result<AgentReply, AgentError>>;

    /// Whether any backend is configured. A run that makes a live agent
    /// call with none fails loudly (`no_agent_backend`, saying how to
    /// configure one) instead of every call quietly failing.
    fn configured(&self) -> bool {
        true
    }

    /// Whether this call's answer depends on the order calls arrive in (a
    /// fixture `sequence`). The broker then holds the call until the run
    /// has settled and reserves its place in call-id order
    /// (`broker/turns.rs`), so concurrent branches get the same answers on
    /// every run.
    fn answers_in_order(&self, _request: &Value) -> bool {
        false
    }

    /// Take the next place for a call that [`answers_in_order`]
    /// (the broker calls it in turn order); the place reaches
    /// [`AgentBackend::call`] as [`AgentCall::place`].
    ///
    /// [`answers_in_order`]: AgentBackend::answers_in_order
    fn reserve(&self, _request: &Value) -> Option<u64> {
        None
    }
}
