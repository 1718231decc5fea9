//! Journals linear in their distinct content (issue 25, item 3), through
//! the real binary: a JS loop of agent calls whose prompt is the
//! conversation so far keeps each large prompt by content, in chunks
//! shared with the previous prompt, so the state dir holds about the
//! distinct text once (before: the sum of the prompts, 30 MB here). A
//! `--resume-from` of the run replays every call and adds little; `hwf
//! status` and the console's call detail read it; `hwf store export`
//! copies the chunks, and the copy resumes in its new store.

use crate::common::{Ctx, root, run_id, status};
use serde_json::{Value, json};
use std::path::Path;

/// A growing conversation: a pseudo-random base of `base` bytes, then
/// `calls` agent calls, each sent the whole conversation so far, each
/// answer appended to it.
pub const GROW_JS: &str = r#"export const meta = { name: "grow", description: "a conversation that grows by its answers" };
let x = 20261202;
const parts = [];
let n = 0;
while (n < args.base) {
  x = (x * 48271) % 2147483647;
  const w = x.toString(36) + ((x % 7) == 0 ? ".\n" : " ");
  parts.push(w);
  n += w.length;
}
let convo = parts.join("");
for (let i = 0; i < args.calls; i++) {
  const answer = await agent(convo + "\nWhat next?", { label: "turn" });
  convo += "\nQ" + i + ": What next?\nA: " + answer;
}
return { turns: args.calls, length: convo.length };
"#;

/// A fixture answering `calls` turns, each with ~2 KB of distinct text.
pub fn grow_fixture(calls: usize) -> Value {
    let mut x: u64 = 7;
    let answers: Vec<Value> = (0..calls)
        .map(|i| {
            let mut s = format!("answer {i}: ");
            while s.len() < 2000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push_str(&format!("{:x} ", x % 1_000_003));
            }
            json!({"output": s})
        })
        .collect();
    json!({"responses": [{"match": {"label": "turn"}, "sequence": answers}]})
}

/// Bytes of every file under `dir`.
pub fn tree_bytes(dir: &Path) -> u64 {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        match entry.metadata() {
            Ok(m) if m.is_dir() => n += tree_bytes(&p),
            Ok(m) => n += m.len(),
            Err(_) => {}
        }
    }
    n
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf8 path")
}

#[test]
fn a_growing_conversation_is_stored_once_and_resumes_replaying_every_call() {
    let ctx = Ctx::new();
    let script = ctx.write("grow.js", GROW_JS);
    let fixture = ctx.write("grow.fixture.json", grow_fixture(100).to_string());
    let args = r#"{"base": 204800, "calls": 100}"#;
    let first = ctx.run_json(s(&script), args, &["--agents", s(&fixture)]);
    first.expect_code(0);
    let first = first.json();
    assert_eq!(first["data"]["result"]["turns"], 100, "{first}");
    assert_eq!(first["data"]["counts"]["agent_calls"], 100, "{first}");
    let id = run_id(&first);
    let state = ctx.state();
    let stored = tree_bytes(&state);
    let journal = std::fs::metadata(state.join("runs").join(&id).join("journal.jsonl"))
        .expect("journal")
        .len();
    let chunks = tree_bytes(&state.join("chunks"));
    println!("100 calls, 200 KB base: state dir {stored} B (journal {journal} B, chunks {chunks} B)");
    // The prompts add up to ~30 MB; their distinct text is ~0.4 MB.
    assert!(stored < 3_000_000, "the state dir holds {stored} bytes");

    // Each agent call's line keeps a ref and the request's small fields,
    // not the prompt; the answers (2 KB) stay inline.
    let lines = ctx.journal(&id);
    let started: Vec<&Value> = lines
        .iter()
        .filter(|e| e["type"] == "call_started" && e["kind"] == "agent")
        .collect();
    assert_eq!(started.len(), 100);
    for e in &started {
        assert!(e["request_ref"]["b3"].as_str().is_some_and(|h| h.len() == 64), "{e}");
        assert!(e["request_ref"]["len"].as_u64().is_some_and(|n| n > 200_000), "{e}");
        assert!(e["request"].get("prompt").is_none(), "the prompt is inline: {e}");
        assert_eq!(e["request"]["label"], "turn", "{e}");
    }
    let completed = lines
        .iter()
        .filter(|e| e["type"] == "call_completed" && e["kind"] == "agent")
        .filter(|e| e["result"].as_str().is_some_and(|r| r.starts_with("answer ")))
        .count();
    assert_eq!(completed, 100, "answers stay inline");

    // Status reads the compact journal; the console's call detail reads
    // the whole request back from its chunks.
    let st = status(&ctx, &id);
    assert_eq!(st["calls"].as_array().map(Vec::len), Some(100), "{st}");
    assert!(
        st["calls"]
            .as_array()
            .expect("calls")
            .iter()
            .all(|c| c["state"] == "done"),
        "{st}"
    );

    // --resume-from with no agent that could answer: every call replays
    // (fingerprints of the whole requests match), and little is added.
    let empty = ctx.write("empty.json", r#"{"responses": []}"#);
    let again = ctx.hwf(["run", "--resume-from", &id, "--agents", s(&empty), "--json"]);
    again.expect_code(0);
    let again = again.json();
    assert_eq!(again["data"]["result"], first["data"]["result"], "{again}");
    assert_eq!(again["data"]["counts"]["replayed"], 100, "{again}");
    let resumed = run_id(&again);
    let after = tree_bytes(&state);
    println!(
        "--resume-from added {} B (its journal {} B)",
        after - stored,
        std::fs::metadata(state.join("runs").join(&resumed).join("journal.jsonl"))
            .expect("journal")
            .len()
    );
    assert!(after - stored < 600_000, "the resume added {} bytes", after - stored);
    assert_eq!(
        tree_bytes(&state.join("chunks")),
        chunks,
        "a replay stores no chunk again"
    );

    // A copy to a fresh state dir takes the chunks along, and resumes there.
    let exported = ctx.path("exported");
    let out = ctx.hwf(["store", "export", "--to", s(&exported), "--json"]);
    out.expect_code(0);
    let report = out.json()["data"]["report"].clone();
    assert!(
        report["payload_chunks"]["copied"].as_u64().is_some_and(|n| n > 0),
        "{report}"
    );
    assert!(
        tree_bytes(&exported.join("chunks")) <= chunks,
        "the copy holds more chunk bytes than the source"
    );
    let there = ctx
        .cmd()
        .env("HWF_STATE_DIR", &exported)
        .args(["run", "--resume-from", &id, "--agents", s(&empty), "--json"])
        .output()
        .expect("spawn hwf");
    let there: crate::common::Run = there.into();
    there.expect_code(0);
    let there = there.json();
    assert_eq!(there["data"]["result"], first["data"]["result"], "{there}");
    assert_eq!(there["data"]["counts"]["replayed"], 100, "{there}");
    // A second export copies no chunk again.
    let twice = ctx.hwf(["store", "export", "--to", s(&exported), "--json"]);
    twice.expect_code(0);
    assert_eq!(twice.json()["data"]["report"]["payload_chunks"]["copied"], 0);
}

#[test]
fn small_payloads_stay_inline_and_old_inline_lines_still_read() {
    let ctx = Ctx::new();
    let fixture = root().join("harnesses/hello/fixture.json");
    let out = ctx.run_json(
        crate::common::harnesses::HELLO,
        r#"{"subject": "world"}"#,
        &["--agents", s(&fixture)],
    );
    out.expect_code(0);
    let id = run_id(&out.json());
    let lines = ctx.journal(&id);
    assert!(
        lines
            .iter()
            .all(|e| e.get("request_ref").is_none() && e.get("result_ref").is_none()),
        "a small journal looks as before"
    );
    assert!(
        lines
            .iter()
            .any(|e| e["type"] == "call_started" && e["request"]["agent"] == "hermes.greeter"),
        "the request is inline"
    );
    // Lines of an older hwf (a request inline, however large) still read:
    // status shows them, and a resume reads the journal (the changed
    // requests run again).
    let path = ctx.state().join("runs").join(&id).join("journal.jsonl");
    let text = std::fs::read_to_string(&path).expect("journal");
    let big = "x".repeat(50_000);
    let patched: String = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).expect("line");
            if v["type"] == "call_started" {
                v["request"]["note"] = json!(big);
            }
            format!("{v}\n")
        })
        .collect();
    std::fs::write(&path, patched).expect("write");
    let st = status(&ctx, &id);
    assert_eq!(st["state"], "succeeded", "{st}");
    assert!(st["calls"].as_array().is_some_and(|c| !c.is_empty()), "{st}");
    let again = ctx.hwf(["run", "--resume-from", &id, "--agents", s(&fixture), "--json"]);
    again.expect_code(0);
    assert_eq!(again.json()["data"]["result"], out.json()["data"]["result"]);
}

/// The same answer every turn: a repeated block may hold no content-defined
/// boundary at all, so only the largest leaf bounds what each turn stores
/// again of the conversation's tail.
#[test]
fn a_conversation_that_repeats_one_answer_still_stays_small() {
    let ctx = Ctx::new();
    let script = ctx.write("grow.js", GROW_JS);
    let answer = "the same answer, word for word, every single turn. ".repeat(40);
    let fixture = ctx.write(
        "same.fixture.json",
        json!({"responses": [{"match": {"label": "turn"}, "output": answer}]}).to_string(),
    );
    let out = ctx.run_json(
        s(&script),
        r#"{"base": 204800, "calls": 100}"#,
        &["--agents", s(&fixture)],
    );
    out.expect_code(0);
    let stored = tree_bytes(&ctx.state());
    println!("100 calls of one repeated 2 KB answer, 200 KB base: state dir {stored} B");
    // Each prompt differs, so the prompt cache answers none of them; the
    // prompts add up to ~30 MB.
    assert_eq!(out.json()["data"]["counts"]["agent_calls"], 100);
    assert!(stored < 3_000_000, "the state dir holds {stored} bytes");
}
