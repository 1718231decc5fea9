//! Numbers from input never wrap, truncate or panic: every one out of its
//! range (CLI limit flags, `hwf.toml` limits and backend settings, fixture
//! fields, facade parameters) is a typed `invalid_*` error naming the field
//! and the range it accepts. One test per case, through the real binary.

use crate::common::{Ctx, harnesses, hello_fixture};
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
