//! Replay: answer calls from a journal instead of running them.
//!
//! A resumed or continued run re-runs the harness from the start. Each call
//! is looked up by call id and fingerprint (its content): when the recorded
//! call has the same fingerprint and completed successfully, an agent or
//! capability call gets its recorded result without running anything, and
//! a composite call (`parallel`, `pipeline`, a branch, a nested workflow)
//! runs again with its children still replaying. Only successful results
//! replay: a failed, refused, cancelled or unfinished call (a crash, a
//! park) runs again with the same idempotency key, and so does an agent
//! call that answered `null`, or a call named by a `retry` control not yet
//! consumed. A call whose request changed runs live; the calls after it
//! replay only where their own fingerprints still match.
//!
//! `next` replays its journaled delivery order per instance (until the
//! instance diverges), so a harness that reacts to whichever task finishes
//! first decides the same way.

use super::Fingerprint;
use crate::store::Counts;
use hwf_core::journal::{Entry, JournalEntry};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A completed call as the source journal recorded it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCall {
    /// Its result.
    pub result: Value,
    /// Tokens it spent when it ran.
    pub tokens: u64,
    /// Attempts it took (0: it was itself answered without running).
    pub attempts: u32,
    /// What it cost, in millionths of a USD.
    pub cost_micro_usd: u64,
    /// Its tokens by kind.
    pub usage: crate::agents::TokenUsage,
    /// How long it took when it ran, in µs (a replay journals it again,
    /// marked `replayed`, so status shows what the call took).
    pub duration_us: u64,
    /// Whether it was recorded in the run's own journal (a continuation in
    /// place: already charged to the run) rather than a source run's.
    pub own: bool,
}

/// What the source journal says about one call.
#[derive(Debug, Clone)]
struct Recorded {
    fingerprint: String,
    outcome: Option<RecordedCall>,
}

/// The answer of [`ReplayIndex::lookup`].
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// Same call, completed successfully: answer with its result.
    Hit(RecordedCall),
    /// Same call (same fingerprint), but it never completed successfully
    /// (failed, cancelled, in flight at a crash, parked) or is a composite:
    /// run it; its children, and the calls after it, may still replay.
    Same,
    /// A different or unknown call.
    Diverged,
}

/// Recorded calls and delivery orders of a source journal.
#[derive(Debug, Default)]
pub struct ReplayIndex {
    calls: HashMap<String, Recorded>,
    first_started: HashMap<String, u64>,
    parked: HashSet<String>,
    delivered: HashMap<String, Vec<String>>,
    charged: Counts,
    consumed: HashSet<String>,
    /// Pending `retry` controls: call id → control ids, consumed when the
    /// call has really run again.
    retries: HashMap<String, Vec<String>>,
    source_calls: usize,
    /// Requests the journals keep by content, by fingerprint: the same
    /// request journaled again (a replayed call) names the stored chunks
    /// instead of being split and hashed again.
    stored_requests: HashMap<String, (hwf_core::payload::PayloadRef, Value)>,
    /// Edits applied by [`ReplayIndex::apply_edit`] (a fork), not yet in
    /// any journal: the new run journals them once it starts.
    new_edits: Vec<CallEdit>,
    /// Edited inputs: call id → (the recorded request's fingerprint, the
    /// input the call runs with instead) — a chain when a fork of a fork
    /// edits the same call again (its recorded request is the first
    /// edit's).
    inputs: HashMap<String, Vec<(String, Value)>>,
    /// Edited decisions: call id → the decision that stands in for an
    /// operator's on that exact request.
    decisions: HashMap<String, EditedDecision>,
}

/// What a fork edits in a recorded call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditField {
    /// Its result: replay answers the call with the new value.
    Output,
    /// Its request's input: the call runs live with the new value (its
    /// fingerprint changes; the calls whose fingerprints do not still
    /// replay).
    Input,
    /// An approval gate's or a question's decision (`approve` / `deny`):
    /// the call runs again through the broker as if an operator had
    /// decided so.
    Decision,
}

impl EditField {
    /// The name journaled (`output`, `input`, `decision`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Output => "output",
            Self::Input => "input",
            Self::Decision => "decision",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        match name {
            "output" => Some(Self::Output),
            "input" => Some(Self::Input),
            "decision" => Some(Self::Decision),
            _ => None,
        }
    }
}

/// A decision a fork put on one recorded request.
#[derive(Debug, Clone, PartialEq)]
pub struct EditedDecision {
    /// The request it is about (a decision applies to that exact request).
    pub fingerprint: String,
    /// Approve (`true`) or deny.
    pub approve: bool,
    /// Who made it.
    pub actor: String,
    /// Why.
    pub reason: Option<String>,
}

/// An operator's edit of one recorded call (`hwf fork`): its result, its
/// input or its decision.
#[derive(Debug, Clone, PartialEq)]
pub struct CallEdit {
    /// The call.
    pub call: String,
    /// The recorded request's fingerprint (the edit applies to it only).
    pub fingerprint: String,
    /// What is edited.
    pub field: EditField,
    /// The new result, input, or decision (`"approve"` / `"deny"`);
    /// redacted before it is stored.
    pub value: Value,
    /// What changed in the request, field by field (an input edit).
    pub changes: Option<Value>,
    /// Who made it.
    pub actor: String,
    /// Why.
    pub reason: Option<String>,
    /// The run whose call was edited.
    pub source_run: String,
}

/// Whether a journaled completion may answer a later execution: only a
/// successful agent or capability result does (an agent's `null` is a
/// non-answer and runs again); failures, refusals and cancellations run
/// again.
fn replayable(kind: &str, ok: bool, result: Option<&Value>) -> bool {
    if !matches!(kind, "agent" | "capability") || !ok {
        return false;
    }
    match result {
        None => false,
        Some(Value::Null) => kind != "agent",
        Some(_) => true,
    }
}

impl ReplayIndex {
    /// The requests the indexed journals keep by content, by fingerprint
    /// (with the skeleton their lines keep inline).
    pub fn stored_requests(&self) -> impl Iterator<Item = (&String, &(hwf_core::payload::PayloadRef, Value))> {
        self.stored_requests.iter()
    }

    /// Build an index from a run's own journal. Calls in `retry` are left
    /// out so they run live.
    pub fn from_journal(events: &[JournalEntry], retry: &HashSet<String>) -> Self {
        Self::from_lineage(&[], events, retry)
    }

    /// Build an index from the journals of a resume lineage: `sources`
    /// (oldest first: the runs this one was resumed from) and the run's
    /// `own` journal. A success recorded anywhere answers the call; the
    /// first recording keeps its cost (a later replay of it costs nothing
    /// and must not erase what it cost); only the own journal's live calls
    /// count as already charged. Calls in `retry` are left out.
    pub fn from_lineage(sources: &[Vec<JournalEntry>], own: &[JournalEntry], retry: &HashSet<String>) -> Self {
        Self::from_lineage_observed(sources, own, retry, |_| {})
    }

    /// [`ReplayIndex::from_lineage`], handing every entry to `observe` in
    /// the same pass (a plan builds its recorded calls so: one pass over
    /// the journals for both).
    pub fn from_lineage_observed(
        sources: &[Vec<JournalEntry>],
        own: &[JournalEntry],
        retry: &HashSet<String>,
        mut observe: impl FnMut(&JournalEntry),
    ) -> Self {
        let mut idx = Self::default();
        for events in sources {
            idx.add(events, false, retry, &mut observe);
        }
        idx.add(own, true, retry, &mut observe);
        idx
    }

    fn add(
        &mut self,
        events: &[JournalEntry],
        own: bool,
        retry: &HashSet<String>,
        observe: &mut impl FnMut(&JournalEntry),
    ) {
        let idx = self;
        for e in events {
            observe(e);
            match &e.entry {
                Entry::CallStarted {
                    call,
                    fingerprint,
                    request,
                    request_ref,
                    ..
                } => {
                    if let Some(r) = request_ref {
                        idx.stored_requests
                            .entry(fingerprint.clone())
                            .or_insert_with(|| (*r, request.clone()));
                    }
                    idx.first_started.entry(call.clone()).or_insert(e.ts_ms);
                    let r = idx.calls.entry(call.clone()).or_insert(Recorded {
                        fingerprint: fingerprint.clone(),
                        outcome: None,
                    });
                    // A new request under the same id replaces what the id
                    // meant; the same request keeps its last success (a
                    // later failed re-run does not erase it).
                    if r.fingerprint != *fingerprint {
                        if r.outcome.is_some() {
                            idx.source_calls -= 1;
                        }
                        *r = Recorded {
                            fingerprint: fingerprint.clone(),
                            outcome: None,
                        };
                    }
                }
                Entry::CallCompleted {
                    call,
                    kind,
                    fingerprint,
                    ok,
                    result,
                    tokens,
                    usage,
                    cost_micro_usd,
                    attempts,
                    duration_us,
                    replayed,
                    cache_hit,
                    ..
                } => {
                    let (tokens, cost, attempts) = (*tokens, *cost_micro_usd, *attempts);
                    // A cache hit was charged too (the seed's rule: it
                    // counts as an agent call and charges its `_tokens`).
                    if own && matches!(kind.as_str(), "agent" | "capability") {
                        idx.charged.tokens = idx.charged.tokens.saturating_add(tokens);
                        idx.charged.usage.add(usage);
                        idx.charged.cost_micro_usd = idx.charged.cost_micro_usd.saturating_add(cost);
                        if attempts > 0 || *cache_hit {
                            if kind == "agent" {
                                idx.charged.agent_calls += 1;
                            } else {
                                idx.charged.capability_calls += 1;
                            }
                        }
                    }
                    if !replayable(kind, *ok, result.as_ref()) || retry.contains(call) {
                        continue;
                    }
                    if let Some(r) = idx.calls.get_mut(call) {
                        if r.fingerprint != *fingerprint {
                            continue;
                        }
                        match &mut r.outcome {
                            // A replay of what is recorded already: keep
                            // the recording (and its cost); it is now also
                            // in the own journal when this one is.
                            Some(prev) if *replayed => prev.own |= own,
                            slot => {
                                if slot.is_none() {
                                    idx.source_calls += 1;
                                }
                                *slot = Some(RecordedCall {
                                    result: result.clone().unwrap_or(Value::Null),
                                    tokens,
                                    attempts,
                                    cost_micro_usd: cost,
                                    usage: *usage,
                                    duration_us: *duration_us,
                                    own,
                                });
                            }
                        }
                    }
                }
                Entry::WaitStarted { call, .. } => {
                    idx.parked.insert(call.clone());
                }
                Entry::CallEdited {
                    call,
                    fingerprint,
                    field,
                    value,
                    actor,
                    reason,
                    ..
                } => match EditField::parse(field) {
                    Some(EditField::Output) => idx.set_result(call, fingerprint, value.clone(), own),
                    Some(EditField::Input) => idx.set_input(call, fingerprint, value.clone()),
                    Some(EditField::Decision) => idx.set_decision(
                        call,
                        EditedDecision {
                            fingerprint: fingerprint.clone(),
                            approve: value.as_str() == Some("approve"),
                            actor: actor.clone(),
                            reason: reason.clone(),
                        },
                    ),
                    None => {}
                },
                Entry::Delivered { call } => {
                    let scope = call.rsplit_once('.').map_or("", |(p, _)| p).to_owned();
                    idx.delivered.entry(scope).or_default().push(call.clone());
                }
                Entry::RunStarted { .. } => {
                    // Each execution delivers from its own start.
                    idx.delivered.clear();
                }
                Entry::ControlApplied { control, .. } => {
                    idx.consumed.insert(control.clone());
                }
                _ => {}
            }
        }
    }

    /// Answer `call` (with `fingerprint`) with `value` from now on, as if
    /// it had been recorded so, at no cost.
    fn set_result(&mut self, call: &str, fingerprint: &str, value: Value, own: bool) {
        let r = self.calls.entry(call.to_owned()).or_insert(Recorded {
            fingerprint: fingerprint.to_owned(),
            outcome: None,
        });
        if r.fingerprint != fingerprint {
            if r.outcome.is_some() {
                self.source_calls -= 1;
            }
            r.fingerprint = fingerprint.to_owned();
            r.outcome = None;
        }
        if r.outcome.is_none() {
            self.source_calls += 1;
        }
        r.outcome = Some(RecordedCall {
            result: value,
            tokens: 0,
            attempts: 0,
            cost_micro_usd: 0,
            usage: crate::agents::TokenUsage::default(),
            duration_us: 0,
            own,
        });
    }

    /// Run `call` (when its request has `fingerprint`) with `input`
    /// instead of the guest's.
    fn set_input(&mut self, call: &str, fingerprint: &str, input: Value) {
        let edits = self.inputs.entry(call.to_owned()).or_default();
        edits.retain(|(fp, _)| fp != fingerprint);
        edits.push((fingerprint.to_owned(), input));
    }

    /// Decide `call` as `decision` says; its recorded success no longer
    /// answers it (it runs again, through the broker, with the decision).
    /// A later completion in the journals answers it again.
    fn set_decision(&mut self, call: &str, decision: EditedDecision) {
        if let Some(r) = self.calls.get_mut(call)
            && r.fingerprint == decision.fingerprint
            && r.outcome.take().is_some()
        {
            self.source_calls -= 1;
        }
        self.decisions.insert(call.to_owned(), decision);
    }

    /// Apply a fork's edit: the call replays the new result (an output
    /// edit), runs live with the new input, or runs again with the new
    /// decision. The edit is kept for the new run to journal
    /// ([`ReplayIndex::new_edits`]).
    pub fn apply_edit(&mut self, edit: CallEdit) {
        match edit.field {
            EditField::Output => self.set_result(&edit.call, &edit.fingerprint, edit.value.clone(), false),
            EditField::Input => self.set_input(&edit.call, &edit.fingerprint, edit.value.clone()),
            EditField::Decision => self.set_decision(
                &edit.call,
                EditedDecision {
                    fingerprint: edit.fingerprint.clone(),
                    approve: edit.value.as_str() == Some("approve"),
                    actor: edit.actor.clone(),
                    reason: edit.reason.clone(),
                },
            ),
        }
        self.new_edits.push(edit);
    }

    /// The input a fork gave `call`, when the guest's request is the
    /// recorded one (`fingerprint`).
    pub fn edited_input(&self, call: &str, fingerprint: &Fingerprint) -> Option<&Value> {
        self.inputs
            .get(call)?
            .iter()
            .find(|(fp, _)| fp == fingerprint.as_str())
            .map(|(_, v)| v)
    }

    /// The decision a fork put on `call`'s request `fingerprint`.
    pub fn edited_decision(&self, call: &str, fingerprint: &str) -> Option<&EditedDecision> {
        self.decisions.get(call).filter(|d| d.fingerprint == fingerprint)
    }

    /// The edits [`ReplayIndex::apply_edit`] made, which the run journals.
    pub fn new_edits(&self) -> &[CallEdit] {
        &self.new_edits
    }

    /// The recorded fingerprint of `call`, when the journals know it.
    pub fn fingerprint_of(&self, call: &str) -> Option<&str> {
        self.calls.get(call).map(|r| r.fingerprint.as_str())
    }

    /// Look a call up by its id and fingerprint.
    pub fn lookup(&self, call: &str, fingerprint: &Fingerprint) -> Lookup {
        match self.calls.get(call) {
            Some(r) if r.fingerprint == fingerprint.as_str() => match &r.outcome {
                Some(o) => Lookup::Hit(o.clone()),
                None => Lookup::Same,
            },
            _ => Lookup::Diverged,
        }
    }

    /// Whether the call is the recorded one (same id and fingerprint):
    /// [`lookup`](Self::lookup) would not say [`Lookup::Diverged`]; nothing
    /// is cloned.
    pub fn knows(&self, call: &str, fingerprint: &Fingerprint) -> bool {
        self.calls
            .get(call)
            .is_some_and(|r| r.fingerprint == fingerprint.as_str())
    }

    /// Whether [`lookup`](Self::lookup) would answer the call with a
    /// recorded result ([`Lookup::Hit`]), without cloning that result.
    pub fn answers(&self, call: &str, fingerprint: &Fingerprint) -> bool {
        self.calls
            .get(call)
            .is_some_and(|r| r.fingerprint == fingerprint.as_str() && r.outcome.is_some())
    }

    /// The call id delivered `n`-th (0-based) by `next` in the instance
    /// whose calls are `<scope>.k` (`""` for the root), in the source's
    /// last execution.
    pub fn delivered(&self, scope: &str, n: usize) -> Option<&str> {
        self.delivered.get(scope).and_then(|v| v.get(n)).map(String::as_str)
    }

    /// When `call` first started in the source (ms since the epoch).
    pub fn first_started(&self, call: &str) -> Option<u64> {
        self.first_started.get(call).copied()
    }

    /// Whether `call` parked the source run.
    pub fn parked(&self, call: &str) -> bool {
        self.parked.contains(call)
    }

    /// What the source's live calls were charged: agent and capability
    /// calls that ran (replays of another run included), tokens.
    pub fn charged(&self) -> Counts {
        self.charged
    }

    /// Controls the source journal records as applied (consumed).
    pub fn consumed_controls(&self) -> &HashSet<String> {
        &self.consumed
    }

    /// Record the pending `retry` controls (control id, call id) this index
    /// applies: each is consumed once its call has run again.
    pub fn set_retries(&mut self, retries: Vec<(String, String)>) {
        for (control, call) in retries {
            self.retries.entry(call).or_default().push(control);
        }
    }

    /// The pending `retry` controls naming `call`.
    pub fn retries_of(&self, call: &str) -> &[String] {
        self.retries.get(call).map_or(&[], Vec::as_slice)
    }

    /// Control ids a journal records as applied, without indexing it.
    pub fn consumed_in(events: &[JournalEntry]) -> HashSet<String> {
        events
            .iter()
            .filter_map(|e| match &e.entry {
                Entry::ControlApplied { control, .. } => Some(control.clone()),
                _ => None,
            })
            .collect()
    }

    /// How many successfully completed agent/capability calls the source
    /// holds.
    pub fn len(&self) -> usize {
        self.source_calls
    }

    /// Whether the source holds no completed call.
    pub fn is_empty(&self) -> bool {
        self.source_calls == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use hwf_core::journal::sketch::entries as journal;

    #[test]
    fn only_successes_replay_and_charges_are_counted() {
        let fp = Fingerprint::of("agent", &json!({"prompt": "a"}));
        let other = Fingerprint::of("agent", &json!({"prompt": "b"}));
        let events = journal(vec![
            json!({"type": "run_started"}),
            json!({"type": "call_started", "call": "1", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "1", "kind": "agent", "fingerprint": fp.as_str(), "ok": true, "result": {"x": 1}, "tokens": 7, "attempts": 1}),
            json!({"type": "call_started", "call": "2", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_started", "call": "3", "kind": "capability", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "3", "kind": "capability", "fingerprint": fp.as_str(), "ok": false,
                   "error": {"kind": "denied", "message": "capability_denied: no"}}),
            json!({"type": "call_started", "call": "4", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "4", "kind": "agent", "fingerprint": fp.as_str(), "ok": false,
                   "error": {"kind": "failed", "message": "agent_failed: x"}, "tokens": 3, "attempts": 1}),
            json!({"type": "call_started", "call": "6", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "6", "kind": "agent", "fingerprint": fp.as_str(), "ok": true, "result": null, "attempts": 1}),
            json!({"type": "delivered", "call": "5.2"}),
            json!({"type": "delivered", "call": "5.1"}),
            json!({"type": "control_applied", "control": "c1"}),
        ]);
        let idx = ReplayIndex::from_journal(&events, &HashSet::new());
        assert_eq!(
            idx.lookup("1", &fp),
            Lookup::Hit(RecordedCall {
                result: json!({"x": 1}),
                tokens: 7,
                attempts: 1,
                cost_micro_usd: 0,
                usage: crate::agents::TokenUsage::default(),
                duration_us: 0,
                own: true,
            })
        );
        assert_eq!(idx.lookup("1", &other), Lookup::Diverged);
        assert_eq!(idx.lookup("2", &fp), Lookup::Same, "started, never completed");
        assert_eq!(idx.lookup("3", &fp), Lookup::Same, "refusals run again");
        assert_eq!(idx.lookup("4", &fp), Lookup::Same, "failures run again");
        assert_eq!(idx.lookup("6", &fp), Lookup::Same, "an agent's null runs again");
        assert_eq!(idx.lookup("9", &fp), Lookup::Diverged);
        assert_eq!(
            (idx.delivered("5", 0), idx.delivered("5", 1), idx.delivered("5", 2)),
            (Some("5.2"), Some("5.1"), None)
        );
        let c = idx.charged();
        assert_eq!((c.agent_calls, c.capability_calls, c.tokens), (3, 0, 10));
        assert!(idx.consumed_controls().contains("c1"));
        assert_eq!(idx.len(), 1);
        let retried = ReplayIndex::from_journal(&events, &["1".to_owned()].into_iter().collect());
        assert_eq!(retried.lookup("1", &fp), Lookup::Same);
    }

    #[test]
    fn a_later_execution_keeps_an_earlier_success_and_its_own_delivery_order() {
        let fp = Fingerprint::of("agent", &json!({"prompt": "a"}));
        let events = journal(vec![
            json!({"type": "run_started"}),
            json!({"type": "call_started", "call": "1", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "1", "kind": "agent", "fingerprint": fp.as_str(), "ok": true, "result": 1, "attempts": 1}),
            json!({"type": "delivered", "call": "1"}),
            json!({"type": "run_started"}),
            json!({"type": "call_started", "call": "1", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "1", "kind": "agent", "fingerprint": fp.as_str(), "ok": true, "result": 1, "replayed": true, "attempts": 0}),
            json!({"type": "delivered", "call": "1"}),
        ]);
        let idx = ReplayIndex::from_journal(&events, &HashSet::new());
        assert!(matches!(idx.lookup("1", &fp), Lookup::Hit(_)));
        assert_eq!((idx.delivered("", 0), idx.delivered("", 1)), (Some("1"), None));
        assert_eq!(
            idx.charged().agent_calls,
            1,
            "the in-place replay was not charged again"
        );
    }

    #[test]
    fn a_source_recording_keeps_its_cost_through_later_replays() {
        let fp = Fingerprint::of("agent", &json!({"prompt": "a"}));
        let source = journal(vec![
            json!({"type": "run_started"}),
            json!({"type": "call_started", "call": "1", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "1", "kind": "agent", "fingerprint": fp.as_str(), "ok": true, "result": 1, "tokens": 9, "attempts": 1}),
            // A continuation in place replayed it: no cost.
            json!({"type": "run_started"}),
            json!({"type": "call_started", "call": "1", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "1", "kind": "agent", "fingerprint": fp.as_str(), "ok": true, "result": 1, "replayed": true, "tokens": 0, "attempts": 0}),
        ]);
        let idx = ReplayIndex::from_lineage(std::slice::from_ref(&source), &[], &HashSet::new());
        match idx.lookup("1", &fp) {
            Lookup::Hit(r) => assert_eq!((r.tokens, r.attempts, r.own), (9, 1, false)),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            idx.charged().agent_calls,
            0,
            "a source's calls are not this run's charges"
        );
        let own = ReplayIndex::from_journal(&source, &HashSet::new());
        assert_eq!(own.charged().agent_calls, 1);
        assert!(matches!(own.lookup("1", &fp), Lookup::Hit(r) if r.own));
    }

    #[test]
    fn an_edit_replaces_the_result_in_its_run_and_in_runs_resumed_from_it() {
        let fp = Fingerprint::of("agent", &json!({"prompt": "a"}));
        let source = journal(vec![
            json!({"type": "run_started"}),
            json!({"type": "call_started", "call": "1", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "1", "kind": "agent", "fingerprint": fp.as_str(), "ok": true, "result": "old", "tokens": 9, "attempts": 1}),
        ]);
        let mut idx = ReplayIndex::from_lineage(std::slice::from_ref(&source), &[], &HashSet::new());
        idx.apply_edit(CallEdit {
            call: "1".into(),
            fingerprint: fp.as_str().into(),
            field: EditField::Output,
            value: json!("new"),
            changes: None,
            actor: "cli".into(),
            reason: None,
            source_run: "r0".into(),
        });
        assert!(matches!(idx.lookup("1", &fp), Lookup::Hit(r) if r.result == json!("new") && r.tokens == 0));
        assert_eq!((idx.len(), idx.new_edits().len()), (1, 1));
        // The fork's journal: the edit, then the replayed call.
        let fork = journal(vec![
            json!({"type": "run_started"}),
            json!({"type": "call_edited", "call": "1", "fingerprint": fp.as_str(), "field": "output", "value": "new", "actor": "cli", "source_run": "r0"}),
            json!({"type": "call_started", "call": "1", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "1", "kind": "agent", "fingerprint": fp.as_str(), "ok": true, "result": "new", "replayed": true}),
        ]);
        for idx in [
            ReplayIndex::from_lineage(std::slice::from_ref(&source), &fork, &HashSet::new()),
            ReplayIndex::from_lineage(&[source.clone(), fork.clone()], &[], &HashSet::new()),
        ] {
            assert!(matches!(idx.lookup("1", &fp), Lookup::Hit(r) if r.result == json!("new")));
            assert!(idx.new_edits().is_empty(), "already journaled");
        }
    }

    #[test]
    fn an_input_edit_swaps_the_request_and_a_decision_edit_makes_the_call_run_again() {
        let fp = Fingerprint::of("capability", &json!({"name": "fs.write", "input": {"path": "a"}}));
        let source = journal(vec![
            json!({"type": "run_started"}),
            json!({"type": "call_started", "call": "1", "kind": "capability", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "1", "kind": "capability", "fingerprint": fp.as_str(), "ok": true, "result": "wrote", "attempts": 1}),
        ]);
        let edit = |field, value| CallEdit {
            call: "1".into(),
            fingerprint: fp.as_str().into(),
            field,
            value,
            changes: None,
            actor: "ana".into(),
            reason: Some("why".into()),
            source_run: "r0".into(),
        };
        let mut idx = ReplayIndex::from_lineage(std::slice::from_ref(&source), &[], &HashSet::new());
        idx.apply_edit(edit(EditField::Input, json!({"path": "b"})));
        assert_eq!(idx.edited_input("1", &fp), Some(&json!({"path": "b"})));
        let other = Fingerprint::of("capability", &json!({"name": "fs.write", "input": {"path": "b"}}));
        assert_eq!(
            idx.edited_input("1", &other),
            None,
            "only the recorded request is swapped"
        );
        // A fork of that fork edits the same call again: its recorded
        // request is the first edit's, and both edits stay.
        idx.apply_edit(CallEdit {
            fingerprint: other.as_str().into(),
            ..edit(EditField::Input, json!({"path": "c"}))
        });
        assert_eq!(idx.edited_input("1", &fp), Some(&json!({"path": "b"})));
        assert_eq!(idx.edited_input("1", &other), Some(&json!({"path": "c"})));
        assert!(
            matches!(idx.lookup("1", &fp), Lookup::Hit(_)),
            "the recorded call itself is unchanged"
        );

        let mut idx = ReplayIndex::from_lineage(std::slice::from_ref(&source), &[], &HashSet::new());
        idx.apply_edit(edit(EditField::Decision, json!("deny")));
        assert_eq!(idx.lookup("1", &fp), Lookup::Same, "a decided call runs again");
        assert_eq!(idx.len(), 0);
        let d = idx.edited_decision("1", fp.as_str()).expect("decision");
        assert_eq!((d.approve, d.actor.as_str()), (false, "ana"));
        // A continuation of the fork: the edit is read back from its
        // journal; the call's own later completion answers it again.
        let fork = journal(vec![
            json!({"type": "run_started"}),
            json!({"type": "call_edited", "call": "1", "fingerprint": fp.as_str(), "field": "decision", "value": "approve", "actor": "ana", "source_run": "r0"}),
            json!({"type": "call_started", "call": "1", "kind": "capability", "fingerprint": fp.as_str()}),
        ]);
        let idx = ReplayIndex::from_lineage(std::slice::from_ref(&source), &fork, &HashSet::new());
        assert_eq!(idx.lookup("1", &fp), Lookup::Same);
        assert!(idx.edited_decision("1", fp.as_str()).is_some_and(|d| d.approve));
        assert!(idx.new_edits().is_empty(), "already journaled");
    }

    #[test]
    fn one_pass_gives_the_index_and_every_entry_in_journal_order() {
        let fp = Fingerprint::of("agent", &json!({"prompt": "a"}));
        let source = journal(vec![
            json!({"type": "run_started"}),
            json!({"type": "call_started", "call": "1", "kind": "agent", "fingerprint": fp.as_str(), "request": {"prompt": "a"}}),
            json!({"type": "call_completed", "call": "1", "kind": "agent", "fingerprint": fp.as_str(), "ok": true, "result": 1, "attempts": 1}),
        ]);
        let own = journal(vec![json!({"type": "run_started"})]);
        let mut seen = Vec::new();
        let mut collector = hwf_core::cassette::CallCollector::default();
        let idx = ReplayIndex::from_lineage_observed(std::slice::from_ref(&source), &own, &HashSet::new(), |e| {
            seen.push(e.seq);
            collector.feed(e);
        });
        assert_eq!(seen, [1, 2, 3, 1]);
        assert!(matches!(idx.lookup("1", &fp), Lookup::Hit(_)));
        let two_pass = hwf_core::cassette::Cassette::recorded_calls(&[source, own]);
        let one_pass = collector.recorded_calls();
        assert_eq!(one_pass.len(), 1);
        assert_eq!(
            (one_pass[0].call.as_str(), &one_pass[0].request, &one_pass[0].outcome),
            (two_pass[0].call.as_str(), &two_pass[0].request, &two_pass[0].outcome)
        );
    }
}
