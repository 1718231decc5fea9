//! Claims the code makes that other tests did not prove, each through the
//! real binary: the WASI lockdown, group commit, `cancel`, the prompt cache
//! and `fresh`, a journal `seq` that cannot advance, and `hwf bench`.
//!
//! Also the helpers other modules use to drive timing-free tests:
//! [`Gates`] (a command agent that answers a label only when the test opens
//! its gate), [`wait_journal`] and [`wait_gone`].

use crate::common::{Ctx, Run, harnesses};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// How long any wait for an event may take before the test fails (generous:
/// only a broken build gets near it, a slow machine does not).
pub const DEADLINE: Duration = Duration::from_secs(60);

/// The run's journal as events (a torn or missing file reads as what parses).
pub fn journal_events(ctx: &Ctx, id: &str) -> Vec<Value> {
    std::fs::read_to_string(ctx.state().join("runs").join(id).join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Poll the run's journal until `what` holds; panics after [`DEADLINE`].
#[track_caller]
pub fn wait_journal(ctx: &Ctx, id: &str, why: &str, what: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let t = Instant::now();
    loop {
        let events = journal_events(ctx, id);
        if what(&events) {
            return events;
        }
        assert!(
            t.elapsed() < DEADLINE,
            "timed out waiting for {why} in run {id}: {events:#?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `text` without ANSI escape sequences (the CLI's log lines are coloured).
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters… final byte in @..~
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether a process is gone (no `/proc` entry, a zombie, or the pid now
/// belongs to something that is not `what`).
pub fn is_gone(pid: u32, what: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    if stat.is_empty() {
        return true;
    }
    // `pid (comm) S …`: the state follows the parenthesised name.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next());
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    state == Some("Z") || !String::from_utf8_lossy(&cmdline).contains(what)
}

/// Wait until `pid` runs `what` (a process just forked shows its parent's
/// command line until it execs); panics after [`DEADLINE`].
#[track_caller]
pub fn wait_running(pid: u32, what: &str) {
    let t = Instant::now();
    while is_gone(pid, what) {
        assert!(t.elapsed() < DEADLINE, "process {pid} never ran {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Wait until [`is_gone`]; panics after [`DEADLINE`].
#[track_caller]
pub fn wait_gone(pid: u32, what: &str) {
    let t = Instant::now();
    while !is_gone(pid, what) {
        assert!(t.elapsed() < DEADLINE, "process {pid} ({what}) is still alive");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Wait until `path` holds a pid; panics after [`DEADLINE`].
#[track_caller]
pub fn wait_pid_file(path: &Path) -> u32 {
    let t = Instant::now();
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|p| p.trim().lines().next().and_then(|l| l.trim().parse().ok()))
        {
            return pid;
        }
        assert!(t.elapsed() < DEADLINE, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A command agent whose answers the test releases: a call labelled `L`
/// appends its pid to `gates/L.started`, waits until `gates/L.go` exists,
/// appends to `gates/L.done` and answers `{"label": L}`. Completion order
/// is then decided by the test, not by timers.
pub struct Gates {
    dir: PathBuf,
    config: PathBuf,
}

const GATE_AGENT: &str = r#"import json, os, sys, time
D = sys.argv[1]
req = json.load(sys.stdin)
label = req["request"].get("label") or "none"
with open(os.path.join(D, label + ".started"), "a") as f:
    f.write("%d\n" % os.getpid())
t = time.time()
while not os.path.exists(os.path.join(D, label + ".go")):
    if time.time() - t > 120:
        sys.exit("gate %s never opened" % label)
    time.sleep(0.003)
with open(os.path.join(D, label + ".done"), "a") as f:
    f.write("%d\n" % os.getpid())
print(json.dumps({"label": label}))
"#;

impl Gates {
    /// Write the agent and an `hwf.toml` routing every agent call to it.
    pub fn new(ctx: &Ctx) -> Self {
        let dir = ctx.path("gates");
        std::fs::create_dir_all(&dir).expect("gates dir");
        let script = ctx.write("gate_agent.py", GATE_AGENT);
        let config = ctx.write(
            "gates.toml",
            format!(
                "[agents.backends.gate]\nkind = \"command\"\nstdin = \"json\"\nargv = [\"python3\", {:?}, {:?}]\n",
                script.display().to_string(),
                dir.display().to_string()
            ),
        );
        Gates { dir, config }
    }

    /// `--config <gates.toml>`.
    pub fn flags(&self) -> [&str; 2] {
        ["--config", self.config.to_str().expect("utf8")]
    }

    /// Let calls labelled `label` answer (now and later).
    pub fn open(&self, label: &str) {
        std::fs::write(self.dir.join(format!("{label}.go")), b"").expect("open gate");
    }

    /// Pids of the calls labelled `label` that started.
    pub fn started(&self, label: &str) -> Vec<u32> {
        pids(&self.dir.join(format!("{label}.started")))
    }

    /// Pids of the calls labelled `label` that answered.
    pub fn done(&self, label: &str) -> Vec<u32> {
        pids(&self.dir.join(format!("{label}.done")))
    }

    /// Wait until `n` calls labelled `label` started; returns their pids.
    #[track_caller]
    pub fn wait_started(&self, label: &str, n: usize) -> Vec<u32> {
        let t = Instant::now();
        loop {
            let p = self.started(label);
            if p.len() >= n {
                return p;
            }
            assert!(t.elapsed() < DEADLINE, "{n} calls labelled {label} never started");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

fn pids(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn probe_args(op: Value) -> String {
    op.to_string()
}

fn data(run: &Run) -> Value {
    run.json()["data"].clone()
}

fn run_id(run: &Run) -> String {
    data(run)["run_id"].as_str().expect("run id").to_owned()
}

#[test]
fn wasi_gives_no_args_env_or_stdin_and_virtual_clocks_and_random_that_replay() {
    let ctx = Ctx::new();
    let fixture = ctx.write(
        "wasi.json",
        r#"{"responses": [{"match": {"label": "wasi"}, "output": {"answered": true}}]}"#,
    );
    let log = ctx.path("calls.log");
    // The host has args, env and a stdin with bytes in it; the guest sees none.
    let mut child = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", &log)
        .env("PROBE_SECRET_ENV", "must-not-reach-the-guest")
        .args([
            "run",
            harnesses::PROBE,
            "--json",
            "--args",
            &probe_args(json!({"op": "wasi"})),
        ])
        .arg("--agents")
        .arg(&fixture)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(b"bytes on the host's stdin\n");
    }
    let first: Run = child.wait_with_output().expect("wait").into();
    first.expect_code(0);
    let d = data(&first);
    let r = &d["result"];
    assert_eq!(r["args"], json!([]), "no args: {r}");
    assert_eq!(r["env"], json!([]), "no env: {r}");
    assert_eq!(r["stdin"], json!({"Ok": 0}), "stdin reads as closed (EOF at once): {r}");
    assert_eq!(r["stdin_bytes"], 0);

    // Clocks: the wall clock starts at the run's creation time and each
    // reading advances it by exactly 1 ms; the monotonic clock steps 1 ms.
    let id = run_id(&first);
    let status = ctx.hwf(["status", &id, "--json"]).json();
    let created = status["data"]["created_at_ms"].as_u64().expect("created_at_ms");
    let wall: Vec<u64> = r["wall_ms"]
        .as_array()
        .expect("wall")
        .iter()
        .map(|v| v.as_u64().expect("ms"))
        .collect();
    assert_eq!(wall, [created + 1, created + 2, created + 3], "virtual wall clock: {r}");
    assert_eq!(r["monotonic_step_ns"], json!([1_000_000, 1_000_000]), "{r}");
    let random = r["random"].as_array().expect("random");
    assert_eq!(random.len(), 2);
    assert_ne!(random[0], random[1]);
    assert_eq!(r["answer"], json!({"answered": true}));

    // A second run gets other random values (seeded by its run id).
    let other = ctx.run_json(
        harnesses::PROBE,
        &probe_args(json!({"op": "wasi"})),
        &["--agents", fixture.to_str().expect("utf8")],
    );
    other.expect_code(0);
    assert_ne!(
        data(&other)["result"]["random"],
        r["random"],
        "random depends on the run"
    );

    // `--resume-from` with no agent backend: the guest sees the source's
    // clock and random values, so the agent prompt built from them matches
    // and replays, and the result is identical bit for bit.
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let again = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", &log)
        .args(["run", "--resume-from", &id, "--json", "--agents"])
        .arg(&empty)
        .output()
        .expect("resume");
    let again: Run = again.into();
    again.expect_code(0);
    let a = data(&again);
    assert_eq!(a["result"], d["result"], "replay sees the same clocks and random");
    assert_eq!(a["counts"]["replayed"], 1, "{a}");
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(
        calls.lines().filter(|l| !l.trim().is_empty()).count(),
        1,
        "only the first run executed the agent: {calls}"
    );
    let replayed: Vec<Value> = journal_events(&ctx, &run_id(&again))
        .into_iter()
        .filter(|e| e["type"] == "call_completed")
        .collect();
    assert_eq!(replayed.len(), 1);
    assert_eq!(replayed[0]["replayed"], true, "{replayed:?}");
}

#[test]
fn concurrent_completions_share_one_fsync() {
    let ctx = Ctx::new();
    let fixture = ctx.write(
        "fan.json",
        r#"{"responses": [{"match": {"label": "slow"}, "output": {"ok": true}, "delay_ms": 100}]}"#,
    );
    const N: usize = 16;
    let out: Run = ctx
        .cmd()
        .env("RUST_LOG", "warn,hwf_host::broker::journal=debug")
        .args(["run", harnesses::PROBE, "--json", "--max-parallel", "16", "--args"])
        .arg(probe_args(json!({"op": "fan_agents", "n": N, "label": "slow"})))
        .arg("--agents")
        .arg(&fixture)
        .output()
        .expect("run")
        .into();
    out.expect_code(0);
    assert_eq!(data(&out)["result"]["ok"], N, "{out:?}");
    let id = run_id(&out);
    // Every agent completion is in the journal and was fsync'd before its
    // result went back (the run succeeded, so each sync_to returned).
    let completions = journal_events(&ctx, &id)
        .iter()
        .filter(|e| e["type"] == "call_completed" && e["kind"] == "agent")
        .count();
    assert_eq!(completions, N);
    let stderr = strip_ansi(&out.stderr);
    let fsyncs: Vec<&str> = stderr.lines().filter(|l| l.contains("journal fsync")).collect();
    eprintln!("{N} concurrent completions: {} group-commit fsyncs", fsyncs.len());
    assert!(!fsyncs.is_empty(), "the syncer made no fsync: {}", out.stderr);
    // 16 completions whose timers fire at once: while one fsync runs, the
    // others are appended and share the next one.
    assert!(
        fsyncs.len() < N,
        "{N} concurrent completions took {} fsyncs (no group commit): {fsyncs:#?}",
        fsyncs.len()
    );
    let covered: u64 = fsyncs
        .iter()
        .filter_map(|l| l.split("lines=").nth(1)?.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    assert!(
        covered >= N as u64,
        "the fsyncs covered {covered} lines, fewer than the {N} completions: {fsyncs:#?}"
    );
}

#[test]
fn cancel_journals_cancelled_and_the_cancelled_agent_never_completes() {
    let ctx = Ctx::new();
    let gates = Gates::new(&ctx);
    let mut flags = vec!["--run-id", "cancel1", "--json", "--args"];
    let args = probe_args(json!({"op": "cancel", "slow": "slow", "quick": "quick", "after": "after"}));
    flags.push(&args);
    flags.extend(gates.flags());
    let child = ctx
        .cmd()
        .args(["run", harnesses::PROBE])
        .args(&flags)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Both agents are running; only then does the quick one answer.
    let slow = gates.wait_started("slow", 1)[0];
    gates.wait_started("quick", 1);
    assert!(!is_gone(slow, "gate_agent"), "the slow agent runs until cancelled");
    gates.open("quick");
    gates.open("after");
    let out: Run = child.wait_with_output().expect("wait").into();
    out.expect_code(0);
    let r = data(&out)["result"].clone();
    assert_eq!(r["first"]["outcome"], json!({"ok": {"label": "quick"}}), "{r}");
    assert_eq!(r["left"], 0);
    assert_eq!(
        r["after"],
        json!({"ok": {"label": "after"}}),
        "the run goes on after a cancel: {r}"
    );

    let j = journal_events(&ctx, "cancel1");
    let slow_call = j
        .iter()
        .find(|e| e["type"] == "call_started" && e["label"] == "slow")
        .and_then(|e| e["call"].as_str())
        .expect("slow call started")
        .to_owned();
    let ends: Vec<&Value> = j
        .iter()
        .filter(|e| e["type"] == "call_completed" && e["call"] == slow_call.as_str())
        .collect();
    assert_eq!(ends.len(), 1, "one completion line for the cancelled call: {ends:?}");
    assert_eq!(ends[0]["ok"], false);
    assert_eq!(ends[0]["error"]["kind"], "cancelled", "{:?}", ends[0]);
    // The agent process was killed, so it can never answer.
    wait_gone(slow, "gate_agent");
    assert!(gates.done("slow").is_empty(), "the cancelled agent completed");
    assert_eq!(gates.done("quick").len(), 1);
    let s = ctx.hwf(["status", "cancel1", "--json"]).json();
    assert_eq!(s["data"]["state"], "succeeded", "{s}");
}

#[test]
fn the_prompt_cache_answers_repeats_and_fresh_always_runs() {
    let ctx = Ctx::new();
    let log = ctx.path("calls.log");
    let fixture = ctx.write(
        "seq.json",
        r#"{"responses": [
          {"match": {"label": "q"}, "sequence": [{"output": {"n": 1}}, {"output": {"n": 2}}, {"output": {"n": 3}}, {"output": {"n": 4}}]},
          {"match": {"agent": "bench.echo"}, "sequence": [{"output": {"e": 1}}, {"output": {"e": 2}}]}
        ]}"#,
    );
    let same = json!({"prompt": "same question", "label": "q"});
    let fresh = json!({"prompt": "same question", "label": "q", "fresh": true});
    let calls = json!([
        same,                                           // live: n 1
        same,                                           // cache hit: n 1
        fresh,                                          // live: n 2
        fresh,                                          // live again (fresh is never cached): n 3
        same,                                           // cache hit: still n 1
        {"prompt": "another question", "label": "q"},   // live (other fingerprint): n 4
        {"agent": "bench.echo", "prompt": "x"},         // registered agents are not cached: e 1
        {"agent": "bench.echo", "prompt": "x"},         // e 2
    ]);
    let out: Run = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", &log)
        .args(["run", harnesses::PROBE, "--json", "--args"])
        .arg(probe_args(json!({"op": "prompts", "calls": calls})))
        .arg("--agents")
        .arg(&fixture)
        .output()
        .expect("run")
        .into();
    out.expect_code(0);
    let d = data(&out);
    let got: Vec<Value> = d["result"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["ok"].clone())
        .collect();
    assert_eq!(
        got,
        [
            json!({"n": 1}),
            json!({"n": 1}),
            json!({"n": 2}),
            json!({"n": 3}),
            json!({"n": 1}),
            json!({"n": 4}),
            json!({"e": 1}),
            json!({"e": 2}),
        ],
        "{d}"
    );
    assert_eq!(d["counts"]["cache_hits"], 2, "{d}");
    let hits: Vec<String> = journal_events(&ctx, &run_id(&out))
        .iter()
        .filter(|e| e["type"] == "call_completed" && e["cache_hit"] == true)
        .map(|e| e["call"].as_str().expect("call").to_owned())
        .collect();
    assert_eq!(hits, ["2", "5"], "calls 2 and 5 came from the cache");
    let executed = std::fs::read_to_string(&log).expect("call log");
    let executed: Vec<&str> = executed.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(executed.len(), 6, "6 live executions, 2 cache hits: {executed:?}");
}

#[test]
fn a_journal_seq_that_cannot_advance_is_a_typed_error() {
    let ctx = Ctx::manual_runner();
    let ask = json!({"op": "cap", "name": "human.ask", "input": {"prompt": "Go on?"}});
    let out = ctx.run_json(harnesses::PROBE, &probe_args(ask), &["--run-id", "seqmax"]);
    out.expect_code(3);
    // Doctor the journal: its last line claims seq u64::MAX.
    let path = ctx.state().join("runs/seqmax/journal.jsonl");
    let text = std::fs::read_to_string(&path).expect("journal");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut last: Value = serde_json::from_str(lines.last().expect("line")).expect("json");
    last["seq"] = json!(u64::MAX);
    *lines.last_mut().expect("line") = last.to_string();
    let doctored = lines.join("\n") + "\n";
    std::fs::write(&path, &doctored).expect("write");
    // Answer the question: the runner continues the run, and its first
    // append fails with a typed error instead of wrapping or panicking.
    ctx.hwf(["control", "decide", "seqmax", "1", "respond", "--value", r#""yes""#])
        .expect_code(0);
    let runner = ctx.hwf(["runner", "--once", "--json"]);
    assert!(!runner.stderr.contains("panicked"), "{runner:#?}");
    runner.expect_code(0);
    let said = format!("{}{}", runner.stdout, runner.stderr);
    assert!(said.contains("corrupt_store"), "{runner:#?}");
    assert!(said.contains("cannot advance"), "{runner:#?}");
    assert_eq!(
        std::fs::read_to_string(&path).expect("journal"),
        doctored,
        "nothing was appended past u64::MAX"
    );
    ctx.hwf(["status", "seqmax", "--json"]).expect_code(0);
}

#[test]
fn bench_quick_reports_every_figure() {
    let ctx = Ctx::new();
    let root = crate::common::root();
    let t = Instant::now();
    let out: Run = ctx
        .cmd()
        .args([
            "bench",
            "--quick",
            "--probe",
            harnesses::PROBE,
            "--hello",
            harnesses::HELLO,
            "--hello-fixture",
        ])
        .arg(root.join("harnesses/hello/fixture.json"))
        .output()
        .expect("bench")
        .into();
    eprintln!("hwf bench --quick took {:?}", t.elapsed());
    out.expect_code(0);
    let d = out.json()["data"].clone();
    assert_eq!(d["quick"], true, "{d}");
    let number = |path: &str| -> f64 {
        let v = d.pointer(path).unwrap_or_else(|| panic!("{path} missing: {d:#}"));
        v.as_f64().unwrap_or_else(|| panic!("{path} is not a number: {v}"))
    };
    for path in [
        "/instantiate_pooled_us/median",
        "/instantiate_pooled_us/p90",
        "/log_round_trip_us",
        "/noop_run_us",
        "/fixture_agent_call_us",
        "/journal_append_us/no_fsync_median",
        "/journal_append_us/fsync_median",
        "/fingerprint_and_redact_us",
        "/hwf_run_hello_warm_ms",
        "/hwf_run_hello_warm_tmpfs_ms",
        "/first_js_run_ms/installed",
        "/first_js_run_ms/empty_cache",
        "/parallel_50_agents_50ms_width8_ms/median",
        "/parallel_50_agents_50ms_width8_ms/ratio",
        "/parallel_50_branches_50ms_width8_ms/median",
        "/parallel_50_branches_50ms_width8_ms/ratio",
        "/fanout_1000_branches_width64/wall_ms",
        "/fanout_1000_branches_width64/peak_rss_mib",
        "/resume_1000_call_run_ms",
        "/javascript/startup_to_first_host_call_ms",
        "/javascript/parallel_16_agents_100ms_ms",
        "/group_commit/fsyncs",
    ] {
        let v = number(path);
        assert!(v.is_finite() && v >= 0.0, "{path} = {v}");
    }
    // Figures that must be positive: a time of zero means nothing ran.
    for path in [
        "/noop_run_us",
        "/hwf_run_hello_warm_ms",
        "/parallel_50_agents_50ms_width8_ms/median",
        "/fanout_1000_branches_width64/wall_ms",
        "/javascript/parallel_16_agents_100ms_ms",
    ] {
        assert!(number(path) > 0.0, "{path} is zero: {d:#}");
    }
    // Work that has a floor: 50 agents of 50 ms at width 8 take ≥ 7 rounds.
    assert!(number("/parallel_50_agents_50ms_width8_ms/median") >= 350.0, "{d:#}");
    assert!(number("/javascript/parallel_16_agents_100ms_ms") >= 100.0, "{d:#}");
    assert_eq!(d["fanout_1000_branches_width64"]["branches"], 100, "quick fan-out size");
    let gc = &d["group_commit"];
    assert_eq!(gc["completions"], 16);
    assert!((1..=16).contains(&gc["fsyncs"].as_u64().expect("fsyncs")), "{gc}");
    assert_eq!(d["hello_component"], harnesses::HELLO);
}
