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
//! | Claude Code | `["claude", "-p", "--output-format", "json"]` (stdin) | `usage` with the cache, `total_cost_usd` |
//! | Hermes Agent | `["hermes", "chat", "-Q", "-q", "{prompt}"]` | none (its quiet output is the answer only) |
//! | Codex | `["codex", "exec", "--json", "{prompt}"]` | `turn.completed` events' `usage` |
//!
//! What the agent printed is read by [`super::answer::read_command`]: the
//! answer after any banner, the tokens by kind, and its failures
//! classified (`agent_auth`, `agent_refused`, …) with its own error text.
//! A program that is not installed fails `agent_unavailable` before
//! anything runs. Stdout and stderr are read up to [`MAX_OUTPUT`] bytes
//! each; more fails the call (`agent_failed`) instead of filling memory.

use super::answer::{self, Exit};
use super::{AgentBackend, AgentCall, AgentError, AgentErrorKind, AgentReply, BoxFuture};
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

/// The most bytes read from an agent's stdout, and from its stderr.
pub const MAX_OUTPUT: usize = 16 << 20;

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

/// Read a pipe to its end, up to [`MAX_OUTPUT`] bytes (more is an error:
/// the call fails and its process group is killed).
async fn read_capped(pipe: Option<impl tokio::io::AsyncRead + Unpin>, what: &str) -> Result<String, AgentError> {
    let mut bytes = Vec::new();
    if let Some(p) = pipe {
        p.take(MAX_OUTPUT as u64 + 1)
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| AgentError::failed(format!("cannot read the agent's {what}: {e}")))?;
    }
    if bytes.len() > MAX_OUTPUT {
        return Err(AgentError::failed(format!(
            "the agent printed more than {} MiB on {what}; it was stopped",
            MAX_OUTPUT >> 20
        )));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

impl AgentBackend for CommandRunner {
    fn call<'a>(&'a self, call: AgentCall<'a>) -> BoxFuture<'a, Result<AgentReply, AgentError>> {
        Box::pin(async move {
            let (models, efforts) = (&self.config.allowed_models, &self.config.allowed_efforts);
            super::guard::check_agent_options(call.model, call.effort, models.as_deref(), efforts.as_deref())
                .map_err(|r| AgentError::failed(format!("{}: {}", r.code, r.message)))?;
            let payload = self.payload(&call);
            let via = self.config.prompt_via();
            let file = match via {
                PromptVia::File => Some(
                    PromptFile::create(&payload)
                        .map_err(|e| AgentError::failed(format!("cannot write the prompt file: {e}")))?,
                ),
                _ => None,
            };
            let file_path = file.as_ref().map(|f| f.0.to_string_lossy().into_owned());
            let argv = self.argv(&call, &payload, file_path.as_deref());
            let Some((program, args)) = argv.split_first() else {
                return Err(AgentError::failed("the command backend has an empty argv"));
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
                if e.kind() == std::io::ErrorKind::NotFound {
                    return AgentError::new(
                        AgentErrorKind::Unavailable,
                        format!(
                            "the agent program {program:?} is not installed (not found on PATH): install it, or give its full path as argv[0] of the backend (`hwf doctor` checks this)"
                        ),
                    );
                }
                let hint = if e.raw_os_error() == Some(7) {
                    " (the prompt is too long for an argument: use prompt_via = \"file\" or \"stdin\")"
                } else {
                    ""
                };
                AgentError::failed(format!("cannot start {program:?}: {e}{hint}"))
            })?;
            let pid = child.id().and_then(|p| i32::try_from(p).ok());
            let _group = KillGroup(pid);
            let stdin = child.stdin.take();
            let stdout = child.stdout.take();
            let stderr = child.stderr.take();
            let read = async {
                let write = async {
                    if let Some(mut s) = stdin {
                        // An agent that does not read its stdin is not an error here.
                        let _ = s.write_all(payload.as_bytes()).await;
                    }
                    Ok::<(), AgentError>(())
                };
                // The first pipe over its cap ends the call (the group is
                // killed when `_group` drops), without waiting for the other.
                let ((), out, err) =
                    tokio::try_join!(write, read_capped(stdout, "stdout"), read_capped(stderr, "stderr"))?;
                let status = child.wait().await;
                Ok::<_, AgentError>((out, err, status))
            };
            let (out, err, status) = tokio::time::timeout(Duration::from_millis(self.config.timeout_ms), read)
                .await
                .map_err(|_| {
                    AgentError::timed_out(format!(
                        "{program:?} did not answer within {} ms",
                        self.config.timeout_ms
                    ))
                })??;
            drop(file);
            let status = status.map_err(|e| AgentError::failed(format!("{program:?}: {e}")))?;
            let expect_json = call.request.get("schema").is_some_and(|s| !s.is_null());
            let exit = Exit {
                program,
                success: status.success(),
                status: &status.to_string(),
            };
            let answer = answer::read_command(&out, &err, exit, self.config.output_field.as_deref(), expect_json)?;
            Ok(AgentReply {
                output: answer.output,
                usage: answer.usage,
                cost_usd: answer.cost_usd,
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
            place: None,
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
}
