//! Resource finalizers (issue 19): a harness declares a host-owned
//! resource with the `resource.declare` capability; the declaration is a
//! journaled capability call, so a continuation (a crash recovered by a
//! runner, a resumed wait) knows about it without running it again. When
//! the run ends — succeeded, failed, stopped, timed out, crash-recovered —
//! every declared resource is finalized exactly once:
//!
//! - `temp_workspace`: a directory the host creates
//!   (`$TMPDIR/hwf-res-<hash of the call's idempotency key>`), removed;
//! - any kind (`process`, `session`, `listener`, …) with a `finalizer:
//!   {capability, input, approval_id?}`: that capability is called through
//!   the run's registry and policy (an approval-gated one needs a
//!   pre-approved id: nobody is there to approve at the end).
//!
//! Exactly once, on any store and across machines: before a finalizer
//! runs, a `finalizer_started` record is journaled under the run's claim
//! and made durable; its outcome follows as `finalizer_finished` (and a
//! `log` line, source `finalizer`), shown by [`outcomes`]. An execution
//! that finds a `finalizer_started` for a resource — its own journal is the
//! run's, wherever it runs — never runs that finalizer again; one that
//! started and never finished (its executor died) is `interrupted`. An
//! executor that lost the run's claim cannot journal the start, so it runs
//! nothing. (An older hwf's `runs/<id>/finalized/<resource>.json` markers
//! are still honoured.)

use crate::broker::{Event, RunContext};
use crate::capabilities::{CapabilityCall, CapabilityError, Durable};
use crate::store::{Store, now_ms};
use hwf_core::ids::RunId;
use hwf_core::journal::JournalEntry;
use serde_json::{Value, json};
use std::sync::Arc;

use crate::capabilities::resources::marker_dir;
/// The declaring capability's name.
pub use crate::capabilities::resources::{DECLARE, capability, declared, outcomes, view};
use hwf_core::journal::Entry;

struct NoDurable<'a>(&'a str);

impl Durable for NoDurable<'_> {
    fn call_id(&self) -> &str {
        self.0
    }
    fn first_started_ms(&self) -> u64 {
        now_ms()
    }
    fn decision(&self) -> Result<Option<crate::app::control::Control>, CapabilityError> {
        Ok(None)
    }
    fn events(&self) -> Result<Vec<crate::store::StoredEvent>, CapabilityError> {
        Ok(Vec::new())
    }
    fn now_ms(&self) -> u64 {
        now_ms()
    }
}

async fn run_one(ctx: &RunContext, run: &RunId, journal: &[JournalEntry], res: &Value) -> Result<(), String> {
    if let Some(path) = res["path"].as_str().filter(|_| res["kind"] == "temp_workspace") {
        // Only the directory this capability made (never a path from elsewhere).
        if !path.starts_with(std::env::temp_dir().join("hwf-res-").to_string_lossy().as_ref()) {
            return Err(format!("refusing to remove {path}: not a resource directory"));
        }
        match std::fs::remove_dir_all(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot remove {path}: {e}")),
        }
    }
    let fin = &res["finalizer"];
    let Some(name) = fin["capability"].as_str() else {
        return Ok(());
    };
    let services = ctx.services();
    let registered = services.capabilities.get(name).map(|c| &**c);
    let input = fin.get("input").cloned().unwrap_or(json!({}));
    let read = || journal.to_vec();
    let run_s = run.to_string();
    let presented = fin["approval_id"]
        .as_str()
        .map(|id| crate::capabilities::policy::Presented {
            id,
            run: &run_s,
            journal: &read,
        });
    let cap = services
        .policy
        .check(name, registered, &input, presented.as_ref(), false)
        .map_err(|f| f.message)?;
    let key = format!("{}:finalize:{}", run, res["resource_id"].as_str().unwrap_or(""));
    let durable = NoDurable("finalizer");
    let call = CapabilityCall {
        input: &input,
        label: Some("finalizer"),
        approval_id: fin["approval_id"].as_str(),
        idempotency_key: &key,
        durable: &durable,
        grant: None,
    };
    cap.handler.call(call).await.map(|_| ()).map_err(|e| e.to_string())
}

/// [`finalize`] at the end of the execution `ctx` ran: a declaration is a
/// completed capability call, and every capability call in the run's
/// journal is in the execution's counts (run live, replayed from a source,
/// or charged from an earlier execution of this run), so a run whose
/// counts hold none declared nothing and its journal is not read again
/// (for a 1,000-call run that re-read and parse was ~10 % of a replay).
pub async fn finalize_ended(ctx: &RunContext, store: &Store, run: &RunId) {
    if ctx.counts().capability_calls == 0 {
        return;
    }
    finalize(ctx, store, run).await;
}

/// Finalize every resource the run declared that was not finalized yet
/// (called once the run's end state is known). Failures are recorded, never
/// fatal: the run's own outcome stands.
pub async fn finalize(ctx: &RunContext, store: &Store, run: &RunId) {
    // On a shared store this execution's lines may still be queued for the
    // writer task: the declarations are read back once they are stored.
    if let Err(e) = ctx.flush_journal().await {
        tracing::warn!(run_id = %run, error = %e, "finalizers: the journal cannot be flushed");
        return;
    }
    // Declarations are capability calls: only theirs are read whole.
    let journal = match store
        .read_entries_compact(run)
        .and_then(|mut j| store.resolve_where(&mut j, is_capability).map(|()| j))
    {
        Ok(j) => j,
        Err(e) => {
            tracing::warn!(run_id = %run, error = %e, "finalizers: the journal cannot be read");
            return;
        }
    };
    let resources = declared(&journal);
    if resources.is_empty() {
        return;
    }
    // Started before, by any execution on any machine (or marked by an
    // older hwf on this one): never again.
    let legacy = marker_dir(store.local(), run);
    let mut started: std::collections::HashSet<String> = journal
        .iter()
        .filter_map(|e| match &e.entry {
            Entry::FinalizerStarted { resource } => Some(resource.clone()),
            _ => None,
        })
        .collect();
    for res in resources {
        let id = res["resource_id"].as_str().unwrap_or("").to_owned();
        if hwf_core::ids::validate_name("resource id", &id).is_err()
            || started.contains(&id)
            || legacy.join(format!("{id}.json")).exists()
        {
            continue;
        }
        // The once-only step: the start is durable before the finalizer
        // runs, and only the claim's holder can journal it.
        let durable = match ctx.journal(&Event::FinalizerStarted { resource: &id }) {
            Ok(_) => ctx.flush_journal().await,
            Err(e) => Err(e),
        };
        if let Err(e) = durable {
            tracing::warn!(run_id = %run, resource = %id, error = %e, "finalizers: the start cannot be journaled; not run");
            return;
        }
        started.insert(id.clone());
        let result = run_one(ctx, run, &journal, &res).await;
        let error = result
            .as_ref()
            .err()
            .map(|e| hwf_core::redact::redact_text(e).into_owned());
        let state = if result.is_ok() { "ok" } else { "failed" };
        if let Err(e) = ctx.journal(&Event::FinalizerFinished {
            resource: &id,
            state,
            error: error.as_deref(),
        }) {
            tracing::warn!(run_id = %run, resource = %id, error = %e, "finalizers: the outcome cannot be journaled");
        }
        let message = match &error {
            None => format!("finalized resource {id} ({})", res["kind"].as_str().unwrap_or("")),
            Some(e) => format!("finalizer of resource {id} failed: {e}"),
        };
        let message = hwf_core::redact::redact_text(&message).into_owned();
        let _ = ctx.journal(&Event::Log {
            call: None,
            level: if result.is_ok() { "info" } else { "warn" },
            source: "finalizer",
            message: &message,
        });
    }
}

/// Finalize a run that ended without executing again: stopped by an
/// operator while parked (the runner's `finish_stopped`). Takes the run's
/// claim; does nothing for runs that declared nothing or are not terminal.
pub async fn finalize_unexecuted(hwf: &crate::app::host::Hwf, id: &RunId) {
    let Ok(Some(claim)) = hwf.claim(id).await else {
        return;
    };
    finalize_held(hwf, id, &*claim).await;
}

/// Whether a journal entry is about a capability call (the entries whose
/// payloads the finalizers read).
fn is_capability(e: &hwf_core::journal::JournalEntry) -> bool {
    e.kind() == Some("capability")
}

/// [`finalize_unexecuted`] for a caller that already holds the run's claim
/// (the runner quarantining a crash-looping run).
pub async fn finalize_held(hwf: &crate::app::host::Hwf, id: &RunId, claim: &dyn hwf_core::store::Claim) {
    let Ok(snap) = hwf.store().read_snapshot(id) else {
        return;
    };
    let store = hwf.store();
    let Ok(events) = store
        .read_entries_compact(id)
        .and_then(|mut j| store.resolve_where(&mut j, is_capability).map(|()| j))
    else {
        return;
    };
    if !snap.state.is_terminal() || declared(&events).is_empty() {
        return;
    }
    let last_seq = events.iter().map(|e| e.seq).max().unwrap_or(0);
    let out = match hwf.store().open_journal_out(id, claim).await {
        Ok(out) => out,
        Err(e) => {
            tracing::warn!(run_id = %id, error = %e, "finalizers: the journal cannot be opened");
            return;
        }
    };
    let mut services = hwf.services().clone();
    if let Some(settings) = &snap.settings {
        services.policy = settings.policy.clone();
        services.limits = settings.limits.clone();
        if let Some(ws) = &settings.workspace
            && let Ok(r) = crate::capabilities::Registry::with_builtins_sandboxed(ws, settings.sandbox)
        {
            services.capabilities = Arc::new(r);
        }
    }
    let journal = crate::broker::Journal::new(out, last_seq).with_fence(claim.fence().clone());
    let ctx = RunContext::new(id.clone(), Some(journal), services);
    finalize(&ctx, hwf.store(), id).await;
    if let Err(e) = ctx.flush_journal().await {
        tracing::warn!(run_id = %id, error = %e, "finalizers: their log lines were not made durable");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_come_from_completed_declare_calls_once() {
        let j = hwf_core::journal::sketch::entries(vec![
            json!({"type": "call_started", "call": "1", "request": {"name": DECLARE}}),
            json!({"type": "call_completed", "call": "1", "ok": true, "result": {"resource_id": "1-a"}}),
            json!({"type": "call_started", "call": "2", "request": {"name": "bash"}}),
            json!({"type": "call_completed", "call": "2", "ok": true, "result": {"resource_id": "x"}}),
            json!({"type": "call_started", "call": "1", "request": {"name": DECLARE}}),
            json!({"type": "call_completed", "call": "1", "ok": true, "result": {"resource_id": "1-a"}}),
        ]);
        assert_eq!(declared(&j), vec![json!({"resource_id": "1-a"})]);
    }
}
