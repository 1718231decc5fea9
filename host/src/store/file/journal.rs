//! A run's journal: `runs/<id>/journal.jsonl`, append-only JSON lines.
//! [`JournalFile`] is the raw appender the broker's writer uses today;
//! [`FileJournalSink`] is the [`JournalSink`] opened under a claim.
//!
//! **Preallocation.** A journal grows in chunks of zeros written ahead of
//! the lines (64 KiB, doubling to 1 MiB), and lines overwrite them in
//! place: an append then changes no file size, so its `fdatasync` flushes
//! the data alone, not the inode (on ext4 ~100 µs instead of ~150 µs).
//! The file's *logical end* is the end of its last complete line before
//! the zeros: a line never holds a NUL byte (JSON escapes control
//! characters), and a crash leaves zeros only in the preallocated tail or
//! in whole blocks of a write that was never flushed (never reported
//! done), so a run of NULs that reaches the end of the file or spans a
//! block ends the journal, while a stray NUL is damage as before.
//! Readers stop there (`content_len`); opening a journal for appending
//! cuts the file back to it (with any torn last line, as before); dropping
//! the appender truncates the unused zeros, so a closed journal is plain
//! JSON lines.

use super::FileStore;
use cap_std::fs::{Dir, OpenOptions};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::journal::JournalEntry;
use hwf_core::store::{Fence, JournalSink, StoreError, StoreResult, async_trait};
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::sync::Arc;

/// The first preallocated chunk of a journal.
const FIRST_CHUNK: u64 = 64 << 10;
/// The largest chunk (chunks double up to it).
const MAX_CHUNK: u64 = 1 << 20;
/// Zeros written per `pwrite` when a chunk is preallocated.
static ZEROS: [u8; 64 << 10] = [0; 64 << 10];

/// A run of NUL bytes inside a journal with data after it: not the
/// preallocated tail a crash leaves (that reaches the end of the file), so
/// either a line appended by hand after such a tail, or pages of writes a
/// power loss kept out of order. Readers and appenders refuse the journal
/// (`corrupt_store`) rather than skip what follows; `hwf store repair`
/// ([`FileStore::repair_journal`]) keeps every line that continues it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ZeroGap {
    /// The byte offset of the first NUL.
    at: usize,
    /// How many NULs.
    len: usize,
    /// The line it is in (1-based).
    line: usize,
}

impl ZeroGap {
    fn error(&self, what: &str, run: Option<&str>) -> Error {
        Error::new(
            ErrorCode::CorruptStore,
            format!(
                "{what}: {} zero byte{} at byte {} (line {}) {} followed by more data — a line appended after a crash's \
                 preallocated tail, or writes a power loss kept out of order; nothing past it is read or appended. \
                 `hwf store repair {}` keeps every line that continues the journal and moves the damaged file aside",
                self.len,
                if self.len == 1 { "" } else { "s" },
                self.at,
                self.line,
                if self.len == 1 { "is" } else { "are" },
                run.unwrap_or("<run>")
            ),
        )
    }
}

/// Where the journal's bytes end: at the run of NUL bytes that reaches
/// the end of the file (the preallocated tail), else at the end. A NUL
/// with data after it is a [`ZeroGap`]: a line never holds a NUL (JSON
/// escapes control characters), and a crash leaves zeros only at the end
/// unless pages reached the disk out of order.
fn content_len(bytes: &[u8]) -> std::result::Result<usize, ZeroGap> {
    let Some(start) = bytes.iter().position(|&b| b == 0) else {
        return Ok(bytes.len());
    };
    match bytes[start..].iter().position(|&b| b != 0) {
        None => Ok(start),
        Some(len) => Err(ZeroGap {
            at: start,
            len,
            line: bytes[..start].iter().filter(|&&b| b == b'\n').count() + 1,
        }),
    }
}

/// Where the journal's complete lines end in `bytes`: after the last `\n`
/// before [`content_len`]. What follows is a torn line or zeros.
fn logical_end(bytes: &[u8]) -> std::result::Result<usize, ZeroGap> {
    Ok(bytes[..content_len(bytes)?]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1))
}

/// Journal bytes as text, cut at [`content_len`]: an unfinished last
/// line (a torn write) may end inside a UTF-8 character and is dropped
/// then; invalid UTF-8 in a complete line, and a [`ZeroGap`], are
/// `corrupt_store`.
fn journal_str(mut bytes: Vec<u8>, what: &str, run: Option<&str>) -> Result<String> {
    let len = content_len(&bytes).map_err(|gap| gap.error(what, run))?;
    bytes.truncate(len);
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
            if valid < complete {
                let line = bytes[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
                return Err(Error::new(
                    ErrorCode::CorruptStore,
                    format!("{what}: line {line} is not UTF-8"),
                ));
            }
            bytes.truncate(complete);
            String::from_utf8(bytes).map_err(|e| Error::new(ErrorCode::CorruptStore, format!("{what}: {e}")))
        }
    }
}

/// Before appending: cut the file back to its logical end (a preallocated
/// tail a crash left, a torn last line) and return its bytes (what is
/// kept; the opener reads its last seq from them, so the file is read
/// once). The whole file is checked as readers check it, so an appender
/// never writes after data readers would not see (a [`ZeroGap`] is
/// `corrupt_store`).
fn repair_journal(file: &mut std::fs::File, what: &str, run: Option<&str>) -> Result<Vec<u8>> {
    let io = |e| Error::io(format!("repair {what}"), e);
    let mut all = Vec::new();
    file.seek(SeekFrom::Start(0))
        .and_then(|_| file.read_to_end(&mut all))
        .map_err(io)?;
    let keep = logical_end(&all).map_err(|gap| gap.error(what, run))?;
    if keep == all.len() {
        return Ok(all);
    }
    let dropped = &all[keep..];
    if dropped.iter().all(|&b| b == 0) {
        tracing::debug!(
            file = what,
            dropped = dropped.len(),
            "cutting a preallocated journal tail"
        );
    } else {
        tracing::warn!(file = what, dropped = dropped.len(), "cutting a torn last line");
    }
    file.set_len(keep as u64).map_err(io)?;
    file.sync_data().map_err(io)?;
    all.truncate(keep);
    Ok(all)
}

/// What [`FileStore::repair_journal`] did (or would do).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct JournalRepair {
    /// The journal's lines kept: every complete line, in order, whose seq
    /// continues the one before it.
    pub kept_lines: u64,
    /// The last seq kept (0: none).
    pub last_seq: u64,
    /// Bytes not kept (zeros, torn or out-of-order lines).
    pub dropped_bytes: u64,
    /// Where the damaged file was moved (relative to the run's directory);
    /// `None` when nothing needed repair or on a dry run.
    pub saved_as: Option<String>,
}

/// The lines of a damaged journal that continue it: its bytes split at
/// every run of NULs, each piece read as lines, kept while each is a
/// complete journal entry whose seq is one more than the last kept (the
/// first line's seq is 1). The first line that does not continue it ends
/// what is kept: what follows was never acknowledged as a whole journal.
fn continuing_lines(bytes: &[u8]) -> (Vec<u8>, u64, u64) {
    let mut kept = Vec::new();
    let (mut lines, mut last) = (0u64, 0u64);
    'pieces: for piece in bytes.split(|&b| b == 0).filter(|p| !p.is_empty()) {
        let mut rest = piece;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            let line = &rest[..=nl];
            rest = &rest[nl + 1..];
            let seq = std::str::from_utf8(line)
                .ok()
                .and_then(|l| serde_json::from_str::<JournalEntry>(l).ok())
                .map(|e| e.seq);
            if seq != Some(last + 1) {
                break 'pieces;
            }
            kept.extend_from_slice(line);
            lines += 1;
            last += 1;
        }
        if !rest.is_empty() {
            // A piece that ends inside a line: a torn write.
            break;
        }
    }
    (kept, lines, last)
}

impl FileStore {
    /// Open the run's journal for appending (a torn last line and a
    /// preallocated tail are cut off first).
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn open_journal(&self, id: &RunId) -> Result<JournalFile> {
        self.open_journal_read(id).map(|(file, _)| file)
    }

    /// [`Self::open_journal`], with the complete lines it holds.
    fn open_journal_read(&self, id: &RunId) -> Result<(JournalFile, Vec<u8>)> {
        let dir = self.run_dir(id)?;
        JournalFile::open(
            &dir,
            &format!("runs/{id}/journal.jsonl"),
            Some(id.as_str()),
            self.chunks.clone(),
        )
    }

    fn journal_text(&self, id: &RunId) -> Result<String> {
        let dir = self.run_dir(id)?;
        let what = format!("runs/{id}/journal.jsonl");
        let bytes = match dir.open("journal.jsonl") {
            Ok(mut f) => {
                let mut bytes = Vec::new();
                f.read_to_end(&mut bytes).map_err(|e| Error::io(&what, e))?;
                bytes
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
            Err(e) => return Err(Error::io(&what, e)),
        };
        journal_str(bytes, &what, Some(id.as_str()))
    }

    /// Repair a run's journal damaged by a run of zero bytes with data after
    /// it (or a torn tail): keep
    /// every complete line, in order, whose seq continues the journal (the
    /// zeros between them dropped), move the original aside as
    /// `journal.jsonl.damaged-<ms>` in the run's directory, and write the
    /// kept lines in its place (atomically). With `dry_run`, only say what
    /// it would do. A journal that reads whole is left as it is. Run it
    /// while no runner executes the run (a damaged journal cannot be
    /// appended to, so none can continue it).
    ///
    /// # Errors
    ///
    /// `not_found` (no such run), `io`.
    pub fn repair_journal(&self, id: &RunId, dry_run: bool) -> Result<JournalRepair> {
        let dir = self.run_dir(id)?;
        let what = format!("runs/{id}/journal.jsonl");
        let mut bytes = Vec::new();
        match dir.open("journal.jsonl") {
            Ok(mut f) => {
                f.read_to_end(&mut bytes).map_err(|e| Error::io(&what, e))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&what, e)),
        }
        let (kept, lines, last_seq) = continuing_lines(&bytes);
        let dropped_bytes = (bytes.len() - kept.len()) as u64;
        let whole = content_len(&bytes).is_ok_and(|n| n == bytes.len()) && dropped_bytes == 0;
        let mut report = JournalRepair {
            kept_lines: lines,
            last_seq,
            dropped_bytes,
            saved_as: None,
        };
        if whole || dry_run {
            return Ok(report);
        }
        let saved = format!("journal.jsonl.damaged-{}", hwf_core::model::now_ms());
        dir.write("journal.jsonl.repaired", &kept)
            .and_then(|()| dir.open("journal.jsonl.repaired")?.sync_all())
            .map_err(|e| Error::io(format!("{what}: write the repaired journal"), e))?;
        dir.hard_link("journal.jsonl", &dir, &saved)
            .map_err(|e| Error::io(format!("{what}: keep the damaged journal as {saved}"), e))?;
        dir.rename("journal.jsonl.repaired", &dir, "journal.jsonl")
            .map_err(|e| Error::io(format!("{what}: put the repaired journal in place"), e))?;
        if let Err(e) = dir.open(".").and_then(|d| d.sync_all()) {
            tracing::debug!(error = %e, "journal repair: could not sync the run's directory");
        }
        tracing::warn!(run = %id, kept = lines, dropped = dropped_bytes, saved = %saved, "journal repaired");
        report.saved_as = Some(saved);
        Ok(report)
    }
    /// Read a run's journal as typed entries (a torn last line is skipped;
    /// a damaged complete line is named), every payload kept by content
    /// read back in place.
    ///
    /// # Errors
    ///
    /// `not_found` (unknown run), `io`, `corrupt_store`.
    pub fn read_entries(&self, id: &RunId) -> Result<Vec<JournalEntry>> {
        let mut entries = self.entries(id, 0)?;
        for e in entries.iter_mut() {
            self.resolve(e)?;
        }
        Ok(entries)
    }

    /// Read an entry's payloads kept by content back in place (see
    /// [`JournalEntry::resolve`]).
    ///
    /// # Errors
    ///
    /// `corrupt_store`, `not_found` (a missing chunk), `io`.
    pub fn resolve(&self, entry: &mut JournalEntry) -> Result<()> {
        if entry.has_refs() {
            entry.resolve(&mut |ids| self.chunks.get(ids))?;
        }
        Ok(())
    }

    /// The run's journal entries with `seq > after_seq`, in order, typed
    /// as stored: large payloads are refs (what
    /// [`hwf_core::store::RunStore::entries`] returns).
    ///
    /// # Errors
    ///
    /// `not_found` (unknown run), `io`, `corrupt_store`.
    pub fn entries(&self, id: &RunId, after_seq: u64) -> Result<Vec<JournalEntry>> {
        let text = self.journal_text(id)?;
        let mut entries = hwf_core::journal::parse_journal(&text).map_err(|bad| {
            Error::new(
                ErrorCode::CorruptStore,
                format!("runs/{id}/journal.jsonl: line {}: {}", bad.line, bad.reason),
            )
        })?;
        entries.retain(|e| e.seq > after_seq);
        Ok(entries)
    }

    /// Open a [`FileJournalSink`] under `fence` (the caller checked the
    /// claim): the torn tail is cut, and the next seq follows the last
    /// complete line's.
    pub(super) fn open_sink(&self, fence: Fence) -> Result<FileJournalSink> {
        // One read: the repair's bytes are the journal's complete lines.
        let (file, bytes) = self.open_journal_read(fence.run())?;
        let what = format!("runs/{}/journal.jsonl", fence.run());
        let text = journal_str(bytes, &what, Some(fence.run().as_str()))?;
        let last = text.lines().rev().find(|l| !l.trim().is_empty());
        let last_seq = match last {
            None => 0,
            Some(line) => serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| v["seq"].as_u64())
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::CorruptStore,
                        format!("runs/{}/journal.jsonl: the last line has no seq", fence.run()),
                    )
                })?,
        };
        let next = last_seq.checked_add(1).ok_or_else(|| {
            Error::new(
                ErrorCode::CorruptStore,
                format!(
                    "runs/{}/journal.jsonl: the journal's seq {last_seq} cannot advance (it is corrupt)",
                    fence.run()
                ),
            )
        })?;
        Ok(FileJournalSink { file, fence, next })
    }
}

/// An open, append-only journal file, preallocated in chunks (see the
/// module's notes): lines are written at the logical end with one
/// positioned write each, never with `O_APPEND`.
#[derive(Debug)]
pub struct JournalFile {
    file: Arc<std::fs::File>,
    /// The logical end: the bytes of complete lines.
    end: u64,
    /// The file's size: `end` plus the preallocated zeros.
    allocated: u64,
    /// The size of the next chunk.
    chunk: u64,
    /// Where the lines' large payloads are kept (the store's `chunks/`).
    chunks: Arc<super::FileChunks>,
}

impl JournalFile {
    /// Open `journal.jsonl` in `dir` for appending, cut back to its logical
    /// end.
    fn open(dir: &Dir, what: &str, run: Option<&str>, chunks: Arc<super::FileChunks>) -> Result<(Self, Vec<u8>)> {
        let mut file = dir
            .open_with("journal.jsonl", OpenOptions::new().create(true).read(true).write(true))
            .map_err(|e| Error::io(what, e))?
            .into_std();
        let bytes = repair_journal(&mut file, what, run)?;
        let end = bytes.len() as u64;
        Ok((
            Self {
                file: Arc::new(file),
                end,
                allocated: end,
                chunk: FIRST_CHUNK,
                chunks,
            },
            bytes,
        ))
    }

    /// Keep payload chunks for the lines about to be appended (durable
    /// before they are: see `FileChunks` in `store/file`); the bytes newly stored.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn put_chunks(&self, chunks: &[hwf_core::payload::Chunk]) -> Result<u64> {
        self.chunks.put(chunks)
    }

    /// Append one or more whole lines (must end with `\n`) with one write;
    /// with `durable`, fdatasync before returning.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn append(&mut self, line: &[u8], durable: bool) -> Result<()> {
        let need = self.end.saturating_add(line.len() as u64);
        if need > self.allocated {
            self.preallocate(need)?;
        }
        self.file
            .write_all_at(line, self.end)
            .map_err(|e| Error::io("journal append", e))?;
        self.end = need;
        if durable {
            self.file.sync_data().map_err(|e| Error::io("journal sync", e))?;
        }
        Ok(())
    }

    /// Write zeros past the end so the file holds at least `need` bytes
    /// and one more chunk. The next flush makes the new size durable with
    /// the lines written into it; the flushes after it change no metadata.
    fn preallocate(&mut self, need: u64) -> Result<()> {
        let target = need.saturating_add(self.chunk).div_ceil(4096).saturating_mul(4096);
        let mut at = self.allocated.max(self.end);
        while at < target {
            let n = (target - at).min(ZEROS.len() as u64);
            self.file
                .write_all_at(&ZEROS[..n as usize], at)
                .map_err(|e| Error::io("journal preallocate", e))?;
            at += n;
        }
        self.allocated = target;
        self.chunk = (self.chunk * 2).min(MAX_CHUNK);
        Ok(())
    }

    /// The journal's logical length in bytes (its complete lines; the
    /// preallocated zeros do not count).
    ///
    /// # Errors
    ///
    /// `io` (never, today: the length is tracked).
    pub fn len(&self) -> Result<u64> {
        Ok(self.end)
    }

    /// Whether the journal holds no line.
    ///
    /// # Errors
    ///
    /// `io` (never, today).
    pub fn is_empty(&self) -> Result<bool> {
        self.len().map(|n| n == 0)
    }

    /// A second std handle on the same file (for fsync off the writer).
    /// Prefer [`JournalFile::flusher`], which shares this handle.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn try_clone_std(&self) -> Result<std::fs::File> {
        self.file.try_clone().map_err(|e| Error::io("journal clone", e))
    }

    /// A handle that flushes this journal from another task (group commit):
    /// it shares the file, no descriptor is duplicated.
    pub fn flusher(&self) -> JournalFlusher {
        JournalFlusher {
            file: self.file.clone(),
        }
    }

    /// fdatasync whatever was appended.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn sync(&mut self) -> Result<()> {
        self.file.sync_data().map_err(|e| Error::io("journal sync", e))
    }
}

impl Drop for JournalFile {
    /// Give back the unused preallocated zeros, so a closed journal is
    /// plain JSON lines. Only while the file is as this appender left it
    /// (its size, zeros at the end): a writer that opened the journal
    /// since (a takeover) owns it now.
    fn drop(&mut self) {
        if self.allocated <= self.end {
            return;
        }
        let ours = self.file.metadata().is_ok_and(|m| m.len() == self.allocated);
        let mut at_end = [1u8; 1];
        if ours
            && self.file.read_exact_at(&mut at_end, self.end).is_ok()
            && at_end[0] == 0
            && let Err(e) = self.file.set_len(self.end)
        {
            tracing::debug!(error = %e, "journal: could not cut the preallocated tail");
        }
    }
}

/// Flushes a [`JournalFile`] from the group committer: `fdatasync` on the
/// shared handle (no descriptor duplicated per flush). A call that waits
/// for its completion to be durable flushes with [`JournalFlusher::flush`]:
/// on the calling worker thread (tokio's `block_in_place`, which hands the
/// worker's other tasks to another thread), so it resumes straight from
/// the flush, without the two thread hand-offs of `spawn_blocking`. A
/// background flush that nobody waits for (`async` durability) uses
/// [`JournalFlusher::flush_detached`], which keeps the workers free.
#[derive(Debug, Clone)]
pub struct JournalFlusher {
    file: Arc<std::fs::File>,
}

impl JournalFlusher {
    /// fdatasync everything appended so far, blocking this thread.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn flush_blocking(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| Error::io("journal sync", e))
    }

    /// fdatasync everything appended so far: in place on a multi-thread
    /// runtime's worker, on the blocking pool on a current-thread runtime,
    /// inline outside any runtime.
    ///
    /// # Errors
    ///
    /// `io`; `internal` when the blocking task could not run.
    pub async fn flush(&self) -> Result<()> {
        use tokio::runtime::{Handle, RuntimeFlavor};
        match Handle::try_current().map(|h| h.runtime_flavor()) {
            Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(|| self.flush_blocking()),
            Ok(_) => {
                let me = self.clone();
                tokio::task::spawn_blocking(move || me.flush_blocking())
                    .await
                    .map_err(|e| Error::new(ErrorCode::Internal, format!("journal sync task: {e}")))?
            }
            Err(_) => self.flush_blocking(),
        }
    }

    /// fdatasync everything appended so far on tokio's blocking pool (or
    /// inline outside a runtime): for a flush that runs beside the guest,
    /// not one it waits for.
    ///
    /// # Errors
    ///
    /// `io`; `internal` when the blocking task could not run.
    pub async fn flush_detached(&self) -> Result<()> {
        if tokio::runtime::Handle::try_current().is_err() {
            return self.flush_blocking();
        }
        let me = self.clone();
        tokio::task::spawn_blocking(move || me.flush_blocking())
            .await
            .map_err(|e| Error::new(ErrorCode::Internal, format!("journal sync task: {e}")))?
    }
}

/// The file store's [`JournalSink`]: a [`JournalFile`] under a claim's
/// fence. The flock of the claim makes this the run's only writer, so the
/// next seq is counted here rather than re-read per append.
#[derive(Debug)]
pub struct FileJournalSink {
    file: JournalFile,
    fence: Fence,
    next: u64,
}

impl FileJournalSink {
    fn check_seq(&self, expected_seq: u64) -> StoreResult<()> {
        self.fence.check()?;
        if expected_seq == self.next {
            Ok(())
        } else {
            Err(StoreError::SeqConflict {
                run: self.fence.run().to_string(),
                expected: expected_seq,
                next: self.next,
            })
        }
    }

    /// A second std handle on the journal (for a group-commit fsync off the
    /// writer).
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn try_clone_std(&self) -> Result<std::fs::File> {
        self.file.try_clone_std()
    }
}

#[async_trait]
impl JournalSink for FileJournalSink {
    fn fence(&self) -> &Fence {
        &self.fence
    }

    fn next_seq(&self) -> u64 {
        self.next
    }

    async fn append(&mut self, expected_seq: u64, entries: &[JournalEntry]) -> StoreResult<u64> {
        self.check_seq(expected_seq)?;
        let mut lines = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let want = expected_seq + i as u64;
            if entry.seq != want {
                return Err(StoreError::SeqConflict {
                    run: self.fence.run().to_string(),
                    expected: entry.seq,
                    next: want,
                });
            }
            serde_json::to_writer(&mut lines, entry)
                .map_err(|e| StoreError::Other(Error::new(ErrorCode::Internal, e.to_string())))?;
            lines.push(b'\n');
        }
        self.append_lines(expected_seq, &lines).await
    }

    async fn append_lines(&mut self, expected_seq: u64, lines: &[u8]) -> StoreResult<u64> {
        self.check_seq(expected_seq)?;
        if lines.is_empty() {
            return Ok(expected_seq - 1);
        }
        if !lines.ends_with(b"\n") {
            return Err(StoreError::Corrupt(format!(
                "journal of run {}: an append must end with a newline",
                self.fence.run()
            )));
        }
        let n = lines.iter().filter(|&&b| b == b'\n').count() as u64;
        let next = self.next.checked_add(n).ok_or_else(|| {
            StoreError::Corrupt(format!(
                "journal of run {}: the journal's seq {} cannot advance (it is corrupt)",
                self.fence.run(),
                self.next - 1
            ))
        })?;
        self.file.append(lines, false)?;
        self.next = next;
        Ok(self.next - 1)
    }

    async fn sync(&mut self) -> StoreResult<()> {
        self.fence.check()?;
        Ok(self.file.sync()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sink_on_a_journal_whose_seq_cannot_advance_is_corrupt_not_a_panic() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = FileStore::open(tmp.path()).expect("open");
        let id = RunId::generate();
        store.create_run(&id).expect("create");
        let path = tmp.path().join("runs").join(id.as_str()).join("journal.jsonl");
        let line = |seq: u64| format!("{{\"seq\":{seq},\"ts_ms\":1,\"type\":\"log\"}}\n");
        std::fs::write(&path, line(u64::MAX)).expect("seed");
        let claim = store.claim_run(&id).expect("claim").expect("free");
        let fence = hwf_core::store::Claim::fence(&claim).clone();
        let e = store.open_sink(fence.clone()).expect_err("cannot advance");
        assert_eq!(e.code(), ErrorCode::CorruptStore, "{e}");
        assert!(e.to_string().contains("cannot advance"), "{e}");
        // One short of the end: the sink opens, and an append that would
        // leave no next seq is refused and writes nothing.
        std::fs::write(&path, line(u64::MAX - 1)).expect("seed");
        let mut sink = store.open_sink(fence).expect("sink");
        assert_eq!(sink.next_seq(), u64::MAX);
        let last = line(u64::MAX);
        let append = sink.append_lines(u64::MAX, last.as_bytes());
        let e = futures_util::FutureExt::now_or_never(append)
            .expect("at once")
            .expect_err("no next seq");
        assert_eq!(e.code(), ErrorCode::CorruptStore, "{e}");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), line(u64::MAX - 1));
    }

    fn line(seq: u64) -> String {
        format!("{{\"seq\":{seq},\"ts_ms\":1,\"type\":\"phase\",\"title\":\"p{seq}\"}}\n")
    }

    fn setup() -> (tempfile::TempDir, FileStore, RunId, std::path::PathBuf) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let store = FileStore::open(tmp.path()).expect("open");
        let id = RunId::generate();
        store.create_run(&id).expect("create");
        let path = tmp.path().join("runs").join(id.as_str()).join("journal.jsonl");
        (tmp, store, id, path)
    }

    fn seqs(store: &FileStore, id: &RunId) -> Vec<u64> {
        store.read_entries(id).expect("read").iter().map(|e| e.seq).collect()
    }

    #[test]
    fn appends_overwrite_preallocated_zeros_and_a_closed_journal_is_plain_lines() {
        let (_tmp, store, id, path) = setup();
        let mut j = store.open_journal(&id).expect("journal");
        let mut want = String::new();
        for seq in 1..=3 {
            j.append(line(seq).as_bytes(), seq == 1).expect("append");
            want.push_str(&line(seq));
        }
        assert_eq!(j.len().expect("len"), want.len() as u64, "the logical length");
        let size = std::fs::metadata(&path).expect("meta").len();
        assert!(size >= FIRST_CHUNK, "preallocated: {size}");
        // A live journal reads to its logical end.
        assert_eq!(seqs(&store, &id), [1, 2, 3]);
        drop(j);
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            want,
            "zeros cut on close"
        );
        // Chunks grow as the journal does, and appends past one keep going.
        let mut j = store.open_journal(&id).expect("reopen");
        let big = "x".repeat(100 << 10);
        let long = format!("{{\"seq\":4,\"ts_ms\":1,\"type\":\"phase\",\"title\":\"{big}\"}}\n");
        j.append(long.as_bytes(), true).expect("append past a chunk");
        j.append(line(5).as_bytes(), true).expect("append");
        drop(j);
        assert_eq!(seqs(&store, &id), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_crash_leaves_a_zero_tail_that_reads_as_the_end_and_is_cut_on_reopen() {
        let (_tmp, store, id, path) = setup();
        let mut j = store.open_journal(&id).expect("journal");
        j.append(format!("{}{}", line(1), line(2)).as_bytes(), true)
            .expect("append");
        // kill -9: no drop, the preallocated zeros stay.
        std::mem::forget(j);
        let size = std::fs::metadata(&path).expect("meta").len();
        assert!(size > (line(1).len() + line(2).len()) as u64);
        assert_eq!(seqs(&store, &id), [1, 2]);
        let claim = store.claim_run(&id).expect("claim").expect("free");
        let fence = hwf_core::store::Claim::fence(&claim).clone();
        let mut sink = store.open_sink(fence).expect("sink");
        assert_eq!(sink.next_seq(), 3, "the next seq follows the last line, not the zeros");
        assert_eq!(
            std::fs::metadata(&path).expect("meta").len(),
            (line(1).len() + line(2).len()) as u64,
            "reopening cut the zero tail"
        );
        let third = line(3);
        let append = sink.append_lines(3, third.as_bytes());
        futures_util::FutureExt::now_or_never(append)
            .expect("at once")
            .expect("append");
        drop(sink);
        assert_eq!(seqs(&store, &id), [1, 2, 3]);
    }

    #[test]
    fn pages_of_an_unflushed_write_kept_out_of_order_are_named_and_repaired() {
        let (_tmp, store, id, path) = setup();
        // Line 3 was written across two pages and never flushed; the crash
        // kept the second page (the end of line 3 and all of line 4) but
        // not the first, which still reads as preallocated zeros.
        let tail = line(3);
        let mut bytes = format!("{}{}", line(1), line(2)).into_bytes();
        bytes.extend(std::iter::repeat_n(0u8, 4096 - bytes.len()));
        bytes.extend_from_slice(&tail.as_bytes()[tail.len() / 2..]);
        bytes.extend_from_slice(line(4).as_bytes());
        bytes.extend(std::iter::repeat_n(0u8, 4000));
        std::fs::write(&path, &bytes).expect("seed");
        // Neither read nor appended to: named, with the way out.
        let e = store.read_entries(&id).expect_err("damaged");
        assert_eq!(e.code(), ErrorCode::CorruptStore, "{e}");
        assert!(
            e.to_string().contains("line 3") && e.to_string().contains("hwf store repair"),
            "{e}"
        );
        let e = store.open_journal(&id).expect_err("no append after hidden data");
        assert_eq!(e.code(), ErrorCode::CorruptStore, "{e}");
        assert_eq!(std::fs::read(&path).expect("read"), bytes, "refusing changed nothing");
        // The repair keeps what continues the journal: line 4 follows a
        // torn line 3, so it goes with it.
        let dry = store.repair_journal(&id, true).expect("dry run");
        assert_eq!((dry.kept_lines, dry.last_seq, dry.saved_as), (2, 2, None));
        assert_eq!(std::fs::read(&path).expect("read"), bytes, "a dry run changes nothing");
        let done = store.repair_journal(&id, false).expect("repair");
        assert_eq!(done.kept_lines, 2);
        let saved = done.saved_as.expect("saved");
        assert_eq!(std::fs::read(path.with_file_name(&saved)).expect("kept aside"), bytes);
        assert_eq!(seqs(&store, &id), [1, 2]);
        let mut j = store.open_journal(&id).expect("reopen");
        j.append(line(3).as_bytes(), true).expect("append");
        drop(j);
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            format!("{}{}{}", line(1), line(2), line(3))
        );
    }

    #[test]
    fn a_line_appended_after_a_zero_tail_is_never_hidden_and_the_repair_keeps_it() {
        let (_tmp, store, id, path) = setup();
        // A crash's preallocated tail, then a complete line appended by hand
        // (the last byte is a newline, as after a clean close).
        let mut bytes = format!("{}{}", line(1), line(2)).into_bytes();
        bytes.extend(std::iter::repeat_n(0u8, 8192));
        bytes.extend_from_slice(line(3).as_bytes());
        std::fs::write(&path, &bytes).expect("seed");
        let e = store.open_journal(&id).expect_err("appending would hide line 3");
        assert_eq!(e.code(), ErrorCode::CorruptStore, "{e}");
        assert!(e.to_string().contains("8192 zero bytes at byte"), "{e}");
        assert_eq!(
            store.read_entries(&id).expect_err("named").code(),
            ErrorCode::CorruptStore
        );
        let done = store.repair_journal(&id, false).expect("repair");
        assert_eq!((done.kept_lines, done.last_seq, done.dropped_bytes), (3, 3, 8192));
        assert_eq!(seqs(&store, &id), [1, 2, 3]);
        // A whole journal is left as it is.
        let again = store.repair_journal(&id, false).expect("again");
        assert_eq!((again.kept_lines, again.dropped_bytes, again.saved_as), (3, 0, None));
    }

    #[test]
    fn a_stray_nul_in_a_complete_line_is_damage_not_the_end() {
        let (_tmp, store, id, path) = setup();
        let mut bytes = line(1).into_bytes();
        bytes.extend_from_slice(b"{\"seq\":2,\0\"ts_ms\":1}\n");
        bytes.extend_from_slice(line(3).as_bytes());
        std::fs::write(&path, &bytes).expect("seed");
        let e = store.read_entries(&id).expect_err("damaged");
        assert_eq!(e.code(), ErrorCode::CorruptStore, "{e}");
        assert!(e.to_string().contains("line 2"), "{e}");
        // NULs at the very end are a preallocated tail, however short.
        let mut bytes = line(1).into_bytes();
        bytes.extend_from_slice(b"{\"seq\":2\0\0");
        std::fs::write(&path, &bytes).expect("seed");
        assert_eq!(seqs(&store, &id), [1]);
    }

    #[test]
    fn a_torn_tail_cut_inside_a_utf8_character_is_torn_not_an_error() {
        let (_tmp, store, id, path) = setup();
        let full = "{\"seq\":2,\"ts_ms\":1,\"type\":\"phase\",\"title\":\"caf\u{e9}\"}\n";
        let cut = full.find('\u{e9}').expect("é") + 1;
        let mut bytes = line(1).into_bytes();
        bytes.extend_from_slice(&full.as_bytes()[..cut]);
        std::fs::write(&path, &bytes).expect("seed");
        assert_eq!(seqs(&store, &id), [1]);
        // Invalid UTF-8 in a complete line is damage, and named.
        let mut bytes = line(1).into_bytes();
        bytes.extend_from_slice(&[b'{', 0xff, b'}', b'\n']);
        bytes.extend_from_slice(line(3).as_bytes());
        std::fs::write(&path, &bytes).expect("seed");
        let e = store.read_entries(&id).expect_err("damaged");
        assert_eq!(e.code(), ErrorCode::CorruptStore, "{e}");
        assert!(e.to_string().contains("line 2"), "{e}");
    }

    #[test]
    fn an_appender_dropped_after_a_takeover_leaves_the_new_writers_lines() {
        let (_tmp, store, id, path) = setup();
        let mut old = store.open_journal(&id).expect("journal");
        old.append(line(1).as_bytes(), true).expect("append");
        // Another executor opens the journal (cutting the old tail) and
        // appends, while the old appender is still open.
        let mut new = store.open_journal(&id).expect("journal");
        new.append(line(2).as_bytes(), true).expect("append");
        drop(old);
        drop(new);
        assert_eq!(seqs(&store, &id), [1, 2]);
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            format!("{}{}", line(1), line(2))
        );
    }

    #[test]
    fn the_flusher_flushes_on_every_kind_of_runtime() {
        let (_tmp, store, id, _path) = setup();
        let mut j = store.open_journal(&id).expect("journal");
        j.append(line(1).as_bytes(), false).expect("append");
        let flusher = j.flusher();
        flusher.flush_blocking().expect("outside a runtime");
        futures_util::FutureExt::now_or_never(flusher.flush())
            .expect("at once")
            .expect("no runtime");
        let multi = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("rt");
        let f = flusher.clone();
        multi
            .block_on(async move { tokio::spawn(async move { f.flush().await }).await })
            .expect("join")
            .expect("on a worker");
        multi.block_on(flusher.flush()).expect("in block_on");
        multi.block_on(flusher.flush_detached()).expect("detached");
        let current = tokio::runtime::Builder::new_current_thread().build().expect("rt");
        current.block_on(flusher.flush()).expect("current thread");
        futures_util::FutureExt::now_or_never(flusher.flush_detached())
            .expect("at once")
            .expect("detached, no runtime");
        drop(j);
        assert_eq!(seqs(&store, &id), [1]);
    }
}
