//! Durable runs end to end: resume by replay, crash recovery, waits on
//! events / humans / approvals / timers, operator controls, the runner.

use crate::common::{Ctx, harnesses, root, run_id, runner_once, status};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn data(v: &Value) -> &Value {
    &v["data"]
}

fn probe(ctx: &Ctx, args: Value, flags: &[&str]) -> crate::common::Run {
    ctx.run_json(harnesses::PROBE, &args.to_string(), flags)
}

#[test]
fn resume_replays_every_call_with_no_agent_backend() {
    let ctx = Ctx::new();
    let fixture = root().join("harnesses/loop-until-dry/fixture.json");
    let first = ctx.run_json(
        harnesses::LOOP_UNTIL_DRY,
        "{}",
        &["--agents", fixture.to_str().expect("utf8")],
    );
    first.expect_code(0);
    let first = first.json();
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let id = run_id(&first);
    let again = ctx.hwf([
        "run",
        "--resume-from",
        &id,
        "--agents",
        empty.to_str().expect("utf8"),
        "--json",
    ]);
    again.expect_code(0);
    let again = again.json();
    assert_eq!(data(&again)["result"], data(&first)["result"]);
    // No live agent call could succeed (the fixture is empty); the replayed
    // calls stay charged to the run's budget.
    assert_eq!(data(&again)["counts"]["agent_calls"], 8, "the replays are charged");
    assert_eq!(data(&again)["counts"]["replayed"], 8);
    let s = status(&ctx, &run_id(&again));
    assert_eq!(s["resumed_from"], id.as_str());
    assert_eq!(s["progress"]["replayed"], 8);
}

#[test]
fn resume_refuses_changed_args_or_component() {
    let ctx = Ctx::new();
    let fixture = root().join("harnesses/hello/fixture.json");
    let f = fixture.to_str().expect("utf8");
    let first = ctx.run_json(harnesses::HELLO, r#"{"name":"world"}"#, &["--agents", f]);
    first.expect_code(0);
    let id = run_id(&first.json());
    ctx.hwf([
        "run",
        harnesses::HELLO,
        "--resume-from",
        &id,
        "--args",
        r#"{"name":"mars"}"#,
    ])
    .expect_code(2)
    .expect_stderr("resume_mismatch");
    ctx.hwf([
        "run",
        harnesses::PROBE,
        "--resume-from",
        &id,
        "--args",
        r#"{"name":"world"}"#,
    ])
    .expect_code(2)
    .expect_stderr("resume_mismatch");
    // --allow-changed accepts changed args, and replay still goes by
    // fingerprint: an args field no call uses changes no call, so both
    // replay with no backend at all…
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let e = empty.to_str().expect("utf8");
    let log = ctx.path("calls.log");
    let resume = |args: &str, component: &str, agents: &str| {
        let out = ctx
            .cmd()
            .env("HWF_FIXTURE_LOG", &log)
            .args(["run", component, "--resume-from", &id, "--args", args])
            .args(["--allow-changed", "--agents", agents, "--json"])
            .output()
            .expect("resume");
        let out: crate::common::Run = out.into();
        out.expect_code(0);
        out.json()["data"].clone()
    };
    let executed = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count()
    };
    let same_calls = resume(r#"{"name":"world","unused":1}"#, harnesses::HELLO, e);
    assert_eq!(same_calls["result"]["result"], "HELLO, WORLD", "{same_calls}");
    assert_eq!(same_calls["counts"]["replayed"], 2, "{same_calls}");
    assert_eq!(executed(), 0, "nothing ran live");
    // …while a changed name changes the greeting request, which runs live,
    // and the shout request built from its new answer runs live too.
    let changed = resume(r#"{"name":"mars"}"#, harnesses::HELLO, f);
    assert_eq!(changed["result"]["result"], "HELLO, STRANGER", "{changed}");
    assert_eq!(changed["counts"]["replayed"], 0, "{changed}");
    assert_eq!(executed(), 2, "both calls ran live");
    // A changed component is accepted too; its own calls decide.
    let other = resume(r#"{"op":"noop"}"#, harnesses::PROBE, e);
    assert_eq!(other["result"], json!({"ok": true}), "{other}");
    assert_eq!(other["counts"]["replayed"], 0, "{other}");
    ctx.hwf(["run", "--resume-from", "nope-run"])
        .expect_code(2)
        .expect_stderr("not_found");
}

#[test]
fn a_killed_run_is_continued_and_no_completed_call_runs_twice() {
    let ctx = Ctx::new();
    let log = ctx.path("calls.log");
    let fixture = ctx.write(
        "slow.json",
        r#"{"responses": [{"match": {"agent": "bench.echo"}, "output": {"ok": true}, "delay_ms": 150}]}"#,
    );
    let mut child = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", &log)
        .args([
            "run",
            harnesses::PROBE,
            "--run-id",
            "crash1",
            "--args",
            r#"{"op":"agent","n":8}"#,
            "--agents",
        ])
        .arg(&fixture)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    // Wait until a few calls completed, then kill -9.
    let journal = ctx.state().join("runs/crash1/journal.jsonl");
    let t = Instant::now();
    loop {
        let done = std::fs::read_to_string(&journal)
            .unwrap_or_default()
            .matches("\"call_completed\"")
            .count();
        if done >= 3 || t.elapsed() > Duration::from_secs(20) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("kill -9");
    let _ = child.wait();
    let before: Vec<String> = ctx
        .journal("crash1")
        .iter()
        .filter(|e| e["type"] == "call_completed" && e["ok"] == true)
        .map(|e| e["call"].as_str().expect("call").to_owned())
        .collect();
    assert!(before.len() >= 3, "{before:?}");
    assert_eq!(status(&ctx, "crash1")["state"], "stuck");

    let out = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", &log)
        .args(["runner", "--once", "--json"])
        .output()
        .expect("runner");
    assert!(out.status.success(), "{out:?}");
    let s = status(&ctx, "crash1");
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"]["calls"], 8);
    let mut counts: HashMap<String, usize> = HashMap::new();
    for line in std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        let key = line.split_whitespace().next().expect("key").to_owned();
        *counts.entry(key).or_default() += 1;
    }
    for call in &before {
        assert_eq!(
            counts.get(&format!("crash1:{call}")),
            Some(&1),
            "completed call {call} ran again: {counts:?}"
        );
    }
    assert_eq!(counts.len(), 8, "every call ran: {counts:?}");
}

#[test]
fn events_wait_parks_then_an_event_resumes_it() {
    let ctx = Ctx::manual_runner();
    let out = probe(
        &ctx,
        json!({"op": "cap", "name": "events.wait", "input": {"source": "github", "type": "pr.merged", "payload": {"number": 42}}}),
        &[],
    );
    out.expect_code(3);
    let id = run_id(&out.json());
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "waiting");
    assert_eq!(s["waits"][0]["kind"], "event");
    // Not this one: another PR.
    ctx.hwf([
        "events",
        "send",
        "--source",
        "github",
        "--type",
        "pr.merged",
        "--id",
        "e1",
        "--payload",
        r#"{"number": 7}"#,
    ])
    .expect_code(0);
    let r = runner_once(&ctx);
    assert_eq!(r["waiting"][0], id.as_str(), "{r}");
    assert_eq!(status(&ctx, &id)["state"], "waiting");
    let sent = ctx.hwf([
        "events",
        "send",
        "--source",
        "github",
        "--type",
        "pr.merged",
        "--id",
        "e2",
        "--payload",
        r#"{"number": 42}"#,
        "--json",
    ]);
    assert_eq!(sent.json()["data"]["version"], 2);
    let again = ctx.hwf([
        "events",
        "send",
        "--source",
        "github",
        "--type",
        "pr.merged",
        "--id",
        "e2",
        "--json",
    ]);
    assert_eq!(again.json()["data"]["new"], false, "idempotent by id");
    runner_once(&ctx);
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "succeeded");
    assert_eq!(s["result"]["ok"]["id"], "e2");
    assert!(ctx.journal(&id).iter().any(|e| e["type"] == "wait_resolved"));
}

#[test]
fn human_ask_is_answered_with_decide_respond() {
    let ctx = Ctx::manual_runner();
    let ask = json!({"op": "cap", "name": "human.ask", "input": {"prompt": "Ship it?", "schema": {"ship": "bool"}}});
    let out = probe(&ctx, ask, &[]);
    out.expect_code(3);
    let id = run_id(&out.json());
    assert_eq!(status(&ctx, &id)["waits"][0]["kind"], "human");
    // An answer that does not fit the schema is refused.
    ctx.hwf([
        "control",
        "decide",
        &id,
        "1",
        "respond",
        "--value",
        r#"{"ship": "yes"}"#,
    ])
    .expect_code(2)
    .expect_stderr("schema");
    ctx.hwf([
        "control",
        "decide",
        &id,
        "1",
        "respond",
        "--value",
        r#"{"ship": true}"#,
        "--actor",
        "ana",
        "--channel",
        "slack",
        "--message-id",
        "m-1",
    ])
    .expect_code(0);
    runner_once(&ctx);
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "succeeded", "{s}");
    let r = &s["result"]["ok"];
    assert_eq!(
        (
            r["answer"].clone(),
            r["actor"].clone(),
            r["channel"].clone(),
            r["message_id"].clone()
        ),
        (json!({"ship": true}), json!("ana"), json!("slack"), json!("m-1"))
    );
    assert_eq!(s["controls"][0]["actor"], "ana");
}

#[test]
fn an_approval_gated_call_waits_for_decide_approve() {
    let ctx = Ctx::manual_runner();
    let call = json!({"op": "cap", "name": "bash", "input": {"argv": ["echo", "shipped"]}});
    let out = probe(&ctx, call.clone(), &["--allow-class", "external_write"]);
    out.expect_code(3);
    let id = run_id(&out.json());
    ctx.hwf(["control", "decide", &id, "1", "approve", "--reason", "release 42"])
        .expect_code(0);
    runner_once(&ctx);
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"]["ok"]["stdout"], "shipped\n");
    // Reject gives the harness a typed error; edit replaces the input.
    let out = probe(&ctx, call.clone(), &["--allow-class", "external_write"]);
    let id2 = run_id(&out.json());
    ctx.hwf(["control", "decide", &id2, "1", "reject", "--reason", "not today"])
        .expect_code(0);
    runner_once(&ctx);
    assert_eq!(status(&ctx, &id2)["result"]["error"]["code"], "approval_rejected");
    let out = probe(&ctx, call, &["--allow-class", "external_write"]);
    let id3 = run_id(&out.json());
    ctx.hwf([
        "control",
        "decide",
        &id3,
        "1",
        "edit",
        "--value",
        r#"{"argv": ["echo", "edited"]}"#,
    ])
    .expect_code(0);
    runner_once(&ctx);
    assert_eq!(status(&ctx, &id3)["result"]["ok"]["stdout"], "edited\n");
}

#[test]
fn timer_sleep_waits_for_its_deadline() {
    let ctx = Ctx::new();
    let timer = |ms: u64| {
        let out = probe(
            &ctx,
            json!({"op": "cap", "name": "timer.sleep", "input": {"ms": ms}}),
            &[],
        );
        out.expect_code(3);
        run_id(&out.json())
    };
    // "Too early" without racing a clock: an hour-long timer is not due in
    // any runner pass this test makes.
    let long = timer(3_600_000);
    assert_eq!(status(&ctx, &long)["waits"][0]["kind"], "timer");
    // A short one is continued by the first pass after its recorded
    // deadline (waited for by reading the clock, not by a fixed sleep).
    let short = timer(300);
    let wake = status(&ctx, &short)["waits"][0]["wake_at_ms"]
        .as_u64()
        .expect("wake_at_ms");
    let t = Instant::now();
    while now_ms() <= wake {
        assert!(t.elapsed() < Duration::from_secs(30), "the clock never reached {wake}");
        std::thread::sleep(Duration::from_millis(5));
    }
    runner_once(&ctx);
    let s = status(&ctx, &short);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"]["ok"]["slept_ms"], 300);
    let s = status(&ctx, &long);
    assert_eq!(s["state"], "waiting", "too early: {s}");
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn spawn_run(ctx: &Ctx, run_id: &str, args: Value, extra: &[&str]) -> std::process::Child {
    ctx.cmd()
        .args([
            "run",
            harnesses::PROBE,
            "--run-id",
            run_id,
            "--json",
            "--args",
            &args.to_string(),
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn")
}

fn wait_for(ctx: &Ctx, id: &str, what: impl Fn(&[Value]) -> bool) {
    let t = Instant::now();
    let path = ctx.state().join("runs").join(id).join("journal.jsonl");
    while t.elapsed() < Duration::from_secs(30) {
        let events: Vec<Value> = std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        if what(&events) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("timed out waiting on run {id}");
}

#[test]
fn stop_interrupts_a_cpu_loop_within_100_ms() {
    let ctx = Ctx::new();
    let mut child = ctx
        .cmd()
        .args([
            "run",
            harnesses::HOSTILE,
            "--run-id",
            "spin",
            "--cpu-limit-ms",
            "60000",
            "--args",
            r#"{"mode":"loop"}"#,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    wait_for(&ctx, "spin", |e| e.iter().any(|e| e["type"] == "run_started"));
    std::thread::sleep(Duration::from_millis(200));
    ctx.hwf(["control", "stop", "spin", "--reason", "runaway"])
        .expect_code(0);
    let code = child.wait().expect("wait").code();
    assert_eq!(code, Some(1));
    let controls = std::fs::read_to_string(ctx.state().join("runs/spin/controls.jsonl")).expect("controls");
    let stop_ts = serde_json::from_str::<Value>(controls.lines().next().expect("line")).expect("json")["ts_ms"]
        .as_u64()
        .expect("ts");
    let journal = ctx.journal("spin");
    let end = journal.last().expect("end");
    assert_eq!(end["type"], "run_completed");
    assert_eq!(end["state"], "stopped");
    let took = end["ts_ms"].as_u64().expect("ts") - stop_ts;
    eprintln!("stop took {took} ms");
    assert!(took <= 100, "stop took {took} ms");
    assert_eq!(status(&ctx, "spin")["error"]["code"], "stopped");
}

#[test]
fn pause_parks_at_the_next_call_and_resume_continues() {
    let ctx = Ctx::manual_runner();
    let f = ctx.write(
        "slow.json",
        r#"{"responses": [{"match": {"agent": "bench.echo"}, "output": {"ok": true}, "delay_ms": 100}]}"#,
    );
    let child = spawn_run(
        &ctx,
        "p1",
        json!({"op": "agent", "n": 6}),
        &["--agents", f.to_str().expect("utf8")],
    );
    wait_for(&ctx, "p1", |e| e.iter().any(|e| e["type"] == "call_started"));
    ctx.hwf(["control", "pause", "p1"]).expect_code(0);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(3), "waiting");
    let s = status(&ctx, "p1");
    assert_eq!(s["state"], "waiting");
    assert_eq!(s["waits"][0]["kind"], "pause");
    runner_once(&ctx);
    assert_eq!(status(&ctx, "p1")["state"], "waiting", "still paused");
    ctx.hwf(["control", "resume", "p1"]).expect_code(0);
    runner_once(&ctx);
    let s = status(&ctx, "p1");
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"]["calls"], 6);
}

#[test]
fn task_stop_cancels_one_call() {
    let ctx = Ctx::new();
    let f = ctx.write(
        "slow.json",
        r#"{"responses": [{"match": {"label": "verdict"}, "output": {"verdict": "x"}, "delay_ms": 20000}]}"#,
    );
    let child = spawn_run(
        &ctx,
        "t1",
        json!({"op": "schema"}),
        &["--agents", f.to_str().expect("utf8")],
    );
    wait_for(&ctx, "t1", |e| e.iter().any(|e| e["type"] == "call_started"));
    ctx.hwf(["control", "task-stop", "t1", "1"]).expect_code(0);
    let out = child.wait_with_output().expect("wait");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["data"]["result"]["error"]["code"], "task_stopped", "{v}");
    assert_eq!(v["data"]["result"]["error"]["kind"], "Cancelled");
}

#[test]
fn retry_runs_a_failed_call_live_on_resume() {
    let ctx = Ctx::new();
    let f = ctx.write(
        "flaky.json",
        r#"{"responses": [{"match": {"label": "verdict"}, "sequence": [{"error": "runner down"}, {"output": {"verdict": "ok"}}]}]}"#,
    );
    let flags = ["--agents", f.to_str().expect("utf8")];
    let first = probe(&ctx, json!({"op": "schema"}), &flags);
    let id = run_id(&first.json());
    assert_eq!(data(&first.json())["result"]["error"]["code"], "agent_failed");
    // Without retry, the recorded failure replays.
    let again = ctx.hwf([
        "run",
        "--resume-from",
        &id,
        "--agents",
        f.to_str().expect("utf8"),
        "--json",
    ]);
    assert_eq!(again.json()["data"]["result"]["error"]["code"], "agent_failed");
    ctx.hwf(["control", "retry", &id, "1", "--reason", "runner is back"])
        .expect_code(0);
    let back = ctx.write(
        "back.json",
        r#"{"responses": [{"match": {"label": "verdict"}, "output": {"verdict": "ok"}}]}"#,
    );
    let retried = ctx.hwf([
        "run",
        "--resume-from",
        &id,
        "--agents",
        back.to_str().expect("utf8"),
        "--json",
    ]);
    assert_eq!(
        retried.json()["data"]["result"]["ok"],
        json!({"verdict": "ok"}),
        "{retried:?}"
    );
    assert_eq!(status(&ctx, &id)["retries"], json!(["1"]));
}

#[test]
fn two_runners_execute_each_queued_run_exactly_once() {
    let ctx = Ctx::new();
    let log = ctx.path("calls.log");
    let f = ctx.write(
        "f.json",
        r#"{"responses": [{"match": {"agent": "bench.echo"}, "output": {"ok": true}, "delay_ms": 5}]}"#,
    );
    let mut ids = Vec::new();
    for i in 0..20 {
        let out = ctx.hwf([
            "run",
            harnesses::PROBE,
            "--background",
            "--queue-only",
            "--json",
            "--run-id",
            &format!("q{i:02}"),
            "--args",
            r#"{"op":"agent","n":2}"#,
            "--agents",
            f.to_str().expect("utf8"),
        ]);
        out.expect_code(0);
        assert_eq!(out.json()["data"]["state"], "queued");
        ids.push(format!("q{i:02}"));
    }
    let spawn = || {
        ctx.cmd()
            .env("HWF_FIXTURE_LOG", &log)
            .args(["runner", "--idle-exit-after", "1", "--json"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("runner")
    };
    let (mut a, mut b) = (spawn(), spawn());
    assert!(a.wait().expect("a").success() && b.wait().expect("b").success());
    let mut counts: HashMap<String, usize> = HashMap::new();
    for line in std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        *counts
            .entry(line.split_whitespace().next().expect("key").to_owned())
            .or_default() += 1;
    }
    for id in &ids {
        assert_eq!(status(&ctx, id)["state"], "succeeded", "{id}");
        let starts = ctx.journal(id).iter().filter(|e| e["type"] == "run_started").count();
        assert_eq!(starts, 1, "{id} executed {starts} times");
        for call in ["1", "2"] {
            assert_eq!(counts.get(&format!("{id}:{call}")), Some(&1), "{id}:{call}");
        }
    }
}

#[test]
fn background_runs_return_at_once_and_finish() {
    let ctx = Ctx::new();
    let f = root().join("harnesses/hello/fixture.json");
    let out = ctx.hwf([
        "run",
        harnesses::HELLO,
        "--background",
        "--json",
        "--args",
        r#"{"name":"world"}"#,
        "--agents",
        f.to_str().expect("utf8"),
    ]);
    out.expect_code(0);
    let id = run_id(&out.json());
    let t = Instant::now();
    while status(&ctx, &id)["state"] != "succeeded" {
        assert!(t.elapsed() < Duration::from_secs(30), "{}", status(&ctx, &id));
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(status(&ctx, &id)["result"]["result"], "HELLO, WORLD");
    ctx.hwf([
        "run",
        harnesses::PROBE,
        "--background",
        "--args",
        r#"{"token": "ghp_ABCDEFGHIJKLMNOPQRSTUV0123"}"#,
    ])
    .expect_code(2)
    .expect_stderr("credential");
}

#[test]
fn stop_kills_a_running_bash_child() {
    use crate::claims::{wait_gone, wait_pid_file, wait_running};
    let ctx = Ctx::new();
    std::fs::create_dir_all(ctx.path("ws")).expect("mkdir");
    let ws = ctx.path("ws");
    // The command's shell starts a grandchild in the background and waits:
    // killing the direct child alone would leave `sleep 100` running.
    // Pids as the host sees them (the command has a PID namespace of its
    // own): read from /proc/self/stat by the shell itself.
    let script = "sh -c 'read -r p r < /proc/self/stat; echo $p > grandchild.pid; exec sleep 100' & read -r p r < /proc/self/stat; echo $p > child.pid; wait";
    let args = json!({"op": "cap", "name": "bash", "approval_id": "a", "input": {"argv": ["sh", "-c", script]}});
    let mut child = ctx
        .cmd()
        .args([
            "run",
            harnesses::PROBE,
            "--run-id",
            "sleeper",
            "--args",
            &args.to_string(),
        ])
        .args([
            "--allow-class",
            "external_write",
            "--approval-id",
            "a",
            "--workspace",
            ws.to_str().expect("utf8"),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let sh = wait_pid_file(&ws.join("child.pid"));
    let sleep = wait_pid_file(&ws.join("grandchild.pid"));
    wait_running(sh, "sh");
    wait_running(sleep, "sleep");
    ctx.hwf(["control", "stop", "sleeper"]).expect_code(0);
    assert_eq!(child.wait().expect("wait").code(), Some(1));
    assert_eq!(status(&ctx, "sleeper")["state"], "stopped");
    // The whole process group was killed with the call: child and grandchild.
    wait_gone(sh, "sh");
    wait_gone(sleep, "sleep");
}

#[test]
fn a_torn_tail_is_cut_before_the_next_append() {
    let ctx = Ctx::manual_runner();
    let out = probe(
        &ctx,
        json!({"op": "cap", "name": "human.ask", "input": {"prompt": "go?"}}),
        &[],
    );
    out.expect_code(3);
    let id = run_id(&out.json());
    // A crash left half a line in the journal.
    let journal = ctx.state().join("runs").join(&id).join("journal.jsonl");
    let mut text = std::fs::read_to_string(&journal).expect("journal");
    text.push_str(r#"{"seq":99,"type":"log","lev"#);
    std::fs::write(&journal, text).expect("write");
    ctx.hwf(["control", "decide", &id, "1", "respond", "--value", "\"yes\""])
        .expect_code(0);
    runner_once(&ctx);
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"]["ok"]["answer"], "yes");
}

#[test]
fn parked_runs_with_credential_args_are_not_continued_with_redacted_args() {
    let ctx = Ctx::manual_runner();
    let args = json!({"op": "cap", "name": "human.ask", "input": {"prompt": "go?"}, "token": "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"});
    let out = probe(&ctx, args, &[]);
    out.expect_code(3);
    let id = run_id(&out.json());
    ctx.hwf(["control", "decide", &id, "1", "respond", "--value", "\"yes\""])
        .expect_code(0);
    let r = runner_once(&ctx);
    assert!(r["executed"].as_array().expect("executed").is_empty(), "{r}");
    assert_eq!(status(&ctx, &id)["state"], "waiting");
}

#[test]
fn a_decision_applies_only_to_the_request_it_was_made_for() {
    let ctx = Ctx::manual_runner();
    let out = probe(
        &ctx,
        json!({"op": "cap", "name": "human.ask", "input": {"prompt": "go?"}}),
        &[],
    );
    out.expect_code(3);
    let id = run_id(&out.json());
    ctx.hwf(["control", "decide", &id, "1", "respond", "--value", "\"yes\""])
        .expect_code(0);
    // Pretend the decision was made for another request at this call id.
    let path = ctx.state().join("runs").join(&id).join("controls.jsonl");
    let mut c: Value = serde_json::from_str(std::fs::read_to_string(&path).expect("controls").trim()).expect("json");
    assert!(c["fingerprint"].as_str().is_some_and(|f| f.starts_with("b3:")), "{c}");
    c["fingerprint"] = json!("b3:0000");
    std::fs::write(&path, format!("{c}\n")).expect("write");
    runner_once(&ctx);
    assert_eq!(
        status(&ctx, &id)["state"],
        "waiting",
        "a decision for another request must not apply"
    );
}

#[test]
fn a_run_that_died_after_journaling_its_end_is_finished_from_its_journal() {
    // Killed between its final journal record and its snapshot: the
    // snapshot still says running. The runner finishes it from the
    // journal — it does not execute it again or journal a second end.
    let ctx = Ctx::new();
    let log = ctx.path("calls.log");
    let fixture = ctx.write(
        "echo.json",
        r#"{"responses": [{"match": {"agent": "bench.echo"}, "output": {"ok": true}}]}"#,
    );
    let out: crate::common::Run = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", &log)
        .args([
            "run",
            harnesses::PROBE,
            "--run-id",
            "ended1",
            "--args",
            r#"{"op":"agent","n":3}"#,
            "--json",
            "--agents",
        ])
        .arg(&fixture)
        .output()
        .expect("run")
        .into();
    out.expect_code(0);
    let result = out.json()["data"]["result"].clone();
    let run_json = ctx.state().join("runs/ended1/run.json");
    let mut snap: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&run_json).expect("snapshot")).expect("json");
    snap["state"] = "running".into();
    snap["result"] = serde_json::Value::Null;
    snap["finished_at_ms"] = serde_json::Value::Null;
    std::fs::write(&run_json, snap.to_string()).expect("rewind the snapshot");
    let executed_before = std::fs::read_to_string(&log).expect("log").lines().count();
    let pass = crate::common::runner_once(&ctx);
    assert_eq!(pass["stuck"][0], "ended1", "{pass}");
    let s = crate::common::status(&ctx, "ended1");
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"], result);
    let journal = ctx.journal("ended1");
    let ends = journal.iter().filter(|e| e["type"] == "run_completed").count();
    let starts = journal.iter().filter(|e| e["type"] == "run_started").count();
    assert_eq!((starts, ends), (1, 1), "nothing executed again");
    assert_eq!(
        std::fs::read_to_string(&log).expect("log").lines().count(),
        executed_before
    );
}
