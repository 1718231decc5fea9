//! Replay: answer calls from a journal instead of running them.
//!
//! A resumed run re-runs the harness from the start. Each call is looked up
//! by call id: when the recorded call has the same fingerprint, an agent or
//! capability call gets its recorded outcome (results and denials alike)
//! without running anything, and a composite call (`parallel`, `pipeline`,
//! a branch, a nested workflow) runs again with its children still
//! replaying. The first call of an instance that is missing or differs
//! makes that call and everything after it in that instance live — the
//! longest unchanged prefix. Cancelled calls and calls named by a `retry`
//! control are never replayed; a call that was started but never completed
//! (a crash, a park) runs again, with the same idempotency key.
//!
//! `next` replays its journaled delivery order per instance, so a harness
//! that reacts to whichever task finishes first decides the same way.

use super::{CallErrorKind, CallFailure, Fingerprint};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// What the source journal says about one call.
#[derive(Debug, Clone)]
struct Recorded {
    fingerprint: String,
    outcome: Option<Result<Value, CallFailure>>,
}

/// The answer of [`ReplayIndex::lookup`].
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// Same call, completed: answer with this outcome.
    Hit(Result<Value, CallFailure>),
    /// Same call (same fingerprint), but it never completed or is a
    /// composite: run it, its children may still replay.
    Same,
    /// Different or unknown call: run it live, and everything after it.
    Diverged,
}

/// Recorded calls and delivery orders of a source journal.
#[derive(Debug, Default)]
pub struct ReplayIndex {
    calls: HashMap<String, Recorded>,
    first_started: HashMap<String, u64>,
    parked: std::collections::HashSet<String>,
    delivered: HashMap<String, Vec<String>>,
    source_calls: usize,
}

impl ReplayIndex {
    /// Build an index from a journal's events. Calls in `retry` are left
    /// out so they run live.
    pub fn from_journal(events: &[Value], retry: &HashSet<String>) -> Self {
        let mut idx = Self::default();
        for e in events {
            let call = e.get("call").and_then(Value::as_str).unwrap_or("");
            match e.get("type").and_then(Value::as_str) {
                Some("call_started") => {
                    if let Some(ts) = e.get("ts_ms").and_then(Value::as_u64) {
                        idx.first_started.entry(call.to_owned()).or_insert(ts);
                    }
                    let fp = e.get("fingerprint").and_then(Value::as_str).unwrap_or("").to_owned();
                    idx.calls.insert(
                        call.to_owned(),
                        Recorded {
                            fingerprint: fp,
                            outcome: None,
                        },
                    );
                }
                Some("call_completed") => {
                    let kind = e.get("kind").and_then(Value::as_str).unwrap_or("");
                    if !matches!(kind, "agent" | "capability") || retry.contains(call) {
                        continue;
                    }
                    let outcome = if e.get("ok").and_then(Value::as_bool) == Some(true) {
                        Ok(e.get("result").cloned().unwrap_or(Value::Null))
                    } else {
                        match e
                            .get("error")
                            .and_then(|v| serde_json::from_value::<CallFailure>(v.clone()).ok())
                        {
                            Some(f) if f.kind != CallErrorKind::Cancelled => Err(f),
                            _ => continue,
                        }
                    };
                    if let Some(r) = idx.calls.get_mut(call) {
                        let fp = e.get("fingerprint").and_then(Value::as_str).unwrap_or("");
                        if r.fingerprint == fp {
                            r.outcome = Some(outcome);
                            idx.source_calls += 1;
                        }
                    }
                }
                Some("wait_started") => {
                    idx.parked.insert(call.to_owned());
                }
                Some("delivered") => {
                    let scope = call.rsplit_once('.').map_or("", |(p, _)| p).to_owned();
                    idx.delivered.entry(scope).or_default().push(call.to_owned());
                }
                _ => {}
            }
        }
        idx
    }

    /// Look a call up.
    pub fn lookup(&self, call: &str, fingerprint: &Fingerprint) -> Lookup {
        match self.calls.get(call) {
            Some(r) if r.fingerprint == fingerprint.as_str() => match &r.outcome {
                Some(o) => Lookup::Hit(o.clone()),
                None => Lookup::Same,
            },
            _ => Lookup::Diverged,
        }
    }

    /// The call id delivered `n`-th (0-based) by `next` in the instance
    /// whose calls are `<scope>.k` (`""` for the root).
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

    /// How many completed agent/capability calls the source holds.
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

    #[test]
    fn hits_sames_and_divergences() {
        let fp = Fingerprint::of("agent", &json!({"prompt": "a"}));
        let other = Fingerprint::of("agent", &json!({"prompt": "b"}));
        let events = vec![
            json!({"type": "call_started", "call": "1", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "1", "kind": "agent", "fingerprint": fp.as_str(), "ok": true, "result": {"x": 1}}),
            json!({"type": "call_started", "call": "2", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_started", "call": "3", "kind": "capability", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "3", "kind": "capability", "fingerprint": fp.as_str(), "ok": false,
                   "error": {"kind": "denied", "message": "capability_denied: no"}}),
            json!({"type": "call_started", "call": "4", "kind": "agent", "fingerprint": fp.as_str()}),
            json!({"type": "call_completed", "call": "4", "kind": "agent", "fingerprint": fp.as_str(), "ok": false,
                   "error": {"kind": "cancelled", "message": "cancelled: x"}}),
            json!({"type": "delivered", "call": "5.2"}),
            json!({"type": "delivered", "call": "5.1"}),
        ];
        let idx = ReplayIndex::from_journal(&events, &HashSet::new());
        assert_eq!(idx.lookup("1", &fp), Lookup::Hit(Ok(json!({"x": 1}))));
        assert_eq!(idx.lookup("1", &other), Lookup::Diverged);
        assert_eq!(idx.lookup("2", &fp), Lookup::Same, "started, never completed");
        assert!(matches!(idx.lookup("3", &fp), Lookup::Hit(Err(f)) if f.kind == CallErrorKind::Denied));
        assert_eq!(idx.lookup("4", &fp), Lookup::Same, "cancelled calls run again");
        assert_eq!(idx.lookup("9", &fp), Lookup::Diverged);
        assert_eq!(
            (idx.delivered("5", 0), idx.delivered("5", 1), idx.delivered("5", 2)),
            (Some("5.2"), Some("5.1"), None)
        );
        let retried = ReplayIndex::from_journal(&events, &["1".to_owned()].into_iter().collect());
        assert_eq!(retried.lookup("1", &fp), Lookup::Same);
    }
}
