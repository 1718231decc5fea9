//! The sandbox's share of the limits: the memory limiter and the run-wide
//! memory budget. The limits themselves are data in [`hwf_core::limits`].

use hwf_core::error::ErrorCode;
pub use hwf_core::limits::*;

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
    /// What this instance holds of the process's budget
    /// ([`process_memory`]).
    process_held: u64,
}

/// The memory all live instances of this process may hold together:
/// three quarters of the machine's memory (`MemTotal` of `/proc/meminfo`;
/// unbounded where it cannot be read). A runner executes many runs at
/// once, each within its own `run_memory_bytes`; this keeps their sum
/// within the machine, so the instance that would exhaust it fails with
/// `memory_limit` instead of the kernel killing the process with every run
/// in it.
pub fn process_memory() -> &'static RunMemory {
    static BUDGET: std::sync::OnceLock<std::sync::Arc<RunMemory>> = std::sync::OnceLock::new();
    BUDGET.get_or_init(|| RunMemory::new(machine_memory().map_or(u64::MAX, |total| total / 4 * 3)))
}

/// The machine's memory in bytes, from `/proc/meminfo`.
fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

fn process_limit(used: u64) -> HostTrap {
    HostTrap::new(
        ErrorCode::MemoryLimit,
        format!(
            "this process's live instances (every run it executes) hold {} MiB; the machine allows {} MiB",
            used >> 20,
            process_memory().max >> 20
        ),
    )
}

/// Elements a table may hold: the pooling allocator's per-table size, so a
/// guest meets the same cap whichever way its engine allocates.
pub const MAX_TABLE_ELEMENTS: usize = 20_000;

/// Core instances, tables and linear memories one store may create (a
/// component's core modules each count; the Python runtime, the largest
/// bundled one, has 14 core instances). wasmtime's own default is 10,000.
pub const MAX_STORE_OBJECTS: usize = 128;

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
            max_table_elements: MAX_TABLE_ELEMENTS,
            run: None,
            held: 0,
            process_held: 0,
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
        process_memory().take(INSTANCE_OVERHEAD_BYTES).map_err(process_limit)?;
        self.process_held = INSTANCE_OVERHEAD_BYTES;
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
        process_memory().give_back(self.process_held);
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
        let more = desired.saturating_sub(current) as u64;
        if let Some(run) = &self.run {
            run.take(more)
                .map_err(|used| wasmtime::Error::new(run_limit(run, used)))?;
            self.held += more;
        }
        if let Err(used) = process_memory().take(more) {
            // Not the run's own fault: its budget gets the bytes back.
            if let Some(run) = &self.run {
                run.give_back(more);
                self.held -= more;
            }
            return Err(wasmtime::Error::new(process_limit(used)));
        }
        self.process_held += more;
        Ok(true)
    }

    fn instances(&self) -> usize {
        MAX_STORE_OBJECTS
    }

    fn tables(&self) -> usize {
        MAX_STORE_OBJECTS
    }

    fn memories(&self) -> usize {
        MAX_STORE_OBJECTS
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
    use wasmtime::ResourceLimiter as _;

    #[test]
    fn every_store_gets_the_pools_caps_whichever_engine_it_is_on() {
        let mut limiter = MemoryLimiter::new(64 << 20);
        assert_eq!(limiter.instances(), MAX_STORE_OBJECTS);
        assert_eq!(limiter.tables(), MAX_STORE_OBJECTS);
        assert_eq!(limiter.memories(), MAX_STORE_OBJECTS);
        assert!(limiter.table_growing(0, MAX_TABLE_ELEMENTS, None).expect("at the cap"));
        let over = limiter
            .table_growing(0, MAX_TABLE_ELEMENTS + 1, None)
            .expect_err("a table past the pool's size");
        assert!(
            over.to_string().contains("20000 elements") || format!("{over:?}").contains("20000"),
            "{over:?}"
        );
        assert!(limiter.memory_growing(0, 64 << 20, None).expect("at the limit"));
        assert!(limiter.memory_growing(0, (64 << 20) + 1, None).is_err());
    }
}
