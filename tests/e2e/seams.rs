//! The durability contract at the seams of a run: waits inside branches,
//! pipeline stages and nested workflows; budgets across continuations;
//! replay across `--resume-from`; controls consumed once; the control
//! plane's failures named; guest CPU metered so host work does not count.

use crate::common::{Ctx, harnesses, run_id, runner_once, status};
use serde_json::{Value, json};
use std::collections::HashMap;

/// A fixture answering every prompt agent, by label, with `{"label": …}`
/// (labels in `fail` fail instead), recording executions in `calls.log`.
fn fixture(ctx: &Ctx, labels: &[&str], fail: &[&str]) -> String {
    let mut rules: Vec<Value> = fail
        .iter()
        .map(|l| json!({"match": {"label": l}, "error": "the agent died"}))
        .collect();
    rules.extend(
        labels
            .iter()
            .map(|l| json!({"match": {"label": l}, "output": {"label": l}, "tokens": 10})),
    );
    let name = format!("fixture-{}.json", ctx.dir.path().read_dir().map_or(0, Iterator::count));
    ctx.write(&name, json!({"responses": rules}).to_string())
        .to_str()
        .expect("utf8")
        .to_owned()
}

/// Real executions per call id (from `$HWF_FIXTURE_LOG`).
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

fn total_executions(ctx: &Ctx) -> usize {
    executions(ctx).values().sum()
}

/// `hwf run probe --args {"op":"program",…} --json` with the call log on.
fn program(ctx: &Ctx, program: &Value, flags: &[&str]) -> crate::common::Run {
    let args = json!({"op": "program", "program": program}).to_string();
    let mut a: Vec<String> = vec![
        "run".into(),
        harnesses::PROBE.into(),
        "--args".into(),
        args,
        "--json".into(),
    ];
    a.extend(flags.iter().map(|s| s.to_string()));
    ctx.cmd()
        .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
        .args(a)
        .output()
        .expect("spawn hwf")
        .into()
}

fn runner_logged(ctx: &Ctx) -> Value {
    let out: crate::common::Run = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
        .args(["runner", "--once", "--json"])
        .output()
        .expect("spawn hwf")
        .into();
    out.expect_code(0);
    out.json()["data"].clone()
}

fn ask(prompt: &str) -> Value {
    json!({"cap": {"name": "human.ask", "input": {"prompt": prompt}}})
}

fn decide(ctx: &Ctx, id: &str, call: &str, answer: &str) {
    ctx.hwf(["control", "decide", id, call, "respond", "--value", answer])
        .expect_code(0);
}

fn count_type(ctx: &Ctx, id: &str, ty: &str) -> usize {
    ctx.journal(id).iter().filter(|e| e["type"] == ty).count()
}

/// Park on `program`, answer the one wait at `call`, continue with the
/// runner, and return the final status.
fn park_then_answer(ctx: &Ctx, program_tree: &Value, call: &str, flags: &[&str]) -> (String, Value) {
    let out = program(ctx, program_tree, flags);
    out.expect_code(3);
    let id = run_id(&out.json());
    let s = status(ctx, &id);
    assert_eq!(s["state"], "waiting", "{s}");
    let waits: Vec<&str> = s["waits"]
        .as_array()
        .expect("waits")
        .iter()
        .filter_map(|w| w["call"].as_str())
        .collect();
    assert!(waits.contains(&call), "waits {waits:?} lack {call}: {s}");
    decide(ctx, &id, call, "\"yes\"");
    runner_logged(ctx);
    (id.clone(), status(ctx, &id))
}

#[test]
fn a_wait_inside_a_parallel_branch_parks_the_whole_run() {
    let ctx = Ctx::manual_runner();
    let f = fixture(&ctx, &["sibling", "after"], &[]);
    // par is call 1; slot 0 is a branch instance whose first call is 1.0.1.
    let tree = json!({"seq": [
        {"par": [ask("ship it?"), {"agent": "sibling"}]},
        {"agent": "after"},
    ]});
    let (id, s) = park_then_answer(&ctx, &tree, "1.0.1", &["--agents", &f]);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"][0][0]["ok"]["answer"], "yes", "{s}");
    assert_eq!(s["result"][1]["label"], "after");
    // The sibling ran once, before the park (it was let finish, not
    // cancelled), and replayed on the continuation; `after` ran once.
    let n = executions(&ctx);
    assert_eq!(n.get("1.1.1"), Some(&1), "{n:?}");
    assert_eq!(n.get("2"), Some(&1), "{n:?}");
    assert_eq!(count_type(&ctx, &id, "wait_resolved"), 1);
    assert!(
        !ctx.journal(&id)
            .iter()
            .any(|e| e["call"] == "1.0" && e["type"] == "call_completed" && e["error"]["kind"] == "cancelled"),
        "the parked branch was not journaled as cancelled"
    );
}

#[test]
fn a_wait_inside_a_pipeline_stage_parks_the_whole_run() {
    let ctx = Ctx::manual_runner();
    let f = fixture(&ctx, &["stage0", "other"], &[]);
    // pipe is call 1; item 0 stage 1 is call 1.0.1, its first call 1.0.1.1.
    let tree = json!({"pipe": [
        {"stages": [{"agent": "stage0"}, ask("stage 1 ok?")]},
        {"stages": [{"agent": "other"}]},
    ]});
    let (_, s) = park_then_answer(&ctx, &tree, "1.0.1.1", &["--agents", &f]);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"][0]["ok"]["answer"], "yes", "{s}");
    assert_eq!(s["result"][1]["ok"]["label"], "other", "{s}");
    assert_eq!(total_executions(&ctx), 2, "{:?}", executions(&ctx));
}

#[test]
fn a_wait_inside_a_nested_workflow_parks_the_whole_run() {
    let ctx = Ctx::manual_runner();
    let f = fixture(&ctx, &["inner", "outer"], &[]);
    ctx.hwf(["script", "save", "probe", harnesses::PROBE]).expect_code(0);
    // workflow is call 1 (a parallel of one); the nested run is call 1.0,
    // its calls 1.0.1 (agent) and 1.0.2 (the question).
    let inner = json!({"op": "program", "program": {"seq": [{"agent": "inner"}, ask("nested ok?")]}});
    let tree = json!({"seq": [{"workflow": "probe", "args": inner}, {"agent": "outer"}]});
    let (_, s) = park_then_answer(&ctx, &tree, "1.0.2", &["--agents", &f]);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"][0][1]["answer"], "yes", "{s}");
    let n = executions(&ctx);
    assert_eq!((n.get("1.0.1"), n.get("2")), (Some(&1), Some(&1)), "{n:?}");
}

#[test]
fn waits_in_two_branches_are_both_listed_and_both_answered() {
    let ctx = Ctx::manual_runner();
    let tree = json!({"par": [ask("first?"), ask("second?")]});
    let out = program(&ctx, &tree, &[]);
    out.expect_code(3);
    let id = run_id(&out.json());
    let s = status(&ctx, &id);
    let mut calls: Vec<String> = s["waits"]
        .as_array()
        .expect("waits")
        .iter()
        .map(|w| w["call"].as_str().unwrap_or("").to_owned())
        .collect();
    calls.sort();
    assert_eq!(calls, ["1.0.1", "1.1.1"], "{s}");
    // One answer: the run continues and parks again on the other.
    decide(&ctx, &id, "1.0.1", "\"a\"");
    runner_once(&ctx);
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "waiting", "{s}");
    assert_eq!(s["waits"].as_array().map(Vec::len), Some(1), "{s}");
    assert_eq!(s["waits"][0]["call"], "1.1.1");
    decide(&ctx, &id, "1.1.1", "\"b\"");
    runner_once(&ctx);
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"][0]["ok"]["answer"], "a");
    assert_eq!(s["result"][1]["ok"]["answer"], "b");
}

#[test]
fn a_javascript_wait_inside_parallel_parks_the_run() {
    let ctx = Ctx::manual_runner();
    let f = fixture(&ctx, &["js-sibling"], &[]);
    let script = ctx.write(
        "ask.js",
        r#"export const meta = { name: "ask-in-parallel", description: "a question inside parallel" };
const [answer, other] = await parallel([
  () => capability("human.ask", { prompt: "go?" }),
  () => agent("sibling work", { label: "js-sibling" }),
]);
return { answer: answer?.answer ?? null, other: other?.label ?? null };
"#,
    );
    let out: crate::common::Run = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
        .args(["run", script.to_str().expect("utf8"), "--agents", &f, "--json"])
        .output()
        .expect("spawn")
        .into();
    out.expect_code(3);
    let id = run_id(&out.json());
    let s = status(&ctx, &id);
    let call = s["waits"][0]["call"].as_str().expect("wait call").to_owned();
    decide(&ctx, &id, &call, "\"go\"");
    runner_logged(&ctx);
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"], json!({"answer": "go", "other": "js-sibling"}));
    assert_eq!(total_executions(&ctx), 1, "{:?}", executions(&ctx));
}

#[test]
fn a_pause_during_a_fan_out_of_branches_parks_the_run() {
    let ctx = Ctx::manual_runner();
    let f = ctx.write(
        "slow.json",
        json!({"responses": [{"match": {"label": "slow"}, "output": {"ok": true}, "delay_ms": 300}]}).to_string(),
    );
    let f = f.to_str().expect("utf8");
    // Each branch makes two slow calls; the pause lands while the first
    // ones run, and every branch parks at its second call.
    let branch = json!({"seq": [{"agent": "slow", "prompt": "one"}, {"agent": "slow", "prompt": "two"}]});
    let tree = json!({"par": [branch.clone(), branch.clone(), branch]});
    let args = json!({"op": "program", "program": tree}).to_string();
    let child = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
        .args(["run", harnesses::PROBE, "--args", &args, "--agents", f, "--json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // Wait until the first agent calls have started, then pause.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let id = loop {
        assert!(std::time::Instant::now() < deadline, "the run never started its calls");
        let overview = ctx.hwf(["overview", "--json"]).json();
        if let Some(id) = overview["data"]["runs"][0]["run_id"].as_str()
            && std::fs::read_to_string(ctx.state().join("runs").join(id).join("journal.jsonl"))
                .is_ok_and(|j| j.contains("\"call\":\"1.0.1\""))
        {
            break id.to_owned();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    ctx.hwf(["control", "pause", &id]).expect_code(0);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(3), "the paused run parks");
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "waiting", "{s}");
    assert!(
        s["waits"]
            .as_array()
            .expect("waits")
            .iter()
            .all(|w| w["kind"] == "pause"),
        "{s}"
    );
    ctx.hwf(["control", "resume", &id]).expect_code(0);
    runner_logged(&ctx);
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "succeeded", "{s}");
    // Every call ran exactly once: the first ones before the pause (they
    // finished and replayed), the second ones after.
    let n = executions(&ctx);
    assert_eq!(n.len(), 6, "{n:?}");
    assert!(n.values().all(|&c| c == 1), "{n:?}");
}

#[test]
fn budgets_hold_across_continuations() {
    let ctx = Ctx::manual_runner();
    let f = fixture(&ctx, &["a", "b", "c"], &[]);
    let tree = json!({"seq": [{"agent": "a"}, ask("one?"), {"agent": "b"}, ask("two?"), {"try": {"agent": "c"}}]});
    let out = program(&ctx, &tree, &["--agents", &f, "--max-agent-calls", "2"]);
    out.expect_code(3);
    let id = run_id(&out.json());
    decide(&ctx, &id, "2", "\"y\"");
    runner_logged(&ctx);
    assert_eq!(status(&ctx, &id)["state"], "waiting");
    decide(&ctx, &id, "4", "\"y\"");
    runner_logged(&ctx);
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "succeeded", "{s}");
    // Two live agent calls in all; the third is refused by the budget.
    assert_eq!(total_executions(&ctx), 2, "{:?}", executions(&ctx));
    assert_eq!(s["result"][4]["error"]["code"], "limit_agent", "{s}");
    // The counters cover the whole run, not the last execution.
    assert_eq!(s["counts"]["agent_calls"], 2, "{s}");
    assert_eq!(s["counts"]["tokens"], 20, "{s}");
}

#[test]
fn a_resumed_run_replays_with_the_same_clock_and_random_seed() {
    let ctx = Ctx::new();
    let f = fixture(&ctx, &["noisy", "second"], &[]);
    let tree = json!({"seq": [{"agent": "noisy", "entropy": true}, {"agent": "second", "entropy": true}]});
    let first = program(&ctx, &tree, &["--agents", &f]);
    first.expect_code(0);
    let first = first.json();
    let id = run_id(&first);
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
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
    assert_eq!(again["data"]["result"], first["data"]["result"]);
    assert_eq!(again["data"]["counts"]["replayed"], 2, "{again}");
    // A resume of the resume: still the lineage's clock and seed.
    let third = ctx.hwf([
        "run",
        "--resume-from",
        &run_id(&again),
        "--agents",
        empty.to_str().expect("utf8"),
        "--json",
    ]);
    third.expect_code(0);
    assert_eq!(third.json()["data"]["counts"]["replayed"], 2);
    let started = ctx
        .journal(&run_id(&again))
        .into_iter()
        .find(|e| e["type"] == "run_started")
        .expect("run_started");
    assert_eq!(started["seed_run"], id.as_str(), "{started}");
}

#[test]
fn a_retry_runs_its_call_again_once() {
    let ctx = Ctx::manual_runner();
    let f = fixture(&ctx, &["a"], &[]);
    let tree = json!({"seq": [{"agent": "a"}, ask("one?"), ask("two?")]});
    let out = program(&ctx, &tree, &["--agents", &f]);
    out.expect_code(3);
    let id = run_id(&out.json());
    ctx.hwf(["control", "retry", &id, "1"]).expect_code(0);
    decide(&ctx, &id, "2", "\"y\"");
    runner_logged(&ctx);
    assert_eq!(executions(&ctx).get("1"), Some(&2), "the retry ran the call again");
    decide(&ctx, &id, "3", "\"y\"");
    runner_logged(&ctx);
    assert_eq!(status(&ctx, &id)["state"], "succeeded");
    assert_eq!(
        executions(&ctx).get("1"),
        Some(&2),
        "the retry was consumed: the call replayed on the next continuation"
    );
    assert_eq!(count_type(&ctx, &id, "control_applied"), 1);
}

#[test]
fn resume_runs_failed_calls_again_and_replays_the_rest_by_content() {
    let ctx = Ctx::new();
    let broken = fixture(&ctx, &["ok1", "ok3"], &["flaky"]);
    let tree = json!({"seq": [{"agent": "ok1"}, {"try": {"agent": "flaky"}}, {"agent": "ok3"}]});
    let first = program(&ctx, &tree, &["--agents", &broken]);
    first.expect_code(0);
    let first = first.json();
    assert_eq!(first["data"]["result"][1]["error"]["code"], "agent_failed", "{first}");
    let id = run_id(&first);
    // Resume with a backend where the flaky agent works: the failure is
    // not replayed; the calls around it are.
    let fixed = fixture(&ctx, &["ok1", "flaky", "ok3"], &[]);
    let again: crate::common::Run = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
        .args(["run", "--resume-from", &id, "--agents", &fixed, "--json"])
        .output()
        .expect("spawn")
        .into();
    again.expect_code(0);
    let again = again.json();
    assert_eq!(again["data"]["result"][1]["ok"]["label"], "flaky", "{again}");
    assert_eq!(again["data"]["counts"]["replayed"], 2, "{again}");
    let n = executions(&ctx);
    assert_eq!(n.get("2"), Some(&2), "flaky ran again: {n:?}");
    assert_eq!((n.get("1"), n.get("3")), (Some(&1), Some(&1)), "{n:?}");
}

#[test]
fn a_changed_middle_call_runs_live_and_the_rest_replays() {
    let ctx = Ctx::new();
    let f = fixture(&ctx, &["a", "b", "c"], &[]);
    let make = |middle: &str| {
        json!({"op": "program", "program": {"seq": [
            {"agent": "a"}, {"agent": "b", "prompt": middle}, {"agent": "c"},
        ]}})
        .to_string()
    };
    let first: crate::common::Run = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
        .args([
            "run",
            harnesses::PROBE,
            "--args",
            &make("one"),
            "--agents",
            &f,
            "--json",
        ])
        .output()
        .expect("spawn")
        .into();
    first.expect_code(0);
    let id = run_id(&first.json());
    let again: crate::common::Run = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
        .args([
            "run",
            harnesses::PROBE,
            "--resume-from",
            &id,
            "--allow-changed",
            "--args",
            &make("two"),
            "--agents",
            &f,
            "--json",
        ])
        .output()
        .expect("spawn")
        .into();
    again.expect_code(0);
    assert_eq!(again.json()["data"]["counts"]["replayed"], 2);
    let n = executions(&ctx);
    assert_eq!(
        (n.get("1"), n.get("2"), n.get("3")),
        (Some(&1), Some(&2), Some(&1)),
        "{n:?}"
    );
}

#[test]
fn corrupt_controls_are_named_not_ignored() {
    let ctx = Ctx::manual_runner();
    let out = program(&ctx, &ask("go?"), &[]);
    out.expect_code(3);
    let id = run_id(&out.json());
    let controls = ctx.state().join("runs").join(&id).join("controls.jsonl");
    std::fs::write(&controls, "{not json}\n").expect("write");
    // Recording a decision on top of it is refused with the code…
    let refused = ctx.hwf(["control", "decide", &id, "1", "respond", "--value", "\"yes\""]);
    assert_ne!(refused.code, 0, "{refused:?}");
    refused.expect_stderr("corrupt_store");
    // …and the runner names the run instead of continuing it as if it had
    // no controls.
    let report = runner_once(&ctx);
    assert_eq!(report["errors"][0][0], id.as_str(), "{report}");
    assert_eq!(report["errors"][0][1]["code"], "corrupt_store", "{report}");
    assert_eq!(status(&ctx, &id)["state"], "waiting");
}

#[test]
fn a_trapped_branch_output_is_journaled() {
    let ctx = Ctx::new();
    let f = crate::common::hello_fixture();
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"mixed"}"#,
        &["--agents", f.to_str().expect("utf8"), "--cpu-limit-ms", "200"],
    );
    out.expect_code(0);
    let id = run_id(&out.json());
    let logs: Vec<Value> = ctx.journal(&id).into_iter().filter(|e| e["type"] == "log").collect();
    assert!(
        logs.iter().any(|e| e["source"] == "stderr"
            && e["message"]
                .as_str()
                .is_some_and(|m| m.contains("branch trapped on purpose"))),
        "the panic message of the trapped branch is in the journal: {logs:?}"
    );
}

#[test]
fn host_work_does_not_count_as_guest_cpu() {
    // 150 000 log calls: cheap for the guest, real work for the host (each
    // is a journal write). Under a 300 ms CPU limit the run must succeed
    // however slow the host is, because guest CPU is metered as fuel.
    let ctx = Ctx::new();
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"log","n":150000}"#,
        &["--cpu-limit-ms", "300", "--max-calls", "200000"],
    );
    out.expect_code(0);
    // A guest that really computes still hits the limit, every time.
    for _ in 0..2 {
        let out = ctx.run_json(harnesses::HOSTILE, r#"{"mode":"loop"}"#, &["--cpu-limit-ms", "100"]);
        out.expect_code(1);
        assert_eq!(out.json()["error"]["code"], "cpu_limit", "{out:?}");
    }
}

#[test]
fn a_stopped_queued_run_is_cancelled_before_it_runs() {
    let ctx = Ctx::manual_runner();
    let out = ctx.hwf([
        "run",
        harnesses::PROBE,
        "--args",
        r#"{"op":"noop"}"#,
        "--background",
        "--queue-only",
        "--json",
    ]);
    out.expect_code(0);
    let id = run_id(&out.json());
    ctx.hwf(["control", "stop", &id]).expect_code(0);
    let report = runner_once(&ctx);
    assert_eq!(report["stopped"][0], id.as_str(), "{report}");
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "cancelled", "{s}");
    assert!(
        !ctx.state().join("runs").join(&id).join("journal.jsonl").exists() || count_type(&ctx, &id, "run_started") == 0,
        "it never ran"
    );
}

#[test]
fn a_javascript_workflow_call_runs_a_saved_script_nested_and_parks_inside_it() {
    let ctx = Ctx::manual_runner();
    let f = fixture(&ctx, &["child-agent"], &[]);
    let child = ctx.write(
        "child.js",
        r#"export const meta = { name: "child", description: "a saved child" };
const r = await agent("child work", { label: "child-agent" });
const a = await capability("human.ask", { prompt: "child asks" });
return { child: r?.label ?? null, answer: a?.answer ?? null, got: args };
"#,
    );
    ctx.hwf(["script", "save", "child", child.to_str().expect("utf8")])
        .expect_code(0);
    let parent = ctx.write(
        "parent.js",
        r#"export const meta = { name: "parent", description: "calls a saved script" };
const out = await workflow("child", { n: 7 });
return { out };
"#,
    );
    let run: crate::common::Run = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
        .args(["run", parent.to_str().expect("utf8"), "--agents", &f, "--json"])
        .output()
        .expect("spawn")
        .into();
    run.expect_code(3);
    let id = run_id(&run.json());
    let s = status(&ctx, &id);
    let call = s["waits"][0]["call"].as_str().expect("wait").to_owned();
    decide(&ctx, &id, &call, "\"sure\"");
    runner_logged(&ctx);
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(
        s["result"],
        json!({"out": {"child": "child-agent", "answer": "sure", "got": {"n": 7}}})
    );
    assert_eq!(total_executions(&ctx), 1, "{:?}", executions(&ctx));
}

/// A bare MCP client over `hwf mcp`'s stdio.
struct McpClient {
    child: std::process::Child,
    out: std::io::BufReader<std::process::ChildStdout>,
}

impl McpClient {
    fn start(ctx: &Ctx, agents: &str) -> Self {
        let mut child = ctx
            .cmd()
            .args(["mcp", "--agents", agents])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn mcp");
        let out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let mut c = Self { child, out };
        c.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "seams", "version": "1"}}),
        );
        c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    fn send(&mut self, msg: Value) {
        use std::io::Write as _;
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{msg}").expect("write");
        stdin.flush().expect("flush");
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        use std::io::BufRead as _;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(self.out.read_line(&mut line).expect("read") > 0, "server closed");
            let v: Value = serde_json::from_str(&line).expect("json-rpc line");
            if v["id"] == id {
                return v;
            }
        }
    }
}

#[test]
fn a_cancelled_mcp_call_leaves_no_task_rewriting_the_run() {
    let ctx = Ctx::new();
    let slow = ctx.write(
        "slow.json",
        json!({"responses": [{"match": {"label": "slow"}, "output": {"ok": true}, "delay_ms": 400}]}).to_string(),
    );
    let mut mcp = McpClient::start(&ctx, slow.to_str().expect("utf8"));
    let args = json!({"op": "program", "program": {"seq": [{"agent": "slow"}, {"agent": "slow", "prompt": "2"}]}});
    mcp.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "workflow", "arguments": {"scriptPath": harnesses::PROBE, "args": args}}}));
    // Once the run exists, cancel the call.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let id = loop {
        assert!(std::time::Instant::now() < deadline, "the run never started");
        // Listed, and its snapshot written (a run's directory exists a
        // moment before its run.json).
        if let Some(id) = ctx.hwf(["overview", "--json"]).json()["data"]["runs"][0]["run_id"].as_str()
            && ctx.hwf(["status", id, "--json"]).code == 0
        {
            break id.to_owned();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    mcp.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "user"}}),
    );
    // The cancelled call stops its run (a stop control): it ends stopped,
    // and no runner takes it over.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        assert!(std::time::Instant::now() < deadline, "the run was never stopped");
        runner_once(&ctx);
        let state = status(&ctx, &id)["state"].clone();
        assert_ne!(state, "succeeded", "the cancelled run went on");
        if state == "stopped" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // Nothing in the MCP server goes on writing it: it stays stopped over
    // several progress periods (500 ms each), and it ended once.
    let until = std::time::Instant::now() + std::time::Duration::from_millis(1600);
    while std::time::Instant::now() < until {
        runner_once(&ctx);
        assert_eq!(status(&ctx, &id)["state"], "stopped");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(count_type(&ctx, &id, "run_completed"), 1);
    drop(mcp.child.stdin.take());
    let _ = mcp.child.wait();
}

#[test]
fn a_starting_run_is_never_taken_for_stuck() {
    let ctx = Ctx::new();
    let f = fixture(&ctx, &["quick"], &[]);
    let tree = json!({"agent": "quick"});
    let args = json!({"op": "program", "program": tree}).to_string();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // A runner polls the whole time the runs start.
    let poller = {
        let done = done.clone();
        let state = ctx.state();
        std::thread::spawn(move || {
            let mut passes = 0;
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                let _ = std::process::Command::new(env!("CARGO_BIN_EXE_hwf"))
                    .args(["runner", "--once", "--state-dir"])
                    .arg(&state)
                    .output();
                passes += 1;
            }
            passes
        })
    };
    let runs: Vec<_> = (0..12)
        .map(|_| {
            let mut c = ctx.cmd();
            c.args(["run", harnesses::PROBE, "--args", &args, "--agents", &f, "--json"])
                .stdout(std::process::Stdio::piped());
            c.spawn().expect("spawn")
        })
        .collect();
    let ids: Vec<String> = runs
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().expect("wait");
            let v: Value = serde_json::from_slice(&out.stdout).expect("json");
            run_id(&v)
        })
        .collect();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let passes = poller.join().expect("poller");
    assert!(passes > 0);
    for id in ids {
        assert_eq!(count_type(&ctx, &id, "run_started"), 1, "run {id} was executed twice");
        assert_eq!(status(&ctx, &id)["state"], "succeeded");
    }
}

#[test]
fn a_parallel_cut_short_by_the_wall_limit_is_closed_in_the_journal() {
    let ctx = Ctx::new();
    let f = ctx.write(
        "slow.json",
        json!({"responses": [{"match": {"label": "very-slow"}, "output": {}, "delay_ms": 3000}]}).to_string(),
    );
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"fan_agents","n":4,"label":"very-slow"}"#,
        &["--agents", f.to_str().expect("utf8"), "--wall-limit-ms", "300"],
    );
    out.expect_code(1);
    let id = run_id(&out.json());
    let journal = ctx.journal(&id);
    let started: Vec<&str> = journal
        .iter()
        .filter(|e| e["type"] == "call_started")
        .filter_map(|e| e["call"].as_str())
        .collect();
    for call in started {
        assert!(
            journal
                .iter()
                .any(|e| e["type"] == "call_completed" && e["call"] == call),
            "call {call} was left open: {journal:?}"
        );
    }
}

#[test]
fn a_javascript_schema_agent_throws_after_five_failed_validations() {
    let ctx = Ctx::new();
    let f = ctx.write(
        "f.json",
        json!({"responses": [{"match": {"label": "v"}, "output": {"nope": 1}}]}).to_string(),
    );
    let script = ctx.write(
        "schema.js",
        r#"export const meta = { name: "schema-retries", description: "five tries" };
try {
  await agent("give a verdict", { label: "v", schema: { type: "object", required: ["verdict"], properties: { verdict: { type: "string" } } } });
  return { threw: false };
} catch (e) {
  return { threw: true, message: String(e.message ?? e) };
}
"#,
    );
    let out = ctx.hwf([
        "run",
        script.to_str().expect("utf8"),
        "--agents",
        f.to_str().expect("utf8"),
        "--json",
    ]);
    out.expect_code(0);
    let v = out.json();
    assert_eq!(v["data"]["result"]["threw"], true, "{v}");
    let id = run_id(&v);
    let done = ctx
        .journal(&id)
        .into_iter()
        .find(|e| e["type"] == "call_completed" && e["kind"] == "agent")
        .expect("agent completion");
    assert_eq!(done["attempts"], 5, "{done}");
}

#[test]
fn a_live_agent_call_with_no_backend_fails_the_run_loudly_and_failed_calls_are_counted() {
    let ctx = Ctx::new();
    let args = json!({"op": "program", "program": {"agent": "anyone"}}).to_string();
    let out = ctx.hwf(["run", harnesses::PROBE, "--args", &args, "--json"]);
    out.expect_code(1);
    let v = out.json();
    assert_eq!(v["error"]["code"], "no_agent_backend", "{v}");
    assert!(
        v["error"]["message"].as_str().is_some_and(|m| m.contains("--agents")),
        "{v}"
    );
    // A configured backend that answers nothing fails the call, not the
    // run, and the summary line says so.
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let args = json!({"op": "program", "program": {"try": {"agent": "anyone"}}}).to_string();
    let out = ctx.hwf([
        "run",
        harnesses::PROBE,
        "--args",
        &args,
        "--agents",
        empty.to_str().expect("utf8"),
    ]);
    out.expect_code(0);
    out.expect_stderr("1 call failed");
}
