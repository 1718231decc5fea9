//! `hwf store export / import / migrate` through the real binary: runs
//! made on the file store are exported to a fresh state dir, imported into
//! PostgreSQL, and continued there — a finished run resumed with
//! `--resume-from`, a parked one by the runner, a failed one resumed —
//! with no agent call executed again (every completed call is replayed
//! from the journal that was copied). Copies are idempotent; a run the
//! target holds differently is a conflict.
//!
//! The PostgreSQL tests use the cluster named by `HWF_TEST_POSTGRES` (a
//! libpq connection string; `scripts/pg-test-cluster.sh start` prints
//! one), each in a database of its own (created and dropped with `psql`);
//! without it they are skipped with a message, and they fail when
//! `HWF_REQUIRE_CLIENTS=1` (CI).

use crate::common::{Ctx, Run, harnesses, root, run_id};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

/// The cluster's connection string, or `None` (the test is skipped).
fn cluster(test: &str) -> Option<String> {
    match std::env::var("HWF_TEST_POSTGRES") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("HWF_REQUIRE_CLIENTS").as_deref() != Ok("1"),
                "{test}: HWF_TEST_POSTGRES is not set and HWF_REQUIRE_CLIENTS=1"
            );
            println!("skipped {test}: HWF_TEST_POSTGRES is not set (scripts/pg-test-cluster.sh start prints one)");
            None
        }
    }
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// `conn` (a URL or `key=value` words) as a `postgres://` URL of database
/// `db` (what `--store` takes).
fn url_of(conn: &str, db: &str) -> String {
    if let Some((scheme, rest)) = conn.trim().split_once("://") {
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let query = rest[end..]
            .split_once('?')
            .map_or(String::new(), |(_, q)| format!("?{q}"));
        return format!("{scheme}://{}/{db}{query}", &rest[..end]);
    }
    let mut kv = std::collections::HashMap::new();
    for word in conn.split_whitespace() {
        if let Some((k, v)) = word.split_once('=') {
            kv.insert(k.to_owned(), v.trim_matches('\'').to_owned());
        }
    }
    let user = kv.get("user").map_or(String::new(), |u| {
        let password = kv.get("password").map_or(String::new(), |p| format!(":{}", encode(p)));
        format!("{}{password}@", encode(u))
    });
    let host = kv.get("host").map_or(String::new(), |h| encode(h));
    let port = kv.get("port").map_or(String::new(), |p| format!(":{p}"));
    format!("postgres://{user}{host}{port}/{db}")
}

/// A database of its own on the cluster, dropped with the value.
struct Db {
    admin: String,
    name: String,
    url: String,
}

impl Db {
    fn new(conn: &str) -> Self {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "hwf_e2e_{}_{nanos}_{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        let db = Db {
            admin: conn.to_owned(),
            url: url_of(conn, &name),
            name,
        };
        db.sql(&format!("CREATE DATABASE {}", db.name));
        db
    }

    fn sql(&self, sql: &str) -> String {
        psql_on(&self.admin, sql)
    }

    /// `sql` in this database.
    fn query(&self, sql: &str) -> String {
        psql_on(&self.url, sql)
    }
}

fn psql_on(conn: &str, sql: &str) -> String {
    let out = Command::new(crate::common::psql())
        .args(["-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", conn, "-c", sql])
        .output()
        .expect("run psql (install postgresql, or set PG_BIN)");
    assert!(
        out.status.success(),
        "psql {sql:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

impl Drop for Db {
    fn drop(&mut self) {
        let _ = Command::new(crate::common::psql())
            .args(["-X", "-q", "-d", &self.admin, "-c"])
            .arg(format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name))
            .output();
    }
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf8 path")
}

/// `hwf` on the database `url` (its own state dir for what is the
/// machine's: nothing of the runs comes from the first state dir), with no
/// agent backend, logging every call a fixture answers to `log`.
fn on_pg(ctx: &Ctx, url: &str, log: &Path, args: &[&str]) -> Run {
    ctx.cmd()
        .env_remove("HWF_AGENTS")
        .env("HWF_FIXTURE_LOG", log)
        .args(["--store", url, "--state-dir", s(&ctx.path("pg-machine"))])
        .args(args)
        .output()
        .expect("spawn hwf")
        .into()
}

fn live_calls(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
}

/// The report of `hwf … store export|import --json` (exit 0 asserted).
fn report(out: &Run) -> Value {
    out.expect_code(0);
    let v = out.json();
    assert_eq!(v["data"]["complete"], true, "{v}");
    v["data"]["report"].clone()
}

fn copied(r: &Value, kind: &str) -> u64 {
    r[kind]["copied"].as_u64().unwrap_or(u64::MAX)
}

fn skipped(r: &Value, kind: &str) -> u64 {
    r[kind]["skipped"].as_u64().unwrap_or(u64::MAX)
}

/// Every kind copied nothing.
fn nothing_copied(r: &Value) {
    for kind in [
        "runs",
        "journal_entries",
        "controls",
        "artifacts",
        "script_versions",
        "events",
        "blobs",
    ] {
        assert_eq!(copied(r, kind), 0, "{kind} copied twice: {r}");
    }
}

#[test]
fn a_finished_run_moves_from_files_to_postgres_and_resumes_there_replaying_every_call() {
    let Some(conn) = cluster("a_finished_run_moves_from_files_to_postgres_and_resumes_there_replaying_every_call")
    else {
        return;
    };
    let db = Db::new(&conn);
    let ctx = Ctx::new();
    let fixture = root().join("harnesses/loop-until-dry/fixture.json");
    let first = ctx.run_json(harnesses::LOOP_UNTIL_DRY, "{}", &["--agents", s(&fixture)]);
    first.expect_code(0);
    let first = first.json();
    let id = run_id(&first);
    assert_eq!(first["data"]["counts"]["agent_calls"], 8, "{first}");
    let journal = ctx.journal(&id).len() as u64;

    // File → a fresh state dir, twice: the second copies nothing.
    let exported = ctx.path("exported");
    let out = report(&ctx.hwf(["store", "export", "--to", s(&exported), "--json"]));
    assert_eq!(copied(&out, "runs"), 1, "{out}");
    assert_eq!(copied(&out, "journal_entries"), journal, "{out}");
    let again = report(&ctx.hwf(["store", "export", "--to", s(&exported), "--json"]));
    nothing_copied(&again);
    assert_eq!(skipped(&again, "runs"), 1, "{again}");
    assert_eq!(skipped(&again, "journal_entries"), journal, "{again}");

    // A fresh database: migrate reports its schema before → after.
    let log = ctx.path("calls.log");
    let m = on_pg(&ctx, &db.url, &log, &["store", "migrate", "--json"]);
    m.expect_code(0);
    let m = m.json()["data"].clone();
    assert_eq!(
        (m["kind"].as_str(), m["before"].as_u64()),
        (Some("postgres"), Some(0)),
        "{m}"
    );
    assert_eq!(m["after"], m["latest"], "{m}");
    let m2 = on_pg(&ctx, &db.url, &log, &["store", "migrate", "--json"]).json()["data"].clone();
    assert_eq!(
        (m2["before"].clone(), m2["migrated"].clone()),
        (m["after"].clone(), json!(false))
    );

    // The exported dir → PostgreSQL, twice.
    let imported = report(&on_pg(
        &ctx,
        &db.url,
        &log,
        &["store", "import", "--from", s(&exported), "--json"],
    ));
    assert_eq!(copied(&imported, "runs"), 1, "{imported}");
    assert_eq!(copied(&imported, "journal_entries"), journal, "{imported}");
    assert_eq!(copied(&imported, "artifacts"), copied(&out, "artifacts"), "{imported}");
    let again = report(&on_pg(
        &ctx,
        &db.url,
        &log,
        &["store", "import", "--from", s(&exported), "--json"],
    ));
    nothing_copied(&again);
    assert_eq!(
        db.query(&format!("SELECT count(*) FROM hwf_journal WHERE run_id = '{id}'"))
            .trim(),
        journal.to_string(),
        "one row per journal entry, none twice"
    );

    // doctor checks the database and its schema.
    let d = on_pg(&ctx, &db.url, &log, &["doctor", "--json"]).json()["data"].clone();
    let checks = d["checks"].as_array().cloned().unwrap_or_default();
    for name in ["store.postgres", "store.schema"] {
        let c = checks
            .iter()
            .find(|c| c["check"] == name)
            .unwrap_or_else(|| panic!("{name}: {d}"));
        assert_eq!(c["ok"], true, "{c}");
    }

    // On PostgreSQL: the run is there, and a resume replays every call with
    // no agent backend at all.
    let st = on_pg(&ctx, &db.url, &log, &["status", &id, "--json"]);
    st.expect_code(0);
    assert_eq!(st.json()["data"]["state"], "succeeded", "{st:?}");
    let resumed = on_pg(&ctx, &db.url, &log, &["run", "--resume-from", &id, "--json"]);
    resumed.expect_code(0);
    let resumed = resumed.json();
    assert_eq!(resumed["data"]["result"], first["data"]["result"], "{resumed}");
    assert_eq!(resumed["data"]["counts"]["replayed"], 8, "{resumed}");
    assert_eq!(live_calls(&log), 0, "no agent call ran again");
    let new = run_id(&resumed);
    let st = on_pg(&ctx, &db.url, &log, &["status", &new, "--json"]).json()["data"].clone();
    assert_eq!(st["resumed_from"], id.as_str(), "{st}");
    assert!(
        !ctx.path("pg-machine").join("runs").join(&new).exists(),
        "the resumed run lives in the database, not in the state dir"
    );

    // And back: PostgreSQL → a state dir holds both runs, readable there.
    let back = ctx.path("back");
    let home = report(&on_pg(
        &ctx,
        &db.url,
        &log,
        &["store", "export", "--to", s(&back), "--json"],
    ));
    assert_eq!(copied(&home, "runs"), 2, "{home}");
    let st = ctx.hwf(["--state-dir", s(&back), "status", &new, "--json"]);
    st.expect_code(0);
    assert_eq!(st.json()["data"]["state"], "succeeded", "{st:?}");
    assert_eq!(
        std::fs::read_to_string(back.join("runs").join(&id).join("journal.jsonl")).expect("journal"),
        std::fs::read_to_string(exported.join("runs").join(&id).join("journal.jsonl")).expect("journal"),
        "the journal came back line for line"
    );
}

#[test]
fn a_parked_and_a_failed_run_continue_on_postgres_with_every_completed_call_replayed() {
    let Some(conn) = cluster("a_parked_and_a_failed_run_continue_on_postgres_with_every_completed_call_replayed")
    else {
        return;
    };
    let db = Db::new(&conn);
    let ctx = Ctx::manual_runner();
    let fixture = ctx.write(
        "agents.json",
        r#"{"responses": [
            {"match": {"label": "a"}, "output": {"n": 1}},
            {"match": {"label": "b"}, "output": {"n": 2}},
            {"match": {"label": "boom"}, "error": "backend down"}
        ]}"#,
    );
    let agents = ["--agents", s(&fixture)];
    let program = |last: Value| json!({"op": "program", "program": {"seq": [{"agent": "a"}, {"agent": "b"}, last]}});
    // The parked run runs from a file of its own, gone before it continues
    // on the database: its script goes along as a blob.
    let component = ctx.path("parked-probe.wasm");
    std::fs::copy(harnesses::PROBE, &component).expect("copy the probe");
    let parked = ctx.run_json(
        s(&component),
        &program(json!({"cap": {"name": "events.wait", "input": {"source": "ci", "type": "done"}}})).to_string(),
        &agents,
    );
    parked.expect_code(3);
    let parked = run_id(&parked.json());
    let failed = ctx.run_json(
        harnesses::PROBE,
        &program(json!({"agent": "boom"})).to_string(),
        &agents,
    );
    failed.expect_code(1);
    let failed_json = failed.json();
    let failed = run_id(&failed_json);
    // An event that wakes nothing, to be copied too.
    ctx.hwf(["events", "send", "--source", "ci", "--type", "other", "--id", "o1"])
        .expect_code(0);

    let exported = ctx.path("exported");
    let out = report(&ctx.hwf(["store", "export", "--to", s(&exported), "--json"]));
    assert_eq!(copied(&out, "runs"), 2, "{out}");
    assert_eq!(copied(&out, "events"), 1, "{out}");
    assert_eq!(copied(&out, "blobs"), 1, "one component, read from its file: {out}");
    let log = ctx.path("calls.log");
    let imported = report(&on_pg(
        &ctx,
        &db.url,
        &log,
        &["store", "import", "--from", s(&exported), "--json"],
    ));
    assert_eq!(
        (copied(&imported, "runs"), copied(&imported, "events")),
        (2, 1),
        "{imported}"
    );
    nothing_copied(&report(&on_pg(
        &ctx,
        &db.url,
        &log,
        &["store", "import", "--from", s(&exported), "--json"],
    )));

    // Exporting from the database claims the parked run while it is copied
    // and releases it at once: the runner below finds it free.
    let out = report(&on_pg(
        &ctx,
        &db.url,
        &log,
        &["store", "export", "--to", s(&ctx.path("from-pg")), "--json"],
    ));
    assert_eq!(copied(&out, "runs"), 2, "{out}");

    std::fs::remove_file(&component).expect("remove the component");
    // The parked run: its event arrives in the database and a runner there
    // continues it in place; its two agent calls answer from the journal.
    let st = on_pg(&ctx, &db.url, &log, &["status", &parked, "--json"]).json()["data"].clone();
    assert_eq!(st["state"], "waiting", "{st}");
    on_pg(
        &ctx,
        &db.url,
        &log,
        &["events", "send", "--source", "ci", "--type", "done", "--id", "d1"],
    )
    .expect_code(0);
    on_pg(&ctx, &db.url, &log, &["runner", "--once", "--json"]).expect_code(0);
    let st = on_pg(&ctx, &db.url, &log, &["status", &parked, "--json"]).json()["data"].clone();
    assert_eq!(st["state"], "succeeded", "{st}");
    assert_eq!(st["result"][0], json!({"n": 1}), "{st}");
    assert_eq!(st["result"][1], json!({"n": 2}), "{st}");
    assert_eq!(st["result"][2]["id"], "d1", "{st}");

    // The failed run: a resume there replays both answers with no agent
    // backend; only the call that failed runs again (a failure is never
    // replayed), which with no backend is `no_agent_backend`…
    let st = on_pg(&ctx, &db.url, &log, &["status", &failed, "--json"]).json()["data"].clone();
    assert_eq!(st["state"], "failed", "{st}");
    assert_eq!(failed_json["data"]["state"], "failed", "{failed_json}");
    let resumed = on_pg(&ctx, &db.url, &log, &["run", "--resume-from", &failed, "--json"]);
    resumed.expect_code(1);
    let resumed = resumed.json();
    assert_eq!(resumed["data"]["counts"]["replayed"], 2, "{resumed}");
    assert_eq!(resumed["error"]["code"], "no_agent_backend", "{resumed}");
    assert_eq!(live_calls(&log), 0, "no agent call ran again");
    // …and with a backend that now answers it, only that call runs.
    let back = ctx.write(
        "back.json",
        r#"{"responses": [{"match": {"label": "boom"}, "output": {"n": 3}}]}"#,
    );
    let done = on_pg(
        &ctx,
        &db.url,
        &log,
        &["run", "--resume-from", &failed, "--agents", s(&back), "--json"],
    );
    done.expect_code(0);
    let done = done.json();
    assert_eq!(done["data"]["result"], json!([{"n": 1}, {"n": 2}, {"n": 3}]), "{done}");
    assert_eq!(done["data"]["counts"]["replayed"], 2, "{done}");
    assert_eq!(live_calls(&log), 1, "only the failed call ran live");
}

#[test]
fn a_copy_onto_a_store_holding_the_run_differently_is_a_conflict_and_migrate_has_nothing_for_files() {
    let ctx = Ctx::new();
    let noop = json!({"op": "noop"}).to_string();
    ctx.run_json(harnesses::PROBE, &noop, &["--run-id", "same-id"])
        .expect_code(0);
    let other = ctx.path("other");
    ctx.cmd()
        .args(["--state-dir", s(&other), "run", harnesses::PROBE, "--run-id", "same-id"])
        .args(["--args", &json!({"op": "log"}).to_string()])
        .output()
        .expect("run");
    let out = ctx.hwf(["store", "export", "--to", s(&other)]);
    out.expect_stderr("conflict").expect_stderr("same-id");
    assert_ne!(out.code, 0);
    // A libpq key=value string is a database, not a directory to make.
    let kv = ctx.hwf(["store", "export", "--to", "host=/nonexistent-socket-dir dbname=hwf"]);
    assert_ne!(kv.code, 0, "{kv:?}");
    assert!(!ctx.path("host=").exists(), "no directory was made of it");
    // A source that is no state dir is refused, not read as an empty one.
    ctx.hwf(["store", "import", "--from", s(&ctx.path("typo"))])
        .expect_code(2)
        .expect_stderr("not a state dir");
    assert!(!ctx.path("typo").exists());
    // A copy onto the store itself is refused.
    ctx.hwf(["store", "export", "--to", s(&ctx.state())])
        .expect_code(2)
        .expect_stderr("invalid_args");
    let m = ctx.hwf(["store", "migrate", "--json"]);
    m.expect_code(0);
    let m = m.json()["data"].clone();
    assert_eq!(m["kind"], "file", "{m}");
    assert!(
        m["message"].as_str().unwrap_or("").contains("nothing to migrate"),
        "{m}"
    );
}

/// A growing conversation on PostgreSQL: each large prompt is kept by
/// content in `hwf_chunks` (shared with the previous prompt), the journal
/// rows hold refs; a `--resume-from` there replays every call and stores no
/// chunk again; an export to a file store copies the chunks by reference
/// and the copy resumes there.
#[test]
fn a_growing_conversation_on_postgres_keeps_its_prompts_once() {
    use crate::journal_cas::{GROW_JS, grow_fixture, tree_bytes};
    let Some(conn) = cluster("a_growing_conversation_on_postgres_keeps_its_prompts_once") else {
        return;
    };
    let db = Db::new(&conn);
    let ctx = Ctx::new();
    let log = ctx.path("calls.log");
    let script = ctx.write("grow.js", GROW_JS);
    let fixture = ctx.write("grow.fixture.json", grow_fixture(30).to_string());
    let args = r#"{"base": 102400, "calls": 30}"#;
    let first = on_pg(
        &ctx,
        &db.url,
        &log,
        &["run", s(&script), "--args", args, "--agents", s(&fixture), "--json"],
    );
    first.expect_code(0);
    let first = first.json();
    assert_eq!(first["data"]["counts"]["agent_calls"], 30, "{first}");
    let id = run_id(&first);
    let sum = |sql: &str| -> u64 { db.query(sql).trim().parse().unwrap_or(u64::MAX) };
    let journal = sum("SELECT coalesce(sum(octet_length(line)), 0) FROM hwf_journal");
    let chunks = sum("SELECT coalesce(sum(octet_length(bytes)), 0) FROM hwf_chunks");
    println!("postgres, 30 calls, 100 KB base: journal rows {journal} B, chunks {chunks} B");
    // The prompts add up to ~3.9 MB; the distinct text is ~0.16 MB.
    assert!(journal < 200_000, "journal rows hold {journal} bytes");
    assert!(chunks < 1_000_000, "chunks hold {chunks} bytes");
    let refs = sum("SELECT count(*) FROM hwf_journal WHERE kind = 'call_started' AND line LIKE '%\"request_ref\"%'");
    assert_eq!(refs, 30, "every large request is a ref");

    let resumed = on_pg(&ctx, &db.url, &log, &["run", "--resume-from", &id, "--json"]);
    resumed.expect_code(0);
    let resumed = resumed.json();
    assert_eq!(resumed["data"]["counts"]["replayed"], 30, "{resumed}");
    assert_eq!(resumed["data"]["result"], first["data"]["result"], "{resumed}");
    assert_eq!(
        sum("SELECT coalesce(sum(octet_length(bytes)), 0) FROM hwf_chunks"),
        chunks,
        "a replay stores no chunk again"
    );
    let st = on_pg(&ctx, &db.url, &log, &["status", &id, "--json"]).json()["data"].clone();
    assert_eq!(st["calls"].as_array().map(Vec::len), Some(30), "{st}");

    let out = ctx.path("from-pg");
    let r = report(&on_pg(
        &ctx,
        &db.url,
        &log,
        &["store", "export", "--to", s(&out), "--json"],
    ));
    assert!(copied(&r, "payload_chunks") > 0, "{r}");
    assert_eq!(
        tree_bytes(&out.join("chunks")),
        chunks,
        "the file store holds the same chunks"
    );
    let there: Run = ctx
        .cmd()
        .env("HWF_STATE_DIR", &out)
        .args(["run", "--resume-from", &id, "--json"])
        .output()
        .expect("spawn hwf")
        .into();
    there.expect_code(0);
    assert_eq!(there.json()["data"]["counts"]["replayed"], 30);
    assert_eq!(live_calls(&log), 30, "only the first run's calls ran");
}
