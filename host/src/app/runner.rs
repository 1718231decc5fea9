//! The runner: executes queued runs and continues runs whose waits have
//! resolved or whose executor died.
//!
//! A run is executed by whoever holds its claim (the store's claim API: a
//! flock plus a fencing token in the file store, a lease in PostgreSQL);
//! the store frees it when the holder dies, so two runners never execute
//! the same run, and a run left `running` by a dead process (a crash,
//! `kill -9`) is *stuck* and is taken over. Continuing a run re-runs its
//! harness from the start in place (same run id, same journal, same
//! idempotency keys): every completed call replays from the journal; the
//! call that was in flight or waiting runs again.

use crate::agents::{AgentRunner, FixtureRunner};
use crate::app::control::{Controls, Decision};
use crate::app::host::Hwf;
use crate::app::runs::RunOutcome;
use crate::broker::Journal;
use crate::broker::replay::ReplayIndex;
use crate::capabilities::Registry;
use crate::capabilities::durable;
use crate::store::{ErrorInfo, RunSnapshot, RunState, Store, WaitInfo, now_ms};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::journal::{Entry, JournalEntry};
use hwf_core::model::CapabilityNeed;
use hwf_core::store::SaveMode;
use serde_json::{Value, json};
use std::sync::Arc;
use tracing::Instrument;

/// What one runner pass found and did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PassReport {
    /// Queued runs found.
    pub queued: Vec<RunId>,
    /// Waiting runs whose waits are still open.
    pub waiting: Vec<RunId>,
    /// Waiting runs whose waits resolved.
    pub ready: Vec<RunId>,
    /// Runs left `running` by a dead executor.
    pub stuck: Vec<RunId>,
    /// Runs this pass executed, with the state they ended in.
    pub executed: Vec<(RunId, RunState)>,
    /// Runs stopped by an operator while parked.
    pub stopped: Vec<RunId>,
    /// Runs that could not be looked at or continued, with the typed error
    /// (a corrupt snapshot or controls file, a changed component): left as
    /// they are, for an operator.
    pub errors: Vec<(RunId, ErrorInfo)>,
    /// Runs that need a capability this host does not offer: left as they
    /// are (queued, parked or stuck) for a host that offers it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub needs_host: Vec<NeedsHost>,
}

/// A run left for another host ([`Disposition::NeedsHost`]): what it needs
/// that this host lacks.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NeedsHost {
    /// The run.
    pub run_id: RunId,
    /// The capabilities (name, class) this host does not offer.
    pub missing: Vec<CapabilityNeed>,
}

impl NeedsHost {
    /// One line for status and the runner: what the run waits for.
    pub fn reason(&self) -> String {
        needs_host_reason(&self.missing)
    }
}

pub use hwf_core::model::needs_host_reason;

/// Which runs a scan reads.
#[derive(Debug, Clone, Copy)]
pub enum Listing<'a> {
    /// The unfinished ones (on a shared store, one indexed query).
    Unfinished,
    /// Every run, so a watcher sees runs finished elsewhere (the
    /// in-process runner of `hwf mcp` and `hwf serve`).
    All,
    /// Only this one (`hwf runner --run`).
    Only(&'a RunId),
}

/// What a scan found ([`Hwf::scan`]).
#[derive(Debug, Default)]
pub struct Scan {
    /// Queued runs.
    pub queued: Vec<RunId>,
    /// Waiting runs whose waits are still open.
    pub waiting: Vec<RunId>,
    /// Waiting runs whose waits resolved.
    pub ready: Vec<RunId>,
    /// Runs left `running` by a dead executor.
    pub stuck: Vec<RunId>,
    /// Runs found finished (a long-lived scheduler does not read them
    /// again).
    pub finished: Vec<RunId>,
    /// Runs that could not be looked at.
    pub errors: Vec<(RunId, ErrorInfo)>,
    /// Runs left for a host offering what this one lacks.
    pub needs_host: Vec<NeedsHost>,
    /// The earliest time a waiting run's timer is due (ms since the
    /// epoch), if any waits on one: work a runner must stay for.
    pub next_timer_ms: Option<u64>,
    /// What to take a turn on, in order: continuations first, then
    /// queued runs, each oldest first.
    pub work: Vec<RunId>,
}

/// What one run's turn did ([`Hwf::take_turn`]).
#[derive(Debug)]
pub enum Turn {
    /// Nothing to do (another runner has it, it finished or parked
    /// meanwhile).
    Nothing,
    /// Executed or continued; the state it ended (or parked) in.
    Executed(RunState),
    /// Finished as stopped without running (an operator stopped it while
    /// it was queued or parked).
    Stopped,
    /// Could not be looked at or continued: left as it is, for an
    /// operator. A handed-out run's claim comes back with it.
    Failed(ErrorInfo, Option<crate::app::claim::ExecClaim>),
}

/// Why a run should (or should not) be picked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// Queued: run it.
    Queued,
    /// Waiting and resolved: continue it.
    Ready,
    /// Waiting on something still open.
    Waiting,
    /// Left running by a dead executor: continue it.
    Stuck,
    /// Executing in a live process.
    Running,
    /// Finished.
    Done,
    /// Parked, but an operator stopped it.
    StopRequested,
    /// Its controls cannot be read: left alone until an operator repairs
    /// them (a recorded stop or decision must not be ignored).
    Unreadable,
    /// It needs a capability this host does not offer
    /// ([`Hwf::missing_capabilities`]): left as it is — queued, parked or
    /// stuck — for a host that offers it, like a task on another queue.
    NeedsHost,
}

impl Hwf {
    /// Classify a run for the runner.
    pub fn disposition(&self, snap: &RunSnapshot) -> Disposition {
        if snap.state.is_terminal() {
            return Disposition::Done;
        }
        let Ok(controls) = crate::app::control::read_controls(self.store(), &snap.run_id) else {
            // A damaged controls file: a recorded stop is still honoured
            // (stopping is always safe); anything else waits for repair.
            let stopped = self
                .store()
                .read_controls_lenient(&snap.run_id)
                .is_ok_and(|(c, _)| c.iter().any(|c| c.action == crate::app::control::Action::Stop));
            return if stopped && snap.state != RunState::Running {
                Disposition::StopRequested
            } else {
                Disposition::Unreadable
            };
        };
        match snap.state {
            RunState::Queued if controls.stopped() => Disposition::StopRequested,
            RunState::Running if self.is_claimed(&snap.run_id) => Disposition::Running,
            RunState::Waiting if controls.stopped() => Disposition::StopRequested,
            // Stopping needs no capability; running and continuing do.
            _ if !self.missing_capabilities(snap).is_empty() => Disposition::NeedsHost,
            RunState::Queued => Disposition::Queued,
            RunState::Running => Disposition::Stuck,
            RunState::Waiting if self.waits_resolved(snap, &controls) => Disposition::Ready,
            RunState::Waiting => Disposition::Waiting,
            _ => Disposition::Done,
        }
    }

    /// What `snap`'s run needs ([`RunSnapshot::needs`]) that this host
    /// does not offer: empty when this host may execute or continue it.
    pub fn missing_capabilities(&self, snap: &RunSnapshot) -> Vec<CapabilityNeed> {
        if snap.needs.is_empty() {
            return Vec::new();
        }
        self.capabilities().missing(&snap.needs)
    }

    /// Whether a parked run can make progress: it is not paused, and at
    /// least one of its waits (several branches may wait at once) has
    /// resolved — the continuation replays the rest, and whatever still
    /// waits parks again. An event log that cannot be read resolves no
    /// event wait.
    pub fn waits_resolved(&self, snap: &RunSnapshot, controls: &Controls) -> bool {
        if controls.paused() {
            return false;
        }
        let events = std::cell::OnceCell::new();
        snap.waits.is_empty()
            || snap.waits.iter().any(|w| match w.kind.as_str() {
                "pause" => true,
                "timer" => w.wake_at_ms.is_none_or(|t| now_ms() >= t),
                "human" | "approval" => decided(w, controls),
                "event" => events
                    .get_or_init(|| match self.store().read_events() {
                        Ok(events) => events,
                        Err(e) => {
                            tracing::warn!(error = %e, "the event log cannot be read");
                            Vec::new()
                        }
                    })
                    .iter()
                    .any(|e| durable::matches(&w.detail, e)),
                crate::capabilities::kanban::WAIT_KIND => {
                    crate::capabilities::kanban::wait_resolved(self.store(), &w.detail)
                }
                _ => true,
            })
    }

    /// Look at the runs `listing` names and say which have something to do: the scan a scheduler (`app/scheduler.rs`)
    /// dispatches from. `seen` gets every snapshot read. The work comes
    /// out oldest first, continuations (ready, stuck, stop-requested)
    /// before queued runs, so a flood of new runs never starves the runs
    /// an operator already answered.
    ///
    /// # Errors
    ///
    /// `io` when the runs cannot be listed.
    pub fn scan(
        &self,
        listing: Listing<'_>,
        skip: &dyn Fn(&RunId) -> bool,
        seen: &mut dyn FnMut(&RunSnapshot),
    ) -> Result<Scan> {
        let mut scan = Scan::default();
        let ids = match listing {
            Listing::Only(id) => vec![id.clone()],
            Listing::Unfinished => self.store().unfinished_run_ids()?,
            Listing::All => self.store().run_ids()?,
        };
        let mut work: Vec<(bool, u64, RunId)> = Vec::new();
        for id in ids {
            if skip(&id) {
                continue;
            }
            let snap = match self.store().read_snapshot(&id) {
                Ok(snap) => snap,
                // A run being created has no snapshot for a moment.
                Err(e) if e.code() == ErrorCode::NotFound => continue,
                Err(e) => {
                    scan.errors.push((id, ErrorInfo::of(&e)));
                    continue;
                }
            };
            seen(&snap);
            let continuation = match self.disposition(&snap) {
                Disposition::Unreadable => {
                    if let Err(e) = crate::app::control::read_controls(self.store(), &id) {
                        scan.errors.push((id, ErrorInfo::of(&e)));
                    }
                    continue;
                }
                Disposition::Done => {
                    scan.finished.push(id);
                    continue;
                }
                Disposition::NeedsHost => {
                    let missing = self.missing_capabilities(&snap);
                    tracing::debug!(run_id = %id, reason = %needs_host_reason(&missing), "left for another host");
                    scan.needs_host.push(NeedsHost { run_id: id, missing });
                    continue;
                }
                Disposition::Running => continue,
                Disposition::Waiting => {
                    let timers = snap
                        .waits
                        .iter()
                        .filter(|w| w.kind == "timer")
                        .filter_map(|w| w.wake_at_ms);
                    scan.next_timer_ms = timers.chain(scan.next_timer_ms).min();
                    scan.waiting.push(id);
                    continue;
                }
                Disposition::Queued => {
                    scan.queued.push(id.clone());
                    false
                }
                Disposition::Ready => {
                    scan.ready.push(id.clone());
                    true
                }
                Disposition::Stuck => {
                    scan.stuck.push(id.clone());
                    true
                }
                Disposition::StopRequested => true,
            };
            work.push((!continuation, snap.created_at_ms, id));
        }
        work.sort();
        scan.work = work.into_iter().map(|(_, _, id)| id).collect();
        Ok(scan)
    }

    /// One run's turn: look at it again (it may have changed since the
    /// scan) and do what it needs — execute it, continue it, or finish it
    /// stopped.
    pub async fn take_turn(&self, id: &RunId) -> Turn {
        let snap = match self.store().read_snapshot(id) {
            Ok(snap) => snap,
            Err(e) if e.code() == ErrorCode::NotFound => return Turn::Nothing,
            Err(e) => return Turn::Failed(ErrorInfo::of(&e), None),
        };
        match self.disposition(&snap) {
            Disposition::Unreadable => match crate::app::control::read_controls(self.store(), id) {
                Err(e) => Turn::Failed(ErrorInfo::of(&e), None),
                Ok(_) => Turn::Nothing,
            },
            Disposition::StopRequested => {
                if let Err(e) = self.finish_stopped(snap).await {
                    return Turn::Failed(ErrorInfo::of(&e), None);
                }
                crate::app::finalizers::finalize_unexecuted(self, id).await;
                Turn::Stopped
            }
            Disposition::Stuck if let Some(isolate) = self.isolation_for_stuck(id) => {
                self.isolated_turn(id, isolate).await
            }
            Disposition::Queued | Disposition::Ready | Disposition::Stuck => match self.continue_run(id).await {
                Ok(outcome) => Turn::Executed(outcome.snapshot.state),
                // Another runner took it first: not an error.
                Err(e) if e.code() == ErrorCode::AlreadyExists => Turn::Nothing,
                Err(e) => {
                    tracing::warn!(run_id = %id, error = %e, "runner could not continue the run");
                    Turn::Failed(ErrorInfo::of(&e), None)
                }
            },
            Disposition::Waiting | Disposition::Running | Disposition::Done | Disposition::NeedsHost => Turn::Nothing,
        }
    }

    /// How to continue the stuck run `id` alone, when it needs to be: this
    /// process runs several runs at once, an isolation is set
    /// ([`crate::HwfBuilder::isolation`]), and an executor of the run died.
    fn isolation_for_stuck(&self, id: &RunId) -> Option<crate::app::host::Isolate> {
        let isolate = self.isolation.as_ref().filter(|_| self.is_shared_executor())?;
        let events = self.store().read_entries_compact(id).ok()?;
        (crashes_any(&events) > 0).then(|| isolate.clone())
    }

    /// A turn taken alone by `isolate`: the state the run is in after it.
    async fn isolated_turn(&self, id: &RunId, isolate: crate::app::host::Isolate) -> Turn {
        tracing::info!(run_id = %id, "continuing a run whose executor died alone in a process of its own");
        if let Err(e) = isolate(id.clone()).await {
            return Turn::Failed(ErrorInfo::of(&e), None);
        }
        match self.store().read_snapshot(id) {
            Ok(snap) if snap.state != RunState::Running => Turn::Executed(snap.state),
            Ok(_) => Turn::Nothing,
            Err(e) => Turn::Failed(ErrorInfo::of(&e), None),
        }
    }

    /// The turn of a run a shared store handed out (`claim_next`: queued,
    /// or stuck with its lease expired), under the claim it came with. A
    /// turn that fails gives the claim back, for the scheduler to hold
    /// until its next scan, so the store hands out other work meanwhile.
    pub(crate) async fn take_handed_turn(&self, claim: crate::app::claim::ExecClaim) -> (RunState, Turn) {
        let id = claim.fence().run().clone();
        let snap = match self.store().read_snapshot(&id) {
            Ok(snap) => snap,
            Err(e) => return (RunState::Queued, Turn::Failed(ErrorInfo::of(&e), Some(claim))),
        };
        let state = snap.state;
        if snap.state == RunState::Queued
            && crate::app::control::read_controls(self.store(), &id).is_ok_and(|c| c.stopped())
        {
            if let Err(e) = self.finish_stopped_claimed(snap, &*claim).await {
                return (state, Turn::Failed(ErrorInfo::of(&e), Some(claim)));
            }
            crate::app::finalizers::finalize_held(self, &id, &*claim).await;
            return (state, Turn::Stopped);
        }
        match self.continue_claimed(&id, claim.clone()).await {
            Ok(outcome) => (state, Turn::Executed(outcome.snapshot.state)),
            Err(e) => {
                tracing::warn!(run_id = %id, error = %e, "runner could not continue the run");
                (state, Turn::Failed(ErrorInfo::of(&e), Some(claim)))
            }
        }
    }

    /// Mark a parked or queued run stopped without running it.
    async fn finish_stopped(&self, snap: RunSnapshot) -> Result<()> {
        let Some(claim) = self.claim(&snap.run_id).await? else {
            return Ok(());
        };
        self.finish_stopped_claimed(snap, &*claim).await
    }

    /// [`Hwf::finish_stopped`] under a claim the caller holds.
    async fn finish_stopped_claimed(&self, mut snap: RunSnapshot, claim: &dyn hwf_core::store::Claim) -> Result<()> {
        // A queued run that never ran is cancelled; a parked one stopped.
        snap.state = if snap.state == RunState::Queued {
            RunState::Cancelled
        } else {
            RunState::Stopped
        };
        snap.waits.clear();
        snap.finished_at_ms = Some(now_ms());
        snap.error = Some(ErrorInfo {
            code: ErrorCode::Stopped,
            message: "the run was stopped by an operator".into(),
        });
        self.save_claimed(&snap, SaveMode::Durable, claim).await
    }

    /// Execute or continue a run in place: queued runs start; parked and
    /// stuck runs replay their own journal up to where they stopped.
    ///
    /// # Errors
    ///
    /// `already_exists` when another process holds the run, `not_found`,
    /// `resume_mismatch` when the component changed, `needs_host` when
    /// the run needs a capability this host does not offer (nothing is
    /// changed), `io`.
    pub async fn continue_run(&self, id: &RunId) -> Result<RunOutcome> {
        let snap = self.store().read_snapshot(id)?;
        if snap.state.is_terminal() {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                format!("run {id} already ended ({})", snap.state.as_str()),
            ));
        }
        // Take the claim before reading the journal, so nobody appends to
        // it meanwhile; every snapshot write below carries it.
        let Some(claim) = self.claim(id).await? else {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("run {id} is being executed by another process"),
            ));
        };
        self.continue_claimed(id, claim).await
    }

    /// [`Hwf::continue_run`] under a claim the caller took.
    ///
    /// # Errors
    ///
    /// As [`Hwf::continue_run`].
    pub(crate) async fn continue_claimed(&self, id: &RunId, claim: crate::app::claim::ExecClaim) -> Result<RunOutcome> {
        let snap = self.store().read_snapshot(id)?;
        if snap.state.is_terminal() {
            return Err(Error::new(ErrorCode::AlreadyExists, format!("run {id} already ended")));
        }
        // Before anything runs or is written: a host without the run's
        // capabilities leaves it as it is (the claim is given back).
        let missing = self.missing_capabilities(&snap);
        if !missing.is_empty() {
            return Err(Error::new(
                ErrorCode::NeedsHost,
                format!("run {id} {}", needs_host_reason(&missing)),
            ));
        }
        if snap.args_redacted {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                format!(
                    "run {id} had credential-shaped args, which were never stored; continue it with `hwf run --resume-from {id} --args …`"
                ),
            ));
        }
        let target = match (&snap.script.name, &snap.script.path) {
            (Some(name), _) => crate::scripts::Target::Saved {
                name: name.clone(),
                version: snap.script.version,
            },
            (None, Some(path)) => crate::scripts::Target::Path(std::path::PathBuf::from(path)),
            (None, None) => return Err(Error::new(ErrorCode::CorruptStore, format!("run {id} names no script"))),
        };
        let resolved = self.resolve_recorded(&target, &snap.script)?;
        if resolved.script.digest != snap.script.digest {
            return Err(Error::new(
                ErrorCode::ResumeMismatch,
                format!("the component or script of run {id} changed on disk since it started"),
            ));
        }
        let loaded = resolved.loaded;
        let events = self.store().read_entries_for_replay(id)?;
        crate::app::runner::check_journal_present(&snap, &events)?;
        // The last execution journaled the run's end and died before its
        // snapshot said so: the journal is the record. The run is finished
        // from it, and nothing runs again.
        if snap.state == RunState::Running
            && let Some(end) = journaled_end(&events)
        {
            return self.finish_from_journal(snap, end, &*claim).await;
        }
        let last_seq = events.iter().map(|e| e.seq).max().unwrap_or(0);
        let controls = crate::app::control::read_controls(self.store(), id)?;
        // In place: the run's own journal answers its completed calls, and
        // the calls it already ran stay charged to its budgets.
        // The run's own journal answers its completed calls (already
        // charged); a run created by `--resume-from` also replays the runs
        // it was resumed from, for the calls its own execution never reached.
        let replay = match (snap.state, &snap.resumed_from) {
            (RunState::Queued, None) => None,
            // Queued by `--resume-from` on a host that lacked its
            // capabilities: its source answers, as in `Hwf::run`.
            (RunState::Queued, Some(source)) => {
                let sources = self.lineage_journals(Some(source))?;
                let source_controls = crate::app::control::read_controls(self.store(), source)?;
                Some(replay_index(&sources, &[], &source_controls))
            }
            _ => {
                let sources = self.lineage_journals(snap.resumed_from.as_ref())?;
                Some(replay_index(&sources, &events, &controls))
            }
        };
        let max_journal = snap
            .settings
            .as_ref()
            .map_or(self.limits().max_journal_bytes, |s| s.limits.max_journal_bytes);
        // Appended only while the claim is held.
        let mut journal = Journal::new(self.store().open_journal_out(id, &*claim).await?, last_seq)
            .with_byte_limit(max_journal)?
            .with_fence(claim.fence().clone());
        // A run whose executor died again and again (each time it was
        // taken over, it took its host down with it: out of memory, a
        // kill) is quarantined instead of crashing every runner forever.
        let crashes = crashes_alone(&events);
        if snap.state == RunState::Running && crashes >= MAX_CRASHES {
            let outcome = self.quarantine(snap, &mut journal, crashes, &*claim).await;
            drop(journal);
            // It never runs again: its declared resources are finalized now (issue 19).
            crate::app::finalizers::finalize_held(self, id, &*claim).await;
            return outcome;
        }
        let services = self.services_for(&snap)?;
        let args = snap.args.clone();
        let span = tracing::info_span!("run", run_id = %id, continued = true);
        self.execute_existing(claim, snap, journal, loaded, &args, replay, services)
            .instrument(span)
            .await
    }

    /// Save a run's end as its journal recorded it (see
    /// [`journaled_end`]).
    async fn finish_from_journal(
        &self,
        mut snap: RunSnapshot,
        end: JournaledEnd,
        claim: &dyn hwf_core::store::Claim,
    ) -> Result<RunOutcome> {
        tracing::info!(run_id = %snap.run_id, state = end.state.as_str(), "the run ended before its snapshot said so; finished from its journal");
        snap.state = end.state;
        snap.result = end.result;
        snap.result_path = end.result_path;
        snap.error = end.error;
        snap.counts = end.counts;
        snap.finished_at_ms = Some(end.at_ms);
        snap.waits.clear();
        snap.live = None;
        self.save_claimed(&snap, SaveMode::Durable, claim).await?;
        Ok(RunOutcome {
            result: snap.result.clone(),
            snapshot: snap,
        })
    }

    /// The services a continuation runs with: this host's, under the run's
    /// recorded policy and limits, fixture and workspace.
    fn services_for(&self, snap: &RunSnapshot) -> Result<crate::broker::Services> {
        let mut services = self.services().clone();
        if let Some(settings) = &snap.settings {
            services.limits = settings.limits.clone();
            services.policy = settings.policy.clone();
            services.durability = settings.durability;
            if let Some(path) = &settings.agents_fixture {
                let runner: Arc<dyn AgentRunner> = Arc::new(FixtureRunner::from_file(path)?);
                services.agents = runner;
            }
            if let Some(ws) = &settings.workspace {
                // The built-ins re-rooted in the run's workspace; this
                // host's own capabilities (an embedder's) kept.
                let builtins = Registry::with_builtins_sandboxed(ws, settings.sandbox)?;
                services.capabilities = Arc::new(services.capabilities.with_builtins_from(&builtins));
            }
        }
        Ok(services)
    }
}

/// A run's end as its journal's last line records it.
#[derive(Debug)]
pub(crate) struct JournaledEnd {
    state: RunState,
    result: Option<Value>,
    result_path: Option<String>,
    error: Option<ErrorInfo>,
    counts: crate::store::Counts,
    at_ms: u64,
}

/// The terminal end a journal's last line records (`run_completed` with a
/// final state and the run's counts); `None` when the journal goes on past
/// it, the last execution parked or died, or the record is from a journal
/// format without counts (then the run is continued, as before).
pub(crate) fn journaled_end(events: &[JournalEntry]) -> Option<JournaledEnd> {
    let last = events.last()?;
    let Entry::RunCompleted {
        state,
        result,
        result_path,
        error,
        counts,
        ..
    } = &last.entry
    else {
        return None;
    };
    let state: RunState = serde_json::from_value(Value::String(state.clone())).ok()?;
    let counts = (*counts)?;
    state.is_terminal().then(|| JournaledEnd {
        state,
        result: result.clone(),
        result_path: result_path.clone(),
        error: error.clone(),
        counts,
        at_ms: last.ts_ms,
    })
}

/// Whether `w` is a question or an approval an operator has decided: the
/// run continues with the decision (a runner takes it), and nobody needs
/// to answer it again (the review queue leaves it out).
pub(crate) fn decided(w: &WaitInfo, controls: &Controls) -> bool {
    matches!(w.kind.as_str(), "human" | "approval") && controls.decision(&w.call).is_some()
}

/// Consecutive executions of a run that died alone in their process (see
/// [`crashes_alone`]) before the runner stops taking it over.
pub const MAX_CRASHES: usize = 3;

/// How many executions in a row, most recent first, started since the
/// run's last final record, never ended (each `run_started` without a
/// `run_completed` after it) and completed no call live (a run that is
/// killed again and again but gets further each time is making progress,
/// not looping), counting only those that had their process to themselves:
/// a runner with many slots dies with all its runs, and only one of them
/// (if any) is to blame. A scheduler continues a run with any crash
/// ([`crashes_any`]) alone in a process of its own, so a run that keeps
/// killing its host is still quarantined.
pub fn crashes_alone(events: &[JournalEntry]) -> usize {
    died(events).filter(|shared| !shared).count()
}

/// Every execution since the run's last final record that died, alone or
/// not, with progress or not: a run with any is continued alone in a
/// process of its own, so the one to blame is found.
pub fn crashes_any(events: &[JournalEntry]) -> usize {
    events
        .iter()
        .rev()
        .take_while(|e| !matches!(e.entry, Entry::RunCompleted { .. }))
        .filter(|e| matches!(e.entry, Entry::RunStarted { .. }))
        .count()
}

/// Whether each execution since the last final record, most recent first,
/// which died without completing a call live, shared its process; the
/// first one (going back) that made progress ends the streak.
fn died(events: &[JournalEntry]) -> impl Iterator<Item = bool> + '_ {
    let mut progressed = false;
    events
        .iter()
        .rev()
        .take_while(|e| !matches!(e.entry, Entry::RunCompleted { .. }))
        .filter_map(move |e| match e.entry {
            Entry::CallCompleted { replayed: false, .. } => {
                progressed = true;
                None
            }
            Entry::RunStarted { shared, .. } => Some((shared, std::mem::take(&mut progressed))),
            _ => None,
        })
        .take_while(|(_, progressed)| !progressed)
        .map(|(shared, _)| shared)
}

impl Hwf {
    /// End a crash-looping run as failed (`crash_loop`), with its final
    /// record, without running it again.
    async fn quarantine(
        &self,
        mut snap: RunSnapshot,
        journal: &mut Journal,
        crashes: usize,
        claim: &dyn hwf_core::store::Claim,
    ) -> Result<RunOutcome> {
        let error = ErrorInfo {
            code: ErrorCode::CrashLoop,
            message: format!(
                "the run's executor died {crashes} times in a row without finishing (the host ran out of memory or was killed); quarantined — inspect it, then `hwf run --resume-from {}` to try again",
                snap.run_id
            ),
        };
        tracing::warn!(run_id = %snap.run_id, crashes, "quarantining a crash-looping run");
        let last = journal.append(&crate::broker::Event::RunCompleted {
            state: RunState::Failed.as_str(),
            result: None,
            result_path: None,
            error: Some(&error),
            duration_ms: 0,
            counts: Some(&snap.counts),
        })?;
        snap.state = RunState::Failed;
        snap.error = Some(error);
        snap.live = None;
        snap.finished_at_ms = Some(now_ms());
        self.save_claimed(&snap, SaveMode::Durable, claim).await?;
        // The trace ends too: its root and the executions that died.
        if let Some(t) = &self.telemetry {
            t.execution_ended(&snap.run_id, crate::app::runs::trace_info(&snap), last);
        }
        Ok(RunOutcome {
            snapshot: snap,
            result: None,
        })
    }
}

/// Refuse to replay a run whose journal is gone: a run that started has at
/// least its `run_started` line, and replaying an empty journal would run
/// every completed call again.
///
/// # Errors
///
/// `corrupt_store` naming the run.
pub fn check_journal_present(snap: &RunSnapshot, events: &[JournalEntry]) -> Result<()> {
    if snap.state != RunState::Queued && events.is_empty() {
        return Err(Error::new(
            ErrorCode::CorruptStore,
            format!(
                "runs/{}/journal.jsonl is missing or empty, but the run started ({}); refusing to run its calls again — restore the journal, or start a new run",
                snap.run_id,
                snap.state.as_str()
            ),
        ));
    }
    Ok(())
}

/// The replay index of a run: the journals of the runs it was resumed
/// from (`sources`, oldest first) and its `own` journal, under its
/// controls: `retry` controls not yet consumed make their calls run live
/// again, once (consumed when the call has run).
pub fn replay_index(sources: &[Vec<JournalEntry>], own: &[JournalEntry], controls: &Controls) -> ReplayIndex {
    replay_index_observed(sources, own, controls, |_| {})
}

/// [`replay_index`], handing every journal entry to `observe` in the same
/// pass. The journals are scanned for consumed controls only when a
/// `retry` control exists.
pub fn replay_index_observed(
    sources: &[Vec<JournalEntry>],
    own: &[JournalEntry],
    controls: &Controls,
    observe: impl FnMut(&JournalEntry),
) -> ReplayIndex {
    let is_retry = |c: &&hwf_core::control::Control| c.action == crate::app::control::Action::Retry;
    let pending: Vec<(String, String)> = if controls.0.iter().any(|c| is_retry(&c)) {
        let mut consumed = ReplayIndex::consumed_in(own);
        for s in sources {
            consumed.extend(ReplayIndex::consumed_in(s));
        }
        controls
            .0
            .iter()
            .filter(|c| is_retry(c) && !consumed.contains(&c.id))
            .filter_map(|c| c.call.clone().map(|call| (c.id.clone(), call)))
            .collect()
    } else {
        Vec::new()
    };
    let calls = pending.iter().map(|(_, call)| call.clone()).collect();
    let mut index = ReplayIndex::from_lineage_observed(sources, own, &calls, observe);
    index.set_retries(pending);
    index
}

/// How many runs back a resume lineage is followed.
const MAX_LINEAGE: usize = 64;

impl Hwf {
    /// The journals of the runs a run was resumed from, oldest first,
    /// starting at `first` (the run it was resumed from).
    ///
    /// # Errors
    ///
    /// The store's codes; `corrupt_store` for a lineage deeper than 64
    /// runs or a missing journal of a run that started.
    pub(crate) fn lineage_journals(&self, first: Option<&RunId>) -> Result<Vec<Vec<JournalEntry>>> {
        self.lineage_read(first, false)
    }

    /// As [`Hwf::lineage_journals`], every payload read back in place
    /// (requests too: what a cassette or a plan's differences show).
    ///
    /// # Errors
    ///
    /// As [`Hwf::lineage_journals`].
    pub(crate) fn lineage_journals_whole(&self, first: Option<&RunId>) -> Result<Vec<Vec<JournalEntry>>> {
        self.lineage_read(first, true)
    }

    fn lineage_read(&self, first: Option<&RunId>, whole: bool) -> Result<Vec<Vec<JournalEntry>>> {
        lineage_read(self.store(), first, whole)
    }
}

/// The journals of a resume lineage starting at `first`, oldest first:
/// whole, or only what a replay reads.
pub(crate) fn lineage_read(store: &Store, first: Option<&RunId>, whole: bool) -> Result<Vec<Vec<JournalEntry>>> {
    let mut out = Vec::new();
    let mut next = first.cloned();
    while let Some(id) = next {
        if out.len() >= MAX_LINEAGE {
            return Err(Error::new(
                ErrorCode::CorruptStore,
                format!("the resume lineage of run {id} is more than {MAX_LINEAGE} runs deep"),
            ));
        }
        let snap = store.read_snapshot(&id)?;
        let events = if whole {
            store.read_entries(&id)?
        } else {
            store.read_entries_for_replay(&id)?
        };
        check_journal_present(&snap, &events)?;
        out.push(events);
        next = snap.resumed_from.clone();
    }
    out.reverse();
    Ok(out)
}

/// A decision answering a parked call, validated against what the call
/// asked (a `human.ask` question's schema and choices). Returns the call's
/// request fingerprint: the decision applies only to that exact request.
///
/// # Errors
///
/// `invalid_args` naming why the answer does not fit, `not_found` when the
/// run or call does not exist.
pub fn validate_decision(
    hwf: &Hwf,
    run: &RunId,
    call: &str,
    decision: Decision,
    value: Option<&Value>,
) -> Result<String> {
    let events = hwf.store().read_entries(run)?;
    let (request, fingerprint) = events
        .iter()
        .rev()
        .find_map(|e| match &e.entry {
            Entry::CallStarted {
                call: c,
                request,
                fingerprint,
                ..
            } if c == call => Some((request, fingerprint)),
            _ => None,
        })
        .ok_or_else(|| Error::new(ErrorCode::NotFound, format!("run {run} has no call {call}")))?;
    if decision == Decision::Respond && request.get("name").and_then(Value::as_str) == Some("human.ask") {
        let question = request.get("input").cloned().unwrap_or(json!({}));
        durable::check_answer(&question, value.unwrap_or(&Value::Null))
            .map_err(|e| Error::new(ErrorCode::InvalidArgs, format!("call {call}: {e}")))?;
    }
    Ok(fingerprint.clone())
}

#[cfg(test)]
mod crash_tests {
    use super::*;
    use serde_json::json;

    fn started(shared: bool) -> serde_json::Value {
        json!({"type": "run_started", "shared": shared})
    }

    fn done(call: &str, replayed: bool) -> serde_json::Value {
        json!({"type": "call_completed", "call": call, "ok": true, "result": 1, "tokens": 0,
               "attempts": 1, "duration_us": 1, "replayed": replayed})
    }

    /// Issue 29, finding 12: three kills in a row quarantined a run even
    /// when each execution got further; only executions without a live
    /// completion count, and a streak ends at one that made progress.
    #[test]
    fn only_executions_without_progress_count_as_a_crash_loop() {
        let progressing = hwf_core::journal::sketch::entries(vec![
            started(false),
            done("1", false),
            started(false),
            done("1", true),
            done("2", false),
            started(false),
            done("1", true),
            done("2", true),
            done("3", false),
        ]);
        assert_eq!(crashes_alone(&progressing), 0);
        assert_eq!(crashes_any(&progressing), 3, "every death still asks for isolation");
        let stuck = hwf_core::journal::sketch::entries(vec![
            started(false),
            done("1", false),
            started(false),
            done("1", true),
            started(true),
            done("1", true),
            started(false),
            done("1", true),
        ]);
        assert_eq!(
            crashes_alone(&stuck),
            2,
            "the last two died without progress; one shared its process"
        );
        let ended = hwf_core::journal::sketch::entries(vec![
            started(false),
            json!({"type": "run_completed", "state": "waiting", "duration_ms": 1}),
            started(false),
        ]);
        assert_eq!(crashes_alone(&ended), 1);
    }

    /// The plan's indexing of a 1,000-call journal, the old way (a scan
    /// for consumed controls per journal, the replay index, then the
    /// recorded calls: three passes) against one pass, interleaved;
    /// medians and their ratio. A benchmark, not a test: `cargo test -p
    /// hwf-host --lib -- --ignored --nocapture plan_indexing`.
    #[test]
    #[ignore = "a benchmark: run with --ignored --nocapture"]
    fn plan_indexing_one_pass_against_three() {
        use hwf_core::cassette::{CallCollector, Cassette};
        use std::time::{Duration, Instant};
        let mut sketch = vec![json!({"type": "run_started"})];
        for i in 0..1000 {
            let request = json!({"prompt": format!("task {i}"), "label": "echo"});
            let fp = hwf_core::fingerprint::Fingerprint::of("agent", &request);
            let call = (i + 1).to_string();
            sketch.push(
                json!({"type": "call_started", "call": call, "kind": "agent", "label": "echo",
                "fingerprint": fp.as_str(), "request": request}),
            );
            sketch.push(json!({"type": "call_completed", "call": call, "kind": "agent", "label": "echo",
                "fingerprint": fp.as_str(), "ok": true, "result": "ok", "tokens": 1, "attempts": 1, "duration_us": 300}));
        }
        let journals = vec![hwf_core::journal::sketch::entries(sketch)];
        let controls = Controls(Vec::new());
        let median = |mut v: Vec<Duration>| {
            v.sort_unstable();
            v[v.len() / 2]
        };
        let three_passes = || {
            let mut consumed = ReplayIndex::consumed_in(&[]);
            for j in &journals {
                consumed.extend(ReplayIndex::consumed_in(j));
            }
            let idx = ReplayIndex::from_lineage(&journals, &[], &Default::default());
            (idx, Cassette::recorded_calls(&journals))
        };
        let one_pass = || {
            let mut c = CallCollector::default();
            let idx = replay_index_observed(&journals, &[], &controls, |e| c.feed(e));
            (idx, c.recorded_calls())
        };
        let (mut three, mut one) = (Vec::new(), Vec::new());
        // Interleaved, in alternating order; what each builds is dropped
        // outside the timing.
        for round in 0..31 {
            for which in [round % 2, 1 - round % 2] {
                let t = Instant::now();
                let (idx, calls) = if which == 0 { three_passes() } else { one_pass() };
                let took = t.elapsed();
                assert_eq!((idx.len(), calls.len()), (1000, 1000));
                drop((idx, calls));
                if which == 0 { three.push(took) } else { one.push(took) }
            }
        }
        let (a, b) = (median(three), median(one));
        eprintln!(
            "plan indexing of a 1,000-call journal: three passes {:.2} ms, one pass {:.2} ms (median of 31, interleaved); ratio {:.2}",
            a.as_secs_f64() * 1e3,
            b.as_secs_f64() * 1e3,
            b.as_secs_f64() / a.as_secs_f64()
        );
    }
}
