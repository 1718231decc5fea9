//! Declarative JSON workflows in the hermes-plugin-dynamic-workflows
//! format: validation with codes and pointers, runs in the bundled JSON
//! runtime component through the same broker, saving and running by name,
//! the facade, and replay.
//!
//! The expected results are the ones the seed's own runtime
//! (`src/hermes_workflows/runtime.py`, `sandbox.py`, `schema.py`) gives for
//! the same definitions; its tests (`tests/test_control_flow.py`,
//! `tests/test_run.py`) are the source of several definitions here.

use crate::common::{Ctx, Run, root};
use serde_json::{Value, json};

fn path(rel: &str) -> String {
    root().join(rel).to_str().expect("utf8").to_owned()
}

fn hello_fixture() -> String {
    path("harnesses/hello/fixture.json")
}

/// Write a definition and a fixture, run it with `args`.
fn run_def(ctx: &Ctx, def: &Value, args: &str, fixture: &Value) -> Run {
    let d = ctx.write("wf.workflow.json", def.to_string());
    let f = ctx.write("fixture.json", fixture.to_string());
    ctx.run_json(
        d.to_str().expect("utf8"),
        args,
        &["--agents", f.to_str().expect("utf8")],
    )
}

/// `hwf validate --json` of a definition: its (code, pointer) pairs.
fn diagnostics(ctx: &Ctx, def: &Value) -> Vec<(String, String)> {
    let d = ctx.write("check.workflow.json", def.to_string());
    let out = ctx.hwf(["validate", d.to_str().expect("utf8"), "--json"]);
    out.expect_code(2);
    out.json()["data"]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_owned(),
                d["pointer"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[track_caller]
fn assert_has(found: &[(String, String)], code: &str, pointer: &str) {
    assert!(
        found.iter().any(|(c, p)| c == code && p == pointer),
        "({code}, {pointer}) not in {found:?}"
    );
}

fn agent_calls(ctx: &Ctx, run: &Value) -> Vec<Value> {
    ctx.journal(run["data"]["run_id"].as_str().expect("id"))
        .into_iter()
        .filter(|e| e["type"] == "call_started" && e["kind"] == "agent")
        .collect()
}

#[test]
fn the_seed_hello_example_byte_for_byte_runs_to_hello_world() {
    let ctx = Ctx::new();
    // harnesses/seed-hello.workflow.json is the seed's
    // examples/hello.workflow.json, unchanged.
    let def = path("harnesses/seed-hello.workflow.json");
    let v = ctx.hwf(["validate", &def, "--json"]);
    v.expect_code(0);
    assert_eq!(v.json()["data"]["meta"]["name"], "hello");
    let out = ctx.run_json(&def, r#"{"name":"world"}"#, &["--agents", &hello_fixture()]);
    out.expect_code(0);
    // runtime.execute(): {"outputs": {step_id: out}, "last": <last output>}.
    assert_eq!(
        out.json()["data"]["result"],
        json!({
            "outputs": {"greet": {"greeting": "hello, world"}, "shout": {"result": "HELLO, WORLD"}},
            "last": {"result": "HELLO, WORLD"}
        })
    );
}

#[test]
fn hello_definition_validates_and_runs() {
    let ctx = Ctx::new();
    let def = path("harnesses/hello.workflow.json");
    let v = ctx.hwf(["validate", &def, "--json"]);
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

    let out = ctx.run_json(&def, r#"{"name":"world"}"#, &["--agents", &hello_fixture()]);
    out.expect_code(0);
    let data = out.json()["data"].clone();
    assert_eq!(
        data["result"]["output"],
        json!({"greeting": "hello, world", "result": "HELLO, WORLD"})
    );
    // A phase container's output lists its steps.
    assert_eq!(data["result"]["outputs"]["greeting"], json!({"completed": ["greet"]}));
    let calls = agent_calls(&ctx, &out.json());
    let labels: Vec<&str> = calls.iter().filter_map(|e| e["label"].as_str()).collect();
    assert_eq!(labels, ["greet", "shout"]);
    assert_eq!(calls[0]["request"]["input"], json!({"subject": "world"}));
    assert_eq!(calls[1]["request"]["phase"], "shout");

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
fn a_type_key_is_refused_with_an_error_naming_kind() {
    let ctx = Ctx::new();
    let def = json!({"version": "1", "name": "old", "policy": {"network": false, "filesystem": false},
        "steps": [{"id": "a", "type": "agent", "agent": "hermes.greeter", "output_schema": {}}]});
    let found = diagnostics(&ctx, &def);
    assert_has(&found, "kind_required", "/steps/0/kind");
    let d = ctx.write("old.workflow.json", def.to_string());
    ctx.hwf(["validate", d.to_str().expect("utf8")])
        .expect_code(2)
        .expect_stderr("\"kind\": \"agent\"");
}

#[test]
fn a_bad_definition_reports_each_problem_with_code_and_pointer() {
    let ctx = Ctx::new();
    let bad = json!({"version": "2", "name": "bad", "policy": {"network": true, "max_parallel": 0, "gpu": 1},
    "steps": [
      {"id": "a", "kind": "agent", "agent": "x", "input": {"v": "$ref:nope.output.z", "w": "$ref:just-a-name"}},
      {"id": "a", "kind": "agent", "agent": "y", "output_schema": {"type": "strnig"}},
      {"id": "b", "kind": "teleport"}
    ]});
    let found = diagnostics(&ctx, &bad);
    for (code, pointer) in [
        ("unsupported_version", "/version"),
        ("network_not_allowed", "/policy/network"),
        ("invalid_policy", "/policy/max_parallel"),
        ("unknown_policy_key", "/policy/gpu"),
        ("unresolved_ref", "/steps/0/input/v"),
        ("bad_ref", "/steps/0/input/w"),
        ("duplicate_step_id", "/steps/1/id"),
        ("invalid_output_schema", "/steps/1/output_schema"),
        ("unknown_step_kind", "/steps/2/kind"),
    ] {
        assert_has(&found, code, pointer);
    }
    let f = ctx.write("bad.workflow.json", bad.to_string());
    ctx.hwf(["validate", f.to_str().expect("utf8")])
        .expect_code(2)
        .expect_stderr("duplicate_step_id")
        .expect_stderr("(at /steps/1/id)");
    ctx.hwf(["run", f.to_str().expect("utf8")])
        .expect_code(2)
        .expect_stderr("invalid_script");
    let broken = ctx.write("broken.json", "{\"version\": \"1\", ");
    ctx.hwf(["validate", broken.to_str().expect("utf8")])
        .expect_code(2)
        .expect_stderr("invalid_json");
}

/// tests/test_control_flow.py's `if_definition`.
fn if_definition(flag_ref: &str) -> Value {
    let echo = json!({"echo": "object", "digest": "string"});
    json!({"version": "1", "name": "if_flow", "inputs": {"flag": "bool"},
    "policy": {"network": false, "filesystem": false, "max_parallel": 2},
    "steps": [
      {"kind": "if", "id": "gate", "condition": {"ref": flag_ref, "op": "truthy"},
       "then": [{"kind": "agent", "id": "then_step", "agent": "hermes.echo", "input": {"value": "then"}, "output_schema": echo}],
       "else": [{"kind": "agent", "id": "else_step", "agent": "hermes.echo", "input": {"value": "else"}, "output_schema": echo}]},
      {"kind": "agent", "id": "after", "agent": "hermes.echo",
       "input": {"chosen": "$ref:gate.output.branch", "payload": "$ref:gate.output.output.echo"},
       "output_schema": echo, "depends_on": ["gate"]}
    ]})
}

/// An echo agent: answers `{"echo": input, "digest": …}` for the inputs
/// these tests send.
fn echo_fixture() -> Value {
    let mut rules = Vec::new();
    for v in ["then", "else"] {
        rules.push(json!({"match": {"agent": "hermes.echo", "input.value": v},
                          "output": {"echo": {"value": v}, "digest": format!("d-{v}")}}));
        rules.push(json!({"match": {"agent": "hermes.echo", "input.chosen": v},
                          "output": {"echo": {"chosen": v, "payload": {"value": v}}, "digest": format!("d-after-{v}")}}));
    }
    json!({ "responses": rules })
}

#[test]
fn if_yields_branch_and_output_and_its_steps_stay_local() {
    let ctx = Ctx::new();
    for (flag, branch) in [(true, "then"), (false, "else")] {
        let out = run_def(
            &ctx,
            &if_definition("$ref:inputs.flag"),
            &json!({ "flag": flag }).to_string(),
            &echo_fixture(),
        );
        out.expect_code(0);
        let r = out.json()["data"]["result"].clone();
        // _exec_if: {"branch", "output": last output of the branch}, and the
        // branch's own step ids are popped from the outputs.
        let gate = json!({"branch": branch, "output": {"echo": {"value": branch}, "digest": format!("d-{branch}")}});
        let after =
            json!({"echo": {"chosen": branch, "payload": {"value": branch}}, "digest": format!("d-after-{branch}")});
        assert_eq!(
            r,
            json!({"outputs": {"gate": gate, "after": after}, "last": after}),
            "{flag}"
        );
        // Only the chosen branch ran.
        let ran: Vec<String> = agent_calls(&ctx, &out.json())
            .iter()
            .map(|e| e["label"].as_str().unwrap_or("").to_owned())
            .collect();
        assert_eq!(ran, [format!("{branch}_step"), "after".to_owned()]);
    }
    // A reference from outside to a branch-local step is an unresolved ref.
    let mut def = if_definition("$ref:inputs.flag");
    def["steps"][1]["input"] = json!({"bad": "$ref:then_step.output.echo"});
    assert_has(&diagnostics(&ctx, &def), "unresolved_ref", "/steps/1/input/bad");
    let def = if_definition("$ref:missing.output.value");
    assert_has(&diagnostics(&ctx, &def), "unresolved_ref", "/steps/0/condition/ref");
}

/// The call ids of the agent calls whose agent `which` picks, from a
/// journal.
fn agent_call_ids(journal: &[Value], which: impl Fn(&str) -> bool) -> Vec<Value> {
    journal
        .iter()
        .filter(|e| e["type"] == "call_started" && e["kind"] == "agent")
        .filter(|e| e["request"]["agent"].as_str().is_some_and(&which))
        .map(|e| e["call"].clone())
        .collect()
}

#[test]
fn parallel_branches_run_at_once_with_referenceable_ids() {
    let ctx = Ctx::new();
    let def = json!({"version": "1", "name": "fan", "policy": {"network": false, "filesystem": false, "max_parallel": 2},
    "steps": [
      {"kind": "parallel", "id": "both", "branches": [
        {"kind": "agent", "id": "qa", "agent": "hermes.qa", "output_schema": {"verdict": "string"}},
        {"kind": "agent", "id": "review", "agent": "hermes.review", "output_schema": {"verdict": "string"}}
      ]},
      {"kind": "agent", "id": "ship", "agent": "hermes.ship", "depends_on": ["both"],
       "input": {"qa": "$ref:qa.output.verdict", "review": "$ref:both.output.branches.review.verdict"},
       "output_schema": {"shipped": "bool"}}
    ]});
    let fixture = json!({"responses": [
      {"match": {"agent": "hermes.qa"}, "output": {"verdict": "pass"}, "delay_ms": 400},
      {"match": {"agent": "hermes.review"}, "output": {"verdict": "approve"}, "delay_ms": 400},
      {"match": {"agent": "hermes.ship", "input.qa": "pass", "input.review": "approve"}, "output": {"shipped": true}}
    ]});
    let out = run_def(&ctx, &def, "{}", &fixture);
    out.expect_code(0);
    let r = out.json()["data"]["result"].clone();
    assert_eq!(
        r["outputs"]["both"],
        json!({"branches": {"qa": {"verdict": "pass"}, "review": {"verdict": "approve"}}})
    );
    assert_eq!(r["outputs"]["qa"], json!({"verdict": "pass"}));
    assert_eq!(r["last"], json!({"shipped": true}));
    // The branches ran as host branch instances, both in flight at once.
    let journal = ctx.journal(out.json()["data"]["run_id"].as_str().expect("id"));
    let branch_calls = agent_call_ids(&journal, |a| a == "hermes.qa" || a == "hermes.review");
    let started: Vec<usize> = journal
        .iter()
        .enumerate()
        .filter(|(_, e)| e["type"] == "call_started" && branch_calls.contains(&e["call"]))
        .map(|(i, _)| i)
        .collect();
    let first_done = journal
        .iter()
        .position(|e| e["type"] == "call_completed" && branch_calls.contains(&e["call"]))
        .expect("done");
    assert_eq!(started.len(), 2, "{journal:?}");
    assert!(
        started.iter().all(|&s| s < first_done),
        "branches ran one after another"
    );

    // The seed fails a fan-out wider than policy.max_parallel.
    let mut narrow = def.clone();
    narrow["policy"]["max_parallel"] = json!(1);
    let out = run_def(&ctx, &narrow, "{}", &fixture);
    out.expect_code(1);
    assert!(
        out.json()["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("fan-out 2 exceeds max_parallel=1"),
        "{}",
        out.stdout
    );
    // A branch reading a sibling waits for it:
    // `json_semantics::a_parallel_branch_reading_a_sibling_runs_after_it`.
}

#[test]
fn phase_and_pipeline_are_containers() {
    let ctx = Ctx::new();
    let def = json!({"version": "1", "name": "containers", "inputs": {"topic": "string"},
    "policy": {"network": false, "filesystem": false},
    "steps": [
      {"kind": "phase", "id": "research", "label": "Research", "steps": [
        {"kind": "pipeline", "id": "chain", "steps": [
          {"kind": "agent", "id": "draft", "agent": "hermes.writer", "input": {"topic": "$ref:inputs.topic"},
           "output_schema": {"text": "string"}},
          {"kind": "agent", "id": "polish", "agent": "hermes.editor", "input": {"text": "$ref:draft.output.text"},
           "output_schema": {"text": "string"}}
        ]}
      ]},
      {"kind": "agent", "id": "sum", "agent": "hermes.summarizer", "depends_on": ["chain"],
       "input": {"text": "$ref:chain.output.text"}, "output_schema": {"summary": "string"}}
    ]});
    let fixture = json!({"responses": [
      {"match": {"agent": "hermes.writer", "input.topic": "wasm"}, "output": {"text": "draft about wasm"}},
      {"match": {"agent": "hermes.editor", "input.text": "draft about wasm"}, "output": {"text": "Wasm, polished."}},
      {"match": {"agent": "hermes.summarizer", "input.text": "Wasm, polished."}, "output": {"summary": "wasm"}}
    ]});
    let out = run_def(&ctx, &def, r#"{"topic": "wasm"}"#, &fixture);
    out.expect_code(0);
    let r = out.json()["data"]["result"].clone();
    // _exec_pipeline: the last inner output; _exec_phase: {"completed": ids}.
    assert_eq!(r["outputs"]["chain"], json!({"text": "Wasm, polished."}));
    assert_eq!(r["outputs"]["research"], json!({"completed": ["chain"]}));
    assert_eq!(r["outputs"]["draft"], json!({"text": "draft about wasm"}));
    assert_eq!(r["last"], json!({"summary": "wasm"}));
    let calls = agent_calls(&ctx, &out.json());
    assert_eq!(calls[0]["request"]["phase"], "Research");
    let journal = ctx.journal(out.json()["data"]["run_id"].as_str().expect("id"));
    assert!(
        journal.iter().any(|e| e["type"] == "phase" && e["title"] == "Research"),
        "{journal:?}"
    );
    let v = ctx.hwf([
        "validate",
        ctx.path("wf.workflow.json").to_str().expect("utf8"),
        "--json",
    ]);
    assert_eq!(v.json()["data"]["meta"]["phases"][0]["title"], "Research");
}

#[test]
fn depends_on_must_name_an_earlier_step() {
    let ctx = Ctx::new();
    let step = |id: &str, deps: Value| json!({"kind": "agent", "id": id, "agent": "hermes.noop", "input": {}, "output_schema": {}, "depends_on": deps});
    let base = |steps: Value| json!({"version": "1", "name": "deps", "policy": {"network": false, "filesystem": false}, "steps": steps});
    let found = diagnostics(&ctx, &base(json!([step("a", json!(["missing"]))])));
    assert_has(&found, "unknown_dependency", "/steps/0/depends_on/0");
    let found = diagnostics(&ctx, &base(json!([step("a", json!(["b"])), step("b", json!([]))])));
    assert_has(&found, "dependency_not_available", "/steps/0/depends_on/0");
    let found = diagnostics(&ctx, &base(json!([step("a", json!(["a"]))])));
    assert_has(&found, "dependency_not_available", "/steps/0/depends_on/0");
    // test_container_depends_on_bad_type.
    for bad in [json!([1]), json!([null]), json!("missing")] {
        let def = base(json!([{"kind": "phase", "id": "p", "depends_on": bad,
            "steps": [{"kind": "agent", "id": "x", "agent": "hermes.noop", "input": {}, "output_schema": {}}]}]));
        assert_has(&diagnostics(&ctx, &def), "invalid_depends_on", "/steps/0/depends_on");
    }
    // An earlier step is fine, and ordering holds at run time.
    let def = base(json!([step("a", json!([])), step("b", json!(["a"]))]));
    let fixture = json!({"responses": [{"match": {"agent": "hermes.noop"}, "output": {}}]});
    let out = run_def(&ctx, &def, "{}", &fixture);
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"]["outputs"], json!({"a": {}, "b": {}}));
}

#[test]
fn max_agent_calls_counts_across_parallel_branches() {
    let ctx = Ctx::new();
    // Two branches of two calls each: 4 calls. The seed's runtime counts
    // calls for the whole run and refuses the fourth (branch "b"'s second);
    // counting per branch would allow all four.
    let chain = |id: &str| {
        json!({"kind": "pipeline", "id": id, "steps": [
            {"kind": "agent", "id": format!("{id}1"), "agent": "hermes.work", "output_schema": {}},
            {"kind": "agent", "id": format!("{id}2"), "agent": "hermes.work", "output_schema": {}}
        ]})
    };
    let def = |max: u64| {
        json!({"version": "1", "name": "budget",
          "policy": {"network": false, "filesystem": false, "max_agent_calls": max},
          "steps": [{"kind": "parallel", "id": "p", "branches": [chain("a"), chain("b")]}]})
    };
    let fixture = json!({"responses": [{"match": {"agent": "hermes.work"}, "output": {}, "delay_ms": 300}]});
    let out = run_def(&ctx, &def(3), "{}", &fixture);
    out.expect_code(1);
    let msg = out.json()["error"]["message"].as_str().unwrap_or("").to_owned();
    // The seed's text after the branch that failed (and the host's
    // `branch_failed` context), named as the seed names things (`'b'`).
    assert_eq!(
        msg,
        "step 'p' branch 'b': branch_failed: /steps/0/branches/1: \
         policy_limit: agent call budget exceeded: max_agent_calls=3"
    );
    let labels: Vec<String> = agent_calls(&ctx, &out.json())
        .iter()
        .map(|e| e["label"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(labels, ["a1", "a2", "b1"], "exactly three calls, in the seed's order");

    // A branch reading an earlier sibling does not change that order: the
    // seed runs build, test, then refuses lint (in waves, build and lint
    // would have run first).
    let waves = json!({"version": "1", "name": "budget_waves",
      "policy": {"network": false, "filesystem": false, "max_agent_calls": 2},
      "steps": [{"kind": "parallel", "id": "checks", "branches": [
        {"kind": "agent", "id": "build", "agent": "hermes.work", "output_schema": {}},
        {"kind": "agent", "id": "test", "agent": "hermes.work", "input": {"after": "$ref:build.output"}, "output_schema": {}},
        {"kind": "agent", "id": "lint", "agent": "hermes.work", "output_schema": {}}]}]});
    let out = run_def(&ctx, &waves, "{}", &fixture);
    out.expect_code(1);
    let msg = out.json()["error"]["message"].as_str().unwrap_or("").to_owned();
    assert!(msg.starts_with("step 'checks' branch 'lint': "), "{msg}");
    let labels: Vec<String> = agent_calls(&ctx, &out.json())
        .iter()
        .map(|e| e["label"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(labels, ["build", "test"], "the seed's two calls");

    // With room for all four the branches run at once.
    let out = run_def(&ctx, &def(4), "{}", &fixture);
    out.expect_code(0);
    let journal = ctx.journal(out.json()["data"]["run_id"].as_str().expect("id"));
    let pos = |ty: &str, label: &str| {
        journal
            .iter()
            .position(|e| e["type"] == ty && e["label"] == label)
            .unwrap_or(usize::MAX)
    };
    let first_done = journal
        .iter()
        .position(|e| e["type"] == "call_completed" && e["kind"] == "agent")
        .expect("done");
    assert!(
        pos("call_started", "a1") < first_done && pos("call_started", "b1") < first_done,
        "{journal:?}"
    );
}

/// A run-time failure's text after hwf's code is the seed's message
/// character for character (its Python f-strings quote names with `repr`:
/// `'x'`), and the context hwf adds before an agent's own failure quotes
/// the same way, so the seed's text is the message's suffix.
#[test]
fn run_time_failures_read_as_the_seeds_messages() {
    let ctx = Ctx::new();
    let policy = json!({"network": false, "filesystem": false});
    let def = |steps: Value| json!({"version": "1", "name": "texts", "policy": policy, "steps": steps});
    let message = |out: &Run| out.json()["error"]["message"].as_str().unwrap_or("").to_owned();
    // An agent's own failure: the seed's message is the broker's text.
    let steps = json!([{"kind": "agent", "id": "store", "agent": "hermes.store", "output_schema": {}}]);
    let fixture = json!({"responses": [{"match": {"agent": "hermes.store"}, "error": "database is locked"}]});
    let out = run_def(&ctx, &def(steps), "{}", &fixture);
    out.expect_code(1);
    let msg = message(&out);
    assert!(msg.starts_with("step 'store' (agent 'hermes.store'): "), "{msg}");
    assert!(msg.ends_with("database is locked"), "{msg}");
    // A kanban card whose answer is not an object, inside a parallel step.
    let steps = json!([{"kind": "parallel", "id": "fan", "branches": [
        {"kind": "kanban_agent", "id": "card", "profile": "qa", "task": {"title": "t"}, "output_schema": {}}
    ]}]);
    let fixture = json!({"responses": [{"match": {"agent": "kanban.qa"}, "output": [1, 2]}]});
    let out = run_def(&ctx, &def(steps), "{}", &fixture);
    out.expect_code(1);
    assert_eq!(
        message(&out),
        "step 'fan' branch 'card': branch_failed: /steps/0/branches/0: \
         agent_output_invalid: kanban agent 'qa' returned list, expected dict"
    );
    // Two failing branches: the error is the first branch's, as the seed runs
    // them one after another, though the second, failing at once, fails
    // first here (a later branch's failure cancels only those after it).
    let steps = json!([{"kind": "parallel", "id": "fan", "branches": [
        {"kind": "pipeline", "id": "p1", "steps": [
            {"kind": "agent", "id": "a1", "agent": "hermes.ok", "output_schema": {}},
            {"kind": "agent", "id": "a2", "agent": "hermes.bad1", "output_schema": {}}]},
        {"kind": "agent", "id": "b", "agent": "hermes.bad2", "output_schema": {}}
    ]}]);
    let fixture = json!({"responses": [
        {"match": {"agent": "hermes.ok"}, "output": {"ok": true}},
        {"match": {"agent": "hermes.bad1"}, "error": "first branch broke"},
        {"match": {"agent": "hermes.bad2"}, "error": "second branch broke"}]});
    let out = run_def(&ctx, &def(steps), "{}", &fixture);
    out.expect_code(1);
    let msg = message(&out);
    assert!(msg.starts_with("step 'fan' branch 'p1': "), "{msg}");
    assert!(msg.ends_with("first branch broke"), "{msg}");
    // A branch reading an earlier sibling runs in a later wave: when it
    // fails, and a branch declared after it failed in the first wave, the
    // error is still the reader's, the first failing branch in declaration
    // order (the seed runs build, then test, and fails there).
    let steps = json!([{"kind": "parallel", "id": "checks", "branches": [
        {"kind": "agent", "id": "build", "agent": "hermes.builder", "output_schema": {}},
        {"kind": "agent", "id": "test", "agent": "hermes.tester",
         "input": {"artifact": "$ref:build.output.artifact"}, "output_schema": {}},
        {"kind": "agent", "id": "lint", "agent": "hermes.linter", "output_schema": {}}
    ]}]);
    let fixture = json!({"responses": [
        {"match": {"agent": "hermes.builder"}, "output": {"artifact": "app.tar"}},
        {"match": {"agent": "hermes.tester"}, "error": "tests crashed"},
        {"match": {"agent": "hermes.linter"}, "error": "linter crashed"}]});
    let out = run_def(&ctx, &def(steps), "{}", &fixture);
    out.expect_code(1);
    let msg = message(&out);
    assert!(msg.starts_with("step 'checks' branch 'test': "), "{msg}");
    assert!(msg.ends_with("tests crashed"), "{msg}");
    // A card answering with a status other than the board's `blocked` /
    // `failed` is checked with the seed's rules, as the seed checks every
    // answer: `2.0` is no integer (the broker's JSON Schema takes it).
    let card = |status: &str| json!({"responses": [{"match": {"agent": "kanban.qa"}, "output": {"status": status, "retries": 2.0}}]});
    let steps = json!([{"kind": "kanban_agent", "id": "qa", "profile": "qa", "task": "QA",
        "output_schema": {"type": "object", "properties": {"retries": {"type": "integer"}}}}]);
    let out = run_def(&ctx, &def(steps.clone()), "{}", &card("approved"));
    out.expect_code(1);
    assert_eq!(
        message(&out),
        "step 'qa' (kanban 'qa'): schema_mismatch: output.retries expected integer, got float"
    );
    // A blocked card's outcome is the step's output, as the host's board
    // gives it (adapted: the seed checks it too).
    run_def(&ctx, &def(steps), "{}", &card("blocked")).expect_code(0);
}

#[test]
fn an_agent_output_must_be_an_object_and_names_are_identifier_safe() {
    let ctx = Ctx::new();
    let def = json!({"version": "1", "name": "text", "policy": {"network": false, "filesystem": false},
        "steps": [{"kind": "agent", "id": "say", "agent": "hermes.talker", "output_schema": {}}]});
    let fixture = json!({"responses": [{"match": {"agent": "hermes.talker"}, "output": "just text"}]});
    let out = run_def(&ctx, &def, "{}", &fixture);
    out.expect_code(1);
    let msg = out.json()["error"]["message"].as_str().unwrap_or("").to_owned();
    assert_eq!(
        msg,
        "agent_output_invalid: agent 'hermes.talker' returned str, expected dict"
    );
    let mut bad = def.clone();
    bad["name"] = json!("has spaces");
    bad.as_object_mut().expect("object").remove("policy");
    let found = diagnostics(&ctx, &bad);
    assert_has(&found, "invalid_name", "/name");
    // The seed lints (and warns `policy_default`) only a definition whose
    // structure is sound; a lint error keeps the lint's warnings.
    assert!(!found.iter().any(|(code, _)| code == "policy_default"), "{found:?}");
    bad["name"] = json!("text");
    bad["steps"][0]["input"] = json!({"v": "$ref:nowhere.output"});
    let found = diagnostics(&ctx, &bad);
    assert_has(&found, "unresolved_ref", "/steps/0/input/v");
    assert_has(&found, "policy_default", "/policy");
}

/// The most agent calls in flight at once, from the journal.
fn peak_in_flight(journal: &[Value]) -> i64 {
    let (mut now, mut peak) = (0i64, 0i64);
    for e in journal.iter().filter(|e| e["kind"] == "agent") {
        if e["type"] == "call_started" {
            now += 1;
            peak = peak.max(now);
        } else if e["type"] == "call_completed" {
            now -= 1;
        }
    }
    peak
}

#[test]
fn policy_max_parallel_bounds_nested_fan_outs() {
    let ctx = Ctx::new();
    let pair = |id: &str| {
        json!({"kind": "parallel", "id": id, "branches": [
            {"kind": "agent", "id": format!("{id}x"), "agent": "hermes.work", "output_schema": {}},
            {"kind": "agent", "id": format!("{id}y"), "agent": "hermes.work", "output_schema": {}}
        ]})
    };
    let def = |max: u64| {
        json!({"version": "1", "name": "nested",
          "policy": {"network": false, "filesystem": false, "max_parallel": max},
          "steps": [{"kind": "parallel", "id": "outer", "branches": [pair("a"), pair("b")]}]})
    };
    let fixture = json!({"responses": [{"match": {"agent": "hermes.work"}, "output": {"ok": true}, "delay_ms": 500}]});
    // Each fan-out is 2 (the seed accepts it), but together they are 4.
    let out = run_def(&ctx, &def(2), "{}", &fixture);
    out.expect_code(0);
    let r = out.json()["data"]["result"].clone();
    assert_eq!(
        r["outputs"]["outer"]["branches"]["b"],
        json!({"branches": {"bx": {"ok": true}, "by": {"ok": true}}})
    );
    let journal = ctx.journal(out.json()["data"]["run_id"].as_str().expect("id"));
    assert_eq!(peak_in_flight(&journal), 2, "max_parallel 2 was exceeded");
    // The windowed start order replays.
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let again = ctx.hwf([
        "run",
        "--resume-from",
        out.json()["data"]["run_id"].as_str().expect("id"),
        "--agents",
        empty.to_str().expect("utf8"),
        "--json",
    ]);
    again.expect_code(0);
    assert_eq!(again.json()["data"]["result"], r);
    assert_eq!(again.json()["data"]["counts"]["replayed"], 4);
    // With room, more run at once: the bound above came from the policy.
    let out = run_def(&ctx, &def(4), "{}", &fixture);
    out.expect_code(0);
    let journal = ctx.journal(out.json()["data"]["run_id"].as_str().expect("id"));
    assert!(peak_in_flight(&journal) > 2, "{journal:?}");
}

/// `policy.max_parallel` may be any positive integer, as in the seed
/// (hwf's bound is at most 64); a fan-out wider than it fails with the
/// seed's message.
#[test]
fn policy_max_parallel_takes_any_positive_integer_and_bounds_the_fan_out() {
    let ctx = Ctx::new();
    let def = |max: Value, n: usize| {
        let branches: Vec<Value> = (0..n)
            .map(|i| json!({"kind": "agent", "id": format!("b{i}"), "agent": "hermes.echo", "input": {"i": i}}))
            .collect();
        json!({"version": "1", "name": "wide", "policy": {"max_parallel": max},
               "steps": [{"kind": "parallel", "id": "p", "branches": branches}]})
    };
    let fixture = json!({"responses": [{"match": {"agent": "hermes.echo"}, "output": {"ok": true}}]});
    let out = run_def(&ctx, &def(json!(2), 3), "{}", &fixture);
    out.expect_code(1);
    let msg = out.json()["error"]["message"].as_str().unwrap_or("").to_owned();
    assert_eq!(msg, "policy_limit: parallel step 'p' fan-out 3 exceeds max_parallel=2");
    let huge: Value = serde_json::from_str("100000000000000000000000").expect("number");
    for max in [json!(65), huge] {
        let out = run_def(&ctx, &def(max.clone(), 9), "{}", &fixture);
        out.expect_code(0);
        assert_eq!(
            out.json()["data"]["result"]["outputs"]["b8"],
            json!({"ok": true}),
            "{max}"
        );
    }
}

#[test]
fn the_seed_relay_example_threads_one_exact_head_through_kanban_agents() {
    // examples/relay_github_exact_head.workflow.json and
    // tests/test_relay_github_contract.py of the seed, unchanged.
    const HEAD: &str = "a8b60422108709fd2a0478cbdc95c7eda3a0c33f";
    const OLD_HEAD: &str = "8bd09e0c90f2f2e6a90050155ed28da82aac73ae";
    let ctx = Ctx::new();
    let def = path("harnesses/seed-relay-github-exact-head.workflow.json");
    ctx.hwf(["validate", &def]).expect_code(0);
    let inputs = r#"{"repo": "donovan-yohan/relay-ide", "pr_number": 946}"#;
    let fixture = path("harnesses/seed-relay-github-exact-head.fixture.json");
    let out = ctx.run_json(&def, inputs, &["--agents", &fixture]);
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"]["last"],
        json!({"release": true, "head_sha": HEAD})
    );
    // A kanban_agent step is a call to the reserved agent `kanban.<profile>`
    // with {profile, task, input, wait, durable}, as in the seed's runtime.
    let calls = agent_calls(&ctx, &out.json());
    let agents: Vec<&str> = calls.iter().filter_map(|e| e["request"]["agent"].as_str()).collect();
    assert_eq!(
        agents,
        [
            "hermes.github.pr_head",
            "kanban.relayqa",
            "kanban.relayreviewer",
            "hermes.github.release_exact_head"
        ]
    );
    assert_eq!(
        calls[1]["request"]["input"],
        json!({"profile": "relayqa", "task": {"repo": "donovan-yohan/relay-ide", "pr_number": 946, "exact_head_sha": HEAD},
               "input": {"exact_head_sha": HEAD}, "wait": true, "durable": true})
    );
    // Stale QA evidence: the run succeeds and refuses the release.
    let mut stale: Value = serde_json::from_str(&std::fs::read_to_string(&fixture).expect("fixture")).expect("json");
    stale["responses"][1]["output"]["result"]["head_sha"] = json!(OLD_HEAD);
    let f = ctx.write("stale.json", stale.to_string());
    let out = ctx.run_json(&def, inputs, &["--agents", f.to_str().expect("utf8")]);
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"]["last"],
        json!({"release": false, "head_sha": HEAD})
    );
}

#[test]
fn the_seed_event_driven_lane_runs_its_kanban_gates_at_once() {
    // examples/event_driven_pr_validation_lane.workflow.json of the seed,
    // unchanged: a parallel step of two kanban_agent gates.
    let ctx = Ctx::new();
    let def = path("harnesses/seed-event-driven-pr-validation-lane.workflow.json");
    let fixture = path("harnesses/seed-event-driven-pr-validation-lane.fixture.json");
    let inputs = json!({"repo": "acme/app", "pr_number": 7, "base_branch": "main", "workspace": "/work/app",
                        "trigger_event": {"type": "pr.opened"}, "profile_bindings": {}});
    let out = ctx.run_json(&def, &inputs.to_string(), &["--agents", &fixture]);
    out.expect_code(0);
    let r = out.json()["data"]["result"].clone();
    assert_eq!(
        r["outputs"]["validation_gates"],
        json!({"branches": {
            "qa_gate": {"task_id": "qa-7", "status": "done", "result": {"passed": true, "commands": ["cargo test"]}},
            "review_gate": {"task_id": "review-7", "status": "done", "result": {"blockers": []}}
        }})
    );
    assert_eq!(r["last"], json!({"echo": {"mergeable": true}, "digest": "summary-1"}));
    let journal = ctx.journal(out.json()["data"]["run_id"].as_str().expect("id"));
    let gate_calls = agent_call_ids(&journal, |a| a.starts_with("kanban."));
    let gates = |ty: &str| -> Vec<usize> {
        journal
            .iter()
            .enumerate()
            .filter(|(_, e)| e["type"] == ty && gate_calls.contains(&e["call"]))
            .map(|(i, _)| i)
            .collect()
    };
    let (started, done) = (gates("call_started"), gates("call_completed"));
    assert_eq!((started.len(), done.len()), (2, 2), "{journal:?}");
    assert!(
        started.iter().all(|s| done.iter().all(|d| s < d)),
        "the gates ran one after another"
    );
}

#[test]
fn kanban_policy_profiles_cards_and_active_awaits() {
    let ctx = Ctx::new();
    let card = |id: &str, profile: &str| {
        json!({"kind": "kanban_agent", "id": id, "profile": profile, "task": {"title": id},
               "output_schema": {"status": "string"}})
    };
    let def = |policy: Value, steps: Value| json!({"version": "1", "name": "cards", "policy": policy, "steps": steps});
    let fixture = json!({"responses": [{"match": {"agent": "kanban.qa"}, "output": {"status": "done"}}]});
    // allowed_profiles: refused at validation, with the pointer.
    let found = diagnostics(
        &ctx,
        &def(
            json!({"network": false, "filesystem": false, "allowed_profiles": ["qa"]}),
            json!([card("a", "qa"), card("b", "ops")]),
        ),
    );
    assert_has(&found, "profile_not_allowed", "/steps/1/profile");
    // max_kanban_cards: the second card fails the run.
    let out = run_def(
        &ctx,
        &def(
            json!({"network": false, "filesystem": false, "max_kanban_cards": 1}),
            json!([card("a", "qa"), card("b", "qa")]),
        ),
        "{}",
        &fixture,
    );
    out.expect_code(1);
    let msg = out.json()["error"]["message"].as_str().unwrap_or("").to_owned();
    assert_eq!(msg, "policy_limit: kanban card budget exceeded: max_kanban_cards=1");
    // max_active_awaits: two waiting cards at once in a parallel step.
    let out = run_def(
        &ctx,
        &def(
            json!({"network": false, "filesystem": false, "max_active_awaits": 1}),
            json!([{"kind": "parallel", "id": "p", "branches": [card("a", "qa"), card("b", "qa")]}]),
        ),
        "{}",
        &fixture,
    );
    out.expect_code(1);
    let msg = out.json()["error"]["message"].as_str().unwrap_or("").to_owned();
    assert!(msg.contains("2 waits exceeds max_active_awaits=1"), "{msg}");
    assert!(agent_calls(&ctx, &out.json()).is_empty());
}

#[test]
fn saved_definitions_run_by_name_and_through_the_facade() {
    let ctx = Ctx::new();
    let def = path("harnesses/hello.workflow.json");
    let save = ctx.hwf(["script", "save", "hello-json", &def, "--json"]);
    save.expect_code(0);
    assert_eq!(save.json()["data"]["language"], "json");
    assert!(ctx.state().join("scripts/hello-json/v000001.json").is_file());
    let out = ctx.run_json("hello-json", r#"{"name":"world"}"#, &["--agents", &hello_fixture()]);
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"]["output"]["result"], "HELLO, WORLD");
    let inspect = ctx.hwf(["script", "inspect", "hello-json", "--json"]).json();
    assert_eq!(inspect["data"]["meta"]["phases"][1]["title"], "shout");

    // The facade: the seed's definition object plus inputs.
    let definition: Value =
        serde_json::from_str(&std::fs::read_to_string(path("harnesses/seed-hello.workflow.json")).expect("def"))
            .expect("json");
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
    assert_eq!(v["data"]["result"]["last"]["result"], "HELLO, WORLD", "{v}");
}
