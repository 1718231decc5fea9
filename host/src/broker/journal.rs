//! Journal events and the writer that appends them.
//!
//! One JSON object per line: `seq` (1-based, per run), `ts_ms`, `type`, and
//! the event's fields. Completed agent and capability calls are fsync'd
//! before their result is returned to the guest — with *group commit*:
//! completions that arrive while an fsync is in progress share the next
//! one, and the fsync runs off the async workers. `log` and `phase` lines
//! are written at once and made durable by the next fsync.

use crate::error::Result;
use crate::store::{ErrorInfo, JournalFile, ScriptRef};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The kind of a `call-error`, as journaled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallErrorKind {
    /// Policy refused the call.
    Denied,
    /// Budget spent.
    BudgetExhausted,
    /// Output did not match the schema after all retries.
    SchemaMismatch,
    /// The call failed.
    Failed,
    /// The call timed out.
    TimedOut,
    /// The call was cancelled.
    Cancelled,
    /// The call needs an approval.
    ApprovalRequired,
}

/// A call's typed failure: a kind and a message starting with a stable code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallFailure {
    /// Which `call-error` case.
    pub kind: CallErrorKind,
    /// `<code>: <one line>` (redacted).
    pub message: String,
}

impl CallFailure {
    /// A failure of `kind` with `code` and a message (redacted here).
    pub fn new(kind: CallErrorKind, code: &str, message: impl AsRef<str>) -> Self {
        let message = super::redact::redact_text(message.as_ref()).into_owned();
        Self {
            kind,
            message: format!("{code}: {message}"),
        }
    }
}

/// One journal event.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event<'a> {
    /// A run began executing.
    RunStarted {
        /// Run id.
        run_id: &'a str,
        /// Component being run.
        script: &'a ScriptRef,
        /// Arguments (redacted).
        args: &'a Value,
    },
    /// A call was made.
    CallStarted {
        /// Call id (`3`, `3.1.2`).
        call: &'a str,
        /// `agent`, `capability`, `parallel`, `pipeline`, `submit`.
        kind: &'a str,
        /// Label, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        label: Option<&'a str>,
        /// Phase, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        phase: Option<&'a str>,
        /// `b3:` fingerprint of `{kind, request}`.
        fingerprint: &'a str,
        /// The request (redacted).
        request: &'a Value,
    },
    /// One attempt of a call was refused and will be retried.
    CallAttempt {
        /// Call id.
        call: &'a str,
        /// Attempt number (1-based).
        attempt: u32,
        /// Why the attempt was refused.
        error: &'a str,
    },
    /// A call finished.
    CallCompleted {
        /// Call id.
        call: &'a str,
        /// Call kind.
        kind: &'a str,
        /// Label, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        label: Option<&'a str>,
        /// Fingerprint (repeated so a completion line stands alone).
        fingerprint: &'a str,
        /// Whether it produced a result.
        ok: bool,
        /// The result (redacted).
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<&'a Value>,
        /// The typed error.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a CallFailure>,
        /// Tokens spent.
        tokens: u64,
        /// Attempts made.
        attempts: u32,
        /// Duration in µs.
        duration_us: u64,
        /// Answered from the source journal of a resume.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        replayed: bool,
        /// Answered from the run's prompt cache.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        cache_hit: bool,
    },
    /// The guest entered a phase.
    Phase {
        /// Phase title (redacted).
        title: &'a str,
    },
    /// A log line from the guest (`source`: `guest`, `stdout`, `stderr`).
    Log {
        /// The branch or nested workflow call that printed it (none: root).
        #[serde(skip_serializing_if = "Option::is_none")]
        call: Option<&'a str>,
        /// `trace` … `error`.
        level: &'a str,
        /// Where it came from.
        source: &'a str,
        /// The line (redacted, clipped).
        message: &'a str,
    },
    /// A call parked the run.
    WaitStarted {
        /// The call (empty for a pause).
        call: &'a str,
        /// `event`, `human`, `approval`, `timer`, `pause`.
        kind: &'a str,
        /// One line for status.
        summary: &'a str,
        /// When a timer resolves.
        #[serde(skip_serializing_if = "Option::is_none")]
        wake_at_ms: Option<u64>,
    },
    /// A call that had parked the run completed after a continuation.
    WaitResolved {
        /// The call.
        call: &'a str,
    },
    /// `next` handed a completed call to the guest (replay delivers the
    /// same order).
    Delivered {
        /// The call delivered.
        call: &'a str,
    },
    /// The run ended.
    RunCompleted {
        /// Final state.
        state: &'a str,
        /// Result, when small enough to inline.
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<&'a Value>,
        /// Spilled result path.
        #[serde(skip_serializing_if = "Option::is_none")]
        result_path: Option<&'a str>,
        /// The error a failed run ended with.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a ErrorInfo>,
        /// Duration in ms.
        duration_ms: u64,
    },
}

impl Event<'_> {
    /// Whether this event must be on disk before the run goes on.
    pub fn is_durable(&self) -> bool {
        matches!(
            self,
            Event::CallCompleted { .. }
                | Event::RunStarted { .. }
                | Event::RunCompleted { .. }
                | Event::WaitStarted { .. }
        )
    }

    /// Whether the writer fsyncs this event inline (run start and end); call
    /// completions are synced by [`Syncer`] instead.
    fn sync_inline(&self) -> bool {
        matches!(
            self,
            Event::RunStarted { .. } | Event::RunCompleted { .. } | Event::WaitStarted { .. }
        )
    }
}

#[derive(Serialize)]
struct Line<'a, 'e> {
    seq: u64,
    ts_ms: u64,
    #[serde(flatten)]
    event: &'a Event<'e>,
}

/// Appends events to a run's journal, reusing one line buffer.
#[derive(Debug)]
pub struct Journal {
    file: JournalFile,
    seq: u64,
    buf: Vec<u8>,
    written: Arc<AtomicU64>,
}

/// Group commit for a journal: `sync_to(seq)` returns once everything up to
/// `seq` is on disk; concurrent callers share one fsync.
#[derive(Debug)]
pub struct Syncer {
    file: std::fs::File,
    written: Arc<AtomicU64>,
    synced: tokio::sync::Mutex<u64>,
}

impl Syncer {
    /// Make every line up to `seq` durable.
    ///
    /// # Errors
    ///
    /// `io` when the fsync fails.
    pub async fn sync_to(&self, seq: u64) -> Result<()> {
        let mut synced = self.synced.lock().await;
        if *synced >= seq {
            return Ok(());
        }
        let target = self.written.load(Ordering::SeqCst);
        let file = self
            .file
            .try_clone()
            .map_err(|e| crate::error::Error::io("journal sync", e))?;
        let done = tokio::task::spawn_blocking(move || file.sync_data()).await;
        match done {
            Ok(Ok(())) => {
                *synced = target;
                Ok(())
            }
            Ok(Err(e)) => Err(crate::error::Error::io("journal sync", e)),
            Err(e) => Err(crate::error::Error::new(
                crate::error::ErrorCode::Internal,
                format!("journal sync task: {e}"),
            )),
        }
    }
}

impl Journal {
    /// A writer over an open journal file, continuing at `seq`.
    pub fn new(file: JournalFile, seq: u64) -> Self {
        Self {
            file,
            seq,
            buf: Vec::with_capacity(1024),
            written: Arc::new(AtomicU64::new(seq)),
        }
    }

    /// A group-commit syncer for this journal.
    ///
    /// # Errors
    ///
    /// `io` when the file cannot be duplicated.
    pub fn syncer(&self) -> Result<Syncer> {
        Ok(Syncer {
            file: self.file.try_clone_std()?,
            written: self.written.clone(),
            synced: tokio::sync::Mutex::new(self.seq),
        })
    }

    /// Append one event; run start and end are fsync'd here, call
    /// completions by [`Syncer::sync_to`] with the returned seq.
    ///
    /// # Errors
    ///
    /// `io` when the write or fsync fails.
    pub fn append(&mut self, event: &Event<'_>) -> Result<u64> {
        self.seq += 1;
        self.buf.clear();
        let line = Line {
            seq: self.seq,
            ts_ms: crate::store::now_ms(),
            event,
        };
        serde_json::to_writer(&mut self.buf, &line)
            .map_err(|e| crate::error::Error::new(crate::error::ErrorCode::Internal, e.to_string()))?;
        self.buf.push(b'\n');
        self.file.append(&self.buf, event.sync_inline())?;
        self.written.store(self.seq, Ordering::SeqCst);
        Ok(self.seq)
    }

    /// fsync everything appended so far.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn sync(&mut self) -> Result<()> {
        self.file.sync()
    }
}
