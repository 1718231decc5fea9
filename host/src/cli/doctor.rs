//! `hwf doctor`: checks config, state dir, cache, harness artifacts and the
//! reachability of configured agent backends.

use hwf_host::config::Config;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

fn check(name: &str, ok: bool, detail: impl Into<String>) -> Value {
    json!({"check": name, "ok": ok, "detail": detail.into()})
}

/// Run every check; returns the report (`ok` is the conjunction).
pub async fn run(config_path: Option<&Path>, state_dir: &Path) -> Value {
    let mut checks = Vec::new();
    let config = match Config::load(config_path) {
        Ok(c) => {
            checks.push(check(
                "config",
                true,
                config_path.map_or("defaults (no hwf.toml)".to_owned(), |p| p.display().to_string()),
            ));
            c
        }
        Err(e) => {
            checks.push(check("config", false, e.to_string()));
            Config::default()
        }
    };
    // State dir: create and remove a probe file.
    let probe = state_dir.join(format!(".doctor-{}", std::process::id()));
    let writable = std::fs::create_dir_all(state_dir)
        .and_then(|()| std::fs::write(&probe, b"ok"))
        .and_then(|()| std::fs::remove_file(&probe));
    checks.push(check(
        "state_dir",
        writable.is_ok(),
        match &writable {
            Ok(()) => format!("{} is writable", state_dir.display()),
            Err(e) => format!("{}: {e}", state_dir.display()),
        },
    ));
    let cache = state_dir.join("cache");
    let (n, bytes) = std::fs::read_dir(&cache)
        .map(|d| {
            d.flatten().fold((0u64, 0u64), |(n, b), e| {
                (n + 1, b + e.metadata().map(|m| m.len()).unwrap_or(0))
            })
        })
        .unwrap_or((0, 0));
    checks.push(check(
        "cache",
        true,
        format!("{n} precompiled components, {:.1} MiB", bytes as f64 / 1048576.0),
    ));
    // Bundled harness artifacts (built by `cargo build`).
    let harnesses = ["hello", "loop-until-dry", "release-lane"];
    let dir = Path::new("target/harnesses");
    let missing: Vec<&str> = harnesses
        .iter()
        .copied()
        .filter(|h| !dir.join(format!("{h}.wasm")).is_file())
        .collect();
    checks.push(check(
        "harnesses",
        missing.is_empty(),
        if missing.is_empty() {
            format!("{} has the bundled harnesses", dir.display())
        } else {
            format!(
                "missing in {}: {} (run `cargo build`)",
                dir.display(),
                missing.join(", ")
            )
        },
    ));
    let target = std::process::Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output();
    let has_target = target
        .as_ref()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("wasm32-wasip2"));
    checks.push(check(
        "wasm_target",
        has_target,
        if has_target {
            "wasm32-wasip2 is installed"
        } else {
            "run `rustup target add wasm32-wasip2` to build harnesses"
        },
    ));
    // Agent backends.
    if let Some(f) = &config.agents.fixture {
        let ok = hwf_host::agents::FixtureRunner::from_file(f);
        checks.push(check(
            "agents.fixture",
            ok.is_ok(),
            ok.err().map_or(f.display().to_string(), |e| e.to_string()),
        ));
    }
    for (name, value) in &config.agents.backends {
        let kind = value.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        let c = match kind {
            "openai" => {
                let base = value.get("base_url").and_then(|b| b.as_str()).unwrap_or("");
                let url = format!("{}/models", base.trim_end_matches('/'));
                let client = reqwest::Client::builder().timeout(Duration::from_secs(3)).build();
                let reachable = match client {
                    Ok(c) => c
                        .get(&url)
                        .send()
                        .await
                        .map(|r| r.status().as_u16())
                        .map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                };
                match reachable {
                    Ok(code) => check(
                        &format!("agents.backends.{name}"),
                        code < 500,
                        format!("{url} answered {code}"),
                    ),
                    Err(e) => check(&format!("agents.backends.{name}"), false, format!("{url}: {e}")),
                }
            }
            "command" => {
                let prog = value
                    .get("argv")
                    .and_then(|a| a.as_array())
                    .and_then(|a| a.first())
                    .and_then(|p| p.as_str())
                    .unwrap_or("");
                let found = Path::new(prog).is_file()
                    || std::env::var_os("PATH")
                        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(prog).is_file()));
                check(
                    &format!("agents.backends.{name}"),
                    found,
                    if found {
                        format!("{prog} found")
                    } else {
                        format!("{prog:?} is not on PATH")
                    },
                )
            }
            other => check(
                &format!("agents.backends.{name}"),
                kind == "fixture",
                format!("kind {other:?}"),
            ),
        };
        checks.push(c);
    }
    let ok = checks.iter().all(|c| c["ok"] == true);
    json!({"ok": ok, "checks": checks})
}
