//! Resolving what to run: a [`Target`] (a saved script or a file) to a
//! loaded component — a component as it is, a script bound to its
//! runtime — and the target of resolved bytes.

use crate::Hwf;
use crate::broker::LoadedComponent;
use crate::scripts::{Language, load_runtime, read_source, saved_path};
use crate::store::ScriptRef;
use hwf_core::error::{Error, ErrorCode, Result};
use std::path::PathBuf;

pub use crate::scripts::{Target, read_component};

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

impl Hwf {
    /// Load the runtime for `lang`, bound to `source`.
    ///
    /// # Errors
    ///
    /// `unsupported_language` when the runtime is missing; the loader's
    /// codes.
    pub fn load_script(&self, lang: Language, source: &str) -> Result<LoadedComponent> {
        load_runtime(self.vm(), self.store().local(), self.limits(), lang, source)
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

impl Hwf {
    /// Resolve the script a run recorded: its saved script or file — or,
    /// when the file is not on this machine, the bytes a shared store kept
    /// by the run's digest ([`crate::store::Store::keep_script`]), so a
    /// runner on any machine can continue it.
    ///
    /// # Errors
    ///
    /// As [`Hwf::resolve`] (the file's `not_found` when no copy was kept).
    pub fn resolve_recorded(&self, target: &Target, script: &ScriptRef) -> Result<Resolved> {
        match self.resolve(target) {
            Err(e) if e.code() == ErrorCode::NotFound && matches!(target, Target::Path(_)) => {
                let lang = Language::parse(&script.language).map_err(|_| e.clone())?;
                match self.store().script_by_digest(&script.digest, lang)? {
                    Some(bytes) => self.resolve_bytes(lang, bytes, script.clone()),
                    None => Err(e),
                }
            }
            other => other,
        }
    }

    /// Keep a resolved file's bytes for runners on other machines (a
    /// shared store; nothing for the file store).
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn keep_for_runners(&self, resolved: &Resolved) -> Result<()> {
        if resolved.script.path.is_some() {
            self.store().keep_script(&resolved.bytes, resolved.language)?;
        }
        Ok(())
    }

    /// The target that runs resolved bytes: their file when they came from
    /// one, else the bytes kept by content under `inline/` (a script holding
    /// a credential is refused there).
    ///
    /// # Errors
    ///
    /// `invalid_script`, `io`.
    pub fn target_for(&self, resolved: &Resolved) -> Result<Target> {
        if let Some(path) = &resolved.script.path {
            return Ok(Target::Path(PathBuf::from(path)));
        }
        Ok(Target::Path(
            self.store()
                .local()
                .put_inline(&resolved.bytes, resolved.language.extension())?,
        ))
    }
}
