//! Many runs at once at agent latency (issue 25): a runner executes up to
//! `--concurrency` runs together, background runs share one runner per
//! state dir, and a runner stopped by a signal releases its runs.

use crate::common::{Ctx, harnesses, run_id, status};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Fixture agents: `step` answers after `delay_ms`, anything else at once.
fn slow_agents(ctx: &Ctx, delay_ms: u64) -> String {
    ctx.write(
        "agents.json",
        json!({"responses": [
            {"match": {"label": "step"}, "output": {"ok": true}, "delay_ms": delay_ms},
            {"match": {}, "output": {"ok": true}}
        ]})
        .to_string(),
    )
    .to_str()
    .expect("utf8")
    .to_owned()
}

/// How many times each `run:call` was executed, from `$HWF_FIXTURE_LOG`.
fn executions(log: &std::path::Path) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for line in std::fs::read_to_string(log).unwrap_or_default().lines() {
        if let Some(key) = line.split_whitespace().next() {
            *counts.entry(key.to_owned()).or_default() += 1;
        }
    }
    counts
}

/// `hwf [global…] run probe --background --args ARGS --agents AGENTS
/// --json [extra…]`, exit 0 asserted; the run's id.
fn background(ctx: &Ctx, global: &[&str], args: &str, agents: &str, extra: &[&str]) -> String {
    let out = ctx.hwf(
        global
            .iter()
            .copied()
            .chain([
                "run",
                harnesses::PROBE,
                "--background",
                "--args",
                args,
                "--agents",
                agents,
                "--json",
            ])
            .chain(extra.iter().copied()),
    );
    out.expect_code(0);
    run_id(&out.json())
}

/// Park `n` runs on `human.ask` (each then makes one `step` call) and
/// answer them all; returns their ids.
fn park_and_answer(ctx: &Ctx, agents: &str, n: usize) -> Vec<String> {
    let program = json!({"op": "program", "program": {"seq": [
        {"cap": {"name": "human.ask", "input": {"prompt": "Go on?"}}},
        {"agent": "step"}
    ]}})
    .to_string();
    let mut ids = Vec::new();
    for i in 0..n {
        let id = format!("p{i:04}");
        ctx.hwf([
            "run",
            harnesses::PROBE,
            "--run-id",
            &id,
            "--args",
            &program,
            "--agents",
            agents,
            "--json",
        ])
        .expect_code(3);
        ctx.hwf(["control", "decide", &id, "1", "respond", "--value", "\"yes\""])
            .expect_code(0);
        ids.push(id);
    }
    ids
}

#[test]
fn one_runner_pass_continues_fifty_answered_runs_at_once() {
    let ctx = Ctx::manual_runner();
    let agents = slow_agents(&ctx, 1000);
    let ids = park_and_answer(&ctx, &agents, 50);
    let log = ctx.path("calls.log");
    let t = Instant::now();
    let out: crate::common::Run = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", &log)
        .args(["runner", "--once", "--json"])
        .output()
        .expect("runner")
        .into();
    let took = t.elapsed();
    out.expect_code(0);
    // 50 one-second calls, one after another, would take 50 s.
    assert!(took < Duration::from_secs(5), "one pass took {took:?}");
    let executed = out.json()["data"]["executed"].as_array().expect("executed").len();
    assert_eq!(executed, 50, "{}", out.stdout);
    let counts = executions(&log);
    for id in &ids {
        assert_eq!(status(&ctx, id)["state"], "succeeded", "{id}");
        // The answered ask replays; only the step runs, once.
        assert_eq!(counts.get(&format!("{id}:2")), Some(&1), "{id}");
    }
    assert_eq!(counts.values().sum::<usize>(), 50);
}

#[test]
fn answered_runs_go_before_older_queued_ones() {
    let ctx = Ctx::manual_runner();
    let agents = slow_agents(&ctx, 0);
    // Three runs queued first, then one parked and answered.
    for i in 0..3 {
        let id = format!("q{i}");
        background(
            &ctx,
            &[],
            r#"{"op":"agent","n":1}"#,
            &agents,
            &["--queue-only", "--run-id", &id],
        );
    }
    let parked = park_and_answer(&ctx, &agents, 1);
    let out = ctx.hwf(["runner", "--once", "--concurrency", "1", "--json"]);
    out.expect_code(0);
    let order: Vec<String> = out.json()["data"]["executed"]
        .as_array()
        .expect("executed")
        .iter()
        .map(|e| e[0].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(order, [parked[0].as_str(), "q0", "q1", "q2"], "{}", out.stdout);
}

#[test]
fn concurrency_out_of_range_is_refused() {
    let ctx = Ctx::new();
    for bad in ["0", "251", "99999999999999999999"] {
        let out = ctx.hwf(["runner", "--once", "--concurrency", bad]);
        out.expect_code(2);
        assert!(
            out.stderr.contains("--concurrency") || out.stderr.contains("invalid value"),
            "{bad}: {}",
            out.stderr
        );
    }
    ctx.write("hwf.toml", "[runner]\nconcurrency = 0\n");
    ctx.hwf(["runner", "--once"])
        .expect_code(2)
        .expect_stderr("[runner] concurrency");
}

/// The `hwf` processes whose command line names `needle`.
fn hwf_processes(needle: &str) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&cmdline);
        let mut args = text.split('\0');
        if args.next().is_some_and(|exe| exe.ends_with("/hwf")) && text.contains(needle) {
            n += 1;
        }
    }
    n
}

#[test]
fn forty_background_runs_share_one_runner() {
    let ctx = Ctx::new();
    let agents = slow_agents(&ctx, 1000);
    let state = ctx.state();
    let state_arg = state.to_str().expect("utf8").to_owned();
    // Every hwf process of this test names its state dir on its command
    // line (the background runner gets --state-dir from its starter).
    let peak = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, done, needle) = (peak.clone(), done.clone(), state_arg.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(hwf_processes(&needle), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let program = json!({"op": "program", "program": {"seq": [{"agent": "step"}, {"agent": "step"}]}}).to_string();
    let t = Instant::now();
    let mut ids = Vec::new();
    for _ in 0..40 {
        ids.push(background(&ctx, &["--state-dir", &state_arg], &program, &agents, &[]));
    }
    let mut pending: Vec<&String> = ids.iter().collect();
    while !pending.is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(8),
            "{} of 40 background runs unfinished after 8 s",
            pending.len()
        );
        std::thread::sleep(Duration::from_millis(50));
        pending.retain(|id| status(&ctx, id)["state"] != "succeeded");
    }
    let finished = t.elapsed();
    // The runner shows itself in doctor while it is alive.
    let doctor = ctx.hwf(["--state-dir", &state_arg, "doctor", "--json"]);
    let runners = doctor.json()["data"]["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "runners")
        .cloned()
        .unwrap_or(Value::Null);
    assert!(
        runners["detail"].as_str().is_some_and(|d| d.contains("detached pid")),
        "{runners}"
    );
    // It exits once idle.
    let idle = Instant::now();
    while hwf_processes(&format!("{state_arg}\0runner")) > 0 {
        assert!(
            idle.elapsed() < Duration::from_secs(15),
            "the background runner never exited"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    done.store(true, Ordering::Relaxed);
    sampler.join().expect("sampler");
    let peak = peak.load(Ordering::Relaxed);
    assert!(peak <= 4, "{peak} hwf processes alive at once");
    eprintln!("40 background runs x 2 one-second calls: {finished:?}, at most {peak} hwf processes");
}

#[test]
fn a_signalled_runner_releases_its_runs_and_nothing_completed_runs_again() {
    let ctx = Ctx::new();
    let agents = ctx
        .write(
            "agents.json",
            json!({"responses": [
                {"match": {"label": "slow"}, "output": {"ok": true}, "delay_ms": 30000},
                {"match": {}, "output": {"ok": true}}
            ]})
            .to_string(),
        )
        .to_str()
        .expect("utf8")
        .to_owned();
    let program = json!({"op": "program", "program": {"seq": [{"agent": "fast"}, {"agent": "slow"}]}}).to_string();
    for i in 0..3 {
        let id = format!("s{i}");
        background(&ctx, &[], &program, &agents, &["--queue-only", "--run-id", &id]);
    }
    let log = ctx.path("calls.log");
    let mut runner = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", &log)
        .args(["runner", "--shutdown-grace", "30"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runner");
    // Every run is in its slow call (its journal says so).
    let t = Instant::now();
    let in_slow = |id: &str| {
        // A queued run has no journal until it starts.
        ctx.state().join("runs").join(id).join("journal.jsonl").exists()
            && ctx
                .journal(id)
                .iter()
                .any(|e| e["type"] == "call_started" && e["call"] == "2")
    };
    while !(0..3).all(|i| in_slow(&format!("s{i}"))) {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the runs never reached their slow call"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGTERM: the runs get the grace; a second signal releases them now.
    let pid = runner.id().to_string();
    let kill = |sig: &str| {
        assert!(
            std::process::Command::new("kill")
                .args([sig, &pid])
                .status()
                .expect("kill")
                .success()
        );
    };
    kill("-TERM");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        runner.try_wait().expect("wait").is_none(),
        "the runner left before its grace"
    );
    let released = Instant::now();
    kill("-INT");
    let code = runner.wait().expect("runner");
    assert!(code.success(), "{code:?}");
    assert!(
        released.elapsed() < Duration::from_secs(3),
        "released in {:?}",
        released.elapsed()
    );
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut runner.stderr.take().expect("stderr"), &mut stderr).expect("stderr");
    assert!(stderr.contains("released 3 runs"), "{stderr}");
    for i in 0..3 {
        let s = status(&ctx, &format!("s{i}"));
        assert_ne!(s["state"], "succeeded", "{s}");
    }
    // Another runner takes them at once (no lease to wait out on the file
    // store), with the slow agent now quick: the fast call replays.
    ctx.write(
        "agents.json",
        json!({"responses": [{"match": {}, "output": {"ok": true}}]}).to_string(),
    );
    let out: crate::common::Run = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", &log)
        .args(["runner", "--once", "--json"])
        .output()
        .expect("runner")
        .into();
    out.expect_code(0);
    let counts = executions(&log);
    for i in 0..3 {
        let id = format!("s{i}");
        assert_eq!(status(&ctx, &id)["state"], "succeeded", "{id}");
        assert_eq!(
            counts.get(&format!("{id}:1")),
            Some(&1),
            "{id}: the completed call ran again"
        );
    }
}

#[test]
fn the_background_runner_stays_for_a_run_parked_on_a_timer() {
    let ctx = Ctx::new();
    let agents = slow_agents(&ctx, 0);
    // Longer than the background runner's 5 s idle exit: nobody else is
    // there to continue the run when its timer is due.
    let program = json!({"op": "program", "program": {"seq": [
        {"cap": {"name": "timer.sleep", "input": {"ms": 6500}}},
        {"agent": "after"}
    ]}})
    .to_string();
    let id = background(&ctx, &[], &program, &agents, &[]);
    let t = Instant::now();
    loop {
        let state = status(&ctx, &id)["state"].clone();
        if state == "succeeded" {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(20), "still {state} after 20 s");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        t.elapsed() >= Duration::from_millis(6000),
        "the timer did not hold the run"
    );
}
