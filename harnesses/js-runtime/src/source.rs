//! Splitting a script into its `meta` literal and its body, and `check`.

use crate::hermes::workflow::types::{Diagnostic, Meta, PhaseInfo, Severity};
use boa_engine::{Context, Source};
use serde_json::Value;

/// A script split into its meta literal and body.
pub struct Parts<'a> {
    /// The object literal after `export const meta =`.
    pub meta: &'a str,
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
        body: &source[body_start..],
        body_line: line_of(source, body_start),
    })
}

/// Evaluate the meta literal in an empty context: any reference to a
/// variable or call fails, so only pure literals pass.
pub fn eval_meta(meta: &str, line: u32) -> Result<Value, Diagnostic> {
    let mut ctx = Context::default();
    let v = ctx.eval(Source::from_bytes(&format!("({meta})"))).map_err(|e| {
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

/// Words a workflow may not use: module loading.
fn forbidden(body: &str, body_line: u32) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (n, line) in body.lines().enumerate() {
        let t = line.trim_start();
        let ln = body_line + u32::try_from(n).unwrap_or(0);
        if t.starts_with("import ") || t.starts_with("import{") || t.contains("import(") {
            out.push(diag(
                "import_not_allowed",
                "workflows cannot import modules; everything goes through agent() and capability()",
                Some(ln),
            ));
        }
        if t.contains("require(") {
            out.push(diag(
                "require_not_allowed",
                "require() is not available in workflows",
                Some(ln),
            ));
        }
    }
    out
}

/// The function the body is wrapped in, so top-level `await` and `return`
/// work.
pub fn wrap(body: &str) -> String {
    format!("(async () => {{\n{body}\n}})()")
}

/// Check a script: meta first and literal, required fields, no imports, and
/// a body that parses.
pub fn check(source: &str) -> Result<Meta, Vec<Diagnostic>> {
    let parts = split(source).map_err(|d| vec![d])?;
    let meta_line = line_of(source, source.find("export const meta").unwrap_or(0));
    let meta = eval_meta(parts.meta, meta_line).map_err(|d| vec![d])?;
    let mut diags = forbidden(parts.body, parts.body_line);
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
                    match p.get("title").and_then(Value::as_str) {
                        Some(t) => phases.push(PhaseInfo {
                            title: t.into(),
                            detail: p.get("detail").and_then(Value::as_str).map(Into::into),
                        }),
                        None => diags.push(diag("invalid_phase", "each phase needs a title", Some(meta_line))),
                    }
                }
            }
            None => diags.push(diag(
                "invalid_phase",
                "meta.phases must be a list of {title, detail?}",
                Some(meta_line),
            )),
        }
    }
    // Parse the body (without running it).
    let wrapped = wrap(parts.body);
    let mut ctx = Context::default();
    if let Err(e) = boa_engine::Script::parse(Source::from_bytes(&wrapped), None, &mut ctx) {
        // The wrapper adds one line before the body.
        let msg = e.to_string();
        diags.push(diag("syntax_error", msg, Some(parts.body_line)));
    }
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
