//! Building a host from the configuration file: which agent backend runs
//! agent calls, the capabilities' workspace, agent types, limits, the
//! compile cache — the policy every front door (CLI, MCP server, console)
//! shares.

use crate::agents::{AgentRunner, AgentTypes, FixtureRunner};
use crate::capabilities::Registry;
use crate::config::{Config, resolve_state_dir};
use crate::runtime::{Hwf, HwfBuilder};
use crate::vm::Limits;
use hwf_core::error::{Error, Result};
use std::path::PathBuf;
use std::sync::Arc;

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
        let (runner, fixture_path): (Arc<dyn AgentRunner>, Option<PathBuf>) = match &overrides.agents {
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
        Ok(Hwf::builder(state)
            .agents(runner)
            .capabilities(Registry::with_builtins(&workspace)?)
            .policy(config.policy.clone())
            .agent_types(types)
            .limits(overrides.limits.clone().unwrap_or_else(|| config.limits.clone()))
            .agents_fixture(fixture_path)
            .workspace(Some(workspace))
            .cache_dir(crate::scripts::user_cache_dir())
            .durability(config.journal.durability))
    }
}
