//! The JavaScript workflow runtime: a `script-runtime` component that runs
//! Claude-style workflow scripts in QuickJS-ng (C, through `rquickjs`,
//! compiled to wasm32-wasip2 by zig's clang: `cli/build/guest_build.rs`)
//! inside the same sandbox and broker as compiled harnesses. It replaced the
//! Boa runtime in the eighth session (issue 28: 2-10x faster, a quarter of
//! the size; `PROGRESS.md`, `docs/BENCHMARKS.md`) and keeps its script API
//! and rules: `export const meta` (a pure literal), strict code, top-level
//! `await` and `return`, `args`, `agent`, `parallel`, `pipeline`, `phase`,
//! `log`, `console`, `setTimeout`/`clearTimeout`, `capability`, `workflow`,
//! `budget`; host calls go through `submit` / `next` and settle in
//! completion order; no clock, no randomness, no imports, no code from
//! strings.

mod collation;
mod depth;
mod engine;
mod meta;
mod number_format;
mod schema;
mod source;

use hwf_guest::runtime::{ScriptRuntime, wit};

struct Runtime;

impl ScriptRuntime for Runtime {
    const LANGUAGE: &'static str = "JavaScript";

    fn check(source: &str) -> Result<wit::Meta, Vec<wit::Diagnostic>> {
        source::check(source)
    }

    fn check_with_warnings(source: &str) -> Result<(wit::Meta, Vec<wit::Diagnostic>), Vec<wit::Diagnostic>> {
        source::check_with_warnings(source)
    }

    fn prepare() {
        // A failure here is a run's failure: `run` prepares again and
        // reports it.
        let _ = engine::prepare();
    }

    fn run(source: &str, args: &str) -> Result<String, String> {
        engine::run(source, args)
    }
}

hwf_guest::export_script_runtime!(Runtime);
