//! `hwf mcp`: the facade as an MCP server (rmcp) on stdio or over
//! Streamable HTTP (`--http`, [`crate::mcp_http`]), with the tools
//! `workflow`, `workflow_control` and `workflow_status` (read-only), their
//! JSON Schemas, titles, hints and the envelope as output schema. Both
//! transports serve the same [`Server`]: one host, one in-process runner.
//!
//! The server is long-lived, so it runs a runner in-process: queued runs,
//! runs whose waits were answered (`workflow_control decide`, `resume`,
//! `hwf events send`), stopped parked runs and runs left by a dead executor
//! are picked up within [`hwf_host::scheduler::IN_PROCESS_SCAN`] — nobody has to start `hwf runner`.
//!
//! A foreground run executes in a task of the server: the call returns when
//! the run ends or parks, or after `wait_seconds` (default
//! [`DEFAULT_WAIT_SECONDS`], below the 300 s clients such as Hermes give a
//! tool call) with `{run_id, state, detached: true}` while the run goes on.
//! A foreground call the client cancels (`notifications/cancelled`, or an
//! HTTP request whose connection closes) stops its run: a `stop` control
//! is recorded (actor `mcp-client`) and the run ends `stopped`.
//! A call that carries a progress token gets `notifications/progress`:
//! strictly increasing, only on change, at most every [`PROGRESS_EVERY`],
//! with `total` when the workflow declares phases. Runs are resources
//! `hwf://runs/<id>` (their status); a subscribed one gets
//! `notifications/resources/updated` when it ends or parks; an unknown
//! resource is `-32002`.
//!
//! Every result carries the envelope twice: as JSON text in `content` (for
//! clients and models that only read text) and as `structuredContent`.
//! `isError` is set only when the server itself could not do the work (an
//! unreadable store, its own configuration: [`SERVER_FAULTS`]). A request
//! the model can fix — a mistyped parameter, an unknown run id, a script
//! with errors — and a run that ended failed are reports, `success: false`
//! in the envelope: Hermes Agent counts every `isError` towards a breaker
//! that locks the model out of all of the server's tools for 60 s after
//! three in a row, which three typos must not do.

use hwf_host::facade::{self, Options, params};
use hwf_host::ids::RunId;
use hwf_host::scripts::Language;
use hwf_host::store::{RunSnapshot, RunState};
use hwf_host::{Error, ErrorCode, Hwf};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, Tool, ToolAnnotations, UnsubscribeRequestParams,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// How long a foreground call waits for its run by default.
pub const DEFAULT_WAIT_SECONDS: u64 = 240;
/// How long a `workflow` run from a tasks client may take to answer as a
/// plain result before it becomes a task.
pub const TASK_AFTER: Duration = Duration::from_secs(2);
/// The least time between two progress notifications of one call.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Error codes that mean the server could not do the work, whatever the
/// request: the only ones answered with `isError` (see the module doc).
pub const SERVER_FAULTS: &[&str] = &[
    "io",
    "corrupt_store",
    "internal",
    "invalid_config",
    "invalid_fixture",
    "conflict",
    "no_agent_backend",
];

/// The MCP server over one host. Each connection (the stdio client, an
/// HTTP session, a stateless HTTP request) gets a clone with its own
/// [`Conn`] ([`Server::for_connection`]).
#[derive(Clone)]
pub(crate) struct Server {
    pub(crate) hwf: Arc<Hwf>,
    pub(crate) opts: Options,
    pub(crate) shared: Arc<Shared>,
    conn: Arc<Conn>,
    /// `--conformance-fixtures` ([`crate::mcp_fixtures`]).
    pub(crate) fixtures: Option<Arc<crate::mcp_fixtures::Fixtures>>,
}

/// What every connection's server shares.
pub(crate) struct Shared {
    /// Wakes the in-process runner.
    pub(crate) wake: Arc<Notify>,
    /// Connections that subscribed to something (for `resources/updated`).
    subscribers: Mutex<Vec<Weak<Conn>>>,
    /// Open `subscriptions/listen` streams (2026-07-28), each with the run
    /// resources it accepted.
    listeners: Mutex<Vec<rmcp::service::SubscriptionSink>>,
    /// Seals the run id of a foreground call answered as an
    /// `InputRequiredResult` into its `requestState`.
    sealer: crate::mcp_fixtures::Sealer,
}

/// One client connection: its peer and what it subscribed to.
#[derive(Default)]
struct Conn {
    peer: OnceLock<Peer<RoleServer>>,
    subscribed: Mutex<HashSet<String>>,
    registered: AtomicBool,
}

fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The resource URI of a run.
fn run_uri(id: &RunId) -> String {
    format!("hwf://runs/{id}")
}

/// Whether a request comes from a client that takes `InputRequiredResult`
/// (2026-07-28 or later) and shows forms, but declares no tasks (a tasks
/// client gets a task instead).
fn mrtr_client(context: &RequestContext<RoleServer>) -> bool {
    let modern = context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    modern
        && context
            .client_capabilities()
            .is_some_and(|c| c.elicitation.is_some() && !c.supports_tasks())
}

/// Whether a response is a failure of the server (`isError`), as opposed
/// to a report the model reads and can act on (`success: false`).
fn is_tool_error(v: &Value) -> bool {
    if v["success"] == true {
        return false;
    }
    let code = v["error"]["code"].as_str().unwrap_or("");
    // A run's outcome (failed, stopped) carries its data.
    !v["data"]["state"].is_string() && SERVER_FAULTS.contains(&code)
}

/// The tools as MCP advertises them: the facade's, with their hints.
fn mcp_tools() -> Vec<Tool> {
    facade::tool_defs()
        .into_iter()
        .map(|t| {
            Tool::new(t.name, t.description, object(t.input_schema))
                .with_title(t.title)
                .with_raw_output_schema(Arc::new(object(t.output_schema)))
                .with_annotations(
                    ToolAnnotations::with_title(t.title)
                        .read_only(t.read_only)
                        .destructive(t.destructive)
                        .idempotent(t.idempotent)
                        .open_world(t.open_world),
                )
        })
        .collect()
}

/// Progress of one call: a value that only grows.
struct ProgressState {
    last: f64,
    sent_at: Option<Instant>,
    phase: Option<String>,
    calls_at_phase: u64,
    declared: Option<Vec<String>>,
}

impl ProgressState {
    /// The value and total for these figures: with declared phases, the
    /// index of the current phase plus a fraction that grows with its
    /// calls and stays below the next phase; else the number of calls.
    fn value(&mut self, p: &hwf_host::Progress) -> (f64, Option<f64>) {
        let calls = p.counts.agent_calls + p.counts.capability_calls;
        if self.phase != p.phase {
            self.phase = p.phase.clone();
            self.calls_at_phase = calls;
        }
        let declared = self.declared.as_deref().unwrap_or(&[]);
        if declared.is_empty() {
            return (calls as f64, None);
        }
        let idx = p
            .phase
            .as_ref()
            .and_then(|ph| declared.iter().position(|d| d == ph))
            .unwrap_or(0);
        let n = calls.saturating_sub(self.calls_at_phase) as f64;
        (idx as f64 + n / (n + 1.0), Some(declared.len() as f64))
    }
}

/// A progress callback for one call: rate-limited, strictly increasing,
/// silent once `alive` is cleared (the call has answered).
fn progress_fn(
    hwf: Arc<Hwf>,
    run: RunId,
    token: ProgressToken,
    peer: Peer<RoleServer>,
    alive: Arc<AtomicBool>,
    sent: f64,
) -> hwf_host::runtime::ProgressFn {
    let state = Mutex::new(ProgressState {
        last: sent,
        sent_at: None,
        phase: None,
        calls_at_phase: 0,
        declared: None,
    });
    Arc::new(move |p: &hwf_host::Progress| {
        if !alive.load(Ordering::Acquire) {
            return;
        }
        let mut s = lock(&state);
        if s.declared.is_none() {
            s.declared = hwf.snapshot(&run).ok().map(|snap| snap.declared_phases);
        }
        let (value, total) = s.value(p);
        if value <= s.last || s.sent_at.is_some_and(|t| t.elapsed() < PROGRESS_EVERY) {
            return;
        }
        s.last = value;
        s.sent_at = Some(Instant::now());
        let mut param = ProgressNotificationParam::new(token.clone(), value);
        param.total = total;
        param.message = Some(format!(
            "{}: {} calls, {} running, {} queued",
            p.phase.as_deref().unwrap_or("running"),
            p.counts.agent_calls + p.counts.capability_calls,
            p.running,
            p.queued
        ));
        let peer = peer.clone();
        tokio::spawn(async move {
            let _ = peer.notify_progress(param).await;
        });
    })
}

/// The script language whose runtime this request will compile first (not
/// yet in the compile cache), if any.
fn first_compile(hwf: &Hwf, p: &params::Params) -> Option<Language> {
    let lang = match (p.str("language"), p.str("script_source"), p.str("script_path")) {
        (Some(l), _, _) => Language::parse(l).ok()?,
        _ if p.has("definition") => Language::Json,
        (None, Some(src), _) => Language::sniff(src),
        (None, None, Some(path)) => Language::of_path(std::path::Path::new(path)),
        _ => return None,
    };
    if !matches!(lang, Language::Js | Language::Python | Language::Json) {
        return None;
    }
    let cache = hwf_host::scripts::user_cache_dir().unwrap_or_else(|| hwf.store().root().join("cache"));
    (hwf_host::scripts::runtime_compiled(lang, &cache) == Some(false)).then_some(lang)
}

impl Server {
    /// A server over `hwf` with an in-process runner woken through
    /// `opts` (set here).
    fn new(hwf: Arc<Hwf>, mut opts: Options, fixtures: bool) -> Self {
        let shared = Arc::new(Shared {
            wake: Arc::new(Notify::new()),
            subscribers: Mutex::new(Vec::new()),
            listeners: Mutex::new(Vec::new()),
            sealer: crate::mcp_fixtures::Sealer::new(),
        });
        let wake = shared.clone();
        opts.wake = Some(Arc::new(move |_run: &RunId| wake.wake.notify_one()));
        Self {
            hwf,
            opts,
            shared,
            conn: Arc::default(),
            fixtures: fixtures.then(|| {
                Arc::new(crate::mcp_fixtures::Fixtures {
                    sealer: crate::mcp_fixtures::Sealer::new(),
                })
            }),
        }
    }

    /// The state dir (where `hwf serve`'s console token is kept).
    pub(crate) fn state_dir(&self) -> std::path::PathBuf {
        self.hwf.store().root().to_path_buf()
    }

    /// The same server for another connection.
    pub(crate) fn for_connection(&self) -> Self {
        Self {
            conn: Arc::default(),
            ..self.clone()
        }
    }

    /// A foreground call was cancelled by its client: stop its run (a
    /// `stop` control, which its executor applies; the run ends
    /// `stopped` with its journal kept). A run not created yet (its
    /// script still compiling) is dropped before it starts.
    async fn stop_cancelled(&self, run: &RunId, task: tokio::task::JoinHandle<Value>) {
        let stop = json!({
            "action": "stop",
            "run_id": run,
            "actor": "mcp-client",
            "reason": "the MCP request that started it was cancelled",
        });
        let v = facade::workflow_control_with(&self.hwf, &stop, &self.opts).await;
        if v["success"] == true {
            tracing::info!(run_id = %run, "MCP request cancelled: the run is stopped");
            // Its executor ends it stopped; let it finish.
            tokio::spawn(task);
            return;
        }
        task.abort();
        let _ = task.await;
        // Created meanwhile: a runner finishes it stopped.
        if self.hwf.snapshot(run).is_ok() {
            let v = facade::workflow_control_with(&self.hwf, &stop, &self.opts).await;
            tracing::info!(run_id = %run, recorded = %v["success"], "MCP request cancelled: stop recorded");
        }
    }

    /// A `workflow` call that runs in the foreground: executed in a task
    /// of its own, answered when it ends or parks, or with its id when
    /// `wait_seconds` passes (the run goes on).
    /// A parked run's open questions as an `InputRequiredResult` whose
    /// `requestState` seals the run id and the requests the person
    /// dismissed; `None` when nothing it waits on is a person's to answer
    /// or every open request was dismissed in this call already (the
    /// caller then answers with the run's report: it keeps waiting, for
    /// the CLI, the console or a later call).
    fn mrtr_questions(
        &self,
        run: &RunId,
        dismissed: &BTreeSet<String>,
    ) -> Result<Option<rmcp::model::InputRequiredResult>, McpError> {
        let status = self
            .hwf
            .status(run.as_str())
            .map_err(|e| McpError::internal_error(e.to_string(), None))?
            .to_json();
        let mut view = facade::tasks::task_view(&status);
        if view.status != "input_required" {
            return Ok(None);
        }
        view.input_requests.retain(|call, _| !dismissed.contains(call));
        if view.input_requests.is_empty() {
            return Ok(None);
        }
        let requests: rmcp::model::InputRequests = serde_json::from_value(Value::Object(view.input_requests))
            .map_err(|e| McpError::internal_error(format!("an input request: {e}"), None))?;
        let state = self.shared.sealer.seal(&json!({"run": run, "dismissed": dismissed}));
        Ok(Some(rmcp::model::InputRequiredResult::new(Some(requests), Some(state))))
    }

    /// The retry of an MRTR round: record the answers (as the person's, as
    /// `tasks/update` does), wait until the run ends or parks again, and
    /// answer with its report or its next questions. A request the client
    /// cancelled (Claude Code's answer when nobody can be asked, as under
    /// `-p`) is not asked again in this call: re-asking would loop until
    /// the client's round limit.
    async fn mrtr_retry(
        &self,
        state: &str,
        responses: &rmcp::model::InputResponses,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let opened = self.shared.sealer.open(state)?;
        let run = opened["run"]
            .as_str()
            .and_then(|r| RunId::parse(r).ok())
            .ok_or_else(|| McpError::invalid_params("requestState names no run", None))?;
        let mut dismissed: BTreeSet<String> = opened["dismissed"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|k| k.as_str().map(str::to_owned))
            .collect();
        dismissed.extend(
            responses
                .iter()
                .filter(|(_, r)| r["action"] == "cancel")
                .map(|(k, _)| k.clone()),
        );
        let actor = context
            .client_info()
            .map_or_else(|| "mcp-client".to_owned(), |i| format!("mcp-client:{}", i.name));
        if crate::mcp_tasks::update(&self.hwf, run.as_str(), responses, &actor)? {
            self.shared.wake.notify_one();
        }
        let deadline = Instant::now() + Duration::from_secs(DEFAULT_WAIT_SECONDS);
        loop {
            let snap = self
                .hwf
                .store()
                .read_snapshot(&run)
                .map_err(|e| McpError::internal_error(e.to_string(), None))?;
            let settled = snap.state.is_terminal() || (snap.state == RunState::Waiting && !self.answered_pending(&run));
            if settled || Instant::now() >= deadline || context.ct.is_cancelled() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        if let Some(asked) = self.mrtr_questions(&run, &dismissed)? {
            return Ok(asked.into());
        }
        let report = facade::workflow_status(&self.hwf, &json!({"action": "status", "run_id": run})).await;
        Ok(crate::mcp_tasks::envelope_result(report).into())
    }

    /// Whether a decision recorded on `run` still waits for its runner.
    fn answered_pending(&self, run: &RunId) -> bool {
        let Ok(snap) = self.hwf.store().read_snapshot(run) else {
            return false;
        };
        let Ok((controls, _)) = self.hwf.store().read_controls_lenient(run) else {
            return false;
        };
        snap.waits.iter().any(|w| {
            controls
                .iter()
                .any(|c| c.decision.is_some() && c.call.as_deref() == Some(w.call.as_str()))
        })
    }

    async fn foreground(
        &self,
        mut args: Value,
        p: &params::Params,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, McpError> {
        let wait = Duration::from_secs(p.uint("wait_seconds").unwrap_or(DEFAULT_WAIT_SECONDS));
        let run = match p.str("run_id") {
            Some(id) => RunId::parse(id).map_err(|e| McpError::invalid_params(e.message().to_owned(), None))?,
            None => RunId::generate(),
        };
        if let Value::Object(map) = &mut args {
            // Handled here; the facade then runs it in the foreground.
            map.shift_remove("wait_seconds");
            map.insert("run_id".into(), json!(run));
        }
        let alive = Arc::new(AtomicBool::new(true));
        let mut opts = self.opts.clone();
        // The client's trace (SEP-414 `_meta.traceparent`) goes on in the run's.
        opts.trace_parent = context.meta.get_traceparent().map(str::to_owned);
        let compiling = first_compile(&self.hwf, p);
        if let Some(lang) = compiling {
            tracing::warn!(
                "compiling the {} runtime for this machine (once; can take 15-30 s)",
                lang.as_str()
            );
        }
        if let Some(token) = context.meta.get_progress_token() {
            if let Some(lang) = compiling {
                let mut param = ProgressNotificationParam::new(token.clone(), 0.0);
                param.message = Some(format!(
                    "compiling the {} runtime for this machine (once; can take 15-30 s)",
                    lang.as_str()
                ));
                let _ = context.peer.notify_progress(param).await;
            }
            opts.progress = Some(progress_fn(
                self.hwf.clone(),
                run.clone(),
                token,
                context.peer.clone(),
                alive.clone(),
                if compiling.is_some() { 0.0 } else { f64::NEG_INFINITY },
            ));
        }
        let (hwf, shared) = (self.hwf.clone(), self.shared.clone());
        let mut task = tokio::spawn(async move {
            let v = facade::workflow(&hwf, &args, &opts).await;
            // Subscribers hear about the end at once.
            shared.wake.notify_one();
            v
        });
        let outcome = tokio::select! {
            v = &mut task => Some(v.map_err(|e| McpError::internal_error(format!("the run task failed: {e}"), None))?),
            _ = tokio::time::sleep(wait) => None,
            _ = context.ct.cancelled() => {
                alive.store(false, Ordering::Release);
                self.stop_cancelled(&run, task).await;
                return Err(McpError::internal_error(format!("request cancelled: run {run} is stopped"), None));
            }
        };
        alive.store(false, Ordering::Release);
        Ok(match outcome {
            Some(v) => v,
            None => match self.hwf.snapshot(&run) {
                Ok(snap) => facade::detached(&snap),
                // Not created yet (still compiling): it will be, under this id.
                Err(_) => json!({"success": true, "data": {
                    "run_id": run, "state": "starting", "detached": true, "resource": run_uri(&run),
                    "message": format!("run {run} is still starting; poll workflow_control status with this run_id"),
                }}),
            },
        })
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_tasks()
            .build();
        if self.fixtures.is_some() {
            // The fixture prompts (--conformance-fixtures only).
            caps.prompts = Some(rmcp::model::PromptsCapability::default());
        }
        ServerConfig::new(caps)
            .with_server_info(Implementation::new("hwf", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "hwf runs agent workflows as sandboxed WebAssembly components. Use `workflow` to validate, save, \
             run and inspect workflows, `workflow_status` to read runs (a paged overview, or one run's status), \
             and `workflow_control` to steer them (pause, resume, stop, decide approvals and questions). \
             Decisions take effect at once. A run still going after `wait_seconds` returns its run_id; poll it \
             with `workflow_status` or read the resource hwf://runs/<run_id>.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let mut tools = mcp_tools();
        if self.fixtures.is_some() {
            tools.extend(crate::mcp_fixtures::tools());
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let fixtures = self.fixtures.is_some().then(crate::mcp_fixtures::tools);
        mcp_tools()
            .into_iter()
            .chain(fixtures.into_iter().flatten())
            .find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        if self.fixtures.is_some() && crate::mcp_fixtures::is_tool(&name) {
            return self.fixture_call(request, context).await;
        }
        let (request_state, input_responses) = (request.request_state.clone(), request.input_responses.clone());
        let args = Value::Object(request.arguments.unwrap_or_default());
        // A client that declares the tasks extension gets its runs as
        // durable tasks (crate::mcp_tasks).
        // A run that ends within TASK_AFTER answers as a plain result (a
        // client need not poll for a quick run); one still going or waiting
        // then is the task.
        if name == "workflow"
            && context.client_capabilities().is_some_and(|c| c.supports_tasks())
            && let Ok(p) = params::Params::parse(&args, params::WORKFLOW)
            && facade::is_foreground_run(&p)
            && p.str("run_id").is_none_or(|id| RunId::parse(id).is_ok())
        {
            let mut quick = args.clone();
            quick["wait_seconds"] = json!(TASK_AFTER.as_secs());
            let quick_params = params::Params::parse(&quick, params::WORKFLOW)
                .map_err(|e| McpError::internal_error(e.to_string(), None))?;
            let v = self.foreground(quick, &quick_params, &context).await?;
            let ended = matches!(
                v["data"]["state"].as_str(),
                Some("succeeded" | "failed" | "stopped" | "cancelled")
            );
            return match v["data"]["run_id"].as_str().and_then(|id| RunId::parse(id).ok()) {
                Some(run) if !ended => Ok(CallToolResponse::Task(crate::mcp_tasks::created(&self.hwf, &run)?)),
                // Ended, or never started (bad parameters, a script with errors): the report.
                _ => Ok(crate::mcp_tasks::envelope_result(v).into()),
            };
        }
        // A 2026-07-28 client that can show forms but takes no tasks gets a
        // foreground run's questions as an `InputRequiredResult` (MRTR), and
        // answers them by calling again with the answers.
        let mrtr = name == "workflow" && mrtr_client(&context);
        if mrtr && let (Some(state), Some(responses)) = (&request_state, &input_responses) {
            return self.mrtr_retry(state, responses, &context).await;
        }
        let value = match name.as_str() {
            "workflow" => match params::Params::parse(&args, params::WORKFLOW) {
                // A malformed run id is the facade's to report.
                Ok(p) if facade::is_foreground_run(&p) && p.str("run_id").is_none_or(|id| RunId::parse(id).is_ok()) => {
                    self.foreground(args, &p, &context).await?
                }
                _ => {
                    let mut opts = self.opts.clone();
                    opts.trace_parent = context.meta.get_traceparent().map(str::to_owned);
                    let work = facade::workflow(&self.hwf, &args, &opts);
                    tokio::select! {
                        v = work => v,
                        _ = context.ct.cancelled() => return Err(McpError::internal_error("request cancelled", None)),
                    }
                }
            },
            "workflow_control" => facade::workflow_control_with(&self.hwf, &args, &self.opts).await,
            "workflow_status" => facade::workflow_status(&self.hwf, &args).await,
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown tool {other:?}: expected workflow, workflow_control or workflow_status"),
                    None,
                ));
            }
        };
        if mrtr
            && value["data"]["state"] == "waiting"
            && let Some(run) = value["data"]["run_id"].as_str().and_then(|r| RunId::parse(r).ok())
            && let Some(asked) = self.mrtr_questions(&run, &BTreeSet::new())?
        {
            return Ok(asked.into());
        }
        // Clients older than structured content (2025-06-18) read the text
        // only; the others get both (the text for content-only readers).
        let structured = context
            .protocol_version()
            .is_none_or(|v| v.as_str() >= ProtocolVersion::V_2025_06_18.as_str());
        let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
        result.is_error = Some(is_tool_error(&value));
        if structured {
            result.structured_content = Some(value);
        }
        Ok(result.into())
    }

    /// `subscriptions/listen` (2026-07-28): the run resources
    /// (`hwf://runs/<id>`) a client asks to follow; they get
    /// `notifications/resources/updated` when the run ends or parks, as
    /// `resources/subscribe` does for the 2025 revisions.
    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        let runs: Vec<String> = requested
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| {
                uri.strip_prefix("hwf://runs/")
                    .is_some_and(|id| RunId::parse(id).is_ok())
            })
            .cloned()
            .collect();
        let mut accepted = rmcp::model::SubscriptionFilter::new();
        accepted.resource_subscriptions = Some(runs);
        Some(accepted)
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), McpError> {
        let sink = context.sink().clone();
        let id = sink.id().clone();
        lock(&self.shared.listeners).push(sink);
        context.cancelled().await;
        lock(&self.shared.listeners).retain(|s| *s.id() != id);
        Ok(())
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, McpError> {
        let hwf = self.hwf.clone();
        let report = facade::workflow_status(&hwf, &json!({"action": "status", "run_id": request.task_id})).await;
        let fixtures = self.fixtures.is_some();
        crate::mcp_tasks::get(&hwf, &request.task_id, move |_, status| {
            // A fixture run's result is passed through verbatim.
            if fixtures
                && status["workflow"]
                    .as_str()
                    .is_some_and(crate::mcp_fixtures::is_task_workflow)
            {
                return crate::mcp_fixtures::ended(status);
            }
            crate::mcp_tasks::completed(crate::mcp_tasks::envelope_result(report))
        })
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // The person in the client answered the form: the client's name is
        // the actor.
        let actor = context.peer.peer_info().map_or_else(
            || "mcp-client".to_owned(),
            |i| format!("mcp-client:{}", i.client_info.name),
        );
        if crate::mcp_tasks::update(&self.hwf, &request.task_id, &request.input_responses, &actor)? {
            self.shared.wake.notify_one();
            // Acknowledged once the run has parked again or ended (bounded):
            // the next tasks/get then shows what is still open, not the
            // run's transient replay.
            let keys: Vec<&str> = request.input_responses.keys().map(String::as_str).collect();
            crate::mcp_tasks::settle(&self.hwf, &request.task_id, &keys, crate::mcp_tasks::SETTLE_WAIT).await;
        }
        Ok(())
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if crate::mcp_tasks::cancel(&self.hwf, &request.task_id, "mcp-client")? {
            self.shared.wake.notify_one();
        }
        Ok(())
    }

    /// A request rmcp could not parse lands here. For a method the server
    /// serves that is a malformed request (`-32602`, naming what is
    /// expected), not an unknown method (`-32601`).
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, McpError> {
        // Methods 2026-07-28 removed (initialize, resources/subscribe, …)
        // are unknown to a stateless request: -32601 (HTTP 404).
        let stateless = request
            .params
            .as_ref()
            .and_then(|p| p["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str())
            .map(str::to_owned)
            .or_else(|| context.protocol_version().map(|v| v.to_string()))
            .is_some_and(|v| v.as_str() >= "2026-07-28");
        let expected = match request.method.as_str() {
            _ if stateless => None,
            "tools/call" => Some("params {\"name\": string, \"arguments\": object}"),
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => Some("params {\"uri\": string}"),
            "initialize" => Some("params {protocolVersion, capabilities, clientInfo}"),
            "tools/list" | "resources/list" | "resources/templates/list" | "ping" => {
                Some("params absent or {\"cursor\": string}")
            }
            _ => None,
        };
        Err(match expected {
            Some(what) => McpError::invalid_params(format!("{}: expected {what}", request.method), None),
            None => McpError::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, request.method, None),
        })
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let ids = self
            .hwf
            .store()
            .run_ids()
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let fixtures = match self.fixtures {
            Some(_) => crate::mcp_fixtures::resources()?,
            None => Vec::new(),
        };
        let resources = fixtures
            .into_iter()
            .chain(ids.iter().filter_map(|id| self.hwf.snapshot(id).ok()).map(|s| {
                let mut r = Resource::new(run_uri(&s.run_id), format!("run {}", s.run_id));
                r.title = Some(format!(
                    "{} ({})",
                    hwf_host::review::workflow_name(&s),
                    s.state.as_str()
                ));
                r.mime_type = Some("application/json".into());
                r
            }))
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        // An unknown resource is -32002 with the URI, whatever its scheme.
        let not_found = |why: String| McpError::resource_not_found(why, Some(json!({"uri": request.uri})));
        if self.fixtures.is_some()
            && let Some(r) = crate::mcp_fixtures::read(&request.uri)
        {
            return Ok(r?.into());
        }
        let id = request.uri.strip_prefix("hwf://runs/").ok_or_else(|| {
            not_found(format!(
                "unknown resource {:?}: hwf serves runs as hwf://runs/<run_id>",
                request.uri
            ))
        })?;
        let status = self.hwf.status(id).map_err(|e| match e.code() {
            ErrorCode::NotFound | ErrorCode::InvalidName => not_found(format!("{}: {}", e.code(), e.message())),
            _ => McpError::internal_error(format!("{}: {}", e.code(), e.message()), None),
        })?;
        let contents = ResourceContents::TextResourceContents {
            uri: request.uri.clone(),
            mime_type: Some("application/json".into()),
            text: status.to_json().to_string(),
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, McpError> {
        let templates = match self.fixtures {
            Some(_) => crate::mcp_fixtures::templates()?,
            None => Vec::new(),
        };
        Ok(rmcp::model::ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, McpError> {
        match self.fixtures {
            Some(_) => Ok(rmcp::model::ListPromptsResult::with_all_items(
                crate::mcp_fixtures::prompts()?,
            )),
            None => Err(McpError::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "prompts/list",
                None,
            )),
        }
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, McpError> {
        match self.fixtures {
            Some(_) => self.fixture_prompt(&request),
            None => Err(McpError::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "prompts/get",
                None,
            )),
        }
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let _ = self.conn.peer.set(context.peer.clone());
        lock(&self.conn.subscribed).insert(request.uri);
        if !self.conn.registered.swap(true, Ordering::AcqRel) {
            let mut subs = lock(&self.shared.subscribers);
            subs.retain(|c| c.strong_count() > 0);
            subs.push(Arc::downgrade(&self.conn));
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        lock(&self.conn.subscribed).remove(&request.uri);
        Ok(())
    }
}

/// What `hwf mcp` does around the shared in-process runner
/// ([`hwf_host::scheduler::run_in_process`]): tell subscribers when a run ends
/// or parks.
struct McpHooks {
    shared: Arc<Shared>,
    seen: Mutex<HashMap<RunId, RunState>>,
}

impl hwf_host::scheduler::InProcessHooks for McpHooks {
    fn seen(&self, snap: &RunSnapshot, first: bool) {
        let before = lock(&self.seen).insert(snap.run_id.clone(), snap.state);
        let settled = snap.state.is_terminal() || snap.state == RunState::Waiting;
        if first || before == Some(snap.state) || !settled {
            return;
        }
        let shared = self.shared.clone();
        let id = snap.run_id.clone();
        tokio::spawn(async move { notify_change(&shared, &id).await });
    }
}

/// Send `resources/updated` to every connection subscribed to a run that
/// has just ended or parked.
async fn notify_change(shared: &Shared, run: &RunId) {
    let uri = run_uri(run);
    let peers: Vec<Peer<RoleServer>> = {
        let mut subs = lock(&shared.subscribers);
        subs.retain(|c| {
            c.upgrade()
                .is_some_and(|c| c.peer.get().is_none_or(|p| !p.is_transport_closed()))
        });
        subs.iter()
            .filter_map(Weak::upgrade)
            .filter(|c| lock(&c.subscribed).contains(&uri))
            .filter_map(|c| c.peer.get().cloned())
            .collect()
    };
    for peer in peers {
        let _ = peer
            .notify_resource_updated(rmcp::model::ResourceUpdatedNotificationParam::new(uri.clone()))
            .await;
    }
    // `subscriptions/listen` streams that accepted this run's resource.
    let sinks: Vec<rmcp::service::SubscriptionSink> = lock(&shared.listeners)
        .iter()
        .filter(|s| {
            s.accepted()
                .resource_subscriptions
                .as_ref()
                .is_some_and(|uris| uris.contains(&uri))
        })
        .cloned()
        .collect();
    for sink in sinks {
        let update = rmcp::model::ResourceUpdatedNotification::new(rmcp::model::ResourceUpdatedNotificationParam::new(
            uri.clone(),
        ));
        if let Err(rmcp::service::SubscriptionSendError::SubscriptionClosed) = sink
            .send(rmcp::model::ServerNotification::ResourceUpdatedNotification(update))
            .await
        {
            lock(&shared.listeners).retain(|s| s.id() != sink.id());
        }
    }
}

/// Where `hwf mcp` serves.
#[derive(Debug)]
pub enum Transport {
    /// JSON-RPC lines on stdin/stdout.
    Stdio,
    /// Streamable HTTP at `/mcp` ([`crate::mcp_http`]).
    Http(crate::mcp_http::HttpConfig),
}

/// Serve one connection over stdio until the client disconnects.
pub(crate) async fn serve_stdio(server: Server) -> Result<(), Error> {
    let service = server
        .for_connection()
        .serve(crate::mcp_filter::stdio()) // malformed requests answered (mcp_filter.rs)
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("mcp: {e}")))?;
    service
        .waiting()
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("mcp: {e}")))?;
    Ok(())
}

/// Serve the facade over MCP (stdio, or Streamable HTTP) until the client
/// disconnects or the process is told to stop, with a runner in-process
/// executing up to `concurrency` runs at once.
pub async fn serve(
    hwf: Hwf,
    opts: Options,
    concurrency: usize,
    transport: Transport,
    fixtures: bool,
) -> Result<(), Error> {
    let hwf = Arc::new(hwf);
    let server = Server::new(hwf.clone(), opts, fixtures);
    let hooks = Arc::new(McpHooks {
        shared: server.shared.clone(),
        seen: Mutex::new(HashMap::new()),
    });
    let runner = tokio::spawn(hwf_host::scheduler::run_in_process(
        hwf,
        server.shared.wake.clone(),
        hooks,
        concurrency,
    ));
    let end = match transport {
        Transport::Stdio => serve_stdio(server).await,
        Transport::Http(cfg) => crate::mcp_http::serve(server, cfg).await,
    };
    runner.abort();
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_server_faults_are_tool_errors() {
        let err = |code: &str| json!({"success": false, "error": {"code": code, "message": "m"}});
        for code in [
            "invalid_params",
            "not_found",
            "invalid_name",
            "invalid_script",
            "invalid_args",
            "already_exists",
        ] {
            assert!(!is_tool_error(&err(code)), "{code}");
        }
        for code in SERVER_FAULTS {
            assert!(is_tool_error(&err(code)), "{code}");
        }
        // A run that ended failed is a report, whatever its code.
        let mut failed = err("io");
        failed["data"] = json!({"run_id": "r1", "state": "failed"});
        assert!(!is_tool_error(&failed));
        assert!(!is_tool_error(&json!({"success": true, "data": {}})));
    }

    #[test]
    fn status_and_overview_are_read_only_and_nothing_is_destructive() {
        let tools = mcp_tools();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["workflow", "workflow_control", "workflow_status"]);
        for t in &tools {
            let a = t.annotations.as_ref().expect("annotations");
            assert_eq!(a.destructive_hint, Some(false), "{}", t.name);
            let read = t.name == "workflow_status";
            assert_eq!(a.read_only_hint, Some(read), "{}", t.name);
            assert_eq!(a.idempotent_hint, Some(read), "{}", t.name);
        }
    }
}
