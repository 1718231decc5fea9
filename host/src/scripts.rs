//! Scripts (JavaScript, Python, declarative JSON workflows) and how they run: inside
//! a bundled *script runtime* component (`<lang>-runtime.wasm`, the
//! `script-runtime` world) behind the same sandbox and broker as compiled
//! harnesses. This module resolves what a run executes — a component, or a
//! runtime bound to a script's source — and checks scripts.

use crate::broker::LoadedComponent;
use crate::runtime::{Hwf, Target, read_component};
use crate::store::ScriptRef;
use hwf_core::error::{Error, ErrorCode, Result};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Largest script source accepted, in bytes.
pub const MAX_SCRIPT_BYTES: u64 = 1 << 20;

pub use hwf_core::lang::Language;

/// Where the bundled runtimes are looked for, in order: `$HWF_RUNTIME_DIR`;
/// beside the binary (`<exe dir>/../harnesses` for a cargo
/// `target/<profile>/hwf`, `<exe dir>/harnesses`, and
/// `<exe dir>/../share/hwf/runtimes` for an installed prefix); the user's
/// data dir (`$XDG_DATA_HOME/hwf/runtimes`, else
/// `~/.local/share/hwf/runtimes`, where `scripts/install.sh` puts them);
/// `target/harnesses` under the current directory.
pub fn runtime_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::var_os("HWF_RUNTIME_DIR").filter(|v| !v.is_empty()) {
        dirs.push(PathBuf::from(dir));
    }
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
    match lang {
        Language::Json => Ok("json-runtime.wasm"),
        Language::Js => Ok("js-runtime.wasm"),
        Language::Python => Ok("python-runtime.wasm"),
        Language::Wasm => Err(Error::new(ErrorCode::Internal, "a wasm component needs no runtime")),
    }
}

/// Where a language's runtime component is (see [`runtime_dirs`]).
///
/// # Errors
///
/// `unsupported_language` naming the places looked in and how to install
/// the runtimes.
pub fn runtime_path(lang: Language) -> Result<PathBuf> {
    let file = runtime_file(lang)?;
    let dirs = runtime_dirs();
    dirs.iter().map(|d| d.join(file)).find(|p| p.is_file()).ok_or_else(|| {
        Error::new(
            ErrorCode::UnsupportedLanguage,
            format!(
                "the {} runtime ({file}) was not found in {}; install the runtimes with `scripts/install.sh` \
                 (from a checkout), or set HWF_RUNTIME_DIR",
                lang.as_str(),
                dirs.iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    })
}

/// Whether a language's runtime has been compiled into `cache_dir` for
/// some engine (the first run of a language compiles it, which takes a
/// while; callers say so). `None` when the runtime cannot be found or
/// read.
pub fn runtime_compiled(lang: Language, cache_dir: &Path) -> Option<bool> {
    let bytes = std::fs::read(runtime_path(lang).ok()?).ok()?;
    let prefix = format!("{}-", &blake3::hash(&bytes).to_hex()[..32]);
    let entries = std::fs::read_dir(cache_dir).ok();
    Some(entries.is_some_and(|d| {
        d.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(&prefix))
    }))
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

/// What a run executes.
#[derive(Debug)]
pub struct Resolved {
    /// The loaded component (a runtime bound to its source for scripts).
    pub loaded: LoadedComponent,
    /// How the run records it (digest of the component or the source).
    pub script: ScriptRef,
    /// The component bytes, or the script source bytes.
    pub bytes: Vec<u8>,
    /// The language.
    pub language: Language,
}

fn read_source(path: &Path) -> Result<String> {
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

/// Load the runtime component for `lang` (gated as a runtime), bound to
/// `source`.
///
/// # Errors
///
/// `unsupported_language` when the runtime is missing; the loader's codes.
pub fn load_runtime(
    vm: &crate::broker::Vm,
    store: &crate::store::FileStore,
    limits: &crate::vm::Limits,
    lang: Language,
    source: &str,
) -> Result<LoadedComponent> {
    let runtime = read_component(&runtime_path(lang)?, limits)?;
    let loaded = vm.load_gated(&runtime, Some(store), limits, crate::vm::gate::Gate::Runtime)?;
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
pub fn load_saved(
    vm: &crate::broker::Vm,
    store: &crate::store::FileStore,
    limits: &crate::vm::Limits,
    name: &str,
    version: Option<u32>,
) -> Result<LoadedComponent> {
    let meta = store.script_meta(name, version)?;
    let bytes = store.script_bytes(name, meta.version)?;
    match Language::parse(&meta.language)? {
        Language::Wasm => vm.load(&bytes, Some(store), limits),
        lang => {
            let source = std::str::from_utf8(&bytes).map_err(|_| {
                Error::new(
                    ErrorCode::InvalidParams,
                    format!("saved script {name} is not UTF-8 text"),
                )
            })?;
            load_runtime(vm, store, limits, lang, source)
        }
    }
}

impl Hwf {
    /// Load the runtime for `lang`, bound to `source`.
    ///
    /// # Errors
    ///
    /// `unsupported_language` when the runtime is missing; the loader's
    /// codes.
    pub fn load_script(&self, lang: Language, source: &str) -> Result<LoadedComponent> {
        load_runtime(self.vm(), self.store(), self.limits(), lang, source)
    }

    /// Resolve bytes in `lang` (component or script source).
    ///
    /// # Errors
    ///
    /// The loader's codes; `invalid_params` for a script that is not UTF-8.
    pub fn resolve_bytes(&self, lang: Language, bytes: Vec<u8>, mut script: ScriptRef) -> Result<Resolved> {
        let loaded = match lang {
            Language::Wasm => self.load(&bytes)?,
            other => {
                let source = std::str::from_utf8(&bytes)
                    .map_err(|_| Error::new(ErrorCode::InvalidParams, "a script must be UTF-8 text"))?;
                self.load_script(other, source)?
            }
        };
        script.digest = match lang {
            Language::Wasm => loaded.digest.clone(),
            _ => format!("b3:{}", blake3::hash(&bytes).to_hex()),
        };
        script.language = lang.as_str().to_owned();
        Ok(Resolved {
            loaded,
            script,
            bytes,
            language: lang,
        })
    }

    /// Resolve a target (a component or script file, or a saved script).
    ///
    /// # Errors
    ///
    /// `not_found`, `invalid_name`, the loader's codes,
    /// `unsupported_language`.
    pub fn resolve(&self, target: &Target) -> Result<Resolved> {
        match target {
            Target::Path(p) if !p.exists() && saved_path(p).is_some() => {
                let (name, version) = saved_path(p).unwrap_or_default();
                self.resolve(&Target::Saved {
                    name,
                    version: Some(version),
                })
            }
            Target::Path(p) => {
                let lang = Language::of_path(p);
                let script = ScriptRef {
                    path: Some(p.display().to_string()),
                    ..ScriptRef::default()
                };
                let bytes = match lang {
                    Language::Wasm => read_component(p, self.limits())?,
                    _ => read_source(p)?.into_bytes(),
                };
                self.resolve_bytes(lang, bytes, script)
            }
            Target::Saved { name, version } => {
                let meta = self.store().script_meta(name, *version)?;
                let bytes = self.store().script_bytes(name, meta.version)?;
                let script = ScriptRef {
                    name: Some(name.clone()),
                    version: Some(meta.version),
                    ..ScriptRef::default()
                };
                self.resolve_bytes(Language::parse(&meta.language)?, bytes, script)
            }
        }
    }
}
