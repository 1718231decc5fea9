//! Per-run resource limits and the memory limiter.

use crate::error::ErrorCode;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Limits for one run. Every limit hit ends the run with a typed error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Guest CPU time (time spent executing guest code, host calls
    /// excluded), in ms. Hit: `cpu_limit`.
    pub cpu_ms: u64,
    /// Wall-clock time of the whole run, in ms. Hit: `timeout`.
    pub wall_ms: u64,
    /// Linear memory per instance, in bytes. Hit: `memory_limit`.
    pub memory_bytes: u64,
    /// Host calls of any kind (log and phase included). Hit: `limit_calls`.
    pub max_calls: u64,
    /// Agent calls. Hit: the call returns `budget-exhausted`.
    pub max_agent_calls: u64,
    /// Capability calls. Hit: the call returns `budget-exhausted`.
    pub max_capability_calls: u64,
    /// Token ceiling for agent calls (none by default). Once spent, further
    /// agent calls return `budget-exhausted`.
    pub max_tokens: Option<u64>,
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
            max_calls: 100_000,
            max_agent_calls: 1_000,
            max_capability_calls: 1_000,
            max_tokens: None,
            max_output_bytes: 1 << 20,
            max_result_bytes: 16 << 20,
            max_parallel: 8,
            max_items: 4096,
            max_schema_retries: 2,
            max_component_bytes: 64 << 20,
        }
    }
}

/// The largest `max_parallel` accepted.
pub const MAX_PARALLEL: u64 = 64;

impl Limits {
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
}

impl MemoryLimiter {
    /// A limiter for `max_bytes` of linear memory per memory.
    pub fn new(max_bytes: u64) -> Self {
        Self {
            max_bytes: usize::try_from(max_bytes).unwrap_or(usize::MAX),
            max_table_elements: 1_000_000,
        }
    }
}

impl wasmtime::ResourceLimiter for MemoryLimiter {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
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
