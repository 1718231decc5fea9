//! The broker: the one pipeline every host call of a harness goes through.
//!
//! Stage order for an effectful call (agent, capability, branch, nested
//! workflow), with the file each stage is in:
//!
//! 1. **door** (`wit_host.rs`) — the WIT record becomes a typed request
//!    ([`AgentRequest`], [`CapabilityRequest`] in `request.rs`, a branch or
//!    workflow [`TaskSpec`] in `call.rs`) once; a field that is not JSON is
//!    kept and refused at stage 9;
//! 2. **controls and limits** (`mod.rs`, `RunContext::count_call`) — a stop
//!    ends the instance, a pause parks the run, exceeding `max_calls` ends
//!    it with `limit_calls`;
//! 3. **identity** (`instance.rs`, `call.rs`) — the next id in the
//!    instance's [`CallScope`](hwf_core::ids::CallScope); [`Call::new`]
//!    serialises the request once and takes its [`Fingerprint`] of
//!    `{kind, request}` and the redacted label and phase; a fingerprint that
//!    differs from the replay source makes this instance live from here on;
//! 4. **size** (`pipeline.rs`, `refuse_large`) — a leaf request over
//!    `max_request_bytes` is refused and journaled with a stand-in;
//! 5. **replay lookup** (`pipeline.rs`, index in `replay.rs`) — a leaf call
//!    matching a recorded success is answered from the journal and
//!    journaled `replayed`; in a walk (`walk.rs`: `hwf test`, a plan)
//!    every leaf call is answered here from recorded calls and nothing
//!    after this stage runs;
//! 6. **prompt cache** (`cache.rs`) — an identical prompt-agent call that
//!    succeeded in this run answers (`cache_hit`), unless `fresh`;
//! 7. **width** (`width.rs`) — leaf calls wait for a permit of the run's
//!    `max_parallel` pool (before `call_started`, so the journal shows
//!    what really ran at once);
//! 8. **journal** `call_started` (`pipeline.rs`, `journal.rs`; request
//!    redacted), then an operator's task stop is checked;
//! 9. **execute** (raced against a stop or task stop, `pipeline.rs`) —
//!    agent (`execute.rs`: agent type, options, schema, agent budget, the
//!    runner with schema retries, tokens and cost, the transcript; or a
//!    Kanban lane in `capabilities::kanban`), capability (`execute.rs`: an
//!    operator's decision, policy, capability budget, the handler, waits
//!    that park the run), branch or nested workflow (`children.rs`: depth
//!    and nesting limits, then a fresh instance through [`Instances`],
//!    built by [`ExecEnv`] in `instances.rs`; a `{scriptPath}` is confined
//!    to the workspace and saved scripts by `script_path.rs`); refusals are results like
//!    any other;
//! 10. **journal** `call_completed` (`pipeline.rs` `journal_completion`,
//!     `mod.rs` `journal_durable`, `journal.rs` group commit; result
//!     redacted; agents and capabilities flushed as the run's durability
//!     says, a pending `retry` control consumed in the same write); a call
//!     dropped before this point is journaled `cancelled`;
//! 11. **answer** the guest (`wit_host.rs`).
//!
//! Composite calls (`composite.rs`): `parallel` and `pipeline` journal
//! their own start and a summary completion around their slots (call
//! `n.i`, stage `n.i.s`), each slot a call through stages 4–10; `submit`
//! runs a call as a task of the instance's join set, `next` delivers in
//! completion order (the recorded order on replay) and journals each
//! delivery.
//!
//! `phase`, `log` and `budget` count toward `max_calls` but take no call id,
//! so adding a log line never shifts the ids of later calls.
//!
//! Files from the bottom up (each imports only those before it):
//! `request.rs`, `journal.rs`, `replay.rs` (its index), `call.rs` (what
//! every stage carries: [`TaskSpec`], [`CallResult`], [`Parent`],
//! [`Call`]), `width.rs`, `cache.rs`, `grants.rs` (a run's grant uses),
//! `walk.rs` (answering a walk's calls from recordings: `hwf test`, a
//! resume's plan), `execute.rs`, `children.rs`, `pipeline.rs`
//! ([`RunContext::run_call`]),
//! [`instance`] (the
//! per-instance broker behind the WIT imports, its join set),
//! `composite.rs`, [`wit_host`] (the door; `NoHost` for `meta`/`check`),
//! [`instances`] (building instance stores in the sandbox). This file
//! holds what they share: [`RunContext`] (one run's state) and
//! [`Services`].

mod cache;
pub mod call;
pub mod children;
mod composite;
mod execute;
mod grants;
pub mod instance;
pub mod instances;
pub mod journal;
mod pipeline;
pub mod replay;
pub mod request;
mod script_path;
mod turns;
pub mod walk;
mod width;
pub mod wit_host;

use crate::agents::{AgentBackend, AgentTypes, TokenUsage};
use crate::capabilities::{Policy, Registry};
use crate::store::Counts;
use crate::vm::limits::{HostTrap, Limits};
pub use call::{Call, CallResult, Parent, TaskSpec};
pub use children::{Child, Instances};
use hwf_core::error::{ErrorCode, Result};
pub use hwf_core::fingerprint::Fingerprint;
use hwf_core::ids::RunId;
use hwf_core::redact::{self, redacted};
use hwf_core::schema;
pub use instance::{BudgetFigures, InstanceBroker};
pub use instances::ExecEnv;
pub use journal::{CallErrorKind, CallFailure, Event, Journal};
pub use request::{AgentRequest, CapabilityRequest};
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
pub use wit_host::WitHost;

/// Live figures of a run, shared by all its instances.
#[derive(Debug, Default)]
struct RunStats {
    counts: Counts,
    phase: Option<String>,
    /// Calls started and not finished (all instances).
    running: u64,
    /// Tasks waiting for a width permit.
    queued: u64,
}

/// What a run calls out to: agent runner, capabilities, policy, limits,
/// agent types, and where transcripts go.
#[derive(Clone)]
pub struct Services {
    /// Answers agent calls.
    pub agents: Arc<dyn AgentBackend>,
    /// Registered capabilities.
    pub capabilities: Arc<Registry>,
    /// Capability policy.
    pub policy: Policy,
    /// Run limits and budgets.
    pub limits: Limits,
    /// Agent type definitions.
    pub agent_types: Arc<AgentTypes>,
    /// Store for transcripts and nested workflows (none: neither).
    pub store: Option<Arc<crate::store::Store>>,
    /// When completions are flushed relative to the guest seeing them.
    pub durability: journal::Durability,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("policy", &self.policy)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Services {
    /// Services with an agent runner and everything else default: no
    /// capabilities, default policy and limits, built-in agent types only.
    pub fn new(agents: Arc<dyn AgentBackend>) -> Self {
        Self {
            agents,
            capabilities: Arc::new(Registry::new()),
            policy: Policy::default(),
            limits: Limits::default(),
            agent_types: Arc::new(AgentTypes::default()),
            store: None,
            durability: journal::Durability::default(),
        }
    }
}

/// The sandbox with the broker answering its imports. (The sandbox's
/// types are generic over the host; every stage of the broker names them
/// through these two aliases, so a component a branch runs is a
/// [`LoadedComponent`] whatever file holds it.)
pub type Vm = crate::vm::Vm<WitHost>;

/// A component loaded into [`Vm`].
pub type LoadedComponent = crate::vm::LoadedComponent<WitHost>;

/// Everything one run's instances share: identity, journal, services,
/// counters, the width pool, the stop flag.
pub struct RunContext {
    run_id: RunId,
    journal: Mutex<Option<Journal>>,
    syncer: Option<Arc<journal::Syncer>>,
    services: Services,
    limits: Limits,
    stats: Mutex<RunStats>,
    started: Instant,
    stop: AtomicBool,
    width: Arc<width::Pool>,
    instances: Option<Arc<dyn Instances>>,
    tasks: Arc<TaskCount>,
    /// Deterministic turns for order-sensitive agent calls (`turns.rs`).
    turns: Arc<turns::Turns>,
    replay: Option<Arc<replay::ReplayIndex>>,
    prompt_cache: Mutex<std::collections::HashMap<String, (hwf_core::schema::AnswerRules, Value)>>,
    /// The first run of the resume lineage (this run's id when it has none).
    root_run_id: RunId,
    first_seen: Mutex<std::collections::HashMap<String, u64>>,
    parked: Mutex<Vec<crate::store::WaitInfo>>,
    pause: AtomicBool,
    task_stops: Mutex<std::collections::HashSet<String>>,
    controls_tx: tokio::sync::watch::Sender<u64>,
    /// Why the run must end besides a stop (controls that cannot be read).
    broken: Mutex<Option<HostTrap>>,
    /// The memory budget all the run's live instances draw from.
    memory: Arc<crate::vm::limits::RunMemory>,
    /// What agents reported each in-flight call cost (µUSD), until its
    /// completion is journaled.
    charges: Mutex<std::collections::HashMap<String, Charge>>,
    /// The run's transcripts file, opened at the first agent call (file
    /// store only): one open per execution, not one per call.
    transcripts: Mutex<Option<crate::store::TranscriptLog>>,
    /// The run's grants and their uses, read from its journal at the first
    /// `grant.act` (`grants.rs`); the lock makes a check and its charge one
    /// step among the run's concurrent calls.
    grants: tokio::sync::Mutex<Option<crate::capabilities::grants::Ledger>>,
    /// A walk (`hwf test`, a resume's plan): leaf calls are answered from
    /// recorded calls and never run (`walk.rs`).
    walk: Option<Arc<walk::Walk>>,
}

/// How a [`RunContext`] is put together ([`RunContext::builder`]).
pub struct RunContextBuilder {
    run_id: RunId,
    services: Services,
    journal: Option<Journal>,
    replay: Option<replay::ReplayIndex>,
    root_run_id: Option<RunId>,
    instances: Option<Arc<dyn Instances>>,
    walk: Option<Arc<walk::Walk>>,
}

impl std::fmt::Debug for RunContextBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunContextBuilder")
            .field("run_id", &self.run_id)
            .field("replay", &self.replay.is_some())
            .field("root_run_id", &self.root_run_id)
            .finish_non_exhaustive()
    }
}

impl RunContextBuilder {
    /// The journal the run writes (none: nothing is journaled).
    pub fn journal(mut self, journal: Journal) -> Self {
        self.journal = Some(journal);
        self
    }

    /// Answer calls from this index where they match (resume, continue).
    /// What the run's own journal records as run is charged to its budgets
    /// here, once; a call later answered from the own journal costs nothing
    /// again, and one answered from a source run (`--resume-from`) is
    /// charged what it cost there, so budgets hold over the whole lineage.
    pub fn replay(mut self, index: replay::ReplayIndex) -> Self {
        self.replay = Some(index);
        self
    }

    /// The first run of the resume lineage: idempotency keys and the
    /// guest's random seed derive from it (default: this run).
    pub fn root_run_id(mut self, id: RunId) -> Self {
        self.root_run_id = Some(id);
        self
    }

    /// What starts the run's branch instances and nested workflows (the
    /// sandbox, [`ExecEnv`]; a fake in the broker's tests). Without it,
    /// branches and nested workflows fail.
    pub fn instances(mut self, instances: Arc<dyn Instances>) -> Self {
        self.instances = Some(instances);
        self
    }

    /// Walk the script instead of running it: every agent and capability
    /// call is answered from `walk`'s recorded calls and noted there;
    /// nothing runs, parks or is charged (`walk.rs`).
    pub fn walk(mut self, walk: Arc<walk::Walk>) -> Self {
        self.walk = Some(walk);
        self
    }

    /// The run's context.
    pub fn build(self) -> Arc<RunContext> {
        let Self {
            run_id,
            services,
            journal,
            replay,
            root_run_id,
            instances,
            walk,
        } = self;
        let width = width::width_of(&services.limits);
        let memory = crate::vm::limits::RunMemory::new(services.limits.run_memory_bytes);
        let syncer = journal.as_ref().and_then(|j| j.syncer().ok()).map(Arc::new);
        let mut journal = journal;
        if let (Some(j), Some(index)) = (journal.as_mut(), replay.as_ref()) {
            j.remember_stored_requests(index.stored_requests());
        }
        let mut stats = RunStats::default();
        if let Some(index) = &replay {
            let charged = index.charged();
            stats.counts.agent_calls += charged.agent_calls;
            stats.counts.capability_calls += charged.capability_calls;
            stats.counts.tokens = stats.counts.tokens.saturating_add(charged.tokens);
            stats.counts.usage.add(&charged.usage);
            stats.counts.cost_micro_usd = stats.counts.cost_micro_usd.saturating_add(charged.cost_micro_usd);
        }
        let turns = Arc::new(turns::Turns::new());
        Arc::new(RunContext {
            root_run_id: root_run_id.unwrap_or_else(|| run_id.clone()),
            run_id,
            syncer,
            journal: Mutex::new(journal),
            limits: services.limits.clone(),
            services,
            stats: Mutex::new(stats),
            started: Instant::now(),
            stop: AtomicBool::new(false),
            width: width::Pool::new(turns.clone(), width),
            instances,
            tasks: Arc::new(TaskCount::default()),
            turns,
            replay: replay.map(Arc::new),
            prompt_cache: Mutex::new(std::collections::HashMap::new()),
            first_seen: Mutex::new(std::collections::HashMap::new()),
            parked: Mutex::new(Vec::new()),
            pause: AtomicBool::new(false),
            task_stops: Mutex::new(std::collections::HashSet::new()),
            controls_tx: tokio::sync::watch::Sender::new(0),
            broken: Mutex::new(None),
            memory,
            charges: Mutex::new(std::collections::HashMap::new()),
            transcripts: Mutex::new(None),
            grants: tokio::sync::Mutex::new(None),
            walk,
        })
    }
}

/// What one call was charged, kept until its completion line is written.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Charge {
    /// Reported cost, in millionths of a USD.
    pub cost_micro_usd: u64,
    /// Tokens by kind.
    pub usage: TokenUsage,
}

/// Why an in-flight call was interrupted.
pub(crate) enum Interrupt {
    /// The run was stopped.
    Stop,
    /// This call was stopped (`task_stop`).
    TaskStop,
}

/// Counts the run's spawned tasks so the run can wait until every aborted
/// task has really ended before it writes its final record.
#[derive(Debug, Default)]
pub(crate) struct TaskCount {
    live: std::sync::atomic::AtomicUsize,
    idle: tokio::sync::Notify,
}

/// Held by each spawned task; dropping it (task end or abort) counts down.
#[derive(Debug)]
pub(crate) struct TaskGuard(Arc<TaskCount>);

impl Drop for TaskGuard {
    fn drop(&mut self) {
        if self.0.live.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl std::fmt::Debug for RunContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunContext")
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl RunContext {
    /// A context for one run that replays nothing, starts no child
    /// instances and is the first of its lineage (finalizers, benchmarks);
    /// anything else is built with [`RunContext::builder`].
    pub fn new(run_id: RunId, journal: Option<Journal>, services: Services) -> Arc<Self> {
        let mut b = Self::builder(run_id, services);
        b.journal = journal;
        b.build()
    }

    /// Start building the context of run `run_id`: whatever the run is
    /// given (journal, replay index, lineage, child instances) is given
    /// before any instance runs, and stays as built.
    pub fn builder(run_id: RunId, services: Services) -> RunContextBuilder {
        RunContextBuilder {
            run_id,
            services,
            journal: None,
            replay: None,
            root_run_id: None,
            instances: None,
            walk: None,
        }
    }

    /// Apply the run's controls: stop, pause, task stops. Called at start
    /// and whenever `controls.jsonl` changes.
    pub fn apply_controls(&self, controls: &hwf_core::control::Controls) {
        if controls.stopped() {
            self.stop.store(true, Ordering::SeqCst);
        }
        self.pause.store(controls.paused(), Ordering::SeqCst);
        *lock(&self.task_stops) = controls.stopped_calls();
        self.controls_tx.send_modify(|g| *g += 1);
    }

    /// Resolves when the run is stopped or `call` is task-stopped.
    pub(crate) async fn interrupted(&self, call: &str) -> Interrupt {
        let mut rx = self.controls_tx.subscribe();
        loop {
            if self.stop_requested() {
                return Interrupt::Stop;
            }
            if lock(&self.task_stops).contains(call) {
                return Interrupt::TaskStop;
            }
            if rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    /// Whether `call` was task-stopped.
    pub(crate) fn task_stopped(&self, call: &str) -> bool {
        lock(&self.task_stops).contains(call)
    }

    /// When `call` first started, across resumes (ms since the epoch).
    pub fn first_started_ms(&self, call: &str) -> u64 {
        if let Some(ts) = self.replay().and_then(|i| i.first_started(call)) {
            return ts;
        }
        *lock(&self.first_seen)
            .entry(call.to_owned())
            .or_insert_with(crate::store::now_ms)
    }

    /// Record that `call` must wait, journal it, and return the trap that
    /// parks the run. A wait anywhere in the run's tree (a branch, a
    /// pipeline stage, a nested workflow) parks the whole run: the trap
    /// travels up through every composite call to the root.
    pub(crate) fn park(&self, call: &str, wait: crate::capabilities::WaitRequest) -> HostTrap {
        let info = crate::store::WaitInfo {
            call: call.to_owned(),
            kind: wait.kind,
            summary: redact::redact_text(&wait.summary).into_owned(),
            since_ms: crate::store::now_ms(),
            wake_at_ms: wait.wake_at_ms,
            detail: redacted(&wait.detail).into_owned(),
        };
        let mut parked = lock(&self.parked);
        if parked.iter().any(|w| w.call == info.call && w.kind == info.kind) {
            return HostTrap::new(ErrorCode::Waiting, format!("waiting: {}", info.summary));
        }
        // The run is only parked once its wait is durable: a wait the
        // journal lost could never be decided.
        if let Err(e) = self.journal(&Event::WaitStarted {
            call,
            kind: &info.kind,
            summary: &info.summary,
            wake_at_ms: info.wake_at_ms,
        }) {
            return HostTrap::new(e.code(), format!("the wait could not be journaled: {}", e.message()));
        }
        let trap = HostTrap::new(ErrorCode::Waiting, format!("waiting: {}", info.summary));
        parked.push(info);
        trap
    }

    /// What the run parked on (every wait reached in this execution).
    pub fn parked(&self) -> Vec<crate::store::WaitInfo> {
        lock(&self.parked).clone()
    }

    /// Whether `call` parked the run.
    pub(crate) fn is_parked(&self, call: &str) -> bool {
        lock(&self.parked).iter().any(|w| w.call == call)
    }

    /// The id the guest's random seed derives from: the first run of the
    /// resume lineage, so `--resume-from` sees the same random bytes.
    pub fn seed_run_id(&self) -> &RunId {
        &self.root_run_id
    }

    /// The replay index, if this run replays.
    pub fn replay(&self) -> Option<&Arc<replay::ReplayIndex>> {
        self.replay.as_ref()
    }

    /// `<root run id>:<call id>`: the same on every retry, resume and
    /// continuation.
    pub fn idempotency_key(&self, call_id: &str) -> String {
        format!("{}:{call_id}", self.root_run_id)
    }

    /// A guard to move into a spawned task.
    pub(crate) fn task_guard(&self) -> TaskGuard {
        self.tasks.live.fetch_add(1, Ordering::SeqCst);
        TaskGuard(self.tasks.clone())
    }

    /// Wait (up to `max`) until every task the run spawned has ended.
    /// Returns whether the run is idle.
    pub async fn wait_idle(&self, max: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + max;
        loop {
            let notified = self.tasks.idle.notified();
            if self.tasks.live.load(Ordering::SeqCst) == 0 {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return self.tasks.live.load(Ordering::SeqCst) == 0;
            }
        }
    }

    /// The run id.
    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// Charge what an agent reported a call cost (USD) to the run, and keep
    /// it for the call's completion line.
    pub(crate) fn charge_cost(&self, call: &str, usd: f64) {
        if !usd.is_finite() || usd <= 0.0 {
            return;
        }
        let micro = (usd * 1e6).round().min(u64::MAX as f64) as u64;
        {
            let mut stats = lock(&self.stats);
            stats.counts.cost_micro_usd = stats.counts.cost_micro_usd.saturating_add(micro);
        }
        let mut charges = lock(&self.charges);
        let c = charges.entry(call.to_owned()).or_default();
        c.cost_micro_usd = c.cost_micro_usd.saturating_add(micro);
    }

    /// Charge `call` the tokens it processed, by kind: the run's split
    /// (its total is counted where the call's tokens are) and the call's
    /// completion line.
    pub(crate) fn charge_usage(&self, call: &str, usage: &TokenUsage) {
        if usage.is_empty() {
            return;
        }
        lock(&self.stats).counts.usage.add(usage);
        lock(&self.charges).entry(call.to_owned()).or_default().usage.add(usage);
    }

    /// What `call` was charged (taken for its completion line).
    pub(crate) fn take_charge(&self, call: &str) -> Charge {
        lock(&self.charges).remove(call).unwrap_or_default()
    }

    /// The run-wide memory budget (live instances together).
    pub fn memory_budget(&self) -> &Arc<crate::vm::limits::RunMemory> {
        &self.memory
    }

    /// The run's limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The run's services.
    pub fn services(&self) -> &Services {
        &self.services
    }

    /// Time since the run context was created.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Ask the run to stop: the next host call or epoch check of every
    /// instance ends it.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was requested.
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// End the run with `trap` at its next host call or epoch check, and
    /// interrupt in-flight calls (the control plane failed under it).
    pub fn fail(&self, trap: HostTrap) {
        tracing::error!(code = trap.code.as_str(), message = %trap.message, "run ends: control plane failure");
        lock(&self.broken).get_or_insert(trap);
        self.stop.store(true, Ordering::SeqCst);
        self.controls_tx.send_modify(|g| *g += 1);
    }

    /// The trap a stopped run ends with: `stopped`, or the failure that
    /// ended it.
    pub(crate) fn stop_trap(&self) -> HostTrap {
        lock(&self.broken)
            .clone()
            .unwrap_or_else(|| HostTrap::new(ErrorCode::Stopped, "the run was stopped"))
    }

    /// Current counters.
    pub fn counts(&self) -> Counts {
        lock(&self.stats).counts
    }

    /// Calls running and tasks queued right now.
    pub fn in_flight(&self) -> (u64, u64) {
        let s = lock(&self.stats);
        (s.running, s.queued)
    }

    /// Current phase.
    pub fn phase(&self) -> Option<String> {
        lock(&self.stats).phase.clone()
    }

    /// Append an event to the journal.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn journal(&self, event: &Event<'_>) -> Result<u64> {
        self.journal_all(std::slice::from_ref(event))
    }

    /// Append events to the journal as one write (all or none survive a
    /// crash).
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn journal_all(&self, events: &[Event<'_>]) -> Result<u64> {
        match lock(&self.journal).as_mut() {
            Some(j) => j.append_all(events),
            None => Ok(0),
        }
    }

    /// Make everything journaled so far durable. The file store syncs a
    /// run's start, end and waits inline; a shared store's lines are only
    /// durable once its writer committed them, so an execution calls this
    /// after its start and its final record.
    ///
    /// # Errors
    ///
    /// The store's (`conflict` once the claim was taken over, `io`).
    pub async fn flush_journal(&self) -> Result<()> {
        let seq = match lock(&self.journal).as_ref() {
            Some(j) if j.is_shared() => j.seq(),
            _ => return Ok(()),
        };
        match &self.syncer {
            Some(s) => s.sync_to(seq).await,
            None => Ok(()),
        }
    }

    /// Run-level checks made on every epoch tick of every instance: stop and
    /// the wall-clock limit; and the journal's deferred lines are written.
    ///
    /// # Errors
    ///
    /// The trap that ends the instance.
    pub fn check_run(&self) -> Result<(), HostTrap> {
        if self.stop_requested() {
            return Err(self.stop_trap());
        }
        if self.elapsed() > self.limits.wall() {
            return Err(HostTrap::new(
                ErrorCode::Timeout,
                format!("the run exceeded its wall-clock limit of {} ms", self.limits.wall_ms),
            ));
        }
        // Lines held back reach the file within a tick of the guest
        // going on without a host call.
        self.flush_deferred()
    }

    /// Append a completion and make it durable as the run's durability
    /// mode says: wait for the flush (`sync`; `group` after a short window
    /// for others to share it), or flush in the background (`async`) —
    /// unless `must_sync` (an effect that is not replay-safe).
    pub(crate) async fn journal_durable(&self, events: &[Event<'_>], must_sync: bool) -> Result<(), HostTrap> {
        let seq = self.journal_all(events).map_err(journal_trap)?;
        let Some(s) = &self.syncer else {
            return Ok(());
        };
        let mode = if must_sync {
            journal::Durability::Sync
        } else {
            self.services.durability
        };
        let window = match mode {
            journal::Durability::Sync => None,
            // The window only pays when other calls may complete within it.
            journal::Durability::Group if lock(&self.stats).running > 1 => Some(journal::GROUP_WINDOW),
            journal::Durability::Group => None,
            journal::Durability::Async => {
                s.kick(seq);
                return Ok(());
            }
        };
        s.sync_to_after(seq, window)
            .await
            .map_err(|e| HostTrap::new(e.code(), format!("journal sync failed: {}", e.message())))
    }

    /// Journal the delivery of `call` with the next line written
    /// ([`journal::Journal::defer_delivered`]).
    pub(crate) fn journal_delivered(&self, call: &str) -> Result<(), HostTrap> {
        self.journal_deferred(&[Event::Delivered { call }])
    }

    /// Journal events as one group of lines held back for the next write
    /// ([`journal::Journal::defer_all`]): lines that record what happened
    /// without effect of their own (a call replayed from a journal).
    pub(crate) fn journal_deferred(&self, events: &[Event<'_>]) -> Result<(), HostTrap> {
        match lock(&self.journal).as_mut() {
            Some(j) => j.defer_all(events).map(|_| ()).map_err(journal_trap),
            None => Ok(()),
        }
    }

    /// Write the lines [`RunContext::journal_delivered`] and
    /// [`RunContext::journal_deferred`] held back, if any: before the
    /// guest waits, and on the epoch tick, so a guest that computes for a
    /// long while after a replay does not keep its record from readers.
    pub(crate) fn flush_deferred(&self) -> Result<(), HostTrap> {
        match lock(&self.journal).as_mut() {
            Some(j) if j.has_deferred() => j.flush_deferred().map(|_| ()).map_err(journal_trap),
            _ => Ok(()),
        }
    }

    /// [`RunContext::journal_all`], a failed write a trap.
    pub(crate) fn journal_or_trap_all(&self, events: &[Event<'_>]) -> Result<(), HostTrap> {
        self.journal_all(events).map(|_| ()).map_err(journal_trap)
    }

    pub(crate) fn journal_or_trap(&self, event: &Event<'_>) -> Result<(), HostTrap> {
        self.journal_or_trap_all(std::slice::from_ref(event))
    }

    /// Count one host call; trap when the run is stopped, paused or over
    /// `max_calls`.
    pub(crate) fn count_call(&self) -> Result<(), HostTrap> {
        if self.stop_requested() {
            return Err(self.stop_trap());
        }
        if self.pause.load(Ordering::SeqCst) {
            let wait = crate::capabilities::WaitRequest {
                kind: "pause".into(),
                summary: "paused by an operator".into(),
                wake_at_ms: None,
                detail: Value::Null,
            };
            return Err(self.park("", wait));
        }
        let mut stats = lock(&self.stats);
        stats.counts.calls += 1;
        if stats.counts.calls > self.limits.max_calls {
            return Err(HostTrap::new(
                ErrorCode::LimitCalls,
                format!("the run made more than {} host calls", self.limits.max_calls),
            ));
        }
        Ok(())
    }

    pub(crate) fn set_phase(&self, title: &str) {
        lock(&self.stats).phase = Some(title.to_owned());
    }

    fn instances(&self) -> Option<&Arc<dyn Instances>> {
        self.instances.as_ref()
    }
}

/// The trap a failed journal write ends the instance with (its code is the
/// store's: `io`, `journal_limit`, `conflict`, …).
fn journal_trap(e: hwf_core::error::Error) -> HostTrap {
    HostTrap::new(e.code(), format!("journal write failed: {}", e.message()))
}

#[cfg(test)]
mod tests;
