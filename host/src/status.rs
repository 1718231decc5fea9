//! Status views built from a run's snapshot and journal.

use crate::store::RunSnapshot;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// One line of `overview`.
pub fn summary(s: &RunSnapshot) -> Value {
    json!({
        "run_id": s.run_id,
        "state": s.state,
        "script": s.script.name.clone().or_else(|| s.script.path.clone()),
        "phase": s.phase,
        "created_at_ms": s.created_at_ms,
        "finished_at_ms": s.finished_at_ms,
        "counts": s.counts,
        "error": s.error,
        "waits": s.waits,
    })
}

/// The full status of a run.
pub fn build_status(s: &RunSnapshot, journal: &[Value], state_dir: &Path) -> Value {
    let mut calls: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut phases: Vec<Value> = Vec::new();
    let mut logs = 0u64;
    for ev in journal {
        let ty = ev.get("type").and_then(Value::as_str).unwrap_or("");
        match ty {
            "call_started" => {
                let id = ev.get("call").and_then(Value::as_str).unwrap_or("").to_owned();
                let mut c = Map::new();
                for k in ["call", "kind", "label", "phase", "fingerprint"] {
                    if let Some(v) = ev.get(k) {
                        c.insert(k.into(), v.clone());
                    }
                }
                c.insert("state".into(), json!("running"));
                if let Some(agent) = ev.pointer("/request/agent") {
                    c.insert("agent".into(), agent.clone());
                }
                // The capability a call invokes (`human.ask`, `bash`, …).
                if let Some(name) = ev.pointer("/request/name").filter(|n| n.is_string()) {
                    c.insert("name".into(), name.clone());
                }
                order.push(id.clone());
                calls.insert(id, c);
            }
            "call_completed" => {
                let id = ev.get("call").and_then(Value::as_str).unwrap_or("");
                if let Some(c) = calls.get_mut(id) {
                    let ok = ev.get("ok").and_then(Value::as_bool).unwrap_or(false);
                    c.insert("state".into(), json!(if ok { "done" } else { "failed" }));
                    for k in ["duration_us", "tokens", "attempts", "error", "replayed", "cache_hit"] {
                        if let Some(v) = ev.get(k) {
                            c.insert(k.into(), v.clone());
                        }
                    }
                }
            }
            "phase" => phases.push(json!({"title": ev.get("title"), "seq": ev.get("seq")})),
            "wait_started" => {
                let id = ev.get("call").and_then(Value::as_str).unwrap_or("");
                if let Some(c) = calls.get_mut(id) {
                    c.insert("state".into(), json!("waiting"));
                }
            }
            "log" => logs += 1,
            _ => {}
        }
    }
    let calls: Vec<Value> = order
        .into_iter()
        .filter_map(|id| calls.remove(&id).map(Value::Object))
        .collect();
    let (mut running, mut done, mut failed, mut waiting, mut replayed) = (0, 0, 0, 0, 0);
    for c in &calls {
        match c.get("state").and_then(Value::as_str) {
            Some("running") => running += 1,
            Some("done") => done += 1,
            Some("waiting") => waiting += 1,
            _ => failed += 1,
        }
        if c.get("replayed").and_then(Value::as_bool) == Some(true) {
            replayed += 1;
        }
    }
    let run_dir = state_dir.join("runs").join(s.run_id.as_str());
    // Declared phases with their status: done, current, or pending. A
    // declared title matches an entered phase equal to it or starting with
    // it (`find` matches `round 2 find`).
    let entered: Vec<&str> = phases.iter().filter_map(|p| p["title"].as_str()).collect();
    let current = s.phase.as_deref();
    let declared: Vec<Value> = s
        .declared_phases
        .iter()
        .map(|d| {
            let matches = |t: &str| t == d || t.ends_with(&format!(" {d}"));
            let status = if current.is_some_and(matches) && !s.state.is_terminal() {
                "current"
            } else if entered.iter().any(|t| matches(t)) {
                "done"
            } else {
                "pending"
            };
            json!({"title": d, "status": status})
        })
        .collect();
    json!({
        "run_id": s.run_id,
        "state": s.state,
        "script": s.script,
        "args": s.args,
        "phase": s.phase,
        "created_at_ms": s.created_at_ms,
        "finished_at_ms": s.finished_at_ms,
        "result": s.result,
        "result_preview": s.result_preview,
        "result_path": s.result_path.as_ref().map(|p| state_dir.join(p).display().to_string()),
        "error": s.error,
        "counts": s.counts,
        "progress": {
            "queued": s.live.map_or(0, |l| l.queued),
            "running": running,
            "done": done,
            "failed": failed,
            "waiting": waiting,
            "replayed": replayed,
        },
        "waits": s.waits,
        // Declared resources and their finalizers' outcomes (issue 19).
        "resources": crate::finalizers::view(journal, &run_dir),
        "resumed_from": s.resumed_from,
        "calls": calls,
        "phases": phases,
        "declared_phases": declared,
        "log_lines": logs,
        "last_events": journal.iter().rev().take(5).rev().cloned().collect::<Vec<_>>(),
        "links": {
            "journal": run_dir.join("journal.jsonl").display().to_string(),
            "controls": run_dir.join("controls.jsonl").display().to_string(),
            "transcripts": run_dir.join("transcripts").display().to_string(),
            "snapshot": run_dir.join("run.json").display().to_string(),
        },
    })
}
