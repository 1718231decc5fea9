//! The Python workflow runtime: a `script-runtime` component that runs the
//! seed's (hermes-plugin-dynamic-workflows') Python workflow scripts in
//! Monty, pydantic's Python interpreter written in Rust, inside the same
//! sandbox and broker as compiled harnesses and the other script runtimes.
//!
//! A script starts with a literal `meta = {"name", "description",
//! "phases"?}`, then uses top-level `await` and `return`, the read-only
//! `args`, and `agent`, `kanban_agent`, `capability`, `parallel`,
//! `pipeline`, `phase`, `log`, `workflow`, `budget`, `json` and `math`.
//! Host calls are Monty external functions submitted to the host's join
//! set at once and awaited as futures, so `parallel` really runs agents
//! concurrently and replay delivers the journaled completion order.
//! `import`, `open`, `eval`/`exec`/`compile`, `print`, `getattr`-style
//! reflection, dunder and frame/code attributes are refused before a run,
//! each with its line.

mod engine;
mod source;

use hwf_guest::runtime::{ScriptRuntime, wit};

struct Runtime;

impl ScriptRuntime for Runtime {
    const LANGUAGE: &'static str = "Python";

    fn check(source: &str) -> Result<wit::Meta, Vec<wit::Diagnostic>> {
        source::check(source)
    }

    fn run(source: &str, args: &str) -> Result<String, String> {
        engine::run(source, args)
    }
}

hwf_guest::export_script_runtime!(Runtime);
