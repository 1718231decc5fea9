//! The nested `cargo build` of guest crates for `wasm32-wasip2`, shared by
//! two build scripts: `cli/build.rs` (the script runtimes the `hwf` binary
//! embeds) and `tests/build.rs` (the example harnesses and test guests).
//! Both include this file with `#[path]`; it lives in `cli/` so that the
//! published `hwf` package carries it.
//!
//! The nested build has its own target dir (`<target>/wasm`: the outer one
//! is locked by the running build), the `guest` profile, and none of the
//! outer build's rustflags, wrappers or jobserver.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The outer build's variables the nested one must not inherit: its
/// target dir and target, its rustflags (host-only flags break a wasm
/// build), compiler wrappers, and cargo's jobserver.
const DROPPED_ENV: &[&str] = &[
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTFLAGS",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET",
    "CARGO_MAKEFLAGS",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
];

/// The target dir of the running build, from a build script's `OUT_DIR`
/// (`<target>/<profile>/build/<pkg>-<hash>/out`).
pub fn outer_target_dir(out_dir: &Path) -> PathBuf {
    out_dir.ancestors().nth(4).unwrap_or(out_dir).to_path_buf()
}

/// Ask cargo to rerun the build script when anything the guests are built
/// from changes: the shared guest sources, each package's own directory
/// (relative to `root`), the lock file and the workspace manifest
/// (workspace dependency features and the guest profile reach the guests).
pub fn rerun_on_guest_sources(root: &Path, package_dirs: &[&str]) {
    // `vendor/`: patched dependencies of the guests (Boa, Monty).
    for dir in ["guest-sdk", "wit", "vendor", "sort"] {
        rerun_tree(&root.join(dir));
    }
    for dir in package_dirs {
        rerun_tree(&root.join(dir));
    }
    println!("cargo:rerun-if-changed={}", root.join("Cargo.lock").display());
    println!("cargo:rerun-if-changed={}", root.join("Cargo.toml").display());
}

/// `Err` with the fix when the `wasm32-wasip2` standard library is not
/// installed for this toolchain (`Ok` when it is, or when the sysroot
/// cannot be asked: cargo's own error follows then).
pub fn check_wasm_target() -> Result<(), String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    match sysroot {
        Some(sysroot) if !sysroot.join("lib/rustlib/wasm32-wasip2").is_dir() => Err(
            "hwf's guests (its script runtimes, the example harnesses) are built for WebAssembly: the \
             wasm32-wasip2 target is not installed for this toolchain; run `rustup target add wasm32-wasip2` \
             and build again"
                .into(),
        ),
        _ => Ok(()),
    }
}

/// What one nested build made.
pub struct Built {
    /// Each package's component, in the order asked for.
    pub files: Vec<PathBuf>,
    /// Wall time of the nested cargo, in seconds.
    pub secs: f64,
}

/// Build `packages` (guest crates of the workspace at `root`) for
/// `wasm32-wasip2` with profile `guest` into `<target_dir>/wasm`, in one
/// nested cargo invocation (its progress and errors go to the build
/// script's output); returns where each `.wasm` is.
///
/// # Errors
///
/// The wasm target is missing, cargo cannot be started, or the build
/// failed (its errors are above in cargo's output).
pub fn build(root: &Path, target_dir: &Path, packages: &[&str]) -> Result<Built, String> {
    check_wasm_target()?;
    let wasm_target = target_dir.join("wasm");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args([
            "build",
            "--profile",
            "guest",
            "--target",
            "wasm32-wasip2",
            "--target-dir",
        ])
        .arg(&wasm_target);
    for pkg in packages {
        cmd.args(["-p", pkg]);
    }
    for var in DROPPED_ENV {
        cmd.env_remove(var);
    }
    let started = Instant::now();
    let status = cmd
        .status()
        .map_err(|e| format!("could not start cargo to build the guests for wasm32-wasip2: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building {} for wasm32-wasip2 failed (its errors are above)",
            packages.join(", ")
        ));
    }
    let files = packages
        .iter()
        .map(|pkg| {
            wasm_target
                .join("wasm32-wasip2/guest")
                .join(format!("{}.wasm", pkg.replace('-', "_")))
        })
        .collect();
    Ok(Built {
        files,
        secs: started.elapsed().as_secs_f64(),
    })
}

/// Copy `from` to `<dest>/<name>.wasm` atomically (a running hwf or test
/// may be reading the old one); returns the copy's path.
///
/// # Errors
///
/// The file cannot be read, or the copy written.
pub fn install(from: &Path, dest: &Path, name: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dest).map_err(|e| format!("create {}: {e}", dest.display()))?;
    let to = dest.join(format!("{name}.wasm"));
    let tmp = dest.join(format!(".{name}.wasm.tmp"));
    std::fs::copy(from, &tmp)
        .and_then(|_| std::fs::rename(&tmp, &to))
        .map_err(|e| format!("copy {} to {}: {e}", from.display(), to.display()))?;
    Ok(to)
}

fn rerun_tree(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rerun_tree(&path);
        } else {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}
