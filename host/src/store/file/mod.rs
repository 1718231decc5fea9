//! The file store: everything under one state directory, reached only
//! through a cap-std [`Dir`], so no name or id can escape it.
//!
//! ```text
//! <state>/scripts/<name>/v000001.wasm + v000001.meta.json
//! <state>/cache/<digest>-<engine>.cwasm
//! <state>/runs/<run_id>/run.json        (atomic replace)
//! <state>/runs/<run_id>/journal.jsonl   (append-only)
//! <state>/runs/<run_id>/controls.jsonl  (append-only, under controls.lock)
//! <state>/runs/<run_id>/lock            (flock: the run's claim)
//! <state>/runs/<run_id>/claim           (the last claim's fencing token)
//! <state>/runs/<run_id>/result.json     (spilled large result)
//! <state>/runs/<run_id>/transcripts/<call>.json
//! <state>/events/events.jsonl           (append-only, under events/lock)
//! <state>/inline/<blake3>.<ext>         (inline scripts by content)
//! <state>/chunks/<blake3>               (journal payload chunks by content)
//! <state>/triggers/<name>.json          (trigger definitions)
//! ```
//!
//! One file per role, each implementing one trait of [`hwf_core::store`]
//! with the same private functions the inherent methods use, so the old
//! methods and the traits cannot drift apart:
//!
//! | file | trait |
//! |---|---|
//! | `runs.rs` | [`RunStore`](hwf_core::store::RunStore), [`Claim`](hwf_core::store::Claim) ([`FileClaim`]) |
//! | `journal.rs` | [`JournalSink`](hwf_core::store::JournalSink) ([`FileJournalSink`]); [`JournalFile`] |
//! | `controls.rs` | the controls and their watch (part of `RunStore`) |
//! | `scripts.rs` | [`ScriptCatalog`](hwf_core::store::ScriptCatalog) |
//! | `events.rs` | [`EventLog`](hwf_core::store::EventLog) |
//! | `blobs.rs` | [`BlobStore`](hwf_core::store::BlobStore) |
//! | `cache.rs` | [`CompileCache`](hwf_core::store::CompileCache) |
//! | `triggers.rs` | [`TriggerStore`](hwf_core::store::TriggerStore) |
//! | `fsutil.rs` | atomic writes, tail repair, [`LockFile`] |
//!
//! The traits' methods run the same blocking file code inline (small files,
//! as before); moving it off the executor is a later step.

mod blobs;
mod cache;
mod controls;
mod events;
mod fsutil;
mod journal;
mod runs;
mod scripts;
mod triggers;

pub use blobs::FileChunks;
pub use controls::CONTROLS_POLL;
pub use fsutil::LockFile;
pub use journal::{FileJournalSink, JournalFile, JournalFlusher, JournalRepair};
pub use runs::{FileClaim, TranscriptLog};

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The embedded default store.
#[derive(Debug)]
pub struct FileStore {
    root: PathBuf,
    dir: Dir,
    /// The compile cache: `<state>/cache`, or a shared directory.
    cache_root: PathBuf,
    cache: Dir,
    /// The runs whose controls someone watches.
    watches: Arc<controls::Watches>,
    /// Journal payload chunks (`chunks/`).
    chunks: Arc<FileChunks>,
}

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
        for sub in ["scripts", "runs", "cache", "events", "inline", "chunks"] {
            dir.create_dir_all(sub)
                .map_err(|e| Error::io(format!("state dir {sub}/"), e))?;
        }
        let cache = dir.open_dir("cache").map_err(|e| Error::io("state dir cache/", e))?;
        let cache_root = root.join("cache");
        let chunks = dir.open_dir("chunks").map_err(|e| Error::io("state dir chunks/", e))?;
        Ok(Self {
            root,
            dir,
            cache_root,
            cache,
            watches: Arc::default(),
            chunks: Arc::new(FileChunks::new(chunks)),
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

    /// The journal payload chunks (`chunks/`).
    pub fn chunks(&self) -> &Arc<FileChunks> {
        &self.chunks
    }

    /// The state directory's path (for messages and links only; all access
    /// goes through the capability).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `runs/<id>`, opened (`not_found` for an unknown run).
    fn run_dir(&self, id: &RunId) -> Result<Dir> {
        self.dir.open_dir(Path::new("runs").join(id.as_str())).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::new(ErrorCode::NotFound, format!("no run with id {id}"))
            } else {
                Error::io(format!("run {id}"), e)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
