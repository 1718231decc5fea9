//! `hwf bench`'s JavaScript call figures (issue 15): a saved-script-free
//! JavaScript workflow of `n` sequential fixture agent calls, run in-process
//! on the bundled runtime (precompiled and cached first), in a state dir
//! the caller chooses (on tmpfs the flush is cheap, so the figures are the
//! call path's CPU):
//!
//! - `replay_calls_ms`: resume a finished `n`-call run with no agent
//!   backend (every call replayed), the whole `Hwf::run` — source journal
//!   read and indexed, script run, final record — as the Rust harness's
//!   `resume_1000_call_run_ms`;
//! - `agent_call_us`: per live call, `(run of n calls − run of 0 calls) / n`,
//!   per durability mode (the same subtraction as `fixture_agent_call_us`).
//!
//! `scripts/bench-js-replay.py` measures the same through the `hwf` binary.

use hwf_host::agents::FixtureRunner;
use hwf_host::broker::journal::Durability;
use hwf_host::ids::RunId;
use hwf_host::{Error, ErrorCode, Hwf, Limits, RunRequest, Target};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

const SCRIPT: &str = "export const meta = { name: \"bench-calls\", description: \"n sequential agent calls\" };\n\
let n = 0;\n\
for (let i = 0; i < args.n; i++) {\n\
  const r = await agent(`task ${i}`, { label: \"echo\" });\n\
  if (r !== null) n++;\n\
}\n\
return n;\n";

const FIXTURE: &str = r#"{"responses": [{"match": {"label": "echo"}, "output": "ok", "tokens": 1}]}"#;

fn err(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::Internal, format!("bench js {what}: {e}"))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1000.0
}

fn host(state: &Path, agents: FixtureRunner, calls: u64, durability: Durability) -> Result<Hwf, Error> {
    Hwf::builder(state.to_path_buf())
        .agents(Arc::new(agents))
        .limits(Limits {
            max_calls: 4 * calls + 100,
            max_agent_calls: calls + 10,
            ..Limits::default()
        })
        .durability(durability)
        .cache_dir(
            std::env::var_os("HWF_CACHE_DIR")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        )
        .build()
}

/// One run of the script over `n` calls; `resume_from` replays a run.
async fn timed(hwf: &Hwf, script: &Path, n: u64, resume_from: Option<&RunId>) -> Result<(Duration, RunId), Error> {
    let mut req = RunRequest::new(Target::Path(script.to_path_buf()), json!({"n": n}));
    req.resume_from = resume_from.cloned();
    let t = Instant::now();
    let out = hwf.run(req).await?;
    let took = t.elapsed();
    if out.result != Some(json!(n)) {
        return Err(err("run", format!("{:?} {:?}", out.snapshot.state, out.snapshot.error)));
    }
    if resume_from.is_some() && (out.snapshot.counts.replayed != n || out.snapshot.counts.failed != 0) {
        return Err(err(
            "replay",
            format!("not every call replayed: {:?}", out.snapshot.counts),
        ));
    }
    Ok((took, out.snapshot.run_id))
}

/// The figures, or `Value::Null` when the JavaScript runtime is not
/// installed. `state` is a directory of its own (e.g. on /dev/shm), `n`
/// the calls per run (1,000 in a full bench), `reps` the runs per median.
///
/// # Errors
///
/// A run that fails or does not replay every call.
pub async fn run(state: &Path, n: u64, reps: usize) -> Result<Value, Error> {
    if hwf_host::scripts::runtime_path(hwf_host::scripts::Language::Js).is_err() {
        return Ok(Value::Null);
    }
    std::fs::create_dir_all(state).map_err(|e| Error::io("bench js state", e))?;
    let script = state.join("bench-calls.js");
    std::fs::write(&script, SCRIPT).map_err(|e| Error::io("bench js script", e))?;
    let reps = reps.max(1);

    let mut per_call = serde_json::Map::new();
    let mut source = None;
    for mode in [Durability::Sync, Durability::Group, Durability::Async] {
        let live = host(state, FixtureRunner::from_json(FIXTURE)?, n, mode)?;
        // Warm: the runtime's compile cache and the first instance.
        timed(&live, &script, 0, None).await?;
        let (mut empty, mut full) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            empty.push(timed(&live, &script, 0, None).await?.0);
            let (took, id) = timed(&live, &script, n, None).await?;
            full.push(took);
            source = Some(id);
        }
        let call = median(full).saturating_sub(median(empty)) / u32::try_from(n.max(1)).unwrap_or(u32::MAX);
        per_call.insert(
            mode.as_str().to_owned(),
            json!((call.as_secs_f64() * 1e7).round() / 10.0),
        );
    }
    let source = source.ok_or_else(|| err("replay", "no source run"))?;

    let replayer = host(state, FixtureRunner::empty(), n, Durability::Sync)?;
    timed(&replayer, &script, n, Some(&source)).await?;
    let mut replays = Vec::new();
    for _ in 0..reps {
        replays.push(timed(&replayer, &script, n, Some(&source)).await?.0);
    }
    Ok(json!({
        "calls": n,
        "runs": reps,
        "replay_calls_ms": ms(median(replays)),
        "agent_call_us": per_call,
    }))
}
