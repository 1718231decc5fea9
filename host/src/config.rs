//! `hwf.toml`: optional configuration.
//!
//! ```toml
//! state_dir = "/var/lib/hwf"       # else --state-dir, $HWF_STATE_DIR, …
//!
//! [agents]
//! fixture = "agents.json"          # default agent backend (relative to the file)
//!
//! [policy]
//! allowed_names = ["*"]            # "fs.*" style prefixes work
//! allowed_classes = ["read_only"]  # add "external_write" for bash / fs.write
//! approval_classes = ["external_write"]
//! approved_ids = ["release-42"]
//!
//! [capabilities]
//! workspace = "."                  # bash and fs.* are confined here
//!
//! [limits]
//! cpu_ms = 5000
//! memory_bytes = 268435456
//! wall_ms = 3600000
//! max_calls = 100000
//! max_agent_calls = 1000
//! max_output_bytes = 1048576
//! ```
//!
//! Unknown keys are refused, with the file, line and key named.

use crate::error::{Error, ErrorCode, Result};
use crate::capabilities::Policy;
use crate::vm::Limits;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Parsed configuration.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// State directory (overridden by `--state-dir`).
    #[serde(default)]
    pub state_dir: Option<PathBuf>,
    /// Agent backends.
    #[serde(default)]
    pub agents: AgentsConfig,
    /// Run limits.
    #[serde(default)]
    pub limits: Limits,
    /// Capability policy.
    #[serde(default)]
    pub policy: Policy,
    /// Built-in capabilities.
    #[serde(default)]
    pub capabilities: CapabilitiesConfig,
}

/// `[capabilities]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapabilitiesConfig {
    /// The directory `bash` and `fs.*` are confined to (default: the
    /// current directory).
    #[serde(default)]
    pub workspace: Option<PathBuf>,
}

/// `[agents]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentsConfig {
    /// A fixture file used when `--agents` is not given.
    #[serde(default)]
    pub fixture: Option<PathBuf>,
    /// Where `<type>.md` agent types are looked up (default:
    /// `./.hermes/agents`, then `~/.hermes/agents`).
    #[serde(default)]
    pub type_dirs: Option<Vec<PathBuf>>,
}

impl Config {
    /// Load `path`, or `./hwf.toml` when it exists, or the defaults.
    ///
    /// # Errors
    ///
    /// `not_found` when an explicit path is missing; `invalid_config` naming
    /// the file, line and key when it is malformed.
    pub fn load(path: Option<&Path>) -> Result<Self> {
        let path = match path {
            Some(p) => p.to_path_buf(),
            None => {
                let local = PathBuf::from("hwf.toml");
                if !local.is_file() {
                    return Ok(Self::default());
                }
                local
            }
        };
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(format!("config {}", path.display()), e))?;
        let mut cfg: Config = toml::from_str(&text).map_err(|e| {
            let msg = e.to_string().replace('\n', " ");
            Error::new(ErrorCode::InvalidConfig, format!("{}: {}", path.display(), msg.trim()))
        })?;
        if let Some(dir) = path.parent() {
            let anchor = |p: &mut PathBuf| {
                if p.is_relative() {
                    *p = dir.join(&*p);
                }
            };
            cfg.agents.fixture.iter_mut().for_each(anchor);
            cfg.capabilities.workspace.iter_mut().for_each(anchor);
            cfg.agents.type_dirs.iter_mut().flatten().for_each(anchor);
        }
        Ok(cfg)
    }
}

/// Where the state lives: `explicit`, else `$HWF_STATE_DIR`, else
/// `$HERMES_HOME/workflows`, else `~/.hermes/workflows`.
pub fn resolve_state_dir(explicit: Option<&Path>, config: &Config) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    if let Some(p) = &config.state_dir {
        return p.clone();
    }
    if let Some(p) = std::env::var_os("HWF_STATE_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("HERMES_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(p).join("workflows");
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    home.join(".hermes").join("workflows")
}
