//! The console's run page in one answer (issue 31): a run's header, its
//! calls as compact rows and one page of its timeline, from one read of
//! the journal, redacted once.
//!
//! `GET /api/runs/{id}` (a full [`crate::app::status::RunStatus`]) and
//! `GET /api/runs/{id}/journal` each read and parse the whole journal;
//! the page used to ask for both. For a 1,000-call run this answer is one
//! read, one redaction pass, and about half the bytes (187 KB against
//! 241 + 109 KB): calls are arrays under one list of column names
//! (`calls.cols`), not 1,000 objects repeating 15 keys, and nothing the
//! page does not show (controls, the last journal lines, file links,
//! fingerprints) is sent.

use crate::app::host::Hwf;
use crate::app::review::{TimelinePage, timeline_page_of, timeline_rows};
use crate::app::status::{CallState, CallView, build_status};
use hwf_core::error::Result;
use hwf_core::ids::RunId;
use serde_json::{Map, Value, json};

/// The columns of `calls.rows`, in order.
pub const CALL_COLUMNS: &[&str] = &[
    "call",
    "kind",
    "label",
    "name",
    "agent_type",
    "model",
    "phase",
    "state",
    "started_ms",
    "duration_us",
    "wait_started_ms",
    "tokens",
    "cost_micro_usd",
    "replayed",
    "cache_hit",
];

/// One call as a row of [`CALL_COLUMNS`]; `phase` is its own, else the
/// phase the timeline had entered when it started.
fn call_row(c: &CallView, phases: &Map<String, Value>) -> Value {
    let name = c
        .agent
        .as_ref()
        .filter(|a| a.is_string())
        .or(c.name.as_ref())
        .cloned()
        .unwrap_or(Value::Null);
    let phase = match c.phase.as_deref() {
        Some(p) if !p.is_empty() => json!(p),
        _ => phases.get(&c.call).cloned().unwrap_or(Value::Null),
    };
    let state = match c.state {
        CallState::Running => "running",
        CallState::Waiting => "waiting",
        CallState::Done => "done",
        CallState::Failed => "failed",
    };
    json!([
        c.call,
        c.kind,
        c.label,
        name,
        c.agent_type,
        c.model,
        phase,
        state,
        c.started_ms,
        c.duration_us,
        c.wait_started_ms,
        c.tokens,
        c.cost_micro_usd,
        u8::from(c.replayed),
        u8::from(c.cache_hit),
    ])
}

impl Hwf {
    /// What the console's run page shows, in one answer:
    /// `{run: {run_id, workflow, state, phase, duration_ms, counts,
    /// resumed_from, declared_phases, review, result | result_preview +
    /// result_path | error}, calls: {cols, rows}, timeline: {rows, total,
    /// offset, next?}}`, redacted.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `corrupt_store`.
    pub fn run_page(&self, run_id: &str, page: TimelinePage) -> Result<Value> {
        let id = RunId::parse(run_id)?;
        let snap = self.store().read_snapshot(&id)?;
        let mut journal = self.store().read_entries_compact(&id)?;
        // As `status`: declared resources are capability payloads.
        self.store()
            .resolve_where(&mut journal, |e| e.kind() == Some("capability"))?;
        let status = build_status(&snap, &journal, self.store().root(), self.is_claimed(&id))?;
        // Damaged controls are named on the full status; the page shows
        // the journal's rows without them.
        let controls = crate::app::control::read_controls(self.store(), &id).unwrap_or_default();
        let mut timeline = timeline_page_of(timeline_rows(&journal, &controls.0), page);
        drop(journal);
        let phases = match timeline.as_object_mut().and_then(|t| t.remove("call_phases")) {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let rows: Vec<Value> = status.calls.iter().map(|c| call_row(c, &phases)).collect();
        let mut run = json!({
            "run_id": status.run_id,
            "workflow": status.workflow,
            "state": status.state,
            "phase": status.phase,
            "duration_ms": crate::app::review::duration_ms(&snap, crate::store::now_ms()),
            "counts": status.counts,
            "resumed_from": status.resumed_from,
            "declared_phases": status.declared_phases,
            "review": self.run_waits(&snap),
            "waits": status.waits,
        });
        if let Some(r) = &status.result {
            run["result"] = r.clone();
        } else if let Some(p) = &status.result_preview {
            run["result_preview"] = json!(p);
            run["result_path"] = json!(status.result_path);
        }
        if let Some(e) = &status.error {
            run["error"] = json!(e);
        }
        if !snap.state.is_terminal() {
            let missing = self.missing_capabilities(&snap);
            if !missing.is_empty() {
                run["needs_host"] = json!(missing);
            }
        }
        let mut v = json!({
            "run": run,
            "calls": {"cols": CALL_COLUMNS, "rows": rows},
            "timeline": timeline,
        });
        hwf_core::redact::redact_value(&mut v);
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_row_has_one_value_per_column_and_takes_the_timeline_phase() {
        let c = CallView {
            call: "3".into(),
            kind: "agent".into(),
            label: Some("item-2".into()),
            phase: None,
            fingerprint: "b3:x".into(),
            state: CallState::Done,
            agent: Some(json!("reviewer")),
            name: None,
            duration_us: Some(1500),
            tokens: Some(3),
            usage: None,
            rejected: Vec::new(),
            attempts: Some(1),
            error: None,
            replayed: true,
            cache_hit: false,
            started_ms: Some(10),
            wait_started_ms: None,
            model: Some("m".into()),
            agent_type: None,
            cost_micro_usd: None,
        };
        let mut phases = Map::new();
        phases.insert("3".into(), json!("fan out"));
        let row = call_row(&c, &phases);
        let row = row.as_array().expect("array");
        assert_eq!(row.len(), CALL_COLUMNS.len());
        let at = |k: &str| &row[CALL_COLUMNS.iter().position(|c| *c == k).expect("column")];
        assert_eq!(at("phase"), "fan out");
        assert_eq!(at("name"), "reviewer");
        assert_eq!(at("state"), "done");
        assert_eq!(at("replayed"), 1);
        assert_eq!(at("duration_us"), 1500);
    }
}
