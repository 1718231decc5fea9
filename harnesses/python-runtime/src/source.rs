//! Checking a Python workflow script without running it: the `meta = {…}`
//! literal first, then the constructs the seed refuses (each with its line),
//! then Monty's own compile step (which names syntax it does not support).

use hwf_guest::runtime::wit::{Diagnostic, Meta, PhaseInfo, Severity};
use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{Expr, Number, Operator, PythonVersion, Stmt, UnaryOp};
use ruff_python_parser::{Mode, ParseOptions, Parsed};
use ruff_text_size::{Ranged, TextSize};
use serde_json::{Map, Value};

/// Largest script accepted, in bytes (the host refuses larger files first).
const MAX_SOURCE_BYTES: usize = 1 << 20;

/// Builtins that are an escape hatch, reflection, I/O or a source of
/// nondeterminism (the seed's list). Monty lacks most of them; refusing them
/// by name gives a typed error with a line instead of a `NameError` later.
const FORBIDDEN_NAMES: &[&str] = &[
    "open",
    "eval",
    "exec",
    "compile",
    "__import__",
    "__builtins__",
    "globals",
    "locals",
    "vars",
    "getattr",
    "setattr",
    "delattr",
    "input",
    "breakpoint",
    "exit",
    "quit",
    "help",
    "dir",
    "memoryview",
    "super",
    "object",
    "type",
    "classmethod",
    "staticmethod",
    "property",
];

/// Modules whose import would read the clock or randomness.
const NONDETERMINISTIC_MODULES: &[&str] = &["time", "datetime", "random", "uuid", "secrets", "os", "sys"];

/// Non-dunder attribute prefixes that reach interpreter internals (frames,
/// code objects, coroutine and generator state, tracebacks).
const INTERNAL_ATTR_PREFIXES: &[&str] = &["gi_", "cr_", "ag_", "f_", "tb_", "co_", "func_"];

/// Where a construct is: a 1-based line of the script.
pub struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    /// Index the line starts of `src`.
    pub fn new(src: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        Self { starts }
    }

    /// The 1-based line of byte offset `at`.
    pub fn line(&self, at: TextSize) -> u32 {
        let at = at.to_usize();
        let idx = self.starts.partition_point(|&s| s <= at);
        u32::try_from(idx.max(1)).unwrap_or(u32::MAX)
    }

    /// How many lines the source has.
    pub fn count(&self) -> u32 {
        u32::try_from(self.starts.len()).unwrap_or(u32::MAX)
    }
}

fn diag(code: &str, message: impl Into<String>, line: Option<u32>) -> Diagnostic {
    Diagnostic {
        code: code.into(),
        severity: Severity::Error,
        message: message.into(),
        line,
        column: None,
        pointer: None,
    }
}

/// A Python literal as `ast.literal_eval` reads it (the seed reads `meta`
/// and a literal `schema=` that way): strings, bytes, numbers (a complex
/// one too), `True`/`False`/`None`, `...`, tuples, lists, sets (`set()`
/// too) and dicts of literals.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An `int` (its decimal digits when past `i64`).
    Int(Result<i64, String>),
    /// A `float`.
    Float(f64),
    /// A `complex` (`2j`, `1+2j`).
    Complex,
    /// A `str`.
    Str(String),
    /// A `bytes`.
    Bytes,
    /// `...`.
    Ellipsis,
    /// A `list`.
    List(Vec<Lit>),
    /// A `tuple`.
    Tuple(Vec<Lit>),
    /// A `set`.
    Set(Vec<Lit>),
    /// A `dict`, its items in order (a repeated key keeps its last value).
    Dict(Vec<(Lit, Lit)>),
}

impl Lit {
    /// Python's `type(x).__name__`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::None => "NoneType",
            Self::Bool(_) => "bool",
            Self::Int(_) => "int",
            Self::Float(_) => "float",
            Self::Complex => "complex",
            Self::Str(_) => "str",
            Self::Bytes => "bytes",
            Self::Ellipsis => "ellipsis",
            Self::List(_) => "list",
            Self::Tuple(_) => "tuple",
            Self::Set(_) => "set",
            Self::Dict(_) => "dict",
        }
    }

    /// The value of key `key` of a dict (the last one when repeated).
    pub fn get(&self, key: &str) -> Option<&Lit> {
        match self {
            Self::Dict(items) => items
                .iter()
                .rev()
                .find(|(k, _)| matches!(k, Self::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a `str`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The dict's items with each repeated key once, where it first
    /// appeared, holding its last value (as a Python dict display builds it).
    fn dict_items(items: &[(Lit, Lit)]) -> Vec<(&Lit, &Lit)> {
        let mut out: Vec<(&Lit, &Lit)> = Vec::new();
        for (k, v) in items {
            if let Some(slot) = out.iter_mut().find(|(seen, _)| *seen == k) {
                slot.1 = v;
            } else {
                out.push((k, v));
            }
        }
        out
    }

    /// As JSON, the way a value reaches the host (a tuple or a set as a
    /// list, a key as its `str()`; bytes, `...` and complex numbers, which
    /// JSON cannot hold, as `null`).
    pub fn to_json(&self) -> Value {
        match self {
            Self::None | Self::Bytes | Self::Ellipsis | Self::Complex => Value::Null,
            Self::Bool(b) => Value::Bool(*b),
            Self::Int(Ok(i)) => Value::from(*i),
            Self::Int(Err(digits)) => digits.parse::<f64>().map_or(Value::Null, Value::from),
            Self::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Self::Str(s) => Value::String(s.clone()),
            Self::List(xs) | Self::Tuple(xs) | Self::Set(xs) => Value::Array(xs.iter().map(Self::to_json).collect()),
            Self::Dict(items) => {
                let mut m = Map::new();
                for (k, v) in Self::dict_items(items) {
                    let key = match k {
                        Self::Str(s) => s.clone(),
                        other => other.repr(),
                    };
                    m.insert(key, v.to_json());
                }
                Value::Object(m)
            }
        }
    }

    /// The first value in this literal that Python's `json.dumps` refuses
    /// (a set, bytes, a complex number, `...`, or a dict key that is not a
    /// `str`, number, `bool` or `None`), by its type name.
    pub fn not_json(&self) -> Option<&'static str> {
        match self {
            Self::Set(_) | Self::Bytes | Self::Complex | Self::Ellipsis => Some(self.type_name()),
            Self::List(xs) | Self::Tuple(xs) => xs.iter().find_map(Self::not_json),
            Self::Dict(items) => Self::dict_items(items)
                .into_iter()
                .find_map(|(k, v)| k.not_json_key().or_else(|| v.not_json())),
            _ => None,
        }
    }

    /// The type name of a dict key `json.dumps` refuses (anything but a
    /// `str`, a number, a `bool` or `None`).
    fn not_json_key(&self) -> Option<&'static str> {
        match self {
            Self::Str(_) | Self::Int(_) | Self::Float(_) | Self::Bool(_) | Self::None => None,
            other => Some(other.type_name()),
        }
    }

    /// Python's `repr()` (for messages).
    pub fn repr(&self) -> String {
        fn seq(xs: &[Lit], open: &str, close: &str) -> String {
            let inner: Vec<String> = xs.iter().map(Lit::repr).collect();
            format!("{open}{}{close}", inner.join(", "))
        }
        match self {
            Self::None => "None".into(),
            Self::Bool(true) => "True".into(),
            Self::Bool(false) => "False".into(),
            Self::Int(Ok(i)) => i.to_string(),
            Self::Int(Err(digits)) => digits.clone(),
            Self::Float(f) => py_float_repr(*f),
            Self::Complex => "complex(...)".into(),
            Self::Str(s) => py_str_repr(s),
            Self::Bytes => "b'...'".into(),
            Self::Ellipsis => "Ellipsis".into(),
            Self::List(xs) => seq(xs, "[", "]"),
            Self::Tuple(xs) if xs.len() == 1 => seq(xs, "(", ",)"),
            Self::Tuple(xs) => seq(xs, "(", ")"),
            Self::Set(xs) if xs.is_empty() => "set()".into(),
            Self::Set(xs) => seq(xs, "{", "}"),
            Self::Dict(items) => {
                let inner: Vec<String> = Self::dict_items(items)
                    .into_iter()
                    .map(|(k, v)| format!("{}: {}", k.repr(), v.repr()))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
        }
    }
}

/// Python's `repr()` of a `str` ([`hwf_guest::runtime::python::repr_str`]).
pub(crate) use hwf_guest::runtime::python::repr_str as py_str_repr;

/// Python's `repr()` of a `float` (close enough for messages).
fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf".into() } else { "-inf".into() }
    } else if f.fract() == 0.0 && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f:?}")
    }
}

/// A number as `ast.literal_eval`'s `_convert_num` reads it.
fn number(n: &Number) -> Lit {
    match n {
        Number::Int(i) => Lit::Int(i.as_i64().ok_or_else(|| i.to_string())),
        Number::Float(f) => Lit::Float(*f),
        Number::Complex { .. } => Lit::Complex,
    }
}

/// `+n` / `-n` of a number literal (`_convert_signed_num`).
fn signed_number(e: &Expr) -> Option<Lit> {
    match e {
        Expr::NumberLiteral(n) => Some(number(&n.value)),
        Expr::UnaryOp(u) if matches!(u.op, UnaryOp::USub | UnaryOp::UAdd) => {
            let Expr::NumberLiteral(n) = &*u.operand else {
                return None;
            };
            let value = number(&n.value);
            if matches!(u.op, UnaryOp::UAdd) {
                return Some(value);
            }
            Some(match value {
                Lit::Int(Ok(i)) => Lit::Int(i.checked_neg().ok_or_else(|| format!("-{i}"))),
                Lit::Int(Err(digits)) => Lit::Int(Err(format!("-{digits}"))),
                Lit::Float(f) => Lit::Float(-f),
                other => other,
            })
        }
        _ => None,
    }
}

/// A pure literal, as `ast.literal_eval` accepts it; anything else names
/// what it found.
pub fn literal(e: &Expr) -> Result<Lit, String> {
    let all = |xs: &[Expr]| xs.iter().map(literal).collect::<Result<Vec<_>, _>>();
    Ok(match e {
        Expr::Dict(d) => {
            let mut items = Vec::with_capacity(d.items.len());
            for item in &d.items {
                let Some(key) = &item.key else {
                    return Err("a ** expansion".into());
                };
                items.push((literal(key)?, literal(&item.value)?));
            }
            Lit::Dict(items)
        }
        Expr::List(l) => Lit::List(all(&l.elts)?),
        Expr::Tuple(t) => Lit::Tuple(all(&t.elts)?),
        Expr::Set(s) => Lit::Set(all(&s.elts)?),
        // `set()`: the one call `literal_eval` allows.
        Expr::Call(c)
            if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "set")
                && c.arguments.args.is_empty()
                && c.arguments.keywords.is_empty() =>
        {
            Lit::Set(Vec::new())
        }
        Expr::StringLiteral(s) => Lit::Str(s.value.to_str().to_owned()),
        Expr::BytesLiteral(_) => Lit::Bytes,
        Expr::BooleanLiteral(b) => Lit::Bool(b.value),
        Expr::NoneLiteral(_) => Lit::None,
        Expr::EllipsisLiteral(_) => Lit::Ellipsis,
        Expr::NumberLiteral(n) => number(&n.value),
        Expr::UnaryOp(u) if matches!(u.op, UnaryOp::USub | UnaryOp::UAdd) => {
            signed_number(e).ok_or_else(|| String::from("an operator"))?
        }
        // `1+2j`, `-1.5-2j`: a real number plus or minus an imaginary one.
        Expr::BinOp(b) if matches!(b.op, Operator::Add | Operator::Sub) => {
            let left = signed_number(&b.left);
            let right = match &*b.right {
                Expr::NumberLiteral(n) => Some(number(&n.value)),
                _ => None,
            };
            match (left, right) {
                (Some(Lit::Int(_) | Lit::Float(_)), Some(Lit::Complex)) => Lit::Complex,
                _ => return Err("an operator".into()),
            }
        }
        Expr::Name(n) => return Err(format!("the name {}", n.id)),
        Expr::Call(_) => return Err("a call".into()),
        Expr::FString(_) => return Err("an f-string".into()),
        _ => return Err("an expression that is not a literal".into()),
    })
}

// ---- the seed's schema subset (`hermes_workflows.schema_subset`) --------

/// `type` words of the seed's schema subset, sorted as its messages list them.
const SUBSET_TYPES: &[&str] = &["array", "boolean", "integer", "null", "number", "object", "string"];

/// Every keyword the seed's schema subset knows; any other is refused.
const SUBSET_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "enum",
    "additionalProperties",
];

/// Keywords whose presence at a root without `type` marks a subset schema.
const SUBSET_STRUCTURAL: &[&str] = &["properties", "items", "enum", "additionalProperties"];

/// Type words of the flat `{field: type}` form and their subset types (the
/// seed's `_LEGACY_TYPE_ALIASES`, matched lowercased); any other word leaves
/// the field unchecked.
const LEGACY_ALIASES: &[(&str, &str)] = &[
    ("string", "string"),
    ("str", "string"),
    ("number", "number"),
    ("float", "number"),
    ("int", "integer"),
    ("integer", "integer"),
    ("bool", "boolean"),
    ("boolean", "boolean"),
    ("object", "object"),
    ("dict", "object"),
    ("list", "array"),
    ("array", "array"),
];

impl Lit {
    /// A JSON value as a literal (objects as dicts, arrays as lists): a
    /// schema built at run time, for [`seed_schema`].
    pub fn from_json(v: &Value) -> Self {
        match v {
            Value::Null => Self::None,
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => n
                .as_i64()
                .map(|i| Self::Int(Ok(i)))
                .or_else(|| n.as_f64().map(Self::Float))
                .unwrap_or_else(|| Self::Int(Err(n.to_string()))),
            Value::String(s) => Self::Str(s.clone()),
            Value::Array(xs) => Self::List(xs.iter().map(Self::from_json).collect()),
            Value::Object(m) => Self::Dict(
                m.iter()
                    .map(|(k, v)| (Self::Str(k.clone()), Self::from_json(v)))
                    .collect(),
            ),
        }
    }
}

/// Whether a dict reads as a subset schema rather than the flat form
/// (`_is_declared_subset`): it has a `type` key, or only subset keywords
/// with a structural one or a list-valued `required`.
fn is_declared_subset(schema: &Lit) -> bool {
    let Lit::Dict(items) = schema else { return false };
    if schema.get("type").is_some() {
        return true;
    }
    let only_keywords = items
        .iter()
        .all(|(k, _)| k.as_str().is_some_and(|k| SUBSET_KEYWORDS.contains(&k)));
    only_keywords
        && (SUBSET_STRUCTURAL.iter().any(|k| schema.get(k).is_some())
            || matches!(schema.get("required"), Some(Lit::List(_))))
}

/// One subset schema node, checked and normalized (`_normalize_subset_node`).
fn subset_node(node: &Lit, path: &str) -> Result<Value, String> {
    let Lit::Dict(items) = node else {
        return Err(format!(
            "schema{path}: subschema must be an object, got {}",
            node.type_name()
        ));
    };
    let mut unknown: Vec<String> = Lit::dict_items(items)
        .into_iter()
        .filter(|(k, _)| !k.as_str().is_some_and(|k| SUBSET_KEYWORDS.contains(&k)))
        .map(|(k, _)| k.repr())
        .collect();
    if !unknown.is_empty() {
        unknown.sort();
        return Err(format!(
            "schema{path}: unsupported schema keyword(s) [{}]",
            unknown.join(", ")
        ));
    }
    let mut out = Map::new();
    if let Some(t) = node.get("type") {
        match t.as_str() {
            Some(word) if SUBSET_TYPES.contains(&word) => {
                out.insert("type".into(), Value::String(word.into()));
            }
            _ => {
                let words: Vec<String> = SUBSET_TYPES.iter().map(|w| format!("'{w}'")).collect();
                return Err(format!(
                    "schema{path}/type: must be one of [{}], got {}",
                    words.join(", "),
                    t.repr()
                ));
            }
        }
    }
    if let Some(required) = node.get("required") {
        let names = match required {
            Lit::List(xs) => xs.iter().map(Lit::as_str).collect::<Option<Vec<_>>>(),
            _ => None,
        };
        let Some(names) = names else {
            return Err(format!("schema{path}/required: must be a list of strings"));
        };
        out.insert("required".into(), Value::from(names));
    }
    if let Some(properties) = node.get("properties") {
        let Lit::Dict(props) = properties else {
            return Err(format!(
                "schema{path}/properties: must be an object keyed by property name"
            ));
        };
        let mut m = Map::new();
        for (k, sub) in Lit::dict_items(props) {
            let Some(name) = k.as_str() else {
                return Err(format!(
                    "schema{path}/properties: must be an object keyed by property name"
                ));
            };
            m.insert(name.into(), subset_node(sub, &format!("{path}/properties/{name}"))?);
        }
        out.insert("properties".into(), Value::Object(m));
    }
    if let Some(sub) = node.get("items") {
        out.insert("items".into(), subset_node(sub, &format!("{path}/items"))?);
    }
    if let Some(values) = node.get("enum") {
        match values {
            Lit::List(xs) if !xs.is_empty() => {
                out.insert("enum".into(), values.to_json());
            }
            _ => return Err(format!("schema{path}/enum: must be a non-empty list")),
        }
    }
    if let Some(extra) = node.get("additionalProperties") {
        let Lit::Bool(b) = extra else {
            return Err(format!("schema{path}/additionalProperties: must be a boolean"));
        };
        out.insert("additionalProperties".into(), Value::Bool(*b));
    }
    Ok(Value::Object(out))
}

/// The seed's reading of an agent `schema` (`schema_subset.normalize_schema`):
/// `None` when nothing is declared (`None`, an empty dict, or anything that
/// is not a dict), else a JSON Schema. A flat `{field: type}` dict requires
/// every field and checks the type words it knows (`str`, `int`, `list`, …;
/// any other word leaves the field unchecked); any other dict must use only
/// the subset's keywords. `Err` says what is malformed, as the seed does.
pub fn seed_schema(schema: &Lit) -> Result<Option<Value>, String> {
    let Lit::Dict(items) = schema else { return Ok(None) };
    if items.is_empty() {
        return Ok(None);
    }
    if is_declared_subset(schema) {
        return subset_node(schema, "").map(Some);
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (field, hint) in Lit::dict_items(items) {
        let Some(name) = field.as_str() else {
            return Err(format!(
                "schema: legacy field name must be a string, got {}",
                field.repr()
            ));
        };
        let known = hint.as_str().and_then(|h| {
            let h = h.to_lowercase();
            LEGACY_ALIASES.iter().find(|(alias, _)| *alias == h).map(|(_, t)| *t)
        });
        let sub = known.map_or_else(|| Value::Object(Map::new()), |t| serde_json::json!({ "type": t }));
        properties.insert(name.into(), sub);
        required.push(Value::String(name.into()));
    }
    Ok(Some(serde_json::json!({
        "type": "object",
        "properties": properties,
        "required": required,
    })))
}

/// The seed's `agent(target, opts)` rule for the second argument: it is an
/// options dict unless `target` is a legacy `hermes.x` / `kanban.x` id.
fn is_legacy_agent_id(target: &str) -> bool {
    (target.starts_with("hermes.") || target.starts_with("kanban."))
        && target.split_once('.').is_some_and(|(_, rest)| !rest.is_empty())
        && !target.chars().any(char::is_whitespace)
}

fn is_dunder(name: &str) -> bool {
    name.len() >= 4 && name.starts_with("__") && name.ends_with("__")
}

/// The refusal walk over every statement and expression.
struct Refusals<'a> {
    lines: &'a Lines,
    diags: Vec<Diagnostic>,
}

impl Refusals<'_> {
    fn push(&mut self, code: &str, message: String, at: TextSize) {
        let line = self.lines.line(at);
        self.diags.push(diag(code, message, Some(line)));
    }

    fn name(&mut self, name: &str, at: TextSize) {
        if name == "print" {
            self.push(
                "print_not_allowed",
                "print() is not available in workflow scripts; use log(message), which goes to the run log".into(),
                at,
            );
        } else if is_dunder(name) {
            self.push(
                "dunder_not_allowed",
                format!("the dunder name {name:?} is not allowed"),
                at,
            );
        } else if FORBIDDEN_NAMES.contains(&name) {
            self.push(
                "forbidden_name",
                format!("{name:?} is not allowed in a workflow script (reflection, I/O or dynamic code)"),
                at,
            );
        }
    }

    /// A literal `schema=` of `agent`, `kanban_agent` or `capability` (or
    /// the `schema` of a literal options dict, `agent("prompt", {...})`),
    /// checked as the seed checks it before a run: its schema subset, and
    /// only the flat form for `kanban_agent`. A schema built at run time is
    /// checked when the call is made.
    fn schema_literal(&mut self, call: &ruff_python_ast::ExprCall) {
        let Expr::Name(f) = &*call.func else { return };
        let callee = f.id.as_str();
        if !matches!(callee, "agent" | "kanban_agent" | "capability") {
            return;
        }
        let mut schemas: Vec<Lit> = call
            .arguments
            .keywords
            .iter()
            .filter(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "schema"))
            .filter_map(|k| literal(&k.value).ok())
            .collect();
        // The options-dict form: agent("prompt", {"schema": ...}), when the
        // whole dict is a literal.
        if callee == "agent"
            && let (Some(Expr::StringLiteral(target)), Some(opts)) =
                (call.arguments.args.first(), call.arguments.args.get(1))
            && !is_legacy_agent_id(target.value.to_str())
            && let Ok(opts @ Lit::Dict(_)) = literal(opts)
            && let Some(schema) = opts.get("schema")
        {
            schemas.push(schema.clone());
        }
        for schema in schemas {
            let problem = if callee == "kanban_agent" && is_declared_subset(&schema) {
                Some(
                    "kanban_agent only takes the flat {field: type} form (its result is checked field by field); \
                     a JSON-Schema-shaped root such as {'type': 'object', 'properties': {...}} would be read as \
                     required fields named 'type' and 'properties'"
                        .to_owned(),
                )
            } else {
                seed_schema(&schema).err()
            };
            if let Some(problem) = problem {
                self.push(
                    "invalid_schema",
                    format!("{callee}(): invalid schema: {problem}"),
                    call.start(),
                );
            }
        }
    }
}

impl<'a> Visitor<'a> for Refusals<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Import(i) => {
                let names: Vec<&str> = i.names.iter().map(|a| a.name.as_str()).collect();
                self.import(&names, stmt.start());
            }
            Stmt::ImportFrom(i) => {
                let module = i.module.as_ref().map_or("", |m| m.as_str());
                self.import(&[module], stmt.start());
            }
            Stmt::ClassDef(_) => self.push(
                "class_not_allowed",
                "class definitions are not allowed in workflow scripts".into(),
                stmt.start(),
            ),
            Stmt::Global(_) | Stmt::Nonlocal(_) => self.push(
                "scope_not_allowed",
                "'global' and 'nonlocal' are not allowed in workflow scripts".into(),
                stmt.start(),
            ),
            Stmt::FunctionDef(f) if is_dunder(f.name.as_str()) => self.push(
                "dunder_not_allowed",
                format!("the dunder function name {:?} is not allowed", f.name.as_str()),
                stmt.start(),
            ),
            _ => {}
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) => self.name(n.id.as_str(), expr.start()),
            Expr::Attribute(a) => {
                let attr = a.attr.as_str();
                if is_dunder(attr) {
                    self.push(
                        "dunder_not_allowed",
                        format!("the dunder attribute .{attr} is not allowed (an escape route)"),
                        expr.start(),
                    );
                } else if attr == "mro" || INTERNAL_ATTR_PREFIXES.iter().any(|p| attr.starts_with(p)) {
                    self.push(
                        "internal_attribute",
                        format!("the internal attribute .{attr} is not allowed (frame, code or coroutine state)"),
                        expr.start(),
                    );
                } else if attr == "format" || attr == "format_map" {
                    self.push(
                        "forbidden_name",
                        format!(".{attr}() is not allowed (its template reaches attributes); use an f-string"),
                        expr.start(),
                    );
                }
            }
            Expr::Call(c) => self.schema_literal(c),
            _ => {}
        }
        walk_expr(self, expr);
    }
}

impl Refusals<'_> {
    fn import(&mut self, modules: &[&str], at: TextSize) {
        let first = modules.first().copied().unwrap_or("");
        let root = first.split('.').next().unwrap_or("");
        let why = if NONDETERMINISTIC_MODULES.contains(&root) {
            " (clock, randomness and the OS would break replay or escape the sandbox)"
        } else {
            ""
        };
        self.push(
            "import_not_allowed",
            format!(
                "import {first:?} is not allowed: workflow scripts get agent, capability, parallel, pipeline, phase, log, \
                 workflow, budget, args, json, math and asyncio (gather) as globals{why}"
            ),
            at,
        );
    }
}

/// A parsed script: its meta and the errors found.
pub struct Checked {
    /// The meta literal, when it could be read.
    pub meta: Option<Lit>,
    /// The line of the `meta =` statement.
    pub meta_line: u32,
    /// Every error found.
    pub diags: Vec<Diagnostic>,
    /// The script's line index.
    pub lines: Lines,
    /// Why the seed's run of this script fails before its first line
    /// although its validator accepts it: the seed's guest sends `meta` to
    /// its parent as JSON, and a set, bytes, a complex number or `...` in it
    /// ends the run (`subprocess exited without a result`). For `run`, not
    /// for `validate` (the seed's validator accepts such a meta).
    pub run_refusal: Option<Diagnostic>,
}

/// The first entry of a meta dict that `json.dumps` refuses, named:
/// `meta["tags"] holds a set` (the value, or a value inside it), or
/// `meta has a tuple key (1, 2)`.
fn meta_not_json(meta: &Lit) -> Option<String> {
    let Lit::Dict(items) = meta else { return None };
    Lit::dict_items(items)
        .into_iter()
        .find_map(|(k, v)| match k.not_json_key() {
            Some(kind) => Some(format!("meta has a {kind} key {}", k.repr())),
            None => v.not_json().map(|kind| format!("meta[{}] holds a {kind}", k.repr())),
        })
}

/// Check `src` statically (no Monty compile).
pub fn analyse(src: &str) -> Checked {
    let lines = Lines::new(src);
    let mut out = Checked {
        meta: None,
        meta_line: 1,
        diags: Vec::new(),
        lines,
        run_refusal: None,
    };
    if src.len() > MAX_SOURCE_BYTES {
        out.diags.push(diag(
            "script_too_large",
            format!("the script is {} bytes; at most {MAX_SOURCE_BYTES}", src.len()),
            None,
        ));
        return out;
    }
    // Parsed as CPython 3.11 reads it, the Python the seed runs: syntax a
    // later Python added (an f-string reusing its quotes, `f"{d["k"]}"`, a
    // backslash or comment in a replacement field, `type X = …`, generic
    // parameter lists) is the seed's `SyntaxError`, refused here too.
    let options = ParseOptions::from(Mode::Module).with_target_version(PythonVersion::PY311);
    let parsed = match ruff_python_parser::parse(src, options).map(Parsed::try_into_module) {
        Ok(Some(p)) => p,
        Ok(None) => {
            out.diags
                .push(diag("syntax_error", "syntax error: not a module", Some(1)));
            return out;
        }
        Err(e) => {
            let line = out.lines.line(e.location.start());
            out.diags
                .push(diag("syntax_error", format!("syntax error: {}", e.error), Some(line)));
            return out;
        }
    };
    if let Some(e) = parsed.unsupported_syntax_errors().first() {
        let line = out.lines.line(e.range.start());
        out.diags
            .push(diag("syntax_error", format!("syntax error: {e}"), Some(line)));
        return out;
    }
    let body = &parsed.syntax().body;
    let Some(first) = body.first() else {
        out.diags.push(diag(
            "meta_not_first",
            "the script is empty; it must start with meta = {\"name\": ..., \"description\": ...}",
            Some(1),
        ));
        return out;
    };
    let first_line = out.lines.line(first.start());
    out.meta_line = first_line;
    match first {
        Stmt::Assign(a)
            if a.targets.len() == 1 && matches!(&a.targets[0], Expr::Name(n) if n.id.as_str() == "meta") =>
        {
            match literal(&a.value) {
                Ok(v @ Lit::Dict(_)) => {
                    out.run_refusal = meta_not_json(&v).map(|what| {
                        diag(
                            "meta_not_json",
                            format!(
                                "{what}, which the seed's runtime cannot send as JSON: the seed accepts the \
                                 script but its run fails before the first line; use a list, a str or a number"
                            ),
                            Some(first_line),
                        )
                    });
                    out.meta = Some(v);
                }
                Ok(_) => out.diags.push(diag(
                    "meta_not_literal",
                    "meta must be a dict literal",
                    Some(first_line),
                )),
                Err(what) => out.diags.push(diag(
                    "meta_not_literal",
                    format!("meta must be a pure literal, but it contains {what}"),
                    Some(first_line),
                )),
            }
        }
        _ => out.diags.push(diag(
            "meta_not_first",
            "the first statement must be meta = {\"name\": ..., \"description\": ...}",
            Some(first_line),
        )),
    }
    let mut walk = Refusals {
        lines: &out.lines,
        diags: Vec::new(),
    };
    for stmt in body {
        walk.visit_stmt(stmt);
    }
    let found = walk.diags;
    out.diags.extend(found);
    out
}

/// A `str` that is not blank, trimmed (the seed's `_nonempty_str`).
fn nonempty(v: Option<&Lit>) -> Option<&str> {
    v.and_then(Lit::as_str).map(str::trim).filter(|s| !s.is_empty())
}

/// `meta["phases"]` as the seed reads it (`_validate_meta_phases`): a list
/// of titles or of `{"title", "detail"?, "id"?}` dicts, where a `detail` or
/// an `id` that is present must be a non-empty string.
fn phases_of(phases: &Lit, line: Option<u32>, diags: &mut Vec<Diagnostic>) -> Vec<PhaseInfo> {
    let mut out = Vec::new();
    let Lit::List(items) = phases else {
        diags.push(diag(
            "invalid_phase",
            format!(
                "meta[\"phases\"] must be a literal list of titles or {{\"title\", \"detail\"?, \"id\"?}} dicts, not a {}",
                phases.type_name()
            ),
            line,
        ));
        return out;
    };
    for (i, p) in items.iter().enumerate() {
        let problem = match p {
            Lit::Str(_) => match nonempty(Some(p)) {
                Some(title) => {
                    out.push(PhaseInfo {
                        title: title.into(),
                        detail: None,
                    });
                    continue;
                }
                None => "must have a non-empty title".to_owned(),
            },
            Lit::Dict(_) => {
                let field_problem = |key: &str| {
                    p.get(key)
                        .filter(|v| nonempty(Some(v)).is_none())
                        .map(|_| format!("[\"{key}\"] must be a non-empty string when present"))
                };
                match nonempty(p.get("title")) {
                    None => "[\"title\"] must be a non-empty string".to_owned(),
                    Some(title) => match field_problem("detail").or_else(|| field_problem("id")) {
                        Some(problem) => problem,
                        None => {
                            out.push(PhaseInfo {
                                title: title.into(),
                                detail: nonempty(p.get("detail")).map(Into::into),
                            });
                            continue;
                        }
                    },
                }
            }
            other => format!(
                "must be a title or a {{\"title\", \"detail\"?, \"id\"?}} dict, not a {}",
                other.type_name()
            ),
        };
        diags.push(diag(
            "invalid_phase",
            format!(
                "meta[\"phases\"][{i}]{}{problem}",
                if problem.starts_with('[') { "" } else { " " }
            ),
            line,
        ));
    }
    out
}

/// The WIT meta of a meta literal, or what is wrong with it.
pub fn meta_of(meta: &Lit, line: Option<u32>) -> Result<Meta, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let name = nonempty(meta.get("name"));
    let description = nonempty(meta.get("description"));
    if name.is_none() {
        diags.push(diag(
            "missing_name",
            "meta[\"name\"] (a non-empty string) is required",
            line,
        ));
    }
    if description.is_none() {
        diags.push(diag(
            "missing_description",
            "meta[\"description\"] (a non-empty string) is required",
            line,
        ));
    }
    let phases = meta
        .get("phases")
        .map(|p| phases_of(p, line, &mut diags))
        .unwrap_or_default();
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(Meta {
        name: name.unwrap_or("").into(),
        description: description.unwrap_or("").into(),
        when_to_use: nonempty(meta.get("when_to_use").or_else(|| meta.get("whenToUse"))).map(Into::into),
        phases,
        args_schema: meta
            .get("args_schema")
            .or_else(|| meta.get("argsSchema"))
            .filter(|v| **v != Lit::None)
            .map(|v| v.to_json().to_string()),
    })
}

/// `check(source)`: the meta, or every problem found (static refusals, then
/// what Monty's compiler does not support).
pub fn check(src: &str) -> Result<Meta, Vec<Diagnostic>> {
    let checked = analyse(src);
    let mut diags = checked.diags;
    let meta = match &checked.meta {
        Some(m) => match meta_of(m, Some(checked.meta_line)) {
            Ok(meta) => Some(meta),
            Err(d) => {
                diags.extend(d);
                None
            }
        },
        None => None,
    };
    if diags.is_empty()
        && let Err(d) = crate::engine::compile(src)
    {
        diags.push(d);
    }
    match meta {
        Some(meta) if diags.is_empty() => Ok(meta),
        _ => Err(diags),
    }
}

/// The first error of `src` as `invalid_script: <code>: <message> (line N)`.
pub fn first_error(diags: &[Diagnostic]) -> String {
    diags.first().map_or_else(
        || "invalid_script: the script is invalid".to_owned(),
        |d| {
            format!(
                "invalid_script: {}: {}{}",
                d.code,
                d.message,
                d.line.map(|l| format!(" (line {l})")).unwrap_or_default()
            )
        },
    )
}

/// `diag` for the engine.
pub fn error(code: &str, message: impl Into<String>, line: Option<u32>) -> Diagnostic {
    diag(code, message, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: &str = "meta = {\"name\": \"v\", \"description\": \"d\"}\n";

    fn codes(src: &str) -> Vec<String> {
        let checked = analyse(src);
        let mut out: Vec<String> = checked.diags.iter().map(|d| d.code.clone()).collect();
        if let Some(meta) = &checked.meta
            && let Err(d) = meta_of(meta, Some(1))
        {
            out.extend(d.into_iter().map(|d| d.code));
        }
        out
    }

    #[test]
    fn meta_takes_what_literal_eval_takes() {
        for value in [
            "{\"a\"}", "set()", "b\"x\"", "2j", "1+2j", "-1.5-2j", "...", "-1", "+1", "(1, 2)", "{1: 2}", "10**0",
        ] {
            let src = format!("meta = {{\"name\": \"v\", \"description\": \"d\", \"x\": {value}}}\nreturn 1\n");
            let want: &[&str] = if value == "10**0" { &["meta_not_literal"] } else { &[] };
            assert_eq!(codes(&src), want, "{value}");
        }
        for value in ["-True", "-(-1)", "1+2", "2j+1", "f\"x\"", "set([1])", "{**{}}"] {
            let src = format!("meta = {{\"name\": \"v\", \"description\": \"d\", \"x\": {value}}}\nreturn 1\n");
            assert_eq!(codes(&src), ["meta_not_literal"], "{value}");
        }
    }

    #[test]
    fn a_meta_json_cannot_hold_is_refused_for_a_run_only() {
        let src = "meta = {\"name\": \"v\", \"description\": \"d\", \"t\": [{\"a\"}]}\nreturn 1\n";
        let checked = analyse(src);
        assert!(checked.diags.is_empty());
        let refusal = checked.run_refusal.expect("refused for a run");
        assert_eq!(refusal.code, "meta_not_json");
        assert!(
            refusal.message.starts_with("meta['t'] holds a set,"),
            "{}",
            refusal.message
        );
        let src = "meta = {\"name\": \"v\", \"description\": \"d\", (1, 2): 3, \"b\": b\"x\"}\nreturn 1\n";
        let refusal = analyse(src).run_refusal.expect("refused for a run");
        assert!(
            refusal.message.starts_with("meta has a tuple key (1, 2),"),
            "{}",
            refusal.message
        );
        // A repeated key holds its last value, as the dict display builds it.
        let src = "meta = {\"name\": \"v\", \"description\": \"d\", \"t\": ..., \"t\": 1}\nreturn 1\n";
        assert!(analyse(src).run_refusal.is_none());
        for ok in ["{1: 2, None: 3, (1, 2): 4}", "(1, 2)"] {
            let src = format!("meta = {{\"name\": \"v\", \"description\": \"d\", \"t\": {ok}}}\nreturn 1\n");
            let want = if ok.contains("(1, 2):") { Some("tuple") } else { None };
            assert_eq!(
                analyse(&src)
                    .run_refusal
                    .map(|d| d.message.contains(want.unwrap_or("-"))),
                want.map(|_| true),
                "{ok}"
            );
        }
    }

    #[test]
    fn meta_phases_follow_the_seed() {
        for (phases, ok) in [
            ("[\"a\", {\"title\": \"b\", \"detail\": \"x\", \"id\": \"p\"}]", true),
            ("(\"a\", \"b\")", false),
            ("None", false),
            ("[{\"title\": \"a\", \"id\": \"\"}]", false),
            ("[{\"title\": \"a\", \"detail\": 3}]", false),
            ("[{\"title\": \"a\", \"detail\": None}]", false),
            ("[\" \"]", false),
            ("[3]", false),
        ] {
            let src = format!("meta = {{\"name\": \"v\", \"description\": \"d\", \"phases\": {phases}}}\nreturn 1\n");
            let got = codes(&src);
            if ok {
                assert!(got.is_empty(), "{phases}: {got:?}");
            } else {
                assert_eq!(got, ["invalid_phase"], "{phases}");
            }
        }
        let checked = analyse(
            "meta = {\"name\": \"v\", \"description\": \"d\", \"phases\": [{\"title\": \"a\", \"detail\": 3}]}\n",
        );
        let d = meta_of(checked.meta.as_ref().expect("meta"), Some(1)).expect_err("refused");
        assert_eq!(
            d[0].message,
            "meta[\"phases\"][0][\"detail\"] must be a non-empty string when present"
        );
    }

    #[test]
    fn literal_schemas_are_checked_as_the_seed_checks_them() {
        let accepted = [
            "agent(\"p\", schema=\"object\")",
            "agent(\"p\", schema=[\"a\"])",
            "agent(\"p\", schema={\"a\": \"strang\"})",
            "agent(\"p\", schema={\"type\": \"array\", \"items\": {\"type\": \"string\"}})",
            "agent(\"p\", schema={})",
            "agent(\"p\", schema={\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"null\"}}})",
            "kanban_agent(\"ops\", schema={\"done\": \"bool\"})",
            "agent(\"hermes.x\", {\"schema\": {\"type\": \"objekt\"}})",
        ];
        for call in accepted {
            assert_eq!(
                codes(&format!("{M}r = await {call}\nreturn r\n")),
                Vec::<String>::new(),
                "{call}"
            );
        }
        let refused = [
            (
                "agent(\"p\", schema={\"type\": \"object\", \"minProperties\": 1})",
                "agent(): invalid schema: schema: unsupported schema keyword(s) ['minProperties']",
            ),
            (
                "agent(\"p\", schema={\"type\": \"object\", \"description\": \"x\"})",
                "agent(): invalid schema: schema: unsupported schema keyword(s) ['description']",
            ),
            (
                "agent(\"p\", schema={\"type\": \"object\", \"properties\": {\"a\": {\"enum\": []}}})",
                "agent(): invalid schema: schema/properties/a/enum: must be a non-empty list",
            ),
            (
                "agent(\"p\", schema={\"type\": \"object\", \"additionalProperties\": {\"type\": \"string\"}})",
                "agent(): invalid schema: schema/additionalProperties: must be a boolean",
            ),
            (
                "agent(\"p\", schema={\"type\": \"object\", \"properties\": {\"a\": {\"type\": [\"string\", \"null\"]}}})",
                "agent(): invalid schema: schema/properties/a/type: must be one of ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'], got ['string', 'null']",
            ),
            (
                "agent(\"p\", {\"schema\": {\"type\": \"objekt\"}})",
                "agent(): invalid schema: schema/type: must be one of ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'], got 'objekt'",
            ),
            (
                "capability(\"x\", schema={\"type\": \"object\", \"required\": \"a\"})",
                "capability(): invalid schema: schema/required: must be a list of strings",
            ),
            (
                "agent(\"p\", schema={\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"array\", \"items\": \"x\"}}})",
                "agent(): invalid schema: schema/properties/a/items: subschema must be an object, got str",
            ),
        ];
        for (call, message) in refused {
            let checked = analyse(&format!("{M}\nr = await {call}\nreturn r\n"));
            assert_eq!(checked.diags.len(), 1, "{call}");
            assert_eq!(checked.diags[0].code, "invalid_schema");
            assert_eq!(checked.diags[0].message, message);
            assert_eq!(checked.diags[0].line, Some(3), "{call}");
        }
        let checked = analyse(&format!(
            "{M}r = await kanban_agent(\"ops\", schema={{\"type\": \"object\", \"properties\": {{}}}})\n"
        ));
        assert_eq!(checked.diags.len(), 1);
        assert!(
            checked.diags[0]
                .message
                .starts_with("kanban_agent(): invalid schema: kanban_agent only takes the flat")
        );
    }

    #[test]
    fn seed_schema_normalizes_the_flat_form() {
        let flat = Lit::from_json(&serde_json::json!({"a": "strang", "b": "INT", "c": "list"}));
        assert_eq!(
            seed_schema(&flat),
            Ok(Some(serde_json::json!({
                "type": "object",
                "properties": {"a": {}, "b": {"type": "integer"}, "c": {"type": "array"}},
                "required": ["a", "b", "c"],
            })))
        );
        assert_eq!(seed_schema(&Lit::Str("object".into())), Ok(None));
        assert_eq!(seed_schema(&Lit::from_json(&serde_json::json!({}))), Ok(None));
        let subset = Lit::from_json(&serde_json::json!({"properties": {"a": {"type": "string"}}, "required": ["a"]}));
        assert_eq!(
            seed_schema(&subset),
            Ok(Some(
                serde_json::json!({"properties": {"a": {"type": "string"}}, "required": ["a"]})
            ))
        );
    }
}
