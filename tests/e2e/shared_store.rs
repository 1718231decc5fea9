//! The seams of a run on a shared store (`HWF_STORE` = PostgreSQL), through
//! the real binary: a wait inside `parallel`, a nested saved script that
//! parks inside, an operator's stop from another process, a run whose
//! process is killed mid-call and taken over by a runner once its lease
//! expired — each continued by `hwf runner`, with the completed calls
//! executed once (the fixture's execution log counts them) and nothing
//! of the run written to the state dir.
//!
//! Each test gets a database of its own on the cluster named by
//! `HWF_TEST_POSTGRES` (skipped without it; failing without it under
//! `HWF_REQUIRE_CLIENTS=1`).

use crate::common::{Ctx, Run, run_id};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A test context whose every `hwf` uses a fresh PostgreSQL database
/// (also the fixture of `shared_lanes`).
pub(crate) struct Pg {
    pub(crate) ctx: Ctx,
    url: String,
    cluster: String,
    db: String,
}

impl Pg {
    pub(crate) fn new(test: &str) -> Option<Self> {
        let cluster = match std::env::var("HWF_TEST_POSTGRES") {
            Ok(url) if !url.trim().is_empty() => url,
            _ => {
                assert!(
                    std::env::var("HWF_REQUIRE_CLIENTS").as_deref() != Ok("1"),
                    "{test}: HWF_TEST_POSTGRES is not set and HWF_REQUIRE_CLIENTS=1"
                );
                println!("skipped {test}: HWF_TEST_POSTGRES is not set (scripts/pg-test-cluster.sh start prints one)");
                return None;
            }
        };
        let db = format!("hwf_s_{}", uuid::Uuid::now_v7().simple());
        let out = Command::new(crate::common::psql())
            .args([
                cluster.as_str(),
                "-v",
                "ON_ERROR_STOP=1",
                "-qc",
                &format!("CREATE DATABASE {db}"),
            ])
            .output()
            .expect("psql");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let url = with_dbname(&cluster, &db);
        Some(Self {
            ctx: Ctx::new(),
            url,
            cluster,
            db,
        })
    }

    /// `hwf` on this database. These tests drive every runner by hand
    /// (passes on one machine, then another), so no command starts the
    /// background runner (`HWF_RUNNER_AUTOSTART=0`); a test of the
    /// background runner uses `ctx.cmd()`.
    pub(crate) fn cmd(&self) -> Command {
        let mut c = self.ctx.cmd();
        c.env("HWF_STORE", &self.url)
            .env("HWF_FIXTURE_LOG", self.ctx.path("calls.log"))
            .env("HWF_RUNNER_AUTOSTART", "0");
        c
    }

    /// This test's database.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    pub(crate) fn hwf(&self, args: &[&str]) -> Run {
        self.cmd().args(args).output().expect("spawn hwf").into()
    }

    pub(crate) fn status(&self, id: &str) -> Value {
        let s = self.hwf(&["status", id, "--json"]);
        s.expect_code(0);
        s.json()["data"].clone()
    }

    /// `hwf run <script> --background --queue-only` with `extra` flags;
    /// the queued run's id.
    pub(crate) fn queue(&self, script: &Path, extra: &[&str]) -> String {
        let mut args = vec!["run", script.to_str().expect("utf8")];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--background", "--queue-only", "--json"]);
        let out = self.hwf(&args);
        out.expect_code(0);
        run_id(&out.json())
    }

    pub(crate) fn runner_once(&self) -> Value {
        let out = self.hwf(&["runner", "--once", "--json"]);
        out.expect_code(0);
        out.json()["data"].clone()
    }

    /// One SQL answer, rows as lines.
    pub(crate) fn sql(&self, query: &str) -> String {
        self.try_sql(query).unwrap_or_else(|e| panic!("{query}: {e}"))
    }

    /// [`Pg::sql`], or the error (the tables appear with hwf's first
    /// connection).
    pub(crate) fn try_sql(&self, query: &str) -> Result<String, String> {
        let out = Command::new(crate::common::psql())
            .args([self.url.as_str(), "-v", "ON_ERROR_STOP=1", "-Atqc", query])
            .output()
            .expect("psql");
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    /// The run's journal as stored, in seq order.
    pub(crate) fn journal(&self, id: &str) -> Vec<Value> {
        self.sql(&format!(
            "SELECT line FROM hwf_journal WHERE run_id = '{id}' ORDER BY seq"
        ))
        .lines()
        .map(|l| serde_json::from_str(l).expect("journal line"))
        .collect()
    }

    /// Real executions per agent label (the fixture's execution log,
    /// `$HWF_FIXTURE_LOG`, names call ids; the journals name their labels).
    pub(crate) fn executions(&self) -> HashMap<String, usize> {
        let mut labels = HashMap::new();
        for line in self
            .sql("SELECT line FROM hwf_journal WHERE kind = 'call_started'")
            .lines()
        {
            let e: Value = serde_json::from_str(line).expect("journal line");
            if let (Some(call), Some(label)) = (e["call"].as_str(), e["label"].as_str()) {
                labels.insert(call.to_owned(), label.to_owned());
            }
        }
        let text = std::fs::read_to_string(self.ctx.path("calls.log")).unwrap_or_default();
        let mut n = HashMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let key = line.split_whitespace().next().unwrap_or("");
            let call = key.rsplit_once(':').map_or(key, |(_, c)| c);
            let label = labels.get(call).cloned().unwrap_or_else(|| format!("call {call}"));
            *n.entry(label).or_insert(0) += 1;
        }
        n
    }

    /// Nothing of any run is in the state dir: runs live in the database.
    pub(crate) fn assert_no_local_runs(&self) {
        let runs = self.ctx.state().join("runs");
        let n = std::fs::read_dir(&runs).map_or(0, Iterator::count);
        assert_eq!(
            n,
            0,
            "the shared store's runs must not be written to {}",
            runs.display()
        );
    }
}

impl Drop for Pg {
    fn drop(&mut self) {
        let _ = Command::new(crate::common::psql())
            .args([
                self.cluster.as_str(),
                "-qc",
                &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.db),
            ])
            .output();
    }
}

/// The cluster's connection string with another database.
fn with_dbname(cluster: &str, db: &str) -> String {
    let mut words: Vec<String> = cluster
        .split_whitespace()
        .filter(|w| !w.starts_with("dbname="))
        .map(str::to_owned)
        .collect();
    words.push(format!("dbname={db}"));
    words.join(" ")
}

/// A fixture answering each label with `{"label": …}` (some after a delay).
pub(crate) fn fixture(pg: &Pg, labels: &[&str], slow: &[(&str, u64)]) -> String {
    let mut rules: Vec<Value> = slow
        .iter()
        .map(|(l, ms)| json!({"match": {"label": l}, "output": {"label": l}, "delay_ms": ms}))
        .collect();
    rules.extend(
        labels
            .iter()
            .map(|l| json!({"match": {"label": l}, "output": {"label": l}})),
    );
    pg.ctx
        .write("fixture.json", json!({"responses": rules}).to_string())
        .to_str()
        .expect("utf8")
        .to_owned()
}

#[test]
fn a_wait_inside_parallel_parks_and_a_runner_continues_it_on_postgres() {
    let Some(pg) = Pg::new("a_wait_inside_parallel_parks_and_a_runner_continues_it_on_postgres") else {
        return;
    };
    let f = fixture(&pg, &["sibling", "after"], &[]);
    let script = pg.ctx.write(
        "ask.js",
        r#"export const meta = { name: "ask-in-parallel", description: "a question inside parallel" };
const [answer, other] = await parallel([
  () => capability("human.ask", { prompt: "go?" }),
  () => agent("sibling work", { label: "sibling" }),
]);
const last = await agent("after", { label: "after" });
return { answer: answer?.answer ?? null, other: other?.label ?? null, last: last?.label ?? null };
"#,
    );
    let out = pg.hwf(&["run", script.to_str().expect("utf8"), "--agents", &f, "--json"]);
    out.expect_code(3);
    let id = run_id(&out.json());
    let s = pg.status(&id);
    assert_eq!(s["state"], "waiting", "{s}");
    let call = s["waits"][0]["call"].as_str().expect("wait call").to_owned();
    // The review queue and the overview read the database too.
    let waits = pg.hwf(&["waits", "--json"]);
    waits.expect_code(0);
    assert!(waits.stdout.contains(&call), "{}", waits.stdout);
    pg.hwf(&["control", "decide", &id, &call, "respond", "--value", "\"go\""])
        .expect_code(0);
    let pass = pg.runner_once();
    assert_eq!(pass["executed"][0][0], id.as_str(), "{pass}");
    let s = pg.status(&id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(
        s["result"],
        json!({"answer": "go", "other": "sibling", "last": "after"})
    );
    // The sibling ran once (replayed on the continuation), `after` once.
    let runs = pg.executions();
    assert_eq!(
        (runs.get("sibling"), runs.get("after")),
        (Some(&1), Some(&1)),
        "{runs:?}"
    );
    // Seqs contiguous over both executions, two executions recorded.
    let journal = pg.journal(&id);
    let seqs: Vec<u64> = journal.iter().filter_map(|e| e["seq"].as_u64()).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    assert_eq!(journal.iter().filter(|e| e["type"] == "run_started").count(), 2);
    // Each live agent call's transcript went through the journal's writer
    // task (off the call's path) and was in the database when the run ended.
    let mut labels: Vec<String> = pg
        .sql(&format!(
            "SELECT convert_from(bytes, 'UTF8')::jsonb->>'label' || ' ' || (convert_from(bytes, 'UTF8')::jsonb->>'state') \
             FROM hwf_artifacts WHERE run_id = '{id}' AND ref LIKE 'transcripts/%'"
        ))
        .lines()
        .map(str::to_owned)
        .collect();
    labels.sort();
    assert_eq!(labels, ["after done", "sibling done"], "transcripts of the live calls");
    let overview = pg.hwf(&["overview", "--json"]);
    overview.expect_code(0);
    assert!(overview.stdout.contains(&id), "{}", overview.stdout);
    pg.assert_no_local_runs();
}

#[test]
fn a_saved_script_in_the_database_runs_nested_and_parks_inside_it() {
    let Some(pg) = Pg::new("a_saved_script_in_the_database_runs_nested_and_parks_inside_it") else {
        return;
    };
    let f = fixture(&pg, &["child-agent"], &[]);
    let child = pg.ctx.write(
        "child.js",
        r#"export const meta = { name: "child", description: "a saved child" };
const r = await agent("child work", { label: "child-agent" });
const a = await capability("human.ask", { prompt: "child asks" });
return { child: r?.label ?? null, answer: a?.answer ?? null, got: args };
"#,
    );
    pg.hwf(&["script", "save", "child", child.to_str().expect("utf8")])
        .expect_code(0);
    assert_eq!(
        pg.sql("SELECT count(*) FROM hwf_scripts").trim(),
        "1",
        "saved in the database"
    );
    let parent = pg.ctx.write(
        "parent.js",
        r#"export const meta = { name: "parent", description: "calls a saved script" };
const out = await workflow("child", { n: 7 });
return { out };
"#,
    );
    let run = pg.hwf(&["run", parent.to_str().expect("utf8"), "--agents", &f, "--json"]);
    run.expect_code(3);
    let id = run_id(&run.json());
    let s = pg.status(&id);
    let call = s["waits"][0]["call"].as_str().expect("wait").to_owned();
    pg.hwf(&["control", "decide", &id, &call, "respond", "--value", "\"sure\""])
        .expect_code(0);
    pg.runner_once();
    let s = pg.status(&id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(
        s["result"],
        json!({"out": {"child": "child-agent", "answer": "sure", "got": {"n": 7}}})
    );
    assert_eq!(pg.executions().get("child-agent"), Some(&1), "{:?}", pg.executions());
    // A saved script runs by name from the database, as a queued run too.
    let queued = pg.hwf(&["run", "child", "--args", "{}", "--background", "--queue-only", "--json"]);
    queued.expect_code(0);
    pg.assert_no_local_runs();
}

/// Poll `cond` every 20 ms until it holds or `limit` passes.
pub(crate) fn wait_for(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let t = Instant::now();
    while !cond() {
        assert!(t.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `hwf run SCRIPT --agents FIXTURE` on `pg` (a 600 ms lease), killed
/// with SIGKILL once the call labelled `label` has started; the run's id.
pub(crate) fn run_killed_during(pg: &Pg, script: &Path, fixture: &str, label: &str) -> String {
    let mut child = pg
        .cmd()
        .env("HWF_LEASE_MS", "600")
        .args(["run", script.to_str().expect("utf8"), "--agents", fixture, "--json"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let started = format!("SELECT count(*) FROM hwf_journal WHERE kind = 'call_started' AND line LIKE '%\"{label}\"%'");
    wait_for(Duration::from_secs(20), "the call to start", || {
        pg.try_sql(&started).is_ok_and(|n| n.trim() == "1")
    });
    child.kill().expect("kill -9");
    let _ = child.wait();
    pg.sql("SELECT run_id FROM hwf_runs").trim().to_owned()
}

/// `hwf runner --once` (a 600 ms lease) until a pass executed a run (the
/// killed run's lease expired); how many passes that took.
pub(crate) fn take_over(pg: &Pg) -> usize {
    let mut passes = 0;
    wait_for(Duration::from_secs(20), "a runner to take the run over", || {
        passes += 1;
        let out: Run = pg
            .cmd()
            .env("HWF_LEASE_MS", "600")
            .args(["runner", "--once", "--json"])
            .output()
            .expect("runner")
            .into();
        out.json()["data"]["executed"].as_array().is_some_and(|a| !a.is_empty())
    });
    passes
}

#[test]
fn a_killed_executor_is_taken_over_after_its_lease_and_completed_calls_do_not_run_again() {
    let Some(pg) = Pg::new("a_killed_executor_is_taken_over_after_its_lease") else {
        return;
    };
    let f = fixture(&pg, &["first", "last"], &[("slow", 600)]);
    let script = pg.ctx.write(
        "three.js",
        r#"export const meta = { name: "three", description: "three calls, the middle one slow" };
const a = await agent("one", { label: "first" });
const b = await agent("two", { label: "slow" });
const c = await agent("three", { label: "last" });
return [a.label, b.label, c.label];
"#,
    );
    // Killed while the slow call is in flight (its start is journaled).
    let id = run_killed_during(&pg, &script, &f, "slow");
    // Until the lease expires the run counts as running: nobody takes it.
    let early = pg
        .cmd()
        .env("HWF_LEASE_MS", "600")
        .args(["runner", "--once", "--json"])
        .output();
    let early: Run = early.expect("runner").into();
    early.expect_code(0);
    let taken_early = early.json()["data"]["executed"]
        .as_array()
        .is_some_and(|a| !a.is_empty());
    // Then a runner takes it over (stuck) and finishes it.
    let t = Instant::now();
    let passes = if taken_early { 0 } else { take_over(&pg) };
    let s = pg.status(&id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"], json!(["first", "slow", "last"]));
    let runs = pg.executions();
    // Completed before the kill: once. In flight at the kill: again.
    assert_eq!(runs.get("first"), Some(&1), "{runs:?}");
    assert_eq!(runs.get("slow"), Some(&2), "{runs:?}");
    assert_eq!(runs.get("last"), Some(&1), "{runs:?}");
    let tokens = pg.sql(&format!("SELECT token FROM hwf_claims WHERE run_id = '{id}'"));
    assert!(
        tokens.trim().parse::<u64>().expect("token") >= 2,
        "taken over: {tokens}"
    );
    println!(
        "takeover: {} runner passes, {} ms after the kill (lease 600 ms); taken before expiry: {taken_early}",
        passes,
        t.elapsed().as_millis()
    );
    pg.assert_no_local_runs();
}

#[test]
fn a_stop_from_another_process_ends_a_running_run_on_postgres() {
    let Some(pg) = Pg::new("a_stop_from_another_process_ends_a_running_run_on_postgres") else {
        return;
    };
    let f = fixture(&pg, &[], &[("slow", 20_000)]);
    let script = pg.ctx.write(
        "slow.js",
        r#"export const meta = { name: "slow", description: "one slow call" };
return await agent("wait", { label: "slow" });
"#,
    );
    let child = pg
        .cmd()
        .args(["run", script.to_str().expect("utf8"), "--agents", &f, "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    wait_for(Duration::from_secs(20), "the call to start", || {
        pg.try_sql("SELECT count(*) FROM hwf_journal WHERE kind = 'call_started'")
            .is_ok_and(|n| n.trim() == "1")
    });
    let id = pg.sql("SELECT run_id FROM hwf_runs").trim().to_owned();
    let t = Instant::now();
    pg.hwf(&["control", "stop", &id]).expect_code(0);
    let out = child.wait_with_output().expect("run ends");
    let stopped_in = t.elapsed();
    let s = pg.status(&id);
    assert_eq!(s["state"], "stopped", "{s}");
    assert!(
        stopped_in < Duration::from_secs(5),
        "the stop reached the running process through the database in {stopped_in:?} (NOTIFY, poll fallback 500 ms)"
    );
    assert!(!out.status.success());
    println!("stop → process exit: {} ms", stopped_in.as_millis());
}

#[test]
fn a_run_queued_from_a_file_is_executed_by_a_runner_on_another_machine() {
    let Some(pg) = Pg::new("a_run_queued_from_a_file_is_executed_by_a_runner_on_another_machine") else {
        return;
    };
    let f = fixture(&pg, &["remote"], &[]);
    let script = pg.ctx.write(
        "here.js",
        r#"export const meta = { name: "here", description: "queued on one machine" };
const r = await agent("work", { label: "remote" });
return { done: r.label, n: args.n };
"#,
    );
    let id = pg.queue(&script, &["--args", r#"{"n": 3}"#, "--agents", &f]);
    // The other machine has neither the file nor this state dir.
    std::fs::remove_file(&script).expect("remove");
    let elsewhere = pg.ctx.path("machine-b");
    let pass: Run = pg
        .cmd()
        .env("HWF_STATE_DIR", &elsewhere)
        .args(["runner", "--once", "--json"])
        .output()
        .expect("runner")
        .into();
    pass.expect_code(0);
    assert_eq!(pass.json()["data"]["executed"][0][0], id.as_str(), "{}", pass.stdout);
    let s = pg.status(&id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"], json!({"done": "remote", "n": 3}));
    assert_eq!(pg.executions().get("remote"), Some(&1));
    // Resumed on the other machine too, with no agent backend: replayed.
    let again: Run = pg
        .cmd()
        .env("HWF_STATE_DIR", &elsewhere)
        .args(["run", "--resume-from", &id, "--json"])
        .output()
        .expect("resume")
        .into();
    again.expect_code(0);
    assert_eq!(
        again.json()["data"]["result"],
        json!({"done": "remote", "n": 3}),
        "{}",
        again.stdout
    );
    assert_eq!(pg.executions().get("remote"), Some(&1), "replayed, not run again");
}

#[test]
fn a_run_that_cannot_start_does_not_hold_up_the_queue_behind_it() {
    let Some(pg) = Pg::new("a_run_that_cannot_start_does_not_hold_up_the_queue_behind_it") else {
        return;
    };
    let f = fixture(&pg, &["ok"], &[]);
    let body = r#"export const meta = { name: "q", description: "queued" };
return (await agent("x", { label: "ok" })).label;
"#;
    let changed = pg.ctx.write("changed.js", body);
    let good = pg.ctx.write("good.js", body.replace("queued", "queued too"));
    let (first, second) = (
        pg.queue(&changed, &["--agents", &f]),
        pg.queue(&good, &["--agents", &f]),
    );
    // The first one's file changes under it: it cannot start (resume_mismatch).
    std::fs::write(&changed, body.replace("queued", "edited")).expect("edit");
    let pass = pg.runner_once();
    assert_eq!(pass["executed"], json!([[second, "succeeded"]]), "{pass}");
    assert_eq!(pass["errors"][0][0], first.as_str(), "{pass}");
    assert_eq!(pg.status(&first)["state"], "queued");
    // Its claim was let go at the end of the pass: the next pass tries again.
    assert_eq!(pg.runner_once()["errors"][0][0], first.as_str());
}

#[test]
fn an_idle_runner_is_woken_by_the_database_when_work_arrives() {
    let Some(pg) = Pg::new("an_idle_runner_is_woken_by_the_database_when_work_arrives") else {
        return;
    };
    let f = fixture(&pg, &["woken"], &[]);
    let script = pg.ctx.write(
        "wake.js",
        r#"export const meta = { name: "wake", description: "queued for an idle runner" };
const r = await agent("x", { label: "woken" });
const a = await capability("human.ask", { prompt: "more?" });
return { r: r.label, a: a.answer };
"#,
    );
    // The poll is 20 s: only a notification can wake the runner sooner.
    let mut runner = pg
        .cmd()
        .env("HWF_RUNNER_POLL_MS", "20000")
        .args(["runner", "--idle-exit-after", "60"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runner");
    // Its first pass is done once it reports what it found.
    let mut err = std::io::BufReader::new(runner.stderr.take().expect("stderr"));
    let mut line = String::new();
    std::io::BufRead::read_line(&mut err, &mut line).expect("runner's first line");
    assert!(line.starts_with("hwf runner:"), "{line}");
    let id = pg.queue(&script, &["--agents", &f]);
    let t = Instant::now();
    wait_for(Duration::from_secs(10), "the queued run to park", || {
        pg.status(&id)["state"] == "waiting"
    });
    let queued_to_parked = t.elapsed();
    let call = pg.status(&id)["waits"][0]["call"].as_str().expect("wait").to_owned();
    let t = Instant::now();
    pg.hwf(&["control", "decide", &id, &call, "respond", "--value", "\"yes\""])
        .expect_code(0);
    wait_for(Duration::from_secs(10), "the decided run to finish", || {
        pg.status(&id)["state"] == "succeeded"
    });
    let decided_to_done = t.elapsed();
    let _ = runner.kill();
    let _ = runner.wait();
    assert_eq!(pg.status(&id)["result"], json!({"r": "woken", "a": "yes"}));
    println!(
        "idle runner woken: queued → parked {} ms, decided → done {} ms (poll 20 s)",
        queued_to_parked.as_millis(),
        decided_to_done.as_millis()
    );
}

/// The seam: a finalizer is "exactly once" across machines. The executor
/// on one machine is killed while a resource's finalizer runs; a runner on
/// another machine (another state dir, the same database) takes the run
/// over, replays it to its end and does not run that finalizer again: the
/// start was journaled, durably, before it ran.
#[test]
fn a_finalizer_interrupted_on_one_machine_is_not_run_again_on_another() {
    let Some(pg) = Pg::new("a_finalizer_interrupted_on_one_machine_is_not_run_again_on_another") else {
        return;
    };
    let f = fixture(&pg, &["work"], &[]);
    let script = pg.ctx.write(
        "fin.js",
        r#"export const meta = { name: "fin", description: "declares a session with a slow finalizer" };
await capability("resource.declare", { kind: "session", name: "s",
  finalizer: { capability: "bash", input: { argv: ["sh", "-c", "echo finalized >> count.txt; sleep 3"] }, approval_id: "fin" } });
const r = await agent("work", { label: "work" });
return { done: r.label };
"#,
    );
    let cfg = pg.ctx.write(
        "hwf.toml",
        "[policy]\nallowed_classes = [\"read_only\", \"external_write\"]\napproved_ids = [\"fin=bash\"]\n",
    );
    let cfg = cfg.to_str().expect("utf8");
    let count = || std::fs::read_to_string(pg.ctx.path("count.txt")).map_or(0, |t| t.lines().count());
    let mut a = pg
        .cmd()
        .env("HWF_LEASE_MS", "600")
        .args([
            "--config",
            cfg,
            "run",
            script.to_str().expect("utf8"),
            "--agents",
            &f,
            "--json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("machine a");
    wait_for(Duration::from_secs(60), "the finalizer to start on machine a", || {
        count() == 1
    });
    a.kill().expect("kill -9");
    a.wait().expect("wait");
    // Machine B: another state dir, the same database; it takes the run
    // over once machine A's lease is gone.
    let elsewhere = pg.ctx.path("machine-b");
    let mut taken = None;
    wait_for(Duration::from_secs(30), "machine b to take the run over", || {
        let pass: Run = pg
            .cmd()
            .env("HWF_STATE_DIR", &elsewhere)
            .args(["--config", cfg, "runner", "--once", "--json"])
            .output()
            .expect("runner")
            .into();
        pass.expect_code(0);
        let executed = pass.json()["data"]["executed"].clone();
        let done = executed.as_array().is_some_and(|e| !e.is_empty());
        if done {
            taken = Some(executed);
        }
        done
    });
    let executed = taken.expect("taken over");
    let id = executed[0][0].as_str().expect("id").to_owned();
    let s = pg.status(&id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(count(), 1, "the finalizer ran once, on machine a only");
    assert_eq!(
        s["resources"][0]["outcome"]["state"], "interrupted",
        "started and never finished: {s}"
    );
    assert_eq!(pg.executions().get("work"), Some(&1), "the agent call was replayed");
    let started = pg
        .journal(&id)
        .iter()
        .filter(|e| e["type"] == "finalizer_started")
        .count();
    assert_eq!(started, 1);
}

#[test]
fn background_runs_queued_with_store_on_the_command_line_run_there_in_one_runner() {
    let Some(pg) = Pg::new("background_runs_queued_with_store_on_the_command_line_run_there_in_one_runner") else {
        return;
    };
    let f = fixture(&pg, &["a"], &[("step", 300)]);
    let program = json!({"op": "program", "program": {"seq": [{"agent": "step"}, {"agent": "a"}]}}).to_string();
    // `--store` on the command line only (no HWF_STORE): the background
    // runner it starts must be given it, or it would serve the state dir.
    let mut ids = Vec::new();
    for _ in 0..60 {
        let out: Run = pg
            .ctx
            .cmd()
            .args([
                "--store",
                &pg.url,
                "run",
                crate::common::harnesses::PROBE,
                "--background",
            ])
            .args(["--args", &program, "--agents", &f, "--json"])
            .env("HWF_FIXTURE_LOG", pg.ctx.path("calls.log"))
            .output()
            .expect("hwf")
            .into();
        out.expect_code(0);
        ids.push(run_id(&out.json()));
    }
    wait_for(Duration::from_secs(30), "60 background runs to finish", || {
        pg.sql("SELECT count(*) FROM hwf_runs WHERE snapshot->>'state' = 'succeeded'")
            .trim()
            == "60"
    });
    // None of them lives in the state dir, and each call ran once.
    let local_runs = std::fs::read_dir(pg.ctx.state().join("runs")).map_or(0, Iterator::count);
    assert_eq!(local_runs, 0, "a run was written to the state dir");
    let log = std::fs::read_to_string(pg.ctx.path("calls.log")).expect("calls log");
    for id in &ids {
        for call in ["1", "2"] {
            let key = format!("{id}:{call}");
            let n = log
                .lines()
                .filter(|l| l.split_whitespace().next() == Some(&key))
                .count();
            assert_eq!(n, 1, "{id}:{call} executed {n} times");
        }
    }
}
