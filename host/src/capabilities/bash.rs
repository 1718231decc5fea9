//! `bash` (`external_write`): run one command from an argv — never a shell
//! string — with its working directory inside the workspace, a cleared
//! environment plus allow-listed variables, a timeout, and bounded, captured
//! output. On timeout or cancellation the whole process group is killed.
//!
//! The command must not read hwf's own secrets: hwf is non-dumpable (set at
//! start-up), so a process of the same user cannot open
//! `/proc/<hwf>/environ` or `/proc/<hwf>/mem`. Root bypasses that check with
//! `CAP_SYS_PTRACE`, so when hwf runs as root the command runs under
//! `setpriv` (util-linux) with every capability dropped from its bounding,
//! inheritable and ambient sets and `no_new_privs` set; without `setpriv` a
//! root hwf refuses to run commands.
//!
//! By default the command is also confined by the kernel (the [`confine`] module):
//! Landlock keeps its writes inside the workspace (and a private `TMPDIR`)
//! and hwf's state dir out of its reach, a network namespace keeps it off
//! the network, and a PID namespace ends everything it started when it
//! ends. `[capabilities.bash]` (`network`, `confine`) and a grant's
//! `sandbox` terms lift parts of that.
//!
//! Input: `{"argv": ["git", "status"], "cwd"?: "sub/dir", "env"?: {"LANG": "C"},
//! "timeout_ms"?: 30000, "stdin"?: "text"}`.
//! Output: `{"exit_code", "stdout", "stderr", "duration_ms", "signal"?}`.

use super::confine;
use super::fs::Workspace;
use super::{Capability, CapabilityCall, CapabilityError, CapabilityHandler, SideEffect};
use hwf_core::BoxFuture;
use hwf_core::policy::CommandSandbox;
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// Variables a call may set (everything else is refused).
pub const ENV_ALLOW: &[&str] = &["LANG", "LC_ALL", "TZ", "TERM", "NO_COLOR", "CI", "GIT_PAGER", "PAGER"];
/// Default timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// Largest timeout a call may ask for.
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// Bytes kept of each of stdout and stderr (the policy clips further).
const CAPTURE_BYTES: usize = 1 << 20;

struct Bash {
    ws: Arc<Workspace>,
    sandbox: CommandSandbox,
}

/// Kills the child's process group when dropped (timeout, cancellation).
struct GroupGuard(Option<i32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.0.take()
            && let Some(pid) = rustix::process::Pid::from_raw(pid)
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

async fn read_bounded<R: AsyncRead + Unpin>(mut r: R) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = CAPTURE_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
    kept
}

/// `setpriv` arguments that drop every capability before the command runs.
const SETPRIV_ARGS: &[&str] = &[
    "--bounding-set=-all",
    "--inh-caps=-all",
    "--ambient-caps=-all",
    "--no-new-privs",
    "--",
];

/// The first executable file named `name` on `path` (or `name` itself,
/// against `cwd`, when it holds a `/`).
fn find_executable(name: &str, path: &OsStr, cwd: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let is_exec = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if name.contains('/') {
        let p = cwd.join(name);
        return is_exec(&p).then_some(p);
    }
    std::env::split_paths(path).map(|d| d.join(name)).find(|p| is_exec(p))
}

/// The command for `argv0`: itself, or under `setpriv` with no capabilities
/// when hwf runs as root.
fn confined(argv0: &str, path: &OsStr, cwd: &Path) -> Result<tokio::process::Command, CapabilityError> {
    if !rustix::process::geteuid().is_root() {
        return Ok(tokio::process::Command::new(argv0));
    }
    let setpriv = find_executable("setpriv", path, cwd)
        .or_else(|| find_executable("setpriv", OsStr::new("/usr/bin:/bin:/usr/sbin:/sbin"), cwd))
        .ok_or_else(|| {
            CapabilityError::Failed(
                "hwf runs as root and setpriv (util-linux) is not installed, so bash cannot drop its \
                 capabilities; install util-linux or run hwf as an ordinary user"
                    .into(),
            )
        })?;
    let target = find_executable(argv0, path, cwd)
        .ok_or_else(|| CapabilityError::Failed(format!("cannot start {argv0:?}: not found on PATH")))?;
    let mut cmd = tokio::process::Command::new(setpriv);
    cmd.args(SETPRIV_ARGS).arg(target);
    Ok(cmd)
}

fn bad(msg: impl Into<String>) -> CapabilityError {
    CapabilityError::InvalidInput(msg.into())
}

impl CapabilityHandler for Bash {
    fn call<'a>(&'a self, call: CapabilityCall<'a>) -> BoxFuture<'a, Result<Value, CapabilityError>> {
        Box::pin(async move {
            let input = call.input;
            let argv: Vec<&str> = match input.get("argv") {
                Some(Value::Array(items)) if !items.is_empty() => items
                    .iter()
                    .map(|v| v.as_str().ok_or_else(|| bad("argv must be a list of strings")))
                    .collect::<Result<_, _>>()?,
                Some(Value::String(_)) => return Err(bad("argv must be a list of strings, not a shell string")),
                _ => return Err(bad("argv (a non-empty list of strings) is required")),
            };
            let cwd = self
                .ws
                .resolve_dir(input.get("cwd").and_then(Value::as_str).unwrap_or("."))?;
            let timeout_ms = match input.get("timeout_ms") {
                None | Some(Value::Null) => DEFAULT_TIMEOUT_MS,
                Some(v) => v
                    .as_u64()
                    .filter(|t| (1..=MAX_TIMEOUT_MS).contains(t))
                    .ok_or_else(|| bad(format!("timeout_ms must be between 1 and {MAX_TIMEOUT_MS}")))?,
            };
            let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
            let mut env: Vec<(&str, &str)> = Vec::new();
            if let Some(vars) = input.get("env") {
                let vars = vars
                    .as_object()
                    .ok_or_else(|| bad("env must be an object of strings"))?;
                for (k, v) in vars {
                    if !ENV_ALLOW.contains(&k.as_str()) {
                        return Err(bad(format!(
                            "env variable {k:?} is not in the allow-list ({})",
                            ENV_ALLOW.join(", ")
                        )));
                    }
                    env.push((k, v.as_str().ok_or_else(|| bad(format!("env {k:?} must be a string")))?));
                }
            }
            let sandbox = self.sandbox.loosened_by(call.grant.and_then(|t| t.get("sandbox")));
            let command = |prepared: &Option<confine::Prepared>| -> Result<tokio::process::Command, CapabilityError> {
                let mut cmd = confined(argv[0], &path, &cwd)?;
                cmd.args(&argv[1..])
                    .current_dir(&cwd)
                    .env_clear()
                    .env("PATH", &path)
                    .env("HOME", self.ws.root())
                    .envs(env.iter().copied())
                    .stdin(if input.get("stdin").is_some() {
                        Stdio::piped()
                    } else {
                        Stdio::null()
                    })
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .kill_on_drop(true)
                    .process_group(0);
                if let Some(prepared) = prepared {
                    cmd.env("TMPDIR", prepared.tmp.path());
                    prepared.child_setup()?.install(&mut cmd);
                }
                Ok(cmd)
            };
            let started = Instant::now();
            // `prepared` lives until the command has ended (its TMPDIR is
            // removed when it is dropped).
            let mut prepared = confine::Prepared::new(self.ws.root(), &sandbox, confine::namespaces_wanted())?;
            let mut spawned = command(&prepared)?.spawn();
            if let Err(e) = &spawned
                && prepared.as_ref().is_some_and(confine::Prepared::uses_namespaces)
                && confine::may_be_namespace_refusal(e)
            {
                // The kernel may refuse namespaces (user namespaces off):
                // once more with Landlock alone.
                let fallback = confine::Prepared::new(self.ws.root(), &sandbox, false)?;
                let retried = command(&fallback)?.spawn();
                if retried.is_ok() {
                    confine::namespaces_unavailable();
                }
                (prepared, spawned) = (fallback, retried);
            }
            // Held to the end of the call: the TMPDIR goes with it.
            let _confinement = prepared;
            let mut child = spawned.map_err(|e| CapabilityError::Failed(format!("cannot start {:?}: {e}", argv[0])))?;
            let guard = GroupGuard(child.id().and_then(|p| i32::try_from(p).ok()));
            if let (Some(text), Some(mut stdin)) = (input.get("stdin").and_then(Value::as_str), child.stdin.take()) {
                let text = text.to_owned();
                tokio::spawn(async move {
                    let _ = stdin.write_all(text.as_bytes()).await;
                });
            }
            let out = child.stdout.take().map(|s| tokio::spawn(read_bounded(s)));
            let err = child.stderr.take().map(|s| tokio::spawn(read_bounded(s)));
            let status = match tokio::time::timeout(Duration::from_millis(timeout_ms), child.wait()).await {
                Ok(status) => status.map_err(|e| CapabilityError::Failed(format!("waiting for {:?}: {e}", argv[0])))?,
                Err(_) => {
                    drop(guard);
                    return Err(CapabilityError::TimedOut(format!(
                        "{:?} timed out after {timeout_ms} ms and was killed",
                        argv[0]
                    )));
                }
            };
            // The command is done: kill anything it left in its group.
            drop(guard);
            // A descendant that escaped the group (setsid) may keep the
            // pipes open: take what arrived within a short grace period.
            let grace = Duration::from_millis(500);
            let collect = |h: Option<tokio::task::JoinHandle<Vec<u8>>>| async move {
                match h {
                    Some(mut h) => match tokio::time::timeout(grace, &mut h).await {
                        Ok(r) => r.unwrap_or_default(),
                        Err(_) => {
                            h.abort();
                            b"[output still open after the command exited; not waited for]".to_vec()
                        }
                    },
                    None => Vec::new(),
                }
            };
            let stdout = collect(out).await;
            let stderr = collect(err).await;
            use std::os::unix::process::ExitStatusExt;
            let mut result = json!({
                "exit_code": status.code(),
                "stdout": String::from_utf8_lossy(&stdout),
                "stderr": String::from_utf8_lossy(&stderr),
                "duration_ms": started.elapsed().as_millis() as u64,
            });
            if let Some(sig) = status.signal() {
                result["signal"] = json!(sig);
            }
            Ok(result)
        })
    }
}

/// The `bash` capability over a workspace, confined by default.
pub fn capability(ws: Arc<Workspace>) -> Capability {
    capability_sandboxed(ws, CommandSandbox::default())
}

/// The `bash` capability over a workspace, its commands confined as
/// `sandbox` says.
pub fn capability_sandboxed(ws: Arc<Workspace>, sandbox: CommandSandbox) -> Capability {
    Capability {
        name: "bash".into(),
        class: SideEffect::ExternalWrite,
        description: "Run a command from an argv in the workspace: {argv, cwd?, env?, timeout_ms?, stdin?} → {exit_code, stdout, stderr, duration_ms}".into(),
        replayable: true,
        handler: Arc::new(Bash { ws, sandbox }),
        input_schema: None,
    }
}
