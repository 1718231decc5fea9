//! The facade through `hwf facade` (every action, alias and bad parameter)
//! and through `hwf mcp` as a real MCP client drives it over stdio.

use crate::common::{Ctx, harnesses, root};
use base64::Engine as _;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

fn facade(ctx: &Ctx, tool: &str, request: Value, agents: Option<&str>) -> Value {
    let mut args = vec!["facade", tool];
    if let Some(a) = agents {
        args.extend(["--agents", a]);
    }
    crate::common::facade_stdin(ctx, &args, &request).1
}

fn hello_fixture() -> String {
    root()
        .join("harnesses/hello/fixture.json")
        .to_str()
        .expect("utf8")
        .to_owned()
}

#[track_caller]
fn assert_error(v: &Value, code: &str, needle: &str) {
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(v["error"]["message"].as_str().expect("message").contains(needle), "{v}");
}

#[test]
fn workflow_actions_and_aliases() {
    let ctx = Ctx::new();
    let f = hello_fixture();
    let b64 = base64::engine::general_purpose::STANDARD.encode(std::fs::read(harnesses::HELLO).expect("hello"));

    let v = facade(
        &ctx,
        "workflow",
        json!({"action": "validate", "script_path": harnesses::HELLO}),
        None,
    );
    assert_eq!(v["data"]["meta"]["name"], "hello", "{v}");
    let v = facade(
        &ctx,
        "workflow",
        json!({"action": "validate", "script_source": b64, "language": "wasm"}),
        None,
    );
    assert_eq!(v["data"]["valid"], true);

    let v = facade(
        &ctx,
        "workflow",
        json!({"action": "script_save", "script_name": "hello", "script_source": b64}),
        None,
    );
    assert_eq!(v["data"]["version"], 1, "{v}");
    let v = facade(
        &ctx,
        "workflow",
        json!({"action": "script_save", "name": "hello", "scriptPath": harnesses::HELLO}),
        None,
    );
    assert_error(&v, "already_exists", "hello");
    let v = facade(
        &ctx,
        "workflow",
        json!({"action": "script_save", "name": "hello", "scriptPath": harnesses::HELLO, "replace": true}),
        None,
    );
    assert_eq!(v["data"]["version"], 2);
    let v = facade(
        &ctx,
        "workflow",
        json!({"action": "script_catalog", "include_versions": true}),
        None,
    );
    assert_eq!(v["data"]["scripts"][0]["versions"], json!([1, 2]));
    let v = facade(
        &ctx,
        "workflow",
        json!({"action": "script_inspect", "script_name": "hello", "script_version": 1, "include_source": true}),
        None,
    );
    assert_eq!(v["data"]["source_base64"], b64.as_str());
    let v = facade(&ctx, "workflow", json!({"action": "catalog"}), None);
    let caps: Vec<&str> = v["data"]["capabilities"]
        .as_array()
        .expect("caps")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(caps.contains(&"bash") && caps.contains(&"events.wait"), "{caps:?}");

    // Claude-style: no action, `name` + `args` → run that script.
    let v = facade(
        &ctx,
        "workflow",
        json!({"name": "hello", "args": {"name": "world"}}),
        Some(&f),
    );
    assert_eq!(v["data"]["result"]["result"], "HELLO, WORLD", "{v}");
    let run_id = v["data"]["run_id"].as_str().expect("id").to_owned();
    let v = facade(
        &ctx,
        "workflow",
        json!({"scriptPath": harnesses::HELLO, "args": {"name": "world"}, "max_parallel": 2}),
        Some(&f),
    );
    assert_eq!(v["data"]["state"], "succeeded");
    let v = facade(
        &ctx,
        "workflow",
        json!({"action": "run_script", "script_source": b64, "script_args": {"name": "world"}}),
        Some(&f),
    );
    assert_eq!(v["data"]["state"], "succeeded");
    let v = facade(&ctx, "workflow", json!({"action": "status", "run_id": run_id}), None);
    assert_eq!(v["data"]["calls"].as_array().expect("calls").len(), 2);
    let v = facade(&ctx, "workflow", json!({"run_id": run_id}), None);
    assert_eq!(v["data"]["state"], "succeeded", "inferred status");
    let v = facade(&ctx, "workflow", json!({"resumeFromRunId": run_id}), Some(&f));
    assert_eq!(v["data"]["counts"]["replayed"], 2, "{v}");
    let v = facade(
        &ctx,
        "workflow",
        json!({"action": "run", "name": "hello", "background": true, "args": {"name": "world"}}),
        Some(&f),
    );
    assert_eq!(v["data"]["state"], "queued", "{v}");
}

#[test]
fn workflow_refuses_bad_parameters() {
    let ctx = Ctx::new();
    assert_error(
        &facade(&ctx, "workflow", json!({"action": "run", "colour": "blue"}), None),
        "invalid_params",
        "colour",
    );
    assert_error(
        &facade(&ctx, "workflow", json!({"action": "status", "run_id": 5}), None),
        "invalid_params",
        "run_id",
    );
    assert_error(
        &facade(&ctx, "workflow", json!({"max_parallel": "8", "name": "x"}), None),
        "invalid_params",
        "max_parallel",
    );
    assert_error(
        &facade(&ctx, "workflow", json!({"action": "explode"}), None),
        "invalid_params",
        "explode",
    );
    assert_error(
        &facade(&ctx, "workflow", json!({"action": "script_save"}), None),
        "invalid_params",
        "script_name",
    );
    assert_error(
        &facade(&ctx, "workflow", json!({}), None),
        "invalid_params",
        "no action",
    );
    assert_error(
        &facade(&ctx, "workflow", json!({"name": "a", "script_name": "b"}), None),
        "invalid_params",
        "twice",
    );
    assert_error(
        &facade(
            &ctx,
            "workflow",
            json!({"script": "print(1)", "language": "python"}),
            None,
        ),
        // Python runs in the bundled Monty runtime (issue 18); this script
        // has no meta and prints, so it is refused before a run exists.
        "invalid_script",
        "meta_not_first",
    );
    assert_error(
        &facade(&ctx, "workflow", json!({"name": "../x"}), None),
        "invalid_name",
        "../x",
    );
    assert_error(
        &facade(&ctx, "workflow", json!({"action": "status", "run_id": "nope"}), None),
        "not_found",
        "nope",
    );
    assert_error(
        &facade(&ctx, "workflow", json!({"name": "x", "max_parallel": 99}), None),
        "invalid_params",
        "max_parallel",
    );
    let v = facade(
        &ctx,
        "workflow",
        json!({"action": "run", "scriptPath": harnesses::HOSTILE_FS}),
        None,
    );
    assert_error(&v, "forbidden_import", "wasi:filesystem");
}

#[test]
fn workflow_control_actions() {
    let ctx = Ctx::new();
    // A run parked on a question, to steer.
    let v = facade(
        &ctx,
        "workflow",
        json!({"scriptPath": harnesses::PROBE, "args": {"op": "cap", "name": "human.ask", "input": {"prompt": "ok?", "choices": ["yes", "no"]}}}),
        None,
    );
    assert_eq!(v["data"]["state"], "waiting", "{v}");
    let id = v["data"]["run_id"].as_str().expect("id").to_owned();
    let v = facade(&ctx, "workflow_control", json!({"action": "overview"}), None);
    assert_eq!(v["data"]["waits"][0]["run_id"], id.as_str(), "{v}");
    let v = facade(
        &ctx,
        "workflow_control",
        json!({"action": "status", "run_id": id}),
        None,
    );
    assert_eq!(v["data"]["state"], "waiting");
    for action in ["pause", "resume"] {
        let v = facade(
            &ctx,
            "workflow_control",
            json!({"action": action, "run_id": id, "actor": "ops", "reason": "test"}),
            None,
        );
        assert_eq!(v["data"]["recorded"], true, "{v}");
    }
    let v = facade(
        &ctx,
        "workflow_control",
        json!({"action": "task_stop", "run_id": id, "call": "9"}),
        None,
    );
    assert_eq!(v["success"], true);
    let v = facade(
        &ctx,
        "workflow_control",
        json!({"action": "retry", "run_id": id, "call_ref": "1"}),
        None,
    );
    assert_eq!(v["success"], true);
    let v = facade(
        &ctx,
        "workflow_control",
        json!({"action": "decide", "run_id": id, "call": "1", "decision": "respond", "value": "maybe"}),
        None,
    );
    assert_error(&v, "invalid_args", "choices");
    let v = facade(
        &ctx,
        "workflow_control",
        json!({"action": "decide", "run_id": id, "call": "1", "decision": "respond", "value": "yes", "actor": "ana", "control_id": "d1"}),
        None,
    );
    assert_eq!(v["data"]["recorded"], true, "{v}");
    let again = facade(
        &ctx,
        "workflow_control",
        json!({"action": "decide", "run_id": id, "call": "1", "decision": "respond", "value": "yes", "control_id": "d1"}),
        None,
    );
    assert_eq!(again["data"]["recorded"], false, "idempotent control id");
    // The decision takes effect with no `hwf runner` started by anyone:
    // the facade hands the parked run to a runner of its own.
    let succeeded = wait_state(&ctx, &id, "succeeded");
    assert_eq!(succeeded["result"]["ok"]["answer"], "yes", "{succeeded}");
    // So does a stop on a parked run.
    let v = facade(
        &ctx,
        "workflow",
        json!({"scriptPath": harnesses::PROBE, "args": {"op": "cap", "name": "human.ask", "input": {"prompt": "ok?"}}}),
        None,
    );
    let id = v["data"]["run_id"].as_str().expect("id").to_owned();
    let v = facade(&ctx, "workflow_control", json!({"action": "stop", "run_id": id}), None);
    assert_eq!(v["success"], true);
    wait_state(&ctx, &id, "stopped");
    // Bad parameters.
    assert_error(
        &facade(
            &ctx,
            "workflow_control",
            json!({"action": "decide", "run_id": id}),
            None,
        ),
        "invalid_args",
        "ended",
    );
    assert_error(
        &facade(&ctx, "workflow_control", json!({"action": "zap"}), None),
        "invalid_params",
        "zap",
    );
    assert_error(
        &facade(&ctx, "workflow_control", json!({"action": "pause"}), None),
        "invalid_params",
        "run_id",
    );
    assert_error(
        &facade(
            &ctx,
            "workflow_control",
            json!({"action": "pause", "run_id": "x", "extra": 1}),
            None,
        ),
        "invalid_params",
        "extra",
    );
}

/// Poll a run's status (through the facade) until it is in `state`.
fn wait_state(ctx: &Ctx, id: &str, state: &str) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let v = facade(ctx, "workflow_control", json!({"run_id": id}), None);
        if v["data"]["state"] == state {
            return v["data"].clone();
        }
        assert!(std::time::Instant::now() < deadline, "run {id} never {state}: {v}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A minimal MCP client over the child's stdio.
struct Mcp {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
    notifications: Vec<Value>,
}

impl Mcp {
    fn start(ctx: &Ctx, agents: &str) -> Self {
        Self::start_with(ctx, agents, &[])
    }

    /// [`Mcp::start`] with extra environment variables.
    fn start_with(ctx: &Ctx, agents: &str, env: &[(&str, &std::path::Path)]) -> Self {
        let mut cmd = ctx.cmd();
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .args(["mcp", "--agents", agents])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcp");
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        Self {
            child,
            out,
            notifications: Vec::new(),
        }
    }

    fn send(&mut self, msg: Value) {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{msg}").expect("write");
        stdin.flush().expect("flush");
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(self.out.read_line(&mut line).expect("read") > 0, "server closed");
            let v: Value = serde_json::from_str(&line).expect("json-rpc line");
            if v["id"] == id {
                return v;
            }
            self.notifications.push(v);
        }
    }
}

#[test]
fn mcp_server_over_stdio() {
    let ctx = Ctx::new();
    let mut mcp = Mcp::start(&ctx, &hello_fixture());
    let init = mcp.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "hwf", "{init}");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let list = mcp.request(2, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["workflow", "workflow_control", "workflow_status"]);
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object");
        assert!(t["inputSchema"]["properties"]["action"].is_object(), "{t}");
    }
    assert!(
        tools[0]["inputSchema"]["properties"]["scriptPath"].is_null(),
        "aliases are accepted but not advertised"
    );

    let save = mcp.request(3, "tools/call", json!({"name": "workflow", "arguments": {"action": "script_save", "name": "hello", "scriptPath": harnesses::HELLO}}));
    assert_eq!(save["result"]["isError"], false, "{save}");
    assert_eq!(save["result"]["structuredContent"]["data"]["version"], 1);

    let run = mcp.request(
        4,
        "tools/call",
        json!({"name": "workflow", "arguments": {"name": "hello", "args": {"name": "world"}}, "_meta": {"progressToken": "p1"}}),
    );
    let data = &run["result"]["structuredContent"]["data"];
    assert_eq!(
        data["result"],
        json!({"greeting": "hello, world", "result": "HELLO, WORLD"}),
        "{run}"
    );
    // The text is the envelope as JSON (for content-only clients), the
    // same as the structured content.
    let text = run["result"]["content"][0]["text"].as_str().expect("text");
    let parsed: Value = serde_json::from_str(text).expect("the text is JSON");
    assert_eq!(parsed, run["result"]["structuredContent"], "{text}");
    let run_id = data["run_id"].as_str().expect("id").to_owned();

    let status = mcp.request(
        5,
        "tools/call",
        json!({"name": "workflow_control", "arguments": {"action": "status", "run_id": run_id}}),
    );
    assert_eq!(
        status["result"]["structuredContent"]["data"]["state"], "succeeded",
        "{status}"
    );
    let bad = mcp.request(
        6,
        "tools/call",
        json!({"name": "workflow", "arguments": {"bogus": true}}),
    );
    // A mistake the model can fix is a report, not a tool error.
    assert_eq!(bad["result"]["isError"], false, "{bad}");
    assert_eq!(bad["result"]["structuredContent"]["error"]["code"], "invalid_params");
    drop(mcp.child.stdin.take());
    let _ = mcp.child.wait();
}

#[test]
fn mcp_reports_progress_for_long_runs() {
    let ctx = Ctx::new();
    let slow = ctx.write(
        "slow.json",
        r#"{"responses": [{"match": {"agent": "bench.echo"}, "output": {"ok": true}, "delay_ms": 150}]}"#,
    );
    let mut mcp = Mcp::start(&ctx, slow.to_str().expect("utf8"));
    mcp.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}}),
    );
    mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let run = mcp.request(
        2,
        "tools/call",
        json!({"name": "workflow", "arguments": {"scriptPath": harnesses::PROBE, "args": {"op": "agent", "n": 4}}, "_meta": {"progressToken": 7}}),
    );
    assert_eq!(
        run["result"]["structuredContent"]["data"]["result"]["calls"], 4,
        "{run}"
    );
    let progress: Vec<&Value> = mcp
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert!(
        !progress.is_empty(),
        "no progress notification: {:?}",
        mcp.notifications
    );
    assert_eq!(progress[0]["params"]["progressToken"], 7);
    drop(mcp.child.stdin.take());
    let _ = mcp.child.wait();
}

/// A long-lived MCP server keeps the script runtime it loaded (no re-read,
/// re-hash and re-gate of its megabytes per run) only while the file is the
/// same one: a runtime replaced on disk (as `scripts/install.sh` replaces
/// it) is what the next run uses.
#[test]
fn mcp_uses_a_runtime_replaced_on_disk_on_its_next_run() {
    let ctx = Ctx::new();
    let runtimes = ctx.path("runtimes");
    std::fs::create_dir_all(&runtimes).expect("runtimes dir");
    let built = crate::common::built_runtimes();
    let install = |from: &str| {
        // Atomic, as install.sh does: a new file renamed over the old one.
        let tmp = runtimes.join(".js-runtime.wasm.tmp");
        std::fs::copy(built.join(from), &tmp).expect("copy runtime");
        std::fs::rename(&tmp, runtimes.join("js-runtime.wasm")).expect("rename runtime");
    };
    install("js-runtime.wasm");
    let script = ctx.write(
        "one.js",
        "export const meta = { name: \"one\", description: \"one phase\" };\nphase(\"only\");\nreturn { ok: 1 };\n",
    );
    let mut mcp = Mcp::start_with(&ctx, &hello_fixture(), &[("HWF_RUNTIME_DIR", &runtimes)]);
    mcp.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}}),
    );
    mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut id = 1;
    let mut run = |mcp: &mut Mcp| {
        id += 1;
        let r = mcp.request(
            id,
            "tools/call",
            json!({"name": "workflow", "arguments": {"scriptPath": script.to_str().expect("utf8")}}),
        );
        r["result"]["structuredContent"].clone()
    };
    let first = run(&mut mcp);
    assert_eq!(first["data"]["state"], "succeeded", "{first}");
    let again = run(&mut mcp);
    assert_eq!(again["data"]["state"], "succeeded", "{again}");
    assert_eq!(again["data"]["script"]["digest"], first["data"]["script"]["digest"]);
    // Another component under the runtime's name: the next run loads it,
    // and it is not the JS runtime (the JSON one cannot run this script).
    install("json-runtime.wasm");
    let replaced = run(&mut mcp);
    assert_ne!(
        replaced["data"]["state"], "succeeded",
        "the replaced runtime was used: {replaced}"
    );
    install("js-runtime.wasm");
    let restored = run(&mut mcp);
    assert_eq!(restored["data"]["state"], "succeeded", "{restored}");
    drop(mcp.child.stdin.take());
    let _ = mcp.child.wait();
}

/// A resume through the facade replays, also with `wait_seconds` (which
/// queues other runs for a runner: a queued run has no replay index), and
/// a resume in the background is refused rather than run live again.
#[test]
fn a_resume_with_wait_seconds_replays_and_one_in_the_background_is_refused() {
    let ctx = Ctx::new();
    let fixture = crate::common::hello_fixture();
    let fixture = fixture.to_str().expect("utf8");
    let (code, first) = crate::common::facade_stdin(
        &ctx,
        &["facade", "workflow", "--agents", fixture],
        &json!({"script_path": harnesses::HELLO, "script_args": {"name": "world"}}),
    );
    assert_eq!(code, 0, "{first}");
    let id = first["data"]["run_id"].as_str().expect("run id").to_owned();
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let empty = empty.to_str().expect("utf8");
    let (code, again) = crate::common::facade_stdin(
        &ctx,
        &["facade", "workflow", "--agents", empty],
        &json!({"resume_from_run_id": id, "wait_seconds": 30}),
    );
    assert_eq!(code, 0, "{again}");
    assert_eq!(again["data"]["state"], "succeeded", "{again}");
    assert_eq!(again["data"]["counts"]["replayed"], 2, "every call replayed: {again}");
    let (_, queued) = crate::common::facade_stdin(
        &ctx,
        &["facade", "workflow", "--agents", empty],
        &json!({"resume_from_run_id": id, "background": true}),
    );
    assert_eq!(queued["error"]["code"], "invalid_params", "{queued}");
}
