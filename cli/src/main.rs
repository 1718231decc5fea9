//! The `hwf` binary: harden the process, parse, run, map the outcome to an
//! exit code.

mod bench;
mod cli;
mod mcp;
mod mcp_filter;

fn main() {
    harden();
    std::process::exit(cli::main());
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
}
