//! Cassettes: a recorded run's agent and capability calls, portable.
//!
//! A [`Cassette`] holds what a run's journal (and its resume lineage's)
//! says about each leaf call — id, kind, label, fingerprint, the redacted
//! request, the outcome, what it cost — plus what a replay needs to see
//! the same world (the random seed's run, the virtual clock's origin, the
//! last execution's delivery orders) and the run's result. `hwf test`
//! answers a script's calls from one without any backend; `hwf cassette
//! export` writes one to a file to commit next to the workflow.
//!
//! The file is content-addressed: requests and results are kept once each
//! in `payloads` under the `b3:` digest of their canonical JSON (the
//! fingerprint's canonical form), calls name them by digest, and `id` is
//! the digest of the whole cassette with `id` empty. [`Cassette::parse`]
//! checks every digest, so a damaged or hand-edited file is refused
//! (`invalid_cassette`) instead of answering calls with something that was
//! never recorded.
//!
//! [`diff`] gives a field-level difference of two requests (JSON pointer,
//! what was recorded, what is asked now), which is what a drift names.

use crate::call::CallFailure;
use crate::error::{Error, ErrorCode, Result};
use crate::journal::{Entry, JournalEntry};
use crate::model::{ScriptRef, TokenUsage};
use crate::redact::redacted;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The cassette format this build writes and reads.
pub const CASSETTE_FORMAT: u32 = 1;

/// The `kind` every cassette file carries (so another JSON file is told
/// apart at once).
pub const CASSETTE_KIND: &str = "hwf-cassette";

/// At most this many field differences are listed per drifted call.
pub const MAX_DIFFS: usize = 16;

/// A string shown in a difference is clipped to about this many bytes.
const SHOWN_BYTES: usize = 160;

/// A recorded run's calls (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cassette {
    /// Always [`CASSETTE_KIND`].
    pub kind: String,
    /// [`CASSETTE_FORMAT`].
    pub format: u32,
    /// `b3:` of the canonical JSON of the cassette with `id` empty.
    #[serde(default)]
    pub id: String,
    /// The run it was recorded from.
    pub source: CassetteSource,
    /// Every agent and capability call, in the order first made.
    pub calls: Vec<CassetteCall>,
    /// The last execution's `next` delivery order, per instance scope
    /// (`""` for the root).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub delivered: BTreeMap<String, Vec<String>>,
    /// Requests and results by the `b3:` digest of their canonical JSON.
    #[serde(default)]
    pub payloads: BTreeMap<String, Value>,
}

/// Where a cassette came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CassetteSource {
    /// The recorded run.
    pub run_id: String,
    /// Its workflow's `meta.name`, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow: Option<String>,
    /// The component or script it ran.
    pub script: ScriptRef,
    /// Its args (redacted).
    #[serde(default)]
    pub args: Value,
    /// Whether the args were redacted (then a test must be given them).
    #[serde(default)]
    pub args_redacted: bool,
    /// The run the guest's random seed derives from.
    pub seed_run: String,
    /// Where the guest's virtual clock starts (ms since the epoch).
    pub clock_origin_ms: u64,
    /// The run's state when recorded (`succeeded`, `waiting`, …).
    pub state: String,
    /// Its result, when it succeeded (redacted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

/// One recorded agent or capability call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CassetteCall {
    /// Call id (`3`, `2.1`).
    pub call: String,
    /// `agent` or `capability`.
    pub kind: String,
    /// Its label, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `b3:` fingerprint of `{kind, request}` (of the request as made,
    /// before redaction).
    pub fingerprint: String,
    /// Digest of the redacted request in `payloads`.
    pub request: String,
    /// Whether it completed with a result.
    pub ok: bool,
    /// Digest of its result in `payloads` (when `ok`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Its typed failure (a failed call); neither result nor error: it
    /// never completed (in flight at a crash, or parked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<CallFailure>,
    /// Tokens it spent when it ran.
    #[serde(default)]
    pub tokens: u64,
    /// Its tokens by kind.
    #[serde(default, skip_serializing_if = "TokenUsage::is_empty")]
    pub usage: TokenUsage,
    /// What it cost, in millionths of a USD.
    #[serde(default)]
    pub cost_micro_usd: u64,
    /// How long it took, in µs.
    #[serde(default)]
    pub duration_us: u64,
}

/// A recorded call with its payloads read back (see [`Cassette::resolved`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedCall {
    /// Call id.
    pub call: String,
    /// `agent` or `capability`.
    pub kind: String,
    /// Label.
    pub label: Option<String>,
    /// Fingerprint.
    pub fingerprint: String,
    /// The redacted request.
    pub request: Value,
    /// `Some(Ok)`: a result; `Some(Err)`: a failure; `None`: never completed.
    pub outcome: Option<std::result::Result<Value, CallFailure>>,
    /// Tokens it spent.
    pub tokens: u64,
    /// What it cost, in millionths of a USD.
    pub cost_micro_usd: u64,
}

/// `b3:` of the canonical JSON of `value` (sorted keys, no whitespace).
pub fn digest(value: &Value) -> String {
    let mut bytes = Vec::new();
    crate::fingerprint::write_canonical(&mut bytes, value);
    format!("b3:{}", blake3::hash(&bytes).to_hex())
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidCassette, message)
}

/// What a journal says about one leaf call while a cassette is built.
#[derive(Debug, Clone)]
struct Building {
    kind: String,
    label: Option<String>,
    fingerprint: String,
    request: Value,
    ok: bool,
    result: Option<Value>,
    error: Option<CallFailure>,
    tokens: u64,
    usage: TokenUsage,
    cost_micro_usd: u64,
    duration_us: u64,
    /// Its cost came from a call that really ran (not a replay of it).
    ran: bool,
}

impl Cassette {
    /// Build a cassette from `journals` (oldest first: a resume lineage
    /// ending with the recorded run's own journal), whose payloads were
    /// read back in place. Per call id, the last request made under it
    /// counts; a success is kept over a later failure of the same request
    /// (as replay does), a later success (an edit, a fork) replaces the
    /// result, and what it cost is the cost of the execution that ran it.
    pub fn from_journals(source: CassetteSource, journals: &[Vec<JournalEntry>]) -> Self {
        let (calls, delivered) = collect(journals);
        let mut payloads = BTreeMap::new();
        let mut keep = |v: &Value| {
            let v = redacted(v).into_owned();
            let d = digest(&v);
            payloads.entry(d.clone()).or_insert(v);
            d
        };
        let calls: Vec<CassetteCall> = calls
            .into_iter()
            .map(|(call, b)| CassetteCall {
                request: keep(&b.request),
                result: b.result.as_ref().filter(|_| b.ok).map(&mut keep),
                call,
                kind: b.kind,
                label: b.label,
                fingerprint: b.fingerprint,
                ok: b.ok,
                error: b.error,
                tokens: b.tokens,
                usage: b.usage,
                cost_micro_usd: b.cost_micro_usd,
                duration_us: b.duration_us,
            })
            .collect();
        let mut source = source;
        source.args = redacted(&source.args).into_owned();
        source.result = source.result.as_ref().map(|r| redacted(r).into_owned());
        let mut c = Cassette {
            kind: CASSETTE_KIND.into(),
            format: CASSETTE_FORMAT,
            id: String::new(),
            source,
            calls,
            delivered,
            payloads,
        };
        c.id = c.computed_id();
        c
    }

    /// The calls [`Cassette::from_journals`] would keep, read back as
    /// [`Cassette::resolved`] gives them, without building a file (no
    /// digests): what a plan compares with. The journals' requests and
    /// results are redacted already.
    pub fn recorded_calls(journals: &[Vec<JournalEntry>]) -> Vec<ResolvedCall> {
        resolved_of(collect(journals).0)
    }

    /// The digest `id` must have: of the cassette with `id` empty.
    fn computed_id(&self) -> String {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Some(o) = v.as_object_mut() {
            o.insert("id".into(), Value::String(String::new()));
        }
        digest(&v)
    }

    /// Read a cassette file's text, checking its kind, format and every
    /// digest.
    ///
    /// # Errors
    ///
    /// `invalid_cassette`: not JSON, not a cassette, another format, a
    /// payload whose digest does not match, a call naming a payload that
    /// is not there, an `id` that does not match the contents.
    pub fn parse(text: &str) -> Result<Self> {
        let v: Value = serde_json::from_str(text).map_err(|e| invalid(format!("the cassette is not JSON: {e}")))?;
        if v.get("kind").and_then(Value::as_str) != Some(CASSETTE_KIND) {
            return Err(invalid(format!(
                "not a cassette (no \"kind\": \"{CASSETTE_KIND}\"); make one with `hwf cassette export RUN`"
            )));
        }
        let c: Cassette = serde_json::from_value(v).map_err(|e| invalid(format!("the cassette is malformed: {e}")))?;
        if c.format != CASSETTE_FORMAT {
            return Err(invalid(format!(
                "cassette format {} is not supported by this hwf (it reads format {CASSETTE_FORMAT})",
                c.format
            )));
        }
        for (d, value) in &c.payloads {
            if digest(value) != *d {
                return Err(invalid(format!(
                    "payload {d} does not match its digest: the cassette was damaged or edited"
                )));
            }
        }
        for call in &c.calls {
            for d in std::iter::once(&call.request).chain(call.result.as_ref()) {
                if !c.payloads.contains_key(d) {
                    return Err(invalid(format!(
                        "call {} names payload {d}, which is not in the cassette",
                        call.call
                    )));
                }
            }
        }
        if c.computed_id() != c.id {
            return Err(invalid(
                "the cassette's id does not match its contents: it was damaged or edited (export it again)",
            ));
        }
        Ok(c)
    }

    /// The cassette as pretty JSON text (what `hwf cassette export` writes).
    pub fn to_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Every call with its request and outcome read from `payloads`.
    pub fn resolved(&self) -> Vec<ResolvedCall> {
        self.calls
            .iter()
            .map(|c| {
                let outcome = if c.ok {
                    Some(Ok(c
                        .result
                        .as_ref()
                        .and_then(|d| self.payloads.get(d))
                        .cloned()
                        .unwrap_or(Value::Null)))
                } else {
                    c.error.clone().map(Err)
                };
                ResolvedCall {
                    call: c.call.clone(),
                    kind: c.kind.clone(),
                    label: c.label.clone(),
                    fingerprint: c.fingerprint.clone(),
                    request: self.payloads.get(&c.request).cloned().unwrap_or(Value::Null),
                    outcome,
                    tokens: c.tokens,
                    cost_micro_usd: c.cost_micro_usd,
                }
            })
            .collect()
    }

    /// The cassette as a journal a replay index reads: one execution that
    /// started and completed every call (a call that never completed has
    /// no completion), then its delivery orders.
    pub fn to_entries(&self) -> Vec<JournalEntry> {
        let mut out = Vec::with_capacity(self.calls.len() * 2 + 1);
        let mut push = |entry: Entry| {
            let seq = out.len() as u64 + 1;
            out.push(JournalEntry { seq, ts_ms: 0, entry });
        };
        push(Entry::RunStarted {
            format: crate::journal::JOURNAL_FORMAT,
            run_id: self.source.run_id.clone(),
            script: self.source.script.clone(),
            args: Value::Null,
            seed_run: Some(self.source.seed_run.clone()),
            clock_origin_ms: Some(self.source.clock_origin_ms),
            shared: false,
        });
        for (c, r) in self.calls.iter().zip(self.resolved()) {
            push(Entry::CallStarted {
                call: c.call.clone(),
                kind: c.kind.clone(),
                label: c.label.clone(),
                phase: None,
                fingerprint: c.fingerprint.clone(),
                request: r.request,
                request_ref: None,
            });
            let Some(outcome) = r.outcome else { continue };
            let (ok, result, error) = match outcome {
                Ok(v) => (true, Some(v), None),
                Err(f) => (false, None, Some(f)),
            };
            push(Entry::CallCompleted {
                call: c.call.clone(),
                kind: c.kind.clone(),
                label: c.label.clone(),
                fingerprint: c.fingerprint.clone(),
                ok,
                result,
                result_ref: None,
                error,
                tokens: c.tokens,
                usage: c.usage,
                cost_micro_usd: c.cost_micro_usd,
                attempts: u32::from(ok),
                duration_us: c.duration_us,
                replayed: false,
                cache_hit: false,
            });
        }
        for calls in self.delivered.values() {
            for call in calls {
                push(Entry::Delivered { call: call.clone() });
            }
        }
        out
    }
}

/// Delivery orders per instance scope.
type Delivered = BTreeMap<String, Vec<String>>;

/// What journals say about each leaf call, fed one entry at a time (so a
/// caller reading the journals for another index too — a plan's replay
/// index — goes over them once): per leaf call, in the order first made,
/// its request and outcome; and the last execution's delivery orders.
#[derive(Debug, Default)]
pub struct CallCollector {
    order: Vec<String>,
    calls: std::collections::HashMap<String, Building>,
    delivered: Delivered,
}

impl CallCollector {
    /// Take one journal entry (in journal order, oldest journal first).
    pub fn feed(&mut self, e: &JournalEntry) {
        match &e.entry {
            Entry::RunStarted { .. } => self.delivered.clear(),
            Entry::Delivered { call } => {
                let scope = call.rsplit_once('.').map_or("", |(p, _)| p).to_owned();
                self.delivered.entry(scope).or_default().push(call.clone());
            }
            Entry::CallStarted {
                call,
                kind,
                label,
                fingerprint,
                request,
                ..
            } if is_leaf(kind) => {
                let fresh = || Building {
                    kind: kind.clone(),
                    label: label.clone(),
                    fingerprint: fingerprint.clone(),
                    request: request.clone(),
                    ok: false,
                    result: None,
                    error: None,
                    tokens: 0,
                    usage: TokenUsage::default(),
                    cost_micro_usd: 0,
                    duration_us: 0,
                    ran: false,
                };
                match self.calls.get_mut(call) {
                    Some(b) if b.fingerprint == *fingerprint => {
                        b.label = label.clone().or(b.label.take());
                    }
                    Some(b) => *b = fresh(),
                    None => {
                        self.order.push(call.clone());
                        self.calls.insert(call.clone(), fresh());
                    }
                }
            }
            Entry::CallCompleted {
                call,
                kind,
                fingerprint,
                ok,
                result,
                error,
                tokens,
                usage,
                cost_micro_usd,
                duration_us,
                replayed,
                ..
            } if is_leaf(kind) => {
                let Some(b) = self.calls.get_mut(call) else { return };
                if b.fingerprint != *fingerprint {
                    return;
                }
                let success = *ok && result.as_ref().is_some_and(|r| !(r.is_null() && kind == "agent"));
                if success {
                    b.ok = true;
                    b.result = result.clone();
                    b.error = None;
                    if !*replayed || !b.ran {
                        b.tokens = *tokens;
                        b.usage = *usage;
                        b.cost_micro_usd = *cost_micro_usd;
                        b.duration_us = *duration_us;
                        b.ran |= !*replayed;
                    }
                } else if !b.ok {
                    b.error = error.clone();
                    b.tokens = *tokens;
                    b.cost_micro_usd = *cost_micro_usd;
                    b.duration_us = *duration_us;
                }
            }
            // An edited result answers the call; an edited input or
            // decision makes it run again (its own lines follow).
            Entry::CallEdited {
                call,
                fingerprint,
                field,
                value,
                ..
            } if field == "output" => {
                if let Some(b) = self.calls.get_mut(call)
                    && b.fingerprint == *fingerprint
                {
                    b.ok = true;
                    b.result = Some(value.clone());
                    b.error = None;
                }
            }
            _ => {}
        }
    }

    fn finish(mut self) -> (Vec<(String, Building)>, Delivered) {
        let calls = self
            .order
            .into_iter()
            .filter_map(|id| self.calls.remove(&id).map(|b| (id, b)))
            .collect();
        (calls, self.delivered)
    }

    /// The calls [`Cassette::recorded_calls`] gives, from what was fed.
    pub fn recorded_calls(self) -> Vec<ResolvedCall> {
        resolved_of(self.finish().0)
    }
}

/// The calls as [`Cassette::recorded_calls`] gives them.
fn resolved_of(calls: Vec<(String, Building)>) -> Vec<ResolvedCall> {
    calls
        .into_iter()
        .map(|(call, b)| ResolvedCall {
            call,
            kind: b.kind,
            label: b.label,
            fingerprint: b.fingerprint,
            request: b.request,
            outcome: if b.ok {
                Some(Ok(b.result.unwrap_or(Value::Null)))
            } else {
                b.error.map(Err)
            },
            tokens: b.tokens,
            cost_micro_usd: b.cost_micro_usd,
        })
        .collect()
}

/// Per leaf call (in the order first made), what the journals say about
/// it; and the last execution's delivery orders.
fn collect(journals: &[Vec<JournalEntry>]) -> (Vec<(String, Building)>, Delivered) {
    let mut c = CallCollector::default();
    for e in journals.iter().flatten() {
        c.feed(e);
    }
    c.finish()
}

fn is_leaf(kind: &str) -> bool {
    matches!(kind, "agent" | "capability")
}

/// One field that differs between a recorded request and the one made now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldDiff {
    /// RFC 6901 pointer of the field (`""`: the whole request).
    pub path: String,
    /// What was recorded (absent: the field is new). Long strings are
    /// clipped around the first difference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<Value>,
    /// What is asked now (absent: the field is gone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<Value>,
}

/// The fields that differ between `recorded` and `now` (both redacted by
/// the caller), as JSON pointers, at most [`MAX_DIFFS`].
pub fn diff(recorded: &Value, now: &Value) -> Vec<FieldDiff> {
    let mut out = Vec::new();
    diff_into(&mut out, String::new(), Some(recorded), Some(now));
    out
}

fn diff_into(out: &mut Vec<FieldDiff>, path: String, a: Option<&Value>, b: Option<&Value>) {
    if out.len() >= MAX_DIFFS || a == b {
        return;
    }
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                diff_into(out, format!("{path}/{}", escape(k)), x.get(k), y.get(k));
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            for i in 0..x.len().max(y.len()) {
                diff_into(out, format!("{path}/{i}"), x.get(i), y.get(i));
            }
        }
        (Some(Value::String(x)), Some(Value::String(y))) => {
            let (rx, ry) = clip_around_difference(x, y);
            out.push(FieldDiff {
                path,
                recorded: Some(Value::String(rx)),
                now: Some(Value::String(ry)),
            });
        }
        _ => out.push(FieldDiff {
            path,
            recorded: a.map(shown),
            now: b.map(shown),
        }),
    }
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A value as shown in a difference: a long string clipped.
fn shown(v: &Value) -> Value {
    match v {
        Value::String(s) if s.len() > SHOWN_BYTES => Value::String(clip_from(s, 0)),
        Value::Array(_) | Value::Object(_) => {
            let text = v.to_string();
            if text.len() > SHOWN_BYTES {
                Value::String(clip_from(&text, 0))
            } else {
                v.clone()
            }
        }
        _ => v.clone(),
    }
}

/// `s` from about `start` (a char boundary at or before it), clipped to
/// [`SHOWN_BYTES`], with `…` where something was left out.
fn clip_from(s: &str, start: usize) -> String {
    let mut from = start.min(s.len());
    while !s.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (from + SHOWN_BYTES).min(s.len());
    while !s.is_char_boundary(to) {
        to -= 1;
    }
    format!(
        "{}{}{}",
        if from > 0 { "…" } else { "" },
        &s[from..to],
        if to < s.len() { "…" } else { "" }
    )
}

/// Both strings clipped to show where they start to differ.
fn clip_around_difference(a: &str, b: &str) -> (String, String) {
    if a.len() <= SHOWN_BYTES && b.len() <= SHOWN_BYTES {
        return (a.to_owned(), b.to_owned());
    }
    let first = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let start = first.saturating_sub(SHOWN_BYTES / 4);
    (clip_from(a, start), clip_from(b, start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::sketch::entries;
    use serde_json::json;

    fn source() -> CassetteSource {
        CassetteSource {
            run_id: "r1".into(),
            workflow: Some("w".into()),
            script: ScriptRef {
                digest: "b3:00".into(),
                language: "js".into(),
                ..ScriptRef::default()
            },
            args: json!({"token": "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}),
            args_redacted: true,
            seed_run: "r0".into(),
            clock_origin_ms: 5,
            state: "succeeded".into(),
            result: Some(json!("done")),
        }
    }

    fn journal() -> Vec<JournalEntry> {
        entries(vec![
            json!({"type": "run_started"}),
            json!({"type": "call_started", "call": "1", "kind": "agent", "label": "a", "fingerprint": "b3:f1", "request": {"prompt": "hi"}}),
            json!({"type": "call_completed", "call": "1", "kind": "agent", "fingerprint": "b3:f1", "ok": true, "result": "x", "tokens": 4, "cost_micro_usd": 9}),
            json!({"type": "call_started", "call": "2", "kind": "agent", "fingerprint": "b3:f2", "request": {"prompt": "ho"}}),
            json!({"type": "call_completed", "call": "2", "kind": "agent", "fingerprint": "b3:f2", "ok": false, "error": {"kind": "failed", "message": "agent_failed: no"}}),
            json!({"type": "call_started", "call": "3", "kind": "capability", "fingerprint": "b3:f3", "request": {"name": "human.ask"}}),
            json!({"type": "call_started", "call": "4", "kind": "parallel", "fingerprint": "b3:f4", "request": {}}),
            json!({"type": "delivered", "call": "1"}),
            // A later execution replays call 1 (no cost) and answers 3.
            json!({"type": "run_started"}),
            json!({"type": "call_started", "call": "1", "kind": "agent", "label": "a", "fingerprint": "b3:f1", "request": {"prompt": "hi"}}),
            json!({"type": "call_completed", "call": "1", "kind": "agent", "fingerprint": "b3:f1", "ok": true, "result": "x", "replayed": true}),
            json!({"type": "call_started", "call": "3", "kind": "capability", "fingerprint": "b3:f3", "request": {"name": "human.ask"}}),
            json!({"type": "call_completed", "call": "3", "kind": "capability", "fingerprint": "b3:f3", "ok": true, "result": {"answer": "yes"}}),
            json!({"type": "delivered", "call": "3"}),
        ])
    }

    #[test]
    fn a_cassette_keeps_leaf_calls_with_their_first_cost_and_reads_back_checked() {
        let c = Cassette::from_journals(source(), &[journal()]);
        let ids: Vec<&str> = c.calls.iter().map(|c| c.call.as_str()).collect();
        assert_eq!(ids, ["1", "2", "3"], "composites are left out");
        assert_eq!(
            (c.calls[0].tokens, c.calls[0].cost_micro_usd),
            (4, 9),
            "the cost of the run that ran it"
        );
        assert!(!c.calls[1].ok && c.calls[1].error.is_some());
        assert!(c.calls[2].ok);
        assert_eq!(
            c.delivered.get(""),
            Some(&vec!["3".to_owned()]),
            "the last execution's order"
        );
        assert!(!c.source.args.to_string().contains("ghp_"), "args redacted");
        let text = c.to_pretty();
        let back = Cassette::parse(&text).expect("reads back");
        assert_eq!(back, c);
        let r = back.resolved();
        assert_eq!(r[2].outcome, Some(Ok(json!({"answer": "yes"}))));
        assert_eq!(r[0].request, json!({"prompt": "hi"}));
        // A journal a replay index reads: starts, completions, deliveries.
        let e = back.to_entries();
        assert_eq!(
            e.iter()
                .filter(|e| matches!(e.entry, Entry::CallCompleted { .. }))
                .count(),
            3
        );
    }

    #[test]
    fn damaged_edited_or_foreign_files_are_invalid_cassette() {
        let c = Cassette::from_journals(source(), &[journal()]);
        let text = c.to_pretty();
        let edited = text.replacen("\"yes\"", "\"no\"", 1);
        let forged_id = {
            let mut v: Value = serde_json::from_str(&text).expect("json");
            v["source"]["state"] = json!("failed");
            v.to_string()
        };
        for bad in [
            "{not json".to_owned(),
            "{\"kind\": \"something-else\"}".to_owned(),
            text.replacen("\"format\": 1", "\"format\": 9", 1),
            edited,
            forged_id,
        ] {
            let e = Cassette::parse(&bad).expect_err("refused");
            assert_eq!(e.code(), ErrorCode::InvalidCassette, "{e}");
        }
    }

    #[test]
    fn diffs_name_fields_by_pointer_and_clip_long_strings() {
        let long_a = format!("{}A tail", "x".repeat(400));
        let long_b = format!("{}B tail", "x".repeat(400));
        let d = diff(
            &json!({"prompt": long_a, "label": "l", "opts": {"a/b": 1}, "list": [1, 2]}),
            &json!({"prompt": long_b, "label": "l", "opts": {"a/b": 2}, "list": [1], "new": true}),
        );
        let paths: Vec<&str> = d.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["/list/1", "/new", "/opts/a~1b", "/prompt"]);
        assert_eq!(d[0].now, None);
        assert_eq!(d[1].recorded, None);
        let shown = d[3].recorded.as_ref().and_then(Value::as_str).expect("string");
        assert!(
            shown.starts_with('…') && shown.contains("A tail") && shown.len() < 200,
            "{shown}"
        );
        assert!(diff(&json!({"a": 1}), &json!({"a": 1})).is_empty());
    }
}
