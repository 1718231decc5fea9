//! Actuator loops with scoped grants and brakes (issue 19) through the real
//! binary: harnesses/actuator-loop.js senses (`fs.read`), acts (`grant.act` → `bash`)
//! under one operator grant (`grant.request` parks once), and halts with a
//! typed reason — `grant_revoked` after `hwf control revoke`, or a brake
//! (`max_iterations`, `grant_exhausted`).

use crate::common::{Ctx, root, status};
use serde_json::{Value, json};

fn acts(ctx: &Ctx) -> usize {
    std::fs::read_to_string(ctx.path("acts.txt")).map_or(0, |t| t.lines().count())
}

fn runner_once(ctx: &Ctx) -> Value {
    let r = ctx.hwf(["runner", "--once", "--json"]);
    r.expect_code(0);
    r.json()["data"].clone()
}

/// Start `harnesses/actuator-loop.js`; it parks on the grant. Returns (run
/// id, grant call).
fn start(ctx: &Ctx, count: u64, pause_after: i64, max_iterations: u64) -> (String, String) {
    let js = root().join("harnesses/actuator-loop.js");
    let args = json!({"count": count, "pause_after": pause_after, "max_iterations": max_iterations});
    let out = ctx.hwf([
        "run",
        js.to_str().expect("utf8"),
        "--args",
        &args.to_string(),
        "--allow-class",
        "session_control",
        "--json",
    ]);
    out.expect_code(3);
    let id = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let s = status(ctx, &id);
    assert_eq!(s["waits"][0]["kind"], "approval", "{s}");
    let call = s["waits"][0]["call"].as_str().expect("call").to_owned();
    (id, call)
}

#[test]
fn an_actuator_loop_parks_once_for_its_grant_acts_on_it_and_halts_when_revoked() {
    let ctx = Ctx::manual_runner();
    let (id, call) = start(&ctx, 10, 3, 50);
    assert_eq!(acts(&ctx), 0, "nothing acted before the grant");
    ctx.hwf(["control", "decide", &id, &call, "approve", "--json"])
        .expect_code(0);
    // Three actions on the one grant, then it waits for `continue`.
    let r = runner_once(&ctx);
    assert_eq!(r["executed"], json!([[id, "waiting"]]), "{r}");
    assert_eq!(acts(&ctx), 3);
    let s = status(&ctx, &id);
    assert_eq!(s["waits"][0]["kind"], "event", "{s}");
    let grant = format!("{id}:{call}");
    // Bad revocations are typed; the real one is recorded once.
    ctx.hwf(["control", "revoke", &id, "rnope:1"]).expect_code(2);
    ctx.hwf(["control", "revoke", &id, &grant, "--reason", "enough", "--json"])
        .expect_code(0);
    let again = ctx.hwf(["control", "revoke", &id, &grant, "--json"]);
    assert_eq!(again.json()["data"]["new"], false);
    ctx.hwf([
        "events", "send", "--source", "operator", "--type", "continue", "--id", "go",
    ])
    .expect_code(0);
    let r = runner_once(&ctx);
    assert_eq!(r["executed"], json!([[id, "succeeded"]]), "{r}");
    let s = status(&ctx, &id);
    assert_eq!(
        s["result"],
        json!({"actions": 3, "halted": "grant_revoked", "grant": grant, "sensed": 3}),
        "{s}"
    );
    assert_eq!(acts(&ctx), 3, "no action after the revocation, none replayed twice");
    // One grant wait in the whole run.
    let journal = ctx.journal(&id);
    let grant_waits = journal
        .iter()
        .filter(|e| e["type"] == "wait_started" && e["kind"] == "approval")
        .count();
    assert_eq!(grant_waits, 1);
}

#[test]
fn a_grant_is_spent_after_its_count_and_a_rejected_grant_fails_typed() {
    let ctx = Ctx::manual_runner();
    let (id, call) = start(&ctx, 2, 1000, 50);
    ctx.hwf(["control", "decide", &id, &call, "approve"]).expect_code(0);
    assert_eq!(runner_once(&ctx)["executed"], json!([[id, "succeeded"]]));
    assert_eq!(status(&ctx, &id)["result"]["halted"], "grant_exhausted");
    assert_eq!(acts(&ctx), 2);
    // The max-iterations brake.
    let ctx = Ctx::manual_runner();
    let (id, call) = start(&ctx, 100, 1000, 4);
    ctx.hwf(["control", "decide", &id, &call, "approve"]).expect_code(0);
    assert_eq!(runner_once(&ctx)["executed"], json!([[id, "succeeded"]]));
    assert_eq!(status(&ctx, &id)["result"]["halted"], "max_iterations");
    assert_eq!(acts(&ctx), 4);
    // Rejected: the request fails with grant_denied and nothing acts.
    let ctx = Ctx::manual_runner();
    let (id, call) = start(&ctx, 2, 1000, 50);
    ctx.hwf(["control", "decide", &id, &call, "reject", "--reason", "no"])
        .expect_code(0);
    assert_eq!(runner_once(&ctx)["executed"], json!([[id, "failed"]]));
    let msg = status(&ctx, &id)["error"]["message"].as_str().unwrap_or("").to_owned();
    assert!(msg.contains("grant_denied"), "{msg}");
    assert_eq!(acts(&ctx), 0);
}
