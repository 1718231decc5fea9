//! Authoring: `hwf init`, `hwf types`, `hwf schema`, `hwf completions`.
//!
//! The files these commands print or write live beside this module and are
//! compiled in (`include_str!`), so a copy of the binary carries them:
//!
//! - `hwf.d.ts`: the globals of a JavaScript workflow (`hwf types`; `hwf
//!   doctor` says when a project's copy differs), written
//!   from the JS runtime's prelude (`harnesses/js-runtime/src/engine.rs`)
//!   and `hwf_guest::runtime::AGENT_OPTIONS`; the e2e suite
//!   (`tests/e2e/authoring.rs`) compares its globals with the ones the
//!   runtime really defines and type-checks scripts against it with `tsc`;
//! - `workflow.schema.json`: the JSON workflow format (`hwf schema
//!   workflow`), checked against every `harnesses/*.workflow.json` by this
//!   module's tests;
//! - `template/`: the project `hwf init` writes (its table is [`FILES`]).

use super::output::{Out, say};
use hwf_host::{Error, ErrorCode};
use serde_json::json;
use std::path::{Path, PathBuf};

/// TypeScript declarations of every JavaScript workflow global.
pub const DTS: &str = include_str!("hwf.d.ts");

/// The JSON Schema (draft-07) of the declarative JSON workflow format.
pub const WORKFLOW_SCHEMA: &str = include_str!("workflow.schema.json");

/// One file of the project `hwf init` writes.
struct ProjectFile {
    /// Where, relative to the project dir.
    path: &'static str,
    /// What it holds.
    contents: &'static str,
    /// One line for the list `hwf init` prints.
    what: &'static str,
}

/// The project `hwf init` writes, in the order it is listed.
const FILES: &[ProjectFile] = &[
    ProjectFile {
        path: "hwf.toml",
        contents: include_str!("template/hwf.toml"),
        what: "configuration: agent backends (Claude Code, Codex, Hermes, OpenAI-compatible) commented out",
    },
    ProjectFile {
        path: "workflows/example.js",
        contents: include_str!("template/example.js"),
        what: "a JavaScript workflow",
    },
    ProjectFile {
        path: "workflows/example.fixture.json",
        contents: include_str!("template/example.fixture.json"),
        what: "fixture answers for its agent calls (hwf.toml's [agents] fixture)",
    },
    ProjectFile {
        path: "workflows/example.workflow.json",
        contents: include_str!("template/example.workflow.json"),
        what: "the same workflow as declarative JSON",
    },
    ProjectFile {
        path: ".hermes/agents/example.md",
        contents: include_str!("template/example.md"),
        what: "an agent type (agentType: \"example\")",
    },
    ProjectFile {
        path: "hwf.d.ts",
        contents: DTS,
        what: "TypeScript declarations of the workflow globals (`hwf types`)",
    },
    ProjectFile {
        path: "jsconfig.json",
        contents: include_str!("template/jsconfig.json"),
        what: "type-checks workflows/*.js in editors (checkJs)",
    },
    ProjectFile {
        path: "tsconfig.json",
        contents: include_str!("template/tsconfig.json"),
        what: "the same for `tsc --noEmit -p .`",
    },
    ProjectFile {
        path: "workflow.schema.json",
        contents: WORKFLOW_SCHEMA,
        what: "JSON Schema of *.workflow.json (`hwf schema workflow`)",
    },
    ProjectFile {
        path: ".vscode/settings.json",
        contents: include_str!("template/vscode-settings.json"),
        what: "tells VS Code to use it for *.workflow.json",
    },
];

/// Why `hwf init` did not write the project.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// A file of the project is already there and `--force` was not given
    /// (code `already_exists`); nothing was written.
    #[error("{} exists; nothing was written (--force overwrites the project's files)", .0.display())]
    Exists(PathBuf),
    /// A directory or file could not be created or written (code `io`).
    #[error("write {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

impl InitError {
    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Exists(_) => ErrorCode::AlreadyExists,
            Self::Io { .. } => ErrorCode::Io,
        }
    }
}

impl From<InitError> for Error {
    fn from(e: InitError) -> Self {
        Error::new(e.code(), e.to_string())
    }
}

/// Write the project into `dir` (created when missing): every file of
/// [`FILES`]. Returns the paths written.
///
/// # Errors
///
/// [`InitError::Exists`] naming the first file already there (unless
/// `force`), before anything is written; [`InitError::Io`] when a file
/// cannot be written.
pub fn init(dir: &Path, force: bool) -> Result<Vec<PathBuf>, InitError> {
    let paths: Vec<PathBuf> = FILES.iter().map(|f| dir.join(f.path)).collect();
    if !force && let Some(p) = paths.iter().find(|p| p.symlink_metadata().is_ok()) {
        return Err(InitError::Exists(p.clone()));
    }
    for (file, path) in FILES.iter().zip(&paths) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| InitError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let mut open = std::fs::OpenOptions::new();
        open.write(true);
        // Without --force a file that appeared since the check is refused
        // too (create_new), never overwritten.
        if force {
            open.create(true).truncate(true);
        } else {
            open.create_new(true);
        }
        let written = open.open(path).and_then(|mut f| {
            use std::io::Write as _;
            f.write_all(file.contents.as_bytes())
        });
        match written {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Err(InitError::Exists(path.clone())),
            Err(source) => {
                return Err(InitError::Io {
                    path: path.clone(),
                    source,
                });
            }
        }
    }
    Ok(paths)
}

/// `hwf init [DIR] [--force]`: write the project, list it and say what to
/// run next.
pub fn run_init(dir: Option<&Path>, force: bool, out: &Out) -> Result<i32, Error> {
    let dir = dir.unwrap_or(Path::new("."));
    init(dir, force)?;
    let next_dir = if dir == Path::new(".") {
        String::new()
    } else {
        format!("cd {} && ", shell_word(&dir.display().to_string()))
    };
    let next = format!("{next_dir}hwf run workflows/example.js");
    let files: Vec<_> = FILES.iter().map(|f| json!({"path": f.path, "what": f.what})).collect();
    out.data(
        &json!({"dir": dir.display().to_string(), "files": files, "next": next}),
        |_| {
            let mut lines = vec![format!("hwf: created a workflow project in {}", dir.display())];
            lines.extend(FILES.iter().map(|f| format!("  {:<33} {}", f.path, f.what)));
            lines.push(String::new());
            lines.push("Next:".into());
            lines.push(format!("  {next}"));
            lines.push(
                "      runs the example; its agents are answered by workflows/example.fixture.json until hwf.toml names a backend"
                    .into(),
            );
            lines.push("  npx -p typescript tsc --noEmit -p .".into());
            lines.push("      type-checks workflows/*.js against hwf.d.ts (VS Code does it as you type)".into());
            lines.join("\n")
        },
    );
    Ok(0)
}

/// `text` quoted for a POSIX shell when it needs it.
fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '~'))
    {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// What `hwf schema` prints.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum SchemaKind {
    /// The declarative JSON workflow format (`*.workflow.json`).
    Workflow,
}

/// `hwf types`: the `.d.ts` on stdout.
pub fn run_types() -> i32 {
    // `say` adds the newline the file already ends with.
    say(DTS.trim_end());
    0
}

/// `hwf schema KIND`: the JSON Schema on stdout.
pub fn run_schema(kind: SchemaKind) -> i32 {
    match kind {
        SchemaKind::Workflow => say(WORKFLOW_SCHEMA.trim_end()),
    }
    0
}

/// `hwf completions SHELL`: the completion script on stdout.
pub fn run_completions(shell: clap_complete::Shell) -> i32 {
    let mut cmd = super::command();
    clap_complete::generate(shell, &mut cmd, "hwf", &mut std::io::stdout());
    0
}

#[cfg(test)]
mod tests;
