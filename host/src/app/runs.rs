//! Runs: start one to its end ([`Hwf::run`]), queue one for a runner
//! ([`Hwf::enqueue`]), execute an existing one (a continuation).

use super::claim::{ExecClaim, claim_lost, save_claimed};
use super::monitor::{AbortOnDrop, ProgressFn};
use crate::broker::instances::call_run;
use crate::broker::replay::ReplayIndex;
use crate::broker::{Event, ExecEnv, InstanceBroker, Journal, LoadedComponent, RunContext, Services};
use crate::store::{ErrorInfo, RunSnapshot, RunState, now_ms};
use crate::{Hwf, Target};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::model::CapabilityNeed;
use hwf_core::redact;
use hwf_core::store::{Claim, RunStore, SaveMode};
use serde_json::Value;
use std::time::Instant;
use tracing::Instrument;

/// `own` (what this host offers beyond the built-ins) and, after it,
/// each of `inherited` (a resumed run's source's needs) not already named.
fn with_needs(mut own: Vec<CapabilityNeed>, inherited: Vec<CapabilityNeed>) -> Vec<CapabilityNeed> {
    for need in inherited {
        if !own.iter().any(|n| n.name == need.name) {
            own.push(need);
        }
    }
    own
}

/// Results larger than this many bytes are spilled to `result.json`; the
/// snapshot keeps a preview.
pub const RESULT_PREVIEW_BYTES: usize = 4096;

/// A request to run a harness.
#[derive(Clone)]
pub struct RunRequest {
    /// What to run.
    pub target: Target,
    /// JSON arguments.
    pub args: Value,
    /// A caller-chosen run id (generated when `None`).
    pub run_id: Option<RunId>,
    /// Called about every 100 ms while the run executes.
    pub progress: Option<ProgressFn>,
    /// Replay this run's journal: matching calls are answered from it.
    pub resume_from: Option<RunId>,
    /// Resume even when the component or args differ from the source run.
    pub allow_changed: bool,
    /// Override `max_parallel` for this run.
    pub max_parallel: Option<u64>,
    /// A fork (`hwf fork`): with `resume_from`, this recorded call replays
    /// the edit's value instead of its result, and the edit is journaled.
    pub edit: Option<crate::broker::replay::CallEdit>,
    /// Answer matching calls from this cassette (`hwf test --update`: the
    /// calls it cannot answer run live); not with `resume_from`.
    pub cassette: Option<std::sync::Arc<hwf_core::cassette::Cassette>>,
    /// The W3C `traceparent` of whoever asked for the run (an MCP client):
    /// its exported trace continues that one. Ignored unless well-formed.
    pub trace_parent: Option<String>,
}

impl RunRequest {
    /// Run `target` with `args`.
    pub fn new(target: Target, args: Value) -> Self {
        Self {
            target,
            args,
            run_id: None,
            progress: None,
            resume_from: None,
            allow_changed: false,
            max_parallel: None,
            edit: None,
            cassette: None,
            trace_parent: None,
        }
    }
}

impl RunRequest {
    /// Refuse what no run can take: a `max_parallel` outside 1 to
    /// [`crate::vm::limits::MAX_PARALLEL`].
    ///
    /// # Errors
    ///
    /// `invalid_args` naming the value and the range.
    pub fn check(&self) -> Result<()> {
        if let Some(n) = self.max_parallel {
            let max = crate::vm::limits::MAX_PARALLEL;
            crate::vm::limits::check_range("max_parallel", n, 1, max).map_err(|e| e.error(ErrorCode::InvalidArgs))?;
        }
        Ok(())
    }
}

impl RunRequest {
    /// The request's `trace_parent` when well-formed.
    fn checked_trace_parent(&self) -> Option<String> {
        self.trace_parent
            .as_deref()
            .and_then(crate::telemetry::TraceParent::parse)
            .map(|t| t.to_header())
    }
}

impl std::fmt::Debug for RunRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunRequest")
            .field("target", &self.target)
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The final snapshot.
    pub snapshot: RunSnapshot,
    /// The full result (not just the preview), when it succeeded.
    pub result: Option<Value>,
}

impl Hwf {
    /// Execute a run that already exists (queued, parked, stuck) with the
    /// given journal writer and replay index.
    #[expect(clippy::too_many_arguments, reason = "the parts of one continuation")]
    pub(crate) async fn execute_existing(
        &self,
        claim: ExecClaim,
        snap: RunSnapshot,
        journal: Journal,
        loaded: LoadedComponent,
        args: &Value,
        replay: Option<ReplayIndex>,
        services: Services,
    ) -> Result<RunOutcome> {
        self.execute(claim, snap, false, journal, loaded, args, replay, None, services)
            .await
    }

    /// Create a queued run (executed later by `hwf runner`). Args with
    /// credentials are refused: queued args are stored, and nothing
    /// secret-shaped is stored.
    ///
    /// # Errors
    ///
    /// `invalid_args` (credentials in args), the loader's codes,
    /// `already_exists`.
    pub fn enqueue(&self, req: &RunRequest) -> Result<RunId> {
        req.check()?;
        if redact::redaction_changes(&req.args) {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                "background runs store their args, and these contain something credential-shaped; pass secrets through configuration",
            ));
        }
        let target = match &req.target {
            Target::Path(p) => Target::Path(
                p.canonicalize()
                    .map_err(|e| Error::io(format!("component {}", p.display()), e))?,
            ),
            t => t.clone(),
        };
        let resolved = self.resolve(&target)?;
        self.keep_for_runners(&resolved)?;
        let script = resolved.script;
        let run_id = req.run_id.clone().unwrap_or_else(RunId::generate);
        let mut snap = RunSnapshot::new(
            run_id.clone(),
            RunState::Queued,
            script,
            req.args.clone(),
            Some(self.settings.clone()),
        );
        snap.trace_parent = req.checked_trace_parent();
        // Routed like a task queue: only a host with these runs it.
        snap.needs = self.services.capabilities.needs();
        self.store.create(&snap)?;
        Ok(run_id)
    }

    /// What a request runs. A `--resume-from` whose source ran a file this
    /// machine does not have takes the bytes the shared store kept by the
    /// source's digest.
    pub(crate) fn resolve_for(&self, req: &RunRequest) -> Result<crate::app::resolve::Resolved> {
        match (self.resolve(&req.target), &req.resume_from, &req.target) {
            (Err(e), Some(source), Target::Path(path)) if e.code() == ErrorCode::NotFound => {
                let snap = self.store.read_snapshot(source)?;
                if snap.script.path.as_deref() == path.to_str() {
                    self.resolve_recorded(&req.target, &snap.script)
                } else {
                    Err(e)
                }
            }
            (resolved, _, _) => resolved,
        }
    }

    /// A run resumed from one that needs capabilities this host does not
    /// offer: it is created queued, carrying the source's needs, its
    /// lineage and its clock, for the host that offers them (its runner
    /// takes it like any queued run and replays the source's journal);
    /// nothing runs here. This host's runners leave it (`needs_host`).
    ///
    /// # Errors
    ///
    /// `needs_host` for an edited call (a fork's edit lives in the
    /// executing process: fork it on the host that offers them), and for
    /// credential-shaped args (never stored, so another host could not
    /// run it); the store's codes.
    fn leave_for_another_host(
        &self,
        mut snap: RunSnapshot,
        edited: bool,
        missing: &[CapabilityNeed],
    ) -> Result<RunOutcome> {
        let reason = hwf_core::model::needs_host_reason(missing);
        if edited {
            return Err(Error::new(
                ErrorCode::NeedsHost,
                format!(
                    "the fork {reason}; fork it on that host (an edit is applied by the process that executes the fork)"
                ),
            ));
        }
        if snap.args_redacted {
            return Err(Error::new(
                ErrorCode::NeedsHost,
                format!(
                    "the resumed run {reason}; its args are credential-shaped and never stored, so resume it on that host"
                ),
            ));
        }
        snap.state = RunState::Queued;
        snap.started_at_ms = None;
        snap.pid = None;
        self.store.create(&snap)?;
        tracing::info!(run_id = %snap.run_id, %reason, "resumed run queued for another host");
        Ok(RunOutcome {
            result: None,
            snapshot: snap,
        })
    }

    /// Run a harness to the end.
    ///
    /// Bad input (missing file, bad component, bad name, id taken) is an
    /// `Err` and creates no run. Once the run exists, every failure is
    /// recorded in it and returned as a `failed` outcome.
    ///
    /// # Errors
    ///
    /// Bad input, as above; `io` when the store cannot be written.
    pub async fn run(&self, req: RunRequest) -> Result<RunOutcome> {
        req.check()?;
        let resolved = self.resolve_for(&req)?;
        let (workflow, declared_phases) = self.checked_meta(&resolved).await?;
        // Continuations on other machines find the script by its digest.
        self.keep_for_runners(&resolved)?;
        let loaded = resolved.loaded;
        let script = resolved.script;

        // Resume: the source's journal answers matching calls.
        let (mut replay, root_run_id, clock_origin, source_needs) = match (&req.resume_from, &req.cassette) {
            (Some(source), _) => {
                let p = self.resume_plan(source, &req.args, &script.digest, req.allow_changed)?;
                (Some(p.replay), Some(p.seed_run), Some(p.clock_origin_ms), p.needs)
            }
            // A cassette answers like a source journal; it names no run here.
            (None, Some(c)) => (
                Some(ReplayIndex::from_lineage(&[c.to_entries()], &[], &Default::default())),
                Some(RunId::parse(&c.source.seed_run)?),
                Some(c.source.clock_origin_ms),
                Vec::new(),
            ),
            (None, None) => (None, None, None, Vec::new()),
        };
        if let Some(edit) = &req.edit {
            let Some(index) = replay.as_mut() else {
                return Err(Error::new(
                    ErrorCode::InvalidArgs,
                    "an edited call needs the run it edits (resume_from)",
                ));
            };
            index.apply_edit(edit.clone());
        }

        let run_id = req.run_id.clone().unwrap_or_else(RunId::generate);
        let mut stored_args = req.args.clone();
        let args_redacted = redact::redact_value(&mut stored_args);
        let mut snap = RunSnapshot::new(
            run_id.clone(),
            RunState::Running,
            script,
            stored_args,
            Some(self.settings.clone()),
        );
        snap.args_redacted = args_redacted;
        snap.started_at_ms = Some(snap.created_at_ms);
        snap.declared_phases = declared_phases;
        snap.workflow = workflow;
        snap.trace_parent = req.checked_trace_parent();
        snap.resumed_from = req.resume_from.clone();
        snap.root_run_id = root_run_id;
        snap.clock_origin_ms = clock_origin;
        snap.pid = Some(std::process::id());
        // What a host continuing it must offer: this host's own
        // capabilities, and what the run it resumes needed (a stock host
        // resuming an embedder's run keeps the embedder's).
        snap.needs = with_needs(self.services.capabilities.needs(), source_needs);
        let missing = self.services.capabilities.missing(&snap.needs);
        if !missing.is_empty() {
            return self.leave_for_another_host(snap, req.edit.is_some(), &missing);
        }
        // Own the run before anyone can see it `running`: a runner that
        // finds it running and unclaimed would call it stuck.
        let claim = ExecClaim::from(self.store.create_claimed(&snap).await?);
        let journal = Journal::new(self.store.open_journal_out(&run_id, &*claim).await?, 0)
            .with_byte_limit(self.limits.max_journal_bytes)?;
        let journal = journal.with_fence(claim.fence().clone());
        let span = tracing::info_span!("run", run_id = %run_id, digest = %loaded.digest);
        let mut services = self.services.clone();
        if let Some(n) = req.max_parallel {
            services.limits.max_parallel = n;
        }
        self.execute(
            claim,
            snap,
            true,
            journal,
            loaded,
            &req.args,
            replay,
            req.progress.clone(),
            services,
        )
        .instrument(span)
        .await
    }

    /// Execute a created run to its end: journal, instantiate, call `run`,
    /// record the outcome. `created_running`: the store already holds
    /// `snap` as running, by this process (a run `start` created claimed
    /// just now), so it is not saved again before the guest starts.
    #[expect(
        clippy::too_many_arguments,
        reason = "the parts of one run, assembled by its two callers"
    )]
    async fn execute(
        &self,
        claim: ExecClaim,
        mut snap: RunSnapshot,
        created_running: bool,
        journal: Journal,
        loaded: LoadedComponent,
        args: &Value,
        replay: Option<ReplayIndex>,
        progress: Option<ProgressFn>,
        services: Services,
    ) -> Result<RunOutcome> {
        let run_id = snap.run_id.clone();
        let clock_origin = snap.clock_origin();
        // The caller holds the run's claim (one executor per run; the
        // store frees it if we die). Every snapshot written from here on
        // carries it, so an executor that lost it cannot overwrite the new
        // owner's. Controls that cannot be read are not
        // taken as "none": the run is left as it is, and the error named.
        // The watch first: a control appended after it is reported even if
        // it lands before the monitor starts.
        let controls_watch = self.store.watch_controls(&run_id)?;
        let controls = crate::app::control::read_controls(&self.store, &run_id)?;
        snap.state = RunState::Running;
        snap.waits.clear();
        snap.pid = Some(std::process::id());
        if !created_running {
            snap.started_at_ms = Some(now_ms());
        }
        let mut context = RunContext::builder(run_id.clone(), services)
            .journal(journal)
            .instances(std::sync::Arc::new(ExecEnv {
                vm: self.vm.clone(),
                epoch_ms: clock_origin,
                workspace: snap
                    .settings
                    .as_ref()
                    .and_then(|s| s.workspace.clone())
                    .or_else(|| self.settings.workspace.clone()),
            }));
        if let Some(root) = &snap.root_run_id {
            context = context.root_run_id(root.clone());
        }
        if let Some(index) = replay {
            context = context.replay(index);
        }
        let ctx = context.build();
        ctx.apply_controls(&controls);
        ctx.journal(&Event::RunStarted {
            format: hwf_core::journal::JOURNAL_FORMAT,
            run_id: run_id.as_str(),
            script: &snap.script,
            args: &snap.args,
            seed_run: snap.seed_run().as_str(),
            clock_origin_ms: clock_origin,
            shared: self.is_shared_executor(),
        })?;
        // A fork's edits, with who made them, before any call replays them.
        if let Some(index) = ctx.replay() {
            for e in index.new_edits() {
                let value = redact::redacted(&e.value);
                let changes = e.changes.as_ref().map(redact::redacted);
                let reason = e.reason.as_deref().map(redact::redact_text);
                ctx.journal(&Event::CallEdited {
                    call: &e.call,
                    fingerprint: &e.fingerprint,
                    field: e.field.as_str(),
                    value: &value,
                    changes: changes.as_deref(),
                    actor: &redact::redact_text(&e.actor),
                    reason: reason.as_deref(),
                    source_run: &e.source_run,
                })?;
            }
        }
        ctx.flush_journal().await?;
        // Only once the journal took the start does the snapshot say
        // `running`: a journal that refuses it leaves the run as it was.
        // (A run created running just now already says so: saving it
        // again would cost a durable write and change nothing.)
        if !created_running {
            self.save_claimed(&snap, SaveMode::Durable, &*claim).await?;
        }

        let t0 = Instant::now();
        let args_text = args.to_string();
        let broker = InstanceBroker::root(ctx.clone(), Some(loaded.clone()));
        // The reporter is owned by this future: dropping the run (a
        // cancelled facade or MCP call) aborts it too, so nothing rewrites
        // run.json after the run is gone.
        let reporter = AbortOnDrop(self.spawn_progress(&ctx, &snap, progress, controls_watch, claim.clone()));
        let (answer, output) = call_run(&self.vm, &loaded, broker, clock_origin, &args_text).await;
        reporter.finish().await;
        // Aborted tasks (timeout, trap) end at their next await; wait for
        // them so nothing is journaled after the run's final record.
        if !ctx.wait_idle(std::time::Duration::from_secs(10)).await {
            tracing::warn!("tasks still running 10 s after the run ended");
        }
        // An executor that lost the run (taken over meanwhile) writes no
        // outcome, no finalizer and no final record: the new owner does.
        claim.check().await.map_err(|e| claim_lost(&run_id, e))?;
        ctx.journal_output(None, &output);

        let mut full_result = None;
        let outcome: Result<Value> = match answer {
            Ok(Ok(text)) => {
                if text.len() as u64 > self.limits.max_result_bytes {
                    Err(Error::new(
                        ErrorCode::ResultTooLarge,
                        format!(
                            "the result is {} bytes; the limit is {}",
                            text.len(),
                            self.limits.max_result_bytes
                        ),
                    ))
                } else {
                    serde_json::from_str::<Value>(&text).map_err(|e| {
                        Error::new(
                            ErrorCode::HarnessError,
                            format!("the harness returned invalid JSON: {e}"),
                        )
                    })
                }
            }
            Ok(Err(message)) => Err(Error::new(ErrorCode::HarnessError, message)),
            Err(e) => Err(e),
        };
        snap.counts = ctx.counts();
        snap.phase = ctx.phase();
        snap.live = None;
        match outcome {
            Ok(value) => {
                let mut stored = value.clone();
                redact::redact_value(&mut stored);
                let text = serde_json::to_string(&stored).unwrap_or_default();
                if text.len() > RESULT_PREVIEW_BYTES {
                    let pretty = serde_json::to_vec_pretty(&stored).unwrap_or_default();
                    snap.result_path = Some(self.store.write_result(&run_id, &pretty)?);
                    snap.result_preview = Some(preview(&text));
                } else {
                    snap.result = Some(stored);
                }
                snap.state = RunState::Succeeded;
                full_result = Some(value);
            }
            Err(e) if e.code() == ErrorCode::Waiting => {
                snap.state = RunState::Waiting;
                snap.waits = ctx.parked();
            }
            Err(e) => {
                snap.state = if e.code() == ErrorCode::Stopped {
                    RunState::Stopped
                } else {
                    RunState::Failed
                };
                snap.error = Some(ErrorInfo {
                    code: e.code(),
                    message: e.message().to_owned(),
                });
            }
        }
        if snap.state.is_terminal() {
            // Declared resources are finalized once the run ends (issue 19).
            crate::app::finalizers::finalize_ended(&ctx, &self.store, &run_id).await;
            snap.finished_at_ms = Some(now_ms());
        }
        let last = ctx.journal(&Event::RunCompleted {
            state: snap.state.as_str(),
            result: snap.result.as_ref(),
            result_path: snap.result_path.as_deref(),
            error: snap.error.as_ref(),
            duration_ms: t0.elapsed().as_millis() as u64,
            counts: Some(&snap.counts),
        })?;
        ctx.flush_journal().await?;
        self.save_claimed(&snap, SaveMode::Durable, &*claim).await?;
        // Its spans are read from the journal in the background.
        if let Some(t) = &self.telemetry {
            t.execution_ended(&run_id, trace_info(&snap), last);
        }
        tracing::info!(
            state = snap.state.as_str(),
            ms = t0.elapsed().as_millis() as u64,
            "run finished"
        );
        Ok(RunOutcome {
            snapshot: snap,
            result: full_result,
        })
    }
}

impl Hwf {
    /// A workflow's name and declared phases, from its meta (a script's
    /// `check`); a script with errors is refused here, before anything
    /// runs.
    ///
    /// # Errors
    ///
    /// `invalid_script` with the script's diagnostics; the sandbox's codes.
    pub(crate) async fn checked_meta(
        &self,
        resolved: &crate::app::resolve::Resolved,
    ) -> Result<(Option<String>, Vec<String>)> {
        let meta = if resolved.language != crate::scripts::Language::Wasm {
            match crate::broker::instances::call_check(&self.vm, &resolved.loaded, &self.services.limits).await? {
                // Warnings are `hwf validate`'s to show.
                Ok(checked) => Some(checked.meta),
                Err(diags) => {
                    if diags.iter().any(|d| {
                        matches!(
                            d.severity,
                            crate::vm::bindings::hermes::workflow::types::Severity::Error
                        )
                    }) {
                        return Err(crate::broker::instances::diagnostics_error(&diags));
                    }
                    None
                }
            }
        } else {
            crate::broker::instances::call_meta(&self.vm, &resolved.loaded, &self.services.limits)
                .await
                .ok()
        };
        // The workflow's own name, for lists (a script sent inline has no
        // other).
        let workflow = meta.as_ref().and_then(|m| meta_name(&m.name));
        let declared_phases: Vec<String> = meta
            .map(|m| m.phases.into_iter().map(|p| p.title).collect())
            .unwrap_or_default();
        Ok((workflow, declared_phases))
    }

    /// Record a queued run's declared phases and name (its meta), as a
    /// foreground run does, so that `status` and lists show them while a
    /// runner executes it. Best
    /// effort: a run whose meta cannot be read runs without them.
    pub async fn declare_phases(&self, id: &RunId) {
        let phases = async {
            let target = self.resume_source(id)?.target;
            let report = self.validate_resolved(self.resolve(&target)?).await?;
            let workflow = report.meta.as_ref().and_then(|m| meta_name(&m.name));
            let titles: Vec<String> = report
                .meta
                .into_iter()
                .flat_map(|m| m.phases)
                .map(|p| p.title)
                .collect();
            if titles.is_empty() && workflow.is_none() {
                return Ok(());
            }
            // Under the run's claim: a runner that took the run meanwhile owns
            // its snapshot (and then the phases are only missing from status).
            let Some(claim) = self.claim(id).await? else {
                return Ok(());
            };
            let mut snap = self.store().read_snapshot(id)?;
            if snap.state == RunState::Queued && snap.declared_phases.is_empty() && snap.workflow.is_none() {
                snap.declared_phases = titles;
                snap.workflow = workflow;
                self.save_claimed(&snap, SaveMode::Durable, &*claim).await?;
            }
            Ok::<(), Error>(())
        };
        if let Err(e) = phases.await {
            tracing::debug!(run_id = %id, error = %e, "declared phases not recorded");
        }
    }
}

impl Hwf {
    /// Take the run's claim through the store's claim API (`None`: someone
    /// holds it).
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store` (a damaged fencing token), `io`.
    pub(crate) async fn claim(&self, id: &RunId) -> Result<Option<ExecClaim>> {
        Ok(RunStore::claim(&*self.store, id).await?.map(ExecClaim::from))
    }

    /// Whether someone executes the run (holds its claim); a claim that
    /// cannot be read counts as not held, so the run shows `stuck`.
    pub fn is_claimed(&self, id: &RunId) -> bool {
        self.store.is_claimed(id).unwrap_or(false)
    }

    /// [`save_claimed`](super::claim::save_claimed) in this host's store.
    ///
    /// # Errors
    ///
    /// As [`save_claimed`](super::claim::save_claimed).
    pub(crate) async fn save_claimed(&self, snap: &RunSnapshot, mode: SaveMode, claim: &dyn Claim) -> Result<()> {
        save_claimed(&*self.store, snap, mode, claim).await
    }
}

/// What a run's trace is named and linked to, from its snapshot: the
/// workflow's `meta.name`, else the name lists show.
pub(crate) fn trace_info(snap: &RunSnapshot) -> crate::telemetry::RunInfo {
    crate::telemetry::RunInfo {
        run_id: snap.run_id.as_str().to_owned(),
        name: snap
            .workflow
            .clone()
            .unwrap_or_else(|| crate::app::status::workflow_name(snap)),
        resumed_from: snap.resumed_from.as_ref().map(|r| r.as_str().to_owned()),
        parent: snap
            .trace_parent
            .as_deref()
            .and_then(crate::telemetry::TraceParent::parse),
    }
}

fn preview(text: &str) -> String {
    let mut end = RESULT_PREVIEW_BYTES.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// A workflow's `meta.name` as a run's name: trimmed, one line, at most
/// 80 characters; none when empty.
fn meta_name(name: &str) -> Option<String> {
    let name = name.split(['\n', '\r']).next().unwrap_or("").trim();
    if name.is_empty() {
        return None;
    }
    Some(name.chars().take(80).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ScriptRef;
    use serde_json::json;

    #[test]
    fn meta_names_are_one_short_line() {
        assert_eq!(meta_name("  triage \nmore"), Some("triage".into()));
        assert_eq!(meta_name(" \n"), None);
        assert_eq!(meta_name(&"x".repeat(100)).map(|n| n.len()), Some(80));
    }

    #[test]
    fn a_resumed_run_needs_its_hosts_capabilities_and_its_sources() {
        use crate::capabilities::SideEffect;
        let need = |name: &str, class| CapabilityNeed {
            name: name.into(),
            class,
        };
        let own = vec![need("deploy", SideEffect::ExternalWrite)];
        let source = vec![
            need("deploy", SideEffect::ReadOnly),
            need("ticket", SideEffect::ExternalWrite),
        ];
        assert_eq!(
            with_needs(own, source.clone()),
            vec![
                need("deploy", SideEffect::ExternalWrite),
                need("ticket", SideEffect::ExternalWrite)
            ],
            "this host's own capability wins a name both name"
        );
        assert_eq!(
            with_needs(Vec::new(), source.clone()),
            source,
            "a stock host keeps the source's"
        );
        assert!(with_needs(Vec::new(), Vec::new()).is_empty());
    }

    #[tokio::test]
    async fn a_claim_taken_over_refuses_the_old_owners_snapshot_with_a_typed_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let hwf = Hwf::open(dir.path()).expect("host");
        let id = RunId::generate();
        hwf.store().local().create_run(&id).expect("run");
        let mut snap = RunSnapshot::new(id.clone(), RunState::Queued, ScriptRef::default(), json!({}), None);
        hwf.store().write_snapshot(&snap).expect("snapshot");
        assert!(!hwf.is_claimed(&id));
        let claim = hwf.claim(&id).await.expect("claim").expect("free");
        assert!(hwf.is_claimed(&id));
        assert!(hwf.claim(&id).await.expect("claim").is_none(), "one owner at a time");
        snap.state = RunState::Running;
        hwf.save_claimed(&snap, SaveMode::Durable, &*claim)
            .await
            .expect("saved under the claim");
        // Another owner took the run over (its token is the next one).
        let token = claim.fence().token();
        std::fs::write(
            dir.path().join("runs").join(id.as_str()).join("claim"),
            (token + 1).to_string(),
        )
        .expect("take over");
        snap.state = RunState::Succeeded;
        let e = hwf
            .save_claimed(&snap, SaveMode::Fast, &*claim)
            .await
            .expect_err("fenced out");
        assert_eq!(e.code(), ErrorCode::Conflict, "{e}");
        assert!(e.message().contains("lost the run's claim"), "{e}");
        assert!(!claim.fence().is_held(), "everything sharing the claim sees it lost");
        assert!(claim.check().await.is_err());
        assert_eq!(
            hwf.store().read_snapshot(&id).expect("read").state,
            RunState::Running,
            "the old owner wrote nothing"
        );
        drop(claim);
        assert!(!hwf.is_claimed(&id), "free once dropped");
    }
}
