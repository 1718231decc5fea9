//! The store data of one instance and the host side of the WIT imports,
//! each a thin conversion into the [`InstanceBroker`].

use super::bindings::hermes::workflow::{host, types};
use super::limits::{HostTrap, MemoryLimiter};
use super::wasi::Capture;
use crate::broker::{AgentRequest, CallErrorKind, CallFailure, InstanceBroker, TaskSpec};
use serde_json::{Map, Value};
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

/// Data of one wasmtime `Store`: the locked-down WASI, the memory limiter,
/// the captured output and the instance's broker.
pub struct HostState {
    wasi: WasiCtx,
    table: ResourceTable,
    time: std::sync::Arc<super::wasi::VirtualTime>,
    pub(crate) limiter: MemoryLimiter,
    pub(crate) broker: InstanceBroker,
    pub(crate) stdout: Capture,
}

impl std::fmt::Debug for HostState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostState")
            .field("broker", &self.broker)
            .finish_non_exhaustive()
    }
}

impl HostState {
    /// Store data for one instance.
    pub fn new(
        wasi: WasiCtx,
        time: std::sync::Arc<super::wasi::VirtualTime>,
        limiter: MemoryLimiter,
        broker: InstanceBroker,
        stdout: Capture,
    ) -> Self {
        Self {
            wasi,
            table: ResourceTable::new(),
            time,
            limiter,
            broker,
            stdout,
        }
    }

    /// The virtual monotonic clock's view (for the linker).
    pub(crate) fn clock_view(&mut self) -> super::wasi::VirtualClockView<'_> {
        super::wasi::VirtualClockView {
            time: &self.time,
            table: &mut self.table,
        }
    }

    /// The captured (stdout, stderr) so far.
    pub fn take_output(&self) -> (Vec<u8>, Vec<u8>) {
        self.stdout.take()
    }

    /// The instance's CPU limit (ms), converted to fuel by the engine.
    pub fn cpu_ms(&self) -> u64 {
        self.broker.run().limits().cpu_ms
    }

    /// A copy of the captured stderr (to name a panic), leaving the output
    /// in place to be journaled.
    pub fn peek_stderr(&self) -> Vec<u8> {
        self.stdout.stderr_copy()
    }
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
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
        map.insert(
            "tools".into(),
            Value::Array(tools.into_iter().map(Value::String).collect()),
        );
    }
    if let Some(fresh) = req.fresh {
        map.insert("fresh".into(), Value::Bool(fresh));
    }
    AgentRequest {
        request: Value::Object(map),
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
    let mut request = Map::new();
    request.insert("name".into(), Value::String(req.name));
    let input = json_field("capability", "input", &req.input);
    request.insert("input".into(), input.clone().unwrap_or(Value::String(req.input)));
    if let Some(l) = req.label {
        request.insert("label".into(), Value::String(l));
    }
    if let Some(a) = req.approval_id {
        request.insert("approval_id".into(), Value::String(a));
    }
    match input {
        Ok(_) => TaskSpec::Capability(Value::Object(request)),
        Err(failure) => TaskSpec::Invalid {
            kind: "capability",
            request: Value::Object(request),
            failure,
        },
    }
}

/// Convert a WIT task into the broker's [`TaskSpec`].
fn task_spec(task: types::Task) -> TaskSpec {
    match task {
        types::Task::Agent(a) => TaskSpec::Agent(agent_request(a)),
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

impl types::Host for HostState {}

impl host::Host for HostState {
    async fn agent(&mut self, req: types::AgentRequest) -> wasmtime::Result<Result<String, types::CallError>> {
        let req = agent_request(req);
        self.broker.agent(req).await.map(answer).map_err(trap)
    }

    async fn capability(
        &mut self,
        req: types::CapabilityRequest,
    ) -> wasmtime::Result<Result<String, types::CallError>> {
        let out = match capability_request(req) {
            TaskSpec::Capability(request) => self.broker.capability(request).await,
            spec => self.broker.call(spec).await,
        };
        out.map(answer).map_err(trap)
    }

    async fn parallel(
        &mut self,
        tasks: Vec<types::Task>,
        fail_fast: bool,
    ) -> wasmtime::Result<Vec<Result<String, types::CallError>>> {
        let specs = tasks.into_iter().map(task_spec).collect();
        let out = self.broker.parallel(specs, fail_fast).await.map_err(trap)?;
        Ok(out.into_iter().map(answer).collect())
    }

    async fn pipeline(
        &mut self,
        items: Vec<String>,
        stages: Vec<String>,
    ) -> wasmtime::Result<Vec<Result<String, types::CallError>>> {
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
        let out = self.broker.pipeline(parsed, stages).await.map_err(trap)?;
        Ok(out.into_iter().map(answer).collect())
    }

    async fn submit(&mut self, task: types::Task) -> wasmtime::Result<u64> {
        self.broker.submit(task_spec(task)).map_err(trap)
    }

    async fn next(&mut self, pending: Vec<u64>) -> wasmtime::Result<types::Completion> {
        let (call, out) = self.broker.next(&pending).await.map_err(trap)?;
        Ok(types::Completion {
            call,
            outcome: answer(out),
        })
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
