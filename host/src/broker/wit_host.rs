//! The `hermes:workflow/host` imports: the door between a guest and the
//! broker. Each WIT record is converted into a typed request once, here,
//! and handed to the instance's [`InstanceBroker`]; each answer goes back
//! as a WIT value.
//!
//! [`WitHost::NoHost`] answers `meta()` and `check()`: describing a
//! workflow runs no calls, so its effectful imports trap (`budget` answers
//! the configured limits, `log` and `phase` are dropped: there is no run to
//! count or journal them in).

use super::call::TaskSpec;
use super::instance::BudgetFigures;
use super::instance::InstanceBroker;
use super::request::{AgentRequest, CapabilityRequest};
use super::{CallErrorKind, CallFailure};
use crate::vm::SandboxHost;
use crate::vm::bindings::hermes::workflow::{host, types};
use crate::vm::limits::{HostTrap, Limits};
use hwf_core::error::ErrorCode;
use serde_json::Value;

/// What answers one instance's imports.
#[derive(Debug)]
pub enum WitHost {
    /// A run's instance: every import goes through its broker.
    Instance(Box<InstanceBroker>),
    /// `meta()` / `check()`: no run; effectful imports trap.
    NoHost {
        /// What `budget()` reports.
        limits: Box<Limits>,
    },
}

impl WitHost {
    /// The host of a run's instance.
    pub fn instance(broker: InstanceBroker) -> Self {
        Self::Instance(Box::new(broker))
    }

    /// The host of a `meta()` / `check()` instance.
    pub fn no_host(limits: &Limits) -> Self {
        Self::NoHost {
            limits: Box::new(limits.clone()),
        }
    }

    /// The instance's broker, or the trap of an import made while describing.
    fn broker(&mut self, import: &str) -> Result<&mut InstanceBroker, HostTrap> {
        match self {
            Self::Instance(b) => Ok(b),
            Self::NoHost { .. } => Err(HostTrap::new(
                ErrorCode::GuestTrap,
                format!("the guest called `{import}` while describing itself (meta/check may not call the host)"),
            )),
        }
    }
}

impl SandboxHost for WitHost {
    fn check_tick(&self) -> Result<(), HostTrap> {
        match self {
            Self::Instance(b) => b.check_tick(),
            Self::NoHost { .. } => Ok(()),
        }
    }
}

fn trap(t: HostTrap) -> wasmtime::Error {
    wasmtime::Error::new(t)
}

fn to_wit(f: CallFailure) -> types::CallError {
    match f.kind {
        CallErrorKind::Denied => types::CallError::Denied(f.message),
        CallErrorKind::BudgetExhausted => types::CallError::BudgetExhausted(f.message),
        CallErrorKind::SchemaMismatch => types::CallError::SchemaMismatch(f.message),
        CallErrorKind::Failed => types::CallError::Failed(f.message),
        CallErrorKind::TimedOut => types::CallError::TimedOut(f.message),
        CallErrorKind::Cancelled => types::CallError::Cancelled(f.message),
        CallErrorKind::ApprovalRequired => types::CallError::ApprovalRequired(f.message),
    }
}

fn answer(out: Result<Value, CallFailure>) -> Result<String, types::CallError> {
    out.map(|v| v.to_string()).map_err(to_wit)
}

/// The typed agent request of a WIT one: JSON fields parsed (an unparsable
/// one is kept as text and reported in `invalid`), the answer rules taken
/// off the schema's root (a malformed entry is reported in `invalid`).
pub(crate) fn agent_request(req: types::AgentRequest) -> AgentRequest {
    let mut invalid = None;
    let mut json = |k: &str, v: Option<String>| {
        v.map(|raw| match serde_json::from_str::<Value>(&raw) {
            Ok(parsed) => parsed,
            Err(e) => {
                invalid.get_or_insert_with(|| ("invalid_json", format!("`{k}` is not valid JSON ({e})")));
                Value::String(raw)
            }
        })
    };
    let input = json("input", req.input);
    let mut schema = json("schema", req.schema);
    let context = json("context", req.context);
    let answer_rules = match schema.as_mut().map(hwf_core::schema::take_answer_rules) {
        Some(Err(e)) => {
            invalid.get_or_insert(("invalid_schema", format!("`schema`: {e}")));
            hwf_core::schema::AnswerRules::default()
        }
        Some(Ok(rules)) => rules,
        None => hwf_core::schema::AnswerRules::default(),
    };
    AgentRequest {
        agent: req.agent,
        prompt: req.prompt,
        label: req.label,
        phase: req.phase,
        model: req.model,
        effort: req.effort,
        agent_type: req.agent_type,
        isolation: req.isolation,
        input,
        schema,
        context,
        tools: req.tools,
        fresh: req.fresh,
        answer_rules,
        invalid,
    }
}

fn json_field(kind: &'static str, field: &str, raw: &str) -> Result<Value, CallFailure> {
    serde_json::from_str(raw).map_err(|e| {
        CallFailure::new(
            CallErrorKind::Failed,
            "invalid_json",
            format!("{kind} {field} is not valid JSON ({e})"),
        )
    })
}

fn capability_request(req: types::CapabilityRequest) -> TaskSpec {
    match json_field("capability", "input", &req.input) {
        Ok(input) => TaskSpec::Capability(CapabilityRequest {
            name: req.name,
            input,
            label: req.label,
            approval_id: req.approval_id,
        }),
        Err(failure) => TaskSpec::Invalid {
            kind: "capability",
            request: CapabilityRequest {
                name: req.name,
                input: Value::String(req.input),
                label: req.label,
                approval_id: req.approval_id,
            }
            .to_value(),
            failure,
        },
    }
}

/// Convert a WIT task into the broker's [`TaskSpec`].
fn task_spec(task: types::Task) -> TaskSpec {
    match task {
        types::Task::Agent(a) => TaskSpec::Agent(Box::new(agent_request(a))),
        types::Task::Capability(c) => capability_request(c),
        types::Task::Branch(b) => match json_field("branch", "input", &b.input) {
            Ok(input) => TaskSpec::Branch { name: b.name, input },
            Err(failure) => TaskSpec::Invalid {
                kind: "branch",
                request: serde_json::json!({"name": b.name, "input": b.input}),
                failure,
            },
        },
        types::Task::Workflow(w) => match json_field("workflow", "args", &w.args) {
            Ok(args) => TaskSpec::Workflow { name: w.name, args },
            Err(failure) => TaskSpec::Invalid {
                kind: "workflow",
                request: serde_json::json!({"name": w.name, "args": w.args}),
                failure,
            },
        },
    }
}

impl types::Host for WitHost {}

impl host::Host for WitHost {
    async fn agent(&mut self, req: types::AgentRequest) -> wasmtime::Result<Result<String, types::CallError>> {
        let broker = self.broker("agent").map_err(trap)?;
        broker.agent(agent_request(req)).await.map(answer).map_err(trap)
    }

    async fn capability(
        &mut self,
        req: types::CapabilityRequest,
    ) -> wasmtime::Result<Result<String, types::CallError>> {
        let broker = self.broker("capability").map_err(trap)?;
        broker.call(capability_request(req)).await.map(answer).map_err(trap)
    }

    async fn parallel(
        &mut self,
        tasks: Vec<types::Task>,
        fail_fast: bool,
    ) -> wasmtime::Result<Vec<Result<String, types::CallError>>> {
        let broker = self.broker("parallel").map_err(trap)?;
        let specs = tasks.into_iter().map(task_spec).collect();
        let out = broker.parallel(specs, fail_fast).await.map_err(trap)?;
        Ok(out.into_iter().map(answer).collect())
    }

    async fn pipeline(
        &mut self,
        items: Vec<String>,
        stages: Vec<String>,
    ) -> wasmtime::Result<Vec<Result<String, types::CallError>>> {
        let broker = self.broker("pipeline").map_err(trap)?;
        let mut parsed = Vec::with_capacity(items.len());
        for (i, raw) in items.iter().enumerate() {
            match serde_json::from_str::<Value>(raw) {
                Ok(v) => parsed.push(v),
                Err(e) => {
                    let f = CallFailure::new(
                        CallErrorKind::Failed,
                        "invalid_json",
                        format!("pipeline item {i} is not valid JSON ({e})"),
                    );
                    return Ok(items.iter().map(|_| Err(to_wit(f.clone()))).collect());
                }
            }
        }
        let out = broker.pipeline(parsed, stages).await.map_err(trap)?;
        Ok(out.into_iter().map(answer).collect())
    }

    async fn submit(&mut self, task: types::Task) -> wasmtime::Result<u64> {
        let broker = self.broker("submit").map_err(trap)?;
        broker.submit(task_spec(task)).map_err(trap)
    }

    async fn next(&mut self, pending: Vec<u64>) -> wasmtime::Result<types::Completion> {
        let broker = self.broker("next").map_err(trap)?;
        let (call, out) = broker.next(&pending).await.map_err(trap)?;
        Ok(types::Completion {
            call,
            outcome: answer(out),
        })
    }

    async fn cancel(&mut self, pending: Vec<u64>) -> wasmtime::Result<()> {
        let broker = self.broker("cancel").map_err(trap)?;
        broker.cancel(&pending).map_err(trap)
    }

    async fn phase(&mut self, title: String) -> wasmtime::Result<()> {
        match self {
            Self::Instance(b) => b.phase(&title).map_err(trap),
            Self::NoHost { .. } => Ok(()),
        }
    }

    async fn log(&mut self, level: types::LogLevel, message: String) -> wasmtime::Result<()> {
        let level = match level {
            types::LogLevel::Trace => "trace",
            types::LogLevel::Debug => "debug",
            types::LogLevel::Info => "info",
            types::LogLevel::Warn => "warn",
            types::LogLevel::Error => "error",
        };
        match self {
            Self::Instance(b) => b.log(level, &message).map_err(trap),
            Self::NoHost { .. } => Ok(()),
        }
    }

    async fn budget(&mut self) -> wasmtime::Result<types::BudgetStatus> {
        let b = match self {
            Self::Instance(b) => b.budget().map_err(trap)?,
            Self::NoHost { limits } => BudgetFigures {
                token_total: limits.max_tokens,
                tokens_spent: 0,
                agent_calls_left: u32::try_from(limits.max_agent_calls).unwrap_or(u32::MAX),
                calls_left: u32::try_from(limits.max_calls).unwrap_or(u32::MAX),
            },
        };
        Ok(types::BudgetStatus {
            token_total: b.token_total,
            tokens_spent: b.tokens_spent,
            agent_calls_left: b.agent_calls_left,
            calls_left: b.calls_left,
        })
    }

    async fn max_parallel(&mut self) -> wasmtime::Result<u32> {
        Ok(match self {
            Self::Instance(b) => b.max_parallel(),
            Self::NoHost { limits } => u32::try_from(super::width::width_of(limits)).unwrap_or(u32::MAX),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_json_field_is_kept_as_text_and_named() {
        let req = agent_request(types::AgentRequest {
            agent: None,
            prompt: Some("p".into()),
            label: None,
            phase: None,
            model: None,
            effort: None,
            agent_type: None,
            isolation: None,
            input: Some("{not json".into()),
            schema: Some("{\"type\":\"object\"}".into()),
            context: None,
            tools: None,
            fresh: None,
        });
        assert_eq!(req.input, Some(Value::String("{not json".into())));
        assert_eq!(req.schema, Some(serde_json::json!({"type": "object"})));
        assert!(
            req.invalid
                .as_ref()
                .is_some_and(|(code, m)| *code == "invalid_json" && m.starts_with("`input` is not valid JSON"))
        );
    }

    #[test]
    fn no_host_traps_effectful_imports() {
        let mut h = WitHost::no_host(&Limits::default());
        let Err(t) = h.broker("agent") else {
            panic!("a describing instance has no broker");
        };
        assert_eq!(t.code, ErrorCode::GuestTrap);
        assert!(h.check_tick().is_ok());
    }
}
