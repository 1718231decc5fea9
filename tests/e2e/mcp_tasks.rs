//! Runs as durable MCP tasks over stdio (issue 27): a client that declares
//! the `io.modelcontextprotocol/tasks` extension gets a task for a
//! `workflow` run; its question is an `input_required` task with a form
//! elicitation; the task survives `kill -9` of the server; `tasks/update`
//! answers it (as the person's decision) and the task completes with the
//! answer; `tasks/cancel` stops a run. Raw JSON-RPC on the 2026-07-28
//! revision, as a client of that revision sends it.

use crate::common::{Ctx, status};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const TASKS: &str = "io.modelcontextprotocol/tasks";

const ASK_JS: &str = r#"export const meta = { name: "ship-gate", description: "asks whether to ship" };
phase("ask");
const a = await capability("human.ask", { prompt: "Ship release 1.4?", choices: ["yes", "no"] });
return { answer: a.answer, channel: a.channel };
"#;

const SLOW_JS: &str = r#"export const meta = { name: "slow", description: "waits an hour" };
await capability("timer.sleep", { ms: 3600000 });
return { done: true };
"#;

/// What this client declares: the tasks extension and form elicitation.
fn capabilities() -> Value {
    json!({"extensions": {TASKS: {}}, "elicitation": {"form": {}}})
}

struct Client {
    child: std::process::Child,
    lines: mpsc::Receiver<Value>,
    next_id: u64,
}

impl Client {
    fn start(ctx: &Ctx) -> Self {
        let mut child = ctx
            .cmd()
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcp");
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        let mut c = Self {
            child,
            lines,
            next_id: 1,
        };
        let init = c.request(
            "initialize",
            json!({"protocolVersion": "2026-07-28",
                   "capabilities": capabilities(),
                   "clientInfo": {"name": "e2e-tasks", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        c.notify("notifications/initialized", json!({}));
        c
    }

    fn notify(&mut self, method: &str, params: Value) {
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{msg}").expect("write");
        stdin.flush().expect("flush");
    }

    /// A request and its response (notifications in between are skipped).
    /// On 2026-07-28 every request carries the revision and the client's
    /// capabilities in `_meta`.
    fn request(&mut self, method: &str, mut params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        if method != "initialize" {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": capabilities(),
            });
        }
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{msg}").expect("write");
        stdin.flush().expect("flush");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = self.lines.recv_timeout(left).expect("a response in time");
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn task(&mut self, id: &str) -> Value {
        let r = self.request("tasks/get", json!({"taskId": id}));
        r.get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tasks/get failed: {r}"))
    }

    /// Poll `tasks/get` until its status is `want`.
    fn task_until(&mut self, id: &str, want: &str) -> Value {
        let t = Instant::now();
        loop {
            let task = self.task(id);
            let task = task.get("task").cloned().unwrap_or(task);
            if task["status"] == want {
                return task;
            }
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "task {id} never became {want}: {task}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_question_is_an_input_required_task_that_survives_kill_9_and_completes_when_answered() {
    let ctx = Ctx::new();
    let mut mcp = Client::start(&ctx);
    // Discovery advertises the extension.
    let d = mcp.request("server/discover", json!({}));
    assert!(d["result"]["capabilities"]["extensions"].get(TASKS).is_some(), "{d}");
    // A workflow run becomes a task once its run is durable.
    let r = mcp.request(
        "tools/call",
        json!({"name": "workflow", "arguments": {"script_source": ASK_JS}}),
    );
    let res = &r["result"];
    assert_eq!(res["resultType"], "task", "{r}");
    let id = res["taskId"].as_str().expect("task id").to_owned();
    assert_eq!(status(&ctx, &id)["workflow"], "ship-gate", "the task is the run");
    let task = mcp.task_until(&id, "input_required");
    let requests = task["inputRequests"].as_object().expect("input requests");
    assert_eq!(requests.len(), 1, "{task}");
    let (call, req) = requests.iter().next().expect("one");
    assert_eq!(req["method"], "elicitation/create", "{req}");
    assert_eq!(req["params"]["mode"], "form");
    assert_eq!(
        req["params"]["requestedSchema"]["properties"]["answer"]["enum"],
        json!(["yes", "no"])
    );
    assert!(
        req["params"]["message"]
            .as_str()
            .expect("msg")
            .contains("Ship release 1.4?")
    );
    let before = task["inputRequests"].clone();
    // kill -9 of the server: the task is the run, on disk.
    mcp.kill();
    let mut mcp = Client::start(&ctx);
    let task = mcp.task_until(&id, "input_required");
    assert_eq!(task["inputRequests"], before, "the same input request after a restart");
    // The person in the client answers the form.
    let ack = mcp.request(
        "tasks/update",
        json!({"taskId": id, "inputResponses": {call: {"action": "accept", "content": {"answer": "yes"}}}}),
    );
    assert!(ack.get("result").is_some(), "{ack}");
    let done = mcp.task_until(&id, "completed");
    let report = &done["result"]["structuredContent"];
    assert_eq!(
        report["data"]["result"],
        json!({"answer": "yes", "channel": "mcp-elicitation"}),
        "{done}"
    );
    // An unknown task is a clear error.
    let missing = mcp.request("tasks/get", json!({"taskId": "r0123456789"}));
    assert!(missing.get("error").is_some(), "{missing}");
    mcp.kill();
}

#[test]
fn cancelling_a_task_stops_its_run() {
    let ctx = Ctx::new();
    let mut mcp = Client::start(&ctx);
    let r = mcp.request(
        "tools/call",
        json!({"name": "workflow", "arguments": {"script_source": SLOW_JS}}),
    );
    let id = r["result"]["taskId"].as_str().expect("task id").to_owned();
    mcp.task_until(&id, "working");
    let ack = mcp.request("tasks/cancel", json!({"taskId": id}));
    assert!(ack.get("result").is_some(), "{ack}");
    mcp.task_until(&id, "cancelled");
    assert_eq!(status(&ctx, &id)["state"], "stopped");
    mcp.kill();
}

#[test]
fn a_client_without_the_extension_gets_a_plain_result() {
    let ctx = Ctx::new();
    let mut child = ctx
        .cmd()
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut send = |v: Value| writeln!(stdin, "{v}").expect("write");
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}}),
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "workflow", "arguments": {"script_source": ASK_JS}}}),
    );
    let mut line = String::new();
    let reply = loop {
        line.clear();
        out.read_line(&mut line).expect("read");
        let v: Value = serde_json::from_str(&line).expect("json");
        if v["id"] == 2 {
            break v;
        }
    };
    assert!(reply["result"].get("resultType").is_none_or(|t| t != "task"), "{reply}");
    assert_eq!(
        reply["result"]["structuredContent"]["data"]["state"], "waiting",
        "{reply}"
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// The approval gate of a write: the model's `workflow_control decide`
/// cannot approve it; the person answering the task's form can.
#[test]
fn an_approval_gate_is_approved_through_the_form_not_by_the_model() {
    let ctx = Ctx::new();
    std::fs::create_dir_all(ctx.path("ws")).expect("ws");
    ctx.write(
        "hwf.toml",
        "[policy]\nallowed_classes = [\"read_only\", \"external_write\"]\n\n[capabilities]\nworkspace = \"ws\"\n",
    );
    let mut mcp = Client::start(&ctx);
    let deploy = r#"export const meta = { name: "deploy", description: "writes after an approval" };
await capability("fs.write", { path: "deployed.txt", content: "1.4" });
return { deployed: true };
"#;
    let r = mcp.request(
        "tools/call",
        json!({"name": "workflow", "arguments": {"script_source": deploy}}),
    );
    let id = r["result"]["taskId"].as_str().expect("task id").to_owned();
    let task = mcp.task_until(&id, "input_required");
    let (call, req) = task["inputRequests"]
        .as_object()
        .expect("requests")
        .iter()
        .next()
        .expect("one");
    let call = call.clone();
    let msg = req["params"]["message"].as_str().expect("msg");
    assert!(msg.contains("fs.write") && msg.contains("external_write"), "{msg}");
    // The model, through its tool.
    let r = mcp.request(
        "tools/call",
        json!({"name": "workflow_control", "arguments": {"action": "decide", "run_id": id, "call": call, "decision": "approve"}}),
    );
    assert_eq!(
        r["result"]["structuredContent"]["error"]["code"], "decision_not_allowed",
        "{r}"
    );
    // The person, through the form.
    let ack = mcp.request(
        "tasks/update",
        json!({"taskId": id, "inputResponses": {call: {"action": "accept", "content": {"decision": "approve"}}}}),
    );
    assert!(ack.get("result").is_some(), "{ack}");
    let done = mcp.task_until(&id, "completed");
    assert_eq!(
        done["result"]["structuredContent"]["data"]["result"],
        json!({"deployed": true}),
        "{done}"
    );
    assert_eq!(
        std::fs::read_to_string(ctx.path("ws/deployed.txt")).expect("written"),
        "1.4"
    );
    mcp.kill();
}
