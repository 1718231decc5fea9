//! Checking a definition: errors and warnings with codes and RFC 6901
//! pointers, or the workflow's meta.

use crate::hermes::workflow::types::{Diagnostic, Meta, PhaseInfo, Severity};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Escape one RFC 6901 pointer segment.
pub fn seg(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

struct Checker {
    diags: Vec<Diagnostic>,
    inputs: HashSet<String>,
    used_inputs: HashSet<String>,
    steps: HashSet<String>,
}

fn diag(severity: Severity, code: &str, message: String, pointer: &str) -> Diagnostic {
    Diagnostic {
        code: code.into(),
        severity,
        message,
        line: None,
        column: None,
        pointer: Some(pointer.into()),
    }
}

const STEP_TYPES: &[&str] = &["agent", "kanban_agent", "if", "parallel", "pipeline", "phase"];

impl Checker {
    fn error(&mut self, code: &str, message: String, pointer: &str) {
        self.diags.push(diag(Severity::Error, code, message, pointer));
    }
    fn warn(&mut self, code: &str, message: String, pointer: &str) {
        self.diags.push(diag(Severity::Warning, code, message, pointer));
    }

    /// Check every `$ref:` string under `v`; `known` holds step ids visible
    /// here, `locals` names like `item` valid in pipeline stages.
    fn refs(&mut self, v: &Value, pointer: &str, locals: &[&str]) {
        match v {
            Value::String(s) => {
                if let Some(path) = s.strip_prefix("$ref:") {
                    let mut parts = path.split('.');
                    let head = parts.next().unwrap_or("");
                    let ok = if head == "inputs" {
                        let key = parts.next().unwrap_or("");
                        self.used_inputs.insert(key.to_owned());
                        self.inputs.contains(key)
                    } else if locals.contains(&head) {
                        true
                    } else {
                        self.steps.contains(head) && parts.next() == Some("output")
                    };
                    if !ok {
                        self.error(
                            "unknown_ref",
                            format!("{s:?} names no input or earlier step output"),
                            pointer,
                        );
                    }
                }
            }
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    self.refs(x, &format!("{pointer}/{i}"), locals);
                }
            }
            Value::Object(map) => {
                for (k, x) in map {
                    self.refs(x, &format!("{pointer}/{}", seg(k)), locals);
                }
            }
            _ => {}
        }
    }

    fn steps(&mut self, steps: &Value, pointer: &str, policy: &Map<String, Value>, phases: &mut Vec<PhaseInfo>) {
        let Some(list) = steps.as_array() else {
            self.error("invalid_steps", "steps must be a list".into(), pointer);
            return;
        };
        for (i, step) in list.iter().enumerate() {
            let p = format!("{pointer}/{i}");
            let Some(obj) = step.as_object() else {
                self.error("invalid_step", "a step must be an object".into(), &p);
                continue;
            };
            let id = obj.get("id").and_then(Value::as_str);
            let ty = obj.get("type").and_then(Value::as_str).unwrap_or("");
            if !STEP_TYPES.contains(&ty) {
                self.error(
                    "unknown_step_type",
                    format!("step type {ty:?} is not one of {}", STEP_TYPES.join(", ")),
                    &format!("{p}/type"),
                );
            }
            match id {
                None if ty != "phase" => {
                    self.error("missing_step_id", "every step needs an id".into(), &format!("{p}/id"))
                }
                Some(id) if !self.steps.insert(id.to_owned()) => {
                    self.error(
                        "duplicate_step_id",
                        format!("step id {id:?} is used twice"),
                        &format!("{p}/id"),
                    );
                }
                _ => {}
            }
            if let Some(deps) = obj.get("depends_on").and_then(Value::as_array) {
                for (j, d) in deps.iter().enumerate() {
                    let d = d.as_str().unwrap_or("");
                    if !self.steps.contains(d) || Some(d) == id {
                        self.error(
                            "unknown_dependency",
                            format!("depends_on {d:?} names no earlier step"),
                            &format!("{p}/depends_on/{j}"),
                        );
                    }
                }
            }
            match ty {
                "agent" | "kanban_agent" => {
                    if obj.get("agent").is_none() && obj.get("prompt").is_none() {
                        self.error(
                            "missing_agent",
                            "an agent step needs an agent id or a prompt".into(),
                            &p,
                        );
                    }
                    if let (Some(profile), Some(allowed)) = (
                        obj.get("profile").and_then(Value::as_str),
                        policy.get("allowed_profiles").and_then(Value::as_array),
                    ) {
                        if !allowed.iter().any(|a| a == profile) {
                            self.error(
                                "profile_not_allowed",
                                format!("profile {profile:?} is not in policy.allowed_profiles"),
                                &format!("{p}/profile"),
                            );
                        }
                    }
                    for k in ["input", "context", "prompt"] {
                        if let Some(v) = obj.get(k) {
                            self.refs(v, &format!("{p}/{k}"), &[]);
                        }
                    }
                }
                "if" => {
                    let cond = obj.get("condition").and_then(Value::as_object);
                    match cond.and_then(|c| c.get("op")).and_then(Value::as_str) {
                        Some("truthy" | "exists" | "eq" | "ne") => {}
                        other => self.error(
                            "invalid_condition",
                            format!("condition op {other:?}: expected truthy, exists, eq or ne"),
                            &format!("{p}/condition/op"),
                        ),
                    }
                    if let Some(r) = cond.and_then(|c| c.get("ref")) {
                        self.refs(r, &format!("{p}/condition/ref"), &[]);
                    }
                    for k in ["then", "else"] {
                        if let Some(v) = obj.get(k) {
                            self.steps(v, &format!("{p}/{k}"), policy, phases);
                        }
                    }
                }
                "parallel" => match obj.get("branches").and_then(Value::as_array) {
                    Some(branches) => {
                        for (b, branch) in branches.iter().enumerate() {
                            let steps = branch.get("steps").unwrap_or(branch);
                            let bp = if branch.get("steps").is_some() {
                                format!("{p}/branches/{b}/steps")
                            } else {
                                format!("{p}/branches/{b}")
                            };
                            self.steps(steps, &bp, policy, phases);
                        }
                    }
                    None => self.error(
                        "missing_branches",
                        "a parallel step needs branches".into(),
                        &format!("{p}/branches"),
                    ),
                },
                "pipeline" => {
                    match obj.get("items") {
                        Some(items) => self.refs(items, &format!("{p}/items"), &[]),
                        None => self.error(
                            "missing_items",
                            "a pipeline step needs items".into(),
                            &format!("{p}/items"),
                        ),
                    }
                    match obj.get("stages").and_then(Value::as_array) {
                        Some(stages) => {
                            for (k, st) in stages.iter().enumerate() {
                                for key in ["input", "context", "prompt"] {
                                    if let Some(v) = st.get(key) {
                                        self.refs(v, &format!("{p}/stages/{k}/{key}"), &["item", "prev", "index"]);
                                    }
                                }
                            }
                        }
                        None => self.error(
                            "missing_stages",
                            "a pipeline step needs stages".into(),
                            &format!("{p}/stages"),
                        ),
                    }
                }
                "phase" => match obj.get("title").and_then(Value::as_str) {
                    Some(t) => phases.push(PhaseInfo {
                        title: t.into(),
                        detail: obj.get("detail").and_then(Value::as_str).map(Into::into),
                    }),
                    None => self.error(
                        "missing_title",
                        "a phase step needs a title".into(),
                        &format!("{p}/title"),
                    ),
                },
                _ => {}
            }
        }
    }
}

/// Check a definition.
pub fn check(source: &str) -> Result<Meta, Vec<Diagnostic>> {
    let def: Value = match serde_json::from_str(source) {
        Ok(v) => v,
        Err(e) => {
            return Err(vec![Diagnostic {
                code: "invalid_json".into(),
                severity: Severity::Error,
                message: e.to_string(),
                line: u32::try_from(e.line()).ok(),
                column: u32::try_from(e.column()).ok(),
                pointer: None,
            }]);
        }
    };
    let Some(obj) = def.as_object() else {
        return Err(vec![diag(
            Severity::Error,
            "invalid_definition",
            "a workflow definition must be a JSON object".into(),
            "",
        )]);
    };
    let mut c = Checker {
        diags: Vec::new(),
        inputs: HashSet::new(),
        used_inputs: HashSet::new(),
        steps: HashSet::new(),
    };
    match obj.get("version") {
        Some(Value::String(v)) if v == "1" => {}
        Some(v) => c.error(
            "unsupported_version",
            format!("version {v} is not supported; use \"1\""),
            "/version",
        ),
        None => c.error("missing_version", "version \"1\" is required".into(), "/version"),
    }
    let name = obj.get("name").and_then(Value::as_str);
    if name.is_none() {
        c.error("missing_name", "a workflow needs a name".into(), "/name");
    }
    if let Some(inputs) = obj.get("inputs") {
        match inputs.as_object() {
            Some(m) => c.inputs.extend(m.keys().cloned()),
            None => c.error("invalid_inputs", "inputs must be an object".into(), "/inputs"),
        }
    }
    let empty = Map::new();
    let policy = obj.get("policy").and_then(Value::as_object).unwrap_or(&empty);
    for (key, code) in [
        ("network", "network_not_allowed"),
        ("filesystem", "filesystem_not_allowed"),
    ] {
        if policy.get(key).is_some_and(|v| v != &Value::Bool(false)) {
            c.error(
                code,
                format!("policy.{key} must be false: workflows reach the world only through the broker"),
                &format!("/policy/{key}"),
            );
        }
    }
    if let Some(n) = policy.get("max_parallel") {
        if !n.as_u64().is_some_and(|n| (1..=64).contains(&n)) {
            c.error(
                "invalid_policy",
                "policy.max_parallel must be 1 to 64".into(),
                "/policy/max_parallel",
            );
        }
    }
    let mut phases = Vec::new();
    match obj.get("steps") {
        Some(steps) => c.steps(steps, "/steps", policy, &mut phases),
        None => c.error("missing_steps", "a workflow needs steps".into(), "/steps"),
    }
    if let Some(out) = obj.get("output") {
        c.refs(out, "/output", &[]);
    }
    let unused: Vec<String> = c.inputs.difference(&c.used_inputs).cloned().collect();
    for key in unused {
        c.warn(
            "unused_input",
            format!("input {key:?} is never used"),
            &format!("/inputs/{}", seg(&key)),
        );
    }
    if c.diags.iter().any(|d| matches!(d.severity, Severity::Error)) {
        return Err(c.diags);
    }
    let mut props = Map::new();
    if let Some(m) = obj.get("inputs").and_then(Value::as_object) {
        for (k, spec) in m {
            let ty = spec.get("type").cloned().unwrap_or(Value::Null);
            props.insert(
                k.clone(),
                if ty.is_null() {
                    serde_json::json!({})
                } else {
                    serde_json::json!({"type": ty})
                },
            );
        }
    }
    Ok(Meta {
        name: name.unwrap_or("").into(),
        description: obj.get("description").and_then(Value::as_str).unwrap_or("").into(),
        when_to_use: obj.get("when_to_use").and_then(Value::as_str).map(Into::into),
        phases,
        args_schema: Some(serde_json::json!({"type": "object", "properties": props}).to_string()),
    })
}
