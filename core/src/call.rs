//! A call's typed failure, as the guest sees it (`call-error`) and the
//! journal records it.

use serde::{Deserialize, Serialize};

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
        let message = crate::redact::redact_text(message.as_ref()).into_owned();
        Self {
            kind,
            message: format!("{code}: {message}"),
        }
    }
}
