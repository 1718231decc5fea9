//! The broker: the one pipeline every host call of a harness goes through.
//!
//! Stage order for an effectful call (agent, capability, …):
//!
//! 1. **controls and limits** — a stop ends the instance; exceeding
//!    `max_calls` ends the run with `limit_calls`;
//! 2. **identity** — the call gets the next id in its instance's
//!    [`CallScope`] and a [`Fingerprint`] of `{kind, request}`;
//! 3. **policy and budget** — unknown capabilities are denied, agent calls
//!    past `max_agent_calls` get `budget-exhausted`;
//! 4. **journal** `call_started` (request redacted);
//! 5. **execute** — the agent runner, with schema validation and retries;
//! 6. **journal** `call_completed` (result redacted), fsync'd;
//! 7. **answer** the guest.
//!
//! `phase`, `log` and `budget` count toward `max_calls` but take no call id,
//! so adding a log line never shifts the ids of later calls.
//!
//! Files: [`redact`] (credentials out of everything stored or shown),
//! [`fingerprint`] (canonical JSON + blake3), [`journal`] (events and the
//! writer), [`schema`] (output schemas and fences).

pub mod fingerprint;
pub mod journal;
pub mod redact;
pub mod schema;

use crate::agents::{AgentCall, AgentError, AgentRunner, AgentTypes};
use crate::capabilities::{CapabilityCall, CapabilityError, Policy, Registry};
use crate::store::FileStore;
use crate::error::{ErrorCode, Result};
use crate::ids::{CallScope, RunId};
use crate::store::Counts;
use crate::vm::limits::{HostTrap, Limits};
pub use fingerprint::Fingerprint;
pub use journal::{CallErrorKind, CallFailure, Event, Journal};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tracing::Instrument;

/// Longest log line kept (bytes); longer lines are clipped.
const MAX_LOG_LINE: usize = 16 * 1024;

/// Live figures of a run, shared by all its instances.
#[derive(Debug, Default)]
struct RunStats {
    counts: Counts,
    phase: Option<String>,
    /// Time spent inside host calls (excluded from guest CPU time).
    host_time: Duration,
}

/// What a run calls out to: agent runner, capabilities, policy, limits,
/// agent types, and where transcripts go.
#[derive(Clone)]
pub struct Services {
    /// Answers agent calls.
    pub agents: Arc<dyn AgentRunner>,
    /// Registered capabilities.
    pub capabilities: Arc<Registry>,
    /// Capability policy.
    pub policy: Policy,
    /// Run limits and budgets.
    pub limits: Limits,
    /// Agent type definitions.
    pub agent_types: Arc<AgentTypes>,
    /// Store for per-call transcripts (none: not written).
    pub store: Option<Arc<FileStore>>,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services").field("policy", &self.policy).field("limits", &self.limits).finish_non_exhaustive()
    }
}

impl Services {
    /// Services with an agent runner and everything else default: no
    /// capabilities, default policy and limits, built-in agent types only.
    pub fn new(agents: Arc<dyn AgentRunner>) -> Self {
        Self {
            agents,
            capabilities: Arc::new(Registry::new()),
            policy: Policy::default(),
            limits: Limits::default(),
            agent_types: Arc::new(AgentTypes::default()),
            store: None,
        }
    }
}

/// Everything one run's instances share: identity, journal, services,
/// counters, the stop flag.
pub struct RunContext {
    run_id: RunId,
    journal: Mutex<Option<Journal>>,
    services: Services,
    limits: Limits,
    stats: Mutex<RunStats>,
    started: Mutex<Instant>,
    stop: AtomicBool,
}

impl std::fmt::Debug for RunContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunContext").field("run_id", &self.run_id).finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A value as it may be stored: borrowed when it holds nothing secret.
fn redacted(value: &Value) -> Cow<'_, Value> {
    let mut copy = value.clone();
    if redact::redact_value(&mut copy) { Cow::Owned(copy) } else { Cow::Borrowed(value) }
}

impl RunContext {
    /// A context for one run.
    pub fn new(run_id: RunId, journal: Option<Journal>, services: Services) -> Arc<Self> {
        Arc::new(Self {
            run_id,
            journal: Mutex::new(journal),
            limits: services.limits.clone(),
            services,
            stats: Mutex::new(RunStats::default()),
            started: Mutex::new(Instant::now()),
            stop: AtomicBool::new(false),
        })
    }

    /// The run id.
    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// The run's limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Mark the moment guest execution starts (CPU and wall accounting).
    pub fn mark_started(&self) {
        *lock(&self.started) = Instant::now();
    }

    /// Time since [`mark_started`](Self::mark_started).
    pub fn elapsed(&self) -> Duration {
        lock(&self.started).elapsed()
    }

    /// Guest CPU time so far: wall time minus time spent in host calls.
    pub fn guest_time(&self) -> Duration {
        self.elapsed().saturating_sub(lock(&self.stats).host_time)
    }

    /// Ask the run to stop: the next host call or epoch check ends it.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was requested.
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Current counters.
    pub fn counts(&self) -> Counts {
        lock(&self.stats).counts
    }

    /// Current phase.
    pub fn phase(&self) -> Option<String> {
        lock(&self.stats).phase.clone()
    }

    /// Append an event to the journal.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn journal(&self, event: &Event<'_>) -> Result<u64> {
        match lock(&self.journal).as_mut() {
            Some(j) => j.append(event),
            None => Ok(0),
        }
    }

    /// The check run on every epoch tick while guest code executes: stop,
    /// CPU limit, wall limit.
    ///
    /// # Errors
    ///
    /// The trap that ends the instance.
    pub fn check_tick(&self) -> Result<(), HostTrap> {
        if self.stop_requested() {
            return Err(HostTrap::new(ErrorCode::Stopped, "the run was stopped"));
        }
        let elapsed = self.elapsed();
        if elapsed > self.limits.wall() {
            return Err(HostTrap::new(ErrorCode::Timeout, format!("the run exceeded its wall-clock limit of {} ms", self.limits.wall_ms)));
        }
        if self.guest_time() > self.limits.cpu() {
            return Err(HostTrap::new(ErrorCode::CpuLimit, format!("the guest used more than {} ms of CPU", self.limits.cpu_ms)));
        }
        Ok(())
    }

    fn journal_or_trap(&self, event: &Event<'_>) -> Result<(), HostTrap> {
        self.journal(event).map(|_| ()).map_err(|e| HostTrap::new(e.code(), format!("journal write failed: {}", e.message())))
    }

    /// Count one host call; trap when the run is stopped or over `max_calls`.
    fn count_call(&self) -> Result<(), HostTrap> {
        if self.stop_requested() {
            return Err(HostTrap::new(ErrorCode::Stopped, "the run was stopped"));
        }
        let mut stats = lock(&self.stats);
        stats.counts.calls += 1;
        if stats.counts.calls > self.limits.max_calls {
            return Err(HostTrap::new(
                ErrorCode::LimitCalls,
                format!("the run made more than {} host calls", self.limits.max_calls),
            ));
        }
        Ok(())
    }

    fn add_host_time(&self, d: Duration) {
        lock(&self.stats).host_time += d;
    }
}

/// An agent request as the broker sees it.
#[derive(Debug)]
pub struct AgentRequest {
    /// The request object (absent fields omitted; JSON fields parsed).
    pub request: Value,
    /// A field that was not valid JSON, if any (the call fails with it).
    pub invalid: Option<String>,
}

/// The per-instance side of the broker: the instance's call scope and a
/// handle on the run.
#[derive(Debug)]
pub struct InstanceBroker {
    run: Arc<RunContext>,
    scope: CallScope,
    /// Completions of `submit`ted calls not yet taken by `next`.
    ready: BTreeMap<u64, Result<Value, CallFailure>>,
}

/// What `budget()` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetFigures {
    /// Token ceiling.
    pub token_total: Option<u64>,
    /// Tokens spent.
    pub tokens_spent: u64,
    /// Agent calls left.
    pub agent_calls_left: u32,
    /// Host calls left.
    pub calls_left: u32,
}

type CallResult = Result<Result<Value, CallFailure>, HostTrap>;

impl InstanceBroker {
    /// The broker of a run's root instance.
    pub fn root(run: Arc<RunContext>) -> Self {
        Self { run, scope: CallScope::root(), ready: BTreeMap::new() }
    }

    /// The run this instance belongs to.
    pub fn run(&self) -> &Arc<RunContext> {
        &self.run
    }

    /// `agent`: run one agent call through the whole pipeline.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end (stop, `limit_calls`, journal
    /// failure); call-level failures are the inner `Err`.
    pub async fn agent(&mut self, req: AgentRequest) -> CallResult {
        let t0 = Instant::now();
        let out = self.agent_inner(req).await;
        self.run.add_host_time(t0.elapsed());
        out
    }

    async fn agent_inner(&mut self, req: AgentRequest) -> CallResult {
        self.run.count_call()?;
        let call_id = self.scope.next_id();
        let fp = Fingerprint::of("agent", &req.request);
        let span = tracing::info_span!(
            "call",
            run_id = %self.run.run_id,
            call_id = %call_id,
            kind = "agent",
            label = req.request.get("label").and_then(|v| v.as_str()),
            fingerprint = %fp
        );
        let run = self.run.clone();
        async move {
            let label = req.request.get("label").and_then(Value::as_str);
            let phase = req.request.get("phase").and_then(Value::as_str);
            let stored = redacted(&req.request);
            run.journal_or_trap(&Event::CallStarted {
                call: &call_id,
                kind: "agent",
                label,
                phase,
                fingerprint: fp.as_str(),
                request: &stored,
            })?;
            let started = Instant::now();
            let (outcome, tokens, attempts) = if let Some(bad) = &req.invalid {
                (Err(CallFailure::new(CallErrorKind::Failed, "invalid_json", bad)), 0, 0)
            } else {
                run.execute_agent(&call_id, &req.request).await
            };
            {
                let mut stats = lock(&run.stats);
                stats.counts.tokens += tokens;
                if outcome.is_err() {
                    stats.counts.failed += 1;
                }
            }
            let stored_result = outcome.as_ref().ok().map(redacted);
            run.journal_or_trap(&Event::CallCompleted {
                call: &call_id,
                kind: "agent",
                label,
                fingerprint: fp.as_str(),
                ok: outcome.is_ok(),
                result: stored_result.as_deref(),
                error: outcome.as_ref().err(),
                tokens,
                attempts,
                duration_us: started.elapsed().as_micros() as u64,
            })?;
            tracing::debug!(ok = outcome.is_ok(), tokens, attempts, "agent call completed");
            run.write_transcript(&call_id, &req.request, &outcome, tokens, attempts, started.elapsed());
            Ok(outcome)
        }
        .instrument(span)
        .await
    }

    /// `capability`: policy, budget, the handler, result clean-up — the
    /// whole pipeline, journaled.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub async fn capability(&mut self, request: Value) -> CallResult {
        let t0 = Instant::now();
        let out = self.capability_inner(request).await;
        self.run.add_host_time(t0.elapsed());
        out
    }

    async fn capability_inner(&mut self, request: Value) -> CallResult {
        self.run.count_call()?;
        let call_id = self.scope.next_id();
        let fp = Fingerprint::of("capability", &request);
        let span = tracing::info_span!(
            "call",
            run_id = %self.run.run_id,
            call_id = %call_id,
            kind = "capability",
            name = request.get("name").and_then(|v| v.as_str()),
            fingerprint = %fp
        );
        let run = self.run.clone();
        async move {
            let label = request.get("label").and_then(Value::as_str);
            let stored = redacted(&request);
            run.journal_or_trap(&Event::CallStarted {
                call: &call_id,
                kind: "capability",
                label,
                phase: None,
                fingerprint: fp.as_str(),
                request: &stored,
            })?;
            let started = Instant::now();
            let outcome = run.execute_capability(&call_id, &request).await;
            if outcome.is_err() {
                lock(&run.stats).counts.failed += 1;
            }
            run.journal_or_trap(&Event::CallCompleted {
                call: &call_id,
                kind: "capability",
                label,
                fingerprint: fp.as_str(),
                ok: outcome.is_ok(),
                result: outcome.as_ref().ok(),
                error: outcome.as_ref().err(),
                tokens: 0,
                attempts: 1,
                duration_us: started.elapsed().as_micros() as u64,
            })?;
            tracing::debug!(ok = outcome.is_ok(), "capability call completed");
            Ok(outcome)
        }
        .instrument(span)
        .await
    }

    /// A call that is refused before it runs: numbered, journaled, answered.
    fn denied_call(&mut self, kind: &str, request: Value, failure: CallFailure) -> CallResult {
        self.run.count_call()?;
        let call_id = self.scope.next_id();
        let fp = Fingerprint::of(kind, &request);
        let stored = redacted(&request);
        let label = request.get("label").and_then(Value::as_str);
        self.run.journal_or_trap(&Event::CallStarted {
            call: &call_id,
            kind,
            label,
            phase: None,
            fingerprint: fp.as_str(),
            request: &stored,
        })?;
        lock(&self.run.stats).counts.failed += 1;
        self.run.journal_or_trap(&Event::CallCompleted {
            call: &call_id,
            kind,
            label,
            fingerprint: fp.as_str(),
            ok: false,
            result: None,
            error: Some(&failure),
            tokens: 0,
            attempts: 0,
            duration_us: 0,
        })?;
        Ok(Err(failure))
    }

    fn not_supported(what: &str) -> CallFailure {
        CallFailure::new(CallErrorKind::Denied, "not_supported", format!("{what} is not supported yet"))
    }

    /// `parallel`: not supported yet; every slot is `denied`.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn parallel(&mut self, request: Value, slots: usize) -> Result<Vec<Result<Value, CallFailure>>, HostTrap> {
        let out = self.denied_call("parallel", request, Self::not_supported("parallel"))?;
        Ok((0..slots).map(|_| out.clone()).collect())
    }

    /// `pipeline`: not supported yet; every item is `denied`.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn pipeline(&mut self, request: Value, items: usize) -> Result<Vec<Result<Value, CallFailure>>, HostTrap> {
        let out = self.denied_call("pipeline", request, Self::not_supported("pipeline"))?;
        Ok((0..items).map(|_| out.clone()).collect())
    }

    /// `submit`: numbered and journaled; not supported yet, so its completion
    /// is `denied`.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn submit(&mut self, request: Value) -> Result<u64, HostTrap> {
        let out = self.denied_call("submit", request, Self::not_supported("submit"))?;
        let n = self.scope.count();
        self.ready.insert(n, out);
        Ok(n)
    }

    /// `next`: the first of `pending` that has completed.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn next(&mut self, pending: &[u64]) -> Result<(u64, Result<Value, CallFailure>), HostTrap> {
        self.run.count_call()?;
        for call in pending {
            if let Some(out) = self.ready.remove(call) {
                return Ok((*call, out));
            }
        }
        let call = pending.first().copied().unwrap_or(0);
        Ok((call, Err(CallFailure::new(CallErrorKind::Failed, "unknown_call", "next() was given no pending call of this instance"))))
    }

    /// `cancel`: forget pending calls.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn cancel(&mut self, pending: &[u64]) -> Result<(), HostTrap> {
        self.run.count_call()?;
        for call in pending {
            self.ready.remove(call);
        }
        Ok(())
    }

    /// `phase`: record and journal the current phase.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn phase(&mut self, title: &str) -> Result<(), HostTrap> {
        self.run.count_call()?;
        let title = clip(title, 512);
        let title = redact::redact_text(title);
        lock(&self.run.stats).phase = Some(title.clone().into_owned());
        self.run.journal_or_trap(&Event::Phase { title: &title })
    }

    /// `log`: journal a guest log line (redacted, clipped).
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn log(&mut self, level: &str, message: &str) -> Result<(), HostTrap> {
        self.run.count_call()?;
        let message = redact::redact_text(clip(message, MAX_LOG_LINE));
        self.run.journal_or_trap(&Event::Log { level, source: "guest", message: &message })
    }

    /// `budget`: live figures.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn budget(&mut self) -> Result<BudgetFigures, HostTrap> {
        self.run.count_call()?;
        let stats = lock(&self.run.stats);
        let limits = &self.run.limits;
        Ok(BudgetFigures {
            token_total: limits.max_tokens,
            tokens_spent: stats.counts.tokens,
            agent_calls_left: u32::try_from(limits.max_agent_calls.saturating_sub(stats.counts.agent_calls)).unwrap_or(u32::MAX),
            calls_left: u32::try_from(limits.max_calls.saturating_sub(stats.counts.calls)).unwrap_or(u32::MAX),
        })
    }
}

impl RunContext {
    /// Budget check, agent runner, output clean-up, schema validation and
    /// retries. Returns (outcome, tokens, attempts).
    async fn execute_agent(&self, call_id: &str, request: &Value) -> (Result<Value, CallFailure>, u64, u32) {
        {
            let mut stats = lock(&self.stats);
            if stats.counts.agent_calls >= self.limits.max_agent_calls {
                let f = CallFailure::new(
                    CallErrorKind::BudgetExhausted,
                    "limit_agent",
                    format!("the run may make at most {} agent calls", self.limits.max_agent_calls),
                );
                return (Err(f), 0, 0);
            }
            if let Some(max) = self.limits.max_tokens {
                if stats.counts.tokens >= max {
                    let f = CallFailure::new(
                        CallErrorKind::BudgetExhausted,
                        "token_budget",
                        format!("the run's token budget of {max} is spent ({} used)", stats.counts.tokens),
                    );
                    return (Err(f), 0, 0);
                }
            }
            stats.counts.agent_calls += 1;
        }
        // Agent type: named, or `general-purpose` for a bare prompt agent.
        let type_name = request.get("agent_type").and_then(Value::as_str);
        let agent_type = if type_name.is_some() || request.get("agent").is_none() {
            match self.services.agent_types.resolve(type_name) {
                Ok(t) => Some(t),
                Err(e) => return (Err(CallFailure::new(CallErrorKind::Failed, "invalid_agent_type", e)), 0, 0),
            }
        } else {
            None
        };
        let model = request.get("model").and_then(Value::as_str).or(agent_type.as_ref().and_then(|t| t.model.as_deref()));
        let effort = request.get("effort").and_then(Value::as_str).or(agent_type.as_ref().and_then(|t| t.effort.as_deref()));
        let schema = match request.get("schema") {
            None | Some(Value::Null) => None,
            Some(s) => match schema::OutputSchema::compile(s) {
                Ok(s) => Some(s),
                Err(e) => return (Err(CallFailure::new(CallErrorKind::Failed, "invalid_schema", e)), 0, 0),
            },
        };
        let key = format!("{}:{call_id}", self.run_id);
        let mut tokens = 0u64;
        let mut feedback: Option<String> = None;
        let max_attempts = self.limits.max_schema_retries + 1;
        for attempt in 1..=max_attempts {
            let call = AgentCall {
                request,
                idempotency_key: &key,
                attempt,
                feedback: feedback.as_deref(),
                agent_type: agent_type.as_ref(),
                model,
                effort,
            };
            let reply = match self.services.agents.call(call).await {
                Ok(reply) => reply,
                Err(AgentError::Failed(m)) => {
                    return (Err(CallFailure::new(CallErrorKind::Failed, "agent_failed", m)), tokens, attempt);
                }
                Err(AgentError::TimedOut(m)) => {
                    return (Err(CallFailure::new(CallErrorKind::TimedOut, "agent_timeout", m)), tokens, attempt);
                }
                Err(AgentError::Cancelled(m)) => {
                    return (Err(CallFailure::new(CallErrorKind::Cancelled, "agent_cancelled", m)), tokens, attempt);
                }
            };
            let (output, reported) = take_usage(reply.output);
            tokens += reply.tokens.max(reported);
            let Some(schema) = &schema else {
                return (Ok(output), tokens, attempt);
            };
            let checked = schema::parse_text_output(output).and_then(|out| schema.check(&out).map(|()| out));
            match checked {
                Ok(out) => return (Ok(out), tokens, attempt),
                Err(problem) => {
                    let problem = redact::redact_text(&problem).into_owned();
                    // A journal failure here surfaces on the completion line.
                    let _ = self.journal(&Event::CallAttempt { call: call_id, attempt, error: &problem });
                    feedback = Some(problem);
                }
            }
        }
        let problem = feedback.unwrap_or_default();
        let f = CallFailure::new(
            CallErrorKind::SchemaMismatch,
            "schema_mismatch",
            format!("{problem} (after {max_attempts} attempts)"),
        );
        (Err(f), tokens, max_attempts)
    }
}

impl RunContext {
    /// `runs/<id>/transcripts/<call>.json`: metadata of one agent call
    /// (never the prompt or the output itself), redacted.
    fn write_transcript(
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
            .or(if request.get("agent").is_none() { Some(crate::agents::types::GENERAL_PURPOSE) } else { None });
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
            "result_keys": result_keys,
            "error": outcome.as_ref().err(),
        });
        redact::redact_value(&mut t);
        if let Err(e) = store.write_transcript(&self.run_id, call_id, &t) {
            tracing::warn!(error = %e, "could not write transcript");
        }
    }

    /// Policy, capability budget, the handler (with its typed errors), and
    /// result clean-up.
    async fn execute_capability(&self, call_id: &str, request: &Value) -> Result<Value, CallFailure> {
        let name = request.get("name").and_then(Value::as_str).unwrap_or("");
        let input = request.get("input").unwrap_or(&Value::Null);
        let approval_id = request.get("approval_id").and_then(Value::as_str);
        let policy = &self.services.policy;
        let cap = policy.check(name, self.services.capabilities.get(name).map(|c| &**c), input, approval_id)?;
        {
            let mut stats = lock(&self.stats);
            if stats.counts.capability_calls >= self.limits.max_capability_calls {
                return Err(CallFailure::new(
                    CallErrorKind::BudgetExhausted,
                    "limit_capability",
                    format!("the run may make at most {} capability calls", self.limits.max_capability_calls),
                ));
            }
            stats.counts.capability_calls += 1;
        }
        let key = format!("{}:{call_id}", self.run_id);
        let call = CapabilityCall { input, label: request.get("label").and_then(Value::as_str), approval_id, idempotency_key: &key };
        let result = cap.handler.call(call).await.map_err(|e| match e {
            CapabilityError::InvalidInput(m) => CallFailure::new(CallErrorKind::Failed, "invalid_input", m),
            CapabilityError::Failed(m) => CallFailure::new(CallErrorKind::Failed, "capability_failed", m),
            CapabilityError::TimedOut(m) => CallFailure::new(CallErrorKind::TimedOut, "capability_timeout", m),
        })?;
        policy.finish_result(name, result)
    }
}

/// Pull a token count out of an agent's output: a top-level `_tokens`
/// number (removed from the output) or `usage.total_tokens` /
/// `usage.input_tokens + usage.output_tokens`.
fn take_usage(mut output: Value) -> (Value, u64) {
    let Value::Object(map) = &mut output else { return (output, 0) };
    if let Some(n) = map.get("_tokens").and_then(Value::as_u64) {
        map.remove("_tokens");
        return (output, n);
    }
    let n = map.get("usage").map_or(0, |u| {
        u.get("total_tokens").and_then(Value::as_u64).unwrap_or_else(|| {
            u.get("input_tokens").and_then(Value::as_u64).unwrap_or(0) + u.get("output_tokens").and_then(Value::as_u64).unwrap_or(0)
        })
    });
    (output, n)
}

fn clip(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
