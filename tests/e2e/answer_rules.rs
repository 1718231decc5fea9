//! Answer rules (`x-hwf` at a schema's root, `hwf_core::schema::AnswerRules`):
//! a script runtime asks the broker for its reference's rules for one call.
//! The seed's Python broker makes 3 attempts, refuses `4.0` for an
//! `integer` and any answer that is not a dict; the seed's JSON runtime
//! refuses `2.0` for an `integer` in its own words. The entry is taken off
//! at the door: it reaches neither the agent nor the fingerprint, and a
//! malformed one fails the call with `invalid_schema`.

use crate::common::{Ctx, Run, run_id};
use serde_json::{Value, json};
use std::path::Path;

/// `hwf run SCRIPT --args {} --json --agents F`, F written from `fixture`.
fn run_with(ctx: &Ctx, script: &Path, fixture: &Value) -> Run {
    let f = ctx.write("fixture.json", fixture.to_string());
    ctx.run_json(
        script.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8")],
    )
}

/// Calls the fixture agent answered for `label`: `call_attempt` lines
/// (rejected attempts) plus the accepted one, from the journal.
fn attempts(journal: &[Value], label: &str) -> Vec<Value> {
    let call = journal
        .iter()
        .find(|e| e["type"] == "call_started" && e["label"] == label)
        .unwrap_or_else(|| panic!("no call {label}"))["call"]
        .clone();
    journal
        .iter()
        .filter(|e| e["call"] == call && matches!(e["type"].as_str(), Some("call_attempt" | "call_completed")))
        .cloned()
        .collect()
}

#[test]
fn python_gets_the_seeds_three_attempts_and_its_integers() {
    let ctx = Ctx::new();
    let script = ctx.write(
        "rules.py",
        "meta = {\"name\": \"rules\", \"description\": \"answer rules\"}\n\
         out = {}\n\
         try:\n\
         \x20   await agent(\"count it\", label=\"n\", schema={\"n\": \"int\"})\n\
         except CapabilityError as e:\n\
         \x20   out[\"three\"] = [e.code, str(e)]\n\
         out[\"second\"] = await agent(\"count again\", label=\"m\", schema={\"n\": \"int\"})\n\
         return out\n",
    );
    let out = run_with(
        &ctx,
        &script,
        &json!({"responses": [
            {"match": {"label": "n"}, "sequence": [{"output": {"n": 4.0}}, {"output": {"n": "x"}}, {"output": {"n": 4.0}}, {"output": {"n": 4}}]},
            {"match": {"label": "m"}, "sequence": [{"output": {"n": 4.0}}, {"output": {"n": 5}}]}
        ]}),
    );
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!({
            "three": ["schema", "schema validation failed after 3 attempt(s): output.n expected integer, got float"],
            "second": {"n": 5}
        })
    );
    let journal = ctx.journal(&run_id(&out.json()));
    // Three answers, the fourth (a good one) never asked for.
    let n = attempts(&journal, "n");
    assert_eq!(n.len(), 4, "{n:?}");
    assert_eq!(n[3]["attempts"], 3);
    assert_eq!(n[0]["error"], "field /n: 4.0 is not of type \"integer\"");
    // The rules are not part of the request the agent got and the
    // fingerprint covers.
    let started = journal
        .iter()
        .find(|e| e["type"] == "call_started" && e["label"] == "n")
        .expect("started");
    assert_eq!(
        started["request"]["schema"],
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    );
}

/// The same rules are hwf's for any script: JavaScript asks for 2 attempts
/// and whole integers; a malformed entry fails the call, naming it, before
/// any agent runs.
#[test]
fn javascript_may_ask_for_the_rules_and_a_bad_entry_is_refused() {
    let ctx = Ctx::new();
    let script = ctx.write(
        "rules.js",
        "export const meta = { name: 'rules', description: 'answer rules' };\n\
         const out = {};\n\
         const S = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };\n\
         out.lenient = await agent('count', { label: 'lenient', schema: S });\n\
         try {\n\
           await agent('count', { label: 'strict', schema: { ...S, 'x-hwf': { attempts: 2, whole_integers: true } } });\n\
         } catch (e) { out.strict = e.message; }\n\
         out.bad = await agent('count', { label: 'bad', schema: { ...S, 'x-hwf': { attempts: 0 } } });\n\
         return out;\n",
    );
    let out = run_with(
        &ctx,
        &script,
        &json!({"responses": [{"match": {"prompt_contains": "count"}, "output": {"n": 4.0}}]}),
    );
    out.expect_code(0);
    let result = &out.json()["data"]["result"];
    assert_eq!(result["lenient"]["n"].as_f64(), Some(4.0), "{result}");
    let strict = result["strict"].as_str().expect("strict refused");
    assert!(
        strict.contains("4.0 is not of type \"integer\" (after 2 attempts)"),
        "{strict}"
    );
    // A failed agent call is `null` in Claude Code's `agent()`.
    assert_eq!(result["bad"], Value::Null, "{result}");
    let journal = ctx.journal(&run_id(&out.json()));
    assert_eq!(attempts(&journal, "strict").len(), 3, "two answers and the completion");
    let bad_call = attempts(&journal, "bad");
    assert_eq!(bad_call.len(), 1, "no agent ran: {bad_call:?}");
    assert_eq!(bad_call[0]["attempts"], 0);
    assert_eq!(
        bad_call[0]["error"]["message"],
        "invalid_schema: `schema`: `x-hwf.attempts` must be an integer from 1 to 101, not 0"
    );
}

/// A JSON step's answer that fails its `output_schema` after the broker's
/// retries fails the run with the seed's own message (it used to be the
/// broker's: `field /findings/1/score: "9" is not of type "number" (after 5
/// attempts)`), and an `integer` refuses `2.0` as the seed's check does.
#[test]
fn json_steps_fail_their_schema_in_the_seeds_words() {
    let ctx = Ctx::new();
    for (ty, score, says) in [
        (
            "number",
            json!("9"),
            "output.findings[1].score expected number, got str",
        ),
        (
            "integer",
            json!(2.0),
            "output.findings[1].score expected integer, got float",
        ),
    ] {
        let def = json!({"version": "1", "name": "rules", "policy": {"network": false, "filesystem": false},
          "steps": [{"kind": "agent", "id": "rate", "agent": "hermes.rate",
                     "output_schema": {"type": "object", "properties": {
                         "findings": {"type": "array", "items": {"type": "object", "properties": {"score": {"type": ty}}}}}}}]});
        let d = ctx.write("wf.workflow.json", def.to_string());
        let out = run_with(
            &ctx,
            &d,
            &json!({"responses": [{"match": {"agent": "hermes.rate"}, "output": {"findings": [{"score": 1}, {"score": score}]}}]}),
        );
        let msg = out.json()["error"]["message"].as_str().unwrap_or("").to_owned();
        assert!(
            msg.ends_with(&format!("step 'rate' (agent 'hermes.rate'): schema_mismatch: {says}")),
            "{ty}: {msg}"
        );
    } // Prose where JSON was due is the seed's refusal of a string, at the
    // first answer.
    let d = ctx.write(
        "p.workflow.json",
        json!({"version": "1", "name": "prose", "policy": {"network": false, "filesystem": false},
               "steps": [{"kind": "agent", "id": "probe", "agent": "hermes.probe", "output_schema": {"a": "string"}}]})
        .to_string(),
    );
    let out = run_with(
        &ctx,
        &d,
        &json!({"responses": [{"match": {"agent": "hermes.probe"}, "sequence": [{"output": "just words"}, {"output": {"a": "x"}}]}]}),
    );
    assert_eq!(
        out.json()["error"]["message"],
        "agent_output_invalid: agent 'hermes.probe' returned str, expected dict"
    );
    // Prose that reads like a refusal too: the broker leaves a check made
    // once to the runtime's words.
    let out = run_with(
        &ctx,
        &d,
        &json!({"responses": [{"match": {"agent": "hermes.probe"}, "output": "I'm sorry, but I can't help with that."}]}),
    );
    assert_eq!(
        out.json()["error"]["message"],
        "agent_output_invalid: agent 'hermes.probe' returned str, expected dict"
    );
}

/// A Python prompt agent's schema retry carries its reason in the request,
/// as the seed's broker sends it (`context.schema_validation_error`), so a
/// fixture rule keyed on it answers the retry; the journaled request stays
/// the script's.
#[test]
fn a_python_retry_carries_the_seeds_schema_validation_error() {
    let ctx = Ctx::new();
    let script = ctx.write(
        "retry.py",
        "meta = {\"name\": \"retry\", \"description\": \"retry context\"}\n\
         return await agent(\"summarize\", label=\"summary\", schema={\"answer\": \"string\"}, context={\"topic\": \"pr\"})\n",
    );
    let out = run_with(
        &ctx,
        &script,
        &json!({"responses": [
            {"match": {"label": "summary", "context.schema_validation_error.attempt": 2,
                       "context.schema_validation_error.max_retries": 2,
                       "context.schema_validation_error.code": "schema", "context.topic": "pr"},
             "output": {"answer": "fixed"}},
            {"match": {"label": "summary"}, "output": {"answer": 7}}
        ]}),
    );
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"], json!({"answer": "fixed"}));
    let journal = ctx.journal(&run_id(&out.json()));
    let started = journal.iter().find(|e| e["type"] == "call_started").expect("started");
    assert_eq!(started["request"]["context"], json!({"topic": "pr"}));
    assert_eq!(
        attempts(&journal, "summary").len(),
        2,
        "one rejected answer, then the accepted one"
    );
}

/// A refused answer is a failed call: a `--resume-from` of the failed run
/// asks the agent again (here a fixture that now answers well), where an
/// accepted answer would replay. The JSON step's check is made once.
#[test]
fn a_json_steps_refused_answer_is_asked_again_on_resume() {
    let ctx = Ctx::new();
    let d = ctx.write(
        "wf.workflow.json",
        json!({"version": "1", "name": "again", "policy": {"network": false, "filesystem": false},
               "steps": [{"kind": "agent", "id": "rate", "agent": "hermes.rate", "output_schema": {"score": "integer"}}]})
        .to_string(),
    );
    let out = run_with(
        &ctx,
        &d,
        &json!({"responses": [{"match": {"agent": "hermes.rate"}, "sequence": [{"output": {"score": 2.0}}, {"output": {"score": 2}}]}]}),
    );
    assert_eq!(
        out.json()["error"]["message"],
        "step 'rate' (agent 'hermes.rate'): schema_mismatch: output.score expected integer, got float",
        "one attempt, as the seed's runtime"
    );
    let id = run_id(&out.json());
    let good = ctx.write(
        "good.json",
        json!({"responses": [{"match": {"agent": "hermes.rate"}, "output": {"score": 3}}]}).to_string(),
    );
    let again = ctx.hwf([
        "run",
        "--resume-from",
        &id,
        "--agents",
        good.to_str().expect("utf8"),
        "--json",
    ]);
    again.expect_code(0);
    let again = again.json();
    assert_eq!(
        again["data"]["result"]["outputs"]["rate"],
        json!({"score": 3}),
        "{again}"
    );
    assert_eq!(again["data"]["counts"]["replayed"], 0, "{again}");
}

/// The seed's rules hold at the seams: in a `parallel` branch, a
/// `pipeline` stage and a nested workflow each call gets its 3 attempts
/// and Python's integers (`4.0` refused, the next answer taken), and a
/// `--resume-from` with no agent replays every call (the rules are not
/// part of the fingerprint, so nothing diverges).
#[test]
fn the_rules_hold_in_a_branch_a_stage_a_nested_workflow_and_on_resume() {
    let ctx = Ctx::new();
    let child = ctx.write(
        "rater.py",
        "meta = {\"name\": \"rater\", \"description\": \"a nested rating\"}\n\
         return await agent(\"rate nested\", label=\"nested\", schema={\"n\": \"int\"})\n",
    );
    ctx.hwf(["script", "save", "rater", child.to_str().expect("utf8")])
        .expect_code(0);
    let parent = ctx.write(
        "seams.py",
        "meta = {\"name\": \"seams\", \"description\": \"rules at the seams\"}\n\
         branch = await parallel([lambda: agent(\"rate branch\", label=\"branch\", schema={\"n\": \"int\"})])\n\
         stage = await pipeline([1], lambda x: agent(\"rate stage\", label=\"stage\", schema={\"n\": \"int\"}))\n\
         nested = await workflow(\"rater\", {})\n\
         return {\"branch\": branch[0], \"stage\": stage[0], \"nested\": nested}\n",
    );
    let answers =
        |label: &str| json!({"match": {"label": label}, "sequence": [{"output": {"n": 4.0}}, {"output": {"n": 7}}]});
    let out = run_with(
        &ctx,
        &parent,
        &json!({"responses": [answers("branch"), answers("stage"), answers("nested")]}),
    );
    out.expect_code(0);
    let want = json!({"branch": {"n": 7}, "stage": {"n": 7}, "nested": {"n": 7}});
    assert_eq!(out.json()["data"]["result"], want);
    let journal = ctx.journal(&run_id(&out.json()));
    let rejected = journal
        .iter()
        .filter(|e| e["type"] == "call_attempt" && e["error"] == "field /n: 4.0 is not of type \"integer\"")
        .count();
    assert!(
        rejected >= 2,
        "the branch and the stage each refused 4.0 once: {rejected}"
    );
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let again = ctx.hwf([
        "run",
        "--resume-from",
        &run_id(&out.json()),
        "--agents",
        empty.to_str().expect("utf8"),
        "--json",
    ]);
    again.expect_code(0);
    assert_eq!(again.json()["data"]["result"], want);
    assert!(
        again.json()["data"]["counts"]["replayed"]
            .as_u64()
            .is_some_and(|n| n >= 2)
    );
}

/// On PostgreSQL, through a kill -9 and a runner's takeover: the call that
/// completed before the kill (after one refused `4.0`) is not asked again,
/// the call in flight is, and the call made after the takeover still gets
/// the seed's rules (3 attempts, `4.0` refused each time) in the new
/// process.
#[test]
fn the_rules_hold_on_postgres_through_a_kill_and_a_takeover() {
    use crate::shared_store::{Pg, run_killed_during, take_over};
    let Some(pg) = Pg::new("the_rules_hold_on_postgres_through_a_kill_and_a_takeover") else {
        return;
    };
    let fixture = pg.ctx.write(
        "fixture.json",
        json!({"responses": [
            {"match": {"label": "first"}, "sequence": [{"output": {"n": 4.0}}, {"output": {"n": 1}}]},
            {"match": {"label": "slow"}, "output": {"n": 2}, "delay_ms": 600},
            {"match": {"label": "last"}, "sequence": [
                {"output": {"n": 4.0}}, {"output": {"n": 4.0}}, {"output": {"n": 4.0}}, {"output": {"n": 3}}
            ]}
        ]})
        .to_string(),
    );
    let script = pg.ctx.write(
        "rules.py",
        "meta = {\"name\": \"rules\", \"description\": \"rules through a kill\"}\n\
         a = await agent(\"one\", label=\"first\", schema={\"n\": \"int\"})\n\
         b = await agent(\"two\", label=\"slow\", schema={\"n\": \"int\"})\n\
         try:\n\
         \x20   c = await agent(\"three\", label=\"last\", schema={\"n\": \"int\"})\n\
         except CapabilityError as e:\n\
         \x20   c = [e.code, str(e)]\n\
         return [a[\"n\"], b[\"n\"], c]\n",
    );
    let id = run_killed_during(&pg, &script, fixture.to_str().expect("utf8"), "slow");
    take_over(&pg);
    let s = pg.status(&id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(
        s["result"],
        json!([
            1,
            2,
            [
                "schema",
                "schema validation failed after 3 attempt(s): output.n expected integer, got float"
            ]
        ])
    );
    let runs = pg.executions();
    // Asked twice before the kill, never again; in flight at the kill:
    // again; after the takeover: its three attempts, not the fourth.
    assert_eq!(runs.get("first"), Some(&2), "{runs:?}");
    assert_eq!(runs.get("slow"), Some(&2), "{runs:?}");
    assert_eq!(runs.get("last"), Some(&3), "{runs:?}");
    let journal = pg.journal(&id);
    let last: Vec<Value> = attempts(&journal, "last")
        .into_iter()
        .filter(|e| e["type"] == "call_attempt")
        .collect();
    assert_eq!(last.len(), 3, "{last:?}");
    assert!(
        last.iter()
            .all(|e| e["error"] == "field /n: 4.0 is not of type \"integer\""),
        "{last:?}"
    );
    pg.assert_no_local_runs();
}
