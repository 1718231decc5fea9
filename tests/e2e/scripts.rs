//! Saved scripts: save, list, inspect, validate, run by name.

use crate::common::{Ctx, harnesses, hello_fixture};

#[test]
fn save_list_inspect_and_run_by_name() {
    let ctx = Ctx::new();
    let save = ctx.hwf(["script", "save", "hello", harnesses::HELLO, "--json"]);
    save.expect_code(0);
    let meta = save.json()["data"].clone();
    assert_eq!(meta["version"], 1);
    assert_eq!(meta["meta"]["name"], "hello");
    assert!(meta["digest"].as_str().expect("digest").starts_with("b3:"));
    assert!(ctx.state().join("scripts/hello/v000001.wasm").is_file());
    assert!(ctx.state().join("scripts/hello/v000001.meta.json").is_file());

    // Immutable unless --replace; --replace adds a version.
    ctx.hwf(["script", "save", "hello", harnesses::PROBE])
        .expect_code(2)
        .expect_stderr("already_exists");
    let v2 = ctx.hwf(["script", "save", "hello", harnesses::PROBE, "--replace", "--json"]);
    v2.expect_code(0);
    assert_eq!(v2.json()["data"]["version"], 2);

    let list = ctx.hwf(["script", "list", "--versions", "--json"]).json();
    assert_eq!(list["data"]["scripts"][0]["name"], "hello");
    assert_eq!(list["data"]["scripts"][0]["latest_version"], 2);
    assert_eq!(list["data"]["scripts"][0]["versions"], serde_json::json!([1, 2]));

    let inspect = ctx.hwf(["script", "inspect", "hello@1", "--json"]).json();
    assert_eq!(inspect["data"]["meta"]["phases"][0]["title"], "greet");
    assert_eq!(inspect["data"]["version"], 1);

    let fixture = hello_fixture();
    let run = ctx.run_json(
        "hello@1",
        r#"{"name":"world"}"#,
        &["--agents", fixture.to_str().expect("utf8")],
    );
    run.expect_code(0);
    let d = &run.json()["data"];
    assert_eq!(d["result"]["result"], "HELLO, WORLD");
    let status = ctx.hwf(["status", d["run_id"].as_str().expect("id"), "--json"]).json();
    assert_eq!(status["data"]["script"]["name"], "hello");
    assert_eq!(status["data"]["script"]["version"], 1);

    ctx.hwf(["run", "nosuch"]).expect_code(2).expect_stderr("not_found");
}

#[test]
fn validate_reports_meta_and_imports() {
    let ctx = Ctx::new();
    let out = ctx.hwf(["validate", harnesses::HELLO, "--json"]);
    out.expect_code(0);
    let d = &out.json()["data"];
    assert_eq!(d["valid"], true);
    assert_eq!(d["meta"]["name"], "hello");
    let imports: Vec<&str> = d["imports"]
        .as_array()
        .expect("imports")
        .iter()
        .filter_map(|i| i.as_str())
        .collect();
    assert!(
        imports.iter().any(|i| i.starts_with("hermes:workflow/host")),
        "{imports:?}"
    );
    assert!(imports.iter().all(|i| !i.starts_with("wasi:filesystem")), "{imports:?}");
}

#[test]
fn the_compile_cache_is_used_on_the_second_run() {
    let ctx = Ctx::new();
    let fixture = hello_fixture();
    let f = fixture.to_str().expect("utf8");
    // This test uses the state dir's own cache, not the shared one.
    let run = || {
        let out = ctx
            .cmd()
            .env_remove("HWF_CACHE_DIR")
            .args(["run", harnesses::HELLO, "--agents", f])
            .output()
            .expect("run");
        assert!(out.status.success(), "{out:?}");
    };
    run();
    let cached: Vec<_> = std::fs::read_dir(ctx.state().join("cache"))
        .expect("cache")
        .flatten()
        .collect();
    assert_eq!(cached.len(), 1, "one precompiled artifact");
    // A corrupted cache entry is ignored, not fatal.
    std::fs::write(cached[0].path(), b"garbage").expect("write");
    run();
}
