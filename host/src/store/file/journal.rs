//! A run's journal: `runs/<id>/journal.jsonl`, append-only JSON lines.
//! [`JournalFile`] is the raw appender the broker's writer uses today;
//! [`FileJournalSink`] is the [`JournalSink`] opened under a claim.

use super::FileStore;
use super::fsutil::{read_optional, repair_tail};
use cap_std::fs::{File, OpenOptions};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::journal::JournalEntry;
use hwf_core::store::{Fence, JournalSink, StoreError, StoreResult, async_trait};
use serde_json::Value;
use std::io::Write;

impl FileStore {
    /// Open the run's journal for appending (a torn last line is cut off
    /// first).
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

    fn journal_text(&self, id: &RunId) -> Result<String> {
        let dir = self.run_dir(id)?;
        Ok(read_optional(&dir, "journal.jsonl", &format!("run {id} journal"))?.unwrap_or_default())
    }

    /// Read a run's journal as typed entries (a torn last line is skipped;
    /// a damaged complete line is named).
    ///
    /// # Errors
    ///
    /// `not_found` (unknown run), `io`, `corrupt_store`.
    pub fn read_entries(&self, id: &RunId) -> Result<Vec<JournalEntry>> {
        self.entries(id, 0)
    }

    /// The run's journal entries with `seq > after_seq`, in order, typed
    /// (what [`hwf_core::store::RunStore::entries`] returns).
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
        let file = self.open_journal(fence.run())?;
        let text = self.journal_text(fence.run())?;
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
}
