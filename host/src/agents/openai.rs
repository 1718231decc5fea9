//! The `openai` runner: any OpenAI-compatible `/v1/chat/completions`
//! endpoint (the Hermes API server, Ollama, vLLM, llama.cpp, OpenAI).
//!
//! The agent type's system prompt is the system message and the task the
//! user message. A call with a schema asks for `response_format`
//! `json_schema` (or `json_object`, or nothing: `response_format` in the
//! config); an answer fenced after a chatty preamble is recovered. A schema
//! retry continues the conversation: the rejected answer as the assistant's
//! turn, then the problem as a new user turn. The API key is read from the
//! environment variable the config names and is never logged or stored.
//! The answer is read by [`super::answer::read_chat_completion`]: a
//! `refusal`, `tool_calls`, `finish_reason: "length"` or reasoning without
//! content end the call at once with their own code. An `api_key_env`
//! whose variable is unset fails `agent_auth` before any request; 401/403
//! answers are `agent_auth` and never retried.
//! 429, 5xx, connection errors and timeouts are retried with exponential
//! backoff (honouring `Retry-After`) under one `Idempotency-Key` per attempt
//! (`<root run id>:<call id>:<attempt>`); `reasoning_effort` is sent only to
//! backends configured for it; usage tokens (and `usage.cost`) are counted.
//! Dropping the call cancels the HTTP request.

use super::answer::{self, as_text};
use super::command::{compose_task, feedback_text};
use super::{AgentBackend, AgentCall, AgentError, AgentErrorKind, AgentReply, BoxFuture};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What to ask for when a call has a schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseFormat {
    /// `{"type": "json_schema", "json_schema": {…}}` (OpenAI, vLLM, Ollama).
    #[default]
    JsonSchema,
    /// `{"type": "json_object"}`: JSON mode, the schema only in the prompt.
    JsonObject,
    /// No `response_format`: the schema only in the prompt.
    None,
}

/// Configuration of an OpenAI-compatible backend (`kind = "openai"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenAiConfig {
    /// Base URL up to and including `/v1` (e.g. `http://localhost:11434/v1`).
    pub base_url: String,
    /// Model used when neither the call nor its agent type names one.
    pub model: String,
    /// Name of the environment variable holding the API key (optional for
    /// local servers).
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Per-request timeout.
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
    /// Retries on 429 / 5xx / connection errors / timeouts.
    #[serde(default = "default_retries")]
    pub max_retries: u32,
    /// First backoff delay (doubles per retry).
    #[serde(default = "default_backoff")]
    pub backoff_ms: u64,
    /// What a call with a schema asks for.
    #[serde(default)]
    pub response_format: ResponseFormat,
    /// The `reasoning_effort` sent when a call names none; setting it also
    /// forwards calls' own effort. Unset (and `forward_effort` false):
    /// `reasoning_effort` is never sent.
    #[serde(default)]
    pub reasoning_effort: Option<String>,
    /// Forward a call's (or its agent type's) effort as `reasoning_effort`.
    #[serde(default)]
    pub forward_effort: bool,
}

fn default_timeout() -> u64 {
    600_000
}
fn default_retries() -> u32 {
    3
}
fn default_backoff() -> u64 {
    250
}

impl OpenAiConfig {
    /// Check the numbers: `timeout_ms` 1 to 86 400 000, `max_retries` 0 to
    /// 100, `backoff_ms` 0 to 600 000.
    ///
    /// # Errors
    ///
    /// The key, its value and the accepted range.
    pub fn validate(&self) -> Result<(), String> {
        use hwf_core::limits::check_range;
        check_range("timeout_ms", self.timeout_ms, 1, 86_400_000).map_err(|e| e.to_string())?;
        check_range("max_retries", u64::from(self.max_retries), 0, 100).map_err(|e| e.to_string())?;
        check_range("backoff_ms", self.backoff_ms, 0, 600_000).map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// The User-Agent sent with every request.
pub const USER_AGENT: &str = concat!("hwf/", env!("CARGO_PKG_VERSION"));

/// Conversations of recent calls, so that a schema retry can continue the
/// exchange with the rejected answer in it. Bounded: the oldest is dropped.
#[derive(Debug, Default)]
struct Conversations {
    /// Idempotency key → (attempt, messages including the assistant's answer).
    by_key: HashMap<String, (u32, Vec<Value>)>,
    order: VecDeque<String>,
}

/// How many calls' conversations are kept for schema retries.
const KEPT_CONVERSATIONS: usize = 64;

impl Conversations {
    fn put(&mut self, key: &str, attempt: u32, messages: Vec<Value>) {
        if self.by_key.insert(key.to_owned(), (attempt, messages)).is_none() {
            self.order.push_back(key.to_owned());
        }
        while self.order.len() > KEPT_CONVERSATIONS {
            if let Some(old) = self.order.pop_front() {
                self.by_key.remove(&old);
            }
        }
    }

    /// The previous attempt's conversation, when it is the one before `attempt`.
    fn previous(&self, key: &str, attempt: u32) -> Option<Vec<Value>> {
        self.by_key
            .get(key)
            .filter(|(a, _)| a.saturating_add(1) == attempt)
            .map(|(_, m)| m.clone())
    }
}

/// Runs agent calls against a chat-completions endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiRunner {
    config: OpenAiConfig,
    client: reqwest::Client,
    conversations: Arc<Mutex<Conversations>>,
}

impl OpenAiRunner {
    /// A runner over a configuration.
    ///
    /// # Errors
    ///
    /// `invalid_config` when the HTTP client cannot be built.
    pub fn new(config: OpenAiConfig) -> crate::Result<Self> {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_millis(config.timeout_ms))
            .user_agent(USER_AGENT)
            .build()
            .map_err(|e| crate::Error::new(crate::ErrorCode::InvalidConfig, format!("http client: {e}")))?;
        Ok(Self {
            config,
            client,
            conversations: Arc::default(),
        })
    }

    fn conversations(&self) -> std::sync::MutexGuard<'_, Conversations> {
        self.conversations
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The messages for one attempt: the system prompt once, the task; on a
    /// schema retry the previous exchange (with the rejected answer) and
    /// the problem as a new user turn, or — when that exchange is not known
    /// (another process ran it) — the task with the problem appended.
    pub fn messages(&self, call: &AgentCall<'_>) -> Vec<Value> {
        if let Some(problem) = call.feedback
            && let Some(mut earlier) = self.conversations().previous(call.idempotency_key, call.attempt)
        {
            earlier.push(json!({"role": "user", "content": feedback_text(problem)}));
            return earlier;
        }
        let mut messages = Vec::new();
        if let Some(t) = call.agent_type {
            messages.push(json!({"role": "system", "content": t.system_prompt}));
        }
        messages.push(json!({"role": "user", "content": compose_task(call, true)}));
        messages
    }

    /// The request body for one attempt.
    pub fn body(&self, call: &AgentCall<'_>) -> Value {
        self.body_with(call, self.messages(call))
    }

    fn body_with(&self, call: &AgentCall<'_>, messages: Vec<Value>) -> Value {
        let model = call.model.unwrap_or(&self.config.model);
        let mut body = json!({"model": model, "messages": messages});
        let effort = if self.config.forward_effort || self.config.reasoning_effort.is_some() {
            call.effort.or(self.config.reasoning_effort.as_deref())
        } else {
            None
        };
        if let Some(effort) = effort {
            body["reasoning_effort"] = json!(effort);
        }
        if let Some(schema) = call.request.get("schema") {
            match self.config.response_format {
                ResponseFormat::JsonSchema => {
                    body["response_format"] = json!({
                        "type": "json_schema",
                        "json_schema": {"name": "output", "schema": hwf_core::schema::to_json_schema(schema), "strict": false},
                    });
                }
                ResponseFormat::JsonObject => body["response_format"] = json!({"type": "json_object"}),
                ResponseFormat::None => {}
            }
        }
        body
    }

    fn url(&self) -> String {
        format!("{}/chat/completions", self.config.base_url.trim_end_matches('/'))
    }
}

/// The longest wait a `Retry-After` header is honoured for.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

fn retry_after(resp: &reqwest::Response) -> Option<Duration> {
    parse_retry_after(resp.headers().get(reqwest::header::RETRY_AFTER)?.to_str().ok()?)
}

/// A `Retry-After` value in seconds, capped at [`MAX_RETRY_AFTER`]: any
/// run of digits (one too large for a `u64` is the cap), never a panic.
/// Other forms (an HTTP date, garbage) give `None`: the backoff applies.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let v = value.trim();
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs = v.parse::<u64>().unwrap_or(u64::MAX);
    Some(Duration::from_secs(secs).min(MAX_RETRY_AFTER))
}

impl AgentBackend for OpenAiRunner {
    fn call<'a>(&'a self, call: AgentCall<'a>) -> BoxFuture<'a, Result<AgentReply, AgentError>> {
        Box::pin(async move {
            let messages = self.messages(&call);
            let expect_json = call.request.get("schema").is_some_and(|s| !s.is_null());
            let body = self.body_with(&call, messages.clone());
            let key = match self.config.api_key_env.as_deref() {
                None => None,
                Some(var) => match std::env::var(var).ok().filter(|k| !k.trim().is_empty()) {
                    Some(k) => Some(k),
                    // Caught before anything is sent: a request without its
                    // key would be refused anyway, or worse, answered by a
                    // server that does not check.
                    None => {
                        return Err(AgentError::new(
                            AgentErrorKind::Auth,
                            format!(
                                "the API key variable {var} (api_key_env of the backend for {}) is not set in hwf's environment; set it (an MCP client or the Hermes plugin may strip the environment: pass it in their server env)",
                                self.config.base_url
                            ),
                        ));
                    }
                },
            };
            // One key per attempt (its body differs); HTTP retries of the
            // same body reuse it.
            let idempotency_key = format!("{}:{}", call.idempotency_key, call.attempt);
            let mut retry = 0u32;
            loop {
                let mut req = self
                    .client
                    .post(self.url())
                    .header("Idempotency-Key", &idempotency_key)
                    .json(&body);
                if let Some(k) = &key {
                    req = req.bearer_auth(k);
                }
                let retryable = retry < self.config.max_retries;
                let backoff = Duration::from_millis(self.config.backoff_ms.saturating_mul(1 << retry.min(10)));
                let timed_out = || AgentError::timed_out(format!("{} did not answer in time", self.url()));
                match req.send().await {
                    Ok(resp) if resp.status().is_success() => {
                        let bytes = match resp.bytes().await {
                            Ok(b) => b,
                            Err(e) if e.is_timeout() && retryable => {
                                tracing::debug!(retry, "agent endpoint timed out mid-body; retrying");
                                tokio::time::sleep(backoff).await;
                                retry += 1;
                                continue;
                            }
                            Err(e) if e.is_timeout() => return Err(timed_out()),
                            Err(e) => return Err(AgentError::failed(format!("bad response body: {e}"))),
                        };
                        let v: Value = serde_json::from_slice(&bytes)
                            .map_err(|e| AgentError::failed(format!("bad response body: {e}")))?;
                        let read = answer::read_chat_completion(&v, expect_json);
                        // The exchange is kept for a schema retry, whatever was said.
                        let said = match &read {
                            Ok(a) => as_text(&a.output),
                            Err(e) => e.answer.clone().unwrap_or_default(),
                        };
                        let said = v
                            .pointer("/choices/0/message/content")
                            .and_then(Value::as_str)
                            .map_or(said, str::to_owned);
                        let mut kept = messages;
                        kept.push(json!({"role": "assistant", "content": said}));
                        self.conversations().put(call.idempotency_key, call.attempt, kept);
                        let a = read?;
                        return Ok(AgentReply {
                            output: a.output,
                            usage: a.usage,
                            cost_usd: a.cost_usd,
                        });
                    }
                    Ok(resp) => {
                        let status = resp.status();
                        let wait = retry_after(&resp).unwrap_or(backoff);
                        if (status.as_u16() == 429 || status.is_server_error()) && retryable {
                            tracing::debug!(%status, retry, "agent endpoint asked to retry");
                            tokio::time::sleep(wait).await;
                            retry += 1;
                            continue;
                        }
                        let text = resp.text().await.unwrap_or_default();
                        return Err(answer::http_failure(&self.url(), status.as_u16(), &text));
                    }
                    Err(e) if retryable => {
                        tracing::debug!(error = %e, retry, timeout = e.is_timeout(), "agent endpoint failed; retrying");
                        tokio::time::sleep(backoff).await;
                        retry += 1;
                    }
                    Err(e) if e.is_timeout() => return Err(timed_out()),
                    Err(e) => return Err(AgentError::failed(format!("{}: {e}", self.url()))),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_capped_and_never_overflows() {
        assert_eq!(parse_retry_after("0"), Some(Duration::ZERO));
        assert_eq!(parse_retry_after(" 2 "), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("18446744073709551615"), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after("99999999999999999999999999"), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after("18446744073709552"), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after(""), None);
    }
}
