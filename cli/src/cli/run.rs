//! `hwf run` (its limit and policy flags) and `hwf status`.

use super::output::Out;
use super::{Cli, RunArgs, console, open_host, ops, progress};
use hwf_host::capabilities::SideEffect;
use hwf_host::config::Config;
use hwf_host::ids::RunId;
use hwf_host::store::RunState;
use hwf_host::{Error, ErrorCode, Limits, RunRequest, Target};
use serde_json::Value;

/// `hwf run …`.
pub async fn run(cli: &Cli, config: &Config, args: &RunArgs, out: &Out) -> Result<i32, Error> {
    let mut run_args: Value = match &args.args {
        None => Value::Null,
        Some(text) => serde_json::from_str(text)
            .map_err(|e| Error::new(ErrorCode::InvalidArgs, format!("--args is not valid JSON: {e}")))?,
    };
    let resume_from = args.resume_from.as_deref().map(RunId::parse).transpose()?;
    let target = match (&args.target, &resume_from) {
        (Some(t), _) => Target::parse(t)?,
        (None, Some(src)) => {
            let source = super::open_plain_host(cli, config)?.resume_source(src)?;
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
    // A plan without --args plans the resume with the source's args.
    if let (true, None, Some(src), Some(_)) = (args.plan, &args.args, &resume_from, &args.target) {
        let source = super::open_plain_host(cli, config)?.resume_source(src)?;
        run_args = source.args_or(None, src, ErrorCode::InvalidArgs, "pass --args")?;
    }
    let run_id = args.run_id.as_deref().map(RunId::parse).transpose()?;
    let limits = run_limits(args, config.limits.clone())?;
    let mut config = config.clone();
    if !args.allow.is_empty() {
        config.policy.allowed_names = args.allow.clone();
    }
    for class in &args.allow_class {
        let c: SideEffect = serde_json::from_value(Value::String(class.clone())).map_err(|_| {
            Error::new(
                ErrorCode::InvalidArgs,
                format!(
                    "--allow-class {class:?}: expected read_only, session_launch, session_control or external_write"
                ),
            )
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
    let hwf = open_host(cli, &config, args.agents.as_ref(), limits)?;
    let mut req = RunRequest::new(target, run_args);
    req.run_id = run_id;
    req.resume_from = resume_from;
    req.allow_changed = args.allow_changed;
    if args.plan {
        let plan = hwf.plan(&req).await?;
        super::cassette::print_plan(&plan, out);
        return Ok(0);
    }
    if args.background {
        if req.resume_from.is_some() {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                "--background and --resume-from cannot be combined yet",
            ));
        }
        let id = hwf.enqueue(&req)?;
        hwf.declare_phases(&id).await;
        if !args.queue_only
            && ops::ensure_runner(cli, &config)?.is_none()
            && !args.json
            && matches!(ops::Continuer::of(cli, &config), ops::Continuer::Manual(_))
        {
            eprintln!("hwf: runner autostart is off: the run starts when a runner runs (`hwf runner`)");
        }
        out.data(&serde_json::json!({"run_id": id, "state": "queued"}), |_| {
            id.to_string()
        });
        return Ok(0);
    }
    let bar = (!args.json && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(progress::Bar::new);
    if let Some(bar) = &bar {
        let id = req.run_id.get_or_insert_with(RunId::generate).clone();
        bar.track(hwf.state_dir(), &id);
        req.progress = Some(bar.callback());
    }
    let outcome = hwf.run(req).await;
    let tty_progress = bar.is_some();
    if let Some(bar) = bar {
        bar.finish();
    }
    let outcome = outcome?;
    if outcome.snapshot.state == RunState::Queued {
        return Ok(left_for_another_host(&hwf, &outcome.snapshot, out));
    }
    if tty_progress {
        super::output::say_err(&progress::summary(&outcome.snapshot, hwf.state_dir()));
    }
    let code = out.run_outcome(&outcome, hwf.state_dir());
    if outcome.snapshot.state == RunState::Waiting && !out.is_json() {
        console::print_run_waits(
            &hwf,
            outcome.snapshot.run_id.as_str(),
            &ops::Continuer::of(cli, &config),
        );
    }
    Ok(code)
}

/// A `--resume-from` this host could not run (the source needs an
/// embedder's capabilities): the new run is queued for the host that
/// offers them. Exit 3, as for any run not finished.
fn left_for_another_host(hwf: &hwf_host::Hwf, snap: &hwf_host::store::RunSnapshot, out: &Out) -> i32 {
    let missing = hwf.capabilities().missing(&snap.needs);
    if out.is_json() {
        let mut envelope = hwf_host::facade::run_envelope(snap, hwf.state_dir());
        envelope["data"]["needs"] = serde_json::json!(snap.needs);
        envelope["data"]["needs_host"] = serde_json::json!(missing);
        out.raw(&envelope);
    } else {
        super::output::say_err(&format!(
            "run {} queued: needs_host: {}",
            snap.run_id,
            hwf_host::runner::needs_host_reason(&missing)
        ));
        super::output::say(snap.run_id.as_str());
    }
    super::exit_code(snap.state)
}

/// `hwf status RUN` (without `--watch`).
pub fn status(cli: &Cli, config: &Config, run_id: &str, out: &Out) -> Result<i32, Error> {
    let hwf = open_host(cli, config, None, config.limits.clone())?;
    let status = hwf.status(run_id)?;
    out.status(&status.to_json());
    if status.state == hwf_host::status::ShownState::Run(RunState::Waiting) && !out.is_json() {
        console::print_run_waits(&hwf, run_id, &ops::Continuer::of(cli, config));
    }
    Ok(0)
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
