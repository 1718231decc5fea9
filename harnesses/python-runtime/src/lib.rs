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

#![allow(unsafe_code, reason = "wit-bindgen generates the component's exports with unsafe")]

mod engine;
#[path = "../../js-runtime/src/schema.rs"]
mod schema;
mod source;

wit_bindgen::generate!({
    path: "../../wit",
    world: "script-runtime",
});

struct Runtime;

impl Guest for Runtime {
    fn check(source: String) -> Result<Meta, Vec<Diagnostic>> {
        source::check(&source)
    }

    fn run(source: String, args: String) -> Result<String, String> {
        engine::run(&source, &args)
    }

    fn branch(_source: String, name: String, _input: String) -> Result<String, String> {
        Err(format!(
            "unknown_branch: Python workflows have no named branch {name:?}; use parallel() or pipeline()"
        ))
    }
}

export!(Runtime);
