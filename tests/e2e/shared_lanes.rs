//! The lanes beside a run's journal, on a shared store (PostgreSQL) with
//! several machines — state dirs of their own, one database: grant uses,
//! charged in the run's journal so a one-use grant holds whichever machine
//! continues the run (and a re-run after a kill is not charged twice);
//! agent-call transcripts, written under the run's claim so an executor
//! fenced out by a takeover cannot replace the new owner's; triggers, kept
//! in the database so an event sent on one machine starts what a trigger
//! added on another binds, and a cron minute starts one run however many
//! runners are up; the Kanban board, so a run parked on a card on one
//! machine is continued on another once the card is completed there.
//!
//! The fixture is `shared_store`'s `Pg` (a fresh database per test on the
//! cluster in `HWF_TEST_POSTGRES`).

use crate::common::{Run, root, run_id};
use crate::shared_store::{Pg, fixture, wait_for};
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::time::Duration;

/// `hwf` on machine B: another state dir, the same database.
fn machine_b(pg: &Pg) -> Command {
    let mut c = pg.cmd();
    c.env("HWF_STATE_DIR", pg.ctx.path("machine-b"));
    c
}

/// Runner passes on machine B (short leases) until one executes something;
/// what it executed.
fn take_over_on_b(pg: &Pg) -> Value {
    let mut taken = Value::Null;
    wait_for(Duration::from_secs(60), "machine b to take the run over", || {
        let pass: Run = machine_b(pg)
            .env("HWF_LEASE_MS", "600")
            .args(["runner", "--once", "--json"])
            .output()
            .expect("runner")
            .into();
        pass.expect_code(0);
        let executed = pass.json()["data"]["executed"].clone();
        let done = executed.as_array().is_some_and(|e| !e.is_empty());
        if done {
            taken = executed;
        }
        done
    });
    taken
}

/// Neither state dir holds grant markers or runs: it is all in the database.
fn assert_nothing_local(pg: &Pg) {
    pg.assert_no_local_runs();
    let b = pg.ctx.path("machine-b").join("runs");
    assert_eq!(std::fs::read_dir(&b).map_or(0, Iterator::count), 0, "{}", b.display());
}

/// The seam: grant uses on a shared store. The grant is approved from
/// machine B; machine A continues the run and is killed while the granted
/// action runs (its use already charged, durably, in the database); machine
/// B takes the run over: the re-run of that call finds its charge (not
/// charged twice), and the grant's one use is spent for the next call.
#[test]
fn a_one_use_grant_holds_across_machines_and_a_rerun_after_a_kill_is_not_charged_twice() {
    let Some(pg) = Pg::new("a_one_use_grant_holds_across_machines") else {
        return;
    };
    let script = pg.ctx.write(
        "granted.js",
        r#"export const meta = { name: "granted", description: "acts twice under a one-use grant" };
const g = await capability("grant.request", { capability: "bash", count: 1, reason: "one action" });
const first = await capability("grant.act", { grant: g.grant_id, capability: "bash",
  input: { argv: ["sh", "-c", "echo acted >> acts.txt; sleep 3"] } });
let second = "acted";
try {
  await capability("grant.act", { grant: g.grant_id, capability: "bash",
    input: { argv: ["sh", "-c", "echo again >> acts.txt"] } });
} catch (e) {
  second = String((e && e.message) || e);
}
return { uses: first.uses, remaining: first.remaining, second };
"#,
    );
    let acts = || std::fs::read_to_string(pg.ctx.path("acts.txt")).unwrap_or_default();
    let out = pg.hwf(&[
        "run",
        script.to_str().expect("utf8"),
        "--allow-class",
        "session_control",
        "--json",
    ]);
    out.expect_code(3);
    let id = run_id(&out.json());
    let s = pg.status(&id);
    assert_eq!(s["waits"][0]["kind"], "approval", "{s}");
    let call = s["waits"][0]["call"].as_str().expect("grant call").to_owned();
    let decided: Run = machine_b(&pg)
        .args(["control", "decide", &id, &call, "approve"])
        .output()
        .expect("decide")
        .into();
    decided.expect_code(0);
    // Machine A continues the run and is killed inside the granted action.
    let mut a = pg
        .cmd()
        .env("HWF_LEASE_MS", "600")
        .args(["runner", "--once", "--json"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("machine a");
    wait_for(
        Duration::from_secs(60),
        "the granted action to start on machine a",
        || acts().lines().count() == 1,
    );
    a.kill().expect("kill -9");
    a.wait().expect("wait");
    let used = |pg: &Pg| {
        pg.journal(&id)
            .into_iter()
            .filter(|e| e["type"] == "grant_used")
            .collect::<Vec<_>>()
    };
    let charged = used(&pg);
    assert_eq!(charged.len(), 1, "charged durably before the effect: {charged:?}");
    let executed = take_over_on_b(&pg);
    assert_eq!(executed[0][0], id.as_str(), "{executed}");
    let s = pg.status(&id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"]["uses"], 1, "{s}");
    assert_eq!(s["result"]["remaining"], 0, "{s}");
    let second = s["result"]["second"].as_str().unwrap_or("");
    assert!(second.contains("grant_exhausted"), "the one use was spent: {second}");
    // The action in flight at the kill ran again (at least once); the
    // refused one never ran.
    assert_eq!(acts(), "acted\nacted\n");
    let charged = used(&pg);
    assert_eq!(charged.len(), 1, "the re-run was not charged again: {charged:?}");
    assert_eq!(charged[0]["grant"], call.as_str());
    assert_nothing_local(&pg);
}

/// The seam: transcripts on a shared store. Machine A is frozen (SIGSTOP)
/// inside an agent call until its lease expires; machine B takes the run
/// over and finishes it, writing the call's transcript. When A wakes, its
/// own transcript of that call is refused by the database (the claim's
/// token is compared in the write's statement): B's stays.
#[test]
fn a_transcript_from_an_executor_fenced_out_by_a_takeover_does_not_replace_the_new_owners() {
    let Some(pg) = Pg::new("a_transcript_from_a_fenced_out_executor") else {
        return;
    };
    let f = fixture(&pg, &[], &[("slow", 1500)]);
    let script = pg.ctx.write(
        "slow.js",
        r#"export const meta = { name: "slow", description: "one slow agent call" };
const r = await agent("work", { label: "slow" });
return { done: r.label };
"#,
    );
    let a = pg
        .cmd()
        .env("HWF_LEASE_MS", "600")
        .args(["run", script.to_str().expect("utf8"), "--agents", &f, "--json"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("machine a");
    wait_for(Duration::from_secs(30), "the call to start on machine a", || {
        pg.try_sql("SELECT count(*) FROM hwf_journal WHERE kind = 'call_started'")
            .is_ok_and(|n| n.trim() == "1")
    });
    let signal = |sig: &str| {
        let ok = Command::new("kill")
            .args([sig, &a.id().to_string()])
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill {sig}");
    };
    signal("-STOP");
    let executed = take_over_on_b(&pg);
    let id = executed[0][0].as_str().expect("id").to_owned();
    assert_eq!(pg.status(&id)["state"], "succeeded");
    let transcript = |pg: &Pg| {
        pg.sql(&format!(
            "SELECT md5(bytes) || ' ' || written_at FROM hwf_artifacts WHERE run_id = '{id}' AND ref LIKE 'transcripts/%'"
        ))
    };
    let owners = transcript(&pg);
    assert_eq!(owners.lines().count(), 1, "{owners}");
    // A wakes long after: its call ends, its transcript is queued.
    std::thread::sleep(Duration::from_millis(500));
    signal("-CONT");
    let out = a.wait_with_output().expect("machine a ends");
    assert!(!out.status.success(), "a fenced-out executor does not succeed");
    // Whether A got as far as writing its transcript (it may learn of the
    // takeover first) is a race; when it did, the write was refused.
    let said = String::from_utf8_lossy(&out.stderr);
    let refused = said.lines().find(|l| l.contains("could not write transcript"));
    println!("machine a's transcript write: {}", refused.unwrap_or("not attempted"));
    assert_eq!(transcript(&pg), owners, "the new owner's transcript stays");
    let s = pg.status(&id);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"], json!({"done": "slow"}));
    assert_nothing_local(&pg);
}

/// The seam: triggers on a shared store. A trigger added on machine A is
/// listed on B and an event sent on B (twice) starts one run; a cron
/// trigger added on B is fired by three runners on three machines at once,
/// and its minute gets one run, executed once. No machine's state dir holds
/// a trigger file.
#[test]
fn a_trigger_added_on_one_machine_fires_on_the_others_and_a_cron_minute_starts_once() {
    let Some(pg) = Pg::new("a_trigger_added_on_one_machine_fires_on_the_others") else {
        return;
    };
    let on = |dir: &str| {
        let mut c = pg.cmd();
        c.env("HWF_STATE_DIR", pg.ctx.path(dir));
        c
    };
    let hwf_on = |dir: &str, args: &[&str]| -> Run { on(dir).args(args).output().expect("hwf").into() };
    let hello = root().join("harnesses/hello.workflow.json");
    let fixture = root().join("harnesses/hello/fixture.json");
    let fixture = fixture.to_str().expect("utf8");
    hwf_on(
        "machine-a",
        &["script", "save", "hello-json", hello.to_str().expect("utf8")],
    )
    .expect_code(0);
    hwf_on(
        "machine-a",
        &[
            "triggers",
            "add",
            "on-ping",
            "--workflow",
            "hello-json",
            "--source",
            "ops",
            "--type",
            "ping",
            "--args",
            r#"{"name": "$event.payload.who"}"#,
        ],
    )
    .expect_code(0);
    let listed = hwf_on("machine-b", &["triggers", "list", "--json"]);
    listed.expect_code(0);
    assert_eq!(
        listed.json()["data"]["triggers"][0]["name"],
        "on-ping",
        "{}",
        listed.stdout
    );
    let send = || {
        let out = hwf_on(
            "machine-b",
            &[
                "events",
                "send",
                "--source",
                "ops",
                "--type",
                "ping",
                "--id",
                "p1",
                "--payload",
                r#"{"who": "b"}"#,
                "--json",
            ],
        );
        out.expect_code(0);
        out.json()["data"]["started"].clone()
    };
    let first = send();
    assert_eq!(first[0]["new"], true, "{first}");
    let event_run = first[0]["run_id"].as_str().expect("run id").to_owned();
    assert_eq!(send()[0]["new"], false, "the same event again starts nothing");
    assert_eq!(pg.sql("SELECT count(*) FROM hwf_runs").trim(), "1");
    let args = pg.sql(&format!(
        "SELECT snapshot->'args' FROM hwf_runs WHERE run_id = '{event_run}'"
    ));
    assert_eq!(
        serde_json::from_str::<Value>(args.trim()).expect("args"),
        json!({"name": "b"}),
        "rendered from the event"
    );
    hwf_on(
        "machine-b",
        &[
            "triggers",
            "add",
            "every-minute",
            "--workflow",
            "hello-json",
            "--cron",
            "* * * * *",
            "--args",
            r#"{"name": "cron"}"#,
        ],
    )
    .expect_code(0);
    let minute = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_secs()
            / 60
    };
    // Three runners on three machines, at once.
    let before = minute();
    let runners: Vec<_> = ["machine-a", "machine-b", "machine-c"]
        .iter()
        .map(|m| {
            on(m)
                .args(["runner", "--once", "--json", "--agents", fixture])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("runner")
        })
        .collect();
    let mut executed = Vec::new();
    for r in runners {
        let out: Run = r.wait_with_output().expect("runner ends").into();
        out.expect_code(0);
        let data = out.json()["data"].clone();
        assert_eq!(data["errors"], json!([]), "{data}");
        executed.extend(data["executed"].as_array().cloned().unwrap_or_default());
    }
    let turned = minute() != before;
    let cron_runs: Vec<String> = pg
        .sql(&format!(
            "SELECT run_id FROM hwf_runs WHERE run_id <> '{event_run}' ORDER BY run_id"
        ))
        .lines()
        .map(str::to_owned)
        .collect();
    // One run for the minute (two only when the minute turned meanwhile).
    assert!(
        cron_runs.len() == 1 || (turned && cron_runs.len() == 2),
        "cron runs {cron_runs:?} (minute turned: {turned})"
    );
    // Every run (the event's and the cron's) executed once, by one runner.
    assert_eq!(executed.len(), 1 + cron_runs.len(), "{executed:?}");
    for id in cron_runs.iter().chain([&event_run]) {
        let s = pg.status(id);
        assert_eq!(s["state"], "succeeded", "{s}");
        let starts = pg.journal(id).iter().filter(|e| e["type"] == "run_started").count();
        assert_eq!(starts, 1, "run {id} executed once");
    }
    for m in ["machine-a", "machine-b", "machine-c"] {
        let t = pg.ctx.path(m).join("triggers");
        let n = std::fs::read_dir(&t).map_or(0, Iterator::count);
        assert_eq!(n, 0, "no trigger files in {}", t.display());
    }
    // Removed on C: gone for everyone.
    hwf_on("machine-c", &["triggers", "remove", "on-ping"]).expect_code(0);
    let listed = hwf_on("machine-a", &["triggers", "list", "--json"]);
    assert_eq!(
        listed.json()["data"]["triggers"].as_array().map(Vec::len),
        Some(1),
        "{}",
        listed.stdout
    );
}

/// The seam: Kanban lanes on a shared store. Machine A picks the built-in
/// board and starts a lane that parks on a card; machine B lists and
/// completes the card and its runner continues the run with the card's
/// outcome. One card, in the database; no state dir holds a board.
#[test]
fn a_run_parked_on_a_kanban_card_on_one_machine_is_continued_on_another() {
    let Some(pg) = Pg::new("a_run_parked_on_a_kanban_card_on_one_machine") else {
        return;
    };
    let lane = json!({
        "version": "1",
        "name": "kanban_lane",
        "inputs": {"pr": "int"},
        "policy": {"network": false, "filesystem": false, "allowed_profiles": ["qa"], "max_kanban_cards": 2},
        "steps": [{
            "kind": "kanban_agent",
            "id": "qa_gate",
            "profile": "qa",
            "task": {"title": "QA PR", "body": "Run the suite.", "acceptance": ["tests pass"]},
            "input": {"pr": "$ref:inputs.pr"},
            "output_schema": {"verdict": "string"}
        }]
    });
    let def = pg.ctx.write("lane.workflow.json", lane.to_string());
    pg.hwf(&["kanban", "use", "builtin", "--json"]).expect_code(0);
    let out = pg.hwf(&["run", def.to_str().expect("utf8"), "--args", r#"{"pr": 7}"#, "--json"]);
    out.expect_code(3);
    let id = run_id(&out.json());
    let s = pg.status(&id);
    assert_eq!(s["waits"][0]["kind"], "kanban", "{s}");
    let on_b = |args: &[&str]| -> Run { machine_b(&pg).args(args).output().expect("hwf").into() };
    let listed = on_b(&["kanban", "list", "--json"]);
    listed.expect_code(0);
    let cards = listed.json()["data"]["cards"].clone();
    assert_eq!(cards.as_array().map(Vec::len), Some(1), "{cards}");
    let card = cards[0]["id"].as_str().expect("card id").to_owned();
    assert_eq!(s["waits"][0]["detail"]["card"], card.as_str());
    // Still open: B's runner leaves it waiting.
    let pass = on_b(&["runner", "--once", "--json"]);
    pass.expect_code(0);
    assert_eq!(pass.json()["data"]["waiting"], json!([id]), "{}", pass.stdout);
    on_b(&[
        "kanban",
        "complete",
        &card,
        "--result",
        r#"{"verdict": "pass", "summary": "green"}"#,
        "--json",
    ])
    .expect_code(0);
    let pass = on_b(&["runner", "--once", "--json"]);
    pass.expect_code(0);
    assert_eq!(
        pass.json()["data"]["executed"],
        json!([[id, "succeeded"]]),
        "{}",
        pass.stdout
    );
    let s = pg.status(&id);
    let out = &s["result"]["outputs"]["qa_gate"];
    assert_eq!(
        (&out["status"], &out["verdict"], &out["card_id"]),
        (&json!("completed"), &json!("pass"), &json!(card)),
        "{s}"
    );
    assert_eq!(
        pg.sql("SELECT count(*) FROM hwf_kanban_cards").trim(),
        "1",
        "no second card"
    );
    for dir in [pg.ctx.state(), pg.ctx.path("machine-b")] {
        let k = dir.join("kanban");
        assert!(!k.exists(), "no board in {}", k.display());
    }
    assert_nothing_local(&pg);
}
