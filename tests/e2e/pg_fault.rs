//! The multi-runner fault test (issue 16): three `hwf runner` processes
//! share one store and execute 200 queued runs while the test kills one of
//! them with `kill -9` at random, event-driven points (several times,
//! restarting it each time), `SIGSTOP`s another past its lease and then
//! `SIGCONT`s it (its writes must be refused), and restarts the database
//! once mid-run (`pg_ctl restart -m fast`).
//!
//! Every run is the probe's `program` op with three fixture agent calls in
//! order — `a`, `slow` (300 ms, so kills and pauses land mid-call) and `b`.
//! The fixture appends `<run>:<call> <attempt>` to `$HWF_FIXTURE_LOG` on
//! every execution (one `write` per line, so the runners' lines never
//! interleave): that file counts executions exactly.
//!
//! Checked at the end, for every run:
//!
//! - it completed exactly once: the snapshot reads `succeeded`, the journal
//!   has exactly one `run_completed` (its last line, `succeeded`), and the
//!   result is the three agents' outputs;
//! - no journal line was lost: seqs are `1..=n` with no gap, every call has
//!   exactly one `call_completed` (ok), and within one execution (from one
//!   `run_started` to the next) a call starts at most once;
//! - no completed call was re-executed: a call may run once per execution
//!   that began before its completion was journaled (the executions a kill
//!   or a pause interrupted while it was in flight, and the one that
//!   completed it); one more execution than that is a re-executed completed
//!   call, and must be 0. Executions beyond the first are counted as re-run
//!   in-flight calls.
//!
//! Printed: runs, kills, pauses, takeovers (executions beyond each run's
//! first), refused stale writes (the paused runner's `conflict` / fenced
//! refusals on its stderr, and all runners' together), re-run in-flight
//! calls, re-executed completed calls (= 0), the takeover latency after each
//! kill (kill to the next `run_started` of the killed run's journal) and the
//! wall time.
//!
//! Two tests: `postgres_*` on a cluster of its own (started with
//! `scripts/pg-test-cluster.sh`, never the shared `HWF_TEST_POSTGRES`,
//! since the test restarts it; skipped when the PostgreSQL binaries are
//! missing unless `HWF_REQUIRE_CLIENTS=1`), with leases of
//! [`LEASE_MS`]; `file_store_*` on one state dir, where a killed runner's
//! flock is freed at once (and a paused one is never taken over: the
//! pause and the restart only exist on PostgreSQL). `HWF_FAULT_SEED` fixes
//! the seed (printed at the start).
//!
//! A third, `postgres_runners_ride_out_network_blips_over_tls`: two runners
//! reach the database over TCP and TLS through a proxy the test cuts twice
//! (every connection shut down, new ones refused for 1.5 s); every run
//! completes once and no call runs twice.

use crate::common::{Ctx, harnesses, root};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Queued runs (the number: not fewer).
const RUNS: usize = 200;
/// Runner processes.
const RUNNERS: usize = 3;
/// Runs each runner executes at once (`--concurrency`): more than one, so
/// a kill takes several runs down with it and each is taken over, and few
/// enough that the 200 runs spread over the faults.
const SLOTS: &str = "4";
/// The lease of the PostgreSQL runners (`HWF_LEASE_MS`).
const LEASE_MS: u64 = 2_000;
/// The slow agent call's delay.
const SLOW_MS: u64 = 300;
/// Longest the whole workload may take once the runners started.
const DEADLINE: Duration = Duration::from_secs(150);
/// Longest one fault may wait for its moment.
const FAULT_WAIT: Duration = Duration::from_secs(20);
/// Kills of the first runner, spread over the workload.
const KILLS: usize = 5;
/// The agent calls of every run, in order (call ids 1, 2, 3).
const CALLS: [&str; 3] = ["a", "slow", "b"];

// ---------------------------------------------------------------- PRNG --

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

// ------------------------------------------------------ the database --

/// A PostgreSQL cluster of the test's own (stopped and removed on drop).
struct Cluster {
    /// The socket dir (the cluster's temp dir).
    dir: PathBuf,
    bin: PathBuf,
    /// The libpq key/value connection string the script printed.
    conn: String,
}

impl Cluster {
    /// Start one, or `None` (the test is skipped) without PostgreSQL.
    fn start(test: &str) -> Option<Cluster> {
        let Some(bin) = crate::common::pg_bin() else {
            assert!(
                std::env::var("HWF_REQUIRE_CLIENTS").as_deref() != Ok("1"),
                "{test}: no PostgreSQL binaries (initdb, pg_ctl) and HWF_REQUIRE_CLIENTS=1"
            );
            println!("skipped {test}: no PostgreSQL binaries (install postgresql)");
            return None;
        };
        let out = Command::new(root().join("scripts/pg-test-cluster.sh"))
            .arg("start")
            .env("PG_BIN", &bin)
            .output()
            .expect("run scripts/pg-test-cluster.sh");
        assert!(
            out.status.success(),
            "pg-test-cluster.sh start failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let conn = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let dir = conn
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix("host="))
            .map(PathBuf::from)
            .expect("host= in the connection string");
        Some(Cluster { dir, bin, conn })
    }

    /// The store URL the runners get (`HWF_STORE`): `postgres://` with the
    /// socket dir percent-encoded as the host.
    fn url(&self) -> String {
        let host: String = self
            .dir
            .display()
            .to_string()
            .bytes()
            .map(|b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
                b => format!("%{b:02X}"),
            })
            .collect();
        // The socket's port (the script may pick one for its TLS listener).
        let port = self
            .conn
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix("port="))
            .map(|p| format!(":{p}"))
            .unwrap_or_default();
        format!("postgres://hwf@{host}{port}/postgres")
    }

    /// Rows of `sql` (tab-separated fields), or an error text (while the
    /// database restarts, or before the runners created the schema).
    fn query(&self, sql: &str) -> Result<Vec<Vec<String>>, String> {
        let out = Command::new(self.bin.join("psql"))
            .args([
                "-X",
                "-q",
                "-At",
                "-F",
                "\t",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                sql,
                &self.conn,
            ])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("psql: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| l.split('\t').map(str::to_owned).collect())
            .collect())
    }

    /// `pg_ctl restart -m fast` (as the data dir's owner when root: the
    /// server refuses to run as root).
    fn restart(&self) {
        let data = self.dir.join("data");
        let pg_ctl = self.bin.join("pg_ctl");
        let log = self.dir.join("server.log");
        let mut cmd = if is_root() {
            let owner = Command::new("stat")
                .args(["-c", "%U"])
                .arg(&data)
                .output()
                .expect("stat the data dir");
            let owner = String::from_utf8_lossy(&owner.stdout).trim().to_owned();
            let mut c = Command::new("runuser");
            c.args(["-u", &owner, "--"]).arg(&pg_ctl);
            c
        } else {
            Command::new(&pg_ctl)
        };
        let out = cmd
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(&log)
            .args(["-m", "fast", "-w", "-t", "60", "restart"])
            .stdin(Stdio::null())
            .output()
            .expect("run pg_ctl restart");
        assert!(
            out.status.success(),
            "pg_ctl restart failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(root().join("scripts/pg-test-cluster.sh"))
            .arg("stop")
            .arg(&self.dir)
            .env("PG_BIN", &self.bin)
            .output();
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

// ----------------------------------------------------------- the store --

/// Where the runs live: the test's state dir, or its database.
enum Store {
    File,
    Pg(Cluster),
}

/// One run as the store has it.
struct RunRow {
    id: String,
    state: String,
    pid: Option<u32>,
    result: Value,
}

/// A journal read leniently: a torn last line is left out.
fn parse_lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn ty(e: &Value) -> &str {
    e.get("type").and_then(Value::as_str).unwrap_or("")
}

fn call_of(e: &Value) -> &str {
    e.get("call").and_then(Value::as_str).unwrap_or("")
}

impl Store {
    fn pg(&self) -> Option<&Cluster> {
        match self {
            Store::Pg(c) => Some(c),
            Store::File => None,
        }
    }

    /// Every run (empty while the database is unreachable).
    fn runs(&self, ctx: &Ctx) -> Vec<RunRow> {
        match self {
            Store::File => {
                let mut rows = Vec::new();
                for entry in std::fs::read_dir(ctx.state().join("runs")).into_iter().flatten().flatten() {
                    let Ok(text) = std::fs::read_to_string(entry.path().join("run.json")) else {
                        continue;
                    };
                    let Ok(v) = serde_json::from_str::<Value>(&text) else {
                        continue;
                    };
                    rows.push(RunRow {
                        id: entry.file_name().to_string_lossy().into_owned(),
                        state: v["state"].as_str().unwrap_or("").to_owned(),
                        pid: v["pid"].as_u64().map(|p| p as u32),
                        result: v["result"].clone(),
                    });
                }
                rows
            }
            Store::Pg(c) => c
                .query("SELECT run_id, state, coalesce(snapshot->>'pid', ''), coalesce(snapshot->'result', 'null'::jsonb) FROM hwf_runs")
                .unwrap_or_default()
                .into_iter()
                .filter(|r| r.len() == 4)
                .map(|r| RunRow {
                    id: r[0].clone(),
                    state: r[1].clone(),
                    pid: r[2].parse().ok(),
                    result: serde_json::from_str(&r[3]).unwrap_or(Value::Null),
                })
                .collect(),
        }
    }

    /// How many runs ended (any terminal state).
    fn finished(&self, ctx: &Ctx) -> usize {
        match self {
            Store::File => self
                .runs(ctx)
                .iter()
                .filter(|r| matches!(r.state.as_str(), "succeeded" | "failed" | "stopped" | "cancelled"))
                .count(),
            Store::Pg(c) => c
                .query("SELECT count(*) FROM hwf_runs WHERE state IN ('succeeded', 'failed', 'stopped', 'cancelled')")
                .ok()
                .and_then(|r| r.first().and_then(|r| r.first()).and_then(|n| n.parse().ok()))
                .unwrap_or(0),
        }
    }

    fn journal(&self, ctx: &Ctx, run: &str) -> Vec<Value> {
        match self {
            Store::File => parse_lines(
                &std::fs::read_to_string(ctx.state().join("runs").join(run).join("journal.jsonl")).unwrap_or_default(),
            ),
            Store::Pg(c) => c
                .query(&format!(
                    "SELECT line FROM hwf_journal WHERE run_id = '{run}' ORDER BY seq"
                ))
                .unwrap_or_default()
                .iter()
                .filter_map(|r| r.first().and_then(|l| serde_json::from_str(l).ok()))
                .collect(),
        }
    }

    /// Every run's journal (a failure to read them fails the test).
    fn journals(&self, ctx: &Ctx, runs: &[RunRow]) -> BTreeMap<String, Vec<Value>> {
        match self {
            Store::File => runs.iter().map(|r| (r.id.clone(), self.journal(ctx, &r.id))).collect(),
            Store::Pg(c) => {
                let mut out: BTreeMap<String, Vec<Value>> = runs.iter().map(|r| (r.id.clone(), Vec::new())).collect();
                let rows = c
                    .query("SELECT run_id, line FROM hwf_journal ORDER BY run_id, seq")
                    .unwrap_or_else(|e| panic!("read the journals: {e}"));
                for r in rows {
                    let v = serde_json::from_str(&r[1])
                        .unwrap_or_else(|e| panic!("journal line of {}: {e}: {}", r[0], r[1]));
                    out.entry(r[0].clone()).or_default().push(v);
                }
                out
            }
        }
    }

    /// The run `pid` is executing (state `running`, its pid in the
    /// snapshot), with its journal.
    fn executing(&self, ctx: &Ctx, pid: u32) -> Vec<(String, Vec<Value>)> {
        let ids: Vec<String> = match self {
            Store::File => self
                .runs(ctx)
                .into_iter()
                .filter(|r| r.state == "running" && r.pid == Some(pid))
                .map(|r| r.id)
                .collect(),
            Store::Pg(c) => c
                .query(&format!(
                    "SELECT run_id FROM hwf_runs WHERE state = 'running' AND snapshot->>'pid' = '{pid}'"
                ))
                .unwrap_or_default()
                .into_iter()
                .filter_map(|row| row.into_iter().next())
                .collect(),
        };
        ids.into_iter()
            .map(|id| {
                let journal = self.journal(ctx, &id);
                (id, journal)
            })
            .collect()
    }
}

// --------------------------------------------------------- the runners --

/// One runner slot: the live process and every log it wrote.
struct Runner {
    name: &'static str,
    child: Option<Child>,
    pid: u32,
    /// stderr of each generation (a restart is a new generation).
    logs: Vec<PathBuf>,
    /// Exits the test did not cause.
    unexpected_exits: Vec<String>,
}

impl Drop for Runner {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = Command::new("kill").args(["-CONT", &c.id().to_string()]).status();
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill {sig} {pid} failed");
}

/// The runs whose writes `text` (a runner's stderr) reports refused under
/// a lost claim (`conflict`, fenced): one refused execution logs several
/// lines, it counts once.
fn refusals(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("conflict") || l.contains("fenced")
        })
        .flat_map(|l| {
            l.split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| w.len() == 5 && w.starts_with('f') && w[1..].bytes().all(|b| b.is_ascii_digit()))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

// ------------------------------------------------------------ the test --

/// The fixture every run's calls use: `slow` answers after [`SLOW_MS`].
fn fixture_json() -> String {
    json!({"responses": [
        {"match": {"label": "slow"}, "output": {"slow": true}, "delay_ms": SLOW_MS},
        {"output": {"ok": 1}},
    ]})
    .to_string()
}

struct Fault<'a> {
    ctx: &'a Ctx,
    store: &'a Store,
    rng: Rng,
    seed: u64,
    fixture: PathBuf,
    calls_log: PathBuf,
    runners: Vec<Runner>,
    /// Runs a fault already hit (each is hit once: three dead executions
    /// in a row would quarantine a run as `crash_loop`).
    faulted: BTreeSet<String>,
    /// (run, wall ms of the kill, journal lines at the kill, point).
    kills: Vec<(String, u64, usize, &'static str)>,
    /// (run, wall ms of the pause, ms until the takeover wrote).
    pauses: Vec<(String, u64, u64)>,
    restarts: u32,
    skipped: Vec<String>,
    log_dir: PathBuf,
}

impl<'a> Fault<'a> {
    fn new(ctx: &'a Ctx, store: &'a Store) -> Self {
        let seed = std::env::var("HWF_FAULT_SEED")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or_else(|| now_ms() ^ u64::from(std::process::id()));
        println!("pg_fault: seed {seed} (HWF_FAULT_SEED={seed} repeats the fault points' choices)");
        let fixture = ctx.write("fixture.json", fixture_json());
        let log_dir = ctx.path("logs");
        std::fs::create_dir_all(&log_dir).expect("log dir");
        Fault {
            ctx,
            store,
            rng: Rng(seed),
            seed,
            fixture,
            calls_log: ctx.path("calls.log"),
            runners: Vec::new(),
            faulted: BTreeSet::new(),
            kills: Vec::new(),
            pauses: Vec::new(),
            restarts: 0,
            skipped: Vec::new(),
            log_dir,
        }
    }

    /// `hwf` on this test's store.
    fn cmd(&self) -> Command {
        let mut c = self.ctx.cmd();
        if let Some(pg) = self.store.pg() {
            c.env("HWF_STORE", pg.url()).env("HWF_LEASE_MS", LEASE_MS.to_string());
        }
        c.env("HWF_FIXTURE_LOG", &self.calls_log);
        c
    }

    fn queue(&self) -> Vec<String> {
        let program = json!({"seq": CALLS.iter().map(|l| json!({"agent": l})).collect::<Vec<_>>()});
        let args = json!({"op": "program", "program": program}).to_string();
        let mut ids = Vec::with_capacity(RUNS);
        // A few at a time: queueing is one short process per run.
        for chunk in (0..RUNS).collect::<Vec<_>>().chunks(8) {
            let children: Vec<_> = chunk
                .iter()
                .map(|i| {
                    let id = format!("f{i:04}");
                    let child = self
                        .cmd()
                        .args(["run", harnesses::PROBE, "--background", "--queue-only", "--json"])
                        .args(["--run-id", &id, "--args", &args, "--agents"])
                        .arg(&self.fixture)
                        .stdout(Stdio::piped())
                        .stderr(Stdio::piped())
                        .spawn()
                        .expect("spawn hwf run --background");
                    (id, child)
                })
                .collect();
            for (id, child) in children {
                let out = child.wait_with_output().expect("hwf run --background");
                assert!(
                    out.status.success(),
                    "queueing {id} failed: {}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                ids.push(id);
            }
        }
        ids
    }

    fn spawn(&mut self, slot: usize) {
        let gen_no = self.runners[slot].logs.len();
        let log = self
            .log_dir
            .join(format!("{}-{gen_no}.stderr", self.runners[slot].name));
        let file = std::fs::File::create(&log).expect("runner log");
        let child = self
            .cmd()
            .args([
                "-v",
                "runner",
                "--idle-exit-after",
                "600",
                "--concurrency",
                SLOTS,
                "--agents",
            ])
            .arg(&self.fixture)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("spawn hwf runner");
        let r = &mut self.runners[slot];
        r.pid = child.id();
        r.child = Some(child);
        r.logs.push(log);
    }

    fn start_runners(&mut self) {
        for name in ["killed", "paused", "steady"].into_iter().take(RUNNERS) {
            self.runners.push(Runner {
                name,
                child: None,
                pid: 0,
                logs: Vec::new(),
                unexpected_exits: Vec::new(),
            });
            let slot = self.runners.len() - 1;
            self.spawn(slot);
        }
    }

    /// Restart a runner that exited on its own (a bug: recorded, and
    /// failed at the end, so the counts still print).
    fn check_runners(&mut self) {
        for slot in 0..self.runners.len() {
            let exited = match self.runners[slot].child.as_mut().map(Child::try_wait) {
                Some(Ok(Some(status))) => Some(status.to_string()),
                _ => None,
            };
            if let Some(status) = exited {
                let log = self.runners[slot].logs.last().cloned().unwrap_or_default();
                let tail: String = std::fs::read_to_string(&log).unwrap_or_default();
                let tail = tail.lines().rev().take(5).collect::<Vec<_>>().join(" | ");
                let name = self.runners[slot].name;
                self.runners[slot]
                    .unexpected_exits
                    .push(format!("{name} exited {status}: {tail}"));
                self.runners[slot].child = None;
                self.spawn(slot);
            }
        }
    }

    /// Poll until `f` holds (runners that exited are restarted meanwhile).
    fn wait(&mut self, limit: Duration, mut f: impl FnMut(&mut Self) -> bool) -> bool {
        let t = Instant::now();
        while t.elapsed() < limit {
            self.check_runners();
            if f(self) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(3));
        }
        false
    }

    fn wait_finished(&mut self, n: usize) {
        let ctx = self.ctx;
        let store = self.store;
        self.wait(DEADLINE, |_| store.finished(ctx) >= n);
    }

    /// Kill the first runner at a random point of a run it executes.
    fn kill(&mut self) {
        let point = ["mid slow call", "after the first completion", "after run_started"][self.rng.below(3) as usize];
        let extra = Duration::from_millis(self.rng.below(SLOW_MS / 4));
        let (ctx, store) = (self.ctx, self.store);
        let mut hit = None;
        let mut polls = 0u64;
        let found = self.wait(FAULT_WAIT, |s| {
            polls += 1;
            // Every run ended: there is nothing left to kill.
            if polls.is_multiple_of(25) && store.finished(ctx) >= RUNS {
                return true;
            }
            let pid = s.runners[0].pid;
            // Any of the runs the runner holds (it holds several at once).
            for (run, journal) in store.executing(ctx, pid) {
                if s.faulted.contains(&run) {
                    continue;
                }
                let has = |t: &str, call: &str| journal.iter().any(|e| ty(e) == t && call_of(e) == call);
                let ready = match point {
                    "mid slow call" => has("call_started", "2") && !has("call_completed", "2"),
                    "after the first completion" => has("call_completed", "1"),
                    _ => journal.iter().any(|e| ty(e) == "run_started"),
                };
                if ready {
                    hit = Some((run, journal.len()));
                    return true;
                }
            }
            false
        });
        let Some((run, lines)) = hit.filter(|_| found) else {
            self.skipped.push(format!(
                "kill at {point}: the killed runner never held a fresh run there"
            ));
            return;
        };
        if point == "mid slow call" {
            std::thread::sleep(extra);
        }
        let at = now_ms();
        if let Some(mut child) = self.runners[0].child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.faulted.insert(run.clone());
        self.kills.push((run, at, lines, point));
        self.spawn(0);
    }

    /// SIGSTOP the second runner mid-call, wait until another runner took
    /// the run over and wrote to its journal, then SIGCONT it.
    fn pause(&mut self) {
        let Some(pg) = self.store.pg() else { return };
        let (ctx, store) = (self.ctx, self.store);
        let pid = self.runners[1].pid;
        // A run seen mid-call may finish before the stop lands (a call
        // takes a few hundred ms): once the runner is stopped, the run
        // waited on is one it still holds unfinished, else it goes on and
        // the driver looks again.
        let mut held = None;
        for _ in 0..5 {
            let found = self.wait(FAULT_WAIT, |s| {
                store.executing(ctx, pid).into_iter().any(|(run, journal)| {
                    let has = |t: &str, call: &str| journal.iter().any(|e| ty(e) == t && call_of(e) == call);
                    !s.faulted.contains(&run) && has("call_started", "2") && !has("call_completed", "2")
                })
            });
            if !found {
                break;
            }
            signal(pid, "-STOP");
            held = store.executing(ctx, pid).into_iter().find_map(|(run, journal)| {
                let unfinished = !journal.iter().any(|e| ty(e) == "run_completed");
                (unfinished && !self.faulted.contains(&run)).then_some((run, journal.len()))
            });
            if held.is_some() {
                break;
            }
            signal(pid, "-CONT");
        }
        let Some((run, lines)) = held else {
            self.skipped
                .push("pause: the paused runner never held a fresh run mid-call".into());
            return;
        };
        let at = now_ms();
        self.faulted.insert(run.clone());
        let token_before = pg
            .query(&format!("SELECT token FROM hwf_claims WHERE run_id = '{run}'"))
            .ok()
            .and_then(|r| r.first().and_then(|r| r.first()).cloned());
        // The takeover: a new execution's run_started and one line after it.
        let limit = Duration::from_millis(LEASE_MS * 5) + Duration::from_secs(20);
        let taken = self.wait(limit, |_| {
            let journal = store.journal(ctx, &run);
            let tail = journal.get(lines..).unwrap_or_default();
            tail.iter()
                .position(|e| ty(e) == "run_started")
                .is_some_and(|i| tail.len() > i + 1)
        });
        let waited = now_ms().saturating_sub(at);
        let token_after = pg
            .query(&format!("SELECT token FROM hwf_claims WHERE run_id = '{run}'"))
            .ok()
            .and_then(|r| r.first().and_then(|r| r.first()).cloned());
        let claim_row = pg
            .query(&format!("SELECT * FROM hwf_claims WHERE run_id = '{run}'"))
            .map(|rows| format!("{rows:?}"))
            .unwrap_or_else(|e| format!("(claim unreadable: {e})"));
        signal(pid, "-CONT");
        if !taken {
            // What the runners said meanwhile outlives the test's temp dir.
            let kept = self.keep_logs("pause");
            panic!(
                "run {run}: no other runner took it over within {limit:?} of pausing its owner (lease {LEASE_MS} ms); its claim: {claim_row}; runner logs kept in {}",
                kept.display()
            );
        }
        assert_ne!(
            token_before, token_after,
            "run {run}: the takeover did not bump the fencing token"
        );
        self.pauses.push((run, at, waited));
    }

    /// Copy the runners' logs out of the test's temp dir (they outlive it):
    /// `target/pg-fault-failures/<store>-seed-<seed>-<why>`.
    fn keep_logs(&self, why: &str) -> PathBuf {
        let keep = root().join("target").join("pg-fault-failures").join(format!(
            "{}-seed-{}-{why}",
            if self.store.pg().is_some() { "postgres" } else { "file" },
            self.seed
        ));
        let _ = std::fs::create_dir_all(&keep);
        for log in self.runners.iter().flat_map(|r| &r.logs) {
            if let Some(name) = log.file_name() {
                let _ = std::fs::copy(log, keep.join(name));
            }
        }
        keep
    }

    fn restart_database(&mut self) {
        if let Some(pg) = self.store.pg() {
            pg.restart();
            self.restarts += 1;
        }
    }

    /// Drive the workload with its faults, then check it.
    fn run(mut self) {
        let t = Instant::now();
        let ids = self.queue();
        let queued_in = t.elapsed();
        let t = Instant::now();
        self.start_runners();
        // Fault points by progress: fractions of the runs finished.
        // The pause comes last: the driver waits for its takeover (a lease
        // and more) before it goes on.
        let mut plan: Vec<(usize, &str)> = vec![(2, "kill"), (12, "kill"), (24, "kill"), (36, "kill")];
        plan.extend([(48, "restart"), (60, "kill"), (72, "pause")]);
        assert_eq!(plan.iter().filter(|p| p.1 == "kill").count(), KILLS);
        for (percent, what) in plan {
            self.wait_finished(RUNS * percent / 100);
            match what {
                "kill" => self.kill(),
                "pause" => self.pause(),
                _ => self.restart_database(),
            }
        }
        self.wait_finished(RUNS);
        let elapsed = t.elapsed();
        let finished = self.store.finished(self.ctx);
        for r in &mut self.runners {
            if let Some(mut c) = r.child.take() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
        self.check(&ids, finished, queued_in, elapsed);
    }

    fn check(&self, ids: &[String], finished: usize, queued_in: Duration, elapsed: Duration) {
        let runs = self.store.runs(self.ctx);
        let journals = self.store.journals(self.ctx, &runs);
        let mut execs: HashMap<String, u64> = HashMap::new();
        for line in std::fs::read_to_string(&self.calls_log).unwrap_or_default().lines() {
            if let Some(key) = line.split_whitespace().next() {
                *execs.entry(key.to_owned()).or_default() += 1;
            }
        }
        let mut bad: Vec<String> = Vec::new();
        let (mut takeovers, mut rerun_in_flight, mut reexecuted) = (0u64, 0u64, 0u64);
        let expected_result = json!([{"ok": 1}, {"slow": true}, {"ok": 1}]);
        let known: BTreeSet<&str> = runs.iter().map(|r| r.id.as_str()).collect();
        for id in ids {
            if !known.contains(id.as_str()) {
                bad.push(format!("{id}: not in the store"));
            }
        }
        for run in &runs {
            let id = &run.id;
            let journal = journals.get(id).map(Vec::as_slice).unwrap_or_default();
            if run.state != "succeeded" {
                bad.push(format!("{id}: state {}", run.state));
            }
            if run.result != expected_result {
                bad.push(format!("{id}: result {}", run.result));
            }
            let seqs: Vec<u64> = journal.iter().map(|e| e["seq"].as_u64().unwrap_or(0)).collect();
            if seqs != (1..=seqs.len() as u64).collect::<Vec<_>>() {
                bad.push(format!("{id}: journal seqs not 1..=n: {seqs:?}"));
            }
            let completions: Vec<&Value> = journal.iter().filter(|e| ty(e) == "run_completed").collect();
            if completions.len() != 1 || journal.last().map(ty) != Some("run_completed") {
                bad.push(format!(
                    "{id}: {} run_completed lines (must be 1, the last)",
                    completions.len()
                ));
            }
            if completions.iter().any(|e| e["state"] != "succeeded") {
                bad.push(format!("{id}: a run_completed that is not succeeded"));
            }
            let starts: Vec<u64> = journal
                .iter()
                .filter(|e| ty(e) == "run_started")
                .map(|e| e["seq"].as_u64().unwrap_or(0))
                .collect();
            takeovers += starts.len().saturating_sub(1) as u64;
            // Within one execution a call starts at most once.
            let mut seen: BTreeSet<(usize, String)> = BTreeSet::new();
            let mut execution = 0usize;
            for e in journal {
                match ty(e) {
                    "run_started" => execution += 1,
                    "call_started" if !seen.insert((execution, call_of(e).to_owned())) => {
                        bad.push(format!(
                            "{id}: call {} started twice in execution {execution}",
                            call_of(e)
                        ));
                    }
                    _ => {}
                }
            }
            for n in 1..=CALLS.len() {
                let call = n.to_string();
                // A continuation journals each completed call again,
                // replayed (`"replayed": true`, nothing executed): one
                // live completion per call, replays only after it, with
                // its result.
                let completed: Vec<&Value> = journal
                    .iter()
                    .filter(|e| ty(e) == "call_completed" && call_of(e) == call)
                    .collect();
                let live: Vec<&Value> = completed.iter().copied().filter(|e| e["replayed"] != true).collect();
                let done: Vec<u64> = live.iter().map(|e| e["seq"].as_u64().unwrap_or(0)).collect();
                if live.len() != 1 {
                    bad.push(format!(
                        "{id}: call {call} has {} live call_completed lines (must be 1)",
                        live.len()
                    ));
                    continue;
                }
                if live[0]["ok"] != true {
                    bad.push(format!("{id}: call {call} did not complete ok"));
                }
                for r in completed.iter().filter(|e| e["replayed"] == true) {
                    if r["seq"].as_u64().unwrap_or(0) < done[0] || r["result"] != live[0]["result"] {
                        bad.push(format!(
                            "{id}: call {call}: a replayed completion before or unlike the live one: {r}"
                        ));
                    }
                }
                // Executions that began before the completion may each run
                // the call once; any more re-executed a completed call.
                let allowed = starts.iter().filter(|s| **s < done[0]).count() as u64;
                let ran = execs.get(&format!("{id}:{call}")).copied().unwrap_or(0);
                if ran == 0 {
                    bad.push(format!("{id}: call {call} completed but never executed"));
                }
                rerun_in_flight += ran.saturating_sub(1);
                if ran > allowed {
                    reexecuted += ran - allowed;
                    bad.push(format!(
                        "{id}: call {call} executed {ran} times, only {allowed} execution(s) began before its completion"
                    ));
                }
            }
        }
        // Takeover latency after each kill: kill to the killed run's next
        // run_started (journaled by its new owner).
        let mut latencies: Vec<u64> = Vec::new();
        let mut finished_first = 0usize;
        for (run, at, lines, point) in &self.kills {
            let journal = journals.get(run).map(Vec::as_slice).unwrap_or_default();
            match journal
                .get(*lines..)
                .unwrap_or_default()
                .iter()
                .find(|e| ty(e) == "run_started")
            {
                Some(e) => latencies.push(e["ts_ms"].as_u64().unwrap_or(0).saturating_sub(*at)),
                // No execution after the kill: the killed one finished
                // the run before the signal landed.
                None if journal.iter().any(|e| ty(e) == "run_completed") => finished_first += 1,
                None => bad.push(format!("{run}: killed at {point}, never taken over")),
            }
        }
        latencies.sort_unstable();
        let refused_in = |r: &Runner| -> BTreeSet<String> {
            r.logs
                .iter()
                .flat_map(|l| refusals(&std::fs::read_to_string(l).unwrap_or_default()))
                .collect()
        };
        let paused_refused_runs = self.runners.get(1).map(refused_in).unwrap_or_default();
        let paused_refused = paused_refused_runs.len();
        let all_refused: usize = self.runners.iter().map(|r| refused_in(r).len()).sum();
        if let Some((run, _, _)) = self.pauses.first()
            && !paused_refused_runs.contains(run)
        {
            bad.push(format!(
                "{run}: the paused runner's writes to it were not refused (refused: {paused_refused_runs:?})"
            ));
        }
        let unexpected: Vec<&String> = self.runners.iter().flat_map(|r| &r.unexpected_exits).collect();
        let store = if self.store.pg().is_some() { "postgres" } else { "file" };
        println!(
            "pg_fault [{store}] seed {}: runs {} ({finished} finished, queued in {:.1}s, ran in {:.1}s), runners {RUNNERS}, \
             kills {}, pauses {}, database restarts {}, takeovers {takeovers}, refused stale writes {paused_refused} \
             (executions of the paused runner; {all_refused} in all runners' logs), re-run in-flight calls {rerun_in_flight}, \
             re-executed completed calls {reexecuted}",
            self.seed,
            runs.len(),
            queued_in.as_secs_f64(),
            elapsed.as_secs_f64(),
            self.kills.len(),
            self.pauses.len(),
            self.restarts,
        );
        println!(
            "pg_fault [{store}]: takeover after kill -9 (lease {}): {latencies:?} ms, median {} ms ({finished_first} killed runs had ended before the signal); pause → takeover wrote: {:?} ms; kill points: {:?}",
            if self.store.pg().is_some() {
                format!("{LEASE_MS} ms")
            } else {
                "flock".into()
            },
            latencies.get(latencies.len() / 2).copied().unwrap_or(0),
            self.pauses.iter().map(|p| p.2).collect::<Vec<_>>(),
            self.kills.iter().map(|k| k.3).collect::<Vec<_>>(),
        );
        for s in &self.skipped {
            println!("pg_fault [{store}]: skipped {s}");
        }
        let failed = !bad.is_empty()
            || reexecuted > 0
            || !unexpected.is_empty()
            || self.kills.len() < 3
            || (self.store.pg().is_some() && (self.pauses.len() != 1 || paused_refused == 0));
        if failed {
            let keep = self.keep_logs("check");
            println!("pg_fault [{store}]: runner logs kept in {}", keep.display());
        }
        if !bad.is_empty() {
            let logs: Vec<String> = self
                .runners
                .iter()
                .flat_map(|r| &r.logs)
                .map(|l| {
                    let text = std::fs::read_to_string(l).unwrap_or_default();
                    let tail: Vec<&str> = text.lines().rev().take(8).collect();
                    format!("{}: {}", l.display(), tail.join(" | "))
                })
                .collect();
            panic!(
                "{} violation(s) (seed {}):\n{}\nrunner logs:\n{}",
                bad.len(),
                self.seed,
                bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n"),
                logs.join("\n")
            );
        }
        assert_eq!(runs.len(), RUNS, "every queued run is in the store");
        assert_eq!(reexecuted, 0, "re-executed completed calls");
        assert!(unexpected.is_empty(), "runners exited on their own: {unexpected:#?}");
        assert!(
            self.kills.len() >= 3,
            "only {} kills landed: {:?}",
            self.kills.len(),
            self.skipped
        );
        if self.store.pg().is_some() {
            assert_eq!(self.pauses.len(), 1, "the pause never landed: {:?}", self.skipped);
            assert_eq!(self.restarts, 1, "the database restart");
            assert!(
                paused_refused >= 1,
                "the paused runner's stale writes were not refused (no conflict / fenced refusal on its stderr)"
            );
        }
    }
}

#[test]
fn postgres_runners_survive_kills_a_pause_past_the_lease_and_a_database_restart() {
    let Some(cluster) = Cluster::start("pg_fault") else {
        return;
    };
    let ctx = Ctx::new();
    let store = Store::Pg(cluster);
    Fault::new(&ctx, &store).run();
}

#[test]
fn file_store_runners_survive_kills() {
    let ctx = Ctx::new();
    let store = Store::File;
    Fault::new(&ctx, &store).run();
}

/// What counts as a refused stale write on a runner's stderr.
#[test]
fn refusal_lines_are_counted() {
    let log = "WARN lease taken over; this claim is lost run=f0043 token=2\n\
               ERROR run ends: control plane failure code=\"conflict\" run f0043: lost the claim\n\
               hwf runner: run f0043 left as it is: conflict: run f0043: lost\n\
               hwf runner: run f0007 left as it is: io: Fenced\n\
               hwf runner: 12 queued, f0001 ok";
    let runs = refusals(log);
    assert_eq!(runs.into_iter().collect::<Vec<_>>(), ["f0007", "f0043"]);
    assert!(refusals("hwf runner: 1 queued").is_empty());
    assert!(Path::new(&root()).join("scripts/pg-test-cluster.sh").exists());
}

// ------------------------------------------------- the network blip --

/// A TCP proxy in front of the cluster's TLS listener whose connections
/// the test can cut: every open connection shut down at once, and new ones
/// refused for a while (a network blip between the runners and the
/// database; TLS passes through it untouched).
struct Proxy {
    port: u16,
    refuse: std::sync::Arc<std::sync::atomic::AtomicBool>,
    open: std::sync::Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
}

impl Proxy {
    fn start(upstream: u16) -> Proxy {
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("proxy listen");
        let port = listener.local_addr().expect("proxy addr").port();
        let refuse = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let open = std::sync::Arc::new(std::sync::Mutex::new(Vec::<std::net::TcpStream>::new()));
        let (r, o) = (refuse.clone(), open.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if r.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let Ok(server) = std::net::TcpStream::connect(("127.0.0.1", upstream)) else {
                    continue;
                };
                let mut conns = o.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                for s in [&client, &server] {
                    if let Ok(c) = s.try_clone() {
                        conns.push(c);
                    }
                }
                drop(conns);
                for (mut from, mut to) in [
                    (client.try_clone(), server.try_clone()),
                    (server.try_clone(), client.try_clone()),
                ]
                .into_iter()
                .filter_map(|(a, b)| Some((a.ok()?, b.ok()?)))
                {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(std::net::Shutdown::Both);
                        let _ = from.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
        });
        Proxy { port, refuse, open }
    }

    /// Cut every connection and refuse new ones for `d`.
    fn blip(&self, d: Duration) -> usize {
        use std::sync::atomic::Ordering;
        self.refuse.store(true, Ordering::SeqCst);
        let cut: Vec<_> = self
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .drain(..)
            .collect();
        for s in &cut {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
        std::thread::sleep(d);
        self.refuse.store(false, Ordering::SeqCst);
        cut.len() / 2
    }
}

/// Runners reaching the database over TCP and TLS ride out two network
/// blips (every connection cut, new ones refused for 1.5 s — shorter than
/// the lease and the store's reconnect window): every run completes once,
/// no call runs twice (nothing was lost, so nothing is taken over), and no
/// runner exits.
#[test]
fn postgres_runners_ride_out_network_blips_over_tls() {
    let Some(cluster) = Cluster::start("pg_blip") else {
        return;
    };
    let field = |key: &str| {
        cluster
            .conn
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(key))
            .map(str::to_owned)
    };
    let ca = cluster.dir.join("tls/ca.pem");
    let Some(port) = field("port=").filter(|_| ca.is_file()) else {
        assert!(
            std::env::var("HWF_REQUIRE_CLIENTS").as_deref() != Ok("1"),
            "pg_blip: the test cluster has no TLS listener"
        );
        println!("skipped pg_blip: the test cluster has no TLS listener");
        return;
    };
    let proxy = Proxy::start(port.parse().expect("port"));
    let url = format!(
        "host=localhost port={} user=hwf dbname=postgres sslmode=require sslrootcert={}",
        proxy.port,
        ca.display()
    );
    let store = Store::Pg(cluster);
    let ctx = Ctx::new();
    let calls_log = ctx.path("calls.log");
    let fixture = ctx.write("fixture.json", fixture_json());
    let cmd = || {
        let mut c = ctx.cmd();
        c.env("HWF_STORE", &url).env("HWF_FIXTURE_LOG", &calls_log);
        c
    };
    const N: usize = 24;
    let program = json!({"seq": CALLS.iter().map(|l| json!({"agent": l})).collect::<Vec<_>>()});
    let args = json!({"op": "program", "program": program}).to_string();
    for i in 0..N {
        let out = cmd()
            .args(["run", harnesses::PROBE, "--background", "--queue-only", "--json"])
            .args(["--run-id", &format!("b{i:03}"), "--args", &args, "--agents"])
            .arg(&fixture)
            .output()
            .expect("queue");
        assert!(out.status.success(), "queueing b{i:03}: {out:?}");
    }
    let logs: Vec<PathBuf> = (0..2).map(|i| ctx.path(&format!("runner-{i}.stderr"))).collect();
    let mut runners: Vec<Child> = logs
        .iter()
        .map(|log| {
            cmd()
                .args([
                    "-v",
                    "runner",
                    "--idle-exit-after",
                    "600",
                    "--concurrency",
                    SLOTS,
                    "--agents",
                ])
                .arg(&fixture)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(log).expect("log"))
                .spawn()
                .expect("runner")
        })
        .collect();
    let finished = || store.finished(&ctx);
    let wait = |n: usize, runners: &mut Vec<Child>| {
        let t = Instant::now();
        while finished() < n {
            for r in runners.iter_mut() {
                if let Ok(Some(status)) = r.try_wait() {
                    let tails: Vec<String> = logs
                        .iter()
                        .map(|l| std::fs::read_to_string(l).unwrap_or_default())
                        .collect();
                    panic!(
                        "a runner exited ({status}) during the blips:\n{}",
                        tails.join("\n---\n")
                    );
                }
            }
            assert!(t.elapsed() < DEADLINE, "only {} of {n} runs finished", finished());
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let mut cut = Vec::new();
    for at in [N / 4, N / 2] {
        wait(at, &mut runners);
        cut.push(proxy.blip(Duration::from_millis(1500)));
    }
    wait(N, &mut runners);
    for r in &mut runners {
        let _ = r.kill();
        let _ = r.wait();
    }
    let mut execs: HashMap<String, u64> = HashMap::new();
    for line in std::fs::read_to_string(&calls_log).unwrap_or_default().lines() {
        if let Some(key) = line.split_whitespace().next() {
            *execs.entry(key.to_owned()).or_default() += 1;
        }
    }
    let rows = store
        .pg()
        .expect("postgres")
        .query("SELECT run_id, state, snapshot->'result' FROM hwf_runs ORDER BY run_id")
        .expect("runs");
    let expected = json!([{"ok": 1}, {"slow": true}, {"ok": 1}]);
    let mut bad = Vec::new();
    for r in &rows {
        let result: Value = serde_json::from_str(&r[2]).unwrap_or(Value::Null);
        if r[1] != "succeeded" || result != expected {
            bad.push(format!("{}: {} {result}", r[0], r[1]));
        }
    }
    let twice: Vec<_> = execs.iter().filter(|(_, n)| **n > 1).collect();
    println!(
        "pg_blip: runs {}, blips {} (connections cut: {cut:?}), calls executed {}, more than once {}",
        rows.len(),
        cut.len(),
        execs.len(),
        twice.len()
    );
    assert_eq!(rows.len(), N, "every queued run is in the store");
    assert!(bad.is_empty(), "runs that did not succeed once: {bad:?}");
    assert_eq!(execs.len(), N * CALLS.len(), "every call ran");
    assert!(
        twice.is_empty(),
        "calls executed more than once across the blips: {twice:?}"
    );
    assert!(cut.iter().all(|&n| n > 0), "each blip cut live connections: {cut:?}");
}
