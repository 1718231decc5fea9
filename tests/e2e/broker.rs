//! The broker through real harnesses: schema retries, typed call errors the
//! harness can catch, redaction of everything stored or printed.

use crate::common::{Ctx, harnesses};
use serde_json::json;

#[test]
fn schema_retries_succeed_on_the_third_attempt() {
    let ctx = Ctx::new();
    let fixture = ctx.write(
        "f.json",
        r#"{"responses": [{"match": {"label": "verdict"}, "sequence": [
            {"output": {"nope": 1}},
            {"output": "not json at all"},
            {"output": "```json\n{\"verdict\": \"confirmed\"}\n```"}
        ]}]}"#,
    );
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"schema"}"#,
        &["--agents", fixture.to_str().expect("utf8")],
    );
    out.expect_code(0);
    let v = out.json();
    assert_eq!(v["data"]["result"], json!({"ok": {"verdict": "confirmed"}}));
    let id = v["data"]["run_id"].as_str().expect("id");
    let journal = ctx.journal(id);
    let attempts: Vec<_> = journal.iter().filter(|e| e["type"] == "call_attempt").collect();
    assert_eq!(attempts.len(), 2, "two refused attempts are journaled");
    assert!(attempts[0]["error"].as_str().expect("error").contains("verdict"));
    assert!(attempts[1]["error"].as_str().expect("error").contains("not JSON"));
    let done = journal
        .iter()
        .find(|e| e["type"] == "call_completed")
        .expect("completed");
    assert_eq!(done["attempts"], 3);
    assert_eq!(done["ok"], true);
}

#[test]
fn schema_mismatch_after_all_retries_names_the_field() {
    let ctx = Ctx::new();
    let fixture = ctx.write(
        "f.json",
        r#"{"responses": [{"match": {"label": "verdict"}, "output": {"nope": 1}}]}"#,
    );
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"schema"}"#,
        &["--agents", fixture.to_str().expect("utf8")],
    );
    out.expect_code(0);
    let err = &out.json()["data"]["result"]["error"];
    assert_eq!(err["code"], "schema_mismatch");
    assert_eq!(err["kind"], "SchemaMismatch");
    let msg = err["message"].as_str().expect("message");
    assert!(msg.contains("verdict") && msg.contains("after 5 attempts"), "{msg}");
}

#[test]
fn call_errors_are_typed_and_catchable() {
    let ctx = Ctx::new();
    // A fixture with no rules: a backend is configured, it answers nothing.
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"catch"}"#,
        &["--agents", empty.to_str().expect("utf8")],
    );
    out.expect_code(0);
    let r = &out.json()["data"]["result"];
    assert_eq!(r["capability"], "side_effect_denied");
    // No fixture answers "a", "b" or "c": typed agent failures per slot.
    assert_eq!(r["parallel"], json!(["agent_failed", "agent_failed"]));
    assert_eq!(r["next"], "agent_failed");
    assert_eq!(r["missing"], "agent_failed: no fixture response for missing");
    assert!(r["calls_left"].as_u64().expect("calls_left") > 0);
    // Denials are journaled like any other call.
    let id = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let journal = ctx.journal(&id);
    let cap = journal
        .iter()
        .find(|e| e["type"] == "call_completed" && e["kind"] == "capability")
        .expect("capability call journaled");
    assert_eq!(cap["error"]["kind"], "denied");
}

#[test]
fn the_harness_error_fails_the_run() {
    let ctx = Ctx::new();
    let out = ctx.run_json(harnesses::PROBE, r#"{"op":"fail"}"#, &[]);
    out.expect_code(1);
    assert_eq!(out.json()["error"]["code"], "harness_error");
}

#[test]
fn large_results_spill_to_a_file() {
    let ctx = Ctx::new();
    let out = ctx.run_json(harnesses::HOSTILE, r#"{"mode":"large_result"}"#, &[]);
    out.expect_code(0);
    let d = &out.json()["data"];
    assert!(d["result"].is_null());
    assert_eq!(d["result_preview"].as_str().expect("preview").len(), 4096);
    let path = ctx.state().join(d["result_path"].as_str().expect("path"));
    let full: serde_json::Value = serde_json::from_slice(&std::fs::read(path).expect("result.json")).expect("json");
    assert_eq!(full["items"].as_array().expect("items").len(), 2000);
}

#[test]
fn secrets_never_reach_the_store_or_the_output() {
    let ctx = Ctx::new();
    let secrets = [
        "sk-live0123456789abcdefghij",
        "ghp_ABCDEFGHIJKLMNOPQRSTUVWX0123",
        "hunter2hunter2",
        "abcdefghijklmnop1234",
        "plain-text-key",
        "s3cr3t-arg-value",
    ];
    let args = json!({
        "op": "echo_args",
        "password": "s3cr3t-arg-value",
        "note": "use sk-live0123456789abcdefghij please",
    });
    let a = ctx.run_json(harnesses::PROBE, &args.to_string(), &[]);
    a.expect_code(0);
    let b = ctx.run_json(harnesses::HOSTILE, r#"{"mode":"print_secret"}"#, &[]);
    b.expect_code(0);
    let c = ctx.hwf(["run", harnesses::HOSTILE, "--args", r#"{"mode":"print_secret"}"#]);
    c.expect_code(0);
    let mut everything = ctx.all_state_text();
    for run in [&a, &b, &c] {
        everything.push_str(&run.stdout);
        everything.push_str(&run.stderr);
    }
    for id in [&a, &b] {
        let id = id.json()["data"]["run_id"].as_str().expect("id").to_owned();
        let s = ctx.hwf(["status", &id]);
        everything.push_str(&s.stdout);
        let s = ctx.hwf(["status", &id, "--json"]);
        everything.push_str(&s.stdout);
    }
    for secret in secrets {
        assert!(!everything.contains(secret), "secret {secret:?} leaked");
    }
    assert!(everything.contains("[REDACTED]"));
}
