//! # Script runtimes: interpreter components (JavaScript, Python, JSON)
//!
//! A script runtime is a component of the WIT `script-runtime` world: the
//! host hands it a script's source and it `check`s, `run`s and `branch`es
//! it, with the same host calls as a compiled harness. The bundled runtimes
//! (`harnesses/js-runtime`, `python-runtime`, `json-runtime`) share what is
//! here, so a new language is one more user of this module rather than
//! another copy of the glue:
//!
//! - [`ScriptRuntime`] and
//!   [`export_script_runtime!`](crate::export_script_runtime): the
//!   component's exports;
//! - [`agent_request_from_json`] with [`AGENT_OPTIONS`]: the one table of
//!   option names (and their aliases) a script's agent options may use;
//! - [`call_error_text`] and [`call_error_kind`]: what a failed host call
//!   shows a script;
//! - [`check_items`]: the per-call item rule of `parallel` / `pipeline`;
//! - [`python`]: Python's words (`repr`, type names, the seed's schema
//!   refusals) for the runtimes whose reference is written in Python;
//! - [`wit`]: the raw WIT types and host functions a runtime drives
//!   (`submit` / `next` / `cancel`), which the harness API wraps.
//!
//! Host limits are the host's: a runtime reads what is left with
//! [`budget`](crate::budget) (the WIT `budget` import) and does not copy a
//! host limit into a constant. Past a limit the host refuses the call
//! itself (`limit_agent`, `limit_calls`, …), whatever the runtime believes.
//!
//! ```no_run
//! use hwf_guest::runtime::{ScriptRuntime, wit};
//!
//! struct Echo;
//!
//! impl ScriptRuntime for Echo {
//!     const LANGUAGE: &'static str = "Echo";
//!     fn check(source: &str) -> Result<wit::Meta, Vec<wit::Diagnostic>> {
//!         Ok(wit::Meta {
//!             name: "echo".into(),
//!             description: source.lines().next().unwrap_or("").into(),
//!             when_to_use: None,
//!             phases: Vec::new(),
//!             args_schema: None,
//!         })
//!     }
//!     fn run(_source: &str, args: &str) -> Result<String, String> {
//!         Ok(args.to_owned())
//!     }
//! }
//!
//! hwf_guest::export_script_runtime!(Echo);
//! ```

use crate::ErrorKind;
use serde_json::Value;

pub mod python;
use std::fmt;
use wit::{AgentRequest, CallError};

/// The WIT types and host functions of `hermes:workflow`, as generated.
///
/// A script runtime drives the host's join set itself (`host::submit`,
/// `host::next`, `host::cancel`) to settle a script's promises or futures
/// in completion order; compiled harnesses use the SDK's wrappers instead.
pub mod wit {
    pub use crate::bindings::hermes::workflow::host;
    pub use crate::bindings::hermes::workflow::types::{
        AgentRequest, BranchCall, BudgetStatus, CallError, CapabilityRequest, Completion, Diagnostic, LogLevel, Meta,
        PhaseInfo, Severity, Task, WorkflowCall,
    };
}

/// A script runtime: implement it on a unit struct and export it with
/// [`export_script_runtime!`](crate::export_script_runtime).
///
/// Sources, arguments and results are the WIT's JSON text, as the host
/// passes them; each runtime parses them by its own language's rules.
pub trait ScriptRuntime {
    /// The language's name in messages (`JavaScript`, `Python`).
    const LANGUAGE: &'static str;

    /// Check a script: its meta, or every problem found.
    ///
    /// # Errors
    ///
    /// The diagnostics, each with a stable code.
    fn check(source: &str) -> Result<wit::Meta, Vec<wit::Diagnostic>>;

    /// Check a script that may run but has warnings: its meta and the
    /// warnings (what `hwf validate` shows), or every problem found. The
    /// default is [`ScriptRuntime::check`] with no warnings.
    ///
    /// # Errors
    ///
    /// The diagnostics (errors, and any warnings), each with a stable code.
    fn check_with_warnings(source: &str) -> Result<(wit::Meta, Vec<wit::Diagnostic>), Vec<wit::Diagnostic>> {
        Self::check(source).map(|meta| (meta, Vec::new()))
    }

    /// Set the interpreter up ahead of any script (the WIT `prepare`). It
    /// must call no host function: hwf's build runs it once in a fresh
    /// instance and snapshots the instance's memory (pre-initialisation),
    /// so that every instance of the shipped runtime starts prepared. It
    /// must leave nothing that belongs to one run, and a second call must
    /// do nothing. The default prepares nothing.
    fn prepare() {}

    /// Run a script with the run's JSON arguments; returns the JSON result.
    ///
    /// # Errors
    ///
    /// The run's error, starting with a stable code (`script_error: …`).
    fn run(source: &str, args: &str) -> Result<String, String>;

    /// Run a named branch of a script in a fresh instance.
    ///
    /// # Errors
    ///
    /// The default answers `unknown_branch` for every name: a language
    /// whose scripts fan out with `parallel()` / `pipeline()` has no named
    /// branches.
    fn branch(source: &str, name: &str, input: &str) -> Result<String, String> {
        let _ = (source, input);
        Err(format!(
            "unknown_branch: {} workflows have no named branch {name:?}; use parallel() or pipeline()",
            Self::LANGUAGE
        ))
    }
}

/// Export a [`ScriptRuntime`] as this component's `check`, `prepare`,
/// `run` and `branch` (the WIT `script-runtime` world).
///
/// ```no_run
/// use hwf_guest::runtime::{ScriptRuntime, wit};
/// struct Nothing;
/// impl ScriptRuntime for Nothing {
///     const LANGUAGE: &'static str = "Nothing";
///     fn check(_: &str) -> Result<wit::Meta, Vec<wit::Diagnostic>> { Err(Vec::new()) }
///     fn run(_: &str, args: &str) -> Result<String, String> { Ok(args.to_owned()) }
/// }
/// hwf_guest::export_script_runtime!(Nothing);
/// ```
#[macro_export]
macro_rules! export_script_runtime {
    ($runtime:ty) => {
        const _: () = {
            #[doc(hidden)]
            pub struct __HwfScriptRuntime;
            impl $crate::bindings::script_runtime::Guest for __HwfScriptRuntime {
                fn check(
                    source: ::std::string::String,
                ) -> ::std::result::Result<
                    $crate::bindings::script_runtime::Checked,
                    ::std::vec::Vec<$crate::runtime::wit::Diagnostic>,
                > {
                    <$runtime as $crate::runtime::ScriptRuntime>::check_with_warnings(&source)
                        .map(|(meta, warnings)| $crate::bindings::script_runtime::Checked { meta, warnings })
                }
                fn prepare() {
                    <$runtime as $crate::runtime::ScriptRuntime>::prepare()
                }
                fn run(
                    source: ::std::string::String,
                    args: ::std::string::String,
                ) -> ::std::result::Result<::std::string::String, ::std::string::String> {
                    <$runtime as $crate::runtime::ScriptRuntime>::run(&source, &args)
                }
                fn branch(
                    source: ::std::string::String,
                    name: ::std::string::String,
                    input: ::std::string::String,
                ) -> ::std::result::Result<::std::string::String, ::std::string::String> {
                    <$runtime as $crate::runtime::ScriptRuntime>::branch(&source, &name, &input)
                }
            }
            $crate::bindings::script_runtime::__export_script_runtime_world!(
                __HwfScriptRuntime with_types_in $crate::bindings::script_runtime
            );
        };
    };
}

// ---- agent options ----------------------------------------------------------

/// A field of the WIT `agent-request`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AgentField {
    /// `agent`: a registered agent id.
    Agent,
    /// `prompt`: the prompt of a prompt agent.
    Prompt,
    /// `input`: structured input.
    Input,
    /// `label`: shown in status and journals.
    Label,
    /// `phase`: the phase the call belongs to.
    Phase,
    /// `schema`: the output schema.
    Schema,
    /// `model`: a model override.
    Model,
    /// `effort`: an effort override.
    Effort,
    /// `agent-type`: a `<name>.md` agent definition.
    AgentType,
    /// `tools`: tool names the agent may use.
    Tools,
    /// `context`: a free-form context object.
    Context,
    /// `isolation`: an isolation hint.
    Isolation,
    /// `fresh`: skip the run's prompt cache.
    Fresh,
}

/// What an option's value must be for the option to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionValue {
    /// A string; any other value is ignored.
    Text,
    /// Any JSON value (`null` included), sent as JSON text.
    Json,
    /// An array; its strings are kept, anything else in it dropped.
    TextList,
    /// A boolean; any other value is ignored.
    Flag,
}

impl OptionValue {
    fn accepts(self, v: &Value) -> bool {
        match self {
            Self::Text => v.is_string(),
            Self::Json => true,
            Self::TextList => v.is_array(),
            Self::Flag => v.is_boolean(),
        }
    }
}

/// One row of [`AGENT_OPTIONS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentOption {
    /// The request field it sets.
    pub field: AgentField,
    /// The option names that set it, in order: the first one present with
    /// a value of the right kind wins.
    pub keys: &'static [&'static str],
    /// The kind of value it takes.
    pub value: OptionValue,
}

/// Every option name a script's agent options may use, for every runtime:
///
/// | field | option names (first wins) | value |
/// |---|---|---|
/// | `agent` | `agent` | string |
/// | `prompt` | `prompt` | string |
/// | `input` | `input` | any JSON |
/// | `label` | `label`, `title`, `task_title`, `id` | string |
/// | `phase` | `phase` | string |
/// | `schema` | `schema`, `output_schema` | any JSON |
/// | `model` | `model` | string |
/// | `effort` | `effort` | string |
/// | `agent-type` | `agentType`, `agent_type` | string |
/// | `tools` | `tools` | array of strings |
/// | `context` | `context` | any JSON |
/// | `isolation` | `isolation` | string |
/// | `fresh` | `fresh` | boolean |
///
/// This is the union of what the three runtimes accepted when each had its
/// own mapping: JavaScript and Python took `agentType`/`agent_type`,
/// `tools`, `isolation` and `fresh`; JSON steps took `title`, `task_title`
/// and the step `id` as the label and `output_schema` as the schema. Each
/// runtime now accepts every name here. What a runtime does *before* the
/// table stays its own language's rule: a positional prompt (JavaScript,
/// Python), a legacy `agent("hermes.x", input)` call (Python), `$ref`
/// resolution, the enclosing phase and the seed's `output_schema` forms
/// (JSON). `profile` is not an agent option: a kanban step names the agent
/// `kanban.<profile>` itself (JSON) or calls the `kanban.task` capability
/// (Python).
pub const AGENT_OPTIONS: &[AgentOption] = &[
    row(AgentField::Agent, &["agent"], OptionValue::Text),
    row(AgentField::Prompt, &["prompt"], OptionValue::Text),
    row(AgentField::Input, &["input"], OptionValue::Json),
    row(
        AgentField::Label,
        &["label", "title", "task_title", "id"],
        OptionValue::Text,
    ),
    row(AgentField::Phase, &["phase"], OptionValue::Text),
    row(AgentField::Schema, &["schema", "output_schema"], OptionValue::Json),
    row(AgentField::Model, &["model"], OptionValue::Text),
    row(AgentField::Effort, &["effort"], OptionValue::Text),
    row(AgentField::AgentType, &["agentType", "agent_type"], OptionValue::Text),
    row(AgentField::Tools, &["tools"], OptionValue::TextList),
    row(AgentField::Context, &["context"], OptionValue::Json),
    row(AgentField::Isolation, &["isolation"], OptionValue::Text),
    row(AgentField::Fresh, &["fresh"], OptionValue::Flag),
];

const fn row(field: AgentField, keys: &'static [&'static str], value: OptionValue) -> AgentOption {
    AgentOption { field, keys, value }
}

/// The option names that set `field`, in the order they are tried.
pub fn option_keys(field: AgentField) -> &'static [&'static str] {
    AGENT_OPTIONS.iter().find(|r| r.field == field).map_or(&[], |r| r.keys)
}

/// The value that sets `field` in an options object, by [`AGENT_OPTIONS`]
/// (`None` when no option name has a value of the right kind, or `opts`
/// is not an object).
pub fn agent_option(opts: &Value, field: AgentField) -> Option<&Value> {
    let map = opts.as_object()?;
    options_by_field(map)[field as usize].map(|(_, v)| v)
}

/// Where an option name sits in [`AGENT_OPTIONS`]: its row (the field) and
/// its rank among that row's names (0 is tried first).
fn option_slot(key: &str) -> Option<(usize, usize)> {
    AGENT_OPTIONS
        .iter()
        .enumerate()
        .find_map(|(i, row)| row.keys.iter().position(|k| *k == key).map(|rank| (i, rank)))
}

/// Every field's winning option in one pass over the object's entries (an
/// options object has a few keys; the table has 20 names), indexed by
/// [`AgentField`]: per field, the lowest-ranked name present with a value
/// of the right kind. No key is hashed: a script runtime reads options on
/// every agent call.
fn options_by_field(map: &serde_json::Map<String, Value>) -> [Option<(usize, &Value)>; FIELDS] {
    let mut found: [Option<(usize, &Value)>; FIELDS] = [None; FIELDS];
    for (key, value) in map {
        let Some((row, rank)) = option_slot(key) else { continue };
        let option = &AGENT_OPTIONS[row];
        let slot = &mut found[option.field as usize];
        if option.value.accepts(value) && slot.is_none_or(|(best, _)| rank < best) {
            *slot = Some((rank, value));
        }
    }
    found
}

/// How many [`AgentField`]s there are (one row of [`AGENT_OPTIONS`] each).
const FIELDS: usize = AGENT_OPTIONS.len();

/// Agent options that are not an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionsError {
    found: &'static str,
}

impl OptionsError {
    /// The stable code: `invalid_options`.
    pub fn code(&self) -> &'static str {
        "invalid_options"
    }
}

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid_options: agent options must be an object, got {}",
            self.found
        )
    }
}

impl std::error::Error for OptionsError {}

/// Build the WIT agent request from a script's agent options, by
/// [`AGENT_OPTIONS`]. `null` is no options (a request with no fields
/// set); a value of the wrong kind for its option is ignored, as if absent.
///
/// # Errors
///
/// [`OptionsError`] (`invalid_options`) when `opts` is neither an object
/// nor `null`.
pub fn agent_request_from_json(opts: &Value) -> Result<AgentRequest, OptionsError> {
    let found = match opts {
        Value::Object(_) | Value::Null => None,
        Value::Bool(_) => Some("a boolean"),
        Value::Number(_) => Some("a number"),
        Value::String(_) => Some("a string"),
        Value::Array(_) => Some("an array"),
    };
    if let Some(found) = found {
        return Err(OptionsError { found });
    }
    let found = opts.as_object().map(options_by_field).unwrap_or([None; FIELDS]);
    let get = |f: AgentField| found[f as usize].map(|(_, v)| v);
    let text = |f| get(f).and_then(Value::as_str).map(str::to_owned);
    let json = |f| get(f).map(Value::to_string);
    Ok(AgentRequest {
        agent: text(AgentField::Agent),
        prompt: text(AgentField::Prompt),
        input: json(AgentField::Input),
        label: text(AgentField::Label),
        phase: text(AgentField::Phase),
        schema: json(AgentField::Schema),
        model: text(AgentField::Model),
        effort: text(AgentField::Effort),
        agent_type: text(AgentField::AgentType),
        tools: get(AgentField::Tools)
            .and_then(Value::as_array)
            .map(|t| t.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect()),
        context: json(AgentField::Context),
        isolation: text(AgentField::Isolation),
        fresh: get(AgentField::Fresh).and_then(Value::as_bool),
    })
}

// ---- call errors ------------------------------------------------------------

/// What a failed host call shows a script: the host's message, which starts
/// with its stable code (`limit_agent: …`). Every runtime throws, raises or
/// reports this text.
pub fn call_error_text(e: &CallError) -> &str {
    match e {
        CallError::Denied(m)
        | CallError::BudgetExhausted(m)
        | CallError::SchemaMismatch(m)
        | CallError::Failed(m)
        | CallError::TimedOut(m)
        | CallError::Cancelled(m)
        | CallError::ApprovalRequired(m) => m,
    }
}

/// The WIT case of a failed host call (its name is
/// [`ErrorKind::as_str`]: `denied`, `budget_exhausted`, …).
pub fn call_error_kind(e: &CallError) -> ErrorKind {
    match e {
        CallError::Denied(_) => ErrorKind::Denied,
        CallError::BudgetExhausted(_) => ErrorKind::BudgetExhausted,
        CallError::SchemaMismatch(_) => ErrorKind::SchemaMismatch,
        CallError::Failed(_) => ErrorKind::Failed,
        CallError::TimedOut(_) => ErrorKind::TimedOut,
        CallError::Cancelled(_) => ErrorKind::Cancelled,
        CallError::ApprovalRequired(_) => ErrorKind::ApprovalRequired,
    }
}

/// The stable code a failed host call's text starts with (`limit_agent`,
/// `agent_failed`, …), else the WIT case's name.
pub fn call_error_code(e: &CallError) -> &str {
    call_error_text(e)
        .split_once(": ")
        .map(|(code, _)| code)
        .filter(|c| {
            !c.is_empty()
                && c.chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
        })
        .unwrap_or(call_error_kind(e).as_str())
}

/// Whether a failed host call ends the run even if the script would catch
/// it: the run's token or cost budget is spent. The seed stops its script
/// at once when its token budget is exhausted (`should_abort`), and the
/// Python runtime does the same; the JavaScript runtime follows Claude
/// Code instead (a catchable error, `docs/CONFORMANCE.md`). The agent- and
/// capability-call limits stay errors the script may handle.
pub fn call_error_ends_run(e: &CallError) -> bool {
    matches!(e, CallError::BudgetExhausted(_)) && matches!(call_error_code(e), "token_budget" | "cost_budget")
}

// ---- items --------------------------------------------------------------------

/// Items one `parallel()` or `pipeline()` of a script may take: Claude
/// Code's rule for workflow scripts (`docs/CONFORMANCE.md`), and the default
/// of the host's `max_items` for compiled harnesses.
///
/// This is a language rule, not a copy of a host limit: a script's
/// `parallel` submits each thunk's calls one by one, and every one of them
/// is counted and refused by the host's own limits (`max_agent_calls`,
/// `max_calls`), which [`budget`](crate::budget) reports. The WIT's
/// `budget-status` does not carry `max_items`, and a cap derived from the
/// calls left would differ on replay (a resumed run starts charged with what
/// its journal already spent), so the rule stays this constant.
pub const MAX_ITEMS: u64 = 4096;

/// Check the item count of one `parallel()` / `pipeline()`.
///
/// # Errors
///
/// `too_many_items: …` past [`MAX_ITEMS`].
pub fn check_items(n: u64) -> Result<(), String> {
    if n > MAX_ITEMS {
        return Err(format!(
            "too_many_items: {n} items; at most {MAX_ITEMS} per parallel() or pipeline()"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_field_has_one_row_and_no_name_sets_two_fields() {
        let mut names = std::collections::HashSet::new();
        for r in AGENT_OPTIONS {
            assert_eq!(AGENT_OPTIONS.iter().filter(|o| o.field == r.field).count(), 1, "{r:?}");
            for k in r.keys {
                assert!(names.insert(*k), "{k} sets two fields");
            }
        }
        assert_eq!(AGENT_OPTIONS.len(), 13, "one row per agent-request field");
    }

    #[test]
    fn the_first_name_in_the_table_wins_whatever_the_key_order() {
        // Keys written in the reverse of the table's order: the table decides.
        let opts = json!({"id": "i", "task_title": "tt", "title": "t", "label": "l"});
        assert_eq!(
            agent_request_from_json(&opts).expect("object").label.as_deref(),
            Some("l")
        );
        assert_eq!(agent_option(&opts, AgentField::Label), Some(&json!("l")));
        // A name whose value is of the wrong kind is passed over.
        let opts = json!({"id": "i", "title": 3, "label": null});
        assert_eq!(
            agent_request_from_json(&opts).expect("object").label.as_deref(),
            Some("i")
        );
        let opts = json!({"fresh": "yes", "tools": "Read"});
        let r = agent_request_from_json(&opts).expect("object");
        assert_eq!((r.fresh, r.tools), (None, None));
        assert_eq!(agent_option(&json!({"unknown": 1}), AgentField::Input), None);
    }

    #[test]
    fn every_option_name_maps_to_its_field() {
        let r = agent_request_from_json(&json!({
            "agent": "hermes.x",
            "prompt": "p",
            "input": {"a": 1},
            "label": "l",
            "phase": "ph",
            "schema": {"ok": "boolean"},
            "model": "m",
            "effort": "high",
            "agentType": "reviewer",
            "tools": ["Read", 7, "Grep"],
            "context": {"c": true},
            "isolation": "worktree",
            "fresh": true,
        }))
        .expect("an object");
        assert_eq!(r.agent.as_deref(), Some("hermes.x"));
        assert_eq!(r.prompt.as_deref(), Some("p"));
        assert_eq!(r.input.as_deref(), Some(r#"{"a":1}"#));
        assert_eq!(r.label.as_deref(), Some("l"));
        assert_eq!(r.phase.as_deref(), Some("ph"));
        assert_eq!(r.schema.as_deref(), Some(r#"{"ok":"boolean"}"#));
        assert_eq!(r.model.as_deref(), Some("m"));
        assert_eq!(r.effort.as_deref(), Some("high"));
        assert_eq!(r.agent_type.as_deref(), Some("reviewer"));
        assert_eq!(r.tools, Some(vec!["Read".to_owned(), "Grep".to_owned()]));
        assert_eq!(r.context.as_deref(), Some(r#"{"c":true}"#));
        assert_eq!(r.isolation.as_deref(), Some("worktree"));
        assert_eq!(r.fresh, Some(true));
    }

    #[test]
    fn aliases_apply_in_order_and_the_first_value_of_the_right_kind_wins() {
        // agent_type: the snake-case alias alone, then both (camel first).
        let r = agent_request_from_json(&json!({"agent_type": "a"})).expect("object");
        assert_eq!(r.agent_type.as_deref(), Some("a"));
        let r = agent_request_from_json(&json!({"agent_type": "b", "agentType": "c"})).expect("object");
        assert_eq!(r.agent_type.as_deref(), Some("c"));
        // A camel-case value that is not a string falls through to snake.
        let r = agent_request_from_json(&json!({"agentType": 5, "agent_type": "d"})).expect("object");
        assert_eq!(r.agent_type.as_deref(), Some("d"));
        // label: label, title, task_title, then the step id.
        for (opts, want) in [
            (json!({"id": "s1"}), "s1"),
            (json!({"id": "s1", "task_title": "t"}), "t"),
            (json!({"id": "s1", "task_title": "t", "title": "T"}), "T"),
            (json!({"id": "s1", "title": "T", "label": "L"}), "L"),
            (json!({"label": 3, "title": "T"}), "T"),
        ] {
            let r = agent_request_from_json(&opts).expect("object");
            assert_eq!(r.label.as_deref(), Some(want), "{opts}");
        }
        // schema: `schema` wins over `output_schema`; any JSON counts.
        let r = agent_request_from_json(&json!({"output_schema": {"a": "str"}})).expect("object");
        assert_eq!(r.schema.as_deref(), Some(r#"{"a":"str"}"#));
        let r =
            agent_request_from_json(&json!({"output_schema": {"a": "str"}, "schema": {"b": "int"}})).expect("object");
        assert_eq!(r.schema.as_deref(), Some(r#"{"b":"int"}"#));
        let r = agent_request_from_json(&json!({"input": null, "context": null})).expect("object");
        assert_eq!((r.input.as_deref(), r.context.as_deref()), (Some("null"), Some("null")));
    }

    #[test]
    fn values_of_the_wrong_kind_are_ignored() {
        let r = agent_request_from_json(&json!({
            "agent": 1, "prompt": {"p": 1}, "label": [], "phase": true, "model": null,
            "effort": 2, "isolation": {}, "tools": "Read", "fresh": "yes",
        }))
        .expect("object");
        assert_eq!(r.agent, None);
        assert_eq!(r.prompt, None);
        assert_eq!(r.label, None);
        assert_eq!(r.phase, None);
        assert_eq!(r.model, None);
        assert_eq!(r.effort, None);
        assert_eq!(r.isolation, None);
        assert_eq!(r.tools, None);
        assert_eq!(r.fresh, None);
        // Unknown names (e.g. `profile`) set nothing.
        let r = agent_request_from_json(&json!({"profile": "ops", "kind": "agent"})).expect("object");
        assert_eq!(r.agent, None);
        assert_eq!(r.label, None);
    }

    #[test]
    fn null_is_no_options_and_other_values_are_refused() {
        let r = agent_request_from_json(&Value::Null).expect("null");
        assert_eq!((r.agent, r.prompt, r.input, r.schema), (None, None, None, None));
        for (v, found) in [
            (json!(1), "a number"),
            (json!("x"), "a string"),
            (json!([]), "an array"),
            (json!(false), "a boolean"),
        ] {
            let e = agent_request_from_json(&v).expect_err("not options");
            assert_eq!(e.code(), "invalid_options");
            assert_eq!(
                e.to_string(),
                format!("invalid_options: agent options must be an object, got {found}")
            );
        }
    }

    #[test]
    fn agent_option_reads_the_table() {
        let opts = json!({"output_schema": {"a": "str"}});
        assert_eq!(agent_option(&opts, AgentField::Schema), Some(&json!({"a": "str"})));
        assert_eq!(agent_option(&opts, AgentField::Input), None);
        assert_eq!(agent_option(&json!(3), AgentField::Schema), None);
    }

    #[test]
    fn call_errors_become_their_message_and_kind() {
        let cases = [
            (CallError::Denied("denied: no".into()), ErrorKind::Denied, "denied"),
            (
                CallError::BudgetExhausted("limit_agent: at most 2".into()),
                ErrorKind::BudgetExhausted,
                "budget_exhausted",
            ),
            (
                CallError::SchemaMismatch("schema_mismatch: x".into()),
                ErrorKind::SchemaMismatch,
                "schema_mismatch",
            ),
            (CallError::Failed("agent_failed: x".into()), ErrorKind::Failed, "failed"),
            (
                CallError::TimedOut("timeout: x".into()),
                ErrorKind::TimedOut,
                "timed_out",
            ),
            (
                CallError::Cancelled("cancelled: x".into()),
                ErrorKind::Cancelled,
                "cancelled",
            ),
            (
                CallError::ApprovalRequired("approval_required: x".into()),
                ErrorKind::ApprovalRequired,
                "approval_required",
            ),
        ];
        for (e, kind, name) in cases {
            assert_eq!(call_error_kind(&e), kind);
            assert_eq!(call_error_kind(&e).as_str(), name);
            let text = call_error_text(&e).to_owned();
            assert!(text.contains(": "), "{text}");
            assert_eq!(crate::Error::from(e).message(), text);
        }
    }

    #[test]
    fn the_item_rule_allows_4096_and_refuses_more() {
        assert_eq!(check_items(0), Ok(()));
        assert_eq!(check_items(MAX_ITEMS), Ok(()));
        assert_eq!(
            check_items(4097),
            Err("too_many_items: 4097 items; at most 4096 per parallel() or pipeline()".to_owned())
        );
    }
}
