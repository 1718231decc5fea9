//! The `hwf` command line: clap definitions and one function per command.
//!
//! Output: human text by default; `--json` prints the facade envelope
//! (`{"success": true, "data": …}` / `{"success": false, "error": {…}}`).
//! Exit codes: 0 success, 1 the run failed or was stopped, 2 bad usage or
//! bad input, 3 the run is waiting.

mod authoring;
mod cassette;
mod console;
mod doctor;
mod examples;
mod facade;
mod kanban;
mod ops;
mod output;
mod progress;
mod run;
mod script;
mod store;
mod triggers;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use hwf_host::config::{Config, resolve_state_dir};
use hwf_host::store::RunState;
use hwf_host::vm::InstanceAllocation;
use hwf_host::{Error, ErrorCode, Hwf, Limits};
use output::Out;
use std::path::PathBuf;
use std::sync::Arc;

/// Run AI-agent workflows as sandboxed WebAssembly components.
#[derive(Debug, Parser)]
#[command(name = "hwf", version, about, long_about = None, after_help = examples::HWF)]
pub struct Cli {
    /// State directory (default: $HWF_STATE_DIR, $HERMES_HOME/workflows, ~/.hermes/workflows).
    #[arg(long, global = true, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Where runs, scripts and events live: a state dir, or postgres://user@host/db for runners on several machines (default: $HWF_STORE, [store] url, else the state dir).
    #[arg(long, global = true, value_name = "URL")]
    store: Option<String>,
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
    /// Run a workflow to the end: a JavaScript (.js), Python (.py) or JSON
    /// (.workflow.json) script, a .wasm component, or a saved script's name.
    #[command(after_help = examples::RUN)]
    Run(RunArgs),
    /// Test a workflow against a recorded run: every agent and capability call and every wait answered from its journal (or a cassette file), no backend, no side effect, no run stored; a call the recording cannot answer is a `cassette_drift` (exit 1).
    #[command(after_help = examples::TEST)]
    Test(cassette::TestArgs),
    /// Recorded runs as portable cassettes (`hwf test --cassette FILE`).
    #[command(subcommand)]
    Cassette(cassette::CassetteCommand),
    /// A new run in a run's lineage with one call's result, input or approval decision replaced; every other call that matches replays.
    #[command(after_help = examples::FORK)]
    Fork(cassette::ForkArgs),
    /// Walk a changed workflow against its stored runs, offline: per run, calls that replay, that would run live, and where it diverges (exit 1 when one does).
    ReplayCheck(cassette::ReplayCheckArgs),
    /// Show a run's state, phases and calls.
    #[command(after_help = examples::STATUS)]
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
    #[command(after_help = examples::OVERVIEW)]
    Overview {
        #[command(flatten)]
        filter: console::OverviewArgs,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// The review queue: every blocked wait across runs and how to answer it.
    #[command(after_help = examples::WAITS)]
    Waits {
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// A run's log lines, phases, waits and decisions.
    #[command(after_help = examples::LOGS)]
    Logs(console::LogsArgs),
    /// The web console and JSON API (loopback; token for writes), with a runner in-process.
    #[command(after_help = examples::SERVE)]
    Serve(console::ServeArgs),
    /// Save, list and inspect saved workflows (scripts and components).
    #[command(subcommand, after_help = examples::SCRIPT)]
    Script(ScriptCommand),
    /// Check a workflow without running it: a JavaScript (.js), Python (.py)
    /// or JSON (.workflow.json) script through its runtime (errors and
    /// warnings, with lines or JSON pointers), or a .wasm component (import
    /// gate, compilation, meta). Saved scripts are checked when saved.
    #[command(after_help = examples::VALIDATE)]
    Validate {
        /// Path of the workflow: .js, .py, .workflow.json (any .json) or .wasm.
        #[arg(value_hint = clap::ValueHint::FilePath)]
        path: PathBuf,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Operator controls: pause, resume, stop, task-stop, retry, decide. On a
    /// parked or queued run they take effect at once: the state dir's runner
    /// is started or woken ([runner] autostart, HWF_RUNNER_AUTOSTART).
    #[command(subcommand, after_help = examples::CONTROL)]
    Control(ControlCommand),
    /// External events that `events.wait` calls wait for.
    #[command(subcommand, after_help = examples::EVENTS)]
    Events(EventsCommand),
    /// Execute queued runs and continue runs whose waits resolved or whose
    /// executor died.
    #[command(after_help = examples::RUNNER)]
    Runner(RunnerArgs),
    /// Kanban lanes: the board kanban_agent steps use, and its cards.
    #[command(subcommand, after_help = examples::KANBAN)]
    Kanban(kanban::KanbanCommand),
    /// Event-triggered and cron starts of saved workflows.
    #[command(subcommand, after_help = examples::TRIGGERS)]
    Triggers(triggers::TriggersCommand),
    /// One facade call: a JSON request on stdin, the JSON response on stdout.
    #[command(after_help = examples::FACADE)]
    Facade {
        /// workflow, workflow_control or workflow_status.
        #[arg(default_value = "workflow")]
        tool: String,
        /// Fixture agent file.
        #[arg(long, value_name = "FIXTURE.json")]
        agents: Option<PathBuf>,
        /// Print the tools' names, descriptions and JSON Schemas instead.
        #[arg(long)]
        list_tools: bool,
    },
    /// MCP server on stdio, or over Streamable HTTP (`--http`): tools `workflow`, `workflow_control`, `workflow_status`.
    #[command(after_help = examples::MCP)]
    Mcp {
        /// Fixture agent file.
        #[arg(long, value_name = "FIXTURE.json")]
        agents: Option<PathBuf>,
        /// Runs the in-process runner executes at once (default 64, else [runner] concurrency; 1 to 250).
        #[arg(long, value_name = "N")]
        concurrency: Option<u64>,
        /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio: HOST:PORT, HOST (any free port) or PORT (on 127.0.0.1); the bound address is printed. Anything but loopback requires the token.
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// With --http: the bearer token every request must carry (else HWF_TOKEN; off loopback, else the console's stored token, else a new one, printed).
        #[arg(long, env = "HWF_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// With --http: serve stdio too (the same server and runner); the address is then printed on stderr.
        #[arg(long, requires = "http")]
        stdio: bool,
        /// Serve the MCP conformance suite's fixture tools, resources and prompts besides hwf's tools (docs/MCP-CONFORMANCE.md); the task fixtures are hwf runs on a built-in fixture agent unless --agents is given. For testing only.
        #[arg(long)]
        conformance_fixtures: bool,
    },
    /// Check the config, state dir, cache, harness artifacts and agent backends.
    #[command(after_help = examples::DOCTOR)]
    Doctor {
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure hot paths (instantiate, broker round trip, agent call, journal append).
    #[command(after_help = examples::BENCH)]
    Bench(crate::bench::BenchArgs),
    /// Move a store's contents to another store (file ↔ PostgreSQL); migrate a database.
    #[command(subcommand, after_help = examples::STORE)]
    Store(store::StoreCommand),
    /// Start a workflow project: hwf.toml, an example workflow that runs at once, editor support.
    ///
    /// Writes into DIR (default: here) hwf.toml with commented agent
    /// backends, workflows/example.js with its fixture and the same workflow
    /// as example.workflow.json, an agent type (.hermes/agents/example.md),
    /// and editor support: hwf.d.ts, jsconfig.json and tsconfig.json
    /// (checkJs), the JSON workflow schema. Refuses to overwrite a file
    /// (already_exists) unless --force.
    #[command(after_help = examples::INIT)]
    Init {
        /// The project directory (created when missing; default: the current one).
        #[arg(value_hint = clap::ValueHint::DirPath)]
        dir: Option<PathBuf>,
        /// Overwrite the project's files where they exist.
        #[arg(long)]
        force: bool,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print hwf.d.ts: TypeScript declarations of the JavaScript workflow globals.
    ///
    /// Every global a script sees (agent, parallel, pipeline, phase, log,
    /// console, setTimeout, budget, args, workflow, capability) with its
    /// option types, and the shape of `export const meta` (WorkflowMeta),
    /// for editors and `tsc --checkJs`.
    #[command(after_help = examples::TYPES)]
    Types,
    /// List the capabilities a workflow may call on this host: name, side-effect class, description, input schema.
    #[command(after_help = examples::CAPABILITIES)]
    Capabilities {
        /// Also show what this run needs of the host that continues it (the
        /// capabilities its creator offered beyond the built-ins, by name and
        /// class) and which of them this host lacks (`needs_host`).
        #[arg(long, value_name = "RUN_ID")]
        run: Option<String>,
        /// Print JSON (with each input JSON Schema).
        #[arg(long)]
        json: bool,
    },
    /// Print a JSON Schema for editors: `workflow`, the *.workflow.json format.
    #[command(after_help = examples::SCHEMA)]
    Schema {
        /// Which schema.
        #[arg(value_enum)]
        kind: authoring::SchemaKind,
    },
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell.
    #[command(after_help = examples::COMPLETIONS)]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
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
    /// Let a paused run continue (at once: the state dir's runner picks it up).
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
    /// Record an event (idempotent by --id); a new one wakes the state dir's runner.
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
    /// One pass, then exit: every run found to do is executed (up to
    /// --concurrency at once) before it exits.
    #[arg(long)]
    once: bool,
    /// Runs executed at once (default 64, else [runner] concurrency; 1 to 250).
    #[arg(long, value_name = "N")]
    concurrency: Option<u64>,
    /// On SIGTERM or Ctrl-C: how long the runs in flight get to finish
    /// before they are released to another runner (a second signal
    /// releases them at once).
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    shutdown_grace: u64,
    /// The background runner of the state dir (started by `run
    /// --background`): holds the state dir's runner lock, exits when idle.
    #[arg(long, hide = true)]
    detached: bool,
    /// Continuing one run alone for the runner with this pid (see
    /// `hwf_host::HwfBuilder::isolation`): dies with it.
    #[arg(long, hide = true, value_name = "PID")]
    isolated_for: Option<u32>,
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
    /// Save a workflow (a .js, .py or .workflow.json script, or a .wasm
    /// component) as a new immutable version of NAME, run as `hwf run NAME`.
    #[command(after_help = examples::SCRIPT)]
    Save {
        /// Script name.
        name: String,
        /// Path of the workflow: .js, .py, .workflow.json (any .json) or .wasm.
        #[arg(value_hint = clap::ValueHint::FilePath)]
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
    /// A workflow file (a .js, .py or .workflow.json script, or a .wasm
    /// component) or a saved script's name (`name` or `name@3`); optional
    /// with --resume-from (the source run's script).
    #[arg(value_hint = clap::ValueHint::FilePath)]
    target: Option<String>,
    /// Re-run from the start, answering every call that matches this run's
    /// journal from it (no agent or capability runs again).
    #[arg(long, value_name = "RUN_ID")]
    resume_from: Option<String>,
    /// Resume even if the component or args changed.
    #[arg(long)]
    allow_changed: bool,
    /// With --resume-from: report per call what would replay and what would run live (and why, with estimated tokens), then stop; creates no run.
    #[arg(long, requires = "resume_from")]
    plan: bool,
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
    /// Queue the run and return its id at once; the state dir's background runner executes it.
    #[arg(long)]
    background: bool,
    /// With --background: only queue it (no runner is started).
    #[arg(long, hide = true)]
    queue_only: bool,
    /// Print the facade JSON.
    #[arg(long)]
    json: bool,
}

/// The command line's definition, with the `Examples:` of every command:
/// a subcommand without examples of its own shows its parent's (`hwf
/// control pause --help` shows `hwf control`'s).
pub fn command() -> clap::Command {
    fn inherit(cmd: clap::Command) -> clap::Command {
        let examples = cmd.get_after_help().cloned();
        let names: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_owned()).collect();
        names.into_iter().fold(cmd, |cmd, name| {
            let examples = examples.clone();
            cmd.mut_subcommand(name, move |sub| {
                let sub = match (sub.get_after_help().is_none(), examples) {
                    (true, Some(e)) => sub.after_help(e),
                    (_, _) => sub,
                };
                inherit(sub)
            })
        })
    }
    inherit(Cli::command())
}

/// Parse the command line, run the command, return the exit code.
pub fn main() -> i32 {
    let parsed = command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
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
    let done = rt.block_on(async {
        let done = dispatch(cli, &out).await;
        // Traces of the runs this process executed leave before it exits
        // (bounded: a collector that is down or slow never holds it longer).
        if !hwf_host::telemetry::flush_all(TRACE_FLUSH).await {
            tracing::warn!(
                "trace export: the collector did not take every span within {} s; the rest are dropped",
                TRACE_FLUSH.as_secs()
            );
        }
        done
    });
    match done {
        Ok(code) => code,
        Err(e) => out.error(&e),
    }
}

/// How long a command waits at exit for its traces to be exported.
const TRACE_FLUSH: std::time::Duration = std::time::Duration::from_secs(2);

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
        hints.iter().for_each(|l| output::say_err(&format!("  {l}")));
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

/// How the engine of the command named `name` allocates instances: pooled
/// for the long-lived commands that run many workflows, on demand for the
/// rest, which run at most one and exit (a pool costs a few ms to set up,
/// the bulk of a cached `hwf run`). [`Command::allocation`] decides the
/// same from the parsed command.
pub fn allocation_for(name: &str) -> InstanceAllocation {
    match name {
        "serve" | "runner" | "facade" | "mcp" | "bench" => InstanceAllocation::Pooled,
        _ => InstanceAllocation::OnDemand,
    }
}

impl Command {
    /// See [`allocation_for`].
    fn allocation(&self) -> InstanceAllocation {
        match self {
            Command::Serve(_)
            | Command::Runner(_)
            | Command::Facade { .. }
            | Command::Mcp { .. }
            | Command::Bench(_) => InstanceAllocation::Pooled,
            _ => InstanceAllocation::OnDemand,
        }
    }

    fn wants_json(&self) -> bool {
        match self {
            Command::Run(a) => a.json,
            Command::Test(a) => a.json,
            Command::Fork(a) => a.json,
            Command::ReplayCheck(a) => a.json,
            Command::Cassette(c) => c.json(),
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
            Command::Store(s) => s.json(),
            Command::Init { json, .. } | Command::Capabilities { json, .. } => *json,
            Command::Types | Command::Schema { .. } | Command::Completions { .. } => false,
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
        store: cli.store.clone(),
    };
    // Runners with slots continue a run whose executor died alone, in a
    // process of their own.
    let isolation = matches!(
        cli.command,
        Command::Runner(_) | Command::Serve(_) | Command::Mcp { .. }
    )
    .then(|| ops::isolation(cli, config));
    hwf_host::HwfBuilder::from_config(config, &overrides)?
        .instance_allocation(cli.command.allocation())
        .isolation(isolation)
        .build()
}

/// A host with no agent backend over the chosen store (`--store`,
/// `$HWF_STORE`, `[store] url`, else the state dir's files): enough for
/// controls, status, kanban and triggers.
pub(crate) fn open_plain_host(cli: &Cli, config: &Config) -> Result<Hwf, Error> {
    Hwf::builder(resolve_state_dir(cli.state_dir.as_deref(), config))
        .instance_allocation(cli.command.allocation())
        .store_url(hwf_host::config::resolve_store(cli.store.as_deref(), config)?)
        .shared_options(hwf_host::config::resolve_shared_options(config)?)
        .build()
}

async fn dispatch(cli: Cli, out: &Out) -> Result<i32, Error> {
    // Authoring commands read no configuration: they work in an empty
    // directory and beside a broken hwf.toml.
    match &cli.command {
        Command::Init { dir, force, .. } => return authoring::run_init(dir.as_deref(), *force, out),
        Command::Types => return Ok(authoring::run_types()),
        Command::Schema { kind } => return Ok(authoring::run_schema(*kind)),
        Command::Completions { shell } => return Ok(authoring::run_completions(*shell)),
        _ => {}
    }
    if let Command::Doctor { .. } = &cli.command {
        let state = resolve_state_dir(
            cli.state_dir.as_deref(),
            &Config::load(cli.config.as_deref()).unwrap_or_default(),
        );
        let report = doctor::run(cli.config.as_deref(), &state, cli.store.as_deref()).await;
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
    // A bad $HWF_RUNNER_AUTOSTART fails the command, as a bad hwf.toml
    // does, before anything is recorded.
    config.runner.autostart()?;
    match &cli.command {
        Command::Run(args) => run::run(&cli, &config, args, out).await,
        Command::Test(args) => cassette::test(&cli, &config, args, out).await,
        Command::Cassette(cmd) => cassette::cassette(&cli, &config, cmd, out),
        Command::Fork(args) => cassette::fork(&cli, &config, args, out).await,
        Command::ReplayCheck(args) => cassette::replay_check(&cli, &config, args, out).await,
        Command::Status {
            run_id, watch: true, ..
        } => console::watch(&cli, &config, run_id, out).await,
        Command::Status { run_id, .. } => run::status(&cli, &config, run_id, out),
        Command::Overview { filter, .. } => console::overview(&cli, &config, filter, out),
        Command::Waits { .. } => console::waits(&cli, &config, out),
        Command::Logs(args) => console::logs(&cli, &config, args, out).await,
        Command::Serve(args) => console::serve(&cli, &config, args).await,
        Command::Validate { path, .. } => script::validate(&cli, &config, path, out).await,
        Command::Script(cmd) => script::script(&cli, &config, cmd, out).await,
        Command::Control(cmd) => ops::control(&cli, &config, cmd, out),
        Command::Facade { list_tools: true, .. } => facade::list_tools(out),
        Command::Facade { tool, agents, .. } => facade::facade(&cli, &config, tool, agents.as_ref(), out).await,
        Command::Mcp {
            agents,
            concurrency,
            http,
            token,
            stdio,
            conformance_fixtures,
        } => {
            let concurrency = config.runner.concurrency(*concurrency)?;
            // The fixture runs' agent calls: the built-in fixture agent file.
            let mut agents = agents.clone();
            if *conformance_fixtures && agents.is_none() {
                let state = resolve_state_dir(cli.state_dir.as_deref(), &config);
                std::fs::create_dir_all(&state).map_err(|e| Error::io(format!("create {}", state.display()), e))?;
                let file = state.join("conformance-agents.json");
                std::fs::write(&file, crate::mcp_fixtures::AGENTS)
                    .map_err(|e| Error::io(format!("write {}", file.display()), e))?;
                agents = Some(file);
            }
            let transport = match http {
                None => crate::mcp::Transport::Stdio,
                Some(addr) => crate::mcp::Transport::Http(crate::mcp_http::HttpConfig {
                    addr: crate::mcp_http::parse_addr(addr)?,
                    token: token.clone(),
                    stdio: *stdio,
                }),
            };
            facade::mcp(
                &cli,
                &config,
                agents.as_ref(),
                concurrency,
                transport,
                *conformance_fixtures,
            )
            .await
        }
        Command::Events(cmd) => ops::events(&cli, &config, cmd, out),
        Command::Capabilities { run, .. } => ops::capabilities(&cli, &config, run.as_deref(), out),
        Command::Runner(args) => ops::runner(&cli, &config, args, out).await,
        Command::Kanban(cmd) => kanban::run(&cli, &config, cmd, out),
        Command::Triggers(cmd) => triggers::run(&cli, &config, cmd, out),
        Command::Store(cmd) => store::run(&cli, &config, cmd, out).await,
        Command::Doctor { .. }
        | Command::Init { .. }
        | Command::Types
        | Command::Schema { .. }
        | Command::Completions { .. } => Ok(0),
        Command::Bench(args) => {
            let state = resolve_state_dir(cli.state_dir.as_deref(), &config);
            let report = crate::bench::run(args, &state).await?;
            out.data(&report, |r| serde_json::to_string_pretty(r).unwrap_or_default());
            Ok(0)
        }
    }
}

/// Exit code for a finished run.
pub(crate) fn exit_code(state: RunState) -> i32 {
    match state {
        RunState::Succeeded => 0,
        RunState::Waiting | RunState::Queued => 3,
        _ => 1,
    }
}
