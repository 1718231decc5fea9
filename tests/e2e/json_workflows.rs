//! Declarative JSON workflows: validation with codes and pointers, runs in
//! the bundled JSON runtime component through the same broker, saving and
//! running by name, the facade, and replay.

use crate::common::{Ctx, root};
use serde_json::{Value, json};

fn hello_def() -> String {
    root()
        .join("harnesses/hello.workflow.json")
        .to_str()
        .expect("utf8")
        .to_owned()
}

fn hello_fixture() -> String {
    root()
        .join("harnesses/hello/fixture.json")
        .to_str()
        .expect("utf8")
        .to_owned()
}

#[test]
fn hello_definition_validates_and_runs() {
    let ctx = Ctx::new();
    let v = ctx.hwf(["validate", &hello_def(), "--json"]);
    v.expect_code(0);
    let d = &v.json()["data"];
    assert_eq!(
        (d["valid"].clone(), d["language"].clone(), d["meta"]["name"].clone()),
        (json!(true), json!("json"), json!("hello"))
    );
    let phases: Vec<&Value> = d["meta"]["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| &p["title"])
        .collect();
    assert_eq!(phases, [&json!("greet"), &json!("shout")]);

    let out = ctx.run_json(&hello_def(), r#"{"name":"world"}"#, &["--agents", &hello_fixture()]);
    out.expect_code(0);
    let data = out.json()["data"].clone();
    assert_eq!(
        data["result"],
        json!({"greeting": "hello, world", "result": "HELLO, WORLD"})
    );
    let journal = ctx.journal(data["run_id"].as_str().expect("id"));
    let labels: Vec<&str> = journal
        .iter()
        .filter(|e| e["type"] == "call_started")
        .filter_map(|e| e["label"].as_str())
        .collect();
    assert_eq!(labels, ["greet", "shout"]);
    assert_eq!(
        journal[2]["request"]["input"],
        json!({"subject": "world"}),
        "{}",
        journal[2]
    );

    // Resume with no agent backend: both calls replay.
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let again = ctx.hwf([
        "run",
        "--resume-from",
        data["run_id"].as_str().expect("id"),
        "--agents",
        empty.to_str().expect("utf8"),
        "--json",
    ]);
    again.expect_code(0);
    assert_eq!(again.json()["data"]["counts"]["replayed"], 2);
    assert_eq!(again.json()["data"]["result"], data["result"]);
}

#[test]
fn a_bad_definition_reports_each_problem_with_code_and_pointer() {
    let ctx = Ctx::new();
    let bad = ctx.write(
        "bad.workflow.json",
        r#"{"version": "2", "name": "bad", "policy": {"network": true},
            "steps": [
              {"id": "a", "type": "agent", "prompt": "hi", "input": {"v": "$ref:nope.output.z"}},
              {"id": "a", "type": "agent", "prompt": "again"}
            ]}"#,
    );
    let out = ctx.hwf(["validate", bad.to_str().expect("utf8"), "--json"]);
    out.expect_code(2);
    let v = out.json();
    assert_eq!(v["error"]["code"], "invalid_script");
    let found: Vec<(String, String)> = v["data"]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_owned(),
                d["pointer"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    for want in [
        ("unsupported_version", "/version"),
        ("network_not_allowed", "/policy/network"),
        ("unknown_ref", "/steps/0/input/v"),
        ("duplicate_step_id", "/steps/1/id"),
    ] {
        assert!(
            found.contains(&(want.0.to_owned(), want.1.to_owned())),
            "{want:?} not in {found:?}"
        );
    }
    let human = ctx.hwf(["validate", bad.to_str().expect("utf8")]);
    human
        .expect_code(2)
        .expect_stderr("duplicate_step_id")
        .expect_stderr("(at /steps/1/id)");
    ctx.hwf(["run", bad.to_str().expect("utf8")])
        .expect_code(2)
        .expect_stderr("invalid_script");
    let broken = ctx.write("broken.json", "{\"version\": \"1\", ");
    ctx.hwf(["validate", broken.to_str().expect("utf8")])
        .expect_code(2)
        .expect_stderr("invalid_json");
}

#[test]
fn parallel_branches_pipelines_and_conditions() {
    let ctx = Ctx::new();
    let def = ctx.write(
        "flow.workflow.json",
        r#"{"version": "1", "name": "flow", "inputs": {"items": {"default": ["a", "b", "c"]}},
            "steps": [
              {"id": "both", "type": "parallel", "branches": [
                 [{"id": "qa", "type": "agent", "prompt": "qa", "label": "qa"}],
                 {"steps": [{"id": "review", "type": "agent", "prompt": "review", "label": "review"}]}
              ]},
              {"id": "gate", "type": "if", "condition": {"op": "eq", "ref": "$ref:qa.output.verdict", "value": "pass"},
               "then": [{"id": "ship", "type": "agent", "prompt": "ship it", "label": "ship",
                         "input": {"qa": "$ref:qa.output.verdict", "review": "$ref:review.output.verdict"}}],
               "else": [{"id": "hold", "type": "agent", "prompt": "hold", "label": "hold"}]},
              {"id": "each", "type": "pipeline", "items": "$ref:inputs.items",
               "stages": [{"type": "agent", "prompt": "$ref:item", "label": "stage"}]}
            ],
            "output": {"ship": "$ref:ship.output", "each": "$ref:each.output"}}"#,
    );
    let f = ctx.write(
        "f.json",
        r#"{"responses": [
          {"match": {"label": "qa"}, "output": {"verdict": "pass"}, "delay_ms": 20},
          {"match": {"label": "review"}, "output": {"verdict": "approve"}, "delay_ms": 20},
          {"match": {"label": "ship", "input.review": "approve"}, "output": {"shipped": true}},
          {"match": {"label": "stage", "prompt": "a"}, "output": "A"},
          {"match": {"label": "stage", "prompt": "b"}, "output": "B"},
          {"match": {"label": "stage", "prompt": "c"}, "output": "C"}
        ]}"#,
    );
    let out = ctx.run_json(
        def.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8")],
    );
    out.expect_code(0);
    let data = out.json()["data"].clone();
    assert_eq!(
        data["result"],
        json!({"ship": {"shipped": true}, "each": ["A", "B", "C"]}),
        "{data}"
    );
    // The branches ran as host branch instances: calls 1.0.1 and 1.1.1.
    let ids: Vec<String> = ctx
        .journal(data["run_id"].as_str().expect("id"))
        .iter()
        .filter(|e| e["type"] == "call_started" && e["kind"] == "agent")
        .map(|e| e["call"].as_str().expect("call").to_owned())
        .collect();
    assert!(
        ids.contains(&"1.0.1".to_owned()) && ids.contains(&"1.1.1".to_owned()),
        "{ids:?}"
    );
}

#[test]
fn saved_definitions_run_by_name_and_through_the_facade() {
    let ctx = Ctx::new();
    let save = ctx.hwf(["script", "save", "hello-json", &hello_def(), "--json"]);
    save.expect_code(0);
    assert_eq!(save.json()["data"]["language"], "json");
    assert!(ctx.state().join("scripts/hello-json/v000001.json").is_file());
    let out = ctx.run_json("hello-json", r#"{"name":"world"}"#, &["--agents", &hello_fixture()]);
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"]["result"], "HELLO, WORLD");
    let inspect = ctx.hwf(["script", "inspect", "hello-json", "--json"]).json();
    assert_eq!(inspect["data"]["meta"]["phases"][1]["title"], "shout");

    // The facade: a definition object plus inputs.
    let definition: Value = serde_json::from_str(&std::fs::read_to_string(hello_def()).expect("def")).expect("json");
    let mut child = ctx
        .cmd()
        .args(["facade", "workflow", "--agents", &hello_fixture()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("facade");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(
            json!({"action": "run", "definition": definition, "inputs": {"name": "world"}})
                .to_string()
                .as_bytes(),
        )
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["data"]["result"]["greeting"], "hello, world", "{v}");
}
