//! The languages a workflow can be written in.

use crate::error::{Error, ErrorCode, Result};
use std::path::Path;

/// One language's row of the table: every name, extension and file the
/// host knows it by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LanguageInfo {
    /// The language.
    pub language: Language,
    /// The name stored in metadata and shown (`wasm`, `js`, `python`, `json`).
    pub name: &'static str,
    /// Other names `parse` accepts.
    pub aliases: &'static [&'static str],
    /// File extensions (lower case, without the dot) that mean this
    /// language; the first is used for an inline script's file.
    pub extensions: &'static [&'static str],
    /// The extension a saved version is stored under
    /// (`scripts/<name>/v000001.<ext>`; the seed's `workflow.py` for Python).
    pub stored_extension: &'static str,
    /// The bundled runtime component that runs it (none: a component runs
    /// itself).
    pub runtime_file: Option<&'static str>,
}

/// The languages, one row each: the one place the host's knowledge of a
/// language lives (names, aliases, extensions, the stored extension, the
/// runtime component).
pub const LANGUAGES: &[LanguageInfo] = &[
    LanguageInfo {
        language: Language::Wasm,
        name: "wasm",
        aliases: &["component"],
        extensions: &["wasm"],
        stored_extension: "wasm",
        runtime_file: None,
    },
    LanguageInfo {
        language: Language::Js,
        name: "js",
        aliases: &["javascript"],
        extensions: &["js", "mjs"],
        stored_extension: "js",
        runtime_file: Some("js-runtime.wasm"),
    },
    LanguageInfo {
        language: Language::Python,
        name: "python",
        aliases: &["py"],
        extensions: &["py"],
        stored_extension: "workflow.py",
        runtime_file: Some("python-runtime.wasm"),
    },
    LanguageInfo {
        language: Language::Json,
        name: "json",
        aliases: &[],
        extensions: &["json"],
        stored_extension: "json",
        runtime_file: Some("json-runtime.wasm"),
    },
];

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
    /// Every language, in table order.
    pub const ALL: [Language; 4] = [Self::Wasm, Self::Js, Self::Python, Self::Json];

    /// This language's row of [`LANGUAGES`].
    pub fn info(self) -> &'static LanguageInfo {
        match self {
            Self::Wasm => &LANGUAGES[0],
            Self::Js => &LANGUAGES[1],
            Self::Python => &LANGUAGES[2],
            Self::Json => &LANGUAGES[3],
        }
    }

    /// Parse a language name or alias.
    ///
    /// # Errors
    ///
    /// `invalid_params` for an unknown name.
    pub fn parse(s: &str) -> Result<Self> {
        LANGUAGES
            .iter()
            .find(|l| l.name == s || l.aliases.contains(&s))
            .map(|l| l.language)
            .ok_or_else(|| {
                let names: Vec<&str> = LANGUAGES.iter().map(|l| l.name).collect();
                Error::new(
                    ErrorCode::InvalidParams,
                    format!("language {s:?}: expected {}", names.join(", ")),
                )
            })
    }

    /// The language a file is in, by extension (`.wasm` and unknown: wasm).
    pub fn of_path(p: &Path) -> Self {
        let ext = p.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        ext.and_then(|e| LANGUAGES.iter().find(|l| l.extensions.contains(&e.as_str())))
            .map_or(Self::Wasm, |l| l.language)
    }

    /// Whether a file name ends in an extension of some language.
    pub fn has_script_extension(file: &str) -> bool {
        let lower = file.to_ascii_lowercase();
        LANGUAGES
            .iter()
            .flat_map(|l| l.extensions)
            .any(|e| lower.strip_suffix(e).is_some_and(|stem| stem.ends_with('.')))
    }

    /// The name stored in metadata (`wasm`, `js`, `python`, `json`).
    pub fn as_str(self) -> &'static str {
        self.info().name
    }

    /// The extension an inline script's file gets (`wasm`, `js`, `py`, `json`).
    pub fn extension(self) -> &'static str {
        self.info().extensions[0]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_answers_every_question_consistently() {
        for (i, l) in Language::ALL.iter().enumerate() {
            assert_eq!(LANGUAGES[i].language, *l, "table order");
            assert_eq!(Language::parse(l.as_str()).ok(), Some(*l));
            for a in l.info().aliases {
                assert_eq!(Language::parse(a).ok(), Some(*l));
            }
            for e in l.info().extensions {
                assert_eq!(Language::of_path(Path::new(&format!("x.{e}"))), *l);
                assert!(Language::has_script_extension(&format!("dir/X.{}", e.to_uppercase())));
            }
            assert_eq!(l.info().runtime_file.is_none(), *l == Language::Wasm);
        }
        assert_eq!(Language::of_path(Path::new("x.txt")), Language::Wasm);
        assert!(!Language::has_script_extension("hello") && !Language::has_script_extension("notjs"));
        let e = Language::parse("cobol").expect_err("unknown");
        assert!(e.to_string().contains("wasm, js, python, json"), "{e}");
    }
}
