//! Actuator loops with scoped grants and brakes (issue 19) through the real
//! binary: a JS feedback loop senses (`fs.read`), acts (`grant.act` → `bash`)
//! under one operator grant (`grant.request` parks once), and halts with a
//! typed reason — `grant_revoked` after `hwf control revoke`, or a brake
//! (`max_iterations`, `grant_exhausted`).

use crate::common::Ctx;
use serde_json::{Value, json};

/// The loop: one grant for `count` bash actions; after `pause_after`
/// actions it waits for a `continue` event (so the test can revoke in
/// between); brakes: max iterations and grant refusals.
fn actuator_js(count: u64, pause_after: u64, max_iterations: u64) -> String {
    format!(
        r#"export const meta = {{ name: "actuator", description: "a grant-gated actuator loop with brakes" }};
const grant = await capability("grant.request", {{ capability: "bash", count: {count}, reason: "append to acts.txt" }});
let actions = 0, halted = "max_iterations", last = 0;
for (let i = 0; i < {max_iterations}; i++) {{
  const sensed = await capability("fs.read", {{ path: "acts.txt" }}).catch(() => ({{ content: "" }}));
  last = String(sensed.content ?? "").split("\n").filter(l => l).length;
  if (actions === {pause_after}) await capability("events.wait", {{ source: "test", type: "continue" }});
  try {{
    await capability("grant.act", {{ grant: grant.grant_id, capability: "bash", input: {{ argv: ["sh", "-c", "echo act >> acts.txt"] }} }});
    actions++;
  }} catch (e) {{
    const m = String(e && e.message || e);
    halted = ["grant_revoked", "grant_exhausted", "grant_expired", "grant_scope"].find(r => m.includes(r)) || ("error: " + m);
    break;
  }}
}}
return {{ actions, halted, grant: grant.grant_id, sensed: last }};
"#
    )
}

fn acts(ctx: &Ctx) -> usize {
    std::fs::read_to_string(ctx.path("acts.txt")).map_or(0, |t| t.lines().count())
}

fn status(ctx: &Ctx, id: &str) -> Value {
    let s = ctx.hwf(["status", id, "--json"]);
    s.expect_code(0);
    s.json()["data"].clone()
}

fn runner_once(ctx: &Ctx) -> Value {
    let r = ctx.hwf(["runner", "--once", "--json"]);
    r.expect_code(0);
    r.json()["data"].clone()
}

/// Start the loop; it parks on the grant. Returns (run id, grant call).
fn start(ctx: &Ctx, js: &str) -> (String, String) {
    let path = ctx.write("actuator.js", js);
    let out = ctx.hwf([
        "run",
        path.to_str().expect("utf8"),
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
    let ctx = Ctx::new();
    let (id, call) = start(&ctx, &actuator_js(10, 3, 50));
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
    ctx.hwf(["events", "send", "--source", "test", "--type", "continue", "--id", "go"])
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
    let ctx = Ctx::new();
    let (id, call) = start(&ctx, &actuator_js(2, 1000, 50));
    ctx.hwf(["control", "decide", &id, &call, "approve"]).expect_code(0);
    assert_eq!(runner_once(&ctx)["executed"], json!([[id, "succeeded"]]));
    assert_eq!(status(&ctx, &id)["result"]["halted"], "grant_exhausted");
    assert_eq!(acts(&ctx), 2);
    // The max-iterations brake.
    let ctx = Ctx::new();
    let (id, call) = start(&ctx, &actuator_js(100, 1000, 4));
    ctx.hwf(["control", "decide", &id, &call, "approve"]).expect_code(0);
    assert_eq!(runner_once(&ctx)["executed"], json!([[id, "succeeded"]]));
    assert_eq!(status(&ctx, &id)["result"]["halted"], "max_iterations");
    assert_eq!(acts(&ctx), 4);
    // Rejected: the request fails with grant_denied and nothing acts.
    let ctx = Ctx::new();
    let (id, call) = start(&ctx, &actuator_js(2, 1000, 50));
    ctx.hwf(["control", "decide", &id, &call, "reject", "--reason", "no"])
        .expect_code(0);
    assert_eq!(runner_once(&ctx)["executed"], json!([[id, "failed"]]));
    let msg = status(&ctx, &id)["error"]["message"].as_str().unwrap_or("").to_owned();
    assert!(msg.contains("grant_denied"), "{msg}");
    assert_eq!(acts(&ctx), 0);
}
