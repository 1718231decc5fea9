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
use hwf_core::error::Result;
use hwf_core::ids::RunId;
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

pub use crate::app::host::Isolate;
pub use crate::config::{DEFAULT_CONCURRENCY, MAX_CONCURRENCY, check_concurrency};

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
        report.needs_host.clone_from(&scan.needs_host);
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
        // Only runs whose needs this host meets (a task queue by capability set).
        let offered = self.hwf.capabilities().offered();
        loop {
            let Some(permit) = self.slot(wait).await else { break };
            let claim = match self.hwf.store().claim_next(states, &offered).await? {
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
                let turn = hwf.take_turn(&id).await;
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

/// How often the in-process runner of a long-lived front door (`hwf mcp`,
/// `hwf serve`) looks at the store when nothing wakes it.
pub const IN_PROCESS_SCAN: std::time::Duration = std::time::Duration::from_millis(200);

/// How long the in-process runner leaves a run it could not continue
/// before trying again (sooner when a control is recorded on it).
pub const IN_PROCESS_RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(30);

/// What a front door does around its in-process runner.
pub trait InProcessHooks: Send + Sync + 'static {
    /// Every snapshot a scan reads (`first`: during the first scan).
    fn seen(&self, _snap: &RunSnapshot, _first: bool) {}
    /// A pass over `run` ended (it may have finished, parked or failed).
    fn passed(&self, _run: &RunId) {}
}

/// The in-process runner of a long-lived front door: a
/// [`Scheduler`] with `concurrency`
/// slots that scans the store every [`IN_PROCESS_SCAN`], when `wake` is
/// notified, and soon after a turn ends with nothing left to start, and
/// takes a turn ([`Hwf::take_turn`]) on each run that has something to do
/// (queued, ready, stuck, stop-requested), up to `concurrency` at once. A
/// run that could not be continued is named once and left for
/// [`IN_PROCESS_RETRY_AFTER`] unless its controls change. Runs forever;
/// abort the task to stop it.
pub async fn run_in_process(
    hwf: Arc<Hwf>,
    wake: Arc<tokio::sync::Notify>,
    hooks: Arc<dyn InProcessHooks>,
    concurrency: usize,
) {
    use std::collections::HashMap;
    use std::time::Instant;
    let mut scheduler = Scheduler::new(hwf.clone(), concurrency);
    let mut failed: HashMap<RunId, (Instant, u64)> = HashMap::new();
    let status = crate::app::background::RunnerStatus::publish(
        hwf.state_dir(),
        "in-process",
        scheduler.capacity(),
        crate::app::background::RunnerScope {
            until_stopped: true,
            shared_store: hwf.store().is_shared(),
        },
    );
    let mut first = true;
    // A shared store's notifications (work queued elsewhere, a decision,
    // an event) wake the scan at once.
    if let Some(mut work) = hwf.store().watch_work() {
        let wake = wake.clone();
        tokio::spawn(async move {
            while work.changed().await.is_ok() {
                wake.notify_one();
            }
        });
    }
    loop {
        let skip = |id: &RunId| {
            failed
                .get(id)
                .is_some_and(|(at, len)| at.elapsed() < IN_PROCESS_RETRY_AFTER && *len == hwf.store().controls_len(id))
        };
        if let Err(e) = scheduler.scan(Listing::All, &skip, &mut |snap| hooks.seen(snap, first)) {
            tracing::warn!(error = %e, "the in-process runner cannot list runs");
        }
        first = false;
        if let Err(e) = scheduler.dispatch(false).await {
            tracing::warn!(error = %e, "the in-process runner cannot take work from the store");
        }
        status.update(scheduler.in_flight());
        let scanned = Instant::now();
        let mut rescan_at = scanned + IN_PROCESS_SCAN;
        loop {
            tokio::select! {
                () = wake.notified() => break,
                () = tokio::time::sleep_until(rescan_at.into()) => break,
                Some((run, left)) = scheduler.next_finished() => {
                    for (r, e) in scheduler.take_report().errors {
                        tracing::warn!(run_id = %r, code = e.code.as_str(), "run left as it is: {}", e.message);
                    }
                    if left {
                        failed.insert(run.clone(), (Instant::now(), hwf.store().controls_len(&run)));
                    } else {
                        failed.remove(&run);
                    }
                    hooks.passed(&run);
                    if let Err(e) = scheduler.dispatch(false).await {
                        tracing::warn!(error = %e, "the in-process runner cannot take work from the store");
                    }
                    status.update(scheduler.in_flight());
                    // Nothing left from the last scan: the run may have
                    // more to do (a control recorded while it ran), and
                    // runs may have become ready meanwhile. Look again
                    // soon, but not once per ended turn.
                    if scheduler.backlog_len() == 0 {
                        rescan_at = rescan_at.min((scanned + RESCAN_GAP).max(Instant::now()));
                    }
                }
            }
        }
    }
}

/// The least time between two scans of a scheduler whose turns end one
/// after another.
pub const RESCAN_GAP: std::time::Duration = std::time::Duration::from_millis(20);
