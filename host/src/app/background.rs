//! Background runs without a process per run: one runner serves a state
//! dir, and whoever queues work makes sure one is alive.
//!
//! - **The runner lock** (`<state>/runner.lock`): the *background runner*
//!   (`hwf runner --detached`, started on demand) holds an exclusive
//!   `flock` on it for as long as it serves the state dir. Whoever queues a
//!   run (`hwf run --background`, the facade, the Hermes plugin) first
//!   writes the run durably, then calls [`ensure_runner`]: if the lock is
//!   free, nobody serves the state dir and a runner is started; if it is
//!   held, the runner's next scan finds the run.
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

/// Make sure a runner serves `state_dir`, for work just queued there
/// (durably, before this call): when the lock is free, `start` starts one
/// (a detached `hwf runner --detached`). Returns whether one was started.
///
/// # Errors
///
/// As [`RunnerLock::try_take`], and what `start` returns.
pub fn ensure_runner(state_dir: &Path, start: impl FnOnce() -> Result<()>) -> Result<bool> {
    match RunnerLock::try_take(state_dir)? {
        None => Ok(false),
        Some(lock) => {
            // Released before the runner starts: the runner takes it
            // itself. A second caller in between starts a second runner,
            // which finds the lock held and exits at once.
            lock.release()?;
            start()?;
            Ok(true)
        }
    }
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
}

/// A runner's status file, kept up to date and removed when dropped.
#[derive(Debug)]
pub struct RunnerStatus {
    path: Option<PathBuf>,
    info: std::sync::Mutex<RunnerInfo>,
}

impl RunnerStatus {
    /// Publish a runner of `capacity` slots in `state_dir` (best effort: a
    /// status that cannot be written is logged, never fatal to the
    /// runner).
    pub fn publish(state_dir: &Path, kind: &str, capacity: usize) -> Self {
        let now = crate::store::now_ms();
        let info = RunnerInfo {
            pid: std::process::id(),
            kind: kind.to_owned(),
            capacity,
            in_flight: 0,
            started_at_ms: now,
            updated_at_ms: now,
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
