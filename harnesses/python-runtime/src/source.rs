//! Checking a Python workflow script without running it: the `meta = {…}`
//! literal first, then the constructs the seed refuses (each with its line),
//! then Monty's own compile step (which names syntax it does not support).

use hwf_guest::runtime::wit::{Diagnostic, Meta, PhaseInfo, Severity};
use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{Expr, Number, PythonVersion, Stmt, UnaryOp};
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
    "id",
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

/// A pure literal as JSON (dicts, lists, tuples, strings, numbers, booleans,
/// `None`); anything else names what it found.
pub fn literal(e: &Expr) -> Result<Value, String> {
    Ok(match e {
        Expr::Dict(d) => {
            let mut m = Map::new();
            for item in &d.items {
                let Some(key) = &item.key else {
                    return Err("a ** expansion".into());
                };
                let Expr::StringLiteral(k) = key else {
                    return Err("a key that is not a string".into());
                };
                m.insert(k.value.to_str().to_owned(), literal(&item.value)?);
            }
            Value::Object(m)
        }
        Expr::List(l) => Value::Array(l.elts.iter().map(literal).collect::<Result<_, _>>()?),
        Expr::Tuple(t) => Value::Array(t.elts.iter().map(literal).collect::<Result<_, _>>()?),
        Expr::StringLiteral(s) => Value::String(s.value.to_str().to_owned()),
        Expr::BooleanLiteral(b) => Value::Bool(b.value),
        Expr::NoneLiteral(_) => Value::Null,
        Expr::NumberLiteral(n) => number(&n.value)?,
        Expr::UnaryOp(u) if matches!(u.op, UnaryOp::USub) => match literal(&u.operand)? {
            Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => Value::from(-i),
                (None, Some(f)) => Value::from(-f),
                _ => return Err("a number out of range".into()),
            },
            _ => return Err("an operator".into()),
        },
        Expr::Name(n) => return Err(format!("the name {}", n.id)),
        Expr::Call(_) => return Err("a call".into()),
        Expr::FString(_) => return Err("an f-string".into()),
        _ => return Err("an expression that is not a literal".into()),
    })
}

fn number(n: &Number) -> Result<Value, String> {
    match n {
        Number::Int(i) => i
            .as_i64()
            .map(Value::from)
            .ok_or_else(|| "an integer out of range".into()),
        Number::Float(f) => serde_json::Number::from_f64(*f)
            .map(Value::Number)
            .ok_or_else(|| "a float that is not finite".into()),
        Number::Complex { .. } => Err("a complex number".into()),
    }
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

    fn schema_literal(&mut self, call: &ruff_python_ast::ExprCall) {
        let Expr::Name(f) = &*call.func else { return };
        if !matches!(f.id.as_str(), "agent" | "kanban_agent" | "capability") {
            return;
        }
        let mut schemas: Vec<&Expr> = call
            .arguments
            .keywords
            .iter()
            .filter(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "schema"))
            .map(|k| &k.value)
            .collect();
        // The Claude form: agent("prompt", {"schema": ...}).
        if f.id.as_str() == "agent"
            && let (Some(Expr::StringLiteral(target)), Some(Expr::Dict(opts))) =
                (call.arguments.args.first(), call.arguments.args.get(1))
            && !crate::engine::is_agent_id(target.value.to_str())
        {
            for item in &opts.items {
                if let Some(Expr::StringLiteral(k)) = &item.key
                    && k.value.to_str() == "schema"
                {
                    schemas.push(&item.value);
                }
            }
        }
        for s in schemas {
            if let Ok(v) = literal(s)
                && !v.is_null()
                && let Err(problem) = crate::schema::check(&v)
            {
                self.push(
                    "invalid_schema",
                    format!("{}(): invalid schema: {problem}", f.id),
                    s.start(),
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
    pub meta: Option<Value>,
    /// The line of the `meta =` statement.
    pub meta_line: u32,
    /// Every error found.
    pub diags: Vec<Diagnostic>,
    /// The script's line index.
    pub lines: Lines,
}

/// Check `src` statically (no Monty compile).
pub fn analyse(src: &str) -> Checked {
    let lines = Lines::new(src);
    let mut out = Checked {
        meta: None,
        meta_line: 1,
        diags: Vec::new(),
        lines,
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
                Ok(v @ Value::Object(_)) => out.meta = Some(v),
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

fn nonempty(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty())
}

/// The WIT meta of a meta literal, or what is wrong with it.
pub fn meta_of(meta: &Value, line: Option<u32>) -> Result<Meta, Vec<Diagnostic>> {
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
    let mut phases = Vec::new();
    match meta.get("phases") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, p) in items.iter().enumerate() {
                // The seed accepts a title string or {title, detail?, id?}.
                let title = nonempty(Some(p)).or_else(|| nonempty(p.get("title")));
                match title {
                    Some(t) => phases.push(PhaseInfo {
                        title: t.into(),
                        detail: nonempty(p.get("detail")).map(Into::into),
                    }),
                    None => diags.push(diag(
                        "invalid_phase",
                        format!("meta[\"phases\"][{i}] must be a title or {{\"title\": ..., \"detail\"?: ...}}"),
                        line,
                    )),
                }
            }
        }
        Some(_) => diags.push(diag(
            "invalid_phase",
            "meta[\"phases\"] must be a list of titles or {\"title\", \"detail\"?}",
            line,
        )),
    }
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
            .filter(|v| !v.is_null())
            .map(Value::to_string),
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
