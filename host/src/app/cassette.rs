//! Journals as tests, plans and forks (issue 30).
//!
//! - [`Hwf::cassette`]: a run's (and its resume lineage's) recorded calls
//!   as a portable, content-addressed [`Cassette`] (`hwf cassette export`);
//! - [`Hwf::test_script`]: walk a script with every agent and capability
//!   call answered from a cassette — no backend, no side effect, no wait,
//!   no run stored — and report each call the cassette cannot answer as a
//!   drift (`hwf test`);
//! - [`Hwf::plan`]: what `--resume-from` would replay and what it would
//!   run live, per call, with the source's figures; creates no run;
//! - forks ([`Hwf::fork`]) are in [`crate::app::fork`];
//! - [`Hwf::replay_check`]: a changed script walked against the stored
//!   runs of its workflow: per run, replays / would run live / diverges at.
//!
//! A test and a plan are *walks* (`broker/walk.rs`): the script's guest
//! code runs as in a real run, in a run context with no journal and no
//! store writes, whose leaf calls are answered at the replay stage.

use crate::broker::replay::ReplayIndex;
pub use crate::broker::walk::{StepOutcome, WalkStep};
use crate::broker::walk::{Walk, WalkMode};
use crate::broker::{ExecEnv, InstanceBroker, LoadedComponent, RunContext};
use crate::store::{RunSnapshot, Store};
use crate::{Hwf, RunOutcome, RunRequest, Target};
pub use hwf_core::cassette::FieldDiff;
use hwf_core::cassette::{Cassette, CassetteSource, ResolvedCall};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::model::ErrorInfo;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

/// What to test (`hwf test SCRIPT --cassette RUN|FILE`).
#[derive(Debug, Clone)]
pub struct TestRequest {
    /// The script or component to test.
    pub target: Target,
    /// The recorded calls that answer it.
    pub cassette: Cassette,
    /// Its args (default: the recorded run's).
    pub args: Option<Value>,
}

/// What a test found.
#[derive(Debug, Clone, Serialize)]
pub struct TestReport {
    /// No drift, the script ended without error, and its result is the
    /// recorded one (when one was recorded).
    pub passed: bool,
    /// The cassette's id.
    pub cassette: String,
    /// The run it was recorded from.
    pub source_run: String,
    /// The workflow's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workflow: Option<String>,
    /// `succeeded` or `failed` (the script's own end).
    pub state: &'static str,
    /// Its result (redacted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Whether the result equals the recorded run's (none: nothing was
    /// recorded to compare with).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_matches: Option<bool>,
    /// How the script failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// Agent and capability calls made.
    pub calls: usize,
    /// Calls answered from the cassette.
    pub replayed: usize,
    /// One per call the cassette could not answer: id, label, why and the
    /// field-level difference from its closest recorded call.
    pub drifts: Vec<WalkStep>,
    /// Every call of the walk.
    pub steps: Vec<WalkStep>,
    /// How long the walk took in-process (µs; loading the script and the
    /// cassette excluded).
    pub walk_us: u64,
}

impl TestReport {
    /// The report as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The error a failed test ends with: `cassette_drift` naming every
    /// drifted call, else the script's own failure, else `cassette_drift`
    /// for a changed result. `None` when it passed.
    pub fn failure(&self) -> Option<Error> {
        if !self.drifts.is_empty() {
            let named: Vec<String> = self.drifts.iter().map(describe_drift).collect();
            return Some(Error::new(
                ErrorCode::CassetteDrift,
                format!(
                    "{} call{} drifted from cassette {}: {}",
                    self.drifts.len(),
                    if self.drifts.len() == 1 { "" } else { "s" },
                    short(&self.cassette),
                    named.join("; ")
                ),
            ));
        }
        if let Some(e) = &self.error {
            return Some(Error::new(e.code, e.message.clone()));
        }
        if self.result_matches == Some(false) {
            return Some(Error::new(
                ErrorCode::CassetteDrift,
                format!(
                    "every call replayed, but the result differs from run {}'s",
                    self.source_run
                ),
            ));
        }
        None
    }
}

/// One line naming a drifted call: id, label, why, the fields that changed.
pub fn describe_drift(s: &WalkStep) -> String {
    let label = s
        .label
        .as_deref()
        .or(s.name.as_deref())
        .map(|l| format!(" {l:?}"))
        .unwrap_or_default();
    let why = match (s.reason, &s.recorded) {
        (Some("changed"), Some(r)) => {
            let fields: Vec<&str> = s.diff.iter().map(|d| d.path.as_str()).collect();
            let fields = if fields.is_empty() {
                String::new()
            } else {
                format!(": {}", fields.join(", "))
            };
            format!("changed from recorded call {r}{fields}")
        }
        (Some("unfinished"), _) => "never completed in the recording".to_owned(),
        (Some(other), _) => other.to_owned(),
        (None, _) => "not answered".to_owned(),
    };
    format!("{} call {}{label} {why}", s.kind, s.call)
}

/// What `--resume-from … --plan` reports.
#[derive(Debug, Clone, Serialize)]
pub struct PlanReport {
    /// The run a resume would replay.
    pub resume_from: String,
    /// Every call the walk made, replayed or live, with why.
    pub steps: Vec<WalkStep>,
    /// Calls that would replay.
    pub replayed: usize,
    /// Calls that would run live.
    pub live: usize,
    /// Tokens and cost the replayed calls cost when they ran (charged to
    /// the new run's budgets, not spent again).
    pub replayed_tokens: u64,
    /// As `replayed_tokens`, in millionths of a USD.
    pub replayed_cost_micro_usd: u64,
    /// Estimated tokens of the live calls (their closest recorded calls').
    pub live_tokens: u64,
    /// As `live_tokens`, in millionths of a USD.
    pub live_cost_micro_usd: u64,
    /// The script ran to its end in the walk; when not, `error` says where
    /// it stopped, and calls after that point are unknown.
    pub complete: bool,
    /// How the walk ended early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// The component or args differ from the source run: the resume itself
    /// needs `--allow-changed`.
    pub needs_allow_changed: bool,
    /// Always false: a plan creates no run.
    pub run_created: bool,
    /// How long the plan took in-process (µs): reading and indexing the
    /// source's journals and the walk.
    pub plan_us: u64,
    /// The part of `plan_us` spent reading the source's journals (µs).
    pub read_us: u64,
    /// The part of `plan_us` spent indexing them: the replay index and the
    /// recorded calls, in one pass (µs).
    pub index_us: u64,
    /// How long loading and checking the script took before that (µs; in
    /// a long-lived process — MCP, the console — a runtime loaded once
    /// is reused).
    pub load_us: u64,
}

impl PlanReport {
    /// The report as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Which stored runs [`Hwf::replay_check`] looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunsToCheck {
    /// Runs parked on a wait (they will continue on whatever script they
    /// find).
    Waiting,
    /// Every run that started.
    All,
}

/// What to check (`hwf replay-check SCRIPT`).
#[derive(Debug, Clone)]
pub struct ReplayCheckRequest {
    /// The changed script.
    pub target: Target,
    /// Which runs.
    pub runs: RunsToCheck,
    /// Only runs of this workflow (default: the script's `meta.name`).
    pub name: Option<String>,
    /// Re-pin each waiting run that replays cleanly on the changed script
    /// (no call diverges) to it: its next continuation runs the new
    /// version instead of refusing it (`resume_mismatch`).
    pub upgrade: bool,
    /// With `upgrade`: re-pin diverging waiting runs too (their changed
    /// and new calls then run live).
    pub allow_changed: bool,
}

/// One stored run, walked against the changed script.
#[derive(Debug, Clone, Serialize)]
pub struct RunCheck {
    /// The run.
    pub run_id: String,
    /// Its state.
    pub state: String,
    /// Calls that would replay.
    pub replayed: usize,
    /// Calls that would run live.
    pub live: usize,
    /// Their estimated tokens.
    pub live_tokens: u64,
    /// The first call (by id) whose request changed or is new: where the
    /// run diverges from the script.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diverges_at: Option<String>,
    /// Its label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diverges_label: Option<String>,
    /// Why it runs live there: `changed` (its request differs from the
    /// recorded one) or `new` (nothing recorded is like it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diverges_reason: Option<&'static str>,
    /// What changed in that call's request, field by field (redacted).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diverges_diff: Vec<FieldDiff>,
    /// The walk ran the script to its end.
    pub complete: bool,
    /// Why the run could not be checked, or how the walk ended early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// With `--upgrade`: the run now runs the changed script (its digest).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upgraded_to: Option<String>,
    /// With `--upgrade`: why a waiting run stays pinned to its version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_because: Option<String>,
}

/// What [`Hwf::replay_check`] found.
#[derive(Debug, Clone, Serialize)]
pub struct ReplayCheckReport {
    /// The workflow whose runs were checked.
    pub workflow: String,
    /// One entry per run checked, oldest first.
    pub runs: Vec<RunCheck>,
    /// How many diverge (a call whose request changed or is new).
    pub diverging: usize,
    /// How many waiting runs were re-pinned to the changed script
    /// (`upgrade`).
    pub upgraded: usize,
    /// How long it took in-process (µs).
    pub check_us: u64,
}

impl ReplayCheckReport {
    /// The report as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A cassette source from a run's snapshot.
fn source_of(snap: &RunSnapshot) -> CassetteSource {
    CassetteSource {
        run_id: snap.run_id.to_string(),
        workflow: snap.workflow.clone(),
        script: snap.script.clone(),
        args: snap.args.clone(),
        args_redacted: snap.args_redacted,
        seed_run: snap.seed_run().to_string(),
        clock_origin_ms: snap.clock_origin(),
        state: snap.state.as_str().to_owned(),
        result: snap.result.clone(),
    }
}

/// A digest shortened for a message (whole when it is not ASCII there).
fn short(id: &str) -> &str {
    id.get(..id.len().min(15)).unwrap_or(id)
}

impl Hwf {
    /// A run's recorded calls as a cassette: its journal and its resume
    /// lineage's, requests and results redacted, by content.
    ///
    /// # Errors
    ///
    /// `not_found` (no such run), `corrupt_store` (a journal that cannot be
    /// read, or is missing for a run that started), `io`.
    pub fn cassette(&self, run: &RunId) -> Result<Cassette> {
        let snap = self.store.read_snapshot(run)?;
        let journals = self.whole_lineage(&snap)?;
        let mut source = source_of(&snap);
        if source.result.is_none() && snap.result_path.is_some() {
            // A large result was spilled; a test compares with all of it.
            source.result = self
                .store
                .read_result(run)
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok());
        }
        Ok(Cassette::from_journals(source, &journals))
    }

    /// The journals of `snap`'s lineage and its own, oldest first, payloads
    /// read back.
    pub(crate) fn whole_lineage(&self, snap: &RunSnapshot) -> Result<Vec<Vec<hwf_core::journal::JournalEntry>>> {
        let mut journals = self.lineage_journals_whole(snap.resumed_from.as_ref())?;
        let own = self.store.read_entries(&snap.run_id)?;
        crate::app::runner::check_journal_present(snap, &own)?;
        journals.push(own);
        Ok(journals)
    }

    /// Test a script against a cassette: every agent and capability call
    /// answered from it, nothing run, no run stored (see the module docs).
    /// A test that finds drift is a report with `passed: false`, not an
    /// `Err`.
    ///
    /// # Errors
    ///
    /// Bad input: the loader's and `invalid_script`; `cassette_mismatch`
    /// (the cassette was recorded from another workflow); `invalid_args`
    /// (the recorded args had credentials and none were given).
    pub async fn test_script(&self, req: &TestRequest) -> Result<TestReport> {
        let resolved = self.resolve(&req.target)?;
        let (workflow, _) = self.checked_meta(&resolved).await?;
        let c = &req.cassette;
        if let (Some(recorded), Some(now)) = (&c.source.workflow, &workflow)
            && recorded != now
        {
            return Err(Error::new(
                ErrorCode::CassetteMismatch,
                format!(
                    "the cassette was recorded from workflow {recorded:?} (run {}); this script is {now:?}",
                    c.source.run_id
                ),
            ));
        }
        let args = match &req.args {
            Some(a) => a.clone(),
            None if c.source.args_redacted => {
                return Err(Error::new(
                    ErrorCode::InvalidArgs,
                    format!(
                        "run {} had credentials in its args, which the cassette does not keep; pass --args",
                        c.source.run_id
                    ),
                ));
            }
            None => c.source.args.clone(),
        };
        let seed = RunId::parse(&c.source.seed_run)
            .map_err(|e| Error::new(ErrorCode::InvalidCassette, format!("source.seed_run: {}", e.message())))?;
        let index = ReplayIndex::from_lineage(&[c.to_entries()], &[], &Default::default());
        let walk = Arc::new(Walk::new(WalkMode::Test, c.resolved()));
        let t0 = Instant::now();
        let outcome = self
            .walk_script(
                &resolved.loaded,
                &args,
                index,
                walk.clone(),
                seed,
                c.source.clock_origin_ms,
            )
            .await;
        let walk_us = t0.elapsed().as_micros() as u64;
        let steps = walk.steps();
        let drifts: Vec<WalkStep> = steps
            .iter()
            .filter(|s| s.outcome == StepOutcome::Live)
            .cloned()
            .collect();
        let (result, error) = match outcome {
            Ok(v) => (Some(hwf_core::redact::redacted(&v).into_owned()), None),
            Err(e) => (
                None,
                Some(ErrorInfo {
                    code: e.code(),
                    message: e.message().to_owned(),
                }),
            ),
        };
        let result_matches = match (&result, &c.source.result) {
            (Some(now), Some(recorded)) => Some(now == recorded),
            _ => None,
        };
        let passed = drifts.is_empty() && error.is_none() && result_matches != Some(false);
        Ok(TestReport {
            passed,
            cassette: c.id.clone(),
            source_run: c.source.run_id.clone(),
            workflow: workflow.or_else(|| c.source.workflow.clone()),
            state: if error.is_none() { "succeeded" } else { "failed" },
            result,
            result_matches,
            error,
            calls: steps.len(),
            replayed: steps.iter().filter(|s| s.outcome == StepOutcome::Replay).count(),
            drifts,
            steps,
            walk_us,
        })
    }

    /// The plan of `req` (which must resume from a run): per call, whether
    /// `--resume-from` would replay it or run it live and why, with the
    /// source's figures. Creates no run; runs no call.
    ///
    /// # Errors
    ///
    /// `invalid_args` (no `resume_from`), `not_found` (no such run), the
    /// loader's codes and `invalid_script`, `corrupt_store`.
    pub async fn plan(&self, req: &RunRequest) -> Result<PlanReport> {
        req.check()?;
        let t_load = Instant::now();
        let Some(source) = &req.resume_from else {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                "a plan is of a resume: pass --resume-from RUN (resume_from_run_id)",
            ));
        };
        let snap = self.store.read_snapshot(source)?;
        let resolved = self.resolve_for(req)?;
        self.checked_meta(&resolved).await?;
        let load_us = t_load.elapsed().as_micros() as u64;
        let t0 = Instant::now();
        let needs_allow_changed =
            snap.script.digest != resolved.script.digest || *hwf_core::redact::redacted(&req.args) != snap.args;
        let journals = self.whole_lineage(&snap)?;
        let controls = crate::app::control::read_controls(&self.store, source)?;
        let read_us = t0.elapsed().as_micros() as u64;
        let t_index = Instant::now();
        // One pass over the journals for the replay index a resume would
        // build and the recorded calls the walk compares with.
        let mut collector = hwf_core::cassette::CallCollector::default();
        let index = crate::app::runner::replay_index_observed(&journals, &[], &controls, |e| collector.feed(e));
        let recorded: Vec<ResolvedCall> = collector.recorded_calls();
        let index_us = t_index.elapsed().as_micros() as u64;
        let walk = Arc::new(Walk::new(WalkMode::Plan, recorded));
        let outcome = self
            .walk_script(
                &resolved.loaded,
                &req.args,
                index,
                walk.clone(),
                snap.seed_run().clone(),
                snap.clock_origin(),
            )
            .await;
        let steps = walk.steps();
        let sum = |live: bool, f: fn(&WalkStep) -> u64| -> u64 {
            steps
                .iter()
                .filter(|s| (s.outcome == StepOutcome::Live) == live)
                .map(f)
                .sum()
        };
        Ok(PlanReport {
            resume_from: source.to_string(),
            replayed: steps.iter().filter(|s| s.outcome == StepOutcome::Replay).count(),
            live: steps.iter().filter(|s| s.outcome == StepOutcome::Live).count(),
            replayed_tokens: sum(false, |s| s.tokens),
            replayed_cost_micro_usd: sum(false, |s| s.cost_micro_usd),
            live_tokens: sum(true, |s| s.tokens),
            live_cost_micro_usd: sum(true, |s| s.cost_micro_usd),
            complete: outcome.is_ok(),
            error: outcome.err().map(|e| ErrorInfo {
                code: e.code(),
                message: e.message().to_owned(),
            }),
            steps,
            needs_allow_changed,
            run_created: false,
            plan_us: t0.elapsed().as_micros() as u64,
            read_us,
            index_us,
            load_us,
        })
    }

    /// The drift report of a run's workflow (the console's drift view):
    /// [`Hwf::replay_check`] of every stored run of the run's workflow
    /// against its *current* script — the newest saved version of its
    /// name, or its file as it is now. Offline; nothing is written.
    ///
    /// # Errors
    ///
    /// `not_found`, and [`Hwf::replay_check`]'s (the script's file gone:
    /// the loader's).
    pub async fn drift_report(&self, run: &RunId) -> Result<ReplayCheckReport> {
        let snap = self.store.read_snapshot(run)?;
        let target = match crate::app::views::target_of_snapshot(&snap)? {
            Target::Saved { name, .. } => Target::Saved { name, version: None },
            other => other,
        };
        self.replay_check(&ReplayCheckRequest {
            target,
            runs: RunsToCheck::All,
            name: snap.workflow.clone(),
            upgrade: false,
            allow_changed: false,
        })
        .await
    }

    /// Walk a changed script against the stored runs of its workflow
    /// (offline: nothing runs, nothing is written): per run, how many of
    /// its calls would replay, how many would run live (with estimated
    /// tokens), and the first call where it diverges. Each run is walked
    /// with its own args, seed and clock, against its journal and its
    /// lineage's, as a continuation or a resume would replay it.
    ///
    /// # Errors
    ///
    /// The loader's codes and `invalid_script`; `invalid_args` when the
    /// script has no `meta.name` and no name is given; `io`. A run that
    /// cannot be checked is reported with its error, not an `Err`.
    pub async fn replay_check(&self, req: &ReplayCheckRequest) -> Result<ReplayCheckReport> {
        let t0 = Instant::now();
        let resolved = self.resolve(&req.target)?;
        let (workflow, _) = self.checked_meta(&resolved).await?;
        let Some(name) = req.name.clone().or(workflow) else {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                "the script has no meta.name to find its runs by; pass --name",
            ));
        };
        // Runs are read and indexed one after the other on a blocking
        // thread, and walked as tasks as they come, as many at once as
        // there are cores (each walk is independent): reading the next runs
        // does not hold a walk back, nor a walk the reading.
        let width = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 8);
        let (tx, mut rx) = tokio::sync::mpsc::channel::<std::result::Result<Prepared, Box<RunCheck>>>(width * 2);
        let (store, wanted, which) = (self.store.clone(), name.clone(), req.runs);
        let reader = tokio::task::spawn_blocking(move || {
            for id in store.run_ids()? {
                let Ok(snap) = store.read_snapshot(&id) else {
                    continue;
                };
                if snap.workflow.as_deref() != Some(wanted.as_str()) || snap.state == crate::store::RunState::Queued {
                    continue;
                }
                if which == RunsToCheck::Waiting && snap.state != crate::store::RunState::Waiting {
                    continue;
                }
                if tx.blocking_send(prepare_check(&store, &snap)).is_err() {
                    break;
                }
            }
            Ok::<(), Error>(())
        });
        let mut slots: Vec<Option<RunCheck>> = Vec::new();
        let mut tasks = tokio::task::JoinSet::new();
        while let Some(prepared) = rx.recv().await {
            let slot = slots.len();
            slots.push(None);
            match prepared {
                Err(check) => slots[slot] = Some(*check),
                Ok(p) => {
                    while tasks.len() >= width {
                        if let Some(Ok((i, c))) = tasks.join_next().await {
                            slots[i] = Some(c);
                        }
                    }
                    let (env, loaded) = (self.walk_env(), resolved.loaded.clone());
                    tasks.spawn(async move {
                        let outcome = walk_in(
                            env,
                            loaded,
                            p.args,
                            p.index,
                            p.walk.clone(),
                            p.seed_run,
                            p.clock_origin_ms,
                        )
                        .await;
                        (slot, finish_check(p.check, &p.walk, outcome))
                    });
                }
            }
        }
        reader
            .await
            .map_err(|e| Error::new(ErrorCode::Internal, format!("reading the runs: {e}")))??;
        while let Some(done) = tasks.join_next().await {
            if let Ok((i, c)) = done {
                slots[i] = Some(c);
            }
        }
        let mut runs: Vec<RunCheck> = slots.into_iter().flatten().collect();
        if req.upgrade {
            for r in runs.iter_mut().filter(|r| r.state == "waiting") {
                self.upgrade_checked(r, &resolved, req.allow_changed).await;
            }
        }
        Ok(ReplayCheckReport {
            workflow: name,
            diverging: runs.iter().filter(|r| r.diverges_at.is_some()).count(),
            upgraded: runs.iter().filter(|r| r.upgraded_to.is_some()).count(),
            runs,
            check_us: t0.elapsed().as_micros() as u64,
        })
    }

    /// Re-pin a checked waiting run to `to` when its walk allows it (no
    /// call diverges, or `allow_changed`); says in `check` what was done.
    async fn upgrade_checked(&self, check: &mut RunCheck, to: &crate::app::resolve::Resolved, allow_changed: bool) {
        let why = match (&check.error, &check.diverges_at) {
            (Some(e), _) if check.replayed + check.live == 0 => {
                Some(format!("it could not be checked ({})", e.code.as_str()))
            }
            (_, Some(c)) if !allow_changed => {
                Some(format!("it diverges at call {c} (--allow-changed re-pins it anyway)"))
            }
            _ => None,
        };
        if let Some(why) = why {
            check.kept_because = Some(why);
            return;
        }
        match self.repin(&check.run_id, to).await {
            Ok(()) => check.upgraded_to = Some(to.script.digest.clone()),
            Err(e) => check.kept_because = Some(format!("{}: {}", e.code().as_str(), e.message())),
        }
    }

    /// Point a waiting run at another version of its script, under the
    /// run's claim (so no executor continues it meanwhile); the bytes are
    /// kept in the store for runners elsewhere. `tracing` records who
    /// moved from which digest to which.
    ///
    /// # Errors
    ///
    /// `already_exists` (another process executes the run), `invalid_args`
    /// (it is no longer waiting), `conflict`, `not_found`, `io`.
    async fn repin(&self, run: &str, to: &crate::app::resolve::Resolved) -> Result<()> {
        use hwf_core::store::RunStore;
        let id = RunId::parse(run)?;
        let Some(claim) = RunStore::claim(&*self.store, &id).await? else {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("run {id} is being executed by another process"),
            ));
        };
        let outcome = async {
            let mut snap = self.store.read_snapshot(&id)?;
            if snap.state != crate::store::RunState::Waiting {
                return Err(Error::new(
                    ErrorCode::InvalidArgs,
                    format!("run {id} is {} now, not waiting", snap.state.as_str()),
                ));
            }
            self.keep_for_runners(to)?;
            // A file's path (the new bytes are there), or a saved
            // script's new version.
            let from = std::mem::replace(&mut snap.script, to.script.clone());
            self.save_claimed(&snap, hwf_core::store::SaveMode::Durable, &*claim)
                .await?;
            tracing::info!(run_id = %id, from = %from.digest, to = %snap.script.digest, "run re-pinned to a new script version");
            Ok(())
        }
        .await;
        let _ = claim.release().await;
        outcome
    }

    /// Re-record a test's drifted calls live (`hwf test --update`): a real
    /// run of `req.target` (stored, like any run) in which every call the
    /// cassette answers replays from it and every other call runs on the
    /// configured backend; then the new run's cassette.
    ///
    /// # Errors
    ///
    /// As [`Hwf::test_script`] for the input, and [`Hwf::run`]'s.
    pub async fn rerecord(&self, req: &TestRequest) -> Result<(RunOutcome, Cassette)> {
        let c = &req.cassette;
        let args = match &req.args {
            Some(a) => a.clone(),
            None if c.source.args_redacted => {
                return Err(Error::new(
                    ErrorCode::InvalidArgs,
                    format!("run {} had credentials in its args; pass --args", c.source.run_id),
                ));
            }
            None => c.source.args.clone(),
        };
        let mut run = RunRequest::new(req.target.clone(), args);
        run.cassette = Some(Arc::new(c.clone()));
        let outcome = self.run(run).await?;
        let cassette = self.cassette(&outcome.snapshot.run_id)?;
        Ok((outcome, cassette))
    }

    /// What a walk needs of this host, owned (a walk may run as a task of
    /// its own).
    fn walk_env(&self) -> WalkEnv {
        WalkEnv {
            vm: self.vm.clone(),
            services: self.services.clone(),
            workspace: self.settings.workspace.clone(),
        }
    }

    /// Run `loaded`'s guest code as a walk: no journal, no store writes, no
    /// backend; `walk` answers its leaf calls (see `broker/walk.rs`).
    /// The script's result, or how it ended.
    async fn walk_script(
        &self,
        loaded: &LoadedComponent,
        args: &Value,
        index: ReplayIndex,
        walk: Arc<Walk>,
        seed_run: RunId,
        clock_origin_ms: u64,
    ) -> Result<Value> {
        walk_in(
            self.walk_env(),
            loaded.clone(),
            args.clone(),
            index,
            walk,
            seed_run,
            clock_origin_ms,
        )
        .await
    }
}

/// The parts of a host a walk runs on.
struct WalkEnv {
    vm: Arc<crate::broker::Vm>,
    services: crate::broker::Services,
    workspace: Option<std::path::PathBuf>,
}

/// A walk of `loaded` with `args` (see [`Hwf::walk_script`]), on owned
/// parts, so it can run as a task.
async fn walk_in(
    env: WalkEnv,
    loaded: LoadedComponent,
    args: Value,
    index: ReplayIndex,
    walk: Arc<Walk>,
    seed_run: RunId,
    clock_origin_ms: u64,
) -> Result<Value> {
    let ctx = RunContext::builder(RunId::generate(), env.services)
        .replay(index)
        .root_run_id(seed_run)
        .walk(walk)
        .instances(Arc::new(ExecEnv {
            vm: env.vm.clone(),
            epoch_ms: clock_origin_ms,
            workspace: env.workspace,
        }))
        .build();
    let broker = InstanceBroker::root(ctx.clone(), Some(loaded.clone()));
    let args_text = args.to_string();
    let (answer, _output) =
        crate::broker::instances::call_run(&env.vm, &loaded, broker, clock_origin_ms, &args_text).await;
    ctx.wait_idle(std::time::Duration::from_secs(10)).await;
    match answer {
        Ok(Ok(text)) => serde_json::from_str::<Value>(&text).map_err(|e| {
            Error::new(
                ErrorCode::HarnessError,
                format!("the harness returned invalid JSON: {e}"),
            )
        }),
        Ok(Err(message)) => Err(Error::new(ErrorCode::HarnessError, message)),
        Err(e) => Err(e),
    }
}

/// One run of [`Hwf::replay_check`], read and indexed (or why it
/// cannot be walked).
fn prepare_check(store: &Store, snap: &RunSnapshot) -> std::result::Result<Prepared, Box<RunCheck>> {
    let mut check = RunCheck {
        run_id: snap.run_id.to_string(),
        state: snap.state.as_str().to_owned(),
        replayed: 0,
        live: 0,
        live_tokens: 0,
        diverges_at: None,
        diverges_label: None,
        diverges_reason: None,
        diverges_diff: Vec::new(),
        complete: false,
        error: None,
        upgraded_to: None,
        kept_because: None,
    };
    let info = |e: Error| ErrorInfo {
        code: e.code(),
        message: e.message().to_owned(),
    };
    if snap.args_redacted {
        check.error = Some(info(Error::new(
            ErrorCode::InvalidArgs,
            "its args had credentials, which were not stored: it cannot be walked",
        )));
        return Err(Box::new(check));
    }
    let read = (|| {
        let mut journals = crate::app::runner::lineage_read(store, snap.resumed_from.as_ref(), true)?;
        let own = store.read_entries(&snap.run_id)?;
        crate::app::runner::check_journal_present(snap, &own)?;
        journals.push(own);
        let controls = crate::app::control::read_controls(store, &snap.run_id)?;
        Ok::<_, Error>((journals, controls))
    })();
    let (journals, controls) = match read {
        Ok(p) => p,
        Err(e) => {
            check.error = Some(info(e));
            return Err(Box::new(check));
        }
    };
    // One pass for the replay index and the recorded calls, as a plan.
    let mut collector = hwf_core::cassette::CallCollector::default();
    let index = crate::app::runner::replay_index_observed(&journals, &[], &controls, |e| collector.feed(e));
    Ok(Prepared {
        check,
        index,
        walk: Arc::new(Walk::new(WalkMode::Plan, collector.recorded_calls())),
        args: snap.args.clone(),
        seed_run: snap.seed_run().clone(),
        clock_origin_ms: snap.clock_origin(),
    })
}

/// A run of [`Hwf::replay_check`] read and indexed, ready to walk.
struct Prepared {
    check: RunCheck,
    index: ReplayIndex,
    walk: Arc<Walk>,
    args: Value,
    seed_run: RunId,
    clock_origin_ms: u64,
}

/// Fill `check` from a finished walk.
fn finish_check(mut check: RunCheck, walk: &Walk, outcome: Result<Value>) -> RunCheck {
    let steps = walk.steps();
    let live: Vec<&WalkStep> = steps.iter().filter(|s| s.outcome == StepOutcome::Live).collect();
    check.replayed = steps.len() - live.len();
    check.live = live.len();
    check.live_tokens = live.iter().map(|s| s.tokens).sum();
    // Where the script diverges: the first call whose request changed or
    // is new (a parked or failed call running again is not a divergence:
    // it would run live on the old script too).
    let first = live.iter().find(|s| matches!(s.reason, Some("changed" | "new")));
    check.diverges_at = first.map(|s| s.call.clone());
    check.diverges_label = first.and_then(|s| s.label.clone());
    check.diverges_reason = first.and_then(|s| s.reason);
    check.diverges_diff = first.map(|s| s.diff.clone()).unwrap_or_default();
    check.complete = outcome.is_ok();
    check.error = outcome.err().map(|e| ErrorInfo {
        code: e.code(),
        message: e.message().to_owned(),
    });
    check
}

/// A short JSON summary of a plan step, for one line of text output.
pub fn step_line(s: &WalkStep) -> String {
    let label = s.label.as_deref().or(s.name.as_deref()).unwrap_or("-");
    let what = match s.outcome {
        StepOutcome::Replay => "replay".to_owned(),
        StepOutcome::Live => format!("live ({})", s.reason.unwrap_or("?")),
    };
    let fields: Vec<&str> = s.diff.iter().map(|d| d.path.as_str()).collect();
    let fields = if fields.is_empty() {
        String::new()
    } else {
        format!(" changed: {}", fields.join(", "))
    };
    format!(
        "  {:<8} {:<10} {:<28} {:<16} {} tok{}",
        s.call, s.kind, label, what, s.tokens, fields
    )
}
