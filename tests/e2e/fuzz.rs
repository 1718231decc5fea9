//! Bounded fuzzing of the two script checkers through the real binary:
//! `hwf validate x.js` (the JS runtime's source checker) and `hwf validate
//! x.workflow.json` (the JSON runtime's checker), on the corpus in
//! `tests/fuzz-corpus/` and seeded mutations of it (byte edits, splices,
//! language tokens, structure-aware JSON edits, deep nesting).
//!
//! Every input must end in time (a hang is a validate taking more than
//! [`HANG`]) with exit 0 or 2 and a facade envelope on stdout; a refusal
//! names a stable code, never a crash of the checker (`guest_trap`,
//! `stack_overflow`, `internal`, …). Each test is time-boxed to
//! `HWF_FUZZ_SECONDS` (default 40) and `HWF_FUZZ_CASES` cases (default
//! 400); `HWF_FUZZ_SEED` replays one case. A failing input is written to
//! the test's temp dir and its seed printed.

use crate::common::{Ctx, root};
use rand::rngs::StdRng;
use rand::{RngExt as _, SeedableRng as _};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A validate that takes longer than this is a hang.
const HANG: Duration = Duration::from_secs(10);

/// Codes that mean the checker itself broke rather than refused the input.
const CRASHES: &[&str] = &[
    "guest_trap",
    "guest_exit",
    "stack_overflow",
    "internal",
    "cpu_limit",
    "memory_limit",
    "timeout",
    "output_limit",
];

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn corpus(dir: &str) -> Vec<String> {
    let dir = root().join("tests/fuzz-corpus").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    files.iter().filter_map(|p| std::fs::read_to_string(p).ok()).collect()
}

const JS_TOKENS: &[&str] = &[
    "await ",
    "agent(",
    "agent(\"x\", { model: \"--y\" })",
    "parallel([() => 1, () => agent(\"p\")])",
    "pipeline([1], (x) => x)",
    "capability(\"fs.list\", {})",
    "workflow(\"w\")",
    "export const meta = { name: \"m\", description: \"d\" };\n",
    "export ",
    "import ",
    "import(\"x\")",
    "require(\"fs\")",
    "return ",
    "=> ",
    "`${",
    "`",
    "/*",
    "*/",
    "//",
    "'",
    "\"",
    "\\u{10FFFF}",
    "\\",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    "\n",
    ",",
    "...",
    "Date.now()",
    "Math.random()",
    "new Date()",
    "eval(\"1\")",
    "Function(\"return this\")",
    "with (x) {}",
    "function* g() { yield 1; }",
    "async ",
    "class C { #p; static {} }",
    "?.",
    "??=",
    "0x",
    "1e999",
    "9007199254740993n",
    "\u{2028}",
    "/(?<n>a)\\k<n>/u",
    "label: ",
    "let ",
    "const ",
    "get ",
    "__proto__: null, ",
    "constructor",
    "default ",
    "setTimeout(() => {}, 1e9)",
    "while (false) {}",
    "\u{FEFF}",
    "\u{0}",
];

/// Deeply nested input: bracket bombs, long chains, huge literals.
fn nested(rng: &mut StdRng) -> String {
    let n = match rng.random_range(0..3) {
        0 => rng.random_range(10..200),
        1 => rng.random_range(200..5_000),
        _ => rng.random_range(5_000..60_000),
    };
    let (open, close) = [
        ("(", ")"),
        ("[", "]"),
        ("{a:", "}"),
        ("-", ""),
        ("!", ""),
        ("() => ", ""),
        ("`${", "}`"),
    ][rng.random_range(0..7)];
    format!("{}1{}", open.repeat(n), close.repeat(n))
}

fn mutate_bytes(rng: &mut StdRng, text: &str, others: &[String], tokens: &[&str]) -> String {
    let mut b = text.as_bytes().to_vec();
    for _ in 0..rng.random_range(1..8) {
        let at = if b.is_empty() { 0 } else { rng.random_range(0..=b.len()) };
        match rng.random_range(0..7) {
            0 if !b.is_empty() => {
                let i = rng.random_range(0..b.len());
                b[i] ^= 1 << rng.random_range(0..8);
            }
            1 | 2 => {
                let t = tokens[rng.random_range(0..tokens.len())].as_bytes().to_vec();
                b.splice(at..at, t);
            }
            3 if at < b.len() => {
                let end = (at + rng.random_range(1..80)).min(b.len());
                b.drain(at..end);
            }
            4 if at < b.len() => {
                let end = (at + rng.random_range(1..80)).min(b.len());
                let piece = b[at..end].to_vec();
                for _ in 0..rng.random_range(1..5) {
                    b.splice(at..at, piece.iter().copied());
                }
            }
            5 if !others.is_empty() => {
                let o = others[rng.random_range(0..others.len())].as_bytes();
                let from = rng.random_range(0..=o.len());
                let to = rng.random_range(from..=o.len());
                b.splice(at..at, o[from..to].iter().copied());
            }
            _ => b.truncate(at),
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

fn js_case(rng: &mut StdRng, corpus: &[String]) -> String {
    let base = &corpus[rng.random_range(0..corpus.len())];
    match rng.random_range(0..10) {
        0 => format!(
            "export const meta = {{ name: \"n\", description: \"d\" }};\nreturn {};",
            nested(rng)
        ),
        1 => format!(
            "export const meta = {{ name: \"n\", description: \"d\", x: {} }};\n",
            nested(rng)
        ),
        2 => {
            // Many statements.
            let n = rng.random_range(100..3_000);
            let body: String = (0..n).map(|i| format!("const v{i} = await agent(`p{i}`);\n")).collect();
            format!("export const meta = {{ name: \"n\", description: \"d\" }};\n{body}")
        }
        _ => mutate_bytes(rng, base, corpus, JS_TOKENS),
    }
}

const JSON_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "null",
    "true",
    "-0",
    "1e309",
    "\"$ref:",
    "\"kind\"",
    "\"steps\"",
    "\"id\"",
    "\"branches\"",
    "\u{0}",
    "\u{FEFF}",
    "\\ud800",
];

const KINDS: &[&str] = &[
    "agent",
    "kanban_agent",
    "capability",
    "parallel",
    "pipeline",
    "phase",
    "if",
    "workflow",
    "log",
    "nope",
];

fn json_value(rng: &mut StdRng, depth: u32) -> Value {
    match rng.random_range(0..if depth == 0 { 5 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.random_bool(0.5)),
        2 => json!(rng.random_range(-5i64..100_000)),
        3 => {
            let refs = [
                "$ref:inputs.name",
                "$ref:greet.output.greeting",
                "$ref:",
                "$ref:x.output.y.z",
                "s",
                "",
            ];
            json!(refs[rng.random_range(0..refs.len())])
        }
        4 => json!(KINDS[rng.random_range(0..KINDS.len())]),
        5 => Value::Array(
            (0..rng.random_range(0..4))
                .map(|_| json_value(rng, depth - 1))
                .collect(),
        ),
        _ => json!(step(rng, depth - 1)),
    }
}

/// A random step (sometimes a well-formed one).
fn step(rng: &mut StdRng, depth: u32) -> Value {
    let kind = KINDS[rng.random_range(0..KINDS.len())];
    let mut m = Map::new();
    m.insert("kind".into(), json!(kind));
    m.insert("id".into(), json!(format!("s{}", rng.random_range(0..6))));
    for key in [
        "agent",
        "input",
        "output_schema",
        "depends_on",
        "steps",
        "branches",
        "if",
        "name",
        "label",
    ] {
        if rng.random_bool(0.3) {
            let v = match key {
                "steps" | "branches" if depth > 0 => {
                    Value::Array((0..rng.random_range(0..4)).map(|_| step(rng, depth - 1)).collect())
                }
                "depends_on" => json!([format!("s{}", rng.random_range(0..6))]),
                _ => json_value(rng, depth.min(2)),
            };
            m.insert(key.into(), v);
        }
    }
    Value::Object(m)
}

/// Replace a random node of `v` (walking at most `budget` levels).
fn replace_node(rng: &mut StdRng, v: &mut Value, budget: u32) {
    let descend = budget > 0 && rng.random_bool(0.7);
    match v {
        Value::Object(m) if descend && !m.is_empty() => {
            let k = m.keys().nth(rng.random_range(0..m.len())).cloned().unwrap_or_default();
            if let Some(child) = m.get_mut(&k) {
                replace_node(rng, child, budget - 1);
            }
        }
        Value::Array(a) if descend && !a.is_empty() => {
            let i = rng.random_range(0..a.len());
            replace_node(rng, &mut a[i], budget - 1);
        }
        _ => *v = json_value(rng, 3),
    }
}

fn json_case(rng: &mut StdRng, corpus: &[String]) -> String {
    let base = &corpus[rng.random_range(0..corpus.len())];
    match rng.random_range(0..10) {
        0 => {
            let n = rng.random_range(10..100_000);
            ["[", "{\"a\":"][rng.random_range(0..2)].repeat(n)
        }
        1 => {
            // Steps nested deeper than anyone writes them.
            let mut s = json!({"kind": "agent", "id": "leaf", "agent": "x"});
            for i in 0..rng.random_range(10..400) {
                let kind = ["phase", "pipeline", "parallel"][i % 3];
                let key = if kind == "parallel" { "branches" } else { "steps" };
                let mut next = json!({"kind": kind, "id": format!("n{i}")});
                next[key] = json!([s]);
                s = next;
                if i > 12 {
                    s = json!({"kind": "phase", "id": format!("p{i}"), "steps": [s]});
                }
            }
            json!({"version": "1", "name": "deep", "steps": [s]}).to_string()
        }
        2..=5 => match serde_json::from_str::<Value>(base) {
            Ok(mut v) => {
                for _ in 0..rng.random_range(1..6) {
                    replace_node(rng, &mut v, 6);
                }
                if rng.random_bool(0.3)
                    && let Some(o) = v.as_object_mut()
                {
                    o.insert(
                        "steps".into(),
                        Value::Array((0..rng.random_range(0..8)).map(|_| step(rng, 3)).collect()),
                    );
                }
                v.to_string()
            }
            Err(_) => mutate_bytes(rng, base, corpus, JSON_TOKENS),
        },
        _ => mutate_bytes(rng, base, corpus, JSON_TOKENS),
    }
}

/// Validate one file; `Err` says what went wrong.
fn validate(ctx: &Ctx, path: &Path) -> Result<(), String> {
    validate_within(ctx, path, HANG)
}

fn validate_within(ctx: &Ctx, path: &Path, hang: Duration) -> Result<(), String> {
    let out_path = path.with_extension("out");
    let err_path = path.with_extension("err");
    let out = std::fs::File::create(&out_path).map_err(|e| e.to_string())?;
    let err = std::fs::File::create(&err_path).map_err(|e| e.to_string())?;
    let mut child = ctx
        .cmd()
        .args(["validate", "--json"])
        .arg(path)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if started.elapsed() > hang {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("hang: validate ran for more than {hang:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    let _ = std::fs::remove_file(&err_path);
    let code = status.code();
    if !matches!(code, Some(0 | 2)) {
        return Err(format!("exit {code:?} (a crash?); stderr: {stderr}"));
    }
    let env: Value = serde_json::from_str(&stdout).map_err(|e| format!("stdout is not JSON ({e}): {stdout}"))?;
    match env["success"].as_bool() {
        Some(true) if env["data"]["valid"].is_boolean() => Ok(()),
        Some(false) => {
            let c = env["error"]["code"].as_str().unwrap_or("");
            if c.is_empty() || !c.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
                Err(format!("no stable error code: {stdout}"))
            } else if CRASHES.contains(&c) {
                Err(format!("the checker crashed ({c}): {stdout}"))
            } else {
                Ok(())
            }
        }
        _ => Err(format!("not a facade envelope: {stdout}")),
    }
}

/// Run the corpus, then seeded cases, on two threads; fail with every
/// failing seed (its input kept in the test dir).
fn fuzz(ext: &str, corpus_dir: &str, salt: u64, case: fn(&mut StdRng, &[String]) -> String) {
    let ctx = Ctx::new();
    let corpus = corpus(corpus_dir);
    assert!(!corpus.is_empty(), "empty corpus {corpus_dir}");
    let seconds = env_u64("HWF_FUZZ_SECONDS").unwrap_or(40);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let seeds: Vec<u64> = match env_u64("HWF_FUZZ_SEED") {
        Some(s) => vec![s],
        None => (0..env_u64("HWF_FUZZ_CASES").unwrap_or(400))
            .map(|i| 0x6877_6600_0000_0000 ^ (salt << 32) ^ i)
            .collect(),
    };
    let failures = Mutex::new(Vec::new());
    // The first validate may compile the runtime for this machine (cached
    // after that): not timed as a hang.
    let warm = ctx.write(&format!("warm.{ext}"), &corpus[0]);
    validate_within(&ctx, &warm, Duration::from_secs(600)).expect("warm-up validate");
    // The corpus itself, in full.
    for (i, text) in corpus.iter().enumerate() {
        let path = ctx.write(&format!("corpus-{i}.{ext}"), text);
        if let Err(e) = validate(&ctx, &path) {
            failures.lock().expect("lock").push(format!("corpus entry {i}: {e}"));
        }
    }
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= seeds.len() || Instant::now() > deadline {
                        break;
                    }
                    let seed = seeds[i];
                    let mut rng = StdRng::seed_from_u64(seed);
                    let text = case(&mut rng, &corpus);
                    let path = ctx.write(&format!("case-{seed:x}.{ext}"), &text);
                    match validate(&ctx, &path) {
                        Ok(()) => {
                            let _ = std::fs::remove_file(&path);
                        }
                        Err(e) => {
                            let kept = std::env::temp_dir().join(format!("hwf-fuzz-{seed:x}.{ext}"));
                            let _ = std::fs::copy(&path, &kept);
                            failures.lock().expect("lock").push(format!(
                                "HWF_FUZZ_SEED={seed} ({} bytes, kept in {}): {e}",
                                text.len(),
                                kept.display()
                            ));
                        }
                    }
                    done.fetch_add(1, Ordering::SeqCst);
                }
            });
        }
    });
    let done = done.load(Ordering::SeqCst);
    eprintln!("fuzz {ext}: {} corpus entries and {done} cases", corpus.len());
    let failures = failures.into_inner().expect("lock");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(done > 0, "no case ran before the deadline");
}

#[test]
fn js_source_checker_survives_fuzzed_scripts() {
    fuzz("js", "js", 3, js_case);
}

#[test]
fn json_workflow_checker_survives_fuzzed_definitions() {
    fuzz("workflow.json", "json", 4, json_case);
}

/// What the fuzzer found: Boa's parser (the JS runtime's engine until the
/// eighth session) trapped the JS runtime at about 60
/// nested parentheses (`guest_trap`). Nesting up to the limit validates;
/// deeper is a diagnostic with its line, also from `hwf run`.
#[test]
fn deep_nesting_is_a_diagnostic_not_a_trap() {
    let ctx = Ctx::new();
    let script = |n: usize| {
        format!(
            "export const meta = {{ name: \"deep\", description: \"d\" }};\nconst x = 1;\nreturn {}1{};\n",
            "(".repeat(n),
            ")".repeat(n)
        )
    };
    let ok = ctx.write("ok.js", script(120));
    let out = ctx.hwf(["validate", "--json", ok.to_str().expect("utf8")]);
    out.expect_code(0);
    assert_eq!(out.json()["data"]["valid"], true, "{}", out.stdout);
    let run = ctx.run_json(ok.to_str().expect("utf8"), "{}", &[]);
    run.expect_code(0);
    assert_eq!(run.json()["data"]["result"], 1);
    for n in [200, 50_000] {
        let deep = ctx.write("deep.js", script(n));
        let out = ctx.hwf(["validate", "--json", deep.to_str().expect("utf8")]);
        out.expect_code(2);
        assert_eq!(out.json()["error"]["code"], "invalid_script", "{}", out.stdout);
        let d = &out.json()["data"]["diagnostics"][0];
        assert_eq!(d["code"], "too_deeply_nested", "{}", out.stdout);
        assert_eq!(d["line"], 3, "{d}");
        let run = ctx.run_json(deep.to_str().expect("utf8"), "{}", &[]);
        run.expect_code(2);
        assert_eq!(run.json()["error"]["code"], "invalid_script", "{}", run.stdout);
    }
}
