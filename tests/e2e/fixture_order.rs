//! A fixture `sequence` answers calls that run at once in call-id order,
//! the same on every run (`host/src/broker/turns.rs`): `parallel`
//! branches of a JSON workflow (nested too), `Promise.all`, `pipeline`
//! stages and `parallel` thunks in JavaScript, `parallel` in Python, and
//! nested workflows. Before, the scheduler decided: four branches sharing
//! one sequence got its entries in a different order on most runs. Each
//! case runs several times; the expected values are the references'
//! (the seed's runtime for JSON, Node for JavaScript, CPython for Python),
//! except the nested workflows, which have none.

use crate::common::Ctx;
use serde_json::{Value, json};

const RUNS: usize = 4;

fn sequence(label_or_agent: (&str, &str), n: u64) -> Value {
    let answers: Vec<Value> = (1..=n).map(|i| json!({"output": {"n": i}})).collect();
    json!({"match": {label_or_agent.0: label_or_agent.1}, "sequence": answers})
}

/// Run `file` (already written) `RUNS` times with `fixture` and `extra`
/// flags; each run must succeed. Its results, in run order.
fn results(ctx: &Ctx, file: &str, fixture: &Value, extra: &[&str]) -> Vec<Value> {
    let f = ctx.write("fixture.json", fixture.to_string());
    let path = ctx.path(file);
    let mut flags = vec!["--agents", f.to_str().expect("utf8")];
    flags.extend_from_slice(extra);
    (0..RUNS)
        .map(|_| {
            let out = ctx.run_json(path.to_str().expect("utf8"), "{}", &flags);
            out.expect_code(0);
            out.json()["data"]["result"].clone()
        })
        .collect()
}

/// Run `file` (already written) `RUNS` times; every result must be `want`.
fn same_every_run(ctx: &Ctx, file: &str, fixture: &Value, want: &Value) {
    for (round, got) in results(ctx, file, fixture, &[]).iter().enumerate() {
        assert_eq!(got, want, "run {round} of {file}");
    }
}

/// Four branches of one `parallel`, and three groups of two nested in
/// another, share a sequence each: each branch gets the entry of its
/// place, as in the seed, which runs branches one after another.
#[test]
fn json_parallel_branches_take_a_sequence_in_branch_order() {
    let ctx = Ctx::new();
    let leaf = |id: &str, agent: &str| json!({"kind": "agent", "id": id, "agent": agent, "input": {"task": "same"}});
    let def = json!({"version": "1", "name": "fan", "policy": {"network": false, "filesystem": false, "max_parallel": 4},
    "steps": [
      {"kind": "parallel", "id": "flat", "branches": [
        leaf("w1", "hermes.worker"), leaf("w2", "hermes.worker"), leaf("w3", "hermes.worker"), leaf("w4", "hermes.worker")
      ]},
      {"kind": "parallel", "id": "outer", "branches": [
        {"kind": "parallel", "id": "g0", "branches": [leaf("g0a", "hermes.leaf"), leaf("g0b", "hermes.leaf")]},
        {"kind": "parallel", "id": "g1", "branches": [leaf("g1a", "hermes.leaf"), leaf("g1b", "hermes.leaf")]}
      ]}
    ]});
    ctx.write("fan.workflow.json", def.to_string());
    let fixture =
        json!({"responses": [sequence(("agent", "hermes.worker"), 4), sequence(("agent", "hermes.leaf"), 4)]});
    let n = |i: u64| json!({"n": i});
    let want = json!({
        "outputs": {
            "w1": n(1), "w2": n(2), "w3": n(3), "w4": n(4),
            "flat": {"branches": {"w1": n(1), "w2": n(2), "w3": n(3), "w4": n(4)}},
            "g0a": n(1), "g0b": n(2), "g0": {"branches": {"g0a": n(1), "g0b": n(2)}},
            "g1a": n(3), "g1b": n(4), "g1": {"branches": {"g1a": n(3), "g1b": n(4)}},
            "outer": {"branches": {"g0": {"branches": {"g0a": n(1), "g0b": n(2)}}, "g1": {"branches": {"g1a": n(3), "g1b": n(4)}}}}
        },
        "last": {"branches": {"g0": {"branches": {"g0a": n(1), "g0b": n(2)}}, "g1": {"branches": {"g1a": n(3), "g1b": n(4)}}}}
    });
    for (round, got) in results(&ctx, "fan.workflow.json", &fixture, &[]).iter().enumerate() {
        // Key order aside (the outputs map lists steps as they finish).
        for key in [
            "w1", "w2", "w3", "w4", "flat", "g0a", "g0b", "g1a", "g1b", "g0", "g1", "outer",
        ] {
            assert_eq!(got["outputs"][key], want["outputs"][key], "run {round}: {key} in {got}");
        }
        assert_eq!(got["last"], want["last"], "run {round}");
    }
}

/// JavaScript: `Promise.all` of four calls, a two-stage `pipeline` of
/// three items, and `parallel` thunks that call twice each — Node's
/// answers, where calls that resolve together continue in call order.
#[test]
fn javascript_calls_in_flight_together_take_a_sequence_in_call_order() {
    let ctx = Ctx::new();
    ctx.write(
        "order.js",
        "export const meta = { name: 'order', description: 'fixture order' }\n\
         const xs = await Promise.all([1, 2, 3, 4].map(i => agent(`task ${i}`, { label: 'w' })))\n\
         const piped = await pipeline([1, 2, 3],\n\
           x => agent(`first ${x}`, { label: 'p' }),\n\
           r => agent(`second ${r.n}`, { label: 'p' }).then(s => `${r.n}->${s.n}`))\n\
         const fanned = await parallel([1, 2, 3].map(i => async () => {\n\
           const a = await agent(`one ${i}`, { label: 'f' })\n\
           const b = await agent(`two ${i}`, { label: 'f' })\n\
           return [a.n, b.n]\n\
         }))\n\
         return { xs: xs.map(x => x.n), piped, fanned }\n",
    );
    let fixture =
        json!({"responses": [sequence(("label", "w"), 4), sequence(("label", "p"), 6), sequence(("label", "f"), 6)]});
    // `node tests/e2e/idioms/cc_ref.js order.js fixture.json '{}'`
    let want = json!({"xs": [1, 2, 3, 4], "piped": ["1->4", "2->5", "3->6"], "fanned": [[1, 4], [2, 5], [3, 6]]});
    same_every_run(&ctx, "order.js", &fixture, &want);
}

/// Python: `parallel` of single calls and of coroutines that call twice
/// each — CPython's answers under the seed's `asyncio.gather`.
#[test]
fn python_parallel_calls_take_a_sequence_in_call_order() {
    let ctx = Ctx::new();
    ctx.write(
        "order.py",
        "meta = {\"name\": \"order\", \"description\": \"fixture order\"}\n\n\
         async def two(i):\n\
         \x20   a = await agent(f\"one {i}\", label=\"g\")\n\
         \x20   b = await agent(f\"two {i}\", label=\"g\")\n\
         \x20   return [a[\"n\"], b[\"n\"]]\n\n\
         xs = await parallel([lambda i=i: agent(f\"task {i}\", label=\"w\") for i in range(4)])\n\
         ys = await parallel([lambda i=i: two(i) for i in range(3)])\n\
         return {\"xs\": [x[\"n\"] for x in xs], \"ys\": ys}\n",
    );
    let fixture = json!({"responses": [sequence(("label", "w"), 4), sequence(("label", "g"), 6)]});
    // `python3 tests/e2e/idioms/seed_ref.py order.py fixture.json '{}'`
    let want = json!({"xs": [1, 2, 3, 4], "ys": [[1, 4], [2, 5], [3, 6]]});
    same_every_run(&ctx, "order.py", &fixture, &want);
}

/// Two nested workflows run at once, each calling twice: their calls take
/// places by call id, a round at a time (`1.1`, `2.1`, then `1.2`, `2.2`).
#[test]
fn nested_workflows_in_parallel_take_a_sequence_in_call_order() {
    let ctx = Ctx::new();
    ctx.write(
        "child.js",
        "export const meta = { name: 'child', description: 'calls twice' }\n\
         const a = await agent(`one ${args.k}`, { label: 'c' })\n\
         const b = await agent(`two ${args.k}`, { label: 'c' })\n\
         return [a.n, b.n]\n",
    );
    ctx.write(
        "outer.js",
        "export const meta = { name: 'outer', description: 'two children' }\n\
         return await parallel(['a', 'b'].map(k => () => workflow({ scriptPath: 'child.js' }, { k })))\n",
    );
    let fixture = json!({"responses": [sequence(("label", "c"), 4)]});
    for (round, got) in results(&ctx, "outer.js", &fixture, &[]).iter().enumerate() {
        let children: Vec<&Value> = got
            .as_array()
            .unwrap_or_else(|| panic!("run {round}: {got}"))
            .iter()
            .map(|r| r.get("result").unwrap_or(r))
            .collect();
        assert_eq!(children, [&json!([1, 3]), &json!([2, 4])], "run {round}: {got}");
    }
}

/// More branches than the run's width: a freed slot goes to the waiting
/// branch with the lowest call id (`width.rs`), so twelve two-call
/// branches at width 4 share one sequence the same way on every run; the
/// first branch takes the first answer and every answer is used once.
#[test]
fn branches_beyond_the_width_take_a_sequence_the_same_way_every_run() {
    let ctx = Ctx::new();
    let branches: Vec<Value> = (0..12)
        .map(|i| {
            json!({"kind": "pipeline", "id": format!("b{i}"), "steps": [
                {"kind": "agent", "id": format!("b{i}s0"), "agent": "hermes.w", "input": {"i": i, "k": 0}},
                {"kind": "agent", "id": format!("b{i}s1"), "agent": "hermes.w", "input": {"i": i, "k": 1}}
            ]})
        })
        .collect();
    let def = json!({"version": "1", "name": "wide",
        "policy": {"network": false, "filesystem": false, "max_parallel": 12},
        "steps": [{"kind": "parallel", "id": "fan", "branches": branches}]});
    ctx.write("wide.workflow.json", def.to_string());
    let fixture = json!({"responses": [sequence(("agent", "hermes.w"), 24)]});
    let mut first: Option<Vec<Value>> = None;
    for (round, got) in results(&ctx, "wide.workflow.json", &fixture, &["--max-parallel", "4"])
        .iter()
        .enumerate()
    {
        let outputs = &got["outputs"];
        let places: Vec<Value> = (0..12)
            .flat_map(|i| [0, 1].map(|k| outputs[format!("b{i}s{k}")]["n"].clone()))
            .collect();
        assert_eq!(places[0], json!(1), "run {round}: {places:?}");
        let mut sorted: Vec<u64> = places.iter().filter_map(Value::as_u64).collect();
        sorted.sort_unstable();
        assert_eq!(sorted, (1..=24).collect::<Vec<u64>>(), "run {round}: every answer once");
        match &first {
            None => first = Some(places),
            Some(f) => assert_eq!(&places, f, "run {round} differs from run 0"),
        }
    }
}
