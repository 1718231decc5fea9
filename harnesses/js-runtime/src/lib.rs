//! The JavaScript workflow runtime: a `script-runtime` component that runs
//! Claude-style workflow scripts in Boa, a pure-Rust JavaScript engine,
//! inside the same sandbox and broker as compiled harnesses.
//!
//! A script starts with `export const meta = {name, description, ...}` (a
//! pure literal, checked on its syntax tree), then uses top-level `await`
//! and `return`, the `args` global, and `agent`, `parallel`, `pipeline`,
//! `phase`, `log`, `console`, `setTimeout`/`clearTimeout`, `capability`,
//! `workflow` and `budget`. Every `agent()` / `capability()` / `workflow()`
//! call is submitted to the host at once (`submit`) and its promise settles
//! when the host's `next` delivers it — in completion order, which replay
//! reproduces — so `parallel` runs agents concurrently on the host and
//! `pipeline` items flow without a barrier.
//!
//! Claude Code's rules hold: an `import` declaration is refused by the
//! parser, `import()` throws, there is no `require`; `Date.now()`, `new
//! Date()`, `Date()` and `Math.random()` throw however they are reached (and
//! the engine's clock fails the run if anything reads it); timers run on a
//! virtual clock; an invalid `agent({schema})` and a `parallel()` of
//! non-functions throw `TypeError`; a pipeline stage resolving `null` ends
//! its item. `docs/CONFORMANCE.md` lists every rule with its test.

mod depth;
mod engine;
mod schema;
mod source;

use hwf_guest::runtime::{ScriptRuntime, wit};

struct Runtime;

impl ScriptRuntime for Runtime {
    const LANGUAGE: &'static str = "JavaScript";

    fn check(source: &str) -> Result<wit::Meta, Vec<wit::Diagnostic>> {
        source::check(source)
    }

    fn run(source: &str, args: &str) -> Result<String, String> {
        engine::run(source, args)
    }
}

hwf_guest::export_script_runtime!(Runtime);
