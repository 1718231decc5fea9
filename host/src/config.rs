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
//! agent_may_approve = ["read_only"] # gates the model may approve itself (MCP, plugin)
//! agent_may_answer = "all"          # or "addressed": only human.ask with "to": "agent"
//!
//! [capabilities]
//! workspace = "."                  # bash and fs.* are confined here
//!
//! [capabilities.bash]               # the kernel's confinement of bash commands
//! network = false                   # true: commands may open network connections
//! confine = true                    # false: no Landlock/namespaces (not recommended)
//!
//! [store]                          # where runs live (default: the state dir's files)
//! url = "postgres://hwf@db.internal/hwf"   # else --store, $HWF_STORE
//! lease_ms = 10000                 # a dead runner's runs are taken over after this
//!
//! [runner]
//! concurrency = 64                 # runs one runner executes at once (--concurrency)
//! autostart = true                 # false: never start the background runner (a managed
//!                                  # `hwf runner` serves the state dir); $HWF_RUNNER_AUTOSTART
//!
//! [agents.backends.claude]          # a CLI agent per call; prompt on stdin
//! kind = "command"
//! argv = ["claude", "-p", "--output-format", "json"]
//! output_field = "result"           # tokens (usage) and total_cost_usd are read too
//!
//! [agents.backends.hermes]          # the prompt as an argument
//! kind = "command"
//! argv = ["hermes", "chat", "-Q", "-q", "{prompt}"]   # prompt_via = "arg" inferred
//!
//! [agents.backends.codex]           # answer and usage from its JSON events
//! kind = "command"
//! argv = ["codex", "exec", "--json", "{prompt}"]
//! timeout_ms = 900000
//!
//! [agents.backends.bigprompt]       # the prompt in a private temp file
//! kind = "command"
//! argv = ["my-agent", "--prompt-file", "{prompt_file}", "--model", "{model}"]
//! prompt_via = "file"               # "stdin" (default) | "arg" | "file"
//!
//! [agents.backends.local]           # any OpenAI-compatible endpoint
//! kind = "openai"
//! base_url = "http://localhost:11434/v1"
//! model = "llama3.1"
//! api_key_env = "OLLAMA_API_KEY"    # the variable's name, never the key
//! response_format = "json_object"   # "json_schema" (default) | "json_object" | "none"
//! reasoning_effort = "low"          # sent only when set (or forward_effort = true)
//! max_retries = 3                   # 429, 5xx, connection errors, timeouts
//!
//! [agents.routes]
//! "hermes.greeter" = "local"        # by agent id
//! "type:reviewer" = "claude"        # by agent type
//!
//! [telemetry]                      # OpenTelemetry traces (OTLP/HTTP); OTEL_* variables win
//! endpoint = "http://localhost:4318"   # traces go to <endpoint>/v1/traces
//! protocol = "http/protobuf"       # or "http/json"
//! service_name = "hwf"
//! timeout_ms = 10000
//! capture_content = false          # true: prompts, answers, tool payloads (redacted)
//! # headers = { "x-api-key" = "…" } # better: OTEL_EXPORTER_OTLP_HEADERS
//!
//! [limits]
//! cpu_ms = 30000
//! memory_bytes = 268435456
//! wall_ms = 3600000
//! max_calls = 100000
//! max_agent_calls = 1000
//! max_output_bytes = 1048576
//! ```
//!
//! Unknown keys are refused, with the file, line and key named; numbers out
//! of range (see [`crate::vm::limits::RANGES`]) are refused naming the key
//! and the range (`invalid_config`).

use crate::agents::{AgentBackend, CommandConfig, CommandRunner, FixtureRunner, OpenAiConfig, OpenAiRunner, Router};
use crate::capabilities::Policy;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::limits::Limits;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// The journal.
    #[serde(default)]
    pub journal: JournalConfig,
    /// Where runs live.
    #[serde(default)]
    pub store: StoreConfig,
    /// Runners (`hwf runner` and the in-process runner of `serve`/`mcp`).
    #[serde(default)]
    pub runner: RunnerConfig,
    /// OpenTelemetry trace export.
    #[serde(default)]
    pub telemetry: crate::telemetry::TelemetryConfig,
}

/// Runs in flight per runner when nothing says otherwise: sized for
/// agent-bound work (a run spends nearly all its time waiting on agents).
pub const DEFAULT_CONCURRENCY: usize = 64;

/// The most runs one process executes at once: a quarter of the pooled
/// engine's 1,000 live instances, so each run in flight can hold its root
/// instance and three branches or stages at once.
pub const MAX_CONCURRENCY: usize = 250;

/// Check a concurrency setting (`--concurrency`, `[runner] concurrency`).
///
/// # Errors
///
/// `invalid_args` naming the setting and the range.
pub fn check_concurrency(what: &str, n: u64) -> hwf_core::error::Result<usize> {
    match usize::try_from(n) {
        Ok(n) if (1..=MAX_CONCURRENCY).contains(&n) => Ok(n),
        _ => Err(hwf_core::error::Error::new(
            hwf_core::error::ErrorCode::InvalidArgs,
            format!("{what} = {n} is out of range: expected 1 to {MAX_CONCURRENCY} runs at once"),
        )),
    }
}

/// `[runner]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunnerConfig {
    /// Runs one runner executes at once (default
    /// [`DEFAULT_CONCURRENCY`], at most
    /// [`MAX_CONCURRENCY`]); `--concurrency`
    /// overrides it.
    #[serde(default)]
    pub concurrency: Option<u64>,
    /// Whether whoever queues work or records a decision starts the state
    /// dir's background runner when nothing serves it (default `true`);
    /// `false` for operators who run a managed runner (systemd): runs,
    /// controls and events are then only recorded, for that runner.
    /// `$HWF_RUNNER_AUTOSTART` overrides it.
    #[serde(default)]
    pub autostart: Option<bool>,
}

/// The environment variable that overrides `[runner] autostart`.
pub const AUTOSTART_ENV: &str = "HWF_RUNNER_AUTOSTART";

impl RunnerConfig {
    /// The runner's slots: `flag` (`--concurrency`), else this setting,
    /// else the default.
    ///
    /// # Errors
    ///
    /// `invalid_args` for `--concurrency` out of range, `invalid_config`
    /// for `[runner] concurrency`.
    pub fn concurrency(&self, flag: Option<u64>) -> hwf_core::error::Result<usize> {
        match (flag, self.concurrency) {
            (Some(n), _) => check_concurrency("--concurrency", n),
            (None, Some(n)) => check_concurrency("[runner] concurrency", n)
                .map_err(|e| hwf_core::error::Error::new(hwf_core::error::ErrorCode::InvalidConfig, e.message())),
            (None, None) => Ok(DEFAULT_CONCURRENCY),
        }
    }

    /// Whether the background runner is started on demand:
    /// `$HWF_RUNNER_AUTOSTART` (`1`/`0`, `true`/`false`, `yes`/`no`,
    /// `on`/`off`), else `[runner] autostart`, else `true`.
    ///
    /// # Errors
    ///
    /// `invalid_config` naming the variable for any other value.
    pub fn autostart(&self) -> Result<bool> {
        match std::env::var(AUTOSTART_ENV).ok().filter(|v| !v.trim().is_empty()) {
            Some(v) => parse_switch(&v).ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidConfig,
                    format!("{AUTOSTART_ENV} must be 1 or 0 (true/false, yes/no, on/off), not {v:?}"),
                )
            }),
            None => Ok(self.autostart.unwrap_or(true)),
        }
    }
}

/// An on/off word of an environment variable.
fn parse_switch(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// `[store]`: where runs, scripts and events live.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreConfig {
    /// A state directory (the file store, the default) or a
    /// `postgres://` URL (runners on several machines share it).
    /// `--store` and `$HWF_STORE` override it.
    #[serde(default)]
    pub url: Option<String>,
    /// Lease length of a claim in a shared store, ms (default 10 000): a
    /// dead runner's runs are taken over this long after its last renewal.
    /// `$HWF_LEASE_MS` overrides it.
    #[serde(default)]
    pub lease_ms: Option<u64>,
}

/// The store a host uses: `--store`, else `$HWF_STORE`, else `[store] url`
/// (`None`: the state directory's file store).
///
/// # Errors
///
/// `invalid_config` for a URL hwf has no store for (see
/// [`crate::store::url::StoreUrl::parse`]).
pub fn resolve_store(explicit: Option<&str>, config: &Config) -> Result<Option<crate::store::url::StoreUrl>> {
    let env = std::env::var("HWF_STORE").ok().filter(|v| !v.is_empty());
    let chosen = explicit.map(str::to_owned).or(env).or_else(|| config.store.url.clone());
    chosen.as_deref().map(crate::store::url::StoreUrl::parse).transpose()
}

/// How a shared store holds claims: `$HWF_LEASE_MS`, else
/// `[store] lease_ms`.
///
/// # Errors
///
/// `invalid_config` for a lease that is not a whole number of ms in
/// 100..=3 600 000.
pub fn resolve_shared_options(config: &Config) -> Result<crate::store::url::SharedOptions> {
    let lease_ms = match std::env::var("HWF_LEASE_MS").ok().filter(|v| !v.is_empty()) {
        Some(v) => Some(v.trim().parse::<u64>().map_err(|_| {
            Error::new(
                ErrorCode::InvalidConfig,
                format!("HWF_LEASE_MS must be a whole number of milliseconds, not {v:?}"),
            )
        })?),
        None => config.store.lease_ms,
    };
    if let Some(ms) = lease_ms
        && !(100..=3_600_000).contains(&ms)
    {
        return Err(Error::new(
            ErrorCode::InvalidConfig,
            format!("the store's lease_ms is {ms}; it must be within 100..=3600000"),
        ));
    }
    Ok(crate::store::url::SharedOptions {
        lease: lease_ms.map(std::time::Duration::from_millis),
    })
}

/// `[journal]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalConfig {
    /// When call completions are flushed: `sync` (default), `group` or
    /// `async` (see [`hwf_core::journal::Durability`]).
    #[serde(default)]
    pub durability: hwf_core::journal::Durability,
}

/// `[capabilities]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapabilitiesConfig {
    /// The directory `bash` and `fs.*` are confined to (default: the
    /// current directory).
    #[serde(default)]
    pub workspace: Option<PathBuf>,
    /// `[capabilities.bash]`: how `bash` commands are confined by the
    /// kernel (default `confine = true`, `network = false`).
    #[serde(default)]
    pub bash: hwf_core::policy::CommandSandbox,
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
    /// The backend calls go to when no route matches (default: `fixture`
    /// when a fixture is set, else the only backend).
    #[serde(default)]
    pub default: Option<String>,
    /// Named backends: `kind = "command" | "openai" | "fixture"` plus the
    /// kind's settings.
    #[serde(default)]
    pub backends: std::collections::BTreeMap<String, toml::Value>,
    /// Routes: agent id, or `type:<agent type>`, to a backend name.
    #[serde(default)]
    pub routes: std::collections::HashMap<String, String>,
}

impl AgentsConfig {
    /// Build the agent runner this configuration describes: a [`Router`]
    /// over the named backends (plus `fixture`), a fixture runner, or an
    /// empty fixture runner.
    ///
    /// # Errors
    ///
    /// `invalid_config` naming the backend and key; the fixture's errors.
    pub fn runner(&self) -> Result<Arc<dyn AgentBackend>> {
        let fixture: Option<Arc<dyn AgentBackend>> = match &self.fixture {
            Some(p) => Some(Arc::new(FixtureRunner::from_file(p)?)),
            None => None,
        };
        if self.backends.is_empty() {
            return Ok(fixture.unwrap_or_else(|| Arc::new(FixtureRunner::empty())));
        }
        let mut backends: HashMap<String, Arc<dyn AgentBackend>> = HashMap::new();
        for (name, value) in &self.backends {
            backends.insert(name.clone(), backend(name, value)?);
        }
        if let Some(f) = fixture {
            backends.entry("fixture".into()).or_insert(f);
        }
        let default = match &self.default {
            Some(d) => d.clone(),
            None if backends.contains_key("fixture") => "fixture".into(),
            None if backends.len() == 1 => backends.keys().next().cloned().unwrap_or_default(),
            None => {
                return Err(Error::new(
                    ErrorCode::InvalidConfig,
                    "agents.default is needed when there are several backends",
                ));
            }
        };
        Ok(Arc::new(Router::new(backends, &self.routes, &default)?))
    }
}

/// One backend's parsed and checked settings.
enum Backend {
    Command(CommandConfig),
    OpenAi(OpenAiConfig),
    Fixture(PathBuf),
}

/// Parse and check `[agents.backends.<name>]` (numbers in range, argv
/// placeholders agreeing with `prompt_via`), without building anything.
fn parse_backend(name: &str, value: &toml::Value) -> Result<Backend> {
    let bad = |msg: String| Error::new(ErrorCode::InvalidConfig, format!("agents.backends.{name}: {msg}"));
    let mut table = value.as_table().cloned().ok_or_else(|| bad("must be a table".into()))?;
    let kind = table
        .remove("kind")
        .and_then(|k| k.as_str().map(str::to_owned))
        .ok_or_else(|| bad("needs kind = \"command\", \"openai\" or \"fixture\"".into()))?;
    let rest = toml::Value::Table(table);
    match kind.as_str() {
        "command" => {
            let c: CommandConfig = rest.try_into().map_err(|e: toml::de::Error| bad(e.to_string()))?;
            if c.argv.is_empty() {
                return Err(bad("argv is empty".into()));
            }
            c.validate().map_err(bad)?;
            Ok(Backend::Command(c))
        }
        "openai" => {
            let c: OpenAiConfig = rest.try_into().map_err(|e: toml::de::Error| bad(e.to_string()))?;
            c.validate().map_err(bad)?;
            Ok(Backend::OpenAi(c))
        }
        "fixture" => {
            let path = rest
                .get("path")
                .and_then(|p| p.as_str())
                .ok_or_else(|| bad("needs path".into()))?;
            Ok(Backend::Fixture(PathBuf::from(path)))
        }
        other => Err(bad(format!("unknown kind {other:?}"))),
    }
}

fn backend(name: &str, value: &toml::Value) -> Result<Arc<dyn AgentBackend>> {
    Ok(match parse_backend(name, value)? {
        Backend::Command(c) => Arc::new(CommandRunner::new(c)),
        Backend::OpenAi(c) => Arc::new(OpenAiRunner::new(c)?),
        Backend::Fixture(path) => Arc::new(FixtureRunner::from_file(&path)?),
    })
}

impl Config {
    /// Load `path`, or `./hwf.toml` when it exists, or the defaults (see
    /// [`Config::load_from`] for the state dir's `hwf.toml`).
    ///
    /// # Errors
    ///
    /// `not_found` when an explicit path is missing; `invalid_config` naming
    /// the file, line and key when it is malformed.
    pub fn load(path: Option<&Path>) -> Result<Self> {
        Self::load_from(path, None)
    }

    /// Load `path`, else `./hwf.toml`, else `<state_dir>/hwf.toml`, else the
    /// defaults.
    ///
    /// # Errors
    ///
    /// As [`Config::load`].
    pub fn load_from(path: Option<&Path>, state_dir: Option<&Path>) -> Result<Self> {
        let path = match path {
            Some(p) => p.to_path_buf(),
            None => {
                let local = PathBuf::from("hwf.toml");
                let in_state = state_dir.map(|d| d.join("hwf.toml"));
                if local.is_file() {
                    local
                } else if let Some(p) = in_state.filter(|p| p.is_file()) {
                    p
                } else {
                    return Ok(Self::default());
                }
            }
        };
        let text = crate::store::FileStore::read_input(&path, 1 << 20, "config", ErrorCode::InvalidConfig)?;
        hwf_core::redact::register_config_text(&text);
        let mut cfg: Config = toml::from_str(&text).map_err(|e| {
            let msg = e.to_string().replace('\n', " ");
            Error::new(ErrorCode::InvalidConfig, format!("{}: {}", path.display(), msg.trim()))
        })?;
        cfg.limits
            .validate("limits.")
            .map_err(|e| Error::new(ErrorCode::InvalidConfig, format!("{}: {e}", path.display())))?;
        cfg.check_policy()
            .map_err(|e| Error::new(ErrorCode::InvalidConfig, format!("{}: {e}", path.display())))?;
        cfg.telemetry
            .check()
            .map_err(|e| Error::new(ErrorCode::InvalidConfig, format!("{}: {}", path.display(), e.message())))?;
        for (name, value) in &cfg.agents.backends {
            parse_backend(name, value)
                .map_err(|e| Error::new(e.code(), format!("{}: {}", path.display(), e.message())))?;
        }
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

impl Config {
    /// `[policy]`'s numbers: `max_result_bytes` 1 to 1 GiB, `max_stream_bytes`
    /// 0 to 1 GiB.
    fn check_policy(&self) -> Result<(), hwf_core::limits::OutOfRange> {
        use hwf_core::limits::check_range;
        check_range("policy.max_result_bytes", self.policy.max_result_bytes, 1, 1 << 30)?;
        check_range("policy.max_stream_bytes", self.policy.max_stream_bytes, 0, 1 << 30)?;
        Ok(())
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
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    home.join(".hermes").join("workflows")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example at the top of this file is a valid configuration.
    #[test]
    fn the_documented_example_parses() {
        let example: String = include_str!("config.rs")
            .lines()
            .skip_while(|l| !l.starts_with("//! ```toml"))
            .skip(1)
            .take_while(|l| !l.starts_with("//! ```"))
            .map(|l| l.strip_prefix("//!").unwrap_or(l).strip_prefix(' ').unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let cfg: Config = toml::from_str(&example).expect("the example parses");
        cfg.limits.validate("limits.").expect("limits in range");
        assert!(cfg.agents.backends.len() >= 5, "{example}");
        cfg.check_policy().expect("policy in range");
        for (name, value) in &cfg.agents.backends {
            parse_backend(name, value).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert_eq!(cfg.runner.autostart, Some(true));
        cfg.telemetry.check().expect("telemetry settings");
        assert_eq!(cfg.telemetry.endpoint.as_deref(), Some("http://localhost:4318"));
    }

    #[test]
    fn autostart_words_and_a_bad_value_naming_its_key() {
        for (word, on) in [
            ("1", true),
            ("0", false),
            ("TRUE", true),
            ("off", false),
            (" no ", false),
            ("yes", true),
        ] {
            assert_eq!(parse_switch(word), Some(on), "{word}");
        }
        assert_eq!(parse_switch("maybe"), None);
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("hwf.toml");
        std::fs::write(&path, "[runner]\nautostart = \"maybe\"\n").expect("write");
        let e = Config::load(Some(&path)).expect_err("a string is not a switch");
        assert_eq!(e.code(), ErrorCode::InvalidConfig);
        assert!(e.message().contains("autostart"), "{e}");
        std::fs::write(&path, "[runner]\nautostart = false\n").expect("write");
        assert_eq!(Config::load(Some(&path)).expect("loads").runner.autostart, Some(false));
    }
}
