//! The `command` runner: spawns a CLI agent (`hermes chat -q`,
//! `claude -p --output-format json`, …) per attempt, writes the composed
//! prompt (or the whole request as JSON) on its stdin, and reads its answer
//! from stdout — JSON, fenced JSON, or plain text. A timeout, and dropping
//! the call (stop, cancel), kill the whole process group; stderr is kept
//! only in error messages, clipped and redacted.

use super::{AgentCall, AgentError, AgentReply, AgentRunner, BoxFuture};
use crate::broker::redact;
use serde::Deserialize;
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What to write on the agent's stdin.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StdinMode {
    /// The composed prompt text (system prompt, prompt, input, schema).
    #[default]
    Prompt,
    /// The request as one JSON object.
    Json,
}

/// Configuration of a command backend (`[agents.backends.<name>]`,
/// `kind = "command"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandConfig {
    /// argv; `{model}` and `{effort}` are replaced (an argument whose
    /// placeholder has no value is dropped together with a preceding flag).
    pub argv: Vec<String>,
    /// What goes on stdin.
    #[serde(default)]
    pub stdin: StdinMode,
    /// Take the answer from this field of the JSON on stdout (e.g.
    /// `result` for `claude --output-format json`).
    #[serde(default)]
    pub output_field: Option<String>,
    /// Per-attempt timeout.
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
}

fn default_timeout() -> u64 {
    600_000
}

impl CommandConfig {
    /// Check the numbers: `timeout_ms` 1 to 86 400 000.
    ///
    /// # Errors
    ///
    /// The key, its value and the accepted range.
    pub fn validate(&self) -> Result<(), String> {
        crate::vm::limits::check_range("timeout_ms", self.timeout_ms, 1, 86_400_000).map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// Runs agent calls through a command.
#[derive(Debug, Clone)]
pub struct CommandRunner {
    config: CommandConfig,
}

impl CommandRunner {
    /// A runner over a configuration.
    pub fn new(config: CommandConfig) -> Self {
        Self { config }
    }

    fn argv(&self, call: &AgentCall<'_>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for arg in &self.config.argv {
            let value = |key: &str| match key {
                "model" => call.model,
                "effort" => call.effort,
                _ => None,
            };
            let mut missing = false;
            let mut a = arg.clone();
            for key in ["model", "effort"] {
                let ph = format!("{{{key}}}");
                if a.contains(&ph) {
                    match value(key) {
                        Some(v) => a = a.replace(&ph, v),
                        None => missing = true,
                    }
                }
            }
            if missing {
                if out.last().is_some_and(|prev| prev.starts_with('-')) {
                    out.pop();
                }
                continue;
            }
            out.push(a);
        }
        out
    }
}

/// The prompt text an agent sees: system prompt, task, input, context,
/// expected output shape, and the previous attempt's problem.
pub fn compose_prompt(call: &AgentCall<'_>) -> String {
    let r = call.request;
    let mut text = String::new();
    if let Some(t) = call.agent_type {
        text.push_str(&t.system_prompt);
        text.push_str("\n\n");
    }
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
        let js = crate::broker::schema::to_json_schema(schema);
        text.push_str(&format!(
            "\nAnswer with a single JSON value matching this JSON Schema, and nothing else:\n{}\n",
            serde_json::to_string(&js).unwrap_or_default()
        ));
    }
    if let Some(f) = call.feedback {
        text.push_str(&format!(
            "\nYour previous answer was refused: {f}\nAnswer again, fixing that.\n"
        ));
    }
    text
}

/// Parse an agent's stdout: JSON (optionally fenced), else the text.
pub fn parse_output(stdout: &str, field: Option<&str>) -> Value {
    let trimmed = stdout.trim();
    let parsed = crate::broker::schema::parse_text_output(Value::String(trimmed.to_owned())).ok();
    let v = match (parsed, field) {
        (Some(v), Some(f)) => v.get(f).cloned().unwrap_or(v),
        (Some(v), None) => v,
        (None, _) => Value::String(trimmed.to_owned()),
    };
    // A field holding fenced JSON text (claude's `result`) is unwrapped too.
    match &v {
        Value::String(s) => crate::broker::schema::parse_text_output(Value::String(s.clone())).unwrap_or(v),
        _ => v,
    }
}

impl AgentRunner for CommandRunner {
    fn call<'a>(&'a self, call: AgentCall<'a>) -> BoxFuture<'a, Result<AgentReply, AgentError>> {
        Box::pin(async move {
            let argv = self.argv(&call);
            let Some((program, args)) = argv.split_first() else {
                return Err(AgentError::Failed("the command backend has an empty argv".into()));
            };
            let input = match self.config.stdin {
                StdinMode::Prompt => compose_prompt(&call),
                StdinMode::Json => json!({
                    "prompt": compose_prompt(&call),
                    "request": call.request,
                    "idempotency_key": call.idempotency_key,
                    "attempt": call.attempt,
                    "model": call.model,
                    "effort": call.effort,
                    "system_prompt": call.agent_type.map(|t| t.system_prompt.clone()),
                })
                .to_string(),
            };
            let mut cmd = tokio::process::Command::new(program);
            cmd.args(args)
                .env("HWF_IDEMPOTENCY_KEY", call.idempotency_key)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .kill_on_drop(true)
                .process_group(0);
            let mut child = cmd
                .spawn()
                .map_err(|e| AgentError::Failed(format!("cannot start {program:?}: {e}")))?;
            let pid = child.id().and_then(|p| i32::try_from(p).ok());
            let _group = KillGroup(pid);
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(input.as_bytes()).await;
            }
            let mut stdout = child.stdout.take();
            let mut stderr = child.stderr.take();
            let read = async {
                let mut out = String::new();
                let mut err = String::new();
                if let Some(s) = stdout.as_mut() {
                    let _ = s.read_to_string(&mut out).await;
                }
                if let Some(s) = stderr.as_mut() {
                    let _ = s.read_to_string(&mut err).await;
                }
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
            let status = status.map_err(|e| AgentError::Failed(format!("{program:?}: {e}")))?;
            if !status.success() {
                let err = redact::redact_text(crate::broker::clip(err.trim(), 500)).into_owned();
                return Err(AgentError::Failed(format!("{program:?} exited with {status}: {err}")));
            }
            let output = parse_output(&out, self.config.output_field.as_deref());
            let tokens = output
                .get("usage")
                .and_then(|u| u.get("total_tokens"))
                .and_then(Value::as_u64)
                .unwrap_or(0);
            Ok(AgentReply { output, tokens })
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
