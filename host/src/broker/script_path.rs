//! `workflow({ scriptPath }, args)`: which file a nested workflow names,
//! confined to the run's workspace and the saved-scripts dir.
//!
//! A path is resolved in this order:
//! 1. the seed's name for a saved version, `<name>/v000001.<ext>` (or that
//!    path under the saved-scripts dir): the saved script, when it exists;
//! 2. a file in the workspace (relative to it, or absolute inside it),
//!    opened through cap-std, so `..`, absolute paths elsewhere and symlinks
//!    that lead outside are refused even if the tree changes meanwhile.
//!
//! Every refusal is a [`PathRefusal`] with a stable code naming the problem.

use crate::scripts::{Language, MAX_SCRIPT_BYTES, saved_path};
use cap_std::ambient_authority;
use cap_std::fs::Dir;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// What a `scriptPath` names.
#[derive(Debug, PartialEq, Eq)]
pub enum ScriptPath {
    /// A saved script's version.
    Saved {
        /// Script name.
        name: String,
        /// Version.
        version: u32,
    },
    /// A file in the workspace, read.
    File {
        /// Its language, by extension.
        language: Language,
        /// Its bytes (a component, or a script's UTF-8 source).
        bytes: Vec<u8>,
    },
}

/// Why a `scriptPath` was refused.
#[derive(Debug, PartialEq, Eq)]
pub struct PathRefusal {
    /// Stable code: `path_outside_workspace`, `no_workspace`, `not_found`,
    /// `not_a_file`, `script_too_large`, `io`.
    pub code: &'static str,
    /// One line naming the path and the problem.
    pub message: String,
}

fn refuse(code: &'static str, message: String) -> PathRefusal {
    PathRefusal { code, message }
}

/// Where a path lands relative to a root, lexically: its components after
/// the root, or `None` when `..` climbs above it.
fn beneath(rel: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in rel.components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// `path` without `root` (either as given or canonical), when it is under it.
fn strip_root<'p>(path: &'p Path, root: &Path) -> Option<&'p Path> {
    path.strip_prefix(root).ok().or_else(|| {
        let canonical = root.canonicalize().ok()?;
        path.strip_prefix(canonical).ok()
    })
}

/// Resolve `given` against the run's `workspace` and the saved-scripts
/// dir (`scripts_dir`). `saved_exists(name, version)` says whether the
/// store has that version; a component file may be at most
/// `max_component_bytes`.
///
/// # Errors
///
/// A [`PathRefusal`]: `path_outside_workspace` (an absolute path elsewhere,
/// `..` above the workspace, a symlink leading out, a saved-scripts path
/// that is not `<name>/vNNNNNN.<ext>`), `no_workspace`, `not_found`,
/// `not_a_file`, `script_too_large`, `io`.
pub fn resolve(
    given: &str,
    workspace: Option<&Path>,
    scripts_dir: &Path,
    saved_exists: impl Fn(&str, u32) -> bool,
    max_component_bytes: u64,
) -> Result<ScriptPath, PathRefusal> {
    let path = Path::new(given);
    let outside = || {
        refuse(
            "path_outside_workspace",
            format!(
                "scriptPath {given:?} is outside the workspace{} and the saved-scripts dir",
                workspace.map(|w| format!(" ({})", w.display())).unwrap_or_default()
            ),
        )
    };
    // The saved-scripts dir: only its `<name>/vNNNNNN.<ext>` files.
    if path.is_absolute()
        && let Some(rel) = strip_root(path, scripts_dir)
    {
        return match saved_path(rel) {
            Some((name, version)) if saved_exists(&name, version) => Ok(ScriptPath::Saved { name, version }),
            Some(_) => Err(refuse(
                "not_found",
                format!("scriptPath {given:?}: no such saved version"),
            )),
            None => Err(outside()),
        };
    }
    if !path.is_absolute()
        && let Some((name, version)) = saved_path(path)
        && saved_exists(&name, version)
    {
        return Ok(ScriptPath::Saved { name, version });
    }
    let Some(root) = workspace else {
        return Err(refuse(
            "no_workspace",
            format!("scriptPath {given:?}: this run has no workspace to resolve it in"),
        ));
    };
    let rel = if path.is_absolute() {
        strip_root(path, root).ok_or_else(outside)?
    } else {
        path
    };
    let Some(rel) = beneath(rel) else {
        return Err(refuse(
            "path_outside_workspace",
            format!(
                "scriptPath {given:?} leaves the workspace ({}) through \"..\"",
                root.display()
            ),
        ));
    };
    let through_symlink = || {
        refuse(
            "path_outside_workspace",
            format!(
                "scriptPath {given:?} leads outside the workspace ({}) through a symlink",
                root.display()
            ),
        )
    };
    // Named plainly first; cap-std's open below is what guarantees it.
    if let (Ok(real), Ok(real_root)) = (root.join(&rel).canonicalize(), root.canonicalize())
        && !real.starts_with(&real_root)
    {
        return Err(through_symlink());
    }
    let dir = Dir::open_ambient_dir(root, ambient_authority())
        .map_err(|e| refuse("io", format!("workspace {}: {e}", root.display())))?;
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => refuse(
            "not_found",
            format!("scriptPath {given:?}: no such file in the workspace"),
        ),
        // cap-std refuses a path that resolves outside the directory.
        std::io::ErrorKind::PermissionDenied => through_symlink(),
        _ => refuse("io", format!("scriptPath {given:?}: {e}")),
    };
    let file = dir.open(&rel).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(refuse(
            "not_a_file",
            format!("scriptPath {given:?} is not a regular file"),
        ));
    }
    let language = Language::of_path(&rel);
    let limit = if language == Language::Wasm {
        max_component_bytes
    } else {
        MAX_SCRIPT_BYTES
    };
    let too_large = |len: u64| {
        refuse(
            "script_too_large",
            format!("scriptPath {given:?} is {len} bytes; at most {limit}"),
        )
    };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::new();
    // Bounded again: the file may grow after the check.
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(ScriptPath::File { language, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_dot_above_the_root_is_refused_lexically() {
        assert_eq!(beneath(Path::new("a/../b.js")), Some(PathBuf::from("b.js")));
        assert_eq!(beneath(Path::new("./a/b.js")), Some(PathBuf::from("a/b.js")));
        assert_eq!(beneath(Path::new("a/../../b.js")), None);
        assert_eq!(beneath(Path::new("/etc/passwd")), None);
    }
}
