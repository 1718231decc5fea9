//! The policy gaps of issue 13, through the real binary: a hard link in the
//! workspace does not let `fs.write` change a file outside it, an approval
//! id approves the request it is bound to (not any command), and a guest's
//! `model` / `effort` cannot smuggle flags into a command agent's argv.

use crate::common::{Ctx, harnesses};
use serde_json::{Value, json};

/// The probe's `caps` op: capability calls in order, in one run; returns
/// the run's envelope.
fn caps(ctx: &Ctx, calls: &[Value], flags: &[&str]) -> crate::common::Run {
    let args = json!({"op": "caps", "calls": calls});
    ctx.run_json(harnesses::PROBE, &args.to_string(), flags)
}

fn outcomes(run: &crate::common::Run) -> Vec<Value> {
    run.expect_code(0);
    run.json()["data"]["result"].as_array().cloned().expect("outcomes")
}

fn bash(id: &str, script: &str) -> Value {
    json!({"name": "bash", "approval_id": id, "input": {"argv": ["sh", "-c", script]}})
}

/// The 16 hex digits an `approval_required` message offers for a grant.
fn offered_fingerprint(message: &str) -> String {
    let at = message
        .find("--approval-id ID=bash:")
        .expect("the message offers a grant")
        + 22;
    message[at..at + 16].to_owned()
}

#[test]
fn fs_write_refuses_a_hard_link_to_a_file_outside_the_workspace() {
    let ctx = Ctx::new();
    let ws = ctx.path("ws");
    std::fs::create_dir_all(&ws).expect("mkdir");
    let outside = ctx.write("outside.txt", "precious\n");
    std::fs::hard_link(&outside, ws.join("link.txt")).expect("hard link");
    ctx.write("ws/plain.txt", "old");
    let flags = [
        "--workspace",
        ws.to_str().expect("utf8"),
        "--allow-class",
        "external_write",
        "--approval-id",
        "w=fs.write",
    ];
    let write = |path: &str, append: bool| json!({"name": "fs.write", "approval_id": "w", "input": {"path": path, "content": "pwned", "append": append}});
    let out = outcomes(&caps(
        &ctx,
        &[
            write("link.txt", false),
            write("link.txt", true),
            write("plain.txt", false),
            write("new.txt", false),
        ],
        &flags,
    ));
    for (i, o) in out[..2].iter().enumerate() {
        assert_eq!(o["error"]["code"], "invalid_input", "write {i}: {o}");
        assert!(
            o["error"]["message"].as_str().unwrap_or("").contains("hard links"),
            "{o}"
        );
    }
    assert_eq!(std::fs::read_to_string(&outside).expect("outside"), "precious\n");
    // Ordinary files are still written (truncated), and new ones created.
    assert_eq!(out[2]["ok"]["bytes"], 5, "{}", out[2]);
    assert_eq!(std::fs::read_to_string(ws.join("plain.txt")).expect("plain"), "pwned");
    assert_eq!(std::fs::read_to_string(ws.join("new.txt")).expect("new"), "pwned");
}

#[test]
fn a_plain_approval_id_approves_the_one_request_it_is_bound_to() {
    let ctx = Ctx::new();
    let ws = ctx.path("ws");
    std::fs::create_dir_all(&ws).expect("mkdir");
    let cfg = ctx.write(
        "deny.toml",
        "[policy]\non_approval_required = \"deny\"\nallowed_classes = [\"read_only\", \"external_write\"]\napproved_ids = [\"a\"]\n",
    );
    let flags = [
        "--config",
        cfg.to_str().expect("utf8"),
        "--workspace",
        ws.to_str().expect("utf8"),
    ];
    // The documented use: one id, one command (also when it is repeated).
    let out = outcomes(&caps(
        &ctx,
        &[bash("a", "echo ok"), bash("a", "touch pwned"), bash("a", "echo ok")],
        &flags,
    ));
    assert_eq!(out[0]["ok"]["stdout"], "ok\n", "{}", out[0]);
    assert_eq!(out[1]["error"]["code"], "approval_required", "{}", out[1]);
    assert_eq!(out[2]["ok"]["stdout"], "ok\n", "{}", out[2]);
    assert!(!ws.join("pwned").exists(), "a pre-approved id ran another command");
    // Another run gets its own binding: the id is bound to its run.
    let out = outcomes(&caps(&ctx, &[bash("a", "echo other")], &flags));
    assert_eq!(out[0]["ok"]["stdout"], "other\n", "{}", out[0]);

    // The refusal offers the request's fingerprint; a grant of exactly that
    // request approves it and nothing else; a name scope approves every call
    // of that capability.
    let message = caps(&ctx, &[bash("a", "echo first"), bash("a", "echo second")], &flags);
    let message = outcomes(&message)[1]["error"]["message"]
        .as_str()
        .expect("message")
        .to_owned();
    let fp = offered_fingerprint(&message);
    let exact = format!("x=bash:{fp}");
    let flags_exact = [
        "--config",
        cfg.to_str().expect("utf8"),
        "--workspace",
        ws.to_str().expect("utf8"),
        "--approval-id",
        &exact,
        "--approval-id",
        "all=bash",
    ];
    let out = outcomes(&caps(
        &ctx,
        &[
            bash("x", "echo second"),
            bash("x", "echo first"),
            bash("all", "echo one"),
            bash("all", "echo two"),
        ],
        &flags_exact,
    ));
    assert_eq!(out[0]["ok"]["stdout"], "second\n", "{}", out[0]);
    assert_eq!(out[1]["error"]["code"], "approval_required", "{}", out[1]);
    assert_eq!(out[2]["ok"]["stdout"], "one\n", "{}", out[2]);
    assert_eq!(out[3]["ok"]["stdout"], "two\n", "{}", out[3]);
}

#[test]
fn a_continued_run_keeps_the_binding_of_its_plain_approval_id() {
    let ctx = Ctx::manual_runner();
    let ws = ctx.path("ws");
    std::fs::create_dir_all(&ws).expect("mkdir");
    let ask = json!({"name": "human.ask", "input": {"prompt": "go on?"}});
    let flags = [
        "--allow-class",
        "external_write",
        "--approval-id",
        "a",
        "--workspace",
        ws.to_str().expect("utf8"),
    ];
    // `a` binds to `echo one`; the run parks on the question.
    let run = caps(
        &ctx,
        &[bash("a", "echo one >> log"), ask, bash("a", "touch pwned")],
        &flags,
    );
    run.expect_code(3);
    let id = run.json()["data"]["run_id"].as_str().expect("id").to_owned();
    ctx.hwf(["control", "decide", &id, "2", "respond", "--value", "true"])
        .expect_code(0);
    // The continuation replays `echo one` and must not let `a` bind anew:
    // the other command parks for an approval of its own.
    let r = ctx.hwf(["runner", "--once", "--json"]);
    r.expect_code(0);
    let s = ctx.hwf(["status", &id, "--json"]);
    s.expect_code(0);
    let s = s.json()["data"].clone();
    assert_eq!(s["state"], "waiting", "{s}");
    assert_eq!(s["waits"][0]["kind"], "approval", "{s}");
    assert_eq!(s["waits"][0]["call"], "3", "{s}");
    assert!(!ws.join("pwned").exists(), "the continuation re-bound the id");
    assert_eq!(std::fs::read_to_string(ws.join("log")).expect("log"), "one\n");
}

/// A command agent that records its argv, one argument a line.
const RECORDER: &str = r#"[agents.backends.cli]
kind = "command"
argv = ['sh', '-c', 'cat > /dev/null; printf "%s\n" "$@" >> argv.log; echo "{\"ok\": true}"', 'agent', '--model', '{model}', '--effort', '{effort}']
"#;

#[test]
fn guest_model_and_effort_cannot_become_command_agent_flags() {
    let ctx = Ctx::new();
    let cfg = ctx.write("hwf.toml", RECORDER);
    let script = ctx.write(
        "models.js",
        r#"export const meta = { name: "models", description: "model and effort from the guest" };
const bad = await agent("a", { label: "flag", model: "--dangerously-skip-permissions" });
const bad2 = await agent("b", { label: "effort", effort: "--yolo" });
const bad3 = await agent("c", { label: "spaces", model: "m --x" });
const good = await agent("d", { label: "good", model: "claude-sonnet-4-5", effort: "high" });
return { bad, bad2, bad3, good };
"#,
    );
    let out = ctx.run_json(
        script.to_str().expect("utf8"),
        "{}",
        &["--config", cfg.to_str().expect("utf8")],
    );
    out.expect_code(0);
    let data = out.json()["data"].clone();
    assert_eq!(
        data["result"],
        json!({"bad": null, "bad2": {"ok": true}, "bad3": null, "good": {"ok": true}}),
        "{data}"
    );
    let id = data["run_id"].as_str().expect("id");
    let codes: Vec<(String, String)> = ctx
        .journal(id)
        .iter()
        .filter(|e| e["type"] == "call_completed" && e["kind"] == "agent")
        .map(|e| {
            let msg = e["error"]["message"].as_str().unwrap_or("ok");
            (
                e["label"].as_str().unwrap_or("").to_owned(),
                msg.split(':').next().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let codes: std::collections::BTreeMap<_, _> = codes.into_iter().collect();
    assert_eq!(codes["flag"], "invalid_model", "{codes:?}");
    // JavaScript drops an effort Claude Code does not know (`--yolo`) before
    // the host sees it, as Claude Code does: the agent runs without one.
    assert_eq!(codes["effort"], "ok", "{codes:?}");
    assert_eq!(codes["spaces"], "invalid_model", "{codes:?}");
    assert_eq!(codes["good"], "ok", "{codes:?}");
    // Only the call without an effort (no flags: an empty line) and the good
    // call reached the agent, the good one with its values as arguments.
    let argv = std::fs::read_to_string(ctx.path("argv.log")).expect("argv.log");
    assert_eq!(argv, "\n--model\nclaude-sonnet-4-5\n--effort\nhigh\n", "{argv}");
}

fn js_run(ctx: &Ctx, name: &str, body: &str, flags: &[&str]) -> Value {
    let script = ctx.write(
        name,
        format!("export const meta = {{ name: \"fan\", description: \"a wide fan-out\" }};\n{body}"),
    );
    let fixture = ctx.write("any.json", r#"{"responses": [{"match": {}, "output": {"ok": 1}}]}"#);
    let mut all = vec!["--agents", fixture.to_str().expect("utf8")];
    all.extend_from_slice(flags);
    let out = ctx.run_json(script.to_str().expect("utf8"), "{}", &all);
    out.expect_code(0);
    out.json()["data"].clone()
}

#[test]
fn js_agents_are_bounded_by_max_agent_calls_not_a_fixed_1000() {
    let ctx = Ctx::new();
    let body = "const r = await parallel(Array.from({length: 1200}, (_, i) => () => agent(`task ${i}`)));\nreturn r.filter((x) => x !== null).length;";
    let d = js_run(&ctx, "wide.js", body, &["--max-agent-calls", "1500"]);
    assert_eq!(d["result"], 1200, "{d}");
    // Past the run's budget the host refuses (`limit_agent`), and parallel
    // yields null for those thunks.
    let d = js_run(&ctx, "wide2.js", body, &["--max-agent-calls", "1100"]);
    assert_eq!(d["result"], 1100, "{d}");
    let id = d["run_id"].as_str().expect("id");
    let refused = ctx
        .journal(id)
        .iter()
        .filter(|e| e["type"] == "call_completed" && e["kind"] == "agent")
        .filter(|e| {
            e["error"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("limit_agent"))
        })
        .count();
    assert_eq!(refused, 100);
}

#[test]
fn js_parallel_of_4096_thunks_that_throw_settles() {
    let ctx = Ctx::new();
    // Throws that unwind several frames (Boa leaves stack values behind for
    // each); the documented cap is 4 096 items.
    let body = "const deep = (i) => { if (i % 2) throw new Error(`no ${i}`); return [][0].boom; };\n\
                const mid = (i) => deep(i);\n\
                const r = await parallel(Array.from({length: 4096}, (_, i) => () => mid(i)));\n\
                let caught = 0;\n\
                for (let i = 0; i < 5000; i++) { try { mid(1); } catch (e) { caught++; } }\n\
                return [r.length, r.filter((x) => x === null).length, caught];";
    let d = js_run(&ctx, "throws.js", body, &[]);
    assert_eq!(d["result"], json!([4096, 4096, 5000]), "{d}");
    let body = "const r = await parallel(Array.from({length: 4096}, (_, i) => () => agent(`t ${i}`)));\nreturn r.filter((x) => x !== null).length;";
    let d = js_run(&ctx, "agents.js", body, &["--max-agent-calls", "5000"]);
    assert_eq!(d["result"], 4096, "{d}");
}

#[test]
fn a_command_backend_can_allow_list_models_and_efforts() {
    let ctx = Ctx::new();
    let cfg = ctx.write(
        "hwf.toml",
        format!("{RECORDER}allowed_models = [\"claude-*\"]\nallowed_efforts = [\"low\", \"high\"]\n"),
    );
    let script = ctx.write(
        "pick.js",
        r#"export const meta = { name: "pick", description: "models from an allow-list" };
const other = await agent("a", { label: "other", model: "gpt-4o" });
const effort = await agent("b", { label: "effort", model: "claude-x", effort: "max" });
const listed = await agent("c", { label: "listed", model: "claude-opus-4", effort: "low" });
return { other, effort, listed };
"#,
    );
    let out = ctx.run_json(
        script.to_str().expect("utf8"),
        "{}",
        &["--config", cfg.to_str().expect("utf8")],
    );
    out.expect_code(0);
    let data = out.json()["data"].clone();
    assert_eq!(
        data["result"],
        json!({"other": null, "effort": null, "listed": {"ok": true}}),
        "{data}"
    );
    let messages: Vec<String> = ctx
        .journal(data["run_id"].as_str().expect("id"))
        .iter()
        .filter(|e| e["type"] == "call_completed" && e["kind"] == "agent" && e["ok"] == false)
        .map(|e| e["error"]["message"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages[0].contains("invalid_model") && messages[0].contains("allowed"),
        "{messages:?}"
    );
    assert!(messages[1].contains("invalid_effort"), "{messages:?}");
    let argv = std::fs::read_to_string(ctx.path("argv.log")).expect("argv.log");
    assert_eq!(argv, "--model\nclaude-opus-4\n--effort\nlow\n", "{argv}");
}

/// Issue 29, finding 8: `fs.read` followed a hard link out of the
/// workspace (`fs.write` was fixed); now both refuse a file with more than
/// one link, and a plain file is still read.
#[test]
fn fs_read_refuses_a_hard_link_to_a_file_outside_the_workspace() {
    let ctx = Ctx::new();
    let ws = ctx.path("ws");
    std::fs::create_dir_all(&ws).expect("mkdir");
    let outside = ctx.write("id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n");
    std::fs::hard_link(&outside, ws.join("notes.txt")).expect("hard link");
    ctx.write("ws/plain.txt", "hello");
    let read = |path: &str| json!({"name": "fs.read", "input": {"path": path}});
    let out = outcomes(&caps(
        &ctx,
        &[read("notes.txt"), read("plain.txt")],
        &["--workspace", ws.to_str().expect("utf8")],
    ));
    assert_eq!(out[0]["error"]["code"], "invalid_input", "{}", out[0]);
    assert!(
        out[0]["error"]["message"].as_str().unwrap_or("").contains("hard links"),
        "{}",
        out[0]
    );
    assert!(!out[0].to_string().contains("secret"), "{}", out[0]);
    assert_eq!(out[1]["ok"]["content"], "hello", "{}", out[1]);
}

/// Issue 29, finding 6: with the default workspace (the directory `hwf
/// run` starts in, e.g. `$HOME`) containing the state dir, a workflow read
/// the console token with `fs.read` and it landed in the run's journal and
/// output. The state dir (by any path: directly, through a symlink) is out
/// of reach of `fs.read`, `fs.list`, `fs.write` and `bash`'s cwd, and the
/// stored token is redacted wherever a command prints it.
#[test]
fn the_state_dir_is_out_of_reach_of_a_workspace_that_contains_it() {
    let ctx = Ctx::new();
    // The test dir is the workspace (the run's cwd) and holds the state dir.
    std::fs::create_dir_all(ctx.state()).expect("state");
    let token = "k7qv2m9x4p8r1t6w3z5y0b2n";
    std::fs::write(ctx.state().join("console-token"), token).expect("token");
    std::os::unix::fs::symlink("state", ctx.path("innocent")).expect("symlink");
    ctx.write("plain.txt", "hello");
    let out = caps(
        &ctx,
        &[
            json!({"name": "fs.read", "input": {"path": "state/console-token"}}),
            json!({"name": "fs.read", "input": {"path": "innocent/console-token"}}),
            json!({"name": "fs.list", "input": {"path": "innocent"}}),
            json!({"name": "fs.write", "approval_id": "w", "input": {"path": "state/planted.txt", "content": "x"}}),
            json!({"name": "bash", "approval_id": "b", "input": {"argv": ["ls"], "cwd": "innocent"}}),
            bash("b2", "cat state/console-token"),
            json!({"name": "fs.read", "input": {"path": "plain.txt"}}),
        ],
        &[
            "--allow-class",
            "external_write",
            "--approval-id",
            "w=fs.write",
            "--approval-id",
            "b=bash",
            "--approval-id",
            "b2=bash",
        ],
    );
    let out = outcomes(&out);
    for (i, o) in out[..5].iter().enumerate() {
        assert_eq!(o["error"]["code"], "invalid_input", "call {i}: {o}");
        assert!(
            o["error"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("state or cache directory"),
            "call {i}: {o}"
        );
    }
    assert!(!ctx.path("state/planted.txt").exists());
    // bash itself is not confined here (issue 29, finding 13), but what it
    // prints of the token is redacted.
    assert!(out[5]["ok"]["stdout"].as_str().is_some(), "{}", out[5]);
    assert!(!out[5].to_string().contains(token), "{}", out[5]);
    assert_eq!(out[6]["ok"]["content"], "hello", "{}", out[6]);
    let everything = ctx.all_state_text().replace(
        &std::fs::read_to_string(ctx.state().join("console-token")).expect("t"),
        "",
    );
    assert!(
        !everything.contains(token),
        "the token is stored somewhere in the state dir"
    );
}
