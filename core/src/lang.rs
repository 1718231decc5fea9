//! The languages a workflow can be written in.

use crate::error::{Error, ErrorCode, Result};
use std::path::Path;

/// What language a workflow is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// A compiled component.
    Wasm,
    /// Claude-style JavaScript.
    Js,
    /// Python.
    Python,
    /// A declarative JSON workflow.
    Json,
}

impl Language {
    /// Parse a language name.
    ///
    /// # Errors
    ///
    /// `invalid_params` for an unknown name.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "wasm" | "component" => Ok(Self::Wasm),
            "js" | "javascript" => Ok(Self::Js),
            "python" | "py" => Ok(Self::Python),
            "json" => Ok(Self::Json),
            other => Err(Error::new(
                ErrorCode::InvalidParams,
                format!("language {other:?}: expected wasm, js, python or json"),
            )),
        }
    }

    /// The language a file is in, by extension (`.wasm` and unknown: wasm).
    pub fn of_path(p: &Path) -> Self {
        match p
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("js" | "mjs") => Self::Js,
            Some("py") => Self::Python,
            Some("json") => Self::Json,
            _ => Self::Wasm,
        }
    }

    /// The name stored in metadata (`wasm`, `js`, `python`, `json`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Wasm => "wasm",
            Self::Js => "js",
            Self::Python => "python",
            Self::Json => "json",
        }
    }

    /// Guess a script's language from its text: JSON starts with `{`, a
    /// Python script with its `meta = {…}` statement (after blank lines and
    /// `#` comments), anything else is JavaScript.
    pub fn sniff(source: &str) -> Self {
        let first = source
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .unwrap_or("");
        if first.starts_with('{') {
            Self::Json
        } else if first
            .strip_prefix("meta")
            .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            Self::Python
        } else {
            Self::Js
        }
    }
}
