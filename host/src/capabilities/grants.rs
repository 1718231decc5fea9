//! Scoped session grants for actuator loops (issue 19, the seed's
//! feedback-controller loop): side-effecting actions run under a grant an
//! operator gave once, consumed by matching calls, until it is spent,
//! expires, is revoked, or the run ends.
//!
//! - `grant.request` (`read_only`): `{capability, scope?: {field: prefix},
//!   count?, window_ms?, reason?}` parks the run (an `approval` wait) until
//!   `hwf control decide <run> <call> approve` (or `edit --value TERMS` to
//!   narrow it; `reject` denies it: `grant_denied`). Its result — the grant
//!   — is journaled: `{grant_id: "<run>:<call>", capability, scope, count,
//!   expires_at_ms?, approved_by}`.
//! - `grant.act` (`session_control`, so the run's policy must allow it):
//!   `{grant, capability, input}` runs one built-in capability call under
//!   the grant. The terms are read from the run's own journal (a guest
//!   cannot forge or widen them); each use is a marker
//!   `runs/<run>/grants/<grant call>/<call>` (a re-run of the same call
//!   after a crash is not charged twice; replayed calls never reach here).
//!   Refusals, each a typed reason at the start of the message:
//!   `grant_invalid`, `grant_revoked`, `grant_expired`, `grant_scope`,
//!   `grant_exhausted`.
//! - `hwf control revoke <run> <grant id>` records a `grant.revoked` event;
//!   the next `grant.act` on that grant fails with `grant_revoked`. A grant
//!   names its run, so it never outlives it.

use crate::capabilities::{
    Capability, CapabilityCall, CapabilityError, CapabilityHandler, Registry, SideEffect, WaitRequest,
};
use hwf_core::BoxFuture;
use hwf_core::control::Decision;
use hwf_core::journal::{Entry, JournalEntry};
use serde_json::{Value, json};
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
                    "grant {}× {}{}{}",
                    input.get("count").and_then(Value::as_u64).unwrap_or(1),
                    input["capability"].as_str().unwrap_or(""),
                    input
                        .get("scope")
                        .filter(|s| !s.is_null())
                        .map(|s| format!(" within {s}"))
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
            let Some((run, store)) = call.durable.run_store() else {
                return Err(fail("grant_invalid", "grants need a run in a state dir"));
            };
            let Some(grant_call) = grant_id.strip_prefix(&format!("{run}:")) else {
                return Err(fail("grant_invalid", format!("{grant_id} is not a grant of run {run}")));
            };
            let mut journal = store.entries(run, 0).map_err(CapabilityError::Store)?;
            for e in journal.iter_mut().filter(|e| e.kind() == Some("capability")) {
                store.resolve(e).map_err(CapabilityError::Store)?;
            }
            let Some(terms) = recorded_grant(&journal, grant_call) else {
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
            // One use per call: the marker is this call's id.
            let dir = store
                .root()
                .join("runs")
                .join(run.as_str())
                .join("grants")
                .join(grant_call.replace('.', "_"));
            std::fs::create_dir_all(&dir).map_err(|e| CapabilityError::Store(crate::Error::io("grant uses", e)))?;
            let marker = dir.join(call.durable.call_id().replace('.', "_"));
            let used = std::fs::read_dir(&dir).map(|d| d.count() as u64).unwrap_or(0);
            let count = terms["count"].as_u64().unwrap_or(1);
            if !marker.exists() {
                if used >= count {
                    return Err(fail(
                        "grant_exhausted",
                        format!("grant {grant_id} was used {used} of {count} times"),
                    ));
                }
                std::fs::File::create(&marker)
                    .and_then(|f| f.sync_all())
                    .map_err(|e| CapabilityError::Store(crate::Error::io("grant use", e)))?;
            }
            let uses = std::fs::read_dir(&dir).map(|d| d.count() as u64).unwrap_or(0);
            let inner = CapabilityCall {
                input: &inner_input,
                label: call.label,
                approval_id: None,
                idempotency_key: call.idempotency_key,
                durable: call.durable,
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
            description: "Ask the operator once for a scoped grant: {capability, scope?: {field: prefix}, count?, window_ms?, reason?} → {grant_id, capability, scope, count, expires_at_ms}".into(),
            replayable: true,
            handler: Arc::new(Request),
        },
        Capability {
            name: ACT.into(),
            class: SideEffect::SessionControl,
            description: "Run one built-in capability call under a grant: {grant, capability, input} → {grant_id, uses, remaining, result}; refusals grant_revoked, grant_expired, grant_exhausted, grant_scope, grant_invalid".into(),
            replayable: true,
            handler: Arc::new(Act { inner }),
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
}
