//! The order of a `parallel` step's branches. The seed runs branches one
//! after another, so a branch may read an earlier sibling's output; hwf
//! runs them at once, so a branch that reads a sibling (a `$ref:` or a
//! `depends_on` naming the sibling or a step inside it) waits for it.
//! Branches fall into *waves*: each wave runs at once, after every wave it
//! reads from. Branches that read no sibling are one wave, as before.

use crate::refs::{self, Ref};
use serde_json::Value;
use std::collections::HashSet;

/// The step ids a step leaves referenceable after it: its own, and those
/// of the steps inside a `phase`, `pipeline` or `parallel` (an `if`
/// branch's steps are local to it).
pub fn provides(step: &Value, out: &mut HashSet<String>) {
    if let Some(id) = step.get("id").and_then(Value::as_str) {
        out.insert(id.to_owned());
    }
    let kind = step.get("kind").and_then(Value::as_str).unwrap_or("");
    if let Some(key) = crate::check::child_key(kind) {
        for child in step.get(key).and_then(Value::as_array).into_iter().flatten() {
            provides(child, out);
        }
    }
}

/// Every step id a step reads, anywhere inside it: `$ref:<id>.output…`
/// strings and `depends_on` entries.
fn reads(v: &Value, out: &mut HashSet<String>) {
    match v {
        Value::String(s) => {
            if let Some(Ref::Step { step, .. }) = refs::parse(s) {
                out.insert(step.to_owned());
            }
        }
        Value::Array(items) => items.iter().for_each(|x| reads(x, out)),
        Value::Object(m) => {
            for (k, x) in m {
                if k == "depends_on" {
                    out.extend(
                        x.as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .map(str::to_owned),
                    );
                } else {
                    reads(x, out);
                }
            }
        }
        _ => {}
    }
}

/// The siblings each branch reads (by index), in declaration order.
pub fn sibling_reads(branches: &[Value]) -> Vec<Vec<usize>> {
    let provided: Vec<HashSet<String>> = branches
        .iter()
        .map(|b| {
            let mut p = HashSet::new();
            provides(b, &mut p);
            p
        })
        .collect();
    branches
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let mut r = HashSet::new();
            reads(b, &mut r);
            (0..branches.len())
                .filter(|&j| j != i && !provided[j].is_disjoint(&r))
                .collect()
        })
        .collect()
}

/// The branches' waves (indices, each wave in declaration order), or the
/// ids of a cycle of branches that read each other (first repeated last:
/// `["a", "b", "a"]`).
///
/// # Errors
///
/// The cycle, as branch ids.
pub fn waves(branches: &[Value]) -> Result<Vec<Vec<usize>>, Vec<String>> {
    let reads = sibling_reads(branches);
    let mut wave: Vec<Option<usize>> = vec![None; branches.len()];
    let mut out: Vec<Vec<usize>> = Vec::new();
    loop {
        let ready: Vec<usize> = (0..branches.len())
            .filter(|&i| wave[i].is_none() && reads[i].iter().all(|&j| wave[j].is_some()))
            .collect();
        if ready.is_empty() {
            break;
        }
        for &i in &ready {
            wave[i] = Some(out.len());
        }
        out.push(ready);
    }
    match (0..branches.len()).find(|&i| wave[i].is_none()) {
        None => Ok(out),
        Some(start) => Err(cycle(branches, &reads, &wave, start)),
    }
}

/// The branches one at a time, in the seed's order: declaration order,
/// except that a branch reading a later sibling comes after it (the lowest
/// branch whose siblings it reads have come, each time). Branches reading
/// each other in a cycle are left out ([`waves`] refuses them).
pub fn one_by_one(branches: &[Value]) -> Vec<usize> {
    let reads = sibling_reads(branches);
    let mut placed = vec![false; branches.len()];
    let mut out = Vec::with_capacity(branches.len());
    while let Some(i) = (0..branches.len()).find(|&i| !placed[i] && reads[i].iter().all(|&j| placed[j])) {
        placed[i] = true;
        out.push(i);
    }
    out
}

/// A cycle among the branches left without a wave, from `start`: every
/// such branch reads another one left over, so following the first of
/// them must come back to a branch already on the path.
fn cycle(branches: &[Value], reads: &[Vec<usize>], wave: &[Option<usize>], start: usize) -> Vec<String> {
    let id = |i: usize| branches[i].get("id").and_then(Value::as_str).unwrap_or("?").to_owned();
    let mut path = vec![start];
    let mut at = start;
    loop {
        let Some(&next) = reads[at].iter().find(|&&j| wave[j].is_none()) else {
            return path.into_iter().map(id).collect();
        };
        if let Some(p) = path.iter().position(|&i| i == next) {
            let mut ids: Vec<String> = path[p..].iter().map(|&i| id(i)).collect();
            ids.push(id(next));
            return ids;
        }
        path.push(next);
        at = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn agent(id: &str, input: Value) -> Value {
        json!({"kind": "agent", "id": id, "agent": "x", "input": input})
    }

    #[test]
    fn independent_branches_are_one_wave() {
        let b = [agent("a", json!({})), agent("b", json!({}))];
        assert_eq!(waves(&b), Ok(vec![vec![0, 1]]));
    }

    #[test]
    fn a_branch_reading_a_sibling_waits_for_it_either_way_round() {
        let b = [
            agent("a", json!({"x": "$ref:c.output"})),
            agent("b", json!({})),
            json!({"kind": "pipeline", "id": "c", "steps": [agent("c1", json!({}))]}),
            agent("d", json!({"y": "$ref:c1.output.v"})),
        ];
        assert_eq!(waves(&b), Ok(vec![vec![1, 2], vec![0, 3]]));
    }

    #[test]
    fn one_by_one_is_declaration_order_but_after_what_a_branch_reads() {
        let b = [
            agent("a", json!({"x": "$ref:c.output"})),
            agent("b", json!({})),
            json!({"kind": "pipeline", "id": "c", "steps": [agent("c1", json!({}))]}),
            agent("d", json!({"y": "$ref:c1.output.v"})),
        ];
        assert_eq!(one_by_one(&b), vec![1, 2, 0, 3]);
        let seed_order = [
            agent("build", json!({})),
            agent("test", json!({"a": "$ref:build.output"})),
            agent("lint", json!({})),
        ];
        assert_eq!(one_by_one(&seed_order), vec![0, 1, 2]);
    }

    #[test]
    fn a_cycle_is_named() {
        let mut d = agent("d", json!({}));
        d["depends_on"] = json!(["b"]);
        let b = [
            agent("a", json!({})),
            agent("b", json!({"x": "$ref:c.output"})),
            agent("c", json!({"x": "$ref:d.output"})),
            d,
        ];
        assert_eq!(waves(&b), Err(vec!["b".into(), "c".into(), "d".into(), "b".into()]));
    }
}
