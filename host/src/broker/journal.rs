//! Journal events and the writer that appends them.
//!
//! One JSON object per line: `seq` (1-based, per run), `ts_ms`, `type`, and
//! the event's fields. Completed agent and capability calls are fsync'd
//! before their result is returned to the guest — with *group commit*:
//! completions that arrive while an fsync is in progress share the next
//! one. The fsync runs on the waiting call's own worker (`block_in_place`,
//! so the call resumes straight from it); `async` durability's background
//! flush runs on the blocking pool. `log` and `phase` lines are written at
//! once and made durable by the next fsync.
//!
//! The lines go to the run's journal file ([`JournalOut::File`]) or, with a
//! shared store, to its writer task ([`JournalOut::Shared`], see
//! [`crate::store::SharedJournal`]): the same lines, seqs and group commit;
//! there a sync is the store's durable commit.

pub use crate::store::JournalOut;
use crate::store::SharedJournal;
pub use hwf_core::call::{CallErrorKind, CallFailure};
use hwf_core::error::Result;
pub use hwf_core::journal::{Durability, Event, GROUP_WINDOW};
use hwf_core::payload::{self, Chunk, ChunkId, PayloadRef};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Serialize)]
struct Line<'a, 'e> {
    seq: u64,
    ts_ms: u64,
    #[serde(flatten)]
    event: &'a Event<'e>,
    /// A `call_started` request kept by content (its skeleton is inline).
    #[serde(skip_serializing_if = "Option::is_none")]
    request_ref: Option<&'a PayloadRef>,
    /// A `call_completed` result kept by content.
    #[serde(skip_serializing_if = "Option::is_none")]
    result_ref: Option<&'a PayloadRef>,
}

/// One event as written: large payloads replaced by refs, their chunks
/// collected in `chunks`; a request whose fingerprint is in `stored` names
/// the chunks kept for it (and is remembered there once kept).
fn write_line(
    buf: &mut Vec<u8>,
    seq: u64,
    ts_ms: u64,
    event: &Event<'_>,
    chunks: &mut Vec<Chunk>,
    stored: &mut std::collections::HashMap<String, (PayloadRef, Value)>,
) -> Result<()> {
    fn emit(
        buf: &mut Vec<u8>,
        (seq, ts_ms): (u64, u64),
        event: &Event<'_>,
        request_ref: Option<&PayloadRef>,
        result_ref: Option<&PayloadRef>,
    ) -> Result<()> {
        let line = Line {
            seq,
            ts_ms,
            event,
            request_ref,
            result_ref,
        };
        serde_json::to_writer(buf, &line)
            .map_err(|e| hwf_core::error::Error::new(hwf_core::error::ErrorCode::Internal, e.to_string()))
    }
    let at = (seq, ts_ms);
    match event {
        Event::CallStarted {
            request, fingerprint, ..
        } => {
            let kept = match stored.get(*fingerprint) {
                Some(k) => Some(k.clone()),
                None => payload::externalize(request, true)?.map(|x| {
                    chunks.extend(x.chunks);
                    let k = (x.payload, x.inline.unwrap_or(Value::Null));
                    if !fingerprint.is_empty() {
                        stored.insert((*fingerprint).to_owned(), k.clone());
                    }
                    k
                }),
            };
            if let Some((payload, skeleton)) = &kept {
                let mut ev = *event;
                if let Event::CallStarted { request, .. } = &mut ev {
                    *request = skeleton;
                }
                return emit(buf, at, &ev, Some(payload), None);
            }
        }
        Event::CallCompleted {
            result: Some(result), ..
        } => {
            if let Some(x) = payload::externalize(result, false)? {
                let mut ev = *event;
                if let Event::CallCompleted { result, .. } = &mut ev {
                    *result = None;
                }
                chunks.extend(x.chunks);
                return emit(buf, at, &ev, None, Some(&x.payload));
            }
        }
        _ => {}
    }
    emit(buf, at, event, None, None)
}

/// Appends events to a run's journal, reusing one line buffer.
#[derive(Debug)]
pub struct Journal {
    out: JournalOut,
    seq: u64,
    buf: Vec<u8>,
    written: Arc<AtomicU64>,
    /// Bytes in the file, and the most it may hold (`u64::MAX`: no limit).
    bytes: u64,
    max_bytes: u64,
    /// The claim the run is executed under: once it reads lost, nothing
    /// more is appended.
    fence: Option<hwf_core::store::Fence>,
    /// Payload chunks this writer has stored (not stored or counted
    /// again).
    chunks_kept: HashSet<ChunkId>,
    /// Requests kept by content, by fingerprint (with their skeleton): a
    /// request journaled again — a replayed call, the same prompt twice —
    /// names the stored chunks without being split and hashed again.
    stored_requests: std::collections::HashMap<String, (PayloadRef, Value)>,
    /// How many bytes at the start of `buf` are deferred lines: given
    /// their seqs, not yet written ([`Journal::defer_all`]). The next
    /// write writes them first, in the same write.
    pending: usize,
}

/// The most deferred lines a journal holds back: past it they are written
/// at once (a long replay reaches the file in writes of about this size).
const MAX_DEFERRED_BYTES: usize = 64 * 1024;

impl Drop for Journal {
    /// Lines still held back are written (best effort): every path that
    /// ends an execution writes its final record, which takes them, so
    /// this only matters to one that ends without.
    fn drop(&mut self) {
        if self.has_deferred()
            && let Err(e) = self.flush_deferred()
        {
            tracing::warn!(error = %e, "deferred journal lines not written");
        }
    }
}

/// Group commit for a journal: `sync_to(seq)` returns once everything up to
/// `seq` is on disk; concurrent callers share one fsync.
///
/// Every fsync it makes is counted ([`Syncer::syncs`]) and traced at debug
/// level (`journal fsync`, with the seq it made durable and how many lines
/// it covered), so tests and `hwf bench` can see completions share one.
#[derive(Debug)]
pub struct Syncer {
    flush: Flush,
    written: Arc<AtomicU64>,
    synced: tokio::sync::Mutex<u64>,
    syncs: AtomicU64,
    /// A background flush is scheduled (`async` durability).
    kicked: std::sync::atomic::AtomicBool,
}

/// What a [`Syncer`] flushes.
#[derive(Debug)]
enum Flush {
    /// fdatasync of the journal file (the writer's handle, shared).
    File(crate::store::JournalFlusher),
    /// The shared store's writer task's durable commit.
    Shared(SharedJournal),
}

impl Syncer {
    /// Make every line up to `seq` durable.
    ///
    /// # Errors
    ///
    /// `io` when the fsync fails.
    pub async fn sync_to(&self, seq: u64) -> Result<()> {
        self.sync_to_after(seq, None).await
    }

    /// [`Syncer::sync_to`], first waiting up to `window` (once the flush
    /// lock is held) so that completions arriving meanwhile share the flush.
    ///
    /// # Errors
    ///
    /// `io` when the fsync fails.
    pub async fn sync_to_after(&self, seq: u64, window: Option<std::time::Duration>) -> Result<()> {
        self.sync_inner(seq, window, false).await
    }

    /// The flush itself: a waiter's on its own worker (it resumes straight
    /// from the flush), a background one (`detached`) on the blocking pool.
    async fn sync_inner(&self, seq: u64, window: Option<std::time::Duration>, detached: bool) -> Result<()> {
        let mut synced = self.synced.lock().await;
        if *synced >= seq {
            return Ok(());
        }
        if let Some(w) = window {
            tokio::time::sleep(w).await;
        }
        let target = self.written.load(Ordering::SeqCst);
        match &self.flush {
            Flush::File(file) if detached => file.flush_detached().await?,
            Flush::File(file) => file.flush().await?,
            Flush::Shared(shared) => {
                shared.sync().await?;
                let n = self.syncs.fetch_add(1, Ordering::Relaxed) + 1;
                tracing::debug!(through = target, syncs = n, "journal commit (shared store)");
                *synced = target;
                return Ok(());
            }
        }
        let n = self.syncs.fetch_add(1, Ordering::Relaxed) + 1;
        tracing::debug!(
            through = target,
            lines = target.saturating_sub(*synced),
            syncs = n,
            "journal fsync"
        );
        *synced = target;
        Ok(())
    }

    /// Flush up to `seq` in the background (`async` durability): one
    /// flusher task at a time, which goes on while new lines arrive. Each
    /// round first waits [`GROUP_WINDOW`] for more completions to share
    /// its flush: the guest is not waiting, and a flush per completion
    /// costs a blocking-pool hop and two thread wake-ups each.
    pub fn kick(self: &Arc<Self>, seq: u64) {
        if self.kicked.swap(true, Ordering::SeqCst) {
            return;
        }
        let me = self.clone();
        tokio::spawn(async move {
            let mut target = seq;
            loop {
                tokio::time::sleep(GROUP_WINDOW).await;
                target = target.max(me.written.load(Ordering::SeqCst));
                if let Err(e) = me.sync_inner(target, None, true).await {
                    tracing::warn!(error = %e, "background journal flush failed");
                }
                me.kicked.store(false, Ordering::SeqCst);
                let written = me.written.load(Ordering::SeqCst);
                if written <= target || me.kicked.swap(true, Ordering::SeqCst) {
                    break;
                }
                target = written;
            }
        });
    }

    /// How many fsyncs this syncer has made (one per group commit).
    pub fn syncs(&self) -> u64 {
        self.syncs.load(Ordering::Relaxed)
    }
}

impl Journal {
    /// A writer over an open journal (a file, or a shared store's
    /// writer), continuing at `seq`.
    pub fn new(out: impl Into<JournalOut>, seq: u64) -> Self {
        Self {
            out: out.into(),
            seq,
            buf: Vec::with_capacity(1024),
            written: Arc::new(AtomicU64::new(seq)),
            bytes: 0,
            max_bytes: u64::MAX,
            fence: None,
            chunks_kept: HashSet::new(),
            stored_requests: std::collections::HashMap::new(),
            pending: 0,
        }
    }

    /// Requests this store already keeps by content, by fingerprint (from
    /// the journals a run replays: the same store's, so their chunks are
    /// there).
    pub fn remember_stored_requests<'a>(
        &mut self,
        stored: impl IntoIterator<Item = (&'a String, &'a (PayloadRef, Value))>,
    ) {
        for (fp, r) in stored {
            self.stored_requests.entry(fp.clone()).or_insert_with(|| r.clone());
        }
    }

    /// Append only while `fence` (the run's claim) is held: an executor
    /// that lost the run writes nothing more (`conflict`).
    pub fn with_fence(mut self, fence: hwf_core::store::Fence) -> Self {
        self.fence = Some(fence);
        self
    }

    /// Bound the journal to `max_bytes` (the file's current length counts).
    /// Past it every append but the run's start and end fails with
    /// `journal_limit`, so a run cannot fill the disk and its final record
    /// is still written. What counts is what is stored: the lines, and the
    /// payload chunks this execution stored that the store did not hold
    /// (a chunk shared with an earlier call or run costs nothing; on a
    /// shared store, where the writer task stores them, each chunk new to
    /// this execution counts).
    ///
    /// # Errors
    ///
    /// `io` when the file's length cannot be read.
    pub fn with_byte_limit(mut self, max_bytes: u64) -> Result<Self> {
        // A shared store's journal counts from this execution on.
        self.bytes = match &self.out {
            JournalOut::File(file) => file.len()?,
            JournalOut::Shared(_) => 0,
        };
        self.max_bytes = max_bytes;
        Ok(self)
    }

    /// A group-commit syncer for this journal.
    ///
    /// # Errors
    ///
    /// `io` when the file cannot be duplicated.
    pub fn syncer(&self) -> Result<Syncer> {
        let flush = match &self.out {
            JournalOut::File(file) => Flush::File(file.flusher()),
            JournalOut::Shared(shared) => Flush::Shared(shared.clone()),
        };
        Ok(Syncer {
            flush,
            written: self.written.clone(),
            synced: tokio::sync::Mutex::new(self.seq),
            syncs: AtomicU64::new(0),
            kicked: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Append one event; run start and end are fsync'd here, call
    /// completions by [`Syncer::sync_to`] with the returned seq.
    ///
    /// # Errors
    ///
    /// `io` when the write or fsync fails; `corrupt_store` when the journal's
    /// `seq` cannot advance (a journal continued at `u64::MAX`): nothing is
    /// written then; `conflict` once the run's claim was lost (nothing is
    /// written either).
    pub fn append(&mut self, event: &Event<'_>) -> Result<u64> {
        self.append_all(std::slice::from_ref(event))
    }

    /// Append events as one write, so a crash keeps all of them or none
    /// (a call's completion and the control it consumes). Returns the last
    /// seq. Lines deferred before ([`Journal::defer_all`]) are written
    /// first, in the same write; with no events, those alone.
    ///
    /// # Errors
    ///
    /// As [`Journal::append`].
    pub fn append_all(&mut self, events: &[Event<'_>]) -> Result<u64> {
        self.put(events, true)
    }

    /// Give events their seqs and hold their lines back for the next
    /// write ([`Journal::append_all`], or [`Journal::flush_deferred`]
    /// before the guest waits): one write per host call fewer for the
    /// lines that record what happened without effect of their own — a
    /// delivery to the guest, a call replayed from a journal. Whatever the
    /// guest does after them reaches the journal through a later write,
    /// which writes them first, so a crash loses them only together with
    /// everything after them: the journal stays a prefix of what
    /// happened, and a resume answers those calls from the same journals
    /// again. Lines that keep a payload by content, and lines past
    /// [`MAX_DEFERRED_BYTES`], are written at once. Returns the last seq.
    ///
    /// # Errors
    ///
    /// As [`Journal::append`] (the byte limit is checked here, so a write
    /// of deferred lines alone never fails it).
    pub fn defer_all(&mut self, events: &[Event<'_>]) -> Result<u64> {
        self.put(events, false)
    }

    /// Write the deferred lines, if any.
    ///
    /// # Errors
    ///
    /// As [`Journal::append`].
    pub fn flush_deferred(&mut self) -> Result<u64> {
        self.put(&[], true)
    }

    /// Whether lines are held back ([`Journal::defer_all`]).
    pub fn has_deferred(&self) -> bool {
        self.pending > 0
    }

    /// Stage `events` after the deferred lines and write them all (`now`),
    /// or keep them deferred. On any error nothing new is kept and the
    /// lines deferred before stay as they were.
    fn put(&mut self, events: &[Event<'_>], now: bool) -> Result<u64> {
        let keep = self.pending;
        self.buf.truncate(keep);
        let staged = self.stage(events);
        let (seq, chunks) = match staged {
            Ok(s) => s,
            Err(e) => {
                self.buf.truncate(keep);
                return Err(e);
            }
        };
        if self.buf.is_empty() {
            return Ok(self.seq);
        }
        match self.admit_and_write(events, seq, chunks, now) {
            Ok(()) => Ok(seq),
            Err(e) => {
                self.buf.truncate(keep);
                Err(e)
            }
        }
    }

    /// Serialize `events` after the deferred lines: the last seq and the
    /// payload chunks the lines name that this writer has not stored.
    fn stage(&mut self, events: &[Event<'_>]) -> Result<(u64, Vec<Chunk>)> {
        let ts_ms = crate::store::now_ms();
        let mut seq = self.seq;
        let mut chunks = Vec::new();
        for event in events {
            seq = seq.checked_add(1).ok_or_else(|| {
                hwf_core::error::Error::new(
                    hwf_core::error::ErrorCode::CorruptStore,
                    format!("the journal's seq {} cannot advance (it is corrupt)", self.seq),
                )
            })?;
            write_line(&mut self.buf, seq, ts_ms, event, &mut chunks, &mut self.stored_requests)?;
            self.buf.push(b'\n');
        }
        chunks.retain(|c| !self.chunks_kept.contains(&c.id));
        Ok((seq, chunks))
    }

    /// Check the staged lines against the byte limit, then write them (with
    /// their chunks first) or keep them deferred.
    fn admit_and_write(&mut self, events: &[Event<'_>], seq: u64, chunks: Vec<Chunk>, now: bool) -> Result<()> {
        let chunk_bytes: u64 = chunks.iter().map(|c| c.bytes.len() as u64).sum();
        // A run's start and end, and its finalizers' records (a run that
        // hit the limit still has its resources finalized), are always
        // taken: they are small and once per execution or resource.
        // Deferred lines alone were admitted when they were deferred.
        let exempt = events.first().is_none_or(|event| {
            matches!(
                event,
                Event::RunStarted { .. }
                    | Event::RunCompleted { .. }
                    | Event::FinalizerStarted { .. }
                    | Event::FinalizerFinished { .. }
            )
        });
        let bytes = self.bytes.saturating_add(self.buf.len() as u64);
        let at_most = bytes.saturating_add(chunk_bytes);
        if at_most > self.max_bytes && !exempt {
            return Err(hwf_core::error::Error::new(
                hwf_core::error::ErrorCode::JournalLimit,
                format!(
                    "the run's journal would grow past {} MiB (limits.max_journal_bytes)",
                    self.max_bytes >> 20
                ),
            ));
        }
        if !now && chunks.is_empty() && self.buf.len() < MAX_DEFERRED_BYTES {
            self.pending = self.buf.len();
            self.seq = seq;
            return Ok(());
        }
        if let Some(fence) = &self.fence {
            fence.check().map_err(hwf_core::error::Error::from)?;
        }
        // The chunks first: a line never names a chunk that is not kept.
        let bytes = if chunks.is_empty() {
            bytes
        } else {
            let ids: Vec<ChunkId> = chunks.iter().map(|c| c.id).collect();
            let stored = self.out.put_chunks(chunks)?.unwrap_or(chunk_bytes);
            self.chunks_kept.extend(ids);
            bytes.saturating_add(stored)
        };
        let first_seq = self.written.load(Ordering::SeqCst) + 1;
        match &mut self.out {
            JournalOut::File(file) => file.append(&self.buf, events.iter().any(|e| e.sync_inline()))?,
            // Run start and end are made durable by the execution's
            // `RunContext::flush_journal` right after.
            JournalOut::Shared(shared) => shared.write(first_seq, self.buf.clone())?,
        }
        self.bytes = bytes;
        self.seq = seq;
        self.written.store(seq, Ordering::SeqCst);
        self.buf.clear();
        self.pending = 0;
        Ok(())
    }

    /// Record that `call` was delivered to the guest (`next`): a `delivered`
    /// line deferred to the next write ([`Journal::defer_all`]). A resumed
    /// run whose journal lost it delivers in completion order, as it would
    /// have without the line; a `next` that has to wait writes the
    /// deferred lines first, so the journal never lags a waiting guest.
    ///
    /// # Errors
    ///
    /// As [`Journal::defer_all`].
    pub fn defer_delivered(&mut self, call: &str) -> Result<u64> {
        self.defer_all(&[Event::Delivered { call }])
    }

    /// fsync everything appended so far.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn sync(&mut self) -> Result<()> {
        match &mut self.out {
            JournalOut::File(file) => file.sync(),
            // Synced through the syncer (async); nothing to do inline.
            JournalOut::Shared(_) => Ok(()),
        }
    }

    /// Whether the lines go to a shared store (made durable by a sync, not
    /// inline).
    pub fn is_shared(&self) -> bool {
        matches!(self.out, JournalOut::Shared(_))
    }

    /// The shared store's writer task, when the lines go to one (it also
    /// takes the run's transcripts, off the calls' path).
    pub fn shared_writer(&self) -> Option<&SharedJournal> {
        match &self.out {
            JournalOut::Shared(shared) => Some(shared),
            JournalOut::File(_) => None,
        }
    }

    /// The last seq appended.
    pub fn seq(&self) -> u64 {
        self.seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::FileStore;
    use hwf_core::ids::RunId;
    use hwf_core::journal::{Entry, JournalEntry};

    fn journal(seq: u64) -> (tempfile::TempDir, FileStore, RunId, Journal) {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = FileStore::open(dir.path().join("state")).expect("store");
        let id = RunId::generate();
        store.create_run(&id).expect("run");
        let j = Journal::new(store.open_journal(&id).expect("journal"), seq);
        (dir, store, id, j)
    }

    fn completion(call: &str) -> Event<'_> {
        Event::CallCompleted {
            call,
            kind: "agent",
            label: None,
            fingerprint: "b3:00",
            ok: true,
            result: None,
            error: None,
            tokens: 0,
            usage: hwf_core::model::TokenUsage::default(),
            cost_micro_usd: 0,
            attempts: 1,
            duration_us: 1,
            replayed: false,
            cache_hit: false,
        }
    }

    #[test]
    fn concurrent_completions_share_one_fsync() {
        let (_dir, _store, _id, mut j) = journal(0);
        let syncer = Arc::new(j.syncer().expect("syncer"));
        let calls: Vec<String> = (1..=16).map(|i| i.to_string()).collect();
        let seqs: Vec<u64> = calls
            .iter()
            .map(|c| j.append(&completion(c)).expect("append"))
            .collect();
        assert_eq!(seqs, (1..=16).collect::<Vec<u64>>());
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("rt");
        rt.block_on(async {
            let waiters: Vec<_> = seqs
                .iter()
                .map(|&seq| {
                    let s = syncer.clone();
                    tokio::spawn(async move { s.sync_to(seq).await })
                })
                .collect();
            for w in waiters {
                w.await.expect("join").expect("sync");
            }
        });
        assert_eq!(
            syncer.syncs(),
            1,
            "16 completions written before the first fsync share it"
        );
        // A later completion needs a new fsync; an old seq needs none.
        let seq = j.append(&completion("17")).expect("append");
        rt.block_on(async {
            syncer.sync_to(seq).await.expect("sync");
            syncer.sync_to(3).await.expect("sync");
        });
        assert_eq!(syncer.syncs(), 2);
    }

    #[test]
    fn a_writer_whose_claim_is_lost_appends_nothing() {
        let (_dir, store, id, j) = journal(0);
        let claim = store.claim_run(&id).expect("claim").expect("free");
        let mut j = j.with_fence(hwf_core::store::Claim::fence(&claim).clone());
        j.append(&completion("1")).expect("append");
        drop(claim);
        let e = j.append(&completion("2")).expect_err("fenced");
        assert_eq!(e.code(), hwf_core::error::ErrorCode::Conflict, "{e}");
        assert!(e.to_string().contains("no longer held"), "{e}");
        assert_eq!(store.read_entries(&id).expect("read").len(), 1);
    }

    /// A `call_started` whose fingerprint is its call id (tests give each
    /// request its own).
    fn started<'a>(call: &'a str, request: &'a Value) -> Event<'a> {
        Event::CallStarted {
            call,
            kind: "agent",
            label: Some("turn"),
            phase: None,
            fingerprint: call,
            request,
        }
    }

    /// The conversation so far: `base` bytes, then `turns` answers.
    fn conversation(base: usize, turns: usize) -> String {
        let mut x: u64 = 11;
        let mut s = String::new();
        let mut word = |s: &mut String| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.push_str(&format!("{:x} ", x % 999_983));
        };
        while s.len() < base {
            word(&mut s);
        }
        for _ in 0..turns {
            let end = s.len() + 2000;
            while s.len() < end {
                word(&mut s);
            }
        }
        s
    }

    #[test]
    fn large_payloads_are_kept_by_content_and_read_back_whole() {
        let (dir, store, id, mut j) = journal(0);
        let mut written = Vec::new();
        for turn in 0..20 {
            let request = serde_json::json!({"agent": "a", "label": "turn", "prompt": conversation(100 << 10, turn)});
            let call = (turn + 1).to_string();
            j.append(&started(&call, &request)).expect("append");
            let result = serde_json::json!({"answer": conversation(5000, 0)});
            let mut done = completion(&call);
            if let Event::CallCompleted { result: r, .. } = &mut done {
                *r = Some(&result);
            }
            j.append(&done).expect("append");
            written.push((request, result));
        }
        drop(j);
        let path = dir.path().join("state/runs").join(id.as_str()).join("journal.jsonl");
        let journal_bytes = std::fs::metadata(&path).expect("journal").len();
        let chunk_bytes: u64 = std::fs::read_dir(dir.path().join("state/chunks"))
            .expect("chunks")
            .map(|e| e.expect("entry").metadata().expect("meta").len())
            .sum();
        // 20 prompts of 100–140 KB: 2.4 MB inline; ~140 KB distinct.
        assert!(journal_bytes < 20_000, "journal {journal_bytes}");
        assert!(chunk_bytes < 600_000, "chunks {chunk_bytes}");
        // As stored: refs, and the request's small fields.
        let compact = store.entries(&id, 0).expect("entries");
        assert!(compact.iter().all(JournalEntry::has_refs));
        match &compact[0].entry {
            Entry::CallStarted { request, .. } => {
                assert_eq!(*request, serde_json::json!({"agent": "a", "label": "turn"}))
            }
            other => panic!("{other:?}"),
        }
        // Read whole: exactly what was written.
        let entries = store.read_entries(&id).expect("read");
        for (pair, (request, result)) in entries.chunks(2).zip(&written) {
            match (&pair[0].entry, &pair[1].entry) {
                (
                    Entry::CallStarted {
                        request: r,
                        request_ref: None,
                        ..
                    },
                    Entry::CallCompleted {
                        result: Some(v),
                        result_ref: None,
                        ..
                    },
                ) => {
                    assert_eq!(r, request);
                    assert_eq!(v, result);
                }
                other => panic!("{other:?}"),
            }
        }
        // A missing chunk is named, not read as an empty payload.
        for e in std::fs::read_dir(dir.path().join("state/chunks")).expect("chunks") {
            std::fs::remove_file(e.expect("entry").path()).expect("remove");
        }
        let e = store.read_entries(&id).expect_err("chunks gone");
        assert_eq!(e.code(), hwf_core::error::ErrorCode::NotFound, "{e}");
    }

    #[test]
    fn the_byte_limit_counts_new_chunks_once() {
        let (_dir, _store, _id, j) = journal(0);
        let mut j = j.with_byte_limit(400 << 10).expect("limit");
        let request = serde_json::json!({"prompt": conversation(300 << 10, 0)});
        j.append(&started("1", &request)).expect("the first copy fits");
        // The same request again (under other fingerprints, so it is split
        // again) stores a line, not its chunks.
        for call in 2..50 {
            j.append(&started(&call.to_string(), &request))
                .expect("shared chunks cost nothing");
        }
        let other = serde_json::json!({"prompt": conversation(300 << 10, 0).replace('a', "b")});
        let e = j.append(&started("50", &other)).expect_err("past the limit");
        assert_eq!(e.code(), hwf_core::error::ErrorCode::JournalLimit, "{e}");
    }

    #[test]
    fn a_request_stored_before_is_named_by_its_fingerprint_not_split_again() {
        let (dir, store, id, mut j) = journal(0);
        let request = serde_json::json!({"agent": "a", "prompt": conversation(50 << 10, 0)});
        j.append(&started("b3:aa", &request)).expect("append");
        drop(j);
        let chunks_dir = dir.path().join("state/chunks");
        let before = std::fs::read_dir(&chunks_dir).expect("chunks").count();
        // What a replay index hands a resumed run: the source's ref for a
        // fingerprint. A line with that fingerprint names it, whatever its
        // request (a replayed call's request is the same one).
        let first = store.entries(&id, 0).expect("entries");
        let Entry::CallStarted {
            request_ref: Some(r),
            request: skeleton,
            ..
        } = &first[0].entry
        else {
            panic!("{first:?}");
        };
        let other = serde_json::json!({"prompt": conversation(60 << 10, 3)});
        let mut resumed = Journal::new(store.open_journal(&id).expect("journal"), 1);
        resumed.remember_stored_requests([(&"b3:bb".to_owned(), &(*r, skeleton.clone()))]);
        resumed.append(&started("b3:bb", &other)).expect("append");
        drop(resumed);
        let after = std::fs::read_dir(&chunks_dir).expect("chunks").count();
        assert_eq!(before, after, "no chunk stored for a known fingerprint");
        let read = store.read_entries(&id).expect("read");
        match &read[1].entry {
            Entry::CallStarted { request: got, .. } => assert_eq!(*got, request),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_seq_at_u64_max_is_a_typed_error_and_writes_nothing() {
        let (_dir, store, id, mut j) = journal(u64::MAX - 1);
        assert_eq!(j.append(&completion("1")).expect("last seq"), u64::MAX);
        let e = j.append(&completion("2")).expect_err("overflow");
        assert_eq!(e.code(), hwf_core::error::ErrorCode::CorruptStore, "{e}");
        assert!(e.to_string().contains("cannot advance"), "{e}");
        let lines = store.read_entries(&id).expect("read");
        assert_eq!(lines.len(), 1, "nothing written past u64::MAX");
        assert_eq!(lines[0].seq, u64::MAX);
    }

    /// The calls of the lines in the file, in order, with their seqs.
    fn calls_in_file(store: &FileStore, id: &RunId) -> Vec<(u64, String)> {
        store
            .read_entries(id)
            .expect("read")
            .iter()
            .map(|e| (e.seq, e.call().unwrap_or("-").to_owned()))
            .collect()
    }

    #[test]
    fn deferred_lines_are_written_first_by_the_next_write_in_order() {
        let (_dir, store, id, mut j) = journal(0);
        assert_eq!(j.defer_all(&[completion("1"), completion("2")]).expect("defer"), 2);
        assert_eq!(j.defer_delivered("1").expect("defer"), 3);
        assert!(j.has_deferred());
        assert!(calls_in_file(&store, &id).is_empty(), "nothing written yet");
        // The next write takes them first, and they keep their seqs.
        assert_eq!(j.append(&completion("3")).expect("append"), 4);
        assert!(!j.has_deferred());
        let want: Vec<(u64, String)> = [(1, "1"), (2, "2"), (3, "1"), (4, "3")]
            .iter()
            .map(|(s, c)| (*s, (*c).to_owned()))
            .collect();
        assert_eq!(calls_in_file(&store, &id), want);
        // A flush with nothing held back writes nothing.
        assert_eq!(j.flush_deferred().expect("flush"), 4);
        j.defer_delivered("3").expect("defer");
        assert_eq!(j.flush_deferred().expect("flush"), 5);
        assert_eq!(calls_in_file(&store, &id).len(), 5);
    }

    #[test]
    fn deferred_lines_past_the_bound_are_written_at_once_and_dropping_writes_the_rest() {
        let (_dir, store, id, mut j) = journal(0);
        let mut n = 0u64;
        while calls_in_file(&store, &id).is_empty() {
            n += 1;
            assert!(n < 10_000, "deferred lines never written");
            j.defer_all(&[completion(&n.to_string())]).expect("defer");
        }
        let written = calls_in_file(&store, &id);
        assert_eq!(written.len() as u64, n, "all held back lines in one write");
        assert!(n > 100, "a line is ~250 bytes: {n} lines reached the bound");
        j.defer_delivered("1").expect("defer");
        drop(j);
        assert_eq!(calls_in_file(&store, &id).len() as u64, n + 1);
    }

    #[test]
    fn a_deferred_line_past_the_byte_limit_fails_and_keeps_the_lines_before() {
        let (_dir, store, id, j) = journal(0);
        let line = {
            let (_d, _store, id, mut j) = journal(0);
            j.append(&completion("1")).expect("append");
            drop(j);
            let path = _d.path().join("state/runs").join(id.as_str()).join("journal.jsonl");
            // The line, not the zeros preallocated past it.
            std::fs::read(path)
                .expect("journal")
                .iter()
                .take_while(|b| **b != 0)
                .count() as u64
        };
        // Room for three lines: two fit, five do not.
        let mut j = j.with_byte_limit(3 * line + line / 2).expect("limit");
        j.defer_all(&[completion("1"), completion("2")]).expect("fits");
        let e = j
            .defer_all(&[completion("3"), completion("4"), completion("5")])
            .expect_err("past the limit");
        assert_eq!(e.code(), hwf_core::error::ErrorCode::JournalLimit, "{e}");
        // The run's end is always taken, with what was held back before it.
        j.append(&Event::RunCompleted {
            state: "failed",
            result: None,
            result_path: None,
            error: None,
            duration_ms: 1,
            counts: None,
        })
        .expect("the run's end is exempt");
        let calls: Vec<String> = calls_in_file(&store, &id).into_iter().map(|(_, c)| c).collect();
        assert_eq!(calls, ["1", "2", "-"]);
    }
}
