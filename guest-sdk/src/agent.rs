//! Agent calls: a builder over the WIT `agent-request`.

use crate::bindings::hermes::workflow::{host, types::AgentRequest};
use crate::flow::Task;
use crate::{Error, Result};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Start building a call to a registered agent (e.g. `"hermes.greeter"`).
///
/// ```no_run
/// use hwf_guest::{agent, json};
/// let out = agent("hermes.greeter").input(json!({"subject": "world"})).label("greet").call()?;
/// # Ok::<(), hwf_guest::Error>(())
/// ```
pub fn agent(id: impl Into<String>) -> Agent {
    Agent {
        agent: Some(id.into()),
        ..Agent::default()
    }
}

/// Start building a prompt-agent call (no registered agent id; the agent
/// type defaults to `general-purpose`).
///
/// ```no_run
/// use hwf_guest::{prompt, json};
/// let bugs = prompt("Find candidate bugs for area totals")
///     .schema(json!({"bugs": "list"}))
///     .label("finder:totals")
///     .call()?;
/// # Ok::<(), hwf_guest::Error>(())
/// ```
pub fn prompt(text: impl Into<String>) -> Agent {
    Agent {
        prompt: Some(text.into()),
        ..Agent::default()
    }
}

/// A pending agent call. Set what you need, then [`call`](Agent::call) it, or
/// turn it into a [`Task`] for [`parallel`](crate::parallel).
#[derive(Debug, Clone, Default)]
#[must_use = "an agent call does nothing until `.call()` or `.task()`"]
pub struct Agent {
    agent: Option<String>,
    prompt: Option<String>,
    input: Option<Value>,
    label: Option<String>,
    phase: Option<String>,
    schema: Option<Value>,
    model: Option<String>,
    effort: Option<String>,
    agent_type: Option<String>,
    tools: Option<Vec<String>>,
    context: Option<Value>,
    isolation: Option<String>,
    fresh: Option<bool>,
}

impl Agent {
    /// Set or replace the prompt (for a registered agent: extra instructions).
    pub fn prompt(mut self, text: impl Into<String>) -> Self {
        self.prompt = Some(text.into());
        self
    }
    /// Structured input for the agent.
    pub fn input(mut self, input: Value) -> Self {
        self.input = Some(input);
        self
    }
    /// A short label shown in status and journals.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
    /// The phase this call belongs to.
    pub fn phase(mut self, phase: impl Into<String>) -> Self {
        self.phase = Some(phase.into());
        self
    }
    /// Output schema: `{"field": "type"}` or a JSON Schema. The host
    /// validates the output and retries with the error fed back. An
    /// `x-hwf` entry at the schema's root holds the call's answer rules
    /// (`{"attempts": 1, "whole_integers": true, "object_answer": true}`,
    /// …; docs/ARCHITECTURE.md, "Answer rules"): the key is the host's, so
    /// a simple-form field of that name is refused.
    pub fn schema(mut self, schema: Value) -> Self {
        self.schema = Some(schema);
        self
    }
    /// Model override.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }
    /// Effort override.
    pub fn effort(mut self, effort: impl Into<String>) -> Self {
        self.effort = Some(effort.into());
        self
    }
    /// Agent type (a `<name>.md` definition).
    pub fn agent_type(mut self, agent_type: impl Into<String>) -> Self {
        self.agent_type = Some(agent_type.into());
        self
    }
    /// Tool names the agent may use.
    pub fn tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }
    /// Free-form context handed to the agent.
    pub fn context(mut self, context: Value) -> Self {
        self.context = Some(context);
        self
    }
    /// Isolation hint (e.g. `"worktree"`).
    pub fn isolation(mut self, isolation: impl Into<String>) -> Self {
        self.isolation = Some(isolation.into());
        self
    }
    /// Skip the run's prompt cache.
    pub fn fresh(mut self, fresh: bool) -> Self {
        self.fresh = Some(fresh);
        self
    }

    /// Run the call and wait for its JSON result.
    ///
    /// # Errors
    ///
    /// Any [`ErrorKind`](crate::ErrorKind) the host returns: denied by
    /// policy, budget exhausted, schema mismatch after retries, failed,
    /// timed out, cancelled.
    pub fn call(self) -> Result<Value> {
        let raw = host::agent(&self.into_request()).map_err(Error::from)?;
        Ok(serde_json::from_str(&raw)?)
    }

    /// Run the call and deserialize its result into `T`.
    ///
    /// # Errors
    ///
    /// As [`call`](Agent::call), plus [`ErrorKind::Json`](crate::ErrorKind::Json)
    /// when the result does not fit `T`.
    pub fn call_as<T: DeserializeOwned>(self) -> Result<T> {
        Ok(serde_json::from_value(self.call()?)?)
    }

    /// Turn the call into a task for [`parallel`](crate::parallel) or a
    /// [`JoinSet`](crate::JoinSet).
    pub fn task(self) -> Task {
        Task::Agent(self)
    }

    pub(crate) fn into_request(self) -> AgentRequest {
        AgentRequest {
            agent: self.agent,
            prompt: self.prompt,
            input: self.input.map(|v| v.to_string()),
            label: self.label,
            phase: self.phase,
            schema: self.schema.map(|v| v.to_string()),
            model: self.model,
            effort: self.effort,
            agent_type: self.agent_type,
            tools: self.tools,
            context: self.context.map(|v| v.to_string()),
            isolation: self.isolation,
            fresh: self.fresh,
        }
    }
}

impl From<Agent> for Task {
    fn from(agent: Agent) -> Self {
        Task::Agent(agent)
    }
}
