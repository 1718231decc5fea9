//! Durable capabilities: calls that may have to wait — for an external
//! event, a human answer, or time — without holding an instance. When the
//! answer is not there yet the call parks the run ([`CapabilityError::Park`]);
//! a runner continues the run once the wait resolves, replaying everything
//! up to this call, which then finds its answer.
//!
//! - `events.wait` (`read_only`): `{source?, type?, subject?, payload?: {field:
//!   value}, after_version?}` → the first matching event after that version.
//! - `human.ask` (`read_only`): `{prompt, schema?, choices?}` → `{answer,
//!   actor, channel, message_id}` from `hwf control decide <run> <call>
//!   respond --value JSON`; the answer is validated against the schema.
//! - `timer.sleep` (`read_only`): `{ms}` → `{slept_ms}` once `ms` have
//!   passed since the call first started (a real deadline for the runner;
//!   the guest sees only the result).

use super::{Capability, CapabilityCall, CapabilityError, CapabilityHandler, SideEffect, WaitRequest};
use hwf_core::BoxFuture;
use hwf_core::control::Decision;
use hwf_core::model::ExternalEvent;
use serde_json::{Value, json};
use std::sync::Arc;

struct EventsWait;
struct HumanAsk;
struct TimerSleep;

fn opt_str<'a>(input: &'a Value, key: &str) -> Result<Option<&'a str>, CapabilityError> {
    match input.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(CapabilityError::InvalidInput(format!("{key} must be a string"))),
    }
}

/// Whether an event matches an `events.wait` predicate.
pub fn matches(input: &Value, e: &ExternalEvent) -> bool {
    let after = input.get("after_version").and_then(Value::as_u64).unwrap_or(0);
    let field = |k: &str| input.get(k).and_then(Value::as_str);
    e.version > after
        && field("source").is_none_or(|s| s == e.source)
        && field("type").is_none_or(|t| t == e.kind)
        && field("subject").is_none_or(|s| Some(s) == e.subject.as_deref())
        && input.get("payload").and_then(Value::as_object).is_none_or(|want| {
            want.iter()
                .all(|(k, v)| e.payload.pointer(&format!("/{}", k.replace('.', "/"))) == Some(v))
        })
}

impl CapabilityHandler for EventsWait {
    fn call<'a>(&'a self, call: CapabilityCall<'a>) -> BoxFuture<'a, Result<Value, CapabilityError>> {
        Box::pin(async move {
            let input = call.input;
            for k in ["source", "type", "subject"] {
                opt_str(input, k)?;
            }
            if let Some(found) = call.durable.events()?.into_iter().find(|e| matches(input, e)) {
                return serde_json::to_value(found).map_err(|e| CapabilityError::Failed(e.to_string()));
            }
            let summary = format!(
                "event {} {}{}",
                opt_str(input, "source")?.unwrap_or("*"),
                opt_str(input, "type")?.unwrap_or("*"),
                opt_str(input, "subject")?
                    .map(|s| format!(" about {s}"))
                    .unwrap_or_default()
            );
            Err(CapabilityError::Park(WaitRequest {
                kind: "event".into(),
                summary,
                wake_at_ms: None,
                detail: input.clone(),
            }))
        })
    }
}

impl CapabilityHandler for HumanAsk {
    fn call<'a>(&'a self, call: CapabilityCall<'a>) -> BoxFuture<'a, Result<Value, CapabilityError>> {
        Box::pin(async move {
            let input = call.input;
            let prompt = opt_str(input, "prompt")?
                .or(opt_str(input, "question")?)
                .ok_or_else(|| CapabilityError::InvalidInput("prompt (the question) is required".into()))?;
            let Some(d) = call.durable.decision()? else {
                return Err(CapabilityError::Park(WaitRequest {
                    kind: "human".into(),
                    summary: format!("question: {}", hwf_core::redact::clip(prompt, 200)),
                    wake_at_ms: None,
                    detail: input.clone(),
                }));
            };
            match d.decision {
                Some(Decision::Respond) => {
                    let answer = d.value.clone().unwrap_or(Value::Null);
                    check_answer(input, &answer).map_err(CapabilityError::InvalidInput)?;
                    Ok(json!({
                        "answer": answer,
                        "actor": d.actor,
                        "channel": d.channel,
                        "message_id": d.message_id,
                        "decided_at_ms": d.ts_ms,
                    }))
                }
                Some(Decision::Reject) => Err(CapabilityError::Failed(format!(
                    "the question was declined by {}{}",
                    d.actor,
                    d.reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default()
                ))),
                _ => Err(CapabilityError::InvalidInput(
                    "a question needs `decide … respond --value JSON`".into(),
                )),
            }
        })
    }
}

/// Check an answer against a question's `schema` and `choices`.
///
/// # Errors
///
/// Why the answer does not fit.
pub fn check_answer(question: &Value, answer: &Value) -> Result<(), String> {
    if let Some(choices) = question.get("choices").and_then(Value::as_array)
        && !choices.contains(answer)
    {
        return Err(format!("the answer {answer} is not one of the choices"));
    }
    if let Some(schema) = question.get("schema").filter(|s| !s.is_null()) {
        let compiled = hwf_core::schema::OutputSchema::compile(schema)?;
        compiled
            .check(answer)
            .map_err(|e| format!("the answer does not match the schema: {e}"))?;
    }
    Ok(())
}

impl CapabilityHandler for TimerSleep {
    fn call<'a>(&'a self, call: CapabilityCall<'a>) -> BoxFuture<'a, Result<Value, CapabilityError>> {
        Box::pin(async move {
            let ms = call.input.get("ms").and_then(Value::as_u64).ok_or_else(|| {
                CapabilityError::InvalidInput("ms (a whole number of milliseconds) is required".into())
            })?;
            let wake = call.durable.first_started_ms().saturating_add(ms);
            if call.durable.now_ms() >= wake {
                return Ok(json!({"slept_ms": ms}));
            }
            Err(CapabilityError::Park(WaitRequest {
                kind: "timer".into(),
                summary: format!("timer of {ms} ms"),
                wake_at_ms: Some(wake),
                detail: call.input.clone(),
            }))
        })
    }
}

/// The three durable capabilities.
pub fn capabilities() -> Vec<Capability> {
    let cap = |name: &str, description: &str, handler: Arc<dyn CapabilityHandler>| Capability {
        name: name.into(),
        class: SideEffect::ReadOnly,
        description: description.into(),
        replayable: true,
        handler,
        input_schema: None,
    };
    vec![
        cap(
            "events.wait",
            "Wait for an external event: {source?, type?, subject?, payload?, after_version?} → the event",
            Arc::new(EventsWait),
        ),
        cap(
            "human.ask",
            "Ask a human and wait: {prompt, schema?, choices?} → {answer, actor, channel, message_id}",
            Arc::new(HumanAsk),
        ),
        cap("timer.sleep", "Wait durably: {ms} → {slept_ms}", Arc::new(TimerSleep)),
    ]
}
