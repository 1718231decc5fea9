//! Python compute: the benchmark scripts of `benches/py-compute` (the
//! JavaScript set's work written as seed-style Python) return what CPython
//! returns when it runs them as the seed does, within the default CPU limit
//! (fuel: the same instruction count on every machine). Two of them were
//! quadratic in Monty and ended with `cpu_limit`: a report built by
//! `s += …` 200,000 times and a 100,000-element set filled out of order.

use crate::js_compute::matches_recorded;

#[test]
fn the_python_compute_scripts_return_cpythons_results_within_the_default_cpu_limit() {
    let ctx = crate::common::Ctx::new();
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
