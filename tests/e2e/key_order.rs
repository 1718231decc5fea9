//! Object keys keep the order they were written in, as in Claude Code
//! (V8 objects) and the seed (CPython dicts): a run's `args`, an agent's
//! output and the script's result, in JavaScript, Python and JSON
//! workflows, live and replayed after `--resume-from`, on the file store
//! and on PostgreSQL (whose jsonb would reorder them: the snapshot's own
//! text is kept, migration 7). Before, every object came back with its keys
//! sorted.

use crate::common::{Ctx, Run};
use serde_json::Value;

/// Keys out of alphabetical order at every level.
const ARGS: &str = r#"{"zeta": 1, "alpha": {"k2": 1, "k1": 2}, "mid": [{"y": 1, "x": 2}]}"#;

/// The agent's answer: keys out of order, and a `_tokens` count the host
/// charges and leaves where it is (the seed's broker keeps it too).
const FIXTURE: &str = r#"{"responses": [
    {"match": {"label": "k"}, "output": {"zz": 1, "aa": {"q": 1, "b": 2}, "_tokens": 5, "mm": [{"y": 1, "x": 2}]}},
    {"match": {"agent": "hermes.k"}, "output": {"zz": 1, "aa": {"q": 1, "b": 2}, "_tokens": 5, "mm": [{"y": 1, "x": 2}]}}]}"#;

const JS: &str = r#"export const meta = { name: "order", description: "key order" };
const out = await agent("order", { label: "k" });
return { seen: [Object.keys(args).join(","), Object.keys(args.alpha).join(","), JSON.stringify(out)], out, zeta: 1, alpha: 2 };
"#;

const PY: &str = r#"meta = {"name": "order", "description": "key order"}
out = await agent("hermes.k", {"prompt": "order"}, label="k")
return {"seen": [",".join(args.keys()), ",".join(args["alpha"].keys()), json.dumps(out)], "out": out, "zeta": 1, "alpha": 2}
"#;

const JSON_WORKFLOW: &str = r#"{"version": "1", "name": "order",
    "inputs": {"zeta": "integer"},
    "policy": {"network": false, "filesystem": false},
    "steps": [{"kind": "agent", "id": "k", "agent": "hermes.k", "input": {"zeta": "$ref:inputs.zeta"}}]}"#;

/// The keys of an object, in order.
fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

/// `hwf run` (or a resume) through `cmd`, with the fixture: the result
/// as printed, parsed in order.
fn result_of(out: &Run) -> (Value, String) {
    out.expect_code(0);
    let v = out.json();
    (
        v["data"]["result"].clone(),
        v["data"]["run_id"].as_str().expect("run id").to_owned(),
    )
}

/// A script run and then resumed with no agent (every call replayed): both
/// results, which must be the same text.
fn run_and_resume(ctx: &Ctx, store: Option<&str>, file: &str, args: &str) -> Value {
    let fixture = ctx.write("order.json", FIXTURE);
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let hwf = |argv: &[&str]| -> Run {
        let mut c = ctx.cmd();
        c.env("HWF_RUNNER_AUTOSTART", "0");
        if let Some(url) = store {
            c.env("HWF_STORE", url);
        }
        c.args(argv).output().expect("spawn hwf").into()
    };
    let (live, id) = result_of(&hwf(&[
        "run",
        file,
        "--json",
        "--args",
        args,
        "--agents",
        fixture.to_str().expect("utf8"),
    ]));
    let (again, _) = result_of(&hwf(&[
        "run",
        "--resume-from",
        &id,
        "--json",
        "--agents",
        empty.to_str().expect("utf8"),
    ]));
    assert_eq!(
        serde_json::to_string(&live).expect("json"),
        serde_json::to_string(&again).expect("json"),
        "the replayed run gives the same result, keys in the same order"
    );
    // What `status` reads back from the store is in the same order too.
    let status: Run = hwf(&["status", &id, "--json"]);
    status.expect_code(0);
    let shown = &status.json()["data"]["result"];
    assert_eq!(
        serde_json::to_string(shown).expect("json"),
        serde_json::to_string(&live).expect("json"),
        "status shows the stored result in its order"
    );
    live
}

#[track_caller]
fn assert_script_order(result: &Value, dumped: &str) {
    assert_eq!(keys(result), ["seen", "out", "zeta", "alpha"], "{result}");
    assert_eq!(result["seen"][0], "zeta,alpha,mid", "args in their order: {result}");
    assert_eq!(result["seen"][1], "k2,k1", "nested args in their order: {result}");
    assert_eq!(
        result["seen"][2], dumped,
        "the agent's output as the script saw it: {result}"
    );
    assert_eq!(keys(&result["out"]), ["zz", "aa", "_tokens", "mm"], "{result}");
    assert_eq!(keys(&result["out"]["aa"]), ["q", "b"], "{result}");
    assert_eq!(keys(&result["out"]["mm"][0]), ["y", "x"], "{result}");
}

#[test]
fn javascript_sees_and_returns_keys_in_their_order() {
    let ctx = Ctx::new();
    ctx.write("order.js", JS);
    let result = run_and_resume(&ctx, None, "order.js", ARGS);
    assert_script_order(
        &result,
        r#"{"zz":1,"aa":{"q":1,"b":2},"_tokens":5,"mm":[{"y":1,"x":2}]}"#,
    );
}

#[test]
fn python_sees_and_returns_keys_in_their_order() {
    let ctx = Ctx::new();
    ctx.write("order.py", PY);
    let result = run_and_resume(&ctx, None, "order.py", ARGS);
    assert_script_order(
        &result,
        r#"{"zz": 1, "aa": {"q": 1, "b": 2}, "_tokens": 5, "mm": [{"y": 1, "x": 2}]}"#,
    );
}

#[test]
fn a_json_workflow_returns_an_agents_keys_in_their_order() {
    let ctx = Ctx::new();
    ctx.write("order.workflow.json", JSON_WORKFLOW);
    let result = run_and_resume(&ctx, None, "order.workflow.json", r#"{"zeta": 1}"#);
    let out = &result["last"];
    assert_eq!(keys(out), ["zz", "aa", "_tokens", "mm"], "{result}");
    assert_eq!(keys(&out["aa"]), ["q", "b"], "{result}");
}

/// On PostgreSQL: the resumed run reads its args from the stored snapshot,
/// which jsonb alone would have reordered (`"mid"`, `"zeta"`, `"alpha"`:
/// shortest key first).
#[test]
fn on_postgres_args_and_results_keep_their_order_through_a_resume() {
    let Some(pg) = crate::shared_store::Pg::new("on_postgres_args_and_results_keep_their_order_through_a_resume")
    else {
        return;
    };
    pg.ctx.write("order.js", JS);
    let result = run_and_resume(&pg.ctx, Some(pg.url()), "order.js", ARGS);
    assert_script_order(
        &result,
        r#"{"zz":1,"aa":{"q":1,"b":2},"_tokens":5,"mm":[{"y":1,"x":2}]}"#,
    );
}
