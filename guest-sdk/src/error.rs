//! The error type every SDK call returns.

use crate::bindings::hermes::workflow::types::CallError;
use std::fmt;

/// What kind of failure an [`Error`] is.
///
/// The first seven mirror the WIT `call-error` cases the host returns; the
/// last two are raised inside the guest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Policy refused the call.
    Denied,
    /// The token or agent budget is spent.
    BudgetExhausted,
    /// The agent's output did not match the schema after all retries.
    SchemaMismatch,
    /// The agent, capability or branch failed.
    Failed,
    /// The call ran past its time limit.
    TimedOut,
    /// The call was cancelled.
    Cancelled,
    /// The call needs an operator's approval.
    ApprovalRequired,
    /// A value could not be converted to or from JSON inside the guest.
    Json,
    /// Raised by harness code (see [`Error::msg`]).
    Harness,
}

impl ErrorKind {
    /// The kind's stable name: the WIT `call-error` case in snake case
    /// (`denied`, `budget_exhausted`, `schema_mismatch`, `failed`,
    /// `timed_out`, `cancelled`, `approval_required`), `invalid_json` or
    /// `harness_error`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Denied => "denied",
            ErrorKind::BudgetExhausted => "budget_exhausted",
            ErrorKind::SchemaMismatch => "schema_mismatch",
            ErrorKind::Failed => "failed",
            ErrorKind::TimedOut => "timed_out",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::ApprovalRequired => "approval_required",
            ErrorKind::Json => "invalid_json",
            ErrorKind::Harness => "harness_error",
        }
    }
}

/// An error from a host call, or one raised by harness code.
///
/// Host errors carry a message that starts with a stable code
/// (`unknown_capability: …`); [`Error::code`] returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An error raised by harness code; the run fails with this message.
    pub fn msg(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Harness,
            message: message.into(),
        }
    }

    /// An error of a given kind.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The full message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The stable code at the start of the message (the text before the
    /// first `:`), or the kind's name when the message has none.
    pub fn code(&self) -> &str {
        match self.message.split_once(':') {
            Some((code, _))
                if !code.is_empty()
                    && code
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit()) =>
            {
                code
            }
            _ => self.kind_name(),
        }
    }

    fn kind_name(&self) -> &'static str {
        self.kind.as_str()
    }

    pub(crate) fn json(err: serde_json::Error) -> Self {
        Self::new(ErrorKind::Json, format!("invalid_json: {err}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<serde_json::Error> for Error {
    fn from(err: serde_json::Error) -> Self {
        Self::json(err)
    }
}

impl From<CallError> for Error {
    fn from(err: CallError) -> Self {
        let (kind, message) = match err {
            CallError::Denied(m) => (ErrorKind::Denied, m),
            CallError::BudgetExhausted(m) => (ErrorKind::BudgetExhausted, m),
            CallError::SchemaMismatch(m) => (ErrorKind::SchemaMismatch, m),
            CallError::Failed(m) => (ErrorKind::Failed, m),
            CallError::TimedOut(m) => (ErrorKind::TimedOut, m),
            CallError::Cancelled(m) => (ErrorKind::Cancelled, m),
            CallError::ApprovalRequired(m) => (ErrorKind::ApprovalRequired, m),
        };
        Self { kind, message }
    }
}

/// `Result` with the SDK's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
