//! The hello harness end to end: result, journal, status.

use crate::common::{Ctx, harnesses, hello_fixture};
use hwf_host::broker::Fingerprint;
use serde_json::{Value, json};

fn run_hello(ctx: &Ctx) -> String {
    let fixture = hello_fixture();
    let out = ctx.run_json(
        harnesses::HELLO,
        r#"{"name":"world"}"#,
        &["--agents", fixture.to_str().expect("utf8")],
    );
    out.expect_code(0);
    let v = out.json();
    assert_eq!(v["success"], true);
    assert_eq!(v["data"]["state"], "succeeded");
    assert_eq!(
        v["data"]["result"],
        json!({"greeting": "hello, world", "result": "HELLO, WORLD"})
    );
    v["data"]["run_id"].as_str().expect("run id").to_owned()
}

#[test]
fn hello_prints_the_greeting_in_human_mode() {
    let ctx = Ctx::new();
    let fixture = hello_fixture();
    let out = ctx.hwf([
        "run",
        harnesses::HELLO,
        "--args",
        r#"{"name":"world"}"#,
        "--agents",
        fixture.to_str().expect("utf8"),
    ]);
    out.expect_code(0);
    assert!(
        out.stdout.contains("hello, world") && out.stdout.contains("HELLO, WORLD"),
        "{out:?}"
    );
}

#[test]
fn hello_journal_has_calls_phases_and_fingerprints() {
    let ctx = Ctx::new();
    let run_id = run_hello(&ctx);
    let journal = ctx.journal(&run_id);
    let types: Vec<&str> = journal.iter().map(|e| e["type"].as_str().expect("type")).collect();
    assert_eq!(
        types,
        [
            "run_started",
            "phase",
            "call_started",
            "call_completed",
            "phase",
            "call_started",
            "call_completed",
            "log",
            "run_completed"
        ]
    );
    let seqs: Vec<u64> = journal.iter().map(|e| e["seq"].as_u64().expect("seq")).collect();
    assert_eq!(seqs, (1..=9).collect::<Vec<_>>());

    let greet = &journal[2];
    assert_eq!(greet["call"], "1");
    assert_eq!(greet["label"], "greet");
    let expected = json!({"agent": "hermes.greeter", "input": {"subject": "world"}, "label": "greet", "phase": "greet", "schema": {"greeting": "string"}});
    assert_eq!(greet["request"], expected);
    assert_eq!(greet["fingerprint"], Fingerprint::of("agent", &expected).as_str());
    assert_eq!(journal[3]["result"], json!({"greeting": "hello, world"}));
    assert_eq!(journal[3]["tokens"], 12);
    assert_eq!(journal[5]["call"], "2");
    assert_eq!(journal[5]["request"]["input"], json!({"text": "hello, world"}));
    assert_eq!(journal[8]["state"], "succeeded");
}

#[test]
fn status_shows_calls_and_phases() {
    let ctx = Ctx::new();
    let run_id = run_hello(&ctx);
    let out = ctx.hwf(["status", &run_id, "--json"]);
    out.expect_code(0);
    let s = out.json()["data"].clone();
    assert_eq!(s["state"], "succeeded");
    assert_eq!(s["phase"], "shout");
    let calls = s["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), 2);
    for (c, label) in calls.iter().zip(["greet", "shout"]) {
        assert_eq!(c["label"], label);
        assert_eq!(c["kind"], "agent");
        assert_eq!(c["state"], "done");
        assert!(
            c["fingerprint"]
                .as_str()
                .is_some_and(|f| f.starts_with("b3:") && f.len() == 67)
        );
        assert!(c["duration_us"].is_u64());
    }
    let phases: Vec<&Value> = s["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| &p["title"])
        .collect();
    assert_eq!(phases, [&json!("greet"), &json!("shout")]);
    assert_eq!(s["counts"]["tokens"], 21);
    assert_eq!(
        s["declared_phases"],
        json!([{"title": "greet", "status": "done"}, {"title": "shout", "status": "done"}])
    );
    assert_eq!(s["counts"]["agent_calls"], 2);

    let human = ctx.hwf(["status", &run_id]);
    human.expect_code(0);
    assert!(
        human.stdout.contains("greet") && human.stdout.contains("succeeded"),
        "{human:?}"
    );
    let overview = ctx.hwf(["overview", "--json"]);
    assert_eq!(overview.json()["data"]["runs"][0]["run_id"], run_id.as_str());
}

#[test]
fn the_same_run_is_deterministic() {
    let ctx = Ctx::new();
    let a = run_hello(&ctx);
    let b = run_hello(&ctx);
    let strip = |j: Vec<Value>| -> Vec<Value> {
        j.into_iter()
            .filter(|e| e["type"] != "run_started")
            .map(|mut e| {
                for k in ["ts_ms", "duration_us", "duration_ms"] {
                    e.as_object_mut().expect("object").remove(k);
                }
                e
            })
            .collect()
    };
    assert_eq!(strip(ctx.journal(&a)), strip(ctx.journal(&b)));
}

#[test]
fn a_missing_fixture_answer_fails_the_run_with_the_label() {
    let ctx = Ctx::new();
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let out = ctx.run_json(harnesses::HELLO, "{}", &["--agents", empty.to_str().expect("utf8")]);
    out.expect_code(1);
    let v = out.json();
    assert_eq!(v["success"], false);
    assert_eq!(v["error"]["code"], "harness_error");
    assert!(
        v["error"]["message"]
            .as_str()
            .expect("msg")
            .contains("no fixture response for greet"),
        "{v}"
    );
}
