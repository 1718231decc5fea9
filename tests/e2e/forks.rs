//! `hwf fork --input` and `--decision` (issue 30), through the binary, on
//! the file store and on PostgreSQL (`HWF_TEST_POSTGRES`; under
//! `HWF_REQUIRE_CLIENTS=1` its absence fails): a call's request input
//! replaced (that call runs live with a new fingerprint; the other
//! slots of its `parallel`, and a later `parallel`, replay), an approval
//! gate's decision replaced (through the broker: a deny leaves the gated
//! write undone, an approve makes it), each edit journaled (`call_edited`
//! with the actor and, for an input, the changed fields, redacted); the
//! typed errors; the same through the facade's `workflow` `fork`.

use crate::common::{Ctx, Run, facade_stdin, run_id};
use crate::shared_store::Pg;
use serde_json::{Value, json};

/// Three files scanned in a `parallel`, a summary over the findings, then
/// a second `parallel` that does not depend on them.
const SCAN_JS: &str = r#"export const meta = { name: "scan", description: "scan three files, summarize, lint" };
const files = ["a.rs", "b.rs", "c.rs"];
const found = await parallel(files.map((f) => () => agent("Scan the file for bugs.", { label: `scan:${f}`, input: { file: f } })));
const summary = await agent(`Summarize: ${JSON.stringify(found)}`, { label: "summary" });
const tail = await parallel([() => agent("Lint the tree.", { label: "lint" }), () => agent("Check the format.", { label: "fmt" })]);
return { found, summary, tail };
"#;

const SCAN_FIXTURE: &str = r#"{"responses": [
  {"match": {"input.file": "a.rs"}, "output": "a: ok", "tokens": 10},
  {"match": {"input.file": "b.rs"}, "output": "b: one bug", "tokens": 10},
  {"match": {"input.file": "b2.rs"}, "output": "b2: clean", "tokens": 10},
  {"match": {"input.file": "c.rs"}, "output": "c: ok", "tokens": 10},
  {"match": {"prompt_contains": "b2: clean"}, "output": "all clean", "tokens": 30},
  {"match": {"label": "summary"}, "output": "one bug, in b.rs", "tokens": 30},
  {"match": {"label": "lint"}, "output": "lint ok", "tokens": 5},
  {"match": {"label": "fmt"}, "output": "fmt ok", "tokens": 5}
]}"#;

/// A release note, then a gated write (an `external_write` approval).
const DEPLOY_JS: &str = r#"export const meta = { name: "deploy", description: "a note, then a gated write" };
const note = await agent("Write the release note.", { label: "note" });
let deployed;
try {
  await capability("fs.write", { path: "deployed.txt", content: "release 1.4" }, { label: "deploy" });
  deployed = true;
} catch (e) {
  deployed = `refused: ${e.message ?? e}`;
}
return { note, deployed };
"#;

const GATE_TOML: &str = r#"[policy]
allowed_classes = ["read_only", "external_write"]
approval_classes = ["external_write"]

[capabilities]
workspace = "ws"
"#;

/// `hwf` on the file store (a manual runner) or on a PostgreSQL database.
struct On {
    pg: Option<Pg>,
    file: Option<Ctx>,
}

impl On {
    fn file() -> Self {
        Self {
            pg: None,
            file: Some(Ctx::manual_runner()),
        }
    }

    fn postgres(test: &str) -> Option<Self> {
        Pg::new(test).map(|pg| Self {
            pg: Some(pg),
            file: None,
        })
    }

    fn ctx(&self) -> &Ctx {
        match (&self.pg, &self.file) {
            (Some(pg), _) => &pg.ctx,
            (None, Some(ctx)) => ctx,
            (None, None) => unreachable!("one store"),
        }
    }

    fn hwf(&self, args: &[&str]) -> Run {
        match &self.pg {
            Some(pg) => pg.hwf(args),
            None => self.ctx().hwf(args.iter().copied()),
        }
    }

    fn status(&self, id: &str) -> Value {
        let s = self.hwf(&["status", id, "--json"]);
        s.expect_code(0);
        s.json()["data"].clone()
    }

    fn journal(&self, id: &str) -> Vec<Value> {
        match &self.pg {
            Some(pg) => pg.journal(id),
            None => self.ctx().journal(id),
        }
    }
}

/// The journal's completions: call id → replayed.
fn completions(journal: &[Value]) -> std::collections::BTreeMap<String, bool> {
    journal
        .iter()
        .filter(|l| l["type"] == "call_completed" && matches!(l["kind"].as_str(), Some("agent" | "capability")))
        .map(|l| (l["call"].as_str().unwrap_or("").to_owned(), l["replayed"] == true))
        .collect()
}

fn started<'a>(journal: &'a [Value], call: &str) -> &'a Value {
    journal
        .iter()
        .find(|l| l["type"] == "call_started" && l["call"] == call)
        .unwrap_or_else(|| panic!("call {call} never started: {journal:?}"))
}

fn an_input_fork(on: &On) {
    let ctx = on.ctx();
    let script = ctx.write("scan.js", SCAN_JS);
    let f = ctx.write("scan-fixture.json", SCAN_FIXTURE);
    let (script, f) = (script.to_str().expect("utf8"), f.to_str().expect("utf8"));
    let out = on.hwf(&["run", script, "--agents", f, "--json"]);
    out.expect_code(0);
    let source = run_id(&out.json());
    let st = on.status(&source);
    assert_eq!(st["result"]["summary"], "one bug, in b.rs", "{st}");
    let src_journal = on.journal(&source);
    let b = started(&src_journal, "2");
    assert_eq!(b["label"], "scan:b.rs", "{b}");

    let out = on.hwf(&[
        "fork",
        &source,
        "--at",
        "2",
        "--input",
        r#"{"file": "b2.rs"}"#,
        "--agents",
        f,
        "--actor",
        "ana",
        "--reason",
        "b.rs was renamed",
        "--json",
    ]);
    out.expect_code(0);
    let fork = run_id(&out.json());
    let fs = on.status(&fork);
    assert_eq!(fs["state"], "succeeded", "{fs}");
    assert_eq!(fs["result"]["found"], json!(["a: ok", "b2: clean", "c: ok"]), "{fs}");
    assert_eq!(
        fs["result"]["summary"], "all clean",
        "the summary saw the new finding: {fs}"
    );
    assert_eq!(fs["result"]["tail"], st["result"]["tail"]);

    let journal = on.journal(&fork);
    // The edited call and the one that depends on it ran live; the other
    // slots of its parallel and the later parallel replayed.
    let done = completions(&journal);
    let want: std::collections::BTreeMap<String, bool> = [
        ("1", true),
        ("2", false),
        ("3", true),
        ("4", false),
        ("5", true),
        ("6", true),
    ]
    .into_iter()
    .map(|(c, r)| (c.to_owned(), r))
    .collect();
    assert_eq!(done, want, "replayed per call");
    let b2 = started(&journal, "2");
    assert_eq!(b2["request"]["input"], json!({"file": "b2.rs"}), "{b2}");
    assert_ne!(b2["fingerprint"], b["fingerprint"], "a new request, a new fingerprint");
    let edit = journal
        .iter()
        .find(|l| l["type"] == "call_edited")
        .expect("the edit is journaled");
    assert_eq!(
        (edit["call"].as_str(), edit["field"].as_str(), edit["actor"].as_str()),
        (Some("2"), Some("input"), Some("ana")),
        "{edit}"
    );
    assert_eq!(
        edit["fingerprint"], b["fingerprint"],
        "the edit names the recorded request"
    );
    assert_eq!(edit["value"], json!({"file": "b2.rs"}));
    assert_eq!(
        edit["changes"],
        json!([{"path": "/input/file", "recorded": "b.rs", "now": "b2.rs"}]),
        "{edit}"
    );
    assert_eq!(edit["source_run"], source.as_str());
    assert_eq!(edit["reason"], "b.rs was renamed");
    // A fork of the fork edits the same call again (its recorded request
    // is the first edit's): the script's request follows both edits.
    let out = on.hwf(&[
        "fork",
        &fork,
        "--at",
        "2",
        "--input",
        r#"{"file": "c.rs"}"#,
        "--agents",
        f,
        "--json",
    ]);
    out.expect_code(0);
    let again = run_id(&out.json());
    let st2 = on.status(&again);
    assert_eq!(st2["result"]["found"], json!(["a: ok", "c: ok", "c: ok"]), "{st2}");
    let done = completions(&on.journal(&again));
    assert_eq!(
        (done.get("1"), done.get("2"), done.get("3"), done.get("5")),
        (Some(&true), Some(&false), Some(&true), Some(&true)),
        "{done:?}"
    );
    // A plan of a resume of the fork keeps the edit: everything replays.
    let p = on.hwf(&["run", script, "--resume-from", &fork, "--plan", "--json"]);
    p.expect_code(0);
    let d = p.json()["data"].clone();
    assert_eq!((d["replayed"].as_u64(), d["live"].as_u64()), (Some(6), Some(0)), "{d}");

    // A secret in the new input is journaled redacted, in the value and
    // in the changes.
    let secret = "sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let input = format!(r#"{{"file": "b.rs", "token": "{secret}"}}"#);
    let out = on.hwf(&["fork", &source, "--at", "2", "--input", &input, "--agents", f, "--json"]);
    out.expect_code(0);
    let text = serde_json::to_string(&on.journal(&run_id(&out.json()))).expect("json");
    assert!(!text.contains(secret), "the secret reached the journal");
    assert!(text.contains("\"/input/token\""), "{text}");

    // Typed errors: the recorded input again; both --output and --input;
    // a call the run does not have; --decision on an agent call.
    let out = on.hwf(&["fork", &source, "--at", "2", "--input", r#"{"file": "b.rs"}"#, "--json"]);
    out.expect_code(2);
    assert_eq!(out.json()["error"]["code"], "invalid_args", "unchanged");
    let out = on.hwf(&["fork", &source, "--at", "2", "--input", "{}", "--output", "\"x\""]);
    out.expect_code(2).expect_stderr("cannot be used with");
    let out = on.hwf(&["fork", &source, "--at", "7.1", "--input", "{}", "--json"]);
    out.expect_code(2);
    assert_eq!(out.json()["error"]["code"], "not_found");
    let out = on.hwf(&["fork", &source, "--at", "4", "--decision", "approve", "--json"]);
    out.expect_code(2);
    let e = &out.json()["error"];
    assert_eq!(e["code"], "fork_mismatch", "{e}");
    assert!(
        e["message"].as_str().is_some_and(|m| m.contains("an agent call")),
        "{e}"
    );
}

fn a_decision_fork(on: &On) {
    let ctx = on.ctx();
    ctx.write("deploy.js", DEPLOY_JS);
    let cfg = ctx.write("gate.toml", GATE_TOML);
    std::fs::create_dir_all(ctx.path("ws")).expect("ws");
    let f = ctx.write(
        "deploy-fixture.json",
        r#"{"responses": [{"match": {"label": "note"}, "output": "1.4: faster scans", "tokens": 40}]}"#,
    );
    let (cfg, f) = (cfg.to_str().expect("utf8"), f.to_str().expect("utf8"));
    let script = ctx.path("deploy.js");
    let out = on.hwf(&[
        "--config",
        cfg,
        "run",
        script.to_str().expect("utf8"),
        "--agents",
        f,
        "--json",
    ]);
    out.expect_code(3);
    let data = out.json()["data"].clone();
    assert_eq!(data["waits"][0]["kind"], "approval", "{data}");
    assert_eq!(data["waits"][0]["call"], "2", "{data}");
    let source = run_id(&out.json());
    let marker = ctx.path("ws").join("deployed.txt");

    // Deny: the gated write does not run; the script gets the refusal;
    // the note replays.
    let out = on.hwf(&[
        "--config",
        cfg,
        "fork",
        &source,
        "--at",
        "2",
        "--decision",
        "deny",
        "--actor",
        "ana",
        "--reason",
        "not on a Friday",
        "--json",
    ]);
    out.expect_code(0);
    let denied = run_id(&out.json());
    let ds = on.status(&denied);
    assert_eq!(ds["state"], "succeeded", "{ds}");
    assert_eq!(ds["result"]["note"], "1.4: faster scans");
    let refusal = ds["result"]["deployed"].as_str().unwrap_or("");
    assert!(
        refusal.starts_with("refused") && refusal.contains("ana") && refusal.contains("not on a Friday"),
        "{ds}"
    );
    assert!(!marker.exists(), "a denied write ran");
    let journal = on.journal(&denied);
    assert_eq!(completions(&journal).get("1"), Some(&true), "the note replayed");
    let edit = journal
        .iter()
        .find(|l| l["type"] == "call_edited")
        .expect("the decision is journaled");
    assert_eq!(
        (
            edit["call"].as_str(),
            edit["field"].as_str(),
            edit["value"].as_str(),
            edit["actor"].as_str()
        ),
        (Some("2"), Some("decision"), Some("deny"), Some("ana")),
        "{edit}"
    );
    let gate = journal
        .iter()
        .find(|l| l["type"] == "call_completed" && l["call"] == "2")
        .expect("the gate completed");
    assert_eq!(gate["ok"], false, "{gate}");
    assert_eq!(gate["error"]["kind"], "denied", "{gate}");
    assert!(
        gate["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("approval_rejected")),
        "{gate}"
    );
    // `hwf logs` says who decided.
    let logs = on.hwf(&["logs", &denied]);
    logs.expect_code(0);
    assert!(
        logs.stdout.contains("edit  call 2 decision set to deny") && logs.stdout.contains("by ana — not on a Friday"),
        "{}",
        logs.stdout
    );

    // Approve: the write runs, through the broker, with the approval.
    let out = on.hwf(&[
        "--config",
        cfg,
        "fork",
        &source,
        "--at",
        "2",
        "--decision",
        "approve",
        "--json",
    ]);
    out.expect_code(0);
    let approved = run_id(&out.json());
    let aps = on.status(&approved);
    assert_eq!(aps["state"], "succeeded", "{aps}");
    assert_eq!(aps["result"]["deployed"], true, "{aps}");
    assert_eq!(std::fs::read_to_string(&marker).expect("written"), "release 1.4");
    let journal = on.journal(&approved);
    let edit = journal.iter().find(|l| l["type"] == "call_edited").expect("edit");
    assert_eq!(
        (edit["value"].as_str(), edit["actor"].as_str()),
        (Some("approve"), Some("cli"))
    );

    // A deny of the approved run's gate: it does not replay the write.
    std::fs::remove_file(&marker).expect("rm");
    let out = on.hwf(&[
        "--config",
        cfg,
        "fork",
        &approved,
        "--at",
        "2",
        "--decision",
        "deny",
        "--json",
    ]);
    out.expect_code(0);
    let again = on.status(&run_id(&out.json()));
    assert!(
        again["result"]["deployed"]
            .as_str()
            .is_some_and(|d| d.starts_with("refused")),
        "{again}"
    );
    assert!(!marker.exists(), "the recorded write was replayed or run again");

    // Typed errors: a decision that is not a word hwf knows; a decision
    // on the agent call.
    let out = on.hwf(&[
        "--config",
        cfg,
        "fork",
        &source,
        "--at",
        "2",
        "--decision",
        "maybe",
        "--json",
    ]);
    out.expect_code(2);
    assert_eq!(out.json()["error"]["code"], "invalid_args");
    let out = on.hwf(&[
        "--config",
        cfg,
        "fork",
        &source,
        "--at",
        "1",
        "--decision",
        "deny",
        "--json",
    ]);
    out.expect_code(2);
    assert_eq!(out.json()["error"]["code"], "fork_mismatch");
}

#[test]
fn a_fork_with_a_new_input_runs_that_call_live_and_replays_the_rest() {
    an_input_fork(&On::file());
}

#[test]
fn a_fork_with_a_new_input_on_postgres() {
    if let Some(on) = On::postgres("a_fork_with_a_new_input_on_postgres") {
        an_input_fork(&on);
    }
}

#[test]
fn a_fork_decides_an_approval_gate_through_the_broker() {
    a_decision_fork(&On::file());
}

#[test]
fn a_fork_decides_an_approval_gate_on_postgres() {
    if let Some(on) = On::postgres("a_fork_decides_an_approval_gate_on_postgres") {
        a_decision_fork(&on);
    }
}

/// The facade's `workflow` `fork` takes `input` and `decision` too, with
/// the same checks; a question's `decision: "deny"` declines it.
#[test]
fn the_facade_forks_with_an_input_or_a_decision() {
    let ctx = Ctx::manual_runner();
    ctx.write(
        "ask.js",
        r#"export const meta = { name: "ask", description: "asks" };
let answer;
try { answer = (await capability("human.ask", { prompt: "go?", choices: ["yes", "no"] })).answer; }
catch (e) { answer = `declined: ${e.message ?? e}`; }
return { answer };
"#,
    );
    let out = ctx.hwf(["run", "ask.js", "--json"]);
    out.expect_code(3);
    let source = run_id(&out.json());
    let workflow = |req: Value| facade_stdin(&ctx, &["facade", "workflow"], &req).1;

    let r = workflow(
        json!({"action": "fork", "resume_from_run_id": source, "call": "1", "decision": "deny", "reason": "no"}),
    );
    assert_eq!(r["success"], true, "{r}");
    let id = r["data"]["run_id"].as_str().expect("id").to_owned();
    let st = crate::common::status(&ctx, &id);
    assert!(
        st["result"]["answer"]
            .as_str()
            .is_some_and(|a| a.starts_with("declined")),
        "{st}"
    );
    let edit = ctx
        .journal(&id)
        .into_iter()
        .find(|l| l["type"] == "call_edited")
        .expect("edit");
    assert_eq!(
        (edit["field"].as_str(), edit["actor"].as_str()),
        (Some("decision"), Some("agent"))
    );

    // A new question: the call runs live with it and parks for an answer.
    let r = workflow(json!({"action": "fork", "resume_from_run_id": source, "call": "1",
        "input": {"prompt": "go now?", "choices": ["yes", "no"]}}));
    assert_eq!(r["success"], true, "{r}");
    let id = r["data"]["run_id"].as_str().expect("id").to_owned();
    let st = crate::common::status(&ctx, &id);
    assert_eq!(st["state"], "waiting", "{st}");
    assert_eq!(st["waits"][0]["summary"], "question: go now?", "{st}");
    // Answered and continued by a runner: the continuation reads the edit
    // back from the fork's own journal and asks the edited question.
    ctx.hwf(["control", "decide", &id, "1", "respond", "--value", "\"yes\""])
        .expect_code(0);
    crate::common::runner_once(&ctx);
    let st = crate::common::status(&ctx, &id);
    assert_eq!(
        (st["state"].as_str(), st["result"]["answer"].as_str()),
        (Some("succeeded"), Some("yes")),
        "{st}"
    );
    let asked: Vec<Value> = ctx
        .journal(&id)
        .into_iter()
        .filter(|l| l["type"] == "call_started" && l["call"] == "1")
        .collect();
    assert_eq!(asked.len(), 2, "asked, then continued: {asked:?}");
    assert!(
        asked.iter().all(|l| l["request"]["input"]["prompt"] == "go now?"),
        "{asked:?}"
    );

    for (bad, code) in [
        (json!({"decision": "approve"}), "fork_mismatch"),
        (json!({"decision": "later"}), "invalid_params"),
        (json!({"input": {}, "output": 1}), "invalid_params"),
    ] {
        let mut req = json!({"action": "fork", "resume_from_run_id": source, "call": "1"});
        req.as_object_mut()
            .expect("obj")
            .extend(bad.as_object().expect("obj").clone());
        let r = workflow(req);
        assert_eq!(r["error"]["code"], code, "{bad}: {r}");
    }
}
