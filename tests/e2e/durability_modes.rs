//! Durability modes (`--durability sync|group|async`): each keeps its
//! contract across a `kill -9` — no call the guest was told is done is
//! lost, no completed call runs twice, only the in-flight tail runs again
//! (`sync`/`group`: at most the one call in flight; `async`: only calls
//! with no completion on disk), the run finishes with one live completion
//! per call — and the mode is kept by continuations.

use crate::common::{Ctx, harnesses};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The calls the fixture backend executed, in order (one per execution).
fn executed(ctx: &Ctx) -> Vec<String> {
    let text = std::fs::read_to_string(ctx.path("calls.log")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let key = line.split_whitespace().next().unwrap_or("");
            key.rsplit_once(':').map_or(key, |(_, c)| c).to_owned()
        })
        .collect()
}

fn executions(ctx: &Ctx) -> HashMap<String, usize> {
    let mut n = HashMap::new();
    for call in executed(ctx) {
        *n.entry(call).or_insert(0) += 1;
    }
    n
}

/// Live (not replayed) successful agent completions in the journal.
fn live_completions(ctx: &Ctx, id: &str) -> Vec<String> {
    std::fs::read_to_string(ctx.state().join("runs").join(id).join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "call_completed" && e["ok"] == true && e["kind"] == "agent" && e["replayed"] != true)
        .filter_map(|e| e["call"].as_str().map(str::to_owned))
        .collect()
}

fn completed(ctx: &Ctx, id: &str) -> Vec<String> {
    std::fs::read_to_string(ctx.state().join("runs").join(id).join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "call_completed" && e["ok"] == true && e["kind"] == "agent")
        .filter_map(|e| e["call"].as_str().map(str::to_owned))
        .collect()
}

/// Continue the killed run `id` with `hwf runner --once` and check the
/// mode's contract: the run succeeds; no call completed before the kill
/// runs again; only calls in flight at the kill (run, no completion on
/// disk) run again, once more each, and outside `async` at most
/// `max_in_flight` of them; one live completion per call. The executions
/// per call.
fn continue_and_check(
    ctx: &Ctx,
    mode: &str,
    id: &str,
    done_before: &[String],
    ran_before: &[String],
    max_in_flight: usize,
) -> HashMap<String, usize> {
    let out = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
        .args(["runner", "--once"])
        .output()
        .expect("runner");
    assert!(out.status.success(), "{mode}: {out:?}");
    let s = ctx.hwf(["status", id, "--json"]).json();
    assert_eq!(s["data"]["state"], "succeeded", "{mode}: {s}");
    let n = executions(ctx);
    for call in done_before {
        assert_eq!(n.get(call), Some(&1), "{mode}: completed call {call} ran again: {n:?}");
    }
    let again: Vec<&String> = n.iter().filter(|&(_, &k)| k > 1).map(|(c, _)| c).collect();
    for call in &again {
        assert_eq!(n[*call], 2, "{mode}: call {call} ran {} times", n[*call]);
        assert!(
            ran_before.contains(call) && !done_before.contains(call),
            "{mode}: call {call} ran again but was not in flight: {n:?}"
        );
    }
    if mode != "async" {
        assert!(
            again.len() <= max_in_flight,
            "{mode}: more than the calls in flight ran again: {again:?}"
        );
    }
    let mut live = live_completions(ctx, id);
    live.sort();
    let mut want: Vec<String> = n.keys().cloned().collect();
    want.sort();
    assert_eq!(live, want, "{mode}: one live completion per call");
    n
}

#[test]
fn every_mode_survives_kill_9_without_running_a_completed_call_twice() {
    for mode in ["sync", "group", "async"] {
        let ctx = Ctx::new();
        let f = ctx.write(
            "slow.json",
            json!({"responses": [{"match": {"label": "step"}, "output": {"ok": true}, "delay_ms": 120}]}).to_string(),
        );
        let steps: Vec<Value> = (0..6)
            .map(|i| json!({"agent": "step", "prompt": format!("step {i}")}))
            .collect();
        let args = json!({"op": "program", "program": {"seq": steps}}).to_string();
        let mut child = ctx
            .cmd()
            .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
            .args([
                "run",
                harnesses::PROBE,
                "--args",
                &args,
                "--agents",
                f.to_str().expect("utf8"),
                "--durability",
                mode,
                "--run-id",
                "r-dur",
            ])
            .spawn()
            .expect("spawn");
        // Kill once three completions are journaled.
        let deadline = Instant::now() + Duration::from_secs(30);
        while completed(&ctx, "r-dur").len() < 3 {
            assert!(Instant::now() < deadline, "{mode}: the run never got going");
            std::thread::sleep(Duration::from_millis(5));
        }
        child.kill().expect("kill -9");
        let _ = child.wait();
        let done_before = completed(&ctx, "r-dur");
        // The program is sequential: the guest started a call only once it
        // had the previous one's result, so every executed call but the last
        // was reported done, and its completion must be on disk.
        let ran_before = executed(&ctx);
        if let Some((_in_flight, reported)) = ran_before.split_last() {
            for call in reported {
                assert!(
                    done_before.contains(call),
                    "{mode}: call {call} was reported done and its completion lost: journal {done_before:?}, ran {ran_before:?}"
                );
            }
        }
        let n = continue_and_check(&ctx, mode, "r-dur", &done_before, &ran_before, 1);
        assert_eq!(n.len(), 6, "{mode}: {n:?}");
        // The continuation kept the run's mode.
        let snap: Value =
            serde_json::from_str(&std::fs::read_to_string(ctx.state().join("runs/r-dur/run.json")).expect("run.json"))
                .expect("json");
        assert_eq!(snap["settings"]["durability"], mode, "{snap}");
    }
}

#[test]
fn a_bad_durability_mode_is_refused() {
    let ctx = Ctx::new();
    ctx.hwf(["run", harnesses::PROBE, "--durability", "sometimes"])
        .expect_code(2)
        .expect_stderr("invalid_args");
    let cfg = ctx.write("hwf.toml", "[journal]\ndurability = \"never\"\n");
    ctx.hwf(["run", harnesses::PROBE, "--config", cfg.to_str().expect("utf8")])
        .expect_code(2)
        .expect_stderr("invalid_config");
}

/// The seam: the same contract for calls inside `parallel` branches, each
/// branch its own instance with its own sequence of calls, killed while
/// both are mid-way and continued by a runner.
#[test]
fn every_mode_keeps_its_contract_inside_parallel_branches_across_kill_9() {
    for mode in ["sync", "group", "async"] {
        let ctx = Ctx::new();
        let f = ctx.write(
            "slow.json",
            json!({"responses": [{"match": {"label": "step"}, "output": {"ok": true}, "delay_ms": 80}]}).to_string(),
        );
        let branch = |b: usize| {
            let steps: Vec<Value> = (0..4)
                .map(|i| json!({"agent": "step", "prompt": format!("branch {b} step {i}")}))
                .collect();
            json!({"seq": steps})
        };
        let args = json!({"op": "program", "program": {"par": [branch(0), branch(1)]}}).to_string();
        let mut child = ctx
            .cmd()
            .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
            .args([
                "run",
                harnesses::PROBE,
                "--args",
                &args,
                "--agents",
                f.to_str().expect("utf8"),
                "--durability",
                mode,
                "--run-id",
                "r-par",
            ])
            .spawn()
            .expect("spawn");
        // Killed once four completions (about two per branch) are journaled.
        let deadline = Instant::now() + Duration::from_secs(30);
        while completed(&ctx, "r-par").len() < 4 {
            assert!(Instant::now() < deadline, "{mode}: the run never got going");
            std::thread::sleep(Duration::from_millis(5));
        }
        child.kill().expect("kill -9");
        let _ = child.wait();
        let done_before = completed(&ctx, "r-par");
        let ran_before = executed(&ctx);
        // Per branch (a call id's prefix), every executed call but the last
        // was reported done to that branch: its completion is on disk.
        let mut by_branch: HashMap<String, Vec<&String>> = HashMap::new();
        for call in &ran_before {
            let branch = call.rsplit_once('.').map_or("", |(b, _)| b).to_owned();
            by_branch.entry(branch).or_default().push(call);
        }
        assert_eq!(by_branch.len(), 2, "{mode}: two branches ran: {ran_before:?}");
        for calls in by_branch.values() {
            if let Some((_in_flight, reported)) = calls.split_last() {
                for call in reported {
                    assert!(
                        done_before.contains(call),
                        "{mode}: branch call {call} was reported done and lost: journal {done_before:?}, ran {ran_before:?}"
                    );
                }
            }
        }
        // At most one call in flight per branch ran again.
        let n = continue_and_check(&ctx, mode, "r-par", &done_before, &ran_before, 2);
        assert_eq!(n.len(), 8, "{mode}: {n:?}");
        let four = json!([{"ok": true}, {"ok": true}, {"ok": true}, {"ok": true}]);
        let s = ctx.hwf(["status", "r-par", "--json"]).json();
        assert_eq!(s["data"]["result"], json!([{"ok": four}, {"ok": four}]), "{mode}: {s}");
    }
}
