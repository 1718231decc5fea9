//! The JSON workflow runtime: a `script-runtime` component that checks and
//! runs declarative JSON workflows in the hermes-plugin-dynamic-workflows
//! format, verbatim, through the host's broker.
//!
//! A definition: `version` "1", `name` (identifier-safe), `inputs`
//! (`{key: "type"}` or `{key: {type?, default?, required?}}`), `policy`
//! (`max_parallel`, `max_agent_calls`, `max_kanban_cards`,
//! `max_active_awaits`, `allowed_profiles`; `network` and `filesystem`
//! must not be `true`) and `steps`. Steps are discriminated by `kind`:
//! - `agent`: `agent` id (or, as an hwf extension, a `prompt`), `input`,
//!   `output_schema`, `title`, `depends_on` (and hwf's `context`, `model`,
//!   `effort`, `tools`, `isolation`, `fresh`, `agent_type`: a type hwf does
//!   not have is dropped with a warning, as the seed ignores the key; other
//!   keys are ignored, with an `unknown_step_key` warning); its output is
//!   checked by the broker, then by the seed's own rules (`schema.rs`);
//! - `kanban_agent`: `profile`, `task`, `wait` (an agent call to the
//!   reserved id `kanban.<profile>`, as the seed does);
//! - `if`: `condition` `{ref, op: truthy|exists|eq|ne, value?}`, `then`,
//!   `else`; output `{branch, output}`, branch-local steps;
//! - `parallel`: `branches` (single steps with ids) run concurrently as
//!   host branch instances, a branch that reads a sibling after it
//!   (`order.rs`); output `{"branches": {id: output}}`;
//! - `phase`: `{id, label, steps}` container;
//! - `pipeline`: `{id, steps}`, chained by `$ref`.
//!
//! `"$ref:inputs.<key>"` and `"$ref:<step>.output[.<field>]"` strings are
//! replaced by those values. The result is `{"outputs", "last"}`. Checking
//! reports errors and warnings with stable codes and RFC 6901 pointers (the
//! mapping to the seed's `E_*` codes is in `docs/CONFORMANCE.md`).

mod alnum;
mod check;
mod exec;
mod order;
mod py;
mod refs;
mod schema;

use hwf_guest::runtime::{ScriptRuntime, wit};

struct Runtime;

impl ScriptRuntime for Runtime {
    const LANGUAGE: &'static str = "JSON";

    fn check(source: &str) -> Result<wit::Meta, Vec<wit::Diagnostic>> {
        check::check(source)
    }

    fn check_with_warnings(source: &str) -> Result<(wit::Meta, Vec<wit::Diagnostic>), Vec<wit::Diagnostic>> {
        check::check_with_warnings(source)
    }

    fn run(source: &str, args: &str) -> Result<String, String> {
        exec::run(source, args)
    }

    fn branch(source: &str, name: &str, input: &str) -> Result<String, String> {
        exec::branch(source, name, input)
    }
}

hwf_guest::export_script_runtime!(Runtime);
