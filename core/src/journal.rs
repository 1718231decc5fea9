//! The journal format: one JSON object per line with `seq` (1-based, per
//! run), `ts_ms`, `type` and the event's fields.
//!
//! [`Event`] is the borrowed form the broker writes (no copies on the hot
//! path); [`JournalEntry`] with [`Entry`] is the owned form every reader
//! (replay, status, the runner, the console, a second store) parses. A test
//! pins that every written event reads back.

use crate::call::CallFailure;
use crate::model::{Counts, ErrorInfo, ScriptRef, TokenUsage};
use crate::payload::PayloadRef;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// When a call's completion must be on disk relative to the guest seeing
/// it. What each mode can lose:
///
/// | mode | the guest sees a result | process crash (kill -9) | power loss |
/// |---|---|---|---|
/// | `sync` (default) | after its fsync | nothing completed is lost | nothing completed is lost |
/// | `group` | after a shared fsync (≤ 1.5 ms window) | nothing | nothing |
/// | `async` | at once (fsync in the background) | nothing: the line is in the kernel | the unflushed tail: those calls run again (at-least-once) |
///
/// In every mode a run's start and end, waits, and the completions of
/// capabilities that are not read-only (external writes are not replay-safe)
/// are flushed before anything goes on, so a run reported finished, parked
/// or effectful is never lost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Durability {
    /// Each completion is flushed before the guest sees it; completions
    /// that arrive during a flush share the next one.
    #[default]
    Sync,
    /// As `sync`, but a flush first waits a bounded window
    /// ([`GROUP_WINDOW`]) for more completions to share it.
    Group,
    /// Completions are flushed in the background, [`GROUP_WINDOW`] after
    /// the first one not yet flushed (the ones in between share the
    /// flush); the guest goes on at once.
    Async,
}

/// How long a `group` flush waits for more completions to share it.
pub const GROUP_WINDOW: std::time::Duration = std::time::Duration::from_micros(1500);

impl Durability {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sync => "sync",
            Self::Group => "group",
            Self::Async => "async",
        }
    }

    /// Parse `sync`, `group` or `async`.
    ///
    /// # Errors
    ///
    /// `invalid_args` naming the accepted values.
    pub fn parse(s: &str) -> crate::error::Result<Self> {
        match s {
            "sync" => Ok(Self::Sync),
            "group" => Ok(Self::Group),
            "async" => Ok(Self::Async),
            other => Err(crate::error::Error::new(
                crate::error::ErrorCode::InvalidArgs,
                format!("durability {other:?}: expected sync, group or async"),
            )),
        }
    }
}

/// The most bytes of a rejected agent answer kept in a `call_attempt`
/// line (and shown by `status`, `logs`, the console and the facade): the
/// head of the answer, cut at a character boundary, with `…` when clipped.
pub const MAX_ANSWER_SHOWN: usize = 4096;

/// The journal format this build writes (in `run_started.format`). A
/// journal without the field is format 1. Format 2 (issue 25) may keep a
/// large request or result by content (`request_ref`, `result_ref`:
/// [`crate::payload`]); a format-1 journal reads unchanged.
pub const JOURNAL_FORMAT: u32 = 2;

fn format_v1() -> u32 {
    1
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One journal event.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event<'a> {
    /// A run began executing.
    RunStarted {
        /// The journal format ([`JOURNAL_FORMAT`]).
        format: u32,
        /// Run id.
        run_id: &'a str,
        /// Component being run.
        script: &'a ScriptRef,
        /// Arguments (redacted).
        args: &'a Value,
        /// The run the guest's random seed derives from (the first run of
        /// the resume lineage).
        seed_run: &'a str,
        /// Where the guest's virtual wall clock starts (ms since the epoch;
        /// the lineage's first creation time).
        clock_origin_ms: u64,
        /// The execution shares its process with other runs (a runner
        /// with more than one slot): if the process dies, this run is not
        /// to blame for it, and the death does not count towards its
        /// crash-loop quarantine.
        #[serde(skip_serializing_if = "is_false")]
        shared: bool,
    },
    /// An operator control took effect in this execution and is consumed
    /// (a `retry` re-runs its call once, not on every continuation).
    ControlApplied {
        /// The control's id.
        control: &'a str,
        /// Its action (`retry`).
        action: &'a str,
        /// The call it names.
        call: Option<&'a str>,
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
    /// One attempt of an agent call did not give the call its result: its
    /// answer was refused (and retried), or the agent failed in a way
    /// that left an answer to show (a refusal, a truncated answer).
    CallAttempt {
        /// Call id.
        call: &'a str,
        /// Attempt number (1-based).
        attempt: u32,
        /// Why the attempt was refused.
        error: &'a str,
        /// The stable code (`schema_mismatch`, `agent_refused`, …).
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<&'a str>,
        /// What the agent answered (redacted, clipped to
        /// [`MAX_ANSWER_SHOWN`] bytes).
        #[serde(skip_serializing_if = "Option::is_none")]
        answer: Option<&'a str>,
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
        /// Tokens spent ([`TokenUsage::total`] of `usage` when the
        /// backend reported a split).
        tokens: u64,
        /// The tokens by kind (agent calls whose backend reported it).
        #[serde(skip_serializing_if = "TokenUsage::is_empty")]
        usage: TokenUsage,
        /// What the agent reported it cost, in millionths of a USD.
        #[serde(skip_serializing_if = "is_zero")]
        cost_micro_usd: u64,
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
    /// A recorded call was edited by an operator (`hwf fork`): its result
    /// (replay answers the call with `value`), its input (the call runs
    /// live with `value` as its input) or its decision, from here on (in
    /// this run and in runs resumed from it).
    CallEdited {
        /// The call.
        call: &'a str,
        /// The fingerprint of the recorded request the edit applies to.
        fingerprint: &'a str,
        /// What was replaced: `output` (the call's result), `input` (its
        /// request's input: the call runs live with it) or `decision` (an
        /// approval gate's or a question's decision: the call runs again
        /// through the broker with it).
        field: &'a str,
        /// The new result, input, or decision (`approve` / `deny`), redacted.
        value: &'a Value,
        /// What changed in the request, field by field (an `input` edit:
        /// the recorded and the new request's differing fields, redacted).
        #[serde(skip_serializing_if = "Option::is_none")]
        changes: Option<&'a Value>,
        /// Who made the edit (the operator, as controls record it).
        actor: &'a str,
        /// Why (redacted).
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<&'a str>,
        /// The run whose call was edited.
        source_run: &'a str,
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
    /// A declared resource's finalizer is about to run (durable first: an
    /// execution that finds this record never runs that finalizer again,
    /// on whichever machine it runs).
    FinalizerStarted {
        /// The resource id (`resource.declare`'s).
        resource: &'a str,
    },
    /// A call was charged one use of a grant (durable first: the effect
    /// it grants runs only after this record is stored, and a re-run of
    /// the same call finds it and is not charged again, on whichever
    /// machine the run continues).
    GrantUsed {
        /// The grant's call (`grant.request`'s call id in this run).
        grant: &'a str,
        /// The `grant.act` call charged.
        call: &'a str,
    },
    /// A declared resource's finalizer ran.
    FinalizerFinished {
        /// The resource id.
        resource: &'a str,
        /// `ok` or `failed`.
        state: &'a str,
        /// What went wrong (redacted).
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a str>,
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
        /// The run's counters at its end (so a run whose snapshot was not
        /// saved after this record is finished from it with its counts).
        #[serde(skip_serializing_if = "Option::is_none")]
        counts: Option<&'a Counts>,
    },
}

impl<'a> Event<'a> {
    /// The completion of a call that never finished (dropped, or its run
    /// ended first): not ok, with `error`, nothing spent.
    pub fn unfinished(call: &'a str, kind: &'a str, fingerprint: &'a str, error: &'a CallFailure) -> Self {
        Event::CallCompleted {
            call,
            kind,
            label: None,
            fingerprint,
            ok: false,
            result: None,
            error: Some(error),
            tokens: 0,
            usage: TokenUsage::default(),
            cost_micro_usd: 0,
            attempts: 0,
            duration_us: 0,
            replayed: false,
            cache_hit: false,
        }
    }
}

impl Event<'_> {
    /// Whether this event must be on disk before the run goes on.
    pub fn is_durable(&self) -> bool {
        matches!(
            self,
            Event::CallCompleted { .. }
                | Event::CallEdited { .. }
                | Event::RunStarted { .. }
                | Event::RunCompleted { .. }
                | Event::WaitStarted { .. }
                | Event::FinalizerStarted { .. }
                | Event::GrantUsed { .. }
        )
    }

    /// Whether the writer fsyncs this event inline (run start and end); call
    /// completions are synced by the broker's group-commit syncer instead.
    pub fn sync_inline(&self) -> bool {
        matches!(
            self,
            Event::RunStarted { .. }
                | Event::RunCompleted { .. }
                | Event::CallEdited { .. }
                | Event::WaitStarted { .. }
                | Event::FinalizerStarted { .. }
                | Event::GrantUsed { .. }
        )
    }
}

/// One journal line as read back: its position, time and event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// 1-based position in the run's journal (the append's version).
    pub seq: u64,
    /// When it was written (ms since the epoch).
    pub ts_ms: u64,
    /// What happened.
    #[serde(flatten)]
    pub entry: Entry,
}

impl JournalEntry {
    /// Parse one journal line.
    ///
    /// # Errors
    ///
    /// `corrupt_store` naming the line's problem (not JSON, an unknown
    /// `type`, a missing or mistyped field).
    pub fn parse(line: &[u8]) -> crate::error::Result<Self> {
        serde_json::from_slice(line)
            .map_err(|e| crate::error::Error::new(crate::error::ErrorCode::CorruptStore, format!("journal line: {e}")))
    }

    /// The call this entry is about, if any.
    pub fn call(&self) -> Option<&str> {
        match &self.entry {
            Entry::CallStarted { call, .. }
            | Entry::CallAttempt { call, .. }
            | Entry::CallCompleted { call, .. }
            | Entry::CallEdited { call, .. }
            | Entry::WaitResolved { call }
            | Entry::Delivered { call } => Some(call),
            Entry::WaitStarted { call, .. } => (!call.is_empty()).then_some(call.as_str()),
            Entry::Log { call, .. } | Entry::ControlApplied { call, .. } => call.as_deref(),
            _ => None,
        }
    }
}

impl JournalEntry {
    /// The payloads this entry keeps by content (a large request or
    /// result, [`crate::payload`]).
    pub fn payload_refs(&self) -> impl Iterator<Item = &PayloadRef> {
        let (a, b) = match &self.entry {
            Entry::CallStarted { request_ref, .. } => (request_ref.as_ref(), None),
            Entry::CallCompleted { result_ref, .. } => (None, result_ref.as_ref()),
            _ => (None, None),
        };
        a.into_iter().chain(b)
    }

    /// The call kind of a `call_started` or `call_completed` entry.
    pub fn kind(&self) -> Option<&str> {
        match &self.entry {
            Entry::CallStarted { kind, .. } | Entry::CallCompleted { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// Whether the entry keeps a payload by content (reading it whole
    /// needs [`JournalEntry::resolve`]).
    pub fn has_refs(&self) -> bool {
        self.payload_refs().next().is_some()
    }

    /// Put the payloads kept by content back in place (`request`,
    /// `result`) and drop their refs, so the entry reads as if written
    /// inline. `get` answers chunk ids with their bytes, in order. An
    /// entry without refs is left as it is.
    ///
    /// # Errors
    ///
    /// `corrupt_store` for damaged chunks, `not_found` for missing ones,
    /// whatever `get` returns.
    pub fn resolve(&mut self, get: &mut crate::payload::GetChunks<'_>) -> crate::error::Result<()> {
        match &mut self.entry {
            Entry::CallStarted {
                request, request_ref, ..
            } => {
                if let Some(r) = request_ref.take() {
                    *request = crate::payload::load_value(&r, get)?;
                }
            }
            Entry::CallCompleted { result, result_ref, .. } => {
                if let Some(r) = result_ref.take() {
                    *result = Some(crate::payload::load_value(&r, get)?);
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// A journal line that is complete but cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Parse a whole journal. Only an unterminated last line is a write that
/// did not finish and is skipped; a complete line that does not parse (not
/// JSON, an unknown `type`, a missing field) is corruption and is named.
///
/// # Errors
///
/// The first [`BadLine`].
pub fn parse_journal(text: &str) -> std::result::Result<Vec<JournalEntry>, BadLine> {
    // A long journal is read in two halves at once: a resume reads its
    // source's whole journal before the first call can replay, and JSON
    // parsing is most of that (about 2 µs a line).
    if text.len() >= PARSE_IN_HALVES_BYTES
        && let Some(at) = text[text.len() / 2..].find('\n').map(|i| text.len() / 2 + i + 1)
        && at < text.len()
    {
        let (head, tail) = text.split_at(at);
        let tail_from = head.bytes().filter(|b| *b == b'\n').count();
        let halves = std::thread::scope(|s| {
            let other = std::thread::Builder::new()
                .name("journal-parse".into())
                .spawn_scoped(s, || parse_lines(head, 0))
                .ok()?;
            let tail = parse_lines(tail, tail_from);
            let head = other.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            Some((head, tail))
        });
        // No thread to be had: one after the other.
        if let Some((head, tail)) = halves {
            let mut out = head?;
            out.extend(tail?);
            return Ok(out);
        }
    }
    parse_lines(text, 0)
}

/// From this size a journal is parsed in two halves at once (about 450
/// agent calls; below it a thread costs more than it saves).
const PARSE_IN_HALVES_BYTES: usize = 256 << 10;

/// [`parse_journal`] of `text`, whose first line is line `first + 1`.
fn parse_lines(text: &str, first: usize) -> std::result::Result<Vec<JournalEntry>, BadLine> {
    let mut out = Vec::with_capacity(text.len() / 160);
    let terminated = text.ends_with('\n');
    let mut lines = text.split('\n').enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        if line.trim().is_empty() {
            continue;
        }
        if lines.peek().is_none() && !terminated {
            break; // an unfinished write: whatever it holds never happened
        }
        match serde_json::from_str::<JournalEntry>(line) {
            Ok(e) => out.push(e),
            Err(e) => {
                return Err(BadLine {
                    line: first + i + 1,
                    reason: e.to_string(),
                });
            }
        }
    }
    Ok(out)
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The owned, readable form of [`Event`] (same names and fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Entry {
    /// A run began executing.
    RunStarted {
        /// The journal format (1 when absent).
        #[serde(default = "format_v1")]
        format: u32,
        /// Run id.
        run_id: String,
        /// Component being run.
        script: ScriptRef,
        /// Arguments (redacted).
        args: Value,
        /// The run the guest's random seed derives from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed_run: Option<String>,
        /// Where the guest's virtual wall clock starts.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock_origin_ms: Option<u64>,
        /// The execution shared its process with other runs (absent:
        /// alone, as every execution before runners had slots).
        #[serde(default, skip_serializing_if = "is_false")]
        shared: bool,
    },
    /// An operator control was consumed.
    ControlApplied {
        /// The control's id.
        control: String,
        /// Its action.
        action: String,
        /// The call it names.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<String>,
    },
    /// A call was made.
    CallStarted {
        /// Call id.
        call: String,
        /// Call kind.
        kind: String,
        /// Label.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
        /// Phase.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
        /// Fingerprint of `{kind, request}`.
        fingerprint: String,
        /// The request (redacted); with `request_ref`, only its small
        /// top-level fields (the rest is in the chunks).
        #[serde(default)]
        request: Value,
        /// Where the whole request is kept by content, when it was too
        /// large to inline ([`crate::payload`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_ref: Option<PayloadRef>,
    },
    /// One attempt of an agent call did not give the call its result.
    CallAttempt {
        /// Call id.
        call: String,
        /// Attempt number.
        attempt: u32,
        /// Why.
        error: String,
        /// The stable code (absent in journals before issue 26).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        /// What the agent answered (redacted, clipped).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        answer: Option<String>,
    },
    /// A call finished.
    CallCompleted {
        /// Call id.
        call: String,
        /// Call kind.
        kind: String,
        /// Label.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
        /// Fingerprint.
        fingerprint: String,
        /// Whether it produced a result.
        ok: bool,
        /// The result (redacted); absent with `result_ref`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// Where the result is kept by content, when it was too large to
        /// inline ([`crate::payload`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result_ref: Option<PayloadRef>,
        /// The typed error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<CallFailure>,
        /// Tokens spent.
        #[serde(default)]
        tokens: u64,
        /// The tokens by kind.
        #[serde(default, skip_serializing_if = "TokenUsage::is_empty")]
        usage: TokenUsage,
        /// Reported cost, in millionths of a USD.
        #[serde(default, skip_serializing_if = "is_zero")]
        cost_micro_usd: u64,
        /// Attempts made.
        #[serde(default)]
        attempts: u32,
        /// Duration in µs.
        #[serde(default)]
        duration_us: u64,
        /// Answered from a resume's source journal.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        replayed: bool,
        /// Answered from the prompt cache.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        cache_hit: bool,
    },
    /// A recorded call was edited by an operator (`hwf fork`): its result,
    /// input or decision.
    CallEdited {
        /// The call.
        call: String,
        /// The fingerprint of the recorded request the edit applies to.
        fingerprint: String,
        /// What was replaced: `output`, `input` or `decision`.
        field: String,
        /// The new result, input or decision (redacted).
        value: Value,
        /// What changed in the request, field by field (redacted).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        changes: Option<Value>,
        /// Who made the edit.
        actor: String,
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// The run whose call was edited.
        source_run: String,
    },
    /// The guest entered a phase.
    Phase {
        /// Phase title.
        title: String,
    },
    /// A log line.
    Log {
        /// The branch or nested workflow call that printed it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<String>,
        /// Level.
        level: String,
        /// Source.
        source: String,
        /// The line.
        message: String,
    },
    /// A call parked the run.
    WaitStarted {
        /// The call (empty for a pause).
        call: String,
        /// The wait's kind.
        kind: String,
        /// One line for status.
        summary: String,
        /// When a timer resolves.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wake_at_ms: Option<u64>,
    },
    /// A declared resource's finalizer was about to run.
    FinalizerStarted {
        /// The resource id.
        resource: String,
    },
    /// A call was charged one use of a grant.
    GrantUsed {
        /// The grant's call.
        grant: String,
        /// The call charged.
        call: String,
    },
    /// A declared resource's finalizer ran.
    FinalizerFinished {
        /// The resource id.
        resource: String,
        /// `ok` or `failed`.
        state: String,
        /// What went wrong.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A parked call completed after a continuation.
    WaitResolved {
        /// The call.
        call: String,
    },
    /// `next` handed a completed call to the guest.
    Delivered {
        /// The call.
        call: String,
    },
    /// The run ended.
    RunCompleted {
        /// Final state.
        state: String,
        /// Inline result.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// Spilled result path.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result_path: Option<String>,
        /// The error a failed run ended with.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ErrorInfo>,
        /// Duration in ms.
        #[serde(default)]
        duration_ms: u64,
        /// The run's counters at its end (absent in older journals).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        counts: Option<Counts>,
    },
}

/// Test support: journal entries from short JSON sketches.
#[doc(hidden)]
pub mod sketch {
    use super::JournalEntry;
    use serde_json::{Value, json};

    /// Entries from sketches such as `{"type": "call_started", "call": "1"}`:
    /// `seq` (1, 2, …), `ts_ms` and every required field a sketch leaves
    /// out are filled with neutral values.
    ///
    /// # Panics
    ///
    /// On a sketch that is not an object or not a known entry type (it is
    /// for tests).
    #[expect(clippy::expect_used, reason = "test support: a bad sketch is a bug in the test")]
    pub fn entries(sketches: Vec<Value>) -> Vec<JournalEntry> {
        sketches
            .into_iter()
            .enumerate()
            .map(|(i, mut v)| {
                let o = v.as_object_mut().expect("a sketch is an object");
                o.insert("seq".into(), json!(i + 1));
                o.entry("ts_ms").or_insert(json!(1000 + i));
                let defaults: &[(&str, Value)] = match o.get("type").and_then(Value::as_str) {
                    Some("run_started") => &[
                        ("run_id", json!("r1")),
                        ("script", json!({"digest": "b3:0", "language": "wasm"})),
                        ("args", json!({})),
                    ],
                    Some("call_started") => &[
                        ("call", json!("1")),
                        ("kind", json!("capability")),
                        ("fingerprint", json!("")),
                        ("request", json!({})),
                    ],
                    Some("call_completed") => &[
                        ("call", json!("1")),
                        ("kind", json!("capability")),
                        ("fingerprint", json!("")),
                        ("ok", json!(false)),
                    ],
                    Some("control_applied") => &[("control", json!("c1")), ("action", json!("retry"))],
                    Some("wait_started") => &[("call", json!("")), ("kind", json!("pause")), ("summary", json!(""))],
                    Some("log") => &[
                        ("level", json!("info")),
                        ("source", json!("guest")),
                        ("message", json!("")),
                    ],
                    Some("run_completed") => &[("state", json!("succeeded"))],
                    _ => &[],
                };
                for (k, d) in defaults {
                    o.entry(*k).or_insert_with(|| d.clone());
                }
                serde_json::from_value(v).expect("a valid journal entry")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::CallErrorKind;
    use serde_json::json;

    #[derive(Serialize)]
    struct Line<'a, 'e> {
        seq: u64,
        ts_ms: u64,
        #[serde(flatten)]
        event: &'a Event<'e>,
    }

    /// Every event the writer can produce reads back as the same entry.
    #[test]
    fn every_written_event_reads_back() {
        let script = ScriptRef {
            name: Some("hello".into()),
            version: Some(2),
            path: None,
            digest: "b3:00".into(),
            language: "js".into(),
        };
        let args = json!({"name": "world"});
        let result = json!({"ok": true});
        let failure = CallFailure::new(CallErrorKind::Denied, "denied", "no");
        let error = ErrorInfo {
            code: crate::error::ErrorCode::CpuLimit,
            message: "cpu".into(),
        };
        let events = [
            Event::RunStarted {
                format: JOURNAL_FORMAT,
                run_id: "r1",
                script: &script,
                args: &args,
                seed_run: "r0",
                clock_origin_ms: 7,
                shared: true,
            },
            Event::ControlApplied {
                control: "c1",
                action: "retry",
                call: Some("3"),
            },
            Event::CallStarted {
                call: "3.1",
                kind: "agent",
                label: Some("l"),
                phase: None,
                fingerprint: "b3:ff",
                request: &args,
            },
            Event::CallAttempt {
                call: "3.1",
                attempt: 2,
                error: "schema",
                code: Some("schema_mismatch"),
                answer: Some("not json"),
            },
            Event::CallCompleted {
                call: "3.1",
                kind: "agent",
                label: None,
                fingerprint: "b3:ff",
                ok: false,
                result: Some(&result),
                error: Some(&failure),
                tokens: 12,
                usage: TokenUsage {
                    input: 2,
                    cache_read: 6,
                    output: 4,
                    ..TokenUsage::default()
                },
                cost_micro_usd: 5,
                attempts: 2,
                duration_us: 99,
                replayed: true,
                cache_hit: false,
            },
            Event::CallEdited {
                call: "3.1",
                fingerprint: "b3:ff",
                field: "output",
                value: &result,
                changes: None,
                actor: "cli",
                reason: Some("fix"),
                source_run: "r0",
            },
            Event::Phase { title: "Build" },
            Event::Log {
                call: Some("4"),
                level: "info",
                source: "guest",
                message: "hi",
            },
            Event::WaitStarted {
                call: "",
                kind: "pause",
                summary: "paused",
                wake_at_ms: None,
            },
            Event::WaitResolved { call: "5" },
            Event::Delivered { call: "6" },
            Event::FinalizerStarted { resource: "res-1" },
            Event::GrantUsed {
                grant: "2",
                call: "4.1",
            },
            Event::FinalizerFinished {
                resource: "res-1",
                state: "failed",
                error: Some("gone"),
            },
            Event::FinalizerFinished {
                resource: "res-2",
                state: "ok",
                error: None,
            },
            Event::RunCompleted {
                state: "failed",
                result: None,
                result_path: Some("runs/r1/result.json"),
                error: Some(&error),
                duration_ms: 3,
                counts: Some(&Counts {
                    agent_calls: 2,
                    tokens: 9,
                    ..Counts::default()
                }),
            },
        ];
        for (i, event) in events.iter().enumerate() {
            let line = serde_json::to_vec(&Line {
                seq: i as u64 + 1,
                ts_ms: 10,
                event,
            })
            .expect("write");
            let read = JournalEntry::parse(&line).expect("read back");
            assert_eq!(read.seq, i as u64 + 1);
            // Writing the read entry gives the same JSON object back.
            let again = serde_json::to_value(&read).expect("re-serialise");
            let original: Value = serde_json::from_slice(&line).expect("json");
            assert_eq!(again, original);
        }
    }

    #[test]
    fn old_run_started_without_format_is_format_1() {
        let line = br#"{"seq":1,"ts_ms":1,"type":"run_started","run_id":"r","script":{"digest":"d","language":"wasm"},"args":{}}"#;
        let e = JournalEntry::parse(line).expect("parse");
        assert!(matches!(e.entry, Entry::RunStarted { format: 1, .. }));
    }

    #[test]
    fn unknown_or_damaged_lines_are_corrupt_store() {
        for line in [
            &br#"{"seq":1,"ts_ms":1,"type":"teleported"}"#[..],
            b"{not json",
            br#"{"seq":1,"type":"phase"}"#,
        ] {
            let e = JournalEntry::parse(line).expect_err("refused");
            assert_eq!(e.code(), crate::error::ErrorCode::CorruptStore, "{e}");
        }
    }

    /// A journal of `n` delivered lines (seq 1..=n), each line 60-odd bytes.
    fn long_journal(n: u64) -> String {
        (1..=n)
            .map(|i| format!("{{\"seq\":{i},\"ts_ms\":5,\"type\":\"delivered\",\"call\":\"{i}\"}}\n"))
            .collect()
    }

    #[test]
    fn a_long_journal_read_in_halves_is_read_whole_and_in_order() {
        let text = long_journal(9000);
        assert!(text.len() >= PARSE_IN_HALVES_BYTES, "{} bytes", text.len());
        let entries = parse_journal(&text).expect("parse");
        assert_eq!(entries.len(), 9000);
        assert!(
            entries
                .iter()
                .zip(1..)
                .all(|(e, i)| e.seq == i && e.call() == Some(&*i.to_string()))
        );
        // An unfinished last write is skipped, as in a short one.
        let cut = format!("{text}{{\"seq\":9001,\"ts");
        assert_eq!(parse_journal(&cut).expect("parse").len(), 9000);
    }

    #[test]
    fn a_bad_line_in_either_half_of_a_long_journal_is_named_by_its_number() {
        let text = long_journal(9000);
        for bad in [10, 4500, 4501, 8999] {
            let damaged: String = text
                .lines()
                .enumerate()
                .map(|(i, l)| {
                    if i + 1 == bad {
                        "{not json\n".to_owned()
                    } else {
                        format!("{l}\n")
                    }
                })
                .collect();
            let e = parse_journal(&damaged).expect_err("damaged");
            assert_eq!(e.line, bad, "{e:?}");
        }
        // Two bad lines, one per half: the first is named.
        let damaged: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i == 99 || i == 8000 {
                    "{not json\n".to_owned()
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        assert_eq!(parse_journal(&damaged).expect_err("damaged").line, 100);
    }
}
