//! Per-run resource limits (data and range checks) and [`HostTrap`], the
//! typed trap the host raises to end an instance.

use crate::error::ErrorCode;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Limits for one run. Every limit hit ends the run with a typed error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Guest CPU per instance, in ms, metered as fuel (about one unit per
    /// wasm instruction; host calls and host work excluded; see
    /// `hwf_host::vm::engine::FUEL_PER_CPU_MS`). Hit: `cpu_limit`.
    pub cpu_ms: u64,
    /// Wall-clock time of the whole run, in ms. Hit: `timeout`.
    pub wall_ms: u64,
    /// Linear memory per instance, in bytes. Hit: `memory_limit`.
    pub memory_bytes: u64,
    /// Linear memory of all the run's live instances together (branches
    /// and nested workflows included, plus a fixed host overhead per
    /// instance), in bytes. Hit: `memory_limit`.
    pub run_memory_bytes: u64,
    /// How deep instances may nest (a branch starting branches, a nested
    /// workflow): the root is level 0. Deeper: the call fails
    /// `nesting_too_deep`.
    pub max_depth: u64,
    /// Bytes of one agent or capability request. Larger: the call fails
    /// `request_too_large`.
    pub max_request_bytes: u64,
    /// Bytes the run's journal may hold. Past it: the run fails
    /// `journal_limit`.
    pub max_journal_bytes: u64,
    /// Host calls of any kind (log and phase included). Hit: `limit_calls`.
    pub max_calls: u64,
    /// Agent calls. Hit: the call returns `budget-exhausted`.
    pub max_agent_calls: u64,
    /// Capability calls. Hit: the call returns `budget-exhausted`.
    pub max_capability_calls: u64,
    /// Token ceiling for agent calls (none by default). Once spent, further
    /// agent calls return `budget-exhausted`.
    pub max_tokens: Option<u64>,
    /// Cost ceiling, in millionths of a USD, over what agents report
    /// (`total_cost_usd`; none by default). Once spent, further agent calls
    /// return `budget-exhausted` (`cost_budget`).
    pub max_cost_micro_usd: Option<u64>,
    /// Bytes the guest may write to stdout and stderr together. Hit:
    /// `output_limit`.
    pub max_output_bytes: u64,
    /// Bytes of the final result. Hit: `result_too_large`.
    pub max_result_bytes: u64,
    /// Tasks of one `parallel`/`pipeline`/join set running at once, and
    /// agent/capability calls in flight across the run (1–64).
    pub max_parallel: u64,
    /// Tasks per `parallel` call and items per `pipeline` call.
    pub max_items: u64,
    /// Schema retries per agent call.
    pub max_schema_retries: u32,
    /// Component size accepted at save, validate and run, in bytes.
    pub max_component_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            // The references stop a script after 30 s: the seed's run
            // deadline (`max_runtime_s`, wall time agents included) and
            // Claude Code's limit on a stretch without yielding. hwf's
            // interpreters are several times slower than CPython and Node
            // on compute, so a 5 s default failed scripts both finish
            // (docs/CONFORMANCE.md, "Limits").
            cpu_ms: 30_000,
            wall_ms: 3_600_000,
            memory_bytes: 256 << 20,
            run_memory_bytes: 512 << 20,
            max_depth: 8,
            max_request_bytes: 4 << 20,
            max_journal_bytes: 256 << 20,
            max_calls: 100_000,
            max_agent_calls: 1_000,
            max_capability_calls: 1_000,
            max_tokens: None,
            max_cost_micro_usd: None,
            max_output_bytes: 1 << 20,
            max_result_bytes: 16 << 20,
            max_parallel: 8,
            max_items: 4096,
            // Claude Code's rule: five failed validations before agent() throws.
            max_schema_retries: 4,
            max_component_bytes: 64 << 20,
        }
    }
}

/// The largest `max_parallel` accepted.
pub const MAX_PARALLEL: u64 = 64;

/// The largest linear memory a limit may allow: 4 GiB, what a 32-bit wasm
/// memory (and the pooling allocator's slots) can hold.
pub const MAX_MEMORY_BYTES: u64 = 4 << 30;

/// A number from input outside the range it accepts. Callers turn it into
/// their `invalid_*` error ([`OutOfRange::error`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field} = {value} is out of range: expected {min} to {max}")]
pub struct OutOfRange {
    /// The field or flag, as the user wrote it (`limits.cpu_ms`, `--max-calls`).
    pub field: String,
    /// The value given.
    pub value: u64,
    /// The smallest accepted value.
    pub min: u64,
    /// The largest accepted value.
    pub max: u64,
}

impl OutOfRange {
    /// The library error for this problem, with `code` (`invalid_args`,
    /// `invalid_config`, `invalid_fixture`, `invalid_params`).
    pub fn error(&self, code: ErrorCode) -> crate::Error {
        crate::Error::new(code, self.to_string())
    }
}

/// Check that `value` is within `min..=max`, naming `field` if not.
///
/// # Errors
///
/// [`OutOfRange`] naming the field, the value and the range.
pub fn check_range(field: &str, value: u64, min: u64, max: u64) -> Result<u64, OutOfRange> {
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(OutOfRange {
            field: field.to_owned(),
            value,
            min,
            max,
        })
    }
}

/// The range each [`Limits`] field accepts, as (field, min, max). Wide
/// enough for any real run; the bounds keep every derived figure (durations,
/// byte sizes, attempt counts) far from overflow.
pub const RANGES: &[(&str, u64, u64)] = &[
    ("cpu_ms", 1, 86_400_000),
    ("wall_ms", 1, 31_536_000_000),
    ("memory_bytes", 1 << 20, MAX_MEMORY_BYTES),
    ("run_memory_bytes", 1 << 20, 64 << 30),
    ("max_depth", 1, 64),
    ("max_request_bytes", 1024, 1 << 30),
    ("max_journal_bytes", 1 << 20, 1 << 40),
    ("max_calls", 1, 1_000_000_000_000),
    ("max_agent_calls", 0, 1_000_000_000_000),
    ("max_capability_calls", 0, 1_000_000_000_000),
    ("max_tokens", 0, 1_000_000_000_000_000),
    ("max_cost_micro_usd", 0, 1_000_000_000_000_000),
    ("max_output_bytes", 0, 1 << 30),
    ("max_result_bytes", 1, 1 << 30),
    ("max_parallel", 1, MAX_PARALLEL),
    ("max_items", 1, 1_000_000),
    ("max_schema_retries", 0, 100),
    ("max_component_bytes", 1, 1 << 30),
];

/// The accepted range of a [`Limits`] field (see [`RANGES`]).
pub fn range_of(field: &str) -> Option<(u64, u64)> {
    RANGES.iter().find(|(f, _, _)| *f == field).map(|&(_, lo, hi)| (lo, hi))
}

impl Limits {
    /// Check every field against [`RANGES`]; `prefix` is put before the
    /// field's name in the error (`"limits."` for `hwf.toml`).
    ///
    /// # Errors
    ///
    /// The first field out of its range.
    pub fn validate(&self, prefix: &str) -> Result<(), OutOfRange> {
        let fields: [(&str, Option<u64>); 18] = [
            ("cpu_ms", Some(self.cpu_ms)),
            ("wall_ms", Some(self.wall_ms)),
            ("memory_bytes", Some(self.memory_bytes)),
            ("run_memory_bytes", Some(self.run_memory_bytes)),
            ("max_depth", Some(self.max_depth)),
            ("max_request_bytes", Some(self.max_request_bytes)),
            ("max_journal_bytes", Some(self.max_journal_bytes)),
            ("max_calls", Some(self.max_calls)),
            ("max_agent_calls", Some(self.max_agent_calls)),
            ("max_capability_calls", Some(self.max_capability_calls)),
            ("max_tokens", self.max_tokens),
            ("max_cost_micro_usd", self.max_cost_micro_usd),
            ("max_output_bytes", Some(self.max_output_bytes)),
            ("max_result_bytes", Some(self.max_result_bytes)),
            ("max_parallel", Some(self.max_parallel)),
            ("max_items", Some(self.max_items)),
            ("max_schema_retries", Some(u64::from(self.max_schema_retries))),
            ("max_component_bytes", Some(self.max_component_bytes)),
        ];
        for (field, value) in fields {
            let (Some(value), Some((lo, hi))) = (value, range_of(field)) else {
                continue;
            };
            check_range(&format!("{prefix}{field}"), value, lo, hi)?;
        }
        Ok(())
    }

    /// CPU limit as a duration.
    pub fn cpu(&self) -> Duration {
        Duration::from_millis(self.cpu_ms)
    }
    /// Wall limit as a duration.
    pub fn wall(&self) -> Duration {
        Duration::from_millis(self.wall_ms)
    }
}

/// A trap raised by the host to end an instance, carrying the code the run
/// ends with (`waiting` when it parks). Recovered from the wasmtime error by
/// downcast.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct HostTrap {
    /// Why the instance ends.
    pub code: ErrorCode,
    /// One line naming the limit and its value.
    pub message: String,
}

impl HostTrap {
    /// A trap with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field of [`Limits`] has a range and [`Limits::validate`]
    /// checks it: a field added without one fails here.
    #[test]
    fn every_limit_has_a_checked_range() {
        let defaults = serde_json::to_value(Limits::default()).expect("serialize");
        let fields = defaults.as_object().expect("object");
        Limits::default().validate("limits.").expect("defaults are in range");
        for name in fields.keys() {
            let (lo, hi) = range_of(name).unwrap_or_else(|| panic!("{name} has no entry in RANGES"));
            let mut outside = vec![hi.saturating_add(1)];
            if lo > 0 {
                outside.push(lo - 1);
            }
            for bad in outside {
                let mut v = defaults.clone();
                v[name.as_str()] = serde_json::json!(bad);
                // A value too large for the field's type is refused by serde.
                let Ok(limits) = serde_json::from_value::<Limits>(v) else {
                    continue;
                };
                let err = limits.validate("limits.").expect_err(name);
                assert_eq!(err.field, format!("limits.{name}"), "{err}");
                assert_eq!((err.min, err.max), (lo, hi));
            }
        }
        assert_eq!(fields.len(), RANGES.len(), "RANGES lists a field Limits does not have");
    }
}
