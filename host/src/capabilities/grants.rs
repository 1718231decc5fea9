//! Scoped session grants for actuator loops (issue 19, the seed's
//! feedback-controller loop): side-effecting actions run under a grant an
//! operator gave once, consumed by matching calls, until it is spent,
//! expires, is revoked, or the run ends.
//!
//! - `grant.request` (`read_only`): `{capability, scope?: {field: prefix},
//!   count?, window_ms?, sandbox?, reason?}` parks the run (an `approval` wait) until
//!   `hwf control decide <run> <call> approve` (or `edit --value TERMS` to
//!   narrow it; `reject` denies it: `grant_denied`). Its result — the grant
//!   — is journaled: `{grant_id: "<run>:<call>", capability, scope, count,
//!   expires_at_ms?, sandbox, approved_by}`. `sandbox` (`{network: true}`,
//!   `{confine: false}`) is the documented per-grant opt-out of `bash`'s
//!   kernel confinement ([`super::confine`]): the operator sees it
//!   in the request and approves it with the rest.
//! - `grant.act` (`session_control`, so the run's policy must allow it):
//!   `{grant, capability, input}` runs one built-in capability call under
//!   the grant. The terms are read from the run's own journal through the
//!   host's store (a guest cannot forge or widen them; the same on
//!   whichever machine continues the run); each use is a `grant_used`
//!   record appended to the run's journal, durably and under the run's
//!   claim, before the granted effect runs ([`charge_grant`](crate::capabilities::Durable::charge_grant)): a
//!   re-run of the same call after a crash finds its record and is not
//!   charged twice, an executor that lost the claim cannot charge (and
//!   runs nothing), and replayed calls never reach here. Uses an older hwf
//!   kept as markers `runs/<run>/grants/<grant call>/<call>` in the state
//!   dir still count.
//!   Refusals, each a typed reason at the start of the message:
//!   `grant_invalid`, `grant_revoked`, `grant_expired`, `grant_scope`,
//!   `grant_exhausted`.
//! - `hwf control revoke <run> <grant id>` records a `grant.revoked` event;
//!   the next `grant.act` on that grant fails with `grant_revoked`. A grant
//!   names its run, so it never outlives it.

use crate::capabilities::{
    Capability, CapabilityCall, CapabilityError, CapabilityHandler, GrantCharge, Registry, SideEffect, WaitRequest,
};
use hwf_core::BoxFuture;
use hwf_core::control::Decision;
use hwf_core::ids::RunId;
use hwf_core::journal::{Entry, JournalEntry};
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

/// The requesting capability.
pub const REQUEST: &str = "grant.request";
/// The acting capability.
pub const ACT: &str = "grant.act";
/// The event source and type a revocation is recorded as.
pub const REVOKED: (&str, &str) = ("hwf", "grant.revoked");

struct Request;
struct Act {
    inner: Arc<Registry>,
}

fn fail(reason: &str, message: impl std::fmt::Display) -> CapabilityError {
    CapabilityError::Failed(format!("{reason}: {message}"))
}

fn check_terms(t: &Value) -> Result<(), CapabilityError> {
    let cap = t.get("capability").and_then(Value::as_str).unwrap_or("");
    if cap.is_empty() || cap.starts_with("grant.") || !crate::capabilities::valid_name(cap.trim_end_matches('*')) {
        return Err(CapabilityError::InvalidInput(
            "capability (a capability name, or a prefix ending in *) is required and may not be grant.*".into(),
        ));
    }
    if t.get("scope")
        .is_some_and(|s| !s.is_null() && !s.as_object().is_some_and(|m| m.values().all(Value::is_string)))
    {
        return Err(CapabilityError::InvalidInput(
            "scope must be {field: prefix} (strings)".into(),
        ));
    }
    if let Some(sb) = t.get("sandbox").filter(|s| !s.is_null()) {
        let ok = sb.as_object().is_some_and(|m| {
            m.iter()
                .all(|(k, v)| matches!(k.as_str(), "network" | "confine") && v.is_boolean())
        });
        if !ok {
            return Err(CapabilityError::InvalidInput(
                "sandbox must be {network?: bool, confine?: bool} (what the grant lifts of bash's confinement)".into(),
            ));
        }
    }
    for k in ["count", "window_ms"] {
        if t.get(k)
            .is_some_and(|v| !v.is_null() && v.as_u64().is_none_or(|n| n == 0))
        {
            return Err(CapabilityError::InvalidInput(format!(
                "{k} must be a positive whole number"
            )));
        }
    }
    Ok(())
}

impl CapabilityHandler for Request {
    fn call<'a>(&'a self, call: CapabilityCall<'a>) -> BoxFuture<'a, Result<Value, CapabilityError>> {
        Box::pin(async move {
            let input = call.input;
            check_terms(input)?;
            let Some(d) = call.durable.decision()? else {
                let summary = format!(
                    "grant {}× {}{}{}{}",
                    input.get("count").and_then(Value::as_u64).unwrap_or(1),
                    input["capability"].as_str().unwrap_or(""),
                    input
                        .get("scope")
                        .filter(|s| !s.is_null())
                        .map(|s| format!(" within {s}"))
                        .unwrap_or_default(),
                    input
                        .get("sandbox")
                        .filter(|s| !s.is_null())
                        .map(|s| format!(" lifting sandbox {s}"))
                        .unwrap_or_default(),
                    input
                        .get("reason")
                        .and_then(Value::as_str)
                        .map(|r| format!(": {}", hwf_core::redact::clip(r, 160)))
                        .unwrap_or_default()
                );
                return Err(CapabilityError::Park(WaitRequest {
                    kind: "approval".into(),
                    summary,
                    wake_at_ms: None,
                    detail: json!({"capability": REQUEST, "input": input}),
                }));
            };
            let terms = match d.decision {
                Some(Decision::Approve | Decision::Respond) => input.clone(),
                Some(Decision::Edit) => {
                    let t = d.value.clone().unwrap_or(Value::Null);
                    check_terms(&t)?;
                    t
                }
                _ => {
                    return Err(fail(
                        "grant_denied",
                        format!(
                            "the grant was declined by {}{}",
                            d.actor,
                            d.reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default()
                        ),
                    ));
                }
            };
            let (run, _) = call
                .idempotency_key
                .rsplit_once(':')
                .unwrap_or((call.idempotency_key, ""));
            Ok(json!({
                "grant_id": format!("{run}:{}", call.durable.call_id()),
                "capability": terms["capability"],
                "scope": terms.get("scope").cloned().unwrap_or(Value::Null),
                "count": terms.get("count").and_then(Value::as_u64).unwrap_or(1),
                "expires_at_ms": terms.get("window_ms").and_then(Value::as_u64).map(|w| d.ts_ms.saturating_add(w)),
                "sandbox": terms.get("sandbox").cloned().unwrap_or(Value::Null),
                "approved_by": d.actor,
                "approved_at_ms": d.ts_ms,
            }))
        })
    }
}

/// The grant `id` as its run's journal recorded it.
fn recorded_grant(journal: &[JournalEntry], call: &str) -> Option<Value> {
    let requested = journal.iter().any(|e| {
        matches!(&e.entry, Entry::CallStarted { call: c, request, .. }
            if c == call && request.get("name").and_then(Value::as_str) == Some(REQUEST))
    });
    if !requested {
        return None;
    }
    journal.iter().rev().find_map(|e| match &e.entry {
        Entry::CallCompleted {
            call: c,
            ok: true,
            result,
            ..
        } if c == call => result.clone(),
        _ => None,
    })
}

/// The refusal of a grant call that has no run journal to read or charge.
pub(crate) fn no_journal() -> CapabilityError {
    fail("grant_invalid", "grants need a run with a journal")
}

/// A call id as the use markers of an older hwf spell it (`.` → `_`), so
/// journal records and markers name a call the same way.
fn marker_key(call: &str) -> String {
    call.replace('.', "_")
}

/// A run's grants as its journal records them: each grant's terms (the
/// result of its `grant.request` call) and the calls charged a use of it
/// (`grant_used` records, and the markers an older hwf left under
/// `runs/<run>/grants/` in the state dir).
#[derive(Debug, Default)]
pub struct Ledger {
    /// Grant call → terms.
    terms: HashMap<String, Value>,
    /// Grant call (marker key) → the calls charged (marker keys).
    uses: HashMap<String, BTreeSet<String>>,
}

impl Ledger {
    /// The grants and uses `journal` records.
    pub fn from_journal(journal: &[JournalEntry]) -> Self {
        let mut ledger = Self::default();
        let mut requests = BTreeSet::new();
        for e in journal {
            match &e.entry {
                Entry::CallStarted { call, request, .. }
                    if request.get("name").and_then(Value::as_str) == Some(REQUEST) =>
                {
                    requests.insert(call.as_str());
                }
                Entry::GrantUsed { grant, call } => {
                    ledger.charge(grant, call);
                }
                _ => {}
            }
        }
        for call in requests {
            if let Some(terms) = recorded_grant(journal, call) {
                ledger.terms.insert(call.to_owned(), terms);
            }
        }
        ledger
    }

    /// Add the use markers an older hwf kept for `run` under `state_dir`.
    ///
    /// # Errors
    ///
    /// `io` when the markers exist but cannot be listed.
    pub fn with_markers(mut self, state_dir: &Path, run: &RunId) -> crate::Result<Self> {
        let dir = state_dir.join("runs").join(run.as_str()).join("grants");
        let list = |dir: &Path| -> crate::Result<Vec<String>> {
            match std::fs::read_dir(dir) {
                Ok(entries) => entries
                    .map(|e| {
                        e.map(|e| e.file_name().to_string_lossy().into_owned())
                            .map_err(|e| crate::Error::io("grant use markers", e))
                    })
                    .collect(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
                Err(e) => Err(crate::Error::io("grant use markers", e)),
            }
        };
        for grant in list(&dir)? {
            for call in list(&dir.join(&grant))? {
                self.uses.entry(grant.clone()).or_default().insert(call);
            }
        }
        Ok(self)
    }

    /// The terms of the grant made by `grant_call`.
    pub fn terms(&self, grant_call: &str) -> Option<&Value> {
        self.terms.get(grant_call)
    }

    /// How many uses of the grant are spent.
    pub fn uses(&self, grant_call: &str) -> u64 {
        self.uses.get(&marker_key(grant_call)).map_or(0, |u| u.len() as u64)
    }

    /// Whether `call` was charged a use of the grant.
    pub fn charged(&self, grant_call: &str, call: &str) -> bool {
        self.uses
            .get(&marker_key(grant_call))
            .is_some_and(|u| u.contains(&marker_key(call)))
    }

    /// Record that `call` was charged a use of the grant.
    pub fn charge(&mut self, grant_call: &str, call: &str) {
        self.uses
            .entry(marker_key(grant_call))
            .or_default()
            .insert(marker_key(call));
    }

    /// What charging `call` one use of a grant of `count` uses does, before
    /// it is recorded: `None` when it must be recorded (a new use),
    /// else the answer (charged before, or exhausted).
    pub fn precharge(&self, grant_call: &str, call: &str, count: u64) -> Option<GrantCharge> {
        let used = self.uses(grant_call);
        if self.charged(grant_call, call) {
            Some(GrantCharge::Charged { uses: used })
        } else if used >= count {
            Some(GrantCharge::Exhausted { used })
        } else {
            None
        }
    }
}

fn name_matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

impl CapabilityHandler for Act {
    fn call<'a>(&'a self, call: CapabilityCall<'a>) -> BoxFuture<'a, Result<Value, CapabilityError>> {
        Box::pin(async move {
            let input = call.input;
            let grant_id = input
                .get("grant")
                .and_then(|g| g.as_str().or_else(|| g.get("grant_id").and_then(Value::as_str)))
                .ok_or_else(|| CapabilityError::InvalidInput("grant (the grant or its grant_id) is required".into()))?;
            let name = input
                .get("capability")
                .and_then(Value::as_str)
                .ok_or_else(|| CapabilityError::InvalidInput("capability is required".into()))?;
            let inner_input = input.get("input").cloned().unwrap_or(json!({}));
            let Some(run) = call.durable.run_id() else {
                return Err(no_journal());
            };
            let Some(grant_call) = grant_id.strip_prefix(&format!("{run}:")) else {
                return Err(fail("grant_invalid", format!("{grant_id} is not a grant of run {run}")));
            };
            let Some(terms) = call.durable.grant_terms(grant_call).await? else {
                return Err(fail("grant_invalid", format!("run {run} has no grant {grant_id}")));
            };
            let revoked = call
                .durable
                .events()?
                .into_iter()
                .find(|e| e.source == REVOKED.0 && e.kind == REVOKED.1 && e.subject.as_deref() == Some(grant_id));
            if let Some(e) = revoked {
                return Err(fail(
                    "grant_revoked",
                    format!(
                        "grant {grant_id} was revoked by {}",
                        e.payload.get("actor").and_then(Value::as_str).unwrap_or("an operator")
                    ),
                ));
            }
            if terms["expires_at_ms"]
                .as_u64()
                .is_some_and(|t| call.durable.now_ms() > t)
            {
                return Err(fail("grant_expired", format!("grant {grant_id} expired")));
            }
            let pattern = terms["capability"].as_str().unwrap_or("");
            if !name_matches(pattern, name) || name.starts_with("grant.") {
                return Err(fail(
                    "grant_scope",
                    format!("grant {grant_id} covers {pattern}, not {name}"),
                ));
            }
            if let Some(scope) = terms["scope"].as_object() {
                for (field, prefix) in scope {
                    let value = inner_input
                        .pointer(&format!("/{}", field.replace('.', "/")))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let prefix = prefix.as_str().unwrap_or("");
                    if !value.starts_with(prefix) || value.split('/').any(|p| p == "..") {
                        return Err(fail(
                            "grant_scope",
                            format!("{field} {value:?} is outside the grant's scope {prefix:?}"),
                        ));
                    }
                }
            }
            let Some(cap) = self.inner.get(name) else {
                return Err(fail("grant_scope", format!("{name} is not a built-in capability")));
            };
            // One use per call, recorded durably before the effect.
            let count = terms["count"].as_u64().unwrap_or(1);
            let uses = match call.durable.charge_grant(grant_call, count).await? {
                GrantCharge::Charged { uses } => uses,
                GrantCharge::Exhausted { used } => {
                    return Err(fail(
                        "grant_exhausted",
                        format!("grant {grant_id} was used {used} of {count} times"),
                    ));
                }
            };
            let inner = CapabilityCall {
                input: &inner_input,
                label: call.label,
                approval_id: None,
                idempotency_key: call.idempotency_key,
                durable: call.durable,
                grant: Some(&terms),
            };
            let result = cap.handler.call(inner).await?;
            Ok(json!({"grant_id": grant_id, "uses": uses, "remaining": count.saturating_sub(uses), "result": result}))
        })
    }
}

/// `grant.request` and `grant.act` (acting through the built-ins in `inner`).
pub fn capabilities(inner: Arc<Registry>) -> Vec<Capability> {
    vec![
        Capability {
            name: REQUEST.into(),
            class: SideEffect::ReadOnly,
            description: "Ask the operator once for a scoped grant: {capability, scope?: {field: prefix}, count?, window_ms?, sandbox?: {network?, confine?}, reason?} → {grant_id, capability, scope, count, expires_at_ms, sandbox}".into(),
            replayable: true,
            handler: Arc::new(Request),
            input_schema: None,
        },
        Capability {
            name: ACT.into(),
            class: SideEffect::SessionControl,
            description: "Run one built-in capability call under a grant: {grant, capability, input} → {grant_id, uses, remaining, result}; refusals grant_revoked, grant_expired, grant_exhausted, grant_scope, grant_invalid".into(),
            replayable: true,
            handler: Arc::new(Act { inner }),
            input_schema: None,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_and_patterns() {
        assert!(check_terms(&json!({"capability": "bash", "count": 3})).is_ok());
        assert!(check_terms(&json!({"capability": "fs.*", "scope": {"path": "out/"}})).is_ok());
        assert!(check_terms(&json!({"capability": "grant.act"})).is_err());
        assert!(check_terms(&json!({"capability": "bash", "count": 0})).is_err());
        assert!(check_terms(&json!({"capability": "bash", "scope": {"path": 1}})).is_err());
        assert!(name_matches("fs.*", "fs.write") && !name_matches("fs.*", "bash") && name_matches("bash", "bash"));
        let j = hwf_core::journal::sketch::entries(vec![
            json!({"type": "call_started", "call": "2", "request": {"name": REQUEST}}),
            json!({"type": "call_completed", "call": "2", "ok": true, "result": {"grant_id": "r:2", "count": 2}}),
            json!({"type": "call_started", "call": "3", "request": {"name": "bash"}}),
            json!({"type": "call_completed", "call": "3", "ok": true, "result": {"grant_id": "r:3"}}),
        ]);
        assert_eq!(recorded_grant(&j, "2").expect("grant")["count"], 2);
        assert!(
            recorded_grant(&j, "3").is_none(),
            "only grant.request calls make grants"
        );
    }

    #[test]
    fn the_ledger_counts_journal_records_and_old_markers_once_per_call() {
        let j = hwf_core::journal::sketch::entries(vec![
            json!({"type": "call_started", "call": "2", "request": {"name": REQUEST}}),
            json!({"type": "call_completed", "call": "2", "ok": true, "result": {"grant_id": "r:2", "count": 3}}),
            json!({"type": "grant_used", "grant": "2", "call": "4.1"}),
            // A re-run of the same call after a crash recorded nothing new;
            // a journal holding the record twice still counts it once.
            json!({"type": "grant_used", "grant": "2", "call": "4.1"}),
        ]);
        let ledger = Ledger::from_journal(&j);
        assert_eq!(ledger.terms("2").expect("terms")["count"], 3);
        assert!(ledger.terms("3").is_none());
        assert_eq!(ledger.uses("2"), 1);
        assert_eq!(
            ledger.precharge("2", "4.1", 3),
            Some(GrantCharge::Charged { uses: 1 }),
            "charged before: not again"
        );
        assert_eq!(ledger.precharge("2", "5", 3), None, "a new use is recorded");
        assert_eq!(ledger.precharge("2", "5", 1), Some(GrantCharge::Exhausted { used: 1 }));
        // An older hwf's markers (`.` spelt `_`) count too, and the same
        // call is not counted twice.
        let dir = tempfile::tempdir().expect("tempdir");
        let run = RunId::parse("r1").expect("run id");
        let markers = dir.path().join("runs/r1/grants/2");
        std::fs::create_dir_all(&markers).expect("mkdir");
        for m in ["4_1", "6"] {
            std::fs::write(markers.join(m), "").expect("marker");
        }
        let mut ledger = Ledger::from_journal(&j)
            .with_markers(dir.path(), &run)
            .expect("markers");
        assert_eq!(ledger.uses("2"), 2);
        assert!(ledger.charged("2", "6") && ledger.charged("2", "4.1"));
        ledger.charge("2", "7");
        assert_eq!(ledger.precharge("2", "8", 3), Some(GrantCharge::Exhausted { used: 3 }));
        // No markers at all is no uses, not an error.
        let none = Ledger::default()
            .with_markers(&dir.path().join("elsewhere"), &run)
            .expect("no markers");
        assert_eq!(none.uses("2"), 0);
    }
}
