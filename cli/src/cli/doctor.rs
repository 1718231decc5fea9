//! `hwf doctor`: checks what `hwf run` will use — the config it loads (the
//! same search: `--config`, `./hwf.toml`, `<state>/hwf.toml`), the agent
//! runners built from it, API keys named by `api_key_env` (whether set,
//! never their values), each command backend's program (on PATH or at its
//! path), Claude Code's login (a warning), `[runner] autostart`, the state dir,
//! the compile cache and the runtimes it resolves — and the reachability of
//! configured backends, and for a PostgreSQL store (`--store`,
//! `$HWF_STORE`, `[store] url`) the connection and whether its schema is
//! this build's (`hwf store migrate` applies what is missing). Build-only checks (bundled harness artifacts, the
//! wasm target) and the Hermes `mcp_servers:` entries that start `hwf mcp`
//! are informational (`level: info` / `warn`): they never fail the report.

use hwf_host::config::Config;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn check(name: &str, ok: bool, detail: impl Into<String>) -> Value {
    json!({"check": name, "ok": ok, "level": if ok { "ok" } else { "fail" }, "detail": detail.into()})
}

/// A check that does not decide the verdict: `warn` when something looks
/// wrong, else `info`.
fn note(name: &str, fine: bool, detail: impl Into<String>) -> Value {
    json!({"check": name, "ok": true, "level": if fine { "info" } else { "warn" }, "detail": detail.into()})
}

/// The file `Config::load_from` reads for these arguments, if any.
fn config_source(config_path: Option<&Path>, state_dir: &Path) -> Option<PathBuf> {
    if let Some(p) = config_path {
        return Some(p.to_path_buf());
    }
    [PathBuf::from("hwf.toml"), state_dir.join("hwf.toml")]
        .into_iter()
        .find(|p| p.is_file())
}

/// Run every check; returns the report (`ok` is the conjunction of the
/// checks that are not informational). `store` is `--store`.
pub async fn run(config_path: Option<&Path>, state_dir: &Path, store: Option<&str>) -> Value {
    let mut checks = Vec::new();
    let source = config_source(config_path, state_dir);
    let config = match Config::load_from(config_path, Some(state_dir)) {
        Ok(c) => {
            checks.push(check(
                "config",
                true,
                source.as_ref().map_or(
                    format!("defaults (no ./hwf.toml, no {})", state_dir.join("hwf.toml").display()),
                    |p| {
                        std::fs::canonicalize(p)
                            .unwrap_or_else(|_| p.clone())
                            .display()
                            .to_string()
                    },
                ),
            ));
            c
        }
        Err(e) => {
            checks.push(check("config", false, e.to_string()));
            Config::default()
        }
    };
    // The runners `hwf run` builds from this config.
    match config.agents.runner() {
        Ok(_) => checks.push(check(
            "agents",
            true,
            if config.agents.backends.is_empty() && config.agents.fixture.is_none() {
                "no backends configured (agent calls need --agents FIXTURE or [agents] in hwf.toml)".to_owned()
            } else {
                format!("{} backend(s) built", config.agents.backends.len())
            },
        )),
        Err(e) => checks.push(check("agents", false, e.to_string())),
    }
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
    let cache = hwf_host::scripts::user_cache_dir().unwrap_or_else(|| state_dir.join("cache"));
    let (n, bytes) = std::fs::read_dir(&cache)
        .map(|d| {
            d.flatten().fold((0u64, 0u64), |(n, b), e| {
                (n + 1, b + e.metadata().map(|m| m.len()).unwrap_or(0))
            })
        })
        .unwrap_or((0, 0));
    let cache_ok = std::fs::create_dir_all(&cache).is_ok();
    checks.push(check(
        "cache",
        cache_ok,
        format!(
            "{}: {n} precompiled components, {:.1} MiB{}",
            cache.display(),
            bytes as f64 / 1048576.0,
            if cache_ok { "" } else { " (cannot be created)" }
        ),
    ));
    // The script runtimes, where `hwf run x.js` will find them.
    for lang in [
        hwf_host::scripts::Language::Js,
        hwf_host::scripts::Language::Python,
        hwf_host::scripts::Language::Json,
    ] {
        let name = format!("runtime.{}", lang.as_str());
        checks.push(match hwf_host::scripts::locate_runtime(lang) {
            Ok(at) => {
                let compiled = hwf_host::scripts::runtime_compiled(lang, &cache) == Some(true);
                let at = match at {
                    hwf_host::scripts::RuntimeLocation::File(p) => {
                        std::fs::canonicalize(&p).unwrap_or(p).display().to_string()
                    }
                    embedded => embedded.to_string(),
                };
                check(
                    &name,
                    true,
                    format!(
                        "{at}{}",
                        if compiled {
                            " (compiled)"
                        } else {
                            " (compiled on first use, a few seconds once)"
                        }
                    ),
                )
            }
            Err(e) => check(&name, false, e.message().to_owned()),
        });
    }
    // Bundled harness artifacts (built by `cargo build`).
    let harnesses = ["hello", "loop-until-dry", "release-lane"];
    let dir = Path::new("target/harnesses");
    let missing: Vec<&str> = harnesses
        .iter()
        .copied()
        .filter(|h| !dir.join(format!("{h}.wasm")).is_file())
        .collect();
    checks.push(note(
        "harnesses",
        missing.is_empty(),
        if missing.is_empty() {
            format!("{} has the bundled harnesses", dir.display())
        } else {
            format!(
                "not in {}: {} (build-only: run `cargo build` in a checkout for the bundled examples)",
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
    checks.push(note(
        "wasm_target",
        has_target,
        if has_target {
            "wasm32-wasip2 is installed"
        } else {
            "build-only: `rustup target add wasm32-wasip2` to build compiled harnesses (not needed to run them)"
        },
    ));
    // Trace export: where runs' traces go, or why they do not.
    checks.push(match hwf_host::telemetry::ExportSettings::resolve(&config.telemetry) {
        Ok(Some(t)) => note(
            "traces",
            true,
            format!(
                "OTLP {} to {} as service {:?}{}",
                match t.protocol {
                    hwf_host::telemetry::Protocol::HttpProtobuf => "http/protobuf",
                    hwf_host::telemetry::Protocol::HttpJson => "http/json",
                },
                t.url,
                t.service_name,
                if t.capture_content {
                    ", prompts and answers included (redacted)"
                } else {
                    ""
                }
            ),
        ),
        Ok(None) => note(
            "traces",
            true,
            "not exported (set OTEL_EXPORTER_OTLP_ENDPOINT or [telemetry] endpoint)",
        ),
        Err(e) => note("traces", false, format!("not exported: {}", e.message())),
    });
    // A project's hwf.d.ts (`hwf init`) that an older or newer hwf wrote.
    if let Ok(dts) = std::fs::read_to_string("hwf.d.ts") {
        let current = dts == super::authoring::DTS;
        checks.push(note(
            "hwf.d.ts",
            current,
            if current {
                "./hwf.d.ts declares this hwf's script globals"
            } else {
                "./hwf.d.ts differs from this hwf's script globals: `hwf types > hwf.d.ts` refreshes it"
            },
        ));
    }
    // Runners serving this state dir, with their slots in use.
    let runners = hwf_host::background::live_runners(state_dir);
    let slots = match config.runner.concurrency(None) {
        Ok(n) => format!("[runner] concurrency {n}"),
        Err(e) => {
            checks.push(check("runner.concurrency", false, e.to_string()));
            String::new()
        }
    };
    let autostart = match config.runner.autostart() {
        Ok(on) => on,
        Err(e) => {
            checks.push(check("runner.autostart", false, e.message().to_owned()));
            true
        }
    };
    checks.push(note(
        "runners",
        true,
        if runners.is_empty() && autostart {
            format!("none alive ({slots}; started on demand by `hwf run --background`, decisions, resumes and events)")
        } else if runners.is_empty() {
            format!("none alive ({slots}; autostart is off: queued runs and answered waits wait for `hwf runner`)")
        } else {
            runners
                .iter()
                .map(|r| {
                    format!(
                        "{} pid {}: {} in flight / {} slots",
                        r.kind, r.pid, r.in_flight, r.capacity
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
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
                if let Some(var) = value.get("api_key_env").and_then(|v| v.as_str()) {
                    // Whether it is set, never what it holds.
                    let set = std::env::var_os(var).is_some_and(|v| !v.as_encoded_bytes().trim_ascii().is_empty());
                    checks.push(check(
                        &format!("agents.backends.{name}.api_key_env"),
                        set,
                        if set {
                            format!("{var} is set")
                        } else {
                            format!(
                                "backend {name}: api_key_env names {var}, which is not set (or empty) in this environment: \
                                 export it before running hwf (for `hwf mcp` under Hermes, add it to the mcp_servers entry's env:)"
                            )
                        },
                    ));
                }
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
                let found = find_program(prog);
                if let Some(path) = &found
                    && looks_like_claude(path)
                {
                    checks.push(claude_login(name));
                }
                check(
                    &format!("agents.backends.{name}"),
                    found.is_some(),
                    match &found {
                        Some(_) => format!("{prog} found"),
                        None if prog.contains('/') => format!(
                            "{prog:?} is not an executable file: backend {name} cannot start its program; \
                             install it there, or fix argv[0] in [agents.backends.{name}]"
                        ),
                        None => format!(
                            "{prog:?} is not on PATH: backend {name} cannot start its program; install it, or give its \
                             full path as argv[0] in [agents.backends.{name}] (an MCP client such as Hermes may start \
                             `hwf mcp` with a shorter PATH than your shell's)"
                        ),
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
    checks.extend(store_checks(store, &config).await);
    checks.extend(hermes_entries(&config, source.as_deref()));
    let ok = checks.iter().all(|c| c["ok"] == true);
    json!({"ok": ok, "checks": checks})
}

/// Where `prog` (a backend's argv[0]) is: a path (with a `/`, relative to
/// the working directory) to an executable file, or an executable file
/// of that name in a `PATH` directory — as the agent call will look.
fn find_program(prog: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if prog.is_empty() {
        return None;
    }
    if prog.contains('/') {
        let p = PathBuf::from(prog);
        return executable(&p).then_some(p);
    }
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|d| d.join(prog))
        .find(|p| executable(p))
}

/// Whether a command backend's program is Claude Code (`claude`, or a link
/// to it).
fn looks_like_claude(path: &Path) -> bool {
    let named = |p: &Path| p.file_name().is_some_and(|n| n == "claude");
    named(path)
        || std::fs::canonicalize(path)
            .is_ok_and(|p| named(&p) || p.components().any(|c| c.as_os_str() == "claude-code"))
}

/// Whether Claude Code has credentials here: an API key or OAuth token in
/// the environment, or the login's credentials file
/// (`$CLAUDE_CONFIG_DIR/.credentials.json`, else
/// `~/.claude/.credentials.json`). A warning only: it may log in another
/// way (a keychain, a helper), which this cannot see.
fn claude_login(name: &str) -> Value {
    const VARS: [&str; 3] = ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"];
    let var = VARS
        .iter()
        .find(|v| std::env::var_os(v).is_some_and(|x| !x.as_encoded_bytes().trim_ascii().is_empty()));
    let dir = std::env::var_os("CLAUDE_CONFIG_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".claude")));
    let file = dir.map(|d| d.join(".credentials.json")).filter(|f| f.is_file());
    note(
        &format!("agents.backends.{name}.login"),
        var.is_some() || file.is_some(),
        match (var, &file) {
            (Some(v), _) => format!("{v} is set"),
            (None, Some(f)) => format!("Claude Code credentials in {}", f.display()),
            (None, None) => format!(
                "backend {name}: Claude Code may not be logged in: neither ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN) \
                 is set nor ~/.claude/.credentials.json exists; run `claude` once and /login, or export ANTHROPIC_API_KEY"
            ),
        },
    )
}

/// The `mcp_servers:` entries of Hermes' config (`$HERMES_HOME/config.yaml`,
/// else `~/.hermes/config.yaml`) that start `hwf mcp`, checked against what
/// Hermes does to MCP servers: it passes only PATH, HOME, USER, LANG, … and
/// the entry's `env:`, and sets no working directory. So the state dir and
/// an `hwf.toml` must be in `args`, and every variable hwf needs in `env:`.
/// A light line scan of the YAML (block style, as Hermes writes it).
fn hermes_entries(config: &Config, source: Option<&Path>) -> Vec<Value> {
    let home = std::env::var_os("HERMES_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".hermes")));
    let Some(path) = home.map(|h| h.join("config.yaml")) else {
        return Vec::new();
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    let mut needed: Vec<String> = config
        .agents
        .backends
        .values()
        .filter_map(|b| b.get("api_key_env").and_then(|v| v.as_str()).map(str::to_owned))
        .collect();
    if std::env::var_os("HWF_AGENTS").is_some() {
        needed.push("HWF_AGENTS".into());
    }
    let relative_config = source.is_some_and(Path::is_relative);
    let indent = |l: &str| l.len() - l.trim_start().len();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    let Some(start) = lines.iter().position(|l| l.trim_end() == "mcp_servers:") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut i = start + 1;
    while i < lines.len() && indent(lines[i]) > 0 {
        let entry_indent = indent(lines[i]);
        let name = lines[i].trim().trim_end_matches(':').to_owned();
        let mut block = Vec::new();
        i += 1;
        while i < lines.len() && indent(lines[i]) > entry_indent {
            block.push(lines[i].trim());
            i += 1;
        }
        let text = block.join("\n");
        let command = block.iter().find_map(|l| l.strip_prefix("command:")).unwrap_or("");
        if !command.contains("hwf") || !text.contains("mcp") {
            continue;
        }
        let mut problems = Vec::new();
        if !text.contains("--state-dir") && !text.contains("HWF_STATE_DIR") {
            problems.push(
                "no --state-dir in args: Hermes passes no HERMES_HOME, so runs go to ~/.hermes/workflows, \
                 not this profile's store (add \"--state-dir\", \"<dir>\" before \"mcp\")"
                    .to_owned(),
            );
        }
        if relative_config && !text.contains("--config") {
            problems.push(
                "no --config in args: Hermes sets no working directory, so ./hwf.toml is not found \
                 (add \"--config\", \"<absolute path>\")"
                    .to_owned(),
            );
        }
        for var in &needed {
            if !text.contains(&format!("{var}:")) {
                problems.push(format!(
                    "{var} is not in the entry's env: (Hermes strips every other variable)"
                ));
            }
        }
        out.push(note(
            &format!("hermes.mcp_servers.{name}"),
            problems.is_empty(),
            if problems.is_empty() {
                format!(
                    "{}: starts hwf mcp with its state dir and what it needs",
                    path.display()
                )
            } else {
                format!("{}: {}", path.display(), problems.join("; "))
            },
        ));
    }
    out
}

/// The store's checks: for PostgreSQL, that it answers (a failure names the
/// host and database, never a password) and that its schema is the one
/// this build knows.
async fn store_checks(store: Option<&str>, config: &Config) -> Vec<Value> {
    use hwf_host::store::url::StoreUrl;
    let url = match hwf_host::config::resolve_store(store, config) {
        Ok(u) => u,
        Err(e) => return vec![check("store", false, e.message().to_owned())],
    };
    let Some(StoreUrl::Postgres(conn)) = url else {
        // The file store: the state_dir check above is its check.
        return Vec::new();
    };
    let target = pg_target(&conn);
    let hide = |m: &str| match pg_password(&conn) {
        Some(p) if !p.is_empty() => m.replace(&p, "***"),
        _ => m.to_owned(),
    };
    let answer = match hwf_store_postgres::PgStore::open(&hwf_store_postgres::PgConfig::new(conn.clone())) {
        Ok(pg) => pg.schema_version().await,
        Err(e) => Err(e),
    };
    match answer {
        Err(e) => vec![check(
            "store.postgres",
            false,
            hide(&format!("PostgreSQL at {target}: {} ({})", e, e.code().as_str())),
        )],
        Ok((applied, known)) => vec![
            check("store.postgres", true, format!("PostgreSQL at {target} answers")),
            check(
                "store.schema",
                applied == known,
                match applied.cmp(&known) {
                    std::cmp::Ordering::Equal => format!("schema version {applied}, this build's"),
                    std::cmp::Ordering::Less => format!(
                        "schema version {applied}, this build needs {known}: run `hwf store migrate` \
                         (or any hwf command on this store, which migrates it)"
                    ),
                    std::cmp::Ordering::Greater => {
                        format!("schema version {applied} is newer than this build knows ({known}): upgrade hwf")
                    }
                },
            ),
        ],
    }
}

/// `host H, database D` of a libpq connection string (a URL or
/// `key=value` words), never its user or password.
fn pg_target(conn: &str) -> String {
    let mut host: Option<String> = None;
    let mut port: Option<String> = None;
    let mut db: Option<String> = None;
    let mut set = |k: &str, v: &str| {
        let v = v.replace("%2F", "/").replace("%2f", "/");
        match k {
            "host" | "hostaddr" if !v.is_empty() => host = Some(v),
            "port" if !v.is_empty() => port = Some(v),
            "dbname" if !v.is_empty() => db = Some(v),
            _ => {}
        }
    };
    if let Some((_, rest)) = conn.split_once("://") {
        let (main, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = main.split_once('/').unwrap_or((main, ""));
        let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        match hostport.rsplit_once(':') {
            Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                set("host", h);
                set("port", p);
            }
            _ => set("host", hostport),
        }
        set("dbname", path);
        for kv in query.split('&') {
            if let Some((k, v)) = kv.split_once('=') {
                set(k, v);
            }
        }
    } else {
        for kv in conn.split_whitespace() {
            if let Some((k, v)) = kv.split_once('=') {
                set(k, v.trim_matches('\''));
            }
        }
    }
    format!(
        "host {}{}, database {}",
        host.as_deref().unwrap_or("localhost"),
        port.map_or(String::new(), |p| format!(" port {p}")),
        db.as_deref().unwrap_or("(the user's)")
    )
}

/// The password in a libpq connection string, if it holds one.
fn pg_password(conn: &str) -> Option<String> {
    if let Some((_, rest)) = conn.split_once("://") {
        let authority = rest.split(['/', '?']).next().unwrap_or("");
        if let Some((userinfo, _)) = authority.rsplit_once('@')
            && let Some((_, p)) = userinfo.split_once(':')
        {
            return Some(p.to_owned());
        }
        let query = rest.split_once('?').map_or("", |(_, q)| q);
        return query
            .split('&')
            .find_map(|kv| kv.strip_prefix("password="))
            .map(str::to_owned);
    }
    conn.split_whitespace()
        .find_map(|kv| kv.strip_prefix("password="))
        .map(|p| p.trim_matches('\'').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_string_is_shown_by_host_and_database_never_its_password() {
        for (conn, shown, password) in [
            (
                "postgres://hwf:s3cret@db.local:5433/runs?sslmode=disable",
                "host db.local port 5433, database runs",
                Some("s3cret"),
            ),
            ("postgresql://u@%2Ftmp%2Fpg/hwf", "host /tmp/pg, database hwf", None),
            (
                "postgres://u@/hwf?host=/run/pg&password=hunter2",
                "host /run/pg, database hwf",
                Some("hunter2"),
            ),
            (
                "host=/tmp/hwf-pg.x user=hwf password=pw dbname=postgres",
                "host /tmp/hwf-pg.x, database postgres",
                Some("pw"),
            ),
            ("postgres://db", "host db, database (the user's)", None),
        ] {
            assert_eq!(pg_target(conn), shown, "{conn}");
            assert_eq!(pg_password(conn).as_deref(), password, "{conn}");
            if let Some(p) = password {
                assert!(!pg_target(conn).contains(p));
            }
        }
    }

    #[tokio::test]
    async fn an_unreachable_database_fails_naming_host_and_database_not_the_password() {
        let checks = store_checks(
            Some("postgres://hwf:t0psecret@127.0.0.1:1/nowhere?connect_timeout=2"),
            &Config::default(),
        )
        .await;
        assert_eq!(checks.len(), 1, "{checks:?}");
        assert_eq!(checks[0]["ok"], false);
        let detail = checks[0]["detail"].as_str().unwrap_or("");
        assert!(detail.contains("host 127.0.0.1 port 1, database nowhere"), "{detail}");
        assert!(!detail.contains("t0psecret"), "{detail}");
        assert!(store_checks(Some("/tmp/some-dir"), &Config::default()).await.is_empty());
    }
}
