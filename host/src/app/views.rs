//! Read-only views: run status and overview, saved-script listings, the
//! source of a resume. Every answer is a typed value that serialises to
//! the JSON the front doors print.

use crate::app::status::{RunStatus, RunSummary, SeenState, ShownState};
use crate::store::{ErrorInfo, RunSnapshot, ScriptMeta, WaitInfo};
use crate::{Hwf, Target};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;

/// Every run, newest first, and what parked runs wait for.
#[derive(Debug, Clone, Serialize)]
pub struct Overview {
    /// One line per run.
    pub runs: Vec<OverviewLine>,
    /// Every wait of every parked run.
    pub waits: Vec<BlockedWait>,
}

/// One line of the [`Overview`].
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
#[expect(
    clippy::large_enum_variant,
    reason = "almost every line is a readable run; boxing it would allocate once per line for the rare unreadable one"
)]
pub enum OverviewLine {
    /// A run whose snapshot was read.
    Run(RunSummary),
    /// A run whose snapshot cannot be read.
    Unreadable {
        /// Run id.
        run_id: RunId,
        /// `unreadable`.
        state: ShownState,
        /// Why.
        error: ErrorInfo,
    },
}

impl Overview {
    /// The overview as the JSON the front doors print.
    pub fn to_json(&self) -> Value {
        crate::app::status::to_json(self)
    }
}

impl ScriptList {
    /// The list as the JSON the front doors print.
    pub fn to_json(&self) -> Value {
        crate::app::status::to_json(self)
    }
}

impl ScriptDetail {
    /// The detail as the JSON the front doors print.
    pub fn to_json(&self) -> Value {
        crate::app::status::to_json(self)
    }
}

/// A wait of a parked run.
#[derive(Debug, Clone, Serialize)]
pub struct BlockedWait {
    /// The run.
    pub run_id: RunId,
    /// What it waits for.
    pub wait: WaitInfo,
}

/// Saved scripts.
#[derive(Debug, Clone, Serialize)]
pub struct ScriptList {
    /// One entry per script name.
    pub scripts: Vec<ScriptSummary>,
}

/// A saved script and its latest version.
#[derive(Debug, Clone, Serialize)]
pub struct ScriptSummary {
    /// Name.
    pub name: String,
    /// Its latest version.
    pub latest_version: u32,
    /// The latest version's language.
    pub language: String,
    /// The latest version's digest.
    pub digest: String,
    /// The latest version's description (from its meta).
    pub description: Option<Value>,
    /// Every version (when asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub versions: Option<Vec<u32>>,
    /// Each version's digest, language, size and save time (when asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version_details: Option<Vec<VersionDetail>>,
}

/// One saved version of a script.
#[derive(Debug, Clone, Serialize)]
pub struct VersionDetail {
    /// Version.
    pub version: u32,
    /// Digest.
    pub digest: String,
    /// Language.
    pub language: String,
    /// Size in bytes.
    pub size: u64,
    /// When it was saved.
    pub saved_at_ms: u64,
}

/// One saved script version's metadata, with every version listed.
#[derive(Debug, Clone, Serialize)]
pub struct ScriptDetail {
    /// The version's metadata.
    #[serde(flatten)]
    pub meta: ScriptMeta,
    /// Every version of the script.
    pub versions: Vec<u32>,
}

/// What a resume (`--resume-from`) takes from its source run.
#[derive(Debug, Clone)]
pub struct ResumeSource {
    /// The target the source run executed.
    pub target: Target,
    /// Its args as stored (redacted).
    pub args: Value,
    /// Whether credentials were redacted from the stored args (then they
    /// cannot stand in for the original args).
    pub args_redacted: bool,
}

impl ResumeSource {
    /// The args a resume runs with: the caller's, or when none were given
    /// the source's — unless those had credentials redacted out of them.
    ///
    /// # Errors
    ///
    /// `code` (the front door's bad-input code) saying to pass the args
    /// again.
    pub fn args_or(&self, given: Option<Value>, source: &RunId, code: ErrorCode, hint: &str) -> Result<Value> {
        match given {
            Some(v) => Ok(v),
            None if self.args_redacted => Err(Error::new(
                code,
                format!("run {source} had credentials in its args, which were not stored; {hint}"),
            )),
            None => Ok(self.args.clone()),
        }
    }
}

/// The target a snapshot names.
///
/// # Errors
///
/// `corrupt_store` for a run that names no script.
pub fn target_of_snapshot(snap: &RunSnapshot) -> Result<Target> {
    match (&snap.script.name, &snap.script.path) {
        (Some(name), _) => Ok(Target::Saved {
            name: name.clone(),
            version: snap.script.version,
        }),
        (None, Some(path)) => Ok(Target::Path(PathBuf::from(path))),
        (None, None) => Err(Error::new(
            ErrorCode::CorruptStore,
            format!("run {} names no script", snap.run_id),
        )),
    }
}

impl Hwf {
    /// A run's snapshot.
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store`, `io`.
    pub fn snapshot(&self, run: &RunId) -> Result<RunSnapshot> {
        self.store().read_snapshot(run)
    }

    /// The state directory (paths in answers are shown under it).
    pub fn state_dir(&self) -> &std::path::Path {
        self.store().root()
    }

    /// A run's whole result, also when it was too large to keep in the
    /// snapshot (then read from the spilled `result.json`).
    ///
    /// # Errors
    ///
    /// `not_found` (no such run, or no result yet), `result_too_large`
    /// (over 64 MiB), `corrupt_store`, `io`.
    pub fn result(&self, run: &RunId) -> Result<Value> {
        let snap = self.store().read_snapshot(run)?;
        if let Some(r) = snap.result {
            return Ok(r);
        }
        if snap.result_path.is_none() {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("run {run} has no result (yet)"),
            ));
        }
        let bytes = self.store().read_result(run)?;
        if bytes.len() > 64 << 20 {
            return Err(Error::new(
                ErrorCode::ResultTooLarge,
                format!(
                    "the result of run {run} is {} bytes; at most 64 MiB is read",
                    bytes.len()
                ),
            ));
        }
        serde_json::from_slice(&bytes)
            .map_err(|e| Error::new(ErrorCode::CorruptStore, format!("the result of run {run}: {e}")))
    }

    /// The source of a saved script version, as saved.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `io`.
    pub fn script_source(&self, name: &str, version: u32) -> Result<Vec<u8>> {
        self.store().script_bytes(name, version)
    }

    /// The state a view shows for a snapshot: `stuck` when it says
    /// running but nobody holds the run's claim.
    pub fn shown_state(&self, snap: &RunSnapshot) -> ShownState {
        ShownState::of(snap.state, self.is_claimed(&snap.run_id))
    }

    /// A run's status: the snapshot plus its calls and phases from the
    /// journal, and its controls.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `corrupt_store`.
    pub fn status(&self, run_id: &str) -> Result<RunStatus> {
        let id = RunId::parse(run_id)?;
        let snap = self.store().read_snapshot(&id)?;
        // Compact: status needs each call's `agent` and `name`, which a
        // request kept by content keeps inline, and the capability calls'
        // payloads (declared resources).
        let mut journal = self.store().read_entries_compact(&id)?;
        self.store()
            .resolve_where(&mut journal, |e| e.kind() == Some("capability"))?;
        let locked = self.is_claimed(&id);
        let mut status = crate::app::status::build_status(&snap, &journal, self.store().root(), locked)?;
        let controls = match crate::app::control::read_controls(self.store(), &id) {
            Ok(c) => c,
            Err(e) => {
                // What can be read is shown; the damage is named.
                status.controls_error = Some(hwf_core::model::ErrorInfo::of(&e));
                crate::app::control::Controls(
                    self.store()
                        .read_controls_lenient(&id)
                        .map(|(c, _)| c)
                        .unwrap_or_default(),
                )
            }
        };
        if !snap.state.is_terminal() {
            status.needs_host = self.missing_capabilities(&snap);
        }
        status.retries = controls.retried_calls();
        status.stopped_tasks = controls.stopped_calls();
        status.controls = controls.0;
        // Redacted once more: control values and event lines are shown here.
        crate::app::status::redacted(status)
    }

    /// Every run, newest first, one line each.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn overview(&self) -> Result<Overview> {
        let mut runs = Vec::new();
        let mut waits = Vec::new();
        for id in self.store().run_ids()?.into_iter().rev() {
            match self.store().read_snapshot(&id) {
                Ok(s) => {
                    let line = crate::app::status::run_summary(&s, self.is_claimed(&id));
                    for w in &s.waits {
                        waits.push(BlockedWait {
                            run_id: id.clone(),
                            wait: w.clone(),
                        });
                    }
                    runs.push(OverviewLine::Run(line));
                }
                Err(e) => runs.push(OverviewLine::Unreadable {
                    run_id: id,
                    state: ShownState::Seen(SeenState::Unreadable),
                    error: ErrorInfo {
                        code: e.code(),
                        message: e.message().to_owned(),
                    },
                }),
            }
        }
        Ok(Overview { runs, waits })
    }

    /// Saved scripts with their latest version (and all versions when asked).
    ///
    /// # Errors
    ///
    /// `io`, `corrupt_store`.
    pub fn script_list(&self, versions: bool) -> Result<ScriptList> {
        let mut scripts = Vec::new();
        for name in self.store().script_names()? {
            let all = self.store().script_versions(&name)?;
            let Some(latest) = all.last().copied() else { continue };
            let meta = self.store().script_meta(&name, Some(latest))?;
            let (versions, version_details) = if versions {
                // Each version's digest, language and when it was saved.
                let details = all
                    .iter()
                    .filter_map(|v| self.store().script_meta(&name, Some(*v)).ok())
                    .map(|m| VersionDetail {
                        version: m.version,
                        digest: m.digest,
                        language: m.language,
                        size: m.size,
                        saved_at_ms: m.saved_at_ms,
                    })
                    .collect();
                (Some(all), Some(details))
            } else {
                (None, None)
            };
            scripts.push(ScriptSummary {
                description: meta.meta.get("description").cloned(),
                name,
                latest_version: latest,
                language: meta.language,
                digest: meta.digest,
                versions,
                version_details,
            });
        }
        Ok(ScriptList { scripts })
    }

    /// The target a run executed and its stored args (to resume it without
    /// naming it again).
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `corrupt_store`.
    pub fn resume_source(&self, run: &RunId) -> Result<ResumeSource> {
        let snap = self.store().read_snapshot(run)?;
        Ok(ResumeSource {
            target: target_of_snapshot(&snap)?,
            args: snap.args,
            args_redacted: snap.args_redacted,
        })
    }

    /// One saved script's metadata (all versions listed).
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `corrupt_store`.
    pub fn script_inspect(&self, name: &str, version: Option<u32>) -> Result<ScriptDetail> {
        let meta = self.store().script_meta(name, version)?;
        let versions = self.store().script_versions(name)?;
        Ok(ScriptDetail { meta, versions })
    }
}
