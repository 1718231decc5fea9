//! Watching a run while it executes: live progress for a callback and for
//! `run.json` (so `hwf status` in another process sees it), and controls
//! recorded meanwhile (stop, pause, task stop) applied as the store's
//! controls watch reports them.

use crate::Hwf;
use crate::broker::RunContext;
use crate::store::{Counts, RunSnapshot, Store};
use crate::vm::limits::HostTrap;
use hwf_core::store::SaveMode;
use std::sync::Arc;

/// Live figures handed to a progress callback while a run executes.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The current phase.
    pub phase: Option<String>,
    /// Counters so far.
    pub counts: Counts,
    /// Calls running now (all instances).
    pub running: u64,
    /// Tasks waiting for width.
    pub queued: u64,
    /// Time since the run started.
    pub elapsed: std::time::Duration,
}

/// A progress callback.
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

impl Hwf {
    /// While a run executes: every 100 ms call the progress callback, and
    /// every 500 ms refresh `run.json` (phase, counts, in-flight figures) so
    /// `hwf status` from another process sees live progress; apply controls
    /// as the store's watch reports them (at once for this process's,
    /// within the store's poll for another process's).
    pub(crate) fn spawn_progress(
        &self,
        ctx: &Arc<RunContext>,
        snap: &RunSnapshot,
        cb: Option<ProgressFn>,
        mut controls: tokio::sync::watch::Receiver<u64>,
        claim: crate::app::claim::ExecClaim,
    ) -> tokio::task::JoinHandle<()> {
        let (ctx, store, mut snap) = (ctx.clone(), self.store.clone(), snap.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(std::time::Duration::from_millis(100));
            let mut n = 0u64;
            let mut watching = true;
            loop {
                tokio::select! {
                    changed = controls.changed(), if watching => {
                        if changed.is_err() {
                            // The store dropped the watch: no more controls
                            // arrive this way (the run goes on).
                            watching = false;
                            continue;
                        }
                        apply_controls(&store, &ctx);
                        continue;
                    }
                    _ = tick.tick() => {}
                }
                n += 1;
                let (running, queued) = ctx.in_flight();
                let p = Progress {
                    phase: ctx.phase(),
                    counts: ctx.counts(),
                    running,
                    queued,
                    elapsed: ctx.elapsed(),
                };
                if let Some(cb) = &cb {
                    cb(&p);
                }
                if n.is_multiple_of(5) {
                    snap.phase = p.phase.clone();
                    snap.counts = p.counts;
                    snap.live = Some(crate::store::LiveProgress { running, queued });
                    // Under the run's claim: an executor that lost the run
                    // stops here, before it overwrites the new owner's.
                    match crate::app::claim::save_claimed(&*store, &snap, SaveMode::Fast, &*claim).await {
                        Ok(()) => {}
                        Err(e) if !claim.fence().is_held() => {
                            ctx.fail(HostTrap::new(e.code(), e.message().to_owned()));
                            return;
                        }
                        Err(e) => tracing::debug!(error = %e, "progress snapshot not written"),
                    }
                }
            }
        })
    }
}

/// Controls from other processes (stop, pause, task_stop) take effect.
/// Controls that cannot be read end the run with the store's code rather
/// than being ignored — but a recorded stop still stops it.
fn apply_controls(store: &Store, ctx: &RunContext) {
    match crate::app::control::read_controls(store, ctx.run_id()) {
        Ok(c) => ctx.apply_controls(&c),
        Err(_)
            if store
                .read_controls_lenient(ctx.run_id())
                .is_ok_and(|(c, _)| c.iter().any(|c| c.action == crate::app::control::Action::Stop)) =>
        {
            ctx.request_stop();
        }
        Err(e) => ctx.fail(HostTrap::new(
            e.code(),
            format!("the run's controls cannot be read: {}", e.message()),
        )),
    }
}

/// A spawned task owned by the future that holds this: aborted when it is
/// dropped.
pub(crate) struct AbortOnDrop(pub(crate) tokio::task::JoinHandle<()>);

impl AbortOnDrop {
    /// Abort the task and wait until it has ended.
    pub(crate) async fn finish(mut self) {
        self.0.abort();
        let handle = std::mem::replace(&mut self.0, tokio::spawn(async {}));
        let _ = handle.await;
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
