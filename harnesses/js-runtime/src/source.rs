//! Splitting a script into its `meta` literal and its body, and `check`.

use boa_engine::ast::expression::literal::{PropertyDefinition, TemplateElement};
use boa_engine::ast::expression::operator::unary::UnaryOp;
use boa_engine::ast::property::PropertyName;
use boa_engine::ast::scope::Scope;
use boa_engine::ast::{Expression, Spanned, Statement, StatementListItem};
use boa_engine::interner::Interner;
use boa_engine::parser::lexer::error::Error as LexError;
use boa_engine::parser::{Error as ParseError, Parser};
use boa_engine::{Context, Source};
use hwf_guest::runtime::wit::{Diagnostic, Meta, PhaseInfo, Severity};
use serde_json::Value;

/// A script split into its meta literal and body.
pub struct Parts<'a> {
    /// The object literal after `export const meta =`.
    pub meta: &'a str,
    /// 1-based line where the meta literal starts.
    pub meta_line: u32,
    /// Everything after the meta statement.
    pub body: &'a str,
    /// 1-based line where the body starts.
    pub body_line: u32,
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

/// Skip whitespace and comments from `i`.
fn skip_trivia(s: &[u8], mut i: usize) -> usize {
    loop {
        while i < s.len() && s[i].is_ascii_whitespace() {
            i += 1;
        }
        // A byte-order mark is whitespace to JavaScript (and to Claude
        // Code's meta scan): a script saved with one starts with it.
        if s[i..].starts_with("\u{feff}".as_bytes()) {
            i += 3;
            continue;
        }
        if s[i..].starts_with(b"//") {
            while i < s.len() && s[i] != b'\n' {
                i += 1;
            }
        } else if s[i..].starts_with(b"/*") {
            match s[i + 2..].windows(2).position(|w| w == b"*/") {
                Some(p) => i += p + 4,
                None => return s.len(),
            }
        } else {
            return i;
        }
    }
}

/// The end (exclusive) of the balanced `{…}` starting at `i`, skipping
/// strings, template literals and comments.
fn literal_end(s: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    while j < s.len() {
        match s[j] {
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            q @ (b'"' | b'\'' | b'`') => {
                j += 1;
                while j < s.len() && s[j] != q {
                    if s[j] == b'\\' {
                        j += 1;
                    }
                    j += 1;
                }
            }
            b'/' if s.get(j + 1) == Some(&b'/') => {
                while j < s.len() && s[j] != b'\n' {
                    j += 1;
                }
            }
            b'/' if s.get(j + 1) == Some(&b'*') => {
                j += s[j + 2..].windows(2).position(|w| w == b"*/")? + 3;
            }
            _ => {}
        }
        j += 1;
    }
    None
}

fn line_of(source: &str, byte: usize) -> u32 {
    u32::try_from(source[..byte.min(source.len())].matches('\n').count() + 1).unwrap_or(u32::MAX)
}

/// Split a script; the meta statement must come first.
pub fn split(source: &str) -> Result<Parts<'_>, Diagnostic> {
    let s = source.as_bytes();
    let start = skip_trivia(s, 0);
    let rest = &source[start..];
    let Some(after) = rest.strip_prefix("export const meta") else {
        return Err(diag(
            "meta_not_first",
            "the script must start with `export const meta = { name, description, ... }`",
            Some(line_of(source, start)),
        ));
    };
    let mut i = start + (rest.len() - after.len());
    i = skip_trivia(s, i);
    if s.get(i) != Some(&b'=') {
        return Err(diag(
            "meta_not_first",
            "expected `=` after `export const meta`",
            Some(line_of(source, i)),
        ));
    }
    i = skip_trivia(s, i + 1);
    if s.get(i) != Some(&b'{') {
        return Err(diag(
            "meta_not_literal",
            "meta must be an object literal",
            Some(line_of(source, i)),
        ));
    }
    let end = literal_end(s, i).ok_or_else(|| {
        diag(
            "meta_not_literal",
            "the meta literal is not closed",
            Some(line_of(source, i)),
        )
    })?;
    let meta = &source[i..end];
    let mut body_start = skip_trivia(s, end);
    if s.get(body_start) == Some(&b';') {
        body_start += 1;
    }
    Ok(Parts {
        meta,
        meta_line: line_of(source, i),
        body: &source[body_start..],
        body_line: line_of(source, body_start),
    })
}

/// Claude Code's rule for `meta`: a pure literal — strings, numbers,
/// booleans, `null`, arrays, objects with plain keys, template literals
/// without `${}`, negative numbers. Anything else (a variable, a call,
/// `'a' + 'b'`, a spread, a computed key, a method) is named with its line.
fn pure(e: &Expression, meta_line: u32) -> Result<(), Diagnostic> {
    let refuse = |what: &str, at: &dyn Spanned| {
        let line = meta_line + at.span().start().line_number().saturating_sub(1);
        Err(diag(
            "meta_not_literal",
            format!("meta must be a pure literal: {what} is not allowed"),
            Some(line),
        ))
    };
    match e {
        Expression::Literal(_) => Ok(()),
        Expression::Parenthesized(p) => pure(p.expression(), meta_line),
        Expression::ArrayLiteral(a) => {
            for item in a.as_ref().iter().flatten() {
                pure(item, meta_line)?;
            }
            Ok(())
        }
        Expression::ObjectLiteral(o) => {
            for prop in o.properties() {
                match prop {
                    PropertyDefinition::Property(PropertyName::Literal(_), v) => pure(v, meta_line)?,
                    PropertyDefinition::Property(PropertyName::Computed(k), _) => {
                        return refuse("a computed key", k);
                    }
                    PropertyDefinition::IdentifierReference(id) => return refuse("a shorthand property", id),
                    PropertyDefinition::SpreadObject(x) => return refuse("a spread", x),
                    PropertyDefinition::MethodDefinition(_) | PropertyDefinition::CoverInitializedName(..) => {
                        return refuse("a method or getter", o);
                    }
                }
            }
            Ok(())
        }
        Expression::TemplateLiteral(t) => {
            match t.elements().iter().find_map(|el| match el {
                TemplateElement::Expr(x) => Some(x),
                TemplateElement::String(_) => None,
            }) {
                Some(x) => refuse("a template literal with ${…}", x),
                None => Ok(()),
            }
        }
        Expression::Unary(u) if matches!(u.op(), UnaryOp::Minus) && matches!(u.target(), Expression::Literal(_)) => {
            Ok(())
        }
        Expression::Spread(x) => refuse("a spread", x),
        Expression::Identifier(x) => refuse("a variable", x),
        Expression::Call(x) => refuse("a call", x),
        Expression::Binary(x) => refuse("an operator expression", x),
        other => refuse("an expression", other),
    }
}

/// Check that the meta literal is pure (by its syntax tree), then evaluate
/// it in an empty context.
pub fn eval_meta(meta: &str, line: u32) -> Result<Value, Diagnostic> {
    let text = format!("({meta})");
    let mut interner = Interner::default();
    let script = Parser::new(Source::from_bytes(&text))
        .parse_script(&Scope::new_global(), &mut interner)
        .map_err(|e| diag("meta_not_literal", format!("meta does not parse: {e}"), Some(line)))?;
    let expr = match script.statements().statements() {
        [StatementListItem::Statement(s)] => match s.as_ref() {
            Statement::Expression(e) => e,
            _ => return Err(diag("meta_not_literal", "meta must be an object literal", Some(line))),
        },
        _ => return Err(diag("meta_not_literal", "meta must be one object literal", Some(line))),
    };
    pure(expr, line)?;
    let mut ctx = Context::default();
    let v = ctx.eval(Source::from_bytes(&text)).map_err(|e| {
        diag(
            "meta_not_literal",
            format!("meta must be a pure literal: {e}"),
            Some(line),
        )
    })?;
    let json = v
        .to_json(&mut ctx)
        .map_err(|e| diag("meta_not_literal", format!("meta must be plain data: {e}"), Some(line)))?
        .unwrap_or(Value::Null);
    if !json.is_object() {
        return Err(diag("meta_not_literal", "meta must be an object", Some(line)));
    }
    Ok(json)
}

/// The source line of a parse error in the wrapped body.
fn error_line(e: &ParseError, body_line: u32) -> Option<u32> {
    let wrapped_line = match e {
        ParseError::Expected { span, .. } | ParseError::Unexpected { span, .. } => span.start().line_number(),
        ParseError::General { position, .. } => position.line_number(),
        ParseError::Lex {
            err: LexError::Syntax(_, position),
        } => position.line_number(),
        _ => return None,
    };
    // The wrapper puts one line before the body.
    Some(body_line + wrapped_line.saturating_sub(2))
}

/// Parse the wrapped body as the engine will run it. A static `import`
/// declaration is a parse error there (import declarations only exist at a
/// module's top level); the parser reports it as an `import` keyword not
/// followed by `.meta` or `(`, which is told apart from other syntax errors.
/// Text in strings, template literals and comments is never looked at.
fn parse_body(body: &str, body_line: u32) -> Option<Diagnostic> {
    let wrapped = wrap(body);
    let mut interner = Interner::default();
    let err = Parser::new(Source::from_bytes(&wrapped))
        .parse_script(&Scope::new_global(), &mut interner)
        .err()?;
    let line = error_line(&err, body_line);
    if let ParseError::Expected { context, found, .. } = &err
        && *context == "import.meta"
        && &**found != "meta"
    {
        return Some(diag(
            "import_not_allowed",
            "workflow scripts cannot import modules (everything goes through agent() and capability())",
            line,
        ));
    }
    // Boa's message names the position in the wrapped body; the line is
    // reported separately.
    let text = err.to_string();
    let text = text.rfind(" at line ").map_or(text.as_str(), |at| &text[..at]);
    Some(diag("syntax_error", text.to_owned(), line))
}

/// The function the body is wrapped in, so top-level `await` and `return`
/// work.
pub fn wrap(body: &str) -> String {
    // Strict, as Claude Code runs workflow scripts (modules are strict): a
    // write to a frozen object or to an undeclared name throws. The
    // directive shares the wrapper's one line, so line numbers hold.
    format!("(async () => {{ \"use strict\";\n{body}\n}})()")
}

/// Check a script: meta first and literal, required fields, no imports, and
/// a body that parses.
pub fn check(source: &str) -> Result<Meta, Vec<Diagnostic>> {
    // Before any parse: Boa's recursive parser would run out of stack.
    if let Some((at, depth)) = crate::depth::too_deep(source) {
        let msg = format!(
            "the script nests {depth} levels deep here; at most {} (brackets, chained =>, ? and =, stacked unary operators)",
            crate::depth::MAX_DEPTH
        );
        return Err(vec![diag("too_deeply_nested", msg, Some(line_of(source, at)))]);
    }
    let parts = split(source).map_err(|d| vec![d])?;
    let meta_line = line_of(source, source.find("export const meta").unwrap_or(0));
    let meta = eval_meta(parts.meta, parts.meta_line).map_err(|d| vec![d])?;
    let mut diags = Vec::new();
    let name = meta.get("name").and_then(Value::as_str);
    let description = meta.get("description").and_then(Value::as_str);
    if name.is_none_or(str::is_empty) {
        diags.push(diag(
            "missing_name",
            "meta.name (a string) is required",
            Some(meta_line),
        ));
    }
    if description.is_none_or(str::is_empty) {
        diags.push(diag(
            "missing_description",
            "meta.description (a string) is required",
            Some(meta_line),
        ));
    }
    let mut phases = Vec::new();
    if let Some(list) = meta.get("phases") {
        match list.as_array() {
            Some(items) => {
                for p in items {
                    // Claude Code's `{title, detail?}`, or the seed's plain
                    // title string.
                    let title = p.as_str().or_else(|| p.get("title").and_then(Value::as_str));
                    match title {
                        Some(t) => phases.push(PhaseInfo {
                            title: t.into(),
                            detail: p.get("detail").and_then(Value::as_str).map(Into::into),
                        }),
                        None => diags.push(diag(
                            "invalid_phase",
                            format!("each phase is a title string or {{title, detail?}}, got {p}"),
                            Some(meta_line),
                        )),
                    }
                }
            }
            None => diags.push(diag(
                "invalid_phase",
                "meta.phases must be a list of titles or {title, detail?}",
                Some(meta_line),
            )),
        }
    }
    // Parse the body (without running it).
    diags.extend(parse_body(parts.body, parts.body_line));
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(Meta {
        name: name.unwrap_or("").into(),
        description: description.unwrap_or("").into(),
        when_to_use: meta.get("whenToUse").and_then(Value::as_str).map(Into::into),
        phases,
        args_schema: meta.get("argsSchema").map(Value::to_string),
    })
}
