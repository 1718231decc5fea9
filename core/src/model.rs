//! What the store holds: run snapshots, run states, saved-script metadata.

use crate::error::ErrorCode;
use crate::ids::RunId;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The state of a run (DESIGN: "Runs").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// Created, not yet picked up by a runner.
    Queued,
    /// An instance is executing it.
    Running,
    /// Parked on an event, approval, pause or timer; no instance is held.
    Waiting,
    /// Finished with a result.
    Succeeded,
    /// Finished with an error.
    Failed,
    /// Stopped by an operator (terminal).
    Stopped,
    /// Cancelled before it ran (terminal).
    Cancelled,
}

impl RunState {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Waiting => "waiting",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Stopped => "stopped",
            Self::Cancelled => "cancelled",
        }
    }

    /// Whether the run has ended for good.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Succeeded | Self::Failed | Self::Stopped | Self::Cancelled)
    }
}

/// Which component a run executes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScriptRef {
    /// Saved script name, when run by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Saved script version, when run by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// File path, when run from a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `b3:<hex>` of the component bytes.
    pub digest: String,
    /// `wasm` for compiled harnesses.
    pub language: String,
}

/// A typed error as stored in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorInfo {
    /// Stable code.
    pub code: ErrorCode,
    /// One-line message (redacted).
    pub message: String,
}

impl ErrorInfo {
    /// The stored form of an error.
    pub fn of(e: &crate::error::Error) -> Self {
        Self {
            code: e.code(),
            message: e.message().to_owned(),
        }
    }
}

fn zero(n: &u64) -> bool {
    *n == 0
}

/// The tokens one agent call (or a run) processed, by kind. The parts are
/// disjoint: [`TokenUsage::total`] is their sum, and it is what token
/// budgets count, the same way for every backend.
///
/// Backends report usage differently; `agents::answer::usage_of` maps each
/// shape here: Anthropic's `input_tokens` excludes the cache
/// (`cache_creation_input_tokens`, `cache_read_input_tokens` are added),
/// OpenAI's and Codex's `input_tokens` / `prompt_tokens` include the cached
/// part (`cached_input_tokens`, `*_tokens_details.cached_tokens`), which is
/// moved to `cache_read`. Output includes reasoning tokens everywhere;
/// `reasoning` says how many of them were reasoning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Input tokens neither written to nor read from a prompt cache.
    #[serde(default, skip_serializing_if = "zero")]
    pub input: u64,
    /// Input tokens written to a prompt cache.
    #[serde(default, skip_serializing_if = "zero")]
    pub cache_creation: u64,
    /// Input tokens read from a prompt cache.
    #[serde(default, skip_serializing_if = "zero")]
    pub cache_read: u64,
    /// Output tokens (reasoning included).
    #[serde(default, skip_serializing_if = "zero")]
    pub output: u64,
    /// Of `output`, the reasoning tokens (not added again to the total).
    #[serde(default, skip_serializing_if = "zero")]
    pub reasoning: u64,
    /// Tokens reported without a split (a bare total).
    #[serde(default, skip_serializing_if = "zero")]
    pub unsplit: u64,
}

impl TokenUsage {
    /// A bare total, with no split.
    pub fn total_only(tokens: u64) -> Self {
        Self {
            unsplit: tokens,
            ..Self::default()
        }
    }

    /// Every token processed: input, cache writes and reads, output, and
    /// the unsplit rest (saturating).
    pub fn total(&self) -> u64 {
        self.input
            .saturating_add(self.cache_creation)
            .saturating_add(self.cache_read)
            .saturating_add(self.output)
            .saturating_add(self.unsplit)
    }

    /// Nothing reported.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Add another call's usage (saturating).
    pub fn add(&mut self, other: &Self) {
        self.input = self.input.saturating_add(other.input);
        self.cache_creation = self.cache_creation.saturating_add(other.cache_creation);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.output = self.output.saturating_add(other.output);
        self.reasoning = self.reasoning.saturating_add(other.reasoning);
        self.unsplit = self.unsplit.saturating_add(other.unsplit);
    }
}

/// Call counters of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Host calls of every kind.
    pub calls: u64,
    /// Agent calls.
    pub agent_calls: u64,
    /// Capability calls.
    pub capability_calls: u64,
    /// Calls that returned an error.
    pub failed: u64,
    /// Tokens spent by agent calls: every token processed (input, cached
    /// input written and read, output), as [`TokenUsage::total`] counts
    /// them. `--max-tokens` and `budget` count this.
    pub tokens: u64,
    /// The same tokens by kind, for the calls whose backend reported the
    /// split (a journal written before issue 26 has none).
    #[serde(default, skip_serializing_if = "TokenUsage::is_empty")]
    pub usage: TokenUsage,
    /// What agents reported their calls cost, in millionths of a USD.
    #[serde(default)]
    pub cost_micro_usd: u64,
    /// Calls answered from a source journal (resume) instead of running.
    #[serde(default)]
    pub replayed: u64,
    /// Prompt-agent calls answered from the run's cache.
    #[serde(default)]
    pub cache_hits: u64,
}

/// `runs/<id>/run.json`: the run's current snapshot, replaced atomically.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSnapshot {
    /// The run id.
    pub run_id: RunId,
    /// Current state.
    pub state: RunState,
    /// The component being run.
    pub script: ScriptRef,
    /// Run arguments (redacted).
    pub args: Value,
    /// Whether redaction changed the args (then they cannot be reused to
    /// continue the run: the real values were never stored).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub args_redacted: bool,
    /// Creation time, ms since the Unix epoch. Also the start of the
    /// guest's virtual wall clock, so replays see the same clock.
    pub created_at_ms: u64,
    /// When the run last started executing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at_ms: Option<u64>,
    /// When the run ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at_ms: Option<u64>,
    /// The current (last entered) phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// The result, when small enough to keep inline (redacted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// A preview of a large result that was spilled to `result_path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_preview: Option<String>,
    /// Path of the spilled result file, relative to the state dir.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_path: Option<String>,
    /// The error a failed run ended with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// Call counters.
    #[serde(default)]
    pub counts: Counts,
    /// The settings the run was started with (continuations reuse them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<RunSettings>,
    /// The phases the workflow declares (its meta), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declared_phases: Vec<String>,
    /// What a `waiting` run is blocked on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waits: Vec<WaitInfo>,
    /// The run this one resumed from, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<RunId>,
    /// The first run of the resume lineage (idempotency keys and the
    /// guest's random seed use it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_run_id: Option<RunId>,
    /// Where the guest's virtual clock starts, when not `created_at_ms`
    /// (a resumed run keeps its lineage's clock origin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_origin_ms: Option<u64>,
    /// In-flight figures while the run executes (absent once it ended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live: Option<LiveProgress>,
    /// Process id of the process executing the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// The workflow's own name (its `meta.name`), when it declares one:
    /// what lists call a run of a script sent inline (MCP, the plugin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow: Option<String>,
    /// The W3C `traceparent` of the client that started the run (an MCP
    /// request's `_meta`): the run's exported trace continues the client's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_parent: Option<String>,
    /// The capabilities a host must offer to execute or continue the run:
    /// what the registry of the host that created it offered beyond the
    /// stock built-ins (an embedder's own capabilities), by name and
    /// side-effect class. A host lacking one leaves the run as it is
    /// (`needs_host`) for a host that has it; empty (every run of the
    /// stock binary): any host may continue it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<CapabilityNeed>,
}

/// A capability a run needs its host to offer ([`RunSnapshot::needs`]):
/// a host offers it when its registry has the name with the same class.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CapabilityNeed {
    /// The capability's name.
    pub name: String,
    /// Its side-effect class.
    pub class: crate::policy::SideEffect,
}

impl std::fmt::Display for CapabilityNeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.name, self.class.as_str())
    }
}

/// Why a run is left for another host, in one line: the capabilities
/// (name and class) this host lacks.
pub fn needs_host_reason(missing: &[CapabilityNeed]) -> String {
    let names: Vec<String> = missing.iter().map(ToString::to_string).collect();
    format!(
        "needs a host offering {}; this host does not, so the run is left for one that does (the embedder that registered it)",
        names.join(", ")
    )
}

/// Per-run settings, kept so a continuation (runner, resume after a wait)
/// runs under the same policy, limits and agent backend.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    /// Limits and budgets.
    pub limits: crate::limits::Limits,
    /// Capability policy.
    pub policy: crate::policy::Policy,
    /// The fixture file answering agent calls, if one was used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents_fixture: Option<std::path::PathBuf>,
    /// The capabilities' workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<std::path::PathBuf>,
    /// When completions are flushed (`sync`, `group`, `async`).
    #[serde(default)]
    pub durability: crate::journal::Durability,
    /// How `bash` commands are confined (runs recorded before this field
    /// get the default: confined, no network).
    #[serde(default)]
    pub sandbox: crate::policy::CommandSandbox,
}

/// The former name of [`ExternalEvent`].
pub type StoredEvent = ExternalEvent;

/// An external event (`hwf events send`, a webhook) in the store's event
/// log, which `events.wait` and triggers match — not a journal entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExternalEvent {
    /// Store-wide version (1, 2, …).
    pub version: u64,
    /// Event id (idempotency: the same id is stored once).
    pub id: String,
    /// Where it came from (`github`, `ci`, …).
    pub source: String,
    /// What happened (`pull_request.merged`, …).
    #[serde(rename = "type")]
    pub kind: String,
    /// What it is about (`org/repo#42`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// Payload (redacted).
    #[serde(default)]
    pub payload: Value,
    /// When it was recorded.
    pub ts_ms: u64,
    /// The BLAKE3 digest of the body of a webhook whose signature covers
    /// only its body (GitHub's): a delivery replayed under a new delivery
    /// id is the same event, stored once (issue 29).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

/// A wait a parked run is blocked on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitInfo {
    /// The call that waits (empty for a pause).
    pub call: String,
    /// `event`, `human`, `approval`, `timer`, `pause`.
    pub kind: String,
    /// One line for status.
    pub summary: String,
    /// When the wait began.
    pub since_ms: u64,
    /// When a timer resolves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wake_at_ms: Option<u64>,
    /// The predicate or question.
    #[serde(default)]
    pub detail: Value,
}

/// Calls in flight, refreshed while a run executes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveProgress {
    /// Calls running now.
    pub running: u64,
    /// Tasks waiting for width.
    pub queued: u64,
}

impl RunSnapshot {
    /// Where the guest's virtual clock starts for this run.
    pub fn clock_origin(&self) -> u64 {
        self.clock_origin_ms.unwrap_or(self.created_at_ms)
    }

    /// The run the guest's random seed derives from.
    pub fn seed_run(&self) -> &RunId {
        self.root_run_id.as_ref().unwrap_or(&self.run_id)
    }

    /// A fresh snapshot: `run_id` in `state`, running `script` with `args`,
    /// created now, nothing recorded yet.
    pub fn new(run_id: RunId, state: RunState, script: ScriptRef, args: Value, settings: Option<RunSettings>) -> Self {
        Self {
            run_id,
            state,
            script,
            args,
            args_redacted: false,
            created_at_ms: now_ms(),
            started_at_ms: None,
            finished_at_ms: None,
            phase: None,
            result: None,
            result_preview: None,
            result_path: None,
            error: None,
            counts: Counts::default(),
            settings,
            declared_phases: Vec::new(),
            waits: Vec::new(),
            resumed_from: None,
            root_run_id: None,
            clock_origin_ms: None,
            live: None,
            pid: None,
            trace_parent: None,
            workflow: None,
            needs: Vec::new(),
        }
    }
}

/// `scripts/<name>/vNNNNNN.meta.json`: one immutable saved version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScriptMeta {
    /// Script name.
    pub name: String,
    /// Version number (1-based).
    pub version: u32,
    /// `b3:<hex>` of the component bytes.
    pub digest: String,
    /// Size in bytes.
    pub size: u64,
    /// `wasm` for compiled harnesses.
    pub language: String,
    /// When it was saved, ms since the Unix epoch.
    pub saved_at_ms: u64,
    /// What the harness's `meta` export returned.
    pub meta: Value,
    /// The component's imports (all within the allow-list).
    pub imports: Vec<String>,
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
