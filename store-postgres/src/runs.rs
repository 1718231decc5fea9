//! [`RunStore`] on PostgreSQL: snapshots, journal reads, claims, controls,
//! artifacts.

use crate::claim::{PgClaim, check_fence_row};
use crate::journal::PgJournalSink;
use crate::{PgStore, big, db_err, internal, sql_state, unsigned};
use hwf_core::control::Control;
use hwf_core::ids::RunId;
use hwf_core::journal::JournalEntry;
use hwf_core::model::{RunSnapshot, RunState};
use hwf_core::store::{
    Artifact, ArtifactRef, Claim, JournalSink, RunStore, SaveMode, StoreError, StoreResult, async_trait, stored_control,
};
use tokio_postgres::error::SqlState;

/// A run that does not exist.
pub(crate) fn no_run(id: &str) -> StoreError {
    StoreError::NotFound(format!("no run {id}"))
}

/// The snapshot as stored: its text, which is what reads return (jsonb
/// would reorder object keys), and the same as jsonb for the queries that
/// look inside it, unless jsonb cannot hold it (a `\u0000` in a string).
fn snapshot_columns(snap: &RunSnapshot) -> StoreResult<(Option<String>, String)> {
    let json = serde_json::to_string(snap).map_err(|e| internal(format!("snapshot: {e}")))?;
    Ok(if json.contains("\\u0000") {
        (None, json)
    } else {
        (Some(json.clone()), json)
    })
}

fn parse_snapshot(id: &str, text: &str) -> StoreResult<RunSnapshot> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("the snapshot of run {id}: {e}")))
}

const SAVE: &str = "UPDATE hwf_runs SET state = $2, snapshot = $3::text::jsonb, snapshot_text = $4, updated_at = now()
    WHERE run_id = $1";

// The claim row is locked FOR SHARE and its token compared in the same
// statement: a takeover's UPDATE waits for this save or refuses it.
const SAVE_FENCED: &str = "WITH fence AS (
        SELECT 1 FROM hwf_claims WHERE run_id = $1 AND token = $5 AND holder IS NOT NULL FOR SHARE
    )
    UPDATE hwf_runs SET state = $2, snapshot = $3::text::jsonb, snapshot_text = $4, updated_at = now()
    FROM fence WHERE run_id = $1";

// As SAVE_FENCED: the claim row locked FOR SHARE and its token compared in
// the same statement as the write.
const WRITE_ARTIFACT_FENCED: &str = "WITH fence AS (
        SELECT 1 FROM hwf_claims WHERE run_id = $1 AND token = $4 AND holder IS NOT NULL FOR SHARE
    )
    INSERT INTO hwf_artifacts (run_id, ref, bytes) SELECT $1, $2, $3 FROM fence
    ON CONFLICT (run_id, ref) DO UPDATE SET bytes = EXCLUDED.bytes, written_at = now()";

impl PgStore {
    /// Insert a run and its claim row: free, or (`hold`) held by this
    /// store's owner with token 1 and a fresh lease, in the same statement
    /// (then the token is returned).
    async fn insert_run(&self, snap: &RunSnapshot, hold: bool) -> StoreResult<Option<u64>> {
        let id = snap.run_id.as_str();
        let (json, text) = snapshot_columns(snap)?;
        let created = big(snap.created_at_ms, "created_at_ms")?;
        let lease = self.inner.lease.as_secs_f64();
        let client = self.durable().await?;
        let claim_row = if hold {
            "INSERT INTO hwf_claims (run_id, token, holder, lease_expires_at, claimed_at)
                SELECT run_id, 1, $6, now() + make_interval(secs => $7), now() FROM r RETURNING token"
        } else {
            "INSERT INTO hwf_claims (run_id) SELECT run_id FROM r RETURNING token"
        };
        let stmt = client
            .prepare_cached(&format!(
                "WITH r AS (
                    INSERT INTO hwf_runs (run_id, state, created_at_ms, snapshot, snapshot_text)
                    VALUES ($1, $2, $3, $4::text::jsonb, $5) RETURNING run_id
                )
                {claim_row}"
            ))
            .await
            .map_err(|e| db_err("create a run", e))?;
        let state = snap.state.as_str();
        let row = if hold {
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] =
                [&id, &state, &created, &json, &text, &self.inner.owner, &lease];
            client.query_one(&stmt, &params).await
        } else {
            client.query_one(&stmt, &[&id, &state, &created, &json, &text]).await
        };
        match row {
            Ok(row) if hold => Ok(Some(unsigned(row.get(0), "fencing token")?)),
            Ok(_) => Ok(None),
            Err(e) if sql_state(&e) == Some(&SqlState::UNIQUE_VIOLATION) => {
                Err(StoreError::AlreadyExists(format!("run {id} already exists")))
            }
            Err(e) => Err(db_err(format!("create run {id}"), e)),
        }
    }

    /// `Ok` when the run exists.
    pub(crate) async fn run_exists(&self, id: &str) -> StoreResult<()> {
        let rows = self
            .inner
            .rows(true, "SELECT 1 FROM hwf_runs WHERE run_id = $1", &[&id])
            .await
            .map_err(|e| e.store(format!("look up run {id}")))?;
        if rows.is_empty() { Err(no_run(id)) } else { Ok(()) }
    }
}

#[async_trait]
impl RunStore for PgStore {
    async fn create(&self, snap: &RunSnapshot) -> StoreResult<()> {
        self.insert_run(snap, false).await.map(drop)
    }

    async fn change_marker(&self) -> StoreResult<Option<u64>> {
        // Runs created or saved, controls appended, journals synced.
        let client = self.durable().await?;
        let stmt = client
            .prepare_cached(
                "SELECT (SELECT count(*) FROM hwf_runs),
                        (SELECT coalesce((extract(epoch FROM max(updated_at)) * 1000000)::bigint, 0) FROM hwf_runs),
                        (SELECT coalesce(max(pos), 0) FROM hwf_controls),
                        (SELECT coalesce(sum(synced_seq), 0)::bigint FROM hwf_claims)",
            )
            .await
            .map_err(|e| db_err("read the change marker", e))?;
        let row = client
            .query_one(&stmt, &[])
            .await
            .map_err(|e| db_err("read the change marker", e))?;
        let mut h = std::hash::DefaultHasher::new();
        for i in 0..4 {
            std::hash::Hash::hash(&row.get::<_, i64>(i), &mut h);
        }
        Ok(Some(std::hash::Hasher::finish(&h)))
    }

    async fn create_claimed(&self, snap: &RunSnapshot) -> StoreResult<Box<dyn Claim>> {
        let sent = std::time::Instant::now();
        let token = self
            .insert_run(snap, true)
            .await?
            .ok_or_else(|| internal("a held claim row returned no token".into()))?;
        Ok(Box::new(PgClaim::held(self, snap.run_id.clone(), token, sent)))
    }

    async fn load(&self, id: &RunId) -> StoreResult<RunSnapshot> {
        let rows = self
            .inner
            .rows(
                true,
                "SELECT coalesce(snapshot_text, snapshot::text) FROM hwf_runs WHERE run_id = $1",
                &[&id.as_str()],
            )
            .await
            .map_err(|e| e.store(format!("load run {id}")))?;
        let row = rows.first().ok_or_else(|| no_run(id.as_str()))?;
        parse_snapshot(id.as_str(), row.get(0))
    }

    async fn save(&self, snap: &RunSnapshot, mode: SaveMode, claim: Option<&dyn Claim>) -> StoreResult<()> {
        let id = snap.run_id.as_str();
        let (json, text) = snapshot_columns(snap)?;
        // Repeating a save writes the same row again: safe to retry.
        let durable = matches!(mode, SaveMode::Durable);
        let state = snap.state.as_str();
        let n = match claim {
            None => self.inner.exec(durable, SAVE, &[&id, &state, &json, &text]).await,
            Some(claim) => {
                let fence = claim.fence();
                fence.check()?;
                if fence.run() != &snap.run_id {
                    return Err(StoreError::Fenced {
                        run: id.to_owned(),
                        token: fence.token(),
                    });
                }
                let token = big(fence.token(), "fencing token")?;
                self.inner
                    .exec(durable, SAVE_FENCED, &[&id, &state, &json, &text, &token])
                    .await
            }
        }
        .map_err(|e| e.store(format!("save run {id}")))?;
        if n == 1 {
            return Ok(());
        }
        // Nothing written: the run is unknown, or the claim is stale.
        self.run_exists(id).await?;
        match claim {
            Some(claim) => {
                claim.fence().release();
                Err(StoreError::Fenced {
                    run: id.to_owned(),
                    token: claim.fence().token(),
                })
            }
            None => Err(no_run(id)),
        }
    }

    async fn list(&self) -> StoreResult<Vec<RunId>> {
        let rows = self
            .inner
            .rows(true, "SELECT run_id FROM hwf_runs ORDER BY run_id", &[])
            .await
            .map_err(|e| e.store("list runs"))?;
        rows.iter()
            .map(|r| {
                let s: &str = r.get(0);
                RunId::parse(s).map_err(|e| StoreError::Corrupt(format!("run id {s:?}: {}", e.message())))
            })
            .collect()
    }

    async fn list_in_states(&self, states: &[RunState]) -> StoreResult<Vec<RunId>> {
        // One query on the state's index, however many runs have finished.
        let names: Vec<&str> = states.iter().map(|s| s.as_str()).collect();
        let rows = self
            .inner
            .rows(
                true,
                "SELECT run_id FROM hwf_runs WHERE state = ANY($1) ORDER BY run_id",
                &[&names],
            )
            .await
            .map_err(|e| e.store("list runs by state"))?;
        rows.iter()
            .map(|r| {
                let s: &str = r.get(0);
                RunId::parse(s).map_err(|e| StoreError::Corrupt(format!("run id {s:?}: {}", e.message())))
            })
            .collect()
    }

    async fn entries(&self, id: &RunId, after_seq: u64) -> StoreResult<Vec<JournalEntry>> {
        // One round trip: no row at all is an unknown run, a NULL seq an
        // empty journal.
        let after = big(after_seq.min(i64::MAX as u64), "seq")?;
        let rows = self
            .inner
            .rows(
                true,
                "SELECT j.seq, j.line FROM hwf_runs r
                 LEFT JOIN hwf_journal j ON j.run_id = r.run_id AND j.seq > $2
                 WHERE r.run_id = $1 ORDER BY j.seq",
                &[&id.as_str(), &after],
            )
            .await
            .map_err(|e| e.store(format!("read the journal of run {id}")))?;
        if rows.is_empty() {
            return Err(no_run(id.as_str()));
        }
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            let Some(seq) = row.get::<_, Option<i64>>(0) else {
                continue;
            };
            let line: &str = row.get(1);
            let entry = JournalEntry::parse(line.as_bytes())
                .map_err(|e| StoreError::Corrupt(format!("the journal of run {id}: seq {seq}: {}", e.message())))?;
            if i64::try_from(entry.seq).ok() != Some(seq) {
                return Err(StoreError::Corrupt(format!(
                    "the journal of run {id}: the row at seq {seq} holds seq {}",
                    entry.seq
                )));
            }
            out.push(entry);
        }
        Ok(out)
    }

    async fn open_journal(&self, claim: &dyn Claim) -> StoreResult<Box<dyn JournalSink>> {
        Ok(Box::new(PgJournalSink::open(self, claim.fence().clone()).await?))
    }

    async fn claim(&self, id: &RunId) -> StoreResult<Option<Box<dyn Claim>>> {
        Ok(PgClaim::take(self, id).await?.map(|c| Box::new(c) as Box<dyn Claim>))
    }

    async fn is_claimed(&self, id: &RunId) -> StoreResult<bool> {
        self.inner.finish_pending().await;
        let rows = self
            .inner
            .rows(
                true,
                "SELECT holder IS NOT NULL AND lease_expires_at > now() FROM hwf_claims WHERE run_id = $1",
                &[&id.as_str()],
            )
            .await
            .map_err(|e| e.store(format!("read the claim of run {id}")))?;
        let row = rows.first().ok_or_else(|| no_run(id.as_str()))?;
        Ok(row.get(0))
    }

    async fn controls(&self, id: &RunId) -> StoreResult<Vec<Control>> {
        let rows = self
            .inner
            .rows(
                true,
                "SELECT c.id, c.body FROM hwf_runs r LEFT JOIN hwf_controls c ON c.run_id = r.run_id
                 WHERE r.run_id = $1 ORDER BY c.pos",
                &[&id.as_str()],
            )
            .await
            .map_err(|e| e.store(format!("read the controls of run {id}")))?;
        if rows.is_empty() {
            return Err(no_run(id.as_str()));
        }
        rows.iter()
            .filter_map(|r| r.get::<_, Option<&str>>(1))
            .map(|body| {
                serde_json::from_str(body).map_err(|e| StoreError::Corrupt(format!("a control of run {id}: {e}")))
            })
            .collect()
    }

    async fn append_control(&self, id: &RunId, control: &Control) -> StoreResult<bool> {
        let control = stored_control(control)?;
        let body = serde_json::to_string(&control).map_err(|e| internal(format!("control: {e}")))?;
        let client = self.durable().await?;
        let stmt = client
            .prepare_cached(
                "INSERT INTO hwf_controls (run_id, id, body) VALUES ($1, $2, $3)
                 ON CONFLICT (run_id, id) DO NOTHING",
            )
            .await
            .map_err(|e| db_err("append a control", e))?;
        match client.execute(&stmt, &[&id.as_str(), &control.id, &body]).await {
            Ok(1) => {
                self.inner.watches.bump(id.as_str());
                Ok(true)
            }
            Ok(_) => Ok(false),
            Err(e) if sql_state(&e) == Some(&SqlState::FOREIGN_KEY_VIOLATION) => Err(no_run(id.as_str())),
            Err(e) => Err(db_err(format!("append a control to run {id}"), e)),
        }
    }

    async fn watch_controls(&self, id: &RunId) -> StoreResult<tokio::sync::watch::Receiver<u64>> {
        let client = self.durable().await?;
        let stmt = client
            .prepare_cached(
                "SELECT (SELECT count(*) FROM hwf_controls c WHERE c.run_id = r.run_id)
                 FROM hwf_runs r WHERE r.run_id = $1",
            )
            .await
            .map_err(|e| db_err("watch controls", e))?;
        let row = client
            .query_opt(&stmt, &[&id.as_str()])
            .await
            .map_err(|e| db_err(format!("watch the controls of run {id}"), e))?
            .ok_or_else(|| no_run(id.as_str()))?;
        drop(client);
        let rx = self.inner.watches.subscribe(id.as_str(), row.get(0));
        crate::watch::ensure_listener(&self.inner);
        Ok(rx)
    }

    async fn write_artifact(&self, id: &RunId, artifact: Artifact<'_>, bytes: &[u8]) -> StoreResult<ArtifactRef> {
        let r = ArtifactRef::of(artifact)?;
        let client = self.durable().await?;
        let stmt = client
            .prepare_cached(
                "INSERT INTO hwf_artifacts (run_id, ref, bytes) VALUES ($1, $2, $3)
                 ON CONFLICT (run_id, ref) DO UPDATE SET bytes = EXCLUDED.bytes, written_at = now()",
            )
            .await
            .map_err(|e| db_err("write an artifact", e))?;
        match client.execute(&stmt, &[&id.as_str(), &r.as_str(), &bytes]).await {
            Ok(_) => Ok(r),
            Err(e) if sql_state(&e) == Some(&SqlState::FOREIGN_KEY_VIOLATION) => Err(no_run(id.as_str())),
            Err(e) => Err(db_err(format!("write artifact {} of run {id}", r.as_str()), e)),
        }
    }

    async fn write_artifact_fenced(
        &self,
        claim: &dyn Claim,
        artifact: Artifact<'_>,
        bytes: &[u8],
    ) -> StoreResult<ArtifactRef> {
        let r = ArtifactRef::of(artifact)?;
        let fence = claim.fence();
        fence.check()?;
        let id = fence.run().as_str();
        let token = big(fence.token(), "fencing token")?;
        let client = self.durable().await?;
        let stmt = client
            .prepare_cached(WRITE_ARTIFACT_FENCED)
            .await
            .map_err(|e| db_err("write an artifact", e))?;
        let n = client
            .execute(&stmt, &[&id, &r.as_str(), &bytes, &token])
            .await
            .map_err(|e| db_err(format!("write artifact {} of run {id}", r.as_str()), e))?;
        drop(client);
        if n == 1 {
            return Ok(r);
        }
        // Nothing written: the run is unknown, or the claim is stale.
        self.run_exists(id).await?;
        fence.release();
        Err(StoreError::Fenced {
            run: id.to_owned(),
            token: fence.token(),
        })
    }

    async fn read_artifact(&self, id: &RunId, artifact: &ArtifactRef) -> StoreResult<Vec<u8>> {
        let client = self.durable().await?;
        let stmt = client
            .prepare_cached("SELECT bytes FROM hwf_artifacts WHERE run_id = $1 AND ref = $2")
            .await
            .map_err(|e| db_err("read an artifact", e))?;
        let row = client
            .query_opt(&stmt, &[&id.as_str(), &artifact.as_str()])
            .await
            .map_err(|e| db_err(format!("read artifact {} of run {id}", artifact.as_str()), e))?;
        drop(client);
        match row {
            Some(row) => Ok(row.get(0)),
            None => {
                self.run_exists(id.as_str()).await?;
                Err(StoreError::NotFound(format!(
                    "run {id} has no artifact {}",
                    artifact.as_str()
                )))
            }
        }
    }
}

/// Check a claim's fence against the database (token current, held).
pub(crate) async fn verify_fence(store: &PgStore, fence: &hwf_core::store::Fence) -> StoreResult<u64> {
    fence.check()?;
    let rows = store
        .inner
        .rows(
            true,
            "SELECT c.token, c.holder IS NOT NULL,
                    (SELECT coalesce(max(j.seq), 0) FROM hwf_journal j WHERE j.run_id = c.run_id)
             FROM hwf_claims c WHERE c.run_id = $1",
            &[&fence.run().as_str()],
        )
        .await
        .map_err(|e| e.store(format!("check the claim of run {}", fence.run())))?;
    let row = rows.first().ok_or_else(|| no_run(fence.run().as_str()))?;
    check_fence_row(fence, row.get(0), row.get(1))?;
    unsigned(row.get(2), "seq")
}
