//! `hwf serve` through the real binary over raw HTTP: the token, CSRF and
//! Host checks, traversal, large and malformed bodies, decisions with
//! provenance applied at once by the in-process runner, webhooks with
//! HMAC signatures, planted secrets absent from every response; and the
//! terminal views (`hwf waits`, `hwf overview` filters, `hwf logs`,
//! `hwf status --watch`).

use crate::common::{Ctx, status};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "e2e-console-token-0123456789";
/// A GitHub token shape the redactor knows.
const SECRET: &str = "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2";

const ASK_JS: &str = r#"export const meta = { name: "ask", description: "asks", phases: [{ title: "ask" }] };
phase("ask");
log("asking");
const a = await capability("human.ask", { prompt: "Ship it?", choices: ["yes", "no"] });
return { answer: a.answer, channel: a.channel, message_id: a.message_id };
"#;

const EVENT_JS: &str = r#"export const meta = { name: "on-merge", description: "waits for a merge" };
const e = await capability("events.wait", { source: "github", type: "pull_request.closed" });
return { subject: e.subject, n: e.payload.number };
"#;

const LEAK_JS: &str = r#"export const meta = { name: "leaky", description: "echoes" };
log(`args: ${JSON.stringify(args)}`);
const r = await agent("echo", { label: "echo" });
return { args, r };
"#;

/// A running `hwf serve` (killed on drop).
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(ctx: &Ctx, extra: &[&str], env: &[(&str, &str)]) -> (Server, Vec<String>) {
    let mut cmd = ctx.cmd();
    cmd.args(["serve", "--port", "0"]).args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn hwf serve");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut lines = Vec::new();
    let mut line = String::new();
    out.read_line(&mut line).expect("first line");
    let addr = line
        .split("http://")
        .nth(1)
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .trim()
        .trim_end_matches('/')
        .to_owned();
    lines.push(line.clone());
    // The rest of the banner (one or two lines).
    for _ in 0..2 {
        let mut l = String::new();
        if out.read_line(&mut l).unwrap_or(0) == 0 {
            break;
        }
        let done = l.contains("open http://");
        lines.push(l);
        if done {
            break;
        }
    }
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = out.read_to_end(&mut sink);
    });
    (Server { child, addr }, lines)
}

/// One HTTP/1.1 response.
#[derive(Debug)]
struct Resp {
    status: u16,
    headers: String,
    body: String,
}

impl Resp {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {self:?}"))
    }
}

/// Send a raw request (`Connection: close`), read the whole response.
fn raw(addr: &str, request: &[u8]) -> Resp {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    s.write_all(request).expect("write");
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    Resp {
        status,
        headers: head.to_ascii_lowercase(),
        body: body.to_owned(),
    }
}

fn req(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
    let mut r = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        r.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        r.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    r.push_str("\r\n");
    let mut bytes = r.into_bytes();
    bytes.extend_from_slice(body);
    raw(addr, &bytes)
}

fn get(addr: &str, path: &str) -> Resp {
    req(addr, "GET", path, &[], b"")
}

fn post(addr: &str, path: &str, body: &Value) -> Resp {
    let auth = format!("Bearer {TOKEN}");
    req(
        addr,
        "POST",
        path,
        &[("Authorization", &auth)],
        body.to_string().as_bytes(),
    )
}

/// Poll `GET path` until `ok` holds or `within` passes.
fn poll(addr: &str, path: &str, within: Duration, ok: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let v = get(addr, path).json();
        if ok(&v) || Instant::now() > deadline {
            return v;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Start a JS workflow that parks; returns its run id.
fn parked(ctx: &Ctx, name: &str, js: &str, extra: &[&str]) -> String {
    let path = ctx.write(name, js);
    let mut args = vec!["run", path.to_str().expect("utf8"), "--json"];
    args.extend(extra);
    let out = ctx.hwf(args);
    out.expect_code(3);
    out.json()["data"]["run_id"].as_str().expect("run id").to_owned()
}

#[test]
fn the_console_refuses_what_it_must_and_survives_bad_input() {
    let ctx = Ctx::new();
    let run = parked(&ctx, "ask.js", ASK_JS, &[]);
    let (srv, _) = serve(&ctx, &["--token", TOKEN], &[]);
    let a = srv.addr.as_str();

    // The page and reads on loopback need no token; the page is strict.
    let page = get(a, "/");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("/assets/app.js") && !page.body.contains("http://") && !page.body.contains("https://"));
    assert!(
        page.headers.contains("content-security-policy: default-src 'self'"),
        "{}",
        page.headers
    );
    assert!(page.headers.contains("x-frame-options: deny"));
    assert_eq!(get(a, "/assets/app.js").status, 200);
    assert_eq!(get(a, "/api/runs").json()["data"]["runs"][0]["run_id"], run);

    // No token, a wrong token → 401; nothing recorded.
    let ctl = format!("/api/runs/{run}/controls");
    let body = json!({"action": "pause"}).to_string();
    let r = req(a, "POST", &ctl, &[], body.as_bytes());
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (401, json!("unauthorized")),
        "{r:?}"
    );
    assert!(r.headers.contains("www-authenticate: bearer"));
    let r = req(
        a,
        "POST",
        &ctl,
        &[("Authorization", "Bearer not-the-token-at-all")],
        body.as_bytes(),
    );
    assert_eq!(r.status, 401);
    let r = req(a, "POST", "/api/events", &[], br#"{"source":"s","type":"t"}"#);
    assert_eq!(r.status, 401);

    // Cross-origin and cross-site writes are refused even with the token.
    let auth = format!("Bearer {TOKEN}");
    let r = req(
        a,
        "POST",
        &ctl,
        &[("Authorization", &auth), ("Origin", "http://evil.example")],
        body.as_bytes(),
    );
    assert_eq!((r.status, r.json()["error"]["code"].clone()), (403, json!("forbidden")));
    let r = req(
        a,
        "POST",
        &ctl,
        &[("Authorization", &auth), ("Sec-Fetch-Site", "cross-site")],
        body.as_bytes(),
    );
    assert_eq!(r.status, 403);
    // No CORS: a preflight gets no allow-origin.
    let r = req(
        a,
        "OPTIONS",
        &ctl,
        &[
            ("Origin", "http://evil.example"),
            ("Access-Control-Request-Method", "POST"),
        ],
        b"",
    );
    assert!(!r.headers.contains("access-control-allow-origin"), "{r:?}");
    // A rebound DNS name cannot read the API.
    let r = raw(
        a,
        b"GET /api/runs HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(r.status, 421, "{r:?}");
    assert_eq!(store(&ctx).read_controls(&rid(&run)).expect("controls").len(), 0);

    // Traversal in run ids, call ids and assets → 404.
    for path in [
        "/api/runs/..%2F..%2Fetc%2Fpasswd",
        "/api/runs/%2e%2e",
        "/api/runs/../../etc/passwd",
        "/api/runs/..%2Fcontrols/journal",
        &format!("/api/runs/{run}/calls/..%2F..%2Frun.json"),
        "/api/runs/r%00x",
        "/assets/..%2Fmod.rs",
        "/assets/../../Cargo.toml",
        "/api/nothing",
    ] {
        let r = get(a, path);
        assert_eq!(r.status, 404, "{path}: {r:?}");
        assert!(!r.body.contains("root:") && !r.body.contains("[package]"), "{path}");
    }
    let r = post(a, "/api/runs/..%2F..%2Ftmp/controls", &json!({"action": "pause"}));
    assert_eq!(r.status, 404);

    // Large and malformed bodies → 4xx; the server stays up.
    let big = vec![b'x'; 2 << 20];
    let r = req(a, "POST", &ctl, &[("Authorization", &auth)], &big);
    assert_eq!(r.status, 413, "{}", r.body);
    for bad in [&b"{not json"[..], b"[1,2]", b"\"pause\"", b"", &[0xff, 0xfe, 0x00][..]] {
        let r = req(a, "POST", &ctl, &[("Authorization", &auth)], bad);
        assert_eq!(r.status, 400, "{bad:?}: {r:?}");
        assert_eq!(r.json()["error"]["code"], "invalid_params");
    }
    let r = post(a, &ctl, &json!({"action": "explode"}));
    assert_eq!(r.status, 400);
    let r = post(
        a,
        &format!("/api/runs/{run}/decisions"),
        &json!({"call": "1", "decision": "approve"}),
    );
    assert_eq!(r.status, 400, "{r:?}");
    assert!(r.json()["error"]["message"].as_str().unwrap_or("").contains("question"));
    let r = post(
        a,
        &format!("/api/runs/{run}/decisions"),
        &json!({"call": "1", "decision": "respond", "value": "maybe"}),
    );
    assert_eq!(r.status, 400, "an answer outside the choices: {r:?}");
    let r = raw(a, b"GARBAGE\r\n\r\n");
    assert!((400..500).contains(&r.status), "{r:?}");
    let r = raw(
        a,
        b"GET /api/runs?limit=-1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(r.status, 400);
    assert_eq!(get(a, "/api/health").json()["data"]["ok"], true);
}

fn store(ctx: &Ctx) -> hwf_host::store::FileStore {
    hwf_host::store::FileStore::open(ctx.state()).expect("store")
}

fn rid(id: &str) -> hwf_host::ids::RunId {
    hwf_host::ids::RunId::parse(id).expect("run id")
}

#[test]
fn a_decided_wait_leaves_the_review_queue_before_its_run_continues() {
    let ctx = Ctx::manual_runner();
    let run = parked(&ctx, "ask.js", ASK_JS, &[]);
    let other = parked(&ctx, "ask2.js", ASK_JS, &[]);
    let queued = |ctx: &Ctx| -> Vec<String> {
        let w = ctx.hwf(["waits", "--json"]);
        w.expect_code(0);
        w.json()["data"]["waits"]
            .as_array()
            .expect("waits")
            .iter()
            .map(|w| w["run_id"].as_str().expect("run id").to_owned())
            .collect()
    };
    let mut both = queued(&ctx);
    both.sort();
    let mut expected = vec![run.clone(), other.clone()];
    expected.sort();
    assert_eq!(both, expected);
    // No runner serves the state dir (autostart is off): the decision is
    // recorded and the run stays waiting until one runs.
    ctx.hwf(["control", "decide", &run, "1", "respond", "--value", "\"yes\""])
        .expect_code(0);
    assert_eq!(status(&ctx, &run)["state"], "waiting");
    assert_eq!(
        queued(&ctx),
        vec![other.clone()],
        "the decided question is not offered again"
    );
    let (srv, _) = serve(&ctx, &["--token", TOKEN], &[]);
    let q = get(srv.addr.as_str(), "/api/waits").json();
    let listed: Vec<&str> = q["data"]["waits"]
        .as_array()
        .expect("waits")
        .iter()
        .filter_map(|w| w["run_id"].as_str())
        .collect();
    assert!(!listed.contains(&run.as_str()), "{q}");
}

#[test]
fn a_decision_in_the_console_finishes_the_run_at_once_with_its_provenance() {
    let ctx = Ctx::new();
    let run = parked(&ctx, "ask.js", ASK_JS, &[]);
    // The review queue in the terminal: the question and the exact command.
    let w = ctx.hwf(["waits"]);
    w.expect_code(0);
    assert!(w.stdout.contains("question: Ship it?"), "{}", w.stdout);
    assert!(w.stdout.contains(r#"choices:  "yes" | "no""#), "{}", w.stdout);
    let cmd = format!("$ hwf control decide {run} 1 respond --value '\"yes\"'");
    assert!(w.stdout.contains(&cmd), "{}", w.stdout);
    let st = ctx.hwf(["status", &run]);
    assert!(
        st.stderr.contains(&cmd),
        "status of a waiting run prints the answer: {st:?}"
    );
    let wj = ctx.hwf(["waits", "--json"]).json();
    assert_eq!(wj["data"]["waits"][0]["choices"], json!(["yes", "no"]));

    let (srv, _) = serve(&ctx, &["--token", TOKEN], &[]);
    let a = srv.addr.as_str();
    let q = get(a, "/api/waits").json();
    assert_eq!(q["data"]["waits"][0]["question"], "Ship it?");
    let t0 = Instant::now();
    let r = post(
        a,
        &format!("/api/runs/{run}/decisions"),
        &json!({"call": "1", "decision": "respond", "value": "yes", "request_id": "req-1", "actor": "ana"}),
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["data"]["recorded"], true);
    let s = poll(a, &format!("/api/runs/{run}"), Duration::from_secs(10), |v| {
        v["data"]["state"] == "succeeded"
    });
    let took = t0.elapsed();
    assert_eq!(s["data"]["state"], "succeeded", "{s}");
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(
        s["data"]["result"],
        json!({"answer": "yes", "channel": "web", "message_id": "req-1"})
    );
    let c = &s["data"]["controls"][0];
    assert_eq!(
        (c["channel"].clone(), c["actor"].clone(), c["message_id"].clone()),
        (json!("web"), json!("ana"), json!("req-1"))
    );
    // The same request id again is the same decision (not recorded twice);
    // a new one on the ended run is refused.
    let again = |rid: &str| {
        post(
            a,
            &format!("/api/runs/{run}/decisions"),
            &json!({"call": "1", "decision": "respond", "value": "yes", "request_id": rid}),
        )
    };
    let r = again("req-1");
    assert_eq!(
        (r.status, r.json()["data"]["recorded"].clone()),
        (200, json!(false)),
        "{r:?}"
    );
    let r = again("req-2");
    assert_eq!(r.status, 400, "the run has ended: {r:?}");
    // The timeline has the decision with its provenance, and the log line.
    let tl = get(a, &format!("/api/runs/{run}/journal")).json();
    let rows = tl["data"]["rows"].as_array().expect("rows");
    assert!(
        rows.iter()
            .any(|r| r["row"] == "control" && r["channel"] == "web" && r["message_id"] == "req-1")
    );
    assert!(rows.iter().any(|r| r["row"] == "log" && r["message"] == "asking"));
    assert!(
        rows.iter()
            .any(|r| r["row"] == "call" && r["state"] == "done" && r["name"] == "human.ask")
    );
    // hwf logs prints the same story.
    let logs = ctx.hwf(["logs", &run]);
    assert!(logs.stdout.contains("info  asking"), "{}", logs.stdout);
    assert!(
        logs.stdout.contains("decide call 1 respond \"yes\" by ana via web"),
        "{}",
        logs.stdout
    );
    assert!(logs.stdout.contains("run succeeded"), "{}", logs.stdout);
}

#[test]
fn controls_and_events_from_the_console_take_effect() {
    let ctx = Ctx::new();
    let run = parked(&ctx, "on-merge.js", EVENT_JS, &[]);
    let (srv, _) = serve(&ctx, &["--token", TOKEN], &[]);
    let a = srv.addr.as_str();
    let w = get(a, "/api/waits").json();
    assert_eq!(w["data"]["waits"][0]["kind"], "event");
    assert!(
        w["data"]["waits"][0]["commands"][0]
            .as_str()
            .unwrap_or("")
            .starts_with("hwf events send --source github --type pull_request.closed")
    );
    let r = post(
        a,
        &format!("/api/runs/{run}/controls"),
        &json!({"action": "pause", "request_id": "p1"}),
    );
    assert_eq!(r.status, 200, "{r:?}");
    let r = post(a, &format!("/api/runs/{run}/controls"), &json!({"action": "resume"}));
    assert_eq!(r.status, 200);
    let r = post(
        a,
        "/api/events",
        &json!({"source": "github", "type": "pull_request.closed", "id": "ev-1", "subject": "o/r#7", "payload": {"number": 7}}),
    );
    assert_eq!(r.status, 200, "{r:?}");
    let s = poll(a, &format!("/api/runs/{run}"), Duration::from_secs(10), |v| {
        v["data"]["state"] == "succeeded"
    });
    assert_eq!(s["data"]["result"], json!({"subject": "o/r#7", "n": 7}), "{s}");
    let r = post(
        a,
        "/api/events",
        &json!({"source": "github", "type": "x", "id": "ev-1"}),
    );
    assert_eq!(r.json()["data"]["new"], false, "idempotent by id");
}

#[test]
fn webhooks_need_a_valid_signature_and_are_idempotent() {
    let ctx = Ctx::new();
    let run = parked(&ctx, "on-merge.js", EVENT_JS, &[]);
    let secret = "whsec-e2e-0123456789abcdef";
    let (srv, _) = serve(&ctx, &["--token", TOKEN], &[("HWF_WEBHOOK_SECRET_GITHUB", secret)]);
    let a = srv.addr.as_str();
    let body = json!({"action": "closed", "number": 42, "repository": {"full_name": "org/repo"}}).to_string();
    let sig = hwf_host::serve::hooks::sign(secret.as_bytes(), body.as_bytes());
    let hook = |sig: &str, delivery: &str| {
        req(
            a,
            "POST",
            "/hooks/github",
            &[
                ("X-Hub-Signature-256", sig),
                ("X-GitHub-Event", "pull_request"),
                ("X-GitHub-Delivery", delivery),
            ],
            body.as_bytes(),
        )
    };
    let bad = hwf_host::serve::hooks::sign(b"another secret", body.as_bytes());
    assert_eq!(hook(&bad, "d-0").status, 401);
    assert_eq!(hook("sha256=zz", "d-0").status, 401);
    let r = req(
        a,
        "POST",
        "/hooks/github",
        &[("X-GitHub-Delivery", "d-0")],
        body.as_bytes(),
    );
    assert_eq!(r.status, 401, "unsigned");
    let r = hook(&sig, "d-1");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(
        (
            r.json()["data"]["type"].clone(),
            r.json()["data"]["subject"].clone(),
            r.json()["data"]["new"].clone()
        ),
        (json!("pull_request.closed"), json!("org/repo#42"), json!(true))
    );
    assert_eq!(
        hook(&sig, "d-1").json()["data"]["new"],
        false,
        "the same delivery again"
    );
    let s = poll(a, &format!("/api/runs/{run}"), Duration::from_secs(10), |v| {
        v["data"]["state"] == "succeeded"
    });
    assert_eq!(s["data"]["result"], json!({"subject": "org/repo#42", "n": 42}), "{s}");
    // A source without a secret is refused; the generic scheme needs a fresh timestamp.
    let r = req(
        a,
        "POST",
        "/hooks/gitlab",
        &[("X-Hub-Signature-256", &sig)],
        body.as_bytes(),
    );
    assert_eq!(r.status, 404);
    let (srv2, _) = serve(&ctx, &["--token", TOKEN], &[("HWF_WEBHOOK_SECRET", secret)]);
    let g = json!({"id": "g-1", "type": "ci.passed", "subject": "build 9", "payload": {"ok": true}}).to_string();
    let ts = (hwf_host::store::now_ms() / 1000).to_string();
    let gsig = hwf_host::serve::hooks::sign(
        secret.as_bytes(),
        &hwf_host::serve::hooks::generic_message(ts.parse().expect("ts"), "ci", "g-1", "ci.passed", g.as_bytes()),
    );
    let r = req(
        &srv2.addr,
        "POST",
        "/hooks/ci",
        &[("X-Hwf-Signature", &gsig), ("X-Hwf-Timestamp", &ts)],
        g.as_bytes(),
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["data"]["payload"], json!({"ok": true}));
    let r = req(
        &srv2.addr,
        "POST",
        "/hooks/ci",
        &[("X-Hwf-Signature", &gsig), ("X-Hwf-Timestamp", "1000")],
        g.as_bytes(),
    );
    assert_eq!(r.status, 401, "a stale timestamp");
    // Issue 29, finding 4: the signature covers the source, the delivery
    // id and the type. A captured delivery is refused as another id,
    // another type, or at another source sharing the default secret.
    for (path, headers) in [
        ("/hooks/ci", vec![("X-Hwf-Delivery", "g-2")]),
        ("/hooks/ci", vec![("X-Hwf-Event", "deploy.approved")]),
        ("/hooks/deploy", vec![]),
    ] {
        let mut h = vec![("X-Hwf-Signature", gsig.as_str()), ("X-Hwf-Timestamp", ts.as_str())];
        h.extend(headers);
        let r = req(&srv2.addr, "POST", path, &h, g.as_bytes());
        assert_eq!(r.status, 401, "{path} {h:?}: {r:?}");
    }
    // The same request again is the same event.
    let r = req(
        &srv2.addr,
        "POST",
        "/hooks/ci",
        &[("X-Hwf-Signature", &gsig), ("X-Hwf-Timestamp", &ts)],
        g.as_bytes(),
    );
    assert_eq!(
        (r.status, r.json()["data"]["new"].clone()),
        (200, json!(false)),
        "{r:?}"
    );
    // A GitHub delivery replayed under a new X-GitHub-Delivery is the
    // same event (GitHub signs the body alone): not new, nothing started.
    let r = hook(&sig, "d-replayed");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(
        (r.json()["data"]["new"].clone(), r.json()["data"]["id"].clone()),
        (json!(false), json!("d-1")),
        "{r:?}"
    );
}

#[test]
fn planted_secrets_never_reach_a_page_or_an_api_response() {
    let ctx = Ctx::new();
    let fixture = ctx.write(
        "leak.json",
        json!({"responses": [{"match": {"label": "echo"}, "output": {"said": format!("the key is {SECRET}"), "api_key": "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"}}]}).to_string(),
    );
    let path = ctx.write("leaky.js", LEAK_JS);
    let out = ctx.hwf([
        "run",
        path.to_str().expect("utf8"),
        "--agents",
        fixture.to_str().expect("utf8"),
        "--args",
        &json!({"token": SECRET, "note": format!("use {SECRET} please")}).to_string(),
        "--json",
    ]);
    out.expect_code(0);
    let run = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let ask = parked(&ctx, "ask.js", ASK_JS, &[]);
    let (srv, _) = serve(&ctx, &["--token", TOKEN], &[]);
    let a = srv.addr.as_str();
    // A reason carrying a secret is stored and shown redacted.
    let r = post(
        a,
        &format!("/api/runs/{ask}/controls"),
        &json!({"action": "pause", "reason": format!("because {SECRET}")}),
    );
    assert_eq!(r.status, 200);
    let mut seen = String::new();
    for p in [
        "/".to_owned(),
        "/assets/app.js".into(),
        "/api/runs".into(),
        format!("/api/runs/{run}"),
        format!("/api/runs/{run}/journal"),
        format!("/api/runs/{run}/calls/1"),
        format!("/api/runs/{ask}"),
        format!("/api/runs/{ask}/journal"),
        "/api/waits".into(),
        "/api/events".into(),
    ] {
        let r = get(a, &p);
        assert_eq!(r.status, 200, "{p}: {r:?}");
        seen.push_str(&r.body);
    }
    seen.push_str(&r.body);
    assert!(
        seen.contains("[REDACTED"),
        "the responses show where values were redacted"
    );
    for needle in [SECRET, "sk-proj-abcdefghijklmnopqrstuvwxyz", TOKEN] {
        assert!(!seen.contains(needle), "{needle} leaked");
    }
}

#[test]
fn off_loopback_every_api_request_needs_the_token_and_a_generated_token_is_kept_private() {
    let ctx = Ctx::new();
    // Bound to every address; the test only talks to 127.0.0.1.
    let (srv, lines) = serve(&ctx, &["--bind", "0.0.0.0"], &[]);
    let port = srv.addr.rsplit(':').next().expect("port").to_owned();
    let a = format!("127.0.0.1:{port}");
    let file = ctx.state().join("console-token");
    let token = std::fs::read_to_string(&file).expect("token file");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).expect("meta").permissions().mode() & 0o777,
        0o600
    );
    assert!(
        lines.iter().any(|l| l.contains(&format!("#token={token}"))),
        "{lines:?}"
    );
    assert_eq!(get(&a, "/api/runs").status, 401, "reads need the token off loopback");
    assert_eq!(get(&a, "/").status, 200, "the page itself holds no data");
    let auth = format!("Bearer {token}");
    assert_eq!(
        req(&a, "GET", "/api/runs", &[("Authorization", &auth)], b"").status,
        200
    );
    assert_eq!(get(&a, &format!("/api/health?access_token={token}")).status, 200);
    drop(srv);
    // A second start reuses the stored token and does not print it.
    let (_srv, lines) = serve(&ctx, &[], &[]);
    assert!(!lines.iter().any(|l| l.contains(&token)), "{lines:?}");
    // A short token is refused.
    let out = ctx.hwf(["serve", "--port", "0", "--token", "short"]);
    out.expect_code(2).expect_stderr("invalid_args");
}

#[test]
fn overview_filters_logs_follow_and_status_watch() {
    let ctx = Ctx::manual_runner();
    let ask = parked(&ctx, "ask.js", ASK_JS, &[]);
    parked(&ctx, "on-merge.js", EVENT_JS, &[]);
    let o = ctx.hwf(["overview"]);
    o.expect_code(0);
    let header = o.stdout.lines().next().unwrap_or("");
    for col in [
        "RUN",
        "WORKFLOW",
        "STATE",
        "PHASE",
        "AGE",
        "DURATION",
        "CALLS",
        "WAITING ON",
    ] {
        assert!(header.contains(col), "{header}");
    }
    assert!(
        o.stdout.contains(" ask ") && o.stdout.contains(" on-merge "),
        "{}",
        o.stdout
    );
    assert!(!o.stdout.contains(".js"), "names, not paths: {}", o.stdout);
    let f = ctx.hwf(["overview", "--name", "ask", "--json"]).json();
    assert_eq!(f["data"]["runs"].as_array().map(Vec::len), Some(1));
    assert_eq!(f["data"]["runs"][0]["workflow"], "ask");
    let l = ctx.hwf(["overview", "--limit", "1", "--state", "waiting"]);
    assert!(l.stdout.contains("(1 of 2 runs shown)"), "{}", l.stdout);
    ctx.hwf(["overview", "--state", "nonsense"]).expect_code(2);
    assert_eq!(
        ctx.hwf(["overview", "--state", "succeeded"]).stdout.trim(),
        "no runs match"
    );

    // --follow and --watch end when the run does.
    let mut follow = ctx
        .cmd()
        .args(["logs", &ask, "--follow"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("logs");
    let mut watch = ctx
        .cmd()
        .args(["status", &ask, "--watch"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("watch");
    ctx.hwf(["control", "decide", &ask, "1", "respond", "--value", "no"])
        .expect_code(0);
    ctx.hwf(["runner", "--once", "--run", &ask]).expect_code(0);
    let deadline = Instant::now() + Duration::from_secs(30);
    let wait = |c: &mut Child| loop {
        if let Some(s) = c.try_wait().expect("wait") {
            return s;
        }
        assert!(Instant::now() < deadline, "still following after the run ended");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(wait(&mut follow).success());
    assert!(wait(&mut watch).success());
    let mut text = String::new();
    follow
        .stdout
        .take()
        .expect("out")
        .read_to_string(&mut text)
        .expect("read");
    assert!(
        text.contains("decide call 1 respond \"no\" by cli via cli") && text.contains("run succeeded"),
        "{text}"
    );
    let mut w = String::new();
    watch.stdout.take().expect("out").read_to_string(&mut w).expect("read");
    assert!(w.contains("waiting") && w.contains("succeeded"), "{w}");
}

#[test]
fn a_run_on_a_terminal_shows_the_phase_checklist_running_agents_and_a_summary() {
    let ctx = Ctx::new();
    let js = ctx.write(
        "steps.js",
        r#"export const meta = { name: "steps", description: "slow steps", phases: [{ title: "one" }, { title: "two" }] };
phase("one");
await parallel([() => agent("a", { label: "qa" }), () => agent("b", { label: "review" })]);
phase("two");
await agent("c", { label: "ship" });
return { done: 1 };
"#,
    );
    let fx = ctx.write(
        "fx.json",
        json!({"responses": [{"match": {}, "output": {"ok": true}, "tokens": 5, "delay_ms": 900}]}).to_string(),
    );
    let run = format!(
        "{} run {} --agents {}",
        env!("CARGO_BIN_EXE_hwf"),
        js.display(),
        fx.display()
    );
    // Not a terminal: no spinner, no summary.
    let plain = ctx.hwf([
        "run",
        js.to_str().expect("utf8"),
        "--agents",
        fx.to_str().expect("utf8"),
    ]);
    plain.expect_code(0);
    assert!(
        !plain.stderr.contains("calls ·") && !plain.stderr.contains("succeeded in"),
        "{plain:?}"
    );
    // On a terminal (util-linux `script` gives the run a pty).
    if !std::path::Path::new("/usr/bin/script").exists() {
        eprintln!("skipped: no /usr/bin/script for a pty");
        return;
    }
    let log = ctx.path("tty.log");
    // `script` runs hwf with the environment `ctx.cmd()` would give it.
    let mut cmd = std::process::Command::new("/usr/bin/script");
    for (k, v) in ctx.cmd().get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let out = cmd
        .current_dir(ctx.dir.path())
        .args(["-qfec", &run, log.to_str().expect("utf8")])
        .stdin(Stdio::null())
        .output()
        .expect("script");
    assert!(out.status.success(), "{out:?}");
    let screen = std::fs::read_to_string(&log).expect("tty log");
    for needle in [
        "▶ one  ○ two",
        "✓ one  ▶ two",
        "running: qa, review",
        "running: ship",
        "calls ·",
    ] {
        assert!(screen.contains(needle), "{needle:?} not shown: {screen}");
    }
    assert!(
        screen.contains("succeeded in ") && screen.contains("· 3 calls · 0 failed · 15 tokens"),
        "{screen}"
    );
}

#[test]
fn a_spilled_result_is_served_whole() {
    let ctx = Ctx::new();
    let js = ctx.write(
        "big.js",
        r#"export const meta = { name: "big", description: "a large result" };
return { text: "x".repeat(300000) };
"#,
    );
    ctx.hwf(["run", js.to_str().expect("utf8"), "--json"]).expect_code(0);
    let (srv, _) = serve(&ctx, &["--token", TOKEN], &[]);
    let a = srv.addr.as_str();
    let run = get(a, "/api/runs").json()["data"]["runs"][0]["run_id"]
        .as_str()
        .expect("run")
        .to_owned();
    let s = get(a, &format!("/api/runs/{run}")).json();
    assert!(
        s["data"]["result"].is_null() && s["data"]["result_preview"].is_string(),
        "spilled: {s}"
    );
    let r = get(a, &format!("/api/runs/{run}/result")).json();
    assert_eq!(r["data"]["text"].as_str().map(str::len), Some(300000));
}

#[test]
fn a_webhook_starts_a_triggered_run_once_per_delivery() {
    let ctx = Ctx::new();
    let js = ctx.write(
        "greet.js",
        r#"export const meta = { name: "greet", description: "echoes the PR number" };
return { pr: args.n };
"#,
    );
    ctx.hwf(["script", "save", "greet", js.to_str().expect("utf8")])
        .expect_code(0);
    ctx.hwf([
        "triggers",
        "add",
        "on-close",
        "--workflow",
        "greet",
        "--source",
        "github",
        "--type",
        "pull_request.closed",
        "--args",
        r#"{"n": "$event.payload.number"}"#,
    ])
    .expect_code(0);
    let secret = "whsec-trigger-0123456789";
    let (srv, _) = serve(&ctx, &["--token", TOKEN], &[("HWF_WEBHOOK_SECRET", secret)]);
    let a = srv.addr.as_str();
    let body = json!({"action": "closed", "number": 7, "repository": {"full_name": "o/r"}}).to_string();
    let sig = hwf_host::serve::hooks::sign(secret.as_bytes(), body.as_bytes());
    let send = || {
        req(
            a,
            "POST",
            "/hooks/github",
            &[
                ("X-Hub-Signature-256", &sig),
                ("X-GitHub-Event", "pull_request"),
                ("X-GitHub-Delivery", "t-1"),
            ],
            body.as_bytes(),
        )
    };
    let r = send();
    assert_eq!(r.status, 200, "{r:?}");
    let run = r.json()["data"]["started"][0]["run_id"]
        .as_str()
        .expect("a run started")
        .to_owned();
    send();
    let s = poll(a, &format!("/api/runs/{run}"), Duration::from_secs(20), |v| {
        v["data"]["state"] == "succeeded"
    });
    assert_eq!(s["data"]["result"], json!({"pr": 7}), "{s}");
    let runs = get(a, "/api/runs").json();
    assert_eq!(
        runs["data"]["total"], 1,
        "the same delivery twice starts one run: {runs}"
    );
}

/// Issue 29, finding 3: the journal endpoint returned every row of a run
/// (a 256 MiB journal per request). It serves the first and last 150 rows
/// with a gap row and the total, pages by offset and limit (at most
/// 1,000), `all=true` up to 20,000, and the phase of every call; a bad
/// query is a 400.
#[test]
fn the_journal_endpoint_is_paged() {
    let ctx = Ctx::new();
    ctx.write(
        "chatty.js",
        "export const meta = { name: \"chatty\", description: \"logs a lot\", phases: [\"talk\"] };\n\
         phase(\"talk\");\n\
         for (let i = 0; i < 1200; i++) console.log(\"line \" + i);\n\
         return { done: true };\n",
    );
    let out = ctx.hwf(["run", "chatty.js", "--json"]);
    out.expect_code(0);
    let run = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let (srv, _) = serve(&ctx, &["--token", TOKEN], &[]);
    let a = srv.addr.as_str();
    let page = |q: &str| get(a, &format!("/api/runs/{run}/journal{q}"));
    let first = page("").json()["data"].clone();
    let total = first["total"].as_u64().expect("total");
    assert!(total > 1200, "{total}");
    let rows = first["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 301, "150 + a gap + 150");
    assert_eq!(rows[150], json!({"row": "gap", "hidden": total - 300}));
    assert_eq!(rows[300]["row"], "run_completed");
    let p = page("?offset=100&limit=50").json()["data"].clone();
    assert_eq!(p["rows"].as_array().expect("rows").len(), 50);
    assert_eq!((p["offset"].clone(), p["next"].clone()), (json!(100), json!(150)));
    let last = page(&format!("?offset={}&limit=1000", total - 10)).json()["data"].clone();
    assert_eq!(last["rows"].as_array().expect("rows").len(), 10);
    assert!(last.get("next").is_none(), "{last}");
    let big = page("?limit=5000").json()["data"].clone();
    assert_eq!(
        big["rows"].as_array().expect("rows").len(),
        1000,
        "a page holds at most 1,000"
    );
    let all = page("?all=true").json()["data"].clone();
    assert_eq!(all["rows"].as_array().expect("rows").len() as u64, total);
    for bad in ["?offset=-1", "?limit=x", "?all=true&limit=5"] {
        assert_eq!(page(bad).status, 400, "{bad}");
    }
}

#[test]
fn half_open_connections_are_closed_after_the_header_timeout() {
    // Issue 29, finding 12: connections that send nothing, or half a
    // request, used to stay open for ever.
    let ctx = Ctx::new();
    let (server, _) = serve(&ctx, &[], &[]);
    let opened = Instant::now();
    let idle: Vec<TcpStream> = (0..25)
        .map(|i| {
            let mut s = TcpStream::connect(&server.addr).expect("connect");
            if i % 2 == 1 {
                s.write_all(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                    .expect("half a request");
            }
            s.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
            s
        })
        .collect();
    // The server still answers while they hang.
    assert_eq!(get(&server.addr, "/api/health").status, 200);
    for mut s in idle {
        let mut buf = [0u8; 256];
        // EOF (0) or a reset: either way the server closed it.
        let n = s.read(&mut buf).unwrap_or(0);
        let text = String::from_utf8_lossy(&buf[..n]).to_string();
        assert!(n == 0 || text.starts_with("HTTP/1.1 408"), "{text:?}");
    }
    let took = opened.elapsed();
    assert!(
        took >= Duration::from_secs(9) && took < Duration::from_secs(20),
        "closed after the 10 s header timeout, not before nor much later: {took:?}"
    );
}

const DRAFT_JS: &str = r#"export const meta = { name: "drafts", description: "a draft, then a summary of it", phases: [{ title: "draft" }, { title: "sum" }] };
phase("draft");
const d = await agent("Draft the notes", { label: "draft" });
phase("sum");
const s = await agent(`Summarize: ${JSON.stringify(d)}`, { label: "summary" });
if (s === null) throw new Error("the summary agent did not answer");
return { draft: d, summary: s };
"#;

/// The run page in one answer (`/api/runs/{id}/page`); "fork with this
/// output" through the facade (a new run whose edit is journaled as
/// `call_edited` by `web`, the other calls replayed or run live as their
/// requests say); the plan shown before "run again from here" (creates no
/// run). Issue 30/31.
#[test]
fn the_run_page_forks_with_an_output_and_plans_a_rerun() {
    let ctx = Ctx::new();
    let fixture = ctx.write(
        "f.json",
        r#"{"responses": [
          {"match": {"label": "draft"}, "output": "first draft", "tokens": 10},
          {"match": {"label": "summary"}, "output": "summed", "tokens": 5}
        ]}"#,
    );
    let fixture = fixture.to_str().expect("utf8");
    let script = ctx.write("drafts.js", DRAFT_JS);
    let out = ctx.hwf(["run", script.to_str().expect("utf8"), "--agents", fixture, "--json"]);
    out.expect_code(0);
    let run = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let (srv, _) = serve(&ctx, &["--token", TOKEN, "--agents", fixture], &[]);
    let a = srv.addr.as_str();

    // The page: the header, calls as rows under one list of columns (each
    // with its phase), the timeline.
    let p = get(a, &format!("/api/runs/{run}/page")).json()["data"].clone();
    assert_eq!(p["run"]["state"], "succeeded", "{p}");
    assert_eq!(p["run"]["workflow"], "drafts");
    let cols: Vec<&str> = p["calls"]["cols"]
        .as_array()
        .expect("cols")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let rows = p["calls"]["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 2, "{p}");
    let at = |r: &Value, k: &str| r[cols.iter().position(|c| *c == k).expect("column")].clone();
    assert_eq!(
        (at(&rows[0], "label"), at(&rows[0], "phase"), at(&rows[0], "state")),
        (json!("draft"), json!("draft"), json!("done"))
    );
    assert_eq!(at(&rows[1], "phase"), "sum");
    assert!(p["timeline"]["rows"].as_array().is_some_and(|r| r.len() > 3), "{p}");
    assert_eq!(get(a, "/api/runs/r0000000000000000000000000000/page").status, 404);

    // Fork with this output: needs the token; a body without an output is
    // a 400 and creates nothing.
    let before = ctx.run_ids().len();
    let body = json!({"call": "1", "output": {"text": "second draft"}, "reason": "shorter"});
    let r = req(
        a,
        "POST",
        &format!("/api/runs/{run}/fork"),
        &[],
        body.to_string().as_bytes(),
    );
    assert_eq!(r.status, 401, "{r:?}");
    let r = post(a, &format!("/api/runs/{run}/fork"), &json!({"call": "1"}));
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!("invalid_params")),
        "{r:?}"
    );
    let r = post(a, &format!("/api/runs/{run}/fork"), &json!({"call": "7", "output": 1}));
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (404, json!("not_found")),
        "{r:?}"
    );
    assert_eq!(ctx.run_ids().len(), before, "a refused fork creates no run");
    let r = post(a, &format!("/api/runs/{run}/fork"), &body);
    assert_eq!(r.status, 200, "{r:?}");
    let fork = r.json()["data"]["run_id"].as_str().expect("new run").to_owned();
    assert_ne!(fork, run);
    let s = poll(a, &format!("/api/runs/{fork}"), Duration::from_secs(20), |v| {
        v["data"]["state"] == "succeeded"
    });
    let d = &s["data"];
    assert_eq!(d["state"], "succeeded", "{s}");
    // The draft is the edit; the summary's prompt changed, so it ran live.
    assert_eq!(
        d["result"],
        json!({"draft": {"text": "second draft"}, "summary": "summed"}),
        "{s}"
    );
    assert_eq!(d["resumed_from"], run.as_str());
    assert_eq!(d["counts"]["replayed"], 1, "{s}");
    let edit = ctx
        .journal(&fork)
        .into_iter()
        .find(|l| l["type"] == "call_edited")
        .expect("the edit is journaled");
    assert_eq!(
        (
            edit["call"].clone(),
            edit["actor"].clone(),
            edit["reason"].clone(),
            edit["source_run"].clone()
        ),
        (json!("1"), json!("web"), json!("shorter"), json!(run))
    );

    // The same endpoint takes a new input (the call runs live with it)
    // and refuses a decision on an agent call (`fork_mismatch`).
    let r = post(
        a,
        &format!("/api/runs/{run}/fork"),
        &json!({"call": "1", "input": {"audience": "ops"}}),
    );
    assert_eq!(r.status, 200, "{r:?}");
    let by_input = r.json()["data"]["run_id"].as_str().expect("new run").to_owned();
    poll(a, &format!("/api/runs/{by_input}"), Duration::from_secs(20), |v| {
        v["data"]["state"] == "succeeded"
    });
    let edit = ctx
        .journal(&by_input)
        .into_iter()
        .find(|l| l["type"] == "call_edited")
        .expect("the edit is journaled");
    assert_eq!(
        (edit["field"].clone(), edit["actor"].clone(), edit["value"].clone()),
        (json!("input"), json!("web"), json!({"audience": "ops"}))
    );
    let r = post(
        a,
        &format!("/api/runs/{run}/fork"),
        &json!({"call": "1", "decision": "approve"}),
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!("fork_mismatch")),
        "{r:?}"
    );
    // An input that still holds the redaction marker is refused: the
    // journal never stored the value it stood for.
    let before = ctx.run_ids().len();
    let r = post(
        a,
        &format!("/api/runs/{run}/fork"),
        &json!({"call": "1", "input": {"key": "[REDACTED]", "n": [1, "Bearer [REDACTED]"]}}),
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!("invalid_args")),
        "{r:?}"
    );
    let msg = r.json()["error"]["message"].as_str().unwrap_or_default().to_owned();
    assert!(msg.contains("/key") && msg.contains("/n/1"), "{msg}");
    assert_eq!(ctx.run_ids().len(), before, "a refused fork creates no run");

    // What a fork of a call takes (the console's fork forms): an agent
    // call's recorded output and input; no question, no decision.
    let o = get(a, &format!("/api/runs/{run}/calls/1/fork")).json()["data"].clone();
    assert_eq!(
        (
            o["kind"].clone(),
            o["label"].clone(),
            o["output"].clone(),
            o["input"].clone()
        ),
        (json!("agent"), json!("draft"), json!("first draft"), Value::Null),
        "{o}"
    );
    assert_eq!((o["decisions"].clone(), o.get("question")), (json!([]), None), "{o}");
    assert_eq!(o["redacted"], json!([]), "{o}");
    // The fork's call 1 ran with a new input: its options show that input.
    let o = get(a, &format!("/api/runs/{by_input}/calls/1/fork")).json()["data"].clone();
    assert_eq!(o["input"], json!({"audience": "ops"}), "{o}");
    assert_eq!(get(a, &format!("/api/runs/{run}/calls/9/fork")).status, 404);

    // The drift report of the workflow against its current script (the
    // file, unchanged): every run replays, none diverges; nothing made.
    let before = ctx.run_ids().len();
    let d = get(a, &format!("/api/runs/{run}/drift")).json()["data"].clone();
    assert_eq!(d["workflow"], "drafts", "{d}");
    assert_eq!(d["diverging"], 0, "{d}");
    let mine = d["runs"]
        .as_array()
        .and_then(|r| r.iter().find(|x| x["run_id"] == run.as_str()))
        .expect("the run is checked");
    assert_eq!(
        (mine["replayed"].as_u64(), mine["live"].as_u64()),
        (Some(2), Some(0)),
        "{d}"
    );
    assert_eq!(ctx.run_ids().len(), before, "a drift report creates no run");
    assert_eq!(get(a, "/api/runs/r0000000000000000000000000000/drift").status, 404);

    // The plan before a rerun: a failed run (the summary agent fails) —
    // the draft would replay, the failed summary run live; no run created.
    let bad = ctx.write(
        "bad.json",
        r#"{"responses": [
          {"match": {"label": "draft"}, "output": "first draft", "tokens": 10},
          {"match": {"label": "summary"}, "error": "the backend is down", "code": "agent_failed"}
        ]}"#,
    );
    let out = ctx.hwf([
        "run",
        script.to_str().expect("utf8"),
        "--agents",
        bad.to_str().expect("utf8"),
        "--json",
    ]);
    out.expect_code(1);
    let failed = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let before = ctx.run_ids().len();
    let plan = get(a, &format!("/api/runs/{failed}/plan")).json();
    assert_eq!(plan["success"], true, "{plan}");
    let pd = &plan["data"];
    assert_eq!(
        (pd["replayed"].clone(), pd["live"].clone()),
        (json!(1), json!(1)),
        "{plan}"
    );
    let live = pd["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|s| s["outcome"] == "live")
        .expect("a live step")
        .clone();
    assert_eq!(
        (live["label"].clone(), live["reason"].clone()),
        (json!("summary"), json!("failed")),
        "{plan}"
    );
    assert_eq!(pd["run_created"], false);
    assert_eq!(ctx.run_ids().len(), before, "a plan creates no run");
}
