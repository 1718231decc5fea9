//! Walking a script against recorded calls, running none of them: `hwf
//! test` (answers from a cassette) and the plan of a resume (`hwf run
//! --resume-from … --plan`).
//!
//! A run built with a [`Walk`] executes its guest code as usual, but its
//! agent and capability calls never reach a backend, a capability handler
//! or a wait: each is answered from the recorded calls at the replay stage
//! (`pipeline.rs`) and noted as a [`WalkStep`]. What answers a call:
//!
//! | the call | [`WalkMode::Test`] | [`WalkMode::Plan`] |
//! |---|---|---|
//! | same id and fingerprint, recorded success | replay | replay |
//! | same id and fingerprint, recorded failure | replay the failure | live (`failed`) |
//! | same id and fingerprint, never completed | live (`unfinished`) | live (`unfinished`) |
//! | another id, a recorded call with the same fingerprint | replay (matched by content) | live: a resume matches by id too |
//! | request changed / new | live (`changed` / `new`): a **drift** | live (`changed` / `new`) |
//!
//! A call that is not replayed is answered with what its **closest**
//! recorded call answered — the recorded call with the same kind and
//! label (the one under the same id first), else the one under the same
//! id — or `null` when there is none (then `placeholder` says so). So the
//! walk goes on along the recorded path: a later call whose request does
//! not depend on the changed one still matches and replays, and exactly
//! the changed calls are reported. The walk cannot know what a changed
//! call would really answer; calls after it that use its answer are
//! walked with the recorded answer.

use super::RunContext;
use super::call::CallResult;
use super::lock;
use hwf_core::call::CallFailure;
use hwf_core::cassette::{FieldDiff, ResolvedCall, diff};
use hwf_core::fingerprint::Fingerprint;
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

/// What a walk is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkMode {
    /// `hwf test`: answer everything the cassette holds, matching by
    /// content where ids moved; report what it cannot answer as drift.
    Test,
    /// The plan of a resume: report exactly what `--resume-from` would
    /// replay (same id and fingerprint, a recorded success) and what it
    /// would run live.
    Plan,
}

/// Whether a step was answered from the recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepOutcome {
    /// Answered from a recorded call.
    Replay,
    /// Would run live (in a test: a drift).
    Live,
}

/// One agent or capability call of a walk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WalkStep {
    /// Call id.
    pub call: String,
    /// `agent` or `capability`.
    pub kind: &'static str,
    /// Its label (redacted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The capability's name (`human.ask`), for a capability call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its fingerprint.
    pub fingerprint: String,
    /// Replayed or live.
    pub outcome: StepOutcome,
    /// Why: a live call's `changed` (the request differs from its closest
    /// recorded call's), `new` (no recorded call is like it), `failed`
    /// (recorded, but it did not succeed), `unfinished` (recorded, never
    /// completed: in flight or parked), `not_replayable` (its capability
    /// always runs), `retry` (an operator's `retry` control not consumed
    /// yet); a replay's `content` when it was matched by
    /// fingerprint under another id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// The recorded call it replayed, or was compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<String>,
    /// What changed in the request (live `changed` calls): redacted, as
    /// JSON pointers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diff: Vec<FieldDiff>,
    /// Tokens: what the replayed call cost when it ran, or what a live
    /// call is estimated to cost (its closest recorded call's).
    pub tokens: u64,
    /// Cost in millionths of a USD, as `tokens`.
    pub cost_micro_usd: u64,
    /// The live call was answered with `null`: nothing recorded was like
    /// it, so what follows it in the walk may differ from a real run.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub placeholder: bool,
}

/// Recorded calls a walk answers from, and the steps it took.
#[derive(Debug)]
pub struct Walk {
    mode: WalkMode,
    calls: Vec<ResolvedCall>,
    by_id: HashMap<String, usize>,
    by_fp: HashMap<String, Vec<usize>>,
    used: Mutex<HashSet<usize>>,
    steps: Mutex<Vec<WalkStep>>,
}

impl Walk {
    /// A walk answering from `calls` (a cassette's, or a lineage's).
    pub fn new(mode: WalkMode, calls: Vec<ResolvedCall>) -> Self {
        let mut by_id = HashMap::with_capacity(calls.len());
        let mut by_fp: HashMap<String, Vec<usize>> = HashMap::with_capacity(calls.len());
        for (i, c) in calls.iter().enumerate() {
            by_id.insert(c.call.clone(), i);
            by_fp.entry(c.fingerprint.clone()).or_default().push(i);
        }
        Self {
            mode,
            calls,
            by_id,
            by_fp,
            used: Mutex::new(HashSet::new()),
            steps: Mutex::new(Vec::new()),
        }
    }

    /// The mode.
    pub fn mode(&self) -> WalkMode {
        self.mode
    }

    /// The steps so far, in call-id order (`2` before `10`, `3.1` after
    /// `3`).
    pub fn steps(&self) -> Vec<WalkStep> {
        let mut steps = lock(&self.steps).clone();
        steps.sort_by(|a, b| id_order(&a.call, &b.call));
        steps
    }

    /// How many recorded calls there are.
    pub fn recorded_len(&self) -> usize {
        self.calls.len()
    }

    /// The recorded call a live call is compared with and answered by:
    /// same kind and label (prefer the same id, then one not used yet),
    /// else the same id and kind.
    fn closest(&self, call: &str, kind: &str, label: Option<&str>) -> Option<usize> {
        let used = lock(&self.used);
        if let Some(label) = label {
            let same_label = |i: &usize| {
                let c = &self.calls[*i];
                c.kind == kind && c.label.as_deref() == Some(label)
            };
            if let Some(i) = self.by_id.get(call).copied().filter(same_label) {
                return Some(i);
            }
            let mut candidates = (0..self.calls.len()).filter(same_label);
            let first = candidates.next();
            if let Some(i) = first.into_iter().chain(candidates).find(|i| !used.contains(i)) {
                return Some(i);
            }
            if first.is_some() {
                return first;
            }
        }
        self.by_id.get(call).copied().filter(|i| self.calls[*i].kind == kind)
    }

    /// A recorded success with the same fingerprint under another id (one
    /// not used yet first).
    fn by_content(&self, fp: &str) -> Option<usize> {
        let ids = self.by_fp.get(fp)?;
        let used = lock(&self.used);
        let ok = |i: &&usize| matches!(self.calls[**i].outcome, Some(Ok(_)));
        ids.iter()
            .filter(ok)
            .find(|i| !used.contains(*i))
            .or_else(|| ids.iter().find(ok))
            .copied()
    }
}

/// Call ids compared number by number (`2` < `10`, `3` < `3.1`).
fn id_order(a: &str, b: &str) -> std::cmp::Ordering {
    id_key(a).cmp(&id_key(b))
}

/// A call id's numbers (`3.10.2` → `[3, 10, 2]`), which order ids number
/// by number.
pub(super) fn id_key(id: &str) -> Vec<u64> {
    id.split('.').map(|p| p.parse().unwrap_or(u64::MAX)).collect()
}

impl RunContext {
    /// Answer a leaf call of a walk (see the module docs); nothing runs.
    #[expect(clippy::too_many_arguments, reason = "the fields of one call")]
    pub(super) fn walk_call(
        &self,
        walk: &Walk,
        call_id: &str,
        kind: &'static str,
        label: Option<&str>,
        fp: &Fingerprint,
        stored_request: &Value,
        may_replay: bool,
    ) -> CallResult {
        let test = walk.mode == WalkMode::Test;
        let own = walk.by_id.get(call_id).copied();
        let same = own.filter(|i| walk.calls[*i].fingerprint == fp.as_str());
        // A pending `retry` control makes a resume run the call again.
        let retried = !test && self.replay().is_some_and(|idx| !idx.retries_of(call_id).is_empty());
        // What answers it, and why.
        let (answer_from, outcome, reason) = match same.map(|i| (i, &walk.calls[i].outcome)) {
            Some((i, Some(Ok(_)))) if retried => (Some(i), StepOutcome::Live, Some("retry")),
            Some((i, Some(Ok(_)))) if may_replay || test => (Some(i), StepOutcome::Replay, None),
            Some((i, Some(Ok(_)))) => (Some(i), StepOutcome::Live, Some("not_replayable")),
            Some((i, Some(Err(_)))) if test => (Some(i), StepOutcome::Replay, None),
            Some((i, Some(Err(_)))) => (Some(i), StepOutcome::Live, Some("failed")),
            Some((i, None)) => (Some(i), StepOutcome::Live, Some("unfinished")),
            None => match walk.by_content(fp.as_str()).filter(|_| test) {
                Some(i) => (Some(i), StepOutcome::Replay, Some("content")),
                None => match walk.closest(call_id, kind, label) {
                    Some(i) => (Some(i), StepOutcome::Live, Some("changed")),
                    None => (None, StepOutcome::Live, Some("new")),
                },
            },
        };
        let recorded = answer_from.map(|i| &walk.calls[i]);
        let diff = match (reason, recorded) {
            (Some("changed"), Some(r)) => diff(&r.request, stored_request),
            _ => Vec::new(),
        };
        let answer: Result<Value, CallFailure> = match recorded.and_then(|r| r.outcome.clone()) {
            Some(o) => o,
            None => Ok(Value::Null),
        };
        let placeholder = outcome == StepOutcome::Live && recorded.and_then(|r| r.outcome.as_ref()).is_none();
        if let Some(i) = answer_from {
            lock(&walk.used).insert(i);
        }
        lock(&walk.steps).push(WalkStep {
            call: call_id.to_owned(),
            kind,
            label: label.map(str::to_owned),
            name: (kind == "capability")
                .then(|| stored_request.get("name").and_then(Value::as_str).map(str::to_owned))
                .flatten(),
            fingerprint: fp.as_str().to_owned(),
            outcome,
            reason,
            recorded: recorded.map(|r| r.call.clone()),
            diff,
            tokens: recorded.map_or(0, |r| r.tokens),
            cost_micro_usd: recorded.map_or(0, |r| r.cost_micro_usd),
            placeholder,
        });
        {
            let mut stats = lock(&self.stats);
            if outcome == StepOutcome::Replay {
                stats.counts.replayed += 1;
            }
            if answer.is_err() {
                stats.counts.failed += 1;
            }
        }
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_ids_sort_number_by_number() {
        let mut ids = vec!["10", "2", "3.1", "3", "1.0.2"];
        ids.sort_by(|a, b| id_order(a, b));
        assert_eq!(ids, ["1.0.2", "2", "3", "3.1", "10"]);
    }
}
