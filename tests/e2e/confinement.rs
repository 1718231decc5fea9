//! `bash` under the kernel's confinement (issue 29, finding 13), through
//! the real binary: an approved command writes only inside its workspace
//! (and its private `TMPDIR`), cannot read hwf's state dir, cannot open a
//! network connection, and everything it starts — `setsid` children
//! included — ends with its call. The documented opt-outs
//! (`[capabilities.bash]`, a grant's `sandbox` terms) lift exactly what
//! they name.

use crate::common::{Ctx, harnesses};
use serde_json::{Value, json};
use std::io::Read as _;
use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A loopback listener counting the connections that reach it.
struct Listener {
    port: u16,
    accepted: Arc<AtomicUsize>,
}

impl Listener {
    fn start() -> Self {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = l.local_addr().expect("addr").port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let seen = accepted.clone();
        std::thread::spawn(move || {
            for mut s in l.incoming().flatten() {
                seen.fetch_add(1, Ordering::SeqCst);
                let mut buf = [0u8; 64];
                let _ = s.read(&mut buf);
            }
        });
        Listener { port, accepted }
    }
}

/// Run one `bash` call through the probe harness in workspace `ws`;
/// returns the call's outcome (`{"ok": …}` or `{"error": …}`).
fn bash(ctx: &Ctx, ws: &Path, input: Value, extra: &[&str]) -> Value {
    let args = json!({"op": "cap", "name": "bash", "approval_id": "a", "input": input}).to_string();
    let mut flags = vec![
        "--allow-class",
        "external_write",
        "--approval-id",
        "a",
        "--workspace",
        ws.to_str().expect("utf8"),
    ];
    flags.extend_from_slice(extra);
    let out = ctx.run_json(harnesses::PROBE, &args, &flags);
    out.expect_code(0);
    out.json()["data"]["result"].clone()
}

/// Host processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(marker) {
                found.push(pid);
            }
        }
    }
    found
}

/// A per-test temporary path outside every workspace (`/tmp`).
fn outside_tmp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("hwf-confine-{}-{name}", std::process::id()))
}

#[test]
fn an_approved_command_writes_only_in_its_workspace_and_reaches_no_network() {
    let ctx = Ctx::new();
    let ws = ctx.path("ws");
    std::fs::create_dir_all(&ws).expect("mkdir");
    let sibling = ctx.path("outside.txt");
    let tmp = outside_tmp("escape.txt");
    let listener = Listener::start();
    // Prime the state dir so there is something of hwf's to try to read.
    bash(&ctx, &ws, json!({"argv": ["true"]}), &[]);
    let state = ctx.state();
    let script = format!(
        "echo in > inside.txt && echo inside-ok
echo out > '{sibling}' && echo sibling-WRITTEN
echo out > '{tmp}' && echo tmp-WRITTEN
echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" >/dev/null && echo tmpdir-ok
echo \"tmpdir=$TMPDIR\"
ls '{state}' >/dev/null 2>&1 && echo state-READ
echo hi > /dev/tcp/127.0.0.1/{port} && echo tcp-CONNECTED
python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 2)' 2>/dev/null && echo py-CONNECTED
exit 0",
        sibling = sibling.display(),
        tmp = tmp.display(),
        state = state.display(),
        port = listener.port,
    );
    let r = bash(&ctx, &ws, json!({"argv": ["bash", "-c", script]}), &[]);
    let stdout = r["ok"]["stdout"].as_str().unwrap_or_else(|| panic!("no stdout: {r}"));
    assert!(stdout.contains("inside-ok"), "the workspace is writable: {r}");
    assert!(stdout.contains("tmpdir-ok"), "the private TMPDIR is writable: {r}");
    for escaped in [
        "sibling-WRITTEN",
        "tmp-WRITTEN",
        "state-READ",
        "tcp-CONNECTED",
        "py-CONNECTED",
    ] {
        assert!(!stdout.contains(escaped), "{escaped}: {r}");
    }
    assert_eq!(std::fs::read_to_string(ws.join("inside.txt")).expect("inside"), "in\n");
    assert!(!sibling.exists(), "a file was written beside the workspace");
    assert!(!tmp.exists(), "a file was written in /tmp");
    assert_eq!(
        listener.accepted.load(Ordering::SeqCst),
        0,
        "a connection reached the listener"
    );
    // The private TMPDIR (named by the hwf process, which the script
    // printed) is gone with the call.
    let tmpdir = stdout
        .lines()
        .find_map(|l| l.strip_prefix("tmpdir="))
        .unwrap_or_else(|| panic!("the script printed its TMPDIR: {r}"));
    assert!(tmpdir.contains("hwf-bash-"), "a private TMPDIR: {tmpdir}");
    assert!(
        !Path::new(tmpdir).exists(),
        "the command's TMPDIR outlived it: {tmpdir}"
    );
}

#[test]
fn a_setsid_child_ends_with_its_call_and_with_a_timeout() {
    let ctx = Ctx::new();
    let ws = ctx.path("ws");
    std::fs::create_dir_all(&ws).expect("mkdir");
    // A child that leaves the process group and the session, and one
    // that double-forks: both outlive the command without confinement.
    let marker = format!("{}", 900_000 + std::process::id() % 99_999);
    let script = format!("setsid sleep {marker} & (setsid sh -c 'sleep {marker}1 &' &) ; sleep 0.2; echo started");
    let r = bash(&ctx, &ws, json!({"argv": ["sh", "-c", script]}), &[]);
    assert!(r["ok"]["stdout"].as_str().is_some_and(|s| s.contains("started")), "{r}");
    // The call has returned: nothing it started is left (the kernel
    // ended the namespace before the command's status reached hwf).
    assert_eq!(
        processes_with(&format!("sleep {marker}")),
        Vec::<u32>::new(),
        "a setsid child outlived its call"
    );

    // The same when the call times out.
    let script = format!("setsid sleep {marker}2 & sleep 100");
    let t = Instant::now();
    let r = bash(
        &ctx,
        &ws,
        json!({"argv": ["sh", "-c", script], "timeout_ms": 1500}),
        &[],
    );
    assert_eq!(r["error"]["code"], "capability_timeout", "{r}");
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    let t = Instant::now();
    while !processes_with(&format!("sleep {marker}2")).is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "a setsid child outlived its timed-out call"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn the_opt_outs_lift_what_they_name() {
    let ctx = Ctx::new();
    let ws = ctx.path("ws");
    std::fs::create_dir_all(&ws).expect("mkdir");
    let listener = Listener::start();
    let connect = json!({"argv": ["bash", "-c", format!("echo hi > /dev/tcp/127.0.0.1/{} && echo tcp-CONNECTED", listener.port)]});
    // `[capabilities.bash] network = true`: the network is reachable, the
    // filesystem still confined.
    let cfg = ctx.write("net.toml", "[capabilities.bash]\nnetwork = true\n");
    let cfg = cfg.to_str().expect("utf8");
    let r = bash(&ctx, &ws, connect.clone(), &["--config", cfg]);
    assert!(
        r["ok"]["stdout"].as_str().is_some_and(|s| s.contains("tcp-CONNECTED")),
        "{r}"
    );
    let sibling = ctx.path("outside.txt");
    let write = json!({"argv": ["sh", "-c", format!("echo x > '{}'", sibling.display())]});
    let r = bash(&ctx, &ws, write.clone(), &["--config", cfg]);
    assert_ne!(r["ok"]["exit_code"], 0, "{r}");
    assert!(!sibling.exists());
    // `confine = false`: the command runs with the user's authority.
    let cfg = ctx.write("hwf-off.toml", "[capabilities.bash]\nconfine = false\n");
    let r = bash(&ctx, &ws, write, &["--config", cfg.to_str().expect("utf8")]);
    assert_eq!(r["ok"]["exit_code"], 0, "{r}");
    assert!(sibling.exists());
    // The default config after all that: confined again.
    let r = bash(&ctx, &ws, connect, &[]);
    assert!(
        !r["ok"]["stdout"].as_str().is_some_and(|s| s.contains("tcp-CONNECTED")),
        "{r}"
    );
    assert_eq!(
        listener.accepted.load(Ordering::SeqCst),
        1,
        "only the opted-out call connected"
    );
}

#[test]
fn a_grant_may_lift_the_network_for_its_uses_only() {
    let ctx = Ctx::manual_runner();
    let ws = ctx.path("ws");
    std::fs::create_dir_all(&ws).expect("mkdir");
    let listener = Listener::start();
    let script = ctx.write(
        "grant.js",
        format!(
            r#"export const meta = {{ name: "grant-net", description: "a grant lifting bash's network" }};
const connect = {{ argv: ["bash", "-c", "echo hi > /dev/tcp/127.0.0.1/{port} && echo tcp-CONNECTED"] }};
const g = await capability("grant.request", {{ capability: "bash", count: 1, sandbox: {{ network: true }}, reason: "fetch" }});
const under = await capability("grant.act", {{ grant: g.grant_id, capability: "bash", input: connect }});
return {{ sandbox: g.sandbox, under: under.result.stdout }};
"#,
            port = listener.port
        ),
    );
    let flags = [
        "--allow-class",
        "external_write",
        "--allow-class",
        "session_control",
        "--workspace",
        ws.to_str().expect("utf8"),
        "--json",
    ];
    let mut args = vec!["run", script.to_str().expect("utf8")];
    args.extend_from_slice(&flags);
    let out = ctx.hwf(&args);
    out.expect_code(3);
    let id = crate::common::run_id(&out.json());
    // The approval shows what the grant lifts.
    let waits = ctx.hwf(["waits", "--json"]);
    assert!(waits.stdout.contains("lifting sandbox"), "{waits:?}");
    ctx.hwf(["control", "decide", &id, "1", "approve"]).expect_code(0);
    ctx.hwf(["runner", "--once"]).expect_code(0);
    let s = crate::common::status(&ctx, &id);
    assert_eq!(s["state"], "succeeded", "{s}");
    let result = &s["result"];
    assert_eq!(result["sandbox"], json!({"network": true}), "{s}");
    assert!(
        result["under"].as_str().is_some_and(|o| o.contains("tcp-CONNECTED")),
        "{s}"
    );
    assert_eq!(listener.accepted.load(Ordering::SeqCst), 1);
    // A grant whose sandbox terms are not what it may lift is refused.
    let bad = ctx.write(
        "bad.js",
        r#"export const meta = { name: "bad-grant", description: "a grant with bad sandbox terms" };
await capability("grant.request", { capability: "bash", sandbox: { paths: ["/"] } });"#,
    );
    let out = ctx.hwf([
        "run",
        bad.to_str().expect("utf8"),
        "--workspace",
        ws.to_str().expect("utf8"),
        "--json",
    ]);
    assert!(out.stdout.contains("sandbox must be"), "{out:?}");
}

#[test]
fn a_workspace_holding_the_state_dir_is_writable_but_the_state_dir_is_hidden() {
    // `hwf run` started in $HOME: the default workspace (the current
    // directory, here the test dir) holds the state dir.
    let ctx = Ctx::new();
    // A run first, so the state dir holds runs (and a token-like file).
    ctx.run_json(
        harnesses::PROBE,
        r#"{"op":"cap","name":"fs.list","input":{"path":"."}}"#,
        &[],
    );
    std::fs::write(ctx.state().join("planted-secret.txt"), "state-dir-secret-6e1f").expect("plant");
    let script = "echo x > created-at-root.txt && echo root-ok
mkdir -p sub && echo y > sub/f.txt && echo sub-ok
cat state/planted-secret.txt 2>/dev/null
ls state 2>/dev/null | grep -q runs && echo STATE-LISTED
echo z > state/dropped.txt 2>/dev/null && echo STATE-WRITTEN
exit 0";
    let args =
        json!({"op": "cap", "name": "bash", "approval_id": "a", "input": {"argv": ["sh", "-c", script]}}).to_string();
    let out = ctx.run_json(
        harnesses::PROBE,
        &args,
        &["--allow-class", "external_write", "--approval-id", "a"],
    );
    out.expect_code(0);
    let r = out.json()["data"]["result"].clone();
    let stdout = r["ok"]["stdout"].as_str().unwrap_or_else(|| panic!("{r}"));
    assert!(stdout.contains("root-ok") && stdout.contains("sub-ok"), "{r}");
    for leaked in ["state-dir-secret-6e1f", "STATE-LISTED", "STATE-WRITTEN"] {
        assert!(!stdout.contains(leaked), "{leaked}: {r}");
    }
    assert!(ctx.path("created-at-root.txt").exists());
    assert!(!ctx.state().join("dropped.txt").exists());
}
