//! The broker as a policy boundary, through the probe harness and the real
//! binary: every check in order, built-in capabilities, budgets, agent
//! types, transcripts, and a whole-state-dir secret scan.

use crate::common::{Ctx, harnesses};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Run the probe's `cap` op with one capability call and extra CLI flags;
/// returns the probe's `{"ok"}` / `{"error"}` outcome.
fn cap(ctx: &Ctx, call: Value, flags: &[&str]) -> Value {
    let mut args = call;
    args["op"] = json!("cap");
    let out = ctx.run_json(harnesses::PROBE, &args.to_string(), flags);
    out.expect_code(0);
    let data = out.json()["data"].clone();
    match data["result_path"].as_str() {
        // Large results are spilled; read the whole thing.
        Some(p) => serde_json::from_slice(&std::fs::read(ctx.state().join(p)).expect("result.json")).expect("json"),
        None => data["result"].clone(),
    }
}

#[track_caller]
fn assert_error(outcome: &Value, code: &str, kind: &str) {
    assert_eq!(outcome["error"]["code"], code, "{outcome}");
    assert_eq!(outcome["error"]["kind"], kind, "{outcome}");
}

const WRITE: &[&str] = &["--allow-class", "external_write"];

#[test]
fn unknown_capability() {
    let ctx = Ctx::new();
    assert_error(
        &cap(&ctx, json!({"name": "nope", "input": {}}), &[]),
        "unknown_capability",
        "Denied",
    );
    assert_error(
        &cap(&ctx, json!({"name": "bad name!", "input": {}}), &[]),
        "unknown_capability",
        "Denied",
    );
}

#[test]
fn side_effect_denied_by_default() {
    let ctx = Ctx::new();
    let r = cap(&ctx, json!({"name": "bash", "input": {"argv": ["true"]}}), &[]);
    assert_error(&r, "side_effect_denied", "Denied");
    let r = cap(
        &ctx,
        json!({"name": "fs.write", "input": {"path": "x", "content": "y"}}),
        &[],
    );
    assert_error(&r, "side_effect_denied", "Denied");
    assert!(!ctx.dir.path().join("x").exists());
}

#[test]
fn capability_denied_by_name() {
    let ctx = Ctx::new();
    let r = cap(
        &ctx,
        json!({"name": "bash", "input": {"argv": ["true"]}}),
        &["--allow", "fs.*", "--allow-class", "external_write"],
    );
    assert_error(&r, "capability_denied", "Denied");
    let r = cap(&ctx, json!({"name": "fs.list", "input": {}}), &["--allow", "fs.*"]);
    assert!(r["ok"]["entries"].is_array(), "{r}");
}

#[test]
fn approval_required_without_and_with_a_pre_approved_id() {
    let ctx = Ctx::new();
    let call = json!({"name": "bash", "input": {"argv": ["echo", "hello"]}});
    // Without an approved id the run parks (exit 3) on an approval wait.
    let mut args = call.clone();
    args["op"] = json!("cap");
    let out = ctx.run_json(harnesses::PROBE, &args.to_string(), WRITE);
    out.expect_code(3);
    let waits = &out.json()["data"]["waits"];
    assert_eq!(waits[0]["kind"], "approval", "{waits}");
    assert_eq!(waits[0]["call"], "1");
    // In deny mode the harness gets a typed, catchable error instead.
    let cfg = ctx.write(
        "deny.toml",
        "[policy]\non_approval_required = \"deny\"\nallowed_classes = [\"read_only\", \"external_write\"]\n",
    );
    let r = cap(&ctx, call.clone(), &["--config", cfg.to_str().expect("utf8")]);
    assert_error(&r, "approval_required", "ApprovalRequired");
    let mut with_id = call.clone();
    with_id["approval_id"] = json!("rel-42");
    let r = cap(&ctx, with_id.clone(), &["--config", cfg.to_str().expect("utf8")]);
    assert_error(&r, "approval_required", "ApprovalRequired");
    let r = cap(
        &ctx,
        with_id,
        &["--allow-class", "external_write", "--approval-id", "rel-42"],
    );
    assert_eq!(r["ok"]["exit_code"], 0, "{r}");
    assert_eq!(r["ok"]["stdout"], "hello\n");
}

#[test]
fn credentials_in_requests_are_refused() {
    let ctx = Ctx::new();
    let flags = ["--allow-class", "external_write", "--approval-id", "a"];
    let r = cap(
        &ctx,
        json!({"name": "bash", "approval_id": "a", "input": {"argv": ["curl", "-H", "Authorization: Bearer abcdef0123456789"]}}),
        &flags,
    );
    assert_error(&r, "credential_in_request", "Denied");
    let r = cap(
        &ctx,
        json!({"name": "bash", "approval_id": "a", "input": {"argv": ["env"], "env": {"GITHUB_TOKEN": "x"}}}),
        &flags,
    );
    assert_error(&r, "credential_in_request", "Denied");
    let r = cap(
        &ctx,
        json!({"name": "fs.read", "input": {"path": "sk-abcdefghijklmnopqrstu"}}),
        &[],
    );
    assert_error(&r, "credential_in_request", "Denied");
}

#[test]
fn bash_runs_argv_in_the_workspace_with_a_clean_env() {
    let ctx = Ctx::new();
    std::fs::create_dir_all(ctx.path("ws/sub")).expect("mkdir");
    let ws = ctx.path("ws");
    let flags = [
        "--allow-class",
        "external_write",
        "--approval-id",
        "a",
        "--workspace",
        ws.to_str().expect("utf8"),
    ];
    let r = cap(
        &ctx,
        json!({"name": "bash", "approval_id": "a", "input": {"argv": ["pwd"], "cwd": "sub"}}),
        &flags,
    );
    assert!(
        r["ok"]["stdout"]
            .as_str()
            .expect("stdout")
            .trim_end()
            .ends_with("ws/sub"),
        "{r}"
    );
    let r = cap(
        &ctx,
        json!({"name": "bash", "approval_id": "a", "input": {"argv": ["env"], "env": {"LANG": "C"}}}),
        &flags,
    );
    let env = r["ok"]["stdout"].as_str().expect("stdout");
    assert!(env.contains("LANG=C") && !env.contains("HWF_STATE_DIR"), "{env}");
    let r = cap(
        &ctx,
        json!({"name": "bash", "approval_id": "a", "input": {"argv": ["sh", "-c", "echo out; echo err >&2; exit 3"]}}),
        &flags,
    );
    assert_eq!(
        (r["ok"]["exit_code"].clone(), r["ok"]["stderr"].clone()),
        (json!(3), json!("err\n")),
        "{r}"
    );
    // Bad inputs name the problem.
    for (input, needle) in [
        (json!({"argv": "ls -la"}), "not a shell string"),
        (json!({"argv": []}), "argv"),
        (json!({"argv": ["ls"], "cwd": "../.."}), "cwd"),
        (json!({"argv": ["ls"], "env": {"LD_PRELOAD": "x"}}), "allow-list"),
        (json!({"argv": ["definitely-not-a-command-hwf"]}), "cannot start"),
    ] {
        let r = cap(
            &ctx,
            json!({"name": "bash", "approval_id": "a", "input": input}),
            &flags,
        );
        let msg = r["error"]["message"].as_str().unwrap_or_default();
        assert!(msg.contains(needle), "{needle}: {r}");
    }
}

#[test]
fn bash_timeout_kills_the_command() {
    use crate::claims::{wait_gone, wait_pid_file};
    let ctx = Ctx::new();
    std::fs::create_dir_all(ctx.path("ws")).expect("mkdir");
    let ws = ctx.path("ws");
    let flags = [
        "--allow-class",
        "external_write",
        "--approval-id",
        "a",
        "--workspace",
        ws.to_str().expect("utf8"),
    ];
    // The shell backgrounds a grandchild and waits: the timeout must kill
    // the whole process group, not just the shell. (The timeout only has
    // to be longer than starting `sh`; nothing here races it.)
    // Pids as the host sees them (the command has a PID namespace of its
    // own): read from /proc/self/stat by the shell itself.
    let script = "sh -c 'read -r p r < /proc/self/stat; echo $p > grandchild.pid; exec sleep 100' & read -r p r < /proc/self/stat; echo $p > child.pid; wait";
    let t = Instant::now();
    let r = cap(
        &ctx,
        json!({"name": "bash", "approval_id": "a", "input": {"argv": ["sh", "-c", script], "timeout_ms": 2000}}),
        &flags,
    );
    assert_error(&r, "capability_timeout", "TimedOut");
    // The call returned without waiting for the 100 s grandchild (which
    // holds the output pipes open).
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    let sh = wait_pid_file(&ws.join("child.pid"));
    let sleep = wait_pid_file(&ws.join("grandchild.pid"));
    wait_gone(sh, "sh");
    wait_gone(sleep, "sleep");
}

#[test]
fn long_output_is_clipped_and_big_results_refused() {
    let ctx = Ctx::new();
    let flags = ["--allow-class", "external_write", "--approval-id", "a"];
    let r = cap(
        &ctx,
        json!({"name": "bash", "approval_id": "a", "input": {"argv": ["seq", "1", "20000"]}}),
        &flags,
    );
    assert_eq!(r["ok"]["stdout_truncated"], true, "{r}");
    assert_eq!(r["ok"]["stdout"].as_str().expect("stdout").len(), 8192);
    ctx.write("big.txt", "z".repeat(100_000));
    let r = cap(&ctx, json!({"name": "fs.read", "input": {"path": "big.txt"}}), &[]);
    assert_error(&r, "result_too_large", "Denied");
}

#[test]
fn fs_is_confined_to_the_workspace() {
    let ctx = Ctx::new();
    std::fs::create_dir_all(ctx.path("ws")).expect("mkdir");
    ctx.write("outside.txt", "outside");
    ctx.write("ws/inside.txt", "inside");
    std::os::unix::fs::symlink(ctx.path("outside.txt"), ctx.path("ws/link.txt")).expect("symlink");
    let ws = ctx.path("ws");
    let w = ["--workspace", ws.to_str().expect("utf8")];
    let r = cap(&ctx, json!({"name": "fs.read", "input": {"path": "inside.txt"}}), &w);
    assert_eq!(r["ok"]["content"], "inside");
    for path in ["../outside.txt", "/etc/passwd", "link.txt"] {
        let r = cap(&ctx, json!({"name": "fs.read", "input": {"path": path}}), &w);
        assert!(r["error"].is_object() && r["ok"].is_null(), "{path}: {r}");
    }
    // A FIFO would block the run: refused.
    let fifo = ctx.path("ws/pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let r = cap(&ctx, json!({"name": "fs.read", "input": {"path": "pipe"}}), &w);
    assert!(
        r["error"]["message"]
            .as_str()
            .expect("message")
            .contains("not a regular file"),
        "{r}"
    );
    std::fs::remove_file(&fifo).expect("rm fifo");
    let r = cap(&ctx, json!({"name": "fs.list", "input": {"path": "."}}), &w);
    let names: Vec<&str> = r["ok"]["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(names, ["inside.txt", "link.txt"]);
    let flags = [
        "--workspace",
        ws.to_str().expect("utf8"),
        "--allow-class",
        "external_write",
        "--approval-id",
        "a",
    ];
    let r = cap(
        &ctx,
        json!({"name": "fs.write", "approval_id": "a", "input": {"path": "new/out.txt", "content": "hi", "create_dirs": true}}),
        &flags,
    );
    assert_eq!(r["ok"]["bytes"], 2, "{r}");
    assert_eq!(
        std::fs::read_to_string(ctx.path("ws/new/out.txt")).expect("written"),
        "hi"
    );
    let r = cap(
        &ctx,
        json!({"name": "fs.write", "approval_id": "a", "input": {"path": "../escape.txt", "content": "x"}}),
        &flags,
    );
    assert!(r["error"].is_object(), "{r}");
    assert!(!ctx.path("escape.txt").exists());
}

#[test]
fn capability_budget() {
    let ctx = Ctx::new();
    let calls: Vec<Value> = (0..3).map(|_| json!({"name": "fs.list", "input": {}})).collect();
    let out = ctx.run_json(
        harnesses::PROBE,
        &json!({"op": "caps", "calls": calls}).to_string(),
        &["--config", "c.toml"],
    );
    // No config file yet: bad input.
    out.expect_code(2);
    ctx.write("c.toml", "[limits]\nmax_capability_calls = 2\n");
    let out = ctx.run_json(
        harnesses::PROBE,
        &json!({"op": "caps", "calls": calls}).to_string(),
        &["--config", "c.toml"],
    );
    out.expect_code(0);
    let r = out.json()["data"]["result"].clone();
    assert!(r[0]["ok"].is_object() && r[1]["ok"].is_object(), "{r}");
    assert_error(&r[2], "limit_capability", "BudgetExhausted");
}

fn work_fixture(ctx: &Ctx) -> String {
    ctx.write(
        "work.json",
        r#"{"responses": [{"match": {"label": "work"}, "output": {"done": true}, "tokens": 10}]}"#,
    )
    .to_str()
    .expect("utf8")
    .to_owned()
}

#[test]
fn token_budget_is_catchable() {
    let ctx = Ctx::new();
    let f = work_fixture(&ctx);
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"agents_until_exhausted"}"#,
        &["--agents", &f, "--max-tokens", "25"],
    );
    out.expect_code(0);
    let r = &out.json()["data"]["result"];
    assert_eq!(r["done"], 3, "{r}");
    assert_eq!(r["error"], "token_budget");
    assert_eq!(r["kind"], "BudgetExhausted");
    assert_eq!(
        (r["tokens_spent"].clone(), r["token_total"].clone()),
        (json!(30), json!(25))
    );
}

#[test]
fn agent_call_budget_is_catchable() {
    let ctx = Ctx::new();
    let f = work_fixture(&ctx);
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"agents_until_exhausted"}"#,
        &["--agents", &f, "--max-agent-calls", "2"],
    );
    out.expect_code(0);
    let r = &out.json()["data"]["result"];
    assert_eq!(
        (r["done"].clone(), r["error"].clone(), r["agent_calls_left"].clone()),
        (json!(2), json!("limit_agent"), json!(0))
    );
}

#[test]
fn usage_tokens_in_agent_output_count() {
    let ctx = Ctx::new();
    let f = ctx.write(
        "u.json",
        r#"{"responses": [{"match": {"label": "work"}, "output": {"done": true, "_tokens": 7}}]}"#,
    );
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"agents_until_exhausted"}"#,
        &["--agents", f.to_str().expect("utf8"), "--max-tokens", "20"],
    );
    let r = &out.json()["data"]["result"];
    assert_eq!(
        (r["done"].clone(), r["tokens_spent"].clone()),
        (json!(3), json!(21)),
        "{r}"
    );
}

#[test]
fn agent_types_resolve_or_fail_closed() {
    let ctx = Ctx::new();
    std::fs::create_dir_all(ctx.path(".hermes/agents")).expect("mkdir");
    ctx.write(
        ".hermes/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews\nmodel: big-model\n---\nYou review code carefully.\n",
    );
    ctx.write(
        ".hermes/agents/broken.md",
        "---\nname: broken\ndescription: x\napi_key: sk-abcdefghijklmnopqrstuvwx\n---\nbody\n",
    );
    let f = ctx.write(
        "f.json",
        r#"{"responses": [{"match": {"label": "typed"}, "output": {"ok": 1}}]}"#,
    );
    let f = f.to_str().expect("utf8");
    let run = |t: Option<&str>| {
        let args = match t {
            Some(t) => json!({"op": "typed_agent", "agent_type": t}),
            None => json!({"op": "typed_agent"}),
        };
        let out = ctx.run_json(harnesses::PROBE, &args.to_string(), &["--agents", f]);
        out.expect_code(0);
        out.json()["data"].clone()
    };
    let ok = run(Some("reviewer"));
    assert_eq!(ok["result"]["ok"], json!({"ok": 1}));
    // One line per agent call in the run's transcripts.jsonl.
    let lines = std::fs::read_to_string(
        ctx.state()
            .join("runs")
            .join(ok["run_id"].as_str().expect("id"))
            .join("transcripts.jsonl"),
    )
    .expect("transcripts");
    let transcripts: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(transcripts.len(), 1, "{lines}");
    let transcript = &transcripts[0];
    assert_eq!(transcript["call"], "1");
    assert_eq!(transcript["agent_type"], "reviewer");
    assert_eq!(transcript["result_keys"], json!(["ok"]));
    assert_eq!(transcript["state"], "done");
    assert!(transcript.get("prompt").is_none(), "metadata only");
    assert_eq!(
        run(None)["result"]["ok"],
        json!({"ok": 1}),
        "bare prompt agents are general-purpose"
    );
    let unknown = run(Some("nobody"));
    assert_eq!(unknown["result"]["error"]["code"], "invalid_agent_type");
    let broken = run(Some("broken"));
    let msg = broken["result"]["error"]["message"].as_str().expect("message");
    assert!(msg.contains("malformed") && !msg.contains("sk-abc"), "{msg}");
    let unsafe_name = run(Some("../../etc/passwd"));
    assert_eq!(unsafe_name["result"]["error"]["code"], "invalid_agent_type");
}

#[test]
fn planted_secrets_never_appear_in_state_or_output() {
    let ctx = Ctx::new();
    let s_args = "ghp_ARGSARGSARGSARGSARGS0123";
    let s_agent = "sk-agentAGENTagent0123456789";
    let s_stdout = "glpat-stdoutSTDOUT0123";
    let s_stderr = "xoxb-stderr-0123456789";
    let s_file = "AKIAFILEFILEFILE0123";
    std::fs::create_dir_all(ctx.path("ws")).expect("mkdir");
    ctx.write("ws/secrets.env", format!("STDOUT_TOKEN={s_stdout}\n"));
    let fixture = ctx.write(
        "f.json",
        format!(r#"{{"responses": [{{"match": {{"label": "leaky"}}, "output": {{"text": "here: {s_agent}", "auth": "Bearer {s_agent}"}}}}]}}"#),
    );
    let bash = json!({"name": "bash", "approval_id": "a", "input": {"argv": ["sh", "-c", format!("cat secrets.env; echo {s_file}; echo password={s_stderr} >&2")]}});
    // The bash command line itself carries a secret-shaped value, so it is
    // refused; a second call reads the secrets from a file instead.
    let bash_file = json!({"name": "bash", "approval_id": "a", "input": {"argv": ["sh", "-c", "cat secrets.env; cat secrets.env >&2"]}});
    let ws = ctx.path("ws");
    let flags = [
        "--agents",
        fixture.to_str().expect("utf8"),
        "--allow-class",
        "external_write",
        "--approval-id",
        "a",
        "--workspace",
        ws.to_str().expect("utf8"),
    ];
    let mut outputs = String::new();
    for b in [&bash, &bash_file] {
        let args = json!({"op": "leak", "note": s_args, "api_key": s_args, "bash": b});
        let out = ctx.run_json(harnesses::PROBE, &args.to_string(), &flags);
        out.expect_code(1);
        let human = ctx.hwf([
            "run",
            harnesses::PROBE,
            "--args",
            &args.to_string(),
            "--agents",
            fixture.to_str().expect("utf8"),
        ]);
        for o in [&out, &human] {
            outputs.push_str(&o.stdout);
            outputs.push_str(&o.stderr);
        }
        let id = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
        outputs.push_str(&ctx.hwf(["status", &id]).stdout);
        outputs.push_str(&ctx.hwf(["status", &id, "--json"]).stdout);
    }
    outputs.push_str(&ctx.hwf(["overview"]).stdout);
    outputs.push_str(&ctx.hwf(["overview", "--json"]).stdout);
    let state = ctx.all_state_text();
    assert!(state.contains("[REDACTED]"));
    for secret in [s_args, s_agent, s_stdout, s_stderr, s_file] {
        assert!(!state.contains(secret), "{secret} is in the state dir");
        assert!(!outputs.contains(secret), "{secret} is in CLI output");
    }
}
