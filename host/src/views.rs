//! Read-only views: run status and overview, saved-script listings.

use crate::runtime::{Hwf, Target};
use crate::store::RunState;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use serde_json::{Value, json};
use std::path::PathBuf;

impl Hwf {
    /// A run's status: the snapshot plus its calls and phases from the
    /// journal.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `corrupt_store`.
    pub fn status(&self, run_id: &str) -> Result<Value> {
        let id = RunId::parse(run_id)?;
        let snap = self.store().read_snapshot(&id)?;
        let journal = self.store().read_journal(&id)?;
        let mut status = crate::status::build_status(&snap, &journal, self.store().root());
        let controls = crate::control::read_controls(self.store(), &id).unwrap_or_default();
        status["controls"] = serde_json::to_value(&controls.0).unwrap_or_default();
        status["retries"] = serde_json::json!(controls.retried_calls());
        status["stopped_tasks"] = serde_json::json!(controls.stopped_calls());
        if snap.state == RunState::Running && !self.store().run_locked(&id) {
            status["state"] = serde_json::json!("stuck");
        }
        // Redacted once more: control values and event lines are shown here.
        hwf_core::redact::redact_value(&mut status);
        Ok(status)
    }

    /// Every run, newest first, one line each.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn overview(&self) -> Result<Value> {
        let mut runs = Vec::new();
        let mut blocked = Vec::new();
        for id in self.store().run_ids()?.into_iter().rev() {
            match self.store().read_snapshot(&id) {
                Ok(s) => {
                    let mut line = crate::status::summary(&s);
                    if s.state == RunState::Running && !self.store().run_locked(&id) {
                        line["state"] = serde_json::json!("stuck");
                    }
                    for w in &s.waits {
                        blocked.push(json!({"run_id": id, "wait": w}));
                    }
                    runs.push(line);
                }
                Err(e) => runs.push(
                    json!({"run_id": id, "state": "unreadable", "error": {"code": e.code(), "message": e.message()}}),
                ),
            }
        }
        Ok(json!({"runs": runs, "waits": blocked}))
    }

    /// Saved scripts with their latest version (and all versions when asked).
    ///
    /// # Errors
    ///
    /// `io`, `corrupt_store`.
    pub fn script_list(&self, versions: bool) -> Result<Value> {
        let mut out = Vec::new();
        for name in self.store().script_names()? {
            let all = self.store().script_versions(&name)?;
            let Some(latest) = all.last() else { continue };
            let meta = self.store().script_meta(&name, Some(*latest))?;
            let mut entry = json!({
                "name": name,
                "latest_version": latest,
                "language": meta.language,
                "digest": meta.digest,
                "description": meta.meta.get("description"),
            });
            if versions {
                entry["versions"] = json!(all);
                // Each version's digest, language and when it was saved.
                let details: Vec<Value> = all
                    .iter()
                    .filter_map(|v| self.store().script_meta(&name, Some(*v)).ok())
                    .map(|m| json!({"version": m.version, "digest": m.digest, "language": m.language, "size": m.size, "saved_at_ms": m.saved_at_ms}))
                    .collect();
                entry["version_details"] = json!(details);
            }
            out.push(entry);
        }
        Ok(json!({"scripts": out}))
    }

    /// The target a run executed (to resume it without naming it again).
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `corrupt_store`.
    pub fn target_of(&self, run_id: &str) -> Result<(Target, Value)> {
        let snap = self.store().read_snapshot(&RunId::parse(run_id)?)?;
        let target = match (&snap.script.name, &snap.script.path) {
            (Some(name), _) => Target::Saved {
                name: name.clone(),
                version: snap.script.version,
            },
            (None, Some(path)) => Target::Path(PathBuf::from(path)),
            (None, None) => {
                return Err(Error::new(
                    ErrorCode::CorruptStore,
                    format!("run {run_id} names no script"),
                ));
            }
        };
        Ok((target, snap.args))
    }

    /// One saved script's metadata (all versions listed).
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `corrupt_store`.
    pub fn script_inspect(&self, name: &str, version: Option<u32>) -> Result<Value> {
        let meta = self.store().script_meta(name, version)?;
        let versions = self.store().script_versions(name)?;
        let mut v = serde_json::to_value(&meta).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        v["versions"] = json!(versions);
        Ok(v)
    }
}
