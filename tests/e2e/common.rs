//! Test context: a temp state dir and a command builder for `hwf`.

#![allow(dead_code, reason = "helpers used by some test modules only")]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub use hwf_tests::harnesses;

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(hwf_tests::WORKSPACE_ROOT)
}

/// The compile cache every test shares (a script runtime takes a second
/// or more to compile; once is enough).
pub fn shared_cache() -> PathBuf {
    root().join("target").join("test-cache")
}

/// The directory holding the runtime files the binary embeds
/// (`<target>/harnesses`, where `cli/build.rs` puts them beside the other
/// guests): for tests that want a runtime from a file (`HWF_RUNTIME_DIR`).
pub fn built_runtimes() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_hwf"));
    exe.parent()
        .and_then(Path::parent)
        .map(|target| target.join("harnesses"))
        .unwrap_or_else(|| root().join("target/harnesses"))
}

/// The hello fixture.
pub fn hello_fixture() -> PathBuf {
    root().join("harnesses/hello/fixture.json")
}

/// A fresh state dir per test, with HOME and HERMES_HOME inside it.
pub struct Ctx {
    pub dir: tempfile::TempDir,
    /// Every command runs with `HWF_RUNNER_AUTOSTART=0` (see
    /// [`Ctx::manual_runner`]).
    manual: bool,
}

/// What one `hwf` invocation did.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout parsed as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }

    /// The `--json` envelope's `error.message` as plain text ("" when there
    /// is none): compare with this, not with the JSON-quoted value.
    pub fn error_message(&self) -> String {
        self.json()["error"]["message"].as_str().unwrap_or_default().to_owned()
    }

    /// Assert the exit code, showing the output on failure.
    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(self.code, code, "unexpected exit code: {self:#?}");
        self
    }

    /// Assert stderr contains `needle`.
    #[track_caller]
    pub fn expect_stderr(&self, needle: &str) -> &Self {
        assert!(self.stderr.contains(needle), "stderr lacks {needle:?}: {self:#?}");
        self
    }
}

impl From<Output> for Run {
    fn from(o: Output) -> Self {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

impl Ctx {
    pub fn new() -> Self {
        Ctx {
            dir: tempfile::tempdir().expect("tempdir"),
            manual: false,
        }
    }

    /// A context whose commands never start the state dir's background
    /// runner (`HWF_RUNNER_AUTOSTART=0`): for tests that record a control
    /// or an event on a parked run and then drive `hwf runner` by hand
    /// (a background runner started by the control would race them).
    pub fn manual_runner() -> Self {
        Ctx {
            manual: true,
            ..Self::new()
        }
    }

    pub fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The run ids in the state dir, sorted (oldest first).
    pub fn run_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = std::fs::read_dir(self.state().join("runs"))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        ids.sort();
        ids
    }

    /// Write a file in the test dir; returns its path.
    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, contents).expect("write");
        p
    }

    /// `hwf` with a clean environment pointing at this context's state.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_hwf"));
        c.current_dir(self.dir.path())
            .env_remove("RUST_LOG")
            .env("HOME", self.dir.path())
            .env("HERMES_HOME", self.dir.path().join("hermes"))
            .env("HWF_STATE_DIR", self.state())
            // Compiled components are shared (keyed by digest); state never is.
            .env("HWF_CACHE_DIR", shared_cache());
        // No trace export unless a test asks for it (tests/e2e/otel.rs).
        for var in [
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "OTEL_EXPORTER_OTLP_PROTOCOL",
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_SERVICE_NAME",
            "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
        ] {
            c.env_remove(var);
        }
        if self.manual {
            c.env("HWF_RUNNER_AUTOSTART", "0");
        } else {
            c.env_remove("HWF_RUNNER_AUTOSTART");
        }
        c
    }

    /// Run `hwf` with arguments.
    pub fn hwf<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.cmd().args(args).output().expect("spawn hwf").into()
    }

    /// `hwf run <component> --args <json> --json [extra…]`.
    pub fn run_json(&self, component: &str, args: &str, extra: &[&str]) -> Run {
        let mut a: Vec<String> = vec![
            "run".into(),
            component.into(),
            "--args".into(),
            args.into(),
            "--json".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        self.hwf(a)
    }

    /// Read a run's journal as JSON lines.
    pub fn journal(&self, run_id: &str) -> Vec<Value> {
        let text =
            std::fs::read_to_string(self.state().join("runs").join(run_id).join("journal.jsonl")).expect("journal");
        // A journal whose writer died keeps its preallocated tail of zeros
        // until it is reopened: the lines end where they begin.
        let end = text.find('\0').unwrap_or(text.len());
        text[..end]
            .lines()
            .map(|l| serde_json::from_str(l).expect("journal line"))
            .collect()
    }

    /// Every byte under the state dir, as lossy text (for secret scans).
    pub fn all_state_text(&self) -> String {
        let mut out = String::new();
        walk(&self.state(), &mut out);
        out
    }
}

fn walk(dir: &Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_none_or(|e| e != "cwasm" && e != "wasm") {
            out.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap_or_default()));
        }
    }
}

/// The run id of a facade envelope (`--json` output).
pub fn run_id(v: &Value) -> String {
    v["data"]["run_id"].as_str().expect("run id").to_owned()
}

/// `hwf <args…>` with `request` on stdin (`hwf facade TOOL`, the model's
/// surface): (exit code, the JSON envelope it printed).
pub fn facade_stdin(ctx: &Ctx, args: &[&str], request: &Value) -> (i32, Value) {
    use std::io::Write as _;
    let mut child = ctx
        .cmd()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn hwf");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(request.to_string().as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {out:?}"));
    (out.status.code().unwrap_or(-1), v)
}

/// `hwf status ID --json`'s data (exit code 0 asserted).
pub fn status(ctx: &Ctx, id: &str) -> Value {
    let s = ctx.hwf(["status", id, "--json"]);
    s.expect_code(0);
    s.json()["data"].clone()
}

/// `hwf runner --once --json`'s data (exit code 0 asserted).
pub fn runner_once(ctx: &Ctx) -> Value {
    let out = ctx.hwf(["runner", "--once", "--json"]);
    out.expect_code(0);
    out.json()["data"].clone()
}

/// The newest PostgreSQL bin dir with `initdb` (as the script finds it).
pub fn pg_bin() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|d| d.join("initdb").exists())
        .collect();
    dirs.sort_by_key(|d| {
        d.parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or(0)
    });
    if let Some(d) = dirs.pop() {
        return Some(d);
    }
    std::env::var_os("PATH")
        .and_then(|p| std::env::split_paths(&p).find(|d| d.join("initdb").exists() && d.join("pg_ctl").exists()))
}

/// `psql` of [`pg_bin`], else the one on `PATH`.
pub fn psql() -> PathBuf {
    pg_bin().map_or_else(|| PathBuf::from("psql"), |d| d.join("psql"))
}

/// Runs a reference runtime (`python3` for CPython, `node` for Node) with
/// `args` and returns what it printed, parsed as JSON. The comparison is
/// the point of the tests that call this, so a missing runtime fails the
/// test (naming it) instead of skipping the comparison, and so does a
/// program the reference itself refuses.
#[track_caller]
pub fn reference_json(runtime: &str, args: &[&str]) -> Value {
    let out = Command::new(runtime).args(args).output().unwrap_or_else(|e| {
        panic!("`{runtime}` is required to compare hwf with the reference runtime and could not be started: {e}")
    });
    assert!(
        out.status.success(),
        "{runtime} refused the reference program: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{runtime} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}
