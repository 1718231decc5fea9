//! [`PgJournalSink`]: a run's journal appended under a lease, one row per
//! line keyed by `(run_id, seq)`.

use crate::runs::verify_fence;
use crate::{PgStore, RetryError, big, connection_lost, internal, sql_state};
use hwf_core::journal::JournalEntry;
use hwf_core::store::{Fence, JournalSink, StoreError, StoreResult, async_trait};
use serde::Deserialize;
use std::sync::OnceLock;
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::error::SqlState;

// The fence and the insert in one statement: the claim row is locked FOR
// SHARE and its token compared, so an append either commits before a
// takeover or is refused after it. Runs on the `synchronous_commit = off`
// pool: visible at once, durable at the next sync.
const APPEND: &str = "WITH fence AS (
        SELECT 1 FROM hwf_claims WHERE run_id = $1 AND token = $2 AND holder IS NOT NULL FOR SHARE
    )
    INSERT INTO hwf_journal (run_id, seq, ts_ms, kind, call, fingerprint, line)
    SELECT $1, u.seq, u.ts_ms, u.kind, u.call, u.fingerprint, u.line
    FROM fence, unnest($3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[])
        AS u(seq, ts_ms, kind, call, fingerprint, line)";

// A synchronous commit of a fenced write: it flushes the WAL up to itself,
// so every append committed before it is on disk when it returns. One
// statement serves every sync queued meanwhile (group commit), in run id
// order so two processes' batches lock claim rows in the same order.
const SYNC: &str = "UPDATE hwf_claims c SET synced_seq = greatest(c.synced_seq, u.seq)
    FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS u(run_id, token, seq)
    WHERE c.run_id = u.run_id AND c.token = u.token AND c.holder IS NOT NULL
    RETURNING c.run_id";

/// The most syncs one group commit carries.
const SYNC_BATCH: usize = 256;

/// One sink's request to the group committer: whether its claim is still
/// the run's current one once the commit is durable.
pub(crate) struct SyncRequest {
    run: String,
    token: i64,
    seq: i64,
    reply: oneshot::Sender<Result<bool, String>>,
}

/// The store object's group committer: a task that takes every sync
/// queued, commits them in one synchronous, fenced `UPDATE`, and answers
/// each. Syncs arriving while a commit is in flight share the next one.
#[derive(Debug, Default)]
pub(crate) struct GroupCommit {
    tx: OnceLock<mpsc::UnboundedSender<SyncRequest>>,
}

impl GroupCommit {
    fn sender(
        &self,
        pool: &deadpool_postgres::Pool,
        reconnect: std::time::Duration,
    ) -> &mpsc::UnboundedSender<SyncRequest> {
        self.tx.get_or_init(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(commit_loop(pool.clone(), reconnect, rx));
            tx
        })
    }
}

/// Why one group commit failed.
enum SyncError {
    Pool(deadpool_postgres::PoolError),
    Db(tokio_postgres::Error),
}

async fn commit_loop(
    pool: deadpool_postgres::Pool,
    reconnect: std::time::Duration,
    mut rx: mpsc::UnboundedReceiver<SyncRequest>,
) {
    let mut batch = Vec::with_capacity(SYNC_BATCH);
    // Ends when the store object (the sender) is dropped.
    while rx.recv_many(&mut batch, SYNC_BATCH).await > 0 {
        batch.sort_by(|a, b| a.run.cmp(&b.run));
        let runs: Vec<&str> = batch.iter().map(|r| r.run.as_str()).collect();
        let tokens: Vec<i64> = batch.iter().map(|r| r.token).collect();
        let seqs: Vec<i64> = batch.iter().map(|r| r.seq).collect();
        // The sync is idempotent (greatest()): a lost connection is retried
        // on a fresh one for `reconnect`.
        let start = std::time::Instant::now();
        let mut delay = std::time::Duration::from_millis(20);
        let result = loop {
            let attempt = async {
                let client = pool.get().await.map_err(SyncError::Pool)?;
                let stmt = client.prepare_cached(SYNC).await.map_err(SyncError::Db)?;
                let rows = client
                    .query(&stmt, &[&runs, &tokens, &seqs])
                    .await
                    .map_err(SyncError::Db)?;
                Ok::<Vec<String>, SyncError>(rows.iter().map(|r| r.get(0)).collect())
            }
            .await;
            let lost = match &attempt {
                Err(SyncError::Db(e)) => connection_lost(e),
                Err(SyncError::Pool(deadpool_postgres::PoolError::Backend(e))) => connection_lost(e),
                Err(SyncError::Pool(deadpool_postgres::PoolError::Timeout(_))) => true,
                _ => false,
            };
            if lost && start.elapsed() + delay < reconnect {
                tracing::debug!("a journal sync lost its connection; retrying in {delay:?}");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(std::time::Duration::from_millis(500));
                continue;
            }
            break attempt.map_err(|e| match e {
                SyncError::Pool(e) => format!("PostgreSQL connection pool: {e}"),
                SyncError::Db(e) => e.to_string(),
            });
        };
        for req in batch.drain(..) {
            let answer = match &result {
                Ok(held) => Ok(held.contains(&req.run)),
                Err(e) => Err(e.clone()),
            };
            let _ = req.reply.send(answer);
        }
    }
}

/// The fields of a journal line the table keys and indexes by.
#[derive(Deserialize)]
struct Head {
    seq: u64,
    ts_ms: u64,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    call: Option<String>,
    #[serde(default)]
    fingerprint: Option<String>,
}

/// Rows ready for [`APPEND`].
#[derive(Default)]
struct Rows {
    seq: Vec<i64>,
    ts_ms: Vec<i64>,
    kind: Vec<String>,
    call: Vec<Option<String>>,
    fingerprint: Vec<Option<String>>,
    line: Vec<String>,
}

/// The PostgreSQL [`JournalSink`]. Appends commit asynchronously (visible
/// at once); [`sync`](JournalSink::sync) is the synchronous commit that
/// makes them durable. `next_seq` is counted here: the lease makes this the
/// run's only writer, and the `(run_id, seq)` key refuses any other.
#[derive(Debug)]
pub struct PgJournalSink {
    store: PgStore,
    fence: Fence,
    next: u64,
    /// Appends not yet made durable by a sync.
    dirty: bool,
}

impl PgJournalSink {
    pub(crate) async fn open(store: &PgStore, fence: Fence) -> StoreResult<Self> {
        let last = verify_fence(store, &fence).await?;
        Ok(Self {
            store: store.clone(),
            fence,
            next: last + 1,
            dirty: false,
        })
    }

    fn check_seq(&self, expected_seq: u64) -> StoreResult<()> {
        self.fence.check()?;
        if expected_seq == self.next {
            Ok(())
        } else {
            Err(self.conflict(expected_seq, self.next))
        }
    }

    fn conflict(&self, expected: u64, next: u64) -> StoreError {
        StoreError::SeqConflict {
            run: self.fence.run().to_string(),
            expected,
            next,
        }
    }

    fn fenced(&self) -> StoreError {
        self.fence.release();
        StoreError::Fenced {
            run: self.fence.run().to_string(),
            token: self.fence.token(),
        }
    }

    async fn insert(&mut self, rows: Rows) -> StoreResult<u64> {
        let n = rows.seq.len() as u64;
        let run = self.fence.run().as_str();
        let token = big(self.fence.token(), "fencing token")?;
        // An append whose connection was lost is sent again; if the first
        // one had committed, the key refuses the second and the rows found
        // there are this append's own (same lines): that is success.
        let mut sent = 0u32;
        let rows_ref = &rows;
        let written = self
            .store
            .inner
            .retrying(false, |client| {
                sent += 1;
                async move {
                    let stmt = client.prepare_cached(APPEND).await.map_err(RetryError::Db)?;
                    client
                        .execute(
                            &stmt,
                            &[
                                &run,
                                &token,
                                &rows_ref.seq,
                                &rows_ref.ts_ms,
                                &rows_ref.kind,
                                &rows_ref.call,
                                &rows_ref.fingerprint,
                                &rows_ref.line,
                            ],
                        )
                        .await
                        .map_err(RetryError::Db)
                }
            })
            .await;
        match written {
            Ok(w) if w == n => {
                self.next += n;
                self.dirty = true;
                Ok(self.next - 1)
            }
            Ok(_) => Err(self.fenced()),
            Err(RetryError::Db(e)) if sql_state(&e) == Some(&SqlState::UNIQUE_VIOLATION) => {
                if sent > 1 && self.landed(&rows).await? {
                    self.next += n;
                    self.dirty = true;
                    return Ok(self.next - 1);
                }
                // Someone wrote these seqs: find where the journal is.
                let last = verify_fence(&self.store, &self.fence).await?;
                Err(self.conflict(self.next, last + 1))
            }
            Err(e) => Err(e.store(format!("append to the journal of run {run}"))),
        }
    }

    /// Whether the journal holds exactly `rows` at their seqs, under this
    /// claim (a repeated append whose first try committed).
    async fn landed(&self, rows: &Rows) -> StoreResult<bool> {
        verify_fence(&self.store, &self.fence).await?;
        let run = self.fence.run().as_str();
        let found = self
            .store
            .inner
            .rows(
                true,
                "SELECT line FROM hwf_journal WHERE run_id = $1 AND seq = ANY($2) ORDER BY seq",
                &[&run, &rows.seq],
            )
            .await
            .map_err(|e| e.store(format!("read the journal of run {run}")))?;
        let lines: Vec<&str> = found.iter().map(|r| r.get(0)).collect();
        Ok(lines.len() == rows.line.len() && lines.iter().zip(&rows.line).all(|(a, b)| a == b))
    }
}

#[async_trait]
impl JournalSink for PgJournalSink {
    fn fence(&self) -> &Fence {
        &self.fence
    }

    fn next_seq(&self) -> u64 {
        self.next
    }

    async fn append(&mut self, expected_seq: u64, entries: &[JournalEntry]) -> StoreResult<u64> {
        self.check_seq(expected_seq)?;
        let mut rows = Rows::default();
        for (i, entry) in entries.iter().enumerate() {
            let want = expected_seq + i as u64;
            if entry.seq != want {
                return Err(self.conflict(entry.seq, want));
            }
            let line = serde_json::to_string(entry).map_err(|e| internal(format!("journal entry: {e}")))?;
            let head: Head = serde_json::from_str(&line).map_err(|e| internal(format!("journal entry: {e}")))?;
            push(&mut rows, head, line)?;
        }
        if rows.seq.is_empty() {
            return Ok(expected_seq - 1);
        }
        self.insert(rows).await
    }

    async fn append_lines(&mut self, expected_seq: u64, lines: &[u8]) -> StoreResult<u64> {
        self.check_seq(expected_seq)?;
        if lines.is_empty() {
            return Ok(expected_seq - 1);
        }
        let run = self.fence.run().to_string();
        if !lines.ends_with(b"\n") {
            return Err(StoreError::Corrupt(format!(
                "journal of run {run}: an append must end with a newline"
            )));
        }
        let text = std::str::from_utf8(lines)
            .map_err(|e| StoreError::Corrupt(format!("journal of run {run}: an appended line is not UTF-8: {e}")))?;
        let mut rows = Rows::default();
        for (i, line) in text[..text.len() - 1].split('\n').enumerate() {
            let want = expected_seq + i as u64;
            let head: Head = serde_json::from_str(line).map_err(|e| {
                StoreError::Corrupt(format!(
                    "journal of run {run}: appended line {} has no seq, ts_ms and type: {e}",
                    i + 1
                ))
            })?;
            if head.seq != want {
                return Err(self.conflict(head.seq, want));
            }
            push(&mut rows, head, line.to_owned())?;
        }
        self.insert(rows).await
    }

    async fn sync(&mut self) -> StoreResult<()> {
        self.fence.check()?;
        if !self.dirty {
            return Ok(());
        }
        let run = self.fence.run().to_string();
        let (reply, answer) = oneshot::channel();
        let request = SyncRequest {
            run: run.clone(),
            token: big(self.fence.token(), "fencing token")?,
            seq: big(self.next - 1, "seq")?,
            reply,
        };
        let inner = &self.store.inner;
        inner
            .group_commit
            .sender(&inner.durable, inner.reconnect)
            .send(request)
            .map_err(|_| internal("the group committer has stopped".into()))?;
        let held = answer
            .await
            .map_err(|_| internal("the group committer dropped a sync".into()))?
            .map_err(|e| StoreError::Io {
                what: format!("sync the journal of run {run}"),
                source: std::io::Error::other(e),
            })?;
        if !held {
            return Err(self.fenced());
        }
        self.dirty = false;
        Ok(())
    }
}

fn push(rows: &mut Rows, head: Head, line: String) -> StoreResult<()> {
    rows.seq.push(big(head.seq, "seq")?);
    rows.ts_ms.push(big(head.ts_ms, "ts_ms")?);
    rows.kind.push(head.kind);
    rows.call.push(head.call);
    rows.fingerprint.push(head.fingerprint);
    rows.line.push(line);
    Ok(())
}
