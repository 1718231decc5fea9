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

/// Every request a test server saw: (request line + headers, JSON body).
type Seen = Arc<Mutex<Vec<(String, Value)>>>;

/// What a test server does with request `n` (0-based): answer with this
/// raw HTTP response, or hold the connection open without answering.
enum Answer {
    Raw(String),
    Hang,
}

/// A 200 response whose assistant message is `content`.
fn completion(content: &str) -> Answer {
    let content = serde_json::to_string(content).expect("json");
    let b = format!(
        r#"{{"choices":[{{"message":{{"role":"assistant","content":{content}}}}}],"usage":{{"prompt_tokens":11,"completion_tokens":6,"total_tokens":17}}}}"#
    );
    Answer::Raw(format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{b}",
        b.len()
    ))
}

/// A local HTTP server (one connection at a time; hung connections are
/// kept open) that records every request and answers with `answer`.
fn serve(answer: impl Fn(usize) -> Answer + Send + 'static) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
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
            match answer(n) {
                Answer::Raw(resp) => {
                    let _ = stream.write_all(resp.as_bytes());
                }
                Answer::Hang => held.push(stream),
            }
        }
    });
    (format!("http://{addr}/v1"), seen)
}

/// Answers 429 first, then a fenced completion.
fn openai_server() -> (String, Seen) {
    serve(|n| {
        if n == 0 {
            Answer::Raw(
                "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_owned(),
            )
        } else {
            completion("```json\n{\"verdict\": \"confirmed\", \"notes\": \"ok\"}\n```")
        }
    })
}

/// The probe's `schema` op against an `openai` backend at `url` with
/// `extra` config lines; returns the run's data and the requests seen.
fn openai_schema_run(ctx: &Ctx, url: &str, extra: &str) -> Value {
    schema_run(
        ctx,
        &format!(
            "[agents.backends.local]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"m\"\nbackoff_ms = 10\n{extra}"
        ),
    )
}

fn header<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
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
    let system = body["messages"][0]["content"].as_str().expect("system");
    let user = body["messages"][1]["content"].as_str().expect("content");
    assert!(user.contains("Give me a verdict"), "{user}");
    assert!(!user.contains(system), "the system prompt is sent once: {user}");
    assert_eq!(body["messages"].as_array().map(Vec::len), Some(2));
    assert!(body.get("reasoning_effort").is_none(), "not configured: {body}");
    assert!(
        header(head, "user-agent").is_some_and(|ua| ua.starts_with("hwf/")),
        "{head}"
    );
    // One key per attempt, the same across the 429 retry of that attempt.
    let key = header(head, "idempotency-key").expect("idempotency key");
    assert!(key.ends_with(":1:1"), "<root>:<call>:<attempt>: {key}");
    assert_eq!(header(&seen[0].0, "idempotency-key"), Some(key));
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

#[test]
fn openai_schema_retry_continues_the_conversation_with_the_rejected_answer() {
    let ctx = Ctx::new();
    let (url, seen) = serve(|n| {
        if n == 0 {
            completion("Here you go:\n```json\n{\"verdict\": 7}\n```")
        } else {
            completion("Sorry about that.\n```json\n{\"verdict\": \"confirmed\"}\n```\nAnything else?")
        }
    });
    let d = openai_schema_run(&ctx, &url, "");
    assert_eq!(d["result"]["ok"], json!({"verdict": "confirmed"}), "{d}");
    let seen = seen.lock().expect("lock");
    assert_eq!(seen.len(), 2, "one rejected answer, one accepted");
    let first = seen[0].1["messages"].as_array().expect("messages").clone();
    let second = seen[1].1["messages"].as_array().expect("messages").clone();
    assert_eq!(first.len(), 2);
    assert_eq!(second.len(), 4, "system, task, rejected answer, feedback: {second:?}");
    assert_eq!(second[..2], first[..], "the same opening turns");
    assert_eq!(second[2]["role"], "assistant");
    assert!(
        second[2]["content"]
            .as_str()
            .expect("text")
            .contains("{\"verdict\": 7}")
    );
    assert_eq!(second[3]["role"], "user");
    let feedback = second[3]["content"].as_str().expect("text");
    assert!(
        feedback.contains("refused") && feedback.contains("verdict"),
        "{feedback}"
    );
    let keys: Vec<&str> = seen
        .iter()
        .map(|(h, _)| header(h, "idempotency-key").expect("key"))
        .collect();
    assert!(
        keys[0].ends_with(":1") && keys[1].ends_with(":2"),
        "one key per attempt: {keys:?}"
    );
    assert_eq!(
        keys[0].rsplit_once(':').map(|k| k.0),
        keys[1].rsplit_once(':').map(|k| k.0)
    );
}

#[test]
fn openai_response_format_and_reasoning_effort_are_configurable() {
    for (extra, format, effort) in [
        (
            "response_format = \"json_object\"\nreasoning_effort = \"low\"\n",
            Some(json!({"type": "json_object"})),
            Some("low"),
        ),
        ("response_format = \"none\"\n", None, None),
    ] {
        let ctx = Ctx::new();
        let (url, seen) = serve(|_| completion("{\"verdict\": \"confirmed\"}"));
        let d = openai_schema_run(&ctx, &url, extra);
        assert_eq!(d["result"]["ok"], json!({"verdict": "confirmed"}), "{d}");
        let seen = seen.lock().expect("lock");
        let body = &seen[0].1;
        assert_eq!(body.get("response_format").cloned(), format, "{extra}: {body}");
        assert_eq!(body.get("reasoning_effort").and_then(Value::as_str), effort, "{extra}");
        let user = body["messages"][1]["content"].as_str().expect("task");
        assert!(user.contains("JSON Schema"), "the schema stays in the prompt: {user}");
    }
}

#[test]
fn openai_timeouts_are_retried() {
    let ctx = Ctx::new();
    let (url, seen) = serve(|n| {
        if n == 0 {
            Answer::Hang
        } else {
            completion("{\"verdict\": \"confirmed\"}")
        }
    });
    let d = openai_schema_run(&ctx, &url, "timeout_ms = 1000\n");
    assert_eq!(d["result"]["ok"], json!({"verdict": "confirmed"}), "{d}");
    let seen = seen.lock().expect("lock");
    assert_eq!(seen.len(), 2, "the timed-out request was sent again");
    assert_eq!(seen[0].1, seen[1].1, "the same body");
    assert_eq!(
        header(&seen[0].0, "idempotency-key"),
        header(&seen[1].0, "idempotency-key")
    );
}

#[test]
fn openai_timeouts_past_the_retries_are_agent_timeout() {
    let ctx = Ctx::new();
    let (url, seen) = serve(|_| Answer::Hang);
    let d = openai_schema_run(&ctx, &url, "timeout_ms = 200\nmax_retries = 1\n");
    assert_eq!(d["result"]["error"]["code"], "agent_timeout", "{d}");
    assert_eq!(seen.lock().expect("lock").len(), 2);
}

#[test]
fn command_agent_with_prompt_via_arg_receives_the_prompt_in_argv() {
    let ctx = Ctx::new();
    ctx.write(
        "agent.py",
        "import sys, json\nassert sys.stdin.read() == '', 'stdin is empty'\nprompt = sys.argv[-1]\nassert sys.argv[1:3] == ['chat', '-q'], sys.argv\nassert 'Give me a verdict' in prompt, prompt\nprint(json.dumps({'verdict': 'from argv', 'notes': str(len(prompt))}))\n",
    );
    let d = schema_run(
        &ctx,
        "[agents.backends.script]\nkind = \"command\"\nargv = [\"python3\", \"agent.py\", \"chat\", \"-q\"]\nprompt_via = \"arg\"\n",
    );
    assert_eq!(d["result"]["ok"]["verdict"], "from argv", "{d}");
    // The same with a {prompt} placeholder (prompt_via inferred).
    let d = schema_run(
        &ctx,
        "[agents.backends.script]\nkind = \"command\"\nargv = [\"python3\", \"agent.py\", \"chat\", \"-q\", \"{prompt}\"]\n",
    );
    assert_eq!(d["result"]["ok"]["verdict"], "from argv", "{d}");
}

#[test]
fn command_agent_with_prompt_via_file_gets_a_private_file() {
    let ctx = Ctx::new();
    ctx.write(
        "agent.py",
        "import sys, os, json, stat\npath = sys.argv[2]\nassert sys.argv[1] == '--prompt-file'\nmode = stat.S_IMODE(os.stat(path).st_mode)\nassert mode == 0o600, oct(mode)\nprompt = open(path).read()\nassert 'Give me a verdict' in prompt, prompt\nopen('seen-path', 'w').write(path)\nprint(json.dumps({'verdict': 'from file'}))\n",
    );
    let d = schema_run(
        &ctx,
        "[agents.backends.script]\nkind = \"command\"\nargv = [\"python3\", \"agent.py\", \"--prompt-file\", \"{prompt_file}\"]\n",
    );
    assert_eq!(d["result"]["ok"]["verdict"], "from file", "{d}");
    let path = std::fs::read_to_string(ctx.path("seen-path")).expect("the agent saw a path");
    assert!(
        !std::path::Path::new(&path).exists(),
        "the prompt file is removed after the call"
    );
}

#[test]
fn command_prompt_placeholder_with_stdin_is_invalid_config() {
    let ctx = Ctx::new();
    let cfg = ctx.write(
        "hwf.toml",
        "[agents.backends.script]\nkind = \"command\"\nargv = [\"agent\", \"{prompt}\"]\nprompt_via = \"stdin\"\n",
    );
    ctx.hwf(["run", harnesses::PROBE, "--config", cfg.to_str().expect("utf8")])
        .expect_code(2)
        .expect_stderr("invalid_config")
        .expect_stderr("prompt_via");
}

/// A Claude Code `-p --output-format json` stand-in: 4 input + 1,000 read
/// from the prompt cache + 6 output tokens and a cost per call.
const CLAUDE: &str = "import sys, json\nprompt = sys.stdin.read()\nprint(json.dumps({'type': 'result', 'subtype': 'success', 'is_error': False, 'result': '```json\\n{\"done\": true}\\n```', 'session_id': 's1', 'total_cost_usd': 0.0125, 'usage': {'input_tokens': 4, 'cache_read_input_tokens': 1000, 'output_tokens': 6}}))\n";

#[test]
fn claude_shaped_usage_is_counted_and_a_token_budget_stops_the_next_call() {
    let ctx = Ctx::new();
    ctx.write("claude.py", CLAUDE);
    let cfg = ctx.write(
        "hwf.toml",
        "[agents.backends.claude]\nkind = \"command\"\nargv = [\"python3\", \"claude.py\", \"-p\", \"--output-format\", \"json\"]\noutput_field = \"result\"\n",
    );
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"agents_until_exhausted"}"#,
        &["--config", cfg.to_str().expect("utf8"), "--max-tokens", "2500"],
    );
    out.expect_code(0);
    let v = out.json();
    let r = &v["data"]["result"];
    // Cached input is processed input: it counts (issue 26).
    assert_eq!(r["done"], 3, "1,010 tokens per call: the 4th is refused: {r}");
    assert_eq!(r["error"], "token_budget", "{r}");
    assert_eq!(r["tokens_spent"], 3030, "{r}");
    assert_eq!(v["data"]["counts"]["tokens"], 3030, "{v}");
    assert_eq!(
        v["data"]["counts"]["usage"],
        json!({"input": 12, "cache_read": 3000, "output": 18}),
        "{v}"
    );
}

#[test]
fn claude_shaped_errors_fail_the_call() {
    let ctx = Ctx::new();
    ctx.write(
        "claude.py",
        "import json\nprint(json.dumps({'type': 'result', 'subtype': 'error_max_turns', 'is_error': True, 'result': 'ran out of turns'}))\n",
    );
    let d = schema_run(
        &ctx,
        "[agents.backends.claude]\nkind = \"command\"\nargv = [\"python3\", \"claude.py\"]\n",
    );
    assert_eq!(d["result"]["error"]["code"], "agent_failed", "{d}");
    assert!(
        d["result"]["error"]["message"]
            .as_str()
            .expect("msg")
            .contains("ran out of turns")
    );
}

#[test]
fn hermes_recipe_answers_in_quiet_mode() {
    let ctx = Ctx::new();
    // `hermes chat -Q -q {prompt}`: the answer only (here chatty, fenced,
    // followed by the session line).
    ctx.write(
        "hermes.py",
        "import sys\nassert sys.argv[1:4] == ['chat', '-Q', '-q'], sys.argv\nassert 'Give me a verdict' in sys.argv[4]\nprint('Sure, here it is:\\n```json\\n{\"verdict\": \"hermes\"}\\n```\\n\\nsession_id: 20261201_094500_ab12cd')\n",
    );
    let d = schema_run(
        &ctx,
        "[agents.backends.hermes]\nkind = \"command\"\nargv = [\"python3\", \"hermes.py\", \"chat\", \"-Q\", \"-q\", \"{prompt}\"]\n",
    );
    assert_eq!(d["result"]["ok"], json!({"verdict": "hermes"}), "{d}");
}

#[test]
fn codex_recipe_reads_the_answer_and_usage_from_json_events() {
    let ctx = Ctx::new();
    ctx.write(
        "codex.py",
        "import sys, json\nassert sys.argv[1:3] == ['exec', '--json'], sys.argv\nassert 'Give me a verdict' in sys.argv[3]\nfor e in [{'type': 'thread.started', 'thread_id': 't'}, {'type': 'turn.started'}, {'type': 'item.completed', 'item': {'id': 'i0', 'type': 'reasoning', 'text': 'hmm'}}, {'type': 'item.completed', 'item': {'id': 'i1', 'type': 'agent_message', 'text': '{\"verdict\": \"codex\"}'}}, {'type': 'turn.completed', 'usage': {'input_tokens': 30, 'cached_input_tokens': 20, 'output_tokens': 12}}]:\n    print(json.dumps(e))\n",
    );
    let cfg = ctx.write(
        "hwf.toml",
        "[agents.backends.codex]\nkind = \"command\"\nargv = [\"python3\", \"codex.py\", \"exec\", \"--json\", \"{prompt}\"]\n",
    );
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"schema"}"#,
        &["--config", cfg.to_str().expect("utf8")],
    );
    out.expect_code(0);
    let v = out.json();
    assert_eq!(v["data"]["result"]["ok"], json!({"verdict": "codex"}), "{v}");
    assert_eq!(v["data"]["counts"]["tokens"], 42, "{v}");
}

#[test]
fn a_huge_retry_after_neither_overflows_nor_waits_past_the_retries() {
    let ctx = Ctx::new();
    let (url, seen) = serve(|_| {
        Answer::Raw(
            "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 18446744073709551615\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                .to_owned(),
        )
    });
    let d = openai_schema_run(&ctx, &url, "max_retries = 0\n");
    assert_eq!(d["result"]["error"]["code"], "agent_failed", "{d}");
    assert!(
        d["result"]["error"]["message"]
            .as_str()
            .expect("message")
            .contains("429"),
        "{d}"
    );
    assert_eq!(seen.lock().expect("lock").len(), 1);
}

#[test]
fn claude_shaped_cost_is_counted_kept_across_a_resume_and_a_cost_budget_stops_the_next_call() {
    let ctx = Ctx::new();
    ctx.write("claude.py", CLAUDE);
    let cfg = ctx.write(
        "hwf.toml",
        "[agents.backends.claude]\nkind = \"command\"\nargv = [\"python3\", \"claude.py\", \"-p\", \"--output-format\", \"json\"]\noutput_field = \"result\"\n",
    );
    // $0.0125 a call: after three ($0.0375 > $0.03) the fourth is refused.
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"agents_until_exhausted"}"#,
        &["--config", cfg.to_str().expect("utf8"), "--max-cost-usd", "0.03"],
    );
    out.expect_code(0);
    let v = out.json();
    let r = &v["data"]["result"];
    assert_eq!(r["done"], 3, "{r}");
    assert_eq!(r["error"], "cost_budget", "{r}");
    assert_eq!(v["data"]["counts"]["cost_micro_usd"], 37_500, "{v}");
    let id = v["data"]["run_id"].as_str().expect("id").to_owned();
    let journal = ctx.journal(&id);
    let costs: Vec<u64> = journal
        .iter()
        .filter(|e| e["type"] == "call_completed" && e["kind"] == "agent")
        .filter_map(|e| e["cost_micro_usd"].as_u64())
        .collect();
    assert_eq!(costs, [12_500, 12_500, 12_500], "each completion records its cost");
    // A resume replays the three calls and is charged what they cost.
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let again = ctx.hwf([
        "run",
        "--resume-from",
        &id,
        "--agents",
        empty.to_str().expect("utf8"),
        "--max-cost-usd",
        "0.03",
        "--json",
    ]);
    again.expect_code(0);
    let again = again.json();
    assert_eq!(again["data"]["counts"]["cost_micro_usd"], 37_500, "{again}");
    assert_eq!(again["data"]["result"], v["data"]["result"]);
    ctx.hwf(["run", harnesses::PROBE, "--max-cost-usd", "-1"])
        .expect_code(2)
        .expect_stderr("invalid_args");
}
