//! Real agent backends through the binary: a command agent (a small script)
//! and an OpenAI-compatible endpoint (a local HTTP server started here that
//! checks the request shape), plus routing and `hwf doctor`.

use crate::common::{Ctx, harnesses};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

fn schema_run(ctx: &Ctx, config: &str) -> Value {
    let cfg = ctx.write("hwf.toml", config);
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"schema"}"#,
        &["--config", cfg.to_str().expect("utf8")],
    );
    out.expect_code(0);
    out.json()["data"].clone()
}

#[test]
fn command_agent_reads_the_prompt_and_answers_fenced_json() {
    let ctx = Ctx::new();
    ctx.write(
        "agent.py",
        "import sys, json\nprompt = sys.stdin.read()\nassert 'Give me a verdict' in prompt, prompt\nassert 'JSON Schema' in prompt\nprint('```json')\nprint(json.dumps({'verdict': 'confirmed', 'notes': 'saw %d chars' % len(prompt)}))\nprint('```')\n",
    );
    let d = schema_run(
        &ctx,
        "[agents.backends.script]\nkind = \"command\"\nargv = [\"python3\", \"agent.py\"]\n",
    );
    assert_eq!(d["result"]["ok"]["verdict"], "confirmed", "{d}");
}

#[test]
fn command_agent_failures_are_typed_and_redacted() {
    let ctx = Ctx::new();
    ctx.write(
        "fail.py",
        "import sys\nsys.stderr.write('auth failed for token ghp_SECRETSECRETSECRET012345\\n')\nsys.exit(3)\n",
    );
    let d = schema_run(
        &ctx,
        "[agents.backends.script]\nkind = \"command\"\nargv = [\"python3\", \"fail.py\"]\n",
    );
    let msg = d["result"]["error"]["message"].as_str().expect("message").to_owned();
    assert_eq!(d["result"]["error"]["code"], "agent_failed");
    assert!(msg.contains("auth failed") && !msg.contains("ghp_SECRET"), "{msg}");
    ctx.write("slow.py", "import time\ntime.sleep(30)\n");
    let d = schema_run(
        &ctx,
        "[agents.backends.script]\nkind = \"command\"\nargv = [\"python3\", \"slow.py\"]\ntimeout_ms = 300\n",
    );
    assert_eq!(d["result"]["error"]["code"], "agent_timeout", "{d}");
}

/// A one-thread HTTP server: answers 429 first, then a completion; records
/// every request (headers + body).
type Seen = Arc<Mutex<Vec<(String, Value)>>>;

fn openai_server() -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut head = String::new();
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0u8; len];
            let _ = reader.read_exact(&mut body);
            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            log.lock().expect("lock").push((head, body));
            let resp = if n == 0 {
                "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_owned()
            } else {
                let content = serde_json::to_string("```json\n{\"verdict\": \"confirmed\", \"notes\": \"ok\"}\n```")
                    .expect("json");
                let b = format!(
                    r#"{{"choices":[{{"message":{{"role":"assistant","content":{content}}}}}],"usage":{{"prompt_tokens":11,"completion_tokens":6,"total_tokens":17}}}}"#
                );
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{b}",
                    b.len()
                )
            };
            let _ = stream.write_all(resp.as_bytes());
        }
    });
    (format!("http://{addr}/v1"), seen)
}

#[test]
fn openai_backend_sends_the_right_request_and_retries_429() {
    let ctx = Ctx::new();
    let (url, seen) = openai_server();
    let config = format!(
        "[agents.backends.local]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"test-model\"\napi_key_env = \"HWF_TEST_KEY\"\nbackoff_ms = 10\n"
    );
    let cfg = ctx.write("hwf.toml", config);
    let out = ctx
        .cmd()
        .env("HWF_TEST_KEY", "sk-testkey0123456789abcdef")
        .args([
            "run",
            harnesses::PROBE,
            "--json",
            "--args",
            r#"{"op":"schema"}"#,
            "--config",
            cfg.to_str().expect("utf8"),
        ])
        .output()
        .expect("run");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        v["data"]["result"]["ok"],
        json!({"verdict": "confirmed", "notes": "ok"}),
        "{v}"
    );
    assert_eq!(v["data"]["counts"]["tokens"], 17);
    let seen = seen.lock().expect("lock");
    assert_eq!(seen.len(), 2, "one 429, one success");
    let (head, body) = &seen[1];
    assert!(head.starts_with("POST /v1/chat/completions"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("authorization: bearer sk-testkey0123456789abcdef"),
        "{head}"
    );
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["messages"][0]["role"], "system", "general-purpose system prompt");
    assert!(
        body["messages"][1]["content"]
            .as_str()
            .expect("content")
            .contains("Give me a verdict")
    );
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["required"],
        json!(["verdict"])
    );
    // The key never lands in the state dir.
    assert!(!ctx.all_state_text().contains("sk-testkey"));
}

#[test]
fn routes_pick_backends_by_agent_id() {
    let ctx = Ctx::new();
    ctx.write(
        "greeter.py",
        "import json\nprint(json.dumps({'greeting': 'hi from the command agent'}))\n",
    );
    ctx.write(
        "fixture.json",
        r#"{"responses": [{"match": {"agent": "hermes.uppercaser"}, "output": {"result": "FROM FIXTURE"}}]}"#,
    );
    let cfg = ctx.write(
        "hwf.toml",
        "[agents]\nfixture = \"fixture.json\"\n[agents.backends.script]\nkind = \"command\"\nargv = [\"python3\", \"greeter.py\"]\n[agents.routes]\n\"hermes.greeter\" = \"script\"\n",
    );
    let out = ctx.run_json(harnesses::HELLO, "{}", &["--config", cfg.to_str().expect("utf8")]);
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!({"greeting": "hi from the command agent", "result": "FROM FIXTURE"})
    );
    let bad = ctx.write("bad.toml", "[agents.backends.x]\nkind = \"telepathy\"\n");
    ctx.hwf(["run", harnesses::HELLO, "--config", bad.to_str().expect("utf8")])
        .expect_code(2)
        .expect_stderr("telepathy");
}

#[test]
fn doctor_checks_backends() {
    // Endpoints that answer /models with a given status, recording the
    // request lines they saw.
    fn endpoint(status: &'static str) -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut first = String::new();
                let _ = reader.read_line(&mut first);
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                }
                log.lock().expect("lock").push(first.trim().to_owned());
                let resp = format!("HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                let _ = stream.write_all(resp.as_bytes());
            }
        });
        (format!("http://{addr}/v1"), seen)
    }
    let doctor = |ctx: &Ctx, config: &str| {
        let cfg = ctx.write("hwf.toml", config);
        let out = ctx.hwf(["doctor", "--json", "--config", cfg.to_str().expect("utf8")]);
        let report = out.json()["data"].clone();
        let checks = report["checks"].as_array().expect("checks").clone();
        // The report's verdict is the conjunction of its checks, and the
        // exit code follows it.
        let all_ok = checks.iter().all(|c| c["ok"] == true);
        assert_eq!(report["ok"], all_ok, "{report:#}");
        out.expect_code(if all_ok { 0 } else { 1 });
        move |name: &str| -> Value {
            checks
                .iter()
                .find(|c| c["check"] == name)
                .cloned()
                .unwrap_or_else(|| panic!("no check {name}: {checks:?}"))
        }
    };
    let detail = |c: &Value| c["detail"].as_str().expect("detail").to_owned();

    let ctx = Ctx::new();
    ctx.write("fixture.json", r#"{"responses": []}"#);
    let (up, up_seen) = endpoint("200 OK");
    let (broken, _) = endpoint("500 Internal Server Error");
    // Reachable and present backends pass, with what was checked.
    let find = doctor(
        &ctx,
        &format!(
            "[agents]\nfixture = \"fixture.json\"\n[agents.backends.up]\nkind = \"openai\"\nbase_url = \"{up}\"\nmodel = \"m\"\n[agents.backends.sh]\nkind = \"command\"\nargv = [\"sh\", \"-c\", \"cat\"]\n"
        ),
    );
    assert_eq!(find("config")["ok"], true);
    assert!(detail(&find("config")).ends_with("hwf.toml"), "{}", find("config"));
    assert_eq!(find("state_dir")["ok"], true);
    assert_eq!(find("agents.fixture")["ok"], true, "{}", find("agents.fixture"));
    let c = find("agents.backends.up");
    assert_eq!(c["ok"], true, "{c}");
    assert!(detail(&c).contains("/v1/models answered 200"), "{c}");
    assert_eq!(up_seen.lock().expect("lock").as_slice(), ["GET /v1/models HTTP/1.1"]);
    let c = find("agents.backends.sh");
    assert_eq!(c["ok"], true, "{c}");
    assert_eq!(detail(&c), "sh found");

    // Unreachable, failing and missing ones fail, each saying why.
    let find = doctor(
        &ctx,
        &format!(
            "[agents]\nfixture = \"missing.json\"\n[agents.backends.gone]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\n[agents.backends.broken]\nkind = \"openai\"\nbase_url = \"{broken}\"\nmodel = \"m\"\n[agents.backends.cli]\nkind = \"command\"\nargv = [\"definitely-missing-agent\"]\n"
        ),
    );
    assert_eq!(find("state_dir")["ok"], true);
    assert_eq!(find("agents.fixture")["ok"], false, "{}", find("agents.fixture"));
    let c = find("agents.backends.gone");
    assert_eq!(c["ok"], false, "{c}");
    assert!(detail(&c).starts_with("http://127.0.0.1:9/v1/models: "), "{c}");
    let c = find("agents.backends.broken");
    assert_eq!(c["ok"], false, "{c}");
    assert!(detail(&c).contains("answered 500"), "{c}");
    let c = find("agents.backends.cli");
    assert_eq!(c["ok"], false, "{c}");
    assert!(
        detail(&c).contains("\"definitely-missing-agent\" is not on PATH"),
        "{c}"
    );
}
