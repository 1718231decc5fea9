//! Status views built from a run's snapshot and journal: the typed
//! [`RunStatus`] of one run and the [`RunSummary`] line of the overview.
//! Both serialise to the JSON the CLI, facade, MCP server and console
//! print.

use crate::store::{Counts, ErrorInfo, RunSnapshot, RunState, ScriptRef, WaitInfo};
use hwf_core::call::CallFailure;
use hwf_core::control::Control;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::journal::{Entry, JournalEntry};
use hwf_core::model::TokenUsage;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// The state a view shows: a run's own state, or what the view concluded
/// (`stuck`: running but nobody holds its lock; `unreadable`: its
/// snapshot cannot be read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ShownState {
    /// The run's recorded state.
    Run(RunState),
    /// A conclusion of the view.
    Seen(SeenState),
}

/// What a view concludes about a run beyond its recorded state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeenState {
    /// Recorded `running`, but no process holds the run's lock: the
    /// executor died (a runner continues it).
    Stuck,
    /// The snapshot cannot be read.
    Unreadable,
}

impl ShownState {
    /// The state shown for a snapshot: `stuck` for a running run nobody
    /// holds (`locked`: whether a process holds its lock).
    pub fn of(state: RunState, locked: bool) -> Self {
        if state == RunState::Running && !locked {
            ShownState::Seen(SeenState::Stuck)
        } else {
            ShownState::Run(state)
        }
    }
}

/// Where a call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallState {
    /// Started, not completed.
    Running,
    /// Parked the run (an approval, a question, an event, a timer).
    Waiting,
    /// Completed with a result.
    Done,
    /// Completed without one.
    Failed,
}

/// One call of a run as status shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallView {
    /// Call id.
    pub call: String,
    /// Call kind (`agent`, `capability`, `parallel`, …).
    pub kind: String,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Fingerprint of the request.
    pub fingerprint: String,
    /// Where it stands.
    pub state: CallState,
    /// The agent it asked (agent calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<Value>,
    /// The capability it invokes (`human.ask`, `bash`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Value>,
    /// Duration in µs (completed calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_us: Option<u64>,
    /// Tokens spent (completed calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// The same tokens by kind (agent calls whose backend reported it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// Answers of this call that were rejected (a schema mismatch retried,
    /// a refusal, a truncated answer): what the agent said and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<RejectedAnswer>,
    /// Attempts made (completed calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    /// The typed error of a failed call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<CallFailure>,
    /// Answered from a resume's source journal.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
    /// Answered from the prompt cache.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cache_hit: bool,
    /// When it started (ms since the epoch; its latest execution's start):
    /// the console's waterfall places it by this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_ms: Option<u64>,
    /// When it parked the run (a `human.ask`, an approval, an event), if it
    /// did: the waiting part of its bar.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_started_ms: Option<u64>,
    /// The model the request names (agent calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The agent type the request names (agent calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// What the agent reported it cost, in millionths of a USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_micro_usd: Option<u64>,
}

/// One rejected answer of an agent call (a `call_attempt` journal line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RejectedAnswer {
    /// Attempt number (1-based).
    pub attempt: u32,
    /// The stable code (`schema_mismatch`, `agent_refused`, …); absent in
    /// journals written before issue 26.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Why it was rejected.
    pub error: String,
    /// What the agent answered (redacted, clipped to
    /// [`MAX_ANSWER_SHOWN`](hwf_core::journal::MAX_ANSWER_SHOWN) bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

/// A phase the guest entered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseView {
    /// Its title.
    pub title: String,
    /// The journal position where it began.
    pub seq: u64,
}

/// How far a declared phase got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseStatus {
    /// Entered and left.
    Done,
    /// The phase the run is in.
    Current,
    /// Not entered yet.
    Pending,
}

/// A phase the script declared, with how far it got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclaredPhase {
    /// Its title.
    pub title: String,
    /// How far it got.
    pub status: PhaseStatus,
}

/// Call figures of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgressView {
    /// Tasks waiting for width (while the run executes).
    pub queued: u64,
    /// Calls started, not completed.
    pub running: u64,
    /// Calls completed with a result.
    pub done: u64,
    /// Calls completed without one.
    pub failed: u64,
    /// Calls parked on a wait.
    pub waiting: u64,
    /// Calls answered from a resume's source journal.
    pub replayed: u64,
}

/// Where a run's files are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Links {
    /// The journal.
    pub journal: String,
    /// The controls.
    pub controls: String,
    /// The agent transcripts.
    pub transcripts: String,
    /// The snapshot.
    pub snapshot: String,
}

/// Which `phase` entries of a journal are new. A continuation runs the
/// script again from its start, replaying: the phases it re-enters in the
/// order earlier executions entered them are those phases again, not new
/// ones (`status` and `logs` show each once).
#[derive(Debug, Default)]
pub(crate) struct PhaseReplay {
    /// The phases entered so far, in order.
    entered: Vec<String>,
    /// While a continuation replays: the index of the phase it should
    /// re-enter next.
    replaying: Option<usize>,
}

impl PhaseReplay {
    /// A `run_started` entry: a continuation, when phases came before.
    pub(crate) fn run_started(&mut self) {
        self.replaying = (!self.entered.is_empty()).then_some(0);
    }

    /// A `phase` entry: whether it enters a new phase (`false` for a
    /// continuation re-entering the next phase of an earlier execution).
    pub(crate) fn is_new(&mut self, title: &str) -> bool {
        match self.replaying {
            Some(next) if self.entered.get(next).is_some_and(|t| t == title) => {
                self.replaying = Some(next + 1);
                false
            }
            _ => {
                self.replaying = None;
                self.entered.push(title.to_owned());
                true
            }
        }
    }
}

/// A run's status: its snapshot, its calls and phases from the journal,
/// its controls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunStatus {
    /// Run id.
    pub run_id: RunId,
    /// Its state (`stuck` when running but unowned).
    pub state: ShownState,
    /// The component it executes.
    pub script: ScriptRef,
    /// Its name in lists ([`workflow_name`]).
    pub workflow: String,
    /// Its arguments (redacted).
    pub args: Value,
    /// The current phase.
    pub phase: Option<String>,
    /// When it was created (ms since the epoch).
    pub created_at_ms: u64,
    /// When it ended.
    pub finished_at_ms: Option<u64>,
    /// The inline result.
    pub result: Option<Value>,
    /// The preview of a spilled result.
    pub result_preview: Option<String>,
    /// The file of a spilled result.
    pub result_path: Option<String>,
    /// The error a failed or stopped run ended with.
    pub error: Option<ErrorInfo>,
    /// Call counters.
    pub counts: Counts,
    /// Call figures.
    pub progress: ProgressView,
    /// What a parked run waits for.
    pub waits: Vec<WaitInfo>,
    /// Declared resources and their finalizers' outcomes.
    pub resources: Vec<Value>,
    /// The run it was resumed from.
    pub resumed_from: Option<RunId>,
    /// Its calls in the order they started.
    pub calls: Vec<CallView>,
    /// The phases it entered, in order (a continuation replaying phases an
    /// earlier execution entered does not enter them again).
    pub phases: Vec<PhaseView>,
    /// The phases its script declared.
    pub declared_phases: Vec<DeclaredPhase>,
    /// How many log lines it printed.
    pub log_lines: u64,
    /// Its last five journal lines.
    pub last_events: Vec<Value>,
    /// Where its files are.
    pub links: Links,
    /// Its controls, in order.
    pub controls: Vec<Control>,
    /// Calls a `retry` names.
    pub retries: HashSet<String>,
    /// Calls a `task_stop` names.
    pub stopped_tasks: HashSet<String>,
    /// Why its controls cannot be read (a damaged `controls.jsonl`): the
    /// runner leaves such a run as it is and a decision on it is refused,
    /// so status says so rather than showing no controls (issue 29).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controls_error: Option<hwf_core::model::ErrorInfo>,
    /// The capabilities the run needs of the host that continues it
    /// ([`RunSnapshot::needs`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<hwf_core::model::CapabilityNeed>,
    /// Of those, what the host showing this status does not offer, for an
    /// unfinished run: its runner leaves the run as it is for a host
    /// that offers them (`needs_host`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs_host: Vec<hwf_core::model::CapabilityNeed>,
}

/// A run's workflow name for lists: the saved script's name, else the
/// file's stem (`review` for `flows/review.workflow.json`); a script sent
/// inline (MCP, the plugin, `hwf facade`) shows as its own `meta.name`, or
/// as `inline` when it declares none, never as its path in the state dir.
pub fn workflow_name(s: &RunSnapshot) -> String {
    if let Some(name) = &s.script.name {
        return name.clone();
    }
    let Some(path) = s.script.path.as_deref() else {
        return s.workflow.clone().unwrap_or_else(|| "workflow".into());
    };
    let p = std::path::Path::new(path);
    if p.components().any(|c| c.as_os_str() == "inline") {
        return s.workflow.clone().unwrap_or_else(|| "inline".into());
    }
    let file = p.file_name().and_then(|f| f.to_str()).unwrap_or(path);
    let mut stem = file;
    for ext in [".workflow.json", ".json", ".wasm", ".js", ".mjs", ".py"] {
        if let Some(s) = stem.strip_suffix(ext) {
            stem = s;
            break;
        }
    }
    stem.to_owned()
}

/// One line of the overview.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Run id.
    pub run_id: RunId,
    /// Its state (`stuck` when running but unowned).
    pub state: ShownState,
    /// The saved script's name, or the component's path.
    pub script: Option<String>,
    /// The current phase.
    pub phase: Option<String>,
    /// When it was created.
    pub created_at_ms: u64,
    /// When it ended.
    pub finished_at_ms: Option<u64>,
    /// Call counters.
    pub counts: Counts,
    /// Its error.
    pub error: Option<ErrorInfo>,
    /// What it waits for.
    pub waits: Vec<WaitInfo>,
}

/// Where a run's spilled result is, as a file path to show: the file
/// store's `runs/<id>/result.json` under the state dir; `None` for a
/// shared store's artifact (read it through the result views).
pub fn shown_result_path(s: &RunSnapshot, state_dir: &Path) -> Option<String> {
    s.result_path
        .as_deref()
        .filter(|p| p.starts_with("runs/"))
        .map(|p| state_dir.join(p).display().to_string())
}

/// The overview line of a snapshot as JSON, its state as recorded.
pub fn summary(s: &RunSnapshot) -> Value {
    to_json(&run_summary(s, true))
}

/// The overview line of a snapshot (`locked`: whether a process holds the
/// run's lock).
pub fn run_summary(s: &RunSnapshot, locked: bool) -> RunSummary {
    RunSummary {
        run_id: s.run_id.clone(),
        state: ShownState::of(s.state, locked),
        script: s.script.name.clone().or_else(|| s.script.path.clone()),
        phase: s.phase.clone(),
        created_at_ms: s.created_at_ms,
        finished_at_ms: s.finished_at_ms,
        counts: s.counts,
        error: s.error.clone(),
        waits: s.waits.clone(),
    }
}

/// The full status of a run from its snapshot and journal lines (the
/// controls are left empty; [`crate::Hwf::status`] fills them).
///
/// # Errors
///
/// `corrupt_store` for a journal line that is not a journal entry.
pub fn build_status(s: &RunSnapshot, journal: &[JournalEntry], state_dir: &Path, locked: bool) -> Result<RunStatus> {
    let mut calls: BTreeMap<String, CallView> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut phases: Vec<PhaseView> = Vec::new();
    let mut phase_replay = PhaseReplay::default();
    // What each call took in an earlier execution, for its replay (journals
    // before issue 28 wrote a replay's duration as 0).
    let mut ran_for: BTreeMap<String, u64> = BTreeMap::new();
    let mut logs = 0u64;
    for ev in journal.iter().cloned() {
        match ev.entry {
            Entry::RunStarted { .. } => phase_replay.run_started(),
            Entry::CallStarted {
                call,
                kind,
                label,
                phase,
                fingerprint,
                request,
                ..
            } => {
                let view = CallView {
                    call: call.clone(),
                    kind,
                    label,
                    phase,
                    fingerprint,
                    state: CallState::Running,
                    agent: request.get("agent").cloned(),
                    name: request.get("name").filter(|n| n.is_string()).cloned(),
                    duration_us: None,
                    tokens: None,
                    usage: None,
                    rejected: Vec::new(),
                    attempts: None,
                    error: None,
                    replayed: false,
                    cache_hit: false,
                    started_ms: Some(ev.ts_ms),
                    // A call parked in an earlier execution keeps when it
                    // began to wait.
                    wait_started_ms: calls.get(&call).and_then(|c| c.wait_started_ms),
                    model: request.get("model").and_then(Value::as_str).map(str::to_owned),
                    agent_type: request.get("agent_type").and_then(Value::as_str).map(str::to_owned),
                    cost_micro_usd: None,
                };
                if let Some(earlier) = calls.get(&call).and_then(|c| c.duration_us) {
                    ran_for.insert(call.clone(), earlier);
                }
                order.push(call.clone());
                calls.insert(call, view);
            }
            Entry::CallAttempt {
                call,
                attempt,
                error,
                code,
                answer,
            } => {
                if let Some(c) = calls.get_mut(&call) {
                    c.rejected.push(RejectedAnswer {
                        attempt,
                        code,
                        error,
                        answer,
                    });
                }
            }
            Entry::CallCompleted {
                call,
                ok,
                error,
                tokens,
                usage,
                cost_micro_usd,
                attempts,
                duration_us,
                replayed,
                cache_hit,
                ..
            } => {
                if let Some(c) = calls.get_mut(&call) {
                    c.state = if ok { CallState::Done } else { CallState::Failed };
                    c.duration_us = Some(match ran_for.get(&call) {
                        Some(&earlier) if replayed && duration_us == 0 => earlier,
                        _ => duration_us,
                    });
                    c.tokens = Some(tokens);
                    c.usage = Some(usage).filter(|u| !u.is_empty());
                    c.attempts = Some(attempts);
                    c.error = error;
                    c.replayed = replayed;
                    c.cache_hit = cache_hit;
                    c.cost_micro_usd = Some(cost_micro_usd).filter(|&n| n > 0);
                }
            }
            Entry::Phase { title } => {
                if phase_replay.is_new(&title) {
                    phases.push(PhaseView { title, seq: ev.seq });
                }
            }
            Entry::WaitStarted { call, .. } => {
                if let Some(c) = calls.get_mut(&call) {
                    c.state = CallState::Waiting;
                    c.wait_started_ms = Some(ev.ts_ms);
                }
            }
            Entry::Log { .. } => logs += 1,
            _ => {}
        }
    }
    let calls: Vec<CallView> = order.into_iter().filter_map(|id| calls.remove(&id)).collect();
    let mut progress = ProgressView {
        queued: s.live.map_or(0, |l| l.queued),
        ..ProgressView::default()
    };
    for c in &calls {
        match c.state {
            CallState::Running => progress.running += 1,
            CallState::Done => progress.done += 1,
            CallState::Waiting => progress.waiting += 1,
            CallState::Failed => progress.failed += 1,
        }
        if c.replayed {
            progress.replayed += 1;
        }
    }
    let run_dir = state_dir.join("runs").join(s.run_id.as_str());
    // Declared phases with their status: done, current, or pending. A
    // declared title matches an entered phase equal to it or starting with
    // it (`find` matches `round 2 find`).
    let current = s.phase.as_deref();
    let declared: Vec<DeclaredPhase> = s
        .declared_phases
        .iter()
        .map(|d| {
            let matches = |t: &str| t == d || t.ends_with(&format!(" {d}"));
            let status = if current.is_some_and(matches) && !s.state.is_terminal() {
                PhaseStatus::Current
            } else if phases.iter().any(|p| matches(&p.title)) {
                PhaseStatus::Done
            } else {
                PhaseStatus::Pending
            };
            DeclaredPhase {
                title: d.clone(),
                status,
            }
        })
        .collect();
    let link = |f: &str| run_dir.join(f).display().to_string();
    Ok(RunStatus {
        run_id: s.run_id.clone(),
        state: ShownState::of(s.state, locked),
        script: s.script.clone(),
        workflow: workflow_name(s),
        args: s.args.clone(),
        phase: s.phase.clone(),
        created_at_ms: s.created_at_ms,
        finished_at_ms: s.finished_at_ms,
        result: s.result.clone(),
        result_preview: s.result_preview.clone(),
        result_path: shown_result_path(s, state_dir),
        error: s.error.clone(),
        counts: s.counts,
        progress,
        waits: s.waits.clone(),
        // Declared resources and their finalizers' outcomes (issue 19).
        resources: crate::app::finalizers::view(journal, &run_dir),
        resumed_from: s.resumed_from.clone(),
        calls,
        phases,
        declared_phases: declared,
        log_lines: logs,
        last_events: journal.iter().rev().take(5).rev().map(to_json).collect(),
        links: Links {
            journal: link("journal.jsonl"),
            controls: link("controls.jsonl"),
            transcripts: link("transcripts.jsonl"),
            snapshot: link("run.json"),
        },
        controls: Vec::new(),
        retries: HashSet::new(),
        stopped_tasks: HashSet::new(),
        controls_error: None,
        needs: s.needs.clone(),
        needs_host: Vec::new(),
    })
}

/// A status with every value redacted once more (control values and
/// journal lines are shown in it): serialised, redacted, and read back
/// only when something changed.
///
/// # Errors
///
/// `internal` when the redacted form does not read back.
pub fn redacted(status: RunStatus) -> Result<RunStatus> {
    let internal = |e: serde_json::Error| Error::new(ErrorCode::Internal, format!("status: {e}"));
    let mut v = serde_json::to_value(&status).map_err(internal)?;
    if !hwf_core::redact::redact_value(&mut v) {
        return Ok(status);
    }
    serde_json::from_value(v).map_err(internal)
}

impl RunStatus {
    /// The status as the JSON the front doors print.
    pub fn to_json(&self) -> Value {
        to_json(self)
    }
}

/// A view as JSON. Views hold only string-keyed maps, so serialising
/// cannot fail; `null` would say it did.
pub(crate) fn to_json(view: &impl Serialize) -> Value {
    serde_json::to_value(view).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(seq: u64, v: Value) -> JournalEntry {
        let mut v = v;
        v["seq"] = json!(seq);
        v["ts_ms"] = json!(1000 + seq);
        serde_json::from_value(v).expect("a journal entry")
    }

    #[test]
    fn status_reads_calls_phases_and_waits_from_typed_entries() {
        let id = RunId::generate();
        let mut snap = RunSnapshot::new(
            id.clone(),
            RunState::Running,
            ScriptRef::default(),
            json!({"n": 1}),
            None,
        );
        snap.declared_phases = vec!["find".into(), "fix".into(), "ship".into()];
        snap.phase = Some("round 2 fix".into());
        let journal = vec![
            line(1, json!({"type": "phase", "title": "find"})),
            line(
                2,
                json!({"type": "call_started", "call": "1", "kind": "agent", "fingerprint": "b3:a", "request": {"agent": "general-purpose", "prompt": "p"}}),
            ),
            line(
                3,
                json!({"type": "call_completed", "call": "1", "kind": "agent", "fingerprint": "b3:a", "ok": true, "result": 1, "tokens": 7, "attempts": 1, "duration_us": 5, "replayed": true}),
            ),
            line(4, json!({"type": "phase", "title": "round 2 fix"})),
            line(
                5,
                json!({"type": "call_started", "call": "2", "kind": "capability", "label": "ask", "fingerprint": "b3:b", "request": {"name": "human.ask", "input": {}}}),
            ),
            line(
                6,
                json!({"type": "wait_started", "call": "2", "kind": "human", "summary": "ok?"}),
            ),
            line(
                7,
                json!({"type": "call_started", "call": "3", "kind": "agent", "fingerprint": "b3:c", "request": {}}),
            ),
            line(
                8,
                json!({"type": "log", "level": "info", "source": "guest", "message": "hi"}),
            ),
        ];
        let st = build_status(&snap, &journal, Path::new("/state"), false).expect("status");
        assert_eq!(st.state, ShownState::Seen(SeenState::Stuck));
        let states: Vec<CallState> = st.calls.iter().map(|c| c.state).collect();
        assert_eq!(states, [CallState::Done, CallState::Waiting, CallState::Running]);
        assert_eq!(
            (
                st.progress.done,
                st.progress.waiting,
                st.progress.running,
                st.progress.replayed
            ),
            (1, 1, 1, 1)
        );
        let declared: Vec<PhaseStatus> = st.declared_phases.iter().map(|d| d.status).collect();
        assert_eq!(
            declared,
            [PhaseStatus::Done, PhaseStatus::Current, PhaseStatus::Pending]
        );
        assert_eq!(st.log_lines, 1);
        assert_eq!(st.last_events.len(), 5);
        // The JSON the front doors print: keys of a completed call only when
        // it completed; the capability's name; `stuck` as a string.
        let v = st.to_json();
        assert_eq!(v["state"], "stuck");
        assert_eq!(v["calls"][0]["tokens"], 7);
        assert_eq!(v["calls"][0]["agent"], "general-purpose");
        assert_eq!(v["calls"][1]["name"], "human.ask");
        assert_eq!(v["calls"][1]["label"], "ask");
        assert!(v["calls"][2].get("tokens").is_none() && v["calls"][2].get("replayed").is_none());
        assert_eq!(v["phases"][1], json!({"title": "round 2 fix", "seq": 4}));
        assert_eq!(v["declared_phases"][2], json!({"title": "ship", "status": "pending"}));
        assert_eq!(v["links"]["journal"], format!("/state/runs/{id}/journal.jsonl"));
        // A locked running run is running (a damaged line never gets here:
        // the store's typed reader names it, `corrupt_store`).
        let locked = build_status(&snap, &journal, Path::new("/state"), true).expect("status");
        assert_eq!(locked.to_json()["state"], "running");
        // The last lines are shown as written.
        assert_eq!(
            v["last_events"][4],
            json!({"seq": 8, "ts_ms": 1008, "type": "log", "level": "info", "source": "guest", "message": "hi"})
        );
    }

    #[test]
    fn redaction_reaches_every_value_of_a_status() {
        let id = RunId::generate();
        let snap = RunSnapshot::new(
            id,
            RunState::Succeeded,
            ScriptRef::default(),
            json!({"password": "hunter2"}),
            None,
        );
        let st = build_status(&snap, &[], Path::new("/state"), true).expect("status");
        assert_eq!(st.args["password"], "hunter2");
        let st = redacted(st).expect("redacted");
        assert_ne!(st.args["password"], "hunter2");
        assert_eq!(st.to_json()["state"], "succeeded");
    }
}
