//! A randomized durability test (issue 10).
//!
//! Each case generates a random call tree for the probe's `program` op —
//! fixture agents with small delays, `bash` calls that append a unique tag
//! to a file outside the state dir, approval-gated `bash`, `human.ask`,
//! `events.wait`, `timer.sleep`, `seq`, `par` (branch instances), `pipe`
//! (pipeline stages), `try`, `log` and one level of nested `workflow` (the
//! probe saved as a script) — and drives it through the real `hwf` binary: `hwf run` killed
//! with `kill -9` at a random, event-driven point (after N fixture log
//! lines, N effects, N started or completed calls), continued by
//! `hwf runner --once` (itself sometimes killed) until it ends, with random
//! operator controls (`pause`/`resume`, `decide` approve/edit/respond,
//! `retry`, `events send`), then replayed with `hwf run --resume-from` and
//! an empty fixture (no live agent backend).
//!
//! Invariants checked after every process and at the end of every case:
//!
//! - `exactly_once`: a completed agent or capability call executed exactly
//!   once (counted in `$HWF_FIXTURE_LOG` and the effects file), plus at most
//!   once more per interruption (kill, cancellation) that caught it in
//!   flight, plus once per `retry` control — which is consumed once;
//! - `gated`: an approval-gated call never runs before its approval;
//! - `seq`: the journal's `seq` is `1..=n`, gap-free and strictly
//!   increasing across continuations;
//! - `budget`: live agent executions never exceed `--max-agent-calls` over
//!   the whole run, and the run's `counts` cover the whole run;
//! - `parks`: a wait at any depth parks the run (`waiting`, exit code 3),
//!   never `succeeded` with an undecided wait in its journal;
//! - `result`: the result has the shape the tree implies (every slot `ok`,
//!   agent outputs and answers exact);
//! - `replay`: `--resume-from` with no backend reproduces the result
//!   exactly, runs no capability live, and inherits the seed and clock
//!   origin journaled in `run_started`.
//!
//! `HWF_CHAOS_SEED` (a u64) fixes the seed, else it comes from the time; it
//! is printed at the start and in every violation. `HWF_CHAOS_CASES` sets
//! the number of cases (default 200), `HWF_CHAOS_THREADS` how many run at
//! once (default 3), `HWF_CHAOS_ONLY` runs a single case index (to
//! reproduce one; kill points are event-driven, so a case that failed by
//! timing may need a few runs). The report (cases, kills, continuations,
//! replays, waits, checks) is printed at the end (`-- --nocapture` to see it
//! on success); each failing case's journals, controls, operator commands,
//! execution logs and process output are written to
//! `target/chaos-failures/seed-<seed>-case-<i>.txt` (`HWF_CHAOS_VERBOSE`
//! writes every case's).
//!
//! One file on purpose (longer than most): the generator, the driver and
//! the checks are one test, read top to bottom in marked sections (PRNG,
//! trees, the run's files, the report, one case, the test).

use crate::common::{Ctx, harnesses};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The run id of every case (each case has its own state dir).
const RUN: &str = "r";
/// The run id of the final `--resume-from` replay.
const REPLAY: &str = "rr";
/// Longest one `hwf` process may take before it counts as hung.
const PROCESS_DEADLINE: Duration = Duration::from_secs(60);
/// Longest one case may take.
const CASE_DEADLINE: Duration = Duration::from_secs(150);
/// Most kills per case (each one costs a continuation; three executors
/// dying in a row quarantine a run as `crash_loop`).
const MAX_KILLS: u32 = 2;

// ---------------------------------------------------------------- PRNG --

/// splitmix64: small, fast, and good enough to pick trees.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

fn case_seed(master: u64, index: u64) -> u64 {
    Rng(master ^ index.wrapping_mul(0xA24B_AED4_963E_E407)).next()
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

// ----------------------------------------------------------- the trees --

/// What a generated node must produce.
#[derive(Debug, Clone)]
enum Expect {
    /// This exact value (agent outputs, timers, logs).
    Exact(Value),
    /// A `bash` result that exited 0.
    Bash,
    /// A `human.ask` result carrying this answer.
    Answer(Value),
    /// An `events.wait` result: the event with this id.
    Event(String),
    /// An array, element by element (`seq`, `par`, `pipe`).
    List(Vec<Expect>),
    /// `{"ok": …}` (a slot or a `try`).
    Ok(Box<Expect>),
}

/// A generated case: the tree, the fixture it needs, what it must produce.
#[derive(Debug, Default)]
struct Plan {
    program: Value,
    expect: Option<Expect>,
    rules: Vec<Value>,
    agents: u64,
    /// Tokens the agent calls spend, all together.
    tokens: u64,
    /// Every `bash` tag.
    tags: Vec<String>,
    /// Pre-approved `bash` calls' approval ids: plain ids, each approving
    /// the first request that presents it in the run (a binding a
    /// continuation re-derives from the journal).
    approval_ids: Vec<String>,
    /// Gated `bash` calls: label → tag.
    gated: BTreeMap<String, String>,
    /// `human.ask` prompts → the answer to give.
    answers: BTreeMap<String, Value>,
    timers: u64,
    events: u64,
    nested: bool,
    concurrent: bool,
}

struct Gen<'a> {
    rng: &'a mut Rng,
    plan: Plan,
    leaves: u64,
    effects: String,
    sequential: bool,
    next_id: u64,
}

impl Gen<'_> {
    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn node(&mut self, depth: u32, in_workflow: bool) -> (Value, Expect) {
        if depth == 0 || (depth < 4 && self.leaves > 1 && self.rng.chance(55)) {
            let kinds: &[&str] = if self.sequential {
                &["seq", "seq", "try", "workflow"]
            } else {
                &["seq", "par", "par", "pipe", "try", "workflow"]
            };
            let kind = kinds[self.rng.below(kinds.len() as u64) as usize];
            return match kind {
                "workflow" if !in_workflow => {
                    self.plan.nested = true;
                    let (p, e) = self.node(depth + 1, true);
                    (json!({"workflow": "probe", "args": {"op": "program", "program": p}}), e)
                }
                "par" => {
                    self.plan.concurrent = true;
                    let (ps, es) = self.children(depth, in_workflow);
                    let es = es.into_iter().map(|e| Expect::Ok(Box::new(e))).collect();
                    (json!({"par": ps}), Expect::List(es))
                }
                "pipe" => {
                    self.plan.concurrent = true;
                    let items = self.rng.range(1, 2);
                    let stages = self.rng.range(1, 2);
                    let mut ps = Vec::new();
                    let mut es = Vec::new();
                    for _ in 0..items {
                        let mut nodes = Vec::new();
                        let mut last = Expect::Exact(Value::Null);
                        for _ in 0..stages {
                            let (p, e) = self.node(depth + 1, in_workflow);
                            nodes.push(p);
                            last = e;
                        }
                        ps.push(json!({"stages": nodes}));
                        es.push(Expect::Ok(Box::new(last)));
                    }
                    (json!({"pipe": ps}), Expect::List(es))
                }
                "try" => {
                    let (p, e) = self.node(depth + 1, in_workflow);
                    (json!({"try": p}), Expect::Ok(Box::new(e)))
                }
                _ => {
                    let (ps, es) = self.children(depth, in_workflow);
                    (json!({"seq": ps}), Expect::List(es))
                }
            };
        }
        self.leaf()
    }

    fn children(&mut self, depth: u32, in_workflow: bool) -> (Vec<Value>, Vec<Expect>) {
        let n = self.rng.range(1, self.leaves.clamp(1, 3));
        (0..n).map(|_| self.node(depth + 1, in_workflow)).unzip()
    }

    fn leaf(&mut self) -> (Value, Expect) {
        self.leaves = self.leaves.saturating_sub(1);
        let k = self.id();
        let roll = self.rng.below(100);
        if roll < 40 {
            let label = format!("a{k}");
            let output = json!({"v": k, "label": label});
            let tokens = self.rng.range(1, 9);
            self.plan.rules.push(json!({
                "match": {"label": label},
                "output": output,
                "delay_ms": self.rng.range(2, 40),
                "tokens": tokens,
            }));
            self.plan.agents += 1;
            self.plan.tokens += tokens;
            (json!({"agent": label}), Expect::Exact(output))
        } else if roll < 55 {
            let tag = format!("t{k}");
            self.plan.tags.push(tag.clone());
            self.plan.approval_ids.push(format!("pre-{tag}"));
            let input = json!({"argv": ["sh", "-c", format!("echo {tag} >> {}", self.effects)]});
            (
                json!({"cap": {"name": "bash", "input": input, "label": format!("b{k}"), "approval_id": format!("pre-{tag}")}}),
                Expect::Bash,
            )
        } else if roll < 65 {
            let tag = format!("t{k}");
            let label = format!("g{k}");
            self.plan.tags.push(tag.clone());
            self.plan.gated.insert(label.clone(), tag.clone());
            let input = json!({"argv": ["sh", "-c", format!("echo {tag} >> {}", self.effects)]});
            (
                json!({"cap": {"name": "bash", "input": input, "label": label}}),
                Expect::Bash,
            )
        } else if roll < 77 {
            let prompt = format!("q{k}");
            let answer = json!({"n": self.rng.below(1000)});
            self.plan.answers.insert(prompt.clone(), answer.clone());
            (
                json!({"cap": {"name": "human.ask", "input": {"prompt": prompt}}}),
                Expect::Answer(answer),
            )
        } else if roll < 82 {
            let kind = format!("e{k}");
            self.plan.events += 1;
            (
                json!({"cap": {"name": "events.wait", "input": {"source": "chaos", "type": kind}}}),
                Expect::Event(kind),
            )
        } else if roll < 91 {
            let ms = self.rng.range(20, 120);
            self.plan.timers += 1;
            (
                json!({"cap": {"name": "timer.sleep", "input": {"ms": ms}}}),
                Expect::Exact(json!({"slept_ms": ms})),
            )
        } else {
            (json!({"log": format!("l{k}")}), Expect::Exact(Value::Null))
        }
    }
}

fn generate(rng: &mut Rng, effects: &Path, sequential: bool) -> Plan {
    let leaves = rng.range(3, 12);
    let mut g = Gen {
        rng,
        plan: Plan::default(),
        leaves,
        effects: effects.display().to_string(),
        sequential,
        next_id: 0,
    };
    let (program, expect) = g.node(0, false);
    let mut plan = g.plan;
    plan.program = program;
    plan.expect = Some(expect);
    plan
}

fn clip(v: &impl std::fmt::Display) -> String {
    let s = v.to_string();
    if s.len() <= 400 {
        return s;
    }
    let mut end = 400;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// Whether `got` has the shape `e` implies.
fn shape(e: &Expect, got: &Value, path: &str) -> Result<(), String> {
    let bad = |what: String| Err(format!("at {path}: expected {what}, got {}", clip(got)));
    match e {
        Expect::Exact(v) if got == v => Ok(()),
        Expect::Exact(v) => bad(v.to_string()),
        Expect::Bash if got.get("exit_code") == Some(&json!(0)) => Ok(()),
        Expect::Bash => bad("a bash result with exit_code 0".into()),
        Expect::Answer(a) if got.get("answer") == Some(a) => Ok(()),
        Expect::Answer(a) => bad(format!("an answer {a}")),
        Expect::Event(id) if got.get("id").and_then(Value::as_str) == Some(id) => Ok(()),
        Expect::Event(id) => bad(format!("the event {id:?}")),
        Expect::List(items) => match got.as_array() {
            Some(arr) if arr.len() == items.len() => {
                for (i, (e, g)) in items.iter().zip(arr).enumerate() {
                    shape(e, g, &format!("{path}/{i}"))?;
                }
                Ok(())
            }
            _ => bad(format!("an array of {}", items.len())),
        },
        Expect::Ok(inner) => match got.get("ok") {
            Some(v) => shape(inner, v, &format!("{path}/ok")),
            None => bad("{\"ok\": …}".into()),
        },
    }
}

// ------------------------------------------------------ the run's files --

/// A journal read leniently: a torn last line (a kill mid-write) is left
/// out; any other unreadable line is reported.
struct Journal {
    events: Vec<Value>,
    unreadable: Vec<String>,
}

fn read_journal(ctx: &Ctx, run: &str) -> Journal {
    let path = ctx.state().join("runs").join(run).join("journal.jsonl");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut events = Vec::new();
    let mut unreadable = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str::<Value>(line) {
            Ok(v) => events.push(v),
            Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => {}
            Err(e) => unreadable.push(format!("line {}: {e}: {}", i + 1, clip(line))),
        }
    }
    Journal { events, unreadable }
}

fn ty(e: &Value) -> &str {
    e.get("type").and_then(Value::as_str).unwrap_or("")
}

fn call_of(e: &Value) -> &str {
    e.get("call").and_then(Value::as_str).unwrap_or("")
}

/// Lines of a counting file, by their first word.
fn count_lines(path: &Path) -> HashMap<String, u64> {
    let mut counts = HashMap::new();
    for line in std::fs::read_to_string(path).unwrap_or_default().lines() {
        if let Some(key) = line.split_whitespace().next() {
            *counts.entry(key.to_owned()).or_default() += 1;
        }
    }
    counts
}

/// The tag a `bash` request appends (`echo <tag> >> file`).
fn tag_of(request: &Value) -> Option<String> {
    request
        .pointer("/input/argv/2")
        .and_then(Value::as_str)
        .and_then(|s| s.split_whitespace().nth(1))
        .map(str::to_owned)
}

/// Event counts a kill or pause trigger watches.
#[derive(Debug, Clone, Copy, Default)]
struct Progress {
    agent_lines: u64,
    effects: u64,
    started: u64,
    completed: u64,
}

fn progress(ctx: &Ctx, files: &Files, run: &str) -> Progress {
    let lines = |p: &Path| {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count() as u64
    };
    let journal = std::fs::read_to_string(ctx.state().join("runs").join(run).join("journal.jsonl")).unwrap_or_default();
    Progress {
        agent_lines: lines(&files.calls_log),
        effects: lines(&files.effects),
        started: journal.matches("\"call_started\"").count() as u64,
        completed: journal.matches("\"call_completed\"").count() as u64,
    }
}

/// When to kill a process (or send a pause), counted from its start.
#[derive(Debug, Clone, Copy)]
enum Trigger {
    AgentLines(u64),
    Effects(u64),
    Started(u64),
    Completed(u64),
}

impl Trigger {
    fn random(rng: &mut Rng, plan: &Plan) -> Self {
        match rng.below(4) {
            0 if plan.agents > 0 => Trigger::AgentLines(rng.range(1, plan.agents)),
            1 if !plan.tags.is_empty() => Trigger::Effects(rng.range(1, plan.tags.len() as u64)),
            2 => Trigger::Completed(rng.range(1, 3)),
            _ => Trigger::Started(rng.range(1, 3)),
        }
    }

    fn fired(self, base: Progress, now: Progress) -> bool {
        match self {
            Trigger::AgentLines(n) => now.agent_lines >= base.agent_lines + n,
            Trigger::Effects(n) => now.effects >= base.effects + n,
            Trigger::Started(n) => now.started >= base.started + n,
            Trigger::Completed(n) => now.completed >= base.completed + n,
        }
    }
}

struct Files {
    calls_log: PathBuf,
    effects: PathBuf,
    fixture: PathBuf,
    empty: PathBuf,
    ws: PathBuf,
}

/// How a supervised process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    Exited(i32),
    Killed,
    Hung,
}

// --------------------------------------------------------- the report --

#[derive(Debug, Default)]
struct Tally {
    cases: u64,
    succeeded: u64,
    failed_runs: u64,
    kills_run: u64,
    kills_runner: u64,
    kills_replay: u64,
    continuations: u64,
    replays: u64,
    waits: BTreeMap<String, u64>,
    parked: u64,
    decisions: u64,
    pauses: u64,
    retries: u64,
    checks: u64,
    processes: u64,
    tight: u64,
    exact: u64,
    nested: u64,
    concurrent: u64,
    /// Waits seen below the root instance (call ids `n.…`).
    deep_waits: u64,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.cases += o.cases;
        self.succeeded += o.succeeded;
        self.failed_runs += o.failed_runs;
        self.kills_run += o.kills_run;
        self.kills_runner += o.kills_runner;
        self.kills_replay += o.kills_replay;
        self.continuations += o.continuations;
        self.replays += o.replays;
        for (k, v) in &o.waits {
            *self.waits.entry(k.clone()).or_default() += v;
        }
        self.parked += o.parked;
        self.decisions += o.decisions;
        self.pauses += o.pauses;
        self.retries += o.retries;
        self.checks += o.checks;
        self.processes += o.processes;
        self.tight += o.tight;
        self.exact += o.exact;
        self.nested += o.nested;
        self.concurrent += o.concurrent;
        self.deep_waits += o.deep_waits;
    }
}

// ------------------------------------------------------------ one case --

struct Case {
    master: u64,
    index: u64,
    seed: u64,
    rng: Rng,
    ctx: Ctx,
    files: Files,
    plan: Plan,
    tight: bool,
    exact: bool,
    budget: u64,
    flags: Vec<String>,
    tally: Tally,
    violations: Vec<String>,
    /// Interruptions (kills, cancellations) that caught a call in flight.
    slack: HashMap<String, u64>,
    /// `retry` controls per call.
    retried: HashMap<String, u64>,
    /// Gated labels approved (or edited) so far.
    approved: BTreeSet<String>,
    decided: BTreeSet<String>,
    /// Event types sent.
    sent: BTreeSet<String>,
    pause_pending: bool,
    kills: u32,
    /// Spawned processes' output files (`<name>.out`, `<name>.err`).
    outputs: Vec<String>,
    /// Operator commands and how they ended, in order.
    ops: Vec<String>,
    /// The run whose journal kill and pause triggers count.
    watch: &'static str,
    started: Instant,
}

impl Case {
    fn new(master: u64, index: u64) -> Self {
        let seed = case_seed(master, index);
        let mut rng = Rng(seed);
        // The test drives every runner itself (and kills some).
        let ctx = Ctx::manual_runner();
        let files = Files {
            calls_log: ctx.path("calls.log"),
            // Inside the workspace: bash writes nowhere else.
            effects: ctx.path("ws").join("effects.log"),
            fixture: ctx.path("fixture.json"),
            empty: ctx.path("empty.json"),
            ws: ctx.path("ws"),
        };
        std::fs::create_dir_all(&files.ws).expect("workspace");
        let mut tight = rng.chance(20);
        let mut plan = generate(&mut rng, &files.effects, tight);
        if tight && plan.agents < 2 {
            tight = false;
        }
        let exact = !tight && rng.chance(30);
        let budget = if tight {
            rng.range(1, plan.agents - 1)
        } else if exact {
            plan.agents
        } else {
            plan.agents + 2
        };
        let rules = std::mem::take(&mut plan.rules);
        std::fs::write(&files.fixture, json!({"responses": rules}).to_string()).expect("fixture");
        std::fs::write(&files.empty, r#"{"responses": []}"#).expect("empty fixture");
        let s = |p: &Path| p.display().to_string();
        let mut flags = vec![
            "--allow-class".into(),
            "external_write".into(),
            "--workspace".into(),
            s(&files.ws),
            "--max-agent-calls".into(),
            budget.to_string(),
        ];
        for id in &plan.approval_ids {
            flags.push("--approval-id".into());
            flags.push(id.clone());
        }
        // An exact case gets exactly the tokens its calls spend, too.
        if exact {
            flags.push("--max-tokens".into());
            flags.push(plan.tokens.to_string());
        }
        let tally = Tally {
            cases: 1,
            tight: u64::from(tight),
            exact: u64::from(exact),
            nested: u64::from(plan.nested),
            concurrent: u64::from(plan.concurrent),
            ..Tally::default()
        };
        Case {
            master,
            index,
            seed,
            rng,
            ctx,
            files,
            plan,
            tight,
            exact,
            budget,
            flags,
            tally,
            violations: Vec::new(),
            slack: HashMap::new(),
            retried: HashMap::new(),
            approved: BTreeSet::new(),
            decided: BTreeSet::new(),
            sent: BTreeSet::new(),
            pause_pending: false,
            kills: 0,
            outputs: Vec::new(),
            ops: Vec::new(),
            watch: RUN,
            started: Instant::now(),
        }
    }

    /// Record one invariant check.
    fn check(&mut self, ok: bool, invariant: &str, detail: impl FnOnce() -> String) {
        self.tally.checks += 1;
        if !ok {
            self.violations.push(format!(
                "HWF_CHAOS_SEED={} HWF_CHAOS_ONLY={} (case seed {:#x}, {} budget {}): invariant `{invariant}` failed: {}\n    program: {}",
                self.master,
                self.index,
                self.seed,
                if self.tight { "tight" } else if self.exact { "exact" } else { "loose" },
                self.budget,
                detail(),
                self.plan.program,
            ));
        }
    }

    fn status(&mut self, run: &str) -> Value {
        let out = self.ctx.hwf(["status", run, "--json"]);
        self.tally.processes += 1;
        if out.code != 0 {
            self.check(false, "status", || format!("hwf status {run} failed: {out:?}"));
            return Value::Null;
        }
        out.json()["data"].clone()
    }

    fn control(&mut self, args: &[&str]) -> i32 {
        let mut a = vec!["control"];
        a.extend_from_slice(args);
        self.tally.processes += 1;
        let out = self.ctx.hwf(&a);
        self.ops.push(format!(
            "hwf {} -> {}: {}{}",
            a.join(" "),
            out.code,
            out.stdout.trim(),
            out.stderr.trim()
        ));
        out.code
    }

    /// Run a spawned process to its end, killing it when `kill` fires and
    /// sending a pause when `pause` fires.
    fn supervise(&mut self, mut child: Child, kill: Option<Trigger>, mut pause: Option<Trigger>) -> Ended {
        self.tally.processes += 1;
        let base = progress(&self.ctx, &self.files, self.watch);
        let t = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Ended::Exited(status.code().unwrap_or(-1)),
                Ok(None) => {}
                Err(e) => panic!("wait on hwf: {e}"),
            }
            let now = progress(&self.ctx, &self.files, self.watch);
            if let Some(p) = pause
                && p.fired(base, now)
            {
                pause = None;
                self.tally.pauses += 1;
                if self.control(&["pause", RUN, "--reason", "chaos"]) == 0 {
                    self.pause_pending = true;
                }
            }
            if let Some(k) = kill
                && k.fired(base, now)
            {
                let _ = child.kill();
                let _ = child.wait();
                self.kills += 1;
                self.ops.push(format!(
                    "kill -9 {} ({k:?} fired)",
                    self.outputs.last().map_or("", String::as_str)
                ));
                return Ended::Killed;
            }
            if t.elapsed() > PROCESS_DEADLINE {
                let _ = child.kill();
                let _ = child.wait();
                return Ended::Hung;
            }
            std::thread::sleep(Duration::from_millis(4));
        }
    }

    /// Spawn `hwf args…`; its stdout and stderr go to numbered files the
    /// dump of a failing case shows.
    fn spawn(&mut self, args: &[String], what: &str) -> Child {
        let name = format!("p{:02}-{what}", self.outputs.len());
        let stdout = std::fs::File::create(self.ctx.path(&format!("{name}.out"))).expect("stdout file");
        let stderr = std::fs::File::create(self.ctx.path(&format!("{name}.err"))).expect("stderr file");
        self.outputs.push(name);
        self.ctx
            .cmd()
            .env("HWF_FIXTURE_LOG", &self.files.calls_log)
            .args(args)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .expect("spawn hwf")
    }

    fn maybe_kill(&mut self) -> Option<Trigger> {
        (!self.exact && self.kills < MAX_KILLS && self.rng.chance(50))
            .then(|| Trigger::random(&mut self.rng, &self.plan))
    }

    fn maybe_pause(&mut self) -> Option<Trigger> {
        self.rng.chance(12).then(|| Trigger::Started(self.rng.range(1, 2)))
    }

    /// Checks after each process of the run ended.
    fn boundary(&mut self, what: &str, ended: Ended) -> Value {
        if ended == Ended::Hung {
            self.check(false, "progress", || {
                format!("{what} did not end within {PROCESS_DEADLINE:?}")
            });
        }
        let j = read_journal(&self.ctx, RUN);
        let unreadable = j.unreadable.clone();
        self.check(unreadable.is_empty(), "journal", || {
            format!("after {what}: unreadable journal lines: {unreadable:?}")
        });
        self.check_seq(&j.events, &format!("after {what}"));
        // Calls this process left in flight (started, never completed) or
        // cancelled may run once more.
        let segment_start = j.events.iter().rposition(|e| ty(e) == "run_started").unwrap_or(0);
        let mut open: BTreeSet<String> = BTreeSet::new();
        for e in &j.events[segment_start..] {
            let kind = e.get("kind").and_then(Value::as_str).unwrap_or("");
            if !matches!(kind, "agent" | "capability") {
                continue;
            }
            match ty(e) {
                "call_started" => {
                    open.insert(call_of(e).to_owned());
                }
                "call_completed" => {
                    open.remove(call_of(e));
                    if e.pointer("/error/kind").and_then(Value::as_str) == Some("cancelled") {
                        *self.slack.entry(call_of(e).to_owned()).or_default() += 1;
                    }
                }
                _ => {}
            }
        }
        // A call that parked the run is not in flight: it never ran.
        for e in &j.events[segment_start..] {
            if ty(e) == "wait_started" {
                open.remove(call_of(e));
            }
        }
        for call in open {
            *self.slack.entry(call).or_default() += 1;
        }
        let status = self.status(RUN);
        let state = status["state"].as_str().unwrap_or("").to_owned();
        self.ops
            .push(format!("after {what} ({ended:?}): {state}, waits {}", status["waits"]));
        // Waits this process started and left open: they must park it.
        let open_waits = open_waits(&j.events[segment_start..]);
        if let Ended::Exited(code) = ended {
            if !open_waits.is_empty() {
                self.check(state == "waiting", "parks", || {
                    format!(
                        "after {what}: calls {open_waits:?} wait (wait_started, never completed) but the run is {state:?}: {}",
                        clip(&status["result"])
                    )
                });
            }
            if what == "hwf run" {
                let want = match state.as_str() {
                    "succeeded" => 0,
                    "waiting" => 3,
                    _ => 1,
                };
                self.check(code == want, "exit_code", || {
                    format!("hwf run exited {code} for a run that is {state:?}")
                });
            }
            if state == "waiting" {
                self.tally.parked += 1;
                // Every open wait is listed (several branches may wait at once).
                let listed: BTreeSet<&str> = status["waits"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|w| w["call"].as_str())
                    .collect();
                let missing: Vec<&String> = open_waits.iter().filter(|c| !listed.contains(c.as_str())).collect();
                self.check(missing.is_empty(), "parks", || {
                    format!("after {what}: waits {missing:?} are open in the journal but not listed in status")
                });
            }
        }
        // Nothing gated ran before its approval.
        let effects = count_lines(&self.files.effects);
        let early: Vec<String> = self
            .plan
            .gated
            .iter()
            .filter(|(label, tag)| !self.approved.contains(*label) && effects.contains_key(*tag))
            .map(|(label, _)| label.clone())
            .collect();
        self.check(early.is_empty(), "gated", || {
            format!("after {what}: gated calls {early:?} ran before any approval")
        });
        self.check_budget(&status, what);
        status
    }

    fn check_seq(&mut self, events: &[Value], when: &str) {
        let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap_or(0)).collect();
        let bad = seqs.iter().enumerate().find(|(i, s)| **s != *i as u64 + 1);
        self.check(bad.is_none(), "seq", || {
            let (i, s) = bad.map(|(i, s)| (i, *s)).unwrap_or_default();
            format!(
                "{when}: journal line {} has seq {s} (expected {}); seqs {}",
                i + 1,
                i + 1,
                clip(&format!("{seqs:?}"))
            )
        });
    }

    fn check_budget(&mut self, status: &Value, when: &str) {
        let executed: BTreeSet<String> = count_lines(&self.files.calls_log).into_keys().collect();
        let budget = self.budget;
        let n = executed.len() as u64;
        self.check(n <= budget, "budget", || {
            format!("{when}: {n} distinct agent calls executed live with --max-agent-calls {budget}: {executed:?}")
        });
        let counted = status["counts"]["agent_calls"].as_u64().unwrap_or(0);
        self.check(counted <= budget, "budget", || {
            format!("{when}: counts.agent_calls is {counted} with --max-agent-calls {budget}")
        });
        if self.exact {
            let (spent, max) = (status["counts"]["tokens"].as_u64().unwrap_or(0), self.plan.tokens);
            self.check(spent <= max, "budget", || {
                format!("{when}: counts.tokens is {spent} with --max-tokens {max}")
            });
        }
    }

    /// Answer the run's waits; false when nothing can make it progress.
    fn answer_waits(&mut self, status: &Value) -> bool {
        let waits = status["waits"].as_array().cloned().unwrap_or_default();
        let mut progressed = false;
        if self.pause_pending {
            self.pause_pending = false;
            self.control(&["resume", RUN]);
            progressed = true;
        }
        let mut undecided = Vec::new();
        let mut wake = None::<u64>;
        let mut resumed = progressed;
        for w in &waits {
            let kind = w["kind"].as_str().unwrap_or("").to_owned();
            *self.tally.waits.entry(kind.clone()).or_default() += 1;
            let call = w["call"].as_str().unwrap_or("").to_owned();
            if call.contains('.') {
                self.tally.deep_waits += 1;
            }
            match kind.as_str() {
                "pause" if !resumed => {
                    resumed = true;
                    self.control(&["resume", RUN]);
                    progressed = true;
                }
                "pause" => {}
                "event" => {
                    let kind = w
                        .pointer("/detail/type")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned();
                    if self.sent.insert(kind.clone()) {
                        self.tally.processes += 1;
                        let args = ["events", "send", "--source", "chaos", "--type", &kind, "--id", &kind];
                        let out = self.ctx.hwf(args);
                        self.ops.push(format!("hwf {} -> {}", args.join(" "), out.code));
                        self.check(out.code == 0, "events", || format!("hwf events send failed: {out:?}"));
                        self.tally.decisions += 1;
                        progressed = true;
                    }
                }
                "timer" => {
                    let at = w["wake_at_ms"].as_u64().unwrap_or(0);
                    wake = Some(wake.map_or(at, |w: u64| w.min(at)));
                }
                "human" | "approval" if !self.decided.contains(&call) => undecided.push(w.clone()),
                "human" | "approval" => {}
                other => self.check(false, "waits", || format!("unexpected wait kind {other:?}: {w}")),
            }
        }
        // Decide some (at least one) of the open questions and approvals:
        // the rest park the next continuation again.
        let take = if undecided.is_empty() {
            0
        } else {
            self.rng.range(1, undecided.len() as u64) as usize
        };
        for w in undecided.into_iter().take(take) {
            let call = w["call"].as_str().unwrap_or("").to_owned();
            let code = if w["kind"] == "human" {
                let prompt = w.pointer("/detail/prompt").and_then(Value::as_str).unwrap_or("");
                let Some(answer) = self.plan.answers.get(prompt).cloned() else {
                    self.check(false, "waits", || format!("a question the tree never asked: {w}"));
                    continue;
                };
                self.control(&["decide", RUN, &call, "respond", "--value", &answer.to_string()])
            } else {
                let label = w
                    .pointer("/detail/label")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                let Some(tag) = self.plan.gated.get(&label).cloned() else {
                    self.check(false, "waits", || format!("an approval the tree never asked for: {w}"));
                    continue;
                };
                self.approved.insert(label);
                if self.rng.chance(25) {
                    let cmd = format!("echo {tag} edited >> {}", self.files.effects.display());
                    let value = json!({"argv": ["sh", "-c", cmd]}).to_string();
                    self.control(&["decide", RUN, &call, "edit", "--value", &value])
                } else {
                    self.control(&["decide", RUN, &call, "approve", "--reason", "chaos"])
                }
            };
            self.check(code == 0, "decide", || {
                format!("hwf control decide on {call} exited {code}: {w}")
            });
            self.decided.insert(call);
            self.tally.decisions += 1;
            progressed = true;
        }
        if let Some(at) = wake {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64);
            if at > now {
                std::thread::sleep(Duration::from_millis((at - now + 5).min(2_000)));
            }
            progressed = true;
        }
        // Sometimes retry a completed agent call: it must run live once on
        // the next continuation, and never again after.
        if !self.exact && !self.tight && self.retried.is_empty() && self.rng.chance(30) {
            let done: Vec<String> = read_journal(&self.ctx, RUN)
                .events
                .iter()
                .filter(|e| ty(e) == "call_completed" && e["kind"] == "agent" && e["ok"] == true)
                .map(|e| call_of(e).to_owned())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            if !done.is_empty() {
                let call = done[self.rng.below(done.len() as u64) as usize].clone();
                let code = self.control(&["retry", RUN, &call, "--reason", "chaos"]);
                self.check(code == 0, "retry", || format!("hwf control retry {call} exited {code}"));
                *self.retried.entry(call).or_default() += 1;
                self.tally.retries += 1;
            }
        }
        progressed
    }

    fn run(&mut self) {
        if self.plan.nested {
            let out = self.ctx.hwf(["script", "save", "probe", harnesses::PROBE]);
            self.tally.processes += 1;
            if out.code != 0 {
                self.check(false, "setup", || format!("hwf script save probe failed: {out:?}"));
                return;
            }
        }
        let args = json!({"op": "program", "program": self.plan.program}).to_string();
        let mut cmd: Vec<String> = [
            "run",
            harnesses::PROBE,
            "--run-id",
            RUN,
            "--json",
            "--args",
            &args,
            "--agents",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        cmd.push(self.files.fixture.display().to_string());
        cmd.extend(self.flags.iter().cloned());
        let child = self.spawn(&cmd, "run");
        let (kill, pause) = (self.maybe_kill(), self.maybe_pause());
        let ended = self.supervise(child, kill, pause);
        if ended == Ended::Killed {
            self.tally.kills_run += 1;
        }
        let mut status = self.boundary("hwf run", ended);
        let mut last = ended;
        let mut passes = 0u32;
        loop {
            let state = status["state"].as_str().unwrap_or("").to_owned();
            if matches!(state.as_str(), "succeeded" | "failed" | "stopped" | "cancelled") || status.is_null() {
                break;
            }
            if passes >= 40 || self.started.elapsed() > CASE_DEADLINE {
                let waits = status["waits"].clone();
                self.check(false, "progress", || {
                    format!("the run never ended: {state} after {passes} runner passes, waits {waits}")
                });
                break;
            }
            // A runner killed before it continued the run leaves it as it
            // was: run the next one.
            if state == "waiting" && !self.answer_waits(&status) && last != Ended::Killed {
                let waits = status["waits"].clone();
                self.check(false, "progress", || {
                    format!("the run waits on calls already decided (a continuation did not use the decision): {waits}")
                });
                break;
            }
            passes += 1;
            self.tally.continuations += 1;
            let runner: Vec<String> = ["runner", "--once", "--json"].iter().map(|s| (*s).to_owned()).collect();
            let child = self.spawn(&runner, "runner");
            let (kill, pause) = (self.maybe_kill(), self.maybe_pause());
            let ended = self.supervise(child, kill, pause);
            if ended == Ended::Killed {
                self.tally.kills_runner += 1;
            }
            status = self.boundary("hwf runner --once", ended);
            last = ended;
        }
        self.finish(&status);
        if !self.violations.is_empty() || std::env::var_os("HWF_CHAOS_VERBOSE").is_some() {
            self.dump();
        }
    }

    /// Write what a case did to `target/chaos-failures/` (its files are
    /// gone with its temp dir).
    fn dump(&self) {
        let dir = crate::common::root().join("target").join("chaos-failures");
        let _ = std::fs::create_dir_all(&dir);
        let mut out = format!(
            "HWF_CHAOS_SEED={} HWF_CHAOS_ONLY={} ({}, budget {})\nprogram: {}\n\nviolations:\n{}\n",
            self.master,
            self.index,
            if self.tight {
                "tight"
            } else if self.exact {
                "exact"
            } else {
                "loose"
            },
            self.budget,
            self.plan.program,
            self.violations.join("\n"),
        );
        let files = [
            ("fixture log (agent executions)", self.files.calls_log.clone()),
            ("effects (bash executions)", self.files.effects.clone()),
            (
                "controls",
                self.ctx.state().join("runs").join(RUN).join("controls.jsonl"),
            ),
            (
                "journal of the run",
                self.ctx.state().join("runs").join(RUN).join("journal.jsonl"),
            ),
            (
                "journal of the replay",
                self.ctx.state().join("runs").join(REPLAY).join("journal.jsonl"),
            ),
        ];
        for (what, path) in files {
            out.push_str(&format!(
                "\n--- {what}\n{}",
                std::fs::read_to_string(path).unwrap_or_default()
            ));
        }
        out.push_str(&format!("\n--- operator commands\n{}\n", self.ops.join("\n")));
        for name in &self.outputs {
            for ext in ["out", "err"] {
                let text = std::fs::read_to_string(self.ctx.path(&format!("{name}.{ext}"))).unwrap_or_default();
                out.push_str(&format!("\n--- {name}.{ext}\n{text}"));
            }
        }
        let path = dir.join(format!("seed-{}-case-{}.txt", self.master, self.index));
        if std::fs::write(&path, out).is_ok() && std::env::var_os("HWF_CHAOS_VERBOSE").is_some() {
            eprintln!("chaos case {}: {}", self.index, path.display());
        }
    }

    /// End-of-case checks, then the replay.
    fn finish(&mut self, status: &Value) {
        let state = status["state"].as_str().unwrap_or("").to_owned();
        match state.as_str() {
            "succeeded" => self.tally.succeeded += 1,
            _ => self.tally.failed_runs += 1,
        }
        let journal = read_journal(&self.ctx, RUN).events;
        // The run's result.
        if !self.tight {
            let error = status["error"].clone();
            self.check(state == "succeeded", "result", || {
                format!("the run ended {state:?}: {error}")
            });
            if state == "succeeded"
                && let Some(e) = &self.plan.expect
            {
                let r = shape(e, &status["result"], "");
                self.check(r.is_ok(), "result", || r.err().unwrap_or_default());
            }
        }
        // A succeeded run has no undecided wait.
        if state == "succeeded" {
            let open = open_waits(&journal);
            self.check(open.is_empty(), "parks", || {
                format!("the run succeeded with undecided waits {open:?} in its journal")
            });
        }
        // Executions: exactly once, plus slack for interruptions and retries.
        let mut calls: BTreeMap<String, (String, Value)> = BTreeMap::new();
        let mut completed_ok: BTreeSet<String> = BTreeSet::new();
        for e in &journal {
            match ty(e) {
                "call_started" => {
                    let kind = e["kind"].as_str().unwrap_or("").to_owned();
                    calls.insert(call_of(e).to_owned(), (kind, e["request"].clone()));
                }
                "call_completed" if e["ok"] == true => {
                    completed_ok.insert(call_of(e).to_owned());
                }
                _ => {}
            }
        }
        let agent_runs = count_lines(&self.files.calls_log);
        let effects = count_lines(&self.files.effects);
        let mut seen_tags = BTreeSet::new();
        for (call, (kind, request)) in &calls {
            let (ran, what) = match kind.as_str() {
                "agent" => (agent_runs.get(&format!("{RUN}:{call}")).copied().unwrap_or(0), "agent"),
                "capability" if request["name"] == "bash" => {
                    let Some(tag) = tag_of(request) else { continue };
                    seen_tags.insert(tag.clone());
                    (effects.get(&tag).copied().unwrap_or(0), "bash")
                }
                _ => continue,
            };
            let slack = self.slack.get(call).copied().unwrap_or(0);
            let retries = self.retried.get(call).copied().unwrap_or(0);
            let max = 1 + slack + retries;
            let min = if completed_ok.contains(call) { 1 + retries } else { 0 };
            let hint = if retries > 0 && ran < min {
                retry_hint(&journal, call)
            } else {
                String::new()
            };
            self.check(ran <= max && ran >= min, "exactly_once", || {
                format!(
                    "{what} call {call} executed {ran} times; expected {min}..={max} ({slack} interruptions in flight, {retries} retries){hint}"
                )
            });
        }
        if state == "succeeded" && !self.tight {
            let missing: Vec<String> = self
                .plan
                .tags
                .iter()
                .filter(|t| !seen_tags.contains(*t))
                .cloned()
                .collect();
            self.check(missing.is_empty(), "exactly_once", || {
                format!("bash calls {missing:?} never appear in the journal")
            });
            let ran = agent_runs.len() as u64;
            let agents = self.plan.agents;
            self.check(ran == agents, "exactly_once", || {
                format!("{ran} distinct agent calls executed for {agents} agent nodes: {agent_runs:?}")
            });
        }
        self.check_budget(status, "at the end");
        if state == "succeeded" && !self.tight && self.retried.is_empty() {
            let counted = status["counts"]["agent_calls"].as_u64().unwrap_or(0);
            let agents = self.plan.agents;
            let counts = status["counts"].clone();
            self.check(counted == agents, "counts", || {
                format!("counts.agent_calls is {counted} for a run of {agents} agent calls (the whole run, live and replayed): {counts}")
            });
            let spent = status["counts"]["tokens"].as_u64().unwrap_or(0);
            let tokens = self.plan.tokens;
            self.check(spent == tokens, "counts", || {
                format!("counts.tokens is {spent} for a run whose agent calls spend {tokens}: {counts}")
            });
        }
        if matches!(state.as_str(), "succeeded" | "failed") {
            self.replay(status, &journal);
        }
    }

    /// `--resume-from` with no agent backend: the same result, nothing live.
    fn replay(&mut self, source: &Value, source_journal: &[Value]) {
        self.tally.replays += 1;
        let before = std::fs::read_to_string(&self.files.effects).unwrap_or_default();
        let agent_lines = std::fs::read_to_string(&self.files.calls_log).unwrap_or_default();
        let mut cmd: Vec<String> = ["run", "--resume-from", RUN, "--run-id", REPLAY, "--json", "--agents"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        cmd.push(self.files.empty.display().to_string());
        cmd.extend(self.flags.iter().cloned());
        let child = self.spawn(&cmd, "replay");
        // Sometimes kill the replay too: the runner continues it in place.
        self.watch = REPLAY;
        let kill = (!self.exact && self.rng.chance(25)).then(|| Trigger::Started(self.rng.range(1, 4)));
        let ended = self.supervise(child, kill, None);
        let mut replayed = self.status(REPLAY);
        if ended == Ended::Killed {
            self.tally.kills_replay += 1;
            let terminal = |s: &Value| matches!(s["state"].as_str(), Some("succeeded" | "failed"));
            for _ in 0..5 {
                if terminal(&replayed) {
                    break;
                }
                self.tally.continuations += 1;
                let runner: Vec<String> = ["runner", "--once", "--json"].iter().map(|s| (*s).to_owned()).collect();
                let child = self.spawn(&runner, "runner");
                self.supervise(child, None, None);
                replayed = self.status(REPLAY);
            }
        }
        self.watch = RUN;
        let (want_state, got_state) = (source["state"].clone(), replayed["state"].clone());
        self.check(got_state == want_state, "replay", || {
            format!(
                "the replay ended {got_state} ({ended:?}, error {}), the source {want_state}",
                replayed["error"]
            )
        });
        let (want, got) = (source["result"].clone(), replayed["result"].clone());
        self.check(got == want, "replay", || {
            format!(
                "the replay's result differs:\n      source: {}\n      replay: {}",
                clip(&want),
                clip(&got)
            )
        });
        if want_state == "failed" {
            let (want, got) = (source["error"].clone(), replayed["error"].clone());
            self.check(got == want, "replay", || {
                format!("the replay failed with {got}, the source with {want}")
            });
        }
        let after = std::fs::read_to_string(&self.files.effects).unwrap_or_default();
        self.check(after == before, "replay", || {
            format!(
                "the replay ran capabilities live: effects grew by {:?}",
                after.get(before.len()..).unwrap_or("")
            )
        });
        let lines_after = std::fs::read_to_string(&self.files.calls_log).unwrap_or_default();
        self.check(lines_after == agent_lines, "replay", || {
            "the replay ran agents live".into()
        });
        let j = read_journal(&self.ctx, REPLAY);
        self.check_seq(&j.events, "in the replay");
        let live: Vec<String> = j
            .events
            .iter()
            .filter(|e| ty(e) == "call_completed" && e["kind"] == "agent" && e["ok"] == true)
            .filter(|e| e["replayed"] != true)
            .map(|e| call_of(e).to_owned())
            .collect();
        self.check(live.is_empty(), "replay", || {
            format!("agent calls {live:?} completed live in a replay with no backend")
        });
        // The replay inherits the guest's seed and clock origin.
        let started = |events: &[Value]| {
            events
                .iter()
                .find(|e| ty(e) == "run_started")
                .cloned()
                .unwrap_or_default()
        };
        let (src, rep) = (started(source_journal), started(&j.events));
        let keys: Vec<String> = src
            .as_object()
            .map(|m| {
                m.keys()
                    .filter(|k| k.contains("seed") || k.contains("clock"))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        self.check(keys.iter().any(|k| k.contains("seed")), "replay", || {
            format!("run_started journals no guest seed (a `seed` field): {}", clip(&src))
        });
        self.check(keys.iter().any(|k| k.contains("clock")), "replay", || {
            format!(
                "run_started journals no clock origin (a `clock…` field): {}",
                clip(&src)
            )
        });
        for k in keys {
            let (a, b) = (src[&k].clone(), rep[&k].clone());
            self.check(a == b, "replay", || {
                format!("the replay's run_started {k} is {b}, the source's {a}")
            });
        }
    }
}

/// Why a retried call did not run again: the execution that applied the
/// `retry` (its `control_applied`) ended before it reached the call.
fn retry_hint(journal: &[Value], call: &str) -> String {
    let Some(applied) = journal
        .iter()
        .position(|e| ty(e) == "control_applied" && e["action"] == "retry" && call_of(e) == call)
    else {
        return "; no control_applied for the retry in the journal".into();
    };
    let rest = &journal[applied + 1..];
    let end = rest.iter().position(|e| ty(e) == "run_started").unwrap_or(rest.len());
    let segment = &rest[..end];
    let reached = segment.iter().any(|e| ty(e) == "call_started" && call_of(e) == call);
    let ended = segment
        .iter()
        .find(|e| ty(e) == "run_completed")
        .map_or("was killed".to_owned(), |e| format!("ended {}", e["state"]));
    format!(
        "; the retry was applied (control_applied, seq {}) by an execution that {ended} {} the call, and later executions replayed it",
        journal[applied]["seq"],
        if reached { "after reaching" } else { "before reaching" }
    )
}

/// Calls whose last `wait_started` has no later successful completion.
fn open_waits(events: &[Value]) -> Vec<String> {
    let mut open: BTreeMap<String, bool> = BTreeMap::new();
    for e in events {
        let call = call_of(e);
        match ty(e) {
            "wait_started" if !call.is_empty() => {
                open.insert(call.to_owned(), true);
            }
            "call_completed" if e["ok"] == true => {
                if let Some(o) = open.get_mut(call) {
                    *o = false;
                }
            }
            _ => {}
        }
    }
    open.into_iter().filter(|(_, o)| *o).map(|(c, _)| c).collect()
}

// ------------------------------------------------------------ the test --

#[test]
fn randomized_durability() {
    let master = env_u64("HWF_CHAOS_SEED").unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let cases = env_u64("HWF_CHAOS_CASES").unwrap_or(200).max(1);
    let threads = env_u64("HWF_CHAOS_THREADS").unwrap_or(3).clamp(1, 16);
    let only = env_u64("HWF_CHAOS_ONLY");
    eprintln!("chaos: HWF_CHAOS_SEED={master} cases={cases} threads={threads}");
    let indexes: Vec<u64> = match only {
        Some(i) => vec![i],
        None => (0..cases).collect(),
    };
    let next = AtomicU64::new(0);
    let tally = Mutex::new(Tally::default());
    let violations: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let t = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed) as usize;
                    let Some(&index) = indexes.get(k) else { break };
                    let mut case = Case::new(master, index);
                    case.run();
                    tally.lock().expect("tally").add(&case.tally);
                    violations.lock().expect("violations").append(&mut case.violations);
                }
            });
        }
    });
    let tally = tally.into_inner().expect("tally");
    let violations = violations.into_inner().expect("violations");
    let mut by_invariant: BTreeMap<String, u64> = BTreeMap::new();
    for v in &violations {
        let name = v.split('`').nth(1).unwrap_or("?").to_owned();
        *by_invariant.entry(name).or_default() += 1;
    }
    eprintln!(
        "chaos report: seed {master}, {} cases in {:.1} s ({} tight budget, {} exact budget, {} with par/pipe, {} with a nested \
         workflow; {} runs succeeded, {} other), {} kills of hwf run, {} kills of the runner, {} kills of a replay, {} continuations, {} replays, \
         {} parks (waits seen: {:?}, {} below the root), {} decisions, {} pauses, {} retries, {} hwf processes, \
         {} invariant checks, {} violations {:?}",
        tally.cases,
        t.elapsed().as_secs_f64(),
        tally.tight,
        tally.exact,
        tally.concurrent,
        tally.nested,
        tally.succeeded,
        tally.failed_runs,
        tally.kills_run,
        tally.kills_runner,
        tally.kills_replay,
        tally.continuations,
        tally.replays,
        tally.parked,
        tally.waits,
        tally.deep_waits,
        tally.decisions,
        tally.pauses,
        tally.retries,
        tally.processes,
        tally.checks,
        violations.len(),
        by_invariant,
    );
    assert!(
        violations.is_empty(),
        "chaos: {} invariant violations with HWF_CHAOS_SEED={master} (first 25; each failing case's journals, controls \
         and execution logs are in target/chaos-failures/seed-{master}-case-<i>.txt):\n{}",
        violations.len(),
        violations.iter().take(25).cloned().collect::<Vec<_>>().join("\n")
    );
}
