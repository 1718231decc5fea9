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
    // This test uses its own per-user cache, not the shared one. The
    // engine says (at debug level) whether each component it made ready
    // was compiled or loaded from the cache.
    let run = || -> (String, String) {
        let out = ctx
            .cmd()
            .env_remove("HWF_CACHE_DIR")
            .env_remove("XDG_CACHE_HOME")
            .env("RUST_LOG", "warn,hwf_host::vm::engine=debug")
            .args(["run", harnesses::HELLO, "--json", "--agents"])
            .arg(&fixture)
            .output()
            .expect("run");
        assert!(out.status.success(), "{out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let id = serde_json::from_str::<serde_json::Value>(&stdout).expect("json")["data"]["run_id"]
            .as_str()
            .expect("run id")
            .to_owned();
        (id, crate::claims::strip_ansi(&String::from_utf8_lossy(&out.stderr)))
    };
    let loads = |stderr: &str| -> Vec<bool> {
        stderr
            .lines()
            .filter(|l| l.contains("component ready"))
            .map(|l| {
                assert!(l.contains("from_cache="), "{l}");
                l.contains("from_cache=true")
            })
            .collect()
    };
    let artifacts = || -> Vec<std::path::PathBuf> {
        // The per-user cache (HOME is the test dir): shared by state dirs.
        std::fs::read_dir(ctx.dir.path().join(".cache").join("hwf"))
            .expect("cache")
            .flatten()
            .map(|e| e.path())
            .collect()
    };

    let (id, first) = run();
    assert_eq!(loads(&first), [false], "the first run compiles: {first}");
    let cached = artifacts();
    assert_eq!(cached.len(), 1, "one precompiled artifact: {cached:?}");
    let artifact = cached[0].clone();
    // Named by the component's digest (and the engine's configuration).
    let status = ctx.hwf(["status", &id, "--json"]).json();
    let digest = status["data"]["script"]["digest"].as_str().expect("digest").to_owned();
    let name = artifact.file_name().and_then(|n| n.to_str()).expect("name").to_owned();
    assert!(name.ends_with(".cwasm"), "{name}");
    assert!(name.starts_with(&digest[3..35]), "{name} is not keyed by {digest}");
    let bytes = std::fs::read(&artifact).expect("artifact");
    let modified = std::fs::metadata(&artifact).and_then(|m| m.modified()).expect("mtime");

    let (_, second) = run();
    assert_eq!(loads(&second), [true], "the second run loads from the cache: {second}");
    assert_eq!(artifacts(), std::slice::from_ref(&artifact), "nothing new was written");
    assert_eq!(
        std::fs::read(&artifact).expect("artifact"),
        bytes,
        "the artifact was not rewritten"
    );
    assert_eq!(
        std::fs::metadata(&artifact).and_then(|m| m.modified()).expect("mtime"),
        modified
    );

    // A corrupted cache entry is ignored (with a warning), not fatal: the
    // component is compiled again and the entry replaced; then it is used.
    std::fs::write(&artifact, b"garbage").expect("write");
    let (_, third) = run();
    assert_eq!(loads(&third), [false], "a corrupt entry is recompiled: {third}");
    assert!(third.contains("ignoring unusable cache entry"), "{third}");
    assert_ne!(
        std::fs::read(&artifact).expect("artifact"),
        b"garbage",
        "the entry was replaced"
    );
    let (_, fourth) = run();
    assert_eq!(loads(&fourth), [true], "{fourth}");
}
