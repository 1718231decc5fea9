//! Composite calls: `parallel`, `pipeline`, and the join set behind
//! `submit` / `next` / `cancel` (its state is `Joins`, in `instance.rs`).
//! Each slot, stage or submitted task is a call through the pipeline
//! (`pipeline.rs`, stages 4–10); `parallel` and `pipeline` journal their
//! own start and a summary completion around their slots.
//!
//! Every task runs as a tokio task in a `JoinSet`, so dropping the set
//! (the instance ending for any reason) aborts whatever is still running.
//! Agent and capability tasks also take a permit of the run-wide width
//! semaphore; each `parallel`/`pipeline` call and each join set additionally
//! bounds its own in-flight tasks to `max_parallel`, which bounds branch
//! instances too. Results come back in input order; `next` delivers in
//! completion order and journals each delivery.
//!
//! Call ids: `parallel` call `n`, slot `i` (0-based) is call `n.i`; a branch
//! there numbers its calls `n.i.1`, …; pipeline item `i`, stage `s` is call
//! `n.i.s`; a task submitted as call `n` is `n`.

use super::call::{Call, CallResult, Parent, TaskSpec};
use super::instance::InstanceBroker;
use super::turns::Busy;
use super::width::{Pool, queued, width_of};
use super::{CallErrorKind, CallFailure, Event, RunContext};
use crate::vm::limits::HostTrap;
use hwf_core::fingerprint::Fingerprint;
use hwf_core::redact::redacted;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use tokio::task::{Id, JoinSet};

/// One slot's outcome.
pub(super) type Slot = Result<Value, CallFailure>;

/// A composite call whose completion is not journaled yet.
struct OpenComposite {
    run: Arc<RunContext>,
    id: String,
    kind: &'static str,
    fp: Fingerprint,
    closed: bool,
}

impl OpenComposite {
    /// A trap ends the composite: a park leaves it open (it resumes on the
    /// continuation); anything else closes it as `cancelled` on drop.
    fn trapped(&mut self, trap: HostTrap) -> HostTrap {
        if trap.code == hwf_core::error::ErrorCode::Waiting {
            self.closed = true;
        }
        trap
    }
}

impl Drop for OpenComposite {
    fn drop(&mut self) {
        if self.closed {
            return;
        }
        let failure = cancelled("the run ended before the call finished");
        let _ = self
            .run
            .journal(&Event::unfinished(&self.id, self.kind, self.fp.as_str(), &failure));
    }
}

fn cancelled(why: &str) -> CallFailure {
    CallFailure::new(CallErrorKind::Cancelled, "cancelled", why)
}

impl InstanceBroker {
    /// Start the journaled record of a composite call (`parallel`,
    /// `pipeline`); the returned record journals the call `cancelled` if it
    /// is dropped before [`InstanceBroker::end_composite`] closes it (the
    /// run stopped or timed out under it), so no composite stays open in
    /// the journal.
    fn begin_composite(&mut self, kind: &'static str, request: &Value) -> Result<OpenComposite, HostTrap> {
        self.run.count_call()?;
        let id = self.scope.next_id();
        let fp = Fingerprint::of(kind, request);
        self.note_divergence(&id, &fp);
        let stored = redacted(request);
        self.run.journal_or_trap(&Event::CallStarted {
            call: &id,
            kind,
            label: None,
            phase: None,
            fingerprint: fp.as_str(),
            request: &stored,
        })?;
        Ok(OpenComposite {
            run: self.run.clone(),
            id,
            kind,
            fp,
            closed: false,
        })
    }

    fn end_composite(&self, open: &mut OpenComposite, slots: &[Slot], t0: Instant) -> Result<(), HostTrap> {
        open.closed = true;
        let failed = slots.iter().filter(|s| s.is_err()).count();
        let summary = json!({"slots": slots.len(), "ok": slots.len() - failed, "failed": failed});
        self.run.journal_or_trap(&Event::CallCompleted {
            call: &open.id,
            kind: open.kind,
            label: None,
            fingerprint: open.fp.as_str(),
            ok: true,
            result: Some(&summary),
            error: None,
            tokens: 0,
            usage: crate::agents::TokenUsage::default(),
            cost_micro_usd: 0,
            attempts: 1,
            duration_us: t0.elapsed().as_micros() as u64,
            replayed: false,
            cache_hit: false,
        })
    }

    fn width(&self) -> usize {
        width_of(self.run.limits())
    }

    fn too_many(&self, n: usize) -> Option<CallFailure> {
        let max = self.run.limits().max_items;
        (n as u64 > max).then(|| refused("too_many_tasks", format!("{n} tasks in one call; the limit is {max}")))
    }

    /// `parallel`: run `tasks` concurrently and wait for all; results in
    /// input order. With `fail_fast`, the first failure cancels the rest.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end (it aborts every task first).
    pub async fn parallel(&mut self, tasks: Vec<TaskSpec>, fail_fast: bool) -> Result<Vec<Slot>, HostTrap> {
        let t0 = Instant::now();
        let request = json!({
            "tasks": tasks.iter().map(|t| json!({"kind": t.kind(), "request": t.request()})).collect::<Vec<_>>(),
            "fail_fast": fail_fast,
        });
        let mut open = self.begin_composite("parallel", &request)?;
        let id = open.id.clone();
        let n = tasks.len();
        let slots = if let Some(f) = self.too_many(n) {
            vec![Err(f); n]
        } else {
            run_slots(&self.run, &id, tasks, self.parent(), self.width(), fail_fast)
                .await
                .map_err(|t| open.trapped(t))?
        };
        self.end_composite(&mut open, &slots, t0)?;
        Ok(slots)
    }

    /// `pipeline`: each item goes through the branch `stages` in order, on
    /// its own (no barrier between items); results in item order.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub async fn pipeline(&mut self, items: Vec<Value>, stages: Vec<String>) -> Result<Vec<Slot>, HostTrap> {
        let t0 = Instant::now();
        let request = json!({"items": items, "stages": stages});
        let mut open = self.begin_composite("pipeline", &request)?;
        let id = open.id.clone();
        let n = items.len();
        let slots = if let Some(f) = self.too_many(n) {
            vec![Err(f); n]
        } else if stages.is_empty() {
            items.into_iter().map(Ok).collect()
        } else {
            let local = Pool::new(self.run.turns.clone(), self.width());
            let stages = Arc::new(stages);
            let mut set = JoinSet::new();
            let mut index_of = HashMap::new();
            for (i, item) in items.into_iter().enumerate() {
                let (run, local, stages, parent, id) = (
                    self.run.clone(),
                    local.clone(),
                    stages.clone(),
                    self.parent(),
                    id.clone(),
                );
                let guard = run.task_guard();
                let busy = run.turns.busy();
                // In line for a slot now, in item order (`width.rs`).
                let ticket = local.ticket(&format!("{id}.{i}"));
                let h = set.spawn(async move {
                    let _guard = guard;
                    let out = async {
                        let _permit = queued(&run, ticket).await;
                        let mut prev = item.clone();
                        for (s, stage) in stages.iter().enumerate() {
                            let input = json!({"input": prev, "item": item, "index": i, "stage": s});
                            let spec = TaskSpec::Branch {
                                name: stage.clone(),
                                input,
                            };
                            match run
                                .run_call(Call::new(format!("{id}.{i}.{s}"), spec), parent.clone())
                                .await?
                            {
                                Ok(v) => prev = v,
                                Err(f) => {
                                    return Ok(Err(CallFailure::new(
                                        f.kind,
                                        "stage_failed",
                                        format!("item {i} stage {s} ({stage}): {}", f.message),
                                    )));
                                }
                            }
                        }
                        Ok(Ok(prev))
                    }
                    .await;
                    (out, busy)
                });
                index_of.insert(h.id(), i);
            }
            collect(&self.run, &mut set, &index_of, n, false)
                .await
                .map_err(|t| open.trapped(t))?
        };
        self.end_composite(&mut open, &slots, t0)?;
        Ok(slots)
    }

    /// `submit`: start a task now; returns its call number in this scope.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn submit(&mut self, spec: TaskSpec) -> Result<u64, HostTrap> {
        self.run.count_call()?;
        let call = Call::new(self.scope.next_id(), spec);
        self.note_divergence(&call.id, &call.fingerprint);
        let n = self.scope.count();
        let width = self.width();
        let local = self
            .joins
            .width
            .get_or_insert_with(|| Pool::new(self.run.turns.clone(), width))
            .clone();
        // A leaf call the replay index answers completes without waiting
        // on anything, and an agent call often gets as far as its flush
        // (or, not waiting for one, to its end): take that first step here,
        // on the guest's thread, instead of handing the call to another
        // task (a wake-up and a thread hop per call); what remains, if
        // anything, runs as a task of the join set, which polls it again.
        // Capabilities (handlers may block) and branches (guest code) start
        // as tasks.
        let first_step_here = matches!(call.spec, TaskSpec::Agent(_))
            || (self.replaying
                && matches!(call.spec, TaskSpec::Capability(_))
                && self
                    .run
                    .replay()
                    .is_some_and(|idx| idx.answers(&call.id, &call.fingerprint)));
        let (run, parent) = (self.run.clone(), self.parent());
        let guard = run.task_guard();
        let busy = run.turns.busy();
        let bounded = call.spec.runs_guest_code();
        // In line for a slot now, in call order (`width.rs`).
        let ticket = bounded.then(|| local.ticket(&call.id));
        let mut task = Box::pin(async move {
            let _guard = guard;
            let _permit = match ticket {
                Some(t) => Some(queued(&run, t).await),
                None => None,
            };
            (n, run.run_call(call, parent).await, busy)
        });
        if first_step_here {
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            let turns = self.run.turns.clone();
            match turns.first_step(|| task.as_mut().poll(&mut cx)) {
                std::task::Poll::Ready((n, Ok(slot), _busy)) => {
                    self.joins.ready.insert(n, slot);
                    return Ok(n);
                }
                // A trap reaches the guest through `next`, as a task's does.
                std::task::Poll::Ready(done) => {
                    let h = self.joins.set.spawn(async move { done });
                    self.joins.by_task.insert(h.id(), n);
                    self.joins.handles.insert(n, h);
                    return Ok(n);
                }
                // Waiting (an agent, a flush, a width permit; a capability
                // that may not replay): the rest runs as a task.
                std::task::Poll::Pending => tracing::trace!(call = n, "the call waits: it goes on as a task"),
            }
        }
        let h = self.joins.set.spawn(task);
        self.joins.by_task.insert(h.id(), n);
        self.joins.handles.insert(n, h);
        Ok(n)
    }

    /// `next`: wait for the first of `pending` to finish (completion order)
    /// and journal its delivery. An empty `pending` is every call of this
    /// instance not yet delivered or cancelled, so a runtime with thousands
    /// of calls in flight need not send (nor the host search) their list on
    /// every turn.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub async fn next(&mut self, pending: &[u64]) -> Result<(u64, Slot), HostTrap> {
        self.run.count_call()?;
        // On replay, deliver in the recorded order while the recorded call
        // is among the pending ones.
        let wanted: Option<u64> = if self.replaying {
            self.run
                .replay()
                .and_then(|idx| idx.delivered(self.scope.parent(), self.delivered))
                .and_then(|id| id.rsplit('.').next())
                .and_then(|n| n.parse().ok())
                .filter(|n| self.is_pending(pending, *n))
        } else {
            None
        };
        // Calls answered in arrival order (a fixture `sequence`) are
        // delivered at the run's next settle point, lowest call first, so
        // answers that come back together reach the script in call order.
        let mut settled = false;
        let out = loop {
            let ready = match wanted {
                Some(w) => self.joins.ready.contains_key(&w).then_some(w),
                // Any: the lowest-numbered ready call, as a list in call
                // order would choose.
                None if pending.is_empty() => self.joins.ready.keys().next().copied(),
                None => pending.iter().copied().find(|n| self.joins.ready.contains_key(n)),
            };
            if let Some(n) = ready {
                let id = self.scope.id_of(n);
                if wanted.is_none() && !settled && self.run.turns.placed(&id) {
                    settled = true;
                    self.settle_joining(&id).await?;
                    continue;
                }
                self.run.turns.delivered(&id);
                let slot = self.joins.ready.remove(&n).unwrap_or_else(|| Err(cancelled("lost")));
                break (n, slot, id);
            }
            if let Some(w) = wanted
                && !self.joins.handles.contains_key(&w)
                && !self.joins.ready.contains_key(&w)
            {
                break (w, Err(cancelled("the recorded call is gone")), self.scope.id_of(w));
            }
            let running = if pending.is_empty() {
                !self.joins.handles.is_empty()
            } else {
                pending.iter().any(|n| self.joins.handles.contains_key(n))
            };
            if !running {
                let n = pending.first().copied().unwrap_or(0);
                break (
                    n,
                    Err(CallFailure::new(
                        CallErrorKind::Failed,
                        "unknown_call",
                        "next() was given no pending call of this instance",
                    )),
                    self.scope.id_of(n),
                );
            }
            // About to wait: the deliveries so far reach the journal first.
            self.run.flush_deferred()?;
            // Busy again before the finished task's unit stops counting.
            let joined = self.run.turns.wait(self.joins.set.join_next_with_id()).await;
            self.absorb(joined).await?;
        };
        let (n, slot, call) = out;
        self.delivered += 1;
        self.run.journal_delivered(&call)?;
        Ok((n, slot))
    }

    /// Take one joined task's outcome into `ready` (a cancelled or
    /// panicked task reads `cancelled`); a trap ends the instance.
    async fn absorb(
        &mut self,
        joined: Option<Result<(Id, (u64, CallResult, Busy)), tokio::task::JoinError>>,
    ) -> Result<(), HostTrap> {
        match joined {
            None => {}
            Some(Ok((task, (n, result, busy)))) => {
                drop(busy);
                self.joins.by_task.remove(&task);
                self.joins.handles.remove(&n);
                let cancelled = self.joins.cancelled.remove(&n);
                match result {
                    // A call cancelled after it finished: never delivered.
                    // (A trap still ends or parks the instance: a wait it
                    // started is journaled and listed.)
                    Ok(_) if cancelled => {}
                    Ok(slot) => {
                        self.joins.ready.insert(n, slot);
                    }
                    Err(trap) => return Err(self.settle_before_parking(trap).await),
                }
            }
            Some(Err(e)) => {
                if let Some(n) = self.joins.by_task.remove(&e.id()) {
                    self.joins.handles.remove(&n);
                    if self.joins.cancelled.remove(&n) {
                        return Ok(());
                    }
                    let why = if e.is_cancelled() {
                        "the call was cancelled"
                    } else {
                        "the call's task panicked"
                    };
                    self.joins.ready.insert(n, Err(cancelled(why)));
                }
            }
        }
        Ok(())
    }

    /// Wait for the run's next settle point (`turns.rs`), taking finished
    /// tasks into `ready` meanwhile (their units count until joined).
    async fn settle_joining(&mut self, call: &str) -> Result<(), HostTrap> {
        let turns = self.run.turns.clone();
        let mut turn = std::pin::pin!(turns.turn(call, || ()));
        loop {
            tokio::select! {
                biased;
                _ = &mut turn => return Ok(()),
                joined = self.joins.set.join_next_with_id(), if !self.joins.set.is_empty() => {
                    self.absorb(joined).await?;
                }
            }
        }
    }

    /// Whether call `n` is among `pending` (empty: any call of this
    /// instance still running or not yet delivered).
    fn is_pending(&self, pending: &[u64], n: u64) -> bool {
        if pending.is_empty() {
            self.joins.handles.contains_key(&n) || self.joins.ready.contains_key(&n)
        } else {
            pending.contains(&n)
        }
    }

    /// A task of this join set trapped. When the trap parks the run, let
    /// the other tasks finish first (each completes, fails or parks too),
    /// so their work is journaled and replays on the continuation instead
    /// of being cancelled and run again; any other trap ends them at once.
    async fn settle_before_parking(&mut self, trap: HostTrap) -> HostTrap {
        if trap.code != hwf_core::error::ErrorCode::Waiting {
            return trap;
        }
        let mut trap = trap;
        while let Some(joined) = self.run.turns.wait(self.joins.set.join_next()).await {
            if let Ok((_, Err(t), _)) = joined
                && t.code != hwf_core::error::ErrorCode::Waiting
                && trap.code == hwf_core::error::ErrorCode::Waiting
            {
                self.joins.set.abort_all();
                trap = t;
            }
        }
        trap
    }

    /// `cancel`: stop pending calls (their journal completions read
    /// `cancelled`). A cancelled call is no longer pending: `next` never
    /// delivers it, whether its task ends before or after the cancel.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn cancel(&mut self, pending: &[u64]) -> Result<(), HostTrap> {
        self.run.count_call()?;
        for n in pending {
            if let Some(h) = self.joins.handles.remove(n) {
                h.abort();
                self.joins.cancelled.insert(*n);
            }
            self.run.turns.delivered(&self.scope.id_of(*n));
            self.joins.ready.remove(n);
        }
        Ok(())
    }
}

/// Run `tasks` as slots `call.0`, `call.1`, … with at most `width` in flight.
async fn run_slots(
    run: &Arc<RunContext>,
    call: &str,
    tasks: Vec<TaskSpec>,
    parent: Parent,
    width: usize,
    fail_fast: bool,
) -> Result<Vec<Slot>, HostTrap> {
    let n = tasks.len();
    let local = Pool::new(run.turns.clone(), width);
    let mut set = JoinSet::new();
    let mut index_of = HashMap::new();
    for (i, spec) in tasks.into_iter().enumerate() {
        let (run, local, parent) = (run.clone(), local.clone(), parent.clone());
        let id = format!("{call}.{i}");
        let guard = run.task_guard();
        let busy = run.turns.busy();
        let bounded = spec.runs_guest_code();
        // In line for a slot now, in slot order (`width.rs`).
        let ticket = bounded.then(|| local.ticket(&id));
        let h = set.spawn(async move {
            let _guard = guard;
            let _permit = match ticket {
                Some(t) => Some(queued(&run, t).await),
                None => None,
            };
            let out = run.run_call(Call::new(id.clone(), spec), parent).await;
            // Slots come back in input order, not through `next`.
            run.turns.delivered(&id);
            (out, busy)
        });
        index_of.insert(h.id(), i);
    }
    collect(run, &mut set, &index_of, n, fail_fast).await
}

/// Drain a set of slot tasks into input order. A trap aborts the rest and
/// propagates — except a park, which waits for the rest to settle before it
/// propagates; with `fail_fast` the first failure aborts the rest, whose
/// slots read `cancelled`. Returns only once every task has ended. Each
/// task's result carries its unit's [`Busy`], dropped once the waiter is
/// busy again (`turns.rs`).
async fn collect(
    run: &RunContext,
    set: &mut JoinSet<(CallResult, Busy)>,
    index_of: &HashMap<Id, usize>,
    n: usize,
    fail_fast: bool,
) -> Result<Vec<Slot>, HostTrap> {
    let mut slots: Vec<Option<Slot>> = vec![None; n];
    let mut trap: Option<HostTrap> = None;
    let mut failed_at = None;
    while let Some(joined) = run.turns.wait(set.join_next_with_id()).await {
        let joined = joined.map(|(task, (result, _busy))| (task, result));
        match joined {
            Ok((task, Ok(slot))) => {
                let i = index_of.get(&task).copied().unwrap_or(0);
                if fail_fast && slot.is_err() && failed_at.is_none() {
                    failed_at = Some(i);
                    set.abort_all();
                }
                slots[i] = Some(slot);
            }
            Ok((_, Err(t))) => {
                // A park lets the other slots run on (to completion, to a
                // failure or to their own park); any other trap ends them.
                let parks = t.code == hwf_core::error::ErrorCode::Waiting;
                let replace = match &trap {
                    None => true,
                    Some(prev) => prev.code == hwf_core::error::ErrorCode::Waiting && !parks,
                };
                if replace {
                    if !parks {
                        set.abort_all();
                    }
                    trap = Some(t);
                }
            }
            Err(e) => {
                if let Some(&i) = index_of.get(&e.id())
                    && !e.is_cancelled()
                {
                    slots[i] = Some(Err(CallFailure::new(
                        CallErrorKind::Failed,
                        "internal",
                        "the task panicked",
                    )));
                }
            }
        }
    }
    if let Some(t) = trap {
        return Err(t);
    }
    let why = match failed_at {
        Some(i) => format!("fail-fast: slot {i} failed"),
        None => "the call was cancelled".to_owned(),
    };
    Ok(slots
        .into_iter()
        .map(|s| s.unwrap_or_else(|| Err(cancelled(&why))))
        .collect())
}

/// A failure every slot of a refused `parallel`/`pipeline` shares.
fn refused(code: &str, msg: String) -> CallFailure {
    CallFailure::new(CallErrorKind::Denied, code, msg)
}
