//! The JSON API under `/api/` (documented in `docs/CONSOLE.md`).
//!
//! Responses are the facade envelope: `{"success": true, "data": …}` or
//! `{"success": false, "error": {"code", "message"}}`, with 404 for an
//! unknown or malformed run or call id, 400 for bad input, 401/403 from
//! the guard (see [`super`]). Every value is redacted before it is sent.

use super::{AppState, error_response, refuse};
use crate::app::review::RunFilter;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use hwf_core::error::{Error, ErrorCode};
use hwf_core::ids::RunId;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::convert::Infallible;
use std::sync::Arc;

type App = State<Arc<AppState>>;

fn ok(data: Value) -> Response {
    let mut v = json!({"success": true, "data": data});
    hwf_core::redact::redact_value(&mut v);
    axum::Json(v).into_response()
}

fn result(r: crate::Result<Value>) -> Response {
    match r {
        Ok(v) => ok(v),
        Err(e) => error_response(&e),
    }
}

/// A value the view that built it has already redacted (`Hwf::status`,
/// `runs`, `timeline`, `review_queue`, `call_detail`): not walked again
/// (a 1,000-call run's status is large).
fn result_redacted(r: crate::Result<Value>) -> Response {
    match r {
        Ok(v) => axum::Json(json!({"success": true, "data": v})).into_response(),
        Err(e) => error_response(&e),
    }
}

/// A facade envelope as a response: its status from the error code.
fn envelope(v: Value) -> Response {
    if v["success"] == true {
        return axum::Json(v).into_response();
    }
    let status = match v["error"]["code"].as_str().unwrap_or("") {
        "not_found" | "invalid_name" => StatusCode::NOT_FOUND,
        "internal" | "io" | "corrupt_store" => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    };
    (status, axum::Json(v)).into_response()
}

/// A request body: a JSON object, or a typed 400.
#[allow(clippy::result_large_err, reason = "the error is the response itself, built once")]
fn body_object(body: &Bytes) -> Result<Map<String, Value>, Response> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(error_response(&Error::new(
            ErrorCode::InvalidParams,
            "the request body must be a JSON object",
        ))),
        Err(e) => Err(error_response(&Error::new(
            ErrorCode::InvalidParams,
            format!("the request body is not valid JSON: {e}"),
        ))),
    }
}

#[allow(clippy::result_large_err, reason = "the error is the response itself, built once")]
fn run_id(id: &str) -> Result<RunId, Response> {
    RunId::parse(id).map_err(|_| refuse(StatusCode::NOT_FOUND, "not_found", "no such run"))
}

/// `GET /api/health`.
pub async fn health(State(app): App) -> Response {
    ok(json!({"ok": true, "version": env!("CARGO_PKG_VERSION"), "loopback": app.loopback}))
}

/// The query of `GET /api/runs`.
#[derive(Debug, Deserialize)]
pub struct RunsQuery {
    state: Option<String>,
    name: Option<String>,
    /// Only runs created at or after this time (ms since the epoch).
    since: Option<u64>,
    limit: Option<usize>,
    offset: Option<usize>,
}

/// `GET /api/runs?state=&name=&since=&limit=&offset=`.
pub async fn runs(State(app): App, q: Result<Query<RunsQuery>, QueryRejection>) -> Response {
    let q = match q {
        Ok(Query(q)) => q,
        Err(e) => return error_response(&Error::new(ErrorCode::InvalidParams, format!("bad query: {e}"))),
    };
    let filter = RunFilter {
        state: q.state.filter(|s| !s.is_empty()),
        name: q.name.filter(|s| !s.is_empty()),
        since_ms: q.since,
        limit: Some(q.limit.unwrap_or(50).min(1000)),
        offset: q.offset.unwrap_or(0),
        after: None,
    };
    let hwf = app.hwf.clone();
    result_redacted(blocking(move || hwf.runs(&filter)).await)
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> crate::Result<T> + Send + 'static) -> crate::Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("task: {e}")))?
}

/// `GET /api/runs/{id}`: the status (calls, phases, declared phases,
/// result), the workflow name, duration and the run's review entries.
pub async fn run(State(app): App, Path(id): Path<String>) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let hwf = app.hwf.clone();
    result_redacted(
        blocking(move || {
            let mut status = hwf.status(id.as_str())?.to_json();
            let snap = hwf.snapshot(&id)?;
            let name = crate::app::review::workflow_name(&snap);
            status["workflow"] = json!(hwf_core::redact::redact_text(&name));
            status["duration_ms"] = json!(crate::app::review::duration_ms(&snap, crate::store::now_ms()));
            status["review"] = json!(hwf.run_waits(&snap));
            Ok(status)
        })
        .await,
    )
}

/// `GET /api/runs/{id}/journal`: the compact timeline.
pub async fn journal(
    State(app): App,
    Path(id): Path<String>,
    q: Result<Query<JournalQuery>, QueryRejection>,
) -> Response {
    paged_read(&app, &id, q, |hwf, id, page| hwf.timeline_page(id, page)).await
}

/// `GET /api/runs/{id}/page`: what the run page shows, in one answer
/// ([`crate::Hwf::run_page`]): the header, the calls as compact rows, and
/// the timeline's page (`?all=true` or `?offset=&limit=` as the journal
/// endpoint).
pub async fn run_page(
    State(app): App,
    Path(id): Path<String>,
    q: Result<Query<JournalQuery>, QueryRejection>,
) -> Response {
    paged_read(&app, &id, q, |hwf, id, page| hwf.run_page(id, page)).await
}

/// A read of one run's journal with a timeline page: the id and the page
/// checked, then `read` off the async threads under a journal-read permit,
/// its answer redacted.
async fn paged_read(
    app: &AppState,
    id: &str,
    q: Result<Query<JournalQuery>, QueryRejection>,
    read: impl FnOnce(&crate::Hwf, &str, crate::app::review::TimelinePage) -> crate::Result<Value> + Send + 'static,
) -> Response {
    let id = match run_id(id) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let page = match timeline_page(q) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let Ok(_permit) = app.journal_reads.clone().acquire_owned().await else {
        return error_response(&Error::new(ErrorCode::Internal, "the console is shutting down"));
    };
    let hwf = app.hwf.clone();
    result_redacted(blocking(move || read(&hwf, id.as_str(), page)).await)
}

/// Which timeline rows a query asks for.
#[allow(clippy::result_large_err, reason = "the error is the response itself, built once")]
fn timeline_page(q: Result<Query<JournalQuery>, QueryRejection>) -> Result<crate::app::review::TimelinePage, Response> {
    let q = match q {
        Ok(Query(q)) => q,
        Err(e) => {
            return Err(error_response(&Error::new(
                ErrorCode::InvalidParams,
                format!("bad query: {e}"),
            )));
        }
    };
    Ok(match (q.all, q.offset, q.limit) {
        (Some(true), None, None) => crate::app::review::TimelinePage::All,
        (None | Some(false), None, None) => crate::app::review::TimelinePage::HeadAndTail,
        (None | Some(false), offset, limit) => crate::app::review::TimelinePage::Range {
            offset: offset.unwrap_or(0),
            limit: limit.unwrap_or(crate::app::review::TIMELINE_PAGE),
        },
        (Some(true), _, _) => {
            return Err(error_response(&Error::new(
                ErrorCode::InvalidParams,
                "all=true reads every row: leave out offset and limit",
            )));
        }
    })
}

/// `GET /api/runs/{id}/journal?offset=&limit=` or `?all=true`.
#[derive(Debug, Deserialize)]
pub struct JournalQuery {
    /// Every row (up to [`crate::app::review::TIMELINE_ALL`]).
    all: Option<bool>,
    /// The first row of a page.
    offset: Option<usize>,
    /// Rows in a page (at most [`crate::app::review::TIMELINE_MAX_PAGE`]).
    limit: Option<usize>,
}

/// `GET /api/runs/{id}/result`: the whole result, also when it was too
/// large to keep in the snapshot (the spilled `result.json`), redacted.
pub async fn run_result(State(app): App, Path(id): Path<String>) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let hwf = app.hwf.clone();
    result(blocking(move || hwf.result(&id)).await)
}

/// `GET /api/runs/{id}/calls/{call}`: one call's request and answer.
pub async fn call(State(app): App, Path((id, call)): Path<(String, String)>) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let hwf = app.hwf.clone();
    result_redacted(blocking(move || hwf.call_detail(id.as_str(), &call)).await)
}

/// `GET /api/runs/{id}/calls/{call}/fork`: what a fork of the call may
/// replace (the console's fork forms): its recorded output and input
/// (redacted, with the pointers of the input's redacted values), a
/// `human.ask`'s question, and the decisions it takes
/// ([`crate::app::fork::ForkOptions`]).
pub async fn fork_options(State(app): App, Path((id, call)): Path<(String, String)>) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let hwf = app.hwf.clone();
    result_redacted(blocking(move || hwf.fork_options(&id, &call).map(|o| o.to_json())).await)
}

/// `GET /api/waits`: the review queue.
pub async fn waits(State(app): App) -> Response {
    let hwf = app.hwf.clone();
    result_redacted(blocking(move || hwf.review_queue()).await)
}

/// A request id for provenance and idempotency: the client's
/// (`request_id`), else a fresh one.
#[allow(clippy::result_large_err, reason = "the error is the response itself, built once")]
fn request_id(body: &Map<String, Value>) -> Result<String, Response> {
    match body.get("request_id") {
        None | Some(Value::Null) => Ok(format!("w{}", uuid::Uuid::now_v7().simple())),
        Some(Value::String(s)) => match hwf_core::ids::validate_name("request id", s) {
            Ok(()) => Ok(s.clone()),
            Err(e) => Err(error_response(&Error::new(ErrorCode::InvalidParams, e.message()))),
        },
        Some(_) => Err(error_response(&Error::new(
            ErrorCode::InvalidParams,
            "request_id must be a string",
        ))),
    }
}

/// Send a `workflow_control` request through the facade (the same checks
/// and records as the CLI and MCP), then wake the runner.
async fn control_via_facade(app: &Arc<AppState>, request: Value) -> Response {
    let v = crate::facade::workflow_control_with(&app.hwf, &request, &app.opts).await;
    app.kick();
    envelope(v)
}

fn copy(dst: &mut Map<String, Value>, src: &Map<String, Value>, keys: &[&str]) {
    for k in keys {
        if let Some(v) = src.get(*k) {
            dst.insert((*k).into(), v.clone());
        }
    }
}

/// `POST /api/runs/{id}/controls` `{action: pause|resume|stop|task_stop|retry,
/// call?, reason?, actor?, request_id?}`.
pub async fn control(State(app): App, Path(id): Path<String>, body: Bytes) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let body = match body_object(&body) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let action = body.get("action").and_then(Value::as_str).unwrap_or("");
    if !matches!(action, "pause" | "resume" | "stop" | "task_stop" | "retry") {
        return error_response(&Error::new(
            ErrorCode::InvalidParams,
            format!("action {action:?}: expected pause, resume, stop, task_stop or retry"),
        ));
    }
    let rid = match request_id(&body) {
        Ok(r) => r,
        Err(r) => return r,
    };
    let mut req = Map::new();
    req.insert("run_id".into(), json!(id));
    req.insert("actor".into(), json!("web"));
    copy(&mut req, &body, &["action", "call", "reason", "actor"]);
    req.insert("control_id".into(), json!(rid));
    control_via_facade(&app, Value::Object(req)).await
}

/// `POST /api/runs/{id}/decisions` `{call, decision: approve|reject|edit|respond,
/// value?, reason?, actor?, request_id?}`: recorded with channel `web` and
/// the request id as message id (and idempotency id).
pub async fn decision(State(app): App, Path(id): Path<String>, body: Bytes) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let body = match body_object(&body) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let rid = match request_id(&body) {
        Ok(r) => r,
        Err(r) => return r,
    };
    let mut req = Map::new();
    req.insert("action".into(), json!("decide"));
    req.insert("run_id".into(), json!(id));
    req.insert("actor".into(), json!("web"));
    copy(
        &mut req,
        &body,
        &["call", "decision", "value", "input", "reason", "actor"],
    );
    req.insert("channel".into(), json!("web"));
    req.insert("message_id".into(), json!(rid));
    req.insert("control_id".into(), json!(rid));
    control_via_facade(&app, Value::Object(req)).await
}

/// `POST /api/runs/{id}/rerun` `{}`: run it again as a new run that resumes
/// this one (`--resume-from`: each call that succeeded is answered from its
/// journal, the rest run live), executed by this server in the background.
/// Answers once the new run exists: `{run_id, state}` — or the facade's
/// error when it could not start (a source whose args held a credential,
/// a component that is gone).
pub async fn rerun(State(app): App, Path(id): Path<String>, body: Bytes) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return r,
    };
    if let Err(r) = body_object(&body) {
        return r;
    }
    let new = RunId::generate();
    let request = json!({"resume_from_run_id": id, "run_id": new});
    start_run(&app, request, new).await
}

/// `GET /api/runs/{id}/plan`: what running it again from here (`rerun`)
/// would replay and what it would run live, per call, with why and the
/// field-level changes of a changed request — the facade's `workflow`
/// with `plan: true` (`hwf run --resume-from ID --plan`). Creates no run.
pub async fn plan(State(app): App, Path(id): Path<String>) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let request = json!({"resume_from_run_id": id, "plan": true});
    let v = crate::facade::workflow(&app.hwf, &request, &app.opts).await;
    if v["success"] == true {
        // Step labels and diffs come from requests: redacted on the way out.
        return ok(v["data"].clone());
    }
    envelope(v)
}

/// `GET /api/runs/{id}/drift`: the drift report of the run's workflow —
/// every stored run of it walked, offline, against its current script
/// (the newest saved version, or the file as it is now), as `hwf
/// replay-check --runs all` reports it: per run, calls that would replay,
/// that would run live, and the first call where it diverges with the
/// field-level changes of its request (redacted). Creates and changes
/// nothing.
pub async fn drift(State(app): App, Path(id): Path<String>) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return r,
    };
    result(app.hwf.drift_report(&id).await.map(|r| r.to_json()))
}

/// `POST /api/runs/{id}/fork` `{call, output | answer | input | decision,
/// reason?, actor?}`: "fork with this output" — a new run resumed from
/// this one in which `call` answers `output` (a `human.ask`: `answer`,
/// checked against its question), runs live with a new `input`, or runs
/// again with a `decision` (`approve` / `deny`), through the facade's `workflow` `fork` (the same checks and
/// the same journaled `call_edited`, with actor `web` unless given, as
/// `hwf fork`), executed by this server in the background. Answers as
/// `rerun` does: `{run_id, state}` once the new run exists, or the
/// facade's error.
pub async fn fork(State(app): App, Path(id): Path<String>, body: Bytes) -> Response {
    let id = match run_id(&id) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let body = match body_object(&body) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let new = RunId::generate();
    let mut req = Map::new();
    req.insert("action".into(), json!("fork"));
    req.insert("resume_from_run_id".into(), json!(id));
    req.insert("run_id".into(), json!(new));
    req.insert("actor".into(), json!("web"));
    copy(
        &mut req,
        &body,
        &["call", "output", "answer", "input", "decision", "reason", "actor"],
    );
    // Checked before the run starts, so a bad request answers at once.
    if let Err(e) = crate::facade::params::Params::parse(&Value::Object(req.clone()), crate::facade::params::WORKFLOW) {
        return error_response(&e);
    }
    start_run(&app, Value::Object(req), new).await
}

/// Start a `workflow` request that creates run `new` as a task of this
/// server, and answer once the run exists (`{run_id, state}`), or with the
/// facade's error when it could not start.
async fn start_run(app: &Arc<AppState>, request: Value, new: RunId) -> Response {
    let (hwf, opts, state) = (app.hwf.clone(), app.opts.clone(), app.clone());
    let mut run = tokio::spawn(async move {
        let v = crate::facade::workflow(&hwf, &request, &opts).await;
        state.kick();
        v
    });
    // The new run's page needs the run to exist; a run that could not
    // start says why.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        // The run exists (it may even have ended already, failed again).
        if let Ok(snap) = app.hwf.snapshot(&new) {
            app.kick();
            return envelope(json!({"success": true, "data": {"run_id": new, "state": snap.state}}));
        }
        if run.is_finished() {
            return match (&mut run).await {
                Ok(v) => envelope(v),
                Err(e) => error_response(&Error::new(ErrorCode::Internal, format!("the run task failed: {e}"))),
            };
        }
        if tokio::time::Instant::now() >= deadline {
            return envelope(json!({"success": true, "data": {"run_id": new, "state": "starting"}}));
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// `GET /api/events`: recorded events.
pub async fn events_list(State(app): App) -> Response {
    let hwf = app.hwf.clone();
    result(blocking(move || Ok(json!({"events": hwf.events()?}))).await)
}

/// Store an event (idempotent by id), start its triggers' runs and wake
/// the runner.
pub fn store_event(app: &AppState, event: crate::app::operate::EventRequest) -> crate::Result<Value> {
    let sent = app.hwf.send_event(event)?;
    app.kick();
    serde_json::to_value(&sent).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))
}

/// `POST /api/events` `{source, type, id?, subject?, payload?}`.
pub async fn event(State(app): App, body: Bytes) -> Response {
    let body = match body_object(&body) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let s = |k: &str| body.get(k).and_then(Value::as_str).map(str::to_owned);
    let (Some(source), Some(kind)) = (s("source"), s("type")) else {
        return error_response(&Error::new(
            ErrorCode::InvalidParams,
            "an event needs \"source\" and \"type\" (strings)",
        ));
    };
    let event = crate::app::operate::EventRequest {
        id: s("id"),
        source,
        kind,
        subject: s("subject"),
        payload: body.get("payload").cloned().unwrap_or(Value::Null),
        digest: None,
    };
    let app2 = app.clone();
    result(blocking(move || store_event(&app2, event)).await)
}

/// `GET /api/stream`: server-sent events. A `change` event (data: a
/// counter) whenever a run's snapshot or journal changed or this server
/// recorded something; the page then fetches what it shows.
pub async fn stream(State(app): App) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    // One watcher per server bumps `changes` when the store moves
    // (`watch_store`); a stream only waits on it.
    // After a burst of changes, one more event follows it (`TAIL` later):
    // a page whose fetch was in flight during the last change fetches
    // again, without any store read here.
    const TAIL: std::time::Duration = std::time::Duration::from_millis(300);
    let rx = app.changes.subscribe();
    let s = futures_util::stream::unfold((rx, 0u64, false), |(mut rx, n, tail)| async move {
        let tail = if tail {
            tokio::select! {
                r = rx.changed() => { r.ok()?; true }
                () = tokio::time::sleep(TAIL) => false,
            }
        } else {
            rx.changed().await.ok()?;
            true
        };
        rx.borrow_and_update();
        let n = n + 1;
        let ev = Event::default().event("change").data(n.to_string());
        Some((Ok(ev), (rx, n, tail)))
    });
    Sse::new(s).keep_alive(KeepAlive::new().interval(std::time::Duration::from_secs(15)))
}

/// Anything else: 404.
pub async fn not_found() -> Response {
    refuse(StatusCode::NOT_FOUND, "not_found", "no such page")
}
