//! # hwf-store-conformance: one suite, every store
//!
//! The contracts of [`hwf_core::store`] as executable checks, generic over
//! the traits, so the file store and the coming PostgreSQL store are held
//! to the same sentences (obelisk's `crates/testing/db-tests`: one suite,
//! many databases). Each check is one contract sentence; [`run_all`] runs
//! every check on a fresh, empty store from the caller's factory and
//! reports which passed, which were skipped (a capability the store does
//! not have, e.g. a torn write in a transactional database) and which
//! failed, with why.
//!
//! ```text
//! tests/file_store.rs   run_all(|| FileStore in a tempdir).assert_ok()
//! (issue 16)            run_all(|| Postgres on a throwaway cluster).assert_ok()
//! ```

#![warn(missing_docs)]

mod catalog;
mod controls;
mod journal;
mod runs;

use hwf_core::BoxFuture;
use hwf_core::error::ErrorCode;
use hwf_core::ids::RunId;
use hwf_core::model::{RunSnapshot, RunState, ScriptRef};
use hwf_core::store::{BlobStore, EventLog, KanbanStore, RunStore, ScriptCatalog, StoreResult, TriggerStore};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// The stores of one backend, as the application holds them.
#[derive(Clone)]
pub struct Stores {
    /// Runs, journal, claims, controls, artifacts.
    pub runs: Arc<dyn RunStore>,
    /// Saved scripts.
    pub scripts: Arc<dyn ScriptCatalog>,
    /// External events.
    pub events: Arc<dyn EventLog>,
    /// Inline scripts by content.
    pub blobs: Arc<dyn BlobStore>,
    /// Trigger definitions.
    pub triggers: Arc<dyn TriggerStore>,
    /// The built-in Kanban board.
    pub kanban: Arc<dyn KanbanStore>,
}

/// Raw access for the damage checks: what a crash can leave behind in a
/// store that is not transactional.
pub trait Damage: Send + Sync {
    /// Append `bytes` to the run's journal as they are (no seq check, no
    /// newline added), as a crash in the middle of a write leaves them.
    fn append_raw_journal(&self, run: &RunId, bytes: &[u8]);
}

/// One fresh, empty store under test, and what the suite may do with it.
pub struct Subject {
    /// The store.
    pub stores: Stores,
    /// A second handle on the same data that shares no memory with the
    /// first (another process, as far as the store can tell), if the
    /// backend can open one.
    pub other: Option<Stores>,
    /// Raw damage for the torn-tail checks; `None` when a torn write
    /// cannot happen (those checks are skipped).
    pub damage: Option<Box<dyn Damage>>,
    /// The store's documented delay for seeing a control appended through
    /// another handle (the file store's poll interval).
    pub watch_delay: Duration,
    /// Whatever must live as long as the store (a temp dir, a cluster).
    pub guard: Box<dyn std::any::Any + Send + Sync>,
}

/// What one check concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The store kept the contract.
    Pass,
    /// The check does not apply to this store (why).
    Skip(String),
}

/// A check's outcome: a verdict, or what the store did wrong.
pub type Outcome = Result<Verdict, String>;

type Check = for<'a> fn(&'a Subject) -> BoxFuture<'a, Outcome>;

/// Every check: its name (the contract sentence, shortened) and its body.
pub fn checks() -> Vec<(&'static str, Check)> {
    let mut all: Vec<(&'static str, Check)> = Vec::new();
    all.extend(runs::CHECKS);
    all.extend(journal::CHECKS);
    all.extend(controls::CHECKS);
    all.extend(catalog::CHECKS);
    all
}

/// The result of [`run_all`].
#[derive(Debug, Default)]
pub struct Report {
    /// Checks that passed.
    pub passed: Vec<&'static str>,
    /// Checks skipped, with why.
    pub skipped: Vec<(&'static str, String)>,
    /// Checks that failed, with what went wrong.
    pub failed: Vec<(&'static str, String)>,
}

impl Report {
    /// Panic listing every failed check (and print the counts).
    ///
    /// # Panics
    ///
    /// When a check failed.
    pub fn assert_ok(&self) {
        println!(
            "store conformance: {} passed, {} skipped, {} failed",
            self.passed.len(),
            self.skipped.len(),
            self.failed.len()
        );
        for (name, why) in &self.skipped {
            println!("  skipped {name}: {why}");
        }
        if !self.failed.is_empty() {
            let list: Vec<String> = self.failed.iter().map(|(n, w)| format!("{n}: {w}")).collect();
            panic!("store conformance failed:\n  {}", list.join("\n  "));
        }
    }
}

/// Run every check, each on a fresh store from `factory`.
pub async fn run_all<F, Fut>(factory: F) -> Report
where
    F: Fn() -> Fut,
    Fut: Future<Output = Subject>,
{
    run_some(factory, |_| true).await
}

/// Run the checks whose name `select` accepts, each on a fresh store.
pub async fn run_some<F, Fut>(factory: F, select: impl Fn(&str) -> bool) -> Report
where
    F: Fn() -> Fut,
    Fut: Future<Output = Subject>,
{
    let mut report = Report::default();
    for (name, check) in checks() {
        if !select(name) {
            continue;
        }
        let subject = factory().await;
        match check(&subject).await {
            Ok(Verdict::Pass) => report.passed.push(name),
            Ok(Verdict::Skip(why)) => report.skipped.push((name, why)),
            Err(why) => report.failed.push((name, why)),
        }
    }
    report
}

/// `Err(message)` unless `cond`.
macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}
pub(crate) use ensure;

/// The value of an `Ok`, else what the store said.
pub(crate) fn ok<T>(r: StoreResult<T>, what: &str) -> Result<T, String> {
    r.map_err(|e| format!("{what}: unexpected error {} ({e})", e.code()))
}

/// `Ok` when `r` failed with `code`.
pub(crate) fn fails_with<T: std::fmt::Debug>(r: StoreResult<T>, code: ErrorCode, what: &str) -> Result<(), String> {
    match r {
        Err(e) if e.code() == code => Ok(()),
        Err(e) => Err(format!("{what}: expected {code}, got {} ({e})", e.code())),
        Ok(v) => Err(format!("{what}: expected {code}, got Ok({v:?})")),
    }
}

/// A snapshot of a new queued run with a recognisable argument.
pub(crate) fn snapshot(args: serde_json::Value) -> RunSnapshot {
    RunSnapshot::new(
        RunId::generate(),
        RunState::Queued,
        ScriptRef {
            name: Some("hello".into()),
            version: Some(1),
            path: None,
            digest: "b3:00".into(),
            language: "wasm".into(),
        },
        args,
        None,
    )
}

/// A created run's id.
pub(crate) async fn created(s: &Subject) -> Result<RunId, String> {
    let snap = snapshot(serde_json::json!({"n": 1}));
    ok(s.stores.runs.create(&snap).await, "create")?;
    Ok(snap.run_id)
}

/// A credential the redactor knows (an Anthropic-shaped API key).
pub(crate) const CREDENTIAL: &str = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH";
