//! Stage 7, **width**: how many calls run at once. Leaf calls (agents,
//! capabilities) take a permit of the run-wide `max_parallel` pool
//! before their `call_started` line; each `parallel`/`pipeline` call and
//! each join set bounds its own in-flight tasks with a local pool of
//! the same width, which bounds branch instances too. A task waiting for a
//! permit is counted as queued. The slots come from a [`Pool`], which
//! hands a freed slot to the waiting call with the lowest call id.

use super::turns::Turns;
use super::{RunContext, lock};
use crate::vm::limits::{Limits, MAX_PARALLEL};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// The width `limits` allow: `max_parallel`, at least 1, at most
/// [`MAX_PARALLEL`].
pub(crate) fn width_of(limits: &Limits) -> usize {
    limits.max_parallel.clamp(1, MAX_PARALLEL) as usize
}

/// A run's or a join set's slots: a counting semaphore that hands a freed
/// slot to the waiting call with the lowest call id and counts it busy the
/// moment it does (`turns.rs`). A call asks for its slot when it is made
/// ([`Pool::ticket`], on the caller's thread, in call order), so which
/// branch gets a freed slot, and when a run settles, is the same on every
/// run. (Tokio's semaphore hands slots out in the order tasks first polled
/// it, and leaves a woken waiter idle until it runs.)
pub(crate) struct Pool {
    turns: Arc<Turns>,
    state: Mutex<PoolState>,
}

struct PoolState {
    free: usize,
    /// Waiting calls by (call-id numbers, arrival), each with its wake-up.
    waiters: BTreeMap<(Vec<u64>, u64), oneshot::Sender<()>>,
    arrivals: u64,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.lock();
        f.debug_struct("Pool")
            .field("free", &state.free)
            .field("waiting", &state.waiters.len())
            .finish()
    }
}

/// A slot of a [`Pool`], given back (to the next waiter) on drop.
#[derive(Debug)]
pub(crate) struct Permit(Arc<Pool>);

impl Drop for Permit {
    fn drop(&mut self) {
        self.0.give_back();
    }
}

/// A call's place in a [`Pool`]'s line: a slot now, or a wait for one.
pub(crate) enum Ticket {
    Now(Permit),
    Wait {
        pool: Arc<Pool>,
        key: (Vec<u64>, u64),
        rx: oneshot::Receiver<()>,
    },
}

impl Pool {
    /// A pool of `width` slots for a run (`turns` counts its waiters).
    pub(crate) fn new(turns: Arc<Turns>, width: usize) -> Arc<Self> {
        Arc::new(Self {
            turns,
            state: Mutex::new(PoolState {
                free: width,
                waiters: BTreeMap::new(),
                arrivals: 0,
            }),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Ask for a slot for call `call`: a free one at once, else a place in
    /// line (no unit waits until [`Ticket::wait`]).
    pub(crate) fn ticket(self: &Arc<Self>, call: &str) -> Ticket {
        let mut state = self.lock();
        if state.free > 0 {
            state.free -= 1;
            return Ticket::Now(Permit(self.clone()));
        }
        let (tx, rx) = oneshot::channel();
        let key = (super::walk::id_key(call), state.arrivals);
        state.arrivals += 1;
        state.waiters.insert(key.clone(), tx);
        Ticket::Wait {
            pool: self.clone(),
            key,
            rx,
        }
    }

    /// A slot comes back: the lowest waiting call gets it, counted busy
    /// before it is woken; with none waiting it is free again.
    fn give_back(&self) {
        let mut state = self.lock();
        while let Some((_, tx)) = state.waiters.pop_first() {
            self.turns.unpark();
            if tx.send(()).is_ok() {
                return;
            }
            // That waiter is gone (its task was dropped); it counted itself
            // back when it went.
            self.turns.park();
        }
        state.free += 1;
    }
}

impl Ticket {
    /// Wait for the slot; the unit is idle meanwhile (`turns.rs`).
    pub(crate) async fn wait(self) -> Permit {
        let (pool, key, rx) = match self {
            Ticket::Now(permit) => return permit,
            Ticket::Wait { pool, key, rx } => (pool, key, rx),
        };
        pool.turns.park();
        let mut waiting = Waiting {
            pool: &pool,
            key: Some(key),
        };
        // A sender dropped unsent cannot happen while the pool lives (it
        // holds the sender until it hands the slot over).
        let _ = rx.await;
        waiting.key = None;
        Permit(pool.clone())
    }
}

/// A wait dropped before its slot came: out of the line, counted busy
/// again (its task's `Busy` then counts it out); one dropped after its slot
/// came gives the slot back.
struct Waiting<'a> {
    pool: &'a Arc<Pool>,
    key: Option<(Vec<u64>, u64)>,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let Some(key) = self.key.take() else { return };
        let removed = self.pool.lock().waiters.remove(&key).is_some();
        if removed {
            self.pool.turns.unpark();
        } else {
            drop(Permit(self.pool.clone()));
        }
    }
}

/// Wait for the slot of `ticket`, counted as queued meanwhile.
pub(crate) async fn queued(run: &RunContext, ticket: Ticket) -> Permit {
    if let Ticket::Now(permit) = ticket {
        return permit;
    }
    lock(&run.stats).queued += 1;
    let permit = ticket.wait().await;
    let mut stats = lock(&run.stats);
    stats.queued = stats.queued.saturating_sub(1);
    permit
}

impl RunContext {
    /// A slot of the run-wide width pool for call `call` (counted as queued
    /// while waiting).
    pub(crate) async fn width_permit(&self, call: &str) -> Permit {
        let ticket = self.width.ticket(call);
        queued(self, ticket).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::turns::tests::rt;

    /// Freed slots go to the waiting calls lowest call id first, whatever
    /// order they got in line, and a waiter is counted busy as it is handed
    /// one (the run cannot settle between the hand-over and its wake-up).
    #[test]
    fn freed_slots_go_to_the_lowest_waiting_call_first() {
        rt().block_on(async {
            let turns = Arc::new(Turns::new());
            let pool = Pool::new(turns.clone(), 1);
            let first = match pool.ticket("1.0") {
                Ticket::Now(p) => p,
                Ticket::Wait { .. } => panic!("a free slot"),
            };
            let order = Arc::new(Mutex::new(Vec::new()));
            let mut units = tokio::task::JoinSet::new();
            for id in ["1.10", "1.2", "1.9"] {
                let (ticket, order, busy) = (pool.ticket(id), order.clone(), turns.busy());
                units.spawn(async move {
                    let _busy = busy;
                    let permit = ticket.wait().await;
                    order.lock().expect("lock").push(id);
                    tokio::task::yield_now().await;
                    drop(permit);
                });
            }
            for _ in 0..5 {
                tokio::task::yield_now().await;
            }
            assert_eq!(turns.lock_busy(), 1, "three waiters idle, the root busy");
            drop(first);
            assert_eq!(turns.lock_busy(), 2, "the woken waiter counts before it runs");
            while units.join_next().await.is_some() {}
            assert_eq!(*order.lock().expect("lock"), ["1.2", "1.9", "1.10"]);
            assert_eq!(turns.lock_busy(), 1);
        });
    }

    /// A wait dropped in line leaves the line and the count as they were;
    /// the slot goes to the next waiter.
    #[test]
    fn a_dropped_wait_leaves_the_line() {
        rt().block_on(async {
            let turns = Arc::new(Turns::new());
            let pool = Pool::new(turns.clone(), 1);
            let Ticket::Now(held) = pool.ticket("1") else {
                panic!("a free slot")
            };
            let (gone, busy) = (pool.ticket("2"), turns.busy());
            let gone = tokio::spawn(async move {
                let _busy = busy;
                gone.wait().await
            });
            tokio::task::yield_now().await;
            gone.abort();
            let _ = gone.await;
            assert_eq!(turns.lock_busy(), 1);
            let (next, busy) = (pool.ticket("3"), turns.busy());
            let next = tokio::spawn(async move {
                let _busy = busy;
                drop(next.wait().await);
            });
            tokio::task::yield_now().await;
            drop(held);
            next.await.expect("unit");
            assert_eq!(turns.lock_busy(), 1);
            assert!(matches!(pool.ticket("4"), Ticket::Now(_)), "the slot is free again");
        });
    }
}
