//! Event-triggered and calendar starts (issue 19) through the real binary:
//! `hwf triggers add` binds an event pattern or a cron expression to a
//! saved workflow and an args template; `hwf events send` starts a run per
//! matching trigger exactly once per event id; the runner fires cron
//! triggers (once per minute) and executes what they queued.

use crate::common::{Ctx, root};
use serde_json::{Value, json};

fn path(rel: &str) -> String {
    root().join(rel).to_str().expect("utf8").to_owned()
}

fn send(ctx: &Ctx, id: &str, kind: &str, number: u64) -> Value {
    let payload = json!({"number": number, "repository": "acme/app", "base": "main", "action": "opened"});
    let out = ctx.hwf([
        "events",
        "send",
        "--source",
        "github",
        "--type",
        kind,
        "--id",
        id,
        "--payload",
        &payload.to_string(),
        "--json",
    ]);
    out.expect_code(0);
    out.json()["data"].clone()
}

#[test]
fn a_pr_opened_event_sent_twice_starts_one_run_of_the_release_lane() {
    let ctx = Ctx::manual_runner();
    ctx.hwf([
        "script",
        "save",
        "release-lane",
        &path("harnesses/seed-event-driven-pr-validation-lane.workflow.json"),
    ])
    .expect_code(0);
    let args = json!({"repo": "$event.payload.repository", "pr_number": "$event.payload.number",
                      "base_branch": "$event.payload.base", "workspace": "/work/app",
                      "trigger_event": "$event", "profile_bindings": {}});
    let add = ctx.hwf([
        "triggers",
        "add",
        "pr-opened",
        "--workflow",
        "release-lane",
        "--source",
        "github",
        "--type",
        "pr.opened",
        "--payload",
        r#"{"action": "opened"}"#,
        "--args",
        &args.to_string(),
        "--json",
    ]);
    add.expect_code(0);
    let first = send(&ctx, "gh-delivery-1", "pr.opened", 7);
    let started = first["started"].as_array().expect("started").clone();
    assert_eq!(started.len(), 1, "{first}");
    assert_eq!(started[0]["new"], true);
    let run = started[0]["run_id"].as_str().expect("run id").to_owned();
    // The same delivery again (a webhook retry): recorded once, no second run.
    let again = send(&ctx, "gh-delivery-1", "pr.opened", 7);
    assert_eq!(again["new"], false);
    assert_eq!(
        again["started"],
        json!([{"trigger": "pr-opened", "run_id": run, "new": false}])
    );
    // Another type matches nothing.
    assert_eq!(send(&ctx, "gh-delivery-2", "pr.closed", 7)["started"], json!([]));
    assert_eq!(ctx.run_ids(), std::slice::from_ref(&run));
    // The queued run's args were rendered from the event.
    let s = ctx.hwf(["status", &run, "--json"]);
    let s = s.json()["data"].clone();
    assert_eq!(s["state"], "queued", "{s}");
    // The runner executes it with the lane's fixture.
    let fixture = path("harnesses/seed-event-driven-pr-validation-lane.fixture.json");
    let r = ctx.hwf(["runner", "--once", "--json", "--agents", &fixture]);
    r.expect_code(0);
    assert_eq!(r.json()["data"]["executed"], json!([[run, "succeeded"]]), "{r:?}");
    let s = ctx.hwf(["status", &run, "--json"]).json()["data"].clone();
    assert_eq!(
        s["result"]["outputs"]["validation_gates"]["branches"]["qa_gate"]["task_id"], "qa-7",
        "{s}"
    );
    let snap: Value = serde_json::from_str(
        &std::fs::read_to_string(ctx.state().join("runs").join(&run).join("run.json")).expect("run.json"),
    )
    .expect("snapshot");
    assert_eq!(snap["args"]["pr_number"], 7);
    assert_eq!(snap["args"]["repo"], "acme/app");
    assert_eq!(snap["args"]["trigger_event"]["id"], "gh-delivery-1");
    // A new delivery is a new run; the old one is not started again.
    let third = send(&ctx, "gh-delivery-3", "pr.opened", 8);
    assert_eq!(third["started"][0]["new"], true);
    assert_eq!(ctx.run_ids().len(), 2);
    // list / remove; then events start nothing.
    let listed = ctx.hwf(["triggers", "list", "--json"]).json()["data"]["triggers"].clone();
    assert_eq!(listed[0]["name"], "pr-opened");
    ctx.hwf(["triggers", "remove", "pr-opened"]).expect_code(0);
    ctx.hwf(["triggers", "remove", "pr-opened"]).expect_code(2);
    assert_eq!(send(&ctx, "gh-delivery-4", "pr.opened", 9)["started"], json!([]));
    // A trigger whose workflow is gone: the event is still recorded, the
    // failure is reported per trigger.
    let args = r#"{"repo": "$event.payload.repository"}"#;
    ctx.hwf([
        "triggers",
        "add",
        "gone",
        "--workflow",
        "release-lane",
        "--source",
        "github",
        "--args",
        args,
    ])
    .expect_code(0);
    std::fs::remove_dir_all(ctx.state().join("scripts/release-lane")).expect("rm script");
    let v = send(&ctx, "gh-delivery-5", "pr.opened", 10);
    assert_eq!(
        (&v["new"], &v["started"][0]["trigger"]),
        (&json!(true), &json!("gone")),
        "{v}"
    );
    assert_eq!(v["started"][0]["error"]["code"], "not_found", "{v}");
}

#[test]
fn bad_triggers_are_refused_with_typed_errors() {
    let ctx = Ctx::new();
    ctx.hwf(["script", "save", "hello-json", &path("harnesses/hello.workflow.json")])
        .expect_code(0);
    let add = |extra: &[&str]| {
        let mut a = vec!["triggers", "add", "t1", "--workflow", "hello-json", "--json"];
        a.extend_from_slice(extra);
        ctx.hwf(a)
    };
    let refused = |out: crate::common::Run, needle: &str| {
        out.expect_code(2);
        assert!(out.stdout.contains(needle), "{out:?}");
    };
    refused(add(&[]), "an event pattern");
    refused(add(&["--cron", "61 * * * *"]), "outside 0-59");
    refused(add(&["--cron", "* * * *"]), "five fields");
    add(&["--cron", "* * * * *", "--source", "x"]).expect_code(2);
    add(&["--source", "x", "--args", "{nope"]).expect_code(2);
    ctx.hwf(["triggers", "add", "t1", "--workflow", "nobody", "--source", "x"])
        .expect_code(2);
    ctx.hwf(["triggers", "add", "../up", "--workflow", "hello-json", "--source", "x"])
        .expect_code(2);
    assert_eq!(
        ctx.hwf(["triggers", "list", "--json"]).json()["data"]["triggers"],
        json!([])
    );
}

#[test]
fn a_cron_trigger_starts_one_run_per_minute_from_the_runner() {
    let ctx = Ctx::new();
    ctx.hwf(["script", "save", "hello-json", &path("harnesses/hello.workflow.json")])
        .expect_code(0);
    ctx.hwf([
        "triggers",
        "add",
        "every-minute",
        "--workflow",
        "hello-json",
        "--cron",
        "* * * * *",
        "--args",
        r#"{"name": "world"}"#,
    ])
    .expect_code(0);
    let minute = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_secs()
            / 60
    };
    let fixture = path("harnesses/hello/fixture.json");
    let before = minute();
    let r = ctx.hwf(["runner", "--once", "--json", "--agents", &fixture]);
    r.expect_code(0);
    let executed = r.json()["data"]["executed"].clone();
    assert_eq!(executed.as_array().map(Vec::len), Some(1), "{r:?}");
    assert_eq!(executed[0][1], "succeeded");
    // Another pass: nothing new within the same minute (at most one more
    // when the minute turned meanwhile).
    let r = ctx.hwf(["runner", "--once", "--json", "--agents", &fixture]);
    r.expect_code(0);
    let more = r.json()["data"]["executed"].as_array().map_or(0, Vec::len);
    if minute() == before {
        assert_eq!(more, 0, "{r:?}");
    }
    assert!(more <= 1, "{r:?}");
    assert_eq!(ctx.run_ids().len(), 1 + more);
    // `--run` passes (a background runner for one run) never fire cron.
    let r = ctx.hwf(["runner", "--once", "--json", "--run", &ctx.run_ids()[0]]);
    r.expect_code(0);
    assert_eq!(ctx.run_ids().len(), 1 + more);
}

/// POST a signed GitHub webhook to `hwf serve` at `addr`; the JSON answer.
fn github_hook(addr: &str, secret: &str, body: &str, delivery: &str) -> Value {
    use std::io::{Read as _, Write as _};
    let sig = hwf_host::serve::hooks::sign(secret.as_bytes(), body.as_bytes());
    let request = format!(
        "POST /hooks/github HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nX-Hub-Signature-256: {sig}\r\n\
         X-GitHub-Event: pull_request\r\nX-GitHub-Delivery: {delivery}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .expect("timeout");
    s.write_all(request.as_bytes()).expect("write");
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    assert!(head.starts_with("HTTP/1.1 200"), "{text}");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn a_webhook_delivered_twice_starts_one_run() {
    use std::io::BufRead as _;
    let ctx = Ctx::new();
    ctx.hwf(["script", "save", "hello-json", &path("harnesses/hello.workflow.json")])
        .expect_code(0);
    ctx.hwf([
        "triggers",
        "add",
        "on-pr",
        "--workflow",
        "hello-json",
        "--source",
        "github",
        "--type",
        "pull_request.opened",
        "--args",
        r#"{"name": "$event.subject"}"#,
    ])
    .expect_code(0);
    let secret = "whsec-triggers-0123456789abcdef";
    let mut child = ctx
        .cmd()
        .args(["serve", "--port", "0", "--token", "tok-triggers-0123456789"])
        .env("HWF_WEBHOOK_SECRET_GITHUB", secret)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("hwf serve");
    let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("banner");
    let addr = line
        .split("http://")
        .nth(1)
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .trim()
        .trim_end_matches('/')
        .to_owned();
    std::thread::spawn(move || {
        let mut sink = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut sink);
    });
    let body = json!({"action": "opened", "number": 7, "repository": {"full_name": "acme/app"}}).to_string();
    let first = github_hook(&addr, secret, &body, "delivery-1");
    let again = github_hook(&addr, secret, &body, "delivery-1");
    let _ = child.kill();
    let _ = child.wait();
    let started = &first["data"]["started"];
    assert_eq!(
        (&started[0]["trigger"], &started[0]["new"]),
        (&json!("on-pr"), &json!(true)),
        "{first}"
    );
    assert_eq!(again["data"]["started"][0]["new"], false, "{again}");
    assert_eq!(again["data"]["started"][0]["run_id"], started[0]["run_id"]);
    assert_eq!(ctx.run_ids().len(), 1);
    let run = started[0]["run_id"].as_str().expect("run id");
    let snap: Value = serde_json::from_str(
        &std::fs::read_to_string(ctx.state().join("runs").join(run).join("run.json")).expect("run.json"),
    )
    .expect("snapshot");
    assert_eq!(snap["args"], json!({"name": "acme/app#7"}));
}

/// Issue 29, finding 9: a trigger with no source derived its run id from
/// the event id alone, so another source's event with the same id (a CI
/// system's `42` before GitHub's `42`) took the run id and the real event
/// started nothing. Event ids are unique per source: each starts its run.
#[test]
fn events_from_two_sources_with_one_id_each_start_their_run() {
    let ctx = Ctx::manual_runner();
    ctx.write(
        "note.js",
        "export const meta = { name: \"note\", description: \"records the event\" };\nreturn { source: args.source };\n",
    );
    ctx.hwf(["script", "save", "note", "note.js"]).expect_code(0);
    ctx.hwf([
        "triggers",
        "add",
        "any-push",
        "--workflow",
        "note",
        "--type",
        "push",
        "--args",
        r#"{"source": "$event.source"}"#,
    ])
    .expect_code(0);
    let sent = |source: &str| {
        let out = ctx.hwf([
            "events", "send", "--source", source, "--type", "push", "--id", "42", "--json",
        ]);
        out.expect_code(0);
        out.json()["data"]["started"][0].clone()
    };
    let ci = sent("ci");
    let gh = sent("github");
    assert_eq!((&ci["new"], &gh["new"]), (&json!(true), &json!(true)), "{ci} {gh}");
    assert_ne!(ci["run_id"], gh["run_id"]);
    // The same source's event again is still the same run.
    assert_eq!(
        sent("github"),
        json!({"trigger": "any-push", "run_id": gh["run_id"], "new": false})
    );
    ctx.hwf(["runner", "--once"]).expect_code(0);
    for (started, source) in [(&ci, "ci"), (&gh, "github")] {
        let s = ctx
            .hwf(["status", started["run_id"].as_str().expect("id"), "--json"])
            .json()["data"]
            .clone();
        assert_eq!(s["result"]["source"], source, "{s}");
    }
}
