//! The operator's views: the runs list with filters, the review queue
//! (every blocked wait across runs, with what it asks and the exact
//! command that answers it), a run's compact timeline and one call's
//! redacted request and answer.
//!
//! The CLI (`hwf overview`, `hwf waits`, `hwf logs`) and the web console
//! (`hwf serve`, [`crate::serve`]) print and serve these same values.
//! Everything returned here is redacted once more before it leaves.

use crate::app::host::Hwf;
use crate::store::{RunSnapshot, RunState, WaitInfo, now_ms};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::journal::{Entry, JournalEntry};
use serde_json::{Value, json};
use std::collections::HashMap;

/// Which runs a list shows.
#[derive(Debug, Clone, Default)]
pub struct RunFilter {
    /// Only runs in this state (`queued`, `running`, `waiting`, `stuck`,
    /// `succeeded`, `failed`, `stopped`, `cancelled`, or `active`: any not
    /// ended).
    pub state: Option<String>,
    /// Only runs whose workflow name contains this text (case-insensitive).
    pub name: Option<String>,
    /// Only runs created at or after this time (ms since the epoch).
    pub since_ms: Option<u64>,
    /// At most this many runs (after `offset`).
    pub limit: Option<usize>,
    /// Skip this many matching runs (paging).
    pub offset: usize,
    /// Only runs listed after this one (a page's `next_cursor`: the last
    /// run it showed), so a page does not shift when new runs start.
    pub after: Option<String>,
}

/// The states a filter may name.
pub const FILTER_STATES: &[&str] = &[
    "queued",
    "running",
    "waiting",
    "stuck",
    "succeeded",
    "failed",
    "stopped",
    "cancelled",
    "active",
];

impl RunFilter {
    /// Check the filter's values.
    ///
    /// # Errors
    ///
    /// `invalid_args` naming an unknown state.
    pub fn validate(&self) -> Result<()> {
        if let Some(s) = &self.state
            && !FILTER_STATES.contains(&s.as_str())
        {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                format!("unknown state {s:?}: expected one of {}", FILTER_STATES.join(", ")),
            ));
        }
        Ok(())
    }

    fn matches(&self, line: &Value) -> bool {
        let state = line["state"].as_str().unwrap_or("");
        let state_ok = match self.state.as_deref() {
            None => true,
            Some("active") => !matches!(state, "succeeded" | "failed" | "stopped" | "cancelled"),
            Some(s) => s == state,
        };
        let name_ok = self.name.as_deref().is_none_or(|n| {
            line["workflow"]
                .as_str()
                .unwrap_or("")
                .to_lowercase()
                .contains(&n.to_lowercase())
        });
        let since_ok = self
            .since_ms
            .is_none_or(|t| line["created_at_ms"].as_u64().unwrap_or(0) >= t);
        state_ok && name_ok && since_ok
    }
}

pub use crate::app::status::workflow_name;

/// How long a run has taken: created to finished, or to now (waits
/// included: what an operator sees on the clock).
pub fn duration_ms(s: &RunSnapshot, now: u64) -> u64 {
    s.finished_at_ms.unwrap_or(now).saturating_sub(s.created_at_ms)
}

/// One line of a runs list: the overview summary plus the workflow name,
/// age and duration.
pub fn run_line(hwf: &Hwf, s: &RunSnapshot, now: u64) -> Value {
    let mut line = crate::app::status::summary(s);
    if s.state == RunState::Running && !hwf.is_claimed(&s.run_id) {
        line["state"] = json!("stuck");
    }
    line["workflow"] = json!(workflow_name(s));
    line["age_ms"] = json!(now.saturating_sub(s.created_at_ms));
    line["duration_ms"] = json!(duration_ms(s, now));
    line["declared_phases"] = json!(s.declared_phases);
    line
}

impl Hwf {
    /// Runs, newest first, filtered and paged: `{runs, total, offset,
    /// next_offset, next_cursor}` (`total` counts every match — after the
    /// cursor, when one is given; `next_offset` and `next_cursor` are null
    /// on the last page).
    ///
    /// # Errors
    ///
    /// `invalid_args` for a bad filter, `io`.
    pub fn runs(&self, filter: &RunFilter) -> Result<Value> {
        filter.validate()?;
        let now = now_ms();
        let mut matched = Vec::new();
        let mut ids = self.store().run_ids()?;
        ids.reverse();
        if let Some(after) = &filter.after {
            let at = ids.iter().position(|id| id.as_str() == after).ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidArgs,
                    format!("unknown cursor {after:?}: pass the next_cursor of a page, or leave it out"),
                )
            })?;
            ids.drain(..=at);
        }
        for id in ids {
            let line = match self.store().read_snapshot(&id) {
                Ok(s) => run_line(self, &s, now),
                Err(e) => json!({"run_id": id, "state": "unreadable", "workflow": "?",
                    "error": {"code": e.code(), "message": e.message()}}),
            };
            if filter.matches(&line) {
                matched.push(line);
            }
        }
        let total = matched.len();
        let limit = filter.limit.unwrap_or(usize::MAX);
        let page: Vec<Value> = matched.into_iter().skip(filter.offset).take(limit).collect();
        let end = filter.offset.saturating_add(page.len());
        let more = end < total;
        let next_cursor = match page.last() {
            Some(last) if more => last["run_id"].clone(),
            _ => Value::Null,
        };
        let mut v = json!({
            "runs": page,
            "total": total,
            "offset": filter.offset,
            "next_offset": if more { json!(end) } else { Value::Null },
            "next_cursor": next_cursor,
        });
        hwf_core::redact::redact_value(&mut v);
        Ok(v)
    }

    /// The review queue: every blocked wait of every run not ended, oldest
    /// first (see [`review_entry`]).
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn review_queue(&self) -> Result<Value> {
        let mut entries = Vec::new();
        for id in self.store().run_ids()? {
            let Ok(snap) = self.store().read_snapshot(&id) else {
                continue;
            };
            if snap.state != RunState::Waiting || snap.waits.is_empty() {
                continue;
            }
            entries.extend(self.run_waits(&snap));
        }
        entries.sort_by_key(|e| e["since_ms"].as_u64().unwrap_or(0));
        let mut v = json!({"waits": entries});
        hwf_core::redact::redact_value(&mut v);
        Ok(v)
    }

    /// The review entries of one run's waits that still need someone
    /// (empty unless it is waiting): a question or approval already
    /// decided is left out while the run has not continued yet, so a view
    /// redrawn right after the decision does not offer it again. Controls
    /// that cannot be read leave every wait in (an operator sees more,
    /// never less).
    pub fn run_waits(&self, snap: &RunSnapshot) -> Vec<Value> {
        if snap.state != RunState::Waiting {
            return Vec::new();
        }
        let controls = crate::app::control::read_controls(self.store(), &snap.run_id).ok();
        let open: Vec<&WaitInfo> = snap
            .waits
            .iter()
            .filter(|w| !controls.as_ref().is_some_and(|c| crate::app::runner::decided(w, c)))
            .collect();
        if open.is_empty() {
            return Vec::new();
        }
        // Only the waiting calls' requests are read whole.
        let waiting: std::collections::HashSet<&str> = open.iter().map(|w| w.call.as_str()).collect();
        let journal = match self.store().read_entries_compact(&snap.run_id).and_then(|mut j| {
            self.store()
                .resolve_where(
                    &mut j,
                    |e| matches!(&e.entry, Entry::CallStarted { call, .. } if waiting.contains(call.as_str())),
                )
                .map(|()| j)
        }) {
            Ok(j) => j,
            Err(e) => {
                tracing::warn!(run_id = %snap.run_id, error = %e, "review: the journal cannot be read");
                Vec::new()
            }
        };
        let mut requests: HashMap<&str, &Value> = HashMap::new();
        for e in &journal {
            if let Entry::CallStarted { call, request, .. } = &e.entry {
                requests.insert(call, request);
            }
        }
        let name = workflow_name(snap);
        open.into_iter()
            .map(|w| {
                let mut v = review_entry(&snap.run_id, &name, w, requests.get(w.call.as_str()).copied());
                hwf_core::redact::redact_value(&mut v);
                v
            })
            .collect()
    }

    /// A run's journal as a compact timeline (see [`timeline_rows`]).
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `corrupt_store`.
    pub fn timeline(&self, run_id: &str) -> Result<Value> {
        let id = RunId::parse(run_id)?;
        let journal = self.store().read_entries_compact(&id)?;
        let controls = crate::app::control::read_controls(self.store(), &id).unwrap_or_default();
        let mut v = json!({"run_id": id, "rows": timeline_rows(&journal, &controls.0)});
        hwf_core::redact::redact_value(&mut v);
        Ok(v)
    }

    /// Part of a run's timeline (what the console's journal endpoint
    /// serves): `{run_id, rows, total, call_phases, offset, next?}`. By
    /// default the first and last [`TIMELINE_PAGE`]` / 2` rows with a
    /// `{row: "gap", hidden}` row between them when there are more; a
    /// [`TimelinePage::Range`] is one page (at most
    /// [`TIMELINE_MAX_PAGE`] rows, `next` the offset of the following
    /// one); [`TimelinePage::All`] every row up to [`TIMELINE_ALL`].
    /// `call_phases` names the phase each call was made in (its own, else
    /// the last phase entered before it), for every call, so a page shows
    /// the phases of calls whose rows it does not hold.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `corrupt_store`.
    pub fn timeline_page(&self, run_id: &str, page: TimelinePage) -> Result<Value> {
        let id = RunId::parse(run_id)?;
        let journal = self.store().read_entries_compact(&id)?;
        let controls = crate::app::control::read_controls(self.store(), &id).unwrap_or_default();
        let rows = timeline_rows(&journal, &controls.0);
        drop(journal);
        let mut v = timeline_page_of(rows, page);
        v["run_id"] = json!(id);
        hwf_core::redact::redact_value(&mut v);
        Ok(v)
    }

    /// One call's redacted request, result or error, and the journal
    /// lines about it.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found` (no such run or call), `corrupt_store`.
    pub fn call_detail(&self, run_id: &str, call: &str) -> Result<Value> {
        let id = RunId::parse(run_id)?;
        hwf_core::ids::validate_name("call ref", call)?;
        let mut journal = self.store().read_entries_compact(&id)?;
        self.store().resolve_where(&mut journal, |e| e.call() == Some(call))?;
        let lines: Vec<&JournalEntry> = journal.iter().filter(|e| e.call() == Some(call)).collect();
        let (kind, label, phase, fingerprint, request) = lines
            .iter()
            .rev()
            .find_map(|e| match &e.entry {
                Entry::CallStarted {
                    kind,
                    label,
                    phase,
                    fingerprint,
                    request,
                    ..
                } => Some((kind, label, phase, fingerprint, request)),
                _ => None,
            })
            .ok_or_else(|| Error::new(ErrorCode::NotFound, format!("run {id} has no call {call}")))?;
        let completed = lines.iter().rev().find_map(|e| match &e.entry {
            Entry::CallCompleted {
                ok,
                result,
                error,
                usage,
                ..
            } => Some((ok, result, error, usage)),
            _ => None,
        });
        // The rejected answers of the call's last execution.
        let last_start = lines
            .iter()
            .rposition(|e| matches!(e.entry, Entry::CallStarted { .. }))
            .unwrap_or(0);
        let rejected: Vec<Value> = lines[last_start..]
            .iter()
            .filter_map(|e| match &e.entry {
                Entry::CallAttempt {
                    attempt,
                    error,
                    code,
                    answer,
                    ..
                } => Some(json!({"attempt": attempt, "code": code, "error": error, "answer": answer})),
                _ => None,
            })
            .collect();
        let mut v = json!({
            "run_id": id,
            "call": call,
            "kind": kind,
            "label": label,
            "phase": phase,
            "fingerprint": fingerprint,
            "request": request,
            "ok": completed.map(|c| c.0),
            "result": completed.and_then(|c| c.1.as_ref()),
            "error": completed.and_then(|c| c.2.as_ref()),
            "usage": completed.map(|c| c.3).filter(|u| !u.is_empty()),
            "rejected": rejected,
            "events": lines,
        });
        hwf_core::redact::redact_value(&mut v);
        Ok(v)
    }
}

/// A shell-safe single-quoted word.
fn sh_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '@'))
    {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// An example answer for a question: its first choice, else a value of
/// its schema's shape.
fn example_answer(question: &Value) -> Value {
    if let Some(first) = question
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    {
        return first.clone();
    }
    match question.get("schema") {
        Some(schema) if !schema.is_null() => example_of(&hwf_core::schema::to_json_schema(schema)),
        _ => json!("…"),
    }
}

fn example_of(schema: &Value) -> Value {
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let mut m = serde_json::Map::new();
            for (k, s) in schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                m.insert(k.clone(), example_of(s));
            }
            Value::Object(m)
        }
        Some("boolean") => json!(true),
        Some("integer" | "number") => json!(0),
        Some("array") => json!([]),
        _ => json!("…"),
    }
}

/// The exact commands that answer a wait.
pub fn answer_commands(run: &RunId, w: &WaitInfo) -> Vec<String> {
    let call = &w.call;
    match w.kind.as_str() {
        "human" => {
            let answer = example_answer(&w.detail).to_string();
            vec![
                format!("hwf control decide {run} {call} respond --value {}", sh_quote(&answer)),
                format!("hwf control decide {run} {call} reject --reason 'why'"),
            ]
        }
        "approval" => vec![
            format!("hwf control decide {run} {call} approve"),
            format!("hwf control decide {run} {call} reject --reason 'why'"),
            format!("hwf control decide {run} {call} edit --value '{{…the new input…}}'"),
        ],
        "event" => {
            let d = &w.detail;
            let mut cmd = String::from("hwf events send");
            cmd.push_str(&format!(
                " --source {}",
                sh_quote(d.get("source").and_then(Value::as_str).unwrap_or("SOURCE"))
            ));
            cmd.push_str(&format!(
                " --type {}",
                sh_quote(d.get("type").and_then(Value::as_str).unwrap_or("TYPE"))
            ));
            if let Some(s) = d.get("subject").and_then(Value::as_str) {
                cmd.push_str(&format!(" --subject {}", sh_quote(s)));
            }
            if let Some(p) = d.get("payload").filter(|p| p.is_object()) {
                cmd.push_str(&format!(" --payload {}", sh_quote(&p.to_string())));
            }
            vec![cmd]
        }
        "pause" => vec![format!("hwf control resume {run}")],
        _ => Vec::new(),
    }
}

/// One entry of the review queue: the run and call, the kind of wait,
/// the question and choices (and schema) of a `human.ask`, what an
/// approval would run (its redacted request), who may decide, since
/// when, and the commands that answer it.
pub fn review_entry(run: &RunId, workflow: &str, w: &WaitInfo, request: Option<&Value>) -> Value {
    let mut v = json!({
        "run_id": run,
        "workflow": workflow,
        "call": w.call,
        "kind": w.kind,
        "summary": w.summary,
        "since_ms": w.since_ms,
        "wake_at_ms": w.wake_at_ms,
        "commands": answer_commands(run, w),
    });
    match w.kind.as_str() {
        "human" => {
            v["question"] = w.detail.get("prompt").cloned().unwrap_or(Value::Null);
            v["choices"] = w.detail.get("choices").cloned().unwrap_or(Value::Null);
            v["schema"] = w
                .detail
                .get("schema")
                .filter(|s| !s.is_null())
                .map(hwf_core::schema::to_json_schema)
                .unwrap_or(Value::Null);
            v["decisions"] = json!(["respond", "reject"]);
            v["who"] = json!("an operator: hwf control decide, the console, or workflow_control decide");
        }
        "approval" => {
            v["capability"] = request
                .and_then(|r| r.get("name"))
                .cloned()
                .or_else(|| w.detail.get("name").cloned())
                .unwrap_or(Value::Null);
            v["input"] = request
                .and_then(|r| r.get("input"))
                .cloned()
                .unwrap_or_else(|| w.detail.clone());
            v["decisions"] = json!(["approve", "reject", "edit"]);
            v["who"] = json!("an operator: hwf control decide, the console, or workflow_control decide");
        }
        "pause" => {
            v["decisions"] = json!([]);
            v["who"] = json!("an operator: hwf control resume or the console");
        }
        "event" => {
            v["predicate"] = w.detail.clone();
            v["decisions"] = json!([]);
            v["who"] = json!("the event's sender: hwf events send, POST /api/events or a webhook");
        }
        _ => {
            v["detail"] = w.detail.clone();
            v["decisions"] = json!([]);
            v["who"] = json!("nobody: it resolves by itself");
        }
    }
    v
}

/// Which rows of a timeline [`Hwf::timeline_page`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimelinePage {
    /// The first and last [`TIMELINE_PAGE`]` / 2` rows.
    HeadAndTail,
    /// Rows `offset..offset + limit`.
    Range {
        /// The first row.
        offset: usize,
        /// How many (at most [`TIMELINE_MAX_PAGE`]).
        limit: usize,
    },
    /// Every row, up to [`TIMELINE_ALL`] (then its first and last halves).
    All,
}

/// One page of a run's timeline rows (see [`Hwf::timeline_page`]):
/// `{rows, total, offset, call_phases, next?}`, not yet redacted.
pub fn timeline_page_of(mut rows: Vec<Value>, page: TimelinePage) -> Value {
    let total = rows.len();
    let mut call_phases = serde_json::Map::new();
    let mut current = Value::from("");
    for r in &rows {
        match r["row"].as_str() {
            Some("phase") => current = r["title"].clone(),
            Some("call") => {
                let own = r.get("phase").filter(|p| p.as_str().is_some_and(|p| !p.is_empty()));
                let phase = own.cloned().unwrap_or_else(|| current.clone());
                if let Some(call) = r["call"].as_str() {
                    call_phases.insert(call.to_owned(), phase);
                }
            }
            _ => {}
        }
    }
    let (offset, next) = match page {
        TimelinePage::HeadAndTail if total > TIMELINE_PAGE => {
            let tail = rows.split_off(total - TIMELINE_PAGE / 2);
            rows.truncate(TIMELINE_PAGE / 2);
            rows.push(json!({"row": "gap", "hidden": total - TIMELINE_PAGE}));
            rows.extend(tail);
            (0, None)
        }
        TimelinePage::HeadAndTail => (0, None),
        TimelinePage::All if total > TIMELINE_ALL => {
            let tail = rows.split_off(total - TIMELINE_ALL / 2);
            rows.truncate(TIMELINE_ALL / 2);
            rows.push(json!({"row": "gap", "hidden": total - TIMELINE_ALL}));
            rows.extend(tail);
            (0, None)
        }
        TimelinePage::All => (0, None),
        TimelinePage::Range { offset, limit } => {
            let limit = limit.clamp(1, TIMELINE_MAX_PAGE);
            let start = offset.min(total);
            let end = start.saturating_add(limit).min(total);
            rows = rows.drain(start..end).collect();
            (start, (end < total).then_some(end))
        }
    };
    let mut v = json!({"rows": rows, "total": total, "offset": offset, "call_phases": call_phases});
    if let Some(n) = next {
        v["next"] = json!(n);
    }
    v
}

/// Rows of the console's first view of a timeline.
pub const TIMELINE_PAGE: usize = 300;
/// The most rows one page holds.
pub const TIMELINE_MAX_PAGE: usize = 1000;
/// The most rows "every row" holds.
pub const TIMELINE_ALL: usize = 20_000;

/// A journal (and the run's controls) as a compact timeline, in order:
/// one `call` row per call (its start and completion together: kind,
/// label, name, phase, state, duration, tokens, fingerprint, replayed),
/// and `phase`, `log`, `wait`, `wait_resolved`, `edit`, `control`, `finalizer`,
/// `run_started` and `run_completed` rows (a continuation re-entering an
/// earlier execution's phases adds no `phase` row). Controls are placed by
/// their time.
pub fn timeline_rows(journal: &[JournalEntry], controls: &[crate::app::control::Control]) -> Vec<Value> {
    let mut rows: Vec<Value> = Vec::with_capacity(journal.len());
    let mut call_row: HashMap<&str, usize> = HashMap::new();
    let mut phase_replay = crate::app::status::PhaseReplay::default();
    for e in journal {
        let (seq, ts) = (e.seq, e.ts_ms);
        match &e.entry {
            Entry::CallStarted {
                call,
                kind,
                label,
                phase,
                fingerprint,
                request,
                ..
            } => {
                let name = request
                    .get("name")
                    .or_else(|| request.get("agent"))
                    .cloned()
                    .unwrap_or(Value::Null);
                call_row.insert(call, rows.len());
                rows.push(json!({
                    "row": "call", "seq": seq, "ts_ms": ts, "call": call,
                    "kind": kind, "label": label, "phase": phase,
                    "name": name, "fingerprint": fingerprint, "state": "running",
                }));
            }
            Entry::CallAttempt {
                call,
                attempt,
                error,
                code,
                answer,
            } => {
                // A rejected answer: what the agent said, and why it was not the result.
                rows.push(json!({"row": "attempt", "seq": seq, "ts_ms": ts, "call": call,
                    "attempt": attempt, "code": code, "error": error, "answer": answer}));
                if let Some(&i) = call_row.get(call.as_str()) {
                    let n = rows[i]["rejected"].as_u64().unwrap_or(0);
                    rows[i]["rejected"] = json!(n + 1);
                }
            }
            Entry::CallCompleted {
                call,
                ok,
                error,
                tokens,
                usage,
                attempts,
                duration_us,
                replayed,
                cache_hit,
                ..
            } => {
                if let Some(&i) = call_row.get(call.as_str()) {
                    let r = &mut rows[i];
                    r["state"] = json!(if *ok { "done" } else { "failed" });
                    r["duration_us"] = json!(duration_us);
                    r["tokens"] = json!(tokens);
                    if !usage.is_empty() {
                        r["usage"] = json!(usage);
                    }
                    r["attempts"] = json!(attempts);
                    if *replayed {
                        r["replayed"] = json!(true);
                    }
                    if *cache_hit {
                        r["cache_hit"] = json!(true);
                    }
                    if let Some(err) = error {
                        r["error"] = json!(err);
                    }
                    r["completed_ts_ms"] = json!(ts);
                }
            }
            Entry::WaitStarted {
                call,
                kind,
                summary,
                wake_at_ms,
            } => {
                if let Some(&i) = call_row.get(call.as_str()) {
                    rows[i]["state"] = json!("waiting");
                }
                rows.push(json!({"row": "wait", "seq": seq, "ts_ms": ts, "call": call,
                    "kind": kind, "summary": summary, "wake_at_ms": wake_at_ms}));
            }
            Entry::WaitResolved { call } => {
                rows.push(json!({"row": "wait_resolved", "seq": seq, "ts_ms": ts, "call": call}));
            }
            // A fork's edit: who replaced which call's result, and why.
            // A decision is shown (`approve` / `deny`), and an input
            // edit's changed fields; a replaced output is in the call's row.
            Entry::CallEdited {
                call,
                field,
                value,
                changes,
                actor,
                reason,
                source_run,
                ..
            } => rows.push(json!({"row": "edit", "seq": seq, "ts_ms": ts, "call": call,
                "field": field, "actor": actor, "reason": reason, "source_run": source_run,
                "decision": (field == "decision").then_some(value), "changes": changes})),
            // A continuation re-entering an earlier execution's phases is
            // not shown again (as in `status`).
            Entry::Phase { title } => {
                if phase_replay.is_new(title) {
                    rows.push(json!({"row": "phase", "seq": seq, "ts_ms": ts, "title": title}));
                }
            }
            Entry::Log {
                call,
                level,
                source,
                message,
            } => rows.push(json!({"row": "log", "seq": seq, "ts_ms": ts, "call": call,
                "level": level, "source": source, "message": message})),
            Entry::RunStarted { .. } => {
                phase_replay.run_started();
                rows.push(json!({"row": "run_started", "seq": seq, "ts_ms": ts}));
            }
            Entry::RunCompleted {
                state,
                error,
                duration_ms,
                ..
            } => rows.push(json!({"row": "run_completed", "seq": seq, "ts_ms": ts,
                "state": state, "error": error, "duration_ms": duration_ms})),
            Entry::ControlApplied { control, action, call } => rows.push(json!({"row": "control_applied",
                "seq": seq, "ts_ms": ts, "control": control, "action": action, "call": call})),
            Entry::FinalizerStarted { resource } => rows.push(json!({"row": "finalizer", "seq": seq, "ts_ms": ts,
                "resource": resource, "state": "started"})),
            Entry::FinalizerFinished { resource, state, error } => rows.push(json!({"row": "finalizer", "seq": seq,
                "ts_ms": ts, "resource": resource, "state": state, "error": error})),
            Entry::GrantUsed { grant, call } => rows.push(json!({"row": "grant_used", "seq": seq, "ts_ms": ts,
                "grant": grant, "call": call})),
            Entry::Delivered { .. } => {}
        }
    }
    // Controls go where their time puts them (stable: after journal rows
    // of the same millisecond).
    for c in controls {
        let row = json!({
            "row": "control", "ts_ms": c.ts_ms, "id": c.id, "action": c.action, "call": c.call,
            "decision": c.decision, "value": c.value, "actor": c.actor, "reason": c.reason,
            "channel": c.channel, "message_id": c.message_id,
        });
        let at = rows.partition_point(|r| r["ts_ms"].as_u64().unwrap_or(0) <= c.ts_ms);
        rows.insert(at, row);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{RunSnapshot, ScriptRef};

    fn snap(name: Option<&str>, path: Option<&str>) -> RunSnapshot {
        let script = ScriptRef {
            name: name.map(str::to_owned),
            path: path.map(str::to_owned),
            ..ScriptRef::default()
        };
        RunSnapshot::new(RunId::generate(), RunState::Waiting, script, Value::Null, None)
    }

    #[test]
    fn workflow_names_are_names_not_paths() {
        assert_eq!(workflow_name(&snap(Some("review"), Some("/x/y.js"))), "review");
        assert_eq!(
            workflow_name(&snap(None, Some("flows/release.workflow.json"))),
            "release"
        );
        assert_eq!(workflow_name(&snap(None, Some("/tmp/a/hello.wasm"))), "hello");
        assert_eq!(workflow_name(&snap(None, Some("/state/inline/ab12.js"))), "inline");
        // A script sent inline is named by its own meta.name.
        let mut inline = snap(None, Some("/state/inline/ab12.js"));
        inline.workflow = Some("triage".into());
        assert_eq!(workflow_name(&inline), "triage");
        assert_eq!(workflow_name(&snap(None, None)), "workflow");
    }

    #[test]
    fn answer_commands_are_exact_and_shell_quoted() {
        let run = RunId::parse("r1").expect("id");
        let w = |kind: &str, detail: Value| WaitInfo {
            call: "3".into(),
            kind: kind.into(),
            summary: String::new(),
            since_ms: 0,
            wake_at_ms: None,
            detail,
        };
        let c = answer_commands(
            &run,
            &w("human", json!({"prompt": "Ship?", "choices": ["it's ok", "no"]})),
        );
        assert_eq!(c[0], r#"hwf control decide r1 3 respond --value '"it'\''s ok"'"#);
        let c = answer_commands(
            &run,
            &w(
                "human",
                json!({"prompt": "?", "schema": {"type": "object", "properties": {"n": {"type": "integer"}, "v": {"enum": ["a", "b"]}}}}),
            ),
        );
        assert_eq!(c[0], r#"hwf control decide r1 3 respond --value '{"n":0,"v":"a"}'"#);
        assert_eq!(
            answer_commands(&run, &w("approval", json!({})))[0],
            "hwf control decide r1 3 approve"
        );
        let c = answer_commands(
            &run,
            &w(
                "event",
                json!({"source": "github", "type": "pr.merged", "subject": "o/r#1"}),
            ),
        );
        assert_eq!(
            c[0],
            "hwf events send --source github --type pr.merged --subject 'o/r#1'"
        );
        assert!(answer_commands(&run, &w("timer", json!({}))).is_empty());
    }

    #[test]
    fn the_timeline_joins_a_call_and_places_controls_by_time() {
        let journal = hwf_core::journal::sketch::entries(vec![
            json!({"seq": 1, "ts_ms": 10, "type": "run_started"}),
            json!({"seq": 2, "ts_ms": 11, "type": "phase", "title": "ask"}),
            json!({"seq": 3, "ts_ms": 12, "type": "call_started", "call": "1", "kind": "capability", "fingerprint": "b3:x", "request": {"name": "human.ask"}}),
            json!({"seq": 4, "ts_ms": 12, "type": "wait_started", "call": "1", "kind": "human", "summary": "q"}),
            json!({"seq": 5, "ts_ms": 30, "type": "call_completed", "call": "1", "ok": true, "duration_us": 5, "tokens": 0}),
            json!({"seq": 6, "ts_ms": 31, "type": "delivered", "call": "1"}),
            json!({"seq": 7, "ts_ms": 32, "type": "log", "level": "info", "source": "guest", "message": "hi"}),
        ]);
        let mut c = crate::app::control::Control::new(crate::app::control::Action::Decide, "ana");
        c.ts_ms = 20;
        c.channel = Some("web".into());
        let rows = timeline_rows(&journal, &[c]);
        let kinds: Vec<&str> = rows.iter().filter_map(|r| r["row"].as_str()).collect();
        assert_eq!(kinds, ["run_started", "phase", "call", "wait", "control", "log"]);
        assert_eq!(rows[2]["state"], "done");
        assert_eq!(rows[2]["name"], "human.ask");
        assert_eq!(rows[4]["channel"], "web");
    }

    #[test]
    fn filters_check_their_state() {
        let f = RunFilter {
            state: Some("bogus".into()),
            ..RunFilter::default()
        };
        assert_eq!(f.validate().expect_err("bad").code(), ErrorCode::InvalidArgs);
        let active = RunFilter {
            state: Some("active".into()),
            name: Some("REV".into()),
            ..RunFilter::default()
        };
        assert!(active.matches(&json!({"state": "waiting", "workflow": "review"})));
        assert!(!active.matches(&json!({"state": "failed", "workflow": "review"})));
        assert!(!active.matches(&json!({"state": "waiting", "workflow": "ship"})));
    }
}
