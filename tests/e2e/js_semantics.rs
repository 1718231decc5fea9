//! JavaScript as Node and Claude Code run it (issue 28): the engine bugs
//! hwf once patched in Boa (now the QuickJS runtime's regression tests), numbers crossing
//! into and out of JavaScript, `pipeline` over null items,
//! `workflow({scriptPath})` confined to the workspace, and the seed's
//! plain-string `meta.phases`.

use crate::common::{Ctx, harnesses, hello_fixture};
use serde_json::{Value, json};

/// Write `body` under a meta line and run it with `fixture`; the `--json`
/// output.
fn run(ctx: &Ctx, name: &str, body: &str, fixture: &str) -> crate::common::Run {
    let s = ctx.write(
        name,
        format!("export const meta = {{ name: \"t\", description: \"a rule\" }};\n{body}"),
    );
    let f = ctx.write(&format!("{name}.fixture.json"), fixture);
    ctx.run_json(
        s.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8")],
    )
}

fn result(out: &crate::common::Run) -> Value {
    out.expect_code(0);
    out.json()["data"]["result"].clone()
}

fn journal_of(ctx: &Ctx, out: &crate::common::Run) -> Vec<Value> {
    ctx.journal(out.json()["data"]["run_id"].as_str().expect("id"))
}

/// `const { data: { items }, ...rest } = res` leaves `data` out of `rest`,
/// in declarations, assignments, parameters and with computed keys (Boa
/// 0.22 kept it; QuickJS does not).
#[test]
fn object_rest_after_a_nested_pattern_leaves_out_its_key() {
    let ctx = Ctx::new();
    let out = run(
        &ctx,
        "rest.js",
        "const res = { data: { items: [1, 2] }, k: { z: 3 }, page: 1, total: 2 };\n\
         const { data: { items }, ...meta1 } = res;\n\
         const key = \"k\";\n\
         const { [key]: { z }, ...meta2 } = res;\n\
         let meta3, it3;\n\
         ({ data: { items: it3 }, ...meta3 } = res);\n\
         const param = ({ data: { items } = {}, ...rest }) => Object.keys(rest);\n\
         const [{ data: { items: deep }, ...meta4 }] = [res];\n\
         return { items, z, it3, deep, keys: [Object.keys(meta1), Object.keys(meta2), Object.keys(meta3), param(res), Object.keys(meta4)] };\n",
        r#"{"responses": []}"#,
    );
    assert_eq!(
        result(&out),
        json!({
            "items": [1, 2], "z": 3, "it3": [1, 2], "deep": [1, 2],
            "keys": [["k", "page", "total"], ["data", "page", "total"], ["k", "page", "total"],
                     ["k", "page", "total"], ["k", "page", "total"]]
        })
    );
}

/// `JSON.parse('1e400')` is `Infinity` (and `-1e400` is `-Infinity`), as in
/// Node, where Boa threw "number out of range"; whole numbers beyond 2^53
/// from an agent's output and from arithmetic are written with
/// JavaScript's digits (`2 ** 60` is `1152921504606847000`), not as
/// `1.152921504606847e18`.
#[test]
fn json_parse_of_a_number_beyond_f64_is_infinity() {
    let ctx = Ctx::new();
    let out = run(
        &ctx,
        "big.js",
        "const text = await agent(\"numbers as text\", { label: \"text\" });\n\
         const parsed = JSON.parse(text);\n\
         const o = await agent(\"numbers\", { label: \"obj\", schema: { type: \"object\" } });\n\
         let bad = null;\n\
         try { JSON.parse('{\"a\": 1,}'); } catch (e) { bad = e.name; }\n\
         return { inf: String(JSON.parse('1e400')), ninf: String(JSON.parse('[-1e400]')[0]),\n\
                  fromText: String(parsed.huge), big: parsed.big, raw: JSON.stringify({ a: JSON.rawJSON('1e400') }),\n\
                  bad, two60: 2 ** 60, agentBig: o.big, agentBigText: String(o.big), agentU64: o.u64, small: o.small,\n\
                  float: o.float };\n",
        r#"{"responses": [
          {"match": {"label": "text"}, "output": "{\"huge\": 1e400, \"big\": 123456789012345678901234567890}"},
          {"match": {"label": "obj"}, "output": {"big": 1152921504606846977, "u64": 12345678901234567890,
            "small": 9007199254740993, "float": 118.33333333333333}}
        ]}"#,
    );
    let r = result(&out);
    assert_eq!(r["inf"], "Infinity", "{r}");
    assert_eq!(r["ninf"], "-Infinity", "{r}");
    assert_eq!(r["fromText"], "Infinity", "{r}");
    assert_eq!(r["raw"], "{\"a\":1e400}", "{r}");
    assert_eq!(r["bad"], "SyntaxError", "{r}");
    assert_eq!(r["big"].as_f64(), Some(1.2345678901234568e29), "{r}");
    assert_eq!(r["agentBigText"], "1152921504606847000", "{r}");
    // The text Node's JSON.stringify writes for the same values.
    for needle in [
        "\"two60\":1152921504606847000",
        "\"agentBig\":1152921504606847000",
        "\"agentU64\":12345678901234567000",
        "\"small\":9007199254740992",
        "\"float\":118.33333333333333",
    ] {
        assert!(out.stdout.contains(needle), "{needle} in {}", out.stdout);
    }
}

/// Claude Code's `pipeline` awaits each item and passes a null one through
/// without running any stage: a `parallel` slot that failed (null) costs no
/// agent call. A stage that throws makes its item null and is said in the
/// narrator log (`pipeline[i] failed: …`), as a failed `parallel` slot is.
#[test]
fn a_null_item_from_parallel_passes_through_pipeline_without_an_agent_call() {
    let ctx = Ctx::new();
    let out = run(
        &ctx,
        "nulls.js",
        "const found = await parallel([\n\
           () => agent(\"find a\", { label: \"find:a\" }),\n\
           () => agent(\"find b\", { label: \"find:b\" }),\n\
           () => { throw new Error(\"no source\"); },\n\
           () => agent(\"find d\", { label: \"find:d\" }),\n\
         ]);\n\
         const items = [...found, Promise.resolve(\"e\")];\n\
         const done = await pipeline(items,\n\
           (x, item, i) => { if (x === \"d\") throw new Error(\"bad item\"); return agent(`use ${x}`, { label: `use:${i}` }); },\n\
           (y) => `${y}!`);\n\
         return { found, done };\n",
        r#"{"responses": [
          {"match": {"label": "find:a"}, "output": "a"},
          {"match": {"label": "find:b"}, "error": "the agent died"},
          {"match": {"label": "find:d"}, "output": "d"},
          {"match": {"label": "use:0"}, "output": "A"},
          {"match": {"label": "use:4"}, "output": "E"}
        ]}"#,
    );
    assert_eq!(
        result(&out),
        json!({"found": ["a", null, null, "d"], "done": ["A!", null, null, null, "E!"]})
    );
    let journal = journal_of(&ctx, &out);
    let labels: Vec<&str> = journal
        .iter()
        .filter(|e| e["type"] == "call_started" && e["kind"] == "agent")
        .filter_map(|e| e["label"].as_str())
        .filter(|l| l.starts_with("use:"))
        .collect();
    assert_eq!(labels, ["use:0", "use:4"], "a null item reached a stage");
    let logs: Vec<&str> = journal
        .iter()
        .filter(|e| e["type"] == "log")
        .filter_map(|e| e["message"].as_str())
        .collect();
    for line in ["parallel[2] failed: no source", "pipeline[3] failed: bad item"] {
        assert!(logs.contains(&line), "{line:?} in {logs:?}");
    }
}

/// `workflow({ scriptPath }, args)` runs a file in the workspace (relative,
/// bare or absolute inside it) or a saved version (the seed's
/// `<name>/v000001.<ext>`, or its path under the saved-scripts dir).
#[test]
fn workflow_runs_a_script_path_inside_the_workspace_or_the_saved_scripts() {
    let ctx = Ctx::new();
    ctx.hwf(["script", "save", "hello", harnesses::HELLO]).expect_code(0);
    std::fs::create_dir_all(ctx.path("flows")).expect("mkdir");
    ctx.write(
        "flows/child.js",
        "export const meta = { name: \"child\", description: \"doubles\" };\nreturn { twice: args.n * 2 };\n",
    );
    ctx.write(
        "bare.js",
        "export const meta = { name: \"bare\", description: \"says hi\" };\nreturn `hi ${args.who}`;\n",
    );
    let abs = ctx.path("flows/child.js");
    let saved_abs = ctx.state().join("scripts/hello/v000001.wasm");
    let out = run(
        &ctx,
        "outer.js",
        &format!(
            "const rel = await workflow({{ scriptPath: \"flows/child.js\" }}, {{ n: 2 }});\n\
             const dotted = await workflow({{ scriptPath: \"./flows/../flows/child.js\" }}, {{ n: 3 }});\n\
             const abs = await workflow({{ scriptPath: {abs:?} }}, {{ n: 4 }});\n\
             const bare = await workflow({{ scriptPath: \"bare.js\" }}, {{ who: \"you\" }});\n\
             const seed = await workflow({{ scriptPath: \"hello/v000001.wasm\" }}, {{ name: \"seed\" }});\n\
             const saved = await workflow({{ scriptPath: {saved_abs:?} }}, {{ name: \"dir\" }});\n\
             return {{ rel, dotted, abs, bare, seed: seed.result, saved: saved.result }};\n"
        ),
        &std::fs::read_to_string(hello_fixture()).expect("hello fixture"),
    );
    let r = result(&out);
    assert_eq!(r["rel"], json!({"twice": 4}), "{r}");
    assert_eq!(r["dotted"], json!({"twice": 6}), "{r}");
    assert_eq!(r["abs"], json!({"twice": 8}), "{r}");
    assert_eq!(r["bare"], "hi you", "{r}");
    assert_eq!(r["seed"], "HELLO, STRANGER", "{r}");
    assert_eq!(r["saved"], "HELLO, STRANGER", "{r}");
}

/// Nothing outside the workspace and the saved scripts: `..` above the
/// workspace, an absolute path elsewhere, a symlink leading out and a
/// stray file in the saved-scripts dir are refused with
/// `path_outside_workspace` naming how; a missing file is `not_found`.
/// Nothing starts.
#[test]
fn workflow_refuses_a_script_path_outside_the_workspace() {
    let ctx = Ctx::new();
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let secret = elsewhere.path().join("secret.js");
    std::fs::write(
        &secret,
        "export const meta = { name: \"s\", description: \"outside\" };\nreturn \"escaped\";\n",
    )
    .expect("write");
    std::os::unix::fs::symlink(&secret, ctx.path("link.js")).expect("symlink");
    std::fs::create_dir_all(ctx.path("sub")).expect("mkdir");
    std::os::unix::fs::symlink(elsewhere.path(), ctx.path("sub/out")).expect("symlink");
    let up = pathdiff(&secret, &ctx.path("sub"));
    ctx.hwf(["script", "save", "hello", harnesses::HELLO]).expect_code(0);
    let stray = ctx.state().join("scripts/hello/v000001.meta.json");
    let cases = [
        (
            secret.display().to_string(),
            "path_outside_workspace",
            "is outside the workspace",
        ),
        (format!("sub/{up}"), "path_outside_workspace", "through \"..\""),
        ("link.js".into(), "path_outside_workspace", "through a symlink"),
        (
            "sub/out/secret.js".into(),
            "path_outside_workspace",
            "through a symlink",
        ),
        (
            stray.display().to_string(),
            "path_outside_workspace",
            "saved-scripts dir",
        ),
        ("missing.js".into(), "not_found", "no such file"),
    ];
    let list = cases
        .iter()
        .map(|(p, _, _)| format!("{p:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    let out = run(
        &ctx,
        "escape.js",
        &format!(
            "const out = [];\n\
             for (const scriptPath of [{list}]) {{\n\
               try {{ out.push(await workflow({{ scriptPath }}, {{}})); }} catch (e) {{ out.push([e.code, e.message]); }}\n\
             }}\n\
             return out;\n"
        ),
        r#"{"responses": []}"#,
    );
    let r = result(&out);
    for (i, (path, code, needle)) in cases.iter().enumerate() {
        assert_eq!(r[i][0], *code, "{path}: {r}");
        let msg = r[i][1].as_str().unwrap_or("");
        assert!(msg.contains(needle), "{path}: {msg}");
    }
    assert!(!out.stdout.contains("escaped"), "{}", out.stdout);
}

/// `../…` from `from` to `to` (both absolute), for a path that climbs out.
fn pathdiff(to: &std::path::Path, from: &std::path::Path) -> String {
    let depth = from.components().count() - 1;
    format!(
        "{}{}",
        "../".repeat(depth),
        to.strip_prefix("/").expect("absolute").display()
    )
}

/// `meta.phases` as the seed writes them (plain titles) or as Claude Code
/// does (`{title, detail?}`), mixed; anything else is an `invalid_phase`
/// warning, the entry ignored as Claude Code ignores it.
#[test]
fn meta_phases_may_be_plain_strings() {
    let ctx = Ctx::new();
    let s = ctx.write(
        "phases.js",
        "export const meta = { name: \"phases\", description: \"both forms\",\n\
           phases: [\"bughunt\", { title: \"fix\", detail: \"patch it\" }] };\n\
         phase(\"bughunt\");\nreturn 1;\n",
    );
    let v = ctx.hwf(["validate", s.to_str().expect("utf8"), "--json"]);
    v.expect_code(0);
    assert_eq!(
        v.json()["data"]["meta"]["phases"],
        json!([{"title": "bughunt", "detail": null}, {"title": "fix", "detail": "patch it"}]),
        "{}",
        v.stdout
    );
    let out = ctx.run_json(s.to_str().expect("utf8"), "{}", &[]);
    assert_eq!(result(&out), json!(1));
    let bad = ctx.write(
        "bad.js",
        "export const meta = { name: \"phases\", description: \"d\", phases: [7] };\nreturn 1;\n",
    );
    // Claude Code ignores a phase without a string title (and a `phases`
    // that is not a list): a warning, and the script runs (red team 6).
    let v = ctx.hwf(["validate", bad.to_str().expect("utf8")]);
    v.expect_code(0);
    assert!(
        v.stdout.contains("1 warning") && v.stderr.contains("invalid_phase"),
        "{}",
        v.stdout
    );
    for phases in ["[7]", "null", "{ title: \"x\" }", "[{ title: 5 }, { detail: \"d\" }]"] {
        let s = ctx.write(
            "lenient.js",
            format!("export const meta = {{ name: \"p\", description: \"d\", phases: {phases} }};\nreturn 1;\n"),
        );
        assert_eq!(
            result(&ctx.run_json(s.to_str().expect("utf8"), "{}", &[])),
            json!(1),
            "{phases}"
        );
    }
}

/// `localeCompare`, `toLocaleString` and `Intl.NumberFormat` /
/// `Intl.Collator` give what Node 20 gives (ICU) for the words, numbers and
/// options scripts use: Boa without ICU compared code units (`"C" < "a"`)
/// and printed numbers unformatted (`1234567.891`). The expected values are
/// Node's output for the same script.
#[test]
fn locale_compare_to_locale_string_and_intl_match_node() {
    let ctx = Ctx::new();
    let out = run(
        &ctx,
        "locale.js",
        include_str!("js_semantics_locale.js"),
        r#"{"responses": []}"#,
    );
    let expected = json!(
        {
            "sorted": [
                "_draft",
                "@user",
                "#tag",
                "$cost",
                "10",
                "9",
                "aero",
                "Ærø",
                "ångström",
                "apple",
                "Apple",
                "banana",
                "cherry",
                "draft 2",
                "draft-2",
                "draft10",
                "draft2",
                "eclair",
                "Éclair",
                "naive",
                "naïve",
                "Ørsted",
                "Oslo",
                "resume",
                "Resume",
                "résumé",
                "strasse",
                "straße",
                "zebra",
                "Zebra"
            ],
            "numeric": [
                "file-9.txt",
                "file-10.txt",
                "item1",
                "item2",
                "item02",
                "Item3",
                "item10"
            ],
            "base": [
                0,
                0,
                -1,
                0
            ],
            "accent": [
                0,
                1
            ],
            "signs": [
                -1,
                1,
                0,
                -1,
                0
            ],
            "numbers": [
                "1,234,567.891",
                "0",
                "-0.5",
                "1.005",
                "1,000,000,000,000,000,000,000",
                "0",
                "-1,234.568",
                "1,000",
                "NaN",
                "\u{221e}",
                "-\u{221e}",
                "42"
            ],
            "options": [
                "1,234.50",
                "1.01",
                "26%",
                "25.7%",
                "$1,234.50",
                "-€1,234.50",
                "¥1,235",
                "CHF\u{a0}1,234.50",
                "1234567.5",
                "005",
                "1.234.567,891",
                "1.234,50\u{a0}€",
                "1\u{202f}234\u{202f}567,891"
            ],
            "intl": [
                "$9.50",
                "12,345.678",
                [
                    "a",
                    "b",
                    "C"
                ],
                [
                    "x9",
                    "x10"
                ]
            ],
            "errors": [
                "TypeError",
                "RangeError"
            ]
        }
    );
    assert_eq!(result(&out), expected);
}

/// A script saved with a byte-order mark runs: U+FEFF is whitespace to
/// JavaScript, and Claude Code's meta scan skips it as such.
#[test]
fn a_script_starting_with_a_byte_order_mark_runs() {
    let ctx = Ctx::new();
    let s = ctx.write(
        "bom.js",
        "\u{feff}export const meta = { name: \"bom\", description: \"saved by an editor that writes a BOM\" };\nreturn args ?? \"none\";\n",
    );
    let out = ctx.run_json(s.to_str().expect("utf8"), "[1, 2]", &[]);
    assert_eq!(result(&out), json!([1, 2]));
    ctx.hwf(["validate", s.to_str().expect("utf8")]).expect_code(0);
}

/// A spent token budget, as Claude Code has it: `agent()` rejects with a
/// `WorkflowBudgetExceededError` the script may catch and go on from (the
/// seed's Python ends the run instead: `python_language::a_spent_token_budget_…`);
/// a `parallel` or `pipeline` slot it ends is `null`, said once in the log
/// (`parallel: 3 slots dropped — token budget exceeded`), not as a failed
/// slot; uncaught, it fails the run with the code `token_budget`.
#[test]
fn a_spent_budget_is_an_error_a_javascript_script_may_catch() {
    let ctx = Ctx::new();
    let fixture = ctx.write(
        "f.json",
        r#"{"responses": [{"match": {"label": "ok"}, "output": "fine", "tokens": 10}]}"#,
    );
    let fixture = fixture.to_str().expect("utf8");
    let script = ctx.write(
        "budget.js",
        r#"export const meta = { name: "budget", description: "catches a spent budget" };
let done = 0;
const caught = [];
for (let i = 0; i < 4; i++) {
  try { await agent("work " + i, { label: "ok" }); done++; }
  catch (e) { caught.push({ name: e.name, code: e.code, isError: e instanceof Error, message: e.message }); }
}
const slots = await parallel([1, 2, 3].map((n) => () => agent("more " + n, { label: "ok" })));
const piped = await pipeline([1, 2], (n) => agent("stage " + n, { label: "ok" }));
return { done, caught, slots, piped, spent: budget.spent(), remaining: budget.remaining() };
"#,
    );
    let script = script.to_str().expect("utf8");
    // 10 tokens a call, a ceiling of 15: the third call is refused.
    let out = ctx.run_json(script, "{}", &["--agents", fixture, "--max-tokens", "15"]);
    out.expect_code(0);
    let r = out.json()["data"]["result"].clone();
    assert_eq!(r["done"], 2, "{r}");
    assert_eq!(r["slots"], json!([null, null, null]), "{r}");
    assert_eq!(r["piped"], json!([null, null]), "{r}");
    assert_eq!(
        (r["spent"].clone(), r["remaining"].clone()),
        (json!(20), json!(0)),
        "{r}"
    );
    let caught = r["caught"].as_array().expect("caught");
    assert_eq!(caught.len(), 2, "{r}");
    for c in caught {
        assert_eq!(c["name"], "WorkflowBudgetExceededError", "{c}");
        assert_eq!(c["code"], "token_budget", "{c}");
        // As Claude Code's VM boundary: a frozen plain object, not an Error.
        assert_eq!(c["isError"], false, "{c}");
        assert_eq!(
            c["message"],
            "Workflow token budget exceeded (20 / 15 output tokens). Stopping further agent() calls. \
             In-flight agents will complete; their results are preserved.",
            "{c}"
        );
    }
    assert_eq!(
        out.json()["data"]["counts"]["agent_calls"],
        2,
        "refused calls are not agent calls"
    );
    let logs = ctx.hwf(["logs", &crate::common::run_id(&out.json())]);
    assert!(
        logs.stdout
            .contains("parallel: 3 slots dropped \u{2014} token budget exceeded")
            && logs
                .stdout
                .contains("pipeline: 2 slots dropped \u{2014} token budget exceeded"),
        "{}",
        logs.stdout
    );
    assert!(
        !logs.stdout.contains("failed:"),
        "a dropped slot is not a failed one: {}",
        logs.stdout
    );

    // Uncaught, the run fails with the budget's code.
    let s = ctx.write(
        "uncaught.js",
        "export const meta = { name: \"t\", description: \"a rule\" };\n\
         for (let i = 0; i < 3; i++) await agent(\"w\", { label: \"ok\" });\nreturn 1;\n",
    );
    let out = ctx.run_json(
        s.to_str().expect("utf8"),
        "{}",
        &["--agents", fixture, "--max-tokens", "15"],
    );
    out.expect_code(1);
    let message = out.error_message();
    assert!(
        message.starts_with(
            "token_budget: WorkflowBudgetExceededError: Workflow token budget exceeded (20 / 15 output tokens)"
        ),
        "{message}"
    );
}

/// Red team 6 (findings 2, 3): `effort` as Claude Code reads it (lower-cased,
/// `med` is `medium`; a value outside low/medium/high/xhigh/max is no
/// override and the agent runs, where hwf refused it with
/// `invalid_effort`), and an `agentType` the host does not have rejects
/// with Claude Code's text (hwf resolved `null`).
#[test]
fn efforts_claude_code_ignores_run_the_agent_and_an_unknown_agent_type_rejects() {
    let ctx = Ctx::new();
    let out = run(
        &ctx,
        "opts.js",
        r#"const out = {};
for (const [k, v] of Object.entries({ empty: '', spaced: 'very high', upper: 'HIGH', med: 'Med', nul: null, obj: { level: 'low' }, num: 2, flag: '--yolo' })) {
  out[k] = await agent(`e ${k}`, { label: k, effort: v });
}
const types = [];
for (const t of ['nope', '', 'my agent', 5]) {
  try { await agent(`t ${t}`, { agentType: t }); types.push('ran'); } catch (e) { types.push(`${e.name}: ${e.message}`); }
}
const slots = await parallel([() => agent('p', { agentType: 'nope' }), () => agent('q', { agentType: null })]);
return { out, types, slots };
"#,
        r#"{"responses": [{"match": {}, "output": {"ok": 1}}]}"#,
    );
    let r = result(&out);
    for k in ["empty", "spaced", "upper", "med", "nul", "obj", "num", "flag"] {
        assert_eq!(r["out"][k], json!({"ok": 1}), "{k}: {r}");
    }
    let efforts: std::collections::BTreeMap<String, Value> = journal_of(&ctx, &out)
        .iter()
        .filter(|e| e["type"] == "call_started" && e["kind"] == "agent")
        .filter_map(|e| {
            Some((
                e["request"]["label"].as_str()?.to_owned(),
                e["request"]["effort"].clone(),
            ))
        })
        .collect();
    assert_eq!(efforts["upper"], "high", "{efforts:?}");
    assert_eq!(efforts["med"], "medium", "{efforts:?}");
    for k in ["empty", "spaced", "nul", "obj", "num", "flag"] {
        assert_eq!(efforts[k], Value::Null, "{k}: {efforts:?}");
    }
    let not_found =
        |t: &str| format!("Error: agent({{agentType}}): agent type '{t}' not found. Available agents: general-purpose");
    assert_eq!(
        r["types"],
        json!([not_found("nope"), not_found(""), not_found("my agent"), not_found("5")]),
        "{r}"
    );
    assert_eq!(r["slots"], json!([null, {"ok": 1}]), "{r}");
    let logs = ctx.hwf(["logs", &crate::common::run_id(&out.json())]);
    assert!(
        logs.stdout
            .contains(&format!("parallel[0] failed: {}", &not_found("nope")[7..])),
        "{}",
        logs.stdout
    );
}

/// Red team 6 (findings 5, 7): the agent-call cap rejects with Claude
/// Code's `WorkflowAgentCapError` and its text (uncaught, the run still
/// fails with `limit_agent`), and a child workflow that threw rejects the
/// parent's `workflow()` with the child's own error name and message.
#[test]
fn the_agent_cap_and_a_failing_child_read_as_claude_code_has_them() {
    let ctx = Ctx::new();
    let s = ctx.write(
        "cap.js",
        "export const meta = { name: \"cap\", description: \"loop without a budget\" };\n\
         let n = 0;\n\
         try { while (budget.remaining() > 50000) { await agent(`find ${n}`); n++; } }\n\
         catch (e) { return { n, name: e.name, message: e.message, code: e.code }; }\n",
    );
    let f = ctx.write("any.json", r#"{"responses": [{"match": {}, "output": "b"}]}"#);
    let out = ctx.run_json(
        s.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8"), "--max-agent-calls", "3"],
    );
    assert_eq!(
        result(&out),
        json!({"n": 3, "name": "WorkflowAgentCapError", "code": "limit_agent",
               "message": "Workflow agent() call cap reached (3). This usually means a loop using budget.remaining() \
                           never terminates because no token budget was set \u{2014} remaining() returns Infinity when \
                           budget.total is null. Add a hard iteration cap to the loop, or pass a token budget."})
    );
    let s = ctx.write(
        "uncaught.js",
        "export const meta = { name: \"cap\", description: \"d\" };\nwhile (true) await agent('x');\n",
    );
    let out = ctx.run_json(
        s.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8"), "--max-agent-calls", "2"],
    );
    let msg = out.json()["data"]["error"]["message"].as_str().unwrap_or("").to_owned();
    assert!(
        msg.starts_with("limit_agent: WorkflowAgentCapError: Workflow agent() call cap reached (2)."),
        "{msg}"
    );
    ctx.write(
        "thrower.js",
        "export const meta = { name: \"thrower\", description: \"t\" };\nthrow new RangeError('child blew up: twice (really)');\n",
    );
    ctx.write(
        "plain.js",
        "export const meta = { name: \"plain\", description: \"t\" };\nthrow new Error('');\n",
    );
    let out = run(
        &ctx,
        "parent.js",
        "const seen = [];\n\
         for (const p of ['thrower.js', 'plain.js']) {\n\
           try { await workflow({ scriptPath: p }); } catch (e) { seen.push([e.name, e.message, e.code]); }\n\
         }\n\
         return seen;\n",
        r#"{"responses": []}"#,
    );
    assert_eq!(
        result(&out),
        json!([
            ["RangeError", "child blew up: twice (really)", "workflow_failed"],
            ["Error", "", "workflow_failed"]
        ])
    );
}

/// Red team 6 (finding 7): a child's own `workflow()` rejects with Claude
/// Code's text (hwf's nesting is one level deep too), which the child may
/// catch; the code stays `nesting_too_deep`.
#[test]
fn a_childs_own_workflow_call_rejects_with_claude_codes_text() {
    let ctx = Ctx::new();
    ctx.write(
        "leaf.js",
        "export const meta = { name: \"leaf\", description: \"l\" };\nreturn 1;\n",
    );
    ctx.write(
        "middle.js",
        "export const meta = { name: \"middle\", description: \"m\" };\n\
         try { await workflow({ scriptPath: 'leaf.js' }); return 'ran'; } catch (e) { return [e.name, e.message, e.code]; }\n",
    );
    let out = run(
        &ctx,
        "top.js",
        "return await workflow({ scriptPath: 'middle.js' });\n",
        r#"{"responses": []}"#,
    );
    assert_eq!(
        result(&out),
        json!([
            "Error",
            "workflow() cannot be called from within a child workflow \u{2014} nesting is limited to one level. \
             Inline the inner script or call its agents directly.",
            "nesting_too_deep"
        ])
    );
}

/// An uncaught throw fails the run as Claude Code reads the thrown value
/// (`idioms/cc_ref.js`, run here): `Name: message`, a thrown string the
/// message, anything else `<non-string error>` (`throw 42`, `throw null`,
/// `throw {name: "OnlyName"}`); a script's own message that looks coded
/// (`new Error("failed: tests red")`) keeps its name. Only hwf's own
/// errors (a host call's failure, which carries its code) lead with a code.
#[test]
fn uncaught_throws_fail_the_run_as_claude_code_reads_them() {
    let ctx = Ctx::new();
    let none = ctx.write("none.json", r#"{"responses": []}"#);
    let shim = crate::common::root().join("tests/e2e/idioms/cc_ref.js");
    for body in [
        "throw new Error(\"failed: tests red\")",
        "throw 42",
        "throw null",
        "throw { name: \"OnlyName\" }",
        "throw \"plain string\"",
        "throw [1, 2]",
        "throw new TypeError(\"bad\")",
        "throw new Error(\"\")",
        "await Promise.reject({ code: 7 })",
    ] {
        let s = ctx.write(
            "t.js",
            format!("export const meta = {{ name: \"t\", description: \"throws\" }};\n{body};\nreturn 1;\n"),
        );
        let out = ctx.run_json(
            s.to_str().expect("utf8"),
            "{}",
            &["--agents", none.to_str().expect("utf8")],
        );
        out.expect_code(1);
        let got = out.json()["error"]["message"].as_str().unwrap_or("").to_owned();
        let reference = crate::common::reference_json(
            "node",
            &[
                shim.to_str().expect("utf8"),
                s.to_str().expect("utf8"),
                none.to_str().expect("utf8"),
                "{}",
            ],
        );
        let want = reference["error"].as_str().expect("the reference fails too");
        let got = got.strip_prefix("script_error: ").unwrap_or(&got);
        let got = got.strip_suffix(" (line 2)").unwrap_or(got);
        assert_eq!(got, want, "{body}");
    }
}
