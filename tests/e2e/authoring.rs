//! Authoring through the real binary: `hwf init` gives a project whose
//! example runs and type-checks, `hwf.d.ts` declares exactly the globals the
//! JavaScript runtime defines and type-checks the repo's scripts (and
//! refuses a wrong call), `hwf completions` prints a completion script.
//!
//! The type checks run TypeScript's `tsc`, pinned by `.ci/run` into
//! `target/tsc` (`$HWF_TSC` overrides); without it they are skipped, unless
//! `HWF_REQUIRE_CLIENTS=1`, where a missing `tsc` fails them.

use crate::common::{Ctx, Run, root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `hwf init DIR` in the context's dir; returns the project's path.
fn init(ctx: &Ctx, name: &str) -> PathBuf {
    let r = ctx.hwf(["init", name]);
    r.expect_code(0);
    assert!(r.stdout.contains("hwf run workflows/example.js"), "{r:#?}");
    ctx.path(name)
}

/// `hwf` run from `dir`.
fn hwf_in(ctx: &Ctx, dir: &Path, args: &[&str]) -> Run {
    ctx.cmd()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("spawn hwf")
        .into()
}

#[test]
fn init_gives_a_project_whose_example_runs() {
    let ctx = Ctx::new();
    let project = init(&ctx, "proj");
    for f in [
        "hwf.toml",
        "workflows/example.js",
        "workflows/example.fixture.json",
        "workflows/example.workflow.json",
        ".hermes/agents/example.md",
        "hwf.d.ts",
        "jsconfig.json",
        "tsconfig.json",
        "workflow.schema.json",
        ".vscode/settings.json",
    ] {
        assert!(project.join(f).is_file(), "{f} missing");
    }
    // With its fixture named on the command line…
    let r = hwf_in(
        &ctx,
        &project,
        &[
            "run",
            "workflows/example.js",
            "--agents",
            "workflows/example.fixture.json",
            "--json",
        ],
    );
    r.expect_code(0);
    let result = &r.json()["data"]["result"];
    // "approve" comes from the review call, whose agent type is the
    // project's .hermes/agents/example.md (an unknown type fails the call,
    // and the script then sees null).
    assert_eq!(result["verdict"], "approve", "{r:#?}");
    assert_eq!(result["drafts"].as_array().map(Vec::len), Some(2), "{r:#?}");
    // …and as the project is: hwf.toml's [agents] fixture.
    hwf_in(&ctx, &project, &["run", "workflows/example.js"]).expect_code(0);
    // Doctor reads the project's config and its hwf.d.ts.
    let doctor = hwf_in(&ctx, &project, &["doctor", "--json"]);
    let checks = doctor.json()["data"]["checks"].clone();
    let dts = checks
        .as_array()
        .and_then(|c| c.iter().find(|c| c["check"] == "hwf.d.ts"))
        .cloned()
        .unwrap_or_else(|| panic!("no hwf.d.ts check: {doctor:#?}"));
    assert_eq!(dts["level"], "info", "{dts}");
    std::fs::write(project.join("hwf.d.ts"), "declare const old: 1;\n").expect("write");
    let stale = hwf_in(&ctx, &project, &["doctor"]);
    assert!(stale.stdout.contains("hwf types > hwf.d.ts"), "{stale:#?}");
    // The JSON twin validates without warnings and runs.
    let v = hwf_in(
        &ctx,
        &project,
        &["validate", "workflows/example.workflow.json", "--json"],
    );
    v.expect_code(0);
    assert_eq!(v.json()["data"]["diagnostics"], serde_json::json!([]), "{v:#?}");
    let j = hwf_in(
        &ctx,
        &project,
        &[
            "run",
            "workflows/example.workflow.json",
            "--args",
            r#"{"topic": "wasm"}"#,
            "--json",
        ],
    );
    j.expect_code(0);
    assert_eq!(j.json()["data"]["result"]["output"]["verdict"], "approve", "{j:#?}");
}

#[test]
fn init_refuses_an_existing_file_unless_forced() {
    let ctx = Ctx::new();
    let project = ctx.path("proj");
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::write(project.join("hwf.toml"), "# mine\n").expect("write");
    let r = ctx.hwf(["init", "proj"]);
    r.expect_code(2)
        .expect_stderr("already_exists")
        .expect_stderr("hwf.toml");
    // Nothing written, the file kept.
    assert!(!project.join("workflows").exists());
    assert_eq!(
        std::fs::read_to_string(project.join("hwf.toml")).expect("read"),
        "# mine\n"
    );
    let j = ctx.hwf(["init", "proj", "--json"]);
    j.expect_code(2);
    assert_eq!(j.json()["error"]["code"], "already_exists", "{j:#?}");
    ctx.hwf(["init", "proj", "--force"]).expect_code(0);
    assert!(project.join("workflows/example.js").is_file());
    assert!(
        std::fs::read_to_string(project.join("hwf.toml"))
            .expect("read")
            .contains("[agents.backends.claude]")
    );
}

#[test]
fn completions_types_and_schema_print() {
    let ctx = Ctx::new();
    let bash = ctx.hwf(["completions", "bash"]);
    bash.expect_code(0);
    assert!(bash.stdout.contains("complete -F _hwf"), "{bash:#?}");
    for word in ["init", "run", "completions", "--resume-from"] {
        assert!(bash.stdout.contains(word), "bash completion lacks {word}");
    }
    for shell in ["zsh", "fish"] {
        let r = ctx.hwf(["completions", shell]);
        r.expect_code(0);
        assert!(r.stdout.contains("hwf"), "{r:#?}");
    }
    ctx.hwf(["completions", "tcsh"])
        .expect_code(2)
        .expect_stderr("invalid_args");
    let types = ctx.hwf(["types"]);
    types.expect_code(0);
    assert!(types.stdout.contains("declare function agent("), "{types:#?}");
    let schema = ctx.hwf(["schema", "workflow"]);
    schema.expect_code(0);
    let schema: Value = serde_json::from_str(&schema.stdout).expect("the schema is JSON");
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
}

/// Every command's `--help` names the target kinds where it takes a
/// workflow, and ends with examples.
#[test]
fn help_names_every_target_kind() {
    let ctx = Ctx::new();
    for args in [
        &["run", "--help"][..],
        &["validate", "--help"],
        &["script", "save", "--help"],
    ] {
        let r = ctx.hwf(args);
        r.expect_code(0);
        for kind in [".wasm", ".js", ".py", ".workflow.json"] {
            assert!(r.stdout.contains(kind), "`hwf {}` lacks {kind}", args.join(" "));
        }
        assert!(r.stdout.contains("Examples:"), "{r:#?}");
    }
    let run = ctx.hwf(["run", "--help"]);
    assert!(run.stdout.contains("saved script's name"), "{run:#?}");
    for args in [
        &["init", "--help"][..],
        &["control", "pause", "--help"],
        &["kanban", "list", "--help"],
    ] {
        let r = ctx.hwf(args);
        r.expect_code(0);
        assert!(
            r.stdout.contains("Examples:\n  hwf "),
            "`hwf {}`: {r:#?}",
            args.join(" ")
        );
    }
}

/// The ECMAScript globals a script may see (those of Bun's `vm` context,
/// where Claude Code runs scripts, that QuickJS-ng has: the prelude removes
/// QuickJS's extras and what Claude Code deletes): everything else a script
/// sees is hwf's and must be in hwf.d.ts.
const STANDARD_GLOBALS: &[&str] = &[
    "AggregateError",
    "Array",
    "ArrayBuffer",
    "AsyncDisposableStack",
    "Atomics",
    "BigInt",
    "BigInt64Array",
    "BigUint64Array",
    "Boolean",
    "DataView",
    "Date",
    "DisposableStack",
    "Error",
    "EvalError",
    "FinalizationRegistry",
    "Float16Array",
    "Float32Array",
    "Float64Array",
    "Function",
    "Infinity",
    "Int16Array",
    "Int32Array",
    "Int8Array",
    // ECMA-402's namespace: hwf's runtime defines `NumberFormat` and
    // `Collator` on it (docs/CONFORMANCE.md).
    "Intl",
    "Iterator",
    "JSON",
    "Map",
    "Math",
    "NaN",
    "Number",
    "Object",
    "Promise",
    "Proxy",
    "RangeError",
    "ReferenceError",
    "Reflect",
    "RegExp",
    "Set",
    "SharedArrayBuffer",
    "String",
    "SuppressedError",
    "Symbol",
    "SyntaxError",
    "TypeError",
    "TypedArray",
    "URIError",
    "Uint16Array",
    "Uint32Array",
    "Uint8Array",
    "Uint8ClampedArray",
    "WeakMap",
    "WeakRef",
    "WeakSet",
    "decodeURI",
    "decodeURIComponent",
    "encodeURI",
    "encodeURIComponent",
    "escape",
    "eval",
    "globalThis",
    "isFinite",
    "isNaN",
    "parseFloat",
    "parseInt",
    "undefined",
    "unescape",
    // Claude Code pins `then` on its global (undefined, read-only), so
    // nothing awaits the global object as a thenable; so does hwf.
    "then",
];

/// The globals `hwf.d.ts` declares (`declare function X` / `declare const X`).
fn declared_globals(dts: &str) -> std::collections::BTreeSet<String> {
    dts.lines()
        .filter_map(|l| {
            l.strip_prefix("declare function ")
                .or_else(|| l.strip_prefix("declare const "))
        })
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn dts_declares_exactly_the_runtime_globals() {
    let ctx = Ctx::new();
    let script = ctx.write(
        "globals.js",
        "export const meta = { name: \"globals\", description: \"the globals a script sees\" };\n\
         return Object.getOwnPropertyNames(globalThis);\n",
    );
    let r = ctx.hwf(["run", script.to_str().expect("utf-8 path"), "--json"]);
    r.expect_code(0);
    let runtime: std::collections::BTreeSet<String> = r.json()["data"]["result"]
        .as_array()
        .expect("a list of names")
        .iter()
        .filter_map(|v| v.as_str())
        .filter(|n| !STANDARD_GLOBALS.contains(n))
        .map(str::to_owned)
        .collect();
    let types = ctx.hwf(["types"]);
    types.expect_code(0);
    let declared = declared_globals(&types.stdout);
    assert_eq!(
        runtime, declared,
        "the JS runtime's globals (left) and hwf.d.ts's (right) differ"
    );
    for name in [
        "agent",
        "parallel",
        "pipeline",
        "phase",
        "log",
        "budget",
        "args",
        "workflow",
        "capability",
    ] {
        assert!(declared.contains(name), "{name}");
    }
    assert!(types.stdout.contains("interface WorkflowMeta"));
}

// ---------------------------------------------------------------- tsc --

/// TypeScript's compiler, or `None` (the test is skipped) when it is not
/// installed and clients are not required.
fn tsc(test: &str) -> Option<PathBuf> {
    let path = std::env::var_os("HWF_TSC")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/tsc/node_modules/.bin/tsc"));
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var("HWF_REQUIRE_CLIENTS").as_deref() != Ok("1"),
        "{test}: tsc is not installed at {} and HWF_REQUIRE_CLIENTS=1 (npm install --prefix target/tsc typescript@5.9.3)",
        path.display()
    );
    println!(
        "skipped {test}: tsc is not installed at {} (see .ci/run)",
        path.display()
    );
    None
}

/// `tsc --noEmit -p .` in `dir`: its exit code and its diagnostics.
fn check(tsc: &Path, dir: &Path) -> (i32, String) {
    let out = Command::new(tsc)
        .args(["--noEmit", "-p", "."])
        .current_dir(dir)
        .output()
        .expect("run tsc");
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn tsc_type_checks_the_init_project() {
    let Some(tsc) = tsc("tsc_type_checks_the_init_project") else {
        return;
    };
    let ctx = Ctx::new();
    let project = init(&ctx, "proj");
    let (code, text) = check(&tsc, &project);
    assert_eq!(code, 0, "tsc --noEmit -p . in a fresh project:\n{text}");
}

/// The repo's JavaScript workflows type-check against hwf.d.ts: tsc's only
/// complaint is TS1108 on their top-level `return`s (a workflow is a
/// function body; TypeScript has no option for that), and with the
/// `// @ts-ignore` line hwf.d.ts tells authors to put above them, none.
#[test]
fn tsc_type_checks_the_repo_scripts() {
    let Some(tsc) = tsc("tsc_type_checks_the_repo_scripts") else {
        return;
    };
    let ctx = Ctx::new();
    let project = init(&ctx, "proj");
    // Every JavaScript workflow of the repo (loop-until-dry.js,
    // deep-research.js, …).
    let mut scripts = 0;
    for entry in std::fs::read_dir(root().join("harnesses")).expect("harnesses/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "js") {
            let name = path.file_name().expect("a file name");
            std::fs::copy(&path, project.join("workflows").join(name)).expect("copy");
            scripts += 1;
        }
    }
    assert!(scripts >= 3, "{scripts} scripts in harnesses/");
    let (code, text) = check(&tsc, &project);
    assert_ne!(code, 0, "top-level returns are TS1108");
    // Every diagnostic: `workflows/<file>(<line>,<col>): error TS1108: …`.
    let mut returns: Vec<(String, usize)> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        assert!(
            line.contains("error TS1108:"),
            "a type error, not a top-level return:\n{text}"
        );
        let (file, rest) = line.split_once('(').expect("file(line,col)");
        let n: usize = rest
            .split(',')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("line number");
        returns.push((file.to_owned(), n));
    }
    assert!(
        returns.iter().any(|(f, _)| f.ends_with("loop-until-dry.js")),
        "loop-until-dry.js ends with a top-level return:\n{text}"
    );
    // Bottom-up, so earlier line numbers stay right.
    returns.sort();
    for (file, n) in returns.iter().rev() {
        let path = project.join(file);
        let mut lines: Vec<String> = std::fs::read_to_string(&path)
            .expect("read")
            .lines()
            .map(str::to_owned)
            .collect();
        assert!(
            lines[n - 1].trim_start().starts_with("return"),
            "{file}:{n}: {}",
            lines[n - 1]
        );
        lines.insert(n - 1, "// @ts-ignore".to_owned());
        std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    }
    let (code, text) = check(&tsc, &project);
    assert_eq!(code, 0, "the repo's scripts against hwf.d.ts:\n{text}");
}

/// Wrong calls are type errors: a number as the prompt and as the label, a
/// capability input without its required field, a meta without a
/// description, a `parallel()` of promises instead of thunks.
#[test]
fn tsc_refuses_wrong_calls() {
    let Some(tsc) = tsc("tsc_refuses_wrong_calls") else {
        return;
    };
    let ctx = Ctx::new();
    let project = init(&ctx, "proj");
    let cases = [
        ("prompt.js", "agent(42, { label: 7 });", "TS2345"),
        ("label.js", "agent(\"hi\", { label: 7 });", "TS2322"),
        (
            "schema.js",
            "agent(\"hi\", { schema: { verdict: \"strnig\" } });",
            "TS2820",
        ),
        (
            "capability.js",
            "capability(\"fs.read\", { file: \"README.md\" });",
            "TS2353",
        ),
        ("thunks.js", "await parallel([agent(\"a\"), agent(\"b\")]);", "TS2322"),
    ];
    for (file, line, _) in cases {
        std::fs::write(
            project.join("workflows").join(file),
            format!("export const meta = {{ name: \"bad\", description: \"a wrong call\" }};\n{line}\n"),
        )
        .expect("write");
    }
    std::fs::write(
        project.join("workflows/meta.js"),
        "/** @satisfies {WorkflowMeta} */\nexport const meta = { name: \"bad\" };\n",
    )
    .expect("write");
    let (code, text) = check(&tsc, &project);
    assert_ne!(code, 0, "{text}");
    for (file, _, code) in cases {
        let hit = text
            .lines()
            .any(|l| l.starts_with(&format!("workflows/{file}(2,")) && l.contains(code));
        assert!(hit, "{file}: no {code} from tsc:\n{text}");
    }
    assert!(
        text.lines()
            .any(|l| l.starts_with("workflows/meta.js(1,") && l.contains("TS1360"))
            && text.contains("Property 'description' is missing"),
        "meta.js: a missing description is not reported:\n{text}"
    );
    // Nothing else: the example still type-checks.
    assert!(!text.contains("example.js"), "{text}");
}
