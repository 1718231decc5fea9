//! The `hwf` binary: harden the process, parse, run, map the outcome to an
//! exit code.

mod bench;
mod cli;
mod mcp;
mod mcp_filter;
mod mcp_fixtures;
mod mcp_http;
mod mcp_tasks;
mod runtimes;

use std::io::Write as _;

fn main() {
    harden();
    if let Some(allocation) = runs_components() {
        // The engine's set-up (a pooled one's above all) is the bulk of a
        // cached run's start: let it overlap parsing, the config and the
        // store.
        hwf_host::vm::prestart(allocation);
    }
    hwf_host::scripts::embed_runtimes(runtimes::RUNTIMES);
    hwf_host::scripts::on_runtime_compile(report_compile);
    std::process::exit(cli::main());
}

/// Commands that (usually) load a component, judged from the raw
/// arguments before clap sees them, with the engine they get (the same
/// choice as [`cli::allocation_for`]): a wrong guess only costs (or
/// misses) a head start.
fn runs_components() -> Option<hwf_host::vm::InstanceAllocation> {
    const COMMANDS: &[&str] = &["run", "runner", "validate", "facade", "bench", "mcp", "serve"];
    let command = std::env::args().skip(1).find(|a| COMMANDS.contains(&a.as_str()))?;
    Some(cli::allocation_for(&command))
}

/// A bundled runtime's first compile for this user, on stderr (never on
/// stdout, which may be `--json`): one line, ended with the time it took
/// (two whole lines on a terminal, where the progress spinner redraws its
/// own line).
fn report_compile(notice: hwf_host::scripts::CompileNotice) {
    use hwf_host::scripts::{CompileNotice, spoken_name};
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut err = std::io::stderr().lock();
    let _ = match notice {
        CompileNotice::Waiting(lang) => writeln!(
            err,
            "hwf: waiting for another hwf compiling the {} runtime (once per user)…",
            spoken_name(lang)
        ),
        CompileNotice::Compiling(lang) => write!(
            err,
            "hwf: compiling the {} runtime (once per user{})…{}",
            spoken_name(lang),
            hwf_host::scripts::user_cache_dir()
                .map(|d| format!(", into {}", d.display()))
                .unwrap_or_default(),
            if tty { "\n" } else { "" }
        )
        .and_then(|()| err.flush()),
        CompileNotice::Compiled(lang, took) if tty => writeln!(
            err,
            "hwf: compiled the {} runtime in {:.1} s",
            spoken_name(lang),
            took.as_secs_f64()
        ),
        CompileNotice::Compiled(_, took) => writeln!(err, " {:.1} s", took.as_secs_f64()),
    };
}

/// Start-up defences for the secrets this process holds (see "The secret
/// model" in `docs/ARCHITECTURE.md`):
///
/// - the process is made non-dumpable, so a process of the same user (a
///   `bash` capability call, whose parent is hwf) cannot read
///   `/proc/<hwf>/environ` or `/proc/<hwf>/mem`; when hwf runs as root, the
///   bash capability also drops every capability, so the same check applies;
/// - credential-named variables of the environment (`*_API_KEY`, `*_TOKEN`,
///   `*_PASSWORD`, …) are registered with the redactor by value, so a backend
///   or command that echoes one never gets it stored or shown.
fn harden() {
    if let Err(e) = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable) {
        eprintln!("hwf: warning: cannot make the process non-dumpable: {e}");
    }
    hwf_core::redact::register_environment();
    raise_open_file_limit();
}

/// Raise the soft limit of open files to the hard limit: a runner or
/// `hwf serve` with hundreds of runs in flight holds a few descriptors per
/// run (journal, lock, claim, agent pipes), and the usual soft limit of
/// 1,024 would fail runs for a reason the machine does not have.
fn raise_open_file_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    // No hard limit: the kernel's own ceiling (fs.nr_open) still applies.
    let ceiling = limit.maximum.unwrap_or(1 << 20);
    if limit.current.is_some_and(|soft| soft < ceiling) {
        limit.current = Some(ceiling);
        if let Err(e) = setrlimit(Resource::Nofile, limit) {
            eprintln!("hwf: warning: cannot raise the open-file limit: {e}");
        }
    }
}
