//! Resource finalizers (issue 19) through the real binary: a JS workflow
//! declares a temp workspace with `resource.declare` and a finalizer (a
//! `bash` call that appends a line to a counter file, pre-approved); the
//! finalizer runs exactly once when the run ends — also when the run was
//! killed with -9 and a runner recovered it — and status shows the outcome.

use crate::common::{Ctx, status};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const FIN_JS: &str = r#"export const meta = { name: "fin", description: "declares a temp workspace, then works" };
const ws = await capability("resource.declare", { kind: "temp_workspace", name: "scratch",
  finalizer: { capability: "bash", input: { argv: ["sh", "-c", "echo finalized >> count.txt"] }, approval_id: "fin" } });
const a = await agent("slow step", { label: "slow" });
return { ws: ws.path, a };
"#;

const POLICY: &str = "[policy]\nallowed_classes = [\"read_only\", \"external_write\"]\napproved_ids = [\"fin=bash\"]\n";

fn setup(ctx: &Ctx, fixture: &Value) -> (String, String, String) {
    let js = ctx.write("fin.js", FIN_JS);
    let cfg = ctx.write("hwf.toml", POLICY);
    let fx = ctx.write("fx.json", fixture.to_string());
    let s = |p: std::path::PathBuf| p.to_str().expect("utf8").to_owned();
    (s(js), s(cfg), s(fx))
}

fn count(ctx: &Ctx) -> usize {
    std::fs::read_to_string(ctx.path("count.txt")).map_or(0, |t| t.lines().count())
}

#[test]
fn a_finalizer_runs_once_when_the_run_ends_and_status_shows_it() {
    let ctx = Ctx::new();
    let (js, cfg, fx) = setup(
        &ctx,
        &json!({"responses": [{"match": {"label": "slow"}, "output": {"ok": 1}}]}),
    );
    let out = ctx.hwf(["--config", &cfg, "run", &js, "--agents", &fx, "--json"]);
    out.expect_code(0);
    let id = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let ws = out.json()["data"]["result"]["ws"].as_str().expect("ws").to_owned();
    assert!(
        !std::path::Path::new(&ws).exists(),
        "the temp workspace {ws} was removed"
    );
    assert_eq!(count(&ctx), 1);
    let s = status(&ctx, &id);
    assert_eq!(s["resources"][0]["kind"], "temp_workspace", "{s}");
    assert_eq!(s["resources"][0]["outcome"]["state"], "ok", "{s}");
    assert_eq!(s["resources"][0]["outcome"]["kind"], "temp_workspace", "{s}");
    // A failed run is finalized too; a finalizer its policy refuses is
    // recorded as failed (the run's own outcome stands).
    let ctx = Ctx::new();
    let (js, _, fx) = setup(&ctx, &json!({"responses": []}));
    // No ./hwf.toml here: the default policy does not allow bash.
    std::fs::remove_file(ctx.path("hwf.toml")).expect("rm");
    let failing = FIN_JS.replace(
        "const a = await agent(\"slow step\", { label: \"slow\" });",
        "throw new Error(\"boom\");",
    );
    assert_ne!(failing, FIN_JS);
    std::fs::write(&js, failing).expect("js");
    let out = ctx.hwf(["run", &js, "--agents", &fx, "--json"]);
    out.expect_code(1);
    let id = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let s = status(&ctx, &id);
    assert_eq!(s["resources"][0]["outcome"]["state"], "failed", "{s}");
    assert_eq!(count(&ctx), 0, "bash was not allowed, so the finalizer did not run it");
    let path = s["resources"][0]["path"].as_str().expect("path");
    assert!(
        !std::path::Path::new(path).exists(),
        "the temp workspace is still removed"
    );
}

#[test]
fn a_run_killed_after_declaring_a_resource_is_finalized_once_on_recovery() {
    let ctx = Ctx::new();
    let slow = json!({"responses": [{"match": {"label": "slow"}, "output": {"ok": 1}, "delay_ms": 120_000}]});
    let (js, cfg, fx) = setup(&ctx, &slow);
    let mut child = ctx
        .cmd()
        .args(["--config", &cfg, "run", &js, "--agents", &fx, "--json"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    // Wait (by polling the journal, with a deadline) until the resource is
    // declared and the slow call has started, then kill -9.
    let deadline = Instant::now() + Duration::from_secs(120);
    let id = loop {
        assert!(Instant::now() < deadline, "the run never declared its resource");
        let runs = std::fs::read_dir(ctx.state().join("runs")).map(|d| d.flatten().collect::<Vec<_>>());
        if let Some(run) = runs.ok().and_then(|r| r.into_iter().next()) {
            let text = std::fs::read_to_string(run.path().join("journal.jsonl")).unwrap_or_default();
            if text.contains("\"resource.declare\"") && text.contains("\"slow\"") {
                break run.file_name().to_string_lossy().into_owned();
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().expect("kill -9");
    child.wait().expect("wait");
    assert_eq!(status(&ctx, &id)["state"], "stuck", "left running by a dead executor");
    assert_eq!(count(&ctx), 0, "nothing finalized yet");
    let ws = status(&ctx, &id)["resources"][0]["path"]
        .as_str()
        .expect("path")
        .to_owned();
    assert!(std::path::Path::new(&ws).is_dir());
    assert_eq!(status(&ctx, &id)["resources"][0]["outcome"]["state"], "pending");
    // The agent answers at once now; the runner takes the stuck run over.
    std::fs::write(
        &fx,
        json!({"responses": [{"match": {"label": "slow"}, "output": {"ok": 2}}]}).to_string(),
    )
    .expect("fixture");
    let r = ctx.hwf(["runner", "--once", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["data"]["executed"], json!([[id, "succeeded"]]), "{r:?}");
    assert_eq!(count(&ctx), 1, "finalized exactly once");
    assert!(!std::path::Path::new(&ws).exists());
    let s = status(&ctx, &id);
    assert_eq!(s["resources"][0]["outcome"]["state"], "ok", "{s}");
    // The declaration was replayed, not run again: one completed declare call.
    let declares = ctx
        .journal(&id)
        .iter()
        .filter(|e| e["type"] == "call_completed" && e["result"]["resource_id"].is_string() && e["replayed"] != true)
        .count();
    assert_eq!(declares, 1);
    // Nothing more on later passes.
    ctx.hwf(["runner", "--once", "--json"]).expect_code(0);
    assert_eq!(count(&ctx), 1);
}

#[test]
fn a_run_stopped_while_parked_is_finalized_by_the_runner() {
    let ctx = Ctx::manual_runner();
    let (js, cfg, _) = setup(&ctx, &json!({"responses": []}));
    let parked = FIN_JS.replace(
        "const a = await agent(\"slow step\", { label: \"slow\" });",
        "const a = await capability(\"human.ask\", { prompt: \"go on?\" });",
    );
    assert_ne!(parked, FIN_JS);
    std::fs::write(&js, parked).expect("js");
    let out = ctx.hwf(["--config", &cfg, "run", &js, "--json"]);
    out.expect_code(3);
    let id = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    assert_eq!(count(&ctx), 0, "parked is not ended");
    assert_eq!(status(&ctx, &id)["resources"][0]["outcome"]["state"], "pending");
    ctx.hwf(["control", "stop", &id]).expect_code(0);
    let r = ctx.hwf(["runner", "--once", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["data"]["stopped"], json!([id]), "{r:?}");
    assert_eq!(count(&ctx), 1);
    let s = status(&ctx, &id);
    assert_eq!(
        (&s["state"], &s["resources"][0]["outcome"]["state"]),
        (&json!("stopped"), &json!("ok")),
        "{s}"
    );
    ctx.hwf(["runner", "--once", "--json"]).expect_code(0);
    assert_eq!(count(&ctx), 1);
}

/// Run `hwf args…` in the background and kill -9 it once the run's journal
/// has `starts` executions whose slow call has started.
fn kill_when_slow(ctx: &Ctx, args: &[&str], starts: usize) {
    let mut child = ctx
        .cmd()
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if Instant::now() >= deadline {
            // What the run looked like, for the next reader of a failure.
            let _ = child.kill();
            let journal: Vec<String> = std::fs::read_dir(ctx.state().join("runs"))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|r| std::fs::read_to_string(r.path().join("journal.jsonl")).ok())
                .flat_map(|t| {
                    t.lines()
                        .map(|l| l.chars().take(160).collect::<String>())
                        .collect::<Vec<_>>()
                })
                .collect();
            panic!("execution {starts} never reached the slow call; journal: {journal:#?}");
        }
        let runs = std::fs::read_dir(ctx.state().join("runs")).map(|d| d.flatten().collect::<Vec<_>>());
        if let Some(run) = runs.ok().and_then(|r| r.into_iter().next()) {
            let text = std::fs::read_to_string(run.path().join("journal.jsonl")).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            let started = lines.iter().filter(|l| l.contains("\"type\":\"run_started\"")).count();
            let after_last = lines
                .iter()
                .rposition(|l| l.contains("\"type\":\"run_started\""))
                .is_some_and(|i| {
                    lines[i..]
                        .iter()
                        .any(|l| l.contains("\"call_started\"") && l.contains("\"slow\""))
                });
            if started == starts && after_last {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("kill -9");
    child.wait().expect("wait");
    // A runner continues a run whose executor died in a process of its own
    // (`--isolated-for`), which the kernel kills when its runner dies
    // (`PDEATHSIG`) — after the runner is reaped, not before. Until it is
    // gone it holds the run's claim, and the next `runner --once` would
    // find the run running and leave it: wait until nobody holds it.
    let id = std::fs::read_dir(ctx.state().join("runs"))
        .expect("runs")
        .flatten()
        .next()
        .expect("a run")
        .file_name()
        .into_string()
        .expect("utf8 id");
    let deadline = Instant::now() + Duration::from_secs(30);
    while status(ctx, &id)["state"] != "stuck" {
        assert!(
            Instant::now() < deadline,
            "execution {starts}'s process never let the run go"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_crash_looping_run_is_quarantined_and_finalized_once() {
    let ctx = Ctx::new();
    let slow = json!({"responses": [{"match": {"label": "slow"}, "output": {"ok": 1}, "delay_ms": 120_000}]});
    let (js, cfg, fx) = setup(&ctx, &slow);
    kill_when_slow(&ctx, &["--config", &cfg, "run", &js, "--agents", &fx, "--json"], 1);
    kill_when_slow(&ctx, &["runner", "--once", "--json"], 2);
    kill_when_slow(&ctx, &["runner", "--once", "--json"], 3);
    // The first execution made progress (it declared the resource live), so
    // only the next ones count toward the crash loop (issue 29): a third
    // death without progress quarantines it.
    kill_when_slow(&ctx, &["runner", "--once", "--json"], 4);
    assert_eq!(count(&ctx), 0);
    let r = ctx.hwf(["runner", "--once", "--json"]);
    r.expect_code(0);
    let id = r.json()["data"]["executed"][0][0].as_str().expect("id").to_owned();
    assert_eq!(r.json()["data"]["executed"][0][1], "failed", "{r:?}");
    let s = status(&ctx, &id);
    assert_eq!(s["error"]["code"], "crash_loop", "{s}");
    assert_eq!(s["resources"][0]["outcome"]["state"], "ok", "{s}");
    assert_eq!(count(&ctx), 1, "finalized exactly once");
    ctx.hwf(["runner", "--once", "--json"]).expect_code(0);
    assert_eq!(count(&ctx), 1);
}
