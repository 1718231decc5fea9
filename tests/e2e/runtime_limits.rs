//! The script runtimes over the guest SDK's `hwf_guest::runtime`: host
//! limits are the host's (a run whose `max_agent_calls` is raised makes
//! that many agent calls from JavaScript and Python, and the call past the
//! limit is refused by the host with `limit_agent`), and the three runtimes
//! read agent options by the one table (`AGENT_OPTIONS`), aliases included.

use crate::common::{Ctx, Run, run_id};
use serde_json::{Value, json};

const ANY: &str = r#"{"responses": [{"match": {}, "output": {"ok": true}}]}"#;

/// 1 200 agent calls one after another; the first refusal is recorded and
/// ends the loop.
const JS_LOOP: &str = r#"export const meta = { name: "many", description: "agent calls one by one" };
let ok = 0, refused = null;
for (let i = 0; i < 1200; i++) {
  try {
    if ((await agent(`task ${i}`, { label: `t${i}` })) !== null) ok++;
  } catch (e) {
    refused = { at: i, code: e.code, kind: e.kind };
    break;
  }
}
return { ok, refused };
"#;

const PY_LOOP: &str = r#"meta = {"name": "many", "description": "agent calls one by one"}
ok = 0
refused = None
for i in range(1200):
    try:
        if (await agent(f"task {i}", label=f"t{i}")) is not None:
            ok += 1
    except Exception as e:
        refused = {"at": i, "message": str(e)}
        break
return {"ok": ok, "refused": refused}
"#;

fn run(ctx: &Ctx, script: &str, source: &str, flags: &[&str]) -> Run {
    let s = ctx.write(script, source);
    let f = ctx.write("any.json", ANY);
    let mut all = vec!["--agents", f.to_str().expect("utf8")];
    all.extend_from_slice(flags);
    let out = ctx.run_json(s.to_str().expect("utf8"), "{}", &all);
    out.expect_code(0);
    out
}

#[test]
fn a_js_script_makes_more_than_1000_agent_calls_when_max_agent_calls_is_raised() {
    let ctx = Ctx::new();
    let out = run(&ctx, "many.js", JS_LOOP, &["--max-agent-calls", "1500"]);
    let d = out.json()["data"].clone();
    assert_eq!(d["result"], json!({"ok": 1200, "refused": null}), "{d}");
    assert_eq!(d["counts"]["agent_calls"], 1200, "{d}");
    // With the default budget (1 000) the 1 001st agent() throws the
    // host's refusal: no runtime constant decides it.
    let out = run(&ctx, "many.js", JS_LOOP, &[]);
    let d = out.json()["data"].clone();
    assert_eq!(
        d["result"],
        json!({"ok": 1000, "refused": {"at": 1000, "code": "limit_agent", "kind": "budget_exhausted"}}),
        "{d}"
    );
    assert_eq!(d["counts"]["agent_calls"], 1000, "{d}");
}

#[test]
fn a_python_script_makes_more_than_1000_agent_calls_when_max_agent_calls_is_raised() {
    let ctx = Ctx::new();
    let out = run(&ctx, "many.py", PY_LOOP, &["--max-agent-calls", "1500"]);
    let d = out.json()["data"].clone();
    assert_eq!(d["result"], json!({"ok": 1200, "refused": null}), "{d}");
    assert_eq!(d["counts"]["agent_calls"], 1200, "{d}");
    let out = run(&ctx, "many.py", PY_LOOP, &[]);
    let d = out.json()["data"].clone();
    assert_eq!(d["result"]["ok"], 1000, "{d}");
    assert_eq!(d["result"]["refused"]["at"], 1000, "{d}");
    // The host's refusal in the seed's words (`CapabilityError`, code
    // `limit_agent`).
    assert_eq!(
        d["result"]["refused"]["message"], "max_agent_calls (1000) exceeded",
        "{d}"
    );
}

/// The `request` of the run's only agent call.
fn only_request(ctx: &Ctx, out: &Run) -> Value {
    let id = run_id(&out.json());
    let started: Vec<Value> = ctx
        .journal(&id)
        .into_iter()
        .filter(|e| e["type"] == "call_started" && e["kind"] == "agent")
        .collect();
    assert_eq!(started.len(), 1, "{started:?}");
    started[0]["request"].clone()
}

#[test]
fn the_three_runtimes_read_agent_options_by_one_table() {
    let ctx = Ctx::new();
    // Each runtime spells the options its own way, with aliases another
    // runtime used to own: `title` for the label (JSON's), `agent_type`
    // (JavaScript's camel case has a snake alias), `tools`, `isolation` and
    // `fresh` (JavaScript's and Python's, now JSON's too). Python takes the
    // options the seed's `agent()` takes (it refuses `title`, `input` and a
    // tool that is no string with `bad_request`, as the seed does).
    let js = run(
        &ctx,
        "opts.js",
        r#"export const meta = { name: "opts", description: "agent options" };
return await agent("hi", { title: "T", model: "m", effort: "low", context: { c: 1 }, tools: ["Read", 3],
  isolation: "worktree", fresh: true, input: {} });
"#,
        &[],
    );
    let py = run(
        &ctx,
        "opts.py",
        r#"meta = {"name": "opts", "description": "agent options"}
return await agent("hi", {"label": "T"}, model="m", effort="low", context={"c": 1},
                   tools=["Read", "Read"], isolation="worktree", fresh=True)
"#,
        &[],
    );
    let wf = run(
        &ctx,
        "opts.workflow.json",
        &json!({"version": "1", "name": "opts", "steps": [{
            "kind": "agent", "id": "s", "prompt": "hi", "title": "T", "model": "m", "effort": "low",
            "context": {"c": 1}, "tools": ["Read", 3], "isolation": "worktree", "fresh": true,
        }]})
        .to_string(),
        &[],
    );
    // `fresh` is read as well, but it is a directive to the run's prompt
    // cache, not part of the request the journal keeps and the agent gets.
    let want = json!({
        "prompt": "hi", "input": {}, "label": "T", "model": "m", "effort": "low", "context": {"c": 1},
        "tools": ["Read"], "isolation": "worktree",
    });
    for (name, out) in [("js", &js), ("json", &wf)] {
        assert_eq!(only_request(&ctx, out), want, "{name}");
    }
    // The seed's Python has no `input` option: its request carries none.
    let mut py_want = want.clone();
    py_want.as_object_mut().expect("object").remove("input");
    assert_eq!(only_request(&ctx, &py), py_want, "python");
    // `output_schema` is a schema alias in JavaScript too (JSON's name):
    // checked before the agent starts, like `schema`.
    let bad = ctx.write(
        "bad.js",
        r#"export const meta = { name: "bad", description: "a bad schema" };
return await agent("hi", { output_schema: { type: "nonsense" } });
"#,
    );
    let f = ctx.path("any.json");
    let out = ctx.run_json(
        bad.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8")],
    );
    out.expect_code(1);
    let msg = out.error_message();
    assert!(msg.contains("TypeError: agent(): invalid schema"), "{msg}");
    let agent_calls = &out.json()["data"]["counts"]["agent_calls"];
    assert!(agent_calls.is_null() || agent_calls == 0, "an agent started: {out:?}");
}
