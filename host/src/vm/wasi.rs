//! The locked-down WASI a harness sees.
//!
//! - no args, no env, no preopens; stdin closed;
//! - stdout and stderr captured in memory (bounded: writing past
//!   `max_output_bytes` traps with `output_limit`) and journaled as log lines
//!   when the instance ends;
//! - wall and monotonic clocks virtual: they start at the run's clock
//!   origin and advance 1 ms per reading, and sleeps advance them instead of
//!   blocking, so a replay sees the same values and no guest waits in a
//!   system call;
//! - random and insecure random seeded from the run id.
//!
//! Only `wasi:cli/*`, `wasi:io/*`, `wasi:clocks/*` and `wasi:random/*` are
//! linked at all (see [`super::gate`]).

use super::limits::HostTrap;
use bytes::Bytes;
use hwf_core::error::ErrorCode;
use rand::SeedableRng as _;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamError, StreamResult};
use wasmtime_wasi::{HostMonotonicClock, HostWallClock, WasiCtx, WasiCtxBuilder};

/// Captured guest output, shared by the stdout and stderr streams.
#[derive(Debug, Default)]
pub struct Captured {
    /// Bytes written to stdout (up to the limit).
    pub stdout: Vec<u8>,
    /// Bytes written to stderr (up to the limit).
    pub stderr: Vec<u8>,
    limit: u64,
}

/// A handle on one captured stream.
#[derive(Debug, Clone)]
pub struct Capture {
    shared: Arc<Mutex<Captured>>,
    is_stderr: bool,
}

impl Capture {
    /// A pair of (stdout, stderr) capture handles sharing one byte budget.
    pub fn pair(limit: u64) -> (Capture, Capture) {
        let shared = Arc::new(Mutex::new(Captured {
            limit,
            ..Captured::default()
        }));
        (
            Capture {
                shared: shared.clone(),
                is_stderr: false,
            },
            Capture {
                shared,
                is_stderr: true,
            },
        )
    }

    /// Take what was captured so far: (stdout, stderr).
    pub fn take(&self) -> (Vec<u8>, Vec<u8>) {
        let mut c = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        (std::mem::take(&mut c.stdout), std::mem::take(&mut c.stderr))
    }

    /// A copy of what stderr captured so far.
    pub fn stderr_copy(&self) -> Vec<u8> {
        self.shared.lock().unwrap_or_else(|p| p.into_inner()).stderr.clone()
    }

    fn write_bytes(&self, bytes: &[u8]) -> Result<(), HostTrap> {
        let mut c = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        let used = (c.stdout.len() + c.stderr.len()) as u64;
        if used + bytes.len() as u64 > c.limit {
            return Err(HostTrap::new(
                ErrorCode::OutputLimit,
                format!("the guest wrote more than {} bytes to stdout/stderr", c.limit),
            ));
        }
        if self.is_stderr {
            c.stderr.extend_from_slice(bytes);
        } else {
            c.stdout.extend_from_slice(bytes);
        }
        Ok(())
    }
}

impl IsTerminal for Capture {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for Capture {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }
    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for Capture {
    async fn ready(&mut self) {}
}

impl OutputStream for Capture {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.write_bytes(&bytes)
            .map_err(|t| StreamError::Trap(wasmtime::Error::new(t)))
    }
    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }
    fn check_write(&mut self) -> StreamResult<usize> {
        // Always accept a write; `write` enforces the limit with a typed trap.
        Ok(64 * 1024)
    }
}

impl tokio::io::AsyncWrite for Capture {
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Poll::Ready(self.write_bytes(buf).map(|()| buf.len()).map_err(std::io::Error::other))
    }
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The virtual time of one instance, shared by its wall and monotonic
/// clocks: every reading advances it 1 ms, and a sleep (a `subscribe` on
/// the monotonic clock) advances it by the sleep's length and returns at
/// once — so a guest never blocks in a system call and replays see the
/// same times. Sleeping is charged to the instance's CPU limit: more sleep
/// than `cpu_ms` in all traps `cpu_limit`.
#[derive(Debug)]
pub struct VirtualTime {
    /// Wall-clock origin (the run's clock origin).
    epoch: Duration,
    /// Nanoseconds elapsed since the origin.
    elapsed_ns: Mutex<u64>,
    /// Nanoseconds slept so far, and how much sleep the instance may do:
    /// sleeping is charged to the CPU limit (waiting belongs in the
    /// durable `timer.sleep` capability, which parks the run).
    slept_ns: Mutex<u64>,
    sleep_budget_ns: u64,
    cpu_ms: u64,
}

impl VirtualTime {
    /// Time that starts at `epoch_ms` (ms since the Unix epoch), for an
    /// instance whose CPU limit is `cpu_ms`.
    pub fn new(epoch_ms: u64, cpu_ms: u64) -> Arc<Self> {
        Arc::new(Self {
            epoch: Duration::from_millis(epoch_ms),
            elapsed_ns: Mutex::new(0),
            slept_ns: Mutex::new(0),
            sleep_budget_ns: cpu_ms.saturating_mul(1_000_000),
            cpu_ms,
        })
    }

    /// Charge a sleep of `ns` to the instance's CPU limit.
    fn charge_sleep(&self, ns: u64) -> Result<(), HostTrap> {
        let mut slept = self.slept_ns.lock().unwrap_or_else(|p| p.into_inner());
        *slept = slept.saturating_add(ns);
        if *slept > self.sleep_budget_ns {
            return Err(HostTrap::new(
                ErrorCode::CpuLimit,
                format!(
                    "the guest slept {} ms in all, more than its CPU limit of {} ms; wait with the timer.sleep capability (it parks the run durably)",
                    *slept / 1_000_000,
                    self.cpu_ms
                ),
            ));
        }
        Ok(())
    }

    /// Advance by `ns` and return the new elapsed time.
    fn advance(&self, ns: u64) -> u64 {
        let mut e = self.elapsed_ns.lock().unwrap_or_else(|p| p.into_inner());
        *e = e.saturating_add(ns);
        *e
    }

    /// A reading: advances 1 ms.
    fn read(&self) -> u64 {
        self.advance(1_000_000)
    }
}

/// The wall clock over [`VirtualTime`].
struct VirtualWallClock(Arc<VirtualTime>);

impl HostWallClock for VirtualWallClock {
    fn resolution(&self) -> Duration {
        Duration::from_millis(1)
    }
    fn now(&self) -> Duration {
        self.0.epoch.saturating_add(Duration::from_nanos(self.0.read()))
    }
}

/// The monotonic clock over [`VirtualTime`] (starts at zero).
struct VirtualMonotonicClock(Arc<VirtualTime>);

impl HostMonotonicClock for VirtualMonotonicClock {
    fn resolution(&self) -> u64 {
        1_000_000
    }
    fn now(&self) -> u64 {
        self.0.read()
    }
}

/// The linker's handle on the instance's virtual monotonic clock (which
/// replaces `wasi:clocks/monotonic-clock`).
pub struct VirtualClock;

impl wasmtime::component::HasData for VirtualClock {
    type Data<'a> = VirtualClockView<'a>;
}

/// What the virtual `monotonic-clock` functions see.
pub struct VirtualClockView<'a> {
    /// The instance's time.
    pub time: &'a Arc<VirtualTime>,
    /// The instance's resource table (for pollables).
    pub table: &'a mut wasmtime::component::ResourceTable,
}

/// A pollable that is ready at once (after one yield to the scheduler, so
/// a polling loop cannot starve other tasks).
struct ReadyNow {
    yielded: bool,
}

#[wasmtime_wasi::async_trait]
impl Pollable for ReadyNow {
    async fn ready(&mut self) {
        if !self.yielded {
            self.yielded = true;
            tokio::task::yield_now().await;
        }
    }
}

impl VirtualClockView<'_> {
    fn sleep(&mut self, ns: u64) -> wasmtime::Result<wasmtime::component::Resource<wasmtime_wasi::p2::DynPollable>> {
        self.time.charge_sleep(ns).map_err(wasmtime::Error::new)?;
        self.time.advance(ns);
        let ready = self.table.push(ReadyNow { yielded: false })?;
        wasmtime_wasi_io::poll::subscribe(self.table, ready)
    }
}

impl wasmtime_wasi::p2::bindings::clocks::monotonic_clock::Host for VirtualClockView<'_> {
    fn now(&mut self) -> wasmtime::Result<u64> {
        Ok(self.time.read())
    }

    fn resolution(&mut self) -> wasmtime::Result<u64> {
        Ok(1_000_000)
    }

    fn subscribe_instant(
        &mut self,
        when: u64,
    ) -> wasmtime::Result<wasmtime::component::Resource<wasmtime_wasi::p2::DynPollable>> {
        let now = *self.time.elapsed_ns.lock().unwrap_or_else(|p| p.into_inner());
        self.sleep(when.saturating_sub(now))
    }

    fn subscribe_duration(
        &mut self,
        duration: u64,
    ) -> wasmtime::Result<wasmtime::component::Resource<wasmtime_wasi::p2::DynPollable>> {
        self.sleep(duration)
    }
}

/// Build the WASI context of one instance.
///
/// `seed` is derived from the run id (and the instance's call path), so
/// randomness repeats exactly on replay; `time` is the instance's virtual
/// time (starting at the run's clock origin).
pub fn locked_down_ctx(seed: [u8; 32], time: &Arc<VirtualTime>, stdout: Capture, stderr: Capture) -> WasiCtx {
    let mut b = WasiCtxBuilder::new();
    b.stdout(stdout)
        .stderr(stderr)
        .wall_clock(VirtualWallClock(time.clone()))
        .monotonic_clock(VirtualMonotonicClock(time.clone()))
        .secure_random(rand::rngs::StdRng::from_seed(seed))
        .insecure_random(rand::rngs::StdRng::from_seed(blake3::derive_key(
            "hwf insecure random",
            &seed,
        )))
        .insecure_random_seed(u128::from_le_bytes(seed[..16].try_into().unwrap_or_default()))
        .allow_blocking_current_thread(false)
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false);
    b.build()
}
