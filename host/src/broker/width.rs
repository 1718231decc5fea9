//! Stage 7, **width**: how many calls run at once. Leaf calls (agents,
//! capabilities) take a permit of the run-wide `max_parallel` semaphore
//! before their `call_started` line; each `parallel`/`pipeline` call and
//! each join set bounds its own in-flight tasks with a local semaphore of
//! the same width, which bounds branch instances too. A task waiting for a
//! permit is counted as queued.

use super::{RunContext, lock};
use crate::vm::limits::{Limits, MAX_PARALLEL};
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The width `limits` allow: `max_parallel`, at least 1, at most
/// [`MAX_PARALLEL`].
pub(crate) fn width_of(limits: &Limits) -> usize {
    limits.max_parallel.clamp(1, MAX_PARALLEL) as usize
}

/// Wait for a permit of `local`, counted as queued meanwhile.
pub(crate) async fn queued(run: &RunContext, local: Arc<Semaphore>) -> Option<OwnedSemaphorePermit> {
    lock(&run.stats).queued += 1;
    let permit = run.turns.wait(local.acquire_owned()).await.ok();
    let mut stats = lock(&run.stats);
    stats.queued = stats.queued.saturating_sub(1);
    permit
}

impl RunContext {
    /// A permit of the run-wide width semaphore (counted as queued while
    /// waiting).
    pub(crate) async fn width_permit(&self) -> Option<OwnedSemaphorePermit> {
        queued(self, self.width.clone()).await
    }
}
