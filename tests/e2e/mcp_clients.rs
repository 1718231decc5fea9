//! `hwf mcp` as long-lived clients use it (Hermes Agent, the Python MCP
//! SDK): decisions take effect with no runner started by anyone, foreground
//! calls detach after `wait_seconds`, progress only grows, `isError` only
//! when the tool could not execute, runs are subscribable resources, and
//! `decide` is checked against what the call waits for. The Python clients
//! themselves are driven by `tests/python/` (run by `scripts/test.sh`).

use crate::common::Ctx;
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A JS workflow that asks one question and returns the answer.
pub const ASK_JS: &str = r#"export const meta = { name: "ask", description: "asks, then answers", phases: [{ title: "ask" }] };
phase("ask");
const answer = await capability("human.ask", { prompt: "Ship it?", choices: ["yes", "no"] });
return { answer: answer.answer ?? answer };
"#;

/// A JS workflow of five one-second agent calls over three declared phases.
pub const SLOW_JS: &str = r#"export const meta = { name: "slow", description: "five slow steps", phases: [{ title: "one" }, { title: "two" }, { title: "three" }] };
phase("one");
await agent("step 1", { label: "s1" });
await agent("step 2", { label: "s2" });
phase("two");
await agent("step 3", { label: "s3" });
await agent("step 4", { label: "s4" });
phase("three");
await agent("step 5", { label: "s5" });
return { done: 5 };
"#;

/// The fixture for [`SLOW_JS`]: every step takes a second.
pub fn slow_fixture() -> String {
    let rules: Vec<Value> = (1..=5)
        .map(|i| json!({"match": {"label": format!("s{i}")}, "output": {"ok": i}, "delay_ms": 1000}))
        .collect();
    json!({ "responses": rules }).to_string()
}

/// An MCP client over the child's stdio; a reader thread collects lines.
struct Client {
    child: std::process::Child,
    lines: mpsc::Receiver<Value>,
    notifications: Vec<Value>,
    next_id: u64,
}

impl Client {
    fn start(ctx: &Ctx, agents: Option<&str>) -> Self {
        let mut cmd = ctx.cmd();
        cmd.arg("mcp");
        if let Some(a) = agents {
            cmd.args(["--agents", a]);
        }
        let mut child = cmd
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
            notifications: Vec::new(),
            next_id: 1,
        };
        let init = c.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "hwf", "{init}");
        c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    fn send(&mut self, msg: Value) {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{msg}").expect("write");
        stdin.flush().expect("flush");
    }

    /// Send a request and wait (up to 60 s) for its response; everything
    /// else received meanwhile is kept in `notifications`.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method} in 60 s"));
            if v["id"] == id {
                return v;
            }
            self.notifications.push(v);
        }
    }

    fn call(&mut self, tool: &str, args: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": args}))["result"].clone()
    }

    /// Wait for a notification with this method (and predicate).
    fn wait_notification(&mut self, method: &str, pred: impl Fn(&Value) -> bool, within: Duration) -> Option<Value> {
        if let Some(n) = self.notifications.iter().find(|n| n["method"] == method && pred(n)) {
            return Some(n.clone());
        }
        let deadline = Instant::now() + within;
        while let Ok(v) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            let hit = v["method"] == method && pred(&v);
            self.notifications.push(v.clone());
            if hit {
                return Some(v);
            }
        }
        None
    }

    /// Poll `workflow_control status` until the run reaches `state`.
    fn wait_state(&mut self, run: &str, state: &str, within: Duration) -> Value {
        let deadline = Instant::now() + within;
        loop {
            let s = self.call("workflow_control", json!({"action": "status", "run_id": run}));
            let data = s["structuredContent"]["data"].clone();
            if data["state"] == state {
                return data;
            }
            assert!(
                Instant::now() < deadline,
                "run {run} not {state} within {within:?}: {data}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Compile the JS runtime once (seconds on a loaded machine) so the timed
/// parts of the tests measure hwf, not the first compile.
fn warm(ctx: &Ctx) {
    let out = ctx.hwf([
        "validate",
        ctx.write("warm.js", ASK_JS).to_str().expect("utf8"),
        "--json",
    ]);
    assert_eq!(out.json()["success"], true, "{out:?}");
}

#[test]
fn mcp_decide_answers_a_parked_js_run_within_two_seconds_without_a_runner() {
    let ctx = Ctx::new();
    warm(&ctx);
    let mut mcp = Client::start(&ctx, None);
    let r = mcp.call("workflow", json!({"script_source": ASK_JS}));
    let data = r["structuredContent"]["data"].clone();
    assert_eq!(data["state"], "waiting", "{r}");
    assert_eq!(r["isError"], false);
    let run = data["run_id"].as_str().expect("run id").to_owned();
    let call = data["waits"][0]["call"].as_str().expect("call").to_owned();
    // Subscribe to the run: its end is announced.
    let uri = format!("hwf://runs/{run}");
    let sub = mcp.request("resources/subscribe", json!({"uri": uri}));
    assert!(sub.get("error").is_none(), "{sub}");

    let t0 = Instant::now();
    let d = mcp.call(
        "workflow_control",
        json!({"action": "decide", "run_id": run, "call": call, "decision": "respond", "value": "yes"}),
    );
    assert_eq!(d["structuredContent"]["success"], true, "{d}");
    let done = mcp.wait_state(&run, "succeeded", Duration::from_secs(2));
    let took = t0.elapsed();
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(done["result"]["answer"], "yes", "{done}");
    let updated = mcp.wait_notification(
        "notifications/resources/updated",
        |n| n["params"]["uri"] == uri.as_str(),
        Duration::from_secs(5),
    );
    assert!(updated.is_some(), "no resources/updated: {:?}", mcp.notifications);
    // The resource reads as the run's status.
    let read = mcp.request("resources/read", json!({"uri": uri}));
    let text = read["result"]["contents"][0]["text"].as_str().expect("text");
    let status: Value = serde_json::from_str(text).expect("json");
    assert_eq!(status["state"], "succeeded", "{status}");
    let list = mcp.request("resources/list", json!({}));
    assert!(list["result"]["resources"].to_string().contains(&uri), "{list}");
    eprintln!("decide → succeeded in {took:?}");
}

#[test]
fn mcp_foreground_call_detaches_after_wait_seconds_and_progress_only_grows() {
    let ctx = Ctx::new();
    warm(&ctx);
    let fixture = ctx.write("slow.json", slow_fixture());
    let mut mcp = Client::start(&ctx, Some(fixture.to_str().expect("utf8")));
    let t0 = Instant::now();
    let r = mcp.request(
        "tools/call",
        json!({"name": "workflow", "arguments": {"script_source": SLOW_JS, "wait_seconds": 1}, "_meta": {"progressToken": "p"}}),
    )["result"]
        .clone();
    let answered = t0.elapsed();
    let data = r["structuredContent"]["data"].clone();
    assert_eq!(data["detached"], true, "{r}");
    assert!(answered < Duration::from_secs(4), "answered after {answered:?}");
    let run = data["run_id"].as_str().expect("run id").to_owned();
    assert!(
        matches!(data["state"].as_str(), Some("running" | "queued" | "starting")),
        "{data}"
    );
    // The run goes on in the server and completes.
    let done = mcp.wait_state(&run, "succeeded", Duration::from_secs(60));
    assert_eq!(done["result"]["done"], 5, "{done}");
    assert_eq!(done["declared_phases"].as_array().map(Vec::len), Some(3), "{done}");

    // Progress, for a second call that waits to the end.
    let r = mcp.request(
        "tools/call",
        json!({"name": "workflow", "arguments": {"script_source": SLOW_JS}, "_meta": {"progressToken": 9}}),
    )["result"]
        .clone();
    assert_eq!(r["structuredContent"]["data"]["state"], "succeeded", "{r}");
    let progress: Vec<&Value> = mcp
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress" && n["params"]["progressToken"] == 9)
        .collect();
    assert!(progress.len() >= 3, "too few progress notifications: {progress:?}");
    let values: Vec<f64> = progress
        .iter()
        .map(|n| n["params"]["progress"].as_f64().expect("number"))
        .collect();
    assert!(
        values.windows(2).all(|w| w[1] > w[0]),
        "progress must strictly increase: {values:?}"
    );
    assert!(
        progress.iter().all(|n| n["params"]["total"] == 3.0),
        "total is the declared phases: {progress:?}"
    );
    assert!(values.iter().all(|v| *v <= 3.0), "{values:?}");
    // No notification after the call answered was for the first token
    // beyond its answer… and none is sent more than 4 times a second.
    assert!(progress.len() <= 5 * 4 + 1, "not rate-limited: {}", progress.len());
    eprintln!("detached after {answered:?}; progress {values:?}");
}

#[test]
fn mcp_is_error_only_when_the_tool_cannot_execute() {
    let ctx = Ctx::new();
    let mut mcp = Client::start(&ctx, None);
    // A lookup that finds nothing is a report.
    let r = mcp.call(
        "workflow_control",
        json!({"action": "status", "run_id": "r0000000000000000000000000000000"}),
    );
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["structuredContent"]["success"], false);
    assert_eq!(r["structuredContent"]["error"]["code"], "not_found", "{r}");
    let r = mcp.call(
        "workflow",
        json!({"action": "status", "run_id": "r0000000000000000000000000000000"}),
    );
    assert_eq!(r["isError"], false, "{r}");
    // A run that ended failed is a report with its data.
    let failing = "export const meta = { name: \"f\", description: \"fails\" };\nthrow new Error(\"boom\");\n";
    let r = mcp.call("workflow", json!({"script_source": failing}));
    assert_eq!(r["structuredContent"]["data"]["state"], "failed", "{r}");
    assert_eq!(r["structuredContent"]["success"], false);
    assert_eq!(r["isError"], false, "{r}");
    // A mistake the model can fix is a report too (Hermes counts every
    // isError towards its breaker): success false, the parameter named.
    for bad in [
        json!({"bogus": 1}),
        json!({"action": "run", "wait_seconds": "soon"}),
        json!({"action": "nonsense"}),
    ] {
        let r = mcp.call("workflow", bad.clone());
        assert_eq!(r["isError"], false, "{bad}: {r}");
        assert_eq!(r["structuredContent"]["success"], false, "{r}");
        assert_eq!(r["structuredContent"]["error"]["code"], "invalid_params", "{r}");
        // The text is the envelope as JSON, for clients that read only text.
        let text = r["content"][0]["text"].as_str().expect("text");
        let parsed: Value = serde_json::from_str(text).expect("the text is JSON");
        assert_eq!(parsed, r["structuredContent"], "{text}");
    }
    let r = mcp.call("workflow_status", json!({"limit": 500}));
    assert_eq!(r["isError"], false, "{r}");
    let message = r["structuredContent"]["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("limit") && message.contains("200"), "{r}");
    // A server that cannot read its store is an error: the one case.
    std::fs::remove_dir_all(ctx.state().join("runs")).expect("rm runs");
    std::fs::write(ctx.state().join("runs"), b"not a dir").expect("file");
    let r = mcp.call("workflow_status", json!({}));
    assert_eq!(r["structuredContent"]["success"], false, "{r}");
    assert_eq!(r["isError"], true, "{r}");
}

#[test]
fn mcp_tools_advertise_titles_hints_output_schema_and_canonical_names() {
    let ctx = Ctx::new();
    let mut mcp = Client::start(&ctx, None);
    let list = mcp.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools").clone();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["workflow", "workflow_control", "workflow_status"]);
    for t in &tools {
        assert!(t["title"].is_string(), "{t}");
        assert!(t["annotations"]["readOnlyHint"].is_boolean(), "{t}");
        // Nothing is advertised destructive; reading is read-only and
        // idempotent.
        assert_eq!(t["annotations"]["destructiveHint"], false, "{t}");
        let read = t["name"] == "workflow_status";
        assert_eq!(t["annotations"]["readOnlyHint"], read, "{t}");
        assert_eq!(t["annotations"]["idempotentHint"], read, "{t}");
        assert_eq!(t["outputSchema"]["type"], "object", "{t}");
        let props = t["inputSchema"]["properties"].as_object().expect("props");
        for (name, p) in props {
            assert!(p["type"].is_string() || p["type"].is_array(), "{name} untyped: {p}");
        }
        for alias in ["scriptPath", "script", "name", "args", "runId", "call_ref", "task_id"] {
            assert!(!props.contains_key(alias), "alias {alias} advertised");
        }
        let text = t.to_string();
        assert!(!text.contains("base64 wasm"), "{text}");
    }
    assert!(tools[0]["inputSchema"]["properties"]["wait_seconds"].is_object());
    // Aliases are still accepted, though not advertised.
    let r = mcp.call("workflow", json!({"scriptPath": "/nonexistent.js"}));
    let code = r["structuredContent"]["error"]["code"].clone();
    assert_ne!(code, "invalid_params", "the alias is accepted: {r}");
    let r = mcp.call("workflow", json!({"action": "catalog"}));
    let langs = r["structuredContent"]["data"]["languages"].to_string();
    assert!(langs.contains("\"js\"") && langs.contains("\"json\""), "{langs}");
}

#[test]
fn decide_is_checked_against_what_the_call_waits_for() {
    let ctx = Ctx::new();
    warm(&ctx);
    let mut mcp = Client::start(&ctx, None);
    let r = mcp.call("workflow", json!({"script_source": ASK_JS}));
    let data = r["structuredContent"]["data"].clone();
    let run = data["run_id"].as_str().expect("run").to_owned();
    let call = data["waits"][0]["call"].as_str().expect("call").to_owned();
    let refuse = |mcp: &mut Client, args: Value, needle: &str| {
        let r = mcp.call("workflow_control", args);
        let v = &r["structuredContent"];
        assert_eq!(v["success"], false, "{r}");
        assert_eq!(v["error"]["code"], "invalid_args", "{r}");
        let msg = v["error"]["message"].as_str().unwrap_or("");
        assert!(msg.contains(needle), "{needle:?} not in {msg:?}");
    };
    refuse(
        &mut mcp,
        json!({"action": "decide", "run_id": run, "call": call, "decision": "approve"}),
        "is a question",
    );
    refuse(
        &mut mcp,
        json!({"action": "decide", "run_id": run, "call": call, "decision": "edit", "input": {"x": 1}}),
        "is a question",
    );
    // Nothing was recorded: the run still waits.
    assert_eq!(ctx.hwf(["status", &run, "--json"]).json()["data"]["state"], "waiting");
    // The CLI: a bare string is a value; a call that is not waiting is refused.
    ctx.hwf(["control", "decide", &run, "9", "respond", "--value", "yes"])
        .expect_code(2);
    ctx.hwf(["control", "decide", &run, &call, "respond", "--value", "maybe"])
        .expect_code(2)
        .expect_stderr("choices");
    ctx.hwf(["control", "decide", &run, &call, "respond", "--value", "yes"])
        .expect_code(0);
    mcp.wait_state(&run, "succeeded", Duration::from_secs(10));
    // Answered: a second decision on it is refused.
    let again = ctx.hwf(["control", "decide", &run, &call, "respond", "--value", "no"]);
    assert_ne!(again.code, 0, "{again:?}");
}

/// Issue 32: a copy of the binary alone, with an empty HOME and an empty
/// compile cache, runs a JS, a Python and a JSON workflow from an empty
/// directory: the runtimes are embedded, precompiled for this machine (no
/// "compiling the … runtime" line), and `HWF_RUNTIME_DIR` still overrides.
#[test]
fn a_copy_of_the_binary_alone_runs_js_python_and_json_from_an_empty_dir() {
    let ctx = Ctx::new();
    let bin = ctx.path("bin");
    let home = ctx.path("home");
    let empty = ctx.path("empty");
    for dir in [&bin, &home, &empty] {
        std::fs::create_dir_all(dir).expect("dir");
    }
    let hwf = bin.join("hwf");
    std::fs::copy(env!("CARGO_BIN_EXE_hwf"), &hwf).expect("copy the binary");
    let scripts = ctx.path("scripts");
    std::fs::create_dir_all(&scripts).expect("scripts");
    let js = scripts.join("hi.js");
    std::fs::write(
        &js,
        "export const meta = { name: \"hi\", description: \"greets\" };\nreturn { hi: \"from js\" };\n",
    )
    .expect("js");
    let py = scripts.join("hi.py");
    std::fs::write(
        &py,
        "meta = {\"name\": \"hi\", \"description\": \"greets\"}\nreturn {\"hi\": \"from python\"}\n",
    )
    .expect("py");
    let json_wf = crate::common::root().join("harnesses/hello.workflow.json");
    let copy = |script: &std::path::Path, runtime_dir: Option<&std::path::Path>| {
        let mut c = std::process::Command::new(&hwf);
        c.current_dir(&empty)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &home)
            .env("HWF_RUNNER_AUTOSTART", "0")
            .args(["run", script.to_str().expect("utf8"), "--json", "--agents"])
            .arg(crate::common::hello_fixture());
        if let Some(dir) = runtime_dir {
            c.env("HWF_RUNTIME_DIR", dir);
        }
        crate::common::Run::from(c.output().expect("run the copy"))
    };
    let out = copy(&js, None);
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"], json!({"hi": "from js"}), "{out:?}");
    assert!(
        !out.stderr.contains("compiling the"),
        "the precompiled runtime was used: {out:?}"
    );
    // The artifact went to the per-user cache under the empty HOME.
    assert!(
        std::fs::read_dir(home.join(".cache/hwf")).is_ok_and(|d| d.count() > 0),
        "the first run filled the per-user cache"
    );
    let out = copy(&py, None);
    out.expect_code(0);
    assert_eq!(out.json()["data"]["result"], json!({"hi": "from python"}), "{out:?}");
    assert!(!out.stderr.contains("compiling the"), "{out:?}");
    let out = copy(&json_wf, None);
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"]["output"],
        json!({"greeting": "hello, world", "result": "HELLO, WORLD"}),
        "{out:?}"
    );
    assert!(!out.stderr.contains("compiling the"), "{out:?}");
    // HWF_RUNTIME_DIR overrides the embedded runtime: another component
    // under the JS runtime's name is what runs (and cannot run the script).
    let runtimes = ctx.path("runtimes");
    std::fs::create_dir_all(&runtimes).expect("runtimes");
    let built = crate::common::built_runtimes();
    std::fs::copy(built.join("json-runtime.wasm"), runtimes.join("js-runtime.wasm")).expect("copy runtime");
    // (Its artifact is already cached: the JSON run above wrote it.)
    let out = copy(&js, Some(&runtimes));
    out.expect_code(2);
    assert!(out.stdout.contains("invalid_json"), "the override was used: {out:?}");
}

#[test]
fn doctor_is_truthful_and_checks_the_hermes_entry() {
    let ctx = Ctx::new();
    let find = |report: &Value, name: &str| -> Value {
        report["checks"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["check"] == name).cloned())
            .unwrap_or_else(|| panic!("no check {name}: {report:#}"))
    };
    // Outside a checkout (the test dir), with no config: passes, and says
    // which cache and runtimes it resolved.
    let out = ctx.hwf(["doctor", "--json"]);
    out.expect_code(0);
    let report = out.json()["data"].clone();
    assert!(
        find(&report, "config")["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("defaults"))
    );
    let cache = find(&report, "cache");
    assert!(
        cache["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with(crate::common::shared_cache().to_str().expect("utf8"))),
        "HWF_CACHE_DIR is the cache: {cache}"
    );
    assert_eq!(find(&report, "runtime.js")["ok"], true, "{report:#}");
    assert_eq!(
        find(&report, "harnesses")["level"],
        "warn",
        "build-only checks are informational"
    );
    // The state dir's hwf.toml is loaded and named, like `hwf run` does;
    // an API key variable that is not set fails; a Hermes entry without the
    // state dir, --config or the key in env: is warned about.
    std::fs::create_dir_all(ctx.state()).expect("state");
    std::fs::write(
        ctx.state().join("hwf.toml"),
        "[agents.backends.local]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\napi_key_env = \"HWF_TEST_MISSING_KEY\"\n",
    )
    .expect("config");
    let hermes = ctx.dir.path().join("hermes");
    std::fs::create_dir_all(&hermes).expect("hermes home");
    std::fs::write(
        hermes.join("config.yaml"),
        "model: x\nmcp_servers:\n  hwf:\n    command: /opt/bin/hwf\n    args: [\"mcp\"]\n    env:\n      OTHER: \"1\"\n  other:\n    command: npx\n    args: [\"x\"]\n",
    )
    .expect("hermes config");
    let out = ctx
        .cmd()
        .env_remove("HWF_TEST_MISSING_KEY")
        .args(["doctor", "--json"])
        .output();
    let out = crate::common::Run::from(out.expect("doctor"));
    out.expect_code(1);
    let report = out.json()["data"].clone();
    let config = find(&report, "config");
    assert!(
        config["detail"].as_str().is_some_and(|d| d.ends_with("state/hwf.toml")),
        "{config}"
    );
    let key = find(&report, "agents.backends.local.api_key_env");
    assert_eq!(key["ok"], false, "{key}");
    let entry = find(&report, "hermes.mcp_servers.hwf");
    assert_eq!(entry["level"], "warn", "{entry}");
    let detail = entry["detail"].as_str().expect("detail");
    assert!(
        detail.contains("--state-dir") && detail.contains("HWF_TEST_MISSING_KEY"),
        "{detail}"
    );
    assert!(
        report["checks"]
            .as_array()
            .is_some_and(|c| c.iter().all(|c| c["check"] != "hermes.mcp_servers.other")),
        "only entries that start hwf"
    );
    // The documented entry passes.
    std::fs::write(
        hermes.join("config.yaml"),
        format!(
            "mcp_servers:\n  hwf:\n    command: /opt/bin/hwf\n    args: [\"--state-dir\", \"{}\", \"mcp\"]\n    env:\n      HWF_TEST_MISSING_KEY: \"${{HWF_TEST_MISSING_KEY}}\"\n",
            ctx.state().display()
        ),
    )
    .expect("hermes config");
    let report = ctx.hwf(["doctor", "--json"]).json()["data"].clone();
    assert_eq!(find(&report, "hermes.mcp_servers.hwf")["level"], "info", "{report:#}");
}

#[test]
fn malformed_requests_get_the_json_rpc_code_they_deserve() {
    let ctx = Ctx::new();
    let mut mcp = Client::start(&ctx, None);
    // A known method with bad params is -32602, an unknown one -32601.
    let bad = mcp.request("tools/call", json!({"arguments": {}}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let bad = mcp.request("tools/call", json!({"name": "workflow", "arguments": "text"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let unknown = mcp.request("bogus/method", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    // Not JSON at all: -32700.
    let stdin = mcp.child.stdin.as_mut().expect("stdin");
    writeln!(stdin, "{{not json").expect("write");
    stdin.flush().expect("flush");
    let deadline = Instant::now() + Duration::from_secs(10);
    let parse = loop {
        let v = mcp
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("a parse error answer");
        if v["error"]["code"] == -32700 {
            break v;
        }
    };
    assert!(parse["id"].is_null(), "{parse}");
    // The server is still serving.
    let list = mcp.request("tools/list", json!({}));
    assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(3), "{list}");
}

#[test]
fn background_runs_keep_their_phases_and_script_list_shows_versions_without_colour() {
    let ctx = Ctx::new();
    warm(&ctx);
    let script = ctx.write("slow.js", SLOW_JS);
    let fixture = ctx.write("slow.json", slow_fixture());
    let script = script.to_str().expect("utf8");
    ctx.hwf(["script", "save", "slow", script]).expect_code(0);
    ctx.hwf(["script", "save", "slow", script, "--replace"]).expect_code(0);
    let out = ctx.hwf(["script", "list", "--versions"]);
    out.expect_code(0);
    assert!(
        out.stdout.contains("  v000001  js") && out.stdout.contains("  v000002  js"),
        "{out:?}"
    );
    // A queued run shows its declared phases before and while a runner has it.
    let out = ctx.hwf([
        "run",
        "slow",
        "--background",
        "--queue-only",
        "--agents",
        fixture.to_str().expect("utf8"),
    ]);
    out.expect_code(0);
    let id = out.stdout.trim().to_owned();
    let s = ctx.hwf(["status", &id, "--json"]).json()["data"].clone();
    assert_eq!(s["state"], "queued", "{s}");
    let titles: Vec<&str> = s["declared_phases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["title"].as_str())
        .collect();
    assert_eq!(titles, ["one", "two", "three"], "{s}");
    // Logs on a piped stderr carry no colour codes.
    let out = ctx
        .cmd()
        .env("RUST_LOG", "debug")
        .args(["status", &id])
        .output()
        .expect("status");
    assert!(!out.stderr.contains(&0x1b), "ANSI escapes on a pipe");
}

#[test]
fn the_first_compile_of_a_runtime_says_what_it_is_doing() {
    let ctx = Ctx::new();
    let wf = crate::common::root().join("harnesses/hello.workflow.json");
    let wf = wf.to_str().expect("utf8");
    let fixture = crate::common::hello_fixture();
    let fixture = fixture.to_str().expect("utf8");
    // A cache of its own, empty, and the runtime from a file (the embedded
    // ones are precompiled): the JSON runtime compiles (the smallest).
    let cache = ctx.path("cache");
    let runtimes = crate::common::built_runtimes();
    let run = || {
        crate::common::Run::from(
            ctx.cmd()
                .env("HWF_CACHE_DIR", &cache)
                .env("HWF_RUNTIME_DIR", &runtimes)
                .args(["run", wf, "--json", "--agents", fixture])
                .output()
                .expect("run"),
        )
    };
    let first = run();
    first.expect_code(0).expect_stderr("compiling the json runtime");
    first.expect_stderr(cache.to_str().expect("utf8"));
    let second = run();
    second.expect_code(0);
    assert!(!second.stderr.contains("compiling"), "{second:?}");
    // Over MCP, a call that will compile says so in its first progress
    // notification.
    let cache2 = ctx.path("cache2");
    let mut cmd = ctx.cmd();
    cmd.env("HWF_CACHE_DIR", &cache2).env("HWF_RUNTIME_DIR", &runtimes);
    let mut child = cmd
        .args(["mcp", "--agents", fixture])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut rpc = |msg: Value| {
        writeln!(stdin, "{msg}").expect("write");
        stdin.flush().expect("flush");
    };
    rpc(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}}),
    );
    rpc(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    rpc(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "workflow", "arguments": {"script_path": wf}, "_meta": {"progressToken": "c"}}}),
    );
    let mut messages = Vec::new();
    loop {
        let mut line = String::new();
        assert!(out.read_line(&mut line).expect("read") > 0, "server closed");
        let v: Value = serde_json::from_str(&line).expect("json");
        if v["method"] == "notifications/progress" {
            messages.push(v["params"]["message"].as_str().unwrap_or("").to_owned());
        }
        if v["id"] == 2 {
            assert_eq!(v["result"]["structuredContent"]["data"]["state"], "succeeded", "{v}");
            break;
        }
    }
    assert!(
        messages
            .first()
            .is_some_and(|m| m.contains("compiling the json runtime")),
        "{messages:?}"
    );
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn mcp_an_event_and_a_stop_take_effect_without_a_runner() {
    let ctx = Ctx::new();
    warm(&ctx);
    let mut mcp = Client::start(&ctx, None);
    let wait_js = "export const meta = { name: \"w\", description: \"waits for a merge\" };\nconst e = await capability(\"events.wait\", { source: \"github\", type: \"pr.merged\" });\nreturn { number: e.payload?.number ?? e.event?.payload?.number ?? null, got: true };\n";
    let r = mcp.call("workflow", json!({"script_source": wait_js}));
    let data = r["structuredContent"]["data"].clone();
    assert_eq!(data["state"], "waiting", "{r}");
    assert_eq!(data["waits"][0]["kind"], "event", "{data}");
    let run = data["run_id"].as_str().expect("run").to_owned();
    let t0 = Instant::now();
    ctx.hwf([
        "events",
        "send",
        "--source",
        "github",
        "--type",
        "pr.merged",
        "--payload",
        r#"{"number": 42}"#,
    ])
    .expect_code(0);
    let done = mcp.wait_state(&run, "succeeded", Duration::from_secs(2));
    assert_eq!(done["result"]["got"], true, "{done}");
    eprintln!("event → succeeded in {:?}", t0.elapsed());
    // A stop on a parked run ends it, through the same runner.
    let r = mcp.call("workflow", json!({"script_source": ASK_JS}));
    let run = r["structuredContent"]["data"]["run_id"]
        .as_str()
        .expect("run")
        .to_owned();
    let s = mcp.call("workflow_control", json!({"action": "stop", "run_id": run}));
    assert_eq!(s["structuredContent"]["success"], true, "{s}");
    mcp.wait_state(&run, "stopped", Duration::from_secs(2));
}

#[test]
fn mcp_a_cancelled_foreground_call_stops_its_run() {
    let ctx = Ctx::new();
    warm(&ctx);
    let fixture = ctx.write("slow.json", slow_fixture());
    let mut mcp = Client::start(&ctx, Some(fixture.to_str().expect("utf8")));
    let id = mcp.next_id;
    mcp.next_id += 1;
    let run = "rcancelled0000000000000000000001";
    mcp.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "workflow", "arguments": {"script_source": SLOW_JS, "run_id": run}}}));
    // Running: the first of five one-second calls is under way.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = mcp.call("workflow_status", json!({"action": "status", "run_id": run}));
        if s["structuredContent"]["data"]["state"] == "running" {
            break;
        }
        assert!(Instant::now() < deadline, "never running: {s}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let t0 = Instant::now();
    mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": "the user pressed Esc"}}));
    let done = mcp.wait_state(run, "stopped", Duration::from_secs(10));
    let took = t0.elapsed();
    let stop = done["controls"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["action"] == "stop"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(stop["actor"], "mcp-client", "{done}");
    let calls = done["counts"]["agent_calls"].as_u64().unwrap_or(99);
    assert!(calls < 5, "the run went on after the cancel: {done}");
    // No answer comes for a cancelled request.
    assert!(
        !mcp.notifications
            .iter()
            .any(|n| n["id"] == id && n.get("result").is_some()),
        "{:?}",
        mcp.notifications
    );
    eprintln!("cancel → stopped in {took:?} after {calls} agent calls");
}

#[test]
fn mcp_runs_are_named_by_their_meta_and_the_overview_is_paged() {
    let ctx = Ctx::new();
    warm(&ctx);
    let mut mcp = Client::start(&ctx, None);
    let quick = |n: u32| {
        format!("export const meta = {{ name: \"quick-{n}\", description: \"returns\" }};\nreturn {{ n: {n} }};\n")
    };
    let mut ids = Vec::new();
    for n in 0..5 {
        let r = mcp.call("workflow", json!({"script_source": quick(n)}));
        assert_eq!(r["structuredContent"]["data"]["state"], "succeeded", "{r}");
        ids.push(
            r["structuredContent"]["data"]["run_id"]
                .as_str()
                .expect("id")
                .to_owned(),
        );
    }
    // A background run is named too (its meta is read when it is queued).
    let r = mcp.call("workflow", json!({"script_source": quick(5), "background": true}));
    let bg = r["structuredContent"]["data"]["run_id"]
        .as_str()
        .expect("id")
        .to_owned();
    mcp.wait_state(&bg, "succeeded", Duration::from_secs(30));
    ids.push(bg);
    ids.reverse();
    // Newest first, two a page, the cursor to the next.
    let mut seen = Vec::new();
    let mut cursor = Value::Null;
    for page in 0..3 {
        let mut args = json!({"limit": 2});
        if !cursor.is_null() {
            args["cursor"] = cursor.clone();
        }
        let r = mcp.call("workflow_status", args);
        let data = r["structuredContent"]["data"].clone();
        assert_eq!(data["total"], 6 - 2 * page, "{data}");
        for line in data["runs"].as_array().expect("runs") {
            seen.push(line["run_id"].as_str().expect("id").to_owned());
            let n = ids
                .iter()
                .position(|i| Some(i.as_str()) == line["run_id"].as_str())
                .expect("known");
            assert_eq!(line["workflow"], format!("quick-{}", 5 - n), "{line}");
        }
        cursor = data["next_cursor"].clone();
        assert_eq!(cursor.is_null(), page == 2, "{data}");
    }
    assert_eq!(seen, ids);
    // The default page is 20 runs; a state filter; offsets.
    let r = mcp.call("workflow_status", json!({"state": "failed"}));
    assert_eq!(r["structuredContent"]["data"]["total"], 0, "{r}");
    let r = mcp.call("workflow_control", json!({"action": "overview", "offset": 4}));
    let runs = r["structuredContent"]["data"]["runs"].as_array().expect("runs").len();
    assert_eq!(runs, 2, "{r}");
    let r = mcp.call("workflow_status", json!({"cursor": "rnope"}));
    assert_eq!(r["structuredContent"]["error"]["code"], "invalid_params", "{r}");
    assert_eq!(r["isError"], false, "{r}");
    // Status names it too, and so does the resource list.
    let s = mcp.call("workflow_status", json!({"action": "status", "run_id": ids[0]}));
    assert_eq!(s["structuredContent"]["data"]["workflow"], "quick-5", "{s}");
    let list = mcp.request("resources/list", json!({}));
    assert!(list.to_string().contains("quick-5 (succeeded)"), "{list}");
    // An unknown resource is -32002 (2025 revisions), naming the URI.
    for uri in ["hwf://runs/rnope", "file:///etc/passwd"] {
        let read = mcp.request("resources/read", json!({"uri": uri}));
        assert_eq!(read["error"]["code"], -32002, "{read}");
        assert_eq!(read["error"]["data"]["uri"], uri, "{read}");
    }
}

/// `hwf mcp --http ADDR` in a child; `addr` is what it printed.
struct HttpMcp {
    child: std::process::Child,
    addr: String,
}

impl HttpMcp {
    fn start(ctx: &Ctx, extra: &[&str]) -> Self {
        let mut child = ctx
            .cmd()
            .args(["mcp", "--http", "127.0.0.1:0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcp --http");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        out.read_line(&mut line).expect("the address line");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_owned();
        Self { child, addr }
    }

    /// One POST to /mcp with these extra headers: (status, body).
    fn post(&self, body: &Value, headers: &[(&str, &str)]) -> (u16, String) {
        self.post_raw(body.to_string().as_bytes(), headers)
    }

    /// One POST of raw bytes to /mcp: (status, the response as lossy text).
    fn post_raw(&self, body: &[u8], headers: &[(&str, &str)]) -> (u16, String) {
        use std::io::Read as _;
        let mut s = std::net::TcpStream::connect(&self.addr).expect("connect");
        let mut req = format!(
            "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            req.push_str(&format!("Host: {}\r\n", self.addr));
        }
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        let mut bytes = req.into_bytes();
        bytes.extend_from_slice(body);
        s.write_all(&bytes).expect("write");
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).expect("read");
        let resp = String::from_utf8_lossy(&raw).into_owned();
        let status = resp.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
        (status, resp)
    }
}

impl Drop for HttpMcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn mcp_over_http_serves_the_same_tools_behind_host_origin_and_token_checks() {
    let ctx = Ctx::new();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}});
    let mcp = HttpMcp::start(&ctx, &[]);
    let (status, body) = mcp.post(&init, &[]);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"name\":\"hwf\""), "{body}");
    // The session's tools are stdio's.
    let session = body
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .expect("a session id")
        .trim()
        .to_owned();
    let sid = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let (status, _) = mcp.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), &sid);
    assert_eq!(status, 202);
    let (status, body) = mcp.post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}), &sid);
    assert_eq!(status, 200, "{body}");
    for name in ["\"workflow\"", "\"workflow_control\"", "\"workflow_status\""] {
        assert!(body.contains(name), "{name}: {body}");
    }
    // DNS rebinding and cross-site calls are refused.
    let (status, body) = mcp.post(&init, &[("Host", "evil.example")]);
    assert_eq!(status, 403, "{body}");
    let (status, body) = mcp.post(&init, &[("Origin", "http://evil.example")]);
    assert_eq!(status, 403, "{body}");
    let (status, body) = mcp.post(&init, &[("Origin", "http://localhost:6274")]);
    assert_eq!(status, 200, "{body}");
    drop(mcp);
    // A token given is needed on every request.
    let token = "e2e-token-0123456789abcdef";
    let mcp = HttpMcp::start(&ctx, &["--token", token]);
    let (status, body) = mcp.post(&init, &[]);
    assert_eq!(status, 401, "{body}");
    assert!(body.to_lowercase().contains("www-authenticate: bearer"), "{body}");
    let bearer = format!("Bearer {token}");
    let (status, body) = mcp.post(&init, &[("Authorization", bearer.as_str())]);
    assert_eq!(status, 200, "{body}");
    // A bad address is bad usage.
    ctx.hwf(["mcp", "--http", "example.com:80"]).expect_code(2);
}

/// Issue 29 (finding 7, over HTTP): a body that is not UTF-8 or not JSON
/// is a 400 with a `-32700` JSON-RPC error, a fractional id a 400 with
/// `-32600` and that id (rmcp answered 415 with a line of text).
#[test]
fn mcp_over_http_answers_bad_bodies_with_json_rpc_errors() {
    let ctx = Ctx::new();
    let mcp = HttpMcp::start(&ctx, &[]);
    let json_body = |resp: &str| -> Value {
        serde_json::from_str(resp.split("\r\n\r\n").nth(1).unwrap_or("")).unwrap_or(Value::Null)
    };
    let (status, resp) = mcp.post_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}",
        &[],
    );
    assert_eq!(status, 400, "{resp}");
    let v = json_body(&resp);
    assert_eq!(v["error"]["code"], -32700, "{resp}");
    assert!(v["error"]["message"].as_str().unwrap_or("").contains("UTF-8"), "{resp}");
    let (status, resp) = mcp.post_raw(b"{\"jsonrpc\":\"2.0\",\"id\":3,", &[]);
    assert_eq!(
        (status, json_body(&resp)["error"]["code"].clone()),
        (400, json!(-32700)),
        "{resp}"
    );
    let (status, resp) = mcp.post(&json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}), &[]);
    assert_eq!(status, 400, "{resp}");
    let v = json_body(&resp);
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (json!(1.5), json!(-32600)),
        "{resp}"
    );
}
