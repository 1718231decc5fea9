//! Durability modes (`--durability sync|group|async`): each keeps its
//! contract across a `kill -9` — no completed call runs twice, the run
//! finishes with the right result — and the mode is kept by continuations.

use crate::common::{Ctx, harnesses};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::{Duration, Instant};

fn executions(ctx: &Ctx) -> HashMap<String, usize> {
    let text = std::fs::read_to_string(ctx.path("calls.log")).unwrap_or_default();
    let mut n = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let key = line.split_whitespace().next().unwrap_or("");
        let call = key.rsplit_once(':').map_or(key, |(_, c)| c).to_owned();
        *n.entry(call).or_insert(0) += 1;
    }
    n
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
        let out = ctx
            .cmd()
            .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
            .args(["runner", "--once"])
            .output()
            .expect("runner");
        assert!(out.status.success(), "{mode}: {out:?}");
        let s = ctx.hwf(["status", "r-dur", "--json"]).json();
        assert_eq!(s["data"]["state"], "succeeded", "{mode}: {s}");
        let n = executions(&ctx);
        for call in &done_before {
            assert_eq!(n.get(call), Some(&1), "{mode}: completed call {call} ran again: {n:?}");
        }
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
