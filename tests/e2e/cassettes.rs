//! Journals as tests, plans and forks (issue 30), through the binary:
//! `hwf test` from a run id and from an exported cassette (the same
//! result with no backend; one drift naming the one changed call), bad
//! cassettes by code, `hwf run --resume-from … --plan` (and the facade's
//! `plan: true`) creating no run, `hwf replay-check`, and `hwf fork --at …
//! --output`.

use crate::common::{Ctx, facade_stdin, run_id, runner_once, status};
use serde_json::{Value, json};

/// A Claude Code-style JS workflow: a `parallel` of three reviewers, a
/// question to a person, then a summary agent over everything. `speed`
/// is the prompt of the second reviewer.
fn triage(speed: &str) -> String {
    format!(
        "export const meta = {{ name: \"triage\", description: \"three reviews, a question, a summary\", phases: [\"review\", \"ask\", \"summary\"] }};\n\
         phase(\"review\");\n\
         const prompts = {{ security: \"Review the change for security holes.\", speed: \"{speed}\", style: \"Review the change for style.\" }};\n\
         const reviews = await parallel(Object.keys(prompts).map((t) => () => agent(prompts[t], {{ label: `review:${{t}}` }})));\n\
         phase(\"ask\");\n\
         const a = await capability(\"human.ask\", {{ prompt: \"ship it?\" }});\n\
         phase(\"summary\");\n\
         const summary = await agent(`Summarize for the team: ${{JSON.stringify(reviews)}}; decision: ${{a.answer}}`, {{ label: \"summary\" }});\n\
         return {{ reviews, decision: a.answer, summary }};\n"
    )
}

const SPEED: &str = "Review the change for speed.";

const FIXTURE: &str = r#"{"responses": [
  {"match": {"label": "review:security"}, "output": "no holes", "tokens": 120, "usage": {"input": 100, "output": 20}},
  {"match": {"label": "review:speed"}, "output": "2% slower", "tokens": 90, "delay_ms": 20},
  {"match": {"label": "review:style"}, "output": "fine", "tokens": 60},
  {"match": {"label": "summary"}, "output": "ship it: no holes, a bit slower, fine style", "tokens": 200}
]}"#;

/// Record the triage run: it parks on the question, a person answers,
/// the runner finishes it. Its id and its status.
fn recorded(ctx: &Ctx) -> (String, Value) {
    let script = ctx.write("triage.js", triage(SPEED));
    let f = ctx.write("f.json", FIXTURE);
    let out = ctx.run_json(
        script.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8")],
    );
    out.expect_code(3);
    let id = run_id(&out.json());
    ctx.hwf(["control", "decide", &id, "4", "respond", "--value", "\"yes\""])
        .expect_code(0);
    runner_once(ctx);
    let st = status(ctx, &id);
    assert_eq!(st["state"], "succeeded", "{st}");
    (id, st)
}

#[test]
fn hwf_test_replays_a_recorded_run_with_no_backend_and_names_the_one_changed_call() {
    let ctx = Ctx::manual_runner();
    let (id, st) = recorded(&ctx);
    let before = ctx.run_ids();
    let script = ctx.path("triage.js");

    // The same script from its run id: the same result, every call replayed.
    let t = ctx.hwf(["test", script.to_str().expect("utf8"), "--cassette", &id, "--json"]);
    t.expect_code(0);
    let r = t.json();
    assert_eq!(r["success"], true, "{r}");
    let d = &r["data"];
    assert_eq!(d["passed"], true, "{d}");
    assert_eq!(d["result"], st["result"], "{d}");
    assert_eq!(d["result_matches"], true);
    assert_eq!((d["calls"].as_u64(), d["replayed"].as_u64()), (Some(5), Some(5)), "{d}");
    assert_eq!(d["drifts"], json!([]));
    assert_eq!(ctx.run_ids(), before, "a test stores no run");

    // One prompt of the three changed: exactly one drift, naming it.
    let changed = ctx.write("changed.js", triage("Review the change for speed, with numbers."));
    let t = ctx.hwf(["test", changed.to_str().expect("utf8"), "--cassette", &id, "--json"]);
    t.expect_code(1);
    let r = t.json();
    assert_eq!(r["error"]["code"], "cassette_drift", "{r}");
    let drifts = r["data"]["drifts"].as_array().expect("drifts");
    assert_eq!(drifts.len(), 1, "{r}");
    assert_eq!(drifts[0]["label"], "review:speed", "{r}");
    assert_eq!(drifts[0]["reason"], "changed");
    assert_eq!(drifts[0]["recorded"], drifts[0]["call"], "compared with the same call");
    let diff = &drifts[0]["diff"];
    assert_eq!(diff[0]["path"], "/prompt", "{diff}");
    assert_eq!(diff[0]["now"], "Review the change for speed, with numbers.");
    assert!(
        r["error"]["message"]
            .as_str()
            .expect("message")
            .contains("review:speed"),
        "{r}"
    );
    assert_eq!(r["data"]["replayed"], 4, "the summary still replays: {r}");
    assert_eq!(ctx.run_ids(), before);

    // A call added before the others moves every id: the rest still
    // replay, matched by content; only the new call is a drift.
    let moved = ctx.write(
        "moved.js",
        triage(SPEED).replace(
            "phase(\"review\");\n",
            "phase(\"review\");\nawait agent(\"Say hi.\", { label: \"intro\" });\n",
        ),
    );
    let t = ctx.hwf(["test", moved.to_str().expect("utf8"), "--cassette", &id, "--json"]);
    t.expect_code(1);
    let r = t.json();
    assert_eq!(r["data"]["drifts"].as_array().map(Vec::len), Some(1), "{r}");
    assert_eq!(r["data"]["drifts"][0]["label"], "intro", "{r}");
    assert_eq!(r["data"]["replayed"], 5, "{r}");

    // The text form: one drift line with the field, exit 1.
    let t = ctx.hwf(["test", changed.to_str().expect("utf8"), "--cassette", &id]);
    t.expect_code(1);
    assert_eq!(t.stderr.matches("cassette_drift").count(), 1, "{}", t.stderr);
    assert!(
        t.stderr.contains("\"review:speed\"") && t.stderr.contains("/prompt"),
        "{}",
        t.stderr
    );
}

#[test]
fn an_exported_cassette_tests_the_script_and_bad_cassettes_are_typed_errors() {
    let ctx = Ctx::manual_runner();
    let (id, st) = recorded(&ctx);
    let script = ctx.path("triage.js");
    let file = ctx.path("triage.cassette.json");
    ctx.hwf(["cassette", "export", &id, "--output", file.to_str().expect("utf8")])
        .expect_code(0);
    let text = std::fs::read_to_string(&file).expect("cassette");
    let c: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(c["kind"], "hwf-cassette");
    assert!(c["id"].as_str().is_some_and(|i| i.starts_with("b3:")), "{c}");
    assert_eq!(c["calls"].as_array().map(Vec::len), Some(5));
    // The same on stdout.
    let out = ctx.hwf(["cassette", "export", &id]);
    out.expect_code(0);
    assert_eq!(out.stdout.trim(), text.trim());

    let t = ctx.hwf([
        "test",
        script.to_str().expect("utf8"),
        "--cassette",
        file.to_str().expect("utf8"),
        "--json",
    ]);
    t.expect_code(0);
    assert_eq!(t.json()["data"]["result"], st["result"]);

    // Malformed JSON, a damaged payload, a missing run, another workflow.
    let bad = ctx.write("bad.json", "{\"kind\": \"hwf-cassette\", ");
    let damaged = ctx.write("damaged.json", text.replacen("no holes", "no bugs", 1));
    let other = ctx.write(
        "other.js",
        "export const meta = { name: \"other\", description: \"x\" };\nreturn await agent(\"hi\", { label: \"x\" });\n",
    );
    for (target, cassette, code) in [
        (&script, bad.to_str().expect("utf8"), "invalid_cassette"),
        (&script, damaged.to_str().expect("utf8"), "invalid_cassette"),
        (&script, "r0000000000000000000000000000", "not_found"),
        (&script, "missing.json", "not_found"),
        (&other, file.to_str().expect("utf8"), "cassette_mismatch"),
    ] {
        let t = ctx.hwf(["test", target.to_str().expect("utf8"), "--cassette", cassette, "--json"]);
        t.expect_code(2);
        assert_eq!(t.json()["error"]["code"], code, "{cassette}: {t:?}");
    }
    assert_eq!(
        ctx.hwf(["cassette", "export", "nosuchrun", "--json"]).json()["error"]["code"],
        "not_found"
    );

    // --update: the drifted call re-recorded live, the file rewritten, and
    // the changed script then passes against it.
    let changed = ctx.write("changed.js", triage("Review the change for speed, with numbers."));
    let f = ctx.path("f.json");
    let (c, fl) = (changed.to_str().expect("utf8"), file.to_str().expect("utf8"));
    let u = ctx.hwf([
        "test",
        c,
        "--cassette",
        fl,
        "--update",
        "--agents",
        f.to_str().expect("utf8"),
        "--json",
    ]);
    u.expect_code(0);
    let d = u.json()["data"].clone();
    assert_eq!(d["rerecorded"], json!(["2"]), "{d}");
    assert_eq!(d["state"], "succeeded", "{d}");
    let fresh = status(&ctx, d["run_id"].as_str().expect("run id"));
    assert_eq!(fresh["counts"]["replayed"], 4, "only the drifted call ran: {fresh}");
    ctx.hwf(["test", c, "--cassette", fl, "--json"]).expect_code(0);
}

#[test]
fn a_plan_reports_replayed_and_live_calls_and_creates_no_run() {
    let ctx = Ctx::manual_runner();
    let (id, _) = recorded(&ctx);
    let before = ctx.run_ids();
    let changed = ctx.write("changed.js", triage("Review the change for speed, with numbers."));
    let out = ctx.hwf([
        "run",
        changed.to_str().expect("utf8"),
        "--resume-from",
        &id,
        "--plan",
        "--json",
    ]);
    out.expect_code(0);
    let p = &out.json()["data"];
    assert_eq!((p["replayed"].as_u64(), p["live"].as_u64()), (Some(4), Some(1)), "{p}");
    assert_eq!(p["run_created"], false);
    assert_eq!(p["needs_allow_changed"], true, "the script changed");
    assert_eq!(p["complete"], true);
    let live: Vec<&Value> = p["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter(|s| s["outcome"] == "live")
        .collect();
    assert_eq!(live[0]["label"], "review:speed");
    assert_eq!(live[0]["reason"], "changed");
    assert_eq!(live[0]["tokens"], 90, "estimated from the recorded call");
    assert_eq!(p["live_tokens"], 90);
    assert_eq!(ctx.run_ids(), before, "a plan creates no run");

    // The text form.
    let out = ctx.hwf(["run", changed.to_str().expect("utf8"), "--resume-from", &id, "--plan"]);
    out.expect_code(0);
    assert!(out.stdout.contains("4 calls replay, 1 run live"), "{}", out.stdout);
    assert!(out.stdout.contains("no run was created"), "{}", out.stdout);

    // The facade (and so MCP's `workflow` tool) takes `plan: true`.
    let (code, r) = facade_stdin(
        &ctx,
        &["facade", "workflow"],
        &json!({"script_path": changed, "resume_from_run_id": id, "plan": true}),
    );
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["data"]["live"], 1, "{r}");
    assert_eq!(ctx.run_ids(), before);

    // replay-check: the stored runs of the workflow walked against the
    // changed script (exit 1: one diverges), and against the same one.
    let out = ctx.hwf([
        "replay-check",
        changed.to_str().expect("utf8"),
        "--runs",
        "all",
        "--json",
    ]);
    out.expect_code(1);
    let r = &out.json()["data"];
    assert_eq!(r["runs"].as_array().map(Vec::len), Some(1), "{r}");
    let run = &r["runs"][0];
    assert_eq!(
        (run["replayed"].as_u64(), run["live"].as_u64()),
        (Some(4), Some(1)),
        "{r}"
    );
    assert_eq!(run["diverges_label"], "review:speed", "{r}");
    let same = ctx.hwf([
        "replay-check",
        ctx.path("triage.js").to_str().expect("utf8"),
        "--runs",
        "all",
        "--json",
    ]);
    same.expect_code(0);
    assert_eq!(same.json()["data"]["diverging"], 0);
    assert_eq!(ctx.run_ids(), before);

    // A plan of a missing run is a typed error.
    let out = ctx.hwf([
        "run",
        changed.to_str().expect("utf8"),
        "--resume-from",
        "r0000000000000000000000000000",
        "--plan",
        "--json",
    ]);
    out.expect_code(2);
    assert_eq!(out.json()["error"]["code"], "not_found");
}

#[test]
fn a_fork_replaces_one_output_and_replays_the_rest() {
    let ctx = Ctx::manual_runner();
    let (id, st) = recorded(&ctx);
    let out = ctx.hwf([
        "fork",
        &id,
        "--at",
        "5",
        "--output",
        "\"hold: too slow\"",
        "--actor",
        "ana",
        "--reason",
        "speed matters",
        "--json",
    ]);
    out.expect_code(0);
    let f = out.json();
    let fork = run_id(&f);
    assert_ne!(fork, id);
    let fs = status(&ctx, &fork);
    assert_eq!(fs["state"], "succeeded", "{fs}");
    assert_eq!(fs["result"]["summary"], "hold: too slow", "{fs}");
    assert_eq!(fs["result"]["reviews"], st["result"]["reviews"]);
    assert_eq!(fs["counts"]["replayed"], 5, "every call replayed: {fs}");
    let journal = ctx.journal(&fork);
    let edit = journal
        .iter()
        .find(|l| l["type"] == "call_edited")
        .expect("the edit is journaled");
    assert_eq!(
        (edit["call"].as_str(), edit["actor"].as_str()),
        (Some("5"), Some("ana")),
        "{edit}"
    );
    assert_eq!(edit["source_run"], id.as_str());
    assert_eq!(edit["value"], "hold: too slow");
    // `hwf logs` says who edited what.
    let logs = ctx.hwf(["logs", &fork]);
    logs.expect_code(0);
    assert!(
        logs.stdout.contains("edit  call 5 output replaced") && logs.stdout.contains("by ana — speed matters"),
        "{}",
        logs.stdout
    );

    // A fork of the person's answer: the summary's prompt changes, so it
    // runs live (on the fixture agents); the reviews still replay.
    let f = ctx.path("f.json");
    let out = ctx.hwf([
        "fork",
        &id,
        "--at",
        "4",
        "--answer",
        "\"no\"",
        "--agents",
        f.to_str().expect("utf8"),
        "--json",
    ]);
    out.expect_code(0);
    let st2 = status(&ctx, &run_id(&out.json()));
    assert_eq!(st2["result"]["decision"], "no", "{st2}");
    assert_eq!(st2["counts"]["replayed"], 4, "the summary ran live: {st2}");
    let out = ctx.hwf(["fork", &id, "--at", "5", "--answer", "\"no\"", "--json"]);
    out.expect_code(2);
    assert_eq!(out.json()["error"]["code"], "fork_mismatch", "not a question");

    // A fork of a call the run does not have.
    let out = ctx.hwf(["fork", &id, "--at", "9", "--output", "1", "--json"]);
    out.expect_code(2);
    assert_eq!(out.json()["error"]["code"], "not_found");

    // The fork is a run like any: a test against it gives its result.
    let t = ctx.hwf([
        "test",
        ctx.path("triage.js").to_str().expect("utf8"),
        "--cassette",
        &fork,
        "--json",
    ]);
    t.expect_code(0);
    assert_eq!(t.json()["data"]["result"]["summary"], "hold: too slow");
}

/// Figures for docs/BENCHMARKS.md: a 1,000-call cassette replayed by `hwf
/// test`, and the plan of the same 1,000-call journal (in-process times
/// the reports carry; the binary's start and the script's load excluded).
#[test]
fn a_thousand_call_cassette_and_plan_are_timed() {
    let ctx = Ctx::new();
    let script = ctx.write(
        "calls.js",
        "export const meta = { name: \"calls\", description: \"n sequential agent calls\" };\nlet n = 0;\nfor (let i = 0; i < args.n; i++) {\n  const r = await agent(`task ${i}`, { label: \"echo\" });\n  if (r !== null) n++;\n}\nreturn n;\n",
    );
    let f = ctx.write(
        "echo.json",
        r#"{"responses": [{"match": {"label": "echo"}, "output": "ok", "tokens": 1}]}"#,
    );
    let s = script.to_str().expect("utf8");
    let out = ctx.run_json(
        s,
        "{\"n\": 1000}",
        &[
            "--agents",
            f.to_str().expect("utf8"),
            "--durability",
            "async",
            "--max-agent-calls",
            "2000",
        ],
    );
    out.expect_code(0);
    let id = run_id(&out.json());
    let mut walks = Vec::new();
    let mut plans = Vec::new();
    let mut parts = Vec::new();
    for _ in 0..3 {
        let t = ctx.hwf(["test", s, "--cassette", &id, "--json"]);
        t.expect_code(0);
        let d = t.json()["data"].clone();
        assert_eq!(d["replayed"], 1000, "{}", t.stdout.len());
        walks.push(d["walk_us"].as_u64().expect("walk_us"));
        let p = ctx.hwf(["run", s, "--resume-from", &id, "--plan", "--json"]);
        p.expect_code(0);
        let d = p.json()["data"].clone();
        assert_eq!((d["replayed"].as_u64(), d["live"].as_u64()), (Some(1000), Some(0)));
        plans.push(d["plan_us"].as_u64().expect("plan_us"));
        parts.push((d["read_us"].as_u64(), d["index_us"].as_u64()));
    }
    walks.sort_unstable();
    plans.sort_unstable();
    eprintln!(
        "issue 30 figures: 1,000-call cassette walk {:.1} ms (median of 3), plan of a 1,000-call journal {:.1} ms",
        walks[1] as f64 / 1000.0,
        plans[1] as f64 / 1000.0
    );
    eprintln!("issue 30 figures: the plans' (read_us, index_us): {parts:?}");
    // Generous: debug builds on a loaded 2-core machine (the release
    // figures are in docs/BENCHMARKS.md).
    assert!(walks[1] < 5_000_000 && plans[1] < 5_000_000, "{walks:?} {plans:?}");
}

/// `hwf test` takes whatever `hwf run` takes: a compiled component and a
/// JSON workflow, from their runs; another args changes a request, which
/// is a drift of the call it changed.
#[test]
fn components_and_json_workflows_are_tested_the_same_way() {
    let ctx = Ctx::new();
    let f = crate::common::hello_fixture();
    let json_wf = crate::common::root().join("harnesses/hello.workflow.json");
    for target in [
        crate::common::harnesses::HELLO.to_owned(),
        json_wf.to_string_lossy().into_owned(),
    ] {
        let out = ctx.run_json(
            &target,
            r#"{"name": "world"}"#,
            &["--agents", f.to_str().expect("utf8")],
        );
        out.expect_code(0);
        let id = run_id(&out.json());
        let t = ctx.hwf(["test", &target, "--cassette", &id, "--json"]);
        t.expect_code(0);
        let d = &t.json()["data"];
        assert_eq!(d["result"], out.json()["data"]["result"], "{target}: {d}");
        assert!(d["replayed"].as_u64().is_some_and(|n| n >= 2), "{target}: {d}");
        let t = ctx.hwf([
            "test",
            &target,
            "--cassette",
            &id,
            "--args",
            r#"{"name": "moon"}"#,
            "--json",
        ]);
        t.expect_code(1);
        let r = t.json();
        assert_eq!(r["error"]["code"], "cassette_drift", "{target}: {r}");
        assert_eq!(r["data"]["drifts"].as_array().map(Vec::len), Some(1), "{target}: {r}");
    }
}

/// A recorded `timer.sleep` (a wait the runner continued once it was due)
/// replays at once: the walk reaches no wait, whatever the sleep's length.
#[test]
fn a_recorded_timer_replays_without_waiting() {
    let ctx = Ctx::manual_runner();
    let s = ctx.write(
        "nap.js",
        "export const meta = { name: \"nap\", description: \"sleeps\" };\nconst t = await capability(\"timer.sleep\", { ms: 1 });\nreturn { slept: t.slept_ms };\n",
    );
    let out = ctx.run_json(s.to_str().expect("utf8"), "{}", &[]);
    let id = run_id(&out.json());
    for _ in 0..5 {
        if status(&ctx, &id)["state"] == "succeeded" {
            break;
        }
        runner_once(&ctx);
    }
    assert_eq!(status(&ctx, &id)["state"], "succeeded");
    let t = ctx.hwf(["test", s.to_str().expect("utf8"), "--cassette", &id, "--json"]);
    t.expect_code(0);
    let d = &t.json()["data"];
    assert_eq!(d["result"], json!({"slept": 1}), "{d}");
    assert_eq!(d["steps"][0]["name"], "timer.sleep", "{d}");
    assert_eq!(d["steps"][0]["outcome"], "replay", "{d}");
}

/// `hwf replay-check --upgrade`: a parked run whose calls replay cleanly
/// on a new version is re-pinned to it and continues on it; one that
/// diverges stays on its version (exit 1) unless `--allow-changed`.
#[test]
fn replay_check_upgrade_repins_waiting_runs_that_replay_cleanly() {
    let ctx = Ctx::manual_runner();
    let script = ctx.write("triage.js", triage(SPEED));
    let f = ctx.write("f.json", FIXTURE);
    let out = ctx.run_json(
        script.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8")],
    );
    out.expect_code(3);
    let id = run_id(&out.json());
    let pinned = status(&ctx, &id)["script"]["digest"].clone();

    // A version that changes a reviewer's prompt diverges: kept, exit 1.
    let v3 = ctx.write("v3.js", triage("Review the change for speed, with numbers."));
    let out = ctx.hwf(["replay-check", v3.to_str().expect("utf8"), "--upgrade", "--json"]);
    out.expect_code(1);
    let r = out.json()["data"].clone();
    assert_eq!(r["upgraded"], 0, "{r}");
    assert!(
        r["runs"][0]["kept_because"]
            .as_str()
            .is_some_and(|w| w.contains("diverges at call 2")),
        "{r}"
    );
    assert_eq!(status(&ctx, &id)["script"]["digest"], pinned);

    // A version whose calls are the same (it returns one more field):
    // re-pinned; the text says so.
    let v2 = ctx.write(
        "v2.js",
        triage(SPEED).replace("return { reviews,", "return { version: 2, reviews,"),
    );
    let out = ctx.hwf(["replay-check", v2.to_str().expect("utf8"), "--upgrade"]);
    out.expect_code(0);
    assert!(out.stdout.contains("1 waiting run upgraded"), "{}", out.stdout);
    let st = status(&ctx, &id);
    assert_ne!(st["script"]["digest"], pinned, "{st}");
    assert!(
        st["script"]["path"].as_str().is_some_and(|p| p.ends_with("v2.js")),
        "{st}"
    );
    // It continues on the new version: the reviews replay, the result is v2's.
    ctx.hwf(["control", "decide", &id, "4", "respond", "--value", "\"yes\""])
        .expect_code(0);
    runner_once(&ctx);
    let st = status(&ctx, &id);
    assert_eq!(st["state"], "succeeded", "{st}");
    assert_eq!(st["result"]["version"], 2, "{st}");
    assert_eq!(st["result"]["decision"], "yes", "{st}");

    // --allow-changed re-pins a diverging waiting run too.
    let out = ctx.run_json(
        script.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8")],
    );
    out.expect_code(3);
    let second = run_id(&out.json());
    let out = ctx.hwf([
        "replay-check",
        v3.to_str().expect("utf8"),
        "--upgrade",
        "--allow-changed",
        "--json",
    ]);
    out.expect_code(0);
    let r = out.json()["data"].clone();
    assert_eq!(
        (r["upgraded"].clone(), r["diverging"].clone()),
        (json!(1), json!(1)),
        "{r}"
    );
    assert!(
        status(&ctx, &second)["script"]["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("v3.js"))
    );
}
