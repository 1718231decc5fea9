//! The facade: one JSON contract for agents and operators, used by the CLI
//! (`--json`, `hwf facade`), the MCP server (`hwf mcp`) and the Hermes
//! plugin shim.
//!
//! - [`workflow`]: `validate`, `run`, `run_script`, `status`, `catalog`,
//!   `script_save`, `script_catalog`, `script_inspect`;
//! - [`workflow_control`]: `overview`, `status`, `pause`, `resume`, `stop`,
//!   `task_stop`, `retry`, `decide`;
//! - [`workflow_status`]: `overview` (paged) and `status`, read-only.
//!
//! Responses are `{"success": true, "data": …}` or `{"success": false,
//! "error": {"code", "message"}}` ([`envelope`]). Parameters are checked by
//! [`params`] (unknown names and wrong types are refused, Claude-style
//! aliases accepted); a final result larger than the preview size comes back
//! as `result_preview` plus `result_path`.

pub mod params;
pub mod tasks;

use crate::app::control::{Action, Decision};
use crate::app::operate::{ControlRequest, parse_decision};
use crate::scripts::Language;
use crate::store::ScriptRef;
use crate::store::{RunSnapshot, RunState};
use crate::{Hwf, RunRequest, Target};
use base64::Engine as _;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use params::{CONTROL, Params, STATUS, WORKFLOW};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Starts a runner for a queued run.
pub type SpawnRunner = Arc<dyn Fn(&RunId) -> Result<()> + Send + Sync>;

/// Tells a runner living in this process that a run has something to do
/// (a control was recorded, a run was queued).
pub type Wake = Arc<dyn Fn(&RunId) + Send + Sync>;

/// What the facade needs besides the host.
#[derive(Clone, Default)]
pub struct Options {
    /// Starts a runner for a queued run (`background: true`), and for a
    /// parked run a control was recorded on, so that it takes effect
    /// without anyone running `hwf runner`. Not used when [`Options::wake`]
    /// is set.
    pub spawn_runner: Option<SpawnRunner>,
    /// An in-process runner to notify instead of starting one (`hwf mcp`).
    pub wake: Option<Wake>,
    /// Called with live progress while a foreground run executes.
    pub progress: Option<crate::ProgressFn>,
    /// Whether a person stands behind these requests (the console), not
    /// the model (the MCP server's and the Hermes plugin's tools, the
    /// default): decisions follow `[policy] agent_may_approve` otherwise.
    pub operator: bool,
    /// The W3C `traceparent` the request came with (an MCP request's
    /// `_meta`): a run it starts continues that trace.
    pub trace_parent: Option<String>,
}

impl Options {
    /// Have the run's new work picked up: wake the in-process runner, or
    /// start a detached one.
    ///
    /// # Errors
    ///
    /// `io` when a runner process cannot be started.
    pub fn kick(&self, run: &RunId) -> Result<()> {
        if let Some(wake) = &self.wake {
            wake(run);
            return Ok(());
        }
        if let Some(spawn) = &self.spawn_runner {
            spawn(run)?;
        }
        Ok(())
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options").finish_non_exhaustive()
    }
}

/// Wrap a result in the facade envelope.
pub fn envelope(result: Result<Value>) -> Value {
    match result {
        Ok(data) => json!({"success": true, "data": data}),
        Err(e) => error_envelope(&e, None),
    }
}

/// A failure envelope, with optional data (a failed run's id and state).
pub fn error_envelope(e: &Error, data: Option<Value>) -> Value {
    let mut v = json!({"success": false, "error": {"code": e.code(), "message": e.message()}});
    if let Some(d) = data {
        v["data"] = d;
    }
    v
}

/// The data of a run's outcome: id, state, counts, result (or preview and
/// path), waits, error.
pub fn run_data(s: &RunSnapshot, state_dir: &Path) -> Value {
    let mut data = json!({"run_id": s.run_id, "state": s.state, "counts": s.counts});
    if let Some(r) = &s.result {
        data["result"] = r.clone();
    }
    if let Some(p) = &s.result_preview {
        data["result_preview"] = json!(p);
        data["result_path"] = json!(crate::app::status::shown_result_path(s, state_dir));
    }
    if !s.waits.is_empty() {
        data["waits"] = json!(s.waits);
    }
    if let Some(e) = &s.error {
        data["error"] = json!(e);
    }
    data
}

/// The envelope of a finished (or parked) run: failed and stopped runs are
/// `success: false` with the run's error and data.
pub fn run_envelope(s: &RunSnapshot, state_dir: &Path) -> Value {
    let data = run_data(s, state_dir);
    match (&s.error, s.state) {
        (Some(e), RunState::Failed | RunState::Stopped) => {
            json!({"success": false, "error": {"code": e.code, "message": e.message}, "data": data})
        }
        _ => json!({"success": true, "data": data}),
    }
}

/// The `workflow` tool.
pub async fn workflow(hwf: &Hwf, request: &Value, opts: &Options) -> Value {
    match workflow_inner(hwf, request, opts).await {
        Ok(v) => v,
        Err(e) => error_envelope(&e, None),
    }
}

/// The `workflow_control` tool, without a runner to notify (controls on
/// parked runs wait for `hwf runner`).
pub async fn workflow_control(hwf: &Hwf, request: &Value) -> Value {
    workflow_control_with(hwf, request, &Options::default()).await
}

/// The `workflow_control` tool: a control recorded on a queued or parked
/// run is handed to the runner of [`Options::kick`], so a decision,
/// resume or stop takes effect at once.
pub async fn workflow_control_with(hwf: &Hwf, request: &Value, opts: &Options) -> Value {
    envelope(control_inner(hwf, request, opts))
}

/// Whether a `workflow` request runs something in the foreground (an
/// explicit or inferred `run`/`run_script` without `background`).
pub fn is_foreground_run(p: &Params) -> bool {
    let action = match p.str("action") {
        Some(a) => a,
        None => infer_action(p).unwrap_or(""),
    };
    matches!(action, "run" | "run_script") && !p.flag("background") && !p.flag("plan")
}

/// What a request names to run, validate or save: a script source, a
/// definition, or a path, resolved to a component or a runtime bound to a
/// script.
fn resolve_source(hwf: &Hwf, p: &Params) -> Result<Option<crate::app::resolve::Resolved>> {
    let declared = p.str("language").map(Language::parse).transpose()?;
    if let Some(def) = p.get("definition") {
        let text = serde_json::to_string(def).unwrap_or_default();
        return Ok(Some(hwf.resolve_bytes(
            Language::Json,
            text.into_bytes(),
            ScriptRef::default(),
        )?));
    }
    if let Some(src) = p.str("script_source") {
        let trimmed = src.trim();
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(trimmed)
            .ok()
            .filter(|b| b.starts_with(b"\0asm"));
        let lang = declared.unwrap_or(if decoded.is_some() {
            Language::Wasm
        } else {
            Language::sniff(src)
        });
        let bytes = match (lang, decoded) {
            (Language::Wasm, Some(b)) => b,
            (Language::Wasm, None) => {
                return Err(Error::new(
                    ErrorCode::InvalidParams,
                    "script_source of a wasm component must be base64",
                ));
            }
            (_, _) => src.as_bytes().to_vec(),
        };
        return Ok(Some(hwf.resolve_bytes(lang, bytes, ScriptRef::default())?));
    }
    if let Some(path) = p.str("script_path") {
        return Ok(Some(hwf.resolve(&Target::Path(PathBuf::from(path)))?));
    }
    Ok(None)
}

fn infer_action(p: &Params) -> Result<&'static str> {
    if p.has("script_source") || p.has("script_path") || p.has("script_name") || p.has("definition") {
        return Ok("run_script");
    }
    if p.has("resume_from_run_id") {
        return Ok("run_script");
    }
    if p.has("run_id") {
        return Ok("status");
    }
    Err(Error::new(
        ErrorCode::InvalidParams,
        "no action: give \"action\", or a script to run (script, scriptPath or name)",
    ))
}

async fn workflow_inner(hwf: &Hwf, request: &Value, opts: &Options) -> Result<Value> {
    let p = Params::parse(request, WORKFLOW)?;
    let action = match p.str("action") {
        Some(a) => a.to_owned(),
        None => infer_action(&p)?.to_owned(),
    };
    let ok = |data: Value| Ok(json!({"success": true, "data": data}));
    match action.as_str() {
        "validate" => {
            let resolved = resolve_source(hwf, &p)?.ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidParams,
                    "validate needs script_source, script_path or definition",
                )
            })?;
            let report = hwf.validate_resolved(resolved).await?;
            if !report.valid {
                return Ok(error_envelope(
                    &crate::app::catalog::script_error(&report),
                    Some(report.to_json()),
                ));
            }
            ok(report.to_json())
        }
        "run" | "run_script" => run_script(hwf, &p, opts).await,
        "fork" => fork(hwf, &p, opts).await,
        "status" => ok(hwf.status(p.req_str("run_id", "status")?)?.to_json()),
        "catalog" => {
            let caps: Vec<Value> = hwf
                .services()
                .capabilities
                .iter()
                .map(|c| json!({"name": c.name, "class": c.class, "description": c.description}))
                .collect();
            let policy = &hwf.services().policy;
            ok(json!({
                "capabilities": caps,
                "policy": {"allowed_classes": policy.allowed_classes, "approval_classes": policy.approval_classes},
                "scripts": hwf.script_list(false)?.scripts,
                "languages": hwf_core::lang::Language::ALL.map(hwf_core::lang::Language::as_str),
            }))
        }
        "script_save" => {
            let name = p.req_str("script_name", "script_save")?;
            let resolved = resolve_source(hwf, &p)?.ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidParams,
                    "script_save needs script_source, script_path or definition",
                )
            })?;
            let meta = hwf.save_resolved(name, resolved, p.flag("replace")).await?;
            ok(serde_json::to_value(meta).unwrap_or(Value::Null))
        }
        "script_catalog" => ok(hwf.script_list(p.flag("include_versions"))?.to_json()),
        "script_inspect" => {
            let name = p.req_str("script_name", "script_inspect")?;
            let version = p.version("script_version")?;
            let detail = hwf.script_inspect(name, version)?;
            let mut v = detail.to_json();
            if p.flag("include_source") {
                let bytes = hwf.script_source(name, detail.meta.version)?;
                if detail.meta.language == "wasm" {
                    v["source_base64"] = json!(base64::engine::general_purpose::STANDARD.encode(bytes));
                } else {
                    v["source"] = json!(String::from_utf8_lossy(&bytes));
                }
            }
            ok(v)
        }
        other => Err(Error::new(
            ErrorCode::InvalidParams,
            format!(
                "unknown workflow action {other:?}: expected validate, run, run_script, status, catalog, script_save, script_catalog or script_inspect"
            ),
        )),
    }
}

async fn run_script(hwf: &Hwf, p: &Params, opts: &Options) -> Result<Value> {
    let resume_from = p.str("resume_from_run_id").map(RunId::parse).transpose()?;
    let mut args = p
        .get("script_args")
        .or_else(|| p.get("inputs"))
        .cloned()
        .unwrap_or(Value::Null);
    let target = if let Some(name) = p.str("script_name") {
        hwf_core::ids::validate_name("script name", name)?;
        Target::Saved {
            name: name.to_owned(),
            version: p.version("script_version")?,
        }
    } else if let Some(resolved) = resolve_source(hwf, p)? {
        hwf.target_for(&resolved)?
    } else if let Some(src) = &resume_from {
        let source = hwf.resume_source(src)?;
        args = source.args_or(
            Some(args).filter(|a| !a.is_null()),
            src,
            ErrorCode::InvalidParams,
            "pass script_args again",
        )?;
        source.target
    } else {
        return Err(Error::new(
            ErrorCode::InvalidParams,
            "run_script needs script_name, script_source or script_path",
        ));
    };
    let mut req = RunRequest::new(target, args);
    req.run_id = p.str("run_id").map(RunId::parse).transpose()?;
    req.resume_from = resume_from;
    req.allow_changed = p.flag("allow_changed");
    // In range: checked with the other parameters (params::WORKFLOW).
    req.max_parallel = p.uint("max_parallel");
    if p.flag("plan") {
        // What a resume would replay and run live; no run is created.
        // Without args, the resume is planned with the source's.
        if req.args.is_null()
            && let Some(src) = &req.resume_from
        {
            req.args = hwf
                .resume_source(src)?
                .args_or(None, src, ErrorCode::InvalidParams, "pass script_args")?;
        }
        let plan = hwf.plan(&req).await?;
        return Ok(json!({"success": true, "data": plan.to_json()}));
    }
    req.trace_parent = opts.trace_parent.clone();
    if p.flag("background") {
        // A queued run is executed without a replay index: a resume in the
        // background would run every call live again (the CLI refuses
        // `--background --resume-from` the same way).
        if req.resume_from.is_some() {
            return Err(Error::new(
                ErrorCode::InvalidParams,
                "background and resume_from_run_id cannot be combined yet: run the resume in the foreground (wait_seconds bounds the wait)",
            ));
        }
        let id = hwf.enqueue(&req)?;
        hwf.declare_phases(&id).await;
        opts.kick(&id)?;
        return Ok(json!({"success": true, "data": {"run_id": id, "state": "queued"}}));
    }
    if let Some(wait) = p.uint("wait_seconds")
        && (opts.wake.is_some() || opts.spawn_runner.is_some())
        // A queued run has no replay index: a resume runs here.
        && req.resume_from.is_none()
    {
        // A caller with a deadline: the run is executed by a runner, and
        // this call returns when it ends or parks, or when the deadline
        // passes — then with its id and state, and it keeps running.
        let id = hwf.enqueue(&req)?;
        hwf.declare_phases(&id).await;
        opts.kick(&id)?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(wait);
        loop {
            let snap = hwf.snapshot(&id)?;
            if !matches!(snap.state, RunState::Queued | RunState::Running) {
                return Ok(run_envelope(&snap, hwf.state_dir()));
            }
            if std::time::Instant::now() >= deadline {
                return Ok(detached(&snap));
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
    req.progress = opts.progress.clone();
    let outcome = hwf.run(req).await?;
    Ok(run_envelope(&outcome.snapshot, hwf.state_dir()))
}

/// `fork`: a new run resumed from `resume_from_run_id` in which `call`
/// answers `output` (or, for a `human.ask`, `answer`), runs live with a
/// new `input`, or runs again with a `decision` (approve | deny); the edit is
/// journaled (`call_edited`) with `actor` (default: `operator` from the
/// console, else `agent`) and `reason`. Runs in the foreground.
async fn fork(hwf: &Hwf, p: &Params, opts: &Options) -> Result<Value> {
    use crate::app::fork::{ForkDecision, ForkEdit, ForkRequest};
    let source = RunId::parse(p.req_str("resume_from_run_id", "fork")?)?;
    let call = p.req_str("call", "fork")?.to_owned();
    hwf_core::ids::validate_name("call ref", &call)?;
    let edit = match (p.get("output"), p.get("answer"), p.get("input"), p.str("decision")) {
        (Some(o), None, None, None) => ForkEdit::Output(o.clone()),
        (None, Some(a), None, None) => ForkEdit::Answer(a.clone()),
        (None, None, Some(i), None) => ForkEdit::Input(i.clone()),
        (None, None, None, Some(d)) => ForkEdit::Decision(
            ForkDecision::parse(d).map_err(|e| Error::new(ErrorCode::InvalidParams, e.message().to_owned()))?,
        ),
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidParams,
                "fork needs exactly one of \"output\" (the call's new result), \"answer\" (a human.ask's new answer), \"input\" (the call's new request input) or \"decision\" (approve | deny an approval gate)",
            ));
        }
    };
    let actor = match p.str("actor") {
        Some(a) => a.to_owned(),
        None if opts.operator => "operator".to_owned(),
        None => "agent".to_owned(),
    };
    let outcome = hwf
        .fork(&ForkRequest {
            source,
            call,
            edit,
            actor,
            reason: p.str("reason").map(str::to_owned),
            args: p.get("script_args").cloned(),
            run_id: p.str("run_id").map(RunId::parse).transpose()?,
        })
        .await?;
    Ok(run_envelope(&outcome.snapshot, hwf.state_dir()))
}

/// The answer of a foreground call whose deadline (`wait_seconds`) passed
/// while its run goes on.
pub fn detached(s: &RunSnapshot) -> Value {
    json!({"success": true, "data": {
        "run_id": s.run_id,
        "state": s.state,
        "detached": true,
        "resource": format!("hwf://runs/{}", s.run_id),
        "message": format!(
            "run {} is still {}; it keeps running: poll workflow_control status with this run_id",
            s.run_id,
            s.state.as_str()
        ),
    }})
}

fn control_inner(hwf: &Hwf, request: &Value, opts: &Options) -> Result<Value> {
    let p = Params::parse(request, CONTROL)?;
    let action = match p.str("action") {
        Some(a) => a,
        None if p.has("run_id") => "status",
        None => "overview",
    };
    let act = match action {
        "overview" => return overview_page(hwf, &p),
        "status" => return Ok(hwf.status(p.req_str("run_id", "status")?)?.to_json()),
        "pause" => Action::Pause,
        "resume" => Action::Unpause,
        "stop" => Action::Stop,
        "task_stop" => Action::TaskStop,
        "retry" => Action::Retry,
        "decide" => Action::Decide,
        other => {
            return Err(Error::new(
                ErrorCode::InvalidParams,
                format!(
                    "unknown workflow_control action {other:?}: expected overview, status, pause, resume, stop, task_stop, retry or decide"
                ),
            ));
        }
    };
    let mut req = ControlRequest::new(
        RunId::parse(p.req_str("run_id", action)?)?,
        act,
        p.str("actor").unwrap_or("agent"),
    );
    // Never from a parameter: the front door says who is behind it.
    req.surface = if opts.operator {
        crate::app::operate::Surface::Operator
    } else {
        crate::app::operate::Surface::Agent
    };
    req.control_id = p.str("control_id").map(str::to_owned);
    req.reason = p.str("reason").map(str::to_owned);
    // Whether the run takes the control at all (it may have ended) is the
    // service's to say first; it refuses a missing call or decision too.
    req.call = p.str("call").map(str::to_owned);
    if act == Action::Decide {
        let d = p
            .str("decision")
            .map(|d| {
                parse_decision(d).map_err(|_| {
                    Error::new(
                        ErrorCode::InvalidParams,
                        "parameter \"decision\" must be approve, reject, edit or respond",
                    )
                })
            })
            .transpose()?;
        req.value = match d {
            Some(Decision::Edit) => p.get("input").or_else(|| p.get("value")).cloned(),
            _ => p.get("value").or_else(|| p.get("input")).cloned(),
        };
        req.decision = d;
        req.channel = Some(p.str("channel").unwrap_or("facade").to_owned());
        req.message_id = p.str("message_id").map(str::to_owned);
    }
    let recorded = hwf.control(req)?;
    // A parked or queued run has no executor watching its controls: hand
    // it to a runner now. A running one applies them itself.
    if recorded.needs_runner() {
        opts.kick(&recorded.run_id)?;
    }
    serde_json::to_value(&recorded).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))
}

/// `overview`: one page of runs, newest first (`limit`, default
/// [`params::DEFAULT_OVERVIEW_LIMIT`]; `cursor` or `offset`; `state` and
/// `workflow` filters), with the blocked waits of the runs listed: `{runs,
/// total, offset, next_offset, next_cursor, waits}`.
fn overview_page(hwf: &Hwf, p: &Params) -> Result<Value> {
    let filter = crate::app::review::RunFilter {
        state: p.str("state").map(str::to_owned),
        name: p.str("workflow").map(str::to_owned),
        since_ms: None,
        limit: Some(p.uint("limit").unwrap_or(params::DEFAULT_OVERVIEW_LIMIT) as usize),
        offset: p.uint("offset").map_or(0, |o| usize::try_from(o).unwrap_or(usize::MAX)),
        after: p.str("cursor").map(str::to_owned),
    };
    let mut v = hwf.runs(&filter).map_err(|e| match e.code() {
        // A bad filter or cursor is a parameter of this request.
        ErrorCode::InvalidArgs => Error::new(ErrorCode::InvalidParams, e.message()),
        _ => e,
    })?;
    let waits: Vec<Value> = v["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|r| {
            let run = r["run_id"].clone();
            r["waits"]
                .as_array()
                .into_iter()
                .flatten()
                .map(move |w| json!({"run_id": run, "wait": w}))
                .collect::<Vec<_>>()
        })
        .collect();
    v["waits"] = json!(waits);
    Ok(v)
}

/// One tool the MCP server and the plugin expose.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// Name.
    pub name: &'static str,
    /// Human-readable title.
    pub title: &'static str,
    /// What it does, for the model.
    pub description: &'static str,
    /// The JSON Schema of its arguments.
    pub input_schema: Value,
    /// The JSON Schema of its result (the envelope).
    pub output_schema: Value,
    /// Whether it only reads (hint).
    pub read_only: bool,
    /// Whether it may destroy something (hint).
    pub destructive: bool,
    /// Whether calling it again with the same arguments changes nothing
    /// more (hint).
    pub idempotent: bool,
    /// Whether it reaches beyond hwf's own store (agents, commands: hint).
    pub open_world: bool,
}

/// The JSON Schema of every response: the facade envelope.
pub fn envelope_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "success": {"type": "boolean", "description": "false when the request failed or the run ended failed/stopped"},
            "data": {"type": "object", "description": "the action's result (a run: run_id, state, counts, result, waits)"},
            "error": {
                "type": "object",
                "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
                "required": ["code", "message"],
            },
        },
        "required": ["success"],
    })
}

/// The tools, with titles, hints and schemas.
pub fn tool_defs() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "workflow",
            title: "Run and manage hwf workflows",
            description: "Run, validate, save and inspect hwf workflows (sandboxed, durable agent workflows). Give the source in `script_source` (JavaScript, Python or a JSON definition), a file in `script_path`, or a saved `script_name`, with `script_args`; `action: status` with `run_id` reports a run. A run still going after `wait_seconds` returns its `run_id` and keeps running.",
            input_schema: params::schema(WORKFLOW, &[]),
            output_schema: envelope_schema(),
            read_only: false,
            destructive: false,
            idempotent: false,
            open_world: true,
        },
        // Not destructive: a stop is recorded, the run's journal is kept
        // and `resume_from_run_id` runs it again with every completed call
        // replayed; pause, resume, retry and decide add a record. Marking
        // it destructive made clients confirm every status poll; reading
        // is `workflow_status`, which is read-only.
        ToolDef {
            name: "workflow_control",
            title: "Steer hwf runs",
            description: "Steer hwf runs: pause, resume, stop, task_stop, retry, and decide (approve/reject/edit a gated call, respond to a question). Controls take effect at once. (overview and status are accepted here too; workflow_status is the read-only way.)",
            input_schema: params::schema(CONTROL, &[]),
            output_schema: envelope_schema(),
            read_only: false,
            destructive: false,
            idempotent: false,
            open_world: false,
        },
        ToolDef {
            name: "workflow_status",
            title: "Read hwf runs",
            description: "Read hwf runs without changing anything: `overview` (default; newest first, paged: `limit` (20), `cursor` from the previous page's `next_cursor`, filters `state` and `workflow`) or `status` of one `run_id` (state, phase, calls, waits, result).",
            input_schema: params::schema(STATUS, &[]),
            output_schema: envelope_schema(),
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: false,
        },
    ]
}

/// The `workflow_status` tool: `overview` and `status` only, the
/// read-only half of [`workflow_control`].
pub async fn workflow_status(hwf: &Hwf, request: &Value) -> Value {
    let read = || -> Result<Value> {
        let p = Params::parse(request, STATUS)?;
        match p.str("action") {
            Some("status") => Ok(hwf.status(p.req_str("run_id", "status")?)?.to_json()),
            None if p.has("run_id") => Ok(hwf.status(p.req_str("run_id", "status")?)?.to_json()),
            Some("overview") | None => overview_page(hwf, &p),
            Some(other) => Err(Error::new(
                ErrorCode::InvalidParams,
                format!(
                    "unknown workflow_status action {other:?}: expected overview or status (workflow_control steers runs)"
                ),
            )),
        }
    };
    envelope(read())
}

/// The tools the MCP server and plugin expose: (name, description, input
/// schema).
pub fn tools() -> Vec<(&'static str, &'static str, Value)> {
    tool_defs()
        .into_iter()
        .map(|t| (t.name, t.description, t.input_schema))
        .collect()
}
