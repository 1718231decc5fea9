//! The `hwf` command line: clap definitions and one function per command.
//!
//! Output: human text by default; `--json` prints the facade envelope
//! (`{"success": true, "data": …}` / `{"success": false, "error": {…}}`).
//! Exit codes: 0 success, 1 the run failed or was stopped, 2 bad usage or
//! bad input, 3 the run is waiting.

mod console;
mod doctor;
mod kanban;
mod ops;
mod output;
mod progress;
mod triggers;

use clap::{Args, Parser, Subcommand};
use hwf_host::capabilities::SideEffect;
use hwf_host::catalog::Severity;
use hwf_host::config::{Config, resolve_state_dir};
use hwf_host::ids::RunId;
use hwf_host::store::RunState;
use hwf_host::{Error, ErrorCode, Hwf, Limits, RunRequest, Target};
use output::Out;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// Run AI-agent workflows as sandboxed WebAssembly components.
#[derive(Debug, Parser)]
#[command(name = "hwf", version, about, long_about = None)]
pub struct Cli {
    /// State directory (default: $HWF_STATE_DIR, $HERMES_HOME/workflows, ~/.hermes/workflows).
    #[arg(long, global = true, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Configuration file (default: ./hwf.toml when present).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// More logging on stderr (-v info, -vv debug, -vvv trace); RUST_LOG also works.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a harness (a .wasm file or a saved script name) to the end.
    Run(RunArgs),
    /// Show a run's state, phases and calls.
    Status {
        /// Run id.
        run_id: String,
        /// Redraw at each change until the run ends.
        #[arg(long)]
        watch: bool,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// List runs, newest first (with age, duration, workflow name; filters).
    Overview {
        #[command(flatten)]
        filter: console::OverviewArgs,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// The review queue: every blocked wait across runs and how to answer it.
    Waits {
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// A run's log lines, phases, waits and decisions.
    Logs(console::LogsArgs),
    /// The web console and JSON API (loopback; token for writes), with a runner in-process.
    Serve(console::ServeArgs),
    /// Save, list and inspect saved scripts.
    #[command(subcommand)]
    Script(ScriptCommand),
    /// Check a component: import gate, compilation, meta.
    Validate {
        /// Path of the .wasm component.
        path: PathBuf,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Operator controls: pause, resume, stop, task-stop, retry, decide.
    #[command(subcommand)]
    Control(ControlCommand),
    /// External events that `events.wait` calls wait for.
    #[command(subcommand)]
    Events(EventsCommand),
    /// Execute queued runs and continue runs whose waits resolved or whose
    /// executor died.
    Runner(RunnerArgs),
    /// Kanban lanes: the board kanban_agent steps use, and its cards.
    #[command(subcommand)]
    Kanban(kanban::KanbanCommand),
    /// Event-triggered and cron starts of saved workflows.
    #[command(subcommand)]
    Triggers(triggers::TriggersCommand),
    /// One facade call: a JSON request on stdin, the JSON response on stdout.
    Facade {
        /// workflow or workflow_control.
        #[arg(default_value = "workflow")]
        tool: String,
        /// Fixture agent file.
        #[arg(long, value_name = "FIXTURE.json")]
        agents: Option<PathBuf>,
        /// Print the tools' names, descriptions and JSON Schemas instead.
        #[arg(long)]
        list_tools: bool,
    },
    /// MCP server on stdio: tools `workflow` and `workflow_control`.
    Mcp {
        /// Fixture agent file.
        #[arg(long, value_name = "FIXTURE.json")]
        agents: Option<PathBuf>,
    },
    /// Check the config, state dir, cache, harness artifacts and agent backends.
    Doctor {
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure hot paths (instantiate, broker round trip, agent call, journal append).
    Bench(crate::bench::BenchArgs),
}

#[derive(Debug, Args)]
struct ControlMeta {
    /// Who is asking (recorded).
    #[arg(long, default_value = "cli")]
    actor: String,
    /// Why (recorded, redacted).
    #[arg(long)]
    reason: Option<String>,
    /// An idempotency id: the same id twice is recorded once.
    #[arg(long, value_name = "ID")]
    control_id: Option<String>,
    /// Print the facade JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum ControlCommand {
    /// Park the run at its next call.
    Pause {
        /// Run id.
        run_id: String,
        #[command(flatten)]
        meta: ControlMeta,
    },
    /// Let a paused run continue (a runner picks it up).
    Resume {
        /// Run id.
        run_id: String,
        #[command(flatten)]
        meta: ControlMeta,
    },
    /// Stop the run for good (interrupts it if it is executing).
    Stop {
        /// Run id.
        run_id: String,
        #[command(flatten)]
        meta: ControlMeta,
    },
    /// Revoke a scoped grant (grant.request): its next grant.act fails with grant_revoked.
    Revoke {
        /// Run id.
        run_id: String,
        /// The grant id (`<run>:<call>`, the grant.request result's grant_id).
        grant: String,
        #[command(flatten)]
        meta: ControlMeta,
    },
    /// Cancel one call (it returns `cancelled`).
    TaskStop {
        /// Run id.
        run_id: String,
        /// Call id (e.g. `3` or `2.1`).
        call: String,
        #[command(flatten)]
        meta: ControlMeta,
    },
    /// Run a failed call live again on the next resume.
    Retry {
        /// Run id.
        run_id: String,
        /// Call id.
        call: String,
        #[command(flatten)]
        meta: ControlMeta,
    },
    /// Decide a parked approval or answer a question.
    Decide {
        /// Run id.
        run_id: String,
        /// Call id.
        call: String,
        /// approve, reject, edit (with --value: the new input) or respond (with --value: the answer).
        decision: String,
        /// The answer (respond) or new input (edit): JSON, or else taken as a plain string.
        #[arg(long, value_name = "JSON")]
        value: Option<String>,
        /// Where the decision came from (e.g. slack).
        #[arg(long)]
        channel: Option<String>,
        /// The message that carried it.
        #[arg(long)]
        message_id: Option<String>,
        #[command(flatten)]
        meta: ControlMeta,
    },
}

#[derive(Debug, Subcommand)]
enum EventsCommand {
    /// Record an event (idempotent by --id).
    Send {
        /// Source (e.g. github).
        #[arg(long)]
        source: String,
        /// Type (e.g. pull_request.merged).
        #[arg(long = "type")]
        kind: String,
        /// Event id (generated when absent).
        #[arg(long)]
        id: Option<String>,
        /// Subject (e.g. org/repo#42).
        #[arg(long)]
        subject: Option<String>,
        /// Payload JSON.
        #[arg(long, value_name = "JSON")]
        payload: Option<String>,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// List recorded events.
    List {
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
struct RunnerArgs {
    /// One pass, then exit.
    #[arg(long)]
    once: bool,
    /// Exit after this many seconds with nothing to do.
    #[arg(long, value_name = "SECS")]
    idle_exit_after: Option<u64>,
    /// Only this run.
    #[arg(long = "run", value_name = "RUN_ID")]
    only: Option<String>,
    /// Fixture agent file for runs that did not record one.
    #[arg(long, value_name = "FIXTURE.json")]
    agents: Option<PathBuf>,
    /// Print the facade JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum ScriptCommand {
    /// Save a component as a new immutable version of NAME.
    Save {
        /// Script name.
        name: String,
        /// Path of the .wasm component.
        path: PathBuf,
        /// Allow saving over an existing name (adds a new version).
        #[arg(long)]
        replace: bool,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// List saved scripts.
    List {
        /// Include every version.
        #[arg(long)]
        versions: bool,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show one saved script's metadata.
    Inspect {
        /// Script name (`name` or `name@version`).
        name: String,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
struct RunArgs {
    /// A .wasm component path or a saved script name (`name` or `name@3`);
    /// optional with --resume-from (the source run's script).
    target: Option<String>,
    /// Re-run from the start, answering every call that matches this run's
    /// journal from it (no agent or capability runs again).
    #[arg(long, value_name = "RUN_ID")]
    resume_from: Option<String>,
    /// Resume even if the component or args changed.
    #[arg(long)]
    allow_changed: bool,
    /// Run arguments as JSON.
    #[arg(long, value_name = "JSON")]
    args: Option<String>,
    /// Use this run id instead of a generated one.
    #[arg(long, value_name = "ID")]
    run_id: Option<String>,
    /// Fixture agent file (the embedded default agent backend).
    #[arg(long, value_name = "FIXTURE.json")]
    agents: Option<PathBuf>,
    /// Guest CPU limit in ms.
    #[arg(long, value_name = "MS")]
    cpu_limit_ms: Option<u64>,
    /// Wall-clock limit in ms.
    #[arg(long, value_name = "MS")]
    wall_limit_ms: Option<u64>,
    /// Linear memory limit in MiB.
    #[arg(long, value_name = "MIB")]
    memory_limit_mb: Option<u64>,
    /// Maximum host calls.
    #[arg(long, value_name = "N")]
    max_calls: Option<u64>,
    /// Tasks in flight per parallel/pipeline call (1-64, default 8).
    #[arg(long, value_name = "N")]
    max_parallel: Option<u64>,
    /// Maximum agent calls.
    #[arg(long, value_name = "N")]
    max_agent_calls: Option<u64>,
    /// Token budget for agent calls.
    #[arg(long, value_name = "N")]
    max_tokens: Option<u64>,
    /// Cost budget in USD over what agents report (e.g. 0.50).
    #[arg(long, value_name = "USD")]
    max_cost_usd: Option<f64>,
    /// Allow only these capability names (repeatable; `fs.*` prefixes work).
    #[arg(long = "allow", value_name = "NAME")]
    allow: Vec<String>,
    /// Also allow this side-effect class (repeatable): read_only,
    /// session_launch, session_control, external_write.
    #[arg(long = "allow-class", value_name = "CLASS")]
    allow_class: Vec<String>,
    /// An approval grant (repeatable): `ID` approves the first request that
    /// presents it in the run, `ID=NAME` every call of capability NAME
    /// (`fs.*`, `*`), `ID=NAME:FP` the one request with that fingerprint.
    #[arg(long = "approval-id", value_name = "ID[=NAME[:FP]]")]
    approval_id: Vec<String>,
    /// The directory bash and fs.* are confined to (default: current dir).
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// When call completions are flushed: sync (default), group or async.
    #[arg(long, value_name = "MODE")]
    durability: Option<String>,
    /// Queue the run and return its id at once; a runner process executes it.
    #[arg(long)]
    background: bool,
    /// With --background: only queue it (no runner is started).
    #[arg(long, hide = true)]
    queue_only: bool,
    /// Print the facade JSON.
    #[arg(long)]
    json: bool,
}

/// Parse the command line, run the command, return the exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    init_tracing(cli.verbose);
    let json = cli.command.wants_json();
    let out = Out::new(json);
    let rt = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return out.error(&Error::new(ErrorCode::Internal, format!("tokio runtime: {e}"))),
    };
    match rt.block_on(dispatch(cli, &out)) {
        Ok(code) => code,
        Err(e) => out.error(&e),
    }
}

/// A command line clap refuses. `--help` and `--version` print as usual;
/// any other problem is one `hwf: invalid_args: …` line (or its envelope
/// with `--json`) and clap's hint, exit 2.
fn usage_error(e: &clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if !e.use_stderr() || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let _ = e.print();
        return e.exit_code();
    }
    // clap's problem may span lines ("required arguments were not
    // provided:" then the names); tips and usage follow.
    let text = e.to_string();
    let (problem, hints): (Vec<&str>, Vec<&str>) = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .partition(|l| !(l.starts_with("tip:") || l.starts_with("Usage:") || l.starts_with("For more")));
    let problem = problem.join(" ");
    let problem = problem.strip_prefix("error: ").unwrap_or(&problem);
    let json = std::env::args().any(|a| a == "--json");
    let code = Out::new(json).error(&Error::new(ErrorCode::InvalidArgs, problem));
    if !json {
        hints.iter().for_each(|l| eprintln!("  {l}"));
    }
    code
}

impl ControlCommand {
    fn meta(&self) -> &ControlMeta {
        match self {
            ControlCommand::Pause { meta, .. }
            | ControlCommand::Resume { meta, .. }
            | ControlCommand::Stop { meta, .. }
            | ControlCommand::TaskStop { meta, .. }
            | ControlCommand::Retry { meta, .. }
            | ControlCommand::Decide { meta, .. }
            | ControlCommand::Revoke { meta, .. } => meta,
        }
    }
}

impl Command {
    fn wants_json(&self) -> bool {
        match self {
            Command::Run(a) => a.json,
            Command::Status { json, .. }
            | Command::Overview { json, .. }
            | Command::Waits { json }
            | Command::Validate { json, .. } => *json,
            Command::Logs(a) => a.json,
            Command::Serve(_) => false,
            Command::Script(ScriptCommand::Save { json, .. })
            | Command::Script(ScriptCommand::List { json, .. })
            | Command::Script(ScriptCommand::Inspect { json, .. }) => *json,
            Command::Bench(_) | Command::Facade { .. } | Command::Mcp { .. } => true,
            Command::Doctor { json } => *json,
            Command::Control(c) => c.meta().json,
            Command::Events(EventsCommand::Send { json, .. } | EventsCommand::List { json }) => *json,
            Command::Runner(r) => r.json,
            Command::Kanban(k) => k.json(),
            Command::Triggers(t) => t.json(),
        }
    }
}

fn init_tracing(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colour only for a terminal (not a pipe, a log file, an MCP client).
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()) && std::env::var_os("NO_COLOR").is_none())
        .with_target(false)
        .try_init();
}

/// VMs of this process, kept until it exits: tearing down the pooling
/// allocator's reservations (`munmap` with TLB shoot-downs across the
/// worker threads) cost a one-shot command about a fifth of its CPU, and
/// the process is about to exit anyway.
static KEEP_VMS: std::sync::Mutex<Vec<Arc<hwf_host::broker::Vm>>> = std::sync::Mutex::new(Vec::new());

fn open_host(cli: &Cli, config: &Config, agents: Option<&PathBuf>, limits: Limits) -> Result<Hwf, Error> {
    let hwf = build_host(cli, config, agents, limits)?;
    KEEP_VMS.lock().unwrap_or_else(|p| p.into_inner()).push(hwf.vm_arc());
    Ok(hwf)
}

fn build_host(cli: &Cli, config: &Config, agents: Option<&PathBuf>, limits: Limits) -> Result<Hwf, Error> {
    // --agents wins; then hwf.toml's backends and fixture; then $HWF_AGENTS.
    let overrides = hwf_host::app::host::Overrides {
        state_dir: cli.state_dir.clone(),
        agents: agents.cloned(),
        fallback_agents: std::env::var_os("HWF_AGENTS")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        limits: Some(limits),
        cwd: None,
    };
    hwf_host::HwfBuilder::from_config(config, &overrides)?.build()
}

async fn dispatch(cli: Cli, out: &Out) -> Result<i32, Error> {
    if let Command::Doctor { .. } = &cli.command {
        let state = resolve_state_dir(
            cli.state_dir.as_deref(),
            &Config::load(cli.config.as_deref()).unwrap_or_default(),
        );
        let report = doctor::run(cli.config.as_deref(), &state).await;
        let ok = report["ok"] == true;
        out.data(&report, |r| {
            r["checks"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    format!(
                        "{} {:<28} {}",
                        match (c["ok"] == true, c["level"].as_str()) {
                            (_, Some("info")) => "info",
                            (_, Some("warn")) => "warn",
                            (true, _) => "ok  ",
                            (false, _) => "FAIL",
                        },
                        c["check"].as_str().unwrap_or(""),
                        c["detail"].as_str().unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        });
        return Ok(if ok { 0 } else { 1 });
    }
    // --config, else ./hwf.toml, else <state>/hwf.toml (the state dir as
    // known without a config: --state-dir, $HWF_STATE_DIR, …).
    let default_state = resolve_state_dir(cli.state_dir.as_deref(), &Config::default());
    let config = Config::load_from(cli.config.as_deref(), Some(&default_state))?;
    match &cli.command {
        Command::Run(args) => {
            let mut run_args: Value = match &args.args {
                None => Value::Null,
                Some(text) => serde_json::from_str(text)
                    .map_err(|e| Error::new(ErrorCode::InvalidArgs, format!("--args is not valid JSON: {e}")))?,
            };
            let resume_from = args.resume_from.as_deref().map(RunId::parse).transpose()?;
            let target = match (&args.target, &resume_from) {
                (Some(t), _) => Target::parse(t)?,
                (None, Some(src)) => {
                    let source = Hwf::open(resolve_state_dir(cli.state_dir.as_deref(), &config))?.resume_source(src)?;
                    let given = args.args.is_some().then(|| run_args.clone());
                    run_args = source.args_or(given, src, ErrorCode::InvalidArgs, "pass --args again")?;
                    source.target
                }
                (None, None) => {
                    return Err(Error::new(
                        ErrorCode::InvalidArgs,
                        "hwf run needs a component path or script name (or --resume-from)",
                    ));
                }
            };
            let run_id = args.run_id.as_deref().map(RunId::parse).transpose()?;
            let limits = run_limits(args, config.limits.clone())?;
            let mut config = config.clone();
            if !args.allow.is_empty() {
                config.policy.allowed_names = args.allow.clone();
            }
            for class in &args.allow_class {
                let c: SideEffect = serde_json::from_value(Value::String(class.clone())).map_err(|_| {
                    Error::new(ErrorCode::InvalidArgs, format!("--allow-class {class:?}: expected read_only, session_launch, session_control or external_write"))
                })?;
                if !config.policy.allowed_classes.contains(&c) {
                    config.policy.allowed_classes.push(c);
                }
            }
            config.policy.approved_ids.extend(args.approval_id.iter().cloned());
            if let Some(ws) = &args.workspace {
                config.capabilities.workspace = Some(ws.clone());
            }
            if let Some(mode) = &args.durability {
                config.journal.durability = hwf_host::broker::journal::Durability::parse(mode)?;
            }
            let hwf = open_host(&cli, &config, args.agents.as_ref(), limits)?;
            let mut req = RunRequest::new(target, run_args);
            req.run_id = run_id;
            req.resume_from = resume_from;
            req.allow_changed = args.allow_changed;
            if args.background {
                if req.resume_from.is_some() {
                    return Err(Error::new(
                        ErrorCode::InvalidArgs,
                        "--background and --resume-from cannot be combined yet",
                    ));
                }
                let id = hwf.enqueue(&req)?;
                hwf_host::facade::declare_phases(&hwf, &id).await;
                if !args.queue_only {
                    ops::spawn_runner(&cli, &id)?;
                }
                out.data(&serde_json::json!({"run_id": id, "state": "queued"}), |_| {
                    id.to_string()
                });
                return Ok(0);
            }
            let bar = (!args.json && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(progress::Bar::new);
            if let Some(bar) = &bar {
                let id = req.run_id.get_or_insert_with(RunId::generate).clone();
                bar.track(hwf.store().root(), &id);
                req.progress = Some(bar.callback());
            }
            progress::announce_first_compile(&req.target, hwf_host::scripts::user_cache_dir().as_deref());
            let outcome = hwf.run(req).await;
            let tty_progress = bar.is_some();
            if let Some(bar) = bar {
                bar.finish();
            }
            let outcome = outcome?;
            if tty_progress {
                eprintln!("{}", progress::summary(&outcome.snapshot, hwf.store().root()));
            }
            let code = out.run_outcome(&outcome, hwf.store().root());
            if outcome.snapshot.state == RunState::Waiting && !out.is_json() {
                console::print_run_waits(&hwf, outcome.snapshot.run_id.as_str());
            }
            Ok(code)
        }
        Command::Status {
            run_id, watch: true, ..
        } => console::watch(&cli, &config, run_id, out).await,
        Command::Status { run_id, .. } => {
            let hwf = open_host(&cli, &config, None, config.limits.clone())?;
            let status = hwf.status(run_id)?;
            out.status(&status.to_json());
            if status.state == hwf_host::status::ShownState::Run(RunState::Waiting) && !out.is_json() {
                console::print_run_waits(&hwf, run_id);
            }
            Ok(0)
        }
        Command::Overview { filter, .. } => console::overview(&cli, &config, filter, out),
        Command::Waits { .. } => console::waits(&cli, &config, out),
        Command::Logs(args) => console::logs(&cli, &config, args, out).await,
        Command::Serve(args) => console::serve(&cli, &config, args).await,
        Command::Validate { path, .. } => {
            let hwf = open_host(&cli, &config, None, config.limits.clone())?;
            let report = hwf.validate(path).await?;
            let at = |d: &hwf_host::catalog::Diagnostic| {
                d.pointer
                    .as_ref()
                    .map(|p| format!(" (at {p})"))
                    .or_else(|| d.line.map(|l| format!(" (line {l})")))
                    .unwrap_or_default()
            };
            if !report.valid {
                if !out.is_json() {
                    for d in report.diagnostics.iter().flatten() {
                        eprintln!(
                            "{} {}: {}{}",
                            if d.severity == Severity::Warning {
                                "warning"
                            } else {
                                "error"
                            },
                            d.code,
                            d.message,
                            at(d)
                        );
                    }
                }
                let e = hwf_host::catalog::script_error(&report);
                if out.is_json() {
                    out.raw(&hwf_host::facade::error_envelope(&e, Some(report.to_json())));
                    return Ok(2);
                }
                return Err(e);
            }
            if !out.is_json() {
                for d in report.diagnostics.iter().flatten() {
                    eprintln!(
                        "warning {}: {}{}",
                        d.code,
                        d.message,
                        d.pointer.as_ref().map(|p| format!(" (at {p})")).unwrap_or_default()
                    );
                }
            }
            out.data(&report.to_json(), |_| {
                format!(
                    "ok: {} is a valid harness ({}; imports: {})",
                    path.display(),
                    report.meta.as_ref().map_or("?", |m| m.name.as_str()),
                    report.imports.as_ref().map_or(0, Vec::len)
                )
            });
            Ok(0)
        }
        Command::Script(cmd) => {
            let hwf = open_host(&cli, &config, None, config.limits.clone())?;
            match cmd {
                ScriptCommand::Save {
                    name, path, replace, ..
                } => {
                    let meta = hwf.save_script(name, path, *replace).await?;
                    let v = serde_json::to_value(&meta).unwrap_or(Value::Null);
                    out.data(&v, |_| {
                        format!("saved {} v{:06} ({})", meta.name, meta.version, meta.digest)
                    });
                }
                ScriptCommand::List { versions, .. } => {
                    let list = hwf.script_list(*versions)?;
                    out.data(&list.to_json(), output::script_list_text);
                }
                ScriptCommand::Inspect { name, .. } => {
                    let (name, version) = match Target::parse(name)? {
                        Target::Saved { name, version } => (name, version),
                        Target::Path(_) => {
                            return Err(Error::new(
                                ErrorCode::InvalidName,
                                format!("{name:?} is not a script name"),
                            ));
                        }
                    };
                    let v = hwf.script_inspect(&name, version)?.to_json();
                    out.data(&v, |v| serde_json::to_string_pretty(v).unwrap_or_default());
                }
            }
            Ok(0)
        }
        Command::Control(cmd) => ops::control(&cli, &config, cmd, out),
        Command::Facade { list_tools: true, .. } => {
            let tools: Vec<Value> = hwf_host::facade::tools()
                .into_iter()
                .map(|(name, description, parameters)| serde_json::json!({"name": name, "description": description, "parameters": parameters}))
                .collect();
            out.data(&serde_json::json!({"tools": tools}), |v| v.to_string());
            Ok(0)
        }
        Command::Facade { tool, agents, .. } => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|e| Error::io("stdin", e))?;
            let request: Value = if text.trim().is_empty() {
                Value::Object(Default::default())
            } else {
                serde_json::from_str(&text).map_err(|e| {
                    Error::new(
                        ErrorCode::InvalidParams,
                        format!("the request on stdin is not valid JSON: {e}"),
                    )
                })?
            };
            let hwf = open_host(&cli, &config, agents.as_ref(), config.limits.clone())?;
            let opts = ops::facade_options(&cli);
            let response = match tool.as_str() {
                "workflow" => hwf_host::facade::workflow(&hwf, &request, &opts).await,
                "workflow_control" => hwf_host::facade::workflow_control_with(&hwf, &request, &opts).await,
                other => {
                    return Err(Error::new(
                        ErrorCode::InvalidArgs,
                        format!("unknown tool {other:?}: expected workflow or workflow_control"),
                    ));
                }
            };
            out.raw(&response);
            Ok(if response["success"] == true {
                0
            } else if response["data"]["state"] == "failed" {
                1
            } else {
                2
            })
        }
        Command::Mcp { agents } => {
            let hwf = open_host(&cli, &config, agents.as_ref(), config.limits.clone())?;
            crate::mcp::serve(hwf, ops::facade_options(&cli)).await?;
            Ok(0)
        }
        Command::Events(cmd) => ops::events(&cli, &config, cmd, out),
        Command::Runner(args) => ops::runner(&cli, &config, args, out).await,
        Command::Kanban(cmd) => kanban::run(&cli, &config, cmd, out),
        Command::Triggers(cmd) => triggers::run(&cli, &config, cmd, out),
        Command::Doctor { .. } => Ok(0),
        Command::Bench(args) => {
            let state = resolve_state_dir(cli.state_dir.as_deref(), &config);
            let report = crate::bench::run(args, &state).await?;
            out.data(&report, |r| serde_json::to_string_pretty(r).unwrap_or_default());
            Ok(0)
        }
    }
}

/// The run's limits: `hwf.toml`'s, overridden by the limit flags, each
/// checked against its range (`invalid_args` naming the flag).
fn run_limits(args: &RunArgs, mut limits: Limits) -> Result<Limits, Error> {
    use hwf_host::vm::limits::{MAX_MEMORY_BYTES, check_range, range_of};
    let flag = |name: &str, field: &str, v: Option<u64>| -> Result<Option<u64>, Error> {
        let (lo, hi) = range_of(field).unwrap_or((0, u64::MAX));
        v.map(|v| check_range(name, v, lo, hi).map_err(|e| e.error(ErrorCode::InvalidArgs)))
            .transpose()
    };
    if let Some(v) = flag("--cpu-limit-ms", "cpu_ms", args.cpu_limit_ms)? {
        limits.cpu_ms = v;
    }
    if let Some(v) = flag("--wall-limit-ms", "wall_ms", args.wall_limit_ms)? {
        limits.wall_ms = v;
    }
    if let Some(v) = args.memory_limit_mb {
        let mib = check_range("--memory-limit-mb", v, 1, MAX_MEMORY_BYTES >> 20)
            .map_err(|e| e.error(ErrorCode::InvalidArgs))?;
        limits.memory_bytes = mib << 20;
    }
    if let Some(v) = flag("--max-calls", "max_calls", args.max_calls)? {
        limits.max_calls = v;
    }
    if let Some(v) = flag("--max-parallel", "max_parallel", args.max_parallel)? {
        limits.max_parallel = v;
    }
    if let Some(v) = flag("--max-agent-calls", "max_agent_calls", args.max_agent_calls)? {
        limits.max_agent_calls = v;
    }
    if let Some(v) = flag("--max-tokens", "max_tokens", args.max_tokens)? {
        limits.max_tokens = Some(v);
    }
    if let Some(usd) = args.max_cost_usd {
        if !usd.is_finite() || !(0.0..=1e9).contains(&usd) {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                format!("--max-cost-usd = {usd} is out of range: expected 0 to 1000000000"),
            ));
        }
        limits.max_cost_micro_usd = Some((usd * 1e6).round() as u64);
    }
    Ok(limits)
}

/// Exit code for a finished run.
pub(crate) fn exit_code(state: RunState) -> i32 {
    match state {
        RunState::Succeeded => 0,
        RunState::Waiting | RunState::Queued => 3,
        _ => 1,
    }
}
