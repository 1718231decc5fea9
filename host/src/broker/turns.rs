//! Turns: a deterministic order for agent calls a backend answers in the
//! order they arrive (every fixture answer: a `sequence` hands out its
//! entries by arrival, and answers come back at once; see
//! [`AgentBackend::answers_in_order`](crate::agents::AgentBackend::answers_in_order)).
//!
//! A run's branches, pipeline items and submitted calls run as concurrent
//! tasks, so the order their calls reach a backend is the scheduler's:
//! four `parallel` branches answered from one `sequence` got its entries
//! in a different order on every run. Instead, such a call *waits for its
//! turn*: it is held until the run is **settled** — every unit of work is
//! waiting on an agent, on a turn, on a width permit or on another unit, so
//! nothing more can happen until an agent answers — and then every held
//! call takes its place (the backend's reservation) in call-id order
//! (`1.0.1` < `1.1.1` < `2`). Which calls are held at a settle point
//! depends only on the script, not on timing, so the answers are the same
//! on every run.
//!
//! A *unit* is the root instance or one task the broker spawned (a slot, a
//! pipeline item, a submitted call). The count of busy units starts at one
//! (the root); each spawn adds a [`Busy`], each wait on something the run
//! itself must do first (a permit, a join, an agent) holds an [`Idle`]. A
//! task's `Busy` travels with its result, so a waiter wakes busy before the
//! finished task stops counting (no false settle point between them). Work
//! the count does not see (a journal flush, a capability) keeps its unit
//! busy, which only delays a settle point; a held call also gives up
//! waiting after [`GIVE_UP`], so a miscount costs time, never a hang.

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Poll;
use std::time::Duration;

/// How long a held call waits for a settle point before it takes its
/// place anyway (a unit busy on something long, such as a capability).
pub(crate) const GIVE_UP: Duration = Duration::from_secs(1);

/// One run's turn keeper (see the module docs).
#[derive(Debug)]
pub(crate) struct Turns {
    state: Mutex<State>,
}

struct Held {
    /// The call's id, which orders the turns.
    call: String,
    /// Distinguishes entries of the same call id (schema retries).
    ticket: u64,
    /// Takes the call's place (runs under the lock, in turn order).
    take: Box<dyn FnOnce() + Send>,
}

#[derive(Default)]
struct State {
    /// Units not waiting (see the module docs).
    busy: usize,
    held: Vec<Held>,
    next_ticket: u64,
    /// Calls that took a place and whose answer `next` has not delivered:
    /// `next` delivers them at a settle point, lowest call first.
    placed: std::collections::HashSet<String>,
    /// A unit is taking a submitted call's first step on its own thread
    /// (`submit`, see [`Turns::first_step`]).
    submitting: bool,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State")
            .field("busy", &self.busy)
            .field("held", &self.held.len())
            .finish()
    }
}

impl Default for Turns {
    fn default() -> Self {
        Self::new()
    }
}

impl Turns {
    /// A run's keeper: one busy unit, the root instance.
    pub(crate) fn new() -> Self {
        Self {
            state: Mutex::new(State {
                busy: 1,
                ..State::default()
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A new unit (a task about to be spawned) is busy until the guard
    /// drops.
    pub(crate) fn busy(self: &Arc<Self>) -> Busy {
        self.lock().busy += 1;
        Busy(self.clone())
    }

    /// How many units are busy (tests).
    #[cfg(test)]
    pub(crate) fn lock_busy(&self) -> usize {
        self.lock().busy
    }

    /// The current unit starts waiting on something that will hand it
    /// back with [`Turns::unpark`] (a width permit, `width.rs`).
    pub(crate) fn park(&self) {
        self.lock().less_busy();
    }

    /// A waiting unit is runnable again: counted busy by whoever wakes it,
    /// before it runs, so no false settle point falls in between.
    pub(crate) fn unpark(&self) {
        self.lock().busy += 1;
    }

    /// Await `fut`, something the run or an agent must do first (a permit,
    /// a join, an agent's answer): the current unit is idle while it is
    /// pending, and busy again before the output is handed back. A future
    /// ready at once never makes the unit idle (no false settle point).
    pub(crate) async fn wait<F: Future>(self: &Arc<Self>, fut: F) -> F::Output {
        let mut fut = std::pin::pin!(fut);
        let mut idle: Option<Idle> = None;
        let out = std::future::poll_fn(|cx| match fut.as_mut().poll(cx) {
            Poll::Ready(v) => Poll::Ready(v),
            Poll::Pending => {
                if idle.is_none() {
                    self.lock().less_busy();
                    idle = Some(Idle(self.clone()));
                }
                Poll::Pending
            }
        })
        .await;
        drop(idle);
        out
    }

    /// Run `step` — a submitted call's first poll, on the submitting
    /// unit's thread — marked as such. While it runs, a turn is immediate
    /// when the only busy units are the submitter and the new call's own
    /// and nothing is held: the submitter can only make calls numbered
    /// after this one before it waits, so no lower call can still come
    /// before the settle point (a call made one at a time, or each call of
    /// a `Promise.all`, takes its place without a task hop).
    pub(crate) fn first_step<R>(&self, step: impl FnOnce() -> R) -> R {
        self.lock().submitting = true;
        let out = step();
        self.lock().submitting = false;
        out
    }

    /// Remember that `call` took a place (see [`Turns::placed`]).
    pub(crate) fn mark_placed(&self, call: &str) {
        self.lock().placed.insert(call.to_owned());
    }

    /// Whether `call` took a place and is not delivered yet: `next` then
    /// waits for a settle point and delivers the lowest ready call, so
    /// answers that arrive together reach the script in call order.
    pub(crate) fn placed(&self, call: &str) -> bool {
        let state = self.lock();
        !state.placed.is_empty() && state.placed.contains(call)
    }

    /// `next` delivered `call`.
    pub(crate) fn delivered(&self, call: &str) {
        let mut state = self.lock();
        if !state.placed.is_empty() {
            state.placed.remove(call);
        }
    }

    /// Wait for this call's turn, then return what `take` (run in turn
    /// order, under the lock) returned: the backend's reservation. `None`
    /// only if the answer was lost, which the lock rules out.
    pub(crate) async fn turn<T: Send + 'static>(
        self: &Arc<Self>,
        call: &str,
        take: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        {
            // The only busy unit and nothing held: the run settles the
            // moment this unit waits, so the call's turn is now (a script
            // calling one agent at a time never allocates here).
            let state = self.lock();
            if state.held.is_empty() && (state.busy == 1 || (state.submitting && state.busy == 2)) {
                return Some(take());
            }
        }
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        let ticket = {
            let mut state = self.lock();
            let ticket = state.next_ticket;
            state.next_ticket += 1;
            state.held.push(Held {
                call: call.to_owned(),
                ticket,
                take: Box::new(move || {
                    let _ = tx.send(take());
                }),
            });
            state.less_busy();
            ticket
        };
        let mut waiting = Waiting {
            turns: self,
            ticket: Some(ticket),
        };
        if let Ok(Ok(v)) = tokio::time::timeout(GIVE_UP, &mut rx).await {
            waiting.ticket = None;
            return Some(v);
        }
        waiting.ticket = None;
        // No settle point in time: take the place now, unless the turn
        // came meanwhile (its answer is then in the channel).
        let mut state = self.lock();
        if let Some(at) = state.held.iter().position(|h| h.ticket == ticket) {
            let held = state.held.swap_remove(at);
            state.busy += 1;
            (held.take)();
            tracing::debug!(call, "no settle point within {GIVE_UP:?}: the call took its place");
        }
        drop(state);
        rx.try_recv().ok()
    }
}

/// A held call's entry leaves the list if its wait is dropped (the task was
/// aborted): the unit it stood for is counted busy again, and the finished
/// task's own [`Busy`] then counts it out.
struct Waiting<'a> {
    turns: &'a Turns,
    ticket: Option<u64>,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let Some(ticket) = self.ticket else { return };
        let mut state = self.turns.lock();
        if let Some(at) = state.held.iter().position(|h| h.ticket == ticket) {
            state.held.swap_remove(at);
            state.busy += 1;
        }
    }
}

impl State {
    /// One unit fewer is busy; at zero, every held call takes its turn.
    fn less_busy(&mut self) {
        self.busy = self.busy.saturating_sub(1);
        if self.busy == 0 && !self.held.is_empty() {
            let mut held = std::mem::take(&mut self.held);
            // Call ids compared number by number (`2` < `10`, `3` < `3.1`),
            // each parsed once (thousands can be held at a settle point).
            held.sort_by_cached_key(|h| (super::walk::id_key(&h.call), h.ticket));
            self.busy += held.len();
            tracing::trace!(calls = ?held.iter().map(|h| h.call.as_str()).collect::<Vec<_>>(), "settled: held calls take their turns");
            for h in held {
                (h.take)();
            }
        }
    }
}

/// A busy unit (see [`Turns::busy`]).
#[derive(Debug)]
pub(crate) struct Busy(Arc<Turns>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.lock().less_busy();
    }
}

/// A unit's wait (see [`Turns::wait`]): busy again on drop.
#[derive(Debug)]
struct Idle(Arc<Turns>);

impl Drop for Idle {
    fn drop(&mut self) {
        self.0.lock().busy += 1;
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::sync::Mutex as StdMutex;

    /// A one-thread runtime in virtual time (the broker's unit tests).
    pub(in crate::broker) fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("runtime")
    }

    /// Three units hold calls, numbered out of order and started in a
    /// different order again; none takes its place while the root is busy,
    /// and all take them in call-id order once the root waits.
    #[test]
    fn held_calls_take_their_places_in_call_order_once_the_run_settles() {
        rt().block_on(async {
            let turns = Arc::new(Turns::new());
            let order = Arc::new(StdMutex::new(Vec::new()));
            let mut units = tokio::task::JoinSet::new();
            for id in ["1.10.1", "1.2.1", "1.0.3"] {
                let (turns, order, busy) = (turns.clone(), order.clone(), turns.busy());
                units.spawn(async move {
                    let _busy = busy;
                    let id2 = id.to_owned();
                    turns.turn(id, move || order.lock().expect("lock").push(id2)).await
                });
            }
            for _ in 0..10 {
                tokio::task::yield_now().await;
            }
            assert!(
                order.lock().expect("lock").is_empty(),
                "the root is busy: nothing settles"
            );
            let joined = turns
                .wait(async {
                    let mut n = 0;
                    while units.join_next().await.is_some() {
                        n += 1;
                    }
                    n
                })
                .await;
            assert_eq!(joined, 3);
            assert_eq!(*order.lock().expect("lock"), ["1.0.3", "1.2.1", "1.10.1"]);
            assert_eq!(turns.lock().busy, 1, "the root alone is busy again");
        });
    }

    /// A wait that is ready at once never makes its unit idle, so it cannot
    /// release a held call before the run really settles.
    #[test]
    fn a_wait_ready_at_once_is_no_settle_point() {
        rt().block_on(async {
            let turns = Arc::new(Turns::new());
            let taken = Arc::new(StdMutex::new(false));
            let (t2, taken2, busy) = (turns.clone(), taken.clone(), turns.busy());
            let unit = tokio::spawn(async move {
                let _busy = busy;
                t2.turn("2", move || *taken2.lock().expect("lock") = true).await
            });
            tokio::task::yield_now().await;
            turns.wait(async {}).await;
            assert!(!*taken.lock().expect("lock"));
            turns.wait(unit).await.expect("unit");
            assert!(*taken.lock().expect("lock"));
        });
    }

    /// A held call whose task is dropped leaves the list and the count as
    /// they were, so the next settle point still comes.
    #[test]
    fn a_dropped_held_call_leaves_the_count_right() {
        rt().block_on(async {
            let turns = Arc::new(Turns::new());
            let (t2, busy) = (turns.clone(), turns.busy());
            let gone = tokio::spawn(async move {
                let _busy = busy;
                t2.turn("1", || ()).await
            });
            tokio::task::yield_now().await;
            gone.abort();
            let _ = gone.await;
            assert_eq!(turns.lock().busy, 1);
            assert!(turns.lock().held.is_empty());
            let (t3, busy) = (turns.clone(), turns.busy());
            let next = tokio::spawn(async move {
                let _busy = busy;
                t3.turn("2", || 7).await
            });
            assert_eq!(turns.wait(next).await.expect("unit"), Some(7));
        });
    }

    /// A submitted call's first step, with the submitter and the call the
    /// only busy units, takes its place at once; the same call outside a
    /// first step (or with a third unit busy) is held.
    #[test]
    fn a_first_step_of_the_only_submitted_call_takes_its_place_at_once() {
        rt().block_on(async {
            let turns = Arc::new(Turns::new());
            let task = turns.busy();
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            let mut first = Box::pin(turns.turn("1", || 1));
            assert_eq!(turns.first_step(|| first.as_mut().poll(&mut cx)), Poll::Ready(Some(1)));
            let mut held = Box::pin(turns.turn("2", || 2));
            assert!(held.as_mut().poll(&mut cx).is_pending(), "not a first step: held");
            drop(held);
            let other = turns.busy();
            let mut crowded = Box::pin(turns.turn("3", || 3));
            assert!(
                turns.first_step(|| crowded.as_mut().poll(&mut cx)).is_pending(),
                "a third unit is busy"
            );
            drop((crowded, other, task));
            assert_eq!(turns.lock().busy, 1);
        });
    }

    /// A run that never settles (a unit busy on something long) still
    /// answers a held call after [`GIVE_UP`], in virtual time.
    #[test]
    fn a_held_call_gives_up_waiting() {
        rt().block_on(async {
            let turns = Arc::new(Turns::new());
            let _long = turns.busy();
            let started = tokio::time::Instant::now();
            let place = turns.turn("1", || 3).await;
            assert_eq!(place, Some(3));
            assert_eq!(started.elapsed(), GIVE_UP);
            assert!(turns.lock().held.is_empty());
            assert_eq!(turns.lock().busy, 2, "the root and the long unit");
        });
    }
}
