//! Decisions take effect at once from every front door (issue 26): `hwf
//! control decide|resume` and `hwf events send` hand a parked run to the
//! state dir's runner — the background runner, started on demand, or a
//! long-lived `hwf runner` already serving the state dir — with nobody
//! running `hwf runner` by hand; `[runner] autostart = false` /
//! `HWF_RUNNER_AUTOSTART=0` only record, for a runner the operator
//! manages. `hwf status` says which.

use crate::common::{Ctx, harnesses, run_id, status};
use serde_json::{Value, json};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The most a wake may take (a runner starts in tens of ms and scans at
/// once; this leaves room for a loaded machine).
const WITHIN: Duration = Duration::from_secs(20);

/// `hwf run probe --args ARGS --json [flags…]` that parks (exit 3); the
/// run's id.
fn park(ctx: &Ctx, args: Value, flags: &[&str]) -> String {
    let out = ctx.run_json(harnesses::PROBE, &args.to_string(), flags);
    out.expect_code(3);
    run_id(&out.json())
}

fn ask() -> Value {
    json!({"op": "cap", "name": "human.ask", "input": {"prompt": "Ship it?"}})
}

/// Poll `hwf status` until the run is in `state` (short polls, bounded by
/// [`WITHIN`]); its status data.
fn wait_state(ctx: &Ctx, id: &str, state: &str) -> Value {
    let t = Instant::now();
    loop {
        let s = status(ctx, id);
        if s["state"] == state {
            return s;
        }
        assert!(
            t.elapsed() < WITHIN,
            "run {id} still {} after {WITHIN:?}, not {state}: {s}",
            s["state"]
        );
        std::thread::sleep(Duration::from_millis(40));
    }
}

/// Whether a background runner was ever started in this state dir (its
/// starter creates `runner.log` for its stderr).
fn background_runner_started(ctx: &Ctx) -> bool {
    ctx.state().join("runner.log").exists()
}

/// The pids of the runners that published a status file.
fn published_runners(ctx: &Ctx) -> Vec<String> {
    let mut pids: Vec<String> = std::fs::read_dir(ctx.state().join("runners"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".json"))
                .map(str::to_owned)
        })
        .collect();
    pids.sort();
    pids
}

#[test]
fn a_cli_decision_finishes_a_parked_question_with_no_runner_started_by_hand() {
    let ctx = Ctx::new();
    let id = park(&ctx, ask(), &[]);
    // Nothing was started for a run that only parked.
    assert!(!background_runner_started(&ctx));
    // `hwf status` says what the answer will do.
    let shown = ctx.hwf(["status", &id]);
    shown.expect_code(0);
    shown.expect_stderr("a decision continues it at once (the background runner");
    let decided = ctx.hwf(["control", "decide", &id, "1", "respond", "--value", "\"yes\"", "--json"]);
    decided.expect_code(0);
    assert_eq!(decided.json()["data"]["recorded"], true, "{decided:?}");
    let t = Instant::now();
    let s = wait_state(&ctx, &id, "succeeded");
    eprintln!("decided -> succeeded in {:?}", t.elapsed());
    assert_eq!(s["result"]["ok"]["answer"], "yes", "{s}");
    assert!(background_runner_started(&ctx), "the background runner continued it");
    // The same decision again records nothing and starts nothing.
    let again = ctx.hwf(["control", "decide", &id, "1", "respond", "--value", "\"yes\"", "--json"]);
    assert_ne!(again.json()["data"]["recorded"], true, "{again:?}");
}

#[test]
fn a_cli_approval_runs_the_gated_call_at_once() {
    let ctx = Ctx::new();
    let call = json!({"op": "cap", "name": "bash", "input": {"argv": ["echo", "shipped"]}});
    let id = park(&ctx, call, &["--allow-class", "external_write"]);
    assert_eq!(status(&ctx, &id)["waits"][0]["kind"], "approval");
    ctx.hwf(["control", "decide", &id, "1", "approve", "--reason", "release 42"])
        .expect_code(0);
    let s = wait_state(&ctx, &id, "succeeded");
    assert_eq!(s["result"]["ok"]["stdout"], "shipped\n", "{s}");
}

/// `hwf run probe` making `n` slow agent calls, in the background of the
/// test (its output piped).
fn spawn_slow_run(ctx: &Ctx, id: &str, n: u64) -> Child {
    let f = ctx.write(
        "slow.json",
        r#"{"responses": [{"match": {"agent": "bench.echo"}, "output": {"ok": true}, "delay_ms": 100}]}"#,
    );
    ctx.cmd()
        .args(["run", harnesses::PROBE, "--run-id", id, "--json", "--agents"])
        .arg(f)
        .args(["--args", &json!({"op": "agent", "n": n}).to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn hwf run")
}

/// Wait until the run's journal has an entry of type `ty`.
fn wait_journal(ctx: &Ctx, id: &str, ty: &str) {
    let path = ctx.state().join("runs").join(id).join("journal.jsonl");
    let t = Instant::now();
    while !std::fs::read_to_string(&path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .any(|e| e["type"] == ty)
    {
        assert!(t.elapsed() < WITHIN, "run {id} journaled no {ty}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn resume_continues_a_paused_run_at_once() {
    let ctx = Ctx::new();
    let child = spawn_slow_run(&ctx, "p1", 6);
    wait_journal(&ctx, "p1", "call_started");
    // A running run applies a pause itself: nothing is started for it.
    ctx.hwf(["control", "pause", "p1"]).expect_code(0);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(3), "parked by the pause");
    let s = status(&ctx, "p1");
    assert_eq!(s["waits"][0]["kind"], "pause", "{s}");
    let shown = ctx.hwf(["status", "p1"]);
    shown.expect_stderr("`hwf control resume` continues it at once");
    ctx.hwf(["control", "resume", "p1"]).expect_code(0);
    let s = wait_state(&ctx, "p1", "succeeded");
    assert_eq!(s["result"]["calls"], 6, "{s}");
}

/// `hwf events send --source github --type pr.merged --id ID --payload
/// {"number": N} --json`'s data.
fn send(ctx: &Ctx, id: &str, number: u64) -> Value {
    let out = ctx.hwf([
        "events",
        "send",
        "--source",
        "github",
        "--type",
        "pr.merged",
        "--id",
        id,
        "--payload",
        &json!({"number": number}).to_string(),
        "--json",
    ]);
    out.expect_code(0);
    out.json()["data"].clone()
}

#[test]
fn a_new_event_wakes_the_run_waiting_on_it() {
    let ctx = Ctx::new();
    let wait = json!({"op": "cap", "name": "events.wait", "input": {"source": "github", "type": "pr.merged", "payload": {"number": 42}}});
    let id = park(&ctx, wait, &[]);
    ctx.hwf(["status", &id])
        .expect_stderr("a matching event continues it at once");
    // An event recorded before (here with autostart off) is not new: it
    // starts nothing.
    let quiet: crate::common::Run = ctx
        .cmd()
        .env("HWF_RUNNER_AUTOSTART", "0")
        .args(["events", "send", "--source", "ci", "--type", "build", "--id", "e0"])
        .output()
        .expect("hwf")
        .into();
    quiet.expect_code(0);
    let again = ctx.hwf([
        "events", "send", "--source", "ci", "--type", "build", "--id", "e0", "--json",
    ]);
    assert_eq!(again.json()["data"]["new"], false, "{again:?}");
    assert!(
        !background_runner_started(&ctx),
        "a runner was started for an old event"
    );
    // Another PR: the runner looks, the run still waits.
    assert_eq!(send(&ctx, "e1", 7)["new"], true);
    assert!(background_runner_started(&ctx), "a new event goes to the runner");
    assert_eq!(status(&ctx, &id)["state"], "waiting");
    // Its PR: it ends with that event, at once.
    send(&ctx, "e2", 42);
    let s = wait_state(&ctx, &id, "succeeded");
    assert_eq!(s["result"]["ok"]["id"], "e2", "{s}");
}

#[test]
fn with_autostart_off_a_decision_is_only_recorded_until_a_runner_runs() {
    // By the environment…
    let ctx = Ctx::manual_runner();
    let id = park(&ctx, ask(), &[]);
    ctx.hwf(["status", &id]).expect_stderr(
        "a decision is recorded, and it continues when a runner runs (`hwf runner`; runner autostart is off)",
    );
    ctx.hwf(["control", "decide", &id, "1", "respond", "--value", "\"yes\""])
        .expect_code(0)
        .expect_stderr("runner autostart is off");
    // `--background` only queues, too.
    let queued = ctx.hwf([
        "run",
        harnesses::PROBE,
        "--background",
        "--args",
        r#"{"op":"agent","n":0}"#,
        "--json",
    ]);
    queued.expect_code(0);
    let queued = run_id(&queued.json());
    assert!(!background_runner_started(&ctx), "autostart is off");
    assert!(published_runners(&ctx).is_empty());
    assert_eq!(status(&ctx, &id)["state"], "waiting");
    assert_eq!(status(&ctx, &queued)["state"], "queued");
    let pass = crate::common::runner_once(&ctx);
    assert_eq!(pass["ready"], json!([id]), "{pass}");
    assert_eq!(status(&ctx, &id)["state"], "succeeded");
    assert_eq!(status(&ctx, &queued)["state"], "succeeded");

    // …and by hwf.toml (the working directory's).
    let ctx = Ctx::new();
    ctx.write("hwf.toml", "[runner]\nautostart = false\n");
    let id = park(&ctx, ask(), &[]);
    ctx.hwf(["control", "decide", &id, "1", "respond", "--value", "\"yes\""])
        .expect_code(0);
    assert!(!background_runner_started(&ctx));
    assert_eq!(status(&ctx, &id)["state"], "waiting");
    // The environment wins over the file.
    let id2 = park(&ctx, ask(), &[]);
    let on: crate::common::Run = ctx
        .cmd()
        .env("HWF_RUNNER_AUTOSTART", "1")
        .args(["control", "decide", &id2, "1", "respond", "--value", "\"yes\""])
        .output()
        .expect("hwf")
        .into();
    on.expect_code(0);
    wait_state(&ctx, &id2, "succeeded");
    // The background runner continued the other answered run too.
    wait_state(&ctx, &id, "succeeded");
}

#[test]
fn a_bad_autostart_value_is_a_typed_error_naming_it_and_records_nothing() {
    let ctx = Ctx::new();
    let id = park(&ctx, ask(), &[]);
    let bad: crate::common::Run = ctx
        .cmd()
        .env("HWF_RUNNER_AUTOSTART", "sometimes")
        .args(["control", "decide", &id, "1", "respond", "--value", "\"yes\"", "--json"])
        .output()
        .expect("hwf")
        .into();
    bad.expect_code(2);
    let e = &bad.json()["error"];
    assert_eq!(e["code"], "invalid_config", "{bad:?}");
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.contains("HWF_RUNNER_AUTOSTART") && m.contains("sometimes")),
        "{bad:?}"
    );
    assert_eq!(status(&ctx, &id)["controls"], json!([]), "nothing was recorded");
    ctx.write("hwf.toml", "[runner]\nautostart = \"sometimes\"\n");
    let bad = ctx.hwf(["status", &id, "--json"]);
    bad.expect_code(2);
    assert_eq!(bad.json()["error"]["code"], "invalid_config", "{bad:?}");
    assert!(bad.stdout.contains("autostart"), "{bad:?}");
}

/// A child process killed (and reaped) when dropped.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_live_long_lived_runner_serves_the_decision_and_no_background_runner_starts() {
    let ctx = Ctx::new();
    let id = park(&ctx, ask(), &[]);
    let runner = Reaped(
        ctx.cmd()
            .args(["runner", "--json"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("hwf runner"),
    );
    let pid = runner.0.id().to_string();
    let t = Instant::now();
    while published_runners(&ctx) != [pid.clone()] {
        assert!(t.elapsed() < WITHIN, "the runner never published its status");
        std::thread::sleep(Duration::from_millis(10));
    }
    ctx.hwf(["status", &id]).expect_stderr(&format!(
        "a decision continues it at once (the long-lived runner, pid {pid})"
    ));
    ctx.hwf(["control", "decide", &id, "1", "respond", "--value", "\"yes\""])
        .expect_code(0);
    wait_state(&ctx, &id, "succeeded");
    assert!(
        !background_runner_started(&ctx),
        "a background runner was started beside a runner serving the state dir"
    );
    assert_eq!(published_runners(&ctx), std::slice::from_ref(&pid));
    // A runner that leaves when idle does not count: the decision starts
    // the background runner.
    drop(runner);
    let leaving = Reaped(
        ctx.cmd()
            .args(["runner", "--idle-exit-after", "30", "--json"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("hwf runner"),
    );
    let leaving_pid = leaving.0.id().to_string();
    let t = Instant::now();
    while !published_runners(&ctx).contains(&leaving_pid) {
        assert!(t.elapsed() < WITHIN, "the runner never published its status");
        std::thread::sleep(Duration::from_millis(10));
    }
    let id2 = park(&ctx, ask(), &[]);
    ctx.hwf(["control", "decide", &id2, "1", "respond", "--value", "\"no\""])
        .expect_code(0);
    assert!(background_runner_started(&ctx));
    wait_state(&ctx, &id2, "succeeded");
}

#[test]
fn on_postgres_a_decision_and_an_awaited_event_start_this_machines_background_runner() {
    let Some(pg) = crate::shared_store::Pg::new("on_postgres_a_decision_and_an_awaited_event") else {
        return;
    };
    // `hwf` on the database with autostart on (Pg::cmd turns it off).
    let hwf = |args: &[&str]| -> crate::common::Run {
        pg.ctx
            .cmd()
            .env("HWF_STORE", pg.url())
            .args(args)
            .output()
            .expect("hwf")
            .into()
    };
    let parked = |program: Value| -> String {
        let out = hwf(&["run", harnesses::PROBE, "--args", &program.to_string(), "--json"]);
        out.expect_code(3);
        run_id(&out.json())
    };
    let wait_for = |id: &str, state: &str| {
        let t = Instant::now();
        while pg.status(id)["state"] != state {
            assert!(t.elapsed() < WITHIN, "run {id} is not {state} after {WITHIN:?}");
            std::thread::sleep(Duration::from_millis(40));
        }
    };
    let started = || pg.ctx.state().join("runner.log").exists();
    let asked = parked(ask());
    // No run waits on an event: a new one starts nothing here (on a shared
    // store that is one query to find out).
    hwf(&["events", "send", "--source", "ci", "--type", "build", "--id", "b1"]).expect_code(0);
    assert!(!started(), "a runner was started for an event nobody waits on");
    hwf(&["control", "decide", &asked, "1", "respond", "--value", "\"yes\""]).expect_code(0);
    wait_for(&asked, "succeeded");
    assert!(started(), "the decision started this machine's background runner");
    let waiting = parked(json!({"op": "cap", "name": "events.wait", "input": {"source": "ci", "type": "deploy"}}));
    hwf(&["events", "send", "--source", "ci", "--type", "deploy", "--id", "d1"]).expect_code(0);
    wait_for(&waiting, "succeeded");
    assert_eq!(
        std::fs::read_dir(pg.ctx.state().join("runs")).map_or(0, Iterator::count),
        0,
        "the runs live in the database"
    );
}
