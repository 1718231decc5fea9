//! Hardening, round 3 (issue 29): each finding an adversary made, through
//! the binary.

use crate::common::{Ctx, run_id, status};
use serde_json::Value;

const ASK_AFTER_AGENTS_JS: &str = r#"export const meta = { name: "three-then-ask", description: "three agent calls, then a question" };
for (const label of ["a1", "a2", "a3"]) await agent("step " + label, { label });
const a = await capability("human.ask", { prompt: "go on?", choices: ["yes", "no"] });
return { answer: a.answer };
"#;

const AGENTS: &str = r#"{"responses": [
  {"match": {"label": "a1"}, "output": {"n": 1}},
  {"match": {"label": "a2"}, "output": {"n": 2}},
  {"match": {"label": "a3"}, "output": {"n": 3}}
]}"#;

/// How many times each call completed live in the run's journal (a call
/// completed twice was executed twice).
fn completions(ctx: &Ctx, run: &str) -> std::collections::BTreeMap<String, usize> {
    let mut seen = std::collections::BTreeMap::new();
    for l in ctx.journal(run) {
        if l["type"] == "call_completed" && l["replayed"] != true {
            *seen.entry(l["call"].as_str().unwrap_or("").to_owned()).or_insert(0) += 1;
        }
    }
    seen
}

/// Finding 2: a complete line after a run of zeros (a hand append after a
/// crash's preallocated tail, or pages a power loss kept out of order) was
/// accepted by the appender (its last byte is a newline) while readers
/// stopped at the zeros: the continuation's lines became invisible and a
/// `--resume-from` re-ran completed calls. Now every reader and the
/// appender name it (`corrupt_store`), nothing is re-run or appended, and
/// `hwf store repair` keeps the lines that continue the journal.
#[test]
fn data_after_a_zero_run_is_named_never_hidden_and_repair_keeps_what_continues() {
    let ctx = Ctx::manual_runner();
    ctx.write("flow.js", ASK_AFTER_AGENTS_JS);
    let agents = ctx.write("agents.json", AGENTS);
    let agents = agents.to_str().expect("utf8");
    let out = ctx.run_json("flow.js", "{}", &["--agents", agents]);
    out.expect_code(3);
    let run = run_id(&out.json());
    let wait = status(&ctx, &run)["waits"][0]["call"]
        .as_str()
        .expect("call")
        .to_owned();
    let path = ctx.state().join("runs").join(&run).join("journal.jsonl");
    let clean = std::fs::read(&path).expect("journal");
    let last_seq = ctx.journal(&run).last().expect("lines")["seq"].as_u64().expect("seq");
    // A crash's preallocated tail, and a line appended after it by hand.
    let mut damaged = clean.clone();
    damaged.extend(std::iter::repeat_n(0u8, 4096));
    let appended = format!(
        "{{\"seq\":{},\"ts_ms\":1,\"type\":\"log\",\"level\":\"info\",\"source\":\"operator\",\"message\":\"appended by hand\"}}\n",
        last_seq + 1
    );
    damaged.extend_from_slice(appended.as_bytes());
    std::fs::write(&path, &damaged).expect("damage");

    // Named by every reader, with the way out.
    let s = ctx.hwf(["status", &run, "--json"]);
    assert_ne!(s.code, 0, "{}", s.stdout);
    assert_eq!(s.json()["error"]["code"], "corrupt_store", "{}", s.stdout);
    let msg = s.json()["error"]["message"].as_str().unwrap_or("").to_owned();
    assert!(
        msg.contains("4096 zero bytes") && msg.contains(&format!("hwf store repair {run}")),
        "{msg}"
    );
    // A resume from it re-runs nothing: it is refused.
    let resumed = ctx.hwf([
        "run",
        "flow.js",
        "--resume-from",
        &run,
        "--args",
        "{}",
        "--json",
        "--agents",
        agents,
    ]);
    assert_ne!(resumed.code, 0, "{}", resumed.stdout);
    assert!(resumed.stdout.contains("corrupt_store"), "{}", resumed.stdout);
    // Nor is a decision taken on what cannot be read, and no runner
    // appends after hidden data.
    let decided = ctx.hwf(["control", "decide", &run, &wait, "respond", "--value", "yes"]);
    assert_ne!(decided.code, 0);
    assert!(decided.stderr.contains("corrupt_store"), "{}", decided.stderr);
    let _ = ctx.hwf(["runner", "--once", "--json", "--agents", agents]);
    assert_eq!(
        std::fs::read(&path).expect("journal"),
        damaged,
        "the damaged journal is left as it was"
    );

    // The repair: a dry run changes nothing; the repair keeps every line
    // that continues the journal, the hand-appended one included.
    let dry = ctx.hwf(["store", "repair", &run, "--dry-run", "--json"]);
    dry.expect_code(0);
    assert_eq!(dry.json()["data"]["last_seq"], last_seq + 1, "{}", dry.stdout);
    assert_eq!(dry.json()["data"]["dropped_bytes"], 4096, "{}", dry.stdout);
    assert_eq!(std::fs::read(&path).expect("journal"), damaged);
    let fixed = ctx.hwf(["store", "repair", &run, "--json"]);
    fixed.expect_code(0);
    let saved = fixed.json()["data"]["saved_as"].as_str().expect("saved").to_owned();
    assert_eq!(std::fs::read(path.with_file_name(&saved)).expect("kept aside"), damaged);
    assert_eq!(ctx.journal(&run).last().expect("line")["message"], "appended by hand");

    // The run continues on the repaired journal: each call completed once.
    ctx.hwf(["control", "decide", &run, &wait, "respond", "--value", "yes"])
        .expect_code(0);
    let _ = ctx.hwf(["runner", "--once", "--json", "--agents", agents]);
    let s = status(&ctx, &run);
    assert_eq!(s["state"], "succeeded", "{s}");
    assert_eq!(s["result"]["answer"], "yes", "{s}");
    let done = completions(&ctx, &run);
    assert!(
        done.values().all(|&n| n == 1),
        "a call completed twice: {done:?} {:#?}",
        ctx.journal(&run)
    );
    assert_eq!(done.len(), 4, "three agent calls and the question: {done:?}");
    let _: Value = s;
}

/// Finding 7: one line that is not UTF-8 ended an MCP session (the reader
/// stopped), and `"id": 1.5` got no answer at all. Now the first is a
/// `-32700`, the second a `-32600` with its id, and the session goes on.
#[test]
fn an_mcp_line_that_is_not_utf8_is_answered_and_the_session_goes_on() {
    use std::io::Write;
    let ctx = Ctx::new();
    let mut child = ctx
        .cmd()
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut input = Vec::new();
    input.extend_from_slice(
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}"#,
    );
    input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
    stdin.write_all(&input).expect("write");
    stdin.flush().expect("flush");
    // Read until both pings are answered (or the session ends).
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut replies: Vec<Value> = Vec::new();
    let mut out = String::new();
    while let Ok(line) = rx.recv_timeout(std::time::Duration::from_secs(30)) {
        out.push_str(&line);
        out.push('\n');
        replies.push(serde_json::from_str(&line).unwrap_or(Value::Null));
        let seen = |id: Value| replies.iter().any(|r| r["id"] == id);
        if seen(serde_json::json!(2)) && seen(serde_json::json!(1.5)) {
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let by_id = |id: Value| replies.iter().find(|r| r["id"] == id).cloned();
    let bad_utf8 = replies
        .iter()
        .find(|r| r["error"]["code"] == -32700)
        .unwrap_or_else(|| panic!("no -32700: {out}"));
    assert!(bad_utf8["id"].is_null(), "{bad_utf8}");
    assert!(
        bad_utf8["error"]["message"].as_str().unwrap_or("").contains("UTF-8"),
        "{bad_utf8}"
    );
    let fraction = by_id(serde_json::json!(1.5)).unwrap_or_else(|| panic!("no answer to id 1.5: {out}"));
    assert_eq!(fraction["error"]["code"], -32600, "{fraction}");
    let ping = by_id(serde_json::json!(2)).unwrap_or_else(|| panic!("the session ended: {out}"));
    assert!(ping.get("result").is_some(), "{ping}");
}

const GRANT_RACE_JS: &str = r#"export const meta = { name: "grant-race", description: "16 concurrent uses of each of 25 one-use grants" };
const ids = Array.from({ length: 25 }, (_, i) => i);
const grants = await parallel(ids.map(i => () =>
  capability("grant.request", { capability: "bash", count: 1, reason: "race " + i })));
const outcomes = await parallel(ids.flatMap(i => Array.from({ length: 16 }, () => async () => {
  try {
    const r = await capability("grant.act", { grant: grants[i].grant_id, capability: "bash",
      input: { argv: ["sh", "-c", "echo " + i + " >> acts.txt"] } });
    return { i, used: r.uses, remaining: r.remaining };
  } catch (e) {
    return { i, refused: String((e && e.message) || e) };
  }
})));
// One line per grant: how many uses acted (with what they were told), how
// many were refused as exhausted.
return { grants: ids.map(i => {
  const mine = outcomes.filter(o => o.i === i);
  const acted = mine.filter(o => o.used !== undefined);
  return { acted: acted.length, told: acted.map(o => [o.used, o.remaining]),
           exhausted: mine.filter(o => o.refused && o.refused.includes("grant_exhausted")).length };
}) };
"#;

/// Finding 1: 16 concurrent `grant.act` calls under a `count: 1` grant ran
/// the command twice in 2 of 25 races. Each of 25 one-use grants, raced by
/// 16 concurrent uses in one run, acts exactly once; the other 15 are
/// `grant_exhausted`. `hwf` is the command line of the store under test.
pub(crate) fn one_use_grants_act_once_under_16_concurrent_uses(ctx: &Ctx, hwf: &dyn Fn(&[&str]) -> crate::common::Run) {
    let script = ctx.write("race.js", GRANT_RACE_JS);
    let ws = ctx.path("ws");
    std::fs::create_dir_all(&ws).expect("ws");
    let out = hwf(&[
        "run",
        script.to_str().expect("utf8"),
        "--allow-class",
        "session_control",
        "--workspace",
        ws.to_str().expect("utf8"),
        "--json",
    ]);
    out.expect_code(3);
    let run = run_id(&out.json());
    let s = hwf(&["status", &run, "--json"]).json()["data"].clone();
    let waits = s["waits"].as_array().expect("waits").clone();
    assert_eq!(waits.len(), 25, "{s}");
    for w in &waits {
        hwf(&["control", "decide", &run, w["call"].as_str().expect("call"), "approve"]).expect_code(0);
    }
    hwf(&["runner", "--once", "--json"]).expect_code(0);
    let s = hwf(&["status", &run, "--json"]).json()["data"].clone();
    assert_eq!(s["state"], "succeeded", "{s}");
    let acts = std::fs::read_to_string(ws.join("acts.txt")).expect("acts");
    let mut per_grant = [0usize; 25];
    for line in acts.lines() {
        per_grant[line.trim().parse::<usize>().expect("grant index")] += 1;
    }
    assert_eq!(per_grant, [1; 25], "each one-use grant acts once: {acts}");
    let grants = s["result"]["grants"]
        .as_array()
        .unwrap_or_else(|| panic!("no result: {s}"));
    assert_eq!(grants.len(), 25);
    for (i, g) in grants.iter().enumerate() {
        assert_eq!(
            g,
            &serde_json::json!({"acted": 1, "told": [[1, 0]], "exhausted": 15}),
            "grant {i}"
        );
    }
}

#[test]
fn one_use_grants_act_once_under_16_concurrent_uses_on_the_file_store() {
    let ctx = Ctx::manual_runner();
    one_use_grants_act_once_under_16_concurrent_uses(&ctx, &|args| ctx.hwf(args));
}

#[test]
fn one_use_grants_act_once_under_16_concurrent_uses_on_postgresql() {
    let Some(pg) = crate::shared_store::Pg::new("one_use_grants_act_once_under_16_concurrent_uses_on_postgresql")
    else {
        return;
    };
    one_use_grants_act_once_under_16_concurrent_uses(&pg.ctx, &|args| pg.hwf(args));
}

/// Finding 10: escape sequences from guests (phases, logs, labels,
/// questions, the workflow's name) reached `status`, `logs`, `waits`,
/// `overview` and `run` raw: a script could clear the operator's screen,
/// retitle the terminal or hide text. Every terminal output escapes them.
#[test]
fn escape_sequences_from_a_guest_never_reach_the_terminal() {
    let ctx = Ctx::manual_runner();
    ctx.write(
        "evil.js",
        "export const meta = { name: \"evil\\u001b[2J\", description: \"d\", phases: [{ title: \"p\\u001b]0;pwned\\u0007\" }] };\n\
         phase(\"p\\u001b]0;pwned\\u0007\");\n\
         console.log(\"log \\u001b[31mred\\u009b2J\\r\\u202etxt.exe\");\n\
         await agent(\"hi\", { label: \"l\\u001b[8mhidden\" });\n\
         const a = await capability(\"human.ask\", { prompt: \"ok?\\r\\u001b[1A\", choices: [\"yes\"] });\n\
         return { a };\n",
    );
    let agents = ctx.write(
        "agents.json",
        r#"{"responses": [{"match": {}, "output": {"ok": true}}]}"#,
    );
    let run = ctx.hwf(["run", "evil.js", "--agents", agents.to_str().expect("utf8")]);
    run.expect_code(3);
    let id = run.stdout.trim().to_owned();
    let steering = |s: &str| {
        s.chars()
            .any(|c| matches!(c, '\u{1b}' | '\u{7}' | '\r' | '\u{9b}' | '\u{202e}'))
    };
    let mut outputs = vec![("run", run.stdout.clone() + &run.stderr)];
    for args in [
        vec!["status", id.as_str()],
        vec!["logs", id.as_str()],
        vec!["waits"],
        vec!["overview"],
        vec!["status", id.as_str(), "--json"],
        vec!["logs", id.as_str(), "--json"],
    ] {
        let out = ctx.hwf(&args);
        outputs.push((args[0], out.stdout + &out.stderr));
    }
    for (what, text) in &outputs {
        assert!(!steering(text), "{what} printed a raw escape: {text:?}");
    }
    // What was escaped is still shown, visibly.
    let logs = &outputs[2].1;
    assert!(logs.contains("\\u001b[31mred"), "{logs}");
    // JSON stays JSON, with the original text inside.
    let status: Value = serde_json::from_str(&outputs[5].1).expect("status JSON");
    assert!(status.to_string().contains("pwned"), "{status}");
    // The escapes are in the run as the guest wrote them: the terminal
    // outputs are what keeps them harmless.
    assert!(
        ctx.journal(&id)
            .iter()
            .any(|l| l.to_string().contains("\\u001b]0;pwned")),
        "the journal keeps the phase as written"
    );
}

/// Finding 12 (part): a damaged `controls.jsonl` was named by the runner,
/// but `hwf status` showed the run as if it had no controls. Status names
/// the damage (JSON and text) and keeps showing the run.
#[test]
fn status_names_damaged_controls() {
    let ctx = Ctx::manual_runner();
    ctx.write(
        "ask.js",
        "export const meta = { name: \"ask\", description: \"asks\" };\nconst a = await capability(\"human.ask\", { prompt: \"go?\", choices: [\"yes\"] });\nreturn { a };\n",
    );
    let out = ctx.hwf(["run", "ask.js", "--json"]);
    out.expect_code(3);
    let run = run_id(&out.json());
    ctx.hwf(["control", "pause", &run]).expect_code(0);
    let controls = ctx.state().join("runs").join(&run).join("controls.jsonl");
    let mut text = std::fs::read_to_string(&controls).expect("controls");
    text.push_str("{ this is not a control\n");
    std::fs::write(&controls, text).expect("damage");
    let s = status(&ctx, &run);
    assert_eq!(s["controls_error"]["code"], "corrupt_store", "{s}");
    assert_eq!(s["state"], "waiting", "{s}");
    assert_eq!(
        s["controls"].as_array().map(Vec::len),
        Some(1),
        "the readable control is still shown: {s}"
    );
    let human = ctx.hwf(["status", &run]);
    assert!(
        human.stdout.contains("controls damaged: corrupt_store"),
        "{}",
        human.stdout
    );
}
