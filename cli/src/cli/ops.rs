//! Operator commands: controls, events, the runner, background runners,
//! and the facade options that start them.

use super::output::Out;
use super::{Cli, ControlCommand, EventsCommand, RunnerArgs, open_host};
use hwf_host::config::{Config, resolve_state_dir};
use hwf_host::ids::RunId;
use hwf_host::store::StoredEvent;
use hwf_host::{Error, ErrorCode, Hwf};
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
            let mut payload: Value = match payload {
                None => Value::Null,
                Some(p) => serde_json::from_str(p)
                    .map_err(|e| Error::new(ErrorCode::InvalidArgs, format!("--payload is not valid JSON: {e}")))?,
            };
            hwf_core::redact::redact_value(&mut payload);
            let id = id
                .clone()
                .unwrap_or_else(|| format!("e{}", uuid::Uuid::now_v7().simple()));
            hwf_host::ids::validate_name("event id", &id)?;
            let event = StoredEvent {
                version: 0,
                id,
                source: source.clone(),
                kind: kind.clone(),
                subject: subject.clone(),
                payload,
                ts_ms: hwf_host::store::now_ms(),
            };
            let (stored, new) = hwf.store().append_event(event)?;
            // Triggers (issue 19): a run per matching trigger, once per event id.
            let started = hwf_host::triggers::fire(&hwf, &stored)?;
            let mut v = serde_json::to_value(&stored).unwrap_or(Value::Null);
            v["new"] = Value::Bool(new);
            v["started"] = Value::Array(started);
            out.data(&v, |_| {
                format!(
                    "event {} v{}{}",
                    stored.id,
                    stored.version,
                    if new { "" } else { " (already recorded)" }
                )
            });
        }
        EventsCommand::List { .. } => {
            let events = hwf.store().read_events()?;
            let v = serde_json::json!({"events": events});
            out.data(&v, |v| serde_json::to_string_pretty(v).unwrap_or_default());
        }
    }
    Ok(0)
}

/// `hwf runner …`: passes until `--once`, or idle for `--idle-exit-after`.
pub async fn runner(cli: &Cli, config: &Config, args: &RunnerArgs, out: &Out) -> Result<i32, Error> {
    let hwf = open_host(cli, config, args.agents.as_ref(), config.limits.clone())?;
    let only = args.only.as_deref().map(RunId::parse).transpose()?;
    let mut idle_since = std::time::Instant::now();
    let mut first = true;
    let mut total = hwf_host::runner::PassReport::default();
    loop {
        let report = hwf.runner_pass(only.as_ref()).await?;
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
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
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
    use hwf_host::control::{Action, Control, Decision, record};
    let hwf = Hwf::open(resolve_state_dir(cli.state_dir.as_deref(), config))?;
    let meta = cmd.meta();
    let (run_id, action, call) = match cmd {
        ControlCommand::Pause { run_id, .. } => (run_id, Action::Pause, None),
        ControlCommand::Resume { run_id, .. } => (run_id, Action::Resume, None),
        ControlCommand::Stop { run_id, .. } => (run_id, Action::Stop, None),
        ControlCommand::TaskStop { run_id, call, .. } => (run_id, Action::TaskStop, Some(call)),
        ControlCommand::Retry { run_id, call, .. } => (run_id, Action::Retry, Some(call)),
        ControlCommand::Decide { run_id, call, .. } => (run_id, Action::Decide, Some(call)),
        ControlCommand::Revoke { run_id, grant, .. } => return revoke(&hwf, run_id, grant, meta, out),
    };
    let run = RunId::parse(run_id)?;
    let snap = hwf.store().read_snapshot(&run)?;
    if snap.state.is_terminal() && action != Action::Retry {
        return Err(Error::new(
            ErrorCode::InvalidArgs,
            format!("run {run} already ended ({})", snap.state.as_str()),
        ));
    }
    let mut c = Control::new(action, meta.actor.clone());
    if let Some(id) = &meta.control_id {
        hwf_host::ids::validate_name("control id", id)?;
        c.id = id.clone();
    }
    c.reason = meta.reason.clone();
    c.call = call.cloned();
    if let ControlCommand::Decide {
        decision,
        value,
        channel,
        message_id,
        call,
        ..
    } = cmd
    {
        let d: Decision = serde_json::from_value(Value::String(decision.clone())).map_err(|_| {
            Error::new(
                ErrorCode::InvalidArgs,
                format!("decision {decision:?}: expected approve, reject, edit or respond"),
            )
        })?;
        // JSON, or else the text itself as a string (`--value yes`).
        let value: Option<Value> = value
            .as_deref()
            .map(|v| serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_owned())));
        c.fingerprint = Some(hwf_host::runner::validate_decision(
            &hwf,
            &run,
            call,
            d,
            value.as_ref(),
        )?);
        c.decision = Some(d);
        c.value = value;
        c.channel = channel.clone().or_else(|| Some("cli".into()));
        c.message_id = message_id.clone();
    }
    let new = record(hwf.store(), &run, c.clone())?;
    let mut v = serde_json::json!({"run_id": run, "control": c, "recorded": new});
    hwf_core::redact::redact_value(&mut v); // shown as stored
    out.data(&v, |_| {
        format!("{} {:?} recorded{}", run, action, if new { "" } else { " (already)" })
    });
    Ok(0)
}

/// `hwf control revoke RUN GRANT`: a `grant.revoked` event (idempotent by
/// grant); the grant's next `grant.act` fails with `grant_revoked`.
fn revoke(hwf: &Hwf, run_id: &str, grant: &str, meta: &super::ControlMeta, out: &Out) -> Result<i32, Error> {
    let run = RunId::parse(run_id)?;
    hwf.store().read_snapshot(&run)?;
    if grant.strip_prefix(&format!("{run}:")).is_none_or(str::is_empty) {
        return Err(Error::new(
            ErrorCode::InvalidArgs,
            format!("{grant:?} is not a grant of run {run} (expected {run}:<call>)"),
        ));
    }
    let id = format!("revoke-{}", &blake3::hash(grant.as_bytes()).to_hex()[..24]);
    let (source, kind) = hwf_host::grants::REVOKED;
    let event = StoredEvent {
        version: 0,
        id,
        source: source.into(),
        kind: kind.into(),
        subject: Some(grant.to_owned()),
        payload: {
            let mut p = serde_json::json!({"run": run, "actor": meta.actor, "reason": meta.reason});
            hwf_core::redact::redact_value(&mut p);
            p
        },
        ts_ms: hwf_host::store::now_ms(),
    };
    let (stored, new) = hwf.store().append_event(event)?;
    let v = serde_json::json!({"run_id": run, "grant": grant, "revoked": true, "new": new, "event": stored});
    out.data(&v, |_| {
        format!("grant {grant} revoked{}", if new { "" } else { " (already)" })
    });
    Ok(0)
}
