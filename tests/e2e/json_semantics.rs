//! JSON workflows as the seed runs them (issue 28): a `parallel` branch
//! that reads a sibling's output waits for it (the seed joins branches in
//! order), branches reading each other in a cycle are refused,
//! `hwf validate` reports the seed's warnings with codes and pointers, and
//! a step key the format does not define is ignored, as the seed ignores it.

use crate::common::{Ctx, Run};
use serde_json::{Value, json};

fn run_def(ctx: &Ctx, def: &Value, fixture: &Value) -> Run {
    let d = ctx.write("wf.workflow.json", def.to_string());
    let f = ctx.write("fixture.json", fixture.to_string());
    ctx.run_json(
        d.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8")],
    )
}

/// Index in the journal of the first `ty` event of the agent labelled
/// `label`.
fn at(journal: &[Value], ty: &str, label: &str) -> usize {
    journal
        .iter()
        .position(|e| e["type"] == ty && e["kind"] == "agent" && e["label"] == label)
        .unwrap_or_else(|| panic!("no {ty} for {label}: {journal:?}"))
}

/// `review` reads `qa`'s verdict (declared before it: a forward reference
/// the seed's in-order join refuses, hwf orders by references) and `notes`
/// depends on a step inside the `checks` pipeline; `qa`, `checks` and
/// `docs` read nothing and run at once, then `review` and `notes`.
#[test]
fn a_parallel_branch_reading_a_sibling_runs_after_it() {
    let ctx = Ctx::new();
    let def = json!({"version": "1", "name": "fan", "policy": {"network": false, "filesystem": false},
    "steps": [
      {"kind": "parallel", "id": "fan", "branches": [
        {"kind": "agent", "id": "review", "agent": "hermes.review", "input": {"qa": "$ref:qa.output.verdict"},
         "output_schema": {"verdict": "string"}},
        {"kind": "agent", "id": "qa", "agent": "hermes.qa", "output_schema": {"verdict": "string"}},
        {"kind": "pipeline", "id": "checks", "steps": [
          {"kind": "agent", "id": "lint", "agent": "hermes.lint", "output_schema": {"ok": "bool"}}
        ]},
        {"kind": "agent", "id": "notes", "agent": "hermes.notes", "depends_on": ["lint"],
         "input": {"lint": "$ref:lint.output.ok"}, "output_schema": {"text": "string"}},
        {"kind": "agent", "id": "docs", "agent": "hermes.docs", "output_schema": {"text": "string"}}
      ]},
      {"kind": "agent", "id": "ship", "agent": "hermes.ship",
       "input": {"review": "$ref:review.output.verdict"}, "output_schema": {"shipped": "bool"}}
    ]});
    let v = ctx.hwf([
        "validate",
        ctx.write("v.workflow.json", def.to_string()).to_str().expect("utf8"),
        "--json",
    ]);
    v.expect_code(0);
    let fixture = json!({"responses": [
      {"match": {"agent": "hermes.qa"}, "output": {"verdict": "pass"}, "delay_ms": 300},
      {"match": {"agent": "hermes.lint"}, "output": {"ok": true}, "delay_ms": 300},
      {"match": {"agent": "hermes.docs"}, "output": {"text": "docs"}, "delay_ms": 300},
      {"match": {"agent": "hermes.review", "input.qa": "pass"}, "output": {"verdict": "approve"}},
      {"match": {"agent": "hermes.notes", "input.lint": true}, "output": {"text": "clean"}},
      {"match": {"agent": "hermes.ship", "input.review": "approve"}, "output": {"shipped": true}}
    ]});
    let out = run_def(&ctx, &def, &fixture);
    out.expect_code(0);
    let r = out.json()["data"]["result"].clone();
    assert_eq!(
        r["outputs"]["fan"]["branches"],
        json!({"review": {"verdict": "approve"}, "qa": {"verdict": "pass"}, "checks": {"ok": true},
               "notes": {"text": "clean"}, "docs": {"text": "docs"}}),
        "{r}"
    );
    // Joined in declaration order, as the seed joins them (not in the
    // order the waves ran: qa, checks, docs, then review, notes).
    let keys: Vec<&String> = r["outputs"]["fan"]["branches"]
        .as_object()
        .expect("branches")
        .keys()
        .collect();
    assert_eq!(keys, ["review", "qa", "checks", "notes", "docs"]);
    assert_eq!(r["last"], json!({"shipped": true}));
    let journal = ctx.journal(out.json()["data"]["run_id"].as_str().expect("id"));
    let first_done = ["qa", "lint", "docs"]
        .iter()
        .map(|l| at(&journal, "call_completed", l))
        .min()
        .expect("done");
    for l in ["qa", "lint", "docs"] {
        assert!(at(&journal, "call_started", l) < first_done, "{l} ran alone");
    }
    assert!(at(&journal, "call_started", "review") > at(&journal, "call_completed", "qa"));
    assert!(at(&journal, "call_started", "notes") > at(&journal, "call_completed", "lint"));
}

/// Branches that read each other in a cycle cannot be ordered:
/// `reference_cycle` at the branch list, naming the cycle.
#[test]
fn parallel_branches_reading_each_other_in_a_cycle_are_refused() {
    let ctx = Ctx::new();
    let def = json!({"version": "1", "name": "loop", "policy": {"network": false, "filesystem": false},
    "steps": [
      {"kind": "agent", "id": "first", "agent": "hermes.a", "output_schema": {}},
      {"kind": "parallel", "id": "fan", "branches": [
        {"kind": "agent", "id": "solo", "agent": "hermes.s", "output_schema": {}},
        {"kind": "agent", "id": "a", "agent": "hermes.a", "input": {"x": "$ref:b.output"}, "output_schema": {}},
        {"kind": "agent", "id": "b", "agent": "hermes.b", "depends_on": ["a"], "output_schema": {}}
      ]}
    ]});
    let d = ctx.write("loop.workflow.json", def.to_string());
    let out = ctx.hwf(["validate", d.to_str().expect("utf8"), "--json"]);
    out.expect_code(2);
    let diags = out.json()["data"]["diagnostics"].clone();
    let list = diags.as_array().expect("diagnostics");
    assert_eq!(list.len(), 1, "the cycle is the one error: {diags}");
    assert_eq!(list[0]["code"], "reference_cycle");
    assert_eq!(list[0]["pointer"], "/steps/1/branches");
    assert!(
        list[0]["message"].as_str().unwrap_or("").contains("a → b → a"),
        "{diags}"
    );
    let run = ctx.hwf(["run", d.to_str().expect("utf8")]);
    run.expect_code(2).expect_stderr("reference_cycle");
}

/// `hwf validate` reports the seed's warnings on a definition that runs:
/// no `policy` (`policy_default`, `/policy`), an effect step without
/// `output_schema` (`no_output_schema`, the step), a `$ref:inputs.x` to an
/// undeclared input (`undeclared_input`, the field) — `valid: true`, exit
/// 0, each printed as `warning <code>: … (at <pointer>)`.
#[test]
fn validate_reports_warnings_with_codes_and_pointers() {
    let ctx = Ctx::new();
    let def = json!({"version": "1", "name": "loose", "inputs": {"topic": "string"},
    "steps": [
      {"kind": "agent", "id": "draft", "agent": "hermes.writer", "input": {"topic": "$ref:inputs.topic"}},
      {"kind": "agent", "id": "tone", "agent": "hermes.editor",
       "input": {"style": "$ref:inputs.style"}, "output_schema": {"text": "string"}}
    ]});
    let d = ctx.write("loose.workflow.json", def.to_string());
    let out = ctx.hwf(["validate", d.to_str().expect("utf8"), "--json"]);
    out.expect_code(0);
    let v = out.json();
    assert_eq!(v["data"]["valid"], true, "{v}");
    assert_eq!(v["data"]["meta"]["name"], "loose");
    let found: Vec<(String, String, String)> = v["data"]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_owned(),
                d["pointer"].as_str().unwrap_or("").to_owned(),
                d["severity"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let want = [
        ("policy_default", "/policy"),
        ("no_output_schema", "/steps/0"),
        ("undeclared_input", "/steps/1/input/style"),
    ];
    assert_eq!(found.len(), want.len(), "{found:?}");
    for (code, pointer) in want {
        assert!(
            found.contains(&(code.into(), pointer.into(), "warning".into())),
            "({code}, {pointer}) in {found:?}"
        );
    }
    let text = ctx.hwf(["validate", d.to_str().expect("utf8")]);
    text.expect_code(0)
        .expect_stderr("warning policy_default: ")
        .expect_stderr("(at /steps/1/input/style)");
    assert!(
        text.stdout.contains("is a valid JSON workflow (loose; 3 warnings)"),
        "{}",
        text.stdout
    );
    // Warnings do not stop a run.
    let f = ctx.write("f.json", r#"{"responses": [{"match": {}, "output": {"text": "ok"}}]}"#);
    ctx.run_json(
        d.to_str().expect("utf8"),
        r#"{"topic": "x"}"#,
        &["--agents", f.to_str().expect("utf8")],
    )
    .expect_code(0);
}

/// An agent step's keys reach the agent only if the format defines them
/// (or hwf documents them, as its agent types): a step-level `schema` is
/// not checked, `label` and `phase` do not replace the label and the
/// enclosing phase — the seed ignores them all.
/// `hwf validate` says so with an `unknown_step_key` warning per key.
#[test]
fn keys_an_agent_step_does_not_define_are_ignored_with_a_warning() {
    let ctx = Ctx::new();
    let def = json!({"version": "1", "name": "keys", "policy": {"network": false, "filesystem": false},
    "steps": [
      {"kind": "agent", "id": "a", "agent": "hermes.echo", "title": "First", "label": "not this",
       "phase": "Elsewhere",
       "schema": {"type": "object", "required": ["missing"]}, "output_schema": {"ok": "bool"}}
    ]});
    let d = ctx.write("keys.workflow.json", def.to_string());
    let out = ctx.hwf(["validate", d.to_str().expect("utf8"), "--json"]);
    out.expect_code(0);
    let v = out.json();
    let mut found: Vec<(String, String)> = v["data"]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            assert_eq!(d["severity"], "warning", "{d}");
            (
                d["code"].as_str().unwrap_or("").to_owned(),
                d["pointer"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    found.sort();
    let want: Vec<(String, String)> = ["label", "phase", "schema"]
        .iter()
        .map(|k| ("unknown_step_key".to_owned(), format!("/steps/0/{k}")))
        .collect();
    assert_eq!(found, want);
    let fixture = json!({"responses": [{"match": {"agent": "hermes.echo"}, "output": {"ok": true}}]});
    let run = run_def(&ctx, &def, &fixture);
    run.expect_code(0);
    assert_eq!(run.json()["data"]["result"]["last"], json!({"ok": true}));
    let journal = ctx.journal(run.json()["data"]["run_id"].as_str().expect("id"));
    let started = journal
        .iter()
        .find(|e| e["type"] == "call_started" && e["kind"] == "agent")
        .expect("an agent call");
    let req = &started["request"];
    assert_eq!(req["label"], "First", "{req}");
    for key in ["phase"] {
        assert!(req.get(key).is_none(), "{key} in {req}");
    }
    assert_eq!(req["schema"]["required"], json!(["ok"]), "{req}");
}

/// An `agent_type` hwf does not have is dropped, as the seed ignores the
/// key: the broker refuses the first attempt (journaled as a failed call)
/// and the runtime calls again without it. A `--resume-from` with no agent
/// backend refuses that attempt again without needing one, replays the
/// rest, and ends with the same result.
#[test]
fn an_unknown_agent_type_is_dropped_and_a_resume_needs_no_backend() {
    let ctx = Ctx::new();
    let def = json!({"version": "1", "name": "types", "policy": {"network": false, "filesystem": false},
    "steps": [
      {"kind": "agent", "id": "a", "agent": "hermes.rev", "agent_type": "reviewer", "output_schema": {"ok": "bool"}},
      {"kind": "pipeline", "id": "p", "steps": [
        {"kind": "agent", "id": "b", "agent": "hermes.rev", "agentType": "no-such-type", "input": {"x": "$ref:a.output.ok"}}
      ]}
    ]});
    let fixture = json!({"responses": [{"match": {"agent": "hermes.rev"}, "output": {"ok": true}}]});
    let run = run_def(&ctx, &def, &fixture);
    run.expect_code(0);
    let first = run.json()["data"].clone();
    assert_eq!(first["result"]["last"], json!({"ok": true}), "{first}");
    assert_eq!(first["counts"]["agent_calls"], 2, "{first}");
    assert_eq!(first["counts"]["failed"], 2, "the two refused attempts: {first}");
    let logs: Vec<String> = ctx
        .journal(first["run_id"].as_str().expect("id"))
        .iter()
        .filter(|e| e["type"] == "log")
        .filter_map(|e| e["message"].as_str().map(str::to_owned))
        .collect();
    assert!(
        logs.iter()
            .any(|m| m.starts_with("unknown_agent_type:") && m.contains("/steps/1/steps/0/agentType")),
        "{logs:?}"
    );
    let d = ctx.write("wf.workflow.json", def.to_string());
    let resumed = ctx.run_json(
        d.to_str().expect("utf8"),
        "{}",
        &["--resume-from", first["run_id"].as_str().expect("id")],
    );
    resumed.expect_code(0);
    let again = resumed.json()["data"].clone();
    assert_eq!(again["result"], first["result"], "{again}");
    assert_eq!(again["counts"]["replayed"], 2, "{again}");
}
