//! The `meta` literal: read as JSON data by a parser of JavaScript's
//! literal forms only, so nothing in it is ever evaluated.
//!
//! Claude Code's rule: `meta` is a pure literal — strings, numbers,
//! booleans, `null`, arrays, objects with plain keys, template literals
//! without `${}`, negative numbers. Anything else (a variable, a call,
//! `'a' + 'b'`, a spread, a computed key, a method) is named with its line,
//! in the words of the Boa runtime's syntax-tree check.

use hwf_guest::runtime::wit::{Diagnostic, Severity};
use serde_json::{Map, Value};

/// The most nested arrays and objects a meta literal may have (the parser
/// is recursive; the script's own nesting limit is checked before).
const MAX_NESTING: usize = 128;

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    line: u32,
    depth: usize,
}

/// Why the literal was refused: a message and the byte where it was seen.
struct Refusal(String, usize);

type R<T> = Result<T, Refusal>;

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80
}

fn is_ident(c: u8) -> bool {
    is_ident_start(c) || c.is_ascii_digit()
}

impl Parser<'_> {
    fn refuse<T>(&self, what: &str, at: usize) -> R<T> {
        Err(Refusal(
            format!("meta must be a pure literal: {what} is not allowed"),
            at,
        ))
    }

    fn broken<T>(&self, what: &str) -> R<T> {
        Err(Refusal(format!("meta does not parse: {what}"), self.i))
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip(&mut self) {
        loop {
            while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
            let rest = &self.s[self.i..];
            if rest.starts_with(b"//") {
                while self.i < self.s.len() && self.s[self.i] != b'\n' {
                    self.i += 1;
                }
            } else if rest.starts_with(b"/*") {
                match rest[2..].windows(2).position(|w| w == b"*/") {
                    Some(p) => self.i += p + 4,
                    None => self.i = self.s.len(),
                }
            } else {
                return;
            }
        }
    }

    fn word(&mut self) -> &str {
        let start = self.i;
        while self.i < self.s.len() && is_ident(self.s[self.i]) {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i]).unwrap_or("")
    }

    /// A value, then a check that no operator, call or member access
    /// follows it.
    fn value(&mut self) -> R<Value> {
        self.skip();
        let start = self.i;
        let v = self.primary()?;
        self.skip();
        match self.peek() {
            None | Some(b',' | b'}' | b']' | b')') => Ok(v),
            Some(b'(') => self.refuse("a call", start),
            Some(b'.' | b'[') => self.refuse("an expression", start),
            Some(_) => self.refuse("an operator expression", start),
        }
    }

    fn primary(&mut self) -> R<Value> {
        let start = self.i;
        match self.peek() {
            None => self.broken("the literal ends early"),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'(') => {
                self.i += 1;
                let v = self.value()?;
                self.skip();
                if self.peek() != Some(b')') {
                    return self.broken("expected `)`");
                }
                self.i += 1;
                Ok(v)
            }
            Some(q @ (b'"' | b'\'')) => {
                self.i += 1;
                self.string(q).map(Value::String)
            }
            Some(b'`') => {
                self.i += 1;
                self.string(b'`').map(Value::String)
            }
            Some(b'-') => {
                self.i += 1;
                self.skip();
                match self.peek() {
                    Some(c) if c.is_ascii_digit() || c == b'.' => Ok(number_value(-self.number()?)),
                    _ => self.refuse("an expression", start),
                }
            }
            Some(b'.') if self.s.get(self.i + 1).is_some_and(u8::is_ascii_digit) => Ok(number_value(self.number()?)),
            Some(c) if c.is_ascii_digit() => Ok(number_value(self.number()?)),
            Some(b'.') => self.refuse("a spread", start),
            Some(c) if is_ident_start(c) => {
                let w = self.word().to_owned();
                match w.as_str() {
                    "true" => Ok(Value::Bool(true)),
                    "false" => Ok(Value::Bool(false)),
                    "null" => Ok(Value::Null),
                    "new" | "function" | "class" | "typeof" | "void" | "delete" | "await" | "this" => {
                        self.refuse("an expression", start)
                    }
                    _ => {
                        self.skip();
                        if self.peek() == Some(b'(') {
                            self.refuse("a call", start)
                        } else {
                            self.refuse("a variable", start)
                        }
                    }
                }
            }
            Some(_) => self.refuse("an expression", start),
        }
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return self.broken("nested too deeply");
        }
        Ok(())
    }

    fn array(&mut self) -> R<Value> {
        self.enter()?;
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.skip();
            match self.peek() {
                Some(b']') => {
                    self.i += 1;
                    break;
                }
                // A hole: skipped, as the syntax-tree check skipped it.
                Some(b',') => {
                    self.i += 1;
                    continue;
                }
                Some(b'.') if self.s[self.i..].starts_with(b"...") => return self.refuse("a spread", self.i),
                _ => items.push(self.value()?),
            }
            self.skip();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {}
                _ => return self.broken("expected `,` or `]`"),
            }
        }
        self.depth -= 1;
        Ok(Value::Array(items))
    }

    fn object(&mut self) -> R<Value> {
        self.enter()?;
        let open = self.i;
        self.i += 1;
        let mut map = Map::new();
        loop {
            self.skip();
            let key_at = self.i;
            let key = match self.peek() {
                Some(b'}') => {
                    self.i += 1;
                    break;
                }
                Some(b'.') if self.s[self.i..].starts_with(b"...") => return self.refuse("a spread", key_at),
                Some(b'[') => return self.refuse("a computed key", key_at),
                Some(b'*') => return self.refuse("a method or getter", open),
                Some(q @ (b'"' | b'\'')) => {
                    self.i += 1;
                    self.string(q)?
                }
                Some(c) if c.is_ascii_digit() || c == b'.' => number_key(self.number()?),
                Some(c) if is_ident_start(c) => self.word().to_owned(),
                _ => return self.broken("expected a property name"),
            };
            self.skip();
            match self.peek() {
                Some(b':') => {
                    self.i += 1;
                    let v = self.value()?;
                    map.insert(key, v);
                }
                Some(b',' | b'}') => return self.refuse("a shorthand property", key_at),
                Some(b'(' | b'=') => return self.refuse("a method or getter", open),
                // `get x() {}`, `async x() {}`
                Some(c) if is_ident_start(c) || c == b'[' || c == b'"' || c == b'\'' => {
                    return self.refuse("a method or getter", open);
                }
                _ => return self.broken("expected `:`"),
            }
            self.skip();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {}
                _ => return self.broken("expected `,` or `}`"),
            }
        }
        self.depth -= 1;
        Ok(Value::Object(map))
    }

    /// A numeric literal at `self.i`: decimal, `0x`/`0o`/`0b`, with `_`
    /// separators; a BigInt (`n`) is not JSON data.
    fn number(&mut self) -> R<f64> {
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric()
                || self.s[self.i] == b'.'
                || self.s[self.i] == b'_'
                || ((self.s[self.i] == b'+' || self.s[self.i] == b'-')
                    && matches!(self.s[self.i - 1], b'e' | b'E')
                    && !self.s[start..].starts_with(b"0x")
                    && !self.s[start..].starts_with(b"0X")))
        {
            self.i += 1;
        }
        let text: String = std::str::from_utf8(&self.s[start..self.i])
            .unwrap_or("")
            .chars()
            .filter(|&c| c != '_')
            .collect();
        if text.ends_with('n') {
            return Err(Refusal("meta must be plain data: a BigInt is not JSON".into(), start));
        }
        let radix = |prefix: &str, radix: u32| {
            text.strip_prefix(prefix)
                .or_else(|| text.strip_prefix(&prefix.to_uppercase()))
                .map(|digits| u64::from_str_radix(digits, radix).map(|n| n as f64))
        };
        let parsed = radix("0x", 16)
            .or_else(|| radix("0o", 8))
            .or_else(|| radix("0b", 2))
            .map_or_else(|| text.parse::<f64>().ok(), Result::ok);
        match parsed {
            Some(f) => Ok(f),
            None => Err(Refusal(format!("meta does not parse: `{text}` is not a number"), start)),
        }
    }

    /// A string or template body after its opening quote, with
    /// JavaScript's escapes; a template's `${` is refused.
    fn string(&mut self, quote: u8) -> R<String> {
        let mut units: Vec<u16> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return self.broken("a string is not closed");
            };
            if c == quote {
                self.i += 1;
                break;
            }
            if quote == b'`' && c == b'$' && self.s.get(self.i + 1) == Some(&b'{') {
                return self.refuse("a template literal with ${…}", self.i);
            }
            if c == b'\n' && quote != b'`' {
                return self.broken("a string is not closed");
            }
            if c == b'\\' {
                self.i += 1;
                let Some(e) = self.peek() else {
                    return self.broken("a string is not closed");
                };
                self.i += 1;
                match e {
                    b'n' => units.push(0x0a),
                    b't' => units.push(0x09),
                    b'r' => units.push(0x0d),
                    b'b' => units.push(0x08),
                    b'f' => units.push(0x0c),
                    b'v' => units.push(0x0b),
                    b'0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => units.push(0),
                    b'\r' => {
                        if self.peek() == Some(b'\n') {
                            self.i += 1;
                        }
                    }
                    b'\n' => {}
                    b'x' => units.push(self.hex(2)? as u16),
                    b'u' if self.peek() == Some(b'{') => {
                        self.i += 1;
                        let end = self.s[self.i..].iter().position(|&b| b == b'}');
                        let Some(end) = end else {
                            return self.broken("a \\u{…} escape is not closed");
                        };
                        let digits = std::str::from_utf8(&self.s[self.i..self.i + end]).unwrap_or("");
                        let cp = u32::from_str_radix(digits, 16).ok().and_then(char::from_u32);
                        let Some(ch) = cp else {
                            return self.broken("a \\u{…} escape is not a code point");
                        };
                        self.i += end + 1;
                        let mut buf = [0u16; 2];
                        units.extend_from_slice(ch.encode_utf16(&mut buf));
                    }
                    b'u' => units.push(self.hex(4)? as u16),
                    other => {
                        // Any other character stands for itself.
                        self.i -= 1;
                        let _ = other;
                        self.char_into(&mut units);
                    }
                }
                continue;
            }
            if c == b'\r' && quote == b'`' {
                // A template's CR LF and CR are LF.
                self.i += 1;
                if self.peek() == Some(b'\n') {
                    self.i += 1;
                }
                units.push(0x0a);
                continue;
            }
            self.char_into(&mut units);
        }
        Ok(String::from_utf16_lossy(&units))
    }

    fn char_into(&mut self, units: &mut Vec<u16>) {
        let rest = std::str::from_utf8(&self.s[self.i..]).ok();
        let ch = rest.and_then(|r| r.chars().next()).unwrap_or('\u{fffd}');
        self.i += ch.len_utf8().max(1);
        let mut buf = [0u16; 2];
        units.extend_from_slice(ch.encode_utf16(&mut buf));
    }

    fn hex(&mut self, n: usize) -> R<u32> {
        let digits = self.s.get(self.i..self.i + n).and_then(|d| std::str::from_utf8(d).ok());
        match digits.and_then(|d| u32::from_str_radix(d, 16).ok()) {
            Some(v) => {
                self.i += n;
                Ok(v)
            }
            None => self.broken("a malformed escape"),
        }
    }
}

/// A number as `JSON.stringify` writes it: whole numbers as integers.
fn number_value(f: f64) -> Value {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15 {
        Value::from(f as i64)
    } else {
        serde_json::Number::from_f64(f).map_or(Value::Null, |n| crate::engine::normalize(Value::Number(n)))
    }
}

/// A numeric key as JavaScript names the property (`1.0` is `"1"`).
fn number_key(f: f64) -> String {
    match number_value(f) {
        Value::Number(n) => n.to_string(),
        _ => "null".into(),
    }
}

fn diag(code: &str, message: String, line: u32) -> Diagnostic {
    Diagnostic {
        code: code.into(),
        severity: Severity::Error,
        message,
        line: Some(line),
        column: None,
        pointer: None,
    }
}

/// Read the meta literal (`{…}`, starting on 1-based line `line`) as
/// data, or say why it is not a pure literal (`meta_not_literal`).
pub fn eval_meta(meta: &str, line: u32) -> Result<Value, Diagnostic> {
    let mut p = Parser {
        s: meta.as_bytes(),
        i: 0,
        line,
        depth: 0,
    };
    let result = p.value().and_then(|v| {
        p.skip();
        if p.i < p.s.len() {
            p.broken("text after the literal")
        } else {
            Ok(v)
        }
    });
    match result {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err(diag("meta_not_literal", "meta must be an object".into(), line)),
        Err(Refusal(msg, at)) => {
            let at = at.min(meta.len());
            let below = u32::try_from(meta.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count()).unwrap_or(0);
            Err(diag("meta_not_literal", msg, p.line + below))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_read_as_data_and_expressions_are_named() {
        let v = eval_meta(
            "{ name: 'a\\u0041', \"description\": `t\nx`, n: -1.5, h: 0x10, ok: true, z: null, l: [1, , 2,], o: { 'k': 1e3 }, }",
            1,
        )
        .map_err(|d| d.message)
        .expect("a literal");
        assert_eq!(
            v.to_string(),
            // Keys in the literal's order (serde_json's `preserve_order`).
            r#"{"name":"aA","description":"t\nx","n":-1.5,"h":16,"ok":true,"z":null,"l":[1,2],"o":{"k":1000}}"#
        );
        for (src, what) in [
            ("{ name: x }", "a variable"),
            ("{ name: f() }", "a call"),
            ("{ name: 'a' + 'b' }", "an operator expression"),
            ("{ ...x }", "a spread"),
            ("{ [k]: 1 }", "a computed key"),
            ("{ name }", "a shorthand property"),
            ("{ m() {} }", "a method or getter"),
            ("{ get m() {} }", "a method or getter"),
            ("{ t: `a${1}` }", "a template literal with ${…}"),
            ("{ a: [...x] }", "a spread"),
        ] {
            let d = eval_meta(src, 3).expect_err(src);
            assert!(d.message.contains(what), "{src}: {}", d.message);
            assert_eq!(d.line, Some(3));
        }
        let d = eval_meta("{\n a: 1,\n b: nope }", 10).expect_err("a variable");
        assert_eq!(d.line, Some(12));
    }
}
