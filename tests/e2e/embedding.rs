//! Embedding (issue 32): the runnable example `host/examples/custom_capability.rs`
//! — a host with its own `deploy` capability — against the stock binary on
//! the same state dir. A parked run needing `deploy` is left waiting by a
//! stock `hwf runner` (`needs_host`, never failed) and finishes when the
//! embedder's host continues it; `deploy`'s input schema is checked before
//! its handler and before an approval is asked for.
//!
//! The example binary is built by `cargo test -p hwf-host` (cargo builds a
//! package's examples with its tests; `scripts/test.sh` tests both
//! packages in one invocation) or `cargo build -p hwf-host --example
//! custom_capability`; this test fails, naming that command, without it.

use crate::common::{Ctx, Run, shared_cache};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The example binary, beside this test binary's `deps/` dir.
fn example() -> PathBuf {
    let exe = std::env::current_exe().expect("test exe");
    let profile = exe.parent().and_then(|d| d.parent()).expect("target profile dir");
    let bin = profile.join("examples").join("custom_capability");
    assert!(
        bin.is_file(),
        "{} is missing: build it with `cargo build -p hwf-host --example custom_capability` \
         (or test hwf-host and hwf together, as scripts/test.sh does)",
        bin.display()
    );
    bin
}

/// Where the embedder and the stock binary meet: one state dir, and the
/// store `HWF_STORE` names (PostgreSQL) when `store` is set.
struct Side<'a> {
    ctx: &'a Ctx,
    store: Option<&'a str>,
}

impl Side<'_> {
    /// The stock `hwf` (no background runner: the test drives every pass).
    fn hwf(&self, args: &[&str]) -> Run {
        let mut c = self.ctx.cmd();
        c.env("HWF_RUNNER_AUTOSTART", "0");
        if let Some(url) = self.store {
            c.env("HWF_STORE", url);
        }
        c.args(args).output().expect("spawn hwf").into()
    }

    /// The example, as the embedder runs it: this context's HOME, cache
    /// and the runtimes the build made.
    fn embedder(&self, args: &[&str]) -> Run {
        let runtimes = crate::common::built_runtimes();
        let mut c = Command::new(example());
        c.args(args)
            .current_dir(self.ctx.dir.path())
            .env_remove("RUST_LOG")
            .env_remove("HWF_STORE")
            .env("HOME", self.ctx.dir.path())
            .env("HWF_CACHE_DIR", shared_cache())
            .env("HWF_RUNTIME_DIR", runtimes);
        if let Some(url) = self.store {
            c.env("HWF_STORE", url);
        }
        c.output().expect("spawn the example").into()
    }
}

fn embedder(ctx: &Ctx, args: &[&str]) -> Run {
    Side { ctx, store: None }.embedder(args)
}

fn json_line(run: &Run) -> Value {
    let line = run.stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {run:#?}"))
}

#[test]
fn a_stock_runner_leaves_an_embedders_parked_run_waiting_and_the_embedder_finishes_it() {
    let ctx = Ctx::manual_runner();
    left_waiting_then_finished(&Side { ctx: &ctx, store: None });
}

#[test]
fn on_postgres_a_stock_runner_leaves_an_embedders_parked_run_waiting_too() {
    let Some(pg) =
        crate::shared_store::Pg::new("on_postgres_a_stock_runner_leaves_an_embedders_parked_run_waiting_too")
    else {
        return;
    };
    left_waiting_then_finished(&Side {
        ctx: &pg.ctx,
        store: Some(pg.url()),
    });
}

/// The acceptance of issue 32's embedding part, on one store.
fn left_waiting_then_finished(side: &Side<'_>) {
    let state = side.ctx.state();
    let state = state.to_str().expect("utf-8 path");

    // The embedder starts the run: `deploy` needs an approval, so it parks.
    let started = side.embedder(&["run", state]);
    started.expect_code(0);
    let started = json_line(&started);
    assert_eq!(started["state"], "waiting", "{started}");
    let id = started["run_id"].as_str().expect("run id").to_owned();
    let wait = &started["waits"][0];
    assert_eq!(wait["kind"], "approval", "{started}");
    let call = wait["call"].as_str().expect("call").to_owned();

    // The run records what its host offered beyond the built-ins; the
    // stock host says it lacks it.
    let status = side.hwf(&["status", &id, "--json"]);
    status.expect_code(0);
    let data = &status.json()["data"];
    let deploy = serde_json::json!([{"name": "deploy", "class": "external_write"}]);
    assert_eq!(data["needs"], deploy, "{data}");
    assert_eq!(data["needs_host"], deploy, "{data}");

    // An operator approves with the stock CLI; the wait is resolved.
    side.hwf(&["control", "decide", &id, &call, "approve"]).expect_code(0);

    // A stock runner on the same state dir: the run is ready, but needs a
    // host with `deploy` — left as it is, not failed.
    side.hwf(&["runner", "--once"]).expect_code(0).expect_stderr(&format!(
        "run {id} left as it is: needs_host: needs a host offering deploy (external_write)"
    ));
    let pass = side.hwf(&["runner", "--once", "--json"]);
    pass.expect_code(0);
    let report = &pass.json()["data"];
    assert_eq!(report["needs_host"][0]["run_id"], id.as_str(), "{report}");
    assert_eq!(report["needs_host"][0]["missing"], deploy, "{report}");
    assert_eq!(report["executed"], serde_json::json!([]), "{report}");
    let status = side.hwf(&["status", &id]);
    assert!(status.stdout.contains("waiting"), "{status:#?}");
    assert!(
        status
            .stdout
            .contains("needs_host: needs a host offering deploy (external_write)"),
        "{status:#?}"
    );
    let data = &side.hwf(&["status", &id, "--json"]).json()["data"];
    assert_eq!(data["state"], "waiting", "{data}");
    assert!(data["error"].is_null(), "{data}");

    // The embedder's host continues it: `deploy` runs, the run succeeds.
    let continued = side.embedder(&["runner", state]);
    continued.expect_code(0);
    let continued = json_line(&continued);
    assert_eq!(continued["run_id"], id.as_str(), "{continued}");
    assert_eq!(continued["state"], "succeeded", "{continued}");
    assert_eq!(
        continued["result"],
        serde_json::json!({"deployed": "web", "env": "staging"})
    );
    let data = &side.hwf(&["status", &id, "--json"]).json()["data"];
    assert_eq!(data["state"], "succeeded", "{data}");
    assert!(data.get("needs_host").is_none(), "an ended run needs no host: {data}");
}

#[test]
fn a_stock_resume_of_an_embedders_run_carries_its_needs_and_the_embedder_finishes_it() {
    let ctx = Ctx::manual_runner();
    resumed_by_stock_then_finished(&Side { ctx: &ctx, store: None });
}

#[test]
fn on_postgres_a_stock_resume_of_an_embedders_run_carries_its_needs_too() {
    let Some(pg) = crate::shared_store::Pg::new("on_postgres_a_stock_resume_of_an_embedders_run_carries_its_needs_too")
    else {
        return;
    };
    resumed_by_stock_then_finished(&Side {
        ctx: &pg.ctx,
        store: Some(pg.url()),
    });
}

/// `hwf run --resume-from` of an embedder's run on the stock binary: the
/// new run carries the source's needs, so the stock host does not run it
/// (queued, `needs_host`), its runner leaves it, `hwf capabilities --run`
/// says what it needs, and the embedder's host finishes it by replaying
/// the source's journal.
fn resumed_by_stock_then_finished(side: &Side<'_>) {
    let state = side.ctx.state();
    let state = state.to_str().expect("utf-8 path");
    let deploy = serde_json::json!([{"name": "deploy", "class": "external_write"}]);

    // The embedder's run, approved with the stock CLI and finished by the embedder.
    let started = json_line(side.embedder(&["run", state]).expect_code(0));
    let source = started["run_id"].as_str().expect("run id").to_owned();
    let call = started["waits"][0]["call"].as_str().expect("call").to_owned();
    side.hwf(&["control", "decide", &source, &call, "approve"])
        .expect_code(0);
    let done = json_line(side.embedder(&["runner", state]).expect_code(0));
    assert_eq!(done["state"], "succeeded", "{done}");

    // The stock binary resumes it: it lacks `deploy`, so the new run is
    // queued with the source's needs instead of failing at its first call.
    let resumed = side.hwf(&["run", "--resume-from", &source, "--json"]);
    resumed.expect_code(3);
    let data = &resumed.json()["data"];
    assert_eq!(data["state"], "queued", "{data}");
    assert_eq!(data["needs"], deploy, "{data}");
    assert_eq!(data["needs_host"], deploy, "{data}");
    let id = data["run_id"].as_str().expect("run id").to_owned();
    assert_ne!(id, source);
    let text = side.hwf(&["run", "--resume-from", &source]);
    text.expect_code(3);
    assert!(
        text.stderr
            .contains("queued: needs_host: needs a host offering deploy (external_write)"),
        "{text:#?}"
    );

    let status = &side.hwf(&["status", &id, "--json"]).json()["data"];
    assert_eq!(status["state"], "queued", "{status}");
    assert_eq!(status["resumed_from"], source.as_str(), "{status}");
    assert_eq!(status["needs"], deploy, "{status}");
    assert_eq!(status["needs_host"], deploy, "{status}");

    // What the run needs, from a binary that cannot list the embedder's capabilities.
    let listed = side.hwf(&["capabilities", "--run", &id, "--json"]);
    listed.expect_code(0);
    let run = &listed.json()["data"]["run"];
    assert_eq!(run["run_id"], id.as_str(), "{run}");
    assert_eq!(run["needs"], deploy, "{run}");
    assert_eq!(run["needs_host"], deploy, "{run}");
    let listed = side.hwf(&["capabilities", "--run", &id]);
    listed.expect_code(0);
    assert!(
        listed.stdout.contains(&format!("run {id} (queued) needs of its host:")),
        "{listed:#?}"
    );
    assert!(
        listed.stdout.lines().any(|l| l.trim_start().starts_with("deploy")
            && l.contains("external_write")
            && l.contains("not offered here")),
        "{listed:#?}"
    );

    // A stock runner leaves it as it is.
    side.hwf(&["runner", "--once"]).expect_code(0).expect_stderr(&format!(
        "run {id} left as it is: needs_host: needs a host offering deploy (external_write)"
    ));
    let status = &side.hwf(&["status", &id, "--json"]).json()["data"];
    assert_eq!(status["state"], "queued", "{status}");
    assert!(status["error"].is_null(), "{status}");

    // The embedder's host runs it (and the text-mode resume's run): `deploy`
    // is answered from the source's journal.
    let pass = side.embedder(&["runner", state]);
    pass.expect_code(0);
    let continued = pass
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["run_id"] == id.as_str())
        .unwrap_or_else(|| panic!("the embedder did not run {id}: {pass:#?}"));
    assert_eq!(continued["state"], "succeeded", "{continued}");
    assert_eq!(
        continued["result"],
        serde_json::json!({"deployed": "web", "env": "staging"})
    );
    let status = &side.hwf(&["status", &id, "--json"]).json()["data"];
    assert_eq!(status["state"], "succeeded", "{status}");
    assert_eq!(status["progress"]["replayed"], 1, "{status}");
}

#[test]
fn a_capability_input_schema_refuses_bad_input_before_the_approval_and_the_handler() {
    let ctx = Ctx::manual_runner();
    let state = ctx.state();
    let run = embedder(&ctx, &["run", state.to_str().expect("utf-8"), r#"{"service": 7}"#]);
    run.expect_code(0);
    let out = json_line(&run);
    // No approval was asked for: the call failed at once, and the script's
    // unhandled error failed the run.
    assert_eq!(out["state"], "failed", "{out}");
    let id = out["run_id"].as_str().expect("run id");
    let journal = ctx.journal(id);
    let done = journal
        .iter()
        .find(|e| e["type"] == "call_completed" && e["kind"] == "capability")
        .unwrap_or_else(|| panic!("no capability completion: {journal:#?}"));
    let error = done["error"]["message"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("invalid_input:") && error.contains("at /service"),
        "{done}"
    );
    assert!(!journal.iter().any(|e| e["type"] == "wait_started"), "{journal:#?}");
}

#[test]
fn the_example_declares_its_capability_for_editors_and_hwf_lists_the_builtins() {
    let ctx = Ctx::new();
    let types = embedder(&ctx, &["types"]);
    types.expect_code(0);
    assert!(types.stdout.contains("interface HwfCapabilities {"), "{types:#?}");
    assert!(types.stdout.contains("\"deploy\": { input: {"), "{types:#?}");
    assert!(types.stdout.contains("\"env\": \"staging\" | \"prod\";"), "{types:#?}");

    let listed = ctx.hwf(["capabilities", "--json"]);
    listed.expect_code(0);
    let caps = listed.json()["data"]["capabilities"].as_array().cloned().expect("list");
    let bash = caps.iter().find(|c| c["name"] == "bash").expect("bash listed");
    assert_eq!(bash["class"], "external_write");
    assert_eq!(bash["builtin"], true);
    let text = ctx.hwf(["capabilities"]);
    text.expect_code(0);
    assert!(text.stdout.contains("fs.read"), "{text:#?}");
}
