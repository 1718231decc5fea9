//! Journals as tests, plans and forks (issue 30): `hwf test`, `hwf
//! cassette export`, `hwf fork`, and the text of `hwf run --plan`.

use super::output::{Out, say, say_err};
use super::{Cli, open_host};
use clap::{Args, Subcommand};
use hwf_core::cassette::Cassette;
use hwf_host::app::cassette::{
    PlanReport, ReplayCheckRequest, RunsToCheck, StepOutcome, TestReport, TestRequest, step_line,
};
use hwf_host::app::fork::{ForkDecision, ForkEdit, ForkRequest};
use hwf_host::config::Config;
use hwf_host::ids::RunId;
use hwf_host::{Error, ErrorCode, Target};
use serde_json::Value;
use std::path::PathBuf;

/// `hwf test`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// The workflow to test: a .js, .py or .json script, a .wasm component, or a saved script's name.
    pub target: String,
    /// The recorded calls that answer it: a run id, or a cassette file (`hwf cassette export`).
    #[arg(long, value_name = "RUN|FILE")]
    pub cassette: String,
    /// Run arguments as JSON (default: the recorded run's).
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// On drift, re-record: run the script for real, the drifted calls live (on --agents or the configured backends), the rest replayed from the cassette; a cassette file is rewritten from the new run.
    #[arg(long)]
    pub update: bool,
    /// Fixture agent file for --update's live calls.
    #[arg(long, value_name = "FIXTURE.json", requires = "update")]
    pub agents: Option<PathBuf>,
    /// Print the facade JSON (the report, with `steps` and `drifts`).
    #[arg(long)]
    pub json: bool,
}

/// `hwf cassette …`.
#[derive(Debug, Subcommand)]
pub enum CassetteCommand {
    /// Write a run's recorded calls as a portable cassette (redacted, content-addressed) on stdout.
    Export {
        /// Run id.
        run_id: String,
        /// Write it to this file instead of stdout.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Print the facade JSON (the cassette, or where it was written).
        #[arg(long)]
        json: bool,
    },
}

/// `hwf fork`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("edit").args(["output", "answer", "input", "decision"]).required(true).multiple(false)))]
pub struct ForkArgs {
    /// The run to fork.
    pub run_id: String,
    /// The agent or capability call to edit (its id, e.g. `5` or `3.1`).
    #[arg(long, value_name = "CALL")]
    pub at: String,
    /// The call's new result: JSON, or else taken as a plain string.
    #[arg(long, value_name = "JSON")]
    pub output: Option<String>,
    /// For a human.ask call: the person's new answer (JSON, or else a plain string), checked against the question.
    #[arg(long, value_name = "JSON")]
    pub answer: Option<String>,
    /// The call's new request input (JSON, or else a plain string): the call runs live with it; calls whose requests are unchanged replay.
    #[arg(long, value_name = "JSON")]
    pub input: Option<String>,
    /// For an approval gate: approve or deny it (through the broker, journaled with --actor); deny also declines a human.ask.
    #[arg(long, value_name = "approve|deny")]
    pub decision: Option<String>,
    /// Who makes the edit (journaled).
    #[arg(long, default_value = "cli")]
    pub actor: String,
    /// Why (journaled, redacted).
    #[arg(long)]
    pub reason: Option<String>,
    /// Run arguments as JSON (default: the source run's).
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
    /// Fixture agent file, for calls that run live (those that depend on the edited output).
    #[arg(long, value_name = "FIXTURE.json")]
    pub agents: Option<PathBuf>,
    /// Print the facade JSON.
    #[arg(long)]
    pub json: bool,
}

/// `hwf replay-check`.
#[derive(Debug, Args)]
pub struct ReplayCheckArgs {
    /// The changed workflow: a .js, .py or .json script, a .wasm component, or a saved script's name.
    pub target: String,
    /// Which stored runs: waiting (parked; the default) or all.
    #[arg(long, default_value = "waiting", value_name = "waiting|all")]
    pub runs: String,
    /// Only runs of this workflow name (default: the script's meta.name).
    #[arg(long)]
    pub name: Option<String>,
    /// Re-pin every waiting run that replays cleanly on this script (no call diverges) to it: it continues on this version.
    #[arg(long)]
    pub upgrade: bool,
    /// With --upgrade: re-pin diverging waiting runs too (their changed and new calls run live).
    #[arg(long, requires = "upgrade")]
    pub allow_changed: bool,
    /// Print the facade JSON.
    #[arg(long)]
    pub json: bool,
}

/// `hwf replay-check SCRIPT [--upgrade [--allow-changed]]`: exit 1 when a
/// run diverges (and was not re-pinned anyway).
pub async fn replay_check(cli: &Cli, config: &Config, args: &ReplayCheckArgs, out: &Out) -> Result<i32, Error> {
    let runs = match args.runs.as_str() {
        "waiting" => RunsToCheck::Waiting,
        "all" => RunsToCheck::All,
        other => {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                format!("--runs {other:?}: expected waiting or all"),
            ));
        }
    };
    let target = Target::parse(&args.target)?;
    let hwf = open_host(cli, config, None, config.limits.clone())?;
    let report = hwf
        .replay_check(&ReplayCheckRequest {
            target,
            runs,
            name: args.name.clone(),
            upgrade: args.upgrade,
            allow_changed: args.allow_changed,
        })
        .await?;
    out.data(&report.to_json(), |_| {
        let mut text = format!(
            "{} run{} of {} checked; {} diverge{}\n",
            report.runs.len(),
            if report.runs.len() == 1 { "" } else { "s" },
            report.workflow,
            report.diverging,
            if report.diverging == 1 { "s" } else { "" }
        );
        for r in &report.runs {
            let end = match (&r.diverges_at, &r.error) {
                (Some(c), _) => format!(
                    "diverges at call {c}{}{}",
                    r.diverges_label
                        .as_deref()
                        .map(|l| format!(" {l:?}"))
                        .unwrap_or_default(),
                    if r.diverges_diff.is_empty() {
                        String::new()
                    } else {
                        let paths: Vec<&str> = r.diverges_diff.iter().map(|d| d.path.as_str()).collect();
                        format!(" (changed: {})", paths.join(", "))
                    }
                ),
                (None, Some(e)) => format!("{}: {}", e.code, e.message),
                (None, None) => "ok".to_owned(),
            };
            let pin = match (&r.upgraded_to, &r.kept_because) {
                (Some(d), _) => format!(" / upgraded to {}", d.get(..15).unwrap_or(d)),
                (None, Some(why)) => format!(" / kept on its version: {why}"),
                (None, None) => String::new(),
            };
            text.push_str(&format!(
                "  {} {:<9} replays {} / would run live {} (~{} tokens) / {end}{pin}\n",
                r.run_id, r.state, r.replayed, r.live, r.live_tokens
            ));
        }
        if args.upgrade {
            text.push_str(&format!(
                "{} waiting run{} upgraded\n",
                report.upgraded,
                if report.upgraded == 1 { "" } else { "s" }
            ));
        }
        text.trim_end().to_owned()
    });
    let diverging_kept = report
        .runs
        .iter()
        .filter(|r| r.diverges_at.is_some() && r.upgraded_to.is_none())
        .count();
    Ok(if diverging_kept > 0 { 1 } else { 0 })
}

fn parse_json_arg(flag: &str, text: &str) -> Result<Value, Error> {
    serde_json::from_str(text).map_err(|e| Error::new(ErrorCode::InvalidArgs, format!("{flag} is not valid JSON: {e}")))
}

/// The cassette `--cassette` names: a file when one exists at that path,
/// else a run id.
fn load_cassette(hwf: &hwf_host::Hwf, which: &str) -> Result<Cassette, Error> {
    let path = std::path::Path::new(which);
    if path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(ErrorCode::InvalidCassette, format!("{}: {e}", path.display())))?;
        return Cassette::parse(&text);
    }
    if which.ends_with(".json") || which.contains('/') {
        return Err(Error::new(
            ErrorCode::NotFound,
            format!("cassette file {which} does not exist"),
        ));
    }
    hwf.cassette(&RunId::parse(which)?)
}

/// `hwf test SCRIPT --cassette RUN|FILE`.
pub async fn test(cli: &Cli, config: &Config, args: &TestArgs, out: &Out) -> Result<i32, Error> {
    let given = args.args.as_deref().map(|a| parse_json_arg("--args", a)).transpose()?;
    let target = Target::parse(&args.target)?;
    let hwf = open_host(cli, config, args.agents.as_ref(), config.limits.clone())?;
    let cassette = load_cassette(&hwf, &args.cassette)?;
    let req = TestRequest {
        target,
        cassette,
        args: given,
    };
    let report = hwf.test_script(&req).await?;
    if args.update && !report.drifts.is_empty() {
        return update(&hwf, &req, &report, &args.cassette, out).await;
    }
    match report.failure() {
        None => {
            out.data(&report.to_json(), |_| {
                say_err(&format!(
                    "test passed: {} call{} replayed from cassette {} (run {}){}",
                    report.replayed,
                    if report.replayed == 1 { "" } else { "s" },
                    short(&report.cassette),
                    report.source_run,
                    match report.result_matches {
                        Some(true) => ", the same result",
                        _ => "",
                    }
                ));
                serde_json::to_string_pretty(&report.result).unwrap_or_default()
            });
            Ok(0)
        }
        Some(e) => {
            if out.is_json() {
                out.raw(&hwf_host::facade::error_envelope(&e, Some(report.to_json())));
            } else {
                print_failure(&report, &e);
            }
            Ok(1)
        }
    }
}

/// `hwf test --update` after a drift: re-record, rewrite a cassette file.
async fn update(
    hwf: &hwf_host::Hwf,
    req: &TestRequest,
    report: &TestReport,
    which: &str,
    out: &Out,
) -> Result<i32, Error> {
    let (outcome, cassette) = hwf.rerecord(req).await?;
    let file = std::path::Path::new(which);
    let rewritten = file.is_file();
    if rewritten && outcome.snapshot.state == hwf_host::store::RunState::Succeeded {
        std::fs::write(file, format!("{}\n", cassette.to_pretty()))
            .map_err(|e| Error::io(format!("write {}", file.display()), e))?;
    }
    let data = serde_json::json!({
        "rerecorded": report.drifts.iter().map(|d| &d.call).collect::<Vec<_>>(),
        "run_id": outcome.snapshot.run_id,
        "state": outcome.snapshot.state,
        "cassette": cassette.id,
        "file": rewritten.then_some(which),
    });
    out.data(&data, |_| {
        format!(
            "re-recorded {} drifted call{} live in run {} ({}){}",
            report.drifts.len(),
            if report.drifts.len() == 1 { "" } else { "s" },
            outcome.snapshot.run_id,
            outcome.snapshot.state.as_str(),
            if rewritten {
                format!("; {which} now holds cassette {}", short(&cassette.id))
            } else {
                format!("; test against it with --cassette {}", outcome.snapshot.run_id)
            }
        )
    });
    Ok(super::exit_code(outcome.snapshot.state))
}

fn print_failure(report: &TestReport, e: &Error) {
    if report.drifts.is_empty() {
        say_err(&format!("hwf: {e}"));
        return;
    }
    for d in &report.drifts {
        say_err(&format!(
            "hwf: cassette_drift: {}",
            hwf_host::app::cassette::describe_drift(d)
        ));
        for f in &d.diff {
            let show = |v: &Option<Value>| v.as_ref().map_or("(absent)".to_owned(), Value::to_string);
            say_err(&format!(
                "    {}: {} → {}",
                if f.path.is_empty() { "(request)" } else { &f.path },
                show(&f.recorded),
                show(&f.now)
            ));
        }
    }
    say_err(&format!(
        "test failed: {} of {} calls replayed from cassette {} (run {}); {} drifted",
        report.replayed,
        report.calls,
        short(&report.cassette),
        report.source_run,
        report.drifts.len()
    ));
}

/// A digest shortened for a message (whole when it is not ASCII there).
fn short(id: &str) -> &str {
    id.get(..id.len().min(15)).unwrap_or(id)
}

impl CassetteCommand {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            CassetteCommand::Export { json, .. } => *json,
        }
    }
}

/// `hwf cassette export RUN`.
pub fn cassette(cli: &Cli, config: &Config, cmd: &CassetteCommand, out: &Out) -> Result<i32, Error> {
    match cmd {
        CassetteCommand::Export { run_id, output, .. } => {
            let hwf = super::open_plain_host(cli, config)?;
            let c = hwf.cassette(&RunId::parse(run_id)?)?;
            let text = c.to_pretty();
            match output {
                Some(path) => {
                    std::fs::write(path, format!("{text}\n"))
                        .map_err(|e| Error::io(format!("write {}", path.display()), e))?;
                    out.data(
                        &serde_json::json!({"cassette": c.id, "calls": c.calls.len(), "file": path}),
                        |_| format!("{} ({} calls) → {}", c.id, c.calls.len(), path.display()),
                    );
                }
                None if out.is_json() => out.data(&serde_json::to_value(&c).unwrap_or_default(), |_| text),
                None => say(&text),
            }
            Ok(0)
        }
    }
}

/// `hwf fork RUN --at CALL --output JSON | --answer JSON | --input JSON | --decision approve|deny`.
pub async fn fork(cli: &Cli, config: &Config, args: &ForkArgs, out: &Out) -> Result<i32, Error> {
    let loose = |text: &str| serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()));
    let edit = match (&args.output, &args.answer, &args.input, &args.decision) {
        (Some(o), None, None, None) => ForkEdit::Output(loose(o)),
        (None, Some(a), None, None) => ForkEdit::Answer(loose(a)),
        (None, None, Some(i), None) => ForkEdit::Input(loose(i)),
        (None, None, None, Some(d)) => ForkEdit::Decision(ForkDecision::parse(d)?),
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                "hwf fork needs exactly one of --output, --answer, --input or --decision",
            ));
        }
    };
    let given = args.args.as_deref().map(|a| parse_json_arg("--args", a)).transpose()?;
    let hwf = open_host(cli, config, args.agents.as_ref(), config.limits.clone())?;
    let outcome = hwf
        .fork(&ForkRequest {
            source: RunId::parse(&args.run_id)?,
            call: args.at.clone(),
            edit,
            actor: args.actor.clone(),
            reason: args.reason.clone(),
            args: given,
            run_id: None,
        })
        .await?;
    Ok(out.run_outcome(&outcome, hwf.state_dir()))
}

/// Print a plan (`hwf run --resume-from … --plan`).
pub fn print_plan(plan: &PlanReport, out: &Out) {
    out.data(&plan.to_json(), |_| {
        let mut text = format!(
            "plan of a resume from {}: {} call{} replay, {} run live (about {} tokens{}){}\n",
            plan.resume_from,
            plan.replayed,
            if plan.replayed == 1 { "" } else { "s" },
            plan.live,
            plan.live_tokens,
            if plan.live_cost_micro_usd > 0 {
                format!(", ${:.4}", plan.live_cost_micro_usd as f64 / 1e6)
            } else {
                String::new()
            },
            if plan.needs_allow_changed {
                "; the script or args changed: the resume needs --allow-changed"
            } else {
                ""
            }
        );
        for s in &plan.steps {
            text.push_str(&step_line(s));
            text.push('\n');
        }
        if let Some(e) = &plan.error {
            text.push_str(&format!(
                "the walk stopped early ({}: {}); calls after that point are unknown\n",
                e.code, e.message
            ));
        }
        let live: Vec<&str> = plan
            .steps
            .iter()
            .filter(|s| s.outcome == StepOutcome::Live)
            .map(|s| s.call.as_str())
            .collect();
        if !live.is_empty() {
            text.push_str(&format!("live: {}\n", live.join(", ")));
        }
        text.push_str("no run was created");
        text
    });
}
