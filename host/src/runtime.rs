//! [`Hwf`]: the embedding API — save, validate and run harnesses, read
//! status. The CLI (and later the facade and MCP server) are thin layers
//! over it.

use crate::agents::AgentTypes;
use crate::agents::{AgentRunner, FixtureRunner};
use crate::broker::instances::call_run;
use crate::broker::replay::ReplayIndex;
use crate::broker::{Event, ExecEnv, InstanceBroker, Journal, RunContext, Services};
use crate::broker::{LoadedComponent, Vm};
use crate::capabilities::{Policy, Registry};
use crate::store::{Counts, ErrorInfo, FileStore, RunSettings, RunSnapshot, RunState, now_ms};
use crate::vm::Limits;
use crate::vm::limits::HostTrap;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::redact;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use tracing::Instrument;

/// Results larger than this many bytes are spilled to `result.json`; the
/// snapshot keeps a preview.
pub const RESULT_PREVIEW_BYTES: usize = 4096;

/// What to run.
#[derive(Debug, Clone)]
pub enum Target {
    /// A saved script, latest version unless one is given.
    Saved {
        /// Script name.
        name: String,
        /// Version (latest when `None`).
        version: Option<u32>,
    },
    /// A component file.
    Path(PathBuf),
}

impl Target {
    /// Interpret a CLI argument: a path when it names a file or ends in
    /// `.wasm`, `.js`, `.py` or `.json`, otherwise a saved script name
    /// (`name` or `name@3`).
    ///
    /// # Errors
    ///
    /// `invalid_args` for a bad version; `invalid_name` for a bad name.
    pub fn parse(arg: &str) -> Result<Self> {
        let lower = arg.to_ascii_lowercase();
        let script_ext = [".wasm", ".js", ".mjs", ".py", ".json"]
            .iter()
            .any(|e| lower.ends_with(e));
        if script_ext || arg.contains('/') || Path::new(arg).is_file() {
            return Ok(Target::Path(PathBuf::from(arg)));
        }
        let (name, version) = match arg.split_once('@') {
            Some((n, v)) => {
                let v = v.trim_start_matches('v').parse::<u32>().map_err(|_| {
                    Error::new(
                        ErrorCode::InvalidArgs,
                        format!("bad version in {arg:?}: expected name@<number>"),
                    )
                })?;
                (n, Some(v))
            }
            None => (arg, None),
        };
        hwf_core::ids::validate_name("script name", name)?;
        Ok(Target::Saved {
            name: name.to_owned(),
            version,
        })
    }
}

/// Live figures handed to a progress callback while a run executes.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// The current phase.
    pub phase: Option<String>,
    /// Counters so far.
    pub counts: Counts,
    /// Calls running now (all instances).
    pub running: u64,
    /// Tasks waiting for width.
    pub queued: u64,
    /// Time since the run started.
    pub elapsed: std::time::Duration,
}

/// A progress callback.
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

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
        }
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

/// The hwf host: a store, a VM, and the services runs use (agent runner,
/// capabilities, policy, limits, agent types).
pub struct Hwf {
    store: Arc<FileStore>,
    vm: Arc<Vm>,
    services: Services,
    limits: Limits,
    settings: RunSettings,
}

/// Builds an [`Hwf`]; everything but the state dir has a default.
#[derive(Debug)]
pub struct HwfBuilder {
    state_dir: PathBuf,
    services: Services,
    agents_fixture: Option<PathBuf>,
    workspace: Option<PathBuf>,
    cache_dir: Option<PathBuf>,
}

impl HwfBuilder {
    /// Share a compile cache directory (default: `<state>/cache`).
    pub fn cache_dir(mut self, path: Option<PathBuf>) -> Self {
        self.cache_dir = path;
        self
    }
    /// The agent runner (default: a fixture runner with no rules).
    pub fn agents(mut self, agents: Arc<dyn AgentRunner>) -> Self {
        self.services.agents = agents;
        self
    }
    /// The capabilities runs may call (default: none).
    pub fn capabilities(mut self, registry: Registry) -> Self {
        self.services.capabilities = Arc::new(registry);
        self
    }
    /// The capability policy (default: read-only capabilities only).
    pub fn policy(mut self, policy: Policy) -> Self {
        self.services.policy = policy;
        self
    }
    /// Limits and budgets (default: [`Limits::default`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.services.limits = limits;
        self
    }
    /// When call completions are flushed (default: `sync`).
    pub fn durability(mut self, durability: crate::broker::journal::Durability) -> Self {
        self.services.durability = durability;
        self
    }
    /// Where agent types are found (default: built-in `general-purpose` only).
    pub fn agent_types(mut self, types: AgentTypes) -> Self {
        self.services.agent_types = Arc::new(types);
        self
    }
    /// Record the fixture file behind the agent runner, so continuations
    /// (`hwf runner`) can answer agent calls the same way.
    pub fn agents_fixture(mut self, path: Option<PathBuf>) -> Self {
        self.agents_fixture = path;
        self
    }
    /// Record the capabilities' workspace, for continuations.
    pub fn workspace(mut self, path: Option<PathBuf>) -> Self {
        self.workspace = path;
        self
    }
    /// Open the store and start the VM.
    ///
    /// # Errors
    ///
    /// `io` when the state dir cannot be opened; `internal` when wasmtime
    /// cannot start.
    pub fn build(mut self) -> Result<Hwf> {
        let mut store = FileStore::open(self.state_dir)?;
        if let Some(dir) = &self.cache_dir {
            store = store.with_cache_dir(dir)?;
        }
        let store = Arc::new(store);
        self.services.store = Some(store.clone());
        let limits = self.services.limits.clone();
        let settings = RunSettings {
            limits: limits.clone(),
            policy: self.services.policy.clone(),
            agents_fixture: self.agents_fixture.and_then(|p| p.canonicalize().ok()),
            workspace: self.workspace.and_then(|p| p.canonicalize().ok()),
            durability: self.services.durability,
        };
        Ok(Hwf {
            store,
            vm: Arc::new(Vm::new()?),
            services: self.services,
            limits,
            settings,
        })
    }
}

impl std::fmt::Debug for Hwf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hwf")
            .field("state_dir", &self.store.root())
            .finish_non_exhaustive()
    }
}

/// Read a component file, refusing non-files and oversized files.
///
/// # Errors
///
/// `not_found`, `io`, `invalid_args`, `component_too_large`.
pub fn read_component(path: &Path, limits: &Limits) -> Result<Vec<u8>> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(format!("component {}", path.display()), e))?;
    if !meta.is_file() {
        return Err(Error::new(
            ErrorCode::InvalidArgs,
            format!("{} is not a file", path.display()),
        ));
    }
    if meta.len() > limits.max_component_bytes {
        return Err(Error::new(
            ErrorCode::ComponentTooLarge,
            format!(
                "{} is {} bytes; the limit is {}",
                path.display(),
                meta.len(),
                limits.max_component_bytes
            ),
        ));
    }
    std::fs::read(path).map_err(|e| Error::io(format!("component {}", path.display()), e))
}

impl Hwf {
    /// A host over the state directory at `state_dir` with the given agent
    /// runner and limits.
    ///
    /// # Errors
    ///
    /// `io` when the state dir cannot be opened; `internal` when wasmtime
    /// cannot start.
    pub fn new(state_dir: impl Into<PathBuf>, agents: Arc<dyn AgentRunner>, limits: Limits) -> Result<Self> {
        Self::builder(state_dir).agents(agents).limits(limits).build()
    }

    /// A builder over the state directory at `state_dir`.
    pub fn builder(state_dir: impl Into<PathBuf>) -> HwfBuilder {
        HwfBuilder {
            state_dir: state_dir.into(),
            services: Services::new(Arc::new(FixtureRunner::empty())),
            agents_fixture: None,
            workspace: None,
            cache_dir: None,
        }
    }

    /// A host with no agent backend (every agent call fails) and default
    /// limits — enough for `validate`, `script`, `status`.
    ///
    /// # Errors
    ///
    /// As [`Hwf::new`].
    pub fn open(state_dir: impl Into<PathBuf>) -> Result<Self> {
        Self::new(state_dir, Arc::new(FixtureRunner::empty()), Limits::default())
    }

    /// The store.
    pub fn store(&self) -> &FileStore {
        &self.store
    }

    /// The VM.
    pub fn vm(&self) -> &Vm {
        &self.vm
    }

    /// The VM, shared (for branch instances in embedder-driven runs).
    pub fn vm_arc(&self) -> Arc<Vm> {
        self.vm.clone()
    }

    /// The services runs get.
    pub fn services(&self) -> &Services {
        &self.services
    }

    /// Execute a run that already exists (queued, parked, stuck) with the
    /// given journal writer and replay index.
    #[expect(clippy::too_many_arguments, reason = "the parts of one continuation")]
    pub(crate) async fn execute_existing(
        &self,
        lock: crate::store::LockFile,
        snap: RunSnapshot,
        journal: Journal,
        loaded: LoadedComponent,
        args: &Value,
        replay: Option<ReplayIndex>,
        services: Services,
    ) -> Result<RunOutcome> {
        self.execute(lock, snap, journal, loaded, args, replay, None, services)
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
        if redact::contains_secret(&req.args) {
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
        let script = self.resolve(&target)?.script;
        let run_id = req.run_id.clone().unwrap_or_else(RunId::generate);
        self.store.create_run(&run_id)?;
        let snap = RunSnapshot::new(
            run_id.clone(),
            RunState::Queued,
            script,
            req.args.clone(),
            Some(self.settings.clone()),
        );
        self.store.write_snapshot(&snap)?;
        Ok(run_id)
    }

    /// The limits runs get.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Gate, compile (cached) and pre-link component bytes.
    ///
    /// # Errors
    ///
    /// See [`Vm::load`].
    pub fn load(&self, bytes: &[u8]) -> Result<LoadedComponent> {
        self.vm.load(bytes, Some(&*self.store), &self.limits)
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
        let resolved = self.resolve(&req.target)?;
        // The declared phases (for status); a script with errors is bad
        // input, refused before a run exists.
        let declared_phases: Vec<String> = if resolved.language != crate::scripts::Language::Wasm {
            match crate::broker::instances::call_check(&self.vm, &resolved.loaded, &self.services.limits).await? {
                Ok(meta) => meta.phases.into_iter().map(|p| p.title).collect(),
                Err(diags) => {
                    if diags.iter().any(|d| {
                        matches!(
                            d.severity,
                            crate::vm::bindings::hermes::workflow::types::Severity::Error
                        )
                    }) {
                        return Err(crate::broker::instances::diagnostics_error(&diags));
                    }
                    Vec::new()
                }
            }
        } else {
            crate::broker::instances::call_meta(&self.vm, &resolved.loaded, &self.services.limits)
                .await
                .map(|m| m.phases.into_iter().map(|p| p.title).collect())
                .unwrap_or_default()
        };
        let loaded = resolved.loaded;
        let script = resolved.script;

        // Resume: the source must be the same component with the same args
        // (unless allowed to differ); its journal answers matching calls.
        let mut replay = None;
        let mut root_run_id = None;
        let mut clock_origin = None;
        if let Some(source_id) = &req.resume_from {
            let source = self.store.read_snapshot(source_id)?;
            let mut args = req.args.clone();
            redact::redact_value(&mut args);
            if !req.allow_changed {
                if source.script.digest != script.digest {
                    return Err(Error::new(
                        ErrorCode::ResumeMismatch,
                        format!(
                            "run {source_id} ran component {} but this is {}; pass --allow-changed to replay its matching prefix anyway",
                            short(&source.script.digest),
                            short(&script.digest)
                        ),
                    ));
                }
                if source.args != args {
                    return Err(Error::new(
                        ErrorCode::ResumeMismatch,
                        format!("run {source_id} ran with different args; pass the same --args, or --allow-changed"),
                    ));
                }
            }
            let events = self.store.read_entries(source_id)?;
            crate::runner::check_journal_present(&source, &events)?;
            let controls = crate::control::read_controls(&self.store, source_id)?;
            // The source and the runs it was resumed from answer calls;
            // the new run has no journal of its own yet.
            let mut sources = self.lineage_journals(source.resumed_from.as_ref())?;
            sources.push(events);
            replay = Some(crate::runner::replay_index(&sources, &[], &controls));
            root_run_id = Some(source.seed_run().clone());
            clock_origin = Some(source.clock_origin());
        }

        let run_id = req.run_id.clone().unwrap_or_else(RunId::generate);
        self.store.create_run(&run_id)?;
        // Own the run before anyone can see it `running`: a runner that
        // finds it running and unlocked would call it stuck.
        let lock = self.store.try_lock_run(&run_id)?.ok_or_else(|| {
            Error::new(
                ErrorCode::AlreadyExists,
                format!("run {run_id} is being executed by another process"),
            )
        })?;
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
        snap.resumed_from = req.resume_from.clone();
        snap.root_run_id = root_run_id;
        snap.clock_origin_ms = clock_origin;
        snap.pid = Some(std::process::id());
        self.store.write_snapshot(&snap)?;
        let journal =
            Journal::new(self.store.open_journal(&run_id)?, 0).with_byte_limit(self.limits.max_journal_bytes)?;
        let span = tracing::info_span!("run", run_id = %run_id, digest = %loaded.digest);
        let mut services = self.services.clone();
        if let Some(n) = req.max_parallel {
            services.limits.max_parallel = n.clamp(1, crate::vm::limits::MAX_PARALLEL);
        }
        self.execute(
            lock,
            snap,
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
    /// record the outcome.
    #[expect(
        clippy::too_many_arguments,
        reason = "the parts of one run, assembled by its two callers"
    )]
    async fn execute(
        &self,
        _lock: crate::store::LockFile,
        mut snap: RunSnapshot,
        journal: Journal,
        loaded: LoadedComponent,
        args: &Value,
        replay: Option<ReplayIndex>,
        progress: Option<ProgressFn>,
        services: Services,
    ) -> Result<RunOutcome> {
        let run_id = snap.run_id.clone();
        let clock_origin = snap.clock_origin();
        // The caller holds the run's flock (one executor per run; the
        // kernel drops it if we die). Controls that cannot be read are not
        // taken as "none": the run is left as it is, and the error named.
        // The length first: a control appended after it is seen by the
        // watcher even if it lands before the watcher's first tick.
        let controls_len = self.store.controls_len(&run_id);
        let controls = crate::control::read_controls(&self.store, &run_id)?;
        snap.state = RunState::Running;
        snap.waits.clear();
        snap.pid = Some(std::process::id());
        snap.started_at_ms = Some(now_ms());
        let ctx = RunContext::new(run_id.clone(), Some(journal), services);
        ctx.apply_controls(&controls);
        if let Some(root) = &snap.root_run_id {
            ctx.set_root_run_id(root.clone());
        }
        if let Some(index) = replay {
            ctx.set_replay(index);
        }
        ctx.journal(&Event::RunStarted {
            format: hwf_core::journal::JOURNAL_FORMAT,
            run_id: run_id.as_str(),
            script: &snap.script,
            args: &snap.args,
            seed_run: snap.seed_run().as_str(),
            clock_origin_ms: clock_origin,
        })?;
        // Only once the journal took the start does the snapshot say
        // `running`: a journal that refuses it leaves the run as it was.
        self.store.write_snapshot(&snap)?;

        let t0 = Instant::now();
        let args_text = args.to_string();
        ctx.set_exec(ExecEnv {
            vm: self.vm.clone(),
            epoch_ms: clock_origin,
        });
        let broker = InstanceBroker::root(ctx.clone(), Some(loaded.clone()));
        // The reporter is owned by this future: dropping the run (a
        // cancelled facade or MCP call) aborts it too, so nothing rewrites
        // run.json after the run is gone.
        let reporter = AbortOnDrop(self.spawn_progress(&ctx, &snap, progress, controls_len));
        let (answer, output) = call_run(&self.vm, &loaded, broker, clock_origin, &args_text).await;
        reporter.finish().await;
        // Aborted tasks (timeout, trap) end at their next await; wait for
        // them so nothing is journaled after the run's final record.
        if !ctx.wait_idle(std::time::Duration::from_secs(10)).await {
            tracing::warn!("tasks still running 10 s after the run ended");
        }
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
            crate::finalizers::finalize(&ctx, &self.store, &run_id).await;
            snap.finished_at_ms = Some(now_ms());
        }
        ctx.journal(&Event::RunCompleted {
            state: snap.state.as_str(),
            result: snap.result.as_ref(),
            result_path: snap.result_path.as_deref(),
            error: snap.error.as_ref(),
            duration_ms: t0.elapsed().as_millis() as u64,
        })?;
        self.store.write_snapshot(&snap)?;
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

    /// While a run executes: every 100 ms call the progress callback, and
    /// every 500 ms refresh `run.json` (phase, counts, in-flight figures) so
    /// `hwf status` from another process sees live progress.
    fn spawn_progress(
        &self,
        ctx: &Arc<RunContext>,
        snap: &RunSnapshot,
        cb: Option<ProgressFn>,
        controls_len: u64,
    ) -> tokio::task::JoinHandle<()> {
        let (ctx, store, mut snap) = (ctx.clone(), self.store.clone(), snap.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(std::time::Duration::from_millis(20));
            let mut n = 0u64;
            let mut controls_len = controls_len;
            loop {
                tick.tick().await;
                n += 1;
                // Controls from other processes (stop, pause, task_stop).
                // Controls that cannot be read end the run with the store's
                // code rather than being ignored.
                let len = store.controls_len(ctx.run_id());
                if len != controls_len {
                    controls_len = len;
                    match crate::control::read_controls(&store, ctx.run_id()) {
                        Ok(c) => ctx.apply_controls(&c),
                        // A recorded stop still stops the run; otherwise it
                        // ends with the store's code.
                        Err(_)
                            if store
                                .read_controls_lenient(ctx.run_id())
                                .is_ok_and(|(c, _)| c.iter().any(|c| c.action == crate::control::Action::Stop)) =>
                        {
                            ctx.request_stop();
                        }
                        Err(e) => ctx.fail(HostTrap::new(
                            e.code(),
                            format!("the run's controls cannot be read: {}", e.message()),
                        )),
                    }
                }
                if !n.is_multiple_of(5) {
                    continue;
                }
                let (running, queued) = ctx.in_flight();
                let p = Progress {
                    phase: ctx.phase(),
                    counts: ctx.counts(),
                    running,
                    queued,
                    elapsed: ctx.elapsed(),
                };
                if let Some(cb) = &cb {
                    cb(&p);
                }
                if n.is_multiple_of(25) {
                    snap.phase = p.phase.clone();
                    snap.counts = p.counts;
                    snap.live = Some(crate::store::LiveProgress { running, queued });
                    if let Err(e) = store.write_snapshot_fast(&snap) {
                        tracing::debug!(error = %e, "progress snapshot not written");
                    }
                }
            }
        })
    }
}

/// A spawned task owned by the future that holds this: aborted when it is
/// dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl AbortOnDrop {
    /// Abort the task and wait until it has ended.
    async fn finish(mut self) {
        self.0.abort();
        let handle = std::mem::replace(&mut self.0, tokio::spawn(async {}));
        let _ = handle.await;
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn short(digest: &str) -> &str {
    &digest[..digest.len().min(15)]
}

fn preview(text: &str) -> String {
    let mut end = RESULT_PREVIEW_BYTES.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}
