//! JavaScript workflows in the bundled QuickJS runtime: the Claude-style API,
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
    assert_eq!(
        counts["agent_calls"], counts["replayed"],
        "every agent call replayed: {counts}"
    );
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
    // spent: 3 for "text", 5 × 5 for the five attempts of "typed".
    assert_eq!(
        r,
        json!({"args": {"x": 1}, "text": "plain text", "dead": null, "mismatch": "schema_mismatch", "denied": "side_effect_denied",
               "listed": true, "spent": 28, "remaining": true, "total": null}),
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
    // There is no `require` global (Claude Code's rule): a ReferenceError.
    hostile_js(
        &ctx,
        "require.js",
        "const fs = require('fs');\nreturn fs;",
        "ReferenceError: require is not defined",
        1,
    );
    let v = hostile_js(
        &ctx,
        "import.js",
        "import fs from 'fs';\nreturn 1;",
        "import_not_allowed",
        2,
    );
    assert_eq!(v["error"]["code"], "invalid_script");
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

/// Agent calls a run journaled, in start order.
fn agent_starts(ctx: &Ctx, run: &Value) -> Vec<Value> {
    ctx.journal(run["data"]["run_id"].as_str().expect("id"))
        .into_iter()
        .filter(|e| e["type"] == "call_started" && e["kind"] == "agent")
        .collect()
}

/// Run a script body (meta added) with a fixture; returns the `--json`
/// output.
fn run_body(ctx: &Ctx, name: &str, body: &str, fixture: &str) -> crate::common::Run {
    let s = js(
        ctx,
        name,
        &format!("export const meta = {{ name: \"t\", description: \"a rule\" }};\n{body}"),
    );
    let f = ctx.write(&format!("{name}.fixture.json"), fixture);
    ctx.run_json(&s, "{}", &["--agents", f.to_str().expect("utf8")])
}

fn error_text(run: &crate::common::Run) -> String {
    let v = run.json();
    format!("{} {}", v["error"]["code"], v["error"]["message"])
}

#[test]
fn module_loading_is_refused_by_parsing_not_by_text() {
    let ctx = Ctx::new();
    // Prompts, template literals and comments that quote module loading
    // are data.
    let out = run_body(
        &ctx,
        "quotes.js",
        "// import fs from 'fs'; const x = require('x'); await import('y');\n\
         /* import { a } from \"b\" */\n\
         const p = `Explain \"import x from 'y'\", require('fs') and import('z') to a beginner`;\n\
         const a = await agent(p + ' and also: import os from \"os\"', {label: \"explain\"});\n\
         let dynamic = null;\n\
         try { await import(\"fs\"); } catch (e) { dynamic = `${e.name}: ${e.message}`; }\n\
         return { a, dynamic, require: typeof require };\n",
        r#"{"responses": [{"match": {"label": "explain"}, "output": "explained"}]}"#,
    );
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!({"a": "explained", "dynamic": "TypeError: import() is not available in workflow scripts", "require": "undefined"})
    );
    // A real import declaration is found by the parser, with its line.
    let s = js(
        &ctx,
        "static.js",
        "export const meta = { name: \"s\", description: \"s\" };\nconst prompt = \"import a from 'b'\";\n\nimport fs from \"fs\";\nreturn 1;\n",
    );
    let v = ctx.hwf(["validate", &s, "--json"]);
    v.expect_code(2);
    let d = &v.json()["data"]["diagnostics"][0];
    assert_eq!(
        (d["code"].clone(), d["line"].clone()),
        (json!("import_not_allowed"), json!(4)),
        "{d}"
    );
}

#[test]
fn console_methods_write_narrator_log_lines() {
    let ctx = Ctx::new();
    let out = run_body(
        &ctx,
        "console.js",
        "console.log(\"plain\", {n: 1});\nconsole.info(\"info\");\nconsole.debug(\"debug\");\n\
         console.warn(\"careful\");\nconsole.error(\"broken\", 2);\nlog(\"narrator\");\nreturn 1;\n",
        r#"{"responses": []}"#,
    );
    out.expect_code(0);
    let lines: Vec<(String, String)> = ctx
        .journal(out.json()["data"]["run_id"].as_str().expect("id"))
        .iter()
        .filter(|e| e["type"] == "log" && e["source"] == "guest")
        .map(|e| {
            (
                e["level"].as_str().unwrap_or("").to_owned(),
                e["message"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("info", "plain {\"n\":1}"),
        ("info", "info"),
        ("debug", "debug"),
        ("warn", "[warn] careful"),
        ("error", "[error] broken 2"),
        ("info", "narrator"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(lines, want);
}

#[test]
fn timers_are_virtual_and_replay_identically() {
    let ctx = Ctx::new();
    let body = "const order = [];\n\
         const sleep = (ms) => new Promise((r) => setTimeout(r, ms));\n\
         setTimeout(() => order.push(\"t30\"), 30);\n\
         const gone = setTimeout(() => order.push(\"cleared\"), 5);\n\
         setTimeout((a, b) => order.push(`t10:${a}${b}`), 10, \"x\", \"y\");\n\
         clearTimeout(gone);\n\
         const slow = agent(\"slow\", {label: \"slow\"}).then((v) => order.push(`agent:${v}`));\n\
         await sleep(20);\n\
         order.push(\"slept\");\n\
         await slow;\n\
         await sleep(50);\n\
         let bad = null;\n\
         try { setTimeout(\"code\", 1); } catch (e) { bad = e.name; }\n\
         return { order, bad };\n";
    let fixture = r#"{"responses": [{"match": {"label": "slow"}, "output": "done", "delay_ms": 200}]}"#;
    let out = run_body(&ctx, "timers.js", body, fixture);
    out.expect_code(0);
    let v = out.json();
    // A timer fires once nothing else can run and no host call is in
    // flight: the agent first, then the timers in due order. As in Claude
    // Code, a callback gets no arguments and a callback that is not a
    // function is taken (it does nothing).
    assert_eq!(
        v["data"]["result"],
        json!({"order": ["agent:done", "t10:undefinedundefined", "slept", "t30"], "bad": null})
    );
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let again = ctx.hwf([
        "run",
        "--resume-from",
        v["data"]["run_id"].as_str().expect("id"),
        "--agents",
        empty.to_str().expect("utf8"),
        "--json",
    ]);
    again.expect_code(0);
    assert_eq!(again.json()["data"]["result"], v["data"]["result"]);
    assert_eq!(again.json()["data"]["counts"]["replayed"], 1);
}

#[test]
fn an_invalid_agent_schema_throws_type_error_before_any_agent_starts() {
    let ctx = Ctx::new();
    let bad_schemas = [
        r#"{type: "object", properties: {verdict: {type: "strnig"}}}"#,
        r#"{type: "object", required: ["a"], properties: {}, additionalProperties: false}"#,
        r#"{type: "array", items: {type: "string"}}"#,
        r#"{verdict: "strnig"}"#,
        r#""verdict: string""#,
    ];
    for (i, schema) in bad_schemas.iter().enumerate() {
        let out = run_body(
            &ctx,
            &format!("schema{i}.js"),
            &format!("return await agent(\"judge\", {{label: \"judge\", schema: {schema}}});\n"),
            r#"{"responses": [{"match": {"label": "judge"}, "output": {"verdict": "ok"}}]}"#,
        );
        out.expect_code(1);
        let msg = error_text(&out);
        assert!(msg.contains("TypeError: agent(): invalid schema"), "{schema}: {msg}");
        assert!(agent_starts(&ctx, &out.json()).is_empty(), "{schema}: an agent started");
    }
    // A valid schema of either form still works.
    let out = run_body(
        &ctx,
        "good.js",
        "const a = await agent(\"judge\", {label: \"judge\", schema: {verdict: \"string\"}});\n\
         const b = await agent(\"judge\", {label: \"judge\", fresh: true, schema: {type: \"object\", required: [\"verdict\"], properties: {verdict: {enum: [\"ok\", \"no\"]}}}});\n\
         return [a, b];\n",
        r#"{"responses": [{"match": {"label": "judge"}, "output": {"verdict": "ok"}}]}"#,
    );
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!([{"verdict": "ok"}, {"verdict": "ok"}])
    );
}

#[test]
fn parallel_given_started_calls_throws_type_error_saying_wrap_in_arrow() {
    let ctx = Ctx::new();
    let out = run_body(
        &ctx,
        "eager.js",
        "return await parallel([agent(\"a\", {label: \"a\"}), agent(\"b\", {label: \"b\"})]);\n",
        r#"{"responses": [{"match": {"label": "a"}, "output": "x"}, {"match": {"label": "b"}, "output": "y"}]}"#,
    );
    out.expect_code(1);
    let msg = error_text(&out);
    assert!(
        msg.contains(
            "TypeError: parallel() expects an array of functions, not promises. Wrap each call: () => agent(...)"
        ),
        "{msg}"
    );
    // Caught, the script goes on; thunks work.
    let out = run_body(
        &ctx,
        "caught.js",
        "let e1 = null;\ntry { await parallel([1]); } catch (e) { e1 = e.name; }\n\
         const r = await parallel([() => agent(\"a\", {label: \"a\"}), () => { throw new Error(\"x\"); }]);\n\
         return { e1, r };\n",
        r#"{"responses": [{"match": {"label": "a"}, "output": "A"}]}"#,
    );
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!({"e1": "TypeError", "r": ["A", null]})
    );
}

#[test]
fn a_pipeline_stage_resolving_null_ends_that_item() {
    let ctx = Ctx::new();
    let out = run_body(
        &ctx,
        "nullstage.js",
        "return await pipeline([\"keep\", \"drop\", \"dead\"],\n\
           (item) => item === \"drop\" ? null : agent(`one ${item}`, {label: `one:${item}`}),\n\
           (prev, item) => agent(`two ${item} after ${prev}`, {label: `two:${item}`}));\n",
        r#"{"responses": [
          {"match": {"label": "one:keep"}, "output": "k1"},
          {"match": {"label": "one:dead"}, "error": "the agent died"},
          {"match": {"label": "two:keep"}, "output": "k2"}
        ]}"#,
    );
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"], json!(["k2", null, null]));
    let labels: Vec<String> = agent_starts(&ctx, &out.json())
        .iter()
        .map(|e| e["label"].as_str().unwrap_or("").to_owned())
        .collect();
    // Neither the null item nor the dead agent's item reached stage two.
    assert!(
        !labels.contains(&"two:drop".to_owned()) && !labels.contains(&"two:dead".to_owned()),
        "{labels:?}"
    );
    assert!(labels.contains(&"two:keep".to_owned()), "{labels:?}");
}

#[test]
fn meta_must_be_a_pure_literal_by_the_syntax_tree() {
    let ctx = Ctx::new();
    for (i, (meta, line, what)) in [
        ("{ name: 'a' + 'b', description: 'd' }", 1, "an operator expression"),
        (
            "{ name: \"m\",\n  description: `made ${1 + 1}`,\n}",
            2,
            "a template literal with ${…}",
        ),
        (
            "{ name: \"m\", description: \"d\",\n  ...{ whenToUse: \"x\" } }",
            2,
            "a spread",
        ),
        (
            "{ name: \"m\", description: \"d\", phases: phasesFor(\"x\") }",
            1,
            "a call",
        ),
        (
            "{ name: \"m\", description: \"d\", [\"when\" + \"ToUse\"]: \"x\" }",
            1,
            "a computed key",
        ),
        (
            "{ name: \"m\", description: \"d\", get x() { return 1; } }",
            1,
            "a method or getter",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let s = js(
            &ctx,
            &format!("meta{i}.js"),
            &format!("\nexport const meta = {meta};\nreturn 1;\n"),
        );
        let v = ctx.hwf(["validate", &s, "--json"]);
        v.expect_code(2);
        let d = &v.json()["data"]["diagnostics"][0];
        assert_eq!(d["code"], "meta_not_literal", "{meta}: {d}");
        assert_eq!(d["line"], json!(line + 1), "{meta}: {d}");
        assert!(d["message"].as_str().unwrap_or("").contains(what), "{meta}: {d}");
    }
    // Literals, nested arrays and objects, quoted keys, plain template
    // literals and negative numbers are pure.
    let s = js(
        &ctx,
        "pure.js",
        "export const meta = { name: `pure`, \"description\": 'all literal', phases: [{ title: \"a\", detail: null }], \
         limits: { floor: -1, ratio: 0.5, on: true } };\nreturn 1;\n",
    );
    let v = ctx.hwf(["validate", &s, "--json"]);
    v.expect_code(0);
    assert_eq!(v.json()["data"]["meta"]["name"], "pure");
}

#[test]
fn the_deterministic_subset_holds_against_indirect_routes() {
    let ctx = Ctx::new();
    for (i, route) in [
        "return new (Date.prototype.constructor)();",
        "return new (new Date(0).constructor)().getTime();",
        "return Reflect.construct(Date, []);",
        "return Reflect.apply(Date.now, null, []);",
        "return Function(\"return Date.now()\")();",
        "return new Function(\"return new Date()\")();",
        "return Date();",
        "return Date(\"2020-01-01\");",
        "return ({ get t() { return Date.now(); } }).t;",
        "return Object.getOwnPropertyDescriptor(Math, \"random\").value();",
        "class Later extends Date {}\nreturn new Later();",
        "const D = Object.getPrototypeOf(new Date(0)).constructor;\nreturn new D();",
        "return Reflect.construct(Object.getOwnPropertyDescriptor(Date.prototype, \"constructor\").value, []);",
    ]
    .into_iter()
    .enumerate()
    {
        let out = run_body(
            &ctx,
            &format!("route{i}.js"),
            &format!("{route}\n"),
            r#"{"responses": []}"#,
        );
        out.expect_code(1);
        // Code from strings is refused before it could reach the clock
        // (Claude Code's `vm` context: `codeGeneration: { strings: false }`).
        let expected = if route.contains("Function(") {
            "EvalError: Code generation from strings disallowed"
        } else {
            "nondeterminism"
        };
        assert!(error_text(&out).contains(expected), "{route}: {}", out.stdout);
    }
    // Restoring the originals is impossible.
    let out = run_body(
        &ctx,
        "restore.js",
        "\"use strict\";\nlet r1 = null, r2 = null;\n\
         try { Math.random = () => 4; } catch (e) { r1 = e.name; }\n\
         try { Date.prototype.constructor = function () {}; } catch (e) { r2 = e.name; }\n\
         return [r1, r2, new Date(86400000).toISOString()];\n",
        r#"{"responses": []}"#,
    );
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!(["TypeError", "TypeError", "1970-01-02T00:00:00.000Z"])
    );
}

#[test]
fn parallel_and_pipeline_refuse_more_than_4096_items() {
    let ctx = Ctx::new();
    let out = run_body(
        &ctx,
        "many.js",
        "let p = null, q = null;\n\
         try { await parallel(Array.from({length: 4097}, () => () => 1)); } catch (e) { p = e.message; }\n\
         try { await pipeline(Array.from({length: 4097}, (_, i) => i), (x) => x); } catch (e) { q = e.message; }\n\
         const ok = await parallel(Array.from({length: 4096}, (_, i) => () => i));\n\
         return { p, q, ok: ok.length };\n",
        r#"{"responses": []}"#,
    );
    out.expect_code(0);
    let r = out.json()["data"]["result"].clone();
    assert_eq!(r["ok"], 4096);
    // Claude Code's words (its VM boundary's limit).
    for k in ["p", "q"] {
        assert_eq!(
            r[k], "array length 4097 exceeds the maximum of 4096 supported across the workflow VM boundary",
            "{r}"
        );
    }
}

#[test]
fn workflow_refuses_anything_but_a_name_or_a_script_path_with_type_error() {
    let ctx = Ctx::new();
    let out = run_body(
        &ctx,
        "wfargs.js",
        "const errors = [];\n\
         for (const bad of [42, {}, {scriptPath: 7}, () => 1, null, \"\"]) {\n\
           try { await workflow(bad, {}); errors.push(\"ran\"); } catch (e) { errors.push(e.name); }\n\
         }\n\
         return errors;\n",
        r#"{"responses": []}"#,
    );
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"], json!(vec!["TypeError"; 6]));
    let calls = ctx
        .journal(out.json()["data"]["run_id"].as_str().expect("id"))
        .into_iter()
        .filter(|e| e["type"] == "call_started")
        .count();
    assert_eq!(calls, 0, "a refused workflow() reached the host");
}

/// Scripts run strict, as Claude Code runs them (modules): writing to a
/// frozen object or to an undeclared name throws (issue 28).
#[test]
fn scripts_run_in_strict_mode() {
    let ctx = Ctx::new();
    let path = js(
        &ctx,
        "strict.js",
        "export const meta = { name: \"strict\", description: \"strict mode\" };\n\
         const frozen = Object.freeze({ a: 1 });\n\
         let froze = null, undeclared = null;\n\
         try { frozen.a = 2; } catch (e) { froze = e.constructor.name; }\n\
         try { notDeclared = 5; } catch (e) { undeclared = e.constructor.name; }\n\
         return { froze, undeclared, a: frozen.a };\n",
    );
    let out = ctx.run_json(&path, "{}", &[]);
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!({"froze": "TypeError", "undeclared": "ReferenceError", "a": 1}),
        "{}",
        out.stdout
    );
    // A syntax error still names the script's own line.
    let bad = js(
        &ctx,
        "bad.js",
        "export const meta = { name: \"bad\", description: \"bad\" };\nconst x = 1;\nconst y = ;\n",
    );
    let out = ctx.run_json(&bad, "{}", &[]);
    out.expect_code(2);
    assert!(
        out.stdout.contains("line 3") || out.stderr.contains("line 3"),
        "{out:?}"
    );
}

/// Deep recursion of every shape (plain calls, callbacks of `map`, `sort`
/// and `replace`, getters, `toString`, Proxy traps, constructors, `apply`,
/// `Reflect.apply`, bound functions, generators, deeply nested
/// `JSON.parse` / `JSON.stringify`, `flat`, `String` of nested arrays) ends
/// in a `RangeError` the script catches: QuickJS's own stack limit
/// (`JS_STACK`) and the vendored nesting limits of its JSON code fire
/// before wasmtime's wasm stack overflows, which would be a trap.
#[test]
fn deep_recursion_in_every_shape_is_a_catchable_range_error() {
    let ctx = Ctx::new();
    let script = root().join("tests/e2e/js_recursion.js");
    let run = ctx.run_json(script.to_str().expect("utf8"), "{}", &[]);
    assert_eq!(run.code, 0, "{run:?}");
    let result = run.json()["data"]["result"].clone();
    let shapes = result.as_object().expect("an object of shapes");
    assert_eq!(shapes.len(), 17, "{result}");
    for (shape, outcome) in shapes {
        let outcome = outcome.as_str().expect("a string");
        assert!(outcome.starts_with("RangeError @"), "{shape}: {outcome}");
    }
    // The limit leaves room for recursion as deep as Node's (~10,800 plain
    // frames there): thousands of frames, also through callbacks of
    // builtins (a `deepClone` over `map` went 50 levels deep before the
    // sixteenth session's larger stacks; 9,821 / 4,179 plain / `map` frames
    // measured then).
    let depth = |shape: &str| -> usize {
        shapes[shape]
            .as_str()
            .and_then(|s| s.split('@').nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{shape}'s depth"))
    };
    assert!(
        depth("plain") >= 8_000,
        "plain recursion stopped at {} frames",
        depth("plain")
    );
    assert!(
        depth("map") >= 3_000,
        "recursion through map stopped at {} frames",
        depth("map")
    );
    assert!(
        depth("sort") >= 1_000,
        "recursion through sort stopped at {} frames",
        depth("sort")
    );
}

/// An uncaught error names the script line it was thrown at, in the
/// script's own numbering (the meta's lines included), after Claude Code's
/// `Name: message`: a plain `Error` is `Error: …`, a thrown string is the
/// message of an `Error`. Errors thrown in a nested function, after an
/// `await`, in a `parallel` thunk's caller and in a `setTimeout` callback
/// all point at the line of the `throw` (or the failing expression).
#[test]
fn an_uncaught_error_names_its_script_line() {
    let ctx = Ctx::new();
    let cases: [(&str, &str, &str); 6] = [
        (
            "plain.js",
            "const a = 1;\nthrow new Error(\"boom\");\n",
            "script_error: Error: boom (line 4)",
        ),
        (
            "nested.js",
            "function inner(x) {\n  return x.missing.deeper;\n}\nconst r = await agent(\"go\", { label: \"go\" });\ninner({ r });\n",
            "(line 4)",
        ),
        (
            "string.js",
            "await null;\n\n\nthrow \"just text\";\n",
            "script_error: Error: just text",
        ),
        (
            "typed.js",
            "const xs = [1, 2];\nconst f = () => xs.nope();\nawait parallel([() => 1]);\nf();\n",
            "script_error: TypeError: ",
        ),
        (
            "timer.js",
            "await new Promise((resolve) => setTimeout(() => {\n  throw new RangeError(\"late\");\n}, 5));\n",
            "script_error: in a setTimeout callback: RangeError: late (line 4)",
        ),
        ("coded.js", "\nreturn Date.now();\n", "nondeterminism: "),
    ];
    for (name, body, expected) in cases {
        // Two meta lines, so body line 1 is script line 3.
        let s = js(
            &ctx,
            name,
            &format!("export const meta = {{\n  name: \"lines\", description: \"where it failed\" }};\n{body}"),
        );
        let f = ctx.write(
            &format!("{name}.fixture.json"),
            r#"{"responses": [{"match": {"label": "go"}, "output": "ok"}]}"#,
        );
        let out = ctx.run_json(&s, "{}", &["--agents", f.to_str().expect("utf8")]);
        out.expect_code(1);
        let msg = error_text(&out);
        assert!(msg.contains(expected), "{name}: {msg}");
    }
    // The line of a typed error thrown in a nested function after an await.
    let s = js(
        &ctx,
        "typed_line.js",
        "export const meta = { name: \"lines\", description: \"where it failed\" };\n\
         const xs = [1, 2];\nconst f = () => xs.nope();\nawait parallel([() => 1]);\nf();\n",
    );
    let out = ctx.run_json(&s, "{}", &[]);
    out.expect_code(1);
    let message = out.error_message();
    assert!(message.ends_with("(line 3)"), "{message}");
    // A coded error keeps its code first, and gets its line too.
    let s = js(
        &ctx,
        "coded_line.js",
        "export const meta = { name: \"lines\", description: \"where it failed\" };\n\nconst t = Date.now();\n",
    );
    let out = ctx.run_json(&s, "{}", &[]);
    out.expect_code(1);
    let message = out.error_message();
    assert!(
        message.starts_with("nondeterminism: ") && message.ends_with("(line 3)"),
        "{message}"
    );
}

/// The embedded JS runtime is pre-initialised at build time (its `prepare`
/// run and the instance snapshotted, `cli/build/preinit.rs`); the same
/// runtime unsnapshotted prepares itself on its first run. Both give a run
/// the same globals in Claude Code's order, its own `args` and budget, the
/// frozen builtins, timers, fan-out and errors: nothing of a run's own was
/// captured in the snapshot.
#[test]
fn the_pre_initialised_runtime_runs_as_one_that_prepares_itself() {
    let ctx = Ctx::new();
    let built = crate::common::built_runtimes();
    let snapshotted = std::fs::read(built.join("js-runtime.wasm")).expect("the built JS runtime");
    // The guest build's own output, before the snapshot.
    let raw_file = built.join("../wasm/wasm32-wasip2/guest/js_runtime.wasm");
    let raw = std::fs::read(&raw_file).unwrap_or_else(|e| panic!("{}: {e}", raw_file.display()));
    assert!(raw != snapshotted, "the build did not pre-initialise the JS runtime");
    assert!(
        snapshotted.len() > raw.len(),
        "the snapshot carries the prepared heap as data ({} <= {} bytes)",
        snapshotted.len(),
        raw.len()
    );
    let raw_dir = ctx.path("raw-runtime");
    std::fs::create_dir_all(&raw_dir).expect("mkdir");
    std::fs::write(raw_dir.join("js-runtime.wasm"), &raw).expect("write");

    let script = js(
        &ctx,
        "prepared.js",
        r#"export const meta = { name: "prepared", description: "what each run must get of its own" };
log(Object.keys(globalThis).join(","));
log(`total=${budget.total} args=${JSON.stringify(args)} frozen=${Object.isFrozen(budget)}`);
let patched = "no";
try { Array.prototype.extra = 1; } catch (e) { patched = e.constructor.name; }
let clock = "";
try { Date.now(); } catch (e) { clock = e.message.split(":")[0]; }
const answers = await parallel([() => agent("x", { label: "a" }), () => agent("y", { label: "b" })]);
await new Promise((resolve) => setTimeout(resolve, 5));
return { answers, patched, clock, spent: budget.spent(), keys: args ? Object.keys(args) : null };
"#,
    );
    let fixture = ctx.write(
        "fx.json",
        r#"{"responses": [{"match": {"label": "a"}, "output": "A", "tokens": 3}, {"match": {"label": "b"}, "output": "B", "tokens": 4}]}"#,
    );
    let run = |runtime_dir: Option<&std::path::Path>, args: &str, budget: &str| -> (Value, Vec<String>) {
        let mut c = ctx.cmd();
        if let Some(dir) = runtime_dir {
            c.env("HWF_RUNTIME_DIR", dir);
        }
        let out: crate::common::Run = c
            .args([
                "run",
                &script,
                "--args",
                args,
                "--json",
                "--agents",
                fixture.to_str().expect("utf8"),
                "--max-tokens",
                budget,
            ])
            .output()
            .expect("spawn hwf")
            .into();
        out.expect_code(0);
        let v = out.json();
        let logs = ctx
            .journal(v["data"]["run_id"].as_str().expect("id"))
            .iter()
            .filter(|e| e["type"] == "log" && e["source"] == "guest")
            .filter_map(|e| e["message"].as_str().map(str::to_owned))
            .collect();
        (v["data"]["result"].clone(), logs)
    };
    for (args, budget) in [(r#"{"z": 1, "a": [2]}"#, "500"), ("null", "77")] {
        let (result, logs) = run(None, args, budget);
        assert_eq!(
            (result.clone(), logs.clone()),
            run(Some(&raw_dir), args, budget),
            "{args}"
        );
        assert_eq!(result["answers"], json!(["A", "B"]));
        assert_eq!(result["patched"], "TypeError");
        assert_eq!(result["clock"], "nondeterminism");
        assert_eq!(result["spent"], 7);
        assert_eq!(
            logs[0],
            "log,phase,console,budget,setTimeout,clearTimeout,Date,agent,parallel,pipeline,workflow,args"
        );
        let shown_args = if args == "null" {
            "undefined".to_owned()
        } else {
            serde_json::to_string(&serde_json::from_str::<Value>(args).expect("json")).expect("json")
        };
        assert_eq!(logs[1], format!("total={budget} args={shown_args} frozen=true"));
    }
}
