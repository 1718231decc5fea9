//! `hwf store`: move a store's contents to another store and bring a
//! database's schema up to this build.
//!
//! - `hwf store export --to <dir|postgres://…>` copies everything in the
//!   configured store (`--store`, `$HWF_STORE`, `[store] url`, else the
//!   state dir) into another one;
//! - `hwf store import --from <dir|postgres://…>` copies another store into
//!   the configured one;
//! - `hwf store migrate` applies a PostgreSQL store's missing migrations
//!   and prints the schema version before → after (a file store has no
//!   schema: it says there is nothing to migrate).
//!
//! The copy is `hwf_host::store::transfer` (through the store traits only;
//! idempotent: run it again and nothing is copied twice; a run the target
//! holds differently is a `conflict` and nothing is written; a run
//! executing in the source is skipped, listed, and the command exits 1).

use super::Cli;
use super::output::Out;
use clap::Subcommand;
use hwf_host::config::{Config, resolve_state_dir};
use hwf_host::store::FileStore;
use hwf_host::store::transfer::{StoreRefs, Tally, TransferReport, transfer};
use hwf_host::store::url::StoreUrl;
use hwf_host::{Error, ErrorCode};
use hwf_store_postgres::{PgConfig, PgStore};
use serde_json::{Value, json};

/// `hwf store …`.
#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Copy everything in the configured store (runs with their journals,
    /// controls and artifacts, scripts with every version, events, blobs)
    /// into another store. Idempotent.
    Export {
        /// The target: a state directory or postgres://user@host/db.
        #[arg(long, value_name = "DIR|URL")]
        to: String,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Copy everything in another store into the configured one. Idempotent.
    Import {
        /// The source: a state directory or postgres://user@host/db.
        #[arg(long, value_name = "DIR|URL")]
        from: String,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Apply the configured PostgreSQL store's missing migrations.
    Migrate {
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Repair a run's damaged journal (file store): keep every complete
    /// line that continues it, move the damaged file aside
    /// (`journal.jsonl.damaged-<ms>`), and put the kept lines in its place.
    /// For a journal `hwf status` names as `corrupt_store` because data
    /// follows a run of zero bytes. Run it while no runner executes the run.
    #[command(
        after_help = "Examples:\n  hwf store repair r01a2… --dry-run   # what would be kept and dropped\n  hwf store repair r01a2…             # repair it; the damaged file is kept beside it"
    )]
    Repair {
        /// The run whose journal to repair.
        run_id: String,
        /// Only say what would be kept and dropped.
        #[arg(long)]
        dry_run: bool,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
}

impl StoreCommand {
    /// Whether the output is the JSON envelope.
    pub fn json(&self) -> bool {
        match self {
            Self::Export { json, .. }
            | Self::Import { json, .. }
            | Self::Migrate { json }
            | Self::Repair { json, .. } => *json,
        }
    }
}

/// Run `hwf store …`; the exit code.
///
/// # Errors
///
/// `invalid_config` for a store URL hwf has no store for, `invalid_args`
/// for a copy of a store onto itself, `conflict` when the target holds a
/// run or script differently, the stores' errors.
pub async fn run(cli: &Cli, config: &Config, cmd: &StoreCommand, out: &Out) -> Result<i32, Error> {
    let configured = configured(cli, config)?;
    match cmd {
        StoreCommand::Export { to, .. } => copy(&configured, &StoreUrl::parse(to)?, out).await,
        StoreCommand::Import { from, .. } => copy(&StoreUrl::parse(from)?, &configured, out).await,
        StoreCommand::Migrate { .. } => migrate(&configured, out).await,
        StoreCommand::Repair { run_id, dry_run, .. } => repair(&configured, run_id, *dry_run, out),
    }
}

/// The store the other commands use (`--store`, `$HWF_STORE`, `[store]
/// url`), else the state dir's.
pub(crate) fn configured(cli: &Cli, config: &Config) -> Result<StoreUrl, Error> {
    Ok(hwf_host::config::resolve_store(cli.store.as_deref(), config)?
        .unwrap_or_else(|| StoreUrl::File(resolve_state_dir(cli.state_dir.as_deref(), config))))
}

/// An open store of either kind.
enum Opened {
    File(FileStore),
    Postgres(PgStore),
}

impl Opened {
    /// Open `url` (a database is migrated to this build's schema).
    async fn open(url: &StoreUrl) -> Result<Self, Error> {
        match url {
            StoreUrl::File(dir) => Ok(Self::File(FileStore::open(dir)?)),
            StoreUrl::Postgres(conn) => PgStore::connect(PgConfig::new(conn.clone()))
                .await
                .map(Self::Postgres)
                .map_err(|e| about(url, e.into())),
        }
    }

    fn refs(&self) -> StoreRefs<'_> {
        match self {
            Self::File(s) => StoreRefs::of(s),
            Self::Postgres(s) => StoreRefs::of(s),
        }
    }
}

/// `e` prefixed with the store it is about (its password hidden).
fn about(url: &StoreUrl, e: Error) -> Error {
    Error::new(e.code(), format!("the store {}: {}", url.shown(), e.message()))
}

/// Whether two store URLs name the same store.
fn same_store(a: &StoreUrl, b: &StoreUrl) -> bool {
    match (a, b) {
        (StoreUrl::File(x), StoreUrl::File(y)) => {
            let canon = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
            canon(x) == canon(y)
        }
        (StoreUrl::Postgres(x), StoreUrl::Postgres(y)) => x.trim() == y.trim(),
        _ => false,
    }
}

async fn copy(from: &StoreUrl, to: &StoreUrl, out: &Out) -> Result<i32, Error> {
    if same_store(from, to) {
        return Err(Error::new(
            ErrorCode::InvalidArgs,
            format!(
                "{} is the store itself: name another store to copy to or from",
                to.shown()
            ),
        ));
    }
    if let StoreUrl::File(dir) = from
        && !dir.join("runs").is_dir()
    {
        return Err(Error::new(
            ErrorCode::NotFound,
            format!(
                "{} is not a state dir (it has no runs/): nothing to copy from",
                dir.display()
            ),
        ));
    }
    let source = Opened::open(from).await?;
    let target = Opened::open(to).await?;
    let report = transfer(source.refs(), target.refs()).await?;
    for r in &report.refused {
        super::output::say_err(&format!("hwf: run {} was not copied: {}", r.run, r.reason));
    }
    for w in &report.warnings {
        super::output::say_err(&format!("hwf: warning: {w}"));
    }
    let data = json!({
        "from": from.shown(),
        "to": to.shown(),
        "complete": report.complete(),
        "report": report,
    });
    out.data(&data, |_| human(&report, from, to));
    Ok(if report.complete() { 0 } else { 1 })
}

fn human(r: &TransferReport, from: &StoreUrl, to: &StoreUrl) -> String {
    let row = |what: &str, t: &Tally| format!("  {what:<16} {:>7} copied {:>7} already there", t.copied, t.skipped);
    let mut lines = vec![format!("{} → {}", from.shown(), to.shown())];
    lines.extend([
        row("runs", &r.runs),
        row("journal entries", &r.journal_entries),
        row("controls", &r.controls),
        row("artifacts", &r.artifacts),
        row("script versions", &r.script_versions),
        row("events", &r.events),
        row("blobs", &r.blobs),
        row("payload chunks", &r.payload_chunks),
    ]);
    if !r.refused.is_empty() {
        lines.push(format!(
            "  {} run(s) executing in the source were not copied (run it again once they ended or parked)",
            r.refused.len()
        ));
    }
    lines.join("\n")
}

/// `hwf store repair`: a file store's damaged journal (a PostgreSQL store
/// keeps journal rows, which have nothing to repair).
fn repair(url: &StoreUrl, run_id: &str, dry_run: bool, out: &Out) -> Result<i32, Error> {
    let StoreUrl::File(dir) = url else {
        return Err(Error::new(
            ErrorCode::InvalidArgs,
            format!(
                "{} keeps journals as rows: there is no journal file to repair",
                url.shown()
            ),
        ));
    };
    let run = hwf_host::ids::RunId::parse(run_id)?;
    let report = FileStore::open(dir)?.repair_journal(&run, dry_run)?;
    let mut data = serde_json::to_value(&report).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
    data["run_id"] = json!(run_id);
    data["dry_run"] = json!(dry_run);
    out.data(&data, |d| {
        let kept = format!(
            "{} line{} kept (last seq {}), {} byte{} dropped",
            d["kept_lines"],
            if d["kept_lines"] == 1 { "" } else { "s" },
            d["last_seq"],
            d["dropped_bytes"],
            if d["dropped_bytes"] == 1 { "" } else { "s" }
        );
        match d["saved_as"].as_str() {
            Some(saved) => format!("run {run_id}: journal repaired: {kept}; the damaged file is runs/{run_id}/{saved}"),
            None if d["dropped_bytes"] == 0 => format!("run {run_id}: the journal reads whole: nothing to repair"),
            None => format!("run {run_id}: would repair: {kept} (dry run: nothing changed)"),
        }
    });
    Ok(0)
}

async fn migrate(url: &StoreUrl, out: &Out) -> Result<i32, Error> {
    let data: Value = match url {
        StoreUrl::File(dir) => {
            FileStore::open(dir)?;
            json!({
                "store": url.shown(),
                "kind": "file",
                "migrated": false,
                "message": "the file store has no schema: nothing to migrate",
            })
        }
        StoreUrl::Postgres(conn) => {
            let config = PgConfig::new(conn.clone());
            let (before, latest) = PgStore::open(&config)
                .map_err(|e| about(url, e.into()))?
                .schema_version()
                .await
                .map_err(|e| about(url, e.into()))?;
            let store = PgStore::connect(config).await.map_err(|e| about(url, e.into()))?;
            let (after, _) = store.schema_version().await.map_err(|e| about(url, e.into()))?;
            json!({
                "store": url.shown(),
                "kind": "postgres",
                "migrated": after != before,
                "before": before,
                "after": after,
                "latest": latest,
            })
        }
    };
    out.data(&data, |d| match d["kind"].as_str() {
        Some("postgres") => format!(
            "{}: schema version {} → {}{}",
            d["store"].as_str().unwrap_or(""),
            d["before"],
            d["after"],
            if d["migrated"] == true {
                ""
            } else {
                " (already up to date)"
            }
        ),
        _ => format!(
            "{}: {}",
            d["store"].as_str().unwrap_or(""),
            d["message"].as_str().unwrap_or("")
        ),
    });
    Ok(0)
}
