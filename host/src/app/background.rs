//! Background runs without a process per run: one runner serves a state
//! dir, and whoever queues work makes sure one is alive.
//!
//! - **The runner lock** (`<state>/runner.lock`): the *background runner*
//!   (`hwf runner --detached`, started on demand) holds an exclusive
//!   `flock` on it for as long as it serves the state dir. Whoever queues a
//!   run (`hwf run --background`, the facade, the Hermes plugin) first
//!   writes the run durably, then calls [`ensure_runner`]: if the lock is
//!   free, nobody serves the state dir and a runner is started; if it is
//!   held, the runner's next scan finds the run. A control recorded on a
//!   parked run and a new event are handed over the same way, by every
//!   front door (CLI, facade, Hermes plugin).
//! - **A long-lived runner serves instead**: when `hwf runner` (without
//!   `--once`, `--run` or `--idle-exit-after`), `hwf serve` or `hwf mcp`
//!   serves the state dir's files, no background runner is started: it
//!   finds the work on its next scan ([`serving_runner`]).
//! - **Autostart off** (`[runner] autostart = false`,
//!   `HWF_RUNNER_AUTOSTART=0`): nothing is ever started; work is only
//!   recorded, for a runner the operator manages.
//! - **Exiting when idle** cannot lose a run: the background runner lets go
//!   of the lock *before* its last scan ([`RunnerLock::release`]), so a run
//!   queued before that scan is found by it, and a run queued after it sees
//!   the lock free and starts a new runner. If the last scan finds work, the
//!   runner takes the lock again (or leaves the work to the runner that took
//!   it meanwhile).
//! - **Status** (`<state>/runners/<pid>.json`): every long-lived runner
//!   (`hwf runner`, the in-process runner of `hwf serve` and `hwf mcp`)
//!   publishes its slots and runs in flight; `hwf doctor` shows the live
//!   ones ([`live_runners`]).

use hwf_core::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::path::{Path, PathBuf};

/// The runner lock's file name in the state dir.
pub const RUNNER_LOCK: &str = "runner.lock";

/// The folder of runner status files in the state dir.
pub const RUNNERS_DIR: &str = "runners";

/// How long the background runner stays with nothing to do before it
/// exits (a later background run starts a new one in ~20 ms).
pub const DETACHED_IDLE_EXIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The state dir's runner lock, held.
#[derive(Debug)]
pub struct RunnerLock {
    file: File,
    path: PathBuf,
}

impl RunnerLock {
    /// Take the lock of `state_dir` if nobody holds it.
    ///
    /// # Errors
    ///
    /// `io` when the lock file cannot be opened or locked for another
    /// reason than being held.
    pub fn try_take(state_dir: &Path) -> Result<Option<Self>> {
        let path = state_dir.join(RUNNER_LOCK);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(format!("open {}", path.display()), e))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(Self { file, path })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(Error::io(format!("lock {}", path.display()), e)),
        }
    }

    /// Let go of the lock (before the last scan of a runner leaving).
    ///
    /// # Errors
    ///
    /// `io` when the lock cannot be released.
    pub fn release(self) -> Result<()> {
        self.file
            .unlock()
            .map_err(|e| Error::io(format!("unlock {}", self.path.display()), e))
    }
}

/// Whether a background runner serves `state_dir` now (its lock is held).
///
/// # Errors
///
/// As [`RunnerLock::try_take`].
pub fn runner_alive(state_dir: &Path) -> Result<bool> {
    Ok(RunnerLock::try_take(state_dir)?.is_none())
}

/// What [`ensure_runner`] found or did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kick {
    /// The background runner holds the lock: its next scan finds the work.
    Alive,
    /// A long-lived runner (`hwf runner`, `serve`, `mcp`; its pid) serves
    /// the state dir: its next scan finds the work.
    Served(u32),
    /// A background runner was started.
    Started,
}

/// Make sure a runner serves `state_dir`, for work just queued or
/// recorded there (durably, before this call): when the background
/// runner's lock is free and — for runs in the state dir's own files
/// (`local_store`) — no long-lived runner serves it ([`serving_runner`]),
/// `start` starts one (a detached `hwf runner --detached`). On a shared
/// store every machine's runners claim work, but none of them is known to
/// be up, so only the lock counts.
///
/// # Errors
///
/// As [`RunnerLock::try_take`], and what `start` returns.
pub fn ensure_runner(state_dir: &Path, local_store: bool, start: impl FnOnce() -> Result<()>) -> Result<Kick> {
    if local_store && let Some(r) = serving_runner(state_dir) {
        return Ok(Kick::Served(r.pid));
    }
    match RunnerLock::try_take(state_dir)? {
        None => Ok(Kick::Alive),
        Some(lock) => {
            // Released before the runner starts: the runner takes it
            // itself. A second caller in between starts a second runner,
            // which finds the lock held and exits at once.
            lock.release()?;
            start()?;
            Ok(Kick::Started)
        }
    }
}

/// A live runner that serves every run of `state_dir`'s files until it is
/// stopped (`hwf runner` without `--once`, `--run` or `--idle-exit-after`,
/// the in-process runner of `hwf serve` / `hwf mcp`), and is not stopping:
/// work recorded now is found by its next scan without a background
/// runner. Read from the status files only (the lock is never touched).
pub fn serving_runner(state_dir: &Path) -> Option<RunnerInfo> {
    live_runners(state_dir)
        .into_iter()
        .find(|r| r.until_stopped && !r.stopping && !r.shared_store)
}

/// A long-lived runner's published status (`<state>/runners/<pid>.json`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RunnerInfo {
    /// The runner's process id.
    pub pid: u32,
    /// What it is: `runner`, `detached` (the background runner), `serve`,
    /// `mcp`.
    pub kind: String,
    /// Its slots (runs it executes at once at most).
    pub capacity: usize,
    /// Runs it executes now.
    pub in_flight: usize,
    /// When it started, ms since the epoch.
    pub started_at_ms: u64,
    /// When it last wrote this, ms since the epoch.
    pub updated_at_ms: u64,
    /// Whether it serves every run until it is stopped (no `--once`,
    /// `--run` or idle exit): then nobody needs to start a runner for
    /// work recorded here.
    #[serde(default)]
    pub until_stopped: bool,
    /// Whether its runs live in a shared store (not this state dir's
    /// files).
    #[serde(default)]
    pub shared_store: bool,
    /// Whether it is stopping (a signal): it takes no new work.
    #[serde(default)]
    pub stopping: bool,
}

/// What a runner serves, as published in its status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunnerScope {
    /// Every run, until it is stopped (see [`RunnerInfo::until_stopped`]).
    pub until_stopped: bool,
    /// Its runs live in a shared store.
    pub shared_store: bool,
}

/// A runner's status file, kept up to date and removed when dropped.
#[derive(Debug)]
pub struct RunnerStatus {
    path: Option<PathBuf>,
    info: std::sync::Mutex<RunnerInfo>,
}

impl RunnerStatus {
    /// Publish a runner of `capacity` slots in `state_dir` serving
    /// `scope` (best effort: a status that cannot be written is logged,
    /// never fatal to the runner).
    pub fn publish(state_dir: &Path, kind: &str, capacity: usize, scope: RunnerScope) -> Self {
        let now = crate::store::now_ms();
        let info = RunnerInfo {
            pid: std::process::id(),
            kind: kind.to_owned(),
            capacity,
            in_flight: 0,
            started_at_ms: now,
            updated_at_ms: now,
            until_stopped: scope.until_stopped,
            shared_store: scope.shared_store,
            stopping: false,
        };
        let dir = state_dir.join(RUNNERS_DIR);
        let path = match std::fs::create_dir_all(&dir) {
            Ok(()) => Some(dir.join(format!("{}.json", info.pid))),
            Err(e) => {
                tracing::warn!(dir = %dir.display(), error = %e, "cannot publish the runner's status");
                None
            }
        };
        let status = Self {
            path,
            info: std::sync::Mutex::new(info),
        };
        status.write();
        status
    }

    /// Record how many runs are in flight (written when it changed).
    pub fn update(&self, in_flight: usize) {
        let changed = {
            let mut info = self.info.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let changed = info.in_flight != in_flight;
            info.in_flight = in_flight;
            changed
        };
        if changed {
            self.write();
        }
    }

    /// Say that the runner is stopping (it takes no new work): work
    /// recorded from now on starts a background runner again.
    pub fn stopping(&self) {
        self.info
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .stopping = true;
        self.write();
    }

    fn write(&self) {
        let Some(path) = &self.path else { return };
        let mut info = self.info.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        info.updated_at_ms = crate::store::now_ms();
        let tmp = path.with_extension("json.tmp");
        let written = serde_json::to_vec(&*info)
            .map_err(std::io::Error::other)
            .and_then(|bytes| std::fs::write(&tmp, bytes))
            .and_then(|()| std::fs::rename(&tmp, path));
        if let Err(e) = written {
            tracing::warn!(path = %path.display(), error = %e, "cannot write the runner's status");
        }
    }
}

impl Drop for RunnerStatus {
    fn drop(&mut self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The runners alive on this machine for `state_dir` (status files of
/// processes that are gone are removed).
pub fn live_runners(state_dir: &Path) -> Vec<RunnerInfo> {
    let dir = state_dir.join(RUNNERS_DIR);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let Some(info) = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<RunnerInfo>(&b).ok())
        else {
            continue;
        };
        if Path::new(&format!("/proc/{}", info.pid)).exists() {
            out.push(info);
        } else {
            let _ = std::fs::remove_file(&path);
        }
    }
    out.sort_by_key(|r| r.pid);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn publish(dir: &Path, scope: RunnerScope) -> RunnerStatus {
        RunnerStatus::publish(dir, "runner", 4, scope)
    }

    /// Counts the runners `ensure_runner` starts.
    fn ensure(dir: &Path, local: bool) -> (Kick, usize) {
        let mut started = 0;
        let kick = ensure_runner(dir, local, || {
            started += 1;
            Ok(())
        })
        .expect("ensure");
        (kick, started)
    }

    #[test]
    fn a_long_lived_runner_of_the_files_serves_instead_of_a_background_runner() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(ensure(dir.path(), true), (Kick::Started, 1), "nobody serves it");
        let me = std::process::id();
        let serving = publish(
            dir.path(),
            RunnerScope {
                until_stopped: true,
                shared_store: false,
            },
        );
        assert_eq!(serving_runner(dir.path()).map(|r| r.pid), Some(me));
        assert_eq!(ensure(dir.path(), true), (Kick::Served(me), 0));
        // On a shared store only the lock counts.
        assert_eq!(ensure(dir.path(), false), (Kick::Started, 1));
        // A stopping runner takes no new work.
        serving.stopping();
        assert_eq!(ensure(dir.path(), true), (Kick::Started, 1));
        drop(serving);
        assert!(live_runners(dir.path()).is_empty(), "its status is removed");
        // Runners that leave when idle, or serve one run, or another store,
        // do not count.
        for scope in [
            RunnerScope::default(),
            RunnerScope {
                until_stopped: true,
                shared_store: true,
            },
        ] {
            let _status = publish(dir.path(), scope);
            assert!(serving_runner(dir.path()).is_none(), "{scope:?}");
            assert_eq!(ensure(dir.path(), true), (Kick::Started, 1), "{scope:?}");
        }
        // The background runner holding the lock serves it.
        let _lock = RunnerLock::try_take(dir.path()).expect("lock").expect("free");
        assert_eq!(ensure(dir.path(), true), (Kick::Alive, 0));
    }

    #[test]
    fn a_status_file_of_an_older_runner_counts_as_not_serving() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join(RUNNERS_DIR)).expect("dir");
        let me = std::process::id();
        std::fs::write(
            dir.path().join(RUNNERS_DIR).join(format!("{me}.json")),
            format!(r#"{{"pid":{me},"kind":"runner","capacity":4,"in_flight":0,"started_at_ms":1,"updated_at_ms":1}}"#),
        )
        .expect("write");
        assert_eq!(live_runners(dir.path()).len(), 1);
        assert!(serving_runner(dir.path()).is_none());
    }
}
