//! The runner's scheduler: up to N runs executing at once in one process.
//!
//! Agents take seconds to minutes per call, so a runner that executed one
//! run at a time would leave the machine idle while it waited on one
//! agent. A [`Scheduler`] holds a number of **slots** (`--concurrency`,
//! `[runner] concurrency`): each run it takes a turn on
//! ([`Hwf::take_turn`]) runs as a task of its own while it holds a slot,
//! and the scheduler starts the next one as soon as a slot frees.
//!
//! - **Order**: each scan ([`Hwf::scan`]) lists continuations (answered,
//!   stuck, stop-requested runs) before queued ones, each oldest first, and
//!   the scheduler dispatches in that order, so a flood of queued runs never
//!   starves the runs already answered.
//! - **Shared stores**: a runner asks the store for work (`claim_next`)
//!   only while it has a free slot, so the runners on other machines take
//!   the rest; a handed-out run whose turn failed keeps its claim until the
//!   next scan, so the store hands out other work meanwhile.
//! - **Bounds**: [`MAX_CONCURRENCY`] keeps the runs in flight within what the
//!   pooled engine holds (1,000 live instances: four per run at the cap,
//!   a root and its branches).
//! - **Blame**: a process with many runs in flight dies with all of them,
//!   and at most one is to blame. Executions are journaled as `shared`, a
//!   death in a shared process does not count towards a run's crash-loop
//!   quarantine, and a run whose executor died is continued alone in a
//!   process of its own ([`Isolate`]), where a death does count.
//! - **Shutdown**: [`Scheduler::stop_claiming`] stops new turns;
//!   [`Scheduler::drain`] waits for the runs in flight, and
//!   [`Scheduler::release`] ends them where they are, dropping their claims
//!   so another runner continues them at once (the in-flight calls run
//!   again there, as after a crash; every completed call replays).

use crate::app::claim::ExecClaim;
use crate::app::host::Hwf;
use crate::app::runner::{Listing, PassReport, Turn};
use crate::store::{RunSnapshot, RunState};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

/// Continues a run alone in a process of its own and returns when that
/// process has ended (see [`crate::HwfBuilder::isolation`]).
pub type Isolate = Arc<dyn Fn(RunId) -> futures_util::future::BoxFuture<'static, Result<()>> + Send + Sync>;

/// Runs in flight per runner when nothing says otherwise: sized for
/// agent-bound work (a run spends nearly all its time waiting on agents).
pub const DEFAULT_CONCURRENCY: usize = 64;

/// The most runs one process executes at once: a quarter of the pooled
/// engine's 1,000 live instances, so each run in flight can hold its root
/// instance and three branches or stages at once.
pub const MAX_CONCURRENCY: usize = 250;

/// Check a concurrency setting (`--concurrency`, `[runner] concurrency`).
///
/// # Errors
///
/// `invalid_args` naming the setting and the range.
pub fn check_concurrency(what: &str, n: u64) -> Result<usize> {
    match usize::try_from(n) {
        Ok(n) if (1..=MAX_CONCURRENCY).contains(&n) => Ok(n),
        _ => Err(Error::new(
            ErrorCode::InvalidArgs,
            format!("{what} = {n} is out of range: expected 1 to {MAX_CONCURRENCY} runs at once"),
        )),
    }
}

/// A finished turn.
struct Finished {
    run: RunId,
    /// The state a handed-out run was in when the store handed it out
    /// (queued or stuck); `None` for a scanned run.
    handed: Option<RunState>,
    turn: Turn,
}

/// Runs executing at once, within a number of slots. See the module docs.
pub struct Scheduler {
    hwf: Arc<Hwf>,
    slots: Arc<Semaphore>,
    capacity: usize,
    /// Runs with a turn in flight (never dispatched twice).
    in_flight: HashSet<RunId>,
    tasks: JoinSet<Finished>,
    /// What the last scan said to do, not yet dispatched.
    backlog: VecDeque<RunId>,
    /// Claims of handed-out runs whose turn failed, held until the next
    /// scan.
    held: Vec<ExecClaim>,
    /// Runs seen finished: never read again.
    finished: HashSet<RunId>,
    claiming: bool,
    /// Whether the last scan looked at the whole store (not one run).
    whole_store: bool,
    report: PassReport,
    /// Runs already named in the report's found lists.
    reported: HashSet<RunId>,
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler")
            .field("capacity", &self.capacity)
            .field("in_flight", &self.in_flight.len())
            .field("backlog", &self.backlog.len())
            .finish_non_exhaustive()
    }
}

impl Scheduler {
    /// A scheduler executing up to `capacity` runs of `hwf` at once
    /// (clamped to 1..=[`MAX_CONCURRENCY`]).
    pub fn new(hwf: Arc<Hwf>, capacity: usize) -> Self {
        let capacity = capacity.clamp(1, MAX_CONCURRENCY);
        hwf.set_shared_executor(capacity > 1);
        Self {
            hwf,
            slots: Arc::new(Semaphore::new(capacity)),
            capacity,
            in_flight: HashSet::new(),
            tasks: JoinSet::new(),
            backlog: VecDeque::new(),
            held: Vec::new(),
            finished: HashSet::new(),
            claiming: true,
            whole_store: true,
            report: PassReport::default(),
            reported: HashSet::new(),
        }
    }

    /// Runs executing now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Runs the last scan found to do that have not started yet.
    pub fn backlog_len(&self) -> usize {
        self.backlog.len()
    }

    /// The number of slots.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether the run has a turn in flight here.
    pub fn is_busy(&self, run: &RunId) -> bool {
        self.in_flight.contains(run)
    }

    /// Scan the runs `listing` names and replace
    /// the backlog with what it found to do, in its order. Runs in flight
    /// here, runs seen finished and runs `skip` names are not read; `seen`
    /// gets every snapshot read. Claims held since the last scan are
    /// released first. Calendar triggers are fired (enqueued) before a full
    /// scan.
    ///
    /// # Errors
    ///
    /// `io` when the runs cannot be listed.
    pub fn scan(
        &mut self,
        listing: Listing<'_>,
        skip: &dyn Fn(&RunId) -> bool,
        seen: &mut dyn FnMut(&RunSnapshot),
    ) -> Result<crate::app::runner::Scan> {
        self.held.clear();
        // A scan of one run (`hwf runner --run`) takes nothing else: no
        // calendar starts, no work the store hands out.
        self.whole_store = !matches!(listing, Listing::Only(_));
        if self.whole_store && self.claiming {
            crate::app::triggers::cron_pass(&self.hwf);
        }
        let (in_flight, finished) = (&self.in_flight, &self.finished);
        let skip = |id: &RunId| in_flight.contains(id) || finished.contains(id) || skip(id);
        let mut scan = self.hwf.scan(listing, &skip, seen)?;
        self.finished.extend(scan.finished.drain(..));
        self.backlog = scan.work.iter().cloned().collect();
        let reported = &mut self.reported;
        let mut first = |id: &RunId| reported.insert(id.clone());
        let report = &mut self.report;
        report.queued.extend(scan.queued.iter().filter(|id| first(id)).cloned());
        report.ready.extend(scan.ready.iter().filter(|id| first(id)).cloned());
        report.stuck.extend(scan.stuck.iter().filter(|id| first(id)).cloned());
        report.waiting.clone_from(&scan.waiting);
        report.errors.extend(scan.errors.iter().cloned());
        Ok(scan)
    }

    /// Start turns while slots are free: the backlog first (in its order),
    /// then, on a store that hands out work, what the store hands out. With
    /// `wait`, wait for slots until the backlog and the store's work are
    /// both taken (one pass, `hwf runner --once`); without, start only what
    /// free slots allow now. Returns how many turns started.
    ///
    /// # Errors
    ///
    /// The store's errors asking for work.
    pub async fn dispatch(&mut self, wait: bool) -> Result<usize> {
        let mut started = 0;
        if !self.claiming {
            return Ok(0);
        }
        while let Some(id) = self.backlog.front().cloned() {
            let Some(permit) = self.slot(wait).await else { break };
            self.backlog.pop_front();
            if self.in_flight.contains(&id) {
                continue;
            }
            self.start_turn(id, permit);
            started += 1;
        }
        if !self.backlog.is_empty() || !self.whole_store {
            return Ok(started);
        }
        // A shared store hands out queued runs and stuck ones (their lease
        // expired), one per free slot; racing runners each get another.
        // With an isolation, stuck runs come from the scan only, so the
        // process of their own can take their claim.
        let states: &[RunState] = if self.hwf.isolation.is_some() {
            &[RunState::Queued]
        } else {
            &[RunState::Queued, RunState::Running]
        };
        loop {
            let Some(permit) = self.slot(wait).await else { break };
            let claim = match self.hwf.store().claim_next(states).await? {
                Some(Some(claim)) => ExecClaim::from(claim),
                // The store hands out nothing (the file store), or nothing
                // is left.
                Some(None) | None => break,
            };
            let id = claim.fence().run().clone();
            self.in_flight.insert(id.clone());
            let hwf = self.hwf.clone();
            self.tasks.spawn(async move {
                let _permit = permit;
                let (state, turn) = hwf.take_handed_turn(claim).await;
                Finished {
                    run: id,
                    handed: Some(state),
                    turn,
                }
            });
            started += 1;
        }
        Ok(started)
    }

    /// A free slot: waited for with `wait`, else only if one is free now.
    async fn slot(&self, wait: bool) -> Option<OwnedSemaphorePermit> {
        if wait {
            self.slots.clone().acquire_owned().await.ok()
        } else {
            self.slots.clone().try_acquire_owned().ok()
        }
    }

    fn start_turn(&mut self, id: RunId, permit: OwnedSemaphorePermit) {
        self.in_flight.insert(id.clone());
        let hwf = self.hwf.clone();
        let span = tracing::info_span!("turn", run_id = %id);
        self.tasks.spawn(tracing::Instrument::instrument(
            async move {
                let _permit = permit;
                let turn = match hwf.isolation_for(&id) {
                    Some(isolate) => hwf.isolated_turn(&id, isolate).await,
                    None => hwf.take_turn(&id).await,
                };
                Finished {
                    run: id,
                    handed: None,
                    turn,
                }
            },
            span,
        ));
    }

    /// Wait for the next turn to end and record it; `None` when nothing is
    /// in flight. Returns the run and whether its turn failed.
    pub async fn next_finished(&mut self) -> Option<(RunId, bool)> {
        loop {
            let joined = self.tasks.join_next().await?;
            match joined {
                Ok(done) => return Some(self.record(done)),
                // A turn that panicked: its run is left as it is (stuck,
                // continued by the next scan, quarantined if it keeps
                // dying); the scheduler goes on.
                Err(e) if e.is_panic() => {
                    tracing::error!("a runner turn panicked: {e}");
                    self.forget_ended();
                }
                Err(_) => self.forget_ended(),
            }
        }
    }

    /// After a task ended without saying which run it had (a panic, an
    /// abort): drop the busy marks of runs no task holds.
    fn forget_ended(&mut self) {
        if self.tasks.is_empty() {
            self.in_flight.clear();
        }
    }

    fn record(&mut self, done: Finished) -> (RunId, bool) {
        self.in_flight.remove(&done.run);
        let report = &mut self.report;
        match done.handed {
            Some(RunState::Queued) if self.reported.insert(done.run.clone()) => report.queued.push(done.run.clone()),
            Some(state) if state != RunState::Queued && self.reported.insert(done.run.clone()) => {
                report.stuck.push(done.run.clone());
            }
            _ => {}
        }
        let failed = match done.turn {
            Turn::Nothing => false,
            // A run that ended is read once more by the next scan (which
            // then never reads it again), so a watcher's `seen` hook sees
            // its end.
            Turn::Executed(state) => {
                report.executed.push((done.run.clone(), state));
                false
            }
            Turn::Stopped => {
                report.stopped.push(done.run.clone());
                false
            }
            Turn::Failed(info, claim) => {
                report.errors.push((done.run.clone(), info));
                self.held.extend(claim);
                true
            }
        };
        (done.run, failed)
    }

    /// Wait until nothing is in flight.
    pub async fn drain(&mut self) {
        while self.next_finished().await.is_some() {}
    }

    /// Stop starting turns (a shutdown): the backlog is dropped and no
    /// work is asked of the store; the turns in flight go on.
    pub fn stop_claiming(&mut self) {
        self.claiming = false;
        self.backlog.clear();
    }

    /// End the turns in flight where they are and drop their claims, so
    /// another runner continues those runs at once. Returns how many were
    /// released.
    pub async fn release(&mut self) -> usize {
        let n = self.in_flight.len();
        self.tasks.abort_all();
        while self.tasks.join_next().await.is_some() {}
        self.in_flight.clear();
        self.held.clear();
        n
    }

    /// What the turns so far did (taken: the next report starts empty).
    pub fn take_report(&mut self) -> PassReport {
        std::mem::take(&mut self.report)
    }
}
