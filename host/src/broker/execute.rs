//! Executing agent and capability calls once the broker has numbered and
//! journaled them: budgets, agent types, the runner with schema retries,
//! policy checks, capability handlers, transcripts.

use super::{CallErrorKind, CallFailure, Event, RunContext, lock, redact, schema};
use crate::agents::{AgentCall, AgentErrorKind, AgentType, TokenUsage, answer};
use crate::capabilities::policy::ApprovalMode;
use crate::capabilities::{CapabilityCall, CapabilityError, Durable, WaitRequest};
use crate::vm::limits::HostTrap;
use hwf_core::BoxFuture;
use hwf_core::control::{Control, Controls, Decision};
use serde_json::Value;
use std::time::Duration;

impl RunContext {
    /// Admit one agent call against the run's budgets — `max_agent_calls`,
    /// the cost budget, the token budget — and count it. A prompt-cache hit
    /// is admitted the same way (the seed's cache hit "mirrors the live
    /// accounting").
    pub(crate) fn admit_agent_call(&self) -> Result<(), CallFailure> {
        let mut stats = lock(&self.stats);
        if stats.counts.agent_calls >= self.limits.max_agent_calls {
            let f = CallFailure::new(
                CallErrorKind::BudgetExhausted,
                "limit_agent",
                format!("the run may make at most {} agent calls", self.limits.max_agent_calls),
            );
            return Err(f);
        }
        if let Some(max) = self.limits.max_cost_micro_usd
            && stats.counts.cost_micro_usd >= max
        {
            let f = CallFailure::new(
                CallErrorKind::BudgetExhausted,
                "cost_budget",
                format!(
                    "the run's cost budget of ${:.6} is spent (${:.6} reported)",
                    max as f64 / 1e6,
                    stats.counts.cost_micro_usd as f64 / 1e6
                ),
            );
            return Err(f);
        }
        if let Some(max) = self.limits.max_tokens
            && stats.counts.tokens >= max
        {
            let f = CallFailure::new(
                CallErrorKind::BudgetExhausted,
                "token_budget",
                format!(
                    "the run's token budget of {max} is spent ({} used)",
                    stats.counts.tokens
                ),
            );
            return Err(f);
        }
        stats.counts.agent_calls += 1;
        Ok(())
    }

    /// The agent type a request names, or `general-purpose` for a bare
    /// prompt agent (none for a registered agent without one); a type that
    /// does not resolve fails the call with `invalid_agent_type`. It needs
    /// no agent backend, so a resume without one refuses the call again as
    /// the first run did.
    pub(super) fn agent_type_of(&self, request: &Value) -> Result<Option<AgentType>, CallFailure> {
        let type_name = request.get("agent_type").and_then(Value::as_str);
        if type_name.is_none() && request.get("agent").is_some() {
            return Ok(None);
        }
        self.services
            .agent_types
            .resolve(type_name)
            .map(Some)
            .map_err(|e| CallFailure::new(CallErrorKind::Failed, "invalid_agent_type", e))
    }

    /// The place of a call whose backend answers in arrival order (a
    /// fixture `sequence`): held until the run settles, reserved in
    /// call-id order (`turns.rs`). `None` for every other call.
    pub(super) async fn place_of(&self, call_id: &str, request: &Value) -> Option<u64> {
        if !self.services.agents.answers_in_order(request) {
            return None;
        }
        let (agents, request) = (self.services.agents.clone(), request.clone());
        let place = self
            .turns
            .turn(call_id, move || agents.reserve(&request))
            .await
            .flatten();
        if place.is_some() {
            self.turns.mark_placed(call_id);
        }
        place
    }

    /// Budget check, agent runner, output clean-up, schema validation and
    /// retries. Returns (outcome, tokens, attempts); the tokens by kind are
    /// charged to the call ([`RunContext::charge_usage`]). Only an answer
    /// that could be fixed (JSON that does not match, text without JSON) is
    /// retried with feedback; a refusal, a truncated answer, a tool call or
    /// a failed agent ends the call at once. Every rejected answer is
    /// journaled (`call_attempt`).
    ///
    /// An attempt a backend answers in arrival order waits for its turn
    /// first (`turns.rs`), after the call's width permit and `call_started`
    /// line, so the journal keeps the order calls were made in.
    ///
    /// `rules` are the request's answer rules (`x-hwf`): fewer attempts, a
    /// retry's reason in its request, a stricter integer or an
    /// object answer.
    pub(super) async fn execute_agent(
        &self,
        call_id: &str,
        request: &Value,
        rules: &hwf_core::schema::AnswerRules,
    ) -> (Result<Value, CallFailure>, u64, u32) {
        let agent_type = match self.agent_type_of(request) {
            Ok(t) => t,
            Err(f) => return (Err(f), 0, 0),
        };
        let model = request
            .get("model")
            .and_then(Value::as_str)
            .or(agent_type.as_ref().and_then(|t| t.model.as_deref()));
        let effort = request
            .get("effort")
            .and_then(Value::as_str)
            .or(agent_type.as_ref().and_then(|t| t.effort.as_deref()));
        // Guest values reach a command backend's argv: plain names only.
        if let Err(r) = crate::agents::guard::check_agent_options(model, effort, None, None) {
            return (Err(CallFailure::new(CallErrorKind::Failed, r.code, r.message)), 0, 0);
        }
        let schema = match request.get("schema") {
            None | Some(Value::Null) => None,
            Some(s) => match schema::OutputSchema::compile_with(s, rules) {
                Ok(s) => Some(s),
                Err(e) => return (Err(CallFailure::new(CallErrorKind::Failed, "invalid_schema", e)), 0, 0),
            },
        };
        if let Err(f) = self.admit_agent_call() {
            return (Err(f), 0, 0);
        }
        let key = self.idempotency_key(call_id);
        let mut usage = TokenUsage::default();
        let mut feedback: Option<String> = None;
        let run_attempts = self.limits.max_schema_retries.saturating_add(1);
        let max_attempts = rules.attempts.map_or(run_attempts, |n| n.min(run_attempts));
        let mut attempt = 0;
        let outcome = loop {
            attempt += 1;
            // A retry the rules ask to explain in the request itself (the
            // seed's `context.schema_validation_error`).
            let retry_request;
            let asked = match feedback.as_deref() {
                Some(problem) if rules.retry_context => {
                    retry_request = with_retry_context(request, attempt, max_attempts, problem);
                    &retry_request
                }
                _ => request,
            };
            let call = AgentCall {
                request: asked,
                idempotency_key: &key,
                attempt,
                feedback: feedback.as_deref(),
                agent_type: agent_type.as_ref(),
                model,
                effort,
                place: self.place_of(call_id, asked).await,
            };
            // Waiting on an agent: the unit does not keep the run from
            // settling (`turns.rs`).
            let reply = match self.turns.wait(self.services.agents.call(call)).await {
                Ok(reply) => reply,
                Err(e) => {
                    if let Some(usd) = e.cost_usd {
                        self.charge_cost(call_id, usd);
                    }
                    usage.add(&e.usage);
                    let message = redact::redact_text(&e.message).into_owned();
                    if let Some(said) = &e.answer {
                        self.journal_rejected(call_id, attempt, e.code(), &message, said);
                    }
                    let kind = match e.kind {
                        AgentErrorKind::TimedOut => CallErrorKind::TimedOut,
                        AgentErrorKind::Cancelled => CallErrorKind::Cancelled,
                        _ => CallErrorKind::Failed,
                    };
                    break Err(CallFailure::new(kind, e.code(), message));
                }
            };
            if let Some(usd) = reply.cost_usd {
                self.charge_cost(call_id, usd);
            }
            let (output, reported) = take_usage(reply.output);
            usage.add(if reply.usage.is_empty() {
                &reported
            } else {
                &reply.usage
            });
            let Some(schema) = &schema else {
                break Ok(output);
            };
            // Text is read the way every backend's is: the final JSON value
            // after any preamble; prose that refuses ends the call.
            let output = match output {
                Value::String(text) => match answer::parse_text(&text, None, true) {
                    // A check made once (a JSON step, a legacy agent) reads
                    // prose as an answer that is not JSON, in the runtime's
                    // words, as its reference does.
                    Value::String(prose) if rules.attempts != Some(1) && answer::looks_like_refusal(&prose) => {
                        let message = format!(
                            "the agent refused: {}",
                            redact::redact_text(hwf_core::redact::clip(prose.trim(), 400))
                        );
                        self.journal_rejected(call_id, attempt, "agent_refused", &message, &prose);
                        break Err(CallFailure::new(CallErrorKind::Failed, "agent_refused", message));
                    }
                    other => other,
                },
                other => other,
            };
            let said = answer::as_text(&output);
            let checked = schema::parse_text_output(output).and_then(|out| schema.check(&out).map(|()| out));
            match checked {
                Ok(out) => break Ok(out),
                Err(problem) => {
                    let problem = redact::redact_text(&problem).into_owned();
                    self.journal_rejected(call_id, attempt, "schema_mismatch", &problem, &said);
                    if attempt >= max_attempts {
                        // One attempt asked for (a check made once, as a
                        // legacy agent's): the reason alone.
                        let message = if rules.attempts == Some(1) {
                            problem
                        } else {
                            format!("{problem} (after {max_attempts} attempts)")
                        };
                        break Err(CallFailure::new(
                            CallErrorKind::SchemaMismatch,
                            "schema_mismatch",
                            message,
                        ));
                    }
                    feedback = Some(problem);
                }
            }
        };
        self.charge_usage(call_id, &usage);
        (outcome, usage.total(), attempt)
    }

    /// Journal an attempt whose answer did not become the call's result:
    /// its code, why, and what the agent said (redacted, clipped to
    /// [`MAX_ANSWER_SHOWN`](hwf_core::journal::MAX_ANSWER_SHOWN) bytes). A
    /// journal failure here surfaces on the completion line.
    fn journal_rejected(&self, call_id: &str, attempt: u32, code: &str, error: &str, said: &str) {
        let said = redact::redact_text(said);
        let clipped = hwf_core::redact::clip(&said, hwf_core::journal::MAX_ANSWER_SHOWN);
        let _ = self.journal(&Event::CallAttempt {
            call: call_id,
            attempt,
            error,
            code: Some(code),
            answer: Some(clipped),
        });
    }
}

/// `request` for a schema retry, its `context` (an object, created when
/// absent) holding `schema_validation_error`: `{attempt, max_retries, code:
/// "schema", message}`, as the seed's broker sends a retry
/// (`_request_with_schema_retry_context`); the message is the validator's.
fn with_retry_context(request: &Value, attempt: u32, max_attempts: u32, problem: &str) -> Value {
    let mut retry = request.clone();
    if let Value::Object(map) = &mut retry {
        let context = map
            .entry("context")
            .and_modify(|c| {
                if !c.is_object() {
                    *c = Value::Object(serde_json::Map::new());
                }
            })
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Value::Object(context) = context {
            context.insert(
                "schema_validation_error".into(),
                serde_json::json!({
                    "attempt": attempt,
                    "max_retries": max_attempts.saturating_sub(1),
                    "code": "schema",
                    "message": problem,
                }),
            );
        }
    }
    retry
}

impl RunContext {
    /// `runs/<id>/transcripts/<call>.json`: metadata of one agent call
    /// (never the prompt or the output itself), redacted.
    pub(super) fn write_transcript(
        &self,
        call_id: &str,
        request: &Value,
        outcome: &Result<Value, CallFailure>,
        tokens: u64,
        attempts: u32,
        duration: Duration,
    ) {
        let Some(store) = &self.services.store else { return };
        let agent_type = request
            .get("agent_type")
            .and_then(Value::as_str)
            .or(if request.get("agent").is_none() {
                Some(crate::agents::types::GENERAL_PURPOSE)
            } else {
                None
            });
        let result_keys: Vec<&String> = match outcome {
            Ok(Value::Object(m)) => m.keys().collect(),
            _ => Vec::new(),
        };
        let mut t = serde_json::json!({
            "call": call_id,
            "label": request.get("label"),
            "phase": request.get("phase"),
            "agent": request.get("agent"),
            "agent_type": agent_type,
            "model": request.get("model"),
            "effort": request.get("effort"),
            "attempts": attempts,
            "state": if outcome.is_ok() { "done" } else { "failed" },
            "duration_ms": duration.as_millis() as u64,
            "tokens": tokens,
            "usage": lock(&self.charges).get(call_id).map(|c| c.usage).filter(|u| !u.is_empty()),
            "result_keys": result_keys,
            "error": outcome.as_ref().err(),
        });
        redact::redact_value(&mut t);
        // On a shared store, through the journal's writer task: queued
        // behind the call's own lines, written off the call's path.
        let shared = lock(&self.journal).as_ref().and_then(|j| j.shared_writer().cloned());
        let written = match shared {
            Some(writer) => serde_json::to_vec_pretty(&t)
                .map_err(|e| hwf_core::error::Error::new(hwf_core::error::ErrorCode::Internal, e.to_string()))
                .and_then(|bytes| writer.write_transcript(call_id, bytes)),
            None => self.append_transcript(store, call_id, &t),
        };
        if let Err(e) = written {
            tracing::warn!(error = %e, "could not write transcript");
        }
    }

    /// Append a transcript on the file store, through the run's open
    /// transcripts file (opened at its first call).
    fn append_transcript(
        &self,
        store: &crate::store::Store,
        call_id: &str,
        transcript: &Value,
    ) -> hwf_core::error::Result<()> {
        let mut log = lock(&self.transcripts);
        if log.is_none() {
            match store.open_transcripts(&self.run_id) {
                Some(opened) => *log = Some(opened?),
                None => return store.write_transcript(&self.run_id, call_id, transcript),
            }
        }
        match log.as_ref() {
            Some(log) => log.append(call_id, transcript),
            None => store.write_transcript(&self.run_id, call_id, transcript),
        }
    }

    /// Operator decision (approvals), policy, capability budget, the
    /// handler (with its typed errors), and result clean-up. A call that
    /// must wait parks the run (the `Err`). The flag says whether the
    /// handler ran (the call was charged to the capability budget).
    pub(super) async fn execute_capability(
        &self,
        call_id: &str,
        request: &Value,
        fingerprint: &super::Fingerprint,
    ) -> Result<(Result<Value, CallFailure>, bool), HostTrap> {
        let name = request.get("name").and_then(Value::as_str).unwrap_or("");
        let mut input = request.get("input").cloned().unwrap_or(Value::Null);
        let approval_id = request.get("approval_id").and_then(Value::as_str);
        let policy = &self.services.policy;
        let registered = self.services.capabilities.get(name).map(|c| &**c);
        let durable = CallDurable {
            run: self,
            call_id,
            fingerprint: fingerprint.as_str(),
        };

        // An operator's decision on this call stands in for an approval id.
        let decision = if registered.is_some_and(|c| policy.approval_classes.contains(&c.class)) {
            durable.decision().map_err(store_trap)?
        } else {
            None
        };
        let mut approved = false;
        if let Some(d) = &decision {
            match d.decision {
                Some(Decision::Approve | Decision::Respond) => approved = true,
                Some(Decision::Edit) => {
                    approved = true;
                    input = d.value.clone().unwrap_or(Value::Null);
                }
                Some(Decision::Reject) | None => {
                    return Ok((
                        Err(CallFailure::new(
                            CallErrorKind::Denied,
                            "approval_rejected",
                            format!(
                                "{name:?} was rejected by {}{}",
                                d.actor,
                                d.reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default()
                            ),
                        )),
                        false,
                    ));
                }
            }
        }
        // A plain approval id binds to one request per run; on a
        // continuation its binding is found in the run's journal.
        let journal = || match &self.services.store {
            // Bindings are made by capability calls: only theirs are read
            // whole.
            Some(store) => store
                .read_entries_compact(&self.run_id)
                .and_then(|mut j| {
                    store
                        .resolve_where(&mut j, |e| e.kind() == Some("capability"))
                        .map(|()| j)
                })
                .unwrap_or_else(|e| {
                    // Without the journal a continuation cannot see earlier
                    // bindings: the id binds to this request (said, not hidden).
                    tracing::warn!(run_id = %self.run_id, error = %e, "approval bindings: the journal cannot be read");
                    Vec::new()
                }),
            None => Vec::new(),
        };
        let run = self.run_id.to_string();
        let presented = approval_id.map(|id| crate::capabilities::policy::Presented {
            id,
            run: &run,
            journal: &journal,
        });
        let checked = policy.check(name, registered, &input, presented.as_ref(), approved);
        // The capability's input schema, before its handler, its budget and
        // an operator's approval: an input it does not accept never reaches
        // the handler, nor an approval queue.
        let passed_or_gated = match &checked {
            Ok(_) => true,
            Err(f) => f.kind == CallErrorKind::ApprovalRequired,
        };
        if passed_or_gated
            && let Some(schema) = registered.and_then(|c| c.input_schema.as_ref())
            && let Err(m) = schema.check(&input)
        {
            return Ok((
                Err(CallFailure::new(
                    CallErrorKind::Failed,
                    "invalid_input",
                    format!("{name:?}: {m}"),
                )),
                false,
            ));
        }
        let cap = match checked {
            Ok(cap) => cap,
            Err(f)
                if f.kind == CallErrorKind::ApprovalRequired && policy.on_approval_required == ApprovalMode::Park =>
            {
                let wait = WaitRequest {
                    kind: "approval".into(),
                    summary: format!("approve {name:?}: {}", f.message),
                    wake_at_ms: None,
                    // The class says who may decide it (`[policy] agent_may_approve`).
                    detail: serde_json::json!({"capability": name, "class": registered.map(|c| c.class.as_str()), "input": input, "label": request.get("label")}),
                };
                return Err(self.park(call_id, wait));
            }
            Err(f) => return Ok((Err(f), false)),
        };
        {
            let mut stats = lock(&self.stats);
            if stats.counts.capability_calls >= self.limits.max_capability_calls {
                return Ok((
                    Err(CallFailure::new(
                        CallErrorKind::BudgetExhausted,
                        "limit_capability",
                        format!(
                            "the run may make at most {} capability calls",
                            self.limits.max_capability_calls
                        ),
                    )),
                    false,
                ));
            }
            stats.counts.capability_calls += 1;
        }
        let key = self.idempotency_key(call_id);
        let call = CapabilityCall {
            input: &input,
            label: request.get("label").and_then(Value::as_str),
            approval_id,
            idempotency_key: &key,
            durable: &durable,
            grant: None,
        };
        let result = match cap.handler.call(call).await {
            Ok(v) => v,
            Err(CapabilityError::Park(wait)) => return Err(self.park(call_id, wait)),
            Err(e @ CapabilityError::Store(_)) => return Err(store_trap(e)),
            Err(CapabilityError::InvalidInput(m)) => {
                return Ok((Err(CallFailure::new(CallErrorKind::Failed, "invalid_input", m)), true));
            }
            Err(CapabilityError::Failed(m)) => {
                return Ok((
                    Err(CallFailure::new(CallErrorKind::Failed, "capability_failed", m)),
                    true,
                ));
            }
            Err(CapabilityError::TimedOut(m)) => {
                return Ok((
                    Err(CallFailure::new(CallErrorKind::TimedOut, "capability_timeout", m)),
                    true,
                ));
            }
        };
        Ok((policy.finish_result(name, result), true))
    }
}

/// The trap a store failure behind a capability call ends the run with.
fn store_trap(e: CapabilityError) -> HostTrap {
    match e {
        CapabilityError::Store(e) => HostTrap::new(e.code(), e.message().to_owned()),
        other => HostTrap::new(hwf_core::error::ErrorCode::Internal, other.to_string()),
    }
}

/// The durable context a capability call sees.
struct CallDurable<'a> {
    run: &'a RunContext,
    call_id: &'a str,
    fingerprint: &'a str,
}

impl Durable for CallDurable<'_> {
    fn call_id(&self) -> &str {
        self.call_id
    }
    fn first_started_ms(&self) -> u64 {
        self.run.first_started_ms(self.call_id)
    }
    fn decision(&self) -> Result<Option<Control>, CapabilityError> {
        // A fork's decision on this exact request (journaled as
        // `call_edited` when the run started) stands for an operator's.
        if let Some(d) = self
            .run
            .replay()
            .and_then(|i| i.edited_decision(self.call_id, self.fingerprint))
        {
            return Ok(Some(Control {
                id: format!("fork:{}", self.call_id),
                ts_ms: crate::store::now_ms(),
                action: hwf_core::control::Action::Decide,
                call: Some(self.call_id.to_owned()),
                decision: Some(if d.approve { Decision::Approve } else { Decision::Reject }),
                value: None,
                actor: d.actor.clone(),
                reason: d.reason.clone(),
                channel: Some("fork".into()),
                message_id: None,
                fingerprint: Some(self.fingerprint.to_owned()),
            }));
        }
        let Some(store) = self.run.services.store.as_ref() else {
            return Ok(None);
        };
        let controls = Controls(store.read_controls(&self.run.run_id).map_err(CapabilityError::Store)?);
        let Some(d) = controls.decision(self.call_id) else {
            return Ok(None);
        };
        // A decision is about one exact request: if the call id now carries
        // a different request (changed args, a different agent answer), the
        // call waits for a new decision.
        match d.fingerprint.as_deref() {
            Some(fp) if fp != self.fingerprint => {
                tracing::warn!(call = self.call_id, "ignoring a decision made for a different request");
                Ok(None)
            }
            _ => Ok(Some(d.clone())),
        }
    }
    fn events(&self) -> Result<Vec<crate::store::ExternalEvent>, CapabilityError> {
        match self.run.services.store.as_ref() {
            Some(s) => s.read_events().map_err(CapabilityError::Store),
            None => Ok(Vec::new()),
        }
    }
    fn now_ms(&self) -> u64 {
        crate::store::now_ms()
    }
    fn run_id(&self) -> Option<&hwf_core::ids::RunId> {
        Some(&self.run.run_id)
    }
    fn store(&self) -> Option<&crate::store::Store> {
        self.run.services.store.as_deref()
    }
    fn grant_terms<'a>(&'a self, grant_call: &'a str) -> BoxFuture<'a, Result<Option<Value>, CapabilityError>> {
        Box::pin(self.run.grant_terms(grant_call))
    }
    fn charge_grant<'a>(
        &'a self,
        grant_call: &'a str,
        count: u64,
    ) -> BoxFuture<'a, Result<crate::capabilities::GrantCharge, CapabilityError>> {
        Box::pin(self.run.charge_grant(grant_call, self.call_id, count))
    }
}

/// Read a token count out of an agent's output: a top-level `_tokens`
/// number (left in the output, as the seed's broker leaves it: a script
/// returning the output returns it too) or `usage.total_tokens` /
/// `usage.input_tokens + usage.output_tokens`.
fn take_usage(output: Value) -> (Value, TokenUsage) {
    let Value::Object(map) = &output else {
        return (output, TokenUsage::default());
    };
    if let Some(n) = map.get("_tokens").and_then(Value::as_u64) {
        return (output, TokenUsage::total_only(n));
    }
    let usage = map.get("usage").map(answer::usage_of).unwrap_or_default();
    (output, usage)
}
