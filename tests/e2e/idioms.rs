//! Scripts written the way people write them for the seed and for Claude
//! Code (issue 28; its held-out sets are built the same way, and stay
//! unseen): each script in `tests/e2e/idioms/` runs through the real binary
//! with fixture agents, and its result must be what the reference gives.
//!
//! - `py/`: Python in the seed's syntax (generators, `del`, dict union,
//!   `key=str.lower`, format specs, `math`, the seed's typed errors,
//!   comprehensions, `parallel` / `pipeline` over agents, …). The reference
//!   is CPython running the script as the seed's VM does
//!   (`idioms/seed_ref.py`: the body in an `async def`, the seed's globals,
//!   its fingerprint cache), run in the test.
//! - `js/`: Claude-style JavaScript (strict semantics, destructuring,
//!   async ordering, builtins, JSON, dates, regexes, numbers, `parallel` /
//!   `pipeline` nulls, loop-until-dry). The reference is Node running the
//!   body as Claude Code does (`idioms/cc_ref.js`: an `async () => {'use
//!   strict'; …}` in a `vm` context without string code generation, its
//!   hardened and frozen globals, the body compiled as Claude Code compiles
//!   it with acorn, vendored in `idioms/acorn/`), run in the test. Claude
//!   Code itself is a Bun executable (JavaScriptCore, with ES2024-2025
//!   builtins Node 20 lacks: `Object.groupBy`,
//!   the `Set` methods, iterator helpers, …); a script that needs them has a
//!   `<name>.bun` marker and runs its reference in Bun (`$HWF_BUN`, else
//!   the pinned Bun `.ci/run` installs into `target/bun` with npm, else
//!   `bun` on `PATH`).
//! - `json/`: definitions in the seed's JSON format. The reference is the
//!   seed's own runtime (hermes-plugin-dynamic-workflows, commit `da0257e`,
//!   `workflow_run` with the same fixture), whose results are recorded in
//!   `<name>.expected.json`: it is not vendored, so it cannot run here.
//!
//! A missing `python3` or `node` fails the test ([`reference_json`]).

use crate::common::{Ctx, reference_json, root};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One script of the set: its fixture (`<name>.fixture.json`, else no
/// answers) and args (`<name>.args.json`, else `{}`).
struct Case {
    name: String,
    script: PathBuf,
    fixture: PathBuf,
    args: String,
}

fn dir() -> PathBuf {
    root().join("tests/e2e/idioms")
}

/// The scripts under `idioms/<kind>/` ending in `.<ext>`, by name.
fn cases(kind: &str, ext: &str) -> Vec<Case> {
    let folder = dir().join(kind);
    let mut out: Vec<Case> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .filter_map(|p| {
            let name = p.file_stem()?.to_str()?.to_owned();
            if name.contains('.') {
                return None; // `<name>.fixture.json`, `.args.json`, `.expected.json`
            }
            let fixture = folder.join(format!("{name}.fixture.json"));
            let args =
                std::fs::read_to_string(folder.join(format!("{name}.args.json"))).unwrap_or_else(|_| "{}".into());
            Some(Case {
                fixture: if fixture.exists() {
                    fixture
                } else {
                    dir().join("no-answers.fixture.json")
                },
                script: p,
                name,
                args,
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn utf8(p: &Path) -> &str {
    p.to_str().expect("utf8 path")
}

/// The script's result through `hwf run`, or what went wrong.
fn hwf_result(ctx: &Ctx, case: &Case) -> Result<Value, String> {
    hwf_run(ctx, case).map(|(result, _)| result)
}

/// The script's result and its narrator log lines (the messages `log` and
/// `console.*` wrote, in order) through `hwf run`, or what went wrong.
fn hwf_run(ctx: &Ctx, case: &Case) -> Result<(Value, Value), String> {
    let out = ctx.run_json(utf8(&case.script), &case.args, &["--agents", utf8(&case.fixture)]);
    let v: Value = serde_json::from_str(&out.stdout).map_err(|e| format!("{e}: {} {}", out.stdout, out.stderr))?;
    if v["data"]["state"] != "succeeded" {
        return Err(v.to_string());
    }
    let id = v["data"]["run_id"].as_str().ok_or_else(|| format!("no run id: {v}"))?;
    let logs: Vec<Value> = ctx
        .journal(id)
        .into_iter()
        .filter(|e| e["type"] == "log" && e["source"] == "guest")
        .map(|e| e["message"].clone())
        .collect();
    // A result past the inline limit (4 KiB) is in `result_path`.
    let result = match v["data"]["result_path"].as_str() {
        Some(path) if v["data"].get("result").is_none() => std::fs::read_to_string(path)
            .map_err(|e| format!("{path}: {e}"))
            .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| format!("{path}: {e}")))?,
        _ => v["data"]["result"].clone(),
    };
    Ok((result, Value::Array(logs)))
}

/// `v` with every float in one spelling (`1e-07` from CPython and `1e-7`
/// from hwf are the same number; serde keeps each number's own text).
/// Integers keep their digits, and a float stays a float (`2.0` is not `2`).
pub(crate) fn canonical(v: Value) -> Value {
    match v {
        Value::Number(n) => {
            let text = n.to_string();
            if text.contains(['.', 'e', 'E']) {
                text.parse::<f64>().map_or(Value::Number(n), |f| {
                    serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
                })
            } else {
                Value::Number(n)
            }
        }
        Value::Array(a) => Value::Array(a.into_iter().map(canonical).collect()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, canonical(v))).collect()),
        other => other,
    }
}

/// Run every case of `kind`; all that differ from `reference` are named at
/// once. `at_least` guards against a set that went missing.
fn same_as_reference(kind: &str, ext: &str, at_least: usize, reference: impl Fn(&Case) -> Value) {
    let ctx = Ctx::new();
    let cases = cases(kind, ext);
    assert!(
        cases.len() >= at_least,
        "{kind}: {} scripts, expected {at_least}",
        cases.len()
    );
    let mut differ = Vec::new();
    for case in &cases {
        let theirs = canonical(reference(case));
        match hwf_result(&ctx, case).map(canonical) {
            Ok(ours) if ours == theirs => {}
            Ok(ours) => differ.push(format!("{}:\n  hwf:       {ours}\n  reference: {theirs}", case.name)),
            Err(e) => differ.push(format!("{}: hwf failed: {e}\n  reference: {theirs}", case.name)),
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} {kind} scripts differ from the reference:\n{}",
        differ.len(),
        cases.len(),
        differ.join("\n")
    );
}

/// The reference shims print `{"result": …, "logs": […]}`.
fn reference_result(runtime: &str, shim: &str, case: &Case) -> Value {
    let shim = dir().join(shim);
    let out = reference_json(
        runtime,
        &[utf8(&shim), utf8(&case.script), utf8(&case.fixture), &case.args],
    );
    assert!(out.get("error").is_none(), "{}: the reference failed: {out}", case.name);
    out["result"].clone()
}

#[test]
fn python_in_the_seeds_syntax_gives_cpythons_results() {
    same_as_reference("py", "py", 194, |case| reference_result("python3", "seed_ref.py", case));
}

/// The seed's narrator lines are part of what a script gives: every
/// `log(message)` line of each Python case is the seed's `str(message)`
/// (`{'a': 1}`, `None`, `('t', 1)`), in order, as `seed_ref.py` writes it.
#[test]
fn python_in_the_seeds_syntax_logs_what_the_seed_logs() {
    same_logs_as_reference("py", "py", |case| {
        let shim = dir().join("seed_ref.py");
        reference_json(
            "python3",
            &[utf8(&shim), utf8(&case.script), utf8(&case.fixture), &case.args],
        )["logs"]
            .clone()
    });
}

/// Every case of `idioms/<kind>/` logs, line for line and in order, what
/// `theirs` says its reference logs.
fn same_logs_as_reference(kind: &str, ext: &str, theirs: impl Fn(&Case) -> Value) {
    let ctx = Ctx::new();
    let mut differ = Vec::new();
    for case in cases(kind, ext) {
        let theirs = theirs(&case);
        match hwf_run(&ctx, &case) {
            Ok((_, ours)) if ours == theirs => {}
            Ok((_, ours)) => differ.push(format!("{}:\n  hwf:       {ours}\n  reference: {theirs}", case.name)),
            Err(e) => differ.push(format!("{}: hwf failed: {e}", case.name)),
        }
    }
    assert!(
        differ.is_empty(),
        "{} {kind} scripts log otherwise:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// The reference's `{"result", "logs"}` for a JavaScript case: Node, or
/// Bun for a case marked `<name>.bun`.
/// The Bun a `<name>.bun` case's reference runs in: `$HWF_BUN`, else the
/// pinned one in `target/bun` (`npm install --prefix target/bun
/// @oven/bun-linux-x64@1.4.5`, as `.ci/run` does), else `bun` on `PATH`.
fn bun() -> String {
    if let Ok(given) = std::env::var("HWF_BUN") {
        return given;
    }
    let pinned = root().join("target/bun/node_modules/@oven/bun-linux-x64/bin/bun");
    if pinned.is_file() {
        return utf8(&pinned).to_owned();
    }
    "bun".into()
}

fn js_reference(case: &Case) -> Value {
    let shim = dir().join("cc_ref.js");
    let runtime = if case.script.with_extension("bun").exists() {
        bun()
    } else {
        "node".into()
    };
    let out = reference_json(
        &runtime,
        &[utf8(&shim), utf8(&case.script), utf8(&case.fixture), &case.args],
    );
    assert!(out.get("error").is_none(), "{}: the reference failed: {out}", case.name);
    out
}

/// Claude Code's narrator lines are part of what a script gives: every
/// `log` / `console.*` line (and `parallel[i] failed: …`) of each
/// JavaScript case, in order, is the reference's.
#[test]
fn claude_style_javascript_logs_what_claude_code_logs() {
    same_logs_as_reference("js", "js", |case| js_reference(case)["logs"].clone());
}

#[test]
fn claude_style_javascript_gives_nodes_results() {
    same_as_reference("js", "js", 130, |case| js_reference(case)["result"].clone());
}

#[test]
fn json_in_the_seeds_format_gives_the_seeds_results() {
    same_as_reference("json", "json", 55, |case| {
        let expected = case.script.with_file_name(format!("{}.expected.json", case.name));
        serde_json::from_str(&std::fs::read_to_string(&expected).expect("expected result")).expect("expected json")
    });
}
