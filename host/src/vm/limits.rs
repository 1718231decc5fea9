//! Per-run resource limits and the memory limiter.

use crate::error::ErrorCode;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Limits for one run. Every limit hit ends the run with a typed error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Guest CPU per instance, in ms, metered as fuel (about one unit per
    /// wasm instruction; host calls and host work excluded; see
    /// [`crate::vm::engine::FUEL_PER_CPU_MS`]). Hit: `cpu_limit`.
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
            cpu_ms: 5_000,
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

/// Enforces the memory limit: growing past it traps with `memory_limit`
/// (rather than failing the grow, which a Rust guest turns into an abort
/// that would look like any other trap).
#[derive(Debug)]
pub struct MemoryLimiter {
    max_bytes: usize,
    max_table_elements: usize,
    run: Option<std::sync::Arc<RunMemory>>,
    /// What this instance holds of the run's budget.
    held: u64,
}

/// Host memory charged to every live instance of a run besides its linear
/// memory (its stack, tables and host state), so a swarm of tiny instances
/// is bounded too.
pub const INSTANCE_OVERHEAD_BYTES: u64 = 256 << 10;

/// The run-wide memory budget all of a run's live instances draw from.
#[derive(Debug)]
pub struct RunMemory {
    used: std::sync::atomic::AtomicU64,
    max: u64,
    peak: std::sync::atomic::AtomicU64,
    exhausted: std::sync::atomic::AtomicBool,
}

impl RunMemory {
    /// A budget of `max` bytes.
    pub fn new(max: u64) -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self {
            used: std::sync::atomic::AtomicU64::new(0),
            max,
            peak: std::sync::atomic::AtomicU64::new(0),
            exhausted: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Whether the budget was ever exceeded: the run as a whole is over its
    /// memory, so the failure ends the run rather than one branch.
    pub fn exhausted(&self) -> bool {
        self.exhausted.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Bytes held now by live instances.
    pub fn used(&self) -> u64 {
        self.used.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The most ever held at once.
    pub fn peak(&self) -> u64 {
        self.peak.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Take `bytes` if the budget allows.
    fn take(&self, bytes: u64) -> Result<(), u64> {
        use std::sync::atomic::Ordering;
        let mut cur = self.used.load(Ordering::Relaxed);
        loop {
            let next = cur.saturating_add(bytes);
            if next > self.max {
                self.exhausted.store(true, Ordering::SeqCst);
                return Err(cur);
            }
            match self
                .used
                .compare_exchange_weak(cur, next, Ordering::SeqCst, Ordering::Relaxed)
            {
                Ok(_) => {
                    self.peak.fetch_max(next, Ordering::Relaxed);
                    return Ok(());
                }
                Err(now) => cur = now,
            }
        }
    }

    fn give_back(&self, bytes: u64) {
        self.used.fetch_sub(bytes, std::sync::atomic::Ordering::SeqCst);
    }
}

impl MemoryLimiter {
    /// A limiter for `max_bytes` of linear memory per memory.
    pub fn new(max_bytes: u64) -> Self {
        Self {
            max_bytes: usize::try_from(max_bytes).unwrap_or(usize::MAX),
            max_table_elements: 1_000_000,
            run: None,
            held: 0,
        }
    }

    /// Also draw from the run-wide budget (the instance's overhead is
    /// charged at once).
    ///
    /// # Errors
    ///
    /// `memory_limit` when the run's budget cannot hold one more instance.
    pub fn with_run(mut self, run: std::sync::Arc<RunMemory>) -> Result<Self, HostTrap> {
        run.take(INSTANCE_OVERHEAD_BYTES)
            .map_err(|used| run_limit(&run, used))?;
        self.held = INSTANCE_OVERHEAD_BYTES;
        self.run = Some(run);
        Ok(self)
    }
}

fn run_limit(run: &RunMemory, used: u64) -> HostTrap {
    HostTrap::new(
        ErrorCode::MemoryLimit,
        format!(
            "the run's live instances hold {} MiB; the run limit is {} MiB (limits.run_memory_bytes)",
            used >> 20,
            run.max >> 20
        ),
    )
}

impl Drop for MemoryLimiter {
    fn drop(&mut self) {
        if let Some(run) = &self.run {
            run.give_back(self.held);
        }
    }
}

impl wasmtime::ResourceLimiter for MemoryLimiter {
    fn memory_growing(&mut self, current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.max_bytes {
            return Err(wasmtime::Error::new(HostTrap::new(
                ErrorCode::MemoryLimit,
                format!(
                    "the guest asked for {} MiB of memory; the limit is {} MiB",
                    desired >> 20,
                    self.max_bytes >> 20
                ),
            )));
        }
        if let Some(run) = &self.run {
            let more = desired.saturating_sub(current) as u64;
            run.take(more)
                .map_err(|used| wasmtime::Error::new(run_limit(run, used)))?;
            self.held += more;
        }
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.max_table_elements {
            return Err(wasmtime::Error::new(HostTrap::new(
                ErrorCode::MemoryLimit,
                format!(
                    "the guest asked for a table of {desired} elements; the limit is {}",
                    self.max_table_elements
                ),
            )));
        }
        Ok(true)
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
