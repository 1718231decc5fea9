//! Bounded property tests (a seeded generator; they run with the unit
//! tests, so CI runs them) for two readers of untrusted input: the facade's
//! parameter table (`facade::params`) and the journal reader
//! (`FileStore::read_entries` → `hwf_core::journal::parse_journal`, then
//! `ReplayIndex::from_journal`). Inputs are the corpus in
//! `tests/fuzz-corpus/` and its mutations.
//!
//! `HWF_FUZZ_SEED` replays one seed, `HWF_FUZZ_CASES` sets the number of
//! cases per test (default 2 000; each test is also time-boxed to
//! `HWF_FUZZ_SECONDS`, default 20). A failing case prints its seed and
//! input.

use crate::broker::Fingerprint;
use crate::broker::replay::{Lookup, ReplayIndex};
use crate::facade::params::{CONTROL, Kind, Params, WORKFLOW};
use crate::store::FileStore;
use hwf_core::ids::RunId;
use hwf_core::journal::{Entry, JournalEntry};
use rand::rngs::StdRng;
use rand::{RngExt as _, SeedableRng as _};
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Seeds for a test: one given seed, or a fixed base (reproducible in CI)
/// plus the case index.
fn seeds(salt: u64) -> (Vec<u64>, Instant) {
    let deadline = Instant::now() + Duration::from_secs(env_u64("HWF_FUZZ_SECONDS").unwrap_or(20));
    if let Some(seed) = env_u64("HWF_FUZZ_SEED") {
        return (vec![seed], deadline);
    }
    let cases = env_u64("HWF_FUZZ_CASES").unwrap_or(2_000);
    (
        (0..cases).map(|i| 0x6877_6600_0000_0000 ^ (salt << 32) ^ i).collect(),
        deadline,
    )
}

fn corpus(dir: &str) -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fuzz-corpus")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let out: Vec<String> = files.iter().filter_map(|p| std::fs::read_to_string(p).ok()).collect();
    assert!(!out.is_empty(), "empty corpus {}", root.display());
    out
}

/// Strings that tend to find edges.
const WORDS: &[&str] = &[
    "",
    "\"",
    "\\",
    "\n",
    "\r\n",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "null",
    "true",
    "-1",
    "1e309",
    "18446744073709551616",
    "0.5",
    "\u{0}",
    "\u{2028}",
    "\u{1F600}",
    "\u{FEFF}",
    "$ref:",
    "call_started",
    "call_completed",
    "run_started",
    "fingerprint",
    "b3:",
    "action",
    "script_source",
];

fn word(rng: &mut StdRng) -> &'static str {
    WORDS[rng.random_range(0..WORDS.len())]
}

/// A random JSON value, at most `depth` deep.
fn value(rng: &mut StdRng, depth: u32) -> Value {
    match rng.random_range(0..if depth == 0 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.random_bool(0.5)),
        2 => json!(rng.random_range(0..u64::MAX)),
        3 => json!(rng.random_range(-1e12..1e12)),
        4 => json!(rng.random_range(-1_000i64..1_000)),
        5 => Value::String(format!("{}{}", word(rng), rng.random_range(0..100u32))),
        6 => Value::Array((0..rng.random_range(0..4)).map(|_| value(rng, depth - 1)).collect()),
        _ => {
            let mut m = Map::new();
            for _ in 0..rng.random_range(0..4) {
                m.insert(word(rng).to_owned(), value(rng, depth - 1));
            }
            Value::Object(m)
        }
    }
}

/// Mutate text: byte flips, inserted words, deleted or repeated ranges,
/// truncation, a splice with another corpus entry.
fn mutate(rng: &mut StdRng, text: &str, others: &[String]) -> String {
    let mut b = text.as_bytes().to_vec();
    for _ in 0..rng.random_range(1..6) {
        let at = if b.is_empty() { 0 } else { rng.random_range(0..=b.len()) };
        match rng.random_range(0..7) {
            0 if !b.is_empty() => {
                let i = rng.random_range(0..b.len());
                b[i] ^= 1 << rng.random_range(0..8);
            }
            1 => {
                let w = word(rng).as_bytes().to_vec();
                b.splice(at..at, w);
            }
            2 if at < b.len() => {
                let end = (at + rng.random_range(1..64)).min(b.len());
                b.drain(at..end);
            }
            3 if at < b.len() => {
                let end = (at + rng.random_range(1..64)).min(b.len());
                let piece = b[at..end].to_vec();
                for _ in 0..rng.random_range(1..4) {
                    b.splice(at..at, piece.iter().copied());
                }
            }
            4 => b.truncate(at),
            5 if !others.is_empty() => {
                let o = others[rng.random_range(0..others.len())].as_bytes();
                let from = rng.random_range(0..=o.len());
                let to = rng.random_range(from..=o.len());
                b.splice(at..at, o[from..to].iter().copied());
            }
            _ => {
                let v = value(rng, 3).to_string();
                b.splice(at..at, v.into_bytes());
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// What `Params::parse` must do, written independently: null requests and
/// null values are nothing; an unknown name, a wrong type, a number out of
/// range or a parameter given twice is `invalid_params`.
fn expected_params(request: &Value, table: &[crate::facade::params::Param]) -> Result<Map<String, Value>, ()> {
    let obj = match request {
        Value::Null => return Ok(Map::new()),
        Value::Object(o) => o,
        _ => return Err(()),
    };
    let mut out = Map::new();
    for (k, v) in obj {
        let p = table
            .iter()
            .find(|p| p.name == k || p.aliases.contains(&k.as_str()))
            .ok_or(())?;
        if v.is_null() {
            continue;
        }
        let ok = match p.kind {
            Kind::Str => v.is_string(),
            Kind::UInt => v.as_u64().is_some(),
            Kind::UIntIn(lo, hi) => v.as_u64().is_some_and(|n| (lo..=hi).contains(&n)),
            Kind::Bool => v.is_boolean(),
            Kind::Object => v.is_object(),
            Kind::Any => true,
        };
        if !ok || out.insert(p.name.to_owned(), v.clone()).is_some() {
            return Err(());
        }
    }
    Ok(out)
}

/// A request built from the table's own names and aliases (so most
/// requests get past the name check), with values of any type.
fn request(rng: &mut StdRng, table: &[crate::facade::params::Param], corpus: &[Value]) -> Value {
    if rng.random_bool(0.2) {
        return value(rng, 3);
    }
    let mut m = match corpus.get(rng.random_range(0..corpus.len().max(1))) {
        Some(Value::Object(o)) if rng.random_bool(0.5) => o.clone(),
        _ => Map::new(),
    };
    for _ in 0..rng.random_range(0..6) {
        let p = &table[rng.random_range(0..table.len())];
        let name = if !p.aliases.is_empty() && rng.random_bool(0.3) {
            p.aliases[rng.random_range(0..p.aliases.len())]
        } else {
            p.name
        };
        let v = match (p.kind, rng.random_range(0..3)) {
            (Kind::UIntIn(lo, hi), 0) => json!(rng.random_range(lo.saturating_sub(1)..=hi.saturating_add(1))),
            (Kind::Str, 0) => json!(word(rng)),
            (Kind::Bool, 0) => json!(rng.random_bool(0.5)),
            _ => value(rng, 2),
        };
        m.insert(name.to_owned(), v);
    }
    if rng.random_bool(0.1) {
        m.insert(format!("unknown_{}", rng.random_range(0..9u8)), Value::Null);
    }
    Value::Object(m)
}

#[test]
fn facade_params_match_their_table_on_random_requests() {
    let corpus: Vec<Value> = corpus("facade")
        .iter()
        .flat_map(|t| {
            t.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect::<Vec<Value>>()
        })
        .collect();
    let (seeds, deadline) = seeds(1);
    let one = seeds.len() == 1;
    let (mut checked, mut accepted) = (0, 0);
    for seed in seeds {
        if Instant::now() > deadline {
            break;
        }
        let mut rng = StdRng::seed_from_u64(seed);
        for (table, which) in [(WORKFLOW, "workflow"), (CONTROL, "workflow_control")] {
            let req = request(&mut rng, table, &corpus);
            let got = Params::parse(&req, table);
            let want = expected_params(&req, table);
            match (&got, &want) {
                (Ok(p), Ok(w)) => {
                    accepted += 1;
                    for (k, v) in w {
                        assert_eq!(p.get(k), Some(v), "seed {seed} ({which}): {req}");
                    }
                }
                (Err(e), Err(())) => {
                    assert_eq!(
                        e.code(),
                        hwf_core::error::ErrorCode::InvalidParams,
                        "seed {seed}: {req}"
                    );
                }
                _ => panic!(
                    "seed {seed} ({which}): parse gave {:?}, the table says {}: {req}",
                    got.map(|_| "ok").map_err(|e| e.to_string()),
                    if want.is_ok() { "ok" } else { "invalid_params" }
                ),
            }
            checked += 1;
        }
    }
    eprintln!("facade params: {checked} requests, {accepted} accepted");
    // The generator reaches both sides of the table.
    assert!(
        one || (accepted > checked / 20 && accepted < checked - checked / 20),
        "{accepted}/{checked}"
    );
}

/// What `read_entries` must accept, written independently of its line
/// splitting: every complete (newline-terminated), non-blank line is a
/// [`JournalEntry`]; an unterminated last line is
/// ignored whatever it holds.
fn expected_events(text: &str) -> Option<usize> {
    let mut n = 0;
    let mut rest = text;
    while let Some(i) = rest.find('\n') {
        let line = &rest[..i];
        rest = &rest[i + 1..];
        if line.trim().is_empty() {
            continue;
        }
        // (A duplicate key makes a line corrupt, as it does for any typed
        // reader, though `Value` would take the last one.)
        serde_json::from_str::<JournalEntry>(line).ok()?;
        n += 1;
    }
    Some(n)
}

/// Journal-shaped lines: the corpus's events with fields swapped for
/// random values (wrong types, missing keys, odd call ids).
fn journal_text(rng: &mut StdRng, corpus: &[String]) -> String {
    let base = &corpus[rng.random_range(0..corpus.len())];
    match rng.random_range(0..3) {
        0 => mutate(rng, base, corpus),
        1 => {
            let mut lines: Vec<Value> = base.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
            for _ in 0..rng.random_range(1..8) {
                if lines.is_empty() {
                    break;
                }
                let i = rng.random_range(0..lines.len());
                match rng.random_range(0..4) {
                    0 => {
                        let keys: Vec<String> = lines[i]
                            .as_object()
                            .map(|o| o.keys().cloned().collect())
                            .unwrap_or_default();
                        if let (Some(k), Some(o)) = (
                            keys.get(rng.random_range(0..keys.len().max(1))),
                            lines[i].as_object_mut(),
                        ) {
                            o.insert(k.clone(), value(rng, 2));
                        }
                    }
                    1 => {
                        let dup = lines[i].clone();
                        lines.insert(rng.random_range(0..=lines.len()), dup);
                    }
                    2 => {
                        lines.remove(i);
                    }
                    _ => lines[i] = value(rng, 3),
                }
            }
            let mut s: String = lines.iter().map(|l| format!("{l}\n")).collect();
            if rng.random_bool(0.3) {
                s.push_str(&mutate(rng, "{\"type\":\"call_completed\",\"call\":\"1\"}", corpus));
            }
            s
        }
        _ => (0..rng.random_range(0..20))
            .map(|_| format!("{}\n", value(rng, 3)))
            .collect(),
    }
}

#[test]
fn journal_reader_and_replay_index_take_any_bytes() {
    let corpus = corpus("journal");
    let dir = tempfile::tempdir().expect("tempdir");
    let store = FileStore::open(dir.path().join("state")).expect("store");
    let id = RunId::generate();
    store.create_run(&id).expect("run");
    let path = dir.path().join("state/runs").join(id.as_str()).join("journal.jsonl");
    let (seeds, deadline) = seeds(2);
    let one = seeds.len() == 1;
    let (mut checked, mut accepted, mut hits) = (0, 0, 0);
    for seed in seeds {
        if Instant::now() > deadline {
            break;
        }
        let mut rng = StdRng::seed_from_u64(seed);
        let text = journal_text(&mut rng, &corpus);
        std::fs::write(&path, &text).expect("write journal");
        let read = store.read_entries(&id);
        match (read, expected_events(&text)) {
            (Ok(events), Some(n)) => {
                accepted += 1;
                assert_eq!(events.len(), n, "seed {seed}: {text:?}");
                // The replay index takes whatever the journal holds.
                let retry: HashSet<String> = events
                    .iter()
                    .filter_map(|e| e.call().map(str::to_owned))
                    .filter(|_| rng.random_bool(0.2))
                    .collect();
                let idx = ReplayIndex::from_journal(&events, &retry);
                for e in &events {
                    let call = e.call().unwrap_or("1");
                    let request = match &e.entry {
                        Entry::CallStarted { request, .. } => request,
                        _ => &Value::Null,
                    };
                    let fp = Fingerprint::of("agent", request);
                    let l = idx.lookup(call, &fp);
                    hits += usize::from(matches!(l, Lookup::Hit(_)));
                    if retry.contains(call) {
                        assert!(!matches!(l, Lookup::Hit(_)), "seed {seed}: a retried call replayed");
                    }
                    let _ = (idx.delivered(call, 0), idx.parked(call), idx.first_started(call));
                }
                let _ = (idx.charged(), idx.len(), ReplayIndex::consumed_in(&events));
            }
            (Err(e), None) => {
                assert_eq!(e.code(), hwf_core::error::ErrorCode::CorruptStore, "seed {seed}: {e}");
            }
            (got, want) => panic!(
                "seed {seed}: read_entries gave {:?}, expected {want:?} events: {text:?}",
                got.map(|v| v.len()).map_err(|e| e.to_string())
            ),
        }
        checked += 1;
    }
    eprintln!("journal: {checked} texts, {accepted} read, {hits} replay hits");
    assert!(
        one || (accepted > checked / 20 && accepted < checked - checked / 20),
        "{accepted}/{checked}"
    );
}
