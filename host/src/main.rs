//! The `hwf` binary: parse, run, map the outcome to an exit code.

mod bench;
mod cli;
mod mcp;

fn main() {
    std::process::exit(cli::main());
}
