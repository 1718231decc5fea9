//! Concurrency end to end: parallel, pipeline, join sets, branch instances,
//! lifecycle, and the bundled loop-until-dry and release-lane harnesses.

use crate::claims::{Gates, wait_gone, wait_journal};
use crate::common::{Ctx, harnesses, root, run_id};
use serde_json::{Value, json};
use std::collections::BTreeSet;

const FIXTURE: &str = r#"{"responses": [
  {"match": {"label": "slow"}, "output": {"ok": true}, "delay_ms": 60, "tokens": 1},
  {"match": {"label": "very-slow"}, "output": {"ok": true}, "delay_ms": 3000},
  {"match": {"label": "quick"}, "output": {"ok": true}, "tokens": 1}
]}"#;

fn probe(ctx: &Ctx, args: Value, extra: &[&str]) -> Value {
    let f = ctx.write("flow.json", FIXTURE);
    let mut flags = vec!["--agents", f.to_str().expect("utf8")];
    flags.extend_from_slice(extra);
    let out = ctx.run_json(harnesses::PROBE, &args.to_string(), &flags);
    out.json()
}

#[test]
fn parallel_slots_keep_input_order_and_isolate_failures() {
    let ctx = Ctx::new();
    let v = probe(&ctx, json!({"op": "mixed"}), &["--cpu-limit-ms", "300"]);
    assert_eq!(v["success"], true, "{v}");
    let r = &v["data"]["result"];
    assert_eq!(r[0]["ok"], json!({"ok": true}));
    assert_eq!(r[1]["ok"], json!({"x": 1}));
    assert_eq!(r[2]["error"]["code"], "guest_trap");
    assert!(
        r[2]["error"]["message"]
            .as_str()
            .expect("msg")
            .contains("branch trapped on purpose")
    );
    assert_eq!(r[3]["error"]["code"], "cpu_limit");
    assert_eq!(r[3]["error"]["kind"], "TimedOut");
    assert!(r[4]["ok"]["entries"].is_array());
    assert_eq!(r[5]["ok"], json!({"ok": 2, "errors": []}));
    assert_eq!(r[6]["error"]["code"], "branch_failed");
    // Call ids: slot i of call 1 is 1.i; calls inside a branch are 1.i.k.
    let ids: BTreeSet<String> = ctx
        .journal(&run_id(&v))
        .iter()
        .filter(|e| e["type"] == "call_started")
        .map(|e| e["call"].as_str().expect("call").to_owned())
        .collect();
    let want: BTreeSet<String> = [
        "1", "1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.5.1", "1.5.1.0", "1.5.1.1", "1.6",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(ids, want);
}

#[test]
fn fail_fast_cancels_siblings_and_nothing_runs_after_the_end() {
    let ctx = Ctx::new();
    // The siblings' agent calls answer only when the test opens their gate,
    // which it never does: only fail-fast can end them.
    let gates = Gates::new(&ctx);
    let out = ctx.run_json(
        harnesses::PROBE,
        &json!({"op": "fail_fast"}).to_string(),
        &gates.flags(),
    );
    let v = out.json();
    let r = &v["data"]["result"];
    assert_eq!(r[0]["error"]["code"], "branch_failed", "{v}");
    for i in 1..4 {
        assert_eq!(r[i]["error"]["code"], "cancelled", "{r}");
    }
    // The run's process has exited: whatever it journaled is all there is.
    let after = ctx.journal(&run_id(&v));
    assert_eq!(after.last().expect("last")["type"], "run_completed");
    assert!(
        !after
            .iter()
            .any(|e| e["message"].as_str().is_some_and(|m| m.contains("late log")))
    );
    // Every started call has a completion (cancelled ones included).
    let started = after.iter().filter(|e| e["type"] == "call_started").count();
    let completed = after.iter().filter(|e| e["type"] == "call_completed").count();
    assert_eq!(started, completed);
    // Agents that had started were killed with their branches; none answered.
    for pid in gates.started("slow") {
        wait_gone(pid, "gate_agent");
    }
    assert!(gates.done("slow").is_empty());
}

#[test]
fn a_run_that_times_out_leaves_no_task_running() {
    let ctx = Ctx::new();
    let v = probe(
        &ctx,
        json!({"op": "fan_agents", "n": 4, "label": "very-slow"}),
        &["--wall-limit-ms", "300"],
    );
    assert_eq!(v["error"]["code"], "timeout", "{v}");
    // The run's process has exited, so nothing can be journaled later: the
    // end record is the last line and every started call was closed.
    let after = ctx.journal(&run_id(&v));
    assert_eq!(after.last().expect("last")["type"], "run_completed");
    let leaves = |ty: &str| after.iter().filter(|e| e["type"] == ty && e["kind"] == "agent").count();
    assert_eq!(leaves("call_started"), 4);
    assert_eq!(
        leaves("call_completed"),
        4,
        "each in-flight agent call is journaled cancelled: {after:#?}"
    );
}

#[test]
fn width_is_bounded_by_max_parallel() {
    let ctx = Ctx::new();
    // The agents answer only once the test opens their gate: three get a
    // width permit and start; the other nine queue behind them.
    let gates = Gates::new(&ctx);
    let args = json!({"op": "fan_agents", "n": 12, "label": "slow"}).to_string();
    let mut flags = vec!["--run-id", "width", "--json", "--max-parallel", "3", "--args", &args];
    flags.extend(gates.flags());
    let child = ctx
        .cmd()
        .args(["run", harnesses::PROBE])
        .args(&flags)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    gates.wait_started("slow", 3);
    gates.open("slow");
    let out: crate::common::Run = child.wait_with_output().expect("wait").into();
    out.expect_code(0);
    let v = out.json();
    assert_eq!(v["data"]["result"]["ok"], 12, "{v}");
    let mut running = 0i32;
    let mut peak = 0i32;
    for e in ctx.journal("width") {
        if e["kind"] != "agent" {
            continue;
        }
        match e["type"].as_str() {
            Some("call_started") => running += 1,
            Some("call_completed") => running -= 1,
            _ => {}
        }
        peak = peak.max(running);
    }
    // Never more than the width, and the width was really used.
    assert_eq!(peak, 3, "peak {peak}");
    assert_eq!(gates.started("slow").len(), 12);
    ctx.hwf(["run", harnesses::PROBE, "--max-parallel", "65"])
        .expect_code(2)
        .expect_stderr("invalid_args");
}

#[test]
fn too_many_tasks_are_refused() {
    let ctx = Ctx::new();
    let v = probe(&ctx, json!({"op": "fan_agents", "n": 4097, "label": "quick"}), &[]);
    // 4097 error codes make a large result: read the spilled file.
    let path = ctx.state().join(v["data"]["result_path"].as_str().expect("spilled"));
    let r: Value = serde_json::from_slice(&std::fs::read(path).expect("result.json")).expect("json");
    assert_eq!(r["ok"], 0);
    assert_eq!(r["errors"][0], "too_many_tasks");
}

#[test]
fn next_delivers_in_completion_order() {
    let ctx = Ctx::new();
    // Ten agents that answer only when the test says so: the test makes
    // them complete in `order`, each after the previous one was delivered.
    let gates = Gates::new(&ctx);
    let labels: Vec<String> = (0..10).map(|i| format!("d{i}")).collect();
    let order = ["d3", "d1", "d7", "d5", "d9", "d2", "d6", "d4", "d8", "d0"];
    let args = json!({"op": "join_order", "labels": labels}).to_string();
    let mut flags = vec!["--run-id", "order", "--json", "--max-parallel", "10", "--args", &args];
    flags.extend(gates.flags());
    let child = ctx
        .cmd()
        .args(["run", harnesses::PROBE])
        .args(&flags)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    for (n, label) in order.iter().enumerate() {
        gates.open(label);
        // `d<i>` is call i+1; wait until `next` handed it to the guest.
        let call = (label[1..].parse::<usize>().expect("index") + 1).to_string();
        wait_journal(&ctx, "order", &format!("delivery {n} ({label})"), |e| {
            e.iter().filter(|e| e["type"] == "delivered").count() > n
                && e.iter().any(|e| e["type"] == "delivered" && e["call"] == call.as_str())
        });
    }
    let out: crate::common::Run = child.wait_with_output().expect("wait").into();
    out.expect_code(0);
    let v = out.json();
    assert_eq!(v["data"]["result"]["order"], json!(order), "{v}");
    let delivered: Vec<String> = ctx
        .journal(&run_id(&v))
        .iter()
        .filter(|e| e["type"] == "delivered")
        .map(|e| e["call"].as_str().expect("call").to_owned())
        .collect();
    assert_eq!(delivered, ["4", "2", "8", "6", "10", "3", "7", "5", "9", "1"]);

    // Replay with no agent backend delivers the identical order and result.
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let again = ctx.hwf([
        "run",
        "--resume-from",
        &run_id(&v),
        "--agents",
        empty.to_str().expect("utf8"),
        "--json",
    ]);
    again.expect_code(0);
    let again = again.json();
    assert_eq!(again["data"]["result"], v["data"]["result"]);
    // The backend answers nothing: every call replayed, none ran and failed.
    assert_eq!(again["data"]["counts"]["replayed"], 10, "{again}");
    assert_eq!(again["data"]["counts"]["failed"], 0, "{again}");
    let replayed_order: Vec<String> = ctx
        .journal(&run_id(&again))
        .iter()
        .filter(|e| e["type"] == "delivered")
        .map(|e| e["call"].as_str().expect("call").to_owned())
        .collect();
    assert_eq!(replayed_order, delivered);
}

#[test]
fn pipeline_stages_flow_per_item() {
    let ctx = Ctx::new();
    let v = probe(
        &ctx,
        json!({"op": "pipeline", "items": [1, 2, 3], "stages": ["double", "add_one"]}),
        &[],
    );
    assert_eq!(v["data"]["result"], json!([{"ok": 3}, {"ok": 5}, {"ok": 7}]));
    let v = probe(
        &ctx,
        json!({"op": "pipeline", "items": [1, 2], "stages": ["double", "fail", "add_one"]}),
        &[],
    );
    let e = &v["data"]["result"][1]["error"];
    assert_eq!(e["code"], "stage_failed");
    assert!(
        e["message"].as_str().expect("msg").contains("item 1 stage 1 (fail)"),
        "{e}"
    );
}

#[test]
fn pipeline_has_no_barrier_between_items() {
    let ctx = Ctx::new();
    // Item 0's stages answer at once ("quick"); the other items' first stage
    // ("slower") waits for the test. Item 0 must reach its second stage
    // while they are all still waiting: with a barrier it never would.
    let gates = Gates::new(&ctx);
    gates.open("quick");
    let args = json!({"op": "pipeline", "items": [0, 1, 2, 3], "stages": ["slow_stage", "slow_stage"]}).to_string();
    let mut flags = vec!["--run-id", "pipe", "--json", "--args", &args];
    flags.extend(gates.flags());
    let child = ctx
        .cmd()
        .args(["run", harnesses::PROBE])
        .args(&flags)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let seen = wait_journal(&ctx, "pipe", "item 0 stage 1 completed", |e| {
        e.iter().any(|e| e["type"] == "call_completed" && e["call"] == "1.0.1")
    });
    for i in 1..4 {
        assert!(
            !seen
                .iter()
                .any(|e| e["type"] == "call_completed" && e["call"] == format!("1.{i}.0").as_str()),
            "item {i} finished stage 0 while its agent was held"
        );
    }
    assert!(gates.done("slower").is_empty());
    gates.open("slower");
    let out: crate::common::Run = child.wait_with_output().expect("wait").into();
    out.expect_code(0);
    let v = out.json();
    assert_eq!(
        v["data"]["result"],
        json!([{"ok": 0}, {"ok": 1}, {"ok": 2}, {"ok": 3}]),
        "{v}"
    );
    let j = ctx.journal("pipe");
    let pos = |call: &str, ty: &str| j.iter().position(|e| e["call"] == call && e["type"] == ty).expect(call);
    for i in 1..4 {
        assert!(
            pos("1.0.1", "call_completed") < pos(&format!("1.{i}.0"), "call_completed"),
            "item 0 waited for item {i}"
        );
    }
}

#[test]
fn nested_workflows_run_one_level_deep() {
    let ctx = Ctx::new();
    ctx.hwf(["script", "save", "probe", harnesses::PROBE]).expect_code(0);
    let v = probe(
        &ctx,
        json!({"op": "workflow", "name": "probe", "args": {"op": "echo_args", "x": 1}}),
        &[],
    );
    assert_eq!(v["data"]["result"][0]["ok"], json!({"op": "echo_args", "x": 1}), "{v}");
    let v = probe(
        &ctx,
        json!({"op": "workflow", "name": "probe", "args": {"op": "workflow", "name": "probe", "args": {}}}),
        &[],
    );
    assert_eq!(
        v["data"]["result"][0]["ok"][0]["error"]["code"], "nesting_too_deep",
        "{v}"
    );
    let v = probe(&ctx, json!({"op": "workflow", "name": "missing", "args": {}}), &[]);
    assert_eq!(v["data"]["result"][0]["error"]["code"], "not_found", "{v}");
}

fn loop_until_dry(ctx: &Ctx, args: &str) -> Value {
    let fixture = root().join("harnesses/loop-until-dry/fixture.json");
    let out = ctx.run_json(
        harnesses::LOOP_UNTIL_DRY,
        args,
        &["--agents", fixture.to_str().expect("utf8")],
    );
    out.expect_code(0);
    out.json()
}

#[test]
fn loop_until_dry_default_run() {
    let ctx = Ctx::new();
    let v = loop_until_dry(&ctx, r#"{"subject": "checkout"}"#);
    assert_eq!(
        v["data"]["result"],
        json!({
            "rounds": 2, "dry_count": 1, "max_round_reached": false,
            "verified_bug_ids": ["B1"], "candidate_bug_ids": ["B1", "B2"], "remaining_areas": []
        })
    );
    let j = ctx.journal(&run_id(&v));
    let phases: Vec<&str> = j
        .iter()
        .filter(|e| e["type"] == "phase")
        .filter_map(|e| e["title"].as_str())
        .collect();
    assert_eq!(
        phases,
        [
            "round 1 find",
            "round 1 verify",
            "round 1 decision",
            "round 2 find",
            "round 2 verify",
            "round 2 decision"
        ]
    );
    let labels: BTreeSet<&str> = j
        .iter()
        .filter(|e| e["type"] == "call_started")
        .filter_map(|e| e["label"].as_str())
        .collect();
    let want: BTreeSet<&str> = [
        "finder:totals",
        "finder:state",
        "finder:accessibility",
        "finder:rounding",
        "verifier:unit:B1",
        "verifier:integration:B1",
        "verifier:unit:B2",
        "verifier:integration:B2",
    ]
    .into_iter()
    .collect();
    assert_eq!(labels, want);
    let logs: Vec<&str> = j
        .iter()
        .filter(|e| e["type"] == "log")
        .filter_map(|e| e["message"].as_str())
        .collect();
    assert_eq!(
        logs,
        [
            "round 1: 1 unique candidates, 1 new verified, dry_count=0",
            "round 2: 1 unique candidates, 0 new verified, dry_count=1"
        ]
    );
    let finder = j
        .iter()
        .find(|e| e["label"] == "finder:state" && e["type"] == "call_started")
        .expect("finder");
    assert_eq!(
        finder["request"]["context"],
        json!({"area": "state", "round": 1, "subject": "checkout"})
    );
    assert_eq!(finder["request"]["prompt"], "Find candidate bugs for area state");
    assert_eq!(v["data"]["counts"]["agent_calls"], 8);
}

#[test]
fn loop_until_dry_call_layout_is_deterministic() {
    let ctx = Ctx::new();
    let layout = |v: &Value| -> BTreeSet<(String, String)> {
        ctx.journal(&run_id(v))
            .iter()
            .filter(|e| e["type"] == "call_started")
            .map(|e| {
                (
                    e["call"].as_str().unwrap_or("").to_owned(),
                    e["fingerprint"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect()
    };
    let a = layout(&loop_until_dry(&ctx, "{}"));
    let b = layout(&loop_until_dry(&ctx, "{}"));
    assert_eq!(a, b);
    let ids: Vec<&str> = a.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(
        ids,
        [
            "1", "1.0", "1.1", "1.2", "2", "2.0", "2.1", "3", "3.0", "4", "4.0", "4.1"
        ]
    );
}

#[test]
fn loop_until_dry_max_rounds_one() {
    let ctx = Ctx::new();
    let v = loop_until_dry(&ctx, r#"{"max_rounds": 1}"#);
    assert_eq!(
        v["data"]["result"],
        json!({
            "rounds": 1, "dry_count": 0, "max_round_reached": true,
            "verified_bug_ids": ["B1"], "candidate_bug_ids": ["B1"], "remaining_areas": ["rounding"]
        })
    );
}

#[test]
fn release_lane_recommends_the_exact_head() {
    let ctx = Ctx::new();
    let fixture = root().join("harnesses/release-lane/fixture.json");
    let f = fixture.to_str().expect("utf8");
    let event = std::fs::read_to_string(root().join("harnesses/release-lane/event.json")).expect("event");
    let out = ctx.run_json(harnesses::RELEASE_LANE, &event, &["--agents", f]);
    out.expect_code(0);
    let r = &out.json()["data"]["result"];
    assert_eq!(r["recommendation"], "release", "{r}");
    assert_eq!(r["exact_head"], true);
    let stale = r#"{"repo": "hermes-agent/app", "number": 42, "head_sha": "1111111111111111111111111111111111111111"}"#;
    let out = ctx.run_json(harnesses::RELEASE_LANE, stale, &["--agents", f]);
    let r = &out.json()["data"]["result"];
    assert_eq!(r["recommendation"], "hold", "{r}");
    assert_eq!(r["exact_head"], false);
    assert!(r["reasons"].as_array().expect("reasons").len() >= 2);
}
