//! Kernel confinement of the commands `bash` runs (issue 29, finding 13).
//!
//! An approved command used to run with the user's full authority inside
//! its working directory. Now, by default and wherever the kernel allows,
//! each command runs:
//!
//! - **under Landlock** (Linux ≥ 5.13): it may read and execute files
//!   anywhere except hwf's own state and cache directories (the protected
//!   list of [`fs::protect`](super::fs::protect), carved out by granting the
//!   siblings along the path to each), and may write only inside its
//!   workspace (again minus protected directories), a private temporary
//!   directory (`TMPDIR`, removed after the call) and `/dev/null`-like
//!   devices. It cannot signal or reach the abstract sockets of processes
//!   outside its sandbox (Landlock scopes, ABI 6), and — with the network
//!   denied — cannot bind or connect TCP sockets (ABI 4);
//! - **in its own network namespace** (no interface up: no connection can
//!   be opened, loopback included) and **its own PID namespace**, whose
//!   first process is the command: when it exits or is killed, the kernel
//!   kills every process it left behind, `setsid` and double-forked
//!   children included. As root the namespaces are created directly; as
//!   another user inside a new user namespace that maps the user to
//!   itself. Where namespaces are not available (user namespaces
//!   disabled), hwf falls back to Landlock alone, once, with a warning.
//!
//! Setup happens in two halves: `Prepared::new` opens the Landlock rules
//! in hwf (allocating, reading directories); `ChildSetup::enter` runs in
//! the forked child before `exec` and only makes system calls.
//!
//! The opt-outs are explicit: `[capabilities.bash]` in `hwf.toml`
//! (`network = true`, `confine = false`), recorded with each run, and a
//! grant's terms (`sandbox: {network: true}`), which an operator approves
//! before any call uses them.

#![expect(
    unsafe_code,
    reason = "the only code between fork and exec: raw system calls (unshare, fork, waitpid, prctl) that no safe API offers there"
)]

use super::CapabilityError;
use hwf_core::policy::CommandSandbox;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once the kernel refused namespaces where Landlock alone worked.
static NAMESPACES_REFUSED: AtomicBool = AtomicBool::new(false);

/// Record that creating namespaces failed where Landlock alone worked
/// (user namespaces disabled): later commands skip them.
pub(crate) fn namespaces_unavailable() {
    if !NAMESPACES_REFUSED.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            "bash: this kernel refuses new namespaces to hwf (user namespaces disabled?); commands are confined by Landlock alone, so setsid children are not contained and only TCP is denied"
        );
    }
}

/// Whether to try namespaces.
pub(crate) fn namespaces_wanted() -> bool {
    !NAMESPACES_REFUSED.load(Ordering::Relaxed)
}

/// A private temporary directory for one command, removed on drop.
#[derive(Debug)]
pub(crate) struct PrivateTmp(PathBuf);

impl PrivateTmp {
    fn create() -> Result<Self, CapabilityError> {
        use std::os::unix::fs::DirBuilderExt as _;
        let base = std::env::temp_dir();
        for _ in 0..8 {
            let name = format!("hwf-bash-{}-{:016x}", std::process::id(), rand::random::<u64>());
            let dir = base.join(name);
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => return Ok(Self(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(CapabilityError::Failed(format!(
                        "cannot create the command's private temporary directory in {}: {e}",
                        base.display()
                    )));
                }
            }
        }
        Err(CapabilityError::Failed(format!(
            "cannot create a private temporary directory in {}",
            base.display()
        )))
    }

    /// Its path (the command's `TMPDIR`).
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for PrivateTmp {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.0) {
            tracing::warn!(dir = %self.0.display(), "bash: cannot remove the command's temporary directory: {e}");
        }
    }
}

/// What the forked child does before `exec`: enter namespaces, then
/// restrict itself. Built by `Prepared::new`; moved into `pre_exec`.
#[derive(Debug)]
pub(crate) struct ChildSetup {
    ruleset: Option<landlock::RulesetCreated>,
    /// `CLONE_NEW*` flags for `unshare`.
    namespaces: libc::c_int,
    /// `uid_map` / `gid_map` lines when a user namespace is created.
    id_maps: Option<(Vec<u8>, Vec<u8>)>,
    /// Directories hidden under an empty read-only tmpfs in the command's
    /// mount namespace (hwf's state dirs and caches).
    hide: Vec<std::ffi::CString>,
}

/// A command's confinement, ready to apply.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The part applied in the child (cloned per spawn attempt).
    child: ChildSetup,
    /// The command's `TMPDIR`, removed when this is dropped.
    pub tmp: PrivateTmp,
}

fn setup_error(what: &str, e: impl std::fmt::Display) -> CapabilityError {
    CapabilityError::Failed(format!("cannot confine the command ({what}): {e}"))
}

/// Opens `path` without following a final symlink; `None` for a symlink
/// or a path that vanished (neither is granted).
fn open_rule_target(path: &Path) -> Option<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(path, OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty()).ok()?;
    let st = rustix::fs::fstat(&fd).ok()?;
    let kind = rustix::fs::FileType::from_raw_mode(st.st_mode);
    (kind != rustix::fs::FileType::Symlink).then_some(fd)
}

/// The paths that together cover `root` except every path in `excluded`
/// (and what lies under them): `root` itself when no excluded path is
/// inside it; otherwise, for each entry of `root`, the entry, or its own
/// cover when an excluded path lies inside it. Symlinks are skipped (what
/// they name is covered, or not, at its own place).
fn cover_except(root: &Path, excluded: &[PathBuf], out: &mut Vec<PathBuf>) {
    if excluded.iter().any(|x| root.starts_with(x)) {
        return;
    }
    if !excluded.iter().any(|x| x.starts_with(root)) {
        out.push(root.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let is_symlink = entry.file_type().is_ok_and(|t| t.is_symlink());
        if !is_symlink {
            cover_except(&entry.path(), excluded, out);
        }
    }
}

impl Prepared {
    /// Prepare the confinement of one command working in `workspace`
    /// under `sandbox`, with namespaces (`namespaces`) or Landlock alone;
    /// `None` when `sandbox.confine` is off.
    ///
    /// With namespaces, hwf's protected directories are hidden by a mount
    /// and Landlock grants read on `/` and every right on the workspace.
    /// Without, they are carved out of both grants (see
    /// [`cover_except`]): then no file can be created directly in a
    /// directory on the way down to one (the workspace root, when the
    /// state dir is inside it).
    ///
    /// # Errors
    ///
    /// `failed` when the rules cannot be built (a kernel that refuses
    /// Landlock is not an error: the command runs with what the kernel
    /// offers).
    pub(crate) fn new(
        workspace: &Path,
        sandbox: &CommandSandbox,
        namespaces: bool,
    ) -> Result<Option<Self>, CapabilityError> {
        use landlock::{
            ABI, Access, AccessFs, AccessNet, PathBeneath, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
        };
        if !sandbox.confine {
            return Ok(None);
        }
        let tmp = PrivateTmp::create()?;
        let protected = super::fs::protected_dirs();
        let workspace = workspace.canonicalize().unwrap_or_else(|_| workspace.to_path_buf());

        let mut ruleset = Ruleset::default()
            .handle_access(AccessFs::from_all(ABI::V5))
            .map_err(|e| setup_error("landlock", e))?
            .scope(Scope::from_all(ABI::V6))
            .map_err(|e| setup_error("landlock", e))?;
        if !sandbox.network {
            ruleset = ruleset
                .handle_access(AccessNet::from_all(ABI::V4))
                .map_err(|e| setup_error("landlock", e))?;
        }
        let mut created = ruleset.create().map_err(|e| setup_error("landlock", e))?;

        let (mut readable, mut writable) = (Vec::new(), Vec::new());
        if namespaces {
            readable.push(PathBuf::from("/"));
            writable.push(workspace.clone());
        } else {
            cover_except(Path::new("/"), &protected, &mut readable);
            cover_except(&workspace, &protected, &mut writable);
        }
        writable.push(tmp.path().to_path_buf());
        let devices = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

        let rules = readable
            .iter()
            .map(|p| (p.as_path(), AccessFs::from_read(ABI::V5)))
            .chain(writable.iter().map(|p| (p.as_path(), AccessFs::from_all(ABI::V5))))
            .chain(devices.iter().map(|p| (Path::new(*p), AccessFs::from_file(ABI::V5))));
        for (path, access) in rules {
            if let Some(fd) = open_rule_target(path) {
                created = created
                    .add_rule(PathBeneath::new(fd, access))
                    .map_err(|e| setup_error(&format!("rule for {}", path.display()), e))?;
            }
        }

        let mut flags = 0;
        let mut id_maps = None;
        let mut hide = Vec::new();
        if namespaces {
            flags = libc::CLONE_NEWPID | libc::CLONE_NEWNS;
            if !sandbox.network {
                flags |= libc::CLONE_NEWNET;
            }
            if !rustix::process::geteuid().is_root() {
                flags |= libc::CLONE_NEWUSER;
                let uid = rustix::process::geteuid().as_raw();
                let gid = rustix::process::getegid().as_raw();
                id_maps = Some((
                    format!("{uid} {uid} 1\n").into_bytes(),
                    format!("{gid} {gid} 1\n").into_bytes(),
                ));
            }
            for dir in protected.iter().filter(|d| d.is_dir()) {
                use std::os::unix::ffi::OsStrExt as _;
                let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
                    .map_err(|e| setup_error(&format!("protected dir {}", dir.display()), e))?;
                hide.push(c);
            }
        }
        Ok(Some(Self {
            child: ChildSetup {
                ruleset: Some(created),
                namespaces: flags,
                id_maps,
                hide,
            },
            tmp,
        }))
    }
}

/// The calling thread's `errno` as an `io::Error` (no allocation).
fn last_errno() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// Write `bytes` to the file at `path` (a `/proc/self` map), with system
/// calls only.
///
/// # Safety
///
/// Called between `fork` and `exec`.
unsafe fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> std::io::Result<()> {
    // SAFETY: plain system calls on a NUL-terminated path and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(last_errno());
        }
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let err = last_errno();
        libc::close(fd);
        if n < 0 || n as usize != bytes.len() {
            return Err(err);
        }
    }
    Ok(())
}

/// The process between hwf and the command when a PID namespace is made:
/// it waits for the command (the namespace's first process) and ends the
/// same way, so hwf sees the command's exit status. It holds no file
/// descriptor, so hwf's pipes close when the command's side does.
///
/// # Safety
///
/// Called in the forked child, between `fork` and `exec`; never returns.
unsafe fn supervise(child: libc::pid_t) -> ! {
    // SAFETY: system calls only; this process never returns to Rust code
    // that could observe the closed descriptors.
    unsafe {
        libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32);
        let mut status: libc::c_int = 0;
        loop {
            let r = libc::waitpid(child, &mut status, 0);
            if r == child {
                break;
            }
            if r < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(127);
            }
        }
        if libc::WIFEXITED(status) {
            libc::_exit(libc::WEXITSTATUS(status));
        }
        if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            libc::signal(sig, libc::SIG_DFL);
            libc::kill(libc::getpid(), sig);
            libc::_exit(128 + sig);
        }
        libc::_exit(127)
    }
}

impl ChildSetup {
    /// Enter the namespaces and restrict this process (the forked child,
    /// before `exec`).
    ///
    /// # Safety
    ///
    /// Only from a `pre_exec` closure: it may fork, and the parent half
    /// never returns.
    pub(crate) unsafe fn enter(&mut self) -> std::io::Result<()> {
        if self.namespaces != 0 {
            // SAFETY: system calls in a single-threaded forked child.
            unsafe {
                if libc::unshare(self.namespaces) != 0 {
                    return Err(last_errno());
                }
                if let Some((uid_map, gid_map)) = &self.id_maps {
                    // hwf is non-dumpable, which makes /proc/self root's:
                    // dumpable just long enough to write the maps (no
                    // confined process can ptrace this one: Landlock
                    // confines ptrace to a process's own domain).
                    libc::prctl(libc::PR_SET_DUMPABLE, 1 as libc::c_ulong, 0, 0, 0);
                    let written = write_proc(c"/proc/self/setgroups", b"deny")
                        .and_then(|()| write_proc(c"/proc/self/uid_map", uid_map))
                        .and_then(|()| write_proc(c"/proc/self/gid_map", gid_map));
                    libc::prctl(libc::PR_SET_DUMPABLE, 0 as libc::c_ulong, 0, 0, 0);
                    written?;
                }
                if self.namespaces & libc::CLONE_NEWNS != 0 {
                    // Nothing mounted here may reach the host's mounts.
                    if libc::mount(
                        c"none".as_ptr(),
                        c"/".as_ptr(),
                        std::ptr::null(),
                        libc::MS_REC | libc::MS_PRIVATE,
                        std::ptr::null(),
                    ) != 0
                    {
                        return Err(last_errno());
                    }
                    for dir in &self.hide {
                        let r = libc::mount(
                            c"tmpfs".as_ptr(),
                            dir.as_ptr(),
                            c"tmpfs".as_ptr(),
                            libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                            c"size=4k,mode=000".as_ptr().cast(),
                        );
                        if r != 0 && *libc::__errno_location() != libc::ENOENT {
                            return Err(last_errno());
                        }
                    }
                }
                if self.namespaces & libc::CLONE_NEWPID != 0 {
                    match libc::fork() {
                        -1 => return Err(last_errno()),
                        // The command: the namespace's first process; it
                        // dies with the process between it and hwf.
                        0 => {
                            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
                        }
                        child => supervise(child),
                    }
                }
            }
        }
        if let Some(ruleset) = self.ruleset.take() {
            ruleset
                .restrict_self()
                .map_err(|_| std::io::Error::from_raw_os_error(libc::EPERM))?;
        }
        Ok(())
    }
}

/// Whether `e`, a failed spawn with namespaces, may be the kernel refusing
/// them (so a retry with Landlock alone is worth one more fork).
pub(crate) fn may_be_namespace_refusal(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EPERM | libc::EINVAL | libc::ENOSPC | libc::EUSERS | libc::EACCES)
    )
}

impl ChildSetup {
    /// Have `cmd` apply this setup in its child, between fork and exec.
    pub(crate) fn install(mut self, cmd: &mut tokio::process::Command) {
        // SAFETY: `enter` makes system calls only (no allocation, no lock)
        // in the forked child before exec; the half that forks again never
        // returns.
        unsafe {
            cmd.pre_exec(move || self.enter());
        }
    }
}

impl Prepared {
    /// Whether the setup creates namespaces.
    pub(crate) fn uses_namespaces(&self) -> bool {
        self.child.namespaces != 0
    }

    /// A copy of the child's setup for one spawn.
    ///
    /// # Errors
    ///
    /// `failed` when the ruleset's descriptor cannot be duplicated.
    pub(crate) fn child_setup(&self) -> Result<ChildSetup, CapabilityError> {
        let ruleset = match &self.child.ruleset {
            Some(r) => Some(r.try_clone().map_err(|e| setup_error("landlock", e))?),
            None => None,
        };
        Ok(ChildSetup {
            ruleset,
            namespaces: self.child.namespaces,
            id_maps: self.child.id_maps.clone(),
            hide: self.child.hide.clone(),
        })
    }
}
