//! `hwf bench`: medians of the hot paths, measured in-process on the real
//! components (see docs/BENCHMARKS.md).

use clap::Args;
use hwf_core::fingerprint::Fingerprint;
use hwf_core::redact;
use hwf_host::agents::FixtureRunner;
use hwf_host::broker::instances::{call_run, instantiate_only};
use hwf_host::broker::{Event, InstanceBroker, Journal, RunContext, Services};
use hwf_host::ids::RunId;
use hwf_host::{Error, ErrorCode, Hwf, Limits};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Options of `hwf bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The probe component (tests/guests/probe).
    #[arg(long, default_value = "target/harnesses/probe.wasm")]
    probe: PathBuf,
    /// The hello component.
    #[arg(long, default_value = "target/harnesses/hello.wasm")]
    hello: PathBuf,
    /// The hello fixture.
    #[arg(long, default_value = "harnesses/hello/fixture.json")]
    hello_fixture: PathBuf,
    /// Scale every iteration count by this factor (1 = default sizes).
    #[arg(long, default_value_t = 1)]
    scale: u32,
    /// A smoke run: every figure, from a few iterations each (seconds, not
    /// minutes; the figures are not worth quoting). `--scale` is ignored.
    #[arg(long)]
    quick: bool,
    /// Only run the 1,000-branch fan-out and report this process's peak RSS
    /// (used by `hwf bench` in a child process).
    #[arg(long, hide = true)]
    fanout_only: bool,
    /// Also run the same workloads through the seeds' Python systems, each
    /// with an interpreter that has it installed (docs/BENCHMARKS.md says
    /// how); a system that is not installed is reported absent.
    #[arg(long)]
    compare: bool,
    /// An interpreter for `--compare` (repeat for each system: both install
    /// a package named `hermes_workflows`). Default: `$HWF_BENCH_PYTHON`
    /// (`:`-separated), else `python3`.
    #[arg(long = "compare-python", value_name = "PYTHON")]
    compare_python: Vec<PathBuf>,
    /// The `--compare` driver.
    #[arg(long, default_value = "scripts/bench-compare.py")]
    compare_script: PathBuf,
}

const FAN_FIXTURE: &str =
    r#"{"responses": [{"match": {"label": "slow"}, "output": {"ok": true}, "delay_ms": 50, "tokens": 1}]}"#;

/// A host over `state` that compiles into `$HWF_CACHE_DIR` when it is set
/// (as `hwf run` does), so a warm shared cache is reused.
fn host(state: PathBuf, agents: Arc<FixtureRunner>, limits: Limits) -> Result<Hwf, Error> {
    Hwf::builder(state)
        .telemetry(trace_export())
        .agents(agents)
        .limits(limits)
        .cache_dir(
            std::env::var_os("HWF_CACHE_DIR")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        )
        .build()
}

/// Trace export as `hwf run` would do it (`OTEL_EXPORTER_OTLP_ENDPOINT`
/// and the other `OTEL_*` variables): the figures of a bench run with an
/// endpoint set include exporting every run's trace.
fn trace_export() -> Option<hwf_host::telemetry::ExportSettings> {
    hwf_host::telemetry::ExportSettings::resolve(&Default::default())
        .ok()
        .flatten()
}

/// Iteration counts: the full sizes times `--scale`, or a few with `--quick`.
struct Sizes {
    quick: bool,
    scale: usize,
}

impl Sizes {
    /// `full * scale`, or `quick` in a smoke run.
    fn n(&self, full: usize, quick: usize) -> usize {
        if self.quick { quick } else { full * self.scale }
    }

    /// Repetitions of a whole measurement: `full`, or 1 in a smoke run.
    fn reps(&self, full: usize) -> usize {
        if self.quick { 1 } else { full }
    }
}

/// Peak resident set size of this process, in MiB (Linux `VmHWM`).
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kb / 1024.0 * 10.0).round() / 10.0)
}

/// One probe run with the fan-out fixture at `width`; returns the wall time.
async fn fan(
    hwf: &Hwf,
    loaded: &hwf_host::broker::LoadedComponent,
    args: Value,
    width: u64,
) -> Result<Duration, Error> {
    let id = RunId::generate();
    hwf.store().local().create_run(&id)?;
    let journal = Journal::new(hwf.store().local().open_journal(&id)?, 0);
    let mut services = Services::new(Arc::new(FixtureRunner::from_json(FAN_FIXTURE)?));
    services.limits = Limits {
        max_parallel: width,
        ..Limits::default()
    };
    services.store = Some(Arc::new(hwf_host::store::Store::file(Arc::new(
        hwf_host::store::FileStore::open(hwf.store().root())?,
    ))));
    let ctx = RunContext::builder(id, services)
        .journal(journal)
        .instances(Arc::new(hwf_host::broker::ExecEnv {
            vm: hwf.vm_arc(),
            epoch_ms: 0,
            workspace: None,
        }))
        .build();
    let text = args.to_string();
    let t = Instant::now();
    let (r, _) = call_run(
        hwf.vm(),
        loaded,
        InstanceBroker::root(ctx.clone(), Some(loaded.clone())),
        0,
        &text,
    )
    .await;
    let d = t.elapsed();
    match r {
        Ok(Ok(out)) => {
            let v: Value = serde_json::from_str(&out).unwrap_or(Value::Null);
            if v["errors"].as_array().is_some_and(|e| !e.is_empty()) {
                return Err(bench_err("fan-out", v));
            }
            Ok(d)
        }
        Ok(Err(e)) => Err(bench_err("fan-out", e)),
        Err(e) => Err(e),
    }
}

/// The 1,000-branch fan-out at width 64 (100 with `--quick`), in this
/// process.
async fn fanout_only(args: &BenchArgs, tmp: &Path) -> Result<Value, Error> {
    let branches: u64 = if args.quick { 100 } else { 1000 };
    let hwf = host(
        tmp.join("fan-state"),
        Arc::new(FixtureRunner::from_json(FAN_FIXTURE)?),
        Limits::default(),
    )?;
    let probe = std::fs::read(&args.probe).map_err(|e| Error::io(format!("probe {}", args.probe.display()), e))?;
    let loaded = hwf.load(&probe)?;
    let before = peak_rss_mib();
    let d = fan(
        &hwf,
        &loaded,
        json!({"op": "fan_branches", "n": branches, "branch": "slow"}),
        64,
    )
    .await?;
    Ok(
        json!({"branches": branches, "width": 64, "wall_ms": us(d) / 1000.0, "ideal_ms": branches.div_ceil(64) * 50, "peak_rss_mib": peak_rss_mib(), "rss_before_mib": before}),
    )
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn us(d: Duration) -> f64 {
    (d.as_nanos() as f64 / 1000.0 * 100.0).round() / 100.0
}

fn bench_err(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::Internal, format!("bench {what}: {e}"))
}

/// Run every benchmark; returns the report.
pub async fn run(args: &BenchArgs, _state: &Path) -> Result<Value, Error> {
    let tmp = std::env::temp_dir().join(format!("hwf-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let report = run_in(args, &tmp).await;
    let _ = std::fs::remove_dir_all(&tmp);
    report
}

async fn run_in(args: &BenchArgs, tmp: &Path) -> Result<Value, Error> {
    if args.fanout_only {
        return fanout_only(args, tmp).await;
    }
    let sizes = Sizes {
        quick: args.quick,
        scale: args.scale.max(1) as usize,
    };
    let fixture = FixtureRunner::from_json(
        r#"{"responses": [{"match": {"agent": "bench.echo"}, "output": {"ok": true}, "tokens": 1}]}"#,
    )?;
    let hwf = host(tmp.join("state"), Arc::new(fixture), Limits::default())?;
    let probe = std::fs::read(&args.probe).map_err(|e| Error::io(format!("probe {}", args.probe.display()), e))?;
    let loaded = hwf.load(&probe)?;
    let store = hwf.store().local();

    let new_ctx_mode =
        |with_journal: bool, durability: hwf_host::broker::journal::Durability| -> Result<Arc<RunContext>, Error> {
            let id = RunId::generate();
            let journal = if with_journal {
                store.create_run(&id)?;
                Some(Journal::new(store.open_journal(&id)?, 0))
            } else {
                None
            };
            let fixture = FixtureRunner::from_json(
                r#"{"responses": [{"match": {"agent": "bench.echo"}, "output": {"ok": true}, "tokens": 1}]}"#,
            )?;
            let mut services = Services::new(Arc::new(fixture));
            services.limits = Limits {
                max_calls: u64::MAX,
                max_agent_calls: u64::MAX,
                ..Limits::default()
            };
            services.durability = durability;
            Ok(RunContext::new(id, journal, services))
        };
    let new_ctx = |with_journal: bool| new_ctx_mode(with_journal, hwf_host::broker::journal::Durability::Sync);

    // 1. Instantiate from the warm pool.
    let ctx = new_ctx(false)?;
    for _ in 0..sizes.n(50, 5) {
        instantiate_only(hwf.vm(), &loaded, ctx.limits()).await?;
    }
    let mut inst = Vec::new();
    for _ in 0..sizes.n(2000, 20) {
        let t = Instant::now();
        instantiate_only(hwf.vm(), &loaded, ctx.limits()).await?;
        inst.push(t.elapsed());
    }

    // 2. Broker round trip for `log` (journal write included, no fsync).
    let run_probe = |args: Value, ctx: Arc<RunContext>| {
        let loaded = &loaded;
        let vm = hwf.vm();
        async move {
            let text = args.to_string();
            let t = Instant::now();
            let (r, _) = call_run(
                vm,
                loaded,
                InstanceBroker::root(ctx.clone(), Some(loaded.clone())),
                0,
                &text,
            )
            .await;
            let d = t.elapsed();
            match r {
                Ok(Ok(_)) => Ok(d),
                Ok(Err(e)) => Err(bench_err("probe", e)),
                Err(e) => Err(e),
            }
        }
    };
    let log_n = sizes.n(20_000, 200) as u64;
    let mut noop = Vec::new();
    let mut logs = Vec::new();
    for _ in 0..sizes.reps(5) {
        noop.push(run_probe(json!({"op": "noop"}), new_ctx(true)?).await?);
        logs.push(run_probe(json!({"op": "log", "n": log_n}), new_ctx(true)?).await?);
    }
    let noop_med = median(noop);
    let log_per_call = median(logs).saturating_sub(noop_med) / log_n as u32;

    // 3. Fixture agent call (journal fsync on completion included).
    let agent_n = sizes.n(300, 10) as u64;
    let mut agents = Vec::new();
    for _ in 0..sizes.reps(3) {
        agents.push(run_probe(json!({"op": "agent", "n": agent_n}), new_ctx(true)?).await?);
    }
    let agent_per_call = median(agents).saturating_sub(noop_med) / agent_n as u32;

    // 3b. The same agent calls under each durability mode, each run next to
    // the floors measured right after it (the same minutes, the same disk):
    // one append + fdatasync of a growing file, and of a preallocated one.
    let mut modes = serde_json::Map::new();
    let mut mode_us = std::collections::HashMap::new();
    let (mut raw, mut raw_pre, mut raw_samples) = (Vec::new(), Vec::new(), Vec::new());
    for mode in [
        hwf_host::broker::journal::Durability::Sync,
        hwf_host::broker::journal::Durability::Group,
        hwf_host::broker::journal::Durability::Async,
    ] {
        let mut runs = Vec::new();
        for _ in 0..sizes.reps(3) {
            runs.push(run_probe(json!({"op": "agent", "n": agent_n}), new_ctx_mode(true, mode)?).await?);
            let (mean, sample) = raw_append_fdatasync(tmp, agent_n as usize)?;
            raw.push(mean);
            raw_samples.push(sample);
            raw_pre.push(raw_overwrite_fdatasync(tmp, agent_n as usize)?.0);
        }
        let per_call = median(runs).saturating_sub(noop_med) / agent_n as u32;
        modes.insert(mode.as_str().to_owned(), json!(us(per_call)));
        mode_us.insert(mode.as_str(), per_call);
    }
    let raw_flush = median(raw);
    let raw_prealloc_flush = median(raw_pre);
    let sync_call = mode_us.get("sync").copied().unwrap_or_default();
    let async_call = mode_us.get("async").copied().unwrap_or_default();

    // 4. Journal append with and without fsync.
    let id = RunId::generate();
    store.create_run(&id)?;
    let mut j = Journal::new(store.open_journal(&id)?, 0);
    let mut nosync = Vec::new();
    for i in 0..sizes.n(20_000, 200) {
        let msg = format!("line {i}");
        let t = Instant::now();
        j.append(&Event::Log {
            call: None,
            level: "info",
            source: "guest",
            message: &msg,
        })?;
        nosync.push(t.elapsed());
    }
    let result = json!({"greeting": "hello, world"});
    let failure = None;
    let syncer = j.syncer()?;
    let mut synced = Vec::new();
    for i in 0..sizes.n(300, 10) {
        let call = i.to_string();
        let t = Instant::now();
        let seq = j.append(&Event::CallCompleted {
            call: &call,
            kind: "agent",
            label: Some("greet"),
            fingerprint: "b3:0000",
            ok: true,
            result: Some(&result),
            error: failure,
            tokens: 12,
            usage: hwf_host::agents::TokenUsage::default(),
            cost_micro_usd: 0,
            attempts: 1,
            duration_us: 5,
            replayed: false,
            cache_hit: false,
        })?;
        syncer.sync_to(seq).await?;
        synced.push(t.elapsed());
    }
    let group_commit = group_commit(store).await?;

    // 5. Fingerprint + redaction of a typical agent request.
    let request = json!({
        "prompt": "Verify candidate bug B-17 using unit", "label": "verifier:unit:B-17", "phase": "verify",
        "schema": {"verdict": "string", "notes": "string"},
        "context": {"verifier": "unit", "bug": {"id": "B-17", "title": "totals off by one", "severity": "high"}, "round": 2},
    });
    let mut fp = Vec::new();
    for _ in 0..sizes.n(20_000, 200) {
        let t = Instant::now();
        let f = Fingerprint::of("agent", &request);
        let mut stored = request.clone();
        let changed = redact::redact_value(&mut stored);
        std::hint::black_box((f, changed));
        fp.push(t.elapsed());
    }

    // 6. Concurrency: 50 agent tasks and 50 branch tasks (one 50 ms agent
    // call each) at width 8; ideal ceil(50/8) * 50 ms = 350 ms.
    let mut fan_agents = Vec::new();
    let mut fan_branches = Vec::new();
    for _ in 0..sizes.reps(5) {
        fan_agents.push(fan(&hwf, &loaded, json!({"op": "fan_agents", "n": 50, "label": "slow"}), 8).await?);
        fan_branches.push(
            fan(
                &hwf,
                &loaded,
                json!({"op": "fan_branches", "n": 50, "branch": "slow"}),
                8,
            )
            .await?,
        );
    }
    let (fa, fb) = (median(fan_agents), median(fan_branches));
    let exe_for_fan = std::env::current_exe().map_err(|e| bench_err("current exe", e))?;
    let mut child = std::process::Command::new(&exe_for_fan);
    child.args(["bench", "--fanout-only", "--probe"]).arg(&args.probe);
    if args.quick {
        child.arg("--quick");
    }
    let out = child.output().map_err(|e| bench_err("fan-out child", e))?;
    let fanout = serde_json::from_slice::<Value>(&out.stdout)
        .ok()
        .map(|v| v["data"].clone())
        .filter(|d| d.is_object())
        .ok_or_else(|| {
            bench_err(
                "fan-out child",
                format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr).trim()),
            )
        })?;

    // 7. Resume a finished 1,000-call run with no agent backend (replay).
    let resume_n = sizes.n(1000, 50) as u64;
    let source = hwf
        .run(hwf_host::RunRequest::new(
            hwf_host::Target::Path(args.probe.clone()),
            json!({"op": "agent", "n": resume_n}),
        ))
        .await?;
    let source_id = source.snapshot.run_id.clone();
    let empty = host(tmp.join("state"), Arc::new(FixtureRunner::empty()), Limits::default())?;
    let mut resumes = Vec::new();
    for _ in 0..sizes.reps(5) {
        let mut req = hwf_host::RunRequest::new(
            hwf_host::Target::Path(args.probe.clone()),
            json!({"op": "agent", "n": resume_n}),
        );
        req.resume_from = Some(source_id.clone());
        let t = Instant::now();
        let out = empty.run(req).await?;
        resumes.push(t.elapsed());
        // The backend answers nothing: a call that ran live would fail.
        if out.snapshot.counts.replayed != resume_n || out.snapshot.counts.failed != 0 || out.result.is_none() {
            return Err(bench_err("resume", format!("{:?}", out.snapshot.counts)));
        }
    }

    // 8. JavaScript: start-up of a saved script to its first host call
    // (runtime precompiled and cached), and parallel() over 16 agents of
    // 100 ms each at max_parallel 16.
    let js = tmp.join("js");
    std::fs::create_dir_all(&js).map_err(|e| Error::io("bench js dir", e))?;
    let first_call = js.join("first.js");
    std::fs::write(
        &first_call,
        "export const meta = { name: \"first\", description: \"first host call\" };\nphase(\"started\");\nreturn 1;\n",
    )
    .map_err(|e| Error::io("bench js", e))?;
    let par = js.join("par.js");
    std::fs::write(&par, "export const meta = { name: \"par\", description: \"16 agents\" };\nconst r = await parallel(Array.from({length: 16}, (_, i) => () => agent(`task ${i}`, {label: \"slow\"})));\nreturn r.length;\n")
        .map_err(|e| Error::io("bench js", e))?;
    let js_fixture = FixtureRunner::from_json(
        r#"{"responses": [{"match": {"label": "slow"}, "output": {"ok": true}, "delay_ms": 100}]}"#,
    )?;
    let js_hwf = host(
        tmp.join("state"),
        Arc::new(js_fixture),
        Limits {
            max_parallel: 16,
            ..Limits::default()
        },
    )?;
    let mut js_report = Value::Null;
    let mut js_calls_report = None;
    if hwf_host::scripts::locate_runtime(hwf_host::scripts::Language::Js).is_ok() {
        // Warm the compile cache once.
        js_hwf
            .run(hwf_host::RunRequest::new(
                hwf_host::Target::Path(first_call.clone()),
                Value::Null,
            ))
            .await?;
        let resolved = js_hwf.resolve(&hwf_host::Target::Path(first_call.clone()))?;
        let mut starts = Vec::new();
        for _ in 0..sizes.n(10, 2) {
            // Load (cache hit) + fresh instance + script up to phase(): the
            // whole run of a one-call script.
            let ctx = new_ctx(false)?;
            let t = Instant::now();
            let loaded = js_hwf.resolve(&hwf_host::Target::Path(first_call.clone()))?.loaded;
            let (r, _) = call_run(
                js_hwf.vm(),
                &loaded,
                InstanceBroker::root(ctx.clone(), Some(loaded.clone())),
                0,
                &"null".to_owned(),
            )
            .await;
            starts.push(t.elapsed());
            r?.map_err(|e| bench_err("js", e))?;
        }
        drop(resolved);
        let mut pars = Vec::new();
        for _ in 0..sizes.reps(5) {
            let t = Instant::now();
            let out = js_hwf
                .run(hwf_host::RunRequest::new(
                    hwf_host::Target::Path(par.clone()),
                    Value::Null,
                ))
                .await?;
            pars.push(t.elapsed());
            if out.result != Some(json!(16)) {
                return Err(bench_err("js parallel", format!("{:?}", out.snapshot.error)));
            }
        }
        let calls = js_calls(&sizes, tmp, &js).await?;
        js_report = json!({
            "startup_to_first_host_call_ms": us(median(starts)) / 1000.0,
            "parallel_16_agents_100ms_ms": us(median(pars)) / 1000.0,
            "agent_call_us": {"sync": us(calls.sync), "async": us(calls.async_)},
            "replay_calls_ms": us(calls.replay) / 1000.0,
            "replay_calls": calls.replay_n,
            "trace_build_encode_us_per_call": us(calls.spans_per_call),
            "trace_export": trace_export().map(|s| s.url),
        });
        js_calls_report = Some(calls);
    }

    // 9. Whole `hwf run` of hello, warm cache, as a process: its state on
    // the bench's disk, and on tmpfs when there is one (what is left there
    // is the process's own work; on disk, the store's fdatasyncs add theirs).
    let exe = std::env::current_exe().map_err(|e| bench_err("current exe", e))?;
    let shm = Path::new("/dev/shm")
        .is_dir()
        .then(|| RemoveOnDrop(Path::new("/dev/shm").join(format!("hwf-bench-{}", std::process::id()))));
    let hello_run_in = |state: &Path| {
        let t = Instant::now();
        let status = std::process::Command::new(&exe)
            .args(["run"])
            .arg(&args.hello)
            .args(["--args", r#"{"name":"world"}"#, "--agents"])
            .arg(&args.hello_fixture)
            .arg("--state-dir")
            .arg(state)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
        (t.elapsed(), status.map(|s| s.success()).unwrap_or(false))
    };
    let state = tmp.join("cli-state");
    let shm_state = shm.as_ref().map(|d| d.0.join("cli-state"));
    let (_, warm_ok) = hello_run_in(&state);
    let shm_ok = shm_state.as_deref().is_some_and(|s| hello_run_in(s).1);
    let (mut cli, mut cli_shm) = (Vec::new(), Vec::new());
    let (mut bare_true, mut bare_version) = (Vec::new(), Vec::new());
    if warm_ok {
        for _ in 0..sizes.n(15, 2) {
            // The floors, interleaved: a bare process start, and this
            // binary's start with no work (`--version`).
            bare_true.push(process_wall(Path::new("/bin/true"), &[])?);
            bare_version.push(process_wall(&exe, &["--version"])?);
            cli.push(hello_run_in(&state).0);
            if let Some(s) = shm_state.as_deref().filter(|_| shm_ok) {
                cli_shm.push(hello_run_in(s).0);
            }
        }
    }
    let bare_true = (!bare_true.is_empty()).then(|| median(bare_true));
    let bare_version = (!bare_version.is_empty()).then(|| median(bare_version));

    // 10. The first JavaScript run in a fresh state dir with an empty
    // compile cache, as a process (what a new user waits for: the runtime
    // embedded precompiled is decompressed, loaded and written to the cache).
    // Then, with the cache that run filled, the first run of another fresh
    // state dir: what every later first run waits for.
    let fresh = tmp.join("cold");
    let first_js_run = |state: &str| -> Result<Duration, Error> {
        let t = Instant::now();
        let out = std::process::Command::new(&exe)
            .arg("run")
            .arg(&first_call)
            .arg("--state-dir")
            .arg(fresh.join(state))
            .env("HWF_CACHE_DIR", fresh.join("cache"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .output()
            .map_err(|e| bench_err("first js run", e))?;
        let d = t.elapsed();
        if !out.status.success() {
            return Err(bench_err(
                "first js run",
                format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr).trim()),
            ));
        }
        Ok(d)
    };
    let (cold_js, installed_js) = if js_calls_report.is_some() {
        let cold = first_js_run("state")?;
        let mut later = Vec::new();
        for i in 0..sizes.n(5, 1) {
            later.push(first_js_run(&format!("state-{i}"))?);
        }
        (Some(cold), Some(median(later)))
    } else {
        (None, None)
    };

    // 11. `--compare`: the seeds' Python systems, when installed.
    let compare = if args.compare {
        Some(compare_python(args, &sizes, tmp)?)
    } else {
        None
    };

    let floor_true = bare_true
        .map(|d| format!("/bin/true {} ms", ms3(d)))
        .unwrap_or_default();
    let floor_version = bare_version
        .map(|d| format!("`hwf --version` {} ms", ms3(d)))
        .unwrap_or_default();
    let js = js_calls_report.as_ref();
    let figures = json!([
        figure(
            "durable agent call (`sync`), per call",
            Some(sync_call),
            "us",
            &format!(
                "raw append + fdatasync {} us (preallocated: {} us)",
                us(raw_flush),
                us(raw_prealloc_flush)
            ),
            Some(raw_flush),
            "<= 1.2x the floor",
        ),
        figure(
            "agent call besides the flush (Rust, `async`), per call",
            Some(async_call),
            "us",
            &format!("`log` round trip {} us", us(log_per_call)),
            Some(log_per_call),
            "<= 20 us",
        ),
        figure(
            "JS agent call, `async`, per call",
            js.map(|c| c.async_),
            "us",
            &format!("the Rust harness's {} us", us(async_call)),
            Some(async_call),
            "<= 100 us (<= 50 us more than Rust)",
        ),
        figure(
            "JS agent call, `sync`, per call",
            js.map(|c| c.sync),
            "us",
            &format!("raw append + fdatasync {} us", us(raw_flush)),
            Some(raw_flush),
            "-",
        ),
        figure(
            "whole `hwf run hello.wasm` process, cached, state on tmpfs",
            (!cli_shm.is_empty()).then(|| median(cli_shm.clone())),
            "ms",
            &format!("{floor_version}; {floor_true}"),
            bare_version,
            "<= 10 ms",
        ),
        figure(
            "whole `hwf run hello.wasm` process, cached, state on disk",
            (!cli.is_empty()).then(|| median(cli.clone())),
            "ms",
            &format!(
                "{floor_version}; {floor_true}; the run's 6 fdatasyncs at the raw flush's {} us",
                us(raw_flush)
            ),
            bare_version,
            "<= 10 ms",
        ),
        figure(
            "JS replay of the calls of a finished run (resume, all replayed)",
            js.map(|c| c.replay),
            "ms",
            &format!(
                "the Rust harness's {resume_n} replayed calls {} ms",
                ms3(median(resumes.clone()))
            ),
            Some(median(resumes.clone())),
            "<= 50 ms for 1,000 calls",
        ),
        figure(
            "first JS run, fresh state dir, runtime compiled once per user (install), whole process",
            installed_js,
            "ms",
            &floor_version,
            bare_version,
            "<= 1 s",
        ),
        figure(
            "first JS run with an empty compile cache (the embedded precompiled runtime), whole process",
            cold_js,
            "ms",
            &floor_version,
            bare_version,
            "<= 1 s",
        ),
    ]);

    Ok(json!({
        "instantiate_pooled_us": {"median": us(median(inst.clone())), "p90": us(p90(inst))},
        "log_round_trip_us": us(log_per_call),
        "noop_run_us": us(noop_med),
        "fixture_agent_call_us": us(agent_per_call),
        "journal_append_us": {"no_fsync_median": us(median(nosync)), "fsync_median": us(median(synced))},
        "fingerprint_and_redact_us": us(median(fp)),
        "hwf_run_hello_warm_ms": if cli.is_empty() { Value::Null } else { json!(us(median(cli)) / 1000.0) },
        "first_js_run_ms": {
            "empty_cache": cold_js.map(|d| us(d) / 1000.0),
            "installed": installed_js.map(|d| us(d) / 1000.0),
        },
        "hwf_run_hello_warm_tmpfs_ms": if cli_shm.is_empty() { Value::Null } else { json!(us(median(cli_shm)) / 1000.0) },
        "hello_component": args.hello.display().to_string(),
        "parallel_50_agents_50ms_width8_ms": {"median": us(fa) / 1000.0, "ideal": 350, "ratio": (fa.as_secs_f64() / 0.350 * 1000.0).round() / 1000.0},
        "parallel_50_branches_50ms_width8_ms": {"median": us(fb) / 1000.0, "ideal": 350, "ratio": (fb.as_secs_f64() / 0.350 * 1000.0).round() / 1000.0},
        "fanout_1000_branches_width64": fanout,
        "resume_1000_call_run_ms": us(median(resumes)) / 1000.0,
        "group_commit": group_commit,
        "durability_agent_call_us": modes,
        "raw_append_fdatasync_us": us(raw_flush),
        "raw_overwrite_fdatasync_us": us(raw_prealloc_flush),
        "durable_call_over_raw_flush": ratio(sync_call, raw_flush),
        "floors": {
            "raw_append_fdatasync_us": us(raw_flush),
            "raw_append_fdatasync_median_sample_us": us(median(raw_samples)),
            "raw_preallocated_overwrite_fdatasync_us": us(raw_prealloc_flush),
            "process_bin_true_ms": bare_true.map(|d| us(d) / 1000.0),
            "process_hwf_version_ms": bare_version.map(|d| us(d) / 1000.0),
        },
        "figures": figures,
        "compare": compare,
        "javascript": js_report,
        "quick": args.quick,
        "sizes": {"log_calls": log_n, "agent_calls": agent_n, "resume_calls": resume_n},
    }))
}

/// A directory removed (with what it holds) when dropped.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One figure of the report next to its floor: `value` in `unit` (`us` or
/// `ms`), the floor measured in the same run, their ratio, the goal.
fn figure(
    what: &str,
    value: Option<Duration>,
    unit: &str,
    floor: &str,
    floor_value: Option<Duration>,
    goal: &str,
) -> Value {
    let show = |d: Duration| if unit == "ms" { ms3(d) } else { us(d) };
    json!({
        "what": what,
        "value": value.map(show),
        "unit": unit,
        "floor": floor,
        "over_floor": value.zip(floor_value).map(|(v, f)| ratio(v, f)),
        "goal": goal,
    })
}

/// `a / b`, two decimals.
fn ratio(a: Duration, b: Duration) -> f64 {
    (a.as_secs_f64() / b.as_secs_f64().max(1e-9) * 100.0).round() / 100.0
}

/// Milliseconds, three decimals.
fn ms3(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1000.0
}

/// The wall time of one process run of `program args` to its exit.
fn process_wall(program: &Path, args: &[&str]) -> Result<Duration, Error> {
    let t = Instant::now();
    let status = std::process::Command::new(program)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| bench_err(&format!("start {}", program.display()), e))?;
    let d = t.elapsed();
    if !status.success() {
        return Err(bench_err(&format!("start {}", program.display()), status));
    }
    Ok(d)
}

/// JavaScript agent calls: per sequential call under `sync` and `async`
/// durability, and the replay of a finished run's calls.
struct JsCalls {
    sync: Duration,
    async_: Duration,
    replay: Duration,
    replay_n: u64,
    /// Building and encoding the trace of the 1,000-call run, per call
    /// (the exporter's work, off the run's path).
    spans_per_call: Duration,
}

/// A JS script of `args.n` sequential fixture agent calls: each mode's runs
/// of n calls minus runs of 1, over n - 1; then a finished 1,000-call run
/// resumed with no agent backend (every call replayed), whole run in-process.
async fn js_calls(sizes: &Sizes, tmp: &Path, js: &Path) -> Result<JsCalls, Error> {
    use hwf_host::broker::journal::Durability;
    let script = js.join("calls.js");
    std::fs::write(
        &script,
        "export const meta = { name: \"calls\", description: \"n sequential agent calls\" };\nlet n = 0;\nfor (let i = 0; i < args.n; i++) {\n  const r = await agent(`task ${i}`, { label: \"echo\" });\n  if (r !== null) n++;\n}\nreturn n;\n",
    )
    .map_err(|e| Error::io("bench js", e))?;
    let echo = r#"{"responses": [{"match": {"label": "echo"}, "output": "ok", "tokens": 1}]}"#;
    let js_host = |mode: Durability, agents: Arc<FixtureRunner>| -> Result<Hwf, Error> {
        Hwf::builder(tmp.join("state"))
            .telemetry(trace_export())
            .agents(agents)
            .limits(Limits {
                max_calls: u64::MAX,
                max_agent_calls: u64::MAX,
                ..Limits::default()
            })
            .durability(mode)
            .cache_dir(
                std::env::var_os("HWF_CACHE_DIR")
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from),
            )
            .build()
    };
    let n = sizes.n(300, 10) as u64;
    let mut per_mode = Vec::new();
    for mode in [Durability::Sync, Durability::Async] {
        let hwf = js_host(mode, Arc::new(FixtureRunner::from_json(echo)?))?;
        js_run(&hwf, &script, 1, None).await?;
        let (mut ones, mut ns) = (Vec::new(), Vec::new());
        for _ in 0..sizes.reps(3) {
            ones.push(js_run(&hwf, &script, 1, None).await?.0);
            ns.push(js_run(&hwf, &script, n, None).await?.0);
        }
        per_mode.push(median(ns).saturating_sub(median(ones)) / (n - 1) as u32);
    }
    let replay_n = sizes.n(1000, 50) as u64;
    let live = js_host(Durability::Sync, Arc::new(FixtureRunner::from_json(echo)?))?;
    let source = js_run(&live, &script, replay_n, None).await?.1.snapshot.run_id;
    let spans_per_call = trace_cost(&live, &source, replay_n).await?;
    let empty = js_host(Durability::Sync, Arc::new(FixtureRunner::empty()))?;
    let mut replays = Vec::new();
    for _ in 0..sizes.reps(5) {
        let (d, out) = js_run(&empty, &script, replay_n, Some(source.clone())).await?;
        if out.snapshot.counts.replayed != replay_n {
            return Err(bench_err("js replay", format!("{:?}", out.snapshot.counts)));
        }
        replays.push(d);
    }
    Ok(JsCalls {
        sync: per_mode.first().copied().unwrap_or_default(),
        async_: per_mode.get(1).copied().unwrap_or_default(),
        replay: median(replays),
        replay_n,
        spans_per_call,
    })
}

/// What the exporter spends per call on a finished run: its journal's
/// spans built and encoded as OTLP protobuf (median of 5), over its calls.
async fn trace_cost(hwf: &Hwf, run: &RunId, calls: u64) -> Result<Duration, Error> {
    use hwf_core::store::RunStore;
    use hwf_host::telemetry::{ExportSettings, Protocol, RunInfo, exporter, spans};
    let entries = RunStore::entries(&*hwf.store_arc(), run, 0).await?;
    let upto = entries.last().map_or(0, |e| e.seq);
    let info = RunInfo {
        run_id: run.as_str().to_owned(),
        name: "calls".into(),
        ..RunInfo::default()
    };
    let settings = ExportSettings {
        url: String::new(),
        protocol: Protocol::HttpProtobuf,
        headers: Vec::new(),
        service_name: "hwf".into(),
        resource: Vec::new(),
        timeout: Duration::from_secs(1),
        capture_content: false,
    };
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let built = spans::build(&info, &entries, upto, false);
        let n = built.len() as u64;
        let body = exporter::encode(&settings, built).map_err(|e| bench_err("encode", e))?;
        times.push(t.elapsed());
        if n < calls || body.is_empty() {
            return Err(bench_err("trace", format!("{n} spans for {calls} calls")));
        }
    }
    Ok(median(times) / calls.max(1) as u32)
}

/// One whole in-process run of the JS script of `n` calls (resuming `from`).
async fn js_run(
    hwf: &Hwf,
    script: &Path,
    n: u64,
    from: Option<RunId>,
) -> Result<(Duration, hwf_host::RunOutcome), Error> {
    let mut req = hwf_host::RunRequest::new(hwf_host::Target::Path(script.to_path_buf()), json!({ "n": n }));
    req.resume_from = from;
    let t = Instant::now();
    let out = hwf.run(req).await?;
    let d = t.elapsed();
    if out.result != Some(json!(n)) {
        return Err(bench_err("js calls", format!("{:?}", out.snapshot.error)));
    }
    Ok((d, out))
}

/// `--compare`: run scripts/bench-compare.py with each interpreter and
/// collect what it reports (a system it does not find is `absent`, with
/// the reason; nothing is fetched or installed).
fn compare_python(args: &BenchArgs, sizes: &Sizes, tmp: &Path) -> Result<Value, Error> {
    let pythons: Vec<PathBuf> = if args.compare_python.is_empty() {
        std::env::var("HWF_BENCH_PYTHON")
            .ok()
            .filter(|v| !v.is_empty())
            .map(|v| v.split(':').map(PathBuf::from).collect())
            .unwrap_or_else(|| vec![PathBuf::from("python3")])
    } else {
        args.compare_python.clone()
    };
    if !args.compare_script.is_file() {
        return Err(bench_err(
            "compare",
            format!(
                "{} not found (run from the repository root, or pass --compare-script)",
                args.compare_script.display()
            ),
        ));
    }
    let mut systems = Vec::new();
    for py in pythons {
        let mut cmd = std::process::Command::new(&py);
        cmd.arg(&args.compare_script)
            .args(["--calls", &sizes.n(200, 10).to_string()])
            .env("HWF_BENCH_TMP", tmp);
        if sizes.quick {
            cmd.arg("--quick");
        }
        let report = match cmd.output() {
            Ok(out) if out.status.success() => serde_json::from_slice::<Value>(&out.stdout).unwrap_or_else(|e| {
                json!({"system": "error", "python": py.display().to_string(), "error": format!("{e}: {}", String::from_utf8_lossy(&out.stderr).trim())})
            }),
            Ok(out) => json!({"system": "error", "python": py.display().to_string(), "error": format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr).trim())}),
            Err(e) => json!({"system": "absent", "python": py.display().to_string(), "reason": format!("cannot start {}: {e}", py.display())}),
        };
        if report["system"] == "absent" {
            eprintln!(
                "hwf bench --compare: no seed system under {}: {} (docs/BENCHMARKS.md says how to install them)",
                py.display(),
                report["reason"].as_str().unwrap_or("absent")
            );
        }
        systems.push(report);
    }
    Ok(json!(systems))
}

/// Group commit under real concurrency: 16 tasks each append a completion
/// and wait for it to be durable, as the broker's calls do; reports how
/// many fsyncs they needed (1 when all 16 shared one).
async fn group_commit(store: &hwf_host::store::FileStore) -> Result<Value, Error> {
    const TASKS: usize = 16;
    let id = RunId::generate();
    store.create_run(&id)?;
    let journal = Journal::new(store.open_journal(&id)?, 0);
    let syncer = Arc::new(journal.syncer()?);
    let journal = Arc::new(std::sync::Mutex::new(journal));
    let result = json!({"ok": true});
    let gate = Arc::new(tokio::sync::Barrier::new(TASKS));
    let t = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..TASKS {
        let (journal, syncer, gate, result) = (journal.clone(), syncer.clone(), gate.clone(), result.clone());
        tasks.spawn(async move {
            gate.wait().await;
            let call = i.to_string();
            let seq = journal
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .append(&Event::CallCompleted {
                    call: &call,
                    kind: "agent",
                    label: None,
                    fingerprint: "b3:0000",
                    ok: true,
                    result: Some(&result),
                    error: None,
                    tokens: 1,
                    usage: hwf_host::agents::TokenUsage::default(),
                    cost_micro_usd: 0,
                    attempts: 1,
                    duration_us: 5,
                    replayed: false,
                    cache_hit: false,
                })?;
            syncer.sync_to(seq).await
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.map_err(|e| bench_err("group commit task", e))??;
    }
    Ok(json!({"completions": TASKS, "fsyncs": syncer.syncs(), "wall_us": us(t.elapsed())}))
}

/// The best a flush can do on this disk: `n` 200-byte lines written in
/// place over preallocated zeros, each followed by `fdatasync` (no file
/// size to change: what the journal's preallocation aims at). Returns the
/// mean per line (as a call's figure is its run's time over its calls) and
/// the median line.
fn raw_overwrite_fdatasync(tmp: &Path, n: usize) -> Result<(Duration, Duration), Error> {
    use std::os::unix::fs::FileExt as _;
    let path = tmp.join("raw-overwrite.log");
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io("raw overwrite file", e))?;
    let mut line = vec![b'x'; 199];
    line.push(b'\n');
    f.write_all_at(&vec![0u8; n * line.len() + 4096], 0)
        .and_then(|()| f.sync_all())
        .map_err(|e| Error::io("raw overwrite", e))?;
    let mut times = Vec::with_capacity(n);
    let all = Instant::now();
    for i in 0..n {
        let t = Instant::now();
        f.write_all_at(&line, (i * line.len()) as u64)
            .and_then(|()| f.sync_data())
            .map_err(|e| Error::io("raw overwrite", e))?;
        times.push(t.elapsed());
    }
    Ok((all.elapsed() / n.max(1) as u32, median(times)))
}

/// The floor a durable call is measured against: `n` appends of a 200-byte
/// line, each followed by `fdatasync`, to a growing file. Returns the mean
/// per append (the same measure as a call's figure: a run's time over its
/// calls) and the median append.
fn raw_append_fdatasync(tmp: &Path, n: usize) -> Result<(Duration, Duration), Error> {
    use std::io::Write as _;
    let path = tmp.join("raw-flush.log");
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| Error::io("raw flush file", e))?;
    let line = [b'x'; 199]
        .iter()
        .copied()
        .chain(std::iter::once(b'\n'))
        .collect::<Vec<u8>>();
    let mut times = Vec::with_capacity(n);
    let all = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        f.write_all(&line).map_err(|e| Error::io("raw flush", e))?;
        f.sync_data().map_err(|e| Error::io("raw flush", e))?;
        times.push(t.elapsed());
    }
    Ok((all.elapsed() / n.max(1) as u32, median(times)))
}

fn p90(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v.get(v.len() * 9 / 10).copied().unwrap_or_default()
}
