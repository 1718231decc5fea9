//! [`SharedJournal`]: a run's journal written to a shared store by one
//! writer task on the store's bridge.
//!
//! The broker appends journal lines synchronously (under the run's journal
//! lock, in seq order), as it does to the file store. Here an append hands
//! the lines to the writer task and returns; the task owns the store's
//! [`JournalSink`] and appends every line queued since its last turn in one
//! `append_lines` (one statement for a database). [`SharedJournal::sync_to`]
//! queues a sync behind the lines it covers; every sync queued by the time
//! the task gets to them shares one `JournalSink::sync` (group commit).
//!
//! A failed append (the claim taken over: `conflict`; the database gone:
//! `io`) is sticky: every later append and sync of this writer returns it,
//! so the broker learns of it at the next call it journals.
//!
//! Journal payload chunks ([`hwf_core::payload`]) go the same way
//! ([`SharedJournal::write_chunks`]): queued before the line naming them,
//! and each turn stores its chunks (one `BlobStore::put_chunks`) before it
//! appends its lines, so a stored line never names a missing chunk.
//!
//! The run's agent-call transcripts go the same way
//! ([`SharedJournal::write_transcript`]): queued, written by the task after
//! the lines queued before them (all of a turn's concurrently), off the
//! call's path, and before any sync queued after them is answered (so the
//! run's final flush covers them); none once the writer failed. Each is
//! written under the claim's fence (`RunStore::write_artifact_fenced`: on
//! PostgreSQL the token is compared in the write's own statement), so an
//! executor fenced out by a takeover cannot overwrite the new owner's. A
//! transcript that cannot be written is logged, not sticky: transcripts are
//! metadata the journal does not depend on.

use super::bridge::Bridge;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::payload::Chunk;
use hwf_core::store::{Artifact, BlobStore, Fence, JournalSink, RunStore};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// The most queued messages the writer takes in one turn.
const BATCH: usize = 512;

enum Msg {
    /// Whole lines starting at this seq (each ends with a newline).
    Lines(u64, Vec<u8>),
    /// Answer once everything queued before is durable.
    Sync(oneshot::Sender<Result<()>>),
    /// An agent call's transcript (call id, bytes).
    Transcript(String, Vec<u8>),
    /// Payload chunks the lines queued after them name.
    Chunks(Vec<Chunk>),
}

#[derive(Debug, Default)]
struct State {
    /// The first failure (code, message): every later call returns it.
    failed: Mutex<Option<(ErrorCode, String)>>,
    /// `JournalSink::sync` calls made (one per group commit).
    syncs: AtomicU64,
}

impl State {
    fn failure(&self) -> Option<Error> {
        let failed = self.failed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        failed
            .as_ref()
            .map(|(code, message)| Error::new(*code, message.clone()))
    }

    fn fail(&self, e: &Error) {
        let mut failed = self.failed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if failed.is_none() {
            *failed = Some((e.code(), e.message().to_owned()));
        }
    }
}

/// Where a run's journal lines go (the broker's `Journal` writes to it).
#[derive(Debug)]
pub enum JournalOut {
    /// The run's journal file in the state directory.
    File(super::JournalFile),
    /// A shared store's writer task.
    Shared(SharedJournal),
}

impl JournalOut {
    /// Keep payload chunks before the lines that name them are appended:
    /// the bytes newly stored on the file store; `None` on a shared store,
    /// where the writer task stores them (and cannot say yet).
    ///
    /// # Errors
    ///
    /// `io`; a shared writer's first failure.
    pub fn put_chunks(&mut self, chunks: Vec<Chunk>) -> Result<Option<u64>> {
        match self {
            Self::File(file) => file.put_chunks(&chunks).map(Some),
            Self::Shared(shared) => shared.write_chunks(chunks).map(|()| None),
        }
    }
}

impl From<super::JournalFile> for JournalOut {
    fn from(file: super::JournalFile) -> Self {
        Self::File(file)
    }
}

/// The writer side of a run's journal on a shared store (see the module
/// docs). Cheap to clone: clones share the writer task.
#[derive(Debug, Clone)]
pub struct SharedJournal {
    tx: mpsc::UnboundedSender<Msg>,
    state: Arc<State>,
    fence: Fence,
}

impl SharedJournal {
    /// Start the writer task for `sink` (opened under the claim `fence`
    /// belongs to) on `bridge`; transcripts go to `runs`, payload chunks
    /// to `blobs`.
    pub(crate) fn start(
        sink: Box<dyn JournalSink>,
        runs: Arc<dyn RunStore>,
        blobs: Arc<dyn BlobStore>,
        fence: Fence,
        bridge: &Bridge,
    ) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let state = Arc::new(State::default());
        bridge.handle().spawn(write_loop(sink, runs, blobs, rx, state.clone()));
        Self { tx, state, fence }
    }

    /// Queue payload chunks; the writer stores them before the lines
    /// queued after them.
    ///
    /// # Errors
    ///
    /// As [`SharedJournal::write`].
    pub fn write_chunks(&self, chunks: Vec<Chunk>) -> Result<()> {
        if let Some(e) = self.state.failure() {
            return Err(e);
        }
        self.tx.send(Msg::Chunks(chunks)).map_err(|_| gone())
    }

    /// Queue an agent call's transcript (see the module docs).
    ///
    /// # Errors
    ///
    /// `internal` when the writer task is gone.
    pub fn write_transcript(&self, call: &str, bytes: Vec<u8>) -> Result<()> {
        self.tx
            .send(Msg::Transcript(call.to_owned(), bytes))
            .map_err(|_| gone())
    }

    /// The claim's fence the journal is written under.
    pub fn fence(&self) -> &Fence {
        &self.fence
    }

    /// Queue whole lines starting at seq `first`.
    ///
    /// # Errors
    ///
    /// The writer's first failure (`conflict` once the claim was taken
    /// over, `io`), or `internal` when the writer task is gone.
    pub fn write(&self, first: u64, lines: Vec<u8>) -> Result<()> {
        if let Some(e) = self.state.failure() {
            return Err(e);
        }
        self.tx.send(Msg::Lines(first, lines)).map_err(|_| gone())
    }

    /// Wait until every line queued so far is durable.
    ///
    /// # Errors
    ///
    /// As [`SharedJournal::write`].
    pub async fn sync(&self) -> Result<()> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(Msg::Sync(reply)).map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }

    /// The group commits made so far.
    pub fn syncs(&self) -> u64 {
        self.state.syncs.load(Ordering::Relaxed)
    }
}

fn gone() -> Error {
    Error::new(ErrorCode::Internal, "the journal writer task has stopped")
}

async fn write_loop(
    mut sink: Box<dyn JournalSink>,
    runs: Arc<dyn RunStore>,
    blobs: Arc<dyn BlobStore>,
    mut rx: mpsc::UnboundedReceiver<Msg>,
    state: Arc<State>,
) {
    let mut batch = Vec::with_capacity(BATCH);
    let mut lines = Vec::new();
    let mut chunks: Vec<Chunk> = Vec::new();
    let mut waiting = Vec::new();
    let mut transcripts = Vec::new();
    // Ends when every sender is gone, after the last queued message.
    while rx.recv_many(&mut batch, BATCH).await > 0 {
        let mut first = None;
        lines.clear();
        for msg in batch.drain(..) {
            match msg {
                Msg::Lines(seq, bytes) => {
                    first.get_or_insert(seq);
                    lines.extend_from_slice(&bytes);
                }
                Msg::Sync(reply) => waiting.push(reply),
                Msg::Transcript(call, bytes) => transcripts.push((call, bytes)),
                Msg::Chunks(c) => chunks.extend(c),
            }
        }
        // Every chunk of the turn before any line (a line's chunks were
        // queued before it).
        if !chunks.is_empty()
            && state.failure().is_none()
            && let Err(e) = blobs.put_chunks(&chunks).await
        {
            let e = Error::from(e);
            tracing::warn!(run = %sink.fence().run(), error = %e, "storing journal payload chunks failed");
            state.fail(&e);
        }
        chunks.clear();
        if let Some(first) = first
            && state.failure().is_none()
            && let Err(e) = sink.append_lines(first, &lines).await
        {
            let e = Error::from(e);
            tracing::warn!(run = %sink.fence().run(), error = %e, "journal append to the shared store failed");
            state.fail(&e);
        }
        // After the lines queued before them (a transcript's call has its
        // start in the journal), all of a turn's at once over the store's
        // connections; none once the writer failed (a lost claim: the new
        // owner writes its own).
        if state.failure().is_none() && !transcripts.is_empty() {
            let run = sink.fence().run().clone();
            let fence = super::shared::FenceClaim(sink.fence().clone());
            let writes = transcripts.iter().map(|(call, bytes)| {
                let (runs, fence) = (&runs, &fence);
                async move {
                    (
                        call,
                        runs.write_artifact_fenced(fence, Artifact::Transcript { call }, bytes)
                            .await,
                    )
                }
            });
            for (call, written) in futures_util::future::join_all(writes).await {
                if let Err(e) = written {
                    tracing::warn!(%run, call, error = %Error::from(e), "could not write transcript");
                }
            }
        }
        transcripts.clear();
        if waiting.is_empty() {
            continue;
        }
        let answer = match state.failure() {
            Some(e) => Err(e),
            None => {
                state.syncs.fetch_add(1, Ordering::Relaxed);
                sink.sync().await.map_err(Error::from)
            }
        };
        if let Err(e) = &answer {
            state.fail(e);
        }
        for reply in waiting.drain(..) {
            let _ = reply.send(match &answer {
                Ok(()) => Ok(()),
                Err(e) => Err(Error::new(e.code(), e.message().to_owned())),
            });
        }
    }
}
