//! OpenTelemetry export (issue 31): the real `hwf` binary posts each run as
//! one trace to an OTLP/HTTP receiver on loopback (protobuf and JSON),
//! built from the journal — redacted — and a receiver that is down or never
//! answers costs the run nothing.

use crate::common::{Ctx, run_id};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One request the receiver took.
#[derive(Debug, Clone)]
struct Posted {
    path: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

/// A minimal OTLP/HTTP receiver on loopback: takes every POST, answers 200
/// (or, `silent`, never answers).
struct Receiver {
    port: u16,
    got: Arc<Mutex<Vec<Posted>>>,
}

impl Receiver {
    fn start(silent: bool) -> Self {
        Self::start_failing(silent, 0)
    }

    /// A receiver whose first `fail` answers are `503 Service Unavailable`.
    fn start_failing(silent: bool, fail: usize) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let got = Arc::new(Mutex::new(Vec::new()));
        let sink = got.clone();
        let failures = Arc::new(std::sync::atomic::AtomicUsize::new(fail));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (sink, failures) = (sink.clone(), failures.clone());
                std::thread::spawn(move || serve(stream, &sink, silent, &failures));
            }
        });
        Self { port, got }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn posted(&self) -> Vec<Posted> {
        self.got.lock().expect("lock").clone()
    }
}

fn serve(stream: TcpStream, sink: &Mutex<Vec<Posted>>, silent: bool, failures: &std::sync::atomic::AtomicUsize) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
    let Ok(mut out) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
            }
        }
        let len: usize = headers.get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        sink.lock().expect("lock").push(Posted { path, headers, body });
        if silent {
            std::thread::sleep(Duration::from_secs(30));
            return;
        }
        use std::sync::atomic::Ordering;
        let fail = failures
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
            .is_ok();
        let answer: &[u8] = if fail {
            b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 4\r\n\r\nbusy"
        } else {
            b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n"
        };
        if out.write_all(answer).is_err() {
            return;
        }
    }
}

/// Decode every posted request's spans (protobuf or JSON by content type).
fn spans(posted: &[Posted]) -> Vec<Span> {
    posted
        .iter()
        .flat_map(|p| {
            let req: ExportTraceServiceRequest = match p.headers.get("content-type").map(String::as_str) {
                Some("application/json") => serde_json::from_slice(&p.body).expect("OTLP/JSON"),
                _ => prost::Message::decode(&p.body[..]).expect("OTLP protobuf"),
            };
            req.resource_spans
                .into_iter()
                .flat_map(|r| r.scope_spans)
                .flat_map(|s| s.spans)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn attr<'a>(s: &'a Span, key: &str) -> Option<&'a Any> {
    s.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| v.value.as_ref())
}

fn str_attr<'a>(s: &'a Span, key: &str) -> Option<&'a str> {
    match attr(s, key) {
        Some(Any::StringValue(v)) => Some(v),
        _ => None,
    }
}

fn int_attr(s: &Span, key: &str) -> Option<i64> {
    match attr(s, key) {
        Some(Any::IntValue(v)) => Some(*v),
        _ => None,
    }
}

/// A GitHub-token-shaped secret assembled at run time.
fn secret() -> String {
    format!("ghp_{}", "Zq7xK2mP9wR4".repeat(3))
}

const SCRIPT: &str = "export const meta = { name: \"otel-check\", description: \"two agents and a tool\" };\n\
    phase(\"plan\");\n\
    const plan = await agent(\"plan the deploy with \" + args.token, { label: \"plan\", model: \"m-plan\" });\n\
    const listed = await capability(\"fs.list\", {});\n\
    phase(\"review\");\n\
    const review = await agent(\"review \" + plan, { label: \"review\", model: \"m-review\", agentType: \"reviewer\" });\n\
    return { plan, review, n: listed.entries ? listed.entries.length : 0 };\n";

const FIXTURE: &str = r#"{"responses": [
  {"match": {"label": "plan"}, "output": "a plan", "usage": {"input_tokens": 40, "cache_read_input_tokens": 8, "output_tokens": 7}},
  {"match": {"label": "review"}, "output": "looks fine", "usage": {"input_tokens": 30, "output_tokens": 5}}
]}"#;

/// Run the script with `env`; returns (the `--json` output, seconds taken).
fn run(ctx: &Ctx, env: &[(&str, &str)]) -> (crate::common::Run, f64) {
    let s = ctx.write("otel.js", SCRIPT);
    let f = ctx.write("otel.fixture.json", FIXTURE);
    std::fs::create_dir_all(ctx.path(".hermes/agents")).expect("mkdir");
    ctx.write(
        ".hermes/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews\n---\nYou review carefully.\n",
    );
    let args = serde_json::json!({"token": secret()}).to_string();
    let mut cmd = ctx.cmd();
    cmd.args([
        "run",
        s.to_str().expect("utf8"),
        "--args",
        &args,
        "--json",
        "--agents",
        f.to_str().expect("utf8"),
    ]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let t = Instant::now();
    let out: crate::common::Run = cmd.output().expect("spawn hwf").into();
    (out, t.elapsed().as_secs_f64())
}

/// One trace, one `invoke_workflow` root, everything in one tree; returns
/// the spans by name.
fn check_tree(spans: &[Span], run: &str, workflow: &str) -> HashMap<String, Span> {
    let trace: HashSet<&Vec<u8>> = spans.iter().map(|s| &s.trace_id).collect();
    assert_eq!(trace.len(), 1, "one trace");
    let want = blake3::hash(run.as_bytes()).as_bytes()[..16].to_vec();
    assert_eq!(spans[0].trace_id, want, "the trace id is derived from the run id");
    let roots: Vec<&Span> = spans
        .iter()
        .filter(|s| str_attr(s, "gen_ai.operation.name") == Some("invoke_workflow"))
        .collect();
    assert_eq!(roots.len(), 1, "one invoke_workflow span");
    let root = roots[0];
    assert!(root.parent_span_id.is_empty());
    assert_eq!(str_attr(root, "gen_ai.workflow.name"), Some(workflow));
    assert_eq!(root.name, format!("invoke_workflow {workflow}"));
    let by_id: HashMap<&Vec<u8>, &Span> = spans.iter().map(|s| (&s.span_id, s)).collect();
    assert_eq!(by_id.len(), spans.len(), "span ids are unique");
    for s in spans {
        // Every span reaches the root through its parents.
        let mut at = s;
        let mut hops = 0;
        while !at.parent_span_id.is_empty() {
            at = by_id
                .get(&at.parent_span_id)
                .unwrap_or_else(|| panic!("{}'s parent is not in the trace", s.name));
            hops += 1;
            assert!(hops < 16, "a cycle");
        }
        assert_eq!(at.span_id, root.span_id, "{} is in the tree", s.name);
        assert!(s.end_time_unix_nano >= s.start_time_unix_nano, "{}", s.name);
    }
    spans.iter().map(|s| (s.name.clone(), s.clone())).collect()
}

#[test]
fn a_run_is_one_trace_with_agents_and_a_tool_and_no_secret() {
    let ctx = Ctx::new();
    let receiver = Receiver::start(false);
    let (out, _) = run(
        &ctx,
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.endpoint()),
            ("OTEL_EXPORTER_OTLP_HEADERS", "x-test-key=k%3Dv"),
            ("OTEL_SERVICE_NAME", "hwf-e2e"),
            ("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true"),
        ],
    );
    out.expect_code(0);
    let id = run_id(&out.json());
    let posted = receiver.posted();
    assert!(!posted.is_empty(), "nothing was exported: {out:?}");
    for p in &posted {
        assert_eq!(p.path, "/v1/traces");
        assert_eq!(
            p.headers.get("content-type").map(String::as_str),
            Some("application/x-protobuf")
        );
        assert_eq!(p.headers.get("x-test-key").map(String::as_str), Some("k=v"));
        // No secret in any byte that left the machine.
        let text = String::from_utf8_lossy(&p.body);
        assert!(!text.contains(&secret()), "the secret was exported");
    }
    let req: ExportTraceServiceRequest = prost::Message::decode(&posted[0].body[..]).expect("decode");
    let resource = req.resource_spans[0].resource.as_ref().expect("resource");
    assert!(resource.attributes.iter().any(|kv| kv.key == "service.name"
        && kv.value.as_ref().and_then(|v| v.value.as_ref()) == Some(&Any::StringValue("hwf-e2e".into()))));
    let spans = spans(&posted);
    let by_name = check_tree(&spans, &id, "otel-check");
    let agents: Vec<&Span> = spans
        .iter()
        .filter(|s| str_attr(s, "gen_ai.operation.name") == Some("invoke_agent"))
        .collect();
    assert_eq!(agents.len(), 2, "{:?}", by_name.keys());
    let plan = agents
        .iter()
        .find(|s| str_attr(s, "hwf.label") == Some("plan"))
        .expect("the plan call");
    assert_eq!(str_attr(plan, "gen_ai.request.model"), Some("m-plan"));
    assert_eq!(int_attr(plan, "gen_ai.usage.input_tokens"), Some(48));
    assert_eq!(int_attr(plan, "gen_ai.usage.output_tokens"), Some(7));
    assert_eq!(int_attr(plan, "gen_ai.usage.cache_read.input_tokens"), Some(8));
    // The prompt is exported when asked, and redacted.
    let input = str_attr(plan, "gen_ai.input.messages").expect("content captured");
    assert!(
        input.contains("plan the deploy with") && input.contains("REDACTED"),
        "{input}"
    );
    let review = agents
        .iter()
        .find(|s| str_attr(s, "hwf.label") == Some("review"))
        .expect("the review call");
    assert_eq!(str_attr(review, "gen_ai.request.model"), Some("m-review"));
    assert_eq!(str_attr(review, "gen_ai.agent.name"), Some("reviewer"));
    assert_eq!(int_attr(review, "gen_ai.usage.output_tokens"), Some(5));
    let tool = by_name.get("execute_tool fs.list").expect("a tool span");
    assert_eq!(str_attr(tool, "gen_ai.tool.name"), Some("fs.list"));
    // Calls hang from their phases.
    let phase = by_name.get("phase plan").expect("phase span");
    assert_eq!(plan.parent_span_id, phase.span_id);
    // Nothing credential-shaped in any attribute, whatever its name.
    for s in &spans {
        for kv in &s.attributes {
            if let Some(Any::StringValue(v)) = kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                assert!(!v.contains("ghp_Zq7"), "{} {} = {v}", s.name, kv.key);
            }
        }
    }
}

#[test]
fn json_export_uses_hex_ids_and_the_same_tree() {
    let ctx = Ctx::new();
    let receiver = Receiver::start(false);
    let (out, _) = run(
        &ctx,
        &[
            (
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                &format!("{}/custom/path", receiver.endpoint()),
            ),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ],
    );
    out.expect_code(0);
    let id = run_id(&out.json());
    let posted = receiver.posted();
    assert!(!posted.is_empty());
    assert!(posted.iter().all(|p| p.path == "/custom/path"));
    assert_eq!(
        posted[0].headers.get("content-type").map(String::as_str),
        Some("application/json")
    );
    let raw: serde_json::Value = serde_json::from_slice(&posted[0].body).expect("JSON");
    let first = &raw["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
    let want: String = blake3::hash(id.as_bytes()).as_bytes()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(first["traceId"], serde_json::json!(want), "hex trace id: {first}");
    let spans = spans(&posted);
    let by_name = check_tree(&spans, &id, "otel-check");
    assert!(by_name.contains_key("execute_tool fs.list"));
    // Without content capture, no prompt leaves the machine.
    assert!(spans.iter().all(|s| str_attr(s, "gen_ai.input.messages").is_none()));
    let body = String::from_utf8_lossy(&posted[0].body).into_owned();
    assert!(!body.contains("plan the deploy"), "{body}");
}

#[test]
fn a_receiver_that_is_down_or_silent_never_fails_or_holds_the_run() {
    let ctx = Ctx::new();
    // Baseline: no export at all.
    let (plain, base) = run(&ctx, &[]);
    plain.expect_code(0);
    // Down: nothing listens on the port.
    let port = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let (down, t_down) = run(
        &ctx,
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &format!("http://127.0.0.1:{port}"))],
    );
    down.expect_code(0);
    assert_eq!(down.json()["data"]["state"], "succeeded");
    assert!(
        t_down < base + 1.5,
        "a refused export took {t_down:.2}s (without: {base:.2}s)"
    );
    // Silent: takes the request and never answers, with a long timeout;
    // the command still exits within its bounded flush.
    let silent = Receiver::start(true);
    let (slow, t_slow) = run(
        &ctx,
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &silent.endpoint()),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "60000"),
        ],
    );
    slow.expect_code(0);
    assert_eq!(slow.json()["data"]["state"], "succeeded");
    assert!(
        t_slow < base + 4.0,
        "a silent collector held the command {t_slow:.2}s (without: {base:.2}s)"
    );
    assert!(!silent.posted().is_empty(), "the export was attempted");
    eprintln!(
        "hwf run: {base:.2} s without export, {t_down:.2} s with the collector down, {t_slow:.2} s with it silent"
    );
}

/// A collector that answers 503 (busy) gets the same batch again after a
/// short backoff, within the command's bounded flush: the trace arrives
/// once, whole.
#[test]
fn a_busy_collector_gets_the_batch_again() {
    let ctx = Ctx::new();
    let (plain, base) = run(&ctx, &[]);
    plain.expect_code(0);
    let busy = Receiver::start_failing(false, 1);
    let (out, took) = run(&ctx, &[("OTEL_EXPORTER_OTLP_ENDPOINT", &busy.endpoint())]);
    out.expect_code(0);
    let posted = busy.posted();
    assert_eq!(posted.len(), 2, "refused once, then taken: {}", posted.len());
    assert_eq!(posted[0].body, posted[1].body, "the same batch again");
    let got = spans(&posted[1..]);
    assert_eq!(
        got.iter().filter(|s| s.name.starts_with("invoke_workflow")).count(),
        1,
        "one whole trace"
    );
    assert!(
        took < base + 1.5,
        "the retry held the command {took:.2}s (without: {base:.2}s)"
    );
}

/// A parked run's trace goes on when a runner continues it: the second
/// execution's spans join the first's under one root.
#[test]
fn a_parked_run_continues_its_trace() {
    let ctx = Ctx::manual_runner();
    let receiver = Receiver::start(false);
    let endpoint = receiver.endpoint();
    let s = ctx.write(
        "ask.js",
        "export const meta = { name: \"ask\", description: \"draft, then ask\" };\n\
         phase(\"draft\");\n\
         const d = await agent(\"write a draft\", { label: \"draft\" });\n\
         const a = await capability(\"human.ask\", { prompt: \"ok?\" });\n\
         return { d, a: a.answer };\n",
    );
    let f = ctx.write(
        "f.json",
        r#"{"responses": [{"match": {"label": "draft"}, "output": "the draft"}]}"#,
    );
    let with_env = |args: &[&str]| -> crate::common::Run {
        ctx.cmd()
            .args(args)
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)
            .output()
            .expect("spawn")
            .into()
    };
    let out = with_env(&[
        "run",
        s.to_str().expect("utf8"),
        "--json",
        "--agents",
        f.to_str().expect("utf8"),
    ]);
    out.expect_code(3);
    let id = run_id(&out.json());
    let parked = spans(&receiver.posted());
    assert!(
        !parked.iter().any(|s| s.name.starts_with("invoke_workflow")),
        "no root yet"
    );
    assert!(parked.iter().any(|s| s.name == "execution 1"));
    ctx.hwf(["control", "decide", &id, "2", "respond", "--value", "\"yes\""])
        .expect_code(0);
    let cont = with_env(&["runner", "--once", "--json"]);
    cont.expect_code(0);
    let all = spans(&receiver.posted());
    let by_name = check_tree(&all, &id, "ask");
    assert!(by_name.contains_key("execution 2"), "{:?}", by_name.keys());
    assert!(by_name.contains_key("wait human"), "{:?}", by_name.keys());
    let replayed = all
        .iter()
        .filter(|s| str_attr(s, "hwf.label") == Some("draft"))
        .filter(|s| attr(s, "hwf.replayed") == Some(&Any::BoolValue(true)))
        .count();
    assert_eq!(replayed, 1, "the continuation's replayed call is marked");
}

/// A run started over MCP with `_meta.traceparent` (SEP-414) is part of the
/// client's trace: the root's parent is the client's span.
#[test]
fn an_mcp_traceparent_makes_the_run_part_of_the_clients_trace() {
    let ctx = Ctx::new();
    let receiver = Receiver::start(false);
    let f = ctx.write("f.json", FIXTURE);
    // The script's `agentType: "reviewer"` must exist (an unknown one
    // rejects, as in Claude Code).
    std::fs::create_dir_all(ctx.path(".hermes/agents")).expect("mkdir");
    ctx.write(
        ".hermes/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews\n---\nYou review carefully.\n",
    );
    let mut child = ctx
        .cmd()
        .args(["mcp", "--agents", f.to_str().expect("utf8")])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let (trace, span) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    let script = SCRIPT.replace("args.token", "\"x\"");
    for msg in [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "workflow", "arguments": {"script_source": script},
            "_meta": {"traceparent": format!("00-{trace}-{span}-01")}}}),
    ] {
        writeln!(stdin, "{msg}").expect("write");
    }
    stdin.flush().expect("flush");
    let mut answer = serde_json::Value::Null;
    let mut line = String::new();
    while out.read_line(&mut line).expect("read") > 0 {
        let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        line.clear();
        if v["id"] == 2 {
            answer = v;
            break;
        }
    }
    drop(stdin);
    let _ = child.wait();
    let data = &answer["result"]["structuredContent"]["data"];
    assert_eq!(data["state"], "succeeded", "{answer}");
    let spans = spans(&receiver.posted());
    let root = spans
        .iter()
        .find(|s| s.name == "invoke_workflow otel-check")
        .expect("the root arrived");
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    assert_eq!(hex(&root.trace_id), trace, "the client's trace");
    assert_eq!(
        hex(&root.parent_span_id),
        span,
        "the root's parent is the client's span"
    );
    assert!(spans.iter().all(|s| hex(&s.trace_id) == trace));
}
