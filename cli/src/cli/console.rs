//! The operator's view in the terminal: `hwf overview` with filters,
//! `hwf waits` (the review queue), `hwf logs [--follow]`,
//! `hwf status --watch`, and `hwf serve` (the web console).

use super::output::Out;
use super::{Cli, open_host, ops};
use clap::Args;
use hwf_host::config::Config;
use hwf_host::ids::RunId;
use hwf_host::review::RunFilter;
use hwf_host::{Error, ErrorCode, Hwf};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

/// How often `--watch` and `--follow` look again.
const POLL: Duration = Duration::from_millis(250);

/// Filters of `hwf overview`.
#[derive(Debug, Args)]
pub struct OverviewArgs {
    /// Only runs in this state (queued, running, waiting, stuck, succeeded, failed, stopped, cancelled, active).
    #[arg(long)]
    pub state: Option<String>,
    /// Only runs whose workflow name contains this text.
    #[arg(long)]
    pub name: Option<String>,
    /// At most this many runs (newest first).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

/// `hwf logs`.
#[derive(Debug, Args)]
pub struct LogsArgs {
    /// Run id.
    pub run_id: String,
    /// Keep printing new lines until the run ends.
    #[arg(long, short)]
    pub follow: bool,
    /// Also show every call (not only logs, phases, waits and decisions).
    #[arg(long)]
    pub calls: bool,
    /// One JSON row per line.
    #[arg(long)]
    pub json: bool,
}

/// `hwf serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port (0: any free port).
    #[arg(long, default_value_t = 8765)]
    pub port: u16,
    /// Address to bind; anything but loopback requires the token for every API request.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// Bearer token (else HWF_TOKEN, else the one stored in the state dir, else a new one).
    #[arg(long, env = "HWF_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Fixture agent file for runs that did not record one.
    #[arg(long, value_name = "FIXTURE.json")]
    pub agents: Option<PathBuf>,
    /// Runs the in-process runner executes at once (default 64, else [runner] concurrency; 1 to 250).
    #[arg(long, value_name = "N")]
    pub concurrency: Option<u64>,
}

fn age(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        3600..172_800 => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
        _ => format!("{}d", s / 86_400),
    }
}

/// `hwf overview [--state S] [--name N] [--limit K]`.
pub fn overview(cli: &Cli, config: &Config, args: &OverviewArgs, out: &Out) -> Result<i32, Error> {
    let hwf = open_host(cli, config, None, config.limits.clone())?;
    let filter = RunFilter {
        state: args.state.clone(),
        name: args.name.clone(),
        since_ms: None,
        limit: args.limit,
        offset: 0,
        after: None,
    };
    let mut v = hwf.runs(&filter)?;
    // Blocked waits of the listed runs (as the unfiltered overview has).
    let waits: Vec<Value> = v["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|r| {
            r["waits"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|w| json!({"run_id": r["run_id"], "wait": w}))
        })
        .collect();
    v["waits"] = json!(waits);
    out.data(&v, |v| {
        let runs = v["runs"].as_array().cloned().unwrap_or_default();
        if runs.is_empty() {
            return if filter.state.is_some() || filter.name.is_some() {
                "no runs match".to_owned()
            } else {
                "no runs yet".to_owned()
            };
        }
        let mut lines = vec![format!(
            "{:<34} {:<20} {:<10} {:<14} {:>8} {:>9} {:>6}  WAITING ON",
            "RUN", "WORKFLOW", "STATE", "PHASE", "AGE", "DURATION", "CALLS"
        )];
        for r in &runs {
            let c = &r["counts"];
            let calls = c["agent_calls"].as_u64().unwrap_or(0) + c["capability_calls"].as_u64().unwrap_or(0);
            let waiting: Vec<&str> = r["waits"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|w| w["summary"].as_str())
                .collect();
            lines.push(format!(
                "{:<34} {:<20} {:<10} {:<14} {:>8} {:>9} {:>6}  {}",
                r["run_id"].as_str().unwrap_or("?"),
                clip(r["workflow"].as_str().unwrap_or("-"), 20),
                r["state"].as_str().unwrap_or("?"),
                clip(r["phase"].as_str().unwrap_or("-"), 14),
                age(r["age_ms"].as_u64().unwrap_or(0)),
                age(r["duration_ms"].as_u64().unwrap_or(0)),
                calls,
                waiting.join("; ")
            ));
        }
        let total = v["total"].as_u64().unwrap_or(0);
        if total as usize > runs.len() {
            lines.push(format!("({} of {total} runs shown)", runs.len()));
        }
        lines.join("\n")
    });
    Ok(0)
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_owned();
    }
    let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
    t.push('…');
    t
}

/// The review entries as text: kind, question and choices, what an
/// approval runs, who decides, since when, and the commands.
pub fn waits_text(entries: &[Value]) -> String {
    let now = hwf_host::store::now_ms();
    let mut out = Vec::new();
    for w in entries {
        let mut s = format!(
            "{} call {} · {} · {} · waiting {}\n",
            w["run_id"].as_str().unwrap_or("?"),
            w["call"].as_str().filter(|c| !c.is_empty()).unwrap_or("-"),
            w["workflow"].as_str().unwrap_or("?"),
            w["kind"].as_str().unwrap_or("?"),
            age(now.saturating_sub(w["since_ms"].as_u64().unwrap_or(now)))
        );
        match w["kind"].as_str() {
            Some("human") => {
                s.push_str(&format!("  question: {}\n", w["question"].as_str().unwrap_or("?")));
                if let Some(c) = w["choices"].as_array() {
                    let c: Vec<String> = c.iter().map(Value::to_string).collect();
                    s.push_str(&format!("  choices:  {}\n", c.join(" | ")));
                }
                if !w["schema"].is_null() {
                    s.push_str(&format!("  schema:   {}\n", w["schema"]));
                }
            }
            Some("approval") => {
                s.push_str(&format!(
                    "  approve:  {} with {}\n",
                    w["capability"].as_str().unwrap_or("?"),
                    w["input"]
                ));
            }
            Some("event") => s.push_str(&format!("  event:    {}\n", w["predicate"])),
            _ => s.push_str(&format!("  {}\n", w["summary"].as_str().unwrap_or(""))),
        }
        s.push_str(&format!("  who:      {}\n", w["who"].as_str().unwrap_or("")));
        for c in w["commands"].as_array().into_iter().flatten() {
            s.push_str(&format!("  $ {}\n", c.as_str().unwrap_or("")));
        }
        out.push(s);
    }
    out.join("\n").trim_end().to_owned()
}

/// `hwf waits`: every blocked wait across runs.
pub fn waits(cli: &Cli, config: &Config, out: &Out) -> Result<i32, Error> {
    let hwf = open_host(cli, config, None, config.limits.clone())?;
    let v = hwf.review_queue()?;
    out.data(&v, |v| {
        let entries = v["waits"].as_array().cloned().unwrap_or_default();
        if entries.is_empty() {
            "nothing is waiting".to_owned()
        } else {
            let kinds: Vec<&str> = entries.iter().filter_map(|w| w["kind"].as_str()).collect();
            let then = ops::Continuer::of(cli, config)
                .line(&kinds, "its run")
                .map(|l| format!("\n\nthen: {l}"))
                .unwrap_or_default();
            format!("{}{then}", waits_text(&entries))
        }
    });
    Ok(0)
}

/// After `hwf run` or `hwf status` of a waiting run (human output): what
/// it waits for, how to answer, and how the run continues then (who runs
/// it: see [`ops::Continuer`]), on stderr.
pub fn print_run_waits(hwf: &Hwf, run_id: &str, continuer: &ops::Continuer) {
    let Ok(id) = RunId::parse(run_id) else { return };
    let Ok(snap) = hwf.store().read_snapshot(&id) else {
        return;
    };
    let entries = hwf.run_waits(&snap);
    if !entries.is_empty() {
        super::output::say_err(&format!("waiting for:\n{}", waits_text(&entries)));
    }
    let kinds: Vec<&str> = snap.waits.iter().map(|w| w.kind.as_str()).collect();
    if let Some(line) = continuer.line(&kinds, "it") {
        super::output::say_err(&format!("then: {line}"));
    }
}

/// One timeline row as a log line.
fn row_text(r: &Value) -> String {
    let ts = r["ts_ms"].as_u64().map(clock).unwrap_or_default();
    let s = |k: &str| r[k].as_str().unwrap_or("");
    let body = match s("row") {
        "log" => format!(
            "{:<5} {}{}",
            s("level"),
            s("message"),
            r["call"].as_str().map(|c| format!("  (call {c})")).unwrap_or_default()
        ),
        "phase" => format!("phase {}", s("title")),
        "wait" => format!("wait  call {} ({}): {}", s("call"), s("kind"), s("summary")),
        "wait_resolved" => format!("wait  call {} resolved", s("call")),
        "edit" => format!(
            "edit  call {} {}{} (fork of {}) by {}{}",
            s("call"),
            s("field"),
            match r["decision"].as_str() {
                Some(d) => format!(" set to {d}"),
                None => " replaced".to_owned(),
            },
            s("source_run"),
            s("actor"),
            r["reason"].as_str().map(|x| format!(" — {x}")).unwrap_or_default()
        ),
        "attempt" => format!(
            "reject call {} attempt {} {}: {} — answered: {}",
            s("call"),
            r["attempt"],
            r["code"].as_str().unwrap_or("rejected"),
            super::output::one_line(s("error"), 200),
            super::output::one_line(r["answer"].as_str().unwrap_or("(nothing)"), 300)
        ),
        "control" => format!(
            "{}{}{}{} by {}{}{}",
            s("action"),
            r["call"].as_str().map(|c| format!(" call {c}")).unwrap_or_default(),
            r["decision"].as_str().map(|d| format!(" {d}")).unwrap_or_default(),
            r.get("value")
                .filter(|v| !v.is_null())
                .map(|v| format!(" {v}"))
                .unwrap_or_default(),
            s("actor"),
            r["channel"].as_str().map(|c| format!(" via {c}")).unwrap_or_default(),
            r["reason"].as_str().map(|c| format!(" — {c}")).unwrap_or_default(),
        ),
        "call" => format!(
            "call  {} {} {} {}{}",
            s("call"),
            s("kind"),
            r["label"].as_str().or(r["name"].as_str()).unwrap_or(""),
            // A replayed call shows what it took when it ran.
            if r["replayed"] == true && s("state") == "done" {
                "replayed"
            } else {
                s("state")
            },
            r["duration_us"]
                .as_u64()
                .map(|us| format!(" {:.1}ms", us as f64 / 1000.0))
                .unwrap_or_default()
        ),
        "run_started" => "run started".to_owned(),
        "run_completed" => format!(
            "run {}{}",
            s("state"),
            r["error"]["code"]
                .as_str()
                .map(|c| {
                    // The message `hwf status` shows, on this line.
                    let msg = r["error"]["message"].as_str().unwrap_or("");
                    if msg.is_empty() {
                        format!(": {c}")
                    } else {
                        format!(": {c}: {}", super::output::one_line(msg, 300))
                    }
                })
                .unwrap_or_default()
        ),
        "control_applied" => format!("applied {} {}", s("action"), s("call")),
        other => other.to_owned(),
    };
    format!("{ts} {body}")
}

/// `HH:MM:SS.mmm` (UTC) of a time in ms.
fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        (s / 3600) % 24,
        (s / 60) % 60,
        s % 60,
        ms % 1000
    )
}

fn shown(r: &Value, calls: bool) -> bool {
    match r["row"].as_str() {
        Some("call") => calls,
        Some("control_applied") => false,
        _ => true,
    }
}

/// A stable key of a row, to print each once while following.
fn row_key(r: &Value) -> String {
    match r["row"].as_str() {
        Some("control") => format!("c:{}", r["id"]),
        Some("call") => format!("call:{}:{}", r["call"], r["state"]),
        _ => format!("s:{}", r["seq"]),
    }
}

/// `hwf logs RUN [--follow]`.
pub async fn logs(cli: &Cli, config: &Config, args: &LogsArgs, _out: &Out) -> Result<i32, Error> {
    let hwf = open_host(cli, config, None, config.limits.clone())?;
    let id = RunId::parse(&args.run_id)?;
    let mut seen = std::collections::HashSet::new();
    loop {
        let tl = hwf.timeline(id.as_str())?;
        for r in tl["rows"].as_array().into_iter().flatten() {
            if !shown(r, args.calls) || !seen.insert(row_key(r)) {
                continue;
            }
            // A call is printed once it ended (while following: when it
            // ends); a running one shows later.
            if r["row"] == "call" && r["state"] == "running" && args.follow {
                seen.remove(&row_key(r));
                continue;
            }
            if args.json {
                super::output::say(&r.to_string());
            } else {
                super::output::say(&row_text(r));
            }
        }
        if !args.follow {
            return Ok(0);
        }
        let snap = hwf.store().read_snapshot(&id)?;
        if snap.state.is_terminal() {
            return Ok(super::exit_code(snap.state));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// `hwf status RUN --watch`: redraw the status on a terminal at each
/// change (printed once more each change when not a terminal) until the
/// run ends; while it waits, what it waits for and how to answer.
pub async fn watch(cli: &Cli, config: &Config, run_id: &str, out: &Out) -> Result<i32, Error> {
    use std::io::IsTerminal;
    let hwf = open_host(cli, config, None, config.limits.clone())?;
    let id = RunId::parse(run_id)?;
    let tty = std::io::stdout().is_terminal() && !out.is_json();
    let mut last = String::new();
    loop {
        let status = hwf.status(id.as_str())?.to_json();
        let key = format!(
            "{}|{}|{}|{}",
            status["state"], status["phase"], status["progress"], status["counts"]
        );
        if key != last {
            if tty {
                print!("\x1b[2J\x1b[H");
            }
            out.status(&status);
            last = key;
            if status["state"] == "waiting" && !out.is_json() {
                print_run_waits(&hwf, run_id, &ops::Continuer::of(cli, config));
            }
        }
        match status["state"].as_str().unwrap_or("") {
            "succeeded" => return Ok(0),
            "failed" | "stopped" | "cancelled" => return Ok(1),
            _ => {}
        }
        tokio::time::sleep(POLL).await;
    }
}

/// `hwf serve`.
pub async fn serve(cli: &Cli, config: &Config, args: &ServeArgs) -> Result<i32, Error> {
    let hwf = open_host(cli, config, args.agents.as_ref(), config.limits.clone())?;
    let cfg = hwf_host::serve::ServeConfig {
        bind: args.bind,
        port: args.port,
        token: args.token.clone(),
        concurrency: config.runner.concurrency(args.concurrency)?,
    };
    if cfg.token.as_deref().is_some_and(str::is_empty) {
        return Err(Error::new(ErrorCode::InvalidArgs, "--token is empty"));
    }
    hwf_host::serve::serve(hwf, super::ops::facade_options(cli, config), cfg).await?;
    Ok(0)
}
