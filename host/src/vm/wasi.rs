//! The locked-down WASI a harness sees.
//!
//! - no args, no env, no preopens; stdin closed;
//! - stdout and stderr captured in memory (bounded: writing past
//!   `max_output_bytes` traps with `output_limit`) and journaled as log lines
//!   when the instance ends;
//! - wall and monotonic clocks virtual: they start at the run's creation
//!   time and advance 1 ms per reading, so a replay sees the same values;
//! - random and insecure random seeded from the run id.
//!
//! Only `wasi:cli/*`, `wasi:io/*`, `wasi:clocks/*` and `wasi:random/*` are
//! linked at all (see [`super::gate`]).

use super::limits::HostTrap;
use crate::error::ErrorCode;
use bytes::Bytes;
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

/// A wall clock that starts at a fixed time and advances 1 ms per reading.
struct VirtualWallClock {
    now: Mutex<Duration>,
}

impl HostWallClock for VirtualWallClock {
    fn resolution(&self) -> Duration {
        Duration::from_millis(1)
    }
    fn now(&self) -> Duration {
        let mut now = self.now.lock().unwrap_or_else(|p| p.into_inner());
        *now += Duration::from_millis(1);
        *now
    }
}

/// A monotonic clock that starts at zero and advances 1 ms per reading.
struct VirtualMonotonicClock {
    now: Mutex<u64>,
}

impl HostMonotonicClock for VirtualMonotonicClock {
    fn resolution(&self) -> u64 {
        1_000_000
    }
    fn now(&self) -> u64 {
        let mut now = self.now.lock().unwrap_or_else(|p| p.into_inner());
        *now += 1_000_000;
        *now
    }
}

/// Build the WASI context of one instance.
///
/// `seed` is derived from the run id (and the instance's call path), so
/// randomness repeats exactly on replay; `epoch_ms` is the run's creation
/// time.
pub fn locked_down_ctx(seed: [u8; 32], epoch_ms: u64, stdout: Capture, stderr: Capture) -> WasiCtx {
    let mut b = WasiCtxBuilder::new();
    b.stdout(stdout)
        .stderr(stderr)
        .wall_clock(VirtualWallClock {
            now: Mutex::new(Duration::from_millis(epoch_ms)),
        })
        .monotonic_clock(VirtualMonotonicClock { now: Mutex::new(0) })
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
