//! The store data of one instance and the host side of the WIT imports,
//! each a thin conversion into the [`InstanceBroker`].

use super::bindings::hermes::workflow::{host, types};
use super::limits::{HostTrap, MemoryLimiter};
use super::wasi::Capture;
use crate::broker::{AgentRequest, CallErrorKind, CallFailure, InstanceBroker};
use serde_json::{Map, Value};
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

/// Data of one wasmtime `Store`: the locked-down WASI, the memory limiter,
/// the captured output and the instance's broker.
pub struct HostState {
    wasi: WasiCtx,
    table: ResourceTable,
    pub(crate) limiter: MemoryLimiter,
    pub(crate) broker: InstanceBroker,
    pub(crate) stdout: Capture,
}

impl std::fmt::Debug for HostState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostState").field("broker", &self.broker).finish_non_exhaustive()
    }
}

impl HostState {
    /// Store data for one instance.
    pub fn new(wasi: WasiCtx, limiter: MemoryLimiter, broker: InstanceBroker, stdout: Capture) -> Self {
        Self { wasi, table: ResourceTable::new(), limiter, broker, stdout }
    }

    /// The captured (stdout, stderr) so far.
    pub fn take_output(&self) -> (Vec<u8>, Vec<u8>) {
        self.stdout.take()
    }
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
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

/// Build the broker's view of an agent request: absent fields omitted, JSON
/// fields parsed (an unparsable one is kept as text and reported).
pub(crate) fn agent_request(req: types::AgentRequest) -> AgentRequest {
    let mut map = Map::new();
    let mut invalid = None;
    let text = |map: &mut Map<String, Value>, k: &str, v: Option<String>| {
        if let Some(v) = v {
            map.insert(k.to_owned(), Value::String(v));
        }
    };
    text(&mut map, "agent", req.agent);
    text(&mut map, "prompt", req.prompt);
    text(&mut map, "label", req.label);
    text(&mut map, "phase", req.phase);
    text(&mut map, "model", req.model);
    text(&mut map, "effort", req.effort);
    text(&mut map, "agent_type", req.agent_type);
    text(&mut map, "isolation", req.isolation);
    for (k, v) in [("input", req.input), ("schema", req.schema), ("context", req.context)] {
        if let Some(raw) = v {
            match serde_json::from_str::<Value>(&raw) {
                Ok(parsed) => {
                    map.insert(k.to_owned(), parsed);
                }
                Err(e) => {
                    invalid.get_or_insert_with(|| format!("`{k}` is not valid JSON ({e})"));
                    map.insert(k.to_owned(), Value::String(raw));
                }
            }
        }
    }
    if let Some(tools) = req.tools {
        map.insert("tools".into(), Value::Array(tools.into_iter().map(Value::String).collect()));
    }
    if let Some(fresh) = req.fresh {
        map.insert("fresh".into(), Value::Bool(fresh));
    }
    AgentRequest { request: Value::Object(map), invalid }
}

fn task_value(task: &types::Task) -> Value {
    match task {
        types::Task::Agent(a) => serde_json::json!({"agent": agent_request(a.clone()).request}),
        types::Task::Capability(c) => serde_json::json!({"capability": {"name": c.name, "input": c.input, "label": c.label}}),
        types::Task::Branch(b) => serde_json::json!({"branch": {"name": b.name, "input": b.input}}),
        types::Task::Workflow(w) => serde_json::json!({"workflow": {"name": w.name, "args": w.args}}),
    }
}

impl types::Host for HostState {}

impl host::Host for HostState {
    async fn agent(&mut self, req: types::AgentRequest) -> wasmtime::Result<Result<String, types::CallError>> {
        let req = agent_request(req);
        self.broker.agent(req).await.map(answer).map_err(trap)
    }

    async fn capability(&mut self, req: types::CapabilityRequest) -> wasmtime::Result<Result<String, types::CallError>> {
        let input = match serde_json::from_str::<Value>(&req.input) {
            Ok(v) => v,
            Err(e) => {
                return Ok(Err(to_wit(CallFailure::new(
                    CallErrorKind::Failed,
                    "invalid_json",
                    format!("capability input is not valid JSON ({e})"),
                ))));
            }
        };
        let mut request = Map::new();
        request.insert("name".into(), Value::String(req.name.clone()));
        request.insert("input".into(), input);
        if let Some(l) = req.label {
            request.insert("label".into(), Value::String(l));
        }
        if let Some(a) = req.approval_id {
            request.insert("approval_id".into(), Value::String(a));
        }
        self.broker.capability(Value::Object(request)).await.map(answer).map_err(trap)
    }

    async fn parallel(
        &mut self,
        tasks: Vec<types::Task>,
        fail_fast: bool,
    ) -> wasmtime::Result<Vec<Result<String, types::CallError>>> {
        let request = serde_json::json!({"tasks": tasks.iter().map(task_value).collect::<Vec<_>>(), "fail_fast": fail_fast});
        let out = self.broker.parallel(request, tasks.len()).map_err(trap)?;
        Ok(out.into_iter().map(answer).collect())
    }

    async fn pipeline(
        &mut self,
        items: Vec<String>,
        stages: Vec<String>,
    ) -> wasmtime::Result<Vec<Result<String, types::CallError>>> {
        let request = serde_json::json!({"items": items, "stages": stages});
        let out = self.broker.pipeline(request, items.len()).map_err(trap)?;
        Ok(out.into_iter().map(answer).collect())
    }

    async fn submit(&mut self, task: types::Task) -> wasmtime::Result<u64> {
        self.broker.submit(task_value(&task)).map_err(trap)
    }

    async fn next(&mut self, pending: Vec<u64>) -> wasmtime::Result<types::Completion> {
        let (call, out) = self.broker.next(&pending).map_err(trap)?;
        Ok(types::Completion { call, outcome: answer(out) })
    }

    async fn cancel(&mut self, pending: Vec<u64>) -> wasmtime::Result<()> {
        self.broker.cancel(&pending).map_err(trap)
    }

    async fn phase(&mut self, title: String) -> wasmtime::Result<()> {
        self.broker.phase(&title).map_err(trap)
    }

    async fn log(&mut self, level: types::LogLevel, message: String) -> wasmtime::Result<()> {
        let level = match level {
            types::LogLevel::Trace => "trace",
            types::LogLevel::Debug => "debug",
            types::LogLevel::Info => "info",
            types::LogLevel::Warn => "warn",
            types::LogLevel::Error => "error",
        };
        self.broker.log(level, &message).map_err(trap)
    }

    async fn budget(&mut self) -> wasmtime::Result<types::BudgetStatus> {
        let b = self.broker.budget().map_err(trap)?;
        Ok(types::BudgetStatus {
            token_total: b.token_total,
            tokens_spent: b.tokens_spent,
            agent_calls_left: b.agent_calls_left,
            calls_left: b.calls_left,
        })
    }
}
