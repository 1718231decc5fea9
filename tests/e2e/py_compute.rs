//! Python compute: the benchmark scripts of `benches/py-compute` (the
//! JavaScript set's work written as seed-style Python) return what CPython
//! returns when it runs them as the seed does, within the default CPU limit
//! (fuel: the same instruction count on every machine). Two of them were
//! quadratic in Monty and ended with `cpu_limit`: a report built by
//! `s += …` 200,000 times and a 100,000-element set filled out of order.

use crate::common::{Ctx, root};
use crate::idioms::canonical;
use serde_json::Value;

#[test]
fn the_python_compute_scripts_return_cpythons_results_within_the_default_cpu_limit() {
    let ctx = Ctx::new();
    let dir = root().join("benches/py-compute");
    for name in ["strings", "dict-set", "sort-numbers", "sort-objects", "json-text", "crunch"] {
        let script = dir.join(format!("{name}.py"));
        let out = ctx.run_json(script.to_str().expect("utf8"), "null", &[]);
        let v = out.json();
        assert_eq!(v["data"]["state"], "succeeded", "{name}: {v}");
        // `expected/<name>.json`: `python3 tests/e2e/idioms/seed_ref.py
        // benches/py-compute/<name>.py benches/py-compute/no-agents.fixture.json null`'s result.
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("expected").join(format!("{name}.json"))).expect("expected result"),
        )
        .expect("expected json");
        // Floats in one spelling: CPython writes `7e-07`, hwf `7e-7`.
        assert_eq!(canonical(v["data"]["result"].clone()), canonical(expected), "{name}");
    }
}
