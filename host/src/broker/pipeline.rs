//! Stages 4–10 of one call, whoever made it (the root instance, a branch,
//! one slot of a `parallel`, a pipeline stage, a `submit`): [`run_call`]
//! refuses a request too large to journal, answers from the replay index
//! or the prompt cache, takes a width permit, journals `call_started`,
//! executes (agents and capabilities in `execute.rs`, branches and nested
//! workflows in `children.rs`) raced against a stop or task stop, and
//! journals `call_completed` as the run's durability says.
//!
//! [`run_call`]: RunContext::run_call

use super::call::{Call, CallResult, Parent, TaskSpec};
use super::replay::{Lookup, RecordedCall};
use super::{CallErrorKind, CallFailure, Event, Interrupt, RunContext, lock};
use crate::vm::limits::HostTrap;
use hwf_core::error::ErrorCode;
use hwf_core::fingerprint::Fingerprint;
use hwf_core::redact::redacted;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Instant;
use tracing::Instrument;

/// Journals `call_completed` as cancelled if a call is dropped before it
/// finished (fail-fast, `cancel`, the run ending), so no call is left
/// "running" in the journal.
struct CompletionGuard<'a> {
    run: &'a RunContext,
    call: &'a str,
    kind: &'static str,
    fingerprint: &'a str,
    done: bool,
}

impl Drop for CompletionGuard<'_> {
    fn drop(&mut self) {
        {
            let mut stats = lock(&self.run.stats);
            stats.running = stats.running.saturating_sub(1);
        }
        // A call that parked the run is not cancelled: it is waiting.
        if !self.done && !self.run.is_parked(self.call) {
            let failure = CallFailure::new(
                CallErrorKind::Cancelled,
                "cancelled",
                "the call was cancelled before it finished",
            );
            let _ = self
                .run
                .journal(&Event::unfinished(self.call, self.kind, self.fingerprint, &failure));
        }
    }
}

impl RunContext {
    /// Run one call: journal the start, execute, journal the completion
    /// (fsync'd for agents and capabilities).
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub async fn run_call(self: &Arc<Self>, call: Call, parent: Parent) -> CallResult {
        // A fork's input edit: the recorded request runs with the new
        // input (a new fingerprint, so it runs live, through every stage).
        // A fork of a fork may have edited the edited request again: the
        // edits are followed in turn (a few at most; bounded all the same).
        let mut call = call;
        for _ in 0..16 {
            match self.replay().and_then(|i| i.edited_input(&call.id, &call.fingerprint)) {
                Some(input) => {
                    let input = input.clone();
                    call = call.with_input(input);
                }
                None => break,
            }
        }
        let kind = call.kind();
        let Call {
            id: call_id,
            spec,
            request,
            fingerprint: fp,
            label,
            phase,
        } = call;
        let must_sync = self.must_sync(&spec);
        let span = tracing::info_span!(
            "call",
            run_id = %self.run_id,
            call_id = %call_id,
            kind,
            fingerprint = %fp
        );
        async move {
            // Labels and phases are stored and shown: redacted like the
            // request they come from (by `Call::new`).
            let (label, phase) = (label.as_deref(), phase.as_deref());
            // A request too large to journal is refused before it is stored
            // (a stand-in records what happened).
            if matches!(kind, "agent" | "capability") {
                let bytes = json_len(&request);
                if bytes > self.limits.max_request_bytes {
                    return self.refuse_large(&call_id, kind, label, phase, &fp, bytes);
                }
            }
            let stored = redacted(&request);
            // A walk (`hwf test`, a plan): answered from recorded calls;
            // nothing runs, parks or is charged.
            if let Some(walk) = &self.walk
                && matches!(kind, "agent" | "capability")
            {
                return self.walk_call(walk, &call_id, kind, label, &fp, &stored, self.may_replay(&spec));
            }
            // Replay: a leaf call whose id and content match a successful
            // recorded call is answered from the source journal (matched by
            // content wherever it is, not only in an unchanged prefix); a
            // composite runs again and its children replay the same way.
            let mut parent = parent;
            match self.replay().map(|idx| idx.lookup(&call_id, &fp)) {
                Some(Lookup::Hit(recorded)) if matches!(kind, "agent" | "capability") && self.may_replay(&spec) => {
                    return self.answer_recorded(
                        &call_id,
                        kind,
                        label,
                        phase,
                        &fp,
                        &stored,
                        Ok(recorded.result.clone()),
                        Some(&recorded),
                        0,
                    );
                }
                Some(Lookup::Same | Lookup::Hit(_)) => {}
                _ => parent.replay = false,
            }
            // The run's prompt cache: an identical prompt-agent call that
            // already succeeded in this run (unless `fresh`).
            // As the seed's cache hit, it mirrors the live accounting: it
            // counts against `max_agent_calls` and charges the output's
            // `_tokens` again. A spent budget sends it the live way, which
            // refuses it with the budget's error.
            let cacheable = Self::cacheable(&spec);
            let answer_rules = spec.answer_rules();
            if cacheable
                && let Some(v) = self.cached(&fp, &answer_rules)
                && self.admit_agent_call().is_ok()
            {
                let charge = v.get("_tokens").and_then(Value::as_u64).unwrap_or(0);
                return self.answer_recorded(&call_id, kind, label, phase, &fp, &stored, Ok(v), None, charge);
            }
            // Leaf calls wait for the run-wide width before they start (and
            // before their `call_started` line, so the journal shows what
            // really ran at once); the permit is freed before the
            // completion's fsync.
            let mut permit = match &spec {
                TaskSpec::Agent(a) if a.invalid.is_none() => Some(self.width_permit(&call_id).await),
                TaskSpec::Capability(_) => Some(self.width_permit(&call_id).await),
                _ => None,
            };
            self.journal_or_trap(&Event::CallStarted {
                call: &call_id,
                kind,
                label,
                phase,
                fingerprint: fp.as_str(),
                request: &stored,
            })?;
            lock(&self.stats).running += 1;
            let mut guard = CompletionGuard { run: self, call: &call_id, kind, fingerprint: fp.as_str(), done: false };
            let started = Instant::now();
            self.first_started_ms(&call_id);
            if self.task_stopped(&call_id) {
                let f = CallFailure::new(CallErrorKind::Cancelled, "task_stopped", "an operator stopped this call");
                guard.done = true;
                self.journal_completion(&call_id, kind, label, &fp, &Err(f.clone()), 0, 0, started, must_sync)
                    .await?;
                return Ok(Err(f));
            }
            let leaf = async {
                Ok::<_, HostTrap>(match spec {
                TaskSpec::Invalid { failure, .. } => (Err(failure), 0, 0),
                TaskSpec::Agent(req) => match &req.invalid {
                    Some((code, bad)) => (Err(CallFailure::new(CallErrorKind::Failed, *code, bad)), 0, 0),
                    // A Kanban lane (issue 19, crate::capabilities::kanban): a card, parked on until it ends.
                    None if crate::capabilities::kanban::claims(self.services.store.as_deref(), &request) => {
                        permit.take();
                        let (store, key) = (
                            self.services.store.as_deref(),
                            self.idempotency_key(&call_id),
                        );
                        match crate::capabilities::kanban::card_call(store, &key, &request, &req.answer_rules).await {
                            Ok(v) => (Ok(v), 0, 1),
                            Err(crate::capabilities::kanban::LaneError::Park(w)) => return Err(self.park(&call_id, w)),
                            Err(crate::capabilities::kanban::LaneError::Failed(code, m)) => (Err(CallFailure::new(CallErrorKind::Failed, code, m)), 0, 1),
                            Err(crate::capabilities::kanban::LaneError::Store(e)) => return Err(HostTrap::new(e.code(), e.message().to_owned())),
                        }
                    }
                    None if !self.services.agents.configured() => match self.agent_type_of(&request) {
                        // A call the broker refuses by itself (an unknown
                        // agent type) needs no backend: a resume refuses it
                        // again, as the run it resumes did.
                        Err(f) => (Err(f), 0, 0),
                        // The guard journals the call cancelled; the run
                        // fails with the code, saying how to fix it.
                        Ok(_) => return Err(HostTrap::new(
                            ErrorCode::NoAgentBackend,
                            "an agent call ran and no agent backend is configured: pass --agents FIXTURE.json, set HWF_AGENTS, or configure [agents] backends in hwf.toml (see `hwf doctor`)",
                        )),
                    },
                    None => {
                        let (o, t, a) = self.execute_agent(&call_id, &request, &req.answer_rules).await;
                        permit.take();
                        {
                            let mut stats = lock(&self.stats);
                            stats.counts.tokens = stats.counts.tokens.saturating_add(t);
                        }
                        self.write_transcript(&call_id, &request, &o, t, a, started.elapsed());
                        (o, t, a)
                    }
                },
                TaskSpec::Capability(_) => {
                    let (o, ran) = self.execute_capability(&call_id, &request, &fp).await?;
                    permit.take();
                    (o, 0, u32::from(ran))
                }
                TaskSpec::Branch { name, input } => (self.execute_branch(&call_id, &name, &input, parent).await?, 0, 1),
                TaskSpec::Workflow { name, args } => (self.execute_workflow(&call_id, &name, &args, parent).await?, 0, 1),
                })
            };
            let (outcome, tokens, attempts) = tokio::select! {
                r = leaf => match r {
                    Ok(done) => done,
                    Err(trap) => {
                        // A wait below this call parks the run: this call
                        // is not cancelled, it resumes on the continuation.
                        if trap.code == ErrorCode::Waiting {
                            guard.done = true;
                        }
                        return Err(trap);
                    }
                },
                i = self.interrupted(&call_id) => match i {
                    // The guard journals this call as cancelled.
                    Interrupt::Stop => return Err(self.stop_trap()),
                    Interrupt::TaskStop => {
                        (Err(CallFailure::new(CallErrorKind::Cancelled, "task_stopped", "an operator stopped this call")), 0, 0)
                    }
                },
            };
            if self.replay().is_some_and(|i| i.parked(&call_id)) && outcome.is_ok() {
                self.journal_or_trap(&Event::WaitResolved { call: &call_id })?;
            }
            if outcome.is_err() {
                lock(&self.stats).counts.failed += 1;
            }
            if cacheable
                && let Ok(v) = &outcome
            {
                self.remember(&fp, &answer_rules, v);
            }
            guard.done = true;
            self.journal_completion(&call_id, kind, label, &fp, &outcome, tokens, attempts, started, must_sync)
                .await?;

            drop(guard);
            tracing::debug!(ok = outcome.is_ok(), tokens, attempts, "call completed");
            Ok(outcome)
        }
        .instrument(span)
        .await
    }

    /// Journal a call's completion (fsync'd for agents and capabilities).
    #[expect(clippy::too_many_arguments, reason = "the journal fields of one call")]
    async fn journal_completion(
        &self,
        call_id: &str,
        kind: &'static str,
        label: Option<&str>,
        fp: &Fingerprint,
        outcome: &Result<Value, CallFailure>,
        tokens: u64,
        attempts: u32,
        started: Instant,
        must_sync: bool,
    ) -> Result<(), HostTrap> {
        let stored_result = outcome.as_ref().ok().map(redacted);
        let charge = self.take_charge(call_id);
        let event = Event::CallCompleted {
            call: call_id,
            kind,
            label,
            fingerprint: fp.as_str(),
            ok: outcome.is_ok(),
            result: stored_result.as_deref(),
            error: outcome.as_ref().err(),
            tokens,
            usage: charge.usage,
            cost_micro_usd: charge.cost_micro_usd,
            attempts,
            duration_us: started.elapsed().as_micros() as u64,
            replayed: false,
            cache_hit: false,
        };
        if !matches!(kind, "agent" | "capability") {
            return self.journal_or_trap(&event);
        }
        // A pending `retry` of this call is consumed in the same write as
        // the completion that fulfils it: a crash keeps both or neither.
        let retries: Vec<String> = self
            .replay()
            .map(|i| i.retries_of(call_id).to_vec())
            .unwrap_or_default();
        let mut events = vec![event];
        events.extend(retries.iter().map(|control| Event::ControlApplied {
            control,
            action: "retry",
            call: Some(call_id),
        }));
        self.journal_durable(&events, must_sync).await
    }

    /// Whether this call's completion is flushed before the guest sees it
    /// whatever the run's durability mode: a capability that is not
    /// read-only changed something outside hwf, and must not run twice.
    fn must_sync(&self, spec: &TaskSpec) -> bool {
        match spec {
            TaskSpec::Capability(req) => self
                .services
                .capabilities
                .get(&req.name)
                .is_none_or(|c| c.class != crate::capabilities::SideEffect::ReadOnly),
            _ => false,
        }
    }

    /// Whether a recorded result may answer this call: capabilities that
    /// declare themselves not replayable (reads whose answer must be fresh)
    /// always run.
    fn may_replay(&self, spec: &TaskSpec) -> bool {
        match spec {
            TaskSpec::Capability(req) => self.services.capabilities.get(&req.name).is_none_or(|c| c.replayable),
            // A request that cannot be made (a malformed field) fails live,
            // whatever a record with its fingerprint says.
            TaskSpec::Agent(req) => req.invalid.is_none(),
            _ => true,
        }
    }

    /// Journal and return an outcome that did not run: recorded in a source
    /// journal (`recorded`: replayed) or in the run's prompt cache
    /// (`cache_hit`). A call replayed from another run (`--resume-from`)
    /// is charged what it cost there, so budgets hold over the lineage; a
    /// call replayed from this run's own journal was charged when it ran.
    /// A cache hit (no `recorded`) was admitted by the caller and is
    /// charged `cache_charge` tokens.
    #[expect(clippy::too_many_arguments, reason = "the journal fields of one call")]
    fn answer_recorded(
        &self,
        call_id: &str,
        kind: &'static str,
        label: Option<&str>,
        phase: Option<&str>,
        fp: &Fingerprint,
        stored_request: &Value,
        outcome: Result<Value, CallFailure>,
        recorded: Option<&RecordedCall>,
        cache_charge: u64,
    ) -> CallResult {
        let replayed = recorded.is_some();
        let (tokens, attempts, cost, usage) = match recorded {
            Some(r) if !r.own => (r.tokens, r.attempts, r.cost_micro_usd, r.usage),
            Some(_) => (0, 0, 0, crate::agents::TokenUsage::default()),
            None => (cache_charge, 0, 0, crate::agents::TokenUsage::total_only(cache_charge)),
        };
        let stored_result = outcome.as_ref().ok().map(redacted);
        // The start and the completion as one write (one syscall; a crash
        // keeps both or neither, and a call without its completion runs
        // again anyway). A replayed call's lines are held back for the
        // run's next write: they record an answer the journals it came
        // from still hold, so a crash that loses them loses nothing a
        // resume does not answer the same way again.
        let lines = [
            Event::CallStarted {
                call: call_id,
                kind,
                label,
                phase,
                fingerprint: fp.as_str(),
                request: stored_request,
            },
            Event::CallCompleted {
                call: call_id,
                kind,
                label,
                fingerprint: fp.as_str(),
                ok: outcome.is_ok(),
                result: stored_result.as_deref(),
                error: outcome.as_ref().err(),
                tokens,
                usage,
                cost_micro_usd: cost,
                attempts,
                // What the recorded call took (it did not run now).
                duration_us: recorded.map_or(0, |r| r.duration_us),
                replayed,
                cache_hit: !replayed,
            },
        ];
        if replayed {
            self.journal_deferred(&lines)?;
        } else {
            self.journal_or_trap_all(&lines)?;
        }
        {
            let mut stats = lock(&self.stats);
            if replayed {
                stats.counts.replayed += 1;
            } else {
                stats.counts.cache_hits += 1;
            }
            stats.counts.tokens = stats.counts.tokens.saturating_add(tokens);
            stats.counts.usage.add(&usage);
            stats.counts.cost_micro_usd = stats.counts.cost_micro_usd.saturating_add(cost);
            if attempts > 0 {
                if kind == "agent" {
                    stats.counts.agent_calls += 1;
                } else {
                    stats.counts.capability_calls += 1;
                }
            }
        }
        Ok(outcome)
    }

    /// Journal a leaf call refused for its size (with a stand-in request)
    /// and answer it `request_too_large`.
    fn refuse_large(
        &self,
        call_id: &str,
        kind: &'static str,
        label: Option<&str>,
        phase: Option<&str>,
        fp: &Fingerprint,
        bytes: u64,
    ) -> CallResult {
        let stand_in = json!({"omitted": "request_too_large", "bytes": bytes});
        self.journal_or_trap(&Event::CallStarted {
            call: call_id,
            kind,
            label,
            phase,
            fingerprint: fp.as_str(),
            request: &stand_in,
        })?;
        let f = CallFailure::new(
            CallErrorKind::Denied,
            "request_too_large",
            format!(
                "the {kind} request is {bytes} bytes; the limit is {} (limits.max_request_bytes)",
                self.limits.max_request_bytes
            ),
        );
        lock(&self.stats).counts.failed += 1;
        self.journal_or_trap(&Event::CallCompleted {
            call: call_id,
            kind,
            label,
            fingerprint: fp.as_str(),
            ok: false,
            result: None,
            error: Some(&f),
            tokens: 0,
            usage: crate::agents::TokenUsage::default(),
            cost_micro_usd: 0,
            attempts: 0,
            duration_us: 0,
            replayed: false,
            cache_hit: false,
        })?;
        Ok(Err(f))
    }
}

/// The length of `value` as compact JSON, without building the text.
fn json_len(value: &Value) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    match serde_json::to_writer(&mut c, value) {
        Ok(()) => c.0,
        Err(_) => u64::MAX,
    }
}
