//! Conformance with what users already wrote: a port of Claude Code's
//! bundled deep-research workflow runs unchanged, and every test that
//! `docs/CONFORMANCE.md` names as proof exists.

use crate::common::{Ctx, root};
use serde_json::json;

#[test]
fn deep_research_port_runs_unchanged() {
    let ctx = Ctx::new();
    let script = root().join("harnesses/deep-research.js");
    let fixture = root().join("harnesses/deep-research.fixture.json");
    let (script, fixture) = (script.to_str().expect("utf8"), fixture.to_str().expect("utf8"));
    let v = ctx.hwf(["validate", script, "--json"]);
    v.expect_code(0);
    let phases: Vec<String> = v.json()["data"]["meta"]["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| p["title"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(phases, ["Scope", "Search", "Fetch", "Verify", "Synthesize"]);

    let out = ctx.run_json(
        script,
        r#""Is WebAssembly faster than JavaScript?""#,
        &["--agents", fixture, "--max-parallel", "8"],
    );
    out.expect_code(0);
    let data = out.json()["data"].clone();
    // One URL came from two searches (deduped); one page could not be
    // fetched (null, dropped by the pipeline); one claim was refuted by two
    // of three skeptics; a dead skeptic is unverified, not a refutation.
    assert_eq!(
        data["result"],
        json!({
            "question": "Is WebAssembly faster than JavaScript?",
            "report": "Wasm wins on tight compute loops; JIT-compiled JS holds its own on DOM-heavy code.",
            "sources": ["https://a.example/bench", "https://b.example/cmp", "https://c.example/boot"],
            "claims": [
                {"claim": "Wasm runs tight compute loops about 1.5x faster than JS", "url": "https://a.example/bench"},
                {"claim": "JIT-compiled JS matches Wasm on DOM-heavy code", "url": "https://b.example/cmp"}
            ],
            "refuted": ["Wasm is always faster than JS"]
        })
    );
    let journal = ctx.journal(data["run_id"].as_str().expect("id"));
    let labels: Vec<&str> = journal
        .iter()
        .filter(|e| e["type"] == "call_started" && e["kind"] == "agent")
        .filter_map(|e| e["label"].as_str())
        .collect();
    // scope + 2 searches + 3 fetches + 3 claims x 3 votes + synthesize.
    assert_eq!(labels.len(), 1 + 2 + 3 + 9 + 1, "{labels:?}");
    let titles: Vec<&str> = journal
        .iter()
        .filter(|e| e["type"] == "phase")
        .filter_map(|e| e["title"].as_str())
        .collect();
    assert_eq!(titles, ["Scope", "Search", "Fetch", "Verify", "Synthesize"]);

    // Replay with no agent backend gives the same report.
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let again = ctx.hwf([
        "run",
        "--resume-from",
        data["run_id"].as_str().expect("id"),
        "--agents",
        empty.to_str().expect("utf8"),
        "--json",
    ]);
    again.expect_code(0);
    assert_eq!(again.json()["data"]["result"], data["result"]);

    // Without a question it says what to pass.
    let out = ctx.run_json(script, "null", &["--agents", fixture]);
    out.expect_code(0);
    assert!(
        out.json()["data"]["result"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("No research question")),
        "{}",
        out.stdout
    );
}

#[test]
fn every_test_the_conformance_table_cites_exists() {
    let doc = std::fs::read_to_string(root().join("docs/CONFORMANCE.md")).expect("docs/CONFORMANCE.md");
    let mut cited = 0;
    for cell in doc.split('`') {
        // Test references look like `module::test_name`.
        let Some((module, test)) = cell.split_once("::") else {
            continue;
        };
        if !module.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            || !test
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            || test.is_empty()
        {
            continue;
        }
        let file = root().join(format!("tests/e2e/{module}.rs"));
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{cell}: {}: {e}", file.display()));
        assert!(
            text.contains(&format!("fn {test}()")),
            "docs/CONFORMANCE.md cites {cell}, which does not exist"
        );
        cited += 1;
    }
    assert!(cited >= 20, "the table cites only {cited} tests");
}
