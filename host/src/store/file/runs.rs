//! Runs: `runs/<id>/run.json` (replaced atomically), the run's claim
//! (`lock`, an flock, with the fencing token in `claim`) and its artifacts;
//! [`RunStore`] for the file store (journal reading in `journal.rs`,
//! controls in `controls.rs`).

use super::FileStore;
use super::fsutil::{LockFile, list_dir_names, read_optional, write_atomic, write_replace};
use cap_std::fs::{Dir, OpenOptions};
use hwf_core::control::Control;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::{RunId, validate_name};
use hwf_core::journal::JournalEntry;
use hwf_core::model::RunSnapshot;
use hwf_core::store::{
    Artifact, ArtifactRef, Claim, Fence, JournalSink, RunStore, SaveMode, StoreError, StoreResult, async_trait,
};
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// A run's agent-call transcripts, one JSON line per call.
const TRANSCRIPTS: &str = "transcripts.jsonl";

impl FileStore {
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

    fn put_snapshot(&self, snap: &RunSnapshot, sync: bool) -> Result<()> {
        let dir = self.run_dir(&snap.run_id)?;
        let json = serde_json::to_vec_pretty(snap).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        write_replace(&dir, "run.json", &json, sync)
    }

    /// Replace `run.json` atomically.
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn write_snapshot(&self, snap: &RunSnapshot) -> Result<()> {
        self.put_snapshot(snap, true)
    }

    /// Replace `run.json` atomically without an fsync (progress updates;
    /// the state-changing writes use [`write_snapshot`](Self::write_snapshot)).
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn write_snapshot_fast(&self, snap: &RunSnapshot) -> Result<()> {
        self.put_snapshot(snap, false)
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

    /// Write a spilled result; returns its path relative to the state dir.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn write_result(&self, id: &RunId, bytes: &[u8]) -> Result<String> {
        let dir = self.run_dir(id)?;
        write_atomic(&dir, "result.json", bytes)?;
        Ok(format!("runs/{id}/result.json"))
    }

    /// Append the transcript of one of a run's agent calls to its
    /// `transcripts.jsonl`: one compact line, with the call's id in
    /// `"call"`, written with one `write` to a file opened for appending
    /// (no file created per call, no fsync: transcripts are metadata the
    /// journal does not depend on). A call's last line is its transcript.
    /// A run writing many opens the file once ([`FileStore::open_transcripts`]).
    ///
    /// # Errors
    ///
    /// `invalid_name` for a bad call id, `invalid_args` for a transcript
    /// that is not an object, `not_found` for an unknown run, `io`.
    pub fn write_transcript(&self, id: &RunId, call_id: &str, transcript: &Value) -> Result<()> {
        self.open_transcripts(id)?.append(call_id, transcript)
    }

    /// A run's `transcripts.jsonl`, open for appending (created when
    /// missing). A line a power loss cut short gets no line glued to it:
    /// its newline is written here, so the next line starts on its own.
    ///
    /// # Errors
    ///
    /// `not_found` for an unknown run, `io`.
    pub fn open_transcripts(&self, id: &RunId) -> Result<TranscriptLog> {
        let path = std::path::Path::new("runs").join(id.as_str()).join(TRANSCRIPTS);
        let io = |e: std::io::Error| Error::io(format!("run {id} {TRANSCRIPTS}"), e);
        let mut file = self
            .dir
            .open_with(&path, OpenOptions::new().read(true).append(true).create(true))
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Error::new(ErrorCode::NotFound, format!("no run with id {id}")),
                _ => io(e),
            })?
            .into_std();
        let len = file.metadata().map_err(io)?.len();
        if len > 0 {
            let mut last = [0u8; 1];
            std::os::unix::fs::FileExt::read_exact_at(&file, &mut last, len - 1).map_err(io)?;
            if last[0] != b'\n' {
                file.write_all(b"\n").map_err(io)?;
            }
        }
        Ok(TranscriptLog { file, run: id.clone() })
    }

    /// The last line `transcripts.jsonl` holds for `call`, if any (lines
    /// that do not parse, as a power loss can leave the last one, are
    /// skipped).
    fn appended_transcript(dir: &Dir, id: &RunId, call: &str) -> Result<Option<Vec<u8>>> {
        // Bytes, not text: a line a power loss cut inside a character is
        // skipped like any other torn line, not an error for the whole run.
        let bytes = match dir.read(TRANSCRIPTS) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(format!("run {id} {TRANSCRIPTS}"), e)),
        };
        Ok(bytes
            .split(|&b| b == b'\n')
            .rev()
            .filter(|l| {
                serde_json::from_slice::<Value>(l)
                    .ok()
                    .is_some_and(|v| v.get("call").and_then(Value::as_str) == Some(call))
            })
            .map(<[u8]>::to_vec)
            .next())
    }

    fn put_transcript(&self, id: &RunId, call_id: &str, bytes: &[u8]) -> Result<()> {
        validate_name("call id", call_id)?;
        let dir = self.run_dir(id)?;
        dir.create_dir_all("transcripts")
            .map_err(|e| Error::io(format!("run {id} transcripts"), e))?;
        let dir = dir
            .open_dir("transcripts")
            .map_err(|e| Error::io(format!("run {id} transcripts"), e))?;
        write_replace(&dir, &format!("{call_id}.json"), bytes, false)
    }

    /// Store one of a run's artifacts by role; its ref.
    ///
    /// # Errors
    ///
    /// `not_found`, `invalid_name` for a bad call id, `io`.
    pub fn write_artifact(&self, id: &RunId, artifact: Artifact<'_>, bytes: &[u8]) -> Result<ArtifactRef> {
        let r = ArtifactRef::of(artifact)?;
        match artifact {
            Artifact::Result => self.write_result(id, bytes).map(drop)?,
            Artifact::Transcript { call } => self.put_transcript(id, call, bytes)?,
        }
        Ok(r)
    }

    /// The bytes of one of a run's artifacts.
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn read_artifact(&self, id: &RunId, artifact: &ArtifactRef) -> Result<Vec<u8>> {
        let dir = self.run_dir(id)?;
        let file = match artifact.artifact() {
            Artifact::Result => "result.json".to_owned(),
            Artifact::Transcript { call } => format!("transcripts/{call}.json"),
        };
        let missing = || {
            Error::new(
                ErrorCode::NotFound,
                format!("run {id} has no artifact {}", artifact.as_str()),
            )
        };
        match dir.read(&file) {
            Ok(bytes) => Ok(bytes),
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(format!("run {id} {file}"), e)),
            // A transcript the broker wrote is a line of transcripts.jsonl
            // (one file per call is what `write_artifact` writes).
            Err(_) => match artifact.artifact() {
                Artifact::Transcript { call } => Self::appended_transcript(&dir, id, call)?.ok_or_else(missing),
                Artifact::Result => Err(missing()),
            },
        }
    }

    /// Whether someone holds the run's claim (its flock; the kernel drops
    /// it when the holder dies, so a dead executor's run reads unclaimed).
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn is_claimed(&self, id: &RunId) -> Result<bool> {
        let dir = self.run_dir(id)?;
        Ok(LockFile::try_acquire(&dir, "lock")?.is_none())
    }

    /// Take the run's claim: its flock plus the next fencing token (the
    /// last token + 1, kept in `runs/<id>/claim`, written under the flock).
    /// `None` when another holder has it.
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store` for a damaged token file, `io`.
    pub fn claim_run(&self, id: &RunId) -> Result<Option<FileClaim>> {
        let dir = self.run_dir(id)?;
        let Some(lock) = LockFile::try_acquire(&dir, "lock")? else {
            return Ok(None);
        };
        let token = current_token(&dir, id)? + 1;
        // Replaced atomically but not fsynced: the token only has to rise
        // among live holders, and a crash of the machine ends them all. What
        // a power loss can leave (the old token, or an empty file) reads as
        // a token no live holder has.
        write_replace(&dir, "claim", token.to_string().as_bytes(), false)?;
        Ok(Some(FileClaim {
            fence: Fence::new(id.clone(), token),
            _lock: lock,
        }))
    }

    /// Whether `fence` is the run's current, held claim.
    fn check_fence(&self, id: &RunId, fence: &Fence) -> StoreResult<()> {
        fence.check()?;
        let current = current_token(&self.run_dir(id)?, id)?;
        if fence.run() == id && fence.token() == current {
            Ok(())
        } else {
            Err(StoreError::Fenced {
                run: id.to_string(),
                token: fence.token(),
            })
        }
    }

    /// A cheap fingerprint of every run's snapshot, journal and controls
    /// (their sizes and modification times): the file store's
    /// [`RunStore::change_marker`].
    pub fn runs_fingerprint(&self) -> u64 {
        let runs = self.root().join("runs");
        let mut h = blake3::Hasher::new();
        let Ok(dir) = std::fs::read_dir(&runs) else {
            return 0;
        };
        let mut names: Vec<_> = dir.flatten().map(|e| e.path()).collect();
        names.sort();
        for p in names {
            h.update(p.as_os_str().as_encoded_bytes());
            for f in ["run.json", "journal.jsonl", "controls.jsonl"] {
                if let Ok(m) = std::fs::metadata(p.join(f)) {
                    h.update(&m.len().to_le_bytes());
                    if let Ok(t) = m.modified()
                        && let Ok(d) = t.duration_since(std::time::UNIX_EPOCH)
                    {
                        h.update(&d.as_nanos().to_le_bytes());
                    }
                }
            }
        }
        let b = h.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&b.as_bytes()[..8]);
        u64::from_le_bytes(first)
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
}

/// The run's last fencing token (0: never claimed).
fn current_token(dir: &Dir, id: &RunId) -> Result<u64> {
    match read_optional(dir, "claim", &format!("run {id} claim"))? {
        // Empty: an unsynced claim write cut short by a power loss (see
        // `claim_run`); nobody who held a token before it is alive.
        None => Ok(0),
        Some(t) if t.is_empty() => Ok(0),
        Some(t) => t.trim().parse().map_err(|_| {
            Error::new(
                ErrorCode::CorruptStore,
                format!(
                    "runs/{id}/claim: {:?} is not a fencing token",
                    hwf_core::redact::clip(&t, 40)
                ),
            )
        }),
    }
}

/// The file store's [`Claim`]: the run's flock and its fencing token.
/// Dropping it releases both at once.
#[derive(Debug)]
pub struct FileClaim {
    fence: Fence,
    _lock: LockFile,
}

impl Drop for FileClaim {
    fn drop(&mut self) {
        self.fence.release();
    }
}

#[async_trait]
impl Claim for FileClaim {
    fn fence(&self) -> &Fence {
        &self.fence
    }

    async fn check(&self) -> StoreResult<()> {
        // The flock is held for as long as this value lives.
        self.fence.check()
    }

    async fn release(self: Box<Self>) -> StoreResult<()> {
        drop(self);
        Ok(())
    }
}

#[async_trait]
impl RunStore for FileStore {
    async fn create(&self, snap: &RunSnapshot) -> StoreResult<()> {
        self.create_run(&snap.run_id)?;
        Ok(self.write_snapshot(snap)?)
    }

    async fn load(&self, id: &RunId) -> StoreResult<RunSnapshot> {
        Ok(self.read_snapshot(id)?)
    }

    async fn save(&self, snap: &RunSnapshot, mode: SaveMode, claim: Option<&dyn Claim>) -> StoreResult<()> {
        if let Some(claim) = claim {
            self.check_fence(&snap.run_id, claim.fence())?;
        }
        Ok(self.put_snapshot(snap, mode == SaveMode::Durable)?)
    }

    async fn list(&self) -> StoreResult<Vec<RunId>> {
        Ok(self.run_ids()?)
    }

    async fn entries(&self, id: &RunId, after_seq: u64) -> StoreResult<Vec<JournalEntry>> {
        Ok(FileStore::entries(self, id, after_seq)?)
    }

    async fn open_journal(&self, claim: &dyn Claim) -> StoreResult<Box<dyn JournalSink>> {
        let fence = claim.fence();
        self.check_fence(fence.run(), fence)?;
        Ok(Box::new(self.open_sink(fence.clone())?))
    }

    async fn claim(&self, id: &RunId) -> StoreResult<Option<Box<dyn Claim>>> {
        Ok(self.claim_run(id)?.map(|c| Box::new(c) as Box<dyn Claim>))
    }

    async fn is_claimed(&self, id: &RunId) -> StoreResult<bool> {
        Ok(FileStore::is_claimed(self, id)?)
    }

    async fn controls(&self, id: &RunId) -> StoreResult<Vec<Control>> {
        Ok(self.read_controls(id)?)
    }

    async fn append_control(&self, id: &RunId, control: &Control) -> StoreResult<bool> {
        Ok(FileStore::append_control(self, id, control)?)
    }

    async fn watch_controls(&self, id: &RunId) -> StoreResult<tokio::sync::watch::Receiver<u64>> {
        Ok(FileStore::watch_controls(self, id)?)
    }

    async fn change_marker(&self) -> StoreResult<Option<u64>> {
        Ok(Some(self.runs_fingerprint()))
    }

    async fn write_artifact(&self, id: &RunId, artifact: Artifact<'_>, bytes: &[u8]) -> StoreResult<ArtifactRef> {
        Ok(FileStore::write_artifact(self, id, artifact, bytes)?)
    }

    async fn write_artifact_fenced(
        &self,
        claim: &dyn Claim,
        artifact: Artifact<'_>,
        bytes: &[u8],
    ) -> StoreResult<ArtifactRef> {
        // The claim's flock keeps any other claim out while it is held: a
        // current token is current until this write ends.
        let fence = claim.fence();
        self.check_fence(fence.run(), fence)?;
        Ok(FileStore::write_artifact(self, fence.run(), artifact, bytes)?)
    }

    async fn read_artifact(&self, id: &RunId, artifact: &ArtifactRef) -> StoreResult<Vec<u8>> {
        Ok(FileStore::read_artifact(self, id, artifact)?)
    }
}

/// A run's `transcripts.jsonl` open for appending
/// ([`FileStore::open_transcripts`]): one transcript line per
/// [`TranscriptLog::append`], one `write` each.
#[derive(Debug)]
pub struct TranscriptLog {
    file: std::fs::File,
    run: RunId,
}

impl TranscriptLog {
    /// Append one call's transcript as one compact line, the call's id in
    /// `"call"` (see [`FileStore::write_transcript`]).
    ///
    /// # Errors
    ///
    /// `invalid_name` for a bad call id, `invalid_args` for a transcript
    /// that is not an object, `io`.
    pub fn append(&self, call_id: &str, transcript: &Value) -> Result<()> {
        validate_name("call id", call_id)?;
        let Value::Object(fields) = transcript else {
            return Err(Error::new(ErrorCode::InvalidArgs, "a transcript is a JSON object"));
        };
        let mut line = Vec::with_capacity(256);
        line.extend_from_slice(b"{\"call\":");
        serde_json::to_writer(&mut line, call_id).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        for (k, v) in fields.iter().filter(|(k, _)| k.as_str() != "call") {
            line.push(b',');
            serde_json::to_writer(&mut line, k).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
            line.push(b':');
            serde_json::to_writer(&mut line, v).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        }
        line.extend_from_slice(b"}\n");
        (&self.file)
            .write_all(&line)
            .map_err(|e| Error::io(format!("run {} {TRANSCRIPTS}", self.run), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwf_core::model::{RunState, ScriptRef};

    #[test]
    fn a_claim_is_exclusive_and_its_token_grows() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = FileStore::open(tmp.path()).expect("open");
        let snap = RunSnapshot::new(
            RunId::generate(),
            RunState::Queued,
            ScriptRef::default(),
            Value::Null,
            None,
        );
        store.create_run(&snap.run_id).expect("create");
        let id = &snap.run_id;
        assert!(!store.is_claimed(id).expect("is_claimed"), "a fresh run is free");
        let claim = store.claim_run(id).expect("claim").expect("free");
        assert_eq!(claim.fence().token(), 1);
        assert!(store.is_claimed(id).expect("is_claimed"));
        assert!(store.claim_run(id).expect("claim").is_none(), "claimed twice");
        drop(claim);
        assert!(!store.is_claimed(id).expect("is_claimed"), "free once dropped");
        assert_eq!(store.claim_run(id).expect("claim").expect("free").fence().token(), 2);
        std::fs::write(tmp.path().join("runs").join(id.as_str()).join("claim"), "x").expect("damage");
        assert_eq!(
            store.claim_run(id).expect_err("damaged token").code(),
            ErrorCode::CorruptStore
        );
        // What a power loss can leave of the unsynced token: no live holder.
        std::fs::write(tmp.path().join("runs").join(id.as_str()).join("claim"), "").expect("cut short");
        assert_eq!(store.claim_run(id).expect("claim").expect("free").fence().token(), 1);
        let unknown = RunId::generate();
        assert_eq!(
            store.is_claimed(&unknown).expect_err("unknown").code(),
            ErrorCode::NotFound
        );
    }

    #[test]
    fn transcripts_are_appended_lines_and_a_calls_last_line_is_its_transcript() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = FileStore::open(tmp.path()).expect("open");
        let id = RunId::generate();
        store.create_run(&id).expect("create");
        let read = |call: &str| {
            let r = ArtifactRef::of(Artifact::Transcript { call }).expect("ref");
            store.read_artifact(&id, &r)
        };
        store
            .write_transcript(&id, "1", &serde_json::json!({"state": "failed"}))
            .expect("write");
        store
            .write_transcript(&id, "11", &serde_json::json!({"state": "done", "call": "forged"}))
            .expect("write");
        store
            .write_transcript(&id, "1", &serde_json::json!({"state": "done", "tokens": 3}))
            .expect("again");
        let file = tmp.path().join("runs").join(id.as_str()).join(TRANSCRIPTS);
        // A torn last line (a power loss) is skipped, not an error.
        let mut f = std::fs::OpenOptions::new().append(true).open(&file).expect("open");
        f.write_all(b"{\"call\":\"1\",\"sta\xe2\x82")
            .expect("torn inside a character");
        drop(f);
        store
            .write_transcript(&id, "4", &serde_json::json!({"state": "done"}))
            .expect("after the torn line");
        let text = String::from_utf8_lossy(&std::fs::read(&file).expect("read")).into_owned();
        assert_eq!(
            text.lines().count(),
            5,
            "one line per write, none glued to the torn one: {text}"
        );
        assert_eq!(read("4").expect("4"), br#"{"call":"4","state":"done"}"#);
        assert_eq!(read("1").expect("1"), br#"{"call":"1","state":"done","tokens":3}"#);
        assert_eq!(
            read("11").expect("11"),
            br#"{"call":"11","state":"done"}"#,
            "the call id is the store's"
        );
        assert_eq!(read("2").expect_err("none").code(), ErrorCode::NotFound);
        // One written as an artifact (an import) is a file of its own, byte for byte.
        store
            .write_artifact(&id, Artifact::Transcript { call: "2" }, b"{\n  \"t\": 1\n}")
            .expect("artifact");
        assert_eq!(read("2").expect("2"), b"{\n  \"t\": 1\n}");
        assert_eq!(
            store
                .write_transcript(&id, "../x", &serde_json::json!({}))
                .expect_err("bad id")
                .code(),
            ErrorCode::InvalidName
        );
        assert_eq!(
            store
                .write_transcript(&id, "3", &serde_json::json!([1]))
                .expect_err("not an object")
                .code(),
            ErrorCode::InvalidArgs
        );
        assert_eq!(
            store
                .write_transcript(&RunId::generate(), "1", &serde_json::json!({}))
                .expect_err("no run")
                .code(),
            ErrorCode::NotFound
        );
    }
}
