//! [`Bridge`]: the runtime a shared store's I/O runs on.
//!
//! A database store's connections, lease heartbeats, group committer and
//! journal writers are tasks; they all live on one dedicated runtime
//! (`hwf-store` threads) that nothing else blocks. The host reaches it two
//! ways: async callers await [`Bridge::run`] (the future runs on the
//! bridge, the caller awaits its handle), and the host's synchronous views
//! (status, overview, the runner's disposition) call [`Bridge::block`],
//! which waits for the answer — on a multi-threaded runtime's worker inside
//! `block_in_place`, so the other tasks move on. This is the pattern of
//! `reqwest::blocking`: because the store's tasks never share a runtime
//! with their callers, a caller blocked on a current-thread runtime cannot
//! starve the connection it waits for.

use hwf_core::error::{Error, ErrorCode, Result};
use std::future::Future;

/// A dedicated runtime for a shared store (see the module docs).
#[derive(Debug)]
pub struct Bridge {
    runtime: Option<tokio::runtime::Runtime>,
    handle: tokio::runtime::Handle,
}

impl Bridge {
    /// Start the runtime: two worker threads named `hwf-store`.
    ///
    /// # Errors
    ///
    /// `io` when the threads cannot be started.
    pub fn new() -> Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("hwf-store")
            .enable_all()
            .build()
            .map_err(|e| Error::io("the store's runtime", e))?;
        let handle = runtime.handle().clone();
        Ok(Self {
            runtime: Some(runtime),
            handle,
        })
    }

    /// The bridge runtime's handle (to spawn a store task on it).
    pub fn handle(&self) -> &tokio::runtime::Handle {
        &self.handle
    }

    /// Run `fut` on the bridge and await its answer.
    ///
    /// # Errors
    ///
    /// `internal` when the task panicked or the runtime is shutting down;
    /// otherwise the future's own answer.
    pub async fn run<T, E, F>(&self, fut: F) -> std::result::Result<T, E>
    where
        F: Future<Output = std::result::Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: From<Error> + Send + 'static,
    {
        self.handle.spawn(fut).await.map_err(|e| E::from(join_error(e)))?
    }

    /// Run `fut` on the bridge and wait for its answer from synchronous code.
    ///
    /// # Errors
    ///
    /// As [`Bridge::run`].
    pub fn block<T, E, F>(&self, fut: F) -> std::result::Result<T, E>
    where
        F: Future<Output = std::result::Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: From<Error> + Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.handle.spawn(async move {
            // The receiver waits for this send; it is only gone when the
            // caller itself unwound.
            let _ = tx.send(fut.await);
        });
        let wait = move || {
            rx.recv()
                .map_err(|_| E::from(Error::new(ErrorCode::Internal, "a store task ended without an answer")))
        };
        let on_worker = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        if on_worker {
            tokio::task::block_in_place(wait)?
        } else {
            wait()?
        }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        // Dropping a runtime from inside another one panics; shutting it
        // down in the background never blocks. Leases of claims still held
        // then expire (as for a process that died).
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

fn join_error(e: tokio::task::JoinError) -> Error {
    Error::new(ErrorCode::Internal, format!("a store task failed: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_from_plain_threads_and_from_both_runtime_flavours() {
        let bridge = std::sync::Arc::new(Bridge::new().expect("bridge"));
        assert_eq!(bridge.block(async { Ok::<_, Error>(1) }).expect("plain"), 1);
        let current = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("rt");
        let b = bridge.clone();
        current.block_on(async move {
            assert_eq!(b.block(async { Ok::<_, Error>(2) }).expect("current-thread"), 2);
            assert_eq!(b.run(async { Ok::<_, Error>(3) }).await.expect("run"), 3);
        });
        let multi = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("rt");
        let b = bridge.clone();
        multi.block_on(async move {
            let t = tokio::spawn(async move { b.block(async { Ok::<_, Error>(4) }) });
            assert_eq!(t.await.expect("join").expect("worker"), 4);
        });
        let e = bridge
            .block(async { Err::<(), _>(Error::new(ErrorCode::NotFound, "gone")) })
            .expect_err("passed through");
        assert_eq!(e.code(), ErrorCode::NotFound);
        // Dropped inside a runtime: no panic.
        current.block_on(async move { drop(bridge) });
    }
}
