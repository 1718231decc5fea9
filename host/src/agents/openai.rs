//! The `openai` runner: any OpenAI-compatible `/v1/chat/completions`
//! endpoint (the Hermes API server, Ollama, vLLM, llama.cpp, OpenAI).
//!
//! The agent type's system prompt and the composed prompt become the
//! messages; a call with a schema asks for `response_format: json_schema`.
//! The API key is read from the environment variable the config names and
//! is never logged or stored. 429 and 5xx answers are retried with
//! exponential backoff (honouring `Retry-After`); usage tokens are counted.
//! Dropping the call cancels the HTTP request.

use super::command::{compose_prompt, parse_output};
use super::{AgentCall, AgentError, AgentReply, AgentRunner, BoxFuture};
use crate::broker::redact;
use serde::Deserialize;
use serde_json::{Value, json};
use std::time::Duration;

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
    /// Retries on 429 / 5xx / connection errors.
    #[serde(default = "default_retries")]
    pub max_retries: u32,
    /// First backoff delay (doubles per retry).
    #[serde(default = "default_backoff")]
    pub backoff_ms: u64,
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
        use crate::vm::limits::check_range;
        check_range("timeout_ms", self.timeout_ms, 1, 86_400_000).map_err(|e| e.to_string())?;
        check_range("max_retries", u64::from(self.max_retries), 0, 100).map_err(|e| e.to_string())?;
        check_range("backoff_ms", self.backoff_ms, 0, 600_000).map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// Runs agent calls against a chat-completions endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiRunner {
    config: OpenAiConfig,
    client: reqwest::Client,
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
            .build()
            .map_err(|e| crate::Error::new(crate::ErrorCode::InvalidConfig, format!("http client: {e}")))?;
        Ok(Self { config, client })
    }

    /// The request body for one attempt.
    pub fn body(&self, call: &AgentCall<'_>) -> Value {
        let model = call.model.unwrap_or(&self.config.model);
        let mut messages = Vec::new();
        if let Some(t) = call.agent_type {
            messages.push(json!({"role": "system", "content": t.system_prompt}));
        }
        messages.push(json!({"role": "user", "content": compose_prompt(call)}));
        let mut body = json!({"model": model, "messages": messages});
        if let Some(effort) = call.effort {
            body["reasoning_effort"] = json!(effort);
        }
        if let Some(schema) = call.request.get("schema") {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": crate::broker::schema::to_json_schema(schema), "strict": false},
            });
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

impl AgentRunner for OpenAiRunner {
    fn call<'a>(&'a self, call: AgentCall<'a>) -> BoxFuture<'a, Result<AgentReply, AgentError>> {
        Box::pin(async move {
            let body = self.body(&call);
            let key = self
                .config
                .api_key_env
                .as_deref()
                .and_then(|k| std::env::var(k).ok())
                .filter(|k| !k.is_empty());
            let mut attempt = 0u32;
            loop {
                let mut req = self
                    .client
                    .post(self.url())
                    .header("Idempotency-Key", call.idempotency_key)
                    .json(&body);
                if let Some(k) = &key {
                    req = req.bearer_auth(k);
                }
                let retryable = |attempt: u32| attempt < self.config.max_retries;
                let backoff = Duration::from_millis(self.config.backoff_ms.saturating_mul(1 << attempt.min(10)));
                match req.send().await {
                    Ok(resp) if resp.status().is_success() => {
                        let v: Value = resp
                            .json()
                            .await
                            .map_err(|e| AgentError::Failed(format!("bad response body: {e}")))?;
                        let content = v
                            .pointer("/choices/0/message/content")
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        let tokens = v
                            .pointer("/usage/total_tokens")
                            .and_then(Value::as_u64)
                            .unwrap_or_else(|| {
                                v.pointer("/usage/prompt_tokens").and_then(Value::as_u64).unwrap_or(0)
                                    + v.pointer("/usage/completion_tokens")
                                        .and_then(Value::as_u64)
                                        .unwrap_or(0)
                            });
                        return Ok(AgentReply {
                            output: parse_output(content, None),
                            tokens,
                        });
                    }
                    Ok(resp) => {
                        let status = resp.status();
                        let wait = retry_after(&resp).unwrap_or(backoff);
                        if (status.as_u16() == 429 || status.is_server_error()) && retryable(attempt) {
                            tracing::debug!(%status, attempt, "agent endpoint asked to retry");
                            tokio::time::sleep(wait).await;
                            attempt += 1;
                            continue;
                        }
                        let text = resp.text().await.unwrap_or_default();
                        let text = redact::redact_text(crate::broker::clip(&text, 300)).into_owned();
                        return Err(AgentError::Failed(format!("{} answered {status}: {text}", self.url())));
                    }
                    Err(e) if e.is_timeout() => {
                        return Err(AgentError::TimedOut(format!("{} did not answer in time", self.url())));
                    }
                    Err(e) if retryable(attempt) => {
                        tracing::debug!(error = %e, attempt, "agent endpoint unreachable; retrying");
                        tokio::time::sleep(backoff).await;
                        attempt += 1;
                    }
                    Err(e) => return Err(AgentError::Failed(format!("{}: {e}", self.url()))),
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
