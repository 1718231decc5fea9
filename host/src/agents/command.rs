//! The `command` runner: spawns a CLI agent per attempt and reads its answer
//! from stdout — JSON, fenced JSON (after a chatty preamble too), or plain
//! text. A timeout, and dropping the call (stop, cancel), kill the whole
//! process group; stderr is kept only in error messages, clipped and
//! redacted.
//!
//! The prompt goes where `prompt_via` says: on stdin (the default), as an
//! argument (`{prompt}` in `argv`, else appended), or in a private temporary
//! file (`{prompt_file}`, else appended). `{model}` and `{effort}` are
//! replaced too; an argument whose value is missing is dropped together with
//! a preceding flag. Recipes:
//!
//! | agent | `argv` | usage read from |
//! |---|---|---|
//! | Claude Code | `["claude", "-p", "--output-format", "json"]` (stdin) | `usage.input_tokens + output_tokens`, `total_cost_usd` |
//! | Hermes Agent | `["hermes", "chat", "-Q", "-q", "{prompt}"]` | none (its quiet output is the answer only) |
//! | Codex | `["codex", "exec", "--json", "{prompt}"]` | `turn.completed` events' `usage` |
//!
//! Any other JSON answer's `usage` (`total_tokens`, or `input_tokens +
//! output_tokens`) and `total_cost_usd` / `cost_usd` are read too, and a
//! `tokens used: N` line on stderr (Codex without `--json`).

use super::{AgentBackend, AgentCall, AgentError, AgentReply, BoxFuture};
use hwf_core::redact;
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What the prompt payload is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StdinMode {
    /// The composed prompt text (system prompt, prompt, input, schema).
    #[default]
    Prompt,
    /// The request as one JSON object.
    Json,
}

/// Where the prompt payload goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptVia {
    /// On the agent's stdin.
    Stdin,
    /// As an argument: replaces `{prompt}` in `argv`, else appended.
    Arg,
    /// In a private temporary file (removed after the call) whose path
    /// replaces `{prompt_file}` in `argv`, else is appended.
    File,
}

/// Configuration of a command backend (`[agents.backends.<name>]`,
/// `kind = "command"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandConfig {
    /// argv; `{prompt}`, `{prompt_file}`, `{model}` and `{effort}` are
    /// replaced (an argument whose `{model}`/`{effort}` has no value is
    /// dropped together with a preceding flag).
    pub argv: Vec<String>,
    /// Where the prompt goes (default: `file` when `argv` has
    /// `{prompt_file}`, `arg` when it has `{prompt}`, else `stdin`).
    #[serde(default)]
    pub prompt_via: Option<PromptVia>,
    /// What the prompt payload is: the prompt text, or the request as JSON.
    #[serde(default)]
    pub stdin: StdinMode,
    /// Take the answer from this field of the JSON on stdout (e.g.
    /// `result` for `claude --output-format json`, which is also the
    /// default for that shape).
    #[serde(default)]
    pub output_field: Option<String>,
    /// Per-attempt timeout.
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
    /// The models a call may ask for (`{model}`; an entry ending in `*`
    /// matches a prefix). Unset: any plain name (see `agents::guard`).
    #[serde(default)]
    pub allowed_models: Option<Vec<String>>,
    /// The efforts a call may ask for (`{effort}`), the same way.
    #[serde(default)]
    pub allowed_efforts: Option<Vec<String>>,
}

fn default_timeout() -> u64 {
    600_000
}

/// The most tokens one reply may report (keeps every sum far from overflow).
const MAX_REPLY_TOKENS: u64 = 1_000_000_000_000;

impl CommandConfig {
    /// Where the prompt goes: `prompt_via`, else inferred from `argv`.
    pub fn prompt_via(&self) -> PromptVia {
        self.prompt_via.unwrap_or_else(|| {
            if self.argv.iter().any(|a| a.contains("{prompt_file}")) {
                PromptVia::File
            } else if self.argv.iter().any(|a| a.contains("{prompt}")) {
                PromptVia::Arg
            } else {
                PromptVia::Stdin
            }
        })
    }

    /// Check the numbers (`timeout_ms` 1 to 86 400 000) and that the
    /// placeholders in `argv` agree with `prompt_via`.
    ///
    /// # Errors
    ///
    /// The key and the problem (a number with its accepted range).
    pub fn validate(&self) -> Result<(), String> {
        hwf_core::limits::check_range("timeout_ms", self.timeout_ms, 1, 86_400_000).map_err(|e| e.to_string())?;
        let has = |ph: &str| self.argv.iter().any(|a| a.contains(ph));
        let via = self.prompt_via();
        let clash = match via {
            PromptVia::Stdin => ["{prompt}", "{prompt_file}"].into_iter().find(|p| has(p)),
            PromptVia::Arg => Some("{prompt_file}").filter(|p| has(p)),
            PromptVia::File => Some("{prompt}").filter(|p| has(p)),
        };
        if let Some(ph) = clash {
            let via = match via {
                PromptVia::Stdin => "stdin",
                PromptVia::Arg => "arg",
                PromptVia::File => "file",
            };
            return Err(format!("argv uses {ph} but prompt_via = {via:?}"));
        }
        Ok(())
    }
}

/// Runs agent calls through a command.
#[derive(Debug, Clone)]
pub struct CommandRunner {
    config: CommandConfig,
}

/// Replace the known `{name}` placeholders of `arg` in one pass (a value is
/// never scanned again). `Err(())` when a placeholder has no value.
fn fill(arg: &str, value: &dyn Fn(&str) -> Option<Option<String>>) -> Result<String, ()> {
    let mut out = String::with_capacity(arg.len());
    let mut rest = arg;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let known = after
            .find('}')
            .map(|close| (&after[..close], close))
            .and_then(|(name, close)| value(name).map(|v| (v, close)));
        match known {
            Some((Some(v), close)) => {
                out.push_str(&v);
                rest = &after[close + 1..];
            }
            Some((None, _)) => return Err(()),
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Ok(out)
}

impl CommandRunner {
    /// A runner over a configuration.
    pub fn new(config: CommandConfig) -> Self {
        Self { config }
    }

    /// The argv for one attempt: placeholders replaced; the prompt (or the
    /// prompt file's path) appended when `prompt_via` needs it and `argv`
    /// has no placeholder for it.
    fn argv(&self, call: &AgentCall<'_>, prompt: &str, prompt_file: Option<&str>) -> Vec<String> {
        let value = |key: &str| -> Option<Option<String>> {
            match key {
                "model" => Some(call.model.map(str::to_owned)),
                "effort" => Some(call.effort.map(str::to_owned)),
                "prompt" => Some(Some(prompt.to_owned())),
                "prompt_file" => Some(prompt_file.map(str::to_owned)),
                _ => None,
            }
        };
        // A prompt that is a whole argument never reads as a flag of the agent.
        let standalone = || {
            if prompt.starts_with('-') {
                format!(" {prompt}")
            } else {
                prompt.to_owned()
            }
        };
        let mut out: Vec<String> = Vec::new();
        for arg in &self.config.argv {
            if arg == "{prompt}" {
                out.push(standalone());
                continue;
            }
            match fill(arg, &value) {
                Ok(a) => out.push(a),
                Err(()) => {
                    if out.len() > 1 && out.last().is_some_and(|prev| prev.starts_with('-')) {
                        out.pop();
                    }
                }
            }
        }
        let has = |ph: &str| self.config.argv.iter().any(|a| a.contains(ph));
        match self.config.prompt_via() {
            PromptVia::Arg if !has("{prompt}") => out.push(standalone()),
            PromptVia::File if !has("{prompt_file}") => out.extend(prompt_file.map(str::to_owned)),
            _ => {}
        }
        out
    }

    /// The prompt payload: the composed prompt, or the request as JSON.
    fn payload(&self, call: &AgentCall<'_>) -> String {
        match self.config.stdin {
            StdinMode::Prompt => compose_prompt(call),
            StdinMode::Json => json!({
                "prompt": compose_prompt(call),
                "request": call.request,
                "idempotency_key": call.idempotency_key,
                "attempt": call.attempt,
                "model": call.model,
                "effort": call.effort,
                "system_prompt": call.agent_type.map(|t| t.system_prompt.clone()),
            })
            .to_string(),
        }
    }
}

/// The prompt text an agent sees: system prompt, then [`compose_task`].
pub fn compose_prompt(call: &AgentCall<'_>) -> String {
    let mut text = String::new();
    if let Some(t) = call.agent_type {
        text.push_str(&t.system_prompt);
        text.push_str("\n\n");
    }
    text.push_str(&compose_task(call, true));
    text
}

/// The task without the system prompt: agent id, prompt, input, context,
/// expected output shape, and (with `feedback`) why the previous attempt
/// was refused.
pub fn compose_task(call: &AgentCall<'_>, feedback: bool) -> String {
    let r = call.request;
    let mut text = String::new();
    if let Some(agent) = r.get("agent").and_then(Value::as_str) {
        text.push_str(&format!("You are the agent {agent}.\n"));
    }
    if let Some(p) = r.get("prompt").and_then(Value::as_str) {
        text.push_str(p);
        text.push('\n');
    }
    for key in ["input", "context"] {
        if let Some(v) = r.get(key) {
            text.push_str(&format!(
                "\n{key}:\n{}\n",
                serde_json::to_string_pretty(v).unwrap_or_default()
            ));
        }
    }
    if let Some(schema) = r.get("schema") {
        let js = hwf_core::schema::to_json_schema(schema);
        text.push_str(&format!(
            "\nAnswer with a single JSON value matching this JSON Schema, and nothing else:\n{}\n",
            serde_json::to_string(&js).unwrap_or_default()
        ));
    }
    if feedback && let Some(f) = call.feedback {
        text.push_str(&format!("\n{}\n", feedback_text(f)));
    }
    text
}

/// What an agent is told when its previous answer was refused.
pub fn feedback_text(problem: &str) -> String {
    format!("Your previous answer was refused: {problem}\nAnswer again, fixing that.")
}

/// The last fenced block of `text` (```` ```json … ``` ````) that holds JSON:
/// an answer after a chatty preamble, or before a sign-off.
fn last_fenced_json(text: &str) -> Option<Value> {
    let mut found = None;
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let Some((_, body)) = after.split_once('\n') else { break };
        let Some(close) = body.find("```") else { break };
        if let Ok(v) = serde_json::from_str::<Value>(body[..close].trim()) {
            found = Some(v);
        }
        rest = &body[close + 3..];
    }
    found
}

/// Parse an agent's text answer: JSON (optionally fenced), else the text;
/// with `field`, that field of a JSON object. With `expect_json` (the call
/// has a schema), a fenced answer after a chatty preamble is recovered too.
pub fn parse_output(stdout: &str, field: Option<&str>, expect_json: bool) -> Value {
    let trimmed = stdout.trim();
    let parsed = hwf_core::schema::parse_text_output(Value::String(trimmed.to_owned()))
        .ok()
        .or_else(|| expect_json.then(|| last_fenced_json(trimmed)).flatten());
    let v = match (parsed, field) {
        (Some(v), Some(f)) => v.get(f).cloned().unwrap_or(v),
        (Some(v), None) => v,
        (None, _) => Value::String(trimmed.to_owned()),
    };
    // A field holding fenced JSON text (claude's `result`) is unwrapped too.
    match &v {
        Value::String(s) => unwrap_text(s, expect_json).unwrap_or(v),
        _ => v,
    }
}

fn unwrap_text(s: &str, expect_json: bool) -> Option<Value> {
    hwf_core::schema::parse_text_output(Value::String(s.to_owned()))
        .ok()
        .or_else(|| expect_json.then(|| last_fenced_json(s)).flatten())
}

/// A command agent's answer with what it spent.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The answer.
    pub output: Value,
    /// Tokens reported (0 when the shape reports none).
    pub tokens: u64,
    /// Cost reported, in USD.
    pub cost_usd: Option<f64>,
}

fn count(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_u64).unwrap_or(0).min(MAX_REPLY_TOKENS)
}

/// Tokens of a `usage` object: `total_tokens`, else `input_tokens +
/// output_tokens` (or `prompt_tokens + completion_tokens`).
pub fn usage_tokens(usage: &Value) -> u64 {
    if let Some(t) = usage.get("total_tokens").and_then(Value::as_u64) {
        return t.min(MAX_REPLY_TOKENS);
    }
    let input = count(usage.get("input_tokens").or_else(|| usage.get("prompt_tokens")));
    let output = count(usage.get("output_tokens").or_else(|| usage.get("completion_tokens")));
    input.saturating_add(output)
}

fn cost(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64).filter(|c| c.is_finite() && *c >= 0.0)
}

/// Parse a command agent's stdout (and stderr, for usage lines) by shape:
/// Claude Code's `--output-format json` result, Codex's `--json` event
/// lines, or any other answer ([`parse_output`]).
///
/// `expect_json` as in [`parse_output`].
///
/// # Errors
///
/// The agent's own error, when its output says it failed (`is_error`,
/// `turn.failed`, an `error` event).
pub fn parse_reply(stdout: &str, stderr: &str, field: Option<&str>, expect_json: bool) -> Result<Parsed, String> {
    let trimmed = stdout.trim();
    if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(trimmed)
        && v["type"] == "result"
        && (v.get("usage").is_some() || v.get("total_cost_usd").is_some() || v.get("result").is_some())
    {
        return claude_reply(&v, field, expect_json);
    }
    if let Some(p) = codex_reply(trimmed, field, expect_json) {
        return p;
    }
    let full = hwf_core::schema::parse_text_output(Value::String(trimmed.to_owned())).ok();
    let tokens = full
        .as_ref()
        .and_then(|v| v.get("usage"))
        .map(usage_tokens)
        .unwrap_or_else(|| stderr_tokens(stderr));
    let cost_usd = full
        .as_ref()
        .and_then(|v| cost(v.get("total_cost_usd")).or_else(|| cost(v.get("cost_usd"))));
    Ok(Parsed {
        output: parse_output(strip_session_line(trimmed), field, expect_json),
        tokens,
        cost_usd,
    })
}

/// Claude Code's result object: `result` (or `field`), `usage`,
/// `total_cost_usd`, `is_error`.
fn claude_reply(v: &Value, field: Option<&str>, expect_json: bool) -> Result<Parsed, String> {
    let result = v.get(field.unwrap_or("result")).cloned().unwrap_or(Value::Null);
    if v["is_error"] == true {
        let why = result.as_str().map_or_else(|| result.to_string(), str::to_owned);
        let kind = v["subtype"].as_str().unwrap_or("error");
        return Err(format!(
            "the agent reported an error ({kind}): {}",
            hwf_core::redact::clip(&why, 300)
        ));
    }
    let output = match &result {
        Value::String(s) => unwrap_text(s, expect_json).unwrap_or(result),
        _ => result,
    };
    Ok(Parsed {
        output,
        tokens: v.get("usage").map_or(0, |u| {
            count(u.get("input_tokens")).saturating_add(count(u.get("output_tokens")))
        }),
        cost_usd: cost(v.get("total_cost_usd")),
    })
}

/// Codex's `exec --json` event lines: the last `agent_message` item is the
/// answer; `turn.completed` usages add up. `None` when stdout is not that.
fn codex_reply(stdout: &str, field: Option<&str>, expect_json: bool) -> Option<Result<Parsed, String>> {
    let mut events = Vec::new();
    for line in stdout.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_str(line).ok()?;
        v.get("type").and_then(Value::as_str)?;
        events.push(v);
    }
    let codex_types = [
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "item.completed",
    ];
    if !events
        .iter()
        .any(|e| codex_types.contains(&e["type"].as_str().unwrap_or("")))
    {
        return None;
    }
    let mut tokens = 0u64;
    let mut answer = None;
    for e in &events {
        match e["type"].as_str().unwrap_or("") {
            "turn.completed" => tokens = tokens.saturating_add(e.get("usage").map_or(0, usage_tokens)),
            "item.completed" if e["item"]["type"] == "agent_message" => {
                answer = e["item"]["text"].as_str().map(str::to_owned);
            }
            "turn.failed" | "error" => {
                let why = e
                    .pointer("/error/message")
                    .or_else(|| e.get("message"))
                    .and_then(Value::as_str)
                    .unwrap_or("no message");
                return Some(Err(format!(
                    "the agent reported an error: {}",
                    hwf_core::redact::clip(why, 300)
                )));
            }
            _ => {}
        }
    }
    let answer = answer?;
    Some(Ok(Parsed {
        output: parse_output(&answer, field, expect_json),
        tokens: tokens.min(MAX_REPLY_TOKENS),
        cost_usd: None,
    }))
}

/// `tokens used: 1,234` (or the number on the next line), as Codex prints
/// on stderr without `--json`.
fn stderr_tokens(stderr: &str) -> u64 {
    let lower = stderr.to_ascii_lowercase();
    let Some(at) = lower.rfind("tokens used") else { return 0 };
    let digits: String = lower[at + "tokens used".len()..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse::<u64>().unwrap_or(0).min(MAX_REPLY_TOKENS)
}

/// Drop a trailing `session_id: …` line (printed after some CLI agents'
/// quiet answers).
fn strip_session_line(text: &str) -> &str {
    let is_session = |line: &str| {
        line.trim().strip_prefix("session_id:").is_some_and(|id| {
            let id = id.trim();
            !id.is_empty() && !id.contains(char::is_whitespace)
        })
    };
    match text.rsplit_once('\n') {
        Some((body, last)) if is_session(last) => body.trim_end(),
        _ => text,
    }
}

/// A private temporary file holding the prompt, removed when dropped.
struct PromptFile(PathBuf);

impl PromptFile {
    fn create(text: &str) -> std::io::Result<Self> {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt as _;
        let path = std::env::temp_dir().join(format!("hwf-prompt-{}.txt", uuid::Uuid::now_v7()));
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        let file = Self(path);
        f.write_all(text.as_bytes())?;
        Ok(file)
    }
}

impl Drop for PromptFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl AgentBackend for CommandRunner {
    fn call<'a>(&'a self, call: AgentCall<'a>) -> BoxFuture<'a, Result<AgentReply, AgentError>> {
        Box::pin(async move {
            let (models, efforts) = (&self.config.allowed_models, &self.config.allowed_efforts);
            super::guard::check_agent_options(call.model, call.effort, models.as_deref(), efforts.as_deref())
                .map_err(|r| AgentError::Failed(format!("{}: {}", r.code, r.message)))?;
            let payload = self.payload(&call);
            let via = self.config.prompt_via();
            let file = match via {
                PromptVia::File => Some(
                    PromptFile::create(&payload)
                        .map_err(|e| AgentError::Failed(format!("cannot write the prompt file: {e}")))?,
                ),
                _ => None,
            };
            let file_path = file.as_ref().map(|f| f.0.to_string_lossy().into_owned());
            let argv = self.argv(&call, &payload, file_path.as_deref());
            let Some((program, args)) = argv.split_first() else {
                return Err(AgentError::Failed("the command backend has an empty argv".into()));
            };
            let mut cmd = tokio::process::Command::new(program);
            cmd.args(args)
                .env("HWF_IDEMPOTENCY_KEY", call.idempotency_key)
                .env("HWF_ATTEMPT", call.attempt.to_string())
                .stdin(if via == PromptVia::Stdin {
                    Stdio::piped()
                } else {
                    Stdio::null()
                })
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(true)
                .process_group(0);
            let mut child = cmd.spawn().map_err(|e| {
                let hint = if e.raw_os_error() == Some(7) {
                    " (the prompt is too long for an argument: use prompt_via = \"file\" or \"stdin\")"
                } else {
                    ""
                };
                AgentError::Failed(format!("cannot start {program:?}: {e}{hint}"))
            })?;
            let pid = child.id().and_then(|p| i32::try_from(p).ok());
            let _group = KillGroup(pid);
            let stdin = child.stdin.take();
            let mut stdout = child.stdout.take();
            let mut stderr = child.stderr.take();
            let read = async {
                let write = async {
                    if let Some(mut s) = stdin {
                        let _ = s.write_all(payload.as_bytes()).await;
                    }
                };
                let read_out = async {
                    let mut out = String::new();
                    if let Some(s) = stdout.as_mut() {
                        let _ = s.read_to_string(&mut out).await;
                    }
                    out
                };
                let read_err = async {
                    let mut err = String::new();
                    if let Some(s) = stderr.as_mut() {
                        let _ = s.read_to_string(&mut err).await;
                    }
                    err
                };
                let ((), out, err) = tokio::join!(write, read_out, read_err);
                let status = child.wait().await;
                (out, err, status)
            };
            let (out, err, status) = tokio::time::timeout(Duration::from_millis(self.config.timeout_ms), read)
                .await
                .map_err(|_| {
                    AgentError::TimedOut(format!(
                        "{program:?} did not answer within {} ms",
                        self.config.timeout_ms
                    ))
                })?;
            drop(file);
            let status = status.map_err(|e| AgentError::Failed(format!("{program:?}: {e}")))?;
            if !status.success() {
                let err = redact::redact_text(hwf_core::redact::clip(err.trim(), 500)).into_owned();
                return Err(AgentError::Failed(format!("{program:?} exited with {status}: {err}")));
            }
            let expect_json = call.request.get("schema").is_some_and(|s| !s.is_null());
            let parsed = parse_reply(&out, &err, self.config.output_field.as_deref(), expect_json)
                .map_err(|e| AgentError::Failed(redact::redact_text(&e).into_owned()))?;
            Ok(AgentReply {
                output: parsed.output,
                tokens: parsed.tokens,
                cost_usd: parsed.cost_usd,
            })
        })
    }
}

/// Kills a process group when dropped (timeout, cancel, stop).
struct KillGroup(Option<i32>);

impl Drop for KillGroup {
    fn drop(&mut self) {
        if let Some(pid) = self.0.and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runner(argv: &[&str], via: Option<PromptVia>) -> CommandRunner {
        CommandRunner::new(CommandConfig {
            argv: argv.iter().map(|s| (*s).to_owned()).collect(),
            prompt_via: via,
            stdin: StdinMode::Prompt,
            output_field: None,
            timeout_ms: 1000,
            allowed_models: None,
            allowed_efforts: None,
        })
    }

    fn call(req: &Value) -> AgentCall<'_> {
        AgentCall {
            request: req,
            idempotency_key: "r:1",
            attempt: 1,
            feedback: None,
            agent_type: None,
            model: Some("m1"),
            effort: None,
        }
    }

    #[test]
    fn placeholders_fill_in_one_pass() {
        let req = json!({"prompt": "hi"});
        let r = runner(
            &[
                "hermes", "chat", "-Q", "-q", "{prompt}", "--effort", "{effort}", "-m", "{model}",
            ],
            None,
        );
        assert_eq!(r.config.prompt_via(), PromptVia::Arg);
        // The prompt's own braces are never replaced again.
        let argv = r.argv(&call(&req), "say {model} {x}", None);
        assert_eq!(argv, ["hermes", "chat", "-Q", "-q", "say {model} {x}", "-m", "m1"]);
        let r = runner(&["agent", "--in={prompt_file}"], None);
        assert_eq!(r.config.prompt_via(), PromptVia::File);
        assert_eq!(r.argv(&call(&req), "p", Some("/tmp/f")), ["agent", "--in=/tmp/f"]);
        let r = runner(&["agent"], Some(PromptVia::Arg));
        assert_eq!(r.argv(&call(&req), "p", None), ["agent", "p"]);
        // A prompt that looks like a flag is never taken for one.
        assert_eq!(r.argv(&call(&req), "--yolo", None), ["agent", " --yolo"]);
        let r = runner(&["agent", "{unknown}"], None);
        assert_eq!(r.config.prompt_via(), PromptVia::Stdin);
        assert_eq!(r.argv(&call(&req), "p", None), ["agent", "{unknown}"]);
    }

    #[test]
    fn placeholders_must_agree_with_prompt_via() {
        let r = runner(&["agent", "{prompt}"], Some(PromptVia::Stdin));
        assert!(r.config.validate().expect_err("clash").contains("{prompt}"));
        let r = runner(&["agent", "{prompt}"], Some(PromptVia::File));
        assert!(r.config.validate().is_err());
        assert!(runner(&["agent", "{prompt}"], None).config.validate().is_ok());
    }

    #[test]
    fn claude_shaped_output_counts_tokens_and_cost() {
        let out = r#"{"type":"result","subtype":"success","is_error":false,"result":"```json\n{\"verdict\":\"ok\"}\n```","total_cost_usd":0.0123,"usage":{"input_tokens":7,"cache_read_input_tokens":100,"output_tokens":5}}"#;
        let p = parse_reply(out, "", None, true).expect("ok");
        assert_eq!(p.output, json!({"verdict": "ok"}));
        assert_eq!(p.tokens, 12);
        assert_eq!(p.cost_usd, Some(0.0123));
        let err = r#"{"type":"result","subtype":"error_max_turns","is_error":true,"result":"ran out of turns"}"#;
        assert!(
            parse_reply(err, "", None, true)
                .expect_err("is_error")
                .contains("ran out of turns")
        );
        let huge = r#"{"type":"result","result":"x","usage":{"input_tokens":18446744073709551615,"output_tokens":18446744073709551615}}"#;
        assert_eq!(
            parse_reply(huge, "", None, true).expect("ok").tokens,
            2 * MAX_REPLY_TOKENS
        );
    }

    #[test]
    fn codex_shaped_output_sums_turn_usage() {
        let out = concat!(
            "{\"type\":\"thread.started\",\"thread_id\":\"t1\"}\n",
            "{\"type\":\"turn.started\"}\n",
            "{\"type\":\"item.completed\",\"item\":{\"id\":\"i0\",\"type\":\"reasoning\",\"text\":\"thinking\"}}\n",
            "{\"type\":\"item.completed\",\"item\":{\"id\":\"i1\",\"type\":\"agent_message\",\"text\":\"{\\\"verdict\\\":\\\"ok\\\"}\"}}\n",
            "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":30,\"cached_input_tokens\":10,\"output_tokens\":4}}\n",
        );
        let p = parse_reply(out, "", None, true).expect("ok");
        assert_eq!((p.output, p.tokens), (json!({"verdict": "ok"}), 34));
        let failed = "{\"type\":\"turn.failed\",\"error\":{\"message\":\"quota\"}}\n";
        assert!(
            parse_reply(failed, "", None, true)
                .expect_err("failed")
                .contains("quota")
        );
        // Codex without --json: the answer on stdout, usage on stderr.
        let p = parse_reply("plain answer\n", "[ts] tokens used: 1,234\n", None, true).expect("ok");
        assert_eq!((p.output, p.tokens), (json!("plain answer"), 1234));
    }

    #[test]
    fn hermes_quiet_output_is_the_answer() {
        let p = parse_reply("The answer is 4.\n\nsession_id: 20260101_120000_abc\n", "", None, true).expect("ok");
        assert_eq!((p.output, p.tokens, p.cost_usd), (json!("The answer is 4."), 0, None));
    }

    #[test]
    fn a_fenced_answer_after_a_preamble_is_recovered() {
        let text = "Sure! Here is the verdict:\n\n```json\n{\"verdict\": \"ok\"}\n```\nHope this helps.";
        assert_eq!(parse_output(text, None, true), json!({"verdict": "ok"}));
        assert_eq!(parse_output("no json here", None, true), json!("no json here"));
        // Without a schema, prose that shows some JSON stays prose.
        assert_eq!(parse_output(text, None, false), json!(text));
    }
}
