//! `resource.declare`: a harness declares a resource it created (a temp
//! workspace, a process, a session, a listener) with the capability call
//! that finalizes it. The journal is the declaration; [`declared`] reads it
//! back, and [`view`] is what status shows. Running the finalizers when a
//! run ends is the application's job (`crate::app::finalizers`).

use crate::capabilities::{Capability, CapabilityCall, CapabilityError, CapabilityHandler, SideEffect};
use crate::store::FileStore;
use hwf_core::BoxFuture;
use hwf_core::ids::RunId;
use hwf_core::journal::{Entry, JournalEntry};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

/// The capability a harness declares a resource with.
pub const DECLARE: &str = "resource.declare";

const KINDS: &[&str] = &["temp_workspace", "process", "session", "listener", "other"];

struct Declare;

fn temp_path(key: &str, name: &str) -> PathBuf {
    let hex = blake3::hash(format!("{key}\u{0}{name}").as_bytes()).to_hex();
    std::env::temp_dir().join(format!("hwf-res-{}", &hex[..24]))
}

impl CapabilityHandler for Declare {
    fn call<'a>(&'a self, call: CapabilityCall<'a>) -> BoxFuture<'a, Result<Value, CapabilityError>> {
        Box::pin(async move {
            let input = call.input;
            let kind = input.get("kind").and_then(Value::as_str).unwrap_or("");
            if !KINDS.contains(&kind) {
                return Err(CapabilityError::InvalidInput(format!(
                    "kind must be one of {}",
                    KINDS.join(", ")
                )));
            }
            let name = input.get("name").and_then(Value::as_str).unwrap_or(kind);
            hwf_core::ids::validate_name("resource name", name)
                .map_err(|e| CapabilityError::InvalidInput(e.message().to_owned()))?;
            let finalizer = input.get("finalizer").cloned().unwrap_or(Value::Null);
            if !finalizer.is_null()
                && finalizer
                    .get("capability")
                    .and_then(Value::as_str)
                    .is_none_or(|c| c == DECLARE)
            {
                return Err(CapabilityError::InvalidInput(
                    "finalizer must be {capability, input, approval_id?} naming another capability".into(),
                ));
            }
            if kind != "temp_workspace" && finalizer.is_null() {
                return Err(CapabilityError::InvalidInput(format!(
                    "a {kind} resource needs a finalizer {{capability, input}}"
                )));
            }
            let id = format!("{}-{name}", call.durable.call_id().replace('.', "_"));
            let mut out = json!({"resource_id": id, "kind": kind, "name": name, "finalizer": finalizer});
            if kind == "temp_workspace" {
                let path = temp_path(call.idempotency_key, name);
                std::fs::create_dir_all(&path)
                    .map_err(|e| CapabilityError::Failed(format!("cannot create {}: {e}", path.display())))?;
                out["path"] = json!(path);
            }
            Ok(out)
        })
    }
}

/// The `resource.declare` capability (`read_only`: it only creates a
/// private temp directory; a finalizer's own capability is checked by
/// policy when it runs).
pub fn capability() -> Capability {
    Capability {
        name: DECLARE.into(),
        class: SideEffect::ReadOnly,
        description: "Declare a host-owned resource finalized once when the run ends: {kind: temp_workspace|process|session|listener|other, name?, finalizer?: {capability, input, approval_id?}} → {resource_id, kind, name, path?}".into(),
        replayable: true,
        handler: Arc::new(Declare),
        input_schema: None,
    }
}

/// The resources a journal declared (completed `resource.declare` calls).
pub fn declared(journal: &[JournalEntry]) -> Vec<Value> {
    let declaring: std::collections::HashSet<&str> = journal
        .iter()
        .filter_map(|e| match &e.entry {
            Entry::CallStarted { call, request, .. }
                if request.get("name").and_then(Value::as_str) == Some(DECLARE) =>
            {
                Some(call.as_str())
            }
            _ => None,
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    journal
        .iter()
        .filter_map(|e| match &e.entry {
            Entry::CallCompleted {
                call,
                ok: true,
                result: Some(r),
                ..
            } if declaring.contains(call.as_str()) => Some(r),
            _ => None,
        })
        .filter(|r| r["resource_id"].as_str().is_some_and(|id| seen.insert(id.to_owned())))
        .cloned()
        .collect()
}

/// Where an older hwf kept a run's finalizer markers
/// (`runs/<id>/finalized/<resource>.json`); still read, never written.
pub(crate) fn marker_dir(store: &FileStore, run: &RunId) -> PathBuf {
    store.root().join("runs").join(run.as_str()).join("finalized")
}

/// What an operator is told about an `interrupted` finalizer (status,
/// console): hwf never runs it again by itself, since it may have done
/// part of its work.
pub const INTERRUPTED_HINT: &str = "its executor died while the finalizer ran, so hwf does not run it again (it may have done part of its work): check the resource and finish the clean-up by hand, e.g. `hwf run` of a one-call workflow with the finalizer's capability and input";

/// Every finalizer outcome of a run, from its journal (`finalizer_started`
/// and `finalizer_finished`, on any store) and from an older hwf's markers
/// in `legacy_markers`: `{resource_id, state: ok | failed | interrupted,
/// error?, at_ms}`, sorted by resource id. A finalizer that started and
/// never finished (its executor died) is `interrupted`: it is not run again.
pub fn outcomes(journal: &[JournalEntry], legacy_markers: Option<&std::path::Path>) -> Vec<Value> {
    let mut out: Vec<Value> = legacy_markers.map(outcomes_in).unwrap_or_default();
    for e in journal {
        match &e.entry {
            Entry::FinalizerStarted { resource } => {
                out.retain(|o| o["resource_id"] != resource.as_str());
                out.push(
                    json!({"resource_id": resource, "state": "interrupted", "at_ms": e.ts_ms,
                    "hint": INTERRUPTED_HINT}),
                );
            }
            Entry::FinalizerFinished { resource, state, error } => {
                out.retain(|o| o["resource_id"] != resource.as_str());
                let mut o = json!({"resource_id": resource, "state": state, "at_ms": e.ts_ms});
                if let Some(error) = error {
                    o["error"] = json!(error);
                }
                out.push(o);
            }
            _ => {}
        }
    }
    out.sort_by(|a, b| a["resource_id"].to_string().cmp(&b["resource_id"].to_string()));
    out
}

/// What status shows: each declared resource with its finalizer's outcome
/// (`state: pending` until the run ends). `run_dir`: the run's directory
/// on this machine, for an older hwf's markers.
pub fn view(journal: &[JournalEntry], run_dir: &std::path::Path) -> Vec<Value> {
    let done = outcomes(journal, Some(&run_dir.join("finalized")));
    declared(journal)
        .into_iter()
        .map(|r| {
            let id = &r["resource_id"];
            let mut outcome = done
                .iter()
                .find(|o| &o["resource_id"] == id)
                .cloned()
                .unwrap_or_else(|| json!({"state": "pending"}));
            // As the markers showed it: the resource's kind and name too.
            for key in ["kind", "name"] {
                if outcome.get(key).is_none() && outcome["state"] != "pending" {
                    outcome[key] = r[key].clone();
                }
            }
            json!({"resource_id": id, "kind": r["kind"], "name": r["name"], "path": r.get("path"),
                   "finalizer": r["finalizer"]["capability"], "outcome": outcome})
        })
        .collect()
}

fn outcomes_in(dir: &std::path::Path) -> Vec<Value> {
    let mut out: Vec<Value> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| {
                    let text = std::fs::read_to_string(e.path()).ok()?;
                    Some(serde_json::from_str(&text).unwrap_or_else(|_| {
                        json!({"resource_id": e.file_name().to_string_lossy().trim_end_matches(".json"), "state": "interrupted"})
                    }))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort_by(|a, b| a["resource_id"].to_string().cmp(&b["resource_id"].to_string()));
    out
}
