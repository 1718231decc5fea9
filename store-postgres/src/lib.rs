//! # hwf-store-postgres: every store trait on one PostgreSQL database
//!
//! [`PgStore`] implements [`RunStore`](hwf_core::store::RunStore),
//! [`JournalSink`](hwf_core::store::JournalSink) (opened under a claim),
//! [`Claim`](hwf_core::store::Claim), [`ScriptCatalog`](hwf_core::store::ScriptCatalog),
//! [`EventLog`](hwf_core::store::EventLog), [`BlobStore`](hwf_core::store::BlobStore),
//! [`TriggerStore`](hwf_core::store::TriggerStore) and [`KanbanStore`](hwf_core::store::KanbanStore)
//! on PostgreSQL, so several runners on several machines can share one
//! store. (The compile cache stays machine-local: it is never in a shared
//! database.) The same conformance suite as the file store's
//! (`hwf-store-conformance`) runs against it (`tests/conformance.rs`).
//!
//! ## Why tokio-postgres + deadpool-postgres
//!
//! Plain SQL checked at run time: nothing needs a live database (or a
//! saved query cache) to compile, so CI and every offline build compile the
//! crate as they are; `sqlx`'s checked macros would need either. The
//! queries are few and each is exercised by the conformance suite and the
//! Postgres tests against a real cluster, which is where a checked macro's
//! guarantee would come from anyway. tokio-postgres pipelines on one
//! connection and gives `LISTEN/NOTIFY` as a stream; deadpool keeps a pool
//! of prepared connections. TLS (rustls) is used as the connection's
//! `sslmode` asks, always verifying the server (see `src/tls.rs`).
//!
//! ## Schema and migrations
//!
//! Versioned SQL files ship with the crate (`migrations/NNNN_name.sql`,
//! [`MIGRATIONS`]); [`PgStore::connect`] applies the missing ones in order
//! inside one transaction and records each in `hwf_schema_migrations`
//! (a database with a newer schema than this build is refused). Tables:
//! `hwf_runs` (snapshot text, and jsonb for queries; state), `hwf_claims` (one lease per run),
//! `hwf_journal` (`(run_id, seq)` key), `hwf_controls` (unique
//! `(run_id, id)`), `hwf_artifacts` (`(run_id, ref)`), `hwf_scripts`
//! (`(name, version)`), `hwf_events` (unique `(source, id)`), `hwf_blobs`
//! (by content address), `hwf_chunks` (journal payload chunks by BLAKE3
//! digest, store-wide: a journal line names them by its `request_ref` /
//! `result_ref`), `hwf_triggers` (by name), `hwf_kanban_board` and
//! `hwf_kanban_cards`. [`PgConfig::schema`] puts them in a schema of
//! their own.
//!
//! ## Claims are leases with fencing tokens
//!
//! A claim is a row per run with the holder, a fencing token that every
//! claim bumps, and `lease_expires_at`. [`RunStore::claim`](hwf_core::store::RunStore::claim)
//! takes a free or expired lease with one conditional `UPDATE`;
//! [`PgStore::claim_next`] scans for work with `FOR UPDATE SKIP LOCKED`.
//! The holder renews the lease from a background task every third of
//! [`PgConfig::lease`] (default [`DEFAULT_LEASE`]); when a renewal finds
//! the token changed, or no renewal succeeded within a lease, the claim's
//! fence reads lost. Every journal append and every snapshot save under a
//! claim locks the claim row (`FOR SHARE`) and compares the token in the
//! same statement, so once another owner took the lease (after it expired)
//! the old owner's writes are refused with `Fenced` — even one paused past
//! its lease that still believes it holds the claim.
//!
//! ## Durability: appends commit asynchronously, `sync` is the commit
//!
//! An append is one statement on a connection with
//! `synchronous_commit = off`: visible to every reader at once, on disk
//! within PostgreSQL's WAL writer delay. [`JournalSink::sync`](hwf_core::store::JournalSink::sync)
//! is one synchronously committed, fenced `UPDATE` of the claim row: its
//! commit flushes the WAL up to itself, which includes every append made
//! before it. So the appends between two syncs share one flush, and syncs
//! of concurrent runs through one store object share one commit: a group
//! committer task takes every sync queued while the previous commit was in
//! flight and commits them in one statement (across store objects and
//! machines, PostgreSQL's own WAL group flush shares the fsync).
//!
//! ## A database restart or a network blip is ridden out
//!
//! Once a store object has reached the database, a connection that cannot
//! be made (the server restarting, a network blip) is retried with backoff
//! for [`PgConfig::reconnect`] (default [`DEFAULT_RECONNECT`]) before an
//! operation fails with `io`; a refusal with a reason (authentication, a
//! missing database) is not retried, nor is anything on a store that never
//! connected. Statements that are safe to repeat — reads, saves (the same
//! row again), syncs (`greatest`) — are sent again on a fresh connection
//! when theirs was lost mid-statement; so is an append, whose repetition,
//! if the first try had committed, meets the `(run_id, seq)` key and finds
//! its own lines there (success, not a conflict). A claim is sent again
//! too: if the lost one had committed, the lease it took is held by nobody
//! who knows it, and expires like a dead holder's.
//! A holder whose lease expires while the database is away loses it (its
//! heartbeat cannot renew), exactly as if it had been partitioned.
//!
//! ## The controls watch
//!
//! A trigger `NOTIFY`s `hwf_controls` with the run id on every control
//! insert; one listener connection per store object bumps the watched
//! runs (typically within a millisecond or two of the commit). A poll of
//! the watched runs' control counts every [`CONTROLS_POLL`] is the
//! fallback (a dropped listener connection is reopened), so the
//! documented delay is at most [`CONTROLS_POLL`]; appends through the same
//! store object bump the watch at once.

#![warn(missing_docs)]

mod catalog;
mod claim;
mod journal;
mod kanban;
mod migrate;
mod runs;
mod tls;
mod triggers;
mod watch;
mod work;

pub use claim::PgClaim;
pub use journal::PgJournalSink;
pub use migrate::{MIGRATIONS, Migration};
pub use watch::CONTROLS_POLL;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use hwf_core::error::{Error, ErrorCode};
use hwf_core::store::{StoreError, StoreResult};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The lease length when [`PgConfig::lease`] is not set: a dead runner's
/// runs are taken over at most this long after its last renewal.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// How long an operation waits for a lost database connection to come
/// back when [`PgConfig::reconnect`] is not set. Only a store that has
/// connected once waits: a wrong address fails at once.
pub const DEFAULT_RECONNECT: Duration = Duration::from_secs(30);

/// How to reach the database and how to hold claims.
#[derive(Debug, Clone)]
pub struct PgConfig {
    /// A libpq connection string: `postgres://user@host/db` or
    /// `host=/run/postgresql user=hwf dbname=hwf`.
    pub url: String,
    /// The schema the tables live in (created if missing); `None`: the
    /// connection's default search path.
    pub schema: Option<String>,
    /// Lease length of a claim (renewed every third of it).
    pub lease: Duration,
    /// Connections per pool (the store keeps two: durable and fast).
    pub pool_size: usize,
    /// How long a store that has reached the database once keeps retrying
    /// to reconnect before an operation fails with `io` (a database
    /// restart or a network blip is ridden out; see [`DEFAULT_RECONNECT`]).
    pub reconnect: Duration,
}

impl PgConfig {
    /// `url` with the defaults: no schema, [`DEFAULT_LEASE`], 16
    /// connections, [`DEFAULT_RECONNECT`].
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            schema: None,
            lease: DEFAULT_LEASE,
            pool_size: 16,
            reconnect: DEFAULT_RECONNECT,
        }
    }
}

/// The PostgreSQL store: cheap to clone (clones share pools, watches and
/// the owner identity of their claims).
#[derive(Clone)]
pub struct PgStore {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("owner", &self.inner.owner)
            .field("lease", &self.inner.lease)
            .finish_non_exhaustive()
    }
}

pub(crate) struct Inner {
    /// Synchronous commits: state changes, syncs, claims.
    pub(crate) durable: Pool,
    /// `synchronous_commit = off`: journal appends, fast saves.
    pub(crate) fast: Pool,
    /// For the LISTEN connection.
    pub(crate) pg_config: tokio_postgres::Config,
    /// TLS for every connection (see [`tls`]).
    pub(crate) tls: tls::Connector,
    pub(crate) lease: Duration,
    /// This store object's claim holder id.
    pub(crate) owner: String,
    /// Releases of dropped claims still in flight (finished before the
    /// next `claim` or `is_claimed`).
    pub(crate) pending: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    pub(crate) watches: watch::Watches,
    /// Concurrent syncs share one commit.
    pub(crate) group_commit: journal::GroupCommit,
    /// How long to retry a connection once the database was reached.
    pub(crate) reconnect: Duration,
    /// Whether a connection ever succeeded (only then are connection
    /// failures retried).
    pub(crate) connected: AtomicBool,
}

impl PgStore {
    /// Connect, create the schema if set and missing, and apply the
    /// missing migrations.
    ///
    /// # Errors
    ///
    /// `invalid_config` for a bad connection string or schema name or a
    /// database migrated by a newer build; `io` when the database cannot
    /// be reached.
    pub async fn connect(config: PgConfig) -> StoreResult<Self> {
        let store = Self::open(&config)?;
        let mut client = store.durable().await?;
        migrate::migrate(&mut client, config.schema.as_deref()).await?;
        Ok(store)
    }

    /// Connect without touching the schema (for `hwf doctor`-style checks:
    /// see [`PgStore::schema_version`]).
    ///
    /// # Errors
    ///
    /// `invalid_config` for a bad connection string or schema name.
    pub fn open(config: &PgConfig) -> StoreResult<Self> {
        let (url, tls) = tls::connector(&config.url)?;
        let mut pg: tokio_postgres::Config = url
            .parse()
            .map_err(|e| invalid_config(format!("the PostgreSQL connection string: {e}")))?;
        let mut options = pg.get_options().unwrap_or_default().to_owned();
        if let Some(schema) = &config.schema {
            migrate::check_schema_name(schema)?;
            options.push_str(&format!(" -c search_path={schema}"));
        }
        // A session that stays idle inside a transaction longer than a
        // lease is a runner that stopped mid-write (a paused VM, a SIGSTOP,
        // a debugger): the server ends it, so its row locks do not stall
        // every other runner; its claims are taken over anyway, and its
        // next write is refused (fenced).
        let lease_ms = config.lease.max(Duration::from_secs(1)).as_millis();
        options.push_str(&format!(" -c idle_in_transaction_session_timeout={lease_ms}"));
        if pg.get_application_name().is_none() {
            pg.application_name("hwf");
        }
        if pg.get_connect_timeout().is_none() {
            pg.connect_timeout(Duration::from_secs(10));
        }
        pg.options(options.trim());
        let mut fast_pg = pg.clone();
        fast_pg.options(format!("{options} -c synchronous_commit=off").trim());
        let size = config.pool_size.max(2);
        let durable = pool(pg.clone(), size, tls.clone())?;
        let fast = pool(fast_pg, size, tls.clone())?;
        let owner = format!(
            "{}:{}:{}",
            std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into()),
            std::process::id(),
            uuid::Uuid::now_v7().simple()
        );
        Ok(Self {
            inner: Arc::new(Inner {
                durable,
                fast,
                pg_config: pg,
                tls,
                lease: config.lease.max(Duration::from_millis(100)),
                owner,
                pending: Mutex::new(Vec::new()),
                watches: watch::Watches::default(),
                group_commit: journal::GroupCommit::default(),
                reconnect: config.reconnect,
                connected: AtomicBool::new(false),
            }),
        })
    }

    /// The newest migration applied to the database (0: none), and the
    /// newest this build knows.
    ///
    /// # Errors
    ///
    /// `io` when the database cannot be reached.
    pub async fn schema_version(&self) -> StoreResult<(u32, u32)> {
        let client = self.durable().await?;
        let applied = migrate::applied(&client).await?;
        let known = MIGRATIONS.iter().map(|m| m.version).max().unwrap_or(0);
        Ok((applied.into_iter().max().unwrap_or(0), known))
    }

    /// The holder id this store object's claims carry.
    pub fn owner(&self) -> &str {
        &self.inner.owner
    }

    /// The lease length of this store's claims.
    pub fn lease(&self) -> Duration {
        self.inner.lease
    }

    pub(crate) async fn durable(&self) -> StoreResult<deadpool_postgres::Object> {
        self.inner.durable().await
    }
}

impl Inner {
    pub(crate) async fn durable(&self) -> StoreResult<deadpool_postgres::Object> {
        self.get(&self.durable).await
    }

    pub(crate) async fn fast(&self) -> StoreResult<deadpool_postgres::Object> {
        self.get(&self.fast).await
    }

    /// A pooled connection. Once the database was reached, a connection
    /// that cannot be made (the server restarting, a network blip) is
    /// retried with backoff for [`PgConfig::reconnect`]; a refusal with
    /// a reason (authentication, a missing database) is not.
    async fn get(&self, pool: &Pool) -> StoreResult<deadpool_postgres::Object> {
        let start = std::time::Instant::now();
        let mut delay = Duration::from_millis(20);
        loop {
            match pool.get().await {
                Ok(client) => {
                    self.connected.store(true, Ordering::Relaxed);
                    return Ok(client);
                }
                Err(e)
                    if self.connected.load(Ordering::Relaxed)
                        && transient_pool(&e)
                        && start.elapsed() + delay < self.reconnect =>
                {
                    tracing::debug!("PostgreSQL connection failed, retrying in {delay:?}: {e}");
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_millis(500));
                }
                Err(e) => return Err(pool_err(e)),
            }
        }
    }

    /// Run `op` on a fresh pooled connection, again (within
    /// [`PgConfig::reconnect`]) when it failed because the connection was
    /// lost — for statements that are safe to repeat (reads, and writes
    /// whose repetition the caller recognises).
    pub(crate) async fn retrying<T, F, Fut>(&self, durable: bool, mut op: F) -> Result<T, RetryError>
    where
        F: FnMut(deadpool_postgres::Object) -> Fut,
        Fut: std::future::Future<Output = Result<T, RetryError>>,
    {
        let start = std::time::Instant::now();
        let mut delay = Duration::from_millis(20);
        loop {
            let client = if durable {
                self.durable().await
            } else {
                self.fast().await
            };
            let client = client.map_err(RetryError::Store)?;
            match op(client).await {
                Err(RetryError::Db(e)) if connection_lost(&e) && start.elapsed() + delay < self.reconnect => {
                    tracing::debug!("PostgreSQL connection lost mid-statement, retrying in {delay:?}: {e}");
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_millis(500));
                }
                other => return other,
            }
        }
    }

    /// Wait for the releases of dropped claims.
    pub(crate) async fn finish_pending(&self) {
        let pending: Vec<_> = {
            let mut p = self.pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            p.drain(..).collect()
        };
        for h in pending {
            let _ = h.await;
        }
    }
}

fn pool(pg: tokio_postgres::Config, size: usize, tls: tls::Connector) -> StoreResult<Pool> {
    let manager = Manager::from_config(
        pg,
        tls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Pool::builder(manager)
        .max_size(size)
        .runtime(deadpool_postgres::Runtime::Tokio1)
        .wait_timeout(Some(Duration::from_secs(30)))
        .create_timeout(Some(Duration::from_secs(10)))
        .build()
        .map_err(|e| invalid_config(format!("the PostgreSQL pool: {e}")))
}

pub(crate) fn invalid_config(message: String) -> StoreError {
    StoreError::Other(Error::new(ErrorCode::InvalidConfig, message))
}

pub(crate) fn internal(message: String) -> StoreError {
    StoreError::Other(Error::new(ErrorCode::Internal, message))
}

/// A database error as an `io` store error about `what`.
pub(crate) fn db_err(what: impl Into<String>, e: tokio_postgres::Error) -> StoreError {
    // tokio-postgres shows a server error as "db error": name the server's
    // message and SQLSTATE instead.
    let text = match e.as_db_error() {
        Some(db) => format!("{} ({}): {}", db.message(), db.code().code(), db.severity()),
        None => {
            use std::error::Error as _;
            let text = match e.source() {
                Some(s) => format!("{e}: {s}"),
                None => e.to_string(),
            };
            // A server whose certificate cannot be verified: say how to go on.
            if text.contains("certificate") || text.contains("UnknownIssuer") {
                format!(
                    "{text} (the server's TLS certificate was not verified: name the CA that signed it \
                     with sslrootcert=<PEM file>, or connect with sslmode=disable over a network you trust)"
                )
            } else {
                text
            }
        }
    };
    StoreError::Io {
        what: what.into(),
        source: std::io::Error::other(text),
    }
}

fn pool_err(e: deadpool_postgres::PoolError) -> StoreError {
    match e {
        deadpool_postgres::PoolError::Backend(e) => db_err("PostgreSQL connection", e),
        e => StoreError::Io {
            what: "PostgreSQL connection pool".into(),
            source: std::io::Error::other(e.to_string()),
        },
    }
}

impl Inner {
    /// Prepare (cached) and run `sql` on the durable (`true`) or fast pool,
    /// again on a fresh connection when the connection was lost (see
    /// [`Inner::retrying`]): for statements that are safe to repeat.
    pub(crate) async fn rows(
        &self,
        durable: bool,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<tokio_postgres::Row>, RetryError> {
        self.retrying(durable, |client| async move {
            let stmt = client.prepare_cached(sql).await.map_err(RetryError::Db)?;
            client.query(&stmt, params).await.map_err(RetryError::Db)
        })
        .await
    }

    /// [`Inner::rows`] for a statement without rows: the rows it touched.
    pub(crate) async fn exec(
        &self,
        durable: bool,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<u64, RetryError> {
        self.retrying(durable, |client| async move {
            let stmt = client.prepare_cached(sql).await.map_err(RetryError::Db)?;
            client.execute(&stmt, params).await.map_err(RetryError::Db)
        })
        .await
    }
}

impl RetryError {
    /// As a store error about `what`.
    pub(crate) fn store(self, what: impl Into<String>) -> StoreError {
        match self {
            RetryError::Db(e) => db_err(what, e),
            RetryError::Store(e) => e,
        }
    }
}

/// A failed step of [`Inner::retrying`]: a database error (retried when
/// it is a lost connection) or a store error (returned as it is).
#[derive(Debug)]
pub(crate) enum RetryError {
    Db(tokio_postgres::Error),
    Store(StoreError),
}

/// Whether a pool error is a connection that could not be made for want
/// of a server (not a refusal with a reason).
fn transient_pool(e: &deadpool_postgres::PoolError) -> bool {
    use deadpool_postgres::{PoolError, TimeoutType};
    match e {
        PoolError::Backend(e) => connection_lost(e),
        PoolError::Timeout(TimeoutType::Create | TimeoutType::Recycle) => true,
        _ => false,
    }
}

/// Whether a database error is a lost (or refused for now) connection:
/// no SQLSTATE (an I/O error, a closed connection), the server shutting
/// down or starting up, or a connection-exception class code.
pub(crate) fn connection_lost(e: &tokio_postgres::Error) -> bool {
    match e.code() {
        None => {
            use std::error::Error as _;
            e.is_closed() || e.source().is_some_and(|s| s.is::<std::io::Error>())
        }
        Some(code) => {
            let c = code.code();
            c.starts_with("08") || c == "57P01" || c == "57P02" || c == "57P03"
        }
    }
}

/// The SQLSTATE of a database error.
pub(crate) fn sql_state(e: &tokio_postgres::Error) -> Option<&tokio_postgres::error::SqlState> {
    e.code()
}

/// `n` as a bigint.
pub(crate) fn big(n: u64, what: &str) -> StoreResult<i64> {
    i64::try_from(n).map_err(|_| {
        StoreError::Other(Error::new(
            ErrorCode::InvalidArgs,
            format!("{what} {n} is beyond the store's range"),
        ))
    })
}

/// A bigint column as u64.
pub(crate) fn unsigned(n: i64, what: &str) -> StoreResult<u64> {
    u64::try_from(n).map_err(|_| StoreError::Corrupt(format!("{what} {n} is negative")))
}
