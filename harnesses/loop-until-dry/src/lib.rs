//! The bug-hunt pattern: find candidate bugs over areas in parallel, verify
//! each new candidate with every verifier in parallel, follow up on the
//! areas the finders suggest, and stop when a round verifies nothing new
//! (`dry_round_limit` times), when no areas remain, or at `max_rounds`.
//!
//! Contract (tests and outside checks depend on it):
//!
//! - args: `subject`, `areas` (default `["totals","state","accessibility"]`),
//!   `verifiers` (default `["unit","integration"]`), `max_rounds` (4),
//!   `dry_round_limit` (1);
//! - per round N: `phase("round N find")`, one `parallel` of finders
//!   (prompt `Find candidate bugs for area <area>`, label `finder:<area>`,
//!   phase `find`, schema `{"bugs":"list","followups":"list"}`, context
//!   `{area, round, subject}`); dedupe by id in finder order; then, if any
//!   candidate of the round is not yet verified, `phase("round N verify")`
//!   and one `parallel` over (bug, verifier) pairs, bug-major (prompt
//!   `Verify candidate bug <id> using <verifier>`, label
//!   `verifier:<verifier>:<id>`, phase `verify`, schema
//!   `{"verdict":"string","notes":"string"}`, context `{verifier, bug,
//!   round}`); a bug is verified iff every verdict is `confirmed`; then
//!   `phase("round N decision")` and the log line
//!   `round N: <unique> unique candidates, <new> new verified, dry_count=<d>`;
//! - result: `{rounds, dry_count, max_round_reached, verified_bug_ids,
//!   candidate_bug_ids, remaining_areas}` (id lists sorted).

use hwf_guest::{Harness, Meta, Result, Task, Value, info, json, parallel, phase, prompt};
use std::collections::{BTreeSet, HashSet};

struct LoopUntilDry;

fn strings(v: &Value, default: &[&str]) -> Vec<String> {
    match v.as_array() {
        Some(items) => items.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect(),
        None => default.iter().map(|s| (*s).to_owned()).collect(),
    }
}

impl Harness for LoopUntilDry {
    fn meta() -> Meta {
        Meta::new(
            "loop-until-dry",
            "Hunt bugs area by area until a round verifies nothing new.",
        )
        .when_to_use("Bug hunts and QA sweeps where finders suggest follow-up areas.")
        .phase_with_detail("find", "finders over the current areas, in parallel")
        .phase_with_detail("verify", "every new candidate checked by every verifier, in parallel")
        .phase_with_detail("decision", "count what was verified; continue or stop")
        .args_schema(json!({
            "type": "object",
            "properties": {
                "subject": {"type": "string"},
                "areas": {"type": "array", "items": {"type": "string"}},
                "verifiers": {"type": "array", "items": {"type": "string"}},
                "max_rounds": {"type": "integer", "minimum": 0},
                "dry_round_limit": {"type": "integer", "minimum": 1}
            }
        }))
    }

    fn run(args: Value) -> Result<Value> {
        let subject = args["subject"].as_str().unwrap_or("").to_owned();
        let mut areas = strings(&args["areas"], &["totals", "state", "accessibility"]);
        let verifiers = strings(&args["verifiers"], &["unit", "integration"]);
        let max_rounds = args["max_rounds"].as_u64().unwrap_or(4);
        let dry_round_limit = args["dry_round_limit"].as_u64().unwrap_or(1);

        let mut round = 0u64;
        let mut dry_count = 0u64;
        let mut candidates: BTreeSet<String> = BTreeSet::new();
        let mut verified: BTreeSet<String> = BTreeSet::new();

        while !areas.is_empty() && dry_count < dry_round_limit && round < max_rounds {
            round += 1;
            phase(format!("round {round} find"));
            let finders: Vec<Task> = areas
                .iter()
                .map(|area| {
                    prompt(format!("Find candidate bugs for area {area}"))
                        .label(format!("finder:{area}"))
                        .phase("find")
                        .schema(json!({"bugs": "list", "followups": "list"}))
                        .context(json!({"area": area, "round": round, "subject": subject}))
                        .task()
                })
                .collect();
            let found = parallel(finders, false);

            let mut seen = HashSet::new();
            let mut round_bugs: Vec<Value> = Vec::new();
            let mut followups: Vec<String> = Vec::new();
            for result in found.into_iter().flatten() {
                for bug in result["bugs"].as_array().into_iter().flatten() {
                    let Some(id) = bug["id"].as_str() else { continue };
                    if seen.insert(id.to_owned()) {
                        round_bugs.push(bug.clone());
                        candidates.insert(id.to_owned());
                    }
                }
                for f in result["followups"].as_array().into_iter().flatten() {
                    if let Some(f) = f.as_str()
                        && !followups.iter().any(|x| x == f)
                    {
                        followups.push(f.to_owned());
                    }
                }
            }

            let to_verify: Vec<&Value> = round_bugs
                .iter()
                .filter(|b| b["id"].as_str().is_some_and(|id| !verified.contains(id)))
                .collect();
            let mut new_verified = 0u64;
            if !to_verify.is_empty() {
                phase(format!("round {round} verify"));
                let mut checks: Vec<Task> = Vec::new();
                for bug in &to_verify {
                    let id = bug["id"].as_str().unwrap_or("");
                    for verifier in &verifiers {
                        checks.push(
                            prompt(format!("Verify candidate bug {id} using {verifier}"))
                                .label(format!("verifier:{verifier}:{id}"))
                                .phase("verify")
                                .schema(json!({"verdict": "string", "notes": "string"}))
                                .context(json!({"verifier": verifier, "bug": bug, "round": round}))
                                .task(),
                        );
                    }
                }
                let verdicts = parallel(checks, false);
                for (b, bug) in to_verify.iter().enumerate() {
                    let slots = &verdicts[b * verifiers.len()..(b + 1) * verifiers.len()];
                    let confirmed = slots
                        .iter()
                        .all(|r| r.as_ref().is_ok_and(|v| v["verdict"] == "confirmed"));
                    if confirmed
                        && let Some(id) = bug["id"].as_str()
                        && verified.insert(id.to_owned())
                    {
                        new_verified += 1;
                    }
                }
            }

            phase(format!("round {round} decision"));
            dry_count = if new_verified > 0 { 0 } else { dry_count + 1 };
            info(format!(
                "round {round}: {} unique candidates, {new_verified} new verified, dry_count={dry_count}",
                round_bugs.len()
            ));
            areas = followups;
        }

        Ok(json!({
            "rounds": round,
            "dry_count": dry_count,
            "max_round_reached": !areas.is_empty() && round >= max_rounds,
            "verified_bug_ids": verified.into_iter().collect::<Vec<_>>(),
            "candidate_bug_ids": candidates.into_iter().collect::<Vec<_>>(),
            "remaining_areas": areas,
        }))
    }
}

hwf_guest::export_harness!(LoopUntilDry);
