//! `hwf mcp`: the facade as an MCP server on stdio (rmcp), with the tools
//! `workflow` and `workflow_control`, their JSON Schemas, titles, hints and
//! the envelope as output schema.
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
//! A call that carries a progress token gets `notifications/progress`:
//! strictly increasing, only on change, at most every [`PROGRESS_EVERY`],
//! with `total` when the workflow declares phases. Runs are resources
//! `hwf://runs/<id>` (their status); a subscribed one gets
//! `notifications/resources/updated` when it ends or parks.
//!
//! `isError` is set only when the tool could not execute the request (bad
//! parameters, an unreadable store); a lookup that found nothing and a run
//! that ended failed are reports, `success: false` in the envelope.

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
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// How long a foreground call waits for its run by default.
pub const DEFAULT_WAIT_SECONDS: u64 = 240;
/// The least time between two progress notifications of one call.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Error codes that are answers, not failures of the tool: the model asked
/// about something that does not exist, or a run ended badly.
const REPORT_CODES: &[&str] = &["not_found", "invalid_script", "waiting"];

/// The MCP server over one host.
#[derive(Clone)]
struct Server {
    hwf: Arc<Hwf>,
    opts: Options,
    shared: Arc<Shared>,
}

/// What the server's tasks share.
struct Shared {
    /// Wakes the in-process runner.
    wake: Arc<Notify>,
    /// Resource URIs the client subscribed to.
    subscribed: Mutex<HashSet<String>>,
    /// The client, once connected (for `resources/updated`).
    peer: OnceLock<Peer<RoleServer>>,
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

/// Whether a response is a failure of the tool itself (`isError`), as
/// opposed to a report the model reads (`success: false` with data).
fn is_tool_error(v: &Value) -> bool {
    if v["success"] == true {
        return false;
    }
    let code = v["error"]["code"].as_str().unwrap_or("");
    // A run's outcome (failed, stopped) carries its data.
    !(v["data"]["state"].is_string() || REPORT_CODES.contains(&code))
}

/// One line for clients that show `content`; the envelope itself is the
/// structured content.
fn summary(v: &Value) -> String {
    let data = &v["data"];
    let run = match (data["run_id"].as_str(), data["state"].as_str()) {
        (Some(id), Some(state)) => Some(format!("run {id}: {state}")),
        _ => None,
    };
    match (v["success"] == true, run) {
        (true, Some(run)) if data["detached"] == true => format!("{run} (still going; poll status with its run_id)"),
        (true, Some(run)) => format!("{run}; the result is in structuredContent"),
        (true, None) => "ok; the result is in structuredContent".into(),
        (false, run) => format!(
            "{}{}: {}",
            run.map(|r| format!("{r}; ")).unwrap_or_default(),
            v["error"]["code"].as_str().unwrap_or("error"),
            v["error"]["message"].as_str().unwrap_or("")
        ),
    }
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
    /// A `workflow` call that runs in the foreground: executed in a task
    /// of its own, answered when it ends or parks, or with its id when
    /// `wait_seconds` passes (the run goes on).
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
            map.remove("wait_seconds");
            map.insert("run_id".into(), json!(run));
        }
        let alive = Arc::new(AtomicBool::new(true));
        let mut opts = self.opts.clone();
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
                task.abort();
                let _ = task.await;
                return Err(McpError::internal_error("request cancelled", None));
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
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .build(),
        )
        .with_server_info(Implementation::new("hwf", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "hwf runs agent workflows as sandboxed WebAssembly components. Use `workflow` to validate, save, \
             run and inspect workflows, and `workflow_control` to watch and steer runs (pause, resume, stop, \
             decide approvals and questions). Decisions take effect at once. A run still going after \
             `wait_seconds` returns its run_id; poll it with `workflow_control status` or read the resource \
             hwf://runs/<run_id>.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = facade::tool_defs()
            .into_iter()
            .map(|t| {
                Tool::new(t.name, t.description, object(t.input_schema))
                    .with_title(t.title)
                    .with_raw_output_schema(Arc::new(object(t.output_schema)))
                    .with_annotations(
                        ToolAnnotations::with_title(t.title)
                            .read_only(t.read_only)
                            .destructive(t.destructive)
                            .idempotent(false)
                            .open_world(true),
                    )
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let args = Value::Object(request.arguments.unwrap_or_default());
        let value = match name.as_str() {
            "workflow" => match params::Params::parse(&args, params::WORKFLOW) {
                // A malformed run id is the facade's to report.
                Ok(p) if facade::is_foreground_run(&p) && p.str("run_id").is_none_or(|id| RunId::parse(id).is_ok()) => {
                    self.foreground(args, &p, &context).await?
                }
                _ => {
                    let work = facade::workflow(&self.hwf, &args, &self.opts);
                    tokio::select! {
                        v = work => v,
                        _ = context.ct.cancelled() => return Err(McpError::internal_error("request cancelled", None)),
                    }
                }
            },
            "workflow_control" => facade::workflow_control_with(&self.hwf, &args, &self.opts).await,
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown tool {other:?}: expected workflow or workflow_control"),
                    None,
                ));
            }
        };
        // Clients older than structured content (2025-06-18) read the text.
        let structured = context
            .peer
            .peer_info()
            .is_none_or(|info| info.protocol_version.to_string() >= ProtocolVersion::V_2025_06_18.to_string());
        let text = if structured { summary(&value) } else { value.to_string() };
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.is_error = Some(is_tool_error(&value));
        if structured {
            result.structured_content = Some(value);
        }
        Ok(result.into())
    }

    /// A request rmcp could not parse lands here. For a method the server
    /// serves that is a malformed request (`-32602`, naming what is
    /// expected), not an unknown method (`-32601`).
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, McpError> {
        let expected = match request.method.as_str() {
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
        let resources = ids
            .iter()
            .filter_map(|id| self.hwf.snapshot(id).ok())
            .map(|s| {
                let mut r = Resource::new(run_uri(&s.run_id), format!("run {}", s.run_id));
                r.title = Some(format!(
                    "{} ({})",
                    s.script.name.as_deref().unwrap_or("workflow run"),
                    s.state.as_str()
                ));
                r.mime_type = Some("application/json".into());
                r
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let id = request
            .uri
            .strip_prefix("hwf://runs/")
            .ok_or_else(|| McpError::invalid_params(format!("unknown resource {:?}", request.uri), None))?;
        let status = self
            .hwf
            .status(id)
            .map_err(|e| McpError::resource_not_found(format!("{}: {}", e.code(), e.message()), None))?;
        let contents = ResourceContents::TextResourceContents {
            uri: request.uri.clone(),
            mime_type: Some("application/json".into()),
            text: status.to_json().to_string(),
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        lock(&self.shared.subscribed).insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        lock(&self.shared.subscribed).remove(&request.uri);
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

/// Send `resources/updated` to a subscriber of a run that has just ended
/// or parked.
async fn notify_change(shared: &Shared, run: &RunId) {
    let uri = run_uri(run);
    if !lock(&shared.subscribed).contains(&uri) {
        return;
    }
    if let Some(peer) = shared.peer.get() {
        let _ = peer
            .notify_resource_updated(rmcp::model::ResourceUpdatedNotificationParam::new(uri))
            .await;
    }
}

/// Serve the facade over MCP on stdio until the client disconnects, with a
/// runner in-process executing up to `concurrency` runs at once.
pub async fn serve(hwf: Hwf, mut opts: Options, concurrency: usize) -> Result<(), Error> {
    let shared = Arc::new(Shared {
        wake: Arc::new(Notify::new()),
        subscribed: Mutex::new(HashSet::new()),
        peer: OnceLock::new(),
    });
    let wake = shared.clone();
    opts.wake = Some(Arc::new(move |_run: &RunId| wake.wake.notify_one()));
    let hwf = Arc::new(hwf);
    let server = Server {
        hwf: hwf.clone(),
        opts,
        shared: shared.clone(),
    };
    let service = server
        .serve(crate::mcp_filter::stdio()) // malformed requests answered (mcp_filter.rs)
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("mcp: {e}")))?;
    let _ = shared.peer.set(service.peer().clone());
    let hooks = Arc::new(McpHooks {
        shared: shared.clone(),
        seen: Mutex::new(HashMap::new()),
    });
    let runner = tokio::spawn(hwf_host::scheduler::run_in_process(
        hwf,
        shared.wake.clone(),
        hooks,
        concurrency,
    ));
    let end = service.waiting().await;
    runner.abort();
    end.map_err(|e| Error::new(ErrorCode::Internal, format!("mcp: {e}")))?;
    Ok(())
}
