//! Checking a definition the way hermes-plugin-dynamic-workflows' validator
//! does (structure, then policy and references): errors and warnings with
//! stable codes and RFC 6901 pointers, or the workflow's meta.
//!
//! Each code maps to one of the seed's `E_*` / `W_*` codes (see
//! `docs/CONFORMANCE.md`); the pointers are the seed's pointers.

use crate::order;
use crate::refs::{self, Ref};
use crate::schema;
use hwf_guest::runtime::wit::{Diagnostic, Meta, PhaseInfo, Severity};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Escape one RFC 6901 pointer segment.
pub fn seg(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// The step kinds of the format.
pub const STEP_KINDS: &[&str] = &["agent", "kanban_agent", "parallel", "pipeline", "phase", "if"];
const CONDITION_OPS: &[&str] = &["truthy", "exists", "eq", "ne"];
const POLICY_KEYS: &[&str] = &[
    "network",
    "filesystem",
    "max_parallel",
    "max_agent_calls",
    "max_kanban_cards",
    "max_active_awaits",
    "allowed_profiles",
];

/// The keys of an `agent` step that become its agent options: the seed's
/// (`agent`, `output_schema`, and `title` / `task_title` / `id` for the
/// label) and hwf's extensions (`prompt`, `context`, `model`, `effort`,
/// `tools`, `isolation`, `fresh`, `agent_type` / `agentType`). Others —
/// `schema`, `label`, `phase`, … — are not the format's and are ignored, as the seed
/// ignores them ([`Checker`] warns `unknown_step_key`).
pub const AGENT_STEP_OPTIONS: &[&str] = &[
    "agent",
    "output_schema",
    "title",
    "task_title",
    "id",
    "prompt",
    "context",
    "model",
    "effort",
    "tools",
    "isolation",
    "fresh",
    // hwf's agent types (`.hermes/agents/<name>.md`); the seed ignores
    // the key, and so does hwf for a type it does not have (a run-time
    // `unknown_agent_type` warning; the types are the host's, unknown here).
    "agent_type",
    "agentType",
];

/// The keys every effect step may have besides its options (the seed's:
/// `phase_id` / `phase_title` are its status metadata).
const EFFECT_STEP_KEYS: &[&str] = &[
    "kind",
    "id",
    "depends_on",
    "input",
    "title",
    "task_title",
    "phase_id",
    "phase_title",
];
/// The keys of a `kanban_agent` step besides [`EFFECT_STEP_KEYS`].
const KANBAN_STEP_KEYS: &[&str] = &["profile", "task", "wait", "output_schema"];

/// Whether `v` is a JSON integer (no fraction or exponent, any size, as
/// Python's `int`) of at least `min` (0 or 1).
pub fn int_at_least(v: &Value, min: u64) -> bool {
    let Some(n) = v.as_number() else { return false };
    if n.as_u64().is_some_and(|n| n >= min) || (min == 0 && n.as_i64() == Some(0)) {
        return true;
    }
    // Past 2^64 (`arbitrary_precision` keeps the digits).
    let text = n.to_string();
    !text.starts_with('-') && text.bytes().all(|b| b.is_ascii_digit()) && text.len() > 19
}

/// The widest fan-out a parallel step may have, whatever
/// `policy.max_parallel` says (hwf's ceiling on `max_parallel`).
pub const MAX_PARALLEL: u64 = 64;

/// `policy.<key>` as a count (a value past 2^64 saturates).
pub fn policy_count(def: &Value, key: &str) -> Option<u64> {
    let v = def.pointer(&format!("/policy/{key}"))?;
    if !int_at_least(v, 0) {
        return None;
    }
    Some(v.as_u64().unwrap_or(u64::MAX))
}

/// Identifier-safe: letters, digits, `.`, `_`, `-`, not empty — the
/// seed's `c.isalnum() or c in "._-"`, with Python's `isalnum`
/// (`crate::alnum`: no combining vowel signs, no circled letters).
pub fn identifier_safe(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| crate::alnum::is_alnum(c) || matches!(c, '.' | '_' | '-'))
}

/// The title a `phase` container shows: `phase_title`, else `label`, else
/// its id.
pub fn phase_title(step: &Value) -> String {
    ["phase_title", "label", "id"]
        .iter()
        .find_map(|k| step.get(*k).and_then(Value::as_str))
        .unwrap_or("")
        .to_owned()
}

/// The child step list of a container kind.
pub fn child_key(kind: &str) -> Option<&'static str> {
    match kind {
        "parallel" => Some("branches"),
        "pipeline" | "phase" => Some("steps"),
        _ => None,
    }
}

struct Checker {
    diags: Vec<Diagnostic>,
    inputs: HashSet<String>,
    /// Every step id anywhere in the definition.
    all_ids: HashSet<String>,
    seen: HashSet<String>,
    phases: Vec<PhaseInfo>,
    allowed_profiles: Option<HashSet<String>>,
    /// Checking references in a key the seed does not read.
    soft: bool,
}

/// The codes of the seed's structural validation (`schema.py`:
/// `E_SCHEMA_TOPLEVEL` from the definition's shape, `E_VERSION`,
/// `E_SCHEMA_STEP`, `E_DUP_STEP_ID`, `E_SCHEMA_OUTPUT_SCHEMA`); the rest —
/// policy, agents, references, dependencies — is its lint (`sandbox.py`).
const STRUCTURE_CODES: &[&str] = &[
    "invalid_definition",
    "missing_version",
    "missing_name",
    "invalid_name",
    "invalid_inputs",
    "missing_steps",
    "invalid_steps",
    "unsupported_version",
    "invalid_step",
    "kind_required",
    "unknown_step_kind",
    "missing_step_id",
    "invalid_depends_on",
    "missing_agent",
    "missing_profile",
    "invalid_profile",
    "missing_task",
    "invalid_task",
    "invalid_input",
    "invalid_field",
    "invalid_condition",
    "missing_children",
    "invalid_else",
    "duplicate_step_id",
    "invalid_output_schema",
];

/// The seed lints a definition only when its structure is sound, so a
/// definition with a structural error has none of the lint's warnings
/// (`policy_default`, `no_output_schema`, `undeclared_input`, and hwf's
/// `unavailable_ref`). hwf still reports the lint's errors with it (every
/// problem at once); hwf's own `unknown_step_key` stays.
fn drop_lint_warnings_after_structure_errors(diags: &mut Vec<Diagnostic>) {
    let structural = diags
        .iter()
        .any(|d| matches!(d.severity, Severity::Error) && STRUCTURE_CODES.contains(&d.code.as_str()));
    if structural {
        diags.retain(|d| matches!(d.severity, Severity::Error) || d.code == "unknown_step_key");
    }
}

/// Every effect step's `(id, depends_on ids)`, in the seed's
/// `iter_agent_steps` order (declaration order, into containers and both
/// `if` branches).
fn effect_edges(steps: &Value, out: &mut Vec<(String, Vec<String>)>) {
    for step in steps.as_array().into_iter().flatten() {
        let kind = step.get("kind").and_then(Value::as_str).unwrap_or("");
        if matches!(kind, "agent" | "kanban_agent") {
            if let Some(id) = step.get("id").and_then(Value::as_str) {
                let deps = step.get("depends_on").and_then(Value::as_array).into_iter().flatten();
                let deps: Vec<String> = deps.filter_map(Value::as_str).map(str::to_owned).collect();
                match out.iter_mut().find(|(known, _)| known == id) {
                    Some((_, known)) => known.extend(deps),
                    None => out.push((id.to_owned(), deps)),
                }
            }
        } else if kind == "if" {
            effect_edges(step.get("then").unwrap_or(&Value::Null), out);
            effect_edges(step.get("else").unwrap_or(&Value::Null), out);
        } else if let Some(key) = child_key(kind) {
            effect_edges(step.get(key).unwrap_or(&Value::Null), out);
        }
    }
}

/// The seed's `_lint_cycles`: a depth-first walk of the effect steps'
/// `depends_on` edges, in its order; an edge back to a step on the walk's
/// stack marks that step and the one it leaves (so `a → b → c → a` names
/// `a` and `c`, as the seed does). The names, sorted, or none.
fn depends_on_cycle(steps: &Value) -> Option<Vec<String>> {
    let mut edges = Vec::new();
    effect_edges(steps, &mut edges);
    // 1 = on the stack, 2 = done.
    let mut state: std::collections::HashMap<&str, u8> = std::collections::HashMap::new();
    let mut cyclic: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    fn dfs<'e>(
        node: &'e str,
        edges: &'e [(String, Vec<String>)],
        state: &mut std::collections::HashMap<&'e str, u8>,
        cyclic: &mut std::collections::BTreeSet<&'e str>,
    ) {
        state.insert(node, 1);
        let next = edges.iter().find(|(id, _)| id == node).map(|(_, deps)| deps.as_slice());
        for dep in next.unwrap_or_default() {
            match state.get(dep.as_str()).copied().unwrap_or(0) {
                0 => dfs(dep, edges, state, cyclic),
                1 => {
                    cyclic.insert(dep);
                    cyclic.insert(node);
                }
                _ => {}
            }
        }
        state.insert(node, 2);
    }
    for (id, _) in &edges {
        if !state.contains_key(id.as_str()) {
            dfs(id, &edges, &mut state, &mut cyclic);
        }
    }
    (!cyclic.is_empty()).then(|| cyclic.into_iter().map(str::to_owned).collect())
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

fn collect_ids(steps: &Value, out: &mut HashSet<String>) {
    for step in steps.as_array().into_iter().flatten() {
        if let Some(id) = step.get("id").and_then(Value::as_str) {
            out.insert(id.to_owned());
        }
        for k in ["branches", "steps", "then", "else"] {
            if let Some(children) = step.get(k) {
                collect_ids(children, out);
            }
        }
    }
}

impl Checker {
    fn error(&mut self, code: &str, message: String, pointer: &str) {
        self.diags.push(diag(Severity::Error, code, message, pointer));
    }

    fn warn(&mut self, code: &str, message: String, pointer: &str) {
        self.diags.push(diag(Severity::Warning, code, message, pointer));
    }

    /// Every `$ref:` string under `v`: its form, its target, and whether the
    /// target is available at this point of the definition.
    fn refs(&mut self, v: &Value, pointer: &str, available: &HashSet<String>) {
        match v {
            Value::String(s) => match refs::parse(s) {
                None => {}
                Some(Ref::Invalid) if self.soft => self.warn(
                    "unavailable_ref",
                    format!("malformed reference {s:?} in a key the seed does not read; it reads as null"),
                    pointer,
                ),
                Some(Ref::Invalid) => self.error(
                    "bad_ref",
                    format!("malformed reference {s:?}: use $ref:inputs.<key> or $ref:<step>.output[.<field>]"),
                    pointer,
                ),
                Some(Ref::Input(key)) if !self.inputs.contains(key) => {
                    self.warn(
                        "undeclared_input",
                        format!("reference to undeclared input {key:?}"),
                        pointer,
                    );
                }
                Some(Ref::Input(_)) => {}
                Some(Ref::Step { step, .. }) if self.soft => {
                    let what = if !self.all_ids.contains(step) {
                        format!("reference to unknown step id {step:?}")
                    } else if !available.contains(step) {
                        format!(
                            "reference to step id {step:?} before it is available in declaration order \
                             (it runs later, or inside an if branch)"
                        )
                    } else {
                        return;
                    };
                    self.warn(
                        "unavailable_ref",
                        format!("{what}, in a key the seed does not read; it reads as null"),
                        pointer,
                    );
                }
                Some(Ref::Step { step, .. }) => {
                    if !self.all_ids.contains(step) {
                        self.error(
                            "unresolved_ref",
                            format!("reference to unknown step id {step:?}"),
                            pointer,
                        );
                    } else if !available.contains(step) {
                        self.error(
                            "unresolved_ref",
                            format!(
                                "reference to step id {step:?} before it is available in declaration order \
                                 (it runs later, or inside an if branch)"
                            ),
                            pointer,
                        );
                    }
                }
            },
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    self.refs(x, &format!("{pointer}/{i}"), available);
                }
            }
            Value::Object(map) => {
                for (k, x) in map {
                    self.refs(x, &format!("{pointer}/{}", seg(k)), available);
                }
            }
            _ => {}
        }
    }

    /// [`Self::refs`] for a key the seed does not read (an agent step's
    /// `prompt` and `context`, the top-level `output`): the seed runs the
    /// definition whatever they hold, so a reference that is malformed, to
    /// an unknown step or to one not available there is a warning
    /// (`unavailable_ref`), and it reads as null at run time.
    fn soft_refs(&mut self, v: &Value, pointer: &str, available: &HashSet<String>) {
        self.soft = true;
        self.refs(v, pointer, available);
        self.soft = false;
    }

    fn steps(&mut self, steps: &[Value], pointer: &str, available: &mut HashSet<String>) {
        for (i, step) in steps.iter().enumerate() {
            self.step(step, &format!("{pointer}/{i}"), available);
        }
    }

    /// A non-empty list of steps under `key`, or an error.
    fn child_list<'v>(&mut self, obj: &'v Map<String, Value>, key: &str, kind: &str, p: &str) -> Option<&'v [Value]> {
        match obj.get(key).and_then(Value::as_array) {
            Some(list) if !list.is_empty() => Some(list),
            _ => {
                self.error(
                    "missing_children",
                    format!("{kind} step requires a non-empty {key:?} list"),
                    &format!("{p}/{key}"),
                );
                None
            }
        }
    }

    fn string_fields(&mut self, obj: &Map<String, Value>, keys: &[&str], p: &str) {
        for k in keys {
            if obj.get(*k).is_some_and(|v| !v.is_string()) {
                self.error("invalid_field", format!("{k:?} must be a string"), &format!("{p}/{k}"));
            }
        }
    }

    fn step(&mut self, step: &Value, p: &str, available: &mut HashSet<String>) {
        let Some(obj) = step.as_object() else {
            self.error("invalid_step", "step must be an object".into(), p);
            return;
        };
        let kind = match obj.get("kind") {
            Some(Value::String(k)) if STEP_KINDS.contains(&k.as_str()) => k.as_str(),
            None if obj.contains_key("type") => {
                let t = obj.get("type").and_then(Value::as_str).unwrap_or("agent");
                self.error(
                    "kind_required",
                    format!("steps are discriminated by \"kind\", not \"type\": write \"kind\": {t:?}"),
                    // The seed's pointer: the missing `kind`.
                    &format!("{p}/kind"),
                );
                return;
            }
            other => {
                self.error(
                    "unknown_step_kind",
                    format!(
                        "step \"kind\" must be one of {}, got {}",
                        STEP_KINDS.join(", "),
                        other.map_or_else(|| "nothing".to_owned(), Value::to_string)
                    ),
                    &format!("{p}/kind"),
                );
                return;
            }
        };
        let id = match obj.get("id").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => {
                if !self.seen.insert(id.to_owned()) {
                    self.error(
                        "duplicate_step_id",
                        format!("duplicate step id {id:?}"),
                        &format!("{p}/id"),
                    );
                }
                Some(id)
            }
            _ => {
                self.error(
                    "missing_step_id",
                    "step \"id\" must be a non-empty string".into(),
                    &format!("{p}/id"),
                );
                None
            }
        };
        match obj.get("depends_on") {
            None => {}
            Some(Value::Array(deps)) if deps.iter().all(Value::is_string) => {
                for (j, dep) in deps.iter().filter_map(Value::as_str).enumerate() {
                    let ptr = format!("{p}/depends_on/{j}");
                    if !self.all_ids.contains(dep) {
                        self.error(
                            "unknown_dependency",
                            format!("depends_on references unknown step id {dep:?}"),
                            &ptr,
                        );
                    } else if !available.contains(dep) {
                        self.error(
                            "dependency_not_available",
                            format!(
                                "depends_on references step id {dep:?} before it is available in declaration order"
                            ),
                            &ptr,
                        );
                    }
                }
            }
            Some(_) => self.error(
                "invalid_depends_on",
                "\"depends_on\" must be a list of step ids".into(),
                &format!("{p}/depends_on"),
            ),
        }
        match kind {
            "agent" | "kanban_agent" => self.effect_step(kind, obj, p, available),
            "if" => self.if_step(obj, p, available),
            _ => {
                let key = child_key(kind).unwrap_or("steps");
                // As the seed: a phase's `label`, `phase_id`, `phase_title`
                // are checked once its steps are a non-empty list.
                if let Some(children) = self.child_list(obj, key, kind, p) {
                    if kind == "phase" {
                        self.string_fields(obj, &["label", "phase_id", "phase_title"], p);
                        self.phases.push(PhaseInfo {
                            title: phase_title(step),
                            detail: obj.get("detail").and_then(Value::as_str).map(Into::into),
                        });
                    }
                    if kind == "parallel" {
                        self.branches(children, &format!("{p}/{key}"), available);
                    } else {
                        self.steps(children, &format!("{p}/{key}"), available);
                    }
                }
            }
        }
        if let Some(id) = id {
            available.insert(id.to_owned());
        }
    }

    /// A parallel step's branches: each sees what came before the step
    /// and the siblings of earlier waves (`order.rs`: a branch reading a
    /// sibling waits for it); branches reading each other in a cycle are
    /// `reference_cycle`.
    fn branches(&mut self, children: &[Value], p: &str, available: &mut HashSet<String>) {
        let before = available.clone();
        let provided: Vec<HashSet<String>> = children
            .iter()
            .map(|b| {
                let mut ids = HashSet::new();
                order::provides(b, &mut ids);
                ids
            })
            .collect();
        // Which siblings each branch sees: those of earlier waves.
        let sees: Box<dyn Fn(usize, usize) -> bool> = match order::waves(children) {
            Ok(waves) => {
                let mut wave_of = vec![0; children.len()];
                for (w, wave) in waves.iter().enumerate() {
                    for &b in wave {
                        wave_of[b] = w;
                    }
                }
                Box::new(move |b, s| wave_of[s] < wave_of[b])
            }
            Err(cycle) => {
                self.error(
                    "reference_cycle",
                    format!(
                        "parallel branches read each other's outputs in a cycle: {}",
                        cycle.join(" → ")
                    ),
                    p,
                );
                // Checked as if each saw the others, so the cycle is the
                // one error it causes.
                Box::new(|_, _| true)
            }
        };
        for (b, branch) in children.iter().enumerate() {
            let mut own = before.clone();
            for (s, ids) in provided.iter().enumerate() {
                if s != b && sees(b, s) {
                    own.extend(ids.iter().cloned());
                }
            }
            self.step(branch, &format!("{p}/{b}"), &mut own);
            available.extend(own);
        }
    }

    fn effect_step(&mut self, kind: &str, obj: &Map<String, Value>, p: &str, available: &HashSet<String>) {
        // A key the format does not define is ignored (the seed ignores
        // it); say so, since it was likely meant to do something.
        let own = if kind == "agent" {
            AGENT_STEP_OPTIONS
        } else {
            KANBAN_STEP_KEYS
        };
        for key in obj.keys() {
            if !EFFECT_STEP_KEYS.contains(&key.as_str()) && !own.contains(&key.as_str()) {
                let hint = match key.as_str() {
                    "schema" => " (the format's name is \"output_schema\")",
                    _ => "",
                };
                self.warn(
                    "unknown_step_key",
                    format!("{key:?} is not a key of {kind:?} steps; it is ignored{hint}"),
                    &format!("{p}/{}", seg(key)),
                );
            }
        }
        if kind == "agent" {
            let agent = obj.get("agent").and_then(Value::as_str).filter(|a| !a.is_empty());
            match agent {
                Some(a) if a.starts_with("kanban.") => self.error(
                    "reserved_agent",
                    format!(
                        "reserved Kanban runner id {a:?} cannot be called by an agent step; use kind \"kanban_agent\" with a profile"
                    ),
                    &format!("{p}/agent"),
                ),
                Some(_) => {}
                // hwf extension: a prompt agent instead of a registered id.
                None if obj.get("prompt").is_some_and(Value::is_string) => {}
                None => self.error(
                    "missing_agent",
                    "agent step requires a non-empty \"agent\" id (or a \"prompt\")".into(),
                    &format!("{p}/agent"),
                ),
            }
            // hwf's keys, which the seed does not read: a reference there
            // that is not available warns and reads as null.
            for k in ["prompt", "context"] {
                if let Some(v) = obj.get(k) {
                    self.soft_refs(v, &format!("{p}/{k}"), available);
                }
            }
        } else {
            match obj.get("profile").and_then(Value::as_str) {
                Some(profile) if identifier_safe(profile) => {
                    if self.allowed_profiles.as_ref().is_some_and(|a| !a.contains(profile)) {
                        self.error(
                            "profile_not_allowed",
                            format!("kanban profile {profile:?} is not allowed by policy.allowed_profiles"),
                            &format!("{p}/profile"),
                        );
                    }
                }
                Some(_) => self.error(
                    "invalid_profile",
                    "kanban_agent \"profile\" must be identifier-safe".into(),
                    &format!("{p}/profile"),
                ),
                None => self.error(
                    "missing_profile",
                    "kanban_agent step requires a non-empty \"profile\"".into(),
                    &format!("{p}/profile"),
                ),
            }
            match obj.get("task") {
                Some(Value::Object(_) | Value::String(_)) => {}
                Some(_) => self.error(
                    "invalid_task",
                    "kanban_agent \"task\" must be an object or a string".into(),
                    &format!("{p}/task"),
                ),
                None => self.error(
                    "missing_task",
                    "kanban_agent step requires \"task\"".into(),
                    &format!("{p}/task"),
                ),
            }
            if obj.get("wait").is_some_and(|w| !w.is_boolean()) {
                self.error(
                    "invalid_field",
                    "kanban_agent \"wait\" must be a boolean".into(),
                    &format!("{p}/wait"),
                );
            }
            if let Some(task) = obj.get("task") {
                self.refs(task, &format!("{p}/task"), available);
            }
        }
        self.string_fields(obj, &["title", "task_title", "phase_id", "phase_title"], p);
        match obj.get("input") {
            None | Some(Value::Object(_) | Value::String(_)) => {}
            Some(_) => self.error(
                "invalid_input",
                "\"input\" must be an object or a $ref string".into(),
                &format!("{p}/input"),
            ),
        }
        if let Some(input) = obj.get("input") {
            self.refs(input, &format!("{p}/input"), available);
        }
        match obj.get("output_schema") {
            None => self.warn(
                "no_output_schema",
                "effect step has no \"output_schema\"; its output is recorded unvalidated".into(),
                p,
            ),
            // The seed's structural check (`E_SCHEMA_STEP`), before the
            // schema's own (`E_SCHEMA_OUTPUT_SCHEMA`).
            Some(s) if !s.is_object() => self.error(
                "invalid_field",
                "\"output_schema\" must be an object".into(),
                &format!("{p}/output_schema"),
            ),
            Some(s) => {
                if let Err(problem) = schema::check(s) {
                    self.error(
                        "invalid_output_schema",
                        format!("invalid \"output_schema\": {problem}"),
                        &format!("{p}/output_schema"),
                    );
                }
            }
        }
    }

    fn if_step(&mut self, obj: &Map<String, Value>, p: &str, available: &mut HashSet<String>) {
        match obj.get("condition").and_then(Value::as_object) {
            None => self.error(
                "invalid_condition",
                "if step requires a \"condition\" object".into(),
                &format!("{p}/condition"),
            ),
            Some(cond) => {
                match cond.get("ref") {
                    Some(r @ Value::String(s)) if s.starts_with("$ref:") => {
                        self.refs(r, &format!("{p}/condition/ref"), available);
                    }
                    _ => self.error(
                        "invalid_condition",
                        "if condition requires a \"$ref:\" string in \"ref\"".into(),
                        &format!("{p}/condition/ref"),
                    ),
                }
                let op = cond.get("op").and_then(Value::as_str);
                if !op.is_some_and(|o| CONDITION_OPS.contains(&o)) {
                    self.error(
                        "invalid_condition",
                        format!(
                            "if condition \"op\" must be one of {}, got {}",
                            CONDITION_OPS.join(", "),
                            cond.get("op").map_or_else(|| "nothing".to_owned(), Value::to_string)
                        ),
                        &format!("{p}/condition/op"),
                    );
                }
                if matches!(op, Some("eq" | "ne")) && !cond.contains_key("value") {
                    self.error(
                        "invalid_condition",
                        format!("if condition op {:?} requires \"value\"", op.unwrap_or("")),
                        &format!("{p}/condition/value"),
                    );
                }
            }
        }
        // Steps inside a branch are local to it.
        if let Some(then) = self.child_list(obj, "then", "if", p) {
            let mut local = available.clone();
            self.steps(then, &format!("{p}/then"), &mut local);
        }
        match obj.get("else") {
            None => {}
            Some(Value::Array(list)) => {
                let mut local = available.clone();
                self.steps(list, &format!("{p}/else"), &mut local);
            }
            Some(_) => self.error(
                "invalid_else",
                "if step \"else\" must be a list".into(),
                &format!("{p}/else"),
            ),
        }
    }

    fn policy(&mut self, policy: Option<&Value>) {
        // `"policy": null` is no policy block (the seed's `.get("policy") is
        // None`): the default-deny warning, not an error.
        let Some(policy) = policy.filter(|p| !p.is_null()) else {
            self.warn(
                "policy_default",
                "no \"policy\" block; assuming default-deny (network=false, filesystem=false)".into(),
                "/policy",
            );
            return;
        };
        let Some(policy) = policy.as_object() else {
            self.error("invalid_policy", "\"policy\" must be an object".into(), "/policy");
            return;
        };
        // The seed refuses only the value `true` (`policy.get(key) is True`):
        // `null`, `0` or a string pass, as there.
        for (key, code) in [
            ("network", "network_not_allowed"),
            ("filesystem", "filesystem_not_allowed"),
        ] {
            if policy.get(key) == Some(&Value::Bool(true)) {
                self.error(
                    code,
                    format!("policy.{key} must be false: workflows reach the world only through the broker"),
                    &format!("/policy/{key}"),
                );
            }
        }
        // Any positive integer, however large (the seed's rule); the run
        // bounds fan-outs by the smaller of it and the host's limit.
        if let Some(n) = policy.get("max_parallel")
            && !int_at_least(n, 1)
        {
            self.error(
                "invalid_policy",
                "policy.max_parallel must be a positive integer".into(),
                "/policy/max_parallel",
            );
        }
        for key in ["max_agent_calls", "max_kanban_cards", "max_active_awaits"] {
            if policy.get(key).is_some_and(|v| !int_at_least(v, 0)) {
                self.error(
                    "invalid_policy",
                    format!("policy.{key} must be a non-negative integer"),
                    &format!("/policy/{key}"),
                );
            }
        }
        if let Some(profiles) = policy.get("allowed_profiles") {
            match profiles.as_array() {
                Some(list) if list.iter().all(|p| p.as_str().is_some_and(identifier_safe)) => {
                    self.allowed_profiles = Some(list.iter().filter_map(Value::as_str).map(str::to_owned).collect());
                }
                _ => self.error(
                    "invalid_policy",
                    "policy.allowed_profiles must be a list of identifier-safe profile strings".into(),
                    "/policy/allowed_profiles",
                ),
            }
        }
        for key in policy.keys() {
            if !POLICY_KEYS.contains(&key.as_str()) {
                self.error(
                    "unknown_policy_key",
                    format!("unknown capability {key:?}; allowed: {}", POLICY_KEYS.join(", ")),
                    &format!("/policy/{}", seg(key)),
                );
            }
        }
    }
}

/// The JSON Schema of a workflow's `inputs` (`{key: "type"}` or
/// `{key: {type?, default?, required?}}`).
fn args_schema(inputs: Option<&Map<String, Value>>) -> Value {
    let mut props = Map::new();
    for (k, spec) in inputs.into_iter().flatten() {
        let ty = match spec {
            Value::String(t) => schema::type_name(t).map(Value::from),
            other => other
                .get("type")
                .and_then(Value::as_str)
                .and_then(schema::type_name)
                .map(Value::from),
        };
        props.insert(
            k.clone(),
            ty.map_or_else(|| serde_json::json!({}), |t| serde_json::json!({"type": t})),
        );
    }
    serde_json::json!({"type": "object", "properties": props})
}

/// The deepest nesting of arrays and objects a definition may have. The
/// seed reads a definition with Python's `json`, bounded by the
/// interpreter's recursion limit (1,000 frames: its runtime ran 320 nested
/// pipelines, 640 levels, and failed at 400 with a `RecursionError`);
/// serde's default of 128 levels refused 64 nested containers.
pub const MAX_DEPTH: usize = 1000;

/// The depth past [`MAX_DEPTH`] that `source` reaches, if it does (arrays
/// and objects, outside strings; a malformed text is left to the parser).
fn too_deep(source: &str) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for b in source.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(depth);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Parse a definition's text without serde's 128-level limit (the text is
/// bounded by [`MAX_DEPTH`] first, in [`check_with_warnings`]).
///
/// # Errors
///
/// The parser's, when the text is not JSON.
pub fn parse_definition(source: &str) -> Result<Value, serde_json::Error> {
    use serde::Deserialize;
    let mut de = serde_json::Deserializer::from_str(source);
    de.disable_recursion_limit();
    let v = Value::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// Check a definition: its meta, or every problem.
pub fn check(source: &str) -> Result<Meta, Vec<Diagnostic>> {
    check_with_warnings(source).map(|(meta, _)| meta)
}

/// Check a definition: its meta and the warnings (`policy_default`,
/// `no_output_schema`, `undeclared_input`, and hwf's `unknown_step_key`,
/// each with its pointer), or every
/// problem (errors and warnings).
pub fn check_with_warnings(source: &str) -> Result<(Meta, Vec<Diagnostic>), Vec<Diagnostic>> {
    if let Some(depth) = too_deep(source) {
        return Err(vec![diag(
            Severity::Error,
            "invalid_json",
            format!("definition is nested {depth} levels deep or more; at most {MAX_DEPTH}"),
            "",
        )]);
    }
    let def: Value = match parse_definition(source) {
        Ok(v) => v,
        Err(e) => {
            return Err(vec![Diagnostic {
                code: "invalid_json".into(),
                severity: Severity::Error,
                message: format!("definition is not valid JSON: {e}"),
                line: u32::try_from(e.line()).ok(),
                column: u32::try_from(e.column()).ok(),
                pointer: Some(String::new()),
            }]);
        }
    };
    let Some(obj) = def.as_object() else {
        return Err(vec![diag(
            Severity::Error,
            "invalid_definition",
            "top-level definition must be an object".into(),
            "",
        )]);
    };
    let mut c = Checker {
        diags: Vec::new(),
        inputs: HashSet::new(),
        all_ids: HashSet::new(),
        seen: HashSet::new(),
        phases: Vec::new(),
        allowed_profiles: None,
        soft: false,
    };
    match obj.get("version") {
        Some(Value::String(v)) if v == "1" => {}
        Some(v) => c.error(
            "unsupported_version",
            format!("unsupported version {v}; expected \"1\""),
            "/version",
        ),
        None => c.error("missing_version", "missing required key \"version\"".into(), "/version"),
    }
    let name = obj.get("name").and_then(Value::as_str);
    match obj.get("name") {
        None => c.error("missing_name", "missing required key \"name\"".into(), "/name"),
        Some(_) if !name.is_some_and(identifier_safe) => c.error(
            "invalid_name",
            "\"name\" must be a non-empty identifier-safe string".into(),
            "/name",
        ),
        Some(_) => {}
    }
    let inputs = obj.get("inputs").and_then(Value::as_object);
    match obj.get("inputs") {
        Some(v) if !v.is_object() => c.error("invalid_inputs", "\"inputs\" must be an object".into(), "/inputs"),
        _ => c.inputs.extend(inputs.into_iter().flatten().map(|(k, _)| k.clone())),
    }
    c.policy(obj.get("policy"));
    match obj.get("steps") {
        None => c.error("missing_steps", "missing required key \"steps\"".into(), "/steps"),
        Some(Value::Array(steps)) => {
            collect_ids(&def["steps"], &mut c.all_ids);
            let mut available = HashSet::new();
            c.steps(steps, "/steps", &mut available);
            // The seed's cycle check over the effect steps' `depends_on`
            // (a cycle also names a step not yet available, above).
            if let Some(names) = depends_on_cycle(&def["steps"]) {
                let list: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
                c.error(
                    "reference_cycle",
                    format!("cyclic depends_on graph involving steps: [{}]", list.join(", ")),
                    "/steps",
                );
            }
            // hwf extension: a declared `output` built from refs.
            if let Some(out) = obj.get("output") {
                c.soft_refs(out, "/output", &available);
            }
        }
        Some(_) => c.error("invalid_steps", "\"steps\" must be a list".into(), "/steps"),
    }
    if c.diags.iter().any(|d| matches!(d.severity, Severity::Error)) {
        drop_lint_warnings_after_structure_errors(&mut c.diags);
        return Err(c.diags);
    }
    let meta = Meta {
        name: name.unwrap_or("").into(),
        description: obj.get("description").and_then(Value::as_str).unwrap_or("").into(),
        when_to_use: obj.get("when_to_use").and_then(Value::as_str).map(Into::into),
        phases: c.phases,
        args_schema: Some(args_schema(inputs).to_string()),
    };
    Ok((meta, c.diags))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(def: &Value) -> Vec<(String, String, bool)> {
        let diags = match check_with_warnings(&def.to_string()) {
            Ok((_, warnings)) => warnings,
            Err(diags) => diags,
        };
        diags
            .into_iter()
            .map(|d| {
                let error = matches!(d.severity, Severity::Error);
                (d.code, d.pointer.unwrap_or_default(), error)
            })
            .collect()
    }

    /// The seed's `_lint_cycles`: a self or mutual `depends_on` is
    /// `E_CYCLE` at `/steps` besides the step not yet available; a
    /// three-step cycle names the two steps of its back edge, as the seed.
    #[test]
    fn a_depends_on_cycle_is_reported_at_steps_with_the_seeds_names() {
        let step = |id: &str, deps: &[&str]| json!({"kind": "agent", "id": id, "agent": "a", "output_schema": {}, "depends_on": deps});
        let def = json!({"version": "1", "name": "c", "policy": {}, "steps": [step("a", &["b"]), step("b", &["a"])]});
        let found = codes(&def);
        assert!(
            found.contains(&("reference_cycle".into(), "/steps".into(), true)),
            "{found:?}"
        );
        assert!(found.contains(&("dependency_not_available".into(), "/steps/0/depends_on/0".into(), true)));
        let three = json!({"version": "1", "name": "c", "policy": {},
            "steps": [step("a", &["b"]), step("b", &["c"]), step("c", &["a"])]});
        let Err(diags) = check_with_warnings(&three.to_string()) else {
            panic!("a cycle is an error")
        };
        let cycle = diags.iter().find(|d| d.code == "reference_cycle").expect("the cycle");
        assert_eq!(cycle.message, "cyclic depends_on graph involving steps: [\"a\", \"c\"]");
        assert_eq!(
            depends_on_cycle(&json!([step("a", &["a"])])),
            Some(vec!["a".to_owned()])
        );
        assert_eq!(depends_on_cycle(&json!([step("a", &[]), step("b", &["a"])])), None);
    }

    /// The seed lints (policy, references, schemas' absence) only a
    /// definition whose structure is sound: with a structural error there
    /// are none of the lint's warnings; its errors are still reported.
    #[test]
    fn a_structural_error_leaves_out_the_lints_warnings() {
        let def = json!({"version": "1", "name": "s", "steps": [
            {"kind": "agent", "id": "a", "agent": "x", "input": {"v": "$ref:inputs.undeclared", "w": "$ref:nope.output"}, "title": 3}
        ]});
        let found = codes(&def);
        assert!(
            found.contains(&("invalid_field".into(), "/steps/0/title".into(), true)),
            "{found:?}"
        );
        assert!(
            found.contains(&("unresolved_ref".into(), "/steps/0/input/w".into(), true)),
            "{found:?}"
        );
        assert!(found.iter().all(|(_, _, error)| *error), "{found:?}");
        // Sound structure: the warnings are there.
        let sound = json!({"version": "1", "name": "s", "steps": [
            {"kind": "agent", "id": "a", "agent": "x", "input": {"v": "$ref:inputs.undeclared"}}
        ]});
        let found = codes(&sound);
        for (code, pointer) in [
            ("policy_default", "/policy"),
            ("no_output_schema", "/steps/0"),
            ("undeclared_input", "/steps/0/input/v"),
        ] {
            assert!(
                found.contains(&(code.into(), pointer.into(), false)),
                "{code}: {found:?}"
            );
        }
    }

    /// Forms whose diagnostics follow the seed's `validate_structure` and
    /// `policy_lint` (set 4 of the red team): `"policy": null` is no policy
    /// (a warning); a `type` key without `kind` points at `/kind`; a phase
    /// with no steps gets no check of its metadata; an `output_schema` that
    /// is not an object is a step error (`E_SCHEMA_STEP`); identifier-safe
    /// and `\w` are Python's `isalnum` (no combining vowel signs).
    #[test]
    fn seed_forms_of_set_four() {
        let agent = json!({"kind": "agent", "id": "a", "agent": "x", "output_schema": {}});
        let null_policy = json!({"version": "1", "name": "n", "policy": null, "steps": [agent]});
        assert_eq!(
            codes(&null_policy),
            vec![("policy_default".into(), "/policy".into(), false)]
        );
        let typed = json!({"version": "1", "name": "n", "policy": {}, "steps": [{"type": "agent", "id": "a"}]});
        assert_eq!(
            codes(&typed),
            vec![("kind_required".into(), "/steps/0/kind".into(), true)]
        );
        let phase = json!({"version": "1", "name": "n", "policy": {}, "steps": [
            {"kind": "phase", "id": "p", "label": 5, "steps": []},
            {"kind": "phase", "id": "q", "label": 5, "steps": [agent]}]});
        assert_eq!(
            codes(&phase),
            vec![
                ("missing_children".into(), "/steps/0/steps".into(), true),
                ("invalid_field".into(), "/steps/1/label".into(), true)
            ]
        );
        let schemas = json!({"version": "1", "name": "n", "policy": {}, "steps": [
            {"kind": "agent", "id": "a", "agent": "x", "output_schema": null},
            {"kind": "agent", "id": "b", "agent": "x", "output_schema": ["a"]}]});
        assert_eq!(
            codes(&schemas),
            vec![
                ("invalid_field".into(), "/steps/0/output_schema".into(), true),
                ("invalid_field".into(), "/steps/1/output_schema".into(), true)
            ]
        );
        assert!(!identifier_safe("नेपाल"));
        assert!(!identifier_safe("Ⓐgent"));
        assert!(identifier_safe("релиз_2024.v²"));
        let vowel_sign = json!({"version": "1", "name": "n", "policy": {}, "inputs": {"k_नेपाल": "string"},
            "steps": [{"kind": "agent", "id": "a", "agent": "x", "output_schema": {}, "input": {"k": "$ref:inputs.k_नेपाल"}}]});
        assert_eq!(
            codes(&vowel_sign),
            vec![("bad_ref".into(), "/steps/0/input/k".into(), true)]
        );
        // hwf escapes `/` and `~` in a key (RFC 6901); the seed writes it raw.
        let slash = json!({"version": "1", "name": "n", "policy": {},
            "steps": [{"kind": "agent", "id": "a", "agent": "x", "output_schema": {}, "input": {"a/b": {"x~y": "$ref:inputs.u"}}}]});
        assert_eq!(
            codes(&slash),
            vec![("undeclared_input".into(), "/steps/0/input/a~1b/x~0y".into(), false)]
        );
    }

    /// A definition may nest deeper than serde's 128 levels, as the seed
    /// reads it (300 nested pipelines, 600 levels); past [`MAX_DEPTH`] it is
    /// refused with a clear error, brackets inside strings not counted.
    #[test]
    fn deep_definitions_are_read_up_to_the_bound() {
        let mut inner = json!({"kind": "agent", "id": "leaf", "agent": "x", "output_schema": {}});
        for i in 0..300 {
            inner = json!({"kind": "pipeline", "id": format!("p{i}"), "steps": [inner]});
        }
        let def = json!({"version": "1", "name": "deep", "policy": {}, "steps": [inner]});
        assert!(check_with_warnings(&def.to_string()).is_ok());
        let text = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let Err(diags) = check_with_warnings(&text) else {
            panic!("too deep")
        };
        assert_eq!(diags[0].code, "invalid_json");
        assert!(diags[0].message.contains("at most 1000"), "{}", diags[0].message);
        let quoted = format!(
            r#"{{"version": "1", "name": "q", "policy": {{}}, "steps": [], "x": "{}"}}"#,
            "[".repeat(1100)
        );
        assert!(check_with_warnings(&quoted).is_ok());
    }
}
