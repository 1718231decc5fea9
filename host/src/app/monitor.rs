//! Watching a run while it executes: live progress for a callback and for
//! `run.json` (so `hwf status` in another process sees it), and controls
//! recorded by other processes (stop, pause, task stop) applied at once.

use crate::broker::RunContext;
use crate::runtime::Hwf;
use crate::store::{Counts, RunSnapshot};
use crate::vm::limits::HostTrap;
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
    /// `hwf status` from another process sees live progress.
    pub(crate) fn spawn_progress(
        &self,
        ctx: &Arc<RunContext>,
        snap: &RunSnapshot,
        cb: Option<ProgressFn>,
        controls_len: u64,
    ) -> tokio::task::JoinHandle<()> {
        let (ctx, store, mut snap) = (ctx.clone(), self.store.clone(), snap.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(std::time::Duration::from_millis(20));
            let mut n = 0u64;
            let mut controls_len = controls_len;
            loop {
                tick.tick().await;
                n += 1;
                // Controls from other processes (stop, pause, task_stop).
                // Controls that cannot be read end the run with the store's
                // code rather than being ignored.
                let len = store.controls_len(ctx.run_id());
                if len != controls_len {
                    controls_len = len;
                    match crate::control::read_controls(&store, ctx.run_id()) {
                        Ok(c) => ctx.apply_controls(&c),
                        // A recorded stop still stops the run; otherwise it
                        // ends with the store's code.
                        Err(_)
                            if store
                                .read_controls_lenient(ctx.run_id())
                                .is_ok_and(|(c, _)| c.iter().any(|c| c.action == crate::control::Action::Stop)) =>
                        {
                            ctx.request_stop();
                        }
                        Err(e) => ctx.fail(HostTrap::new(
                            e.code(),
                            format!("the run's controls cannot be read: {}", e.message()),
                        )),
                    }
                }
                if !n.is_multiple_of(5) {
                    continue;
                }
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
                if n.is_multiple_of(25) {
                    snap.phase = p.phase.clone();
                    snap.counts = p.counts;
                    snap.live = Some(crate::store::LiveProgress { running, queued });
                    if let Err(e) = store.write_snapshot_fast(&snap) {
                        tracing::debug!(error = %e, "progress snapshot not written");
                    }
                }
            }
        })
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
