//! Operator commands: controls, events, the runner, background runners,
//! and the facade options that start them.

use super::output::Out;
use super::{Cli, ControlCommand, EventsCommand, RunnerArgs, open_host};
use hwf_host::app::operate::{ControlRequest, EventRequest, parse_decision};
use hwf_host::background::Kick;
use hwf_host::config::Config;
use hwf_host::control::Action;
use hwf_host::ids::RunId;
use hwf_host::scheduler::Scheduler;
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
                digest: None,
            })?;
            // A new event may resolve a parked run's `events.wait`, and
            // its triggers queue runs: hand them to a runner now. On the
            // file store, finding out whether a run waits on an event
            // costs what the runner's own first scan does (every run's
            // snapshot: 80-150 ms at 5,000 runs), on the sender's time, so
            // a new event always goes to the runner; on a shared store the
            // unfinished runs are one query.
            let triggered = sent.started.iter().any(|s| s["new"] == true);
            if sent.new && (triggered || !hwf.store().is_shared() || waits_on_events(&hwf)) {
                ensure_runner(cli, config)?;
            }
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

/// Whether some unfinished run waits on an event (what a new event may
/// resolve), stopping at the first. A run that cannot be read counts as
/// waiting.
fn waits_on_events(hwf: &hwf_host::Hwf) -> bool {
    let Ok(ids) = hwf.store().unfinished_run_ids() else {
        return true;
    };
    ids.iter().any(|id| match hwf.store().read_snapshot(id) {
        Ok(snap) => snap.state == hwf_host::store::RunState::Waiting && snap.waits.iter().any(|w| w.kind == "event"),
        Err(e) => e.code() != ErrorCode::NotFound,
    })
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

/// `hwf runner …`: a [`Scheduler`] with `--concurrency` slots. With
/// `--once`, one pass: everything found to do is executed (up to the slots
/// at once) before it exits. Otherwise it scans on every poll (or when a
/// shared store says there is work, or a turn ends with nothing left to
/// start) until idle for `--idle-exit-after`, or until SIGTERM / Ctrl-C:
/// then it stops taking work, gives the runs in flight `--shutdown-grace`
/// to finish and releases the rest to another runner. `--detached` is the
/// state dir's background runner ([`hwf_host::background`]).
pub async fn runner(cli: &Cli, config: &Config, args: &RunnerArgs, out: &Out) -> Result<i32, Error> {
    use hwf_host::background::{DETACHED_IDLE_EXIT, RunnerLock, RunnerScope, RunnerStatus};
    use hwf_host::runner::Listing;
    if let Some(parent) = args.isolated_for {
        // A run continued alone for a runner dies with that runner, as it
        // would have inside it (and its death counts as the run's).
        if let Err(e) = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL)) {
            // It still runs the run, once; it just may outlive its runner.
            tracing::warn!(error = %e, "cannot tie this runner to its parent's life");
        }
        let expected = i32::try_from(parent).ok().and_then(std::num::NonZeroI32::new);
        if rustix::process::getppid().map(rustix::process::Pid::as_raw_nonzero) != expected {
            return Ok(0); // the runner died before the signal was set
        }
    }
    let concurrency = config.runner.concurrency(args.concurrency)?;
    let hwf = Arc::new(open_host(cli, config, args.agents.as_ref(), config.limits.clone())?);
    let only = args.only.as_deref().map(RunId::parse).transpose()?;
    let listing = only.as_ref().map_or(Listing::Unfinished, Listing::Only);
    // The background runner holds the state dir's lock while it serves;
    // another one already holding it serves the state dir instead.
    let mut lock = if args.detached {
        match RunnerLock::try_take(hwf.state_dir())? {
            Some(lock) => Some(lock),
            None => return Ok(0),
        }
    } else {
        None
    };
    let idle_exit = if args.detached {
        Some(
            args.idle_exit_after
                .map_or(DETACHED_IDLE_EXIT, std::time::Duration::from_secs),
        )
    } else {
        args.idle_exit_after.map(std::time::Duration::from_secs)
    };
    let mut scheduler = Scheduler::new(hwf.clone(), concurrency);
    let status = (!args.once).then(|| {
        RunnerStatus::publish(
            hwf.state_dir(),
            if args.detached { "detached" } else { "runner" },
            concurrency,
            RunnerScope {
                // Then nobody needs to start a background runner for
                // work recorded here (see hwf_host::background).
                until_stopped: !args.detached && only.is_none() && idle_exit.is_none(),
                shared_store: hwf.store().is_shared(),
            },
        )
    });
    let say = |line: String| {
        if !args.json {
            super::output::say_err(&format!("hwf runner: {line}"));
        }
    };
    let mut total = hwf_host::runner::PassReport::default();
    let fold = |report: hwf_host::runner::PassReport, total: &mut hwf_host::runner::PassReport| {
        // Runs the runner cannot touch are named on every scan (not once:
        // an operator may be repairing them meanwhile).
        for (id, e) in &report.errors {
            say(format!("run {id} left as it is: {}: {}", e.code.as_str(), e.message));
        }
        for n in &report.needs_host {
            say(format!("run {} left as it is: needs_host: {}", n.run_id, n.reason()));
        }
        total.queued.extend(report.queued);
        total.ready.extend(report.ready);
        total.stuck.extend(report.stuck);
        total.stopped.extend(report.stopped);
        total.executed.extend(report.executed);
        total.waiting = report.waiting;
        total.errors = report.errors;
        total.needs_host = report.needs_host;
    };
    if args.once {
        let scan = scheduler.scan(listing, &|_| false, &mut |_| {})?;
        say(scan_line(&scan, scheduler.capacity()));
        let dispatched = scheduler.dispatch(true).await;
        scheduler.drain().await;
        dispatched?;
        fold(scheduler.take_report(), &mut total);
        print_total(out, &total);
        return Ok(0);
    }
    // A shared store wakes the runner when there may be work; the poll is
    // the fallback (and finds expired leases).
    let mut work = hwf.store().watch_work();
    let poll = runner_poll(work.is_some())?;
    let mut signals = Signals::new()?;
    let mut idle_since = std::time::Instant::now();
    let mut first = true;
    'serve: loop {
        let scanned = scheduler.scan(listing, &|_| false, &mut |_| {});
        // A run parked on a timer is work to stay for: nobody else may be
        // around to continue it when it is due.
        let timer_due = scanned.as_ref().ok().and_then(|s| s.next_timer_ms);
        match scanned {
            Ok(scan) if first => {
                say(scan_line(&scan, scheduler.capacity()));
                first = false;
            }
            Ok(_) => {}
            Err(e) => outlive("the scan", e, &say)?,
        }
        if let Err(e) = scheduler.dispatch(false).await {
            outlive("taking work", e, &say)?;
        }
        if let Some(status) = &status {
            status.update(scheduler.in_flight());
        }
        if scheduler.in_flight() > 0 || scheduler.backlog_len() > 0 || timer_due.is_some() {
            idle_since = std::time::Instant::now();
        }
        if scheduler.in_flight() == 0
            && scheduler.backlog_len() == 0
            && idle_exit.is_some_and(|after| idle_since.elapsed() >= after)
        {
            // Leaving: let go of the lock first, then look once more, so a
            // run queued meanwhile is either found now or starts a new
            // background runner (see hwf_host::background).
            let Some(held) = lock.take() else { break 'serve };
            held.release()?;
            let last = scheduler.scan(listing, &|_| false, &mut |_| {})?;
            if scheduler.backlog_len() == 0 && last.next_timer_ms.is_none() {
                break 'serve;
            }
            match RunnerLock::try_take(hwf.state_dir())? {
                Some(again) => lock = Some(again),
                None => break 'serve, // a new background runner took it
            }
            idle_since = std::time::Instant::now();
            continue 'serve;
        }
        let rescan_at = tokio::time::Instant::now() + poll;
        loop {
            tokio::select! {
                () = tokio::time::sleep_until(rescan_at) => break,
                changed = async {
                    match work.as_mut() {
                        Some(rx) => rx.changed().await,
                        None => std::future::pending().await,
                    }
                }, if work.is_some() => {
                    if changed.is_err() {
                        work = None; // the listener is gone: poll only
                    }
                    break;
                }
                Some(_) = scheduler.next_finished() => {
                    idle_since = std::time::Instant::now();
                    fold(scheduler.take_report(), &mut total);
                    if let Err(e) = scheduler.dispatch(false).await {
                        tracing::warn!(error = %e, "runner could not take work");
                    }
                    if let Some(status) = &status {
                        status.update(scheduler.in_flight());
                    }
                    if scheduler.backlog_len() == 0 {
                        // Nothing left from the last scan: look again soon.
                        tokio::time::sleep(hwf_host::scheduler::RESCAN_GAP).await;
                        break;
                    }
                }
                () = signals.next() => {
                    if let Some(status) = &status {
                        status.stopping();
                    }
                    shutdown(&mut scheduler, &mut signals, args.shutdown_grace, &say).await;
                    break 'serve;
                }
            }
        }
    }
    fold(scheduler.take_report(), &mut total);
    drop(lock);
    print_total(out, &total);
    Ok(0)
}

/// `hwf capabilities [--run RUN]`: what a workflow may call on this host;
/// with `--run`, what that run needs of its host and which of those this
/// host lacks (a stock binary cannot list an embedder's capabilities, but
/// a run records the ones it needs).
pub fn capabilities(cli: &Cli, config: &Config, run: Option<&str>, out: &Out) -> Result<i32, Error> {
    let hwf = super::open_host(cli, config, None, config.limits.clone())?;
    let listed = hwf.capabilities().catalog();
    let policy = &hwf.services().policy;
    let mut data = serde_json::json!({ "capabilities": listed });
    if let Some(id) = run {
        let snap = hwf.store().read_snapshot(&RunId::parse(id)?)?;
        let missing = hwf.capabilities().missing(&snap.needs);
        data["run"] = serde_json::json!({
            "run_id": snap.run_id,
            "state": snap.state,
            "needs": snap.needs,
            "needs_host": missing,
        });
    }
    out.data(&data, |data| {
        let mut text = listed
            .iter()
            .map(|c| {
                let allowed = if policy.allowed_classes.contains(&c.class) {
                    ""
                } else {
                    "  (class not allowed by this policy)"
                };
                let schema = if c.input_schema.is_some() {
                    "  [input schema]"
                } else {
                    ""
                };
                format!(
                    "{:<16} {:<16} {}{schema}{allowed}",
                    c.name,
                    c.class.as_str(),
                    c.description
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        if let Some(run) = data.get("run") {
            text.push_str(&run_needs_text(run));
        }
        text
    });
    Ok(0)
}

/// The `--run` part of `hwf capabilities`: one line per capability the
/// run needs, and whether this host offers it.
fn run_needs_text(run: &Value) -> String {
    let id = run["run_id"].as_str().unwrap_or("?");
    let state = run["state"].as_str().unwrap_or("?");
    let needs = run["needs"].as_array().cloned().unwrap_or_default();
    let missing = run["needs_host"].as_array().cloned().unwrap_or_default();
    if needs.is_empty() {
        return format!("\n\nrun {id} ({state}) needs only the built-ins: any hwf host can continue it");
    }
    let mut text = format!("\n\nrun {id} ({state}) needs of its host:");
    for need in &needs {
        let name = need["name"].as_str().unwrap_or("?");
        let class = need["class"].as_str().unwrap_or("?");
        let here = if missing.contains(need) {
            "not offered here (needs_host: this host's runners leave the run for the host that offers it)"
        } else {
            "offered here"
        };
        text.push_str(&format!("\n  {name:<16} {class:<16} {here}"));
    }
    text
}

/// The runner's first line: what its scan found, and its slots.
fn scan_line(scan: &hwf_host::runner::Scan, slots: usize) -> String {
    format!(
        "{} queued, {} waiting ({} ready), {} stuck{}; {} slots",
        scan.queued.len(),
        scan.waiting.len() + scan.ready.len(),
        scan.ready.len(),
        scan.stuck.len(),
        match scan.needs_host.len() {
            0 => String::new(),
            n => format!(", {n} left for another host (needs_host)"),
        },
        slots
    )
}

/// A long-lived runner outlives a store outage (a database restarting, a
/// network blip): `io` and `internal` failures of `what` are said and
/// tried again on the next scan; anything else ends the runner.
fn outlive(what: &str, e: Error, say: &dyn Fn(String)) -> Result<(), Error> {
    if !matches!(e.code(), ErrorCode::Io | ErrorCode::Internal) {
        return Err(e);
    }
    tracing::warn!(error = %e, "{what} failed; trying again");
    say(format!(
        "{what} failed ({}: {}); trying again",
        e.code().as_str(),
        e.message()
    ));
    Ok(())
}

/// A graceful stop: no new work; the runs in flight get `grace_secs` to
/// finish (or until a second signal), then the rest are released so
/// another runner continues them at once.
async fn shutdown(scheduler: &mut Scheduler, signals: &mut Signals, grace_secs: u64, say: &dyn Fn(String)) {
    scheduler.stop_claiming();
    let n = scheduler.in_flight();
    if n == 0 {
        return;
    }
    say(format!(
        "stopping: {n} runs in flight get {grace_secs} s to finish (signal again to release them now)"
    ));
    let grace = tokio::time::sleep(std::time::Duration::from_secs(grace_secs));
    tokio::pin!(grace);
    loop {
        tokio::select! {
            done = scheduler.next_finished() => if done.is_none() { return },
            () = &mut grace => break,
            () = signals.next() => break,
        }
    }
    let released = scheduler.release().await;
    say(format!(
        "released {released} runs in flight; another runner continues them"
    ));
}

/// SIGTERM and SIGINT, as one stream.
struct Signals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> Result<Self, Error> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            term: signal(SignalKind::terminate()).map_err(|e| Error::io("listen for SIGTERM", e))?,
            int: signal(SignalKind::interrupt()).map_err(|e| Error::io("listen for SIGINT", e))?,
        })
    }

    async fn next(&mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.int.recv() => {}
        }
    }
}

fn print_total(out: &Out, total: &hwf_host::runner::PassReport) {
    let v = serde_json::to_value(total).unwrap_or(Value::Null);
    out.data(&v, |_| {
        total
            .executed
            .iter()
            .map(|(id, st)| format!("{id} {}", st.as_str()))
            .collect::<Vec<_>>()
            .join("\n")
    });
}

/// Facade options for this invocation: background runs (and controls on
/// parked runs) make sure the state dir's background runner is alive.
pub fn facade_options(cli: &Cli, config: &Config) -> hwf_host::facade::Options {
    let spawn = RunnerSpawn::of(cli, config);
    hwf_host::facade::Options {
        spawn_runner: Some(Arc::new(move |_id: &RunId| spawn.ensure().map(drop))),
        wake: None,
        progress: None,
        operator: false,
        trace_parent: None,
    }
}

/// How a runner with several slots continues a run whose executor died:
/// alone, in a `hwf runner --once --run <id> --concurrency 1` of its own
/// (see [`hwf_host::HwfBuilder::isolation`]).
pub fn isolation(cli: &Cli, config: &Config) -> hwf_host::scheduler::Isolate {
    let spawn = RunnerSpawn::of(cli, config);
    Arc::new(move |run: RunId| Box::pin(spawn.clone().isolated(run)))
}

/// Make sure a runner serves the state dir, for a run just queued (or a
/// control or event just recorded): the background runner, started when
/// nothing serves it — unless autostart is off (`[runner] autostart`,
/// `$HWF_RUNNER_AUTOSTART`): then `None`, the work waits for a runner the
/// operator starts.
pub fn ensure_runner(cli: &Cli, config: &Config) -> Result<Option<Kick>, Error> {
    RunnerSpawn::of(cli, config).ensure()
}

/// Who continues this state dir's parked runs once their waits resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Continuer {
    /// A live runner (`hwf runner`, `serve`, `mcp`, or the background
    /// runner while it lives): its kind and pid.
    Live(String, u32),
    /// The background runner, started on demand by whoever records the
    /// answer.
    OnDemand,
    /// Nobody until an operator runs one (autostart is off); `true` on a
    /// shared store, where another machine's runner may.
    Manual(bool),
}

impl Continuer {
    /// Look (without touching the runner lock).
    pub fn of(cli: &Cli, config: &Config) -> Self {
        let spawn = RunnerSpawn::of(cli, config);
        let live = hwf_host::background::live_runners(&spawn.state_dir);
        let serving = live
            .iter()
            .find(|r| r.until_stopped && !r.stopping && r.shared_store != spawn.local)
            .or_else(|| live.iter().find(|r| r.kind == "detached"));
        match serving {
            Some(r) => Self::Live(r.kind.clone(), r.pid),
            None if config.runner.autostart().unwrap_or(true) => Self::OnDemand,
            None => Self::Manual(!spawn.local),
        }
    }

    /// How a parked run waiting on `kinds` (its waits' kinds) continues,
    /// in one line that calls the run `it` (`it`, `its run`); `None` when
    /// nothing it waits for is answered.
    pub fn line(&self, kinds: &[&str], it: &str) -> Option<String> {
        let mut what: Vec<&str> = Vec::new();
        for k in kinds {
            let w = match *k {
                "human" | "approval" => "a decision",
                "pause" => "`hwf control resume`",
                "event" => "a matching event",
                "kanban" => "completing its card",
                "timer" => "its timer",
                _ => continue,
            };
            if !what.contains(&w) {
                what.push(w);
            }
        }
        if what.is_empty() {
            return None;
        }
        let what = what.join(" or ");
        Some(match self {
            Self::Live(kind, pid) => format!(
                "{what} continues {it} at once (the {} runner, pid {pid})",
                runner_name(kind)
            ),
            Self::OnDemand => format!("{what} continues {it} at once (the background runner, started on demand)"),
            Self::Manual(false) => format!(
                "{what} is recorded, and {it} continues when a runner runs (`hwf runner`; runner autostart is off)"
            ),
            Self::Manual(true) => format!(
                "{what} is recorded, and {it} continues when a runner of the shared store takes it (`hwf runner`; runner autostart is off here)"
            ),
        })
    }
}

/// A runner kind as said to people.
fn runner_name(kind: &str) -> &str {
    match kind {
        "detached" => "background",
        "in-process" => "in-process",
        _ => "long-lived",
    }
}

/// How to start the state dir's background runner: the options every
/// process that executes a run must get (state dir, config, store).
#[derive(Debug, Clone)]
struct RunnerSpawn {
    state_dir: std::path::PathBuf,
    /// The runs live in `state_dir`'s files (not a shared store).
    local: bool,
    /// `[runner] autostart` / `$HWF_RUNNER_AUTOSTART` (checked when the
    /// command started).
    autostart: bool,
    state_dir_arg: Option<std::path::PathBuf>,
    config: Option<std::path::PathBuf>,
    store: Option<String>,
}

impl RunnerSpawn {
    fn of(cli: &Cli, config: &Config) -> Self {
        // The dir the host uses: a file store named by --store, else the
        // state dir.
        let store = hwf_host::config::resolve_store(cli.store.as_deref(), config);
        let local = !matches!(&store, Ok(Some(url)) if url.is_shared());
        let state_dir = match store {
            Ok(Some(hwf_host::store::url::StoreUrl::File(dir))) => dir,
            _ => hwf_host::config::resolve_state_dir(cli.state_dir.as_deref(), config),
        };
        Self {
            state_dir,
            local,
            autostart: config.runner.autostart().unwrap_or(true),
            state_dir_arg: cli.state_dir.clone(),
            config: cli.config.clone(),
            store: cli.store.clone(),
        }
    }

    fn ensure(&self) -> Result<Option<Kick>, Error> {
        if !self.autostart {
            return Ok(None);
        }
        std::fs::create_dir_all(&self.state_dir)
            .map_err(|e| Error::io(format!("create {}", self.state_dir.display()), e))?;
        hwf_host::background::ensure_runner(&self.state_dir, self.local, || self.start()).map(Some)
    }

    /// Continue one run alone: `hwf runner --once --run <id>
    /// --concurrency 1` in a process of its own, awaited (its stderr is
    /// this process's).
    async fn isolated(self, run: RunId) -> Result<(), Error> {
        let exe = std::env::current_exe().map_err(|e| Error::io("current executable", e))?;
        let mut cmd = tokio::process::Command::new(exe);
        cmd.args(self.global_args());
        cmd.args([
            "runner",
            "--once",
            "--concurrency",
            "1",
            "--json",
            "--run",
            run.as_str(),
        ])
        .arg("--isolated-for")
        .arg(std::process::id().to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true);
        let status = cmd
            .status()
            .await
            .map_err(|e| Error::io("start a runner for one run", e))?;
        if status.success() {
            Ok(())
        } else {
            Err(Error::new(
                ErrorCode::Internal,
                format!("the runner continuing run {run} alone ended with {status}"),
            ))
        }
    }

    /// The options every process that executes a run must get.
    fn global_args(&self) -> Vec<std::ffi::OsString> {
        let mut args = Vec::new();
        let mut pass = |flag: &str, value: Option<std::ffi::OsString>| {
            if let Some(value) = value {
                args.extend([flag.into(), value]);
            }
        };
        pass("--state-dir", self.state_dir_arg.clone().map(Into::into));
        pass("--config", self.config.clone().map(Into::into));
        pass("--store", self.store.clone().map(Into::into));
        args
    }

    /// Start a detached `hwf runner --detached` (its own process group; its
    /// stderr appended to `<state>/runner.log`).
    fn start(&self) -> Result<(), Error> {
        let exe = std::env::current_exe().map_err(|e| Error::io("current executable", e))?;
        let mut cmd = std::process::Command::new(exe);
        cmd.args(self.global_args());
        let log_path = self.state_dir.join("runner.log");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|e| Error::io(format!("open {}", log_path.display()), e))?;
        cmd.args(["runner", "--detached", "--json"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(log);
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd.spawn().map_err(|e| Error::io("start the background runner", e))?;
        tracing::info!(pid = child.id(), "started the state dir's background runner");
        Ok(())
    }
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
    // A parked or queued run has no executor watching its controls: hand
    // it to a runner now (as the facade does). A running one applies
    // them itself.
    let kick = if recorded.needs_runner() {
        Some(ensure_runner(cli, config)?)
    } else {
        None
    };
    if kick == Some(None) && !out.is_json() && matches!(Continuer::of(cli, config), Continuer::Manual(_)) {
        eprintln!("hwf: runner autostart is off: the run continues when a runner runs (`hwf runner`)");
    }
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
