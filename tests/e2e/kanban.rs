//! Kanban lanes (issue 19) through the real binary: a seed-format JSON
//! workflow's `kanban_agent` step makes a card, parks the run with a
//! `kanban` wait (exit 3, no process held), and resumes on the runner's
//! next pass once the card is terminal — on the built-in board (`hwf kanban
//! complete`) and on Hermes Agent's own board (its `hermes kanban` CLI and
//! SQLite `kanban.db`, completed the way a Hermes worker completes a task).
//! Replays and runner passes never make a second card.

use crate::common::{Ctx, Run, root, runner_once, status};
use serde_json::{Value, json};
use std::path::PathBuf;

/// A one-step lane: a QA card for `profile`, then an agent-free echo.
fn lane(profile: &str) -> Value {
    json!({
        "version": "1",
        "name": "kanban_lane",
        "inputs": {"pr": "int"},
        "policy": {"network": false, "filesystem": false, "allowed_profiles": [profile], "max_kanban_cards": 2},
        "steps": [{
            "kind": "kanban_agent",
            "id": "qa_gate",
            "profile": profile,
            "task": {"title": "QA PR", "body": "Run the suite on the PR head.", "acceptance": ["tests pass"],
                     "links": ["https://example.invalid/pr/7"]},
            "input": {"pr": "$ref:inputs.pr"},
            "output_schema": {"verdict": "string"}
        }]
    })
}

fn start(ctx: &Ctx, def: &Value) -> (Run, String) {
    let d = ctx.write("lane.workflow.json", def.to_string());
    let out = ctx.run_json(d.to_str().expect("utf8"), r#"{"pr": 7}"#, &[]);
    let id = out.json()["data"]["run_id"].as_str().unwrap_or("").to_owned();
    (out, id)
}

fn cards(ctx: &Ctx) -> Vec<Value> {
    let out = ctx.hwf(["kanban", "list", "--json"]);
    out.expect_code(0);
    out.json()["data"]["cards"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_kanban_agent_step_parks_on_a_builtin_card_and_resumes_with_its_outcome() {
    let ctx = Ctx::manual_runner();
    ctx.hwf(["kanban", "use", "builtin", "--json"]).expect_code(0);
    let (out, id) = start(&ctx, &lane("qa"));
    out.expect_code(3);
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "waiting", "{s}");
    assert_eq!(s["waits"][0]["kind"], "kanban", "{s}");
    let listed = cards(&ctx);
    assert_eq!(listed.len(), 1, "{listed:?}");
    let card = &listed[0];
    let card_id = card["id"].as_str().expect("card id").to_owned();
    assert_eq!(s["waits"][0]["detail"]["card"], card_id.as_str());
    assert_eq!(
        (&card["status"], &card["assignee"], &card["title"], &card["run"]),
        (&json!("ready"), &json!("qa"), &json!("QA PR"), &json!(id))
    );
    assert_eq!(card["acceptance"], json!(["tests pass"]));
    assert_eq!(card["input"], json!({"pr": 7}));
    // Still open: a runner pass leaves it waiting and makes no second card.
    let r = runner_once(&ctx);
    assert_eq!(r["waiting"], json!([id]), "{r}");
    ctx.hwf(["kanban", "move", &card_id, "running", "--json"])
        .expect_code(0);
    ctx.hwf(["kanban", "comment", &card_id, "on it", "--json"])
        .expect_code(0);
    assert_eq!(runner_once(&ctx)["waiting"], json!([id]));
    // Bad input is typed.
    ctx.hwf(["kanban", "move", &card_id, "sideways", "--json"])
        .expect_code(2);
    ctx.hwf(["kanban", "complete", &card_id, "--result", "{not json", "--json"])
        .expect_code(2);
    ctx.hwf(["kanban", "show", "kb_nope", "--json"]).expect_code(2);
    ctx.hwf([
        "kanban",
        "complete",
        &card_id,
        "--result",
        r#"{"verdict": "pass", "summary": "green"}"#,
        "--json",
    ])
    .expect_code(0);
    let r = runner_once(&ctx);
    assert_eq!(r["executed"], json!([[id, "succeeded"]]), "{r}");
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "succeeded", "{s}");
    let out = &s["result"]["outputs"]["qa_gate"];
    assert_eq!(
        (&out["status"], &out["verdict"], &out["summary"], &out["card_id"]),
        (&json!("completed"), &json!("pass"), &json!("green"), &json!(card_id)),
        "{s}"
    );
    assert_eq!(out["links"], json!(["https://example.invalid/pr/7"]));
    assert_eq!(cards(&ctx).len(), 1, "the replay made no second card");
    let shown = ctx.hwf(["kanban", "show", &card_id, "--json"]);
    let shown = shown.json()["data"].clone();
    assert_eq!(shown["comments"][0]["body"], "on it");
    let history: Vec<&str> = shown["history"]
        .as_array()
        .expect("history")
        .iter()
        .filter_map(|h| h["status"].as_str())
        .collect();
    assert_eq!(history, ["ready", "running", "done"]);
    // The journal shows one wait and its resolution.
    let journal = ctx.journal(&id);
    let waits = journal.iter().filter(|e| e["type"] == "wait_started").count();
    assert_eq!(waits, 1, "one kanban wait");
    assert!(journal.iter().any(|e| e["type"] == "wait_resolved"));
}

#[test]
fn a_card_result_that_breaks_the_output_schema_fails_the_step_and_blocked_returns() {
    let ctx = Ctx::manual_runner();
    ctx.hwf(["kanban", "use", "builtin"]).expect_code(0);
    let (out, id) = start(&ctx, &lane("qa"));
    out.expect_code(3);
    let card = cards(&ctx)[0]["id"].as_str().expect("id").to_owned();
    ctx.hwf(["kanban", "complete", &card, "--result", r#"{"verdict": 3}"#])
        .expect_code(0);
    let r = runner_once(&ctx);
    assert_eq!(r["executed"], json!([[id, "failed"]]), "{r}");
    let s = status(&ctx, &id);
    let msg = s["error"]["message"].as_str().unwrap_or("").to_owned();
    assert!(msg.contains("does not match the output schema"), "{s}");
    assert!(msg.contains("verdict"), "{s}");
    // A blocked card resolves the wait with status blocked (no schema check).
    let ctx = Ctx::manual_runner();
    ctx.hwf(["kanban", "use", "builtin"]).expect_code(0);
    let (out, id) = start(&ctx, &lane("qa"));
    out.expect_code(3);
    let card = cards(&ctx)[0]["id"].as_str().expect("id").to_owned();
    ctx.hwf(["kanban", "move", &card, "blocked"]).expect_code(0);
    assert_eq!(runner_once(&ctx)["executed"], json!([[id, "succeeded"]]));
    assert_eq!(status(&ctx, &id)["result"]["outputs"]["qa_gate"]["status"], "blocked");
}

#[test]
fn without_a_board_kanban_calls_stay_agent_calls() {
    // The JSON runtime's seed mapping is kept: no `hwf kanban use`, and a
    // fixture answers `kanban.qa` like any agent.
    let ctx = Ctx::new();
    let f = ctx.write(
        "fixture.json",
        json!({"responses": [{"match": {"agent": "kanban.qa"}, "output": {"verdict": "pass"}}]}).to_string(),
    );
    let d = ctx.write("lane.workflow.json", lane("qa").to_string());
    let out = ctx.run_json(
        d.to_str().expect("utf8"),
        r#"{"pr": 7}"#,
        &["--agents", f.to_str().expect("utf8")],
    );
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"]["outputs"]["qa_gate"]["verdict"], "pass");
    assert!(cards(&ctx).is_empty());
}

/// The `hermes` CLI: the CI venv's, else the one on PATH.
fn hermes_bin() -> Option<PathBuf> {
    let venv = root().join("target/py/hermes/bin/hermes");
    if venv.is_file() {
        return Some(venv);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("hermes"))
            .find(|p| p.is_file())
    })
}

/// Query the Hermes SQLite board with Python's sqlite3 (no Rust driver).
fn sqlite(db: &std::path::Path, sql: &str) -> Value {
    let code = "import json,sqlite3,sys\nc=sqlite3.connect(sys.argv[1]); c.row_factory=sqlite3.Row\nprint(json.dumps([dict(r) for r in c.execute(sys.argv[2])]))";
    let out = std::process::Command::new("python3")
        .args(["-c", code])
        .arg(db)
        .arg(sql)
        .output()
        .expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("rows")
}

#[test]
fn a_kanban_agent_step_on_the_hermes_board_resumes_when_hermes_completes_the_task() {
    let Some(hermes) = hermes_bin() else {
        if std::env::var_os("HWF_SKIP_HERMES").is_some() {
            eprintln!("skipped: no hermes CLI (HWF_SKIP_HERMES)");
            return;
        }
        panic!("no `hermes` CLI (install hermes-agent, or set HWF_SKIP_HERMES=1)");
    };
    let ctx = Ctx::manual_runner();
    let db = ctx.path("hermes/kanban.db");
    let hermes_s = hermes.to_str().expect("utf8");
    // The board is Hermes' own: created by `hermes kanban init`.
    let init = std::process::Command::new(&hermes)
        .args(["kanban", "init"])
        .env("HOME", ctx.dir.path())
        .env("HERMES_HOME", ctx.path("hermes"))
        .env("HERMES_KANBAN_DB", &db)
        .output()
        .expect("hermes kanban init");
    assert!(init.status.success(), "{}", String::from_utf8_lossy(&init.stderr));
    ctx.hwf([
        "kanban",
        "use",
        "hermes",
        "--hermes",
        hermes_s,
        "--db",
        db.to_str().expect("utf8"),
    ])
    .expect_code(0);
    let (out, id) = start(&ctx, &lane("qa"));
    out.expect_code(3);
    let s = status(&ctx, &id);
    assert_eq!(s["waits"][0]["kind"], "kanban", "{s}");
    let rows = sqlite(
        &db,
        "SELECT id, title, assignee, status, idempotency_key, body, created_by FROM tasks",
    );
    let rows = rows.as_array().expect("rows");
    assert_eq!(rows.len(), 1, "{rows:?}");
    let task = rows[0]["id"].as_str().expect("task id").to_owned();
    assert!(task.starts_with("t_"), "{task}");
    assert_eq!(
        (
            &rows[0]["title"],
            &rows[0]["assignee"],
            &rows[0]["status"],
            &rows[0]["created_by"]
        ),
        (&json!("QA PR"), &json!("qa"), &json!("ready"), &json!("hwf"))
    );
    let key = rows[0]["idempotency_key"].as_str().expect("key");
    assert!(key.starts_with(&format!("{id}:")), "{key}");
    assert!(
        rows[0]["body"].as_str().unwrap_or("").contains("tests pass"),
        "{rows:?}"
    );
    assert_eq!(s["waits"][0]["detail"]["task"], task.as_str());
    // Open: the runner leaves it waiting and Hermes gets no second task.
    assert_eq!(runner_once(&ctx)["waiting"], json!([id]));
    assert_eq!(sqlite(&db, "SELECT id FROM tasks").as_array().map(Vec::len), Some(1));
    // A Hermes card is changed on Hermes' board, not through hwf.
    let card = cards(&ctx)[0]["id"].as_str().expect("card").to_owned();
    ctx.hwf(["kanban", "complete", &card, "--result", "{}"]).expect_code(2);
    // A worker completes it the way Hermes workers do.
    let done = std::process::Command::new(&hermes)
        .args([
            "kanban",
            "complete",
            &task,
            "--result",
            "QA green",
            "--metadata",
            r#"{"workflow_result": {"verdict": "pass"}}"#,
        ])
        .env("HOME", ctx.dir.path())
        .env("HERMES_KANBAN_DB", &db)
        .output()
        .expect("hermes kanban complete");
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let r = runner_once(&ctx);
    assert_eq!(r["executed"], json!([[id, "succeeded"]]), "{r}");
    let out = &status(&ctx, &id)["result"]["outputs"]["qa_gate"];
    assert_eq!(
        (&out["status"], &out["verdict"], &out["summary"], &out["hermes_task"]),
        (&json!("completed"), &json!("pass"), &json!("QA green"), &json!(task)),
        "{out}"
    );
    assert_eq!(sqlite(&db, "SELECT id FROM tasks").as_array().map(Vec::len), Some(1));
}

#[test]
fn a_python_kanban_agent_is_a_card_on_the_board() {
    let ctx = Ctx::manual_runner();
    ctx.hwf(["kanban", "use", "builtin"]).expect_code(0);
    let py = ctx.write(
        "lane.py",
        "meta = {\"name\": \"py_lane\", \"description\": \"a kanban card from Python\"}\n\
         out = await kanban_agent(\"qa\", {\"title\": \"QA from Python\"}, {\"pr\": 9}, schema={\"verdict\": \"string\"})\n\
         return {\"verdict\": out[\"verdict\"], \"status\": out[\"status\"]}\n",
    );
    let py = py.to_str().expect("utf8");
    // An agent call to `kanban.qa`, as the JSON runtime's kanban step
    // makes it: the board takes it as a card, as the seed's durable
    // backend does.
    let out = ctx.hwf(["run", py, "--json"]);
    out.expect_code(3);
    let id = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    assert_eq!(status(&ctx, &id)["waits"][0]["kind"], "kanban");
    let card = cards(&ctx)
        .into_iter()
        .find(|c| c["run"] == id.as_str())
        .expect("the run's card");
    assert_eq!(
        (&card["title"], &card["input"]),
        (&json!("QA from Python"), &json!({"pr": 9}))
    );
    let card = card["id"].as_str().expect("id").to_owned();
    ctx.hwf(["kanban", "complete", &card, "--result", r#"{"verdict": "pass"}"#])
        .expect_code(0);
    assert_eq!(runner_once(&ctx)["executed"], json!([[id, "succeeded"]]));
    assert_eq!(
        status(&ctx, &id)["result"],
        json!({"verdict": "pass", "status": "completed"})
    );
}

/// A Python card's result meets its schema by Python's rules on the board
/// too (answer rules `whole_integers`, `card_result`): `2.0` is no `int`.
#[test]
fn a_python_cards_result_is_checked_with_pythons_integers() {
    let ctx = Ctx::manual_runner();
    ctx.hwf(["kanban", "use", "builtin"]).expect_code(0);
    let py = ctx.write(
        "lane.py",
        "meta = {\"name\": \"py_lane\", \"description\": \"a kanban card from Python\"}\n\
         try:\n\
         \x20   return await kanban_agent(\"qa\", {\"title\": \"QA\"}, {}, schema={\"n\": \"int\"})\n\
         except CapabilityError as e:\n\
         \x20   return [e.code, \"2.0 is not of type\" in str(e)]\n",
    );
    let out = ctx.hwf(["run", py.to_str().expect("utf8"), "--json"]);
    out.expect_code(3);
    let id = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let card = cards(&ctx)
        .into_iter()
        .find(|c| c["run"] == id.as_str())
        .expect("the run's card");
    let card = card["id"].as_str().expect("id").to_owned();
    ctx.hwf(["kanban", "complete", &card, "--result", r#"{"n": 2.0}"#])
        .expect_code(0);
    assert_eq!(runner_once(&ctx)["executed"], json!([[id, "succeeded"]]));
    assert_eq!(status(&ctx, &id)["result"], json!(["schema", true]));
}

#[test]
fn the_seed_issue_lifecycle_runs_its_five_cards_on_the_builtin_board() {
    // examples/github_issue_lifecycle_hygiene.workflow.json of the seed,
    // unchanged: plan → implement → review and docs gates at once → closeout,
    // each a kanban_agent card; only the inventory agent is a fixture.
    let ctx = Ctx::manual_runner();
    ctx.hwf(["kanban", "use", "builtin"]).expect_code(0);
    let def = root().join("harnesses/seed-github-issue-lifecycle-hygiene.workflow.json");
    let fixture = root().join("harnesses/seed-github-issue-lifecycle-hygiene.fixture.json");
    let inputs = json!({"repo": "acme/app", "issue_number": 42, "base_branch": "main", "workspace": "/work/app",
                        "profile_bindings": {"planner": "hermes-planner"}});
    let out = ctx.run_json(
        def.to_str().expect("utf8"),
        &inputs.to_string(),
        &["--agents", fixture.to_str().expect("utf8")],
    );
    out.expect_code(3);
    let id = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let mut order: Vec<Vec<String>> = Vec::new();
    for _ in 0..10 {
        let s = status(&ctx, &id);
        if s["state"] != "waiting" {
            break;
        }
        let waits: Vec<String> = s["waits"]
            .as_array()
            .expect("waits")
            .iter()
            .map(|w| {
                assert_eq!(w["kind"], "kanban", "{s}");
                w["detail"]["card"].as_str().expect("card").to_owned()
            })
            .collect();
        let mut titles = Vec::new();
        for card in &waits {
            let c = ctx.hwf(["kanban", "show", card, "--json"]).json()["data"].clone();
            let title = c["title"].as_str().expect("title").to_owned();
            let result = json!({"step": title, "ok": true});
            ctx.hwf(["kanban", "complete", card, "--result", &result.to_string()])
                .expect_code(0);
            titles.push(title);
        }
        titles.sort();
        order.push(titles);
        runner_once(&ctx);
    }
    assert_eq!(
        order,
        [
            vec!["plan_slice"],
            vec!["implementation"],
            vec!["docs_gate", "review_gate"],
            vec!["closeout_hygiene"]
        ],
        "the cards came in the seed's order, the two gates at once"
    );
    let s = status(&ctx, &id);
    assert_eq!(s["state"], "succeeded", "{s}");
    let outputs = &s["result"]["outputs"];
    assert_eq!(outputs["closeout_hygiene"]["status"], "completed");
    assert_eq!(
        outputs["closeout_hygiene"]["result"],
        json!({"step": "closeout_hygiene", "ok": true})
    );
    assert!(
        outputs["plan_slice"]["task_id"]
            .as_str()
            .is_some_and(|t| t.starts_with("kb_"))
    );
    let listed = cards(&ctx);
    assert_eq!(
        listed.len(),
        5,
        "one card per kanban step, none duplicated by the four resumes"
    );
    // The implementation card carried the plan card's result, by $ref.
    let implementation = listed.iter().find(|c| c["title"] == "implementation").expect("card");
    assert_eq!(
        implementation["task"]["plan"],
        json!({"step": "plan_slice", "ok": true})
    );
    assert_eq!(implementation["assignee"], "implementer");
}

/// Issue 29, finding 5: a card stored its task's title, body and input
/// verbatim (credentials included) and `hwf kanban show` printed them; a
/// card grown past 4 MiB by comments broke `hwf kanban list` for the
/// whole board. Cards are redacted on every write, comments are bounded,
/// and one unreadable card is listed as such.
#[test]
fn cards_are_redacted_and_bounded_and_one_bad_card_does_not_take_the_board_down() {
    const KEY: &str = "sk-proj-Zx81kQ2mN7vB4cT9wR3yU6pL0aS5dF8gH1jK4";
    let ctx = Ctx::manual_runner();
    ctx.hwf(["kanban", "use", "builtin", "--json"]).expect_code(0);
    let mut def = lane("qa");
    def["steps"][0]["task"]["title"] = json!(format!("Rotate {KEY}"));
    def["steps"][0]["task"]["body"] = json!(format!("export OPENAI_API_KEY={KEY}"));
    def["steps"][0]["input"] = json!({"pr": "$ref:inputs.pr", "api_key": KEY});
    let (out, _id) = start(&ctx, &def);
    out.expect_code(3);
    let card_id = cards(&ctx)[0]["id"].as_str().expect("card").to_owned();
    let shown = ctx.hwf(["kanban", "show", &card_id]);
    shown.expect_code(0);
    assert!(!shown.stdout.contains(KEY), "{}", shown.stdout);
    let disk = std::fs::read_to_string(ctx.state().join("kanban/cards").join(format!("{card_id}.json"))).expect("card");
    assert!(!disk.contains(KEY), "{disk}");
    // A comment with a key is redacted too; a flood of comments is bounded.
    ctx.hwf(["kanban", "comment", &card_id, &format!("token {KEY}")])
        .expect_code(0);
    let big = "x".repeat(64 << 10);
    for _ in 0..210 {
        let c = ctx.hwf(["kanban", "comment", &card_id, &big]);
        c.expect_code(0);
    }
    let card = ctx.hwf(["kanban", "show", &card_id, "--json"]).json()["data"].clone();
    let comments = card["comments"].as_array().expect("comments");
    assert_eq!(comments.len(), 200, "the newest 200 are kept");
    assert!(
        comments
            .iter()
            .all(|c| c["body"].as_str().unwrap_or("").len() <= 16 << 10)
    );
    assert_eq!(card["comments_dropped"], 11, "{}", card["comments_dropped"]);
    assert!(!card.to_string().contains(KEY));
    // A damaged card is listed as unreadable; the others are still listed.
    let (out2, _) = start(&ctx, &lane("qa2"));
    out2.expect_code(3);
    std::fs::write(
        ctx.state().join("kanban/cards").join(format!("{card_id}.json")),
        "{ not json",
    )
    .expect("damage");
    let listed = cards(&ctx);
    assert_eq!(listed.len(), 2, "{listed:?}");
    let bad = listed.iter().find(|c| c["id"] == card_id.as_str()).expect("listed");
    assert_eq!(
        (&bad["status"], &bad["error"]["code"]),
        (&json!("unreadable"), &json!("corrupt_store"))
    );
    assert!(listed.iter().any(|c| c["assignee"] == "qa2"), "{listed:?}");
}

/// The seed's bundled Python example
/// (`examples/scripts/generic_issue_lifecycle/v000001.workflow`), unchanged,
/// with no board: each `kanban_agent` is an agent call to
/// `kanban.<profile>` with the seed's payload, as the seed's broker makes it
/// without a Kanban backend, answered by a fixture recorded from the seed's
/// own test (`test_generic_issue_lifecycle_script_runs_in_stub_mode_with_profile_bindings`);
/// the result is the one that test's run of the seed gave. Until the
/// eighteenth session hwf called the `kanban.task` capability, which the
/// default policy refused.
#[test]
fn the_seeds_python_issue_lifecycle_runs_unchanged_without_a_board() {
    let ctx = Ctx::new();
    let script = root().join("harnesses/seed-generic-issue-lifecycle.workflow.py");
    let fixture = root().join("harnesses/seed-generic-issue-lifecycle.fixture.json");
    let args = json!({"repo": "donovan-yohan/hermes-plugin-dynamic-workflows", "issue_number": 8, "base_branch": "main",
        "workspace": "/repo", "expected_head_sha": "abc123",
        "profile_bindings": {"planner": "plan-prof", "implementer": "impl-prof", "reviewer": "review-prof", "qa": "qa-prof",
                             "fixer": "fix-prof", "ops": "ops-prof"}});
    let out = ctx.run_json(
        script.to_str().expect("utf8"),
        &args.to_string(),
        &["--agents", fixture.to_str().expect("utf8")],
    );
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!({"repo": "donovan-yohan/hermes-plugin-dynamic-workflows", "issue": 8,
               "profiles": {"planner": "plan-prof", "implementer": "impl-prof", "reviewer": "review-prof", "qa": "qa-prof",
                            "fixer": "fix-prof", "ops": "ops-prof"},
               "head_sha": "abc123", "review_ok": true, "qa_ok": true, "fix_attempted": false, "fix_attempts": 0,
               "release": true, "blocked": false, "closeout_status": "succeeded", "closeout_task_id": "kb_9fcae481941d"})
    );
}

/// The seed broker's checks of a `kanban_agent` call (`_handle_kanban`),
/// its words and codes, recorded against its real runtime: a profile that
/// is not a non-empty str and an `on_block` it does not know are
/// `bad_request` before any agent runs; `on_block=None` is the default.
#[test]
fn a_python_kanban_agent_refuses_a_bad_profile_and_on_block_as_the_seed() {
    let ctx = Ctx::new();
    let script = ctx.write(
        "checks.py",
        "meta = {\"name\": \"checks\", \"description\": \"kanban_agent's argument checks\"}\n\
         out = []\n\
         for f in [lambda: kanban_agent(\"\"), lambda: kanban_agent(3),\n\
         \x20         lambda: kanban_agent(\"dev\", {\"goal\": \"g\"}, on_block=\"explode\"),\n\
         \x20         lambda: kanban_agent(\"dev\", on_block=True), lambda: kanban_agent(\"dev\", on_block=None)]:\n\
         \x20   try:\n\
         \x20       out.append(await f())\n\
         \x20   except CapabilityError as e:\n\
         \x20       out.append([e.code, e.retryable, str(e)])\n\
         return out\n",
    );
    let fixture = ctx.write(
        "fixture.json",
        r#"{"responses": [{"match": {"agent": "kanban.dev"}, "output": {"ok": 1}}]}"#,
    );
    let out = ctx.run_json(
        script.to_str().expect("utf8"),
        "{}",
        &["--agents", fixture.to_str().expect("utf8")],
    );
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!([
            ["bad_request", false, "kanban_agent call requires a non-empty 'profile'"],
            ["bad_request", false, "kanban_agent call requires a non-empty 'profile'"],
            ["bad_request", false, "on_block='explode' is not one of ['pause', 'raise', 'return']"],
            ["bad_request", false, "on_block=True is not one of ['pause', 'raise', 'return']"],
            {"ok": 1}
        ])
    );
    assert_eq!(out.json()["data"]["counts"]["agent_calls"], 1, "{}", out.stdout);
}
