//! Hostile components and bad input: each fails with its typed error code,
//! within 10 s, and leaves the store readable.

use crate::common::{Ctx, harnesses, hello_fixture};
use std::time::{Duration, Instant};

/// Run the hostile guest in `mode` with default limits; assert the run
/// failed with `code`, quickly, and that the store still answers.
#[track_caller]
fn hostile(mode: &str, code: &str) -> (Ctx, String) {
    hostile_with(mode, code, &[])
}

/// [`hostile`] with extra `hwf run` flags (a smaller limit, so that the
/// work before it fires stays far below the 10 s bound on a loaded machine).
#[track_caller]
fn hostile_with(mode: &str, code: &str, flags: &[&str]) -> (Ctx, String) {
    let ctx = Ctx::new();
    // A good run first, to check it stays readable.
    let fixture = hello_fixture();
    let good = ctx.run_json(harnesses::HELLO, "{}", &["--agents", fixture.to_str().expect("utf8")]);
    good.expect_code(0);
    let good_id = good.json()["data"]["run_id"].as_str().expect("id").to_owned();

    let t = Instant::now();
    let out = ctx.run_json(harnesses::HOSTILE, &format!(r#"{{"mode":"{mode}"}}"#), flags);
    let took = t.elapsed();
    out.expect_code(1);
    let v = out.json();
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(took < Duration::from_secs(10), "{mode} took {took:?}");
    let run_id = v["data"]["run_id"].as_str().expect("id").to_owned();

    // The failed run is recorded, and everything else still reads.
    let status = ctx.hwf(["status", &run_id, "--json"]);
    status.expect_code(0);
    assert_eq!(status.json()["data"]["state"], "failed");
    assert_eq!(status.json()["data"]["error"]["code"], code);
    ctx.hwf(["status", &good_id, "--json"]).expect_code(0);
    ctx.hwf(["overview", "--json"]).expect_code(0);
    (ctx, run_id)
}

/// The run's `run.json` snapshot (settings included).
fn run_json(ctx: &Ctx, id: &str) -> serde_json::Value {
    let path = ctx.state().join("runs").join(id).join("run.json");
    serde_json::from_slice(&std::fs::read(path).expect("run.json")).expect("json")
}

#[test]
fn cpu_limit() {
    // Guest CPU is metered as fuel, so the limit is the same amount of work
    // however loaded the machine is; a small one keeps the wall time short.
    let (ctx, id) = hostile_with("loop", "cpu_limit", &["--cpu-limit-ms", "500"]);
    assert_eq!(run_json(&ctx, &id)["settings"]["limits"]["cpu_ms"], 500);
}

#[test]
fn default_limits_are_recorded_with_the_run() {
    let (ctx, id) = hostile("panic", "guest_trap");
    let run = run_json(&ctx, &id);
    let l = &run["settings"]["limits"];
    assert_eq!(l["cpu_ms"], 30_000, "{l}");
    assert_eq!(l["max_calls"], 100_000, "{l}");
    assert_eq!(l["wall_ms"], 3_600_000, "{l}");
    assert_eq!(l["memory_bytes"], 256 << 20, "{l}");
}

#[test]
fn memory_limit() {
    hostile("alloc", "memory_limit");
}

#[test]
fn stack_overflow() {
    hostile("recurse", "stack_overflow");
}

#[test]
fn deep_recursion_on_the_shadow_stack_is_a_guest_trap() {
    hostile("recurse_big", "guest_trap");
}

#[test]
fn output_limit() {
    hostile("stdout", "output_limit");
}

#[test]
fn limit_calls() {
    // The count is exact; a smaller limit keeps the run short under load.
    let (ctx, id) = hostile_with("calls", "limit_calls", &["--max-calls", "5000"]);
    let s = ctx.hwf(["status", &id, "--json"]).json();
    let msg = s["data"]["error"]["message"].as_str().expect("message");
    assert!(msg.contains("5000"), "{msg}");
    // Every call up to the limit was a journaled log line, none past it.
    let logs = ctx
        .journal(&id)
        .iter()
        .filter(|e| e["type"] == "log" && e["message"] == "again")
        .count();
    assert_eq!(logs, 5000, "the 5001st call was refused, none before it");
}

#[test]
fn result_too_large() {
    hostile("big_result", "result_too_large");
}

#[test]
fn guest_panic_is_a_guest_trap_with_the_message() {
    let (ctx, id) = hostile("panic", "guest_trap");
    let status = ctx.hwf(["status", &id, "--json"]).json();
    let msg = status["data"]["error"]["message"].as_str().expect("message").to_owned();
    assert!(msg.contains("boom: the harness panicked on purpose"), "{msg}");
}

#[test]
fn guest_exit() {
    hostile("exit", "guest_exit");
}

#[test]
fn wall_clock_timeout() {
    let ctx = Ctx::new();
    let out = ctx.run_json(harnesses::HOSTILE, r#"{"mode":"loop"}"#, &["--wall-limit-ms", "300"]);
    out.expect_code(1);
    assert_eq!(out.json()["error"]["code"], "timeout");
}

/// Bad input: exit 2, one line on stderr naming the code, no run created.
#[track_caller]
fn bad_input(ctx: &Ctx, args: &[&str], code: &str) {
    let out = ctx.hwf(args);
    out.expect_code(2);
    out.expect_stderr(&format!("hwf: {code}: "));
    assert_eq!(out.stderr.trim().lines().count(), 1, "one line: {out:?}");
    let runs = std::fs::read_dir(ctx.state().join("runs"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(runs, 0, "no run is created for bad input");
}

#[test]
fn forbidden_import_filesystem() {
    let ctx = Ctx::new();
    bad_input(&ctx, &["run", harnesses::HOSTILE_FS], "forbidden_import");
    let out = ctx.hwf(["validate", harnesses::HOSTILE_FS]);
    out.expect_code(2).expect_stderr("wasi:filesystem/");
    let out = ctx.hwf(["script", "save", "fs", harnesses::HOSTILE_FS]);
    out.expect_code(2).expect_stderr("forbidden_import");
}

#[test]
fn forbidden_import_sockets() {
    let ctx = Ctx::new();
    bad_input(&ctx, &["run", harnesses::HOSTILE_SOCKETS], "forbidden_import");
    ctx.hwf(["validate", harnesses::HOSTILE_SOCKETS])
        .expect_code(2)
        .expect_stderr("wasi:sockets/");
}

#[test]
fn core_module_is_not_a_component() {
    let ctx = Ctx::new();
    // The smallest valid core module: magic + version 1.
    let p = ctx.write("core.wasm", b"\0asm\x01\0\0\0");
    bad_input(&ctx, &["run", p.to_str().expect("utf8")], "not_a_component");
}

#[test]
fn random_bytes_are_an_invalid_component() {
    let ctx = Ctx::new();
    let mut bytes = vec![0u8; 4096];
    let mut x: u32 = 0x1234_5678;
    for b in &mut bytes {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    let p = ctx.write("random.wasm", &bytes);
    bad_input(&ctx, &["run", p.to_str().expect("utf8")], "invalid_component");
}

#[test]
fn truncated_component_is_invalid() {
    let ctx = Ctx::new();
    let bytes = std::fs::read(harnesses::HELLO).expect("hello");
    let p = ctx.write("truncated.wasm", &bytes[..bytes.len() / 2]);
    bad_input(&ctx, &["run", p.to_str().expect("utf8")], "invalid_component");
}

#[test]
fn missing_file_is_not_found() {
    let ctx = Ctx::new();
    bad_input(&ctx, &["run", "nope/missing.wasm"], "not_found");
}

#[test]
fn bad_script_names_are_refused() {
    let ctx = Ctx::new();
    bad_input(&ctx, &["script", "save", "../x", harnesses::HELLO], "invalid_name");
    bad_input(&ctx, &["script", "inspect", "..x"], "invalid_name");
    bad_input(&ctx, &["status", "../../etc"], "invalid_name");
    bad_input(
        &ctx,
        &["run", harnesses::HELLO, "--run-id", "../escape"],
        "invalid_name",
    );
    assert!(!ctx.dir.path().join("x").exists());
}

#[test]
fn malformed_args_are_refused() {
    let ctx = Ctx::new();
    bad_input(&ctx, &["run", harnesses::HELLO, "--args", "{not json"], "invalid_args");
}

#[test]
fn malformed_fixture_is_refused() {
    let ctx = Ctx::new();
    let p = ctx.write("bad.json", r#"{"responses": [{"match": {}, "outptu": 1}]}"#);
    bad_input(
        &ctx,
        &["run", harnesses::HELLO, "--agents", p.to_str().expect("utf8")],
        "invalid_fixture",
    );
}

#[test]
fn malformed_config_names_the_key() {
    let ctx = Ctx::new();
    let p = ctx.write("hwf.toml", "[limits]\ncpu_msx = 5\n");
    let out = ctx.hwf(["--config", p.to_str().expect("utf8"), "overview"]);
    out.expect_code(2)
        .expect_stderr("invalid_config")
        .expect_stderr("cpu_msx");
}

#[test]
fn duplicate_run_id_is_refused() {
    let ctx = Ctx::new();
    let fixture = hello_fixture();
    let f = fixture.to_str().expect("utf8");
    ctx.hwf(["run", harnesses::HELLO, "--run-id", "same", "--agents", f])
        .expect_code(0);
    let out = ctx.hwf(["run", harnesses::HELLO, "--run-id", "same", "--agents", f]);
    out.expect_code(2).expect_stderr("already_exists");
    let s = ctx.hwf(["status", "same", "--json"]).json();
    assert_eq!(s["data"]["state"], "succeeded", "the first run is untouched");
}

#[test]
fn a_torn_journal_tail_is_ignored() {
    let ctx = Ctx::new();
    let fixture = hello_fixture();
    ctx.hwf([
        "run",
        harnesses::HELLO,
        "--run-id",
        "torn",
        "--agents",
        fixture.to_str().expect("utf8"),
    ])
    .expect_code(0);
    let journal = ctx.state().join("runs/torn/journal.jsonl");
    let mut text = std::fs::read_to_string(&journal).expect("journal");
    text.push_str(r#"{"seq":10,"type":"call_sta"#);
    std::fs::write(&journal, text).expect("write");
    let s = ctx.hwf(["status", "torn", "--json"]);
    s.expect_code(0);
    assert_eq!(s.json()["data"]["calls"].as_array().expect("calls").len(), 2);
}

#[test]
fn a_corrupt_snapshot_is_reported_and_others_still_read() {
    let ctx = Ctx::new();
    let fixture = hello_fixture();
    let f = fixture.to_str().expect("utf8");
    ctx.hwf(["run", harnesses::HELLO, "--run-id", "good", "--agents", f])
        .expect_code(0);
    ctx.hwf(["run", harnesses::HELLO, "--run-id", "bad", "--agents", f])
        .expect_code(0);
    std::fs::write(ctx.state().join("runs/bad/run.json"), "{ not json").expect("write");
    ctx.hwf(["status", "bad"]).expect_code(1).expect_stderr("corrupt_store");
    ctx.hwf(["status", "good", "--json"]).expect_code(0);
    let o = ctx.hwf(["overview", "--json"]);
    o.expect_code(0);
    assert_eq!(o.json()["data"]["runs"].as_array().expect("runs").len(), 2);
}

#[test]
fn the_state_dirs_own_config_is_read() {
    let ctx = Ctx::new();
    std::fs::create_dir_all(ctx.state()).expect("mkdir");
    std::fs::write(ctx.state().join("hwf.toml"), "[limits]\nmax_calls = 3\n").expect("write");
    let out = ctx.run_json(harnesses::HOSTILE, r#"{"mode":"calls"}"#, &[]);
    out.expect_code(1);
    assert!(
        out.json()["error"]["message"]
            .as_str()
            .expect("message")
            .contains("more than 3 host calls"),
        "{out:?}"
    );
}
