//! The nested `cargo build` of guest crates for `wasm32-wasip2`, shared by
//! two build scripts: `cli/build.rs` (the script runtimes the `hwf` binary
//! embeds) and `tests/build.rs` (the example harnesses and test guests).
//! Both include this file with `#[path]`; it lives in `cli/` so that the
//! published `hwf` package carries it.
//!
//! The nested build has its own target dir (`<target>/wasm`: the outer one
//! is locked by the running build), the `guest` profile, and none of the
//! outer build's rustflags, wrappers or jobserver.
//!
//! The JavaScript runtime carries C (QuickJS-ng, through `rquickjs-sys`),
//! compiled for `wasm32-wasip2` by zig's clang and wasi-libc
//! ([`zig`]): `$HWF_ZIG`, else a zig installed earlier under
//! `<target>/zig`, else `zig` on `PATH` when it is the pinned version,
//! else the pinned `ziglang` wheel installed from PyPI with `pip --target`
//! into `<target>/zig` (once; ~50 MB).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Guest packages with C inside, which need [`zig`]'s C compiler.
const NEEDS_C: &[&str] = &["js-runtime"];

/// The zig the C is compiled with (PyPI's `ziglang` wheel of that version
/// when none is given).
pub const ZIG_VERSION: &str = "0.15.2";

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
    // `vendor/`: patched dependencies of the guests (QuickJS's bindings, Monty).
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
    if packages.iter().any(|p| NEEDS_C.contains(p)) {
        for (key, value) in c_env(root, target_dir)? {
            cmd.env(key, value);
        }
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

/// The environment that makes `cc` (in `rquickjs-sys`'s build script)
/// compile QuickJS for `wasm32-wasip2` with zig: the wrappers in
/// `harnesses/js-runtime/zig/` as `CC`/`AR` for that target, QuickJS at
/// clang's real `-O3`, zig's caches under `<target>/zig`, and no wasi-sdk
/// download.
fn c_env(root: &Path, target_dir: &Path) -> Result<Vec<(&'static str, OsString)>, String> {
    let zig = zig(target_dir)?;
    let wrappers = root.join("harnesses/js-runtime/zig");
    let cache = target_dir.join("zig/cache");
    Ok(vec![
        ("HWF_ZIG", zig.into_os_string()),
        ("CC_wasm32_wasip2", wrappers.join("cc.sh").into_os_string()),
        ("AR_wasm32_wasip2", wrappers.join("ar.sh").into_os_string()),
        // zig cc maps -O3 to clang's -O2; this is clang's own -O3.
        ("CFLAGS_wasm32_wasip2", "-Xclang -O3".into()),
        // rquickjs-sys would otherwise download wasi-sdk from GitHub.
        ("RQUICKJS_SYS_NO_WASI_SDK", "1".into()),
        ("ZIG_GLOBAL_CACHE_DIR", cache.clone().into_os_string()),
        ("ZIG_LOCAL_CACHE_DIR", cache.into_os_string()),
    ])
}

/// The zig executable QuickJS's C is compiled with: `$HWF_ZIG`, a zig
/// installed earlier under `<target_dir>/zig/<version>`, `zig` on `PATH`
/// when it is [`ZIG_VERSION`], else PyPI's `ziglang` wheel installed there
/// now with `python3 -m pip install --target` (it says so).
///
/// # Errors
///
/// `$HWF_ZIG` is not a file, or the wheel cannot be installed (no
/// `python3`, no pip, no network): the message says how to provide zig.
pub fn zig(target_dir: &Path) -> Result<PathBuf, String> {
    println!("cargo:rerun-if-env-changed=HWF_ZIG");
    if let Some(given) = std::env::var_os("HWF_ZIG").filter(|v| !v.is_empty()) {
        let given = PathBuf::from(given);
        return if given.is_file() {
            Ok(given)
        } else {
            Err(format!("HWF_ZIG is {}, which is not a file", given.display()))
        };
    }
    let dir = target_dir.join("zig").join(ZIG_VERSION);
    let installed = dir.join("ziglang/zig");
    if installed.is_file() {
        return Ok(installed);
    }
    let on_path = Command::new("zig")
        .arg("version")
        .output()
        .ok()
        .filter(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == ZIG_VERSION);
    if on_path.is_some() {
        return Ok(PathBuf::from("zig"));
    }
    println!(
        "cargo:warning=installing zig {ZIG_VERSION} (PyPI's ziglang wheel, ~50 MB, once) into {}: \
         it compiles the JavaScript runtime's C (QuickJS-ng) for WebAssembly",
        dir.display()
    );
    let python = std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
    let status = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-warn-script-location",
        ])
        .arg("--target")
        .arg(&dir)
        .arg(format!("ziglang=={ZIG_VERSION}"))
        .status();
    match status {
        Ok(s) if s.success() && installed.is_file() => Ok(installed),
        Ok(s) => Err(format!(
            "installing zig {ZIG_VERSION} with `{} -m pip install ziglang=={ZIG_VERSION}` failed ({s}); \
             install zig {ZIG_VERSION} (https://ziglang.org/download/) and set HWF_ZIG to its `zig`",
            python.to_string_lossy()
        )),
        Err(e) => Err(format!(
            "zig compiles the JavaScript runtime's C and none was found; `{}` to install it from PyPI \
             could not start ({e}): install Python 3 with pip, or zig {ZIG_VERSION} and set HWF_ZIG to its `zig`",
            python.to_string_lossy()
        )),
    }
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
