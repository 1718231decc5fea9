//! What people read around a run (issue 28): `status` and `logs` after a
//! continuation (each phase once; a replayed call shows what it took when
//! it ran, marked replayed), `logs` of a failed run (the error's message),
//! and `--help` (scripts, not only `.wasm`; examples on the main commands).

use crate::common::{Ctx, run_id, runner_once, status};

/// A JavaScript run that drafts, then asks a person, then continues.
#[test]
fn status_after_a_continuation_lists_each_phase_once_and_replayed_calls_keep_their_duration() {
    let ctx = Ctx::manual_runner();
    let s = ctx.write(
        "ask.js",
        "export const meta = { name: \"ask\", description: \"draft, then ask\", phases: [\"draft\", \"ask\"] };\n\
         phase(\"draft\");\n\
         const d = await agent(\"write a draft\", { label: \"draft\" });\n\
         phase(\"ask\");\n\
         const a = await capability(\"human.ask\", { prompt: \"ok?\" });\n\
         return { d, a: a.answer };\n",
    );
    let f = ctx.write(
        "f.json",
        r#"{"responses": [{"match": {"label": "draft"}, "output": "the draft", "delay_ms": 60}]}"#,
    );
    let out = ctx.run_json(
        s.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8")],
    );
    out.expect_code(3);
    let id = run_id(&out.json());
    ctx.hwf(["control", "decide", &id, "2", "respond", "--value", "\"yes\""])
        .expect_code(0);
    runner_once(&ctx);
    let st = status(&ctx, &id);
    assert_eq!(st["state"], "succeeded", "{st}");
    let titles: Vec<&str> = st["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .filter_map(|p| p["title"].as_str())
        .collect();
    assert_eq!(titles, ["draft", "ask"], "{st}");
    let draft = &st["calls"][0];
    assert_eq!(draft["label"], "draft");
    assert_eq!(draft["replayed"], true, "{st}");
    assert!(
        draft["duration_us"].as_u64().is_some_and(|us| us >= 60_000),
        "the original duration: {draft}"
    );
    let text = ctx.hwf(["status", &id]);
    text.expect_code(0);
    assert!(text.stdout.contains("phases: draft → ask\n"), "{}", text.stdout);
    let line = text
        .stdout
        .lines()
        .find(|l| l.starts_with("  1 ") && l.contains(" draft "))
        .expect("the draft call's line");
    assert!(line.contains("replayed") && !line.contains(" 0.0ms"), "{line}");
    // The capability call is named when it has no label.
    assert!(text.stdout.contains("human.ask"), "{}", text.stdout);
    // `logs` too shows each phase once, the continuation's start twice.
    let logs = ctx.hwf(["logs", &id]);
    logs.expect_code(0);
    let count = |what: &str| logs.stdout.lines().filter(|l| l.ends_with(what)).count();
    assert_eq!(
        (count(" phase draft"), count(" phase ask"), count(" run started")),
        (1, 1, 2),
        "{}",
        logs.stdout
    );
}

#[test]
fn logs_of_a_failed_run_print_the_error_message() {
    let ctx = Ctx::new();
    let s = ctx.write(
        "fail.js",
        "export const meta = { name: \"fail\", description: \"throws\" };\nthrow new Error(\"boom went the script\");\n",
    );
    let out = ctx.run_json(s.to_str().expect("utf8"), "{}", &[]);
    out.expect_code(1);
    let id = run_id(&out.json());
    let logs = ctx.hwf(["logs", &id]);
    logs.expect_code(0);
    assert!(
        logs.stdout
            .contains("run failed: harness_error: script_error: Error: boom went the script (line 2)"),
        "{}",
        logs.stdout
    );
}

/// A failed call's line in `status` reads its error as the journal has it
/// (`error: agent_unavailable: runner down`), with no placeholder for a
/// code the error does not carry apart.
#[test]
fn status_shows_a_failed_calls_error_as_it_is() {
    let ctx = Ctx::new();
    let s = ctx.write(
        "down.js",
        "export const meta = { name: \"down\", description: \"an agent that is down\" };\n\
         return await agent(\"x\", { label: \"bad\" });\n",
    );
    let f = ctx.write(
        "f.json",
        r#"{"responses": [{"match": {"label": "bad"}, "error": "runner down", "code": "agent_unavailable"}]}"#,
    );
    let out = ctx.run_json(
        s.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8")],
    );
    out.expect_code(0);
    let text = ctx.hwf(["status", &run_id(&out.json())]);
    text.expect_code(0);
    assert!(
        text.stdout
            .contains("\n           error: agent_unavailable: runner down\n"),
        "{}",
        text.stdout
    );
}

/// `run`, `validate` and `script save` name the script languages, and the
/// main commands end their help with examples (each parsed by the CLI in
/// `cli/src/cli/examples.rs`'s test).
#[test]
fn help_names_the_script_languages_and_shows_examples() {
    let ctx = Ctx::new();
    for cmd in [&["run"][..], &["validate"], &["script", "save"]] {
        let mut args = cmd.to_vec();
        args.push("--help");
        let out = ctx.hwf(&args);
        out.expect_code(0);
        for needle in [".js", ".py", ".json", ".wasm", "Examples:"] {
            assert!(out.stdout.contains(needle), "{cmd:?}: {needle} in {}", out.stdout);
        }
    }
    for cmd in [
        &[][..],
        &["status"],
        &["logs"],
        &["overview"],
        &["script"],
        &["control"],
        &["events"],
        &["runner"],
        &["mcp"],
        &["serve"],
    ] {
        let mut args = cmd.to_vec();
        args.push("--help");
        let out = ctx.hwf(&args);
        out.expect_code(0);
        assert!(out.stdout.contains("\nExamples:\n  hwf "), "{cmd:?}: {}", out.stdout);
    }
}
