//! The fixture agent runner: deterministic answers from a JSON file.
//!
//! ```json
//! {"responses": [
//!   {"match": {"agent": "hermes.greeter"}, "output": {"greeting": "hello, world"}, "tokens": 12},
//!   {"match": {"label": "flaky"}, "sequence": [{"error": "runner down"}, {"output": {"ok": true}}]},
//!   {"match": {"prompt_contains": "slow"}, "output": {}, "delay_ms": 50}
//! ]}
//! ```
//!
//! The first rule whose every `match` entry equals the request's value at
//! that dotted path answers (numbers by value at any depth: `1` matches
//! `1.0`; `true` is not `1`); `prompt_contains` is a substring test. Each
//! answer has exactly one of `output` (`null` too: the agent answered
//! `null`) or `error`. A
//! `sequence` answers successive matching calls in order, its last entry
//! repeating; calls that run at once (branches, pipeline items, calls in
//! flight together) take their places in call-id order, and answers that
//! come back together reach the script in call order, the same on every
//! run (`broker/turns.rs`). No match fails the call with
//! `no fixture response for …`.
//!
//! An answer may also carry `usage` (a usage object in any backend's shape,
//! read like theirs: `{"input_tokens": 4, "cache_read_input_tokens": 9,
//! "output_tokens": 2}`), and an `error` a `code` (`agent_refused`,
//! `agent_auth`, `agent_truncated`, `agent_tool_call`, `agent_timeout`,
//! `agent_unavailable`, `agent_failed`, the default) and the `answer` the
//! agent gave with it — to play real agents' failures.

use super::{AgentBackend, AgentCall, AgentError, AgentErrorKind, AgentReply, BoxFuture, TokenUsage};
use hwf_core::error::{Error, ErrorCode, Result};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FixtureFile {
    responses: Vec<RawRule>,
}

/// A field that is there, `null` included (`"output": null` is an answer:
/// the agent answered `null`); a missing one stays `None` (`default`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    #[serde(rename = "match", default)]
    matcher: Map<String, Value>,
    #[serde(default, deserialize_with = "present")]
    output: Option<Value>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    tokens: Option<u64>,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    answer: Option<String>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    delay_ms: Option<u64>,
    #[serde(default)]
    sequence: Option<Vec<RawAnswer>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAnswer {
    #[serde(default, deserialize_with = "present")]
    output: Option<Value>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    tokens: Option<u64>,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    answer: Option<String>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    delay_ms: Option<u64>,
}

#[derive(Debug)]
struct Rule {
    matcher: Vec<(Vec<String>, Value)>,
    prompt_contains: Option<String>,
    answers: Vec<RawAnswer>,
    hits: AtomicUsize,
}

/// Answers agent calls from fixture rules.
#[derive(Debug, Default)]
pub struct FixtureRunner {
    rules: Vec<Rule>,
    /// When set (`$HWF_FIXTURE_LOG`), every answered call appends
    /// `<idempotency key> <attempt>` here: tests count executions with it.
    call_log: Option<std::path::PathBuf>,
    /// Stands for "no backend configured" ([`FixtureRunner::empty`]).
    unconfigured: bool,
}

impl FixtureRunner {
    /// No backend at all: the default when nothing is configured. A run
    /// that makes a live agent call through it fails with
    /// `no_agent_backend` (see [`AgentBackend::configured`]).
    pub fn empty() -> Self {
        Self {
            unconfigured: true,
            ..Self::default()
        }
    }

    /// Load rules from a fixture file.
    ///
    /// # Errors
    ///
    /// `not_found` / `io` when the file cannot be read, `invalid_fixture`
    /// naming the problem when it is malformed.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = crate::store::FileStore::read_input(path, 64 << 20, "agents file", ErrorCode::InvalidFixture)?;
        let mut runner =
            Self::from_json(&text).map_err(|e| Error::new(e.code(), format!("{}: {}", path.display(), e.message())))?;
        runner.call_log = std::env::var_os("HWF_FIXTURE_LOG")
            .filter(|v| !v.is_empty())
            .map(Into::into);
        Ok(runner)
    }

    /// Parse rules from fixture JSON text.
    ///
    /// # Errors
    ///
    /// `invalid_fixture` naming the problem.
    pub fn from_json(text: &str) -> Result<Self> {
        let file: FixtureFile =
            serde_json::from_str(text).map_err(|e| Error::new(ErrorCode::InvalidFixture, e.to_string()))?;
        let mut rules = Vec::with_capacity(file.responses.len());
        for (i, raw) in file.responses.into_iter().enumerate() {
            let bad = |msg: &str| Error::new(ErrorCode::InvalidFixture, format!("responses[{i}]: {msg}"));
            let mut matcher = Vec::new();
            let mut prompt_contains = None;
            for (k, v) in raw.matcher {
                if k == "prompt_contains" {
                    prompt_contains = Some(
                        v.as_str()
                            .ok_or_else(|| bad("prompt_contains must be a string"))?
                            .to_owned(),
                    );
                } else {
                    let path: Vec<String> = k.split('.').map(str::to_owned).collect();
                    if path.iter().any(String::is_empty) {
                        return Err(bad(&format!("bad match path {k:?}")));
                    }
                    matcher.push((path, v));
                }
            }
            check_numbers(&format!("responses[{i}]"), raw.tokens, raw.delay_ms)?;
            for (j, a) in raw.sequence.iter().flatten().enumerate() {
                check_numbers(&format!("responses[{i}].sequence[{j}]"), a.tokens, a.delay_ms)?;
            }
            let raw_is_sequence = raw.sequence.is_some();
            let answers = match raw.sequence {
                Some(seq) if seq.is_empty() => return Err(bad("sequence is empty")),
                Some(seq) => {
                    if raw.output.is_some() || raw.error.is_some() {
                        return Err(bad("use either \"sequence\" or \"output\"/\"error\", not both"));
                    }
                    seq.into_iter()
                        .map(|mut a| {
                            a.tokens = a.tokens.or(raw.tokens);
                            a.delay_ms = a.delay_ms.or(raw.delay_ms);
                            a.usage = a.usage.or_else(|| raw.usage.clone());
                            a
                        })
                        .collect()
                }
                None => vec![RawAnswer {
                    output: raw.output,
                    error: raw.error,
                    code: raw.code,
                    answer: raw.answer,
                    usage: raw.usage,
                    tokens: raw.tokens,
                    delay_ms: raw.delay_ms,
                }],
            };
            for (j, a) in answers.iter().enumerate() {
                if a.output.is_some() == a.error.is_some() {
                    return Err(bad("each answer needs exactly one of \"output\" or \"error\""));
                }
                if let Some(code) = &a.code
                    && AgentErrorKind::from_code(code).is_none()
                {
                    return Err(bad(&format!("unknown error code {code:?}")));
                }
                if a.usage.as_ref().is_some_and(|u| !u.is_object()) {
                    return Err(bad("usage must be an object"));
                }
                if let Some(out) = &a.output {
                    let at = if raw_is_sequence {
                        format!("responses[{i}].sequence[{j}].output")
                    } else {
                        format!("responses[{i}].output")
                    };
                    check_reported_tokens(&at, out)?;
                }
            }
            rules.push(Rule {
                matcher,
                prompt_contains,
                answers,
                hits: AtomicUsize::new(0),
            });
        }
        Ok(Self {
            rules,
            call_log: None,
            unconfigured: false,
        })
    }

    /// Whether a rule matches on the named agent `id` (`"agent": id`).
    fn names_agent(&self, id: &str) -> bool {
        self.rules.iter().any(|rule| {
            rule.matcher
                .iter()
                .any(|(path, want)| path.len() == 1 && path[0] == "agent" && want.as_str() == Some(id))
        })
    }

    fn find(&self, request: &Value) -> Option<&Rule> {
        self.rules.iter().find(|rule| {
            rule.matcher
                .iter()
                .all(|(path, want)| lookup(request, path).is_some_and(|got| same_value(got, want)))
                && rule.prompt_contains.as_deref().is_none_or(|needle| {
                    request
                        .get("prompt")
                        .and_then(Value::as_str)
                        .is_some_and(|p| p.contains(needle))
                })
        })
    }
}

/// Whether a request's value is the one a rule matches: equal as JSON
/// values, numbers by value at any depth (`1.50` or `1.0` in a fixture
/// matches the `1.5` or `1` a script sends, and the other way round, as
/// Python's `==` and Node's `JSON.stringify` compare them; numbers keep
/// their text here). Booleans are not numbers (`true` is not `1`).
fn same_value(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Number(a), Value::Number(b)) => same_number(a, b),
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y)),
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| same_value(x, y)))
        }
        _ => got == want,
    }
}

/// Two JSON numbers by value: integers exactly, anything else as the
/// doubles they read as (what a script's runtime sees).
fn same_number(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x == y;
    }
    hwf_core::fingerprint::canonical_string(&Value::Number(a.clone()))
        == hwf_core::fingerprint::canonical_string(&Value::Number(b.clone()))
        || a.as_f64().is_some_and(|x| b.as_f64() == Some(x))
}

/// The longest fixture delay: one day.
const MAX_DELAY_MS: u64 = 86_400_000;
/// The most tokens one fixture answer may report.
const MAX_TOKENS: u64 = 1_000_000_000_000;

/// `delay_ms` and `tokens` of one answer, within their ranges.
fn check_numbers(at: &str, tokens: Option<u64>, delay_ms: Option<u64>) -> Result<()> {
    use hwf_core::limits::check_range;
    let bad = |e: hwf_core::limits::OutOfRange| e.error(ErrorCode::InvalidFixture);
    if let Some(t) = tokens {
        check_range(&format!("{at}.tokens"), t, 0, MAX_TOKENS).map_err(bad)?;
    }
    if let Some(d) = delay_ms {
        check_range(&format!("{at}.delay_ms"), d, 0, MAX_DELAY_MS).map_err(bad)?;
    }
    Ok(())
}

/// Token counts an output reports to the broker (`_tokens`, `usage.*`),
/// within range.
fn check_reported_tokens(at: &str, output: &Value) -> Result<()> {
    use hwf_core::limits::check_range;
    let bad = |e: hwf_core::limits::OutOfRange| e.error(ErrorCode::InvalidFixture);
    let fields = [
        ("_tokens", output.get("_tokens")),
        ("usage.total_tokens", output.pointer("/usage/total_tokens")),
        ("usage.input_tokens", output.pointer("/usage/input_tokens")),
        ("usage.output_tokens", output.pointer("/usage/output_tokens")),
    ];
    for (name, v) in fields {
        if let Some(n) = v.and_then(Value::as_u64) {
            check_range(&format!("{at}.{name}"), n, 0, MAX_TOKENS).map_err(bad)?;
        }
    }
    Ok(())
}

/// Sleep for `d` with sub-millisecond precision: the async timer (1 ms
/// ticks, rounded up) covers all but the last 2 ms, a blocking-pool thread
/// the rest. Fixture delays stand in for real agent latency in benchmarks,
/// so they should not add a millisecond per call.
async fn precise_sleep(d: Duration) {
    let now = std::time::Instant::now();
    let deadline = now.checked_add(d).unwrap_or(now);
    let coarse = d.saturating_sub(Duration::from_millis(2));
    if !coarse.is_zero() {
        tokio::time::sleep(coarse).await;
    }
    let rest = deadline.saturating_duration_since(std::time::Instant::now());
    if !rest.is_zero() {
        let _ = tokio::task::spawn_blocking(move || std::thread::sleep(rest)).await;
    }
}

fn lookup<'v>(value: &'v Value, path: &[String]) -> Option<&'v Value> {
    let mut cur = value;
    for seg in path {
        cur = match cur {
            Value::Object(map) => map.get(seg.as_str())?,
            Value::Array(items) => items.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

impl AgentBackend for FixtureRunner {
    fn configured(&self) -> bool {
        !self.unconfigured
    }

    /// Every answered call: a `sequence` hands out its entries in arrival
    /// order, and fixture answers come back at once, so delivering them in
    /// call order at settle points is what makes a fixture run the same on
    /// every run (as Node and CPython resolve answers that arrive
    /// together). A call no rule matches fails at once.
    fn answers_in_order(&self, request: &Value) -> bool {
        self.find(request).is_some()
    }

    fn reserve(&self, request: &Value) -> Option<u64> {
        let rule = self.find(request)?;
        Some(rule.hits.fetch_add(1, Ordering::Relaxed) as u64)
    }

    fn call<'a>(&'a self, call: AgentCall<'a>) -> BoxFuture<'a, Result<AgentReply, AgentError>> {
        Box::pin(async move {
            let Some(rule) = self.find(call.request) else {
                let what = call
                    .request
                    .get("label")
                    .or_else(|| call.request.get("agent"))
                    .or_else(|| call.request.get("prompt"))
                    .and_then(Value::as_str)
                    .unwrap_or("<unlabelled call>");
                // A named agent no rule names at all is unknown here, as
                // the seed's registry has it (`unknown_agent`).
                if let Some(agent) = call.request.get("agent").and_then(Value::as_str)
                    && !self.names_agent(agent)
                {
                    return Err(AgentError::new(
                        AgentErrorKind::Unknown,
                        format!(
                            "unknown agent id {agent:?}: no fixture rule names it (no fixture response for {what})"
                        ),
                    ));
                }
                return Err(AgentError::failed(format!("no fixture response for {what}")));
            };
            let n = match call.place {
                Some(place) => usize::try_from(place).unwrap_or(usize::MAX),
                None => rule.hits.fetch_add(1, Ordering::Relaxed),
            };
            if let Some(log) = &self.call_log {
                use std::io::Write as _;
                if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(log) {
                    // One write per line: concurrent processes append whole lines.
                    let line = format!("{} {}\n", call.idempotency_key, call.attempt);
                    let _ = f.write_all(line.as_bytes());
                }
            }
            let answer = &rule.answers[n.min(rule.answers.len() - 1)];
            if let Some(ms) = answer.delay_ms {
                precise_sleep(Duration::from_millis(ms)).await;
            }
            let usage = match &answer.usage {
                Some(u) => super::answer::usage_of(u),
                None => TokenUsage::total_only(answer.tokens.unwrap_or(0)),
            };
            match (&answer.output, &answer.error) {
                (Some(output), _) => Ok(AgentReply {
                    output: output.clone(),
                    usage,
                    cost_usd: None,
                }),
                (None, Some(err)) => {
                    let kind = answer
                        .code
                        .as_deref()
                        .and_then(AgentErrorKind::from_code)
                        .unwrap_or(AgentErrorKind::Failed);
                    let mut e = AgentError::new(kind, err.clone()).with_spend(usage, None);
                    e.answer = answer.answer.clone();
                    Err(e)
                }
                (None, None) => Err(AgentError::failed("fixture answer has no output")),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(runner: &FixtureRunner, req: Value) -> Result<AgentReply, AgentError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("rt");
        rt.block_on(runner.call(AgentCall {
            request: &req,
            idempotency_key: "r:1",
            attempt: 1,
            feedback: None,
            agent_type: None,
            model: None,
            effort: None,
            place: None,
        }))
    }

    #[test]
    fn first_matching_rule_answers() {
        let r = FixtureRunner::from_json(
            r#"{"responses": [
              {"match": {"phase": "find", "context.area": "totals"}, "output": {"bugs": []}},
              {"match": {"agent": "hermes.greeter"}, "output": {"greeting": "hello, world"}, "tokens": 12},
              {"match": {"label": "flaky"}, "sequence": [{"error": "runner down"}, {"output": {"ok": true}}]},
              {"match": {"prompt_contains": "slow"}, "output": {}, "delay_ms": 5}
            ]}"#,
        )
        .expect("parse");
        let greet = call(&r, json!({"agent": "hermes.greeter"})).expect("greet");
        assert_eq!(
            greet,
            AgentReply {
                output: json!({"greeting": "hello, world"}),
                usage: TokenUsage::total_only(12),
                cost_usd: None,
            }
        );
        assert_eq!(
            call(&r, json!({"phase": "find", "context": {"area": "totals"}}))
                .expect("find")
                .output,
            json!({"bugs": []})
        );
        assert!(call(&r, json!({"phase": "find", "context": {"area": "state"}})).is_err());
        assert_eq!(
            call(&r, json!({"label": "flaky"})),
            Err(AgentError::failed("runner down"))
        );
        assert!(call(&r, json!({"label": "flaky"})).is_ok());
        assert!(call(&r, json!({"label": "flaky"})).is_ok(), "last entry repeats");
        assert!(call(&r, json!({"prompt": "a slow one"})).is_ok());
        // Numbers match by value, whatever their text.
        let n = FixtureRunner::from_json(
            r#"{"responses": [{"match": {"input.price": 1.50, "input.qty": 2}, "output": "ok"}]}"#,
        )
        .expect("parse");
        let req: Value = serde_json::from_str(r#"{"input": {"price": 1.5, "qty": 2}}"#).expect("json");
        assert!(call(&n, req).is_ok(), "1.5 matches 1.50");
        let other: Value = serde_json::from_str(r#"{"input": {"price": 1.51, "qty": 2}}"#).expect("json");
        assert!(call(&n, other).is_err(), "1.51 does not");
        // `1.0` and `1` are one number at any depth, as Python's `==` and
        // Node's JSON text have them; `true` is not `1`.
        let whole = FixtureRunner::from_json(
            r#"{"responses": [{"match": {"input.n": 1, "input.xs": [2.0, {"k": 3}]}, "output": "ok"}]}"#,
        )
        .expect("parse");
        let req: Value = serde_json::from_str(r#"{"input": {"n": 1.0, "xs": [2, {"k": 3.00}]}}"#).expect("json");
        assert!(call(&whole, req).is_ok(), "1.0 matches 1");
        let req: Value = serde_json::from_str(r#"{"input": {"n": true, "xs": [2, {"k": 3}]}}"#).expect("json");
        assert!(call(&whole, req).is_err(), "true is not 1");
        let req: Value = serde_json::from_str(r#"{"input": {"n": 1, "xs": [2, {"k": 3, "j": 1}]}}"#).expect("json");
        assert!(call(&whole, req).is_err(), "an extra key is another object");
        // `"output": null` is an answer: the agent answered null.
        let null = FixtureRunner::from_json(
            r#"{"responses": [{"match": {"label": "n"}, "output": null}, {"sequence": [{"output": null}]}]}"#,
        )
        .expect("parse");
        assert_eq!(call(&null, json!({"label": "n"})).expect("null").output, Value::Null);
        assert_eq!(call(&null, json!({"label": "m"})).expect("null").output, Value::Null);
        assert_eq!(
            call(&r, json!({"label": "nobody"})),
            Err(AgentError::failed("no fixture response for nobody"))
        );
    }

    #[test]
    fn malformed_fixtures_name_the_problem() {
        for (text, needle) in [
            ("{", "EOF"),
            (r#"{"responses": [{"match": {}}]}"#, "responses[0]: each answer"),
            (
                r#"{"responses": [{"output": null, "error": "down"}]}"#,
                "responses[0]: each answer",
            ),
            (
                r#"{"responses": [{"match": {"a..b": 1}, "output": 1}]}"#,
                "bad match path",
            ),
            (r#"{"responses": [], "extra": 1}"#, "unknown field"),
            (
                r#"{"responses": [{"output": 1, "delay_ms": 18446744073709551615}]}"#,
                "responses[0].delay_ms = 18446744073709551615 is out of range: expected 0 to 86400000",
            ),
            (
                r#"{"responses": [{"sequence": [{"output": 1}, {"output": 2, "tokens": 18446744073709551615}]}]}"#,
                "responses[0].sequence[1].tokens",
            ),
            (
                r#"{"responses": [{"output": {"_tokens": 18446744073709551615}}]}"#,
                "responses[0].output._tokens",
            ),
            (
                r#"{"responses": [{"sequence": [{"output": {"usage": {"input_tokens": 18446744073709551615}}}]}]}"#,
                "responses[0].sequence[0].output.usage.input_tokens",
            ),
        ] {
            let err = FixtureRunner::from_json(text).expect_err(text);
            assert_eq!(err.code(), ErrorCode::InvalidFixture);
            assert!(err.message().contains(needle), "{err}");
        }
    }
}
