//! `fs.read`, `fs.list` (`read_only`) and `fs.write` (`external_write`),
//! confined to the workspace directory through cap-std: absolute paths,
//! `..` and symlinks that lead outside are refused, and `fs.read` and
//! `fs.write` refuse files with more than one hard link (a link could name
//! a file outside: a key or a token linked in).

use super::{Capability, CapabilityCall, CapabilityError, CapabilityHandler, SideEffect};
use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptionsExt};
use hwf_core::BoxFuture;
use hwf_core::error::{Error, Result};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Largest file `fs.read` returns, in bytes (more is cut, `truncated: true`).
const MAX_READ: u64 = 1 << 20;

/// Directories no workspace call may read, list, write or run in, whatever
/// the workspace: every state dir and compile cache this process opened
/// (runs, tokens, compiled code), registered by
/// [`HwfBuilder::build`](crate::HwfBuilder::build). Canonical paths.
static PROTECTED: std::sync::RwLock<Vec<PathBuf>> = std::sync::RwLock::new(Vec::new());

/// Keep `dir` (and everything under it) out of reach of `fs.*` and
/// `bash`'s working directory in this process (a workspace that contains
/// the state dir, as `hwf run` started in `$HOME` does, would otherwise
/// hand the console token to a workflow). A path that does not exist yet
/// is registered as given.
pub fn protect(dir: &Path) {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut list = PROTECTED.write().unwrap_or_else(std::sync::PoisonError::into_inner);
    if !list.contains(&dir) {
        list.push(dir);
    }
}

/// Every protected directory (canonical paths).
pub(crate) fn protected_dirs() -> Vec<PathBuf> {
    PROTECTED
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

/// The protected directory `real` (a canonical path) is in, if any.
fn protected_owner(real: &Path) -> Option<PathBuf> {
    PROTECTED
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .find(|d| real.starts_with(d))
        .cloned()
}

/// Refuse an opened file or directory (`fd`) that lies in a protected
/// directory: its real path is read back from the kernel
/// (`/proc/self/fd`), so symlinks and hard-linked directories inside the
/// workspace cannot name the state dir by another path.
fn not_protected(fd: std::os::fd::BorrowedFd<'_>, p: &str) -> std::result::Result<(), CapabilityError> {
    use std::os::fd::AsRawFd;
    if PROTECTED.read().map(|l| l.is_empty()).unwrap_or(false) {
        return Ok(());
    }
    let real = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
        .map_err(|e| CapabilityError::Failed(format!("{p}: cannot tell where it is ({e})")))?;
    match protected_owner(&real) {
        Some(_) => Err(CapabilityError::InvalidInput(format!(
            "{p} is inside hwf's state or cache directory, which workflows never touch (choose a workspace that does not contain it, with --workspace)"
        ))),
        None => Ok(()),
    }
}

/// The directory capabilities may touch.
#[derive(Debug)]
pub struct Workspace {
    root: PathBuf,
    dir: Dir,
}

impl Workspace {
    /// Open `root` as the workspace.
    ///
    /// # Errors
    ///
    /// `not_found` / `io` when it cannot be opened.
    pub fn open(root: &Path) -> Result<Self> {
        let dir = Dir::open_ambient_dir(root, ambient_authority())
            .map_err(|e| Error::io(format!("workspace {}", root.display()), e))?;
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        Ok(Self { root, dir })
    }

    /// The workspace path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The capability handle on the workspace.
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Resolve a relative directory inside the workspace to a real path,
    /// checking through cap-std that it stays inside.
    ///
    /// # Errors
    ///
    /// `InvalidInput` naming the path.
    pub fn resolve_dir(&self, rel: &str) -> std::result::Result<PathBuf, CapabilityError> {
        let rel = relative(rel)?;
        if rel.as_os_str().is_empty() || rel == Path::new(".") {
            return Ok(self.root.clone());
        }
        let dir = self
            .dir
            .open_dir(&rel)
            .map_err(|e| CapabilityError::InvalidInput(format!("cwd {}: {e}", rel.display())))?;
        not_protected(std::os::fd::AsFd::as_fd(&dir), &format!("cwd {}", rel.display()))?;
        Ok(self.root.join(rel))
    }
}

/// Check a path is relative and plain; returns it.
pub fn relative(p: &str) -> std::result::Result<PathBuf, CapabilityError> {
    let path = Path::new(p);
    if path.is_absolute() {
        return Err(CapabilityError::InvalidInput(format!(
            "path {p:?} must be relative to the workspace"
        )));
    }
    Ok(path.to_path_buf())
}

fn path_arg<'a>(
    input: &'a Value,
    key: &str,
    default: Option<&'a str>,
) -> std::result::Result<&'a str, CapabilityError> {
    match input.get(key) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => {
            default.ok_or_else(|| CapabilityError::InvalidInput(format!("missing string field {key:?}")))
        }
        Some(_) => Err(CapabilityError::InvalidInput(format!("field {key:?} must be a string"))),
    }
}

/// Refuse anything but a regular file (a FIFO or device would block the
/// run); a missing file is fine when `may_be_missing` (fs.write creates it).
fn regular_or_missing(
    dir: &Dir,
    rel: &Path,
    p: &str,
    may_be_missing: bool,
) -> std::result::Result<(), CapabilityError> {
    match dir.metadata(rel) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(_) => Err(CapabilityError::InvalidInput(format!("{p} is not a regular file"))),
        Err(e) if may_be_missing && e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_fail("stat", p, e)),
    }
}

/// The file `fs.read` or `fs.write` (`op`) opened must be a regular file
/// with exactly one link: a hard link inside the workspace to a file
/// outside it (a key, a token, the state dir's files) would let the call
/// read or change a file the workspace does not confine. Checked on the
/// open handle, so the file used is the file checked.
fn checked_open(f: &std::fs::File, p: &str, op: &str) -> std::result::Result<(), CapabilityError> {
    use std::os::unix::fs::MetadataExt;
    let m = f.metadata().map_err(|e| io_fail("stat", p, e))?;
    if !m.is_file() {
        return Err(CapabilityError::InvalidInput(format!("{p} is not a regular file")));
    }
    if m.nlink() > 1 {
        return Err(CapabilityError::InvalidInput(format!(
            "{p} has {} hard links; {op} refuses files linked from elsewhere (remove the extra links, or copy the file)",
            m.nlink()
        )));
    }
    Ok(())
}

fn io_fail(what: &str, p: &str, e: std::io::Error) -> CapabilityError {
    CapabilityError::Failed(format!("{what} {p}: {e}"))
}

struct Read_(Arc<Workspace>);
struct List(Arc<Workspace>);
struct Write_(Arc<Workspace>);

impl CapabilityHandler for Read_ {
    fn call<'a>(&'a self, call: CapabilityCall<'a>) -> BoxFuture<'a, std::result::Result<Value, CapabilityError>> {
        Box::pin(async move {
            let p = path_arg(call.input, "path", None)?;
            let rel = relative(p)?;
            regular_or_missing(&self.0.dir, &rel, p, false)?;
            // Non-blocking, so a FIFO swapped in after the check fails at
            // once instead of blocking the run.
            let mut opts = cap_std::fs::OpenOptions::new();
            opts.read(true);
            opts.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
            let file = self
                .0
                .dir
                .open_with(&rel, &opts)
                .map_err(|e| io_fail("read", p, e))?
                .into_std();
            checked_open(&file, p, "fs.read")?;
            not_protected(std::os::fd::AsFd::as_fd(&file), p)?;
            let len = file.metadata().map(|m| m.len()).unwrap_or(0);
            let mut buf = Vec::new();
            file.take(MAX_READ)
                .read_to_end(&mut buf)
                .map_err(|e| io_fail("read", p, e))?;
            Ok(json!({
                "path": p,
                "content": String::from_utf8_lossy(&buf),
                "bytes": len,
                "truncated": len > MAX_READ,
            }))
        })
    }
}

impl CapabilityHandler for List {
    fn call<'a>(&'a self, call: CapabilityCall<'a>) -> BoxFuture<'a, std::result::Result<Value, CapabilityError>> {
        Box::pin(async move {
            let p = path_arg(call.input, "path", Some("."))?;
            let rel = relative(p)?;
            let listed = if rel.as_os_str().is_empty() || rel == Path::new(".") {
                self.0.dir.try_clone()
            } else {
                self.0.dir.open_dir(&rel)
            }
            .map_err(|e| io_fail("list", p, e))?;
            not_protected(std::os::fd::AsFd::as_fd(&listed), p)?;
            let entries = listed.entries().map_err(|e| io_fail("list", p, e))?;
            let mut out = Vec::new();
            for entry in entries.flatten().take(10_000) {
                let name = entry.file_name().to_string_lossy().into_owned();
                let ft = entry.file_type().ok();
                let kind = match ft {
                    Some(t) if t.is_dir() => "dir",
                    Some(t) if t.is_symlink() => "symlink",
                    _ => "file",
                };
                let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                out.push(json!({"name": name, "kind": kind, "size": size}));
            }
            out.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
            Ok(json!({"path": p, "entries": out}))
        })
    }
}

impl CapabilityHandler for Write_ {
    fn call<'a>(&'a self, call: CapabilityCall<'a>) -> BoxFuture<'a, std::result::Result<Value, CapabilityError>> {
        Box::pin(async move {
            let p = path_arg(call.input, "path", None)?;
            let content = path_arg(call.input, "content", None)?;
            let rel = relative(p)?;
            if call.input.get("create_dirs").and_then(Value::as_bool).unwrap_or(false)
                && let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty())
            {
                self.0.dir.create_dir_all(parent).map_err(|e| io_fail("write", p, e))?;
            }
            regular_or_missing(&self.0.dir, &rel, p, true)?;
            // Where the file goes, checked before anything is created.
            let parent = rel.parent().filter(|p| !p.as_os_str().is_empty());
            let parent_dir = match parent {
                Some(d) => self.0.dir.open_dir(d).map_err(|e| io_fail("write", p, e))?,
                None => self.0.dir.try_clone().map_err(|e| io_fail("write", p, e))?,
            };
            not_protected(std::os::fd::AsFd::as_fd(&parent_dir), p)?;
            let append = call.input.get("append").and_then(Value::as_bool).unwrap_or(false);
            let mut opts = cap_std::fs::OpenOptions::new();
            // Never truncate at open: the opened file is checked first.
            // Non-blocking, so a FIFO swapped in after the check fails at
            // once instead of blocking the run.
            opts.write(true).create(true).append(append);
            opts.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
            let f = self.0.dir.open_with(&rel, &opts).map_err(|e| io_fail("write", p, e))?;
            let mut f = f.into_std();
            checked_open(&f, p, "fs.write")?;
            not_protected(std::os::fd::AsFd::as_fd(&f), p)?;
            if !append {
                f.set_len(0).map_err(|e| io_fail("write", p, e))?;
            }
            f.write_all(content.as_bytes()).map_err(|e| io_fail("write", p, e))?;
            Ok(json!({"path": p, "bytes": content.len(), "appended": append}))
        })
    }
}

/// The three fs capabilities over one workspace.
pub fn capabilities(ws: Arc<Workspace>) -> Vec<Capability> {
    vec![
        Capability {
            name: "fs.read".into(),
            class: SideEffect::ReadOnly,
            description: "Read a text file in the workspace: {path} → {path, content, bytes, truncated}".into(),
            replayable: true,
            handler: Arc::new(Read_(ws.clone())),
            input_schema: None,
        },
        Capability {
            name: "fs.list".into(),
            class: SideEffect::ReadOnly,
            description: "List a workspace directory: {path?} → {path, entries: [{name, kind, size}]}".into(),
            replayable: true,
            handler: Arc::new(List(ws.clone())),
            input_schema: None,
        },
        Capability {
            name: "fs.write".into(),
            class: SideEffect::ExternalWrite,
            description: "Write a file in the workspace: {path, content, append?, create_dirs?} → {path, bytes}".into(),
            replayable: true,
            handler: Arc::new(Write_(ws)),
            input_schema: None,
        },
    ]
}
