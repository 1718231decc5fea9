//! Red-team findings on resources and the journal (issue 13): run-wide
//! memory, nesting depth, guests sleeping in system calls, `meta()` with no
//! limit, journal and request bytes, crash loops, labels with secrets,
//! torn and damaged journals, damaged controls.

use crate::common::{Ctx, harnesses, run_id, status};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn hostile(ctx: &Ctx, args: Value, flags: &[&str]) -> crate::common::Run {
    ctx.run_json(harnesses::HOSTILE, &args.to_string(), flags)
}

#[test]
fn a_branch_bomb_ends_with_memory_limit_and_a_bounded_host() {
    let ctx = Ctx::new();
    let time = std::path::Path::new("/usr/bin/time");
    let args = json!({"mode": "bomb", "width": 8}).to_string();
    // GNU time measures the host's peak RSS; `.ci/run` installs it (Debian
    // `time`) where it is missing. Without it the test fails: it never
    // skips the bound it exists for.
    assert!(
        time.exists(),
        "/usr/bin/time (Debian package `time`) is needed to measure the host's peak memory"
    );
    let mut cmd = std::process::Command::new(time);
    cmd.args(["-f", "maxrss_kb=%M", env!("CARGO_BIN_EXE_hwf")]);
    let out = cmd
        .current_dir(ctx.dir.path())
        .env("HOME", ctx.dir.path())
        .env("HWF_STATE_DIR", ctx.state())
        .env("HWF_CACHE_DIR", crate::common::shared_cache())
        .args(["run", harnesses::HOSTILE, "--args", &args, "--json"])
        .output()
        .expect("spawn");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(v["data"]["state"], "failed", "{v}");
    assert_eq!(v["error"]["code"], "memory_limit", "{v}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kb = stderr
        .lines()
        .find_map(|l| l.strip_prefix("maxrss_kb="))
        .and_then(|n| n.trim().parse::<u64>().ok())
        .unwrap_or_else(|| panic!("GNU time printed no maxrss_kb: {stderr}"));
    assert!(kb < 1 << 20, "the host stayed under 1 GiB: {kb} KiB");
}

#[test]
fn nesting_deeper_than_the_limit_is_refused() {
    let ctx = Ctx::new();
    let cfg = ctx.write("hwf.toml", "[limits]\nmax_depth = 3\nrun_memory_bytes = 4294967296\n");
    let out = hostile(
        &ctx,
        json!({"mode": "bomb", "width": 1}),
        &["--config", cfg.to_str().expect("utf8")],
    );
    out.expect_code(0);
    let text = out.stdout.clone();
    assert!(text.contains("nesting_too_deep"), "{text}");
}

#[test]
fn a_guest_sleeping_in_a_system_call_does_not_block() {
    let ctx = Ctx::new();
    let t0 = Instant::now();
    let out = hostile(&ctx, json!({"mode": "sleep", "secs": 3}), &[]);
    out.expect_code(0);
    // Virtual time: the sleep took 3 s of guest time and no wall time.
    assert!(
        out.json()["data"]["result"]["slept_ms"].as_u64() >= Some(3_000),
        "{out:?}"
    );
    assert!(t0.elapsed() < Duration::from_secs(3), "took {:?}", t0.elapsed());
    // Sleep is charged to the CPU limit: a 40 s sleep under the default
    // 30 s, or a loop of sleeps, ends with `cpu_limit` at once.
    for (args, flags) in [
        (json!({"mode": "sleep", "secs": 40}), vec![]),
        (json!({"mode": "sleep_loop"}), vec!["--cpu-limit-ms", "300"]),
    ] {
        let t0 = Instant::now();
        let out = hostile(&ctx, args, &flags);
        out.expect_code(1);
        assert_eq!(out.json()["error"]["code"], "cpu_limit", "{out:?}");
        assert!(t0.elapsed() < Duration::from_secs(10), "took {:?}", t0.elapsed());
    }
}

#[test]
fn stop_ends_a_sleeping_guest_at_once() {
    let ctx = Ctx::new();
    let mut child = ctx
        .cmd()
        .args([
            "run",
            harnesses::HOSTILE,
            "--args",
            r#"{"mode":"sleep_loop","ms":1}"#,
            "--cpu-limit-ms",
            "3600000",
            "--json",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let deadline = Instant::now() + Duration::from_secs(30);
    let id = loop {
        assert!(Instant::now() < deadline, "the run never started");
        if let Some(id) = ctx.hwf(["overview", "--json"]).json()["data"]["runs"][0]["run_id"].as_str()
            && ctx.state().join("runs").join(id).join("journal.jsonl").exists()
        {
            break id.to_owned();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stop = ctx.hwf(["control", "stop", &id, "--json"]);
    stop.expect_code(0);
    let code = child.wait().expect("wait").code();
    assert_eq!(code, Some(1));
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "stopped");
    // The issue's bound, 200 ms from the stop being recorded to the run
    // ending, read from hwf's own clocks (the control's time and the
    // run's end), not from this test's scheduling of `hwf` processes.
    let recorded = stop.json()["data"]["control"]["ts_ms"].as_u64().expect("control ts_ms");
    let ended = s["finished_at_ms"].as_u64().expect("finished_at_ms");
    let took = ended.saturating_sub(recorded);
    assert!(took < 200, "stop took {took} ms: {s}");
}

#[test]
fn a_meta_that_sleeps_and_spins_does_not_hang_validate_or_run() {
    let ctx = Ctx::new();
    let t0 = Instant::now();
    let v = ctx.hwf(["validate", harnesses::HOSTILE_META, "--json"]);
    assert_ne!(v.code, 0, "{v:?}");
    assert!(
        v.stdout.contains("cpu_limit") || v.stderr.contains("cpu_limit"),
        "meta() is bounded by the CPU limit: {v:?}"
    );
    ctx.run_json(harnesses::HOSTILE_META, "{}", &["--cpu-limit-ms", "200"])
        .expect_code(0);
    assert!(t0.elapsed() < Duration::from_secs(60), "took {:?}", t0.elapsed());
}

#[test]
fn the_journal_and_requests_are_bounded() {
    let ctx = Ctx::new();
    let cfg = ctx.write(
        "hwf.toml",
        "[limits]\nmax_journal_bytes = 1048576\nmax_calls = 1000000\n",
    );
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"log","n":200000}"#,
        &["--config", cfg.to_str().expect("utf8")],
    );
    out.expect_code(1);
    assert_eq!(out.json()["error"]["code"], "journal_limit", "{out:?}");
    let id = run_id(&out.json());
    let len = std::fs::metadata(ctx.state().join("runs").join(&id).join("journal.jsonl"))
        .expect("journal")
        .len();
    assert!(len < (1 << 20) + 4096, "journal is {len} bytes");
    // The run's final record is there and status reads it.
    assert_eq!(status(&ctx, &id)["state"], "failed");

    // A 64 MiB prompt is refused as a call, not journaled.
    let out = hostile(&ctx, json!({"mode": "huge_prompt"}), &["--memory-limit-mb", "1024"]);
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"]["error"], "request_too_large", "{out:?}");
    let id = run_id(&out.json());
    let len = std::fs::metadata(ctx.state().join("runs").join(&id).join("journal.jsonl"))
        .expect("journal")
        .len();
    assert!(len < 64 << 10, "journal is {len} bytes");
}

#[test]
fn a_crash_looping_run_is_quarantined() {
    let ctx = Ctx::new();
    let slow = ctx.write(
        "slow.json",
        json!({"responses": [{"match": {"label": "slow"}, "output": {"ok": true}, "delay_ms": 60000}]}).to_string(),
    );
    let slow = slow.to_str().expect("utf8");
    let args = json!({"op": "program", "program": {"agent": "slow"}}).to_string();
    let journal_starts = |id: &str| -> usize {
        std::fs::read_to_string(ctx.state().join("runs").join(id).join("journal.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("\"type\":\"run_started\""))
            .count()
    };
    // Each execution is killed once it has started its agent call.
    let kill_when_started = |mut child: std::process::Child, id: Option<&str>, starts: usize| -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        let id = loop {
            assert!(Instant::now() < deadline, "the execution never started");
            let found = match id {
                Some(id) => Some(id.to_owned()),
                None => ctx.hwf(["overview", "--json"]).json()["data"]["runs"][0]["run_id"]
                    .as_str()
                    .map(str::to_owned),
            };
            if let Some(id) = found
                && journal_starts(&id) >= starts
                && std::fs::read_to_string(ctx.state().join("runs").join(&id).join("journal.jsonl"))
                    .is_ok_and(|j| j.matches("\"type\":\"call_started\"").count() >= starts)
            {
                break id;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        child.kill().expect("kill -9");
        let _ = child.wait();
        id
    };
    let first = ctx
        .cmd()
        .args(["run", harnesses::PROBE, "--args", &args, "--agents", slow])
        .spawn()
        .expect("spawn");
    let id = kill_when_started(first, None, 1);
    for n in 2..=3 {
        let runner = ctx.cmd().args(["runner", "--once"]).spawn().expect("spawn runner");
        kill_when_started(runner, Some(&id), n);
    }
    // Three executions died in a row: the next runner quarantines the run.
    let report = ctx.hwf(["runner", "--once", "--json"]);
    report.expect_code(0);
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "failed", "{s}");
    assert_eq!(s["error"]["code"], "crash_loop", "{s}");
    assert_eq!(journal_starts(&id), 3, "it was not run a fourth time");
}

#[test]
fn labels_and_phases_with_secrets_are_redacted() {
    let ctx = Ctx::new();
    let secret = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let f = ctx.write(
        "f.json",
        json!({"responses": [{"match": {}, "output": {"ok": true}}]}).to_string(),
    );
    let args = json!({"op": "program", "program": {"agent": format!("label {secret}")}}).to_string();
    ctx.hwf([
        "run",
        harnesses::PROBE,
        "--args",
        &args,
        "--agents",
        f.to_str().expect("utf8"),
    ]);
    assert!(!ctx.all_state_text().contains(secret), "a label leaked its secret");
}

#[test]
fn a_trailing_start_of_a_completed_call_does_not_run_it_again() {
    let ctx = Ctx::manual_runner();
    let ws = ctx.path("ws");
    std::fs::create_dir_all(&ws).expect("mkdir");
    let count = ws.join("executions.txt");
    let bash = json!({"cap": {"name": "bash", "approval_id": "a", "input": {"argv": ["sh", "-c", format!("echo x >> {}", count.display())]}}});
    let ask = json!({"cap": {"name": "human.ask", "input": {"prompt": "go?"}}});
    let args = json!({"op": "program", "program": {"seq": [bash, ask]}}).to_string();
    let out = ctx.hwf([
        "run",
        harnesses::PROBE,
        "--args",
        &args,
        "--allow-class",
        "external_write",
        "--approval-id",
        "a",
        "--workspace",
        ws.to_str().expect("utf8"),
        "--json",
    ]);
    out.expect_code(3);
    let id = run_id(&out.json());
    // What a kill between two replay writes leaves: the call's start again
    // after its completion.
    let path = ctx.state().join("runs").join(&id).join("journal.jsonl");
    let journal = std::fs::read_to_string(&path).expect("journal");
    let start = journal
        .lines()
        .find(|l| l.contains("\"type\":\"call_started\"") && l.contains("\"call\":\"1\""))
        .expect("call 1 started");
    let mut line: Value = serde_json::from_str(start).expect("json");
    let last_seq = journal
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["seq"].as_u64())
        .max()
        .expect("seq");
    line["seq"] = json!(last_seq + 1);
    std::fs::write(&path, format!("{journal}{line}\n")).expect("append");
    ctx.hwf(["control", "decide", &id, "2", "respond", "--value", "\"yes\""])
        .expect_code(0);
    ctx.hwf(["runner", "--once"]).expect_code(0);
    assert_eq!(status(&ctx, &id)["state"], "succeeded");
    let n = std::fs::read_to_string(&count).expect("count").lines().count();
    assert_eq!(n, 1, "the completed bash call ran again");
}

#[test]
fn a_damaged_or_missing_journal_is_refused_not_replayed_as_empty() {
    let ctx = Ctx::new();
    let f = crate::common::hello_fixture();
    let f = f.to_str().expect("utf8");
    let out = ctx.run_json(harnesses::HELLO, r#"{"name":"world"}"#, &["--agents", f]);
    out.expect_code(0);
    let id = run_id(&out.json());
    let path = ctx.state().join("runs").join(&id).join("journal.jsonl");
    let good = std::fs::read_to_string(&path).expect("journal");
    // A complete line of garbage at the end: named, with its line.
    std::fs::write(&path, format!("{good}garbage that is not json\n")).expect("write");
    ctx.hwf(["run", "--resume-from", &id, "--agents", f])
        .expect_code(1)
        .expect_stderr("corrupt_store");
    // An empty or deleted journal of a run that ran: refused, not a
    // silent re-execution of every call.
    for damage in ["", "delete"] {
        if damage == "delete" {
            std::fs::remove_file(&path).expect("rm");
        } else {
            std::fs::write(&path, damage).expect("write");
        }
        let r = ctx.hwf(["run", "--resume-from", &id, "--agents", f]);
        assert_ne!(r.code, 0, "{r:?}");
        r.expect_stderr("corrupt_store");
    }
}

#[test]
fn stop_is_recorded_and_honoured_on_damaged_controls() {
    let ctx = Ctx::manual_runner();
    let args =
        json!({"op": "program", "program": {"cap": {"name": "human.ask", "input": {"prompt": "go?"}}}}).to_string();
    let out = ctx.hwf(["run", harnesses::PROBE, "--args", &args, "--json"]);
    out.expect_code(3);
    let id = run_id(&out.json());
    let controls = ctx.state().join("runs").join(&id).join("controls.jsonl");
    std::fs::write(&controls, "{damaged\n").expect("write");
    ctx.hwf(["control", "stop", &id]).expect_code(0);
    ctx.hwf(["runner", "--once"]).expect_code(0);
    assert_eq!(status(&ctx, &id)["state"], "stopped");
}
