//! A run's operator controls: `runs/<id>/controls.jsonl`, appended under
//! `controls.lock`, and the controls watch ([`FileStore::watch_controls`]).
//!
//! The watch: an append through this `FileStore` bumps the run's watch at
//! once. An append from another process (`hwf control`, the facade of
//! another host) is seen by one poll task per watched run that stats
//! `controls.jsonl` every [`CONTROLS_POLL`] and bumps the watch when the
//! file's size changed; the task ends once the last receiver is dropped.

use super::FileStore;
use super::fsutil::{LockFile, parse_journal, repair_tail};
use cap_std::fs::{Dir, OpenOptions};
use hwf_core::control::Control;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::store::stored_control;
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::watch;

/// How often a watched run's `controls.jsonl` is checked for appends from
/// other processes: 20 ms, the interval the executor polled at before the
/// watch, so moving onto the watch changes no control's latency (a `stop`
/// from the CLI is applied within one tick). A tick is one `stat` per
/// watched run, and only runs someone watches are polled; inotify would
/// need a new dependency and misses writers on network file systems.
pub const CONTROLS_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// The watched runs of one store.
#[derive(Debug, Default)]
pub(super) struct Watches(Mutex<HashMap<RunId, Arc<Watched>>>);

#[derive(Debug)]
struct Watched {
    tx: watch::Sender<u64>,
    /// The size of `controls.jsonl` last seen (by the poll or an append).
    seen_len: AtomicU64,
}

impl Watched {
    fn saw(&self, len: u64) {
        if self.seen_len.swap(len, Ordering::SeqCst) != len {
            self.tx.send_modify(|v| *v += 1);
        }
    }
}

impl Watches {
    fn lock(&self) -> MutexGuard<'_, HashMap<RunId, Arc<Watched>>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn file_len(dir: &Dir) -> u64 {
    dir.metadata("controls.jsonl").map_or(0, |m| m.len())
}

impl FileStore {
    /// A run's controls, in order (a torn last line is ignored).
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store`, `io`.
    pub fn read_controls(&self, id: &RunId) -> Result<Vec<Control>> {
        let dir = self.run_dir(id)?;
        let text = match dir.read_to_string("controls.jsonl") {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(format!("run {id} controls"), e)),
        };
        let lines = parse_journal(&text).map_err(|line| {
            Error::new(
                ErrorCode::CorruptStore,
                format!("runs/{id}/controls.jsonl: line {line} is not valid JSON"),
            )
        })?;
        lines
            .into_iter()
            .map(|v| {
                serde_json::from_value(v)
                    .map_err(|e| Error::new(ErrorCode::CorruptStore, format!("runs/{id}/controls.jsonl: {e}")))
            })
            .collect()
    }

    /// Read a run's controls, skipping lines that do not parse; returns them
    /// and how many lines were skipped. Only for decisions that are safe on
    /// a damaged file (honouring a recorded `stop`, refusing a duplicate
    /// id); everything else reads strictly ([`FileStore::read_controls`]).
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn read_controls_lenient(&self, id: &RunId) -> Result<(Vec<Control>, usize)> {
        let dir = self.run_dir(id)?;
        let text = match dir.read_to_string("controls.jsonl") {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
            Err(e) => return Err(Error::io(format!("run {id} controls"), e)),
        };
        let mut bad = 0;
        let controls = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .filter_map(|l| {
                let c = serde_json::from_str(l).ok();
                bad += usize::from(c.is_none());
                c
            })
            .collect();
        Ok((controls, bad))
    }

    /// Size of `controls.jsonl` (0 when absent): a cheap change check.
    pub fn controls_len(&self, id: &RunId) -> u64 {
        self.run_dir(id).ok().map_or(0, |d| file_len(&d))
    }

    /// Append a control unless one with the same id exists; returns whether
    /// it was appended. Free text is redacted
    /// ([`hwf_core::store::stored_control`]); the run's controls watch is
    /// bumped at once.
    ///
    /// # Errors
    ///
    /// `not_found`, `invalid_args` for a credential-shaped id, `io`.
    pub fn append_control(&self, id: &RunId, control: &Control) -> Result<bool> {
        let control = &stored_control(control)?;
        let dir = self.run_dir(id)?;
        let lock = LockFile::acquire(&dir, "controls.lock")?;
        repair_tail(&dir, "controls.jsonl")?;
        // A damaged line must not block new controls (a `stop` above all);
        // readers still name the damage.
        if self.read_controls_lenient(id)?.0.iter().any(|c| c.id == control.id) {
            return Ok(false);
        }
        let mut line = serde_json::to_vec(control).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        line.push(b'\n');
        let mut f = dir
            .open_with("controls.jsonl", OpenOptions::new().create(true).append(true))
            .map_err(|e| Error::io(format!("run {id} controls"), e))?;
        f.write_all(&line)
            .map_err(|e| Error::io(format!("run {id} controls"), e))?;
        f.sync_data().map_err(|e| Error::io(format!("run {id} controls"), e))?;
        drop(lock);
        if let Some(w) = self.watches.lock().get(id) {
            w.seen_len.store(file_len(&dir), Ordering::SeqCst);
            w.tx.send_modify(|v| *v += 1);
        }
        Ok(true)
    }

    /// A receiver whose value grows whenever a control is appended to the
    /// run: at once for appends through this store, within
    /// [`CONTROLS_POLL`] for appends from other processes. Must be called
    /// inside a tokio runtime (the poll is a task on it).
    ///
    /// # Errors
    ///
    /// `not_found`, `internal` outside a tokio runtime.
    pub fn watch_controls(&self, id: &RunId) -> Result<watch::Receiver<u64>> {
        let dir = self.run_dir(id)?;
        let mut map = self.watches.lock();
        if let Some(w) = map.get(id) {
            return Ok(w.tx.subscribe());
        }
        let handle = tokio::runtime::Handle::try_current().map_err(|e| {
            Error::new(
                ErrorCode::Internal,
                format!("the controls watch needs a tokio runtime: {e}"),
            )
        })?;
        let (tx, rx) = watch::channel(0);
        let w = Arc::new(Watched {
            tx,
            seen_len: AtomicU64::new(file_len(&dir)),
        });
        map.insert(id.clone(), w.clone());
        let watches = self.watches.clone();
        let id = id.clone();
        handle.spawn(async move {
            loop {
                tokio::time::sleep(CONTROLS_POLL).await;
                {
                    // Under the map's lock, so a new subscriber either sees
                    // this entry alive or gets a fresh one.
                    let mut map = watches.lock();
                    if w.tx.receiver_count() == 0 {
                        if map.get(&id).is_some_and(|cur| Arc::ptr_eq(cur, &w)) {
                            map.remove(&id);
                        }
                        return;
                    }
                }
                w.saw(file_len(&dir));
            }
        });
        Ok(rx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwf_core::control::Action;
    use hwf_core::model::{RunSnapshot, RunState, ScriptRef};

    fn store_with_run() -> (tempfile::TempDir, FileStore, RunId) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = FileStore::open(tmp.path()).expect("open");
        let id = RunId::generate();
        store.create_run(&id).expect("create");
        let snap = RunSnapshot::new(
            id.clone(),
            RunState::Queued,
            ScriptRef::default(),
            serde_json::json!({}),
            None,
        );
        store.write_snapshot(&snap).expect("snapshot");
        (tmp, store, id)
    }

    #[tokio::test]
    async fn another_process_append_is_seen_by_the_poll_and_the_task_ends() {
        let (tmp, store, id) = store_with_run();
        // A second store object on the same directory stands for another
        // process: its append does not touch this store's watch.
        let other = FileStore::open(tmp.path()).expect("open");
        let started = std::time::Instant::now();
        let mut rx = store.watch_controls(&id).expect("watch");
        assert!(
            other
                .append_control(&id, &Control::new(Action::Pause, "cli"))
                .expect("append")
        );
        // Generous for a loaded machine: this checks that it is seen.
        tokio::time::timeout(CONTROLS_POLL * 100, rx.changed())
            .await
            .expect("seen by the poll")
            .expect("sender alive");
        assert!(
            started.elapsed() >= CONTROLS_POLL,
            "seen by the poll (its first tick is one interval in)"
        );
        drop(rx);
        tokio::time::sleep(CONTROLS_POLL * 3).await;
        assert!(
            store.watches.lock().is_empty(),
            "the poll task ended with its last receiver"
        );
    }
}
