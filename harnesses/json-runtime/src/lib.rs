//! The JSON workflow runtime: a `script-runtime` component that checks and
//! runs declarative JSON workflows (the hermes-plugin-dynamic-workflows
//! format) through the host's broker.
//!
//! A definition: `version` "1", `name`, `description`, `inputs`
//! (`{key: {type?, default?, required?}}`), `policy` (`max_parallel`,
//! `max_agent_calls`, `max_kanban_cards`, `max_active_awaits`,
//! `allowed_profiles`, `network` and `filesystem` must be false), `steps`,
//! `output` and `output_schema`.
//!
//! Steps (each has an `id`; `depends_on` names earlier steps):
//! - `agent`: `agent` id or `prompt`, `input`, `context`, `label`, `phase`,
//!   `output_schema`, `model`, `effort`, `agent_type`, `profile`;
//! - `kanban_agent`: a card through the `kanban.task` capability;
//! - `if`: `condition` `{op: truthy|exists|eq|ne, ref, value?}`, `then`,
//!   `else` (step lists);
//! - `parallel`: `branches` (step lists) run concurrently as host branch
//!   instances;
//! - `pipeline`: `items` and `stages` (agent steps; `$ref:item`,
//!   `$ref:prev`, `$ref:index`), no barrier between items;
//! - `phase`: `title`.
//!
//! A string `"$ref:inputs.<key>"` or `"$ref:<step>.output.<path>"` is
//! replaced by that value. Checking reports errors and warnings with stable
//! codes and RFC 6901 pointers.

#![allow(unsafe_code, reason = "wit-bindgen generates the component's exports with unsafe")]

mod check;
mod exec;

wit_bindgen::generate!({
    path: "../../wit",
    world: "script-runtime",
});

struct Runtime;

impl Guest for Runtime {
    fn check(source: String) -> Result<Meta, Vec<Diagnostic>> {
        check::check(&source)
    }

    fn run(source: String, args: String) -> Result<String, String> {
        exec::run(&source, &args)
    }

    fn branch(source: String, name: String, input: String) -> Result<String, String> {
        exec::branch(&source, &name, &input)
    }
}

export!(Runtime);
