//! Run-level host functions: phases, logging, budget.

use crate::bindings::hermes::workflow::{host, types::LogLevel};

/// Enter a new phase (shown by `hwf status`, journaled).
pub fn phase(title: impl AsRef<str>) {
    host::phase(title.as_ref());
}

/// Severity for [`log`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Very detailed tracing.
    Trace,
    /// Debugging detail.
    Debug,
    /// Normal progress.
    Info,
    /// Unexpected, but the run goes on.
    Warn,
    /// Something failed.
    Error,
}

/// Write a line to the run log (redacted and journaled by the host).
pub fn log(level: Level, message: impl AsRef<str>) {
    let level = match level {
        Level::Trace => LogLevel::Trace,
        Level::Debug => LogLevel::Debug,
        Level::Info => LogLevel::Info,
        Level::Warn => LogLevel::Warn,
        Level::Error => LogLevel::Error,
    };
    host::log(level, message.as_ref());
}

/// Shorthand for `log(Level::Info, message)`.
pub fn info(message: impl AsRef<str>) {
    log(Level::Info, message);
}

/// Shorthand for `log(Level::Warn, message)`.
pub fn warn(message: impl AsRef<str>) {
    log(Level::Warn, message);
}

/// Live budget figures for the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// The token ceiling, if any.
    pub token_total: Option<u64>,
    /// Tokens spent so far.
    pub tokens_spent: u64,
    /// Agent calls still allowed.
    pub agent_calls_left: u32,
    /// Host calls of any kind still allowed.
    pub calls_left: u32,
}

impl Budget {
    /// Tokens left under the ceiling (`None` without a ceiling).
    pub fn tokens_left(&self) -> Option<u64> {
        self.token_total.map(|t| t.saturating_sub(self.tokens_spent))
    }
}

/// Read the live budget.
pub fn budget() -> Budget {
    let b = host::budget();
    Budget {
        token_total: b.token_total,
        tokens_spent: b.tokens_spent,
        agent_calls_left: b.agent_calls_left,
        calls_left: b.calls_left,
    }
}

/// How many tasks the run runs at once (its `max_parallel`, at least 1).
/// The host bounds [`parallel`](crate::parallel) and submitted tasks by it
/// itself; a script runtime reads it to start its own branches in a window
/// this wide.
pub fn max_parallel() -> u32 {
    host::max_parallel()
}
