//! The host: [`Hwf`] (a store, a VM and the services runs use) and its
//! builder, including [`HwfBuilder::from_config`] — which agent backend
//! runs agent calls, the capabilities' workspace, agent types, limits, the
//! compile cache: the policy every front door (CLI, MCP server, console)
//! shares.

use crate::agents::{AgentBackend, AgentTypes, FixtureRunner};
use crate::broker::{LoadedComponent, Services, Vm};
use crate::capabilities::{Policy, Registry};
use crate::config::{Config, resolve_state_dir};
use crate::store::url::{SharedOptions, StoreUrl};
use crate::store::{FileStore, RunSettings, Store};
use crate::vm::Limits;
use hwf_core::error::{Error, Result};
use std::path::PathBuf;
use std::sync::Arc;

/// Continues a run alone in a process of its own and returns when that
/// process has ended (see [`crate::HwfBuilder::isolation`]).
pub type Isolate =
    Arc<dyn Fn(hwf_core::ids::RunId) -> futures_util::future::BoxFuture<'static, Result<()>> + Send + Sync>;

/// The hwf host: a store, a VM, and the services runs use (agent runner,
/// capabilities, policy, limits, agent types).
pub struct Hwf {
    pub(crate) store: Arc<Store>,
    pub(crate) vm: Arc<Vm>,
    pub(crate) services: Services,
    pub(crate) limits: Limits,
    pub(crate) settings: RunSettings,
    /// Whether this process executes several runs at once (a runner with
    /// more than one slot): journaled with each execution's start, so a
    /// process death is not blamed on each run it held.
    pub(crate) shared_executor: std::sync::atomic::AtomicBool,
    /// How a scheduler continues a run whose executor died, alone in a
    /// process of its own ([`HwfBuilder::isolation`]).
    pub(crate) isolation: Option<Isolate>,
    /// Where ended executions' traces go ([`HwfBuilder::telemetry`]).
    pub(crate) telemetry: Option<Arc<crate::telemetry::Exporter>>,
}

/// Builds an [`Hwf`]; everything but the state dir has a default.
pub struct HwfBuilder {
    state_dir: PathBuf,
    services: Services,
    agents_fixture: Option<PathBuf>,
    workspace: Option<PathBuf>,
    sandbox: hwf_core::policy::CommandSandbox,
    cache_dir: Option<PathBuf>,
    shared: Option<StoreUrl>,
    shared_options: SharedOptions,
    allocation: crate::vm::InstanceAllocation,
    isolation: Option<Isolate>,
    telemetry: Option<crate::telemetry::ExportSettings>,
}

impl std::fmt::Debug for HwfBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HwfBuilder")
            .field("state_dir", &self.state_dir)
            .field("services", &self.services)
            .field("agents_fixture", &self.agents_fixture)
            .field("workspace", &self.workspace)
            .field("sandbox", &self.sandbox)
            .field("cache_dir", &self.cache_dir)
            .field("shared", &self.shared)
            .field("allocation", &self.allocation)
            .field("isolation", &self.isolation.is_some())
            .field("telemetry", &self.telemetry.as_ref().map(|t| &t.url))
            .finish_non_exhaustive()
    }
}

impl HwfBuilder {
    /// How a runner with several slots continues a run whose executor died
    /// (it may have been the run's fault): alone, in a process of its own
    /// that this starts and awaits (the binary's `hwf runner --once --run
    /// <id> --concurrency 1`), so a run that keeps killing its host is
    /// quarantined without taking the other runs down with it. Without it,
    /// such a run is continued in-process, and a death there is blamed on
    /// no run.
    pub fn isolation(mut self, isolate: Option<Isolate>) -> Self {
        self.isolation = isolate;
        self
    }

    /// Export every run as an OpenTelemetry trace with these settings
    /// (default: none; [`HwfBuilder::from_config`] resolves them from
    /// `OTEL_*` and `[telemetry]`). See [`crate::telemetry`].
    pub fn telemetry(mut self, settings: Option<crate::telemetry::ExportSettings>) -> Self {
        self.telemetry = settings;
        self
    }

    /// Keep runs, scripts, events and blobs in this store (a
    /// `postgres://` URL; a directory means the state dir's file store,
    /// the default). The state dir still holds what is the machine's own.
    pub fn store_url(mut self, url: Option<StoreUrl>) -> Self {
        match url {
            Some(StoreUrl::File(dir)) => {
                self.state_dir = dir;
                self.shared = None;
            }
            other => self.shared = other,
        }
        self
    }

    /// How a shared store holds claims (the lease length).
    pub fn shared_options(mut self, options: SharedOptions) -> Self {
        self.shared_options = options;
        self
    }

    /// The compile cache directory (default: the per-user cache the CLI
    /// uses, [`crate::scripts::user_cache_dir`], so a new state dir does
    /// not compile the script runtimes again; `None`: `<state>/cache`).
    pub fn cache_dir(mut self, path: Option<PathBuf>) -> Self {
        self.cache_dir = path;
        self
    }
    /// The agent runner (default: a fixture runner with no rules).
    pub fn agents(mut self, agents: Arc<dyn AgentBackend>) -> Self {
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
    /// How the engine allocates instances (default: pooled, for a process
    /// that runs many workflows; on demand for one that runs one and
    /// exits).
    pub fn instance_allocation(mut self, allocation: crate::vm::InstanceAllocation) -> Self {
        self.allocation = allocation;
        self
    }
    /// Record the capabilities' workspace, for continuations.
    pub fn workspace(mut self, path: Option<PathBuf>) -> Self {
        self.workspace = path;
        self
    }
    /// Record how `bash` commands are confined (default: confined, no
    /// network), for continuations. The registry given to
    /// [`capabilities`](Self::capabilities) should be built with the same
    /// ([`Registry::with_builtins_sandboxed`]).
    pub fn sandbox(mut self, sandbox: hwf_core::policy::CommandSandbox) -> Self {
        self.sandbox = sandbox;
        self
    }
    /// Open the store and start the VM.
    ///
    /// # Errors
    ///
    /// `io` when the state dir cannot be opened, or the recorded agents
    /// fixture or workspace cannot be resolved; `internal` when wasmtime
    /// cannot start.
    pub fn build(mut self) -> Result<Hwf> {
        let mut store = FileStore::open(&self.state_dir)?;
        if let Some(dir) = &self.cache_dir {
            store = store.with_cache_dir(dir)?;
        }
        // No workflow reads this process's state dir or compile cache
        // through a workspace that contains them, and the stored console /
        // MCP token is redacted wherever it would appear.
        crate::capabilities::fs::protect(&self.state_dir);
        if let Some(dir) = &self.cache_dir {
            crate::capabilities::fs::protect(dir);
        }
        crate::store::register_stored_token(&self.state_dir);
        let local = Arc::new(store);
        let store = match &self.shared {
            Some(url) => match crate::store::url::open_shared(url, self.shared_options)? {
                Some((parts, bridge)) => Store::shared(local, parts, bridge),
                None => Store::file(local),
            },
            None => Store::file(local),
        };
        let store = Arc::new(store);
        self.services.store = Some(store.clone());
        let limits = self.services.limits.clone();
        let settings = RunSettings {
            limits: limits.clone(),
            policy: self.services.policy.clone(),
            // Recorded for continuations: a path that cannot be resolved is
            // an error here, not a continuation under another backend.
            agents_fixture: self.agents_fixture.as_deref().map(absolute).transpose()?,
            workspace: self.workspace.as_deref().map(absolute).transpose()?,
            durability: self.services.durability,
            sandbox: self.sandbox,
        };
        let telemetry = self
            .telemetry
            .map(|t| crate::telemetry::Exporter::new(t, store.clone()));
        Ok(Hwf {
            store,
            vm: Arc::new(Vm::with_allocation(self.allocation)),
            services: self.services,
            limits,
            settings,
            shared_executor: std::sync::atomic::AtomicBool::new(false),
            isolation: self.isolation,
            telemetry,
        })
    }
}

impl Hwf {
    /// Say that this process executes several runs at once (set by a
    /// [`crate::app::scheduler::Scheduler`] with more than one slot).
    pub fn set_shared_executor(&self, shared: bool) {
        self.shared_executor.store(shared, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether this process executes several runs at once.
    pub fn is_shared_executor(&self) -> bool {
        self.shared_executor.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// A path as recorded in a run's settings: absolute, links resolved.
fn absolute(path: &std::path::Path) -> Result<PathBuf> {
    path.canonicalize()
        .map_err(|e| Error::io(format!("{}", path.display()), e))
}

impl std::fmt::Debug for Hwf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hwf")
            .field("state_dir", &self.store.root())
            .finish_non_exhaustive()
    }
}

impl Hwf {
    /// A host over the state directory at `state_dir` with the given agent
    /// runner and limits.
    ///
    /// # Errors
    ///
    /// `io` when the state dir cannot be opened; `internal` when wasmtime
    /// cannot start.
    pub fn new(state_dir: impl Into<PathBuf>, agents: Arc<dyn AgentBackend>, limits: Limits) -> Result<Self> {
        Self::builder(state_dir).agents(agents).limits(limits).build()
    }

    /// A builder over the state directory at `state_dir`.
    pub fn builder(state_dir: impl Into<PathBuf>) -> HwfBuilder {
        HwfBuilder {
            state_dir: state_dir.into(),
            services: Services::new(Arc::new(FixtureRunner::empty())),
            agents_fixture: None,
            workspace: None,
            sandbox: hwf_core::policy::CommandSandbox::default(),
            // Shared with the CLI: entries are keyed by digest and engine.
            cache_dir: crate::scripts::user_cache_dir(),
            shared: None,
            shared_options: SharedOptions::default(),
            allocation: crate::vm::InstanceAllocation::Pooled,
            isolation: None,
            telemetry: None,
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

    /// The store: the state dir's file store, or a shared one
    /// ([`Store::local`] is always the state dir's).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// [`Hwf::store`], shared.
    pub fn store_arc(&self) -> Arc<Store> {
        self.store.clone()
    }

    /// The trace exporter, when traces are exported.
    pub fn telemetry(&self) -> Option<&Arc<crate::telemetry::Exporter>> {
        self.telemetry.as_ref()
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

    /// The capabilities this host offers (`hwf capabilities` lists them;
    /// [`Registry::typescript`] declares them for editors).
    pub fn capabilities(&self) -> &Registry {
        &self.services.capabilities
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
        self.vm.load(bytes, Some(self.store.local()), &self.limits)
    }
}

/// What an invocation overrides in the configuration.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// The state directory (`--state-dir`); else the config's, else the
    /// default.
    pub state_dir: Option<PathBuf>,
    /// A fixture file that answers agent calls (`--agents`); wins over the
    /// config's backends.
    pub agents: Option<PathBuf>,
    /// A fixture file used when neither `--agents` nor the config names a
    /// backend (`$HWF_AGENTS`).
    pub fallback_agents: Option<PathBuf>,
    /// Limits instead of the config's.
    pub limits: Option<Limits>,
    /// The directory relative paths and the default workspace and agent
    /// types are found in (default: the current directory).
    pub cwd: Option<PathBuf>,
    /// The store (`--store`); else `$HWF_STORE`, else the config's.
    pub store: Option<String>,
}

impl HwfBuilder {
    /// A builder configured from `config` and `overrides`: the agent
    /// backend is `--agents`, else the config's backends and fixture, else
    /// the fallback fixture, else none (agent calls fail); capabilities are
    /// the built-ins over the config's workspace (default: the current
    /// directory); agent types from the config's directories or the
    /// defaults; the per-user compile cache; the journal's durability.
    ///
    /// # Errors
    ///
    /// `not_found`/`io`/`invalid_args` for a fixture or backend that cannot
    /// be read, `io` for the current directory, the registry's codes.
    pub fn from_config(config: &Config, overrides: &Overrides) -> Result<Self> {
        let state = resolve_state_dir(overrides.state_dir.as_deref(), config);
        let (runner, fixture_path): (Arc<dyn AgentBackend>, Option<PathBuf>) = match &overrides.agents {
            Some(path) => (Arc::new(FixtureRunner::from_file(path)?), Some(path.clone())),
            None if !config.agents.backends.is_empty() || config.agents.fixture.is_some() => {
                (config.agents.runner()?, config.agents.fixture.clone())
            }
            None => match &overrides.fallback_agents {
                Some(path) => (Arc::new(FixtureRunner::from_file(path)?), Some(path.clone())),
                None => (Arc::new(FixtureRunner::empty()), None),
            },
        };
        let cwd = match &overrides.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().map_err(|e| Error::io("current directory", e))?,
        };
        let workspace = config.capabilities.workspace.clone().unwrap_or_else(|| cwd.clone());
        let types = match &config.agents.type_dirs {
            Some(dirs) => AgentTypes::new(dirs.clone()),
            None => AgentTypes::default_dirs(&cwd),
        };
        // A bad OTEL_* variable (set for other programs, say) costs the run
        // its traces, not the run; `[telemetry]` was checked with the file.
        let telemetry = crate::telemetry::ExportSettings::resolve(&config.telemetry).unwrap_or_else(|e| {
            tracing::warn!("trace export is off: {e}");
            None
        });
        Ok(Hwf::builder(state)
            .telemetry(telemetry)
            .agents(runner)
            .capabilities(Registry::with_builtins_sandboxed(&workspace, config.capabilities.bash)?)
            .sandbox(config.capabilities.bash)
            .policy(config.policy.clone())
            .agent_types(types)
            .limits(overrides.limits.clone().unwrap_or_else(|| config.limits.clone()))
            .agents_fixture(fixture_path)
            .workspace(Some(workspace))
            .cache_dir(crate::scripts::user_cache_dir())
            .durability(config.journal.durability)
            .store_url(crate::config::resolve_store(overrides.store.as_deref(), config)?)
            .shared_options(crate::config::resolve_shared_options(config)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(dir: &std::path::Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, r#"{"responses": []}"#).expect("fixture");
        path
    }

    fn recorded(config: &Config, overrides: &Overrides) -> Option<PathBuf> {
        let hwf = HwfBuilder::from_config(config, overrides)
            .expect("builder")
            .build()
            .expect("host");
        hwf.settings.agents_fixture.clone()
    }

    #[test]
    fn the_agent_backend_is_agents_then_the_config_then_the_fallback() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (flag, configured, env) = (
            fixture(dir.path(), "flag.json"),
            fixture(dir.path(), "config.json"),
            fixture(dir.path(), "env.json"),
        );
        let base = Overrides {
            state_dir: Some(dir.path().join("state")),
            cwd: Some(dir.path().to_path_buf()),
            fallback_agents: Some(env.clone()),
            ..Overrides::default()
        };
        let canon = |p: &PathBuf| Some(p.canonicalize().expect("canonical"));
        let mut config = Config::default();
        assert_eq!(recorded(&config, &base), canon(&env));
        config.agents.fixture = Some(configured.clone());
        assert_eq!(recorded(&config, &base), canon(&configured));
        let with_flag = Overrides {
            agents: Some(flag.clone()),
            ..base.clone()
        };
        assert_eq!(recorded(&config, &with_flag), canon(&flag));
        let none = Overrides {
            fallback_agents: None,
            ..base.clone()
        };
        assert_eq!(recorded(&Config::default(), &none), None);
        // Limits: the override's, else the config's.
        let limits = Limits {
            max_agent_calls: 7,
            ..Limits::default()
        };
        let hwf = HwfBuilder::from_config(
            &Config::default(),
            &Overrides {
                limits: Some(limits),
                ..none
            },
        )
        .expect("builder")
        .build()
        .expect("host");
        assert_eq!(hwf.limits().max_agent_calls, 7);
        // A fixture that cannot be read is an error, not "no backend".
        let missing = Overrides {
            agents: Some(dir.path().join("missing.json")),
            ..base
        };
        assert!(HwfBuilder::from_config(&config, &missing).is_err());
    }
}
