//! Selecting the store: `--store <url>`, `$HWF_STORE`, `[store] url` in
//! `hwf.toml` ([`StoreUrl`]), and opening a shared one ([`open_shared`]).
//!
//! A state directory path (or `file://<path>`) is the file store; a
//! `postgres://` / `postgresql://` URL or a libpq key/value string
//! (`host=/run/postgresql dbname=hwf`) is the PostgreSQL store
//! (crate `hwf-store-postgres`, feature `postgres`, on by default). A URL
//! is only ever shown through [`StoreUrl::shown`], which hides its
//! password.

use super::bridge::Bridge;
use super::shared::SharedParts;
use hwf_core::error::{Error, ErrorCode, Result};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Which store a host uses.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreUrl {
    /// The file store in this state directory.
    File(PathBuf),
    /// A PostgreSQL database (a libpq URL).
    Postgres(String),
}

impl std::fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown())
    }
}

impl StoreUrl {
    /// Parse a store URL or a state directory path.
    ///
    /// # Errors
    ///
    /// `invalid_config` for an empty value or a scheme hwf has no store for
    /// (the message names the ones it has).
    pub fn parse(s: &str) -> Result<Self> {
        let s = s.trim();
        if s.is_empty() {
            return Err(Error::new(ErrorCode::InvalidConfig, "the store URL is empty"));
        }
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            return Ok(Self::Postgres(s.to_owned()));
        }
        if is_key_value(s) {
            return Ok(Self::Postgres(s.to_owned()));
        }
        if let Some(path) = s.strip_prefix("file://") {
            return Ok(Self::File(PathBuf::from(path)));
        }
        if let Some((scheme, _)) = s.split_once("://") {
            return Err(Error::new(
                ErrorCode::InvalidConfig,
                format!(
                    "no store for `{scheme}://` URLs (hwf has the file store: a directory or file://<dir>, and PostgreSQL: postgres://user@host/db)"
                ),
            ));
        }
        Ok(Self::File(PathBuf::from(s)))
    }

    /// The URL as it may be shown: a password replaced by `***`.
    pub fn shown(&self) -> String {
        match self {
            Self::File(p) => p.display().to_string(),
            Self::Postgres(url) => hide_password(url),
        }
    }

    /// Whether this is a shared (database) store.
    pub fn is_shared(&self) -> bool {
        !matches!(self, Self::File(_))
    }
}

/// A libpq key/value connection string (`host=/run/postgresql dbname=hwf`):
/// every word is `key=value` and the first key is one libpq knows.
fn is_key_value(s: &str) -> bool {
    const KEYS: [&str; 6] = ["host", "hostaddr", "port", "dbname", "user", "password"];
    let mut words = s.split_whitespace();
    words
        .next()
        .and_then(|w| w.split_once('='))
        .is_some_and(|(k, _)| KEYS.contains(&k))
        && words.all(|w| w.contains('='))
}

/// `scheme://user:secret@host/…` → `scheme://user:***@host/…`, and a
/// `password=` parameter (URL query or key/value word) likewise.
fn hide_password(url: &str) -> String {
    let mut out = url.to_owned();
    if let Some(start) = out.find("://").map(|i| i + 3) {
        let rest = &out[start..];
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        if let Some(at) = rest[..end].rfind('@')
            && let Some(colon) = rest[..at].find(':')
        {
            out.replace_range(start + colon + 1..start + at, "***");
        }
    }
    if let Some(i) = out.find("password=") {
        let from = i + "password=".len();
        let to = out[from..]
            .find(|c: char| c == '&' || c.is_whitespace())
            .map_or(out.len(), |j| from + j);
        out.replace_range(from..to, "***");
    }
    out
}

/// How a shared store holds claims.
#[derive(Debug, Clone, Copy, Default)]
pub struct SharedOptions {
    /// Lease length of a claim (`None`: the store's default, 10 s for
    /// PostgreSQL); `$HWF_LEASE_MS` / `[store] lease_ms`.
    pub lease: Option<Duration>,
}

/// Open a shared store on a new [`Bridge`] (connecting and applying missing
/// migrations); `None` for the file store.
///
/// # Errors
///
/// `invalid_config` (a bad URL, a database migrated by a newer build, a
/// build without the store), `io` (the database cannot be reached).
pub fn open_shared(url: &StoreUrl, options: SharedOptions) -> Result<Option<(SharedParts, Arc<Bridge>)>> {
    match url {
        StoreUrl::File(_) => Ok(None),
        StoreUrl::Postgres(conn) => open_postgres(url, conn, options).map(Some),
    }
}

#[cfg(feature = "postgres")]
fn open_postgres(url: &StoreUrl, conn: &str, options: SharedOptions) -> Result<(SharedParts, Arc<Bridge>)> {
    use hwf_store_postgres::{PgConfig, PgStore};
    let bridge = Arc::new(Bridge::new()?);
    let mut config = PgConfig::new(conn);
    if let Some(lease) = options.lease {
        config.lease = lease;
    }
    let shown = url.shown();
    let pg = bridge
        .block(async move { PgStore::connect(config).await })
        .map_err(|e| {
            let e = Error::from(e);
            Error::new(e.code(), format!("the store {shown}: {}", e.message()))
        })?;
    tracing::info!(store = %url.shown(), owner = pg.owner(), "shared store opened");
    let parts = SharedParts {
        shown: url.shown(),
        runs: Arc::new(pg.clone()),
        scripts: Arc::new(pg.clone()),
        events: Arc::new(pg.clone()),
        blobs: Arc::new(pg.clone()),
        triggers: Arc::new(pg.clone()),
        kanban: Arc::new(pg.clone()),
        work: Some(Arc::new(PgWork(pg))),
    };
    Ok((parts, bridge))
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(url: &StoreUrl, _conn: &str, _options: SharedOptions) -> Result<(SharedParts, Arc<Bridge>)> {
    Err(Error::new(
        ErrorCode::InvalidConfig,
        format!(
            "the store {} is PostgreSQL, and this build has no PostgreSQL store (feature `postgres`)",
            url.shown()
        ),
    ))
}

#[cfg(feature = "postgres")]
struct PgWork(hwf_store_postgres::PgStore);

#[cfg(feature = "postgres")]
#[hwf_core::store::async_trait]
impl super::shared::WorkSource for PgWork {
    async fn claim_next(
        &self,
        states: &[hwf_core::model::RunState],
        offered: &[hwf_core::model::CapabilityNeed],
    ) -> hwf_core::store::StoreResult<Option<Box<dyn hwf_core::store::Claim>>> {
        Ok(self
            .0
            .claim_next(states, offered)
            .await?
            .map(|c| Box::new(c) as Box<dyn hwf_core::store::Claim>))
    }

    fn watch_work(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        Some(self.0.watch_work())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_by_scheme_and_never_show_a_password() {
        assert_eq!(
            StoreUrl::parse("/var/hwf").expect("dir"),
            StoreUrl::File("/var/hwf".into())
        );
        assert_eq!(StoreUrl::parse("file:///x").expect("file"), StoreUrl::File("/x".into()));
        let pg = StoreUrl::parse("postgres://hwf:s3cret@db.local:5432/hwf?sslmode=disable").expect("pg");
        assert!(pg.is_shared());
        assert_eq!(pg.shown(), "postgres://hwf:***@db.local:5432/hwf?sslmode=disable");
        assert!(!format!("{pg:?}").contains("s3cret"));
        let q = StoreUrl::parse("postgresql://db/hwf?user=a&password=hunter2&x=1").expect("pg");
        assert_eq!(q.shown(), "postgresql://db/hwf?user=a&password=***&x=1");
        assert_eq!(
            StoreUrl::parse("postgres://u@h/db").expect("pg").shown(),
            "postgres://u@h/db"
        );
        let kv = StoreUrl::parse("host=/tmp/pg user=hwf password=pw dbname=hwf").expect("key/value");
        assert!(kv.is_shared());
        assert_eq!(kv.shown(), "host=/tmp/pg user=hwf password=*** dbname=hwf");
        assert_eq!(
            StoreUrl::parse("./host=x").expect("a dir"),
            StoreUrl::File("./host=x".into())
        );
        let e = StoreUrl::parse("redis://x").expect_err("unknown");
        assert_eq!(e.code(), ErrorCode::InvalidConfig);
        assert!(e.message().contains("redis://"), "{e}");
        assert_eq!(
            StoreUrl::parse("  ").expect_err("empty").code(),
            ErrorCode::InvalidConfig
        );
    }
}
