//! Request parameters: the table of names, aliases and types of the
//! `workflow` and `workflow_control` tools, checked before anything runs.
//! Unknown names and wrong types are refused with the parameter named.

use hwf_core::error::{Error, ErrorCode, Result};
use serde_json::{Map, Value};

/// The JSON type a parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string.
    Str,
    /// A whole number ≥ 0.
    UInt,
    /// A whole number within `min..=max`.
    UIntIn(u64, u64),
    /// true / false.
    Bool,
    /// A JSON object.
    Object,
    /// Any JSON value (advertised with every JSON type listed).
    Any,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Str => "a string",
            Kind::UInt | Kind::UIntIn(..) => "a whole number",
            Kind::Bool => "a boolean",
            Kind::Object => "an object",
            Kind::Any => "any JSON value",
        }
    }

    fn accepts(self, v: &Value) -> bool {
        match self {
            Kind::Str => v.is_string(),
            Kind::UInt | Kind::UIntIn(..) => v.as_u64().is_some(),
            Kind::Bool => v.is_boolean(),
            Kind::Object => v.is_object(),
            Kind::Any => true,
        }
    }

    /// JSON Schema type for tool schemas.
    pub fn schema(self) -> Value {
        match self {
            Kind::Str => serde_json::json!({"type": "string"}),
            Kind::UInt => serde_json::json!({"type": "integer", "minimum": 0}),
            Kind::UIntIn(lo, hi) => serde_json::json!({"type": "integer", "minimum": lo, "maximum": hi}),
            Kind::Bool => serde_json::json!({"type": "boolean"}),
            Kind::Object => serde_json::json!({"type": "object"}),
            Kind::Any => serde_json::json!({"type": ["object", "array", "string", "number", "boolean", "null"]}),
        }
    }
}

/// One parameter: canonical name, aliases, type, description.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Canonical name.
    pub name: &'static str,
    /// Other accepted names (Claude-style).
    pub aliases: &'static [&'static str],
    /// Type.
    pub kind: Kind,
    /// What it is for.
    pub doc: &'static str,
}

const fn p(name: &'static str, aliases: &'static [&'static str], kind: Kind, doc: &'static str) -> Param {
    Param {
        name,
        aliases,
        kind,
        doc,
    }
}

/// The longest `wait_seconds` a foreground call may ask for (a day).
pub const MAX_WAIT_SECONDS: u64 = 86_400;

/// How many runs one `overview` page holds when `limit` is not given.
pub const DEFAULT_OVERVIEW_LIMIT: u64 = 20;
/// The most runs one `overview` page may hold.
pub const MAX_OVERVIEW_LIMIT: u64 = 200;

/// `workflow` parameters.
pub const WORKFLOW: &[Param] = &[
    p(
        "action",
        &[],
        Kind::Str,
        "validate | run | run_script | fork | status | catalog | script_save | script_catalog | script_inspect (inferred when absent)",
    ),
    p(
        "script_source",
        &["script"],
        Kind::Str,
        "the workflow's source: JavaScript (`export const meta = {...}` then the body) or a JSON definition",
    ),
    p(
        "script_path",
        &["scriptPath"],
        Kind::Str,
        "path of a .wasm component (or script file)",
    ),
    p("script_name", &["name"], Kind::Str, "saved script name"),
    p(
        "script_version",
        &[],
        Kind::UIntIn(1, u32::MAX as u64),
        "saved script version (latest when absent)",
    ),
    p("script_args", &["args"], Kind::Any, "run arguments (JSON)"),
    p(
        "language",
        &[],
        Kind::Str,
        "js | python | json | wasm (inferred when absent)",
    ),
    p(
        "definition",
        &[],
        Kind::Object,
        "a declarative JSON workflow definition",
    ),
    p("inputs", &[], Kind::Object, "inputs of a JSON workflow"),
    p("run_id", &[], Kind::Str, "run id (status), or the id to give a new run"),
    p(
        "replace",
        &[],
        Kind::Bool,
        "script_save: add a version to an existing name",
    ),
    p(
        "include_versions",
        &[],
        Kind::Bool,
        "script_catalog: list every version",
    ),
    p(
        "include_source",
        &[],
        Kind::Bool,
        "script_inspect: include the source (base64 for wasm)",
    ),
    p(
        "max_parallel",
        &[],
        Kind::UIntIn(1, crate::vm::limits::MAX_PARALLEL),
        "tasks in flight per parallel call (1-64)",
    ),
    p(
        "background",
        &[],
        Kind::Bool,
        "run_script: queue it and return the run id at once",
    ),
    p(
        "wait_seconds",
        &[],
        Kind::UIntIn(0, MAX_WAIT_SECONDS),
        "run_script: return {run_id, state} if the run is still going after this many seconds (it keeps running; poll with status)",
    ),
    p(
        "resume_from_run_id",
        &["resumeFromRunId"],
        Kind::Str,
        "replay this run's journal",
    ),
    p(
        "allow_changed",
        &[],
        Kind::Bool,
        "resume even if the component or args changed",
    ),
    p(
        "plan",
        &[],
        Kind::Bool,
        "with resume_from_run_id: report per call what would replay and what would run live (why, estimated tokens), and create no run",
    ),
    p(
        "call",
        &["call_ref"],
        Kind::Str,
        "fork: the agent or capability call of resume_from_run_id to edit",
    ),
    p(
        "output",
        &[],
        Kind::Any,
        "fork: the call's new result (everything whose request is unchanged replays)",
    ),
    p(
        "answer",
        &[],
        Kind::Any,
        "fork: a human.ask call's new answer, checked against its question",
    ),
    p(
        "input",
        &[],
        Kind::Any,
        "fork: the call's new request input (it runs live with it; calls whose requests are unchanged replay)",
    ),
    p(
        "decision",
        &[],
        Kind::Str,
        "fork: approve | deny an approval gate (deny also declines a human.ask), through the broker as an operator's decision",
    ),
    p("actor", &[], Kind::Str, "fork: who makes the edit (journaled)"),
    p("reason", &[], Kind::Str, "fork: why (journaled)"),
];

/// An array of `params` followed by `overview`'s paging and filter
/// parameters (shared by `workflow_control` and `workflow_status`).
macro_rules! with_overview {
    ($($param:expr),* $(,)?) => {
        [
            $($param,)*
            p(
                "limit",
                &[],
                Kind::UIntIn(1, MAX_OVERVIEW_LIMIT),
                "overview: at most this many runs, newest first (default 20, at most 200)",
            ),
            p("cursor", &[], Kind::Str, "overview: the next page (the previous page's next_cursor)"),
            p("offset", &[], Kind::UInt, "overview: skip this many matching runs"),
            p(
                "state",
                &[],
                Kind::Str,
                "overview: only runs in this state (queued, running, waiting, stuck, succeeded, failed, stopped, cancelled, or active: not ended)",
            ),
            p("workflow", &["name"], Kind::Str, "overview: only runs whose workflow name contains this text"),
        ]
    };
}

/// `workflow_control` parameters.
pub const CONTROL: &[Param] = &with_overview![
    p(
        "action",
        &[],
        Kind::Str,
        "overview | status | pause | resume | stop | task_stop | retry | decide",
    ),
    p("run_id", &["runId"], Kind::Str, "the run"),
    p(
        "call",
        &["call_ref", "task_id"],
        Kind::Str,
        "the call (task_stop, retry, decide)",
    ),
    p("decision", &[], Kind::Str, "approve | reject | edit | respond"),
    p("input", &[], Kind::Any, "decide edit: the new input"),
    p("value", &[], Kind::Any, "decide respond: the answer"),
    p("actor", &[], Kind::Str, "who decides (recorded)"),
    p("reason", &[], Kind::Str, "why (recorded)"),
    p("channel", &[], Kind::Str, "where the decision came from"),
    p("message_id", &[], Kind::Str, "the message that carried it"),
    p("control_id", &[], Kind::Str, "idempotency id"),
];

/// `workflow_status` parameters: the read-only actions of
/// [`CONTROL`].
pub const STATUS: &[Param] = &with_overview![
    p("action", &[], Kind::Str, "overview (default) | status"),
    p("run_id", &["runId"], Kind::Str, "the run (status)"),
];

/// Parsed parameters: canonical name → value.
#[derive(Debug, Clone, Default)]
pub struct Params(Map<String, Value>);

impl Params {
    /// Check a request object against a table.
    ///
    /// # Errors
    ///
    /// `invalid_params` naming an unknown parameter, a wrong type, or a
    /// parameter given twice (name and alias).
    pub fn parse(request: &Value, table: &[Param]) -> Result<Self> {
        let obj = match request {
            Value::Object(o) => o,
            Value::Null => return Ok(Self::default()),
            _ => {
                return Err(Error::new(
                    ErrorCode::InvalidParams,
                    "the request must be a JSON object",
                ));
            }
        };
        let mut out = Map::new();
        for (key, value) in obj {
            let param = table
                .iter()
                .find(|p| p.name == key || p.aliases.contains(&key.as_str()))
                .ok_or_else(|| Error::new(ErrorCode::InvalidParams, format!("unknown parameter {key:?}")))?;
            if value.is_null() {
                continue;
            }
            if !param.kind.accepts(value) {
                return Err(Error::new(
                    ErrorCode::InvalidParams,
                    format!("parameter {key:?} must be {}", param.kind.name()),
                ));
            }
            if let (Kind::UIntIn(lo, hi), Some(n)) = (param.kind, value.as_u64()) {
                crate::vm::limits::check_range(&format!("parameter {key:?}"), n, lo, hi)
                    .map_err(|e| e.error(ErrorCode::InvalidParams))?;
            }
            if out.insert(param.name.to_owned(), value.clone()).is_some() {
                return Err(Error::new(
                    ErrorCode::InvalidParams,
                    format!("parameter {:?} is given twice", param.name),
                ));
            }
        }
        Ok(Self(out))
    }

    /// A string parameter.
    pub fn str(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }

    /// A required string parameter.
    ///
    /// # Errors
    ///
    /// `invalid_params` naming it.
    pub fn req_str(&self, name: &str, action: &str) -> Result<&str> {
        self.str(name)
            .ok_or_else(|| Error::new(ErrorCode::InvalidParams, format!("{action} needs parameter {name:?}")))
    }

    /// A boolean parameter (false when absent).
    pub fn flag(&self, name: &str) -> bool {
        self.0.get(name).and_then(Value::as_bool).unwrap_or(false)
    }

    /// A number parameter.
    pub fn uint(&self, name: &str) -> Option<u64> {
        self.0.get(name).and_then(Value::as_u64)
    }

    /// A saved script version (`script_version`): within `u32` once
    /// [`Params::parse`] has accepted it.
    ///
    /// # Errors
    ///
    /// `invalid_params` naming the parameter when it is out of range.
    pub fn version(&self, name: &str) -> Result<Option<u32>> {
        self.uint(name)
            .map(|v| {
                u32::try_from(v).map_err(|_| {
                    Error::new(
                        ErrorCode::InvalidParams,
                        format!("parameter {name:?} = {v} is out of range: expected 1 to {}", u32::MAX),
                    )
                })
            })
            .transpose()
    }

    /// Any parameter.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }

    /// Whether a parameter is present.
    pub fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }
}

/// A JSON Schema object for a table (MCP tool input schemas). Only the
/// canonical names are advertised: a model shown both spellings fills both
/// and gets "given twice". The aliases are still accepted by
/// [`Params::parse`].
pub fn schema(table: &[Param], required: &[&str]) -> Value {
    let mut props = Map::new();
    for p in table {
        let mut s = p.kind.schema();
        s["description"] = Value::String(p.doc.to_owned());
        props.insert(p.name.to_owned(), s);
    }
    serde_json::json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn aliases_types_and_unknowns() {
        let p = Params::parse(&json!({"name": "hello", "args": {"x": 1}, "max_parallel": 4}), WORKFLOW).expect("ok");
        assert_eq!(p.str("script_name"), Some("hello"));
        assert_eq!(p.get("script_args"), Some(&json!({"x": 1})));
        let e = Params::parse(&json!({"colour": 1}), WORKFLOW).expect_err("unknown");
        assert!(e.message().contains("colour"));
        let e = Params::parse(&json!({"max_parallel": "4"}), WORKFLOW).expect_err("type");
        assert!(e.message().contains("max_parallel") && e.message().contains("whole number"));
        let e = Params::parse(&json!({"name": "a", "script_name": "b"}), WORKFLOW).expect_err("twice");
        assert!(e.message().contains("twice"));
        assert_eq!(e.code(), ErrorCode::InvalidParams);
    }

    #[test]
    fn schemas_advertise_canonical_typed_names_only() {
        for table in [WORKFLOW, CONTROL, STATUS] {
            let s = schema(table, &[]);
            let props = s["properties"].as_object().expect("properties");
            assert_eq!(props.len(), table.len(), "{s}");
            for (name, prop) in props {
                assert!(prop.get("type").is_some(), "{name} has no type: {prop}");
            }
            assert!(!props.contains_key("scriptPath") && !props.contains_key("runId"));
        }
        // Aliases still parse.
        let p = Params::parse(&json!({"scriptPath": "a.js", "wait_seconds": 1}), WORKFLOW).expect("alias");
        assert_eq!(p.str("script_path"), Some("a.js"));
        let e = Params::parse(&json!({"wait_seconds": MAX_WAIT_SECONDS + 1}), WORKFLOW).expect_err("range");
        assert!(e.message().contains("wait_seconds"), "{e}");
    }

    #[test]
    fn ranged_numbers_are_checked() {
        for (req, needle) in [
            (
                json!({"script_version": 4_294_967_297u64}),
                "\"script_version\" = 4294967297",
            ),
            (json!({"script_version": 0}), "expected 1 to 4294967295"),
            (json!({"max_parallel": 65}), "expected 1 to 64"),
        ] {
            let e = Params::parse(&req, WORKFLOW).expect_err("out of range");
            assert_eq!(e.code(), ErrorCode::InvalidParams);
            assert!(e.message().contains(needle), "{e}");
        }
        let p = Params::parse(&json!({"script_version": 4_294_967_295u64}), WORKFLOW).expect("max");
        assert_eq!(p.version("script_version").expect("fits"), Some(u32::MAX));
    }
}
