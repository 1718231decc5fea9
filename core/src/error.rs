//! Typed errors with stable codes.
//!
//! Every user-visible failure in hwf carries an [`ErrorCode`]: the CLI prints
//! it at the start of its one-line error, the facade returns it as
//! `error.code`, and run snapshots store it. Codes are part of the contract:
//! rename one only on purpose (the `codes_are_stable` test lists them all).

use std::fmt;

/// A stable, machine-readable error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// Bad usage: a malformed flag value, malformed `--args`, a bad request.
    InvalidArgs,
    /// A script name or run id is not a single safe path segment.
    InvalidName,
    /// A script, version, run or file does not exist.
    NotFound,
    /// A script version already exists and `replace` was not given.
    AlreadyExists,
    /// The bytes are not a valid WebAssembly component (random, truncated).
    InvalidComponent,
    /// The bytes are a core WebAssembly module, not a component.
    NotAComponent,
    /// The component is larger than the configured maximum.
    ComponentTooLarge,
    /// The component imports something outside the allow-list.
    ForbiddenImport,
    /// The component does not export the `harness` world's functions.
    MissingExport,
    /// The guest used more CPU time than allowed.
    CpuLimit,
    /// The guest tried to grow its memory past the limit.
    MemoryLimit,
    /// The guest overflowed its stack (e.g. unbounded recursion).
    StackOverflow,
    /// The run took longer than its wall-clock limit.
    Timeout,
    /// The run made more host calls than allowed.
    LimitCalls,
    /// The run made more agent calls than allowed.
    LimitAgent,
    /// The guest wrote more to stdout/stderr than allowed.
    OutputLimit,
    /// The guest's result is larger than allowed.
    ResultTooLarge,
    /// The guest trapped (unreachable, out-of-bounds access, panic, …).
    GuestTrap,
    /// The guest called `exit` with a non-zero code.
    GuestExit,
    /// The harness returned an error from `run`.
    HarnessError,
    /// The run was stopped by an operator.
    Stopped,
    /// An agent call failed.
    AgentFailed,
    /// The agent fixture file is malformed.
    InvalidFixture,
    /// The configuration file is malformed.
    InvalidConfig,
    /// A stored file is unreadable or malformed.
    CorruptStore,
    /// An I/O error in the state directory.
    Io,
    /// A resume whose component or args differ from the source run.
    ResumeMismatch,
    /// The run parked on a wait (not a failure: exit code 3).
    Waiting,
    /// A facade request with an unknown or mistyped parameter.
    InvalidParams,
    /// A script language this build cannot run.
    UnsupportedLanguage,
    /// A script (JS, JSON workflow) has errors (`hwf validate` lists them).
    InvalidScript,
    /// A run made a live agent call and no agent backend is configured.
    NoAgentBackend,
    /// The run's journal grew past its byte limit (`limits.max_journal_bytes`).
    JournalLimit,
    /// The run's executor died again and again (a host crash loop, e.g. the
    /// machine ran out of memory): the run is quarantined as failed.
    CrashLoop,
    /// A store refused a write made on stale knowledge: a journal append
    /// at a seq someone else already wrote, or a write under a claim of the
    /// run that was released or taken over.
    Conflict,
    /// A decision the caller may not make: the model (through the
    /// facade's `workflow_control`) deciding an approval gate the policy
    /// keeps for a person (`[policy] agent_may_approve`).
    DecisionNotAllowed,
    /// A script's call that its cassette cannot answer (`hwf test`): the
    /// request changed since the run was recorded, or the call is new.
    CassetteDrift,
    /// A cassette file that cannot be used: not JSON, not a cassette,
    /// another format, or damaged or edited (a digest does not match).
    InvalidCassette,
    /// A cassette recorded from another workflow than the script tested.
    CassetteMismatch,
    /// A fork's edit that does not fit the call it names: a decision on a
    /// call that is not an approval gate (an agent call, an ungated
    /// capability), an answer on a call that is not a `human.ask`.
    ForkMismatch,
    /// A run needs a capability (name and side-effect class) this host does
    /// not offer: it is left as it is (queued, parked or stuck) for a host
    /// that offers it — an embedder that registered the capability.
    NeedsHost,
    /// A bug in hwf (please report it).
    Internal,
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub const ALL: &'static [ErrorCode] = &[
        Self::InvalidArgs,
        Self::InvalidName,
        Self::NotFound,
        Self::AlreadyExists,
        Self::InvalidComponent,
        Self::NotAComponent,
        Self::ComponentTooLarge,
        Self::ForbiddenImport,
        Self::MissingExport,
        Self::CpuLimit,
        Self::MemoryLimit,
        Self::StackOverflow,
        Self::Timeout,
        Self::LimitCalls,
        Self::LimitAgent,
        Self::OutputLimit,
        Self::ResultTooLarge,
        Self::GuestTrap,
        Self::GuestExit,
        Self::HarnessError,
        Self::Stopped,
        Self::AgentFailed,
        Self::InvalidFixture,
        Self::InvalidConfig,
        Self::CorruptStore,
        Self::Io,
        Self::ResumeMismatch,
        Self::Waiting,
        Self::InvalidParams,
        Self::UnsupportedLanguage,
        Self::InvalidScript,
        Self::NoAgentBackend,
        Self::JournalLimit,
        Self::CrashLoop,
        Self::Conflict,
        Self::DecisionNotAllowed,
        Self::CassetteDrift,
        Self::InvalidCassette,
        Self::CassetteMismatch,
        Self::ForkMismatch,
        Self::NeedsHost,
        Self::Internal,
    ];

    /// The stable snake_case code.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidArgs => "invalid_args",
            Self::InvalidName => "invalid_name",
            Self::NotFound => "not_found",
            Self::AlreadyExists => "already_exists",
            Self::InvalidComponent => "invalid_component",
            Self::NotAComponent => "not_a_component",
            Self::ComponentTooLarge => "component_too_large",
            Self::ForbiddenImport => "forbidden_import",
            Self::MissingExport => "missing_export",
            Self::CpuLimit => "cpu_limit",
            Self::MemoryLimit => "memory_limit",
            Self::StackOverflow => "stack_overflow",
            Self::Timeout => "timeout",
            Self::LimitCalls => "limit_calls",
            Self::LimitAgent => "limit_agent",
            Self::OutputLimit => "output_limit",
            Self::ResultTooLarge => "result_too_large",
            Self::GuestTrap => "guest_trap",
            Self::GuestExit => "guest_exit",
            Self::HarnessError => "harness_error",
            Self::Stopped => "stopped",
            Self::AgentFailed => "agent_failed",
            Self::InvalidFixture => "invalid_fixture",
            Self::InvalidConfig => "invalid_config",
            Self::CorruptStore => "corrupt_store",
            Self::Io => "io",
            Self::ResumeMismatch => "resume_mismatch",
            Self::Waiting => "waiting",
            Self::InvalidParams => "invalid_params",
            Self::UnsupportedLanguage => "unsupported_language",
            Self::InvalidScript => "invalid_script",
            Self::NoAgentBackend => "no_agent_backend",
            Self::JournalLimit => "journal_limit",
            Self::CrashLoop => "crash_loop",
            Self::Conflict => "conflict",
            Self::DecisionNotAllowed => "decision_not_allowed",
            Self::CassetteDrift => "cassette_drift",
            Self::InvalidCassette => "invalid_cassette",
            Self::CassetteMismatch => "cassette_mismatch",
            Self::ForkMismatch => "fork_mismatch",
            Self::NeedsHost => "needs_host",
            Self::Internal => "internal",
        }
    }

    /// Whether this code describes bad input from the caller (CLI exit 2)
    /// rather than a run that failed (exit 1).
    pub fn is_bad_input(self) -> bool {
        matches!(
            self,
            Self::InvalidArgs
                | Self::InvalidName
                | Self::NotFound
                | Self::AlreadyExists
                | Self::InvalidComponent
                | Self::NotAComponent
                | Self::ComponentTooLarge
                | Self::ForbiddenImport
                | Self::MissingExport
                | Self::InvalidFixture
                | Self::InvalidConfig
                | Self::ResumeMismatch
                | Self::InvalidParams
                | Self::UnsupportedLanguage
                | Self::InvalidScript
                | Self::DecisionNotAllowed
                | Self::InvalidCassette
                | Self::CassetteMismatch
                | Self::ForkMismatch
        )
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error type of the `hwf-host` library: a stable [`ErrorCode`] and a
/// one-line message naming the subject (already redacted).
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[error("{code}: {message}")]
pub struct Error {
    code: ErrorCode,
    message: String,
}

impl Error {
    /// An error with a code and message. The message is redacted here, so
    /// no error can carry a credential out.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        let message = crate::redact::redact_text(&message.into()).into_owned();
        Self { code, message }
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The message, without the code.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// An I/O error about `what` (`not_found` when the file is missing).
    pub fn io(what: impl fmt::Display, err: std::io::Error) -> Self {
        let code = if err.kind() == std::io::ErrorKind::NotFound {
            ErrorCode::NotFound
        } else {
            ErrorCode::Io
        };
        Self::new(code, format!("{what}: {err}"))
    }
}

/// `Result` with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_stable() {
        let all: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            all.join(" "),
            "invalid_args invalid_name not_found already_exists invalid_component not_a_component \
             component_too_large forbidden_import missing_export cpu_limit memory_limit stack_overflow \
             timeout limit_calls limit_agent output_limit result_too_large guest_trap guest_exit \
             harness_error stopped agent_failed invalid_fixture invalid_config corrupt_store io resume_mismatch waiting invalid_params unsupported_language invalid_script no_agent_backend journal_limit crash_loop conflict decision_not_allowed cassette_drift invalid_cassette cassette_mismatch fork_mismatch needs_host internal"
        );
        for code in ErrorCode::ALL {
            let json = serde_json::to_string(code).expect("serialize");
            assert_eq!(json, format!("\"{}\"", code.as_str()));
        }
    }
}
