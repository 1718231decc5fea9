//! Scripts (JavaScript, Python, declarative JSON workflows) and how they run: inside
//! a bundled *script runtime* component (`<lang>-runtime.wasm`, the
//! `script-runtime` world) behind the same sandbox and broker as compiled
//! harnesses. This module names what a run executes ([`Target`]), reads
//! components and sources within their limits and loads a script's
//! runtime bound to its source; resolving a target on a host is
//! [`crate::app::resolve`].

use crate::vm::{LoadedComponent, SandboxHost, Vm};
use hwf_core::error::{Error, ErrorCode, Result};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Largest script source accepted, in bytes.
pub const MAX_SCRIPT_BYTES: u64 = 1 << 20;

pub use hwf_core::lang::Language;

mod embedded;

pub use embedded::{EmbeddedRuntime, embed_runtimes, embedded_runtime};

/// Where runtime files are looked for, in order: `$HWF_RUNTIME_DIR` (which
/// overrides the runtimes embedded in the binary, see [`locate_runtime`]);
/// then, for a binary without embedded runtimes, beside the binary
/// (`<exe dir>/../harnesses` for a cargo `target/<profile>/hwf`,
/// `<exe dir>/harnesses`, and `<exe dir>/../share/hwf/runtimes` for an
/// installed prefix); the user's data dir (`$XDG_DATA_HOME/hwf/runtimes`,
/// else `~/.local/share/hwf/runtimes`); `target/harnesses` under the
/// current directory.
pub fn runtime_dirs() -> Vec<PathBuf> {
    let mut dirs = override_dir().into_iter().collect::<Vec<_>>();
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        dirs.push(exe_dir.join("..").join("harnesses"));
        dirs.push(exe_dir.join("harnesses"));
        dirs.push(exe_dir.join("..").join("share").join("hwf").join("runtimes"));
    }
    if let Some(data) = user_dir("XDG_DATA_HOME", &[".local", "share"]) {
        dirs.push(data.join("hwf").join("runtimes"));
    }
    dirs.push(PathBuf::from("target/harnesses"));
    dirs
}

/// `$HWF_RUNTIME_DIR`, when set.
fn override_dir() -> Option<PathBuf> {
    std::env::var_os("HWF_RUNTIME_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Where a language's runtime comes from.
#[derive(Debug, Clone)]
pub enum RuntimeLocation {
    /// A component file.
    File(PathBuf),
    /// Compiled into this binary.
    Embedded(&'static EmbeddedRuntime),
}

impl std::fmt::Display for RuntimeLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RuntimeLocation::File(p) => write!(f, "{}", p.display()),
            RuntimeLocation::Embedded(_) => f.write_str("embedded in the binary"),
        }
    }
}

/// `$<var>`, else `$HOME/<fallback…>` (XDG base directories).
fn user_dir(var: &str, fallback: &[&str]) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(var).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let home = PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?);
    Some(fallback.iter().fold(home, |p, part| p.join(part)))
}

/// The compile cache shared by every state dir of this user:
/// `$HWF_CACHE_DIR`, else `$XDG_CACHE_HOME/hwf`, else `~/.cache/hwf`
/// (`None` without a home: each state dir then keeps its own `cache/`).
/// Entries are keyed by the component's digest and the engine's
/// configuration, so sharing them is safe.
pub fn user_cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("HWF_CACHE_DIR").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    user_dir("XDG_CACHE_HOME", &[".cache"]).map(|d| d.join("hwf"))
}

/// The file name of a language's runtime component.
fn runtime_file(lang: Language) -> Result<&'static str> {
    lang.info()
        .runtime_file
        .ok_or_else(|| Error::new(ErrorCode::Internal, "a wasm component needs no runtime"))
}

/// Where a language's runtime is: `$HWF_RUNTIME_DIR/<lang>-runtime.wasm`
/// when that file exists, else the runtime embedded in the binary (see
/// [`embed_runtimes`]), else the first file in [`runtime_dirs`].
///
/// # Errors
///
/// `unsupported_language` naming the places looked in.
pub fn locate_runtime(lang: Language) -> Result<RuntimeLocation> {
    let file = runtime_file(lang)?;
    if let Some(path) = override_dir().map(|d| d.join(file)).filter(|p| p.is_file()) {
        return Ok(RuntimeLocation::File(path));
    }
    if let Some(embedded) = embedded_runtime(lang) {
        return Ok(RuntimeLocation::Embedded(embedded));
    }
    let dirs = runtime_dirs();
    dirs.iter()
        .map(|d| d.join(file))
        .find(|p| p.is_file())
        .map(RuntimeLocation::File)
        .ok_or_else(|| {
            Error::new(
                ErrorCode::UnsupportedLanguage,
                format!(
                    "the {} runtime ({file}) is not embedded in this program and was not found in {}; \
                     set HWF_RUNTIME_DIR to a directory holding it",
                    lang.as_str(),
                    dirs.iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
}

/// Whether a language's first run would find its runtime compiled: in
/// `cache_dir` (for any engine), or, for an embedded runtime, precompiled
/// for this machine. `None` when the runtime cannot be found or read.
pub fn runtime_compiled(lang: Language, cache_dir: &Path) -> Option<bool> {
    let (digest, precompiled) = match locate_runtime(lang).ok()? {
        RuntimeLocation::File(path) => (blake3::hash(&std::fs::read(path).ok()?), false),
        RuntimeLocation::Embedded(rt) => (blake3::Hash::from_bytes(rt.digest), rt.precompiled_fits()),
    };
    let prefix = format!("{}-", &digest.to_hex()[..32]);
    let entries = std::fs::read_dir(cache_dir).ok();
    Some(
        precompiled
            || entries.is_some_and(|d| {
                d.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            }),
    )
}

/// The seed's way of naming a saved version as a path,
/// `<name>/v000001.workflow.py` (or `.js`, `.json`, `.wasm`): the script's
/// name and version, when `p` has that shape.
pub fn saved_path(p: &Path) -> Option<(String, u32)> {
    let mut parts = p.iter().map(|c| c.to_str());
    let (Some(Some(name)), Some(Some(file)), None) = (parts.next(), parts.next(), parts.next()) else {
        return None;
    };
    let rest = file.strip_prefix('v')?;
    let (digits, ext) = rest.split_once('.')?;
    let known = [
        "workflow.py",
        "py",
        "workflow.js",
        "js",
        "workflow.json",
        "json",
        "wasm",
    ];
    if digits.len() != 6 || !digits.bytes().all(|b| b.is_ascii_digit()) || !known.contains(&ext) {
        return None;
    }
    hwf_core::ids::validate_name("script name", name).ok()?;
    Some((name.to_owned(), digits.parse().ok()?))
}

pub(crate) fn read_source(path: &Path) -> Result<String> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(format!("script {}", path.display()), e))?;
    if meta.len() > MAX_SCRIPT_BYTES {
        return Err(Error::new(
            ErrorCode::ComponentTooLarge,
            format!(
                "{} is {} bytes; scripts may be at most {MAX_SCRIPT_BYTES}",
                path.display(),
                meta.len()
            ),
        ));
    }
    crate::store::FileStore::read_input(path, MAX_SCRIPT_BYTES, "script", ErrorCode::ComponentTooLarge)
}

/// What compiling a bundled runtime (once per user: the artifact goes to
/// the shared compile cache) tells whoever asked with [`on_runtime_compile`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompileNotice {
    /// Another process is compiling this runtime; this one waits for its
    /// artifact instead of compiling it too.
    Waiting(Language),
    /// The runtime is being compiled: nothing usable is cached.
    Compiling(Language),
    /// The compile took this long.
    Compiled(Language, std::time::Duration),
}

static COMPILE_REPORTER: std::sync::OnceLock<fn(CompileNotice)> = std::sync::OnceLock::new();

/// Have `report` told when a bundled runtime must be compiled (the binary
/// shows it on stderr; by default nothing is said). The first call wins.
pub fn on_runtime_compile(report: fn(CompileNotice)) {
    let _ = COMPILE_REPORTER.set(report);
}

fn notify(notice: CompileNotice) {
    if let Some(report) = COMPILE_REPORTER.get() {
        report(notice);
    }
}

/// A language's name as people say it ("javascript", not "js").
pub fn spoken_name(lang: Language) -> &'static str {
    match lang {
        Language::Js => "javascript",
        other => other.as_str(),
    }
}

/// The compile of a bundled runtime: reported, and serialised across the
/// processes sharing the cache by a lock file beside the artifact, so a
/// second process waits for the first's artifact instead of compiling it
/// again.
struct RuntimeCompile<'a> {
    lang: Language,
    store: &'a crate::store::FileStore,
}

impl crate::vm::CompileHook for RuntimeCompile<'_> {
    fn lock(&self, key: &str) -> Option<Box<dyn std::any::Any>> {
        // Not named `<digest>-…`: `runtime_compiled` looks for those.
        let path = self.store.cache_path(&format!("lock-{key}")).ok()?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| tracing::debug!(error = %e, path = %path.display(), "no compile lock"))
            .ok()?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                notify(CompileNotice::Waiting(self.lang));
                file.lock()
                    .map_err(|e| tracing::debug!(error = %e, "compile lock"))
                    .ok()?;
            }
            Err(std::fs::TryLockError::Error(e)) => {
                tracing::debug!(error = %e, "compile lock");
                return None;
            }
        }
        Some(Box::new(file))
    }

    fn compiling(&self, _key: &str) {
        notify(CompileNotice::Compiling(self.lang));
    }

    fn compiled(&self, _key: &str, elapsed: std::time::Duration) {
        notify(CompileNotice::Compiled(self.lang, elapsed));
    }
}

/// Load the runtime component for `lang` (gated as a runtime; see
/// [`locate_runtime`]), bound to `source`. An embedded runtime loads
/// precompiled when its artifact fits this machine; a runtime that is not
/// yet in the compile cache otherwise is compiled once for every process
/// sharing it (see [`on_runtime_compile`]).
///
/// # Errors
///
/// `unsupported_language` when the runtime is missing; the loader's codes.
pub fn load_runtime<H: SandboxHost>(
    vm: &Vm<H>,
    store: &crate::store::FileStore,
    limits: &crate::vm::Limits,
    lang: Language,
    source: &str,
) -> Result<LoadedComponent<H>> {
    let hook = RuntimeCompile { lang, store };
    let loaded = match locate_runtime(lang)? {
        RuntimeLocation::File(path) => {
            let meta = component_metadata(&path, limits)?;
            vm.load_memoized(&path, crate::vm::FileIdentity::of(&meta), || {
                let runtime =
                    std::fs::read(&path).map_err(|e| Error::io(format!("component {}", path.display()), e))?;
                vm.load_observed(
                    &runtime,
                    Some(store),
                    limits,
                    crate::vm::gate::Gate::Runtime,
                    Some(&hook),
                )
            })?
        }
        RuntimeLocation::Embedded(rt) => {
            // One entry per language, never replaced: the binary is the file.
            let name = PathBuf::from(format!("<embedded>/{}", runtime_file(lang)?));
            let same = crate::vm::FileIdentity {
                dev_ino: (0, 0),
                len: rt.component_len as u64,
                mtime_ns: 0,
            };
            vm.load_memoized(&name, same, || {
                vm.load_bundled(rt, Some(store), limits, crate::vm::gate::Gate::Runtime, Some(&hook))
            })?
        }
    };
    if !loaded.is_script_runtime() {
        return Err(Error::new(
            ErrorCode::MissingExport,
            format!("the {} runtime is not a script-runtime component", lang.as_str()),
        ));
    }
    Ok(loaded.with_source(Arc::from(source)))
}

/// Load a saved script's latest (or given) version: a component as it is,
/// a JavaScript or JSON source in its runtime.
///
/// # Errors
///
/// `not_found`, `unsupported_language`, `invalid_params` (a source that is
/// not UTF-8), the loader's codes.
pub fn load_saved<H: SandboxHost>(
    vm: &Vm<H>,
    store: &crate::store::Store,
    limits: &crate::vm::Limits,
    name: &str,
    version: Option<u32>,
) -> Result<LoadedComponent<H>> {
    let meta = store.script_meta(name, version)?;
    let bytes = store.script_bytes(name, meta.version)?;
    match Language::parse(&meta.language)? {
        Language::Wasm => vm.load(&bytes, Some(store.local()), limits),
        lang => {
            let source = std::str::from_utf8(&bytes).map_err(|_| {
                Error::new(
                    ErrorCode::InvalidParams,
                    format!("saved script {name} is not UTF-8 text"),
                )
            })?;
            load_runtime(vm, store.local(), limits, lang, source)
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub enum Target {
    /// A saved script, latest version unless one is given.
    Saved {
        /// Script name.
        name: String,
        /// Version (latest when `None`).
        version: Option<u32>,
    },
    /// A component file.
    Path(PathBuf),
}

impl Target {
    /// Interpret a CLI argument: a path when it names a file or ends in
    /// `.wasm`, `.js`, `.py` or `.json`, otherwise a saved script name
    /// (`name` or `name@3`).
    ///
    /// # Errors
    ///
    /// `invalid_args` for a bad version; `invalid_name` for a bad name.
    pub fn parse(arg: &str) -> Result<Self> {
        if Language::has_script_extension(arg) || arg.contains('/') || Path::new(arg).is_file() {
            return Ok(Target::Path(PathBuf::from(arg)));
        }
        let (name, version) = match arg.split_once('@') {
            Some((n, v)) => {
                let v = v.trim_start_matches('v').parse::<u32>().map_err(|_| {
                    Error::new(
                        ErrorCode::InvalidArgs,
                        format!("bad version in {arg:?}: expected name@<number>"),
                    )
                })?;
                (n, Some(v))
            }
            None => (arg, None),
        };
        hwf_core::ids::validate_name("script name", name)?;
        Ok(Target::Saved {
            name: name.to_owned(),
            version,
        })
    }
}

/// Read a component file, refusing non-files and oversized files.
///
/// # Errors
///
/// `not_found`, `io`, `invalid_args`, `component_too_large`.
pub fn read_component(path: &Path, limits: &crate::vm::Limits) -> Result<Vec<u8>> {
    component_metadata(path, limits)?;
    std::fs::read(path).map_err(|e| Error::io(format!("component {}", path.display()), e))
}

/// The metadata of a component file, refusing non-files and oversized
/// files (the checks of [`read_component`]).
fn component_metadata(path: &Path, limits: &crate::vm::Limits) -> Result<std::fs::Metadata> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(format!("component {}", path.display()), e))?;
    if !meta.is_file() {
        return Err(Error::new(
            ErrorCode::InvalidArgs,
            format!("{} is not a file", path.display()),
        ));
    }
    if meta.len() > limits.max_component_bytes {
        return Err(Error::new(
            ErrorCode::ComponentTooLarge,
            format!(
                "{} is {} bytes; the limit is {}",
                path.display(),
                meta.len(),
                limits.max_component_bytes
            ),
        ));
    }
    Ok(meta)
}
