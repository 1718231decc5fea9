//! Python compute: the benchmark scripts of `benches/py-compute` (the
//! JavaScript set's work written as seed-style Python) return what CPython
//! returns when it runs them as the seed does, within the default CPU limit
//! (fuel: the same instruction count on every machine). Two of them were
//! quadratic in Monty and ended with `cpu_limit`: a report built by
//! `s += …` 200,000 times and a 100,000-element set filled out of order.

use crate::common::Ctx;
use crate::js_compute::matches_recorded;

#[test]
fn the_python_compute_scripts_return_cpythons_results_within_the_default_cpu_limit() {
    let ctx = Ctx::new();
    // `expected/<name>.json`: `python3 tests/e2e/idioms/seed_ref.py
    // benches/py-compute/<name>.py benches/py-compute/no-agents.fixture.json null`'s result.
    for name in [
        "strings",
        "dict-set",
        "sort-numbers",
        "sort-objects",
        "json-text",
        "crunch",
    ] {
        matches_recorded(&ctx, "benches/py-compute", &format!("{name}.py"), &[]);
    }
}

/// The crunching every Python work unit below does on its agent's answer:
/// `s +=` reports, an index walk and `find` loop over non-ASCII text, a
/// set filled out of order with discards, a dict with most keys deleted,
/// keys sharing their low bits (the paths made linear this session).
const CRUNCH: &str = r#"
def crunch(tag, n):
    text = ""
    for i in range(n):
        text += f"{tag}·{i};"
    commas = 0
    i = 0
    while i < len(text):
        if text[i] == ";":
            commas += 1
        i += 1
    found = 0
    j = -1
    while True:
        j = text.find("·", j + 1)
        if j == -1:
            break
        found += 1
    seen = set()
    for k in range(n):
        seen.add((k * 7919) % 1009)
    for k in range(0, n, 3):
        seen.discard((k * 7919) % 1009)
    d = {f"k{k}": k for k in range(n)}
    for k in range(0, n, 4):
        del d[f"k{k}"]
    wide = {k << 20: k for k in range(n)}
    return [len(text), commas, found, len(seen), sorted(seen)[:3], list(d)[:3], len(d), len(wide)]
"#;

/// The kill -9 / continuation / `--resume-from` seam for those paths: the
/// same work inside `parallel` branches, `pipeline` stages and a nested
/// workflow, each after an agent that takes 60 ms. Killed once three
/// answers are journaled, continued by the runner, then resumed with no
/// agent at all: the result is an uninterrupted run's every time, and no
/// completed call runs twice.
#[test]
fn the_linear_paths_hold_in_branches_stages_and_nested_workflows_across_kill_9_and_resume() {
    let ctx = Ctx::new();
    let fixture = ctx.write(
        "slow.json",
        serde_json::json!({"responses": [{"match": {"label": "step"}, "output": {"n": 300}, "delay_ms": 60}]})
            .to_string(),
    );
    let fixture = fixture.to_str().expect("utf8");
    let child = ctx.write(
        "child.py",
        format!(
            "meta = {{\"name\": \"child\", \"description\": \"nested crunch\"}}\n{CRUNCH}\n\
             r = await agent(\"nested\", label=\"step\")\nreturn crunch(\"nested\", r[\"n\"])\n"
        ),
    );
    ctx.hwf(["script", "save", "child", child.to_str().expect("utf8"), "--json"])
        .expect_code(0);
    let parent = ctx.write(
        "parent.py",
        format!(
            "meta = {{\"name\": \"parent\", \"description\": \"crunch at the seams\"}}\n{CRUNCH}\n\
             async def branch(i):\n    r = await agent(f\"branch {{i}}\", label=\"step\")\n    return crunch(f\"b{{i}}\", r[\"n\"] + i)\n\
             branches = await parallel([lambda i=i: branch(i) for i in range(3)])\n\
             async def stage1(item):\n    r = await agent(f\"stage {{item}}\", label=\"step\")\n    return crunch(f\"s{{item}}\", r[\"n\"] - item)\n\
             def stage2(prev, item, index):\n    return prev + [index]\n\
             stages = await pipeline([1, 2], stage1, stage2)\n\
             nested = await workflow(\"child\", {{}})\n\
             return {{\"branches\": branches, \"stages\": stages, \"nested\": nested}}\n"
        ),
    );
    let parent = parent.to_str().expect("utf8");

    // An uninterrupted run: the expected result.
    let whole = ctx.run_json(parent, "null", &["--agents", fixture]);
    whole.expect_code(0);
    let expected = whole.json()["data"]["result"].clone();
    // Each unit counted its own text: n separators and n `·` for its n.
    for (unit, n) in [
        (&expected["branches"][0], 300),
        (&expected["branches"][2], 302),
        (&expected["stages"][1], 298),
        (&expected["nested"], 300),
    ] {
        assert_eq!(
            (&unit[1], &unit[2]),
            (&serde_json::json!(n), &serde_json::json!(n)),
            "{expected}"
        );
    }

    survives_kill_9_the_runner_and_resume(&ctx, parent, fixture, &expected, 6);
}

/// Runs `parent` (a Python script making `calls` agent calls of 60 ms
/// through `fixture`) as run `r-seams`, kills it with kill -9 once three
/// answers are journaled, lets `runner --once` continue it, then resumes
/// it with `--resume-from` and no agent: each time the result is
/// `expected` (an uninterrupted run's), and no answer journaled before
/// the kill is asked for again.
pub(crate) fn survives_kill_9_the_runner_and_resume(
    ctx: &Ctx,
    parent: &str,
    fixture: &str,
    expected: &serde_json::Value,
    calls: usize,
) {
    // Killed mid-run, continued by the runner.
    let mut run = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
        .args(["run", parent, "--agents", fixture, "--run-id", "r-seams", "--json"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let journal = ctx.state().join("runs/r-seams/journal.jsonl");
    let answered = || {
        std::fs::read_to_string(&journal)
            .unwrap_or_default()
            .matches("\"call_completed\"")
            .count()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while answered() < 3 {
        assert!(std::time::Instant::now() < deadline, "the run never got going");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    run.kill().expect("kill -9");
    let _ = run.wait();
    let completed: Vec<String> = std::fs::read_to_string(&journal)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "call_completed" && e["kind"] == "agent")
        .filter_map(|e| e["call"].as_str().map(str::to_owned))
        .collect();
    let out = ctx
        .cmd()
        .env("HWF_FIXTURE_LOG", ctx.path("calls.log"))
        .args(["runner", "--once", "--agents", fixture])
        .output()
        .expect("runner");
    assert!(out.status.success(), "{out:?}");
    let s = ctx.hwf(["status", "r-seams", "--json"]).json();
    assert_eq!(s["data"]["state"], "succeeded", "{s}");
    assert_eq!(&s["data"]["result"], expected, "{s}");
    // No answer journaled before the kill was asked for again.
    let log = std::fs::read_to_string(ctx.path("calls.log")).expect("calls.log");
    let ran = |call: &str| {
        log.lines()
            .filter(|l| {
                l.split_whitespace()
                    .next()
                    .and_then(|k| k.rsplit_once(':'))
                    .is_some_and(|(_, c)| c == call)
            })
            .count()
    };
    // Killed mid-run: some of the agent calls were left to the runner.
    assert!((3..calls).contains(&completed.len()), "{completed:?}");
    for call in &completed {
        assert_eq!(ran(call), 1, "call {call} ran again:\n{log}");
    }

    // Resumed with no agent: every call replays, the same result.
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let again = ctx.hwf([
        "run",
        "--resume-from",
        "r-seams",
        "--agents",
        empty.to_str().expect("utf8"),
        "--json",
    ]);
    again.expect_code(0);
    assert_eq!(&again.json()["data"]["result"], expected);
}
