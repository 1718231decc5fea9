//! Operator commands: controls, events, the runner, background runners,
//! and the facade options that start them.

use super::output::Out;
use super::{Cli, ControlCommand, EventsCommand, RunnerArgs, open_host};
use hwf_host::app::operate::{ControlRequest, EventRequest, parse_decision};
use hwf_host::config::Config;
use hwf_host::control::Action;
use hwf_host::ids::RunId;
use hwf_host::{Error, ErrorCode};
use serde_json::Value;
use std::sync::Arc;

/// `hwf events …`.
pub fn events(cli: &Cli, config: &Config, cmd: &EventsCommand, out: &Out) -> Result<i32, Error> {
    let hwf = open_host(cli, config, None, config.limits.clone())?;
    match cmd {
        EventsCommand::Send {
            source,
            kind,
            id,
            subject,
            payload,
            ..
        } => {
            let payload: Value = match payload {
                None => Value::Null,
                Some(p) => serde_json::from_str(p)
                    .map_err(|e| Error::new(ErrorCode::InvalidArgs, format!("--payload is not valid JSON: {e}")))?,
            };
            let sent = hwf.send_event(EventRequest {
                id: id.clone(),
                source: source.clone(),
                kind: kind.clone(),
                subject: subject.clone(),
                payload,
            })?;
            let v = serde_json::to_value(&sent).unwrap_or(Value::Null);
            out.data(&v, |_| {
                format!(
                    "event {} v{}{}",
                    sent.event.id,
                    sent.event.version,
                    if sent.new { "" } else { " (already recorded)" }
                )
            });
        }
        EventsCommand::List { .. } => {
            let v = serde_json::json!({"events": hwf.events()?});
            out.data(&v, |v| serde_json::to_string_pretty(v).unwrap_or_default());
        }
    }
    Ok(0)
}

/// How long an idle runner waits before its next pass: 250 ms, 1 s when a
/// shared store wakes it on work; `$HWF_RUNNER_POLL_MS` overrides it.
fn runner_poll(woken: bool) -> Result<std::time::Duration, Error> {
    let ms = match std::env::var("HWF_RUNNER_POLL_MS").ok().filter(|v| !v.is_empty()) {
        Some(v) => v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|ms| (10..=600_000).contains(ms))
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidConfig,
                    format!("HWF_RUNNER_POLL_MS must be a number of milliseconds in 10..=600000, not {v:?}"),
                )
            })?,
        None if woken => 1000,
        None => 250,
    };
    Ok(std::time::Duration::from_millis(ms))
}

/// `hwf runner …`: passes until `--once`, or idle for `--idle-exit-after`.
pub async fn runner(cli: &Cli, config: &Config, args: &RunnerArgs, out: &Out) -> Result<i32, Error> {
    let hwf = open_host(cli, config, args.agents.as_ref(), config.limits.clone())?;
    let only = args.only.as_deref().map(RunId::parse).transpose()?;
    let mut idle_since = std::time::Instant::now();
    let mut first = true;
    // A shared store wakes the runner when there may be work; the poll is
    // the fallback (and finds expired leases).
    let mut work = hwf.store().watch_work();
    let poll = runner_poll(work.is_some())?;
    let mut total = hwf_host::runner::PassReport::default();
    loop {
        let report = match hwf.runner_pass(only.as_ref()).await {
            Ok(report) => report,
            // A long-lived runner outlives a store outage (a database
            // restarting, a network blip): it says so and tries again.
            Err(e) if !args.once && matches!(e.code(), ErrorCode::Io | ErrorCode::Internal) => {
                tracing::warn!(error = %e, "runner pass failed; trying again");
                if !args.json {
                    eprintln!(
                        "hwf runner: the pass failed ({}: {}); trying again",
                        e.code().as_str(),
                        e.message()
                    );
                }
                tokio::time::sleep(poll).await;
                continue;
            }
            Err(e) => return Err(e),
        };
        if first {
            tracing::info!(
                queued = report.queued.len(),
                waiting = report.waiting.len(),
                stuck = report.stuck.len(),
                ready = report.ready.len(),
                "runner started"
            );
            if !args.json {
                eprintln!(
                    "hwf runner: {} queued, {} waiting ({} ready), {} stuck",
                    report.queued.len(),
                    report.waiting.len() + report.ready.len(),
                    report.ready.len(),
                    report.stuck.len()
                );
            }
            first = false;
        }
        if !report.executed.is_empty() {
            idle_since = std::time::Instant::now();
        }
        total.queued.extend(report.queued);
        total.ready.extend(report.ready);
        total.stuck.extend(report.stuck);
        total.stopped.extend(report.stopped);
        total.executed.extend(report.executed);
        total.waiting = report.waiting;
        // Runs the runner cannot touch are named on every pass (not once:
        // an operator may be repairing them meanwhile).
        if !args.json {
            for (id, e) in &report.errors {
                eprintln!("hwf runner: run {id} left as it is: {}: {}", e.code.as_str(), e.message);
            }
        }
        total.errors = report.errors;
        if args.once {
            break;
        }
        if args
            .idle_exit_after
            .is_some_and(|s| idle_since.elapsed() >= std::time::Duration::from_secs(s))
        {
            break;
        }
        match work.as_mut() {
            Some(rx) => {
                tokio::select! {
                    changed = rx.changed() => {
                        if changed.is_err() {
                            work = None; // the listener is gone: poll only
                        }
                    }
                    () = tokio::time::sleep(poll) => {}
                }
            }
            None => tokio::time::sleep(poll).await,
        }
    }
    let v = serde_json::to_value(&total).unwrap_or(Value::Null);
    out.data(&v, |_| {
        total
            .executed
            .iter()
            .map(|(id, st)| format!("{id} {}", st.as_str()))
            .collect::<Vec<_>>()
            .join("\n")
    });
    Ok(0)
}

/// Facade options for this invocation: background runs start a runner.
pub fn facade_options(cli: &Cli) -> hwf_host::facade::Options {
    let (state_dir, config) = (cli.state_dir.clone(), cli.config.clone());
    hwf_host::facade::Options {
        spawn_runner: Some(Arc::new(move |id: &RunId| {
            spawn_runner_with(state_dir.as_deref(), config.as_deref(), id)
        })),
        wake: None,
        progress: None,
    }
}

/// Start a detached `hwf runner --once --run <id>` for a queued run.
pub fn spawn_runner(cli: &Cli, id: &RunId) -> Result<(), Error> {
    spawn_runner_with(cli.state_dir.as_deref(), cli.config.as_deref(), id)
}

fn spawn_runner_with(
    state_dir: Option<&std::path::Path>,
    config: Option<&std::path::Path>,
    id: &RunId,
) -> Result<(), Error> {
    let exe = std::env::current_exe().map_err(|e| Error::io("current executable", e))?;
    let mut cmd = std::process::Command::new(exe);
    if let Some(dir) = state_dir {
        cmd.arg("--state-dir").arg(dir);
    }
    if let Some(config) = config {
        cmd.arg("--config").arg(config);
    }
    cmd.args(["runner", "--once", "--json", "--run", id.as_str()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd.spawn().map_err(|e| Error::io("start the background runner", e))?;
    Ok(())
}

/// `hwf control …`.
pub fn control(cli: &Cli, config: &Config, cmd: &ControlCommand, out: &Out) -> Result<i32, Error> {
    let hwf = super::open_plain_host(cli, config)?;
    let meta = cmd.meta();
    let (run_id, action, call) = match cmd {
        ControlCommand::Pause { run_id, .. } => (run_id, Action::Pause, None),
        ControlCommand::Resume { run_id, .. } => (run_id, Action::Unpause, None),
        ControlCommand::Stop { run_id, .. } => (run_id, Action::Stop, None),
        ControlCommand::TaskStop { run_id, call, .. } => (run_id, Action::TaskStop, Some(call)),
        ControlCommand::Retry { run_id, call, .. } => (run_id, Action::Retry, Some(call)),
        ControlCommand::Decide { run_id, call, .. } => (run_id, Action::Decide, Some(call)),
        ControlCommand::Revoke { run_id, grant, .. } => {
            let run = RunId::parse(run_id)?;
            let revoked = hwf.revoke_grant(&run, grant, &meta.actor, meta.reason.as_deref())?;
            let v = serde_json::to_value(&revoked).unwrap_or(Value::Null);
            out.data(&v, |_| {
                format!("grant {grant} revoked{}", if revoked.new { "" } else { " (already)" })
            });
            return Ok(0);
        }
    };
    let mut req = ControlRequest::new(RunId::parse(run_id)?, action, meta.actor.clone());
    req.control_id = meta.control_id.clone();
    req.reason = meta.reason.clone();
    req.call = call.cloned();
    if let ControlCommand::Decide {
        decision,
        value,
        channel,
        message_id,
        ..
    } = cmd
    {
        req.decision = Some(parse_decision(decision)?);
        // JSON, or else the text itself as a string (`--value yes`).
        req.value = value
            .as_deref()
            .map(|v| serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_owned())));
        req.channel = channel.clone().or_else(|| Some("cli".into()));
        req.message_id = message_id.clone();
    }
    let recorded = hwf.control(req)?;
    let v = serde_json::to_value(&recorded).unwrap_or(Value::Null);
    out.data(&v, |_| {
        format!(
            "{} {:?} recorded{}",
            recorded.run_id,
            action,
            if recorded.recorded { "" } else { " (already)" }
        )
    });
    Ok(0)
}
