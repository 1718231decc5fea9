//! JavaScript compute (issue 28): the benchmark scripts of
//! `benches/js-compute` return what Node returns, within the default CPU
//! limit (fuel: the same instruction count on every machine), and the
//! direct `JSON.parse` reads what the original path reads.

use crate::common::{Ctx, root};
use serde_json::{Value, json};

/// Run `benches/js-compute/<name>.js` with the default limits and compare
/// its result with Node's (`benches/js-compute/expected/<name>.json`).
fn matches_node(ctx: &Ctx, name: &str) {
    let dir = root().join("benches/js-compute");
    let script = dir.join(format!("{name}.js"));
    let out = ctx.run_json(script.to_str().expect("utf8"), "null", &[]);
    let v = out.json();
    assert_eq!(v["data"]["state"], "succeeded", "{name}: {v}");
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("expected").join(format!("{name}.json"))).expect("expected result"),
    )
    .expect("expected json");
    assert_eq!(v["data"]["result"], expected, "{name}");
}

#[test]
fn long_strings_build_split_and_parse_within_the_default_cpu_limit() {
    // Before the rope and index_of patches, `strings` (200k `+=`, a 200k
    // split) and `json` (JSON.parse through the JS parser) ended with
    // cpu_limit; `crunch` is the 200k data crunch.
    let ctx = Ctx::new();
    for name in ["strings", "json", "crunch"] {
        matches_node(&ctx, name);
    }
}

#[test]
fn json_parse_reads_what_it_read_before() {
    // Each text is parsed twice: plainly (the direct path) and with an
    // identity reviver (always the original path); value, key order,
    // negative zero and errors must agree.
    let ctx = Ctx::new();
    let script = ctx.write("json-parse.js", include_str!("js_compute_json_parse.js"));
    let out = ctx.run_json(script.to_str().expect("utf8"), "null", &[]);
    let v = out.json();
    assert_eq!(v["data"]["state"], "succeeded", "{v}");
    let r = &v["data"]["result"];
    assert_eq!(r["differ"], json!([]), "{r}");
    assert_eq!(r["count"], 41);
    assert_eq!(
        r["numbers"],
        json!([
            ["number", "5", false],
            ["number", "5.5", false],
            ["number", "0", true],
            ["number", "2147483648", false]
        ])
    );
    assert_eq!(r["nonString"], 5);
    assert_eq!(r["protoOwn"], true);
    assert_eq!(r["protoIsObject"], true);
}
