//! JavaScript workflows in the bundled Boa runtime: the Claude-style API,
//! real concurrency over the host's join set, replay, and hostile scripts.

use crate::common::{Ctx, harnesses, root};
use serde_json::{Value, json};

fn js(ctx: &Ctx, name: &str, body: &str) -> String {
    ctx.write(name, body).to_str().expect("utf8").to_owned()
}

fn loop_fixture() -> String {
    root()
        .join("harnesses/loop-until-dry/fixture.json")
        .to_str()
        .expect("utf8")
        .to_owned()
}

#[test]
fn loop_until_dry_js_matches_the_rust_harness_and_replays() {
    let ctx = Ctx::new();
    let script = root().join("harnesses/loop-until-dry.js");
    for args in ["{}", r#"{"max_rounds": 1}"#] {
        let a = ctx.run_json(script.to_str().expect("utf8"), args, &["--agents", &loop_fixture()]);
        a.expect_code(0);
        let b = ctx.run_json(harnesses::LOOP_UNTIL_DRY, args, &["--agents", &loop_fixture()]);
        b.expect_code(0);
        assert_eq!(a.json()["data"]["result"], b.json()["data"]["result"], "{args}");
        // The same labels and phases in the journal.
        let labels = |v: &Value| -> std::collections::BTreeSet<String> {
            ctx.journal(v["data"]["run_id"].as_str().expect("id"))
                .iter()
                .filter(|e| e["type"] == "call_started" && e["kind"] == "agent")
                .filter_map(|e| e["label"].as_str().map(str::to_owned))
                .collect()
        };
        assert_eq!(labels(&a.json()), labels(&b.json()));
    }
    // Resume the finished JS run with no agent backend.
    let first = ctx.run_json(script.to_str().expect("utf8"), "{}", &["--agents", &loop_fixture()]);
    let id = first.json()["data"]["run_id"].as_str().expect("id").to_owned();
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
    let v = again.json();
    assert_eq!(v["data"]["result"], first.json()["data"]["result"]);
    // Charged to the budget, answered from the journal.
    assert_eq!(v["data"]["counts"]["agent_calls"], 8);
    assert_eq!(v["data"]["counts"]["replayed"], 8);
}

#[test]
fn parallel_runs_agents_concurrently() {
    let ctx = Ctx::new();
    let f = ctx.write(
        "f.json",
        r#"{"responses": [{"match": {"label": "slow"}, "output": {"ok": true}, "delay_ms": 100}]}"#,
    );
    let s = js(
        &ctx,
        "par.js",
        "export const meta = { name: \"par\", description: \"16 agents at once\" };\n\
         const r = await parallel(Array.from({length: 16}, (_, i) => () => agent(`task ${i}`, {label: \"slow\"})));\n\
         return { n: r.filter(x => x && x.ok).length };\n",
    );
    let out = ctx.run_json(
        &s,
        "{}",
        &["--agents", f.to_str().expect("utf8"), "--max-parallel", "16"],
    );
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"], json!({"n": 16}));
    // All 16 were in flight together: every start precedes every completion.
    let j = ctx.journal(out.json()["data"]["run_id"].as_str().expect("id"));
    let last_start = j.iter().rposition(|e| e["type"] == "call_started").expect("start");
    let first_done = j.iter().position(|e| e["type"] == "call_completed").expect("done");
    assert!(last_start < first_done, "agents ran one after another");
}

#[test]
fn pipeline_has_no_barrier_and_replays() {
    let ctx = Ctx::new();
    let f = ctx.write(
        "f.json",
        r#"{"responses": [
          {"match": {"label": "s1", "context.i": 0}, "output": "fast", "delay_ms": 5},
          {"match": {"label": "s1"}, "output": "slow", "delay_ms": 250},
          {"match": {"label": "s2"}, "output": "done", "delay_ms": 5}
        ]}"#,
    );
    let s = js(
        &ctx,
        "pipe.js",
        "export const meta = { name: \"pipe\", description: \"4 items x 2 stages\" };\n\
         const out = await pipeline([0, 1, 2, 3],\n\
           (prev, item, i) => agent(`stage one ${i}`, {label: \"s1\", context: {i}}),\n\
           (prev, item, i) => agent(`stage two ${i} after ${prev}`, {label: \"s2\", context: {i}}));\n\
         return out;\n",
    );
    let out = ctx.run_json(
        &s,
        "{}",
        &["--agents", f.to_str().expect("utf8"), "--max-parallel", "8"],
    );
    out.expect_code(0);
    let v = out.json();
    assert_eq!(v["data"]["result"], json!(["done", "done", "done", "done"]));
    let id = v["data"]["run_id"].as_str().expect("id").to_owned();
    let j = ctx.journal(&id);
    let prompt_pos = |needle: &str, ty: &str| {
        j.iter()
            .position(|e| e["type"] == ty && e["request"]["prompt"].as_str().is_some_and(|p| p.starts_with(needle)))
            .unwrap_or_else(|| panic!("{needle}"))
    };
    let item0_stage2 = prompt_pos("stage two 0", "call_started");
    let slow_done: Vec<usize> = j
        .iter()
        .enumerate()
        .filter(|(_, e)| e["type"] == "call_completed" && e["result"] == "slow")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(slow_done.len(), 3);
    assert!(
        slow_done.iter().all(|&d| item0_stage2 < d),
        "item 0 waited for the slow items"
    );
    // Replay reproduces the result with no live agent.
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let again = ctx.hwf([
        "run",
        "--resume-from",
        &id,
        "--agents",
        empty.to_str().expect("utf8"),
        "--json",
    ]);
    assert_eq!(again.json()["data"]["result"], v["data"]["result"]);
    let counts = &again.json()["data"]["counts"];
    assert_eq!(counts["agent_calls"], counts["replayed"], "every agent call replayed: {counts}");
}

#[test]
fn the_api_surface() {
    let ctx = Ctx::new();
    let f = ctx.write(
        "f.json",
        r#"{"responses": [
          {"match": {"label": "typed"}, "sequence": [{"output": {"nope": 1}}], "tokens": 5},
          {"match": {"label": "text"}, "output": "plain text", "tokens": 3},
          {"match": {"label": "dies"}, "error": "runner down"}
        ]}"#,
    );
    let s = js(
        &ctx,
        "api.js",
        "export const meta = { name: \"api\", description: \"the API\", phases: [{title: \"one\"}] };\n\
         phase(\"one\");\n\
         log(\"hello\", {a: 1});\n\
         const text = await agent(\"say something\", {label: \"text\"});\n\
         const dead = await agent(\"fail\", {label: \"dies\"});\n\
         let mismatch = null;\n\
         try { await agent(\"typed\", {label: \"typed\", schema: {verdict: \"string\"}}); } catch (e) { mismatch = e.code; }\n\
         let denied = null;\n\
         try { await capability(\"bash\", {argv: [\"ls\"]}); } catch (e) { denied = e.code; }\n\
         const listed = await capability(\"fs.list\", {});\n\
         return { args, text, dead, mismatch, denied, listed: Array.isArray(listed.entries), spent: budget.spent(), remaining: budget.remaining() === Infinity, total: budget.total };\n",
    );
    let out = ctx.run_json(&s, r#"{"x": 1}"#, &["--agents", f.to_str().expect("utf8")]);
    out.expect_code(0);
    let r = out.json()["data"]["result"].clone();
    assert_eq!(
        r,
        json!({"args": {"x": 1}, "text": "plain text", "dead": null, "mismatch": "schema_mismatch", "denied": "side_effect_denied",
               "listed": true, "spent": 18, "remaining": true, "total": null}),
    );
    let check = ctx.hwf(["validate", &s, "--json"]);
    assert_eq!(check.json()["data"]["meta"]["phases"][0]["title"], "one");
}

#[track_caller]
fn hostile_js(ctx: &Ctx, name: &str, body: &str, code: &str, exit: i32) -> Value {
    let s = js(
        ctx,
        name,
        &format!("export const meta = {{ name: \"h\", description: \"hostile\" }};\n{body}"),
    );
    let out = ctx.run_json(&s, "{}", &["--cpu-limit-ms", "1500"]);
    out.expect_code(exit);
    let v = out.json();
    let msg = format!("{} {}", v["error"]["code"], v["error"]["message"]);
    assert!(msg.contains(code), "{code}: {v}");
    v
}

#[test]
fn hostile_scripts_fail_with_typed_errors() {
    let ctx = Ctx::new();
    hostile_js(&ctx, "loop.js", "while (true) {}", "cpu_limit", 1);
    hostile_js(
        &ctx,
        "alloc.js",
        "const s = \"x\".repeat(2 ** 24);\nconst parts = [];\nwhile (true) { parts.push(s + parts.length); }",
        "memory_limit",
        1,
    );
    hostile_js(&ctx, "random.js", "return Math.random();", "nondeterminism", 1);
    hostile_js(&ctx, "date.js", "return Date.now();", "nondeterminism", 1);
    hostile_js(&ctx, "newdate.js", "return new Date().getTime();", "nondeterminism", 1);
    let v = hostile_js(
        &ctx,
        "require.js",
        "const fs = require('fs');\nreturn fs;",
        "require_not_allowed",
        2,
    );
    assert_eq!(v["error"]["code"], "invalid_script");
    hostile_js(
        &ctx,
        "import.js",
        "import fs from 'fs';\nreturn 1;",
        "import_not_allowed",
        2,
    );
    hostile_js(&ctx, "syntax.js", "return (;", "syntax_error", 2);
    let s = js(&ctx, "nometa.js", "return 1;\n");
    ctx.hwf(["run", &s]).expect_code(2).expect_stderr("meta_not_first");
    let s = js(
        &ctx,
        "impure.js",
        "export const meta = { name: compute(), description: \"x\" };\nreturn 1;\n",
    );
    ctx.hwf(["validate", &s])
        .expect_code(2)
        .expect_stderr("meta_not_literal");
    // A fixed date is fine (deterministic).
    let s = js(
        &ctx,
        "fixed.js",
        "export const meta = { name: \"d\", description: \"d\" };\nreturn new Date(0).toISOString();\n",
    );
    let out = ctx.run_json(&s, "{}", &[]);
    assert_eq!(out.json()["data"]["result"], "1970-01-01T00:00:00.000Z");
}

#[test]
fn saved_js_scripts_and_the_facade() {
    let ctx = Ctx::new();
    let script = root().join("harnesses/loop-until-dry.js");
    let save = ctx.hwf(["script", "save", "bughunt", script.to_str().expect("utf8"), "--json"]);
    save.expect_code(0);
    assert_eq!(save.json()["data"]["language"], "js");
    assert_eq!(save.json()["data"]["meta"]["phases"][0]["title"], "find");
    let out = ctx.run_json("bughunt", r#"{"max_rounds": 1}"#, &["--agents", &loop_fixture()]);
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"]["rounds"], 1);
    let src = std::fs::read_to_string(&script).expect("script");
    let mut child = ctx
        .cmd()
        .args(["facade", "workflow", "--agents", &loop_fixture()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("facade");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(json!({"script": src, "args": {"max_rounds": 1}}).to_string().as_bytes())
        .expect("write");
    let v: Value = serde_json::from_slice(&child.wait_with_output().expect("wait").stdout).expect("json");
    assert_eq!(v["data"]["result"]["rounds"], 1, "{v}");
}

#[test]
fn workflow_runs_a_saved_workflow_inline() {
    let ctx = Ctx::new();
    ctx.hwf(["script", "save", "hello", harnesses::HELLO]).expect_code(0);
    let s = js(
        &ctx,
        "outer.js",
        "export const meta = { name: \"outer\", description: \"calls hello\" };\n\
         const inner = await workflow(\"hello\", { name: \"world\" });\n\
         let nested = null;\n\
         try { await workflow(\"missing\", {}); } catch (e) { nested = e.code; }\n\
         return { inner, nested };\n",
    );
    let fixture = root().join("harnesses/hello/fixture.json");
    let out = ctx.run_json(&s, "{}", &["--agents", fixture.to_str().expect("utf8")]);
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!({"inner": {"greeting": "hello, world", "result": "HELLO, WORLD"}, "nested": "not_found"})
    );
    // The child's calls are numbered under the workflow call.
    let ids: Vec<String> = ctx
        .journal(out.json()["data"]["run_id"].as_str().expect("id"))
        .iter()
        .filter(|e| e["type"] == "call_started" && e["kind"] == "agent")
        .map(|e| e["call"].as_str().expect("call").to_owned())
        .collect();
    assert_eq!(ids, ["1.1", "1.2"]);
}
