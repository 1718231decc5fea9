//! Real agents' outputs through the binary (issue 26): a fake executable
//! replays what Claude Code, Codex and Hermes Agent really printed
//! (host/tests/agent-corpus, recorded against loopback mocks of their
//! APIs) — banners, reconnects, "not logged in", cache usage, refusals —
//! and the run, its journal, `status` and `logs` must show what a user
//! can act on. tests/python/test_real_agents.py drives the real CLIs.

use crate::common::{Ctx, harnesses, root, status};
use serde_json::{Value, json};

/// A stand-in for a CLI agent: prints a corpus case's stdout and stderr
/// and exits with its status; each invocation appends a line to
/// `calls.log`.
const REPLAY: &str = r#"import json, pathlib, sys
corpus, case = pathlib.Path(sys.argv[1]), sys.argv[2]
cases = {c["file"]: c for c in json.loads((corpus / "manifest.json").read_text())["cases"]}
sys.stdin.read()
with open("calls.log", "a") as log:
    log.write(case + "\n")
sys.stdout.write((corpus / (case + ".stdout")).read_text())
sys.stderr.write((corpus / (case + ".stderr")).read_text())
sys.exit(cases[case]["exit_code"])
"#;

/// `hwf.toml` whose one command backend replays `case`.
fn replaying(ctx: &Ctx, case: &str) -> String {
    ctx.write("replay.py", REPLAY);
    let corpus = root().join("host/tests/agent-corpus");
    let cfg = ctx.write(
        "hwf.toml",
        format!(
            "[agents.backends.agent]\nkind = \"command\"\nargv = [\"python3\", \"replay.py\", {:?}, {case:?}]\n",
            corpus.to_str().expect("utf8")
        ),
    );
    cfg.to_str().expect("utf8").to_owned()
}

/// The probe's one agent call with a schema: (run envelope data, result).
fn schema_call(ctx: &Ctx, cfg: &str) -> (Value, Value) {
    let out = ctx.run_json(harnesses::PROBE, r#"{"op":"schema"}"#, &["--config", cfg]);
    out.expect_code(0);
    let data = out.json()["data"].clone();
    let result = data["result"].clone();
    (data, result)
}

fn invocations(ctx: &Ctx) -> usize {
    std::fs::read_to_string(ctx.path("calls.log"))
        .unwrap_or_default()
        .lines()
        .count()
}

fn agent_call(status: &Value) -> Value {
    status["calls"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["kind"] == "agent"))
        .cloned()
        .unwrap_or(Value::Null)
}

#[test]
fn a_warning_line_before_the_json_answer_is_not_part_of_it() {
    // Hermes' `chat -Q -q` with its security scanner missing.
    let ctx = Ctx::new();
    let cfg = replaying(&ctx, "hermes-ok_json");
    let (_, r) = schema_call(&ctx, &cfg);
    assert_eq!(r["ok"], json!({"verdict": "ok"}), "{r}");
    assert_eq!(invocations(&ctx), 1);
}

#[test]
fn a_codex_stream_that_reconnects_then_answers_succeeds_with_its_usage() {
    let ctx = Ctx::new();
    let cfg = replaying(&ctx, "codex-flaky");
    let (data, r) = schema_call(&ctx, &cfg);
    assert_eq!(r["ok"], json!({"verdict": "ok"}), "{r}");
    assert_eq!(data["counts"]["tokens"], 128, "{data}");
    assert_eq!(data["counts"]["usage"], json!({"input": 120, "output": 8}), "{data}");
}

#[test]
fn claude_not_logged_in_fails_at_once_with_its_own_text() {
    let ctx = Ctx::new();
    let cfg = replaying(&ctx, "claude-not_logged_in");
    let (data, r) = schema_call(&ctx, &cfg);
    assert_eq!(r["error"]["code"], "agent_auth", "{r}");
    let msg = r["error"]["message"].as_str().expect("message");
    assert!(msg.contains("Not logged in"), "{msg}");
    assert!(!msg.contains("(success)"), "{msg}");
    assert_eq!(invocations(&ctx), 1, "an auth failure is not retried");
    let s = status(&ctx, data["run_id"].as_str().expect("id"));
    assert_eq!(agent_call(&s)["attempts"], 1, "{s}");
}

#[test]
fn cache_tokens_count_toward_the_budget_and_status_shows_the_split() {
    let ctx = Ctx::new();
    let cfg = replaying(&ctx, "claude-cache_usage");
    let out = ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"agents_until_exhausted"}"#,
        &["--config", &cfg, "--max-tokens", "1000"],
    );
    out.expect_code(0);
    let data = out.json()["data"].clone();
    let r = &data["result"];
    // 4 input + 5,123 written to the cache + 14,200 read from it + 45
    // output: 19,372 processed, far past 1,000 after one call.
    assert_eq!(
        (r["done"].clone(), r["error"].clone()),
        (json!(1), json!("token_budget")),
        "{r}"
    );
    assert_eq!(r["tokens_spent"], 19_372, "{r}");
    let split = json!({"input": 4, "cache_creation": 5123, "cache_read": 14200, "output": 45});
    assert_eq!(data["counts"]["usage"], split, "{data}");
    let id = data["run_id"].as_str().expect("id");
    let s = status(&ctx, id);
    assert_eq!(agent_call(&s)["usage"], split, "{s}");
    assert_eq!(agent_call(&s)["tokens"], 19_372, "{s}");
    let text = ctx.hwf(["status", id]);
    text.expect_code(0);
    assert!(
        text.stdout
            .contains("tokens 19372 (input 4, cache write 5123, cache read 14200, output 45)"),
        "{}",
        text.stdout
    );
}

#[test]
fn a_refusal_fails_at_once_and_status_and_logs_show_what_the_agent_said() {
    let ctx = Ctx::new();
    let cfg = replaying(&ctx, "claude-refuse");
    let (data, r) = schema_call(&ctx, &cfg);
    assert_eq!(r["error"]["code"], "agent_refused", "{r}");
    let refusal = "I'm sorry, but I can't help with that.";
    assert!(r["error"]["message"].as_str().expect("msg").contains(refusal), "{r}");
    assert_eq!(invocations(&ctx), 1, "a refusal is not retried");
    let id = data["run_id"].as_str().expect("id");
    let s = status(&ctx, id);
    let call = agent_call(&s);
    assert_eq!(call["attempts"], 1, "{call}");
    assert_eq!(call["rejected"][0]["code"], "agent_refused", "{call}");
    assert_eq!(call["rejected"][0]["answer"], refusal, "{call}");
    let text = ctx.hwf(["status", id]);
    assert!(text.stdout.contains(&format!("answered: {refusal}")), "{}", text.stdout);
    let logs = ctx.hwf(["logs", id]);
    logs.expect_code(0);
    assert!(
        logs.stdout.contains("reject call") && logs.stdout.contains(refusal),
        "{}",
        logs.stdout
    );
    // The journal keeps it (redacted, clipped), with the attempt's code.
    let lines = ctx.journal(id);
    let attempt = lines
        .iter()
        .find(|l| l["type"] == "call_attempt")
        .expect("a call_attempt line");
    assert_eq!(
        (attempt["code"].clone(), attempt["answer"].clone()),
        (json!("agent_refused"), json!(refusal))
    );
}

#[test]
fn a_fixable_answer_is_retried_and_every_rejected_answer_is_kept() {
    let ctx = Ctx::new();
    // Prose without JSON first (fixable: retried with feedback), then JSON
    // that misses a field, then the answer.
    ctx.write(
        "agent.py",
        "import os, sys\nsys.stdin.read()\nn = int(os.environ['HWF_ATTEMPT'])\nprint(['Let me think about the verdict first.', '{\"mood\": \"fine\"}', '{\"verdict\": \"ok\"}'][n - 1])\n",
    );
    let cfg = ctx.write(
        "hwf.toml",
        "[agents.backends.agent]\nkind = \"command\"\nargv = [\"python3\", \"agent.py\"]\n",
    );
    let (data, r) = schema_call(&ctx, cfg.to_str().expect("utf8"));
    assert_eq!(r["ok"], json!({"verdict": "ok"}), "{r}");
    let s = status(&ctx, data["run_id"].as_str().expect("id"));
    let call = agent_call(&s);
    assert_eq!(call["attempts"], 3, "{call}");
    let rejected = call["rejected"].as_array().expect("rejected");
    assert_eq!(rejected.len(), 2, "{call}");
    assert_eq!(rejected[0]["code"], "schema_mismatch");
    assert_eq!(rejected[0]["answer"], "Let me think about the verdict first.");
    assert_eq!(rejected[1]["answer"], "{\"mood\":\"fine\"}");
    assert!(
        rejected[1]["error"].as_str().expect("why").contains("verdict"),
        "{call}"
    );
}

#[test]
fn a_truncated_codex_answer_and_a_missing_program_are_named() {
    let ctx = Ctx::new();
    let cfg = replaying(&ctx, "codex-length");
    let (_, r) = schema_call(&ctx, &cfg);
    assert_eq!(r["error"]["code"], "agent_truncated", "{r}");
    assert_eq!(invocations(&ctx), 1);
    let cfg = ctx.write(
        "hwf.toml",
        "[agents.backends.agent]\nkind = \"command\"\nargv = [\"no-such-agent-cli-xyz\", \"-p\"]\n",
    );
    let (_, r) = schema_call(&ctx, cfg.to_str().expect("utf8"));
    assert_eq!(r["error"]["code"], "agent_unavailable", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .expect("msg")
            .contains("no-such-agent-cli-xyz"),
        "{r}"
    );
}

#[test]
fn an_unset_api_key_variable_fails_before_any_request() {
    let ctx = Ctx::new();
    // Nothing listens here: a request would fail differently.
    let cfg = ctx.write(
        "hwf.toml",
        "[agents.backends.agent]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\napi_key_env = \"HWF_TEST_UNSET_KEY_26\"\nmax_retries = 0\n",
    );
    let (_, r) = schema_call(&ctx, cfg.to_str().expect("utf8"));
    assert_eq!(r["error"]["code"], "agent_auth", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .expect("msg")
            .contains("HWF_TEST_UNSET_KEY_26"),
        "{r}"
    );
}
