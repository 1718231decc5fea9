//! Splitting a script into its `meta` literal and its body, and `check`.

use hwf_guest::runtime::wit::{Diagnostic, Meta, PhaseInfo, Severity};
use rquickjs::context::EvalOptions;
use rquickjs::{Context, Module, Runtime};
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

/// Parse the wrapped body as the engine will run it (QuickJS compiles it
/// as a module's code and does not run it). A static `import` declaration
/// is a syntax error there (import declarations only exist at a module's
/// top level): QuickJS stops at the token after the `import` keyword (not
/// `(` or `.`), and the error's position tells it apart from other
/// syntax errors. Text in
/// strings, template literals and comments is never looked at.
fn parse_body(body: &str, body_line: u32) -> Option<Diagnostic> {
    let wrapped = wrap(body);
    let rt = Runtime::new().ok()?;
    rt.set_max_stack_size(crate::engine::JS_STACK);
    let ctx = Context::full(&rt).ok()?;
    ctx.with(|ctx| {
        if Module::declare(ctx.clone(), "script", wrapped.as_str()).is_ok() {
            return None;
        }
        let err = ctx.catch();
        let obj = err.as_object();
        let get = |k: &str| {
            obj.and_then(|o| o.get::<_, Option<String>>(k).ok().flatten())
                .unwrap_or_default()
        };
        let message = get("message");
        let stack = get("stack");
        // `    at script:LINE:COL` (positions in the wrapped body).
        let pos = stack.split("script:").nth(1).and_then(|rest| {
            let mut it = rest.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty());
            Some((it.next()?.parse::<u32>().ok()?, it.next()?.parse::<usize>().ok()?))
        });
        let line = pos.map(|(l, _)| body_line + l.saturating_sub(2));
        let is_import = pos.is_some_and(|(l, col)| {
            let text = wrapped.lines().nth(l.saturating_sub(1) as usize).unwrap_or("");
            let before: String = text.chars().take(col.saturating_sub(1)).collect();
            let before = before.trim_end();
            before.ends_with("import")
                && !before[..before.len() - 6]
                    .ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '.')
        });
        if is_import {
            return Some(diag(
                "import_not_allowed",
                "workflow scripts cannot import modules (everything goes through agent() and capability())",
                line,
            ));
        }
        let text = if message.is_empty() {
            "the script does not parse".to_owned()
        } else {
            message
        };
        Some(diag("syntax_error", text, line))
    })
    .or_else(|| stays_in_its_function(body, body_line))
}

/// `run` evaluates the wrapped body, so the body must stay inside its
/// function: a body such as `})(); code; (async () => {` parses and would
/// run `code` outside the function, as global code the check never saw as
/// such. Such a body fails to parse one block deeper: a `}` that closes
/// the function in one wrapper closes a block in the other, and no token
/// can follow both (`)` or `,` after the function; a statement after the
/// block). The module parse reads the tokens `run` reads: QuickJS's
/// HTML-like comments (`<!--`, `-->`), which only scripts have and which
/// could hide from this check a block comment a module reads, are off
/// (`vendor/README.md`). Then, the body held in its function, the wrapped
/// body is compiled as the script `run` evaluates, inside a function that
/// is never called (nothing runs): what only modules have (`import.meta`)
/// is refused here rather than when the run starts.
fn stays_in_its_function(body: &str, body_line: u32) -> Option<Diagnostic> {
    let deeper = format!("(async () => {{ \"use strict\"; {{\n{body}\n}} }})()");
    let rt = Runtime::new().ok()?;
    rt.set_max_stack_size(crate::engine::JS_STACK);
    let ctx = Context::full(&rt).ok()?;
    ctx.with(|ctx| {
        let line_of_error = |err: rquickjs::Value<'_>| {
            let stack = err
                .as_object()
                .and_then(|o| o.get::<_, Option<String>>("stack").ok().flatten())
                .unwrap_or_default();
            let line = stack
                .split("script:")
                .nth(1)
                .and_then(|rest| {
                    rest.split(|c: char| !c.is_ascii_digit())
                        .find(|s| !s.is_empty())?
                        .parse::<u32>()
                        .ok()
                })
                .map(|l| body_line + l.saturating_sub(2));
            let message = err
                .as_object()
                .and_then(|o| o.get::<_, Option<String>>("message").ok().flatten())
                .unwrap_or_default();
            (message, line)
        };
        if Module::declare(ctx.clone(), "script", deeper.as_str()).is_err() {
            let (_, line) = line_of_error(ctx.catch());
            return Some(diag(
                "syntax_error",
                "a `}` with no `{` before it: it would close the function the script runs in",
                line,
            ));
        }
        let mut options = EvalOptions::default();
        options.filename = Some("script".into());
        let never_called = format!("(function () {{ return; {} }})", wrap(body));
        if ctx
            .eval_with_options::<rquickjs::Value, _>(never_called, options)
            .is_err()
        {
            let (message, line) = line_of_error(ctx.catch());
            let text = if message.is_empty() {
                "the script does not parse".to_owned()
            } else {
                message
            };
            return Some(diag("syntax_error", text, line));
        }
        None
    })
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
    check_with_warnings(source).map(|(meta, _)| meta)
}

/// [`check`], with the warnings of a script that may run: the `meta.phases`
/// entries Claude Code ignores (`invalid_phase`), left out of the meta.
pub fn check_with_warnings(source: &str) -> Result<(Meta, Vec<Diagnostic>), Vec<Diagnostic>> {
    // Before any parse: a recursive parser would run out of stack.
    if let Some((at, depth)) = crate::depth::too_deep(source) {
        let msg = format!(
            "the script nests {depth} levels deep here; at most {} (brackets, chained =>, ? and =, stacked unary operators)",
            crate::depth::MAX_DEPTH
        );
        return Err(vec![diag("too_deeply_nested", msg, Some(line_of(source, at)))]);
    }
    let parts = split(source).map_err(|d| vec![d])?;
    let meta_line = line_of(source, source.find("export const meta").unwrap_or(0));
    let meta = crate::meta::eval_meta(parts.meta, parts.meta_line).map_err(|d| vec![d])?;
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
    // Claude Code keeps the `phases` entries that are objects with a string
    // `title` and ignores the rest (and a `phases` that is not an array);
    // hwf also keeps the seed's plain title strings, and warns of the rest.
    let mut phases = Vec::new();
    let mut warnings = Vec::new();
    let ignored = |message: String| Diagnostic {
        severity: Severity::Warning,
        ..diag("invalid_phase", message, Some(meta_line))
    };
    match meta.get("phases") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for p in items {
                let title = p.as_str().or_else(|| p.get("title").and_then(Value::as_str));
                match title {
                    Some(t) => phases.push(PhaseInfo {
                        title: t.into(),
                        detail: p.get("detail").and_then(Value::as_str).map(Into::into),
                    }),
                    None => warnings.push(ignored(format!(
                        "meta.phases entry {p} is ignored: a phase is {{title, detail?}} with a string title (or a title string)"
                    ))),
                }
            }
        }
        Some(other) => warnings.push(ignored(format!(
            "meta.phases {other} is ignored: it is a list of {{title, detail?}}"
        ))),
    }
    // Parse the body (without running it).
    diags.extend(parse_body(parts.body, parts.body_line));
    if !diags.is_empty() {
        return Err(diags);
    }
    let meta = Meta {
        name: name.unwrap_or("").into(),
        description: description.unwrap_or("").into(),
        when_to_use: meta.get("whenToUse").and_then(Value::as_str).map(Into::into),
        phases,
        args_schema: meta.get("argsSchema").map(Value::to_string),
    };
    Ok((meta, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_problem(body: &str) -> Option<(String, String, Option<u32>)> {
        let src = format!("export const meta = {{ name: \"n\", description: \"d\" }};\n{body}");
        check(&src)
            .err()
            .map(|d| (d[0].code.clone(), d[0].message.clone(), d[0].line))
    }

    #[test]
    fn a_body_that_closes_its_function_is_refused() {
        for body in [
            "})(); x; (async () => {\nreturn 1;\n",
            "}, 1, async () => {\nreturn 1;\n",
            "return 1;\n}); (async () => {\n",
        ] {
            let (code, message, _) = body_problem(body).unwrap_or_else(|| panic!("passed: {body}"));
            assert_eq!(code, "syntax_error", "{body}");
            assert!(message.contains("close the function"), "{body}: {message}");
        }
        // What only modules have is refused before the run, with its line.
        let (code, message, line) = body_problem("const x = 1;\nreturn import.meta;\n").expect("import.meta passed");
        assert_eq!((code.as_str(), line), ("syntax_error", Some(3)), "{message}");
        assert!(message.contains("import.meta"), "{message}");
        // Blocks, closures, templates and regexes with braces are bodies.
        for body in [
            "{ const a = 1; }\nconst f = () => { return `${\"}\"}`; };\nconst r = /}/;\nreturn [f(), r.source, \"})()\"];\n",
            "if (args) { await null; } else { return 2; }\nreturn 1;\n",
            "let x = 1, y = 2;\nreturn x <!--y;\n",
        ] {
            assert_eq!(body_problem(body), None, "{body}");
        }
    }

    #[test]
    fn phases_claude_code_ignores_are_warnings_not_errors() {
        // Claude Code keeps `{title}` objects with a string title and
        // ignores the rest, and a `phases` that is not an array.
        let titles = |phases: &str| {
            let src =
                format!("export const meta = {{ name: \"n\", description: \"d\", phases: {phases} }};\nreturn 1;\n");
            let (meta, warnings) = check_with_warnings(&src).unwrap_or_else(|d| panic!("{phases}: {d:?}"));
            let titles: Vec<String> = meta.phases.into_iter().map(|p| p.title).collect();
            (titles, warnings.iter().map(|w| w.code.clone()).collect::<Vec<_>>())
        };
        assert_eq!(titles("null"), (vec![], vec![]));
        assert_eq!(titles("{ title: 'x' }"), (vec![], vec!["invalid_phase".to_owned()]));
        assert_eq!(
            titles("[{ title: 'Scan' }, { detail: 'no title' }, { title: 5 }, 7, 'Fix']"),
            (
                vec!["Scan".to_owned(), "Fix".to_owned()],
                vec!["invalid_phase".to_owned(); 3]
            )
        );
    }
}
