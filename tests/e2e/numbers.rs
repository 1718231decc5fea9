//! Numbers from input never wrap, truncate or panic: every one out of its
//! range (CLI limit flags, `hwf.toml` limits and backend settings, fixture
//! fields, facade parameters) is a typed `invalid_*` error naming the field
//! and the range it accepts. One test per case, through the real binary.

use crate::common::{Ctx, harnesses, hello_fixture, run_id};
use serde_json::{Value, json};

/// `hwf run hello` with `extra` arguments: refused before any run exists.
#[track_caller]
fn refused_flag(extra: &[&str], code: &str, needles: &[&str]) {
    let ctx = Ctx::new();
    let fixture = hello_fixture();
    let mut args = vec!["run", harnesses::HELLO, "--agents", fixture.to_str().expect("utf8")];
    args.extend_from_slice(extra);
    let out = ctx.hwf(&args);
    out.expect_code(2).expect_stderr(&format!("hwf: {code}: "));
    for n in needles {
        out.expect_stderr(n);
    }
    assert!(
        !ctx.state().join("runs").exists() || no_runs(&ctx),
        "no run was created: {out:?}"
    );
}

fn no_runs(ctx: &Ctx) -> bool {
    std::fs::read_dir(ctx.state().join("runs")).map_or(true, |mut d| d.next().is_none())
}

/// `hwf run hello --config <toml>`: refused with `invalid_config`.
#[track_caller]
fn refused_config(toml: &str, needles: &[&str]) {
    let ctx = Ctx::new();
    let cfg = ctx.write("hwf.toml", toml);
    let fixture = hello_fixture();
    let out = ctx.hwf([
        "run",
        harnesses::HELLO,
        "--agents",
        fixture.to_str().expect("utf8"),
        "--config",
        cfg.to_str().expect("utf8"),
    ]);
    out.expect_code(2).expect_stderr("hwf: invalid_config: ");
    for n in needles {
        out.expect_stderr(n);
    }
}

/// `hwf run hello --agents <fixture>`: refused with `invalid_fixture`.
#[track_caller]
fn refused_fixture(fixture: &str, needles: &[&str]) {
    let ctx = Ctx::new();
    let f = ctx.write("fixture.json", fixture);
    let out = ctx.hwf(["run", harnesses::HELLO, "--agents", f.to_str().expect("utf8")]);
    out.expect_code(2).expect_stderr("hwf: invalid_fixture: ");
    for n in needles {
        out.expect_stderr(n);
    }
}

/// One `hwf facade workflow` call; (exit code, envelope).
fn facade(ctx: &Ctx, request: Value) -> (i32, Value) {
    let fixture = hello_fixture();
    let args = ["facade", "workflow", "--agents", fixture.to_str().expect("utf8")];
    crate::common::facade_stdin(ctx, &args, &request)
}

#[track_caller]
fn assert_invalid_params(code: i32, v: &Value, needle: &str) {
    assert_eq!(code, 2, "{v}");
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error"]["code"], "invalid_params", "{v}");
    let msg = v["error"]["message"].as_str().expect("message");
    assert!(msg.contains(needle), "{msg}");
}

// --- CLI flags ---------------------------------------------------------------

#[test]
fn memory_limit_mb_that_would_wrap_is_invalid_args() {
    // 2^44 MiB << 20 wraps to 0 bytes in a u64.
    refused_flag(
        &["--memory-limit-mb", "17592186044416"],
        "invalid_args",
        &["--memory-limit-mb = 17592186044416", "expected 1 to 4096"],
    );
}

#[test]
fn memory_limit_mb_zero_is_invalid_args() {
    refused_flag(&["--memory-limit-mb", "0"], "invalid_args", &["expected 1 to 4096"]);
}

#[test]
fn cpu_limit_ms_out_of_range_is_invalid_args() {
    refused_flag(
        &["--cpu-limit-ms", "18446744073709551615"],
        "invalid_args",
        &["--cpu-limit-ms", "expected 1 to 86400000"],
    );
}

#[test]
fn wall_limit_ms_zero_is_invalid_args() {
    refused_flag(&["--wall-limit-ms", "0"], "invalid_args", &["--wall-limit-ms = 0"]);
}

#[test]
fn max_calls_out_of_range_is_invalid_args() {
    refused_flag(
        &["--max-calls", "0"],
        "invalid_args",
        &["--max-calls = 0", "expected 1 to"],
    );
}

#[test]
fn max_tokens_out_of_range_is_invalid_args() {
    refused_flag(
        &["--max-tokens", "18446744073709551615"],
        "invalid_args",
        &["--max-tokens", "expected 0 to"],
    );
}

#[test]
fn max_parallel_out_of_range_is_invalid_args() {
    refused_flag(
        &["--max-parallel", "0"],
        "invalid_args",
        &["--max-parallel = 0", "expected 1 to 64"],
    );
}

#[test]
fn a_flag_beyond_u64_is_invalid_args() {
    // The flag parser refuses it (it must not wrap), with hwf's code.
    let ctx = Ctx::new();
    let out = ctx.hwf(["run", harnesses::HELLO, "--max-agent-calls", "18446744073709551616"]);
    out.expect_code(2)
        .expect_stderr("hwf: invalid_args: ")
        .expect_stderr("--max-agent-calls");
    let out = ctx.hwf(["run", harnesses::HELLO, "--json", "--memory-limit-mb", "-1"]);
    out.expect_code(2);
    assert_eq!(out.json()["error"]["code"], "invalid_args", "{out:?}");
    // --help is still help.
    ctx.hwf(["run", "--help"]).expect_code(0);
}

// --- hwf.toml ----------------------------------------------------------------

#[test]
fn max_schema_retries_u32_max_is_invalid_config() {
    refused_config(
        "[limits]\nmax_schema_retries = 4294967295\n",
        &["limits.max_schema_retries = 4294967295", "expected 0 to 100"],
    );
}

#[test]
fn memory_bytes_over_4_gib_is_invalid_config() {
    refused_config(
        "[limits]\nmemory_bytes = 9223372036854775807\n",
        &["limits.memory_bytes", "expected 1048576 to 4294967296"],
    );
}

#[test]
fn max_parallel_in_config_out_of_range_is_invalid_config() {
    refused_config(
        "[limits]\nmax_parallel = 1000\n",
        &["limits.max_parallel = 1000", "expected 1 to 64"],
    );
}

#[test]
fn policy_result_bytes_out_of_range_is_invalid_config() {
    refused_config(
        "[policy]\nmax_result_bytes = 0\n",
        &["policy.max_result_bytes = 0", "expected 1 to 1073741824"],
    );
}

#[test]
fn negative_limit_is_invalid_config() {
    refused_config("[limits]\ncpu_ms = -1\n", &["cpu_ms"]);
}

#[test]
fn command_backend_timeout_zero_is_invalid_config() {
    refused_config(
        "[agents.backends.cli]\nkind = \"command\"\nargv = [\"true\"]\ntimeout_ms = 0\n",
        &["agents.backends.cli: timeout_ms = 0", "expected 1 to 86400000"],
    );
}

#[test]
fn openai_backend_retries_out_of_range_is_invalid_config() {
    refused_config(
        "[agents.backends.api]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\nmax_retries = 4294967295\n",
        &["agents.backends.api: max_retries = 4294967295", "expected 0 to 100"],
    );
}

#[test]
fn openai_backend_timeout_out_of_range_is_invalid_config() {
    refused_config(
        "[agents.backends.api]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\ntimeout_ms = 9223372036854775807\n",
        &["agents.backends.api: timeout_ms", "expected 1 to 86400000"],
    );
}

// --- fixture files -------------------------------------------------------------

#[test]
fn fixture_delay_near_u64_max_is_invalid_fixture() {
    refused_fixture(
        r#"{"responses": [{"match": {"agent": "hermes.greeter"}, "output": {"greeting": "hi"}, "delay_ms": 18446744073709551615}]}"#,
        &["responses[0].delay_ms = 18446744073709551615", "expected 0 to 86400000"],
    );
}

#[test]
fn fixture_sequence_delay_out_of_range_is_invalid_fixture() {
    refused_fixture(
        r#"{"responses": [{"sequence": [{"output": 1}, {"output": 2, "delay_ms": 18446744073709551000}]}]}"#,
        &["responses[0].sequence[1].delay_ms"],
    );
}

#[test]
fn fixture_tokens_out_of_range_is_invalid_fixture() {
    refused_fixture(
        r#"{"responses": [{"output": 1, "tokens": 18446744073709551615}]}"#,
        &["responses[0].tokens", "expected 0 to"],
    );
}

#[test]
fn fixture_reported_tokens_out_of_range_is_invalid_fixture() {
    refused_fixture(
        r#"{"responses": [{"output": {"greeting": "hi", "_tokens": 18446744073709551615}}]}"#,
        &["responses[0].output._tokens", "expected 0 to"],
    );
}

// --- facade parameters ---------------------------------------------------------------

#[test]
fn script_version_beyond_u32_is_invalid_params_not_version_1() {
    let ctx = Ctx::new();
    ctx.hwf(["script", "save", "hello", harnesses::HELLO]).expect_code(0);
    // 4294967297 as u32 is 1: it must not run version 1.
    let (code, v) = facade(
        &ctx,
        json!({"action": "run_script", "script_name": "hello", "script_version": 4_294_967_297u64, "script_args": {}}),
    );
    assert_invalid_params(
        code,
        &v,
        "\"script_version\" = 4294967297 is out of range: expected 1 to 4294967295",
    );
    assert!(no_runs(&ctx), "nothing ran");
    let (code, v) = facade(
        &ctx,
        json!({"action": "run_script", "script_name": "hello", "script_version": 1}),
    );
    assert_eq!((code, &v["success"]), (0, &json!(true)), "version 1 still runs: {v}");
}

#[test]
fn script_inspect_version_beyond_u32_is_invalid_params() {
    let ctx = Ctx::new();
    ctx.hwf(["script", "save", "hello", harnesses::HELLO]).expect_code(0);
    let (code, v) = facade(
        &ctx,
        json!({"action": "script_inspect", "script_name": "hello", "script_version": 4_294_967_297u64}),
    );
    assert_invalid_params(code, &v, "\"script_version\" = 4294967297");
}

#[test]
fn facade_max_parallel_out_of_range_is_invalid_params() {
    let ctx = Ctx::new();
    let (code, v) = facade(
        &ctx,
        json!({"action": "run_script", "script_path": harnesses::HELLO, "max_parallel": 65}),
    );
    assert_invalid_params(code, &v, "\"max_parallel\" = 65 is out of range: expected 1 to 64");
}

/// Floats keep every bit on the way through (issue 28): args, an agent's
/// output, the script's own literal, the result on disk and in status
/// (serde_json parses with `float_roundtrip`; without it
/// `118.33333333333333` came back as `118.33333333333331`).
#[test]
fn floats_round_trip_through_args_agents_and_results() {
    let ctx = Ctx::new();
    ctx.write(
        "floats.js",
        "export const meta = { name: \"floats\", description: \"passes floats through\" };\n\
         const a = await agent(\"give a number\", { label: \"n\" });\n\
         return { arg: args.x, agent: a.v, literal: 118.33333333333333, tiny: args.tiny, sum: args.x + 0 };\n",
    );
    let fixture = ctx.write(
        "agents.json",
        r#"{"responses": [{"match": {"label": "n"}, "output": {"v": 0.30000000000000004}}]}"#,
    );
    let out = ctx.hwf([
        "run",
        "floats.js",
        "--json",
        "--agents",
        fixture.to_str().expect("utf8"),
        "--args",
        r#"{"x": 118.33333333333333, "tiny": 5e-324}"#,
    ]);
    out.expect_code(0);
    let want = json!({"arg": 118.33333333333333, "agent": 0.30000000000000004, "literal": 118.33333333333333,
        "tiny": 5e-324, "sum": 118.33333333333333});
    assert_eq!(out.json()["data"]["result"], want, "{}", out.stdout);
    assert!(out.stdout.contains("118.33333333333333"), "{}", out.stdout);
    let id = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let s = crate::common::status(&ctx, &id);
    assert_eq!(s["result"], want);
}

/// The same through a Python script (the seed's syntax): its args, its
/// own literal and arithmetic.
#[test]
fn floats_round_trip_through_a_python_script() {
    let ctx = Ctx::new();
    ctx.write(
        "floats.py",
        "meta = {\"name\": \"floats\", \"description\": \"passes floats through\"}\nreturn {\"arg\": args[\"x\"], \"literal\": 118.33333333333333, \"third\": 355 / 3}\n",
    );
    let out = ctx.hwf(["run", "floats.py", "--json", "--args", r#"{"x": 118.33333333333333}"#]);
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!({"arg": 118.33333333333333, "literal": 118.33333333333333, "third": 118.33333333333333}),
        "{}",
        out.stdout
    );
}

/// The numbers of issue 28's acceptance: a float that a lossy parse moves
/// by one ulp, integers past 2^64 (2^70, -(2^80), 10^30) and u64::MAX, and a
/// boolean whose key names a secret.
const NUMBERS: &str = r#"{"f": 118.33333333333333, "p70": 1180591620717411303424, "n80": -1208925819614629174706176, "t30": 1000000000000000000000000000000, "u64": 18446744073709551615, "hasSecret": false}"#;

/// `NUMBERS` as the fixture agent's answer to the call labelled `n` (or to
/// `hermes.numbers` given the exact integers in its input).
fn numbers_fixture(ctx: &Ctx) -> std::path::PathBuf {
    ctx.write(
        "numbers.json",
        format!(
            r#"{{"responses": [
                {{"match": {{"label": "n"}}, "output": {NUMBERS}}},
                {{"match": {{"agent": "hermes.numbers", "input.p70": 1180591620717411303424, "input.t30": 1000000000000000000000000000000}}, "output": {NUMBERS}}}
            ]}}"#
        ),
    )
}

/// Runs `file` with `NUMBERS` as args and the numbers fixture; the result's
/// JSON text as printed (exit 0 asserted) and the run id.
fn run_numbers(ctx: &Ctx, file: &str) -> (Value, String, String) {
    let fixture = numbers_fixture(ctx);
    let out = ctx.hwf([
        "run",
        file,
        "--json",
        "--agents",
        fixture.to_str().expect("utf8"),
        "--args",
        NUMBERS,
    ]);
    out.expect_code(0);
    let v = out.json();
    let id = v["data"]["run_id"].as_str().expect("id").to_owned();
    (v["data"]["result"].clone(), out.stdout.clone(), id)
}

/// The digits every exact runtime must print.
const DIGITS: &[&str] = &[
    "118.33333333333333",
    "1180591620717411303424",
    "-1208925819614629174706176",
    "1000000000000000000000000000000",
    "18446744073709551615",
];

#[track_caller]
fn assert_exact(result: &Value, whole: &Value, stdout: &str, ctx: &Ctx, id: &str) {
    let numbers: Value = serde_json::from_str(NUMBERS).expect("numbers");
    for (k, v) in numbers.as_object().expect("object") {
        assert_eq!(&result[k], v, "{k}: {stdout}");
    }
    for d in DIGITS {
        assert!(stdout.contains(d), "{d} in {stdout}");
    }
    // What status shows and the state dir keeps is the same.
    let s = crate::common::status(ctx, id);
    assert_eq!(&s["result"], whole);
    assert!(s["result"].to_string().contains("1180591620717411303424"));
}

/// Issue 28's acceptance in Python: args, an agent's output and the
/// script's own big-int arithmetic come back digit for digit; `hasSecret:
/// false` is not redacted; CPython agrees on the arithmetic.
#[test]
fn big_ints_floats_and_secret_named_booleans_round_trip_in_python() {
    let ctx = Ctx::new();
    ctx.write(
        "numbers.py",
        "meta = {\"name\": \"numbers\", \"description\": \"passes numbers through\"}\n\
         out = await agent(\"give numbers\", label=\"n\")\n\
         return {\"f\": args[\"f\"], \"p70\": args[\"p70\"], \"n80\": args[\"n80\"], \"t30\": args[\"t30\"],\n\
                 \"u64\": args[\"u64\"], \"hasSecret\": args[\"hasSecret\"], \"agent\": out,\n\
                 \"computed\": [2**70, -(2**80), 10**30, args[\"p70\"] * 2 + 1, out[\"t30\"] // 7, isinstance(args[\"p70\"], int)]}\n",
    );
    let (result, stdout, id) = run_numbers(&ctx, "numbers.py");
    assert_exact(&result, &result, &stdout, &ctx, &id);
    let numbers: Value = serde_json::from_str(NUMBERS).expect("numbers");
    assert_eq!(result["agent"], numbers, "{stdout}");
    let computed: Value = serde_json::from_str(
        "[1180591620717411303424, -1208925819614629174706176, 1000000000000000000000000000000, \
         2361183241434822606849, 142857142857142857142857142857, true]",
    )
    .expect("computed");
    assert_eq!(result["computed"], computed, "{stdout}");
    let cpython = crate::common::reference_json(
        "python3",
        &[
            "-c",
            "import json; print(json.dumps([2**70, -(2**80), 10**30, 2**70 * 2 + 1, 10**30 // 7, True]))",
        ],
    );
    assert_eq!(result["computed"], cpython, "CPython agrees");
}

/// The same through a JSON workflow: the args reach the agent's input
/// exactly (the fixture matches only the exact integers), its output is
/// the result.
#[test]
fn big_ints_floats_and_secret_named_booleans_round_trip_in_json() {
    let ctx = Ctx::new();
    ctx.write(
        "numbers.workflow.json",
        r#"{"version": "1", "name": "numbers",
            "inputs": {"f": "number", "p70": "integer", "n80": "integer", "t30": "integer", "u64": "integer", "hasSecret": "boolean"},
            "policy": {"network": false, "filesystem": false},
            "steps": [{"kind": "agent", "id": "echo", "agent": "hermes.numbers",
                       "input": {"f": "$ref:inputs.f", "p70": "$ref:inputs.p70", "n80": "$ref:inputs.n80", "t30": "$ref:inputs.t30",
                                 "u64": "$ref:inputs.u64", "hasSecret": "$ref:inputs.hasSecret"},
                       "output_schema": {"f": "number", "p70": "integer", "n80": "integer", "t30": "integer", "u64": "integer", "hasSecret": "boolean"}}]}"#,
    );
    let (result, stdout, id) = run_numbers(&ctx, "numbers.workflow.json");
    assert_exact(&result["last"], &result, &stdout, &ctx, &id);
    let journal = ctx.journal(&id).iter().map(Value::to_string).collect::<String>();
    for d in DIGITS {
        assert!(journal.contains(d), "{d} in the journal's request and result");
    }
}

/// JavaScript has no integers past 2^53 in JSON: as in Node (Claude Code's
/// runtime), `JSON.parse` gives the nearest double, which is what the
/// result carries (2^70 is a double exactly; 10^30 becomes 1e30). Floats
/// keep every bit and `hasSecret: false` stays false.
#[test]
fn big_ints_in_javascript_are_the_doubles_node_reads() {
    let ctx = Ctx::new();
    ctx.write(
        "numbers.js",
        "export const meta = { name: \"numbers\", description: \"passes numbers through\" };\n\
         const out = await agent(\"give numbers\", { label: \"n\" });\n\
         return { ...args, agent: out, same: out.p70 === args.p70 && out.t30 === 1e30 };\n",
    );
    let (result, stdout, _) = run_numbers(&ctx, "numbers.js");
    for r in [&result, &result["agent"]] {
        assert_eq!(r["f"].as_f64(), Some(118.333_333_333_333_33), "{stdout}");
        assert_eq!(r["p70"].as_f64(), Some(2f64.powi(70)), "{stdout}");
        assert_eq!(r["n80"].as_f64(), Some(-(2f64.powi(80))), "{stdout}");
        assert_eq!(r["t30"].as_f64(), Some(1e30), "{stdout}");
        assert_eq!(r["u64"].as_f64(), Some(18_446_744_073_709_551_615_f64), "{stdout}");
        assert_eq!(r["hasSecret"], json!(false), "{stdout}");
    }
    assert_eq!(result["same"], json!(true));
    assert!(stdout.contains("118.33333333333333"), "{stdout}");
}

/// Words under keys that name a credential only in one sense — a bug
/// hunt's findings by module `auth`, a lexer's `token`, a review's
/// `secret` dimension, significant digits `sig`, `first_pass`,
/// `next_token` — as args, as an agent's output and in the result and log
/// lines, in JavaScript, Python and a JSON workflow, come back as written
/// (issue 28: redaction by key name replaced them); a credential-shaped
/// value under the same keys is still redacted everywhere.
#[test]
fn words_under_secret_like_keys_round_trip_in_every_runtime() {
    const WORDS: &str = r#"{"auth": ["login bug", "session fixation"], "token": "IDENT", "secret": "none", "sig": "20", "first_pass": ["a.py"], "next_token": "page2", "summary": {"auth": "green", "cookie": "accepted"}}"#;
    const SHAPED: &str = "s3cr3t-V4lue-9931";
    let ctx = Ctx::new();
    let fixture = ctx.write(
        "words.json",
        format!(
            r#"{{"responses": [
                {{"match": {{"label": "w"}}, "output": {WORDS}}},
                {{"match": {{"agent": "hermes.words"}}, "output": {WORDS}}},
                {{"match": {{"label": "s"}}, "output": {{"secret": "{SHAPED}", "auth": {{"pass": "{SHAPED}"}}}}}}
            ]}}"#
        ),
    );
    ctx.write(
        "words.js",
        "export const meta = { name: \"words\", description: \"passes words through\" };\n\
         const out = await agent(\"give words\", { label: \"w\" });\n\
         const s = await agent(\"give a secret\", { label: \"s\" });\n\
         log(`auth: ${out.auth.length} findings, token: ${out.token}`);\n\
         return { args, agent: out, shaped: s };\n",
    );
    ctx.write(
        "words.py",
        "meta = {\"name\": \"words\", \"description\": \"passes words through\"}\n\
         out = await agent(\"give words\", label=\"w\")\n\
         s = await agent(\"give a secret\", label=\"s\")\n\
         log(f\"auth: {len(out['auth'])} findings, token: {out['token']}\")\n\
         return {\"args\": args, \"agent\": out, \"shaped\": s}\n",
    );
    ctx.write(
        "words.workflow.json",
        r#"{"version": "1", "name": "words", "inputs": {"auth": "array", "token": "string"},
            "policy": {"network": false, "filesystem": false},
            "steps": [{"kind": "agent", "id": "echo", "agent": "hermes.words",
                       "input": {"auth": "$ref:inputs.auth", "token": "$ref:inputs.token"}}]}"#,
    );
    let words: Value = serde_json::from_str(WORDS).expect("words");
    for file in ["words.js", "words.py", "words.workflow.json"] {
        let out = ctx.run_json(file, WORDS, &["--agents", fixture.to_str().expect("utf8")]);
        out.expect_code(0);
        let v = out.json();
        let result = &v["data"]["result"];
        let id = v["data"]["run_id"].as_str().expect("id").to_owned();
        if file.ends_with(".json") {
            assert_eq!(result["last"], words, "{file}: {}", out.stdout);
        } else {
            assert_eq!(result["args"], words, "{file}: {}", out.stdout);
            assert_eq!(result["agent"], words, "{file}: {}", out.stdout);
            assert_eq!(
                result["shaped"],
                json!({"secret": "[REDACTED]", "auth": {"pass": "[REDACTED]"}}),
                "{file}: {}",
                out.stdout
            );
            let logs: Vec<Value> = ctx
                .journal(&id)
                .into_iter()
                .filter(|e| e["type"] == "log" && e["source"] == "guest")
                .map(|e| e["message"].clone())
                .collect();
            assert_eq!(logs, vec![json!("auth: 2 findings, token: IDENT")], "{file}");
        }
        let s = crate::common::status(&ctx, &id);
        assert_eq!(&s["result"], result, "{file}: status shows what run printed");
        assert!(
            !ctx.all_state_text().contains(SHAPED),
            "{file}: a credential-shaped value under a secret-like key is stored"
        );
    }
}

/// An agent answer holding a number past the float range (`1e400`, the
/// seed's Python reads it as `inf`) checked against a schema: the run ends
/// with its result or a typed failure, never a panic of the host (jsonschema
/// panicked type-checking or comparing such a number; red team 6). Each
/// runtime's schema path: a JSON step's `output_schema` (an `integer` and an
/// `enum` holding `1e400`), JavaScript's and Python's `schema`.
#[test]
fn an_answer_past_the_float_range_meets_a_schema_without_a_panic() {
    let ctx = Ctx::new();
    let fixture = ctx.write("inf.fixture.json", r#"{"responses": [{"output": {"n": 1e400}}]}"#);
    let fixture = fixture.to_str().expect("utf8");
    let json_step = |schema: &str| {
        format!(
            r#"{{"version": "1", "name": "inf", "policy": {{"network": false}},
                "steps": [{{"kind": "agent", "id": "a", "agent": "hermes.nums", "output_schema": {schema}}}]}}"#
        )
    };
    let scripts = [
        ("int.workflow.json", json_step(r#"{"n": "int"}"#)),
        ("enum.workflow.json", json_step(r#"{"type": "object", "properties": {"n": {"enum": [1e400, 5]}}}"#)),
        ("num.workflow.json", json_step(r#"{"n": "number"}"#)),
        (
            "int.js",
            "export const meta = {name: \"inf\", description: \"d\"};\n\
             return await agent(\"give n\", {schema: {type: \"object\", properties: {n: {type: \"integer\"}}}});\n"
                .to_owned(),
        ),
        (
            "num.js",
            "export const meta = {name: \"inf\", description: \"d\"};\n\
             const r = await agent(\"give n\", {schema: {type: \"object\", properties: {n: {type: \"number\"}}}});\n\
             return r.n === Infinity;\n"
                .to_owned(),
        ),
        (
            "int.py",
            "meta = {\"name\": \"inf\", \"description\": \"d\"}\n\
             return await agent(\"give n\", schema={\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\"}}})\n"
                .to_owned(),
        ),
    ];
    for (name, body) in scripts {
        let path = ctx.write(name, &body);
        let out = ctx.run_json(path.to_str().expect("utf8"), "{}", &["--agents", fixture]);
        assert!(!out.stderr.contains("panicked"), "{name}: {out:?}");
        assert!(out.code == 0 || out.code == 1, "{name}: {out:?}");
        let v = out.json();
        let state = &v["data"]["state"];
        assert!(state == "succeeded" || state == "failed", "{name}: {v}");
        if name.starts_with("num") || name.starts_with("enum") {
            assert_eq!(v["success"], true, "{name}: {v}");
        }
        if name == "num.js" {
            assert_eq!(v["data"]["result"], true, "{name}: {v}");
        }
    }
}

/// A boolean, null or number under a credential's name is no credential
/// inside text either: JSON text a script builds and returns or logs, a
/// Python repr in a log line, and an agent's answer holding JSON text come
/// back as written (red team 8: `{"password":false}` came back
/// `{"password":[REDACTED]}`, no longer JSON); a credential-shaped value
/// under the same names is still redacted.
#[test]
fn literals_under_secret_names_inside_text_round_trip_in_every_runtime() {
    const TEXT: &str = r#"{"password":false,"api_key":null,"client_secret":0}"#;
    let ctx = Ctx::new();
    let answer = serde_json::to_string(&json!({"summary": TEXT, "leak": "password: s3cr3t-V4lue-9931"})).expect("json");
    let fixture = ctx.write(
        "text.json",
        format!(r#"{{"responses": [{{"match": {{}}, "output": {answer}}}]}}"#),
    );
    let f = fixture.to_str().expect("utf8");
    ctx.write(
        "text.js",
        "export const meta = { name: \"text\", description: \"literals in text\" };\n\
         const text = JSON.stringify({ password: false, api_key: null, client_secret: 0 });\n\
         log(text);\n\
         const out = await agent(\"give text\", { label: \"t\", schema: { type: \"object\" } });\n\
         return { text, summary: out.summary, leak: out.leak };\n",
    );
    ctx.write(
        "text.py",
        "meta = {\"name\": \"text\", \"description\": \"literals in text\"}\n\
         res = {\"password\": False, \"api_key\": None, \"client_secret\": 0}\n\
         log(f\"result: {res}\")\n\
         out = await agent(\"give text\", label=\"t\", schema={\"summary\": \"str\", \"leak\": \"str\"})\n\
         return {\"text\": json.dumps(res, separators=(\",\", \":\")), \"summary\": out[\"summary\"], \"leak\": out[\"leak\"]}\n",
    );
    for script in ["text.js", "text.py"] {
        let out = ctx.hwf(["run", script, "--json", "--agents", f]);
        out.expect_code(0);
        let result = &out.json()["data"]["result"];
        assert_eq!(result["text"], TEXT, "{script}: {}", out.stdout);
        assert_eq!(result["summary"], TEXT, "{script}: {}", out.stdout);
        assert_eq!(result["leak"], "password: [REDACTED]", "{script}: {}", out.stdout);
        let id = run_id(&out.json());
        let logged: Vec<String> = ctx
            .journal(&id)
            .iter()
            .filter(|e| e["type"] == "log" && e["source"] == "guest")
            .filter_map(|e| e["message"].as_str().map(str::to_owned))
            .collect();
        let want = if script == "text.js" {
            TEXT.to_owned()
        } else {
            "result: {'password': False, 'api_key': None, 'client_secret': 0}".to_owned()
        };
        assert_eq!(logged, [want], "{script}");
    }
    ctx.write(
        "text.workflow.json",
        r#"{"version": "1", "name": "text", "policy": {"network": false, "filesystem": false},
            "steps": [{"kind": "agent", "id": "t", "agent": "hermes.text", "input": {},
                       "output_schema": {"summary": "string", "leak": "string"}}]}"#,
    );
    let out = ctx.hwf(["run", "text.workflow.json", "--json", "--agents", f]);
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"]["last"]["summary"], TEXT, "{}", out.stdout);
}
