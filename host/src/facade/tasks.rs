//! Runs as MCP tasks (the `io.modelcontextprotocol/tasks` extension,
//! SEP-2663) and their waits as form elicitations: the mapping only. The
//! MCP server (`cli/src/mcp.rs`) speaks the protocol with rmcp's types; this
//! module says what a run *is* as a task, so every front door that shows
//! one shows the same thing.
//!
//! - **A task is a run.** Its id is the run id: the run is durable, so the
//!   task survives a restart of the server and any process on the same
//!   store can answer `tasks/get` or `tasks/update` for it.
//! - **Status**: queued or running → `working` (with the phase and calls
//!   done as the message); parked on a person (`human.ask`, an approval) →
//!   `input_required`, one form elicitation per open wait keyed by the
//!   wait's call id (call ids are never reused in a run); parked on a timer,
//!   an event or a pause → `working` with what it waits for; ended →
//!   `completed` with the facade's report (a run that ended failed is a
//!   report too); stopped → `cancelled`.
//! - **An elicitation's answer** ([`decision_from`]) becomes the decision
//!   the CLI would record: `respond` with the answer (a question),
//!   `approve` / `reject` (an approval; declining is rejecting).

use crate::app::control::Decision;
use crate::store::WaitInfo;
use serde_json::{Map, Value, json};

/// What a run is as a task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskView {
    /// `working`, `input_required`, `completed`, `cancelled` (`failed` is
    /// the server's own: a run that could not execute at all).
    pub status: &'static str,
    /// One line for the person watching: phase and progress, or what it
    /// waits for.
    pub status_message: String,
    /// The open waits a person answers, as `elicitation/create` requests
    /// keyed by call id (only with `input_required`).
    pub input_requests: Map<String, Value>,
}

/// How long the longest `message` of an elicitation is, in bytes.
const MAX_MESSAGE: usize = 4000;

/// A run's status (the facade's `status` view, `RunStatus::to_json`) as a
/// task.
pub fn task_view(status: &Value) -> TaskView {
    let state = status["state"].as_str().unwrap_or("");
    let waits: Vec<WaitInfo> = status["waits"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| serde_json::from_value(w.clone()).ok())
        .collect();
    let run_id = status["run_id"].as_str().unwrap_or("");
    let progress = &status["progress"];
    let phase = status["phase"].as_str();
    let working = format!(
        "{}{} calls done, {} running",
        phase.map(|p| format!("phase {p}: ")).unwrap_or_default(),
        progress["done"].as_u64().unwrap_or(0),
        progress["running"].as_u64().unwrap_or(0)
    );
    let mut input_requests = Map::new();
    for w in &waits {
        if let Some(req) = elicitation(run_id, w) {
            input_requests.insert(w.call.clone(), req);
        }
    }
    match state {
        "waiting" if !input_requests.is_empty() => TaskView {
            status: "input_required",
            status_message: format!(
                "waiting for {} answer{}: {}",
                input_requests.len(),
                if input_requests.len() == 1 { "" } else { "s" },
                waits
                    .iter()
                    .filter(|w| input_requests.contains_key(&w.call))
                    .map(|w| w.summary.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            input_requests,
        },
        "waiting" => TaskView {
            status: "working",
            status_message: format!(
                "waiting: {}",
                waits.iter().map(|w| w.summary.as_str()).collect::<Vec<_>>().join("; ")
            ),
            input_requests: Map::new(),
        },
        "stopped" | "cancelled" => TaskView {
            status: "cancelled",
            status_message: "stopped".into(),
            input_requests: Map::new(),
        },
        "succeeded" | "failed" => TaskView {
            status: "completed",
            status_message: format!("{state}: {working}"),
            input_requests: Map::new(),
        },
        _ => TaskView {
            status: "working",
            status_message: working,
            input_requests: Map::new(),
        },
    }
}

/// The `elicitation/create` request (form mode) that asks a person to
/// answer `wait`, or `None` for a wait no person answers (a timer, an
/// event, a pause).
pub fn elicitation(run_id: &str, wait: &WaitInfo) -> Option<Value> {
    let (message, schema) = match wait.kind.as_str() {
        "human" => {
            let q = &wait.detail;
            let prompt = q["prompt"].as_str().or(q["question"].as_str()).unwrap_or(&wait.summary);
            (
                format!("{prompt}\n\n(run {run_id}, call {})", wait.call),
                question_form(q),
            )
        }
        "approval" => {
            let input = hwf_core::redact::redacted(&wait.detail["input"]).into_owned();
            let shown = serde_json::to_string_pretty(&input).unwrap_or_default();
            (
                format!(
                    "Approve {} ({})?\n\n{}\n\n(run {run_id}, call {})",
                    wait.detail["capability"].as_str().unwrap_or("this call"),
                    wait.detail["class"].as_str().unwrap_or("unknown class"),
                    hwf_core::redact::clip(&shown, MAX_MESSAGE / 2),
                    wait.call
                ),
                json!({
                    "type": "object",
                    "properties": {
                        "decision": {"type": "string", "title": "Decision", "enum": ["approve", "reject"]},
                        "reason": {"type": "string", "title": "Reason (optional)"},
                    },
                    "required": ["decision"],
                }),
            )
        }
        _ => return None,
    };
    Some(json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": hwf_core::redact::clip(&message, MAX_MESSAGE),
            "requestedSchema": schema,
        },
    }))
}

/// The form of a question: its own JSON Schema when that is a flat object
/// of primitive fields (a form can show it), its choices as an enum (JSON
/// texts when not all strings), else one `answer` text field (JSON when the
/// question has a schema).
fn question_form(q: &Value) -> Value {
    let field = |prop: Value| json!({"type": "object", "properties": {"answer": prop}, "required": ["answer"]});
    if let Some(choices) = q["choices"].as_array() {
        let all_strings = choices.iter().all(Value::is_string);
        let names: Vec<Value> = choices
            .iter()
            .map(|c| {
                if all_strings {
                    c.clone()
                } else {
                    Value::String(c.to_string())
                }
            })
            .collect();
        return field(json!({"type": "string", "title": "Answer", "enum": names}));
    }
    if let Some(schema) = q.get("schema").filter(|s| !s.is_null()) {
        let js = hwf_core::schema::to_json_schema(schema);
        if flat_form(&js) {
            return js;
        }
        return field(
            json!({"type": "string", "title": "Answer (JSON)", "description": serde_json::to_string(&js).unwrap_or_default()}),
        );
    }
    field(json!({"type": "string", "title": "Answer"}))
}

/// An object schema whose properties are all primitive (what a form
/// elicitation may ask for).
fn flat_form(js: &Value) -> bool {
    js["type"] == "object"
        && js["properties"].as_object().is_some_and(|p| {
            !p.is_empty()
                && p.values().all(|f| {
                    matches!(f["type"].as_str(), Some("string" | "number" | "integer" | "boolean"))
                        || f.get("enum").is_some()
                })
        })
}

/// A decision to record: what, its value (an answer), its reason.
pub type DecisionParts = (Decision, Option<Value>, Option<String>);

/// The decision an `elicitation/create` result (`{action, content}`) makes
/// on `wait`: `Ok(None)` when the person cancelled (the run keeps
/// waiting), `Ok(Some((decision, value, reason)))` otherwise.
///
/// # Errors
///
/// What is wrong with the response (an unknown action, a missing field).
pub fn decision_from(wait: &WaitInfo, response: &Value) -> Result<Option<DecisionParts>, String> {
    let content = response.get("content").cloned().unwrap_or(Value::Null);
    match response["action"].as_str() {
        Some("cancel") => return Ok(None),
        Some("decline") => {
            return Ok(Some((
                Decision::Reject,
                None,
                Some("declined in the MCP client".into()),
            )));
        }
        Some("accept") => {}
        other => {
            return Err(format!(
                "an elicitation result's action must be accept, decline or cancel, not {other:?}"
            ));
        }
    }
    match wait.kind.as_str() {
        "approval" => {
            let reason = content["reason"].as_str().filter(|r| !r.is_empty()).map(str::to_owned);
            match content["decision"].as_str() {
                Some("approve") => Ok(Some((Decision::Approve, None, reason))),
                Some("reject") => Ok(Some((Decision::Reject, None, reason))),
                other => Err(format!(
                    "the approval's decision must be approve or reject, not {other:?}"
                )),
            }
        }
        "human" => {
            let q = &wait.detail;
            let schema = q.get("schema").filter(|s| !s.is_null());
            let text_answer = || {
                content
                    .get("answer")
                    .and_then(Value::as_str)
                    .ok_or("the answer is missing")
            };
            let answer = if let Some(choices) = q["choices"].as_array() {
                let picked = content.get("answer").cloned().ok_or("the answer is missing")?;
                // Choices that are not all strings were shown as JSON texts.
                if choices.iter().all(Value::is_string) {
                    picked
                } else {
                    choices
                        .iter()
                        .find(|c| Value::String(c.to_string()) == picked)
                        .cloned()
                        .ok_or("the answer is not one of the choices")?
                }
            } else if let Some(schema) = schema {
                if flat_form(&hwf_core::schema::to_json_schema(schema)) {
                    content
                } else {
                    serde_json::from_str(text_answer()?).map_err(|e| format!("the answer is not JSON: {e}"))?
                }
            } else {
                Value::String(text_answer()?.to_owned())
            };
            Ok(Some((Decision::Respond, Some(answer), None)))
        }
        other => Err(format!("call {} waits on {other}, which no person answers", wait.call)),
    }
}

/// Record a person's answer to one input request of a task (`tasks/update`
/// from an MCP client: the person in the client answered the form): the
/// decision [`decision_from`] makes, with channel `mcp-elicitation` and
/// `actor` (the client's identity), as an operator's. `Ok(None)` when the
/// person cancelled. The caller hands the run to its runner.
///
/// # Errors
///
/// `not_found` (no such run), `invalid_params` (the call does not wait on
/// a person, a malformed answer), and what recording a control refuses.
pub fn answer(
    hwf: &crate::Hwf,
    run: &hwf_core::ids::RunId,
    call: &str,
    response: &Value,
    actor: &str,
) -> crate::Result<Option<crate::app::operate::ControlRecorded>> {
    use crate::app::operate::ControlRequest;
    use hwf_core::error::{Error, ErrorCode};
    let snap = hwf.store().read_snapshot(run)?;
    let wait = snap.waits.iter().find(|w| w.call == call).ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidParams,
            format!("run {run} has no open input request {call:?} (answered already, or never asked)"),
        )
    })?;
    let Some((decision, value, reason)) = decision_from(wait, response)
        .map_err(|e| Error::new(ErrorCode::InvalidParams, format!("input {call}: {e}")))?
    else {
        return Ok(None);
    };
    let mut req = ControlRequest::new(run.clone(), crate::app::control::Action::Decide, actor);
    req.call = Some(call.to_owned());
    req.decision = Some(decision);
    req.value = value;
    req.reason = reason;
    req.channel = Some("mcp-elicitation".into());
    hwf.control(req).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(kind: &str, detail: Value) -> WaitInfo {
        WaitInfo {
            call: "3".into(),
            kind: kind.into(),
            summary: "question: go?".into(),
            since_ms: 0,
            wake_at_ms: None,
            detail,
        }
    }

    #[test]
    fn a_parked_question_is_an_input_required_task_with_a_form() {
        let status = json!({"run_id": "r1", "state": "waiting", "progress": {"done": 2, "running": 0},
            "waits": [{"call": "3", "kind": "human", "summary": "question: go?", "since_ms": 1, "detail": {"prompt": "go?", "choices": ["yes", "no"]}},
                      {"call": "", "kind": "timer", "summary": "timer", "since_ms": 1, "detail": {}}]});
        let t = task_view(&status);
        assert_eq!(t.status, "input_required");
        let req = &t.input_requests["3"];
        assert_eq!(req["method"], "elicitation/create");
        assert_eq!(
            req["params"]["requestedSchema"]["properties"]["answer"]["enum"],
            json!(["yes", "no"])
        );
        assert!(req["params"]["message"].as_str().expect("msg").starts_with("go?"));
        assert_eq!(
            task_view(&json!({"state": "running", "progress": {"done": 1, "running": 2}, "phase": "build"}))
                .status_message,
            "phase build: 1 calls done, 2 running"
        );
        assert_eq!(task_view(&json!({"state": "succeeded"})).status, "completed");
        assert_eq!(task_view(&json!({"state": "failed"})).status, "completed");
        assert_eq!(task_view(&json!({"state": "stopped"})).status, "cancelled");
    }

    #[test]
    fn answers_become_decisions() {
        let q = wait("human", json!({"prompt": "go?", "choices": ["yes", "no"]}));
        let d = decision_from(&q, &json!({"action": "accept", "content": {"answer": "yes"}})).expect("ok");
        assert_eq!(d, Some((Decision::Respond, Some(json!("yes")), None)));
        assert_eq!(decision_from(&q, &json!({"action": "cancel"})).expect("ok"), None);
        assert_eq!(
            decision_from(&q, &json!({"action": "decline"}))
                .expect("ok")
                .map(|d| d.0),
            Some(Decision::Reject)
        );
        let n = wait("human", json!({"prompt": "n?", "choices": [1, 2]}));
        let d = decision_from(&n, &json!({"action": "accept", "content": {"answer": "2"}})).expect("ok");
        assert_eq!(d.and_then(|d| d.1), Some(json!(2)));
        let form = wait(
            "human",
            json!({"prompt": "review", "schema": {"type": "object", "properties": {"verdict": {"enum": ["approve", "changes"]}, "notes": {"type": "string"}}, "required": ["verdict"]}}),
        );
        let d = decision_from(&form, &json!({"action": "accept", "content": {"verdict": "approve"}})).expect("ok");
        assert_eq!(d.and_then(|d| d.1), Some(json!({"verdict": "approve"})));
        let a = wait(
            "approval",
            json!({"capability": "fs.write", "class": "external_write", "input": {"path": "x", "token": "ghp_abcdefabcdefabcdefabcdefabcdefabcdef"}}),
        );
        let req = elicitation("r1", &a).expect("form");
        assert!(!req.to_string().contains("ghp_abcdef"), "{req}");
        let d = decision_from(&a, &json!({"action": "accept", "content": {"decision": "approve"}})).expect("ok");
        assert_eq!(d.map(|d| d.0), Some(Decision::Approve));
        assert!(decision_from(&a, &json!({"action": "accept", "content": {}})).is_err());
        assert!(decision_from(&a, &json!({"action": "maybe"})).is_err());
        assert!(elicitation("r1", &wait("timer", json!({}))).is_none());
    }
}
