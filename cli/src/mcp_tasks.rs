//! Runs as MCP tasks: the `io.modelcontextprotocol/tasks` extension
//! (SEP-2663) over hwf's durable runs, with their open waits as form
//! elicitations (`input_required` + `inputRequests`).
//!
//! A task *is* a run: its id is the run id, so it survives a restart (even
//! a `kill -9`) of the server, and any `hwf mcp` on the same store answers
//! `tasks/get`, `tasks/update` and `tasks/cancel` for it. What a run looks
//! like as a task is [`hwf_host::facade::tasks`]'s to say; this module only
//! speaks rmcp's types:
//!
//! - a `workflow` run requested by a client that declares the extension
//!   starts in the foreground; one that ends within
//!   [`crate::mcp::TASK_AFTER`] answers as a plain result, one still going
//!   or waiting then is answered with a `CreateTaskResult` ([`created`]);
//! - `tasks/get` ([`get`]) reads the run: `working` with a status message,
//!   `input_required` with one `elicitation/create` per open wait (keyed by
//!   call id; answered decisions already recorded are left out), then
//!   `completed` with the run's report inlined (a run that ended failed is
//!   a report), or `cancelled` for a stopped run;
//! - `tasks/update` ([`update`]) records each answer as the person's
//!   decision (channel `mcp-elicitation`): the person in the client, not
//!   the model, answered the form; keys that name no open wait are
//!   acknowledged and ignored;
//! - `tasks/cancel` ([`cancel`]) records a stop.
//!
//! The caller wakes the in-process runner after an update or a cancel.

use hwf_host::Hwf;
use hwf_host::facade::tasks::{self, TaskView};
use hwf_host::ids::RunId;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolResult, ContentBlock, CreateTaskResult, DetailedTask, GetTaskResult, InputRequests, JsonObject, Task,
    TaskPayload, TaskStatus,
};
use serde_json::Value;

/// How often a client should poll `tasks/get`, in ms.
pub const POLL_INTERVAL_MS: u64 = 500;

/// An ISO 8601 time (UTC, ms) of ms since the epoch.
fn iso(ms: u64) -> String {
    chrono::DateTime::from_timestamp_millis(i64::try_from(ms).unwrap_or(i64::MAX))
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn not_found(task_id: &str) -> McpError {
    McpError::invalid_params(format!("no task {task_id:?} (task ids are hwf run ids)"), None)
}

/// The run a task id names.
fn run_of(hwf: &Hwf, task_id: &str) -> Result<RunId, McpError> {
    let run = RunId::parse(task_id).map_err(|_| not_found(task_id))?;
    match hwf.store().read_snapshot(&run) {
        Ok(_) => Ok(run),
        Err(e) if e.code() == hwf_host::ErrorCode::NotFound => Err(not_found(task_id)),
        Err(e) => Err(McpError::internal_error(e.to_string(), None)),
    }
}

fn base(task_id: &str, status: TaskStatus, created_ms: u64, updated_ms: u64, message: String) -> Task {
    Task::new(task_id, status, iso(created_ms), iso(updated_ms))
        .with_status_message(message)
        .with_poll_interval_ms(POLL_INTERVAL_MS)
}

/// The answer to a `workflow` call that became a task: the run, just
/// queued (durably) with id `run`.
pub fn created(hwf: &Hwf, run: &RunId) -> Result<CreateTaskResult, McpError> {
    let snap = hwf
        .store()
        .read_snapshot(run)
        .map_err(|e| McpError::internal_error(e.to_string(), None))?;
    Ok(CreateTaskResult::new(base(
        run.as_str(),
        TaskStatus::Working,
        snap.created_at_ms,
        snap.created_at_ms,
        "queued".into(),
    )))
}

/// `tasks/get`: the run as a task. `ended` says what a run that ended
/// (`completed` in [`tasks::task_view`]) is, from its status view: the
/// facade's status envelope inlined ([`completed`]), as the `workflow` call
/// would have answered.
pub fn get(
    hwf: &Hwf,
    task_id: &str,
    ended: impl FnOnce(&RunId, &Value) -> TaskPayload,
) -> Result<GetTaskResult, McpError> {
    let run = run_of(hwf, task_id)?;
    let status = hwf
        .status(run.as_str())
        .map_err(|e| McpError::internal_error(e.to_string(), None))?
        .to_json();
    let mut view: TaskView = tasks::task_view(&status);
    // A wait whose decision is recorded is answered, even before the runner
    // continues the run.
    let decided = answered_calls(hwf, &run);
    view.input_requests.retain(|call, _| !decided.contains(call));
    let created_ms = status["created_at_ms"].as_u64().unwrap_or(0);
    let updated_ms = status["finished_at_ms"]
        .as_u64()
        .unwrap_or_else(hwf_host::store::now_ms);
    let payload = match view.status {
        "input_required" if !view.input_requests.is_empty() => {
            let requests: InputRequests = serde_json::from_value(Value::Object(view.input_requests))
                .map_err(|e| McpError::internal_error(format!("an input request: {e}"), None))?;
            TaskPayload::InputRequired {
                input_requests: requests,
            }
        }
        "completed" => ended(&run, &status),
        "cancelled" => TaskPayload::Cancelled,
        _ => TaskPayload::Working,
    };
    let task = base(
        task_id,
        TaskStatus::Working,
        created_ms,
        updated_ms,
        view.status_message,
    );
    Ok(GetTaskResult::new(DetailedTask::new(task, payload)))
}

/// A `completed` payload inlining `result`.
pub fn completed(result: CallToolResult) -> TaskPayload {
    TaskPayload::Completed {
        result: match serde_json::to_value(result) {
            Ok(Value::Object(m)) => m,
            _ => JsonObject::new(),
        },
    }
}

/// How long a `tasks/update` waits for its run to settle ([`settle`]).
pub const SETTLE_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// After answers to `calls` were recorded: wait (at most `bound`) until
/// the run has parked again without them or ended, so that the next
/// `tasks/get` shows the inputs still open, not the run's transient replay
/// (`working`).
pub async fn settle(hwf: &Hwf, task_id: &str, calls: &[&str], bound: std::time::Duration) {
    let Ok(run) = RunId::parse(task_id) else { return };
    let deadline = std::time::Instant::now() + bound;
    while std::time::Instant::now() < deadline {
        match hwf.store().read_snapshot(&run) {
            Ok(snap) if snap.state.is_terminal() => return,
            Ok(snap)
                if snap.state == hwf_host::store::RunState::Waiting
                    && snap.waits.iter().all(|w| !calls.contains(&w.call.as_str())) =>
            {
                return;
            }
            Ok(_) => {}
            Err(_) => return,
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}

/// The calls of `run` whose decision is recorded (and not yet applied).
fn answered_calls(hwf: &Hwf, run: &RunId) -> std::collections::HashSet<String> {
    hwf.store()
        .read_controls_lenient(run)
        .map(|(controls, _)| {
            controls
                .into_iter()
                .filter(|c| c.decision.is_some())
                .filter_map(|c| c.call)
                .collect()
        })
        .unwrap_or_default()
}

/// `tasks/update`: record each answered input as the person's decision.
/// Returns whether anything was recorded (then the run needs its runner).
pub fn update(
    hwf: &Hwf,
    task_id: &str,
    responses: &std::collections::BTreeMap<String, Value>,
    actor: &str,
) -> Result<bool, McpError> {
    let run = run_of(hwf, task_id)?;
    let mut recorded = false;
    for (call, response) in responses {
        match tasks::answer(hwf, &run, call, response, actor) {
            Ok(Some(_)) => recorded = true,
            Ok(None) => {}
            // An answer to nothing open (answered already, a stale key) is
            // acknowledged: the client may retry an update.
            Err(e)
                if e.code() == hwf_host::ErrorCode::InvalidParams && e.message().contains("no open input request") =>
            {
                tracing::debug!(run = %run, call, "tasks/update for no open input request");
            }
            Err(e) => return Err(McpError::invalid_params(e.to_string(), None)),
        }
    }
    Ok(recorded)
}

/// `tasks/cancel`: stop the run (a run that ended already is left as it is).
pub fn cancel(hwf: &Hwf, task_id: &str, actor: &str) -> Result<bool, McpError> {
    let run = run_of(hwf, task_id)?;
    let req = hwf_host::app::operate::ControlRequest::new(run, hwf_host::control::Action::Stop, actor);
    match hwf.control(req) {
        Ok(r) => Ok(r.needs_runner() || r.recorded),
        Err(e) if e.code() == hwf_host::ErrorCode::InvalidArgs => Ok(false),
        Err(e) => Err(McpError::internal_error(e.to_string(), None)),
    }
}

/// A `CallToolResult` carrying `envelope` as text and structured content
/// (how a `workflow` call answers).
pub fn envelope_result(envelope: Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(envelope.to_string())]);
    result.is_error = Some(false);
    result.structured_content = Some(envelope);
    result
}
