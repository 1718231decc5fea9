//! The file store: everything under one state directory, reached only
//! through a cap-std [`Dir`], so no name or id can escape it.
//!
//! ```text
//! <state>/scripts/<name>/v000001.wasm + v000001.meta.json
//! <state>/cache/<digest>-<engine>.cwasm
//! <state>/runs/<run_id>/run.json        (atomic replace)
//! <state>/runs/<run_id>/journal.jsonl   (append-only)
//! <state>/runs/<run_id>/result.json     (spilled large result)
//! ```

use cap_std::ambient_authority;
use cap_std::fs::{Dir, File, OpenOptions};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::{RunId, validate_name};
use hwf_core::model::{RunSnapshot, ScriptMeta};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The embedded default store.
#[derive(Debug)]
pub struct FileStore {
    root: PathBuf,
    dir: Dir,
    /// The compile cache: `<state>/cache`, or a shared directory.
    cache_root: PathBuf,
    cache: Dir,
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl FileStore {
    /// Read an input file the user named (a config, a fixture, a script) as
    /// UTF-8 text: a regular file of at most `max` bytes. It is opened
    /// non-blocking and checked on the open handle, so a FIFO, a device
    /// (`/dev/zero`) or a directory is refused at once instead of blocking
    /// or growing memory, even if swapped in after a check by path.
    ///
    /// # Errors
    ///
    /// `not_found`/`io` opening it; `invalid_args` when it is not a regular
    /// file; `too_large` (the caller's code) when it is over `max` bytes or
    /// not UTF-8.
    pub fn read_input(path: &Path, max: u64, what: &str, too_large: ErrorCode) -> Result<String> {
        use std::os::unix::fs::OpenOptionsExt as _;
        let open = |e| Error::io(format!("{what} {}", path.display()), e);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(path)
            .map_err(open)?;
        let meta = file.metadata().map_err(open)?;
        if !meta.is_file() {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                format!(
                    "{what} {} is not a regular file (a FIFO, device or directory); give a file",
                    path.display()
                ),
            ));
        }
        let too_big = || Error::new(too_large, format!("{what} {} is over {max} bytes", path.display()));
        if meta.len() > max {
            return Err(too_big());
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.take(max + 1).read_to_end(&mut bytes).map_err(open)?;
        if bytes.len() as u64 > max {
            return Err(too_big());
        }
        String::from_utf8(bytes)
            .map_err(|_| Error::new(too_large, format!("{what} {} is not UTF-8 text", path.display())))
    }

    /// Open (creating if needed) the state directory at `root`.
    ///
    /// # Errors
    ///
    /// `io` when the directory cannot be created or opened.
    pub fn open(root: impl Into<PathBuf>) -> Result<Self> {
        let root = root.into();
        std::fs::create_dir_all(&root).map_err(|e| Error::io(format!("state dir {}", root.display()), e))?;
        let dir = Dir::open_ambient_dir(&root, ambient_authority())
            .map_err(|e| Error::io(format!("state dir {}", root.display()), e))?;
        for sub in ["scripts", "runs", "cache", "events", "inline"] {
            dir.create_dir_all(sub)
                .map_err(|e| Error::io(format!("state dir {sub}/"), e))?;
        }
        let cache = dir.open_dir("cache").map_err(|e| Error::io("state dir cache/", e))?;
        let cache_root = root.join("cache");
        Ok(Self {
            root,
            dir,
            cache_root,
            cache,
        })
    }

    /// Use `path` as the compile cache instead of `<state>/cache` (it only
    /// holds precompiled components keyed by digest and engine, so several
    /// state dirs can share one).
    ///
    /// # Errors
    ///
    /// `io` when the directory cannot be created or opened.
    pub fn with_cache_dir(mut self, path: &Path) -> Result<Self> {
        std::fs::create_dir_all(path).map_err(|e| Error::io(format!("cache dir {}", path.display()), e))?;
        self.cache = Dir::open_ambient_dir(path, ambient_authority())
            .map_err(|e| Error::io(format!("cache dir {}", path.display()), e))?;
        self.cache_root = path.to_path_buf();
        Ok(self)
    }

    /// The state directory's path (for messages and links only; all access
    /// goes through the capability).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Write `bytes` to `path` atomically: a temp file in the same directory,
    /// fsync, rename over the target.
    fn write_atomic(dir: &Dir, name: &str, bytes: &[u8]) -> Result<()> {
        Self::write_replace(dir, name, bytes, true)
    }

    /// Like [`write_atomic`](Self::write_atomic); `sync` chooses whether the
    /// data is fsync'd before the rename.
    fn write_replace(dir: &Dir, name: &str, bytes: &[u8], sync: bool) -> Result<()> {
        let tmp = format!(
            ".{name}.{}.{}.tmp",
            std::process::id(),
            TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let mut f = dir.create(&tmp).map_err(|e| Error::io(format!("write {name}"), e))?;
        f.write_all(bytes).map_err(|e| Error::io(format!("write {name}"), e))?;
        if sync {
            f.sync_data().map_err(|e| Error::io(format!("sync {name}"), e))?;
        }
        drop(f);
        dir.rename(&tmp, dir, name)
            .map_err(|e| Error::io(format!("rename {name}"), e))
    }

    // ---- scripts ----------------------------------------------------------

    fn script_dir(&self, name: &str, create: bool) -> Result<Dir> {
        validate_name("script name", name)?;
        let path = Path::new("scripts").join(name);
        if create {
            self.dir
                .create_dir_all(&path)
                .map_err(|e| Error::io(format!("script {name:?}"), e))?;
        }
        self.dir.open_dir(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::new(ErrorCode::NotFound, format!("no saved script named {name:?}"))
            } else {
                Error::io(format!("script {name:?}"), e)
            }
        })
    }

    /// Saved versions of `name`, ascending.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `io`.
    pub fn script_versions(&self, name: &str) -> Result<Vec<u32>> {
        let dir = self.script_dir(name, false)?;
        let mut versions = Vec::new();
        for entry in dir.entries().map_err(|e| Error::io(format!("script {name:?}"), e))? {
            let entry = entry.map_err(|e| Error::io(format!("script {name:?}"), e))?;
            let file = entry.file_name();
            let file = file.to_string_lossy();
            if let Some(v) = file.strip_prefix('v').and_then(|r| r.strip_suffix(".meta.json"))
                && let Ok(v) = v.parse::<u32>()
            {
                versions.push(v);
            }
        }
        versions.sort_unstable();
        Ok(versions)
    }

    /// Save a new immutable version of a script. Without `replace`, a name
    /// that already exists is refused.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `already_exists`, `io`.
    pub fn save_script(&self, name: &str, wasm: &[u8], mut meta: ScriptMeta, replace: bool) -> Result<ScriptMeta> {
        let dir = self.script_dir(name, true)?;
        let versions = self.script_versions(name)?;
        if let Some(last) = versions.last()
            && !replace
        {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("script {name:?} already exists (latest v{last:06}); pass --replace to save a new version"),
            ));
        }
        let version = versions.last().map_or(1, |v| v + 1);
        meta.version = version;
        meta.name = name.to_owned();
        Self::write_atomic(&dir, &format!("v{version:06}.{}", file_ext(&meta.language)), wasm)?;
        let json = serde_json::to_vec_pretty(&meta).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        // The meta file is written last: a version exists once its meta does.
        Self::write_atomic(&dir, &format!("v{version:06}.meta.json"), &json)?;
        Ok(meta)
    }

    /// Metadata of one version (latest when `version` is `None`).
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `corrupt_store`, `io`.
    pub fn script_meta(&self, name: &str, version: Option<u32>) -> Result<ScriptMeta> {
        let dir = self.script_dir(name, false)?;
        let version = match version {
            Some(v) => v,
            None => *self
                .script_versions(name)?
                .last()
                .ok_or_else(|| Error::new(ErrorCode::NotFound, format!("script {name:?} has no versions")))?,
        };
        let file = format!("v{version:06}.meta.json");
        let text = dir.read_to_string(&file).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::new(ErrorCode::NotFound, format!("script {name:?} has no version {version}"))
            } else {
                Error::io(format!("script {name:?} {file}"), e)
            }
        })?;
        serde_json::from_str(&text)
            .map_err(|e| Error::new(ErrorCode::CorruptStore, format!("scripts/{name}/{file}: {e}")))
    }

    /// The component bytes of one version.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `io`.
    pub fn script_bytes(&self, name: &str, version: u32) -> Result<Vec<u8>> {
        let language = self.script_meta(name, Some(version))?.language;
        let dir = self.script_dir(name, false)?;
        dir.read(format!("v{version:06}.{}", file_ext(&language)))
            .map_err(|e| Error::io(format!("script {name:?} v{version}"), e))
    }

    /// Names of all saved scripts, sorted.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn script_names(&self) -> Result<Vec<String>> {
        list_dir_names(&self.dir, "scripts")
    }

    // ---- runs -------------------------------------------------------------

    fn run_dir(&self, id: &RunId) -> Result<Dir> {
        self.dir.open_dir(Path::new("runs").join(id.as_str())).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::new(ErrorCode::NotFound, format!("no run with id {id}"))
            } else {
                Error::io(format!("run {id}"), e)
            }
        })
    }

    /// Create the directory of a new run.
    ///
    /// # Errors
    ///
    /// `already_exists` when the id is taken, `io`.
    pub fn create_run(&self, id: &RunId) -> Result<()> {
        let path = Path::new("runs").join(id.as_str());
        match self.dir.create_dir(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("a run with id {id} already exists"),
            )),
            Err(e) => Err(Error::io(format!("run {id}"), e)),
        }
    }

    /// Replace `run.json` atomically.
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn write_snapshot(&self, snap: &RunSnapshot) -> Result<()> {
        let dir = self.run_dir(&snap.run_id)?;
        let json = serde_json::to_vec_pretty(snap).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        Self::write_atomic(&dir, "run.json", &json)
    }

    /// Replace `run.json` atomically without an fsync (progress updates;
    /// the state-changing writes use [`write_snapshot`](Self::write_snapshot)).
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn write_snapshot_fast(&self, snap: &RunSnapshot) -> Result<()> {
        let dir = self.run_dir(&snap.run_id)?;
        let json = serde_json::to_vec_pretty(snap).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        Self::write_replace(&dir, "run.json", &json, false)
    }

    /// Read `run.json`.
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store`, `io`.
    pub fn read_snapshot(&self, id: &RunId) -> Result<RunSnapshot> {
        let dir = self.run_dir(id)?;
        let text = dir
            .read_to_string("run.json")
            .map_err(|e| Error::io(format!("run {id} run.json"), e))?;
        serde_json::from_str(&text).map_err(|e| Error::new(ErrorCode::CorruptStore, format!("runs/{id}/run.json: {e}")))
    }

    /// Open the run's journal for appending.
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn open_journal(&self, id: &RunId) -> Result<JournalFile> {
        let dir = self.run_dir(id)?;
        repair_tail(&dir, "journal.jsonl")?;
        let file = dir
            .open_with("journal.jsonl", OpenOptions::new().create(true).append(true))
            .map_err(|e| Error::io(format!("run {id} journal"), e))?;
        Ok(JournalFile { file })
    }

    /// Read the run's journal. A torn (unterminated or unparsable) last line
    /// is ignored; a bad line before the end is `corrupt_store`.
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store`, `io`.
    pub fn read_journal(&self, id: &RunId) -> Result<Vec<Value>> {
        let dir = self.run_dir(id)?;
        let mut text = String::new();
        match dir.open("journal.jsonl") {
            Ok(mut f) => {
                f.read_to_string(&mut text)
                    .map_err(|e| Error::io(format!("run {id} journal"), e))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(format!("run {id} journal"), e)),
        }
        parse_journal(&text).map_err(|line| {
            Error::new(
                ErrorCode::CorruptStore,
                format!("runs/{id}/journal.jsonl: line {line} is not valid JSON"),
            )
        })
    }

    /// Read a run's journal as typed entries (a torn last line is skipped;
    /// a damaged complete line is named).
    ///
    /// # Errors
    ///
    /// `not_found` (unknown run), `io`, `corrupt_store`.
    pub fn read_entries(&self, id: &RunId) -> Result<Vec<hwf_core::journal::JournalEntry>> {
        let dir = self.run_dir(id)?;
        let mut text = String::new();
        match dir.open("journal.jsonl") {
            Ok(mut f) => {
                f.read_to_string(&mut text)
                    .map_err(|e| Error::io(format!("run {id} journal"), e))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(format!("run {id} journal"), e)),
        }
        hwf_core::journal::parse_journal(&text).map_err(|bad| {
            Error::new(
                ErrorCode::CorruptStore,
                format!("runs/{id}/journal.jsonl: line {}: {}", bad.line, bad.reason),
            )
        })
    }

    /// Write a spilled result; returns its path relative to the state dir.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn write_result(&self, id: &RunId, bytes: &[u8]) -> Result<String> {
        let dir = self.run_dir(id)?;
        Self::write_atomic(&dir, "result.json", bytes)?;
        Ok(format!("runs/{id}/result.json"))
    }

    /// A run's controls, in order (a torn last line is ignored).
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store`, `io`.
    pub fn read_controls(&self, id: &RunId) -> Result<Vec<crate::control::Control>> {
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
    pub fn read_controls_lenient(&self, id: &RunId) -> Result<(Vec<crate::control::Control>, usize)> {
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
        self.run_dir(id)
            .ok()
            .and_then(|d| d.metadata("controls.jsonl").ok())
            .map_or(0, |m| m.len())
    }

    /// Append a control unless one with the same id exists; returns whether
    /// it was appended.
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn append_control(&self, id: &RunId, control: &crate::control::Control) -> Result<bool> {
        let control = &redacted_control(control)?;
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
        Ok(true)
    }

    /// Try to take the exclusive execution lock of a run (`runs/<id>/lock`,
    /// an flock the kernel releases if the holder dies). `None` when another
    /// process holds it.
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn try_lock_run(&self, id: &RunId) -> Result<Option<LockFile>> {
        let dir = self.run_dir(id)?;
        LockFile::try_acquire(&dir, "lock")
    }

    /// Whether some process holds the run's execution lock.
    pub fn run_locked(&self, id: &RunId) -> bool {
        match self.try_lock_run(id) {
            Ok(Some(_lock)) => false,
            Ok(None) => true,
            Err(_) => false,
        }
    }

    /// Write `transcripts/<call>.json` of a run.
    ///
    /// # Errors
    ///
    /// `invalid_name` for a bad call id, `io`.
    pub fn write_transcript(&self, id: &RunId, call_id: &str, transcript: &Value) -> Result<()> {
        validate_name("call id", call_id)?;
        let dir = self.run_dir(id)?;
        dir.create_dir_all("transcripts")
            .map_err(|e| Error::io(format!("run {id} transcripts"), e))?;
        let dir = dir
            .open_dir("transcripts")
            .map_err(|e| Error::io(format!("run {id} transcripts"), e))?;
        let json = serde_json::to_vec_pretty(transcript).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        Self::write_replace(&dir, &format!("{call_id}.json"), &json, false)
    }

    /// All run ids, sorted (generated ids sort by creation time).
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn run_ids(&self) -> Result<Vec<RunId>> {
        Ok(list_dir_names(&self.dir, "runs")?
            .into_iter()
            .filter_map(|n| RunId::parse(&n).ok())
            .collect())
    }

    /// Keep component bytes or a script sent inline (facade
    /// `script_source`, `definition`) under `inline/<digest>.<ext>`; returns
    /// the file's path. A script holding a credential is refused (see
    /// [`crate::catalog::refuse_credentials_in_script`]).
    ///
    /// # Errors
    ///
    /// `invalid_script`, `io`.
    pub fn put_inline(&self, bytes: &[u8], ext: &str) -> Result<PathBuf> {
        let ext = if matches!(ext, "wasm" | "js" | "json" | "py") {
            ext
        } else {
            "bin"
        };
        if ext != "wasm" && ext != "bin" {
            crate::catalog::refuse_credentials_in_script(bytes)?;
        }
        let name = format!("{}.{ext}", blake3::hash(bytes).to_hex());
        let dir = self.dir.open_dir("inline").map_err(|e| Error::io("inline dir", e))?;
        if !dir.is_file(&name) {
            Self::write_atomic(&dir, &name, bytes)?;
        }
        Ok(self.root.join("inline").join(name))
    }

    // ---- events ---------------------------------------------------------------

    /// Every event, in version order (a torn last line is ignored).
    ///
    /// # Errors
    ///
    /// `corrupt_store`, `io`.
    pub fn read_events(&self) -> Result<Vec<super::StoredEvent>> {
        let text = match self.dir.read_to_string("events/events.jsonl") {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io("events", e)),
        };
        let lines = parse_journal(&text).map_err(|line| {
            Error::new(
                ErrorCode::CorruptStore,
                format!("events/events.jsonl: line {line} is not valid JSON"),
            )
        })?;
        lines
            .into_iter()
            .map(|v| {
                serde_json::from_value(v)
                    .map_err(|e| Error::new(ErrorCode::CorruptStore, format!("events/events.jsonl: {e}")))
            })
            .collect()
    }

    /// Append an event unless one with its id exists; returns the stored
    /// event (the existing one for a repeated id) and whether it is new.
    ///
    /// # Errors
    ///
    /// `io`, `corrupt_store`.
    pub fn append_event(&self, mut event: super::StoredEvent) -> Result<(super::StoredEvent, bool)> {
        refuse_credential_id("event id", &event.id)?;
        redact_string(&mut event.source);
        redact_string(&mut event.kind);
        if let Some(s) = &mut event.subject {
            redact_string(s);
        }
        hwf_core::redact::redact_value(&mut event.payload);
        let dir = self.dir.open_dir("events").map_err(|e| Error::io("events", e))?;
        let lock = LockFile::acquire(&dir, "lock")?;
        repair_tail(&dir, "events.jsonl")?;
        let existing = self.read_events()?;
        if let Some(e) = existing.iter().find(|e| e.id == event.id) {
            return Ok((e.clone(), false));
        }
        event.version = existing.last().map_or(1, |e| e.version + 1);
        let mut line = serde_json::to_vec(&event).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        line.push(b'\n');
        let mut f = dir
            .open_with("events.jsonl", OpenOptions::new().create(true).append(true))
            .map_err(|e| Error::io("events", e))?;
        f.write_all(&line).map_err(|e| Error::io("events", e))?;
        f.sync_data().map_err(|e| Error::io("events", e))?;
        drop(lock);
        Ok((event, true))
    }

    // ---- compile cache ------------------------------------------------------

    /// Path of a cache entry (the key must be a safe name).
    ///
    /// # Errors
    ///
    /// `invalid_name`.
    pub fn cache_path(&self, key: &str) -> Result<PathBuf> {
        validate_name("cache key", key)?;
        Ok(self.cache_root.join(key))
    }

    /// Whether a cache entry exists.
    pub fn cache_has(&self, key: &str) -> bool {
        validate_name("cache key", key).is_ok() && self.cache.is_file(key)
    }

    /// Write a cache entry atomically.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `io`.
    pub fn cache_put(&self, key: &str, bytes: &[u8]) -> Result<()> {
        validate_name("cache key", key)?;
        Self::write_atomic(&self.cache, key, bytes)
    }
}

/// Redact a string field in place.
fn redact_string(s: &mut String) {
    if let std::borrow::Cow::Owned(r) = hwf_core::redact::redact_text(s) {
        *s = r;
    }
}

/// An id is matched on, so it cannot be redacted: refuse a credential-shaped
/// one.
fn refuse_credential_id(what: &str, id: &str) -> Result<()> {
    if matches!(hwf_core::redact::redact_text(id), std::borrow::Cow::Owned(_)) {
        return Err(Error::new(
            ErrorCode::InvalidArgs,
            format!("the {what} looks like a credential; ids are stored and shown as they are, so use another id"),
        ));
    }
    Ok(())
}

/// A control as it is stored: every free-text field (`actor`, `reason`,
/// `channel`, `message_id`, `value`) redacted; a credential-shaped id or
/// call ref refused.
fn redacted_control(control: &crate::control::Control) -> Result<crate::control::Control> {
    refuse_credential_id("control id", &control.id)?;
    if let Some(call) = &control.call {
        refuse_credential_id("call ref", call)?;
    }
    let mut c = control.clone();
    redact_string(&mut c.actor);
    for s in [&mut c.reason, &mut c.channel, &mut c.message_id].into_iter().flatten() {
        redact_string(s);
    }
    if let Some(v) = &mut c.value {
        hwf_core::redact::redact_value(v);
    }
    Ok(c)
}

/// The file extension a saved version of `language` is stored under.
fn file_ext(language: &str) -> &'static str {
    match language {
        "js" => "js",
        "json" => "json",
        // The seed's name for a saved Python script (`v000001.workflow.py`).
        "python" => "workflow.py",
        _ => "wasm",
    }
}

fn list_dir_names(dir: &Dir, sub: &str) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in dir.read_dir(sub).map_err(|e| Error::io(format!("{sub}/"), e))? {
        let entry = entry.map_err(|e| Error::io(format!("{sub}/"), e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if validate_name("entry", &name).is_ok() {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// Before appending to a JSON-lines file, cut off a torn last line (a write
/// that a crash interrupted), so the next line does not glue onto it and turn
/// a tolerated tail into corruption.
fn repair_tail(dir: &Dir, name: &str) -> Result<()> {
    use std::io::{Seek, SeekFrom};
    let mut f = match dir.open_with(name, OpenOptions::new().read(true).write(true)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(format!("repair {name}"), e)),
    };
    let len = f.metadata().map_err(|e| Error::io(format!("repair {name}"), e))?.len();
    if len == 0 {
        return Ok(());
    }
    let mut last = [0u8; 1];
    f.seek(SeekFrom::Start(len - 1))
        .and_then(|_| f.read_exact(&mut last))
        .map_err(|e| Error::io(format!("repair {name}"), e))?;
    if last[0] == b'\n' {
        return Ok(());
    }
    let mut all = Vec::new();
    f.seek(SeekFrom::Start(0))
        .and_then(|_| f.read_to_end(&mut all))
        .map_err(|e| Error::io(format!("repair {name}"), e))?;
    let keep = all.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) as u64;
    tracing::warn!(file = name, dropped = len - keep, "cutting a torn last line");
    f.set_len(keep).map_err(|e| Error::io(format!("repair {name}"), e))?;
    f.sync_data().map_err(|e| Error::io(format!("repair {name}"), e))
}

/// Parse journal text; `Err(line number)` for a bad line that is not last.
pub(crate) fn parse_journal(text: &str) -> std::result::Result<Vec<Value>, usize> {
    let mut out = Vec::new();
    let terminated = text.ends_with('\n');
    let lines: Vec<&str> = text.split('\n').collect();
    let n = lines.len();
    for (i, line) in lines.into_iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        // Only an unterminated last line is a write that did not finish; a
        // complete line that does not parse is corruption, and is named.
        let torn = i + 1 == n && !terminated;
        match serde_json::from_str::<Value>(line) {
            Ok(v) if !torn => out.push(v),
            Ok(_) | Err(_) if torn => {}
            Ok(_) | Err(_) => return Err(i + 1),
        }
    }
    Ok(out)
}

/// An exclusive advisory lock (flock) on a file; released on drop or when
/// the process dies.
#[derive(Debug)]
pub struct LockFile {
    _file: std::fs::File,
}

impl LockFile {
    fn open(dir: &Dir, name: &str) -> Result<std::fs::File> {
        let f = dir
            .open_with(name, OpenOptions::new().create(true).read(true).write(true))
            .map_err(|e| Error::io(format!("lock {name}"), e))?;
        Ok(f.into_std())
    }

    /// Block until the lock is ours.
    fn acquire(dir: &Dir, name: &str) -> Result<Self> {
        let file = Self::open(dir, name)?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| Error::io(format!("lock {name}"), e.into()))?;
        Ok(Self { _file: file })
    }

    /// Take the lock if it is free.
    fn try_acquire(dir: &Dir, name: &str) -> Result<Option<Self>> {
        let file = Self::open(dir, name)?;
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(Some(Self { _file: file })),
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(None),
            Err(e) => Err(Error::io(format!("lock {name}"), e.into())),
        }
    }
}

/// An open, append-only journal file.
#[derive(Debug)]
pub struct JournalFile {
    file: File,
}

impl JournalFile {
    /// Append one line (must end with `\n`); with `durable`, fsync before
    /// returning.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn append(&mut self, line: &[u8], durable: bool) -> Result<()> {
        self.file.write_all(line).map_err(|e| Error::io("journal append", e))?;
        if durable {
            self.file.sync_data().map_err(|e| Error::io("journal sync", e))?;
        }
        Ok(())
    }

    /// The file's length in bytes.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn len(&self) -> Result<u64> {
        self.file
            .metadata()
            .map(|m| m.len())
            .map_err(|e| Error::io("journal size", e))
    }

    /// Whether the file is empty.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn is_empty(&self) -> Result<bool> {
        self.len().map(|n| n == 0)
    }

    /// A second std handle on the same file (for fsync off the writer).
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn try_clone_std(&self) -> Result<std::fs::File> {
        let f = self.file.try_clone().map_err(|e| Error::io("journal clone", e))?;
        Ok(f.into_std())
    }

    /// fsync whatever was appended.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn sync(&mut self) -> Result<()> {
        self.file.sync_data().map_err(|e| Error::io("journal sync", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torn_last_line_is_ignored() {
        let text = "{\"a\":1}\n{\"b\":2}\n{\"c\":";
        assert_eq!(parse_journal(text).expect("parse").len(), 2);
        let text = "{\"a\":1}\n{\"b\":2}\n{\"c\":3}";
        assert_eq!(
            parse_journal(text).expect("parse").len(),
            2,
            "unterminated last line is torn"
        );
        let text = "{\"a\":1}\nxx\n{\"c\":3}\n";
        assert_eq!(parse_journal(text), Err(2));
    }

    #[test]
    fn names_cannot_escape() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = FileStore::open(tmp.path()).expect("open");
        assert_eq!(
            store.script_versions("../x").expect_err("bad").code(),
            ErrorCode::InvalidName
        );
        assert_eq!(
            RunId::parse("../../etc").expect_err("bad").code(),
            ErrorCode::InvalidName
        );
        assert_eq!(
            store.cache_path("../x").expect_err("bad").code(),
            ErrorCode::InvalidName
        );
    }
}
