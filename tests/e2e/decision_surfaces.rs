//! Approval gates stay human (issue 27): the model, through the facade's
//! `workflow_control decide` (what the MCP server and the Hermes plugin
//! give it), may not approve a gate `[policy] agent_may_approve` keeps for
//! a person; the CLI (and the console, tests/browser) may. Who is behind a
//! decision comes from the front door, never from a parameter.

use crate::common::{Ctx, status};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const DEPLOY_JS: &str = r#"export const meta = { name: "deploy", description: "writes a marker after an approval" };
await capability("fs.write", { path: "deployed.txt", content: "release 1.4" });
return { deployed: true };
"#;

const ASK_JS: &str = r#"export const meta = { name: "ask", description: "asks" };
const a = await capability("human.ask", { prompt: "go?", choices: ["yes", "no"], to: args.to ?? null });
return { answer: a.answer };
"#;

/// `hwf facade workflow_control` with `request` (the model's surface).
fn model_decides(ctx: &Ctx, request: Value, config: Option<&str>) -> Value {
    let mut args = Vec::new();
    if let Some(c) = config {
        args.extend(["--config", c]);
    }
    args.extend(["facade", "workflow_control"]);
    crate::common::facade_stdin(ctx, &args, &request).1
}

/// A deploy run parked on its `fs.write` approval: (run id, call id).
fn parked_deploy(ctx: &Ctx) -> (String, String) {
    ctx.write("deploy.js", DEPLOY_JS);
    std::fs::create_dir_all(ctx.path("ws")).expect("ws");
    let ws = ctx.path("ws");
    let out = ctx.hwf([
        "run",
        "deploy.js",
        "--json",
        "--allow-class",
        "external_write",
        "--workspace",
        ws.to_str().expect("utf8"),
    ]);
    out.expect_code(3);
    let data = out.json()["data"].clone();
    let wait = &data["waits"][0];
    assert_eq!(wait["kind"], "approval", "{data}");
    (
        data["run_id"].as_str().expect("id").to_owned(),
        wait["call"].as_str().expect("call").to_owned(),
    )
}

fn wait_state(ctx: &Ctx, id: &str, want: &str) -> Value {
    let t = Instant::now();
    loop {
        let s = status(ctx, id);
        if s["state"] == want {
            return s;
        }
        assert!(t.elapsed() < Duration::from_secs(20), "{id} never became {want}: {s}");
        std::thread::sleep(Duration::from_millis(40));
    }
}

#[test]
fn the_model_cannot_approve_a_write_gate_and_a_person_can() {
    let ctx = Ctx::manual_runner();
    let (run, call) = parked_deploy(&ctx);
    for (decision, extra) in [
        ("approve", json!({})),
        ("edit", json!({"input": {"path": "x.txt", "content": "y"}})),
    ] {
        let mut req = json!({"action": "decide", "run_id": run, "call": call, "decision": decision,
            // Claims about who is behind it change nothing.
            "actor": "ana", "channel": "console"});
        req.as_object_mut()
            .expect("obj")
            .extend(extra.as_object().expect("obj").clone());
        let r = model_decides(&ctx, req, None);
        assert_eq!(r["success"], false, "{r}");
        assert_eq!(r["error"]["code"], "decision_not_allowed", "{r}");
        let msg = r["error"]["message"].as_str().expect("msg");
        assert!(
            msg.contains("external_write") && msg.contains("hwf control decide"),
            "{msg}"
        );
    }
    // Nor can it decide a call in advance.
    let r = model_decides(
        &ctx,
        json!({"action": "decide", "run_id": run, "call": "7", "decision": "approve"}),
        None,
    );
    assert_eq!(r["error"]["code"], "decision_not_allowed", "{r}");
    // Nothing was recorded: the run still waits, the file is not written.
    assert_eq!(status(&ctx, &run)["state"], "waiting");
    assert!(ctx.journal(&run).iter().all(|l| l["type"] != "control_applied"));
    // A person at the CLI approves it.
    ctx.hwf(["control", "decide", &run, &call, "approve"]).expect_code(0);
    ctx.hwf(["runner", "--once"]).expect_code(0);
    assert_eq!(status(&ctx, &run)["state"], "succeeded");
    assert_eq!(
        std::fs::read_to_string(ctx.path("ws/deployed.txt")).expect("written"),
        "release 1.4"
    );
}

#[test]
fn the_model_may_reject_a_gate_and_policy_may_widen_what_it_approves() {
    let ctx = Ctx::new();
    let (run, call) = parked_deploy(&ctx);
    let r = model_decides(
        &ctx,
        json!({"action": "decide", "run_id": run, "call": call, "decision": "reject", "reason": "not now"}),
        None,
    );
    assert_eq!(r["success"], true, "{r}");
    let t = Instant::now();
    while status(&ctx, &run)["state"] == "waiting" {
        assert!(t.elapsed() < Duration::from_secs(20), "the rejection never took effect");
        std::thread::sleep(Duration::from_millis(40));
    }
    assert!(!ctx.path("ws/deployed.txt").exists(), "a rejected write never happens");
    // An operator who trusts the model with writes says so.
    let cfg = ctx.write(
        "hwf.toml",
        "[policy]\nagent_may_approve = [\"read_only\", \"external_write\"]\n",
    );
    let cfg = cfg.to_str().expect("utf8");
    let (run, call) = parked_deploy(&ctx);
    let r = model_decides(
        &ctx,
        json!({"action": "decide", "run_id": run, "call": call, "decision": "approve"}),
        Some(cfg),
    );
    assert_eq!(r["success"], true, "{r}");
    wait_state(&ctx, &run, "succeeded");
    let bad = ctx.write("bad.toml", "[policy]\nagent_may_approve = [\"everything\"]\n");
    ctx.hwf(["--config", bad.to_str().expect("utf8"), "status", &run])
        .expect_code(2)
        .expect_stderr("agent_may_approve");
}

#[test]
fn questions_addressed_to_a_person_are_theirs_when_the_policy_says_so() {
    let ctx = Ctx::new();
    ctx.write("ask.js", ASK_JS);
    let cfg = ctx.write("addressed.toml", "[policy]\nagent_may_answer = \"addressed\"\n");
    let cfg = cfg.to_str().expect("utf8");
    let ask = |to: Value| {
        let out = ctx.hwf(["run", "ask.js", "--json", "--args", &json!({ "to": to }).to_string()]);
        out.expect_code(3);
        let d = out.json()["data"].clone();
        (
            d["run_id"].as_str().expect("id").to_owned(),
            d["waits"][0]["call"].as_str().expect("call").to_owned(),
        )
    };
    let answer = |run: &str, call: &str| {
        model_decides(
            &ctx,
            json!({"action": "decide", "run_id": run, "call": call, "decision": "respond", "value": "yes"}),
            Some(cfg),
        )
    };
    let (run, call) = ask(Value::Null);
    let r = answer(&run, &call);
    assert_eq!(r["error"]["code"], "decision_not_allowed", "{r}");
    let (run, call) = ask(json!("agent"));
    let r = answer(&run, &call);
    assert_eq!(r["success"], true, "{r}");
    wait_state(&ctx, &run, "succeeded");
    // Without the setting (the default), the model answers questions.
    let (run, call) = ask(Value::Null);
    let r = model_decides(
        &ctx,
        json!({"action": "decide", "run_id": run, "call": call, "decision": "respond", "value": "no"}),
        None,
    );
    assert_eq!(r["success"], true, "{r}");
}
