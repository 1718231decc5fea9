//! What to run: a [`Target`] (a saved script or a file) and reading a
//! component file within the limits.

use crate::vm::Limits;
use hwf_core::error::{Error, ErrorCode, Result};
use std::path::{Path, PathBuf};

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
        let lower = arg.to_ascii_lowercase();
        let script_ext = [".wasm", ".js", ".mjs", ".py", ".json"]
            .iter()
            .any(|e| lower.ends_with(e));
        if script_ext || arg.contains('/') || Path::new(arg).is_file() {
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
pub fn read_component(path: &Path, limits: &Limits) -> Result<Vec<u8>> {
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
    std::fs::read(path).map_err(|e| Error::io(format!("component {}", path.display()), e))
}

impl crate::runtime::Hwf {
    /// The target that runs resolved bytes: their file when they came from
    /// one, else the bytes kept by content under `inline/` (a script holding
    /// a credential is refused there).
    ///
    /// # Errors
    ///
    /// `invalid_script`, `io`.
    pub fn target_for(&self, resolved: &crate::scripts::Resolved) -> Result<Target> {
        use crate::scripts::Language;
        if let Some(path) = &resolved.script.path {
            return Ok(Target::Path(PathBuf::from(path)));
        }
        let ext = match resolved.language {
            Language::Wasm => "wasm",
            Language::Js => "js",
            Language::Json => "json",
            Language::Python => "py",
        };
        Ok(Target::Path(self.store().put_inline(&resolved.bytes, ext)?))
    }
}
