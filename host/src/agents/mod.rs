//! Agent runners: what answers an `agent` call once the broker has let it
//! through.
//!
//! [`AgentBackend`] is the trait host adapters implement. Runners here:
//! [`FixtureRunner`] (the embedded default and the test double: answers
//! from a JSON file of rules), [`CommandRunner`] (a CLI agent per call),
//! [`OpenAiRunner`] (any OpenAI-compatible chat-completions endpoint), and
//! [`Router`] (picks one per call by agent id, agent type, or default).

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
}

/// What an agent answered.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentReply {
    /// The output: JSON, or a JSON string holding text (possibly fenced).
    pub output: Value,
    /// Tokens spent.
    pub tokens: u64,
    /// Cost reported by the agent, in USD (Claude Code's `total_cost_usd`).
    pub cost_usd: Option<f64>,
}

/// Why an agent call did not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// The agent failed (the message says why).
    #[error("{0}")]
    Failed(String),
    /// The agent took too long.
    #[error("{0}")]
    TimedOut(String),
    /// The call was cancelled.
    #[error("{0}")]
    Cancelled(String),
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
}
