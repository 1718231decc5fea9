//! Claims as leases with fencing tokens: [`PgClaim`], its heartbeat, and
//! [`PgStore::claim_next`] (scan for work with `FOR UPDATE SKIP LOCKED`).

use crate::runs::no_run;
use crate::{Inner, PgStore, big, db_err, unsigned};
use hwf_core::ids::RunId;
use hwf_core::model::{CapabilityNeed, RunState};
use hwf_core::store::{Claim, Fence, StoreError, StoreResult, async_trait};
use std::sync::Arc;
use std::time::{Duration, Instant};

// A free lease, or one whose holder stopped renewing it, is taken by
// bumping the token. Two claims at once: the second waits on the row lock,
// re-checks the condition against the first's row and finds it held.
const TAKE: &str = "UPDATE hwf_claims
    SET token = token + 1, holder = $2, lease_expires_at = now() + make_interval(secs => $3), claimed_at = now()
    WHERE run_id = $1 AND (holder IS NULL OR lease_expires_at <= now())
    RETURNING token";

// Scan for work: SKIP LOCKED passes over rows another runner is claiming
// right now, so N runners racing take N different runs.
const TAKE_NEXT: &str = "UPDATE hwf_claims c
    SET token = c.token + 1, holder = $1, lease_expires_at = now() + make_interval(secs => $2), claimed_at = now()
    FROM (
        SELECT cl.run_id FROM hwf_claims cl JOIN hwf_runs r ON r.run_id = cl.run_id
        WHERE r.state = ANY($3) AND (cl.holder IS NULL OR cl.lease_expires_at <= now())
          AND NOT EXISTS (
            SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r.snapshot->'needs') = 'array'
                THEN r.snapshot->'needs' ELSE '[]'::jsonb END) n
            WHERE (n->>'name') || ' ' || (n->>'class') <> ALL($4)
          )
        ORDER BY r.created_at_ms, r.run_id
        LIMIT 1
        FOR UPDATE OF cl SKIP LOCKED
    ) pick
    WHERE c.run_id = pick.run_id
    RETURNING c.run_id, c.token";

const RENEW: &str = "UPDATE hwf_claims SET lease_expires_at = now() + make_interval(secs => $4)
    WHERE run_id = $1 AND token = $2 AND holder = $3";

const RELEASE: &str = "UPDATE hwf_claims SET holder = NULL, lease_expires_at = NULL
    WHERE run_id = $1 AND token = $2 AND holder = $3";

/// A claim's fence checked against its row: `Fenced` unless the row still
/// carries the fence's token and is held.
pub(crate) fn check_fence_row(fence: &Fence, token: i64, held: bool) -> StoreResult<()> {
    if held && u64::try_from(token).ok() == Some(fence.token()) {
        Ok(())
    } else {
        fence.release();
        Err(StoreError::Fenced {
            run: fence.run().to_string(),
            token: fence.token(),
        })
    }
}

/// A held lease on one run. The lease is renewed in the background every
/// third of its length; dropping the claim releases it (waiting for the
/// release on a multi-threaded runtime, else finishing it in a task that
/// the store's next `claim` waits for).
pub struct PgClaim {
    fence: Fence,
    inner: Arc<Inner>,
    heartbeat: Option<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for PgClaim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgClaim")
            .field("fence", &self.fence)
            .finish_non_exhaustive()
    }
}

impl PgClaim {
    /// Take the run's lease if it is free or expired.
    pub(crate) async fn take(store: &PgStore, id: &RunId) -> StoreResult<Option<Self>> {
        store.inner.finish_pending().await;
        let sent = Instant::now();
        // Sent again on a fresh connection when the first was lost: if the
        // first had committed, this one finds the lease held (ours, with
        // no claim object) and answers `None`; that lease expires unused.
        let row = store
            .inner
            .rows(
                true,
                TAKE,
                &[&id.as_str(), &store.inner.owner, &store.inner.lease.as_secs_f64()],
            )
            .await
            .map_err(|e| e.store(format!("claim run {id}")))?
            .into_iter()
            .next();
        match row {
            Some(row) => {
                let token = unsigned(row.get(0), "fencing token")?;
                Ok(Some(Self::held(store, id.clone(), token, sent)))
            }
            None => {
                store.run_exists(id.as_str()).await?;
                Ok(None)
            }
        }
    }

    pub(crate) fn held(store: &PgStore, run: RunId, token: u64, sent: Instant) -> Self {
        let fence = Fence::new(run, token);
        let heartbeat = tokio::spawn(heartbeat(store.inner.clone(), fence.clone(), sent));
        Self {
            fence,
            inner: store.inner.clone(),
            heartbeat: Some(heartbeat),
        }
    }

    /// Renew the lease now; whether it is still ours.
    async fn renew(inner: &Inner, fence: &Fence) -> StoreResult<bool> {
        let client = inner.durable().await?;
        let stmt = client
            .prepare_cached(RENEW)
            .await
            .map_err(|e| db_err("renew a lease", e))?;
        let token = big(fence.token(), "fencing token")?;
        let n = client
            .execute(
                &stmt,
                &[&fence.run().as_str(), &token, &inner.owner, &inner.lease.as_secs_f64()],
            )
            .await
            .map_err(|e| db_err(format!("renew the lease of run {}", fence.run()), e))?;
        Ok(n == 1)
    }

    fn stop_heartbeat(&mut self) {
        if let Some(h) = self.heartbeat.take() {
            h.abort();
        }
    }
}

async fn release_row(inner: &Inner, run: &RunId, token: u64) -> StoreResult<()> {
    let client = inner.durable().await?;
    let stmt = client
        .prepare_cached(RELEASE)
        .await
        .map_err(|e| db_err("release a lease", e))?;
    let token = big(token, "fencing token")?;
    client
        .execute(&stmt, &[&run.as_str(), &token, &inner.owner])
        .await
        .map_err(|e| db_err(format!("release the lease of run {run}"), e))?;
    Ok(())
}

/// Renew every third of the lease until the fence is released; a renewal
/// that finds the lease taken over, or no renewal succeeding within a
/// lease, marks the fence lost.
async fn heartbeat(inner: Arc<Inner>, fence: Fence, sent: Instant) {
    let lease = inner.lease;
    let mut valid_until = sent + lease;
    let every = lease / 3;
    loop {
        tokio::time::sleep(every).await;
        if !fence.is_held() {
            return;
        }
        let sent = Instant::now();
        match tokio::time::timeout(every.max(Duration::from_millis(50)), PgClaim::renew(&inner, &fence)).await {
            Ok(Ok(true)) => valid_until = sent + lease,
            Ok(Ok(false)) => {
                tracing::warn!(run = %fence.run(), token = fence.token(), "lease taken over; this claim is lost");
                fence.release();
                return;
            }
            Ok(Err(e)) => tracing::warn!(run = %fence.run(), "lease renewal failed: {e}"),
            Err(_) => tracing::warn!(run = %fence.run(), "lease renewal timed out"),
        }
        if Instant::now() >= valid_until {
            tracing::warn!(run = %fence.run(), "no lease renewal within the lease; this claim is lost");
            fence.release();
            return;
        }
    }
}

#[async_trait]
impl Claim for PgClaim {
    fn fence(&self) -> &Fence {
        &self.fence
    }

    async fn check(&self) -> StoreResult<()> {
        self.fence.check()?;
        if Self::renew(&self.inner, &self.fence).await? {
            Ok(())
        } else {
            self.fence.release();
            Err(StoreError::Fenced {
                run: self.fence.run().to_string(),
                token: self.fence.token(),
            })
        }
    }

    async fn release(mut self: Box<Self>) -> StoreResult<()> {
        self.stop_heartbeat();
        let was_held = self.fence.is_held();
        self.fence.release();
        if was_held {
            release_row(&self.inner, self.fence.run(), self.fence.token()).await?;
        }
        Ok(())
    }
}

impl Drop for PgClaim {
    fn drop(&mut self) {
        self.stop_heartbeat();
        if !self.fence.is_held() {
            return; // released already, or lost
        }
        self.fence.release();
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return; // no runtime: the lease expires
        };
        let (inner, run, token) = (self.inner.clone(), self.fence.run().clone(), self.fence.token());
        let release = async move {
            match tokio::time::timeout(Duration::from_secs(5), release_row(&inner, &run, token)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!(%run, "releasing a dropped claim failed (its lease expires): {e}"),
                Err(_) => tracing::warn!(%run, "releasing a dropped claim timed out (its lease expires)"),
            }
        };
        if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread && !std::thread::panicking() {
            // Visible to every other store object when drop returns. (A
            // runtime shutting down refuses the timer: then the lease
            // expires, as for a dead holder.)
            let blocked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                tokio::task::block_in_place(|| handle.block_on(release));
            }));
            if blocked.is_err() {
                tracing::warn!(run = %self.fence.run(), "releasing a dropped claim failed (its lease expires)");
            }
        } else if std::thread::panicking() {
            // Unwinding: no blocking, no new tasks; the lease expires.
        } else {
            let task = handle.spawn(release);
            self.inner
                .pending
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(task);
        }
    }
}

impl PgStore {
    /// Claim the oldest run in one of `states` whose lease is free or
    /// expired and whose recorded needs (`RunSnapshot::needs`) are all in
    /// `offered` (`None`: no such run) — a run needing a capability the
    /// claiming host lacks stays for a host that has it, like a task on
    /// another queue. Runners racing on the same database each get a
    /// different run (`FOR UPDATE SKIP LOCKED`); an expired lease of a
    /// dead runner is taken over here.
    ///
    /// # Errors
    ///
    /// I/O errors.
    pub async fn claim_next(&self, states: &[RunState], offered: &[CapabilityNeed]) -> StoreResult<Option<PgClaim>> {
        self.inner.finish_pending().await;
        let states: Vec<&str> = states.iter().map(|s| s.as_str()).collect();
        let offered: Vec<String> = offered
            .iter()
            .map(|n| format!("{} {}", n.name, n.class.as_str()))
            .collect();
        let sent = Instant::now();
        // Retried like `take` (a lost answer leaves a lease that expires).
        let row = self
            .inner
            .rows(
                true,
                TAKE_NEXT,
                &[&self.inner.owner, &self.inner.lease.as_secs_f64(), &states, &offered],
            )
            .await
            .map_err(|e| e.store("claim work"))?
            .into_iter()
            .next();
        let Some(row) = row else { return Ok(None) };
        let id: &str = row.get(0);
        let run = RunId::parse(id).map_err(|e| StoreError::Corrupt(format!("run id {id:?}: {}", e.message())))?;
        let token = unsigned(row.get(1), "fencing token")?;
        Ok(Some(PgClaim::held(self, run, token, sent)))
    }

    /// The run's fencing token and holder as the database has them (for
    /// tests and `hwf doctor`-style views).
    ///
    /// # Errors
    ///
    /// `not_found`, I/O errors.
    pub async fn lease_of(&self, id: &RunId) -> StoreResult<(u64, Option<String>)> {
        let client = self.durable().await?;
        let row = client
            .query_opt(
                "SELECT token, holder FROM hwf_claims WHERE run_id = $1",
                &[&id.as_str()],
            )
            .await
            .map_err(|e| db_err(format!("read the lease of run {id}"), e))?
            .ok_or_else(|| no_run(id.as_str()))?;
        Ok((unsigned(row.get(0), "fencing token")?, row.get(1)))
    }
}
