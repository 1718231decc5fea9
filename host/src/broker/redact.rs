//! Credential redaction.
//!
//! Everything hwf stores or shows — journal lines, run snapshots, logs,
//! captured stdout/stderr, error messages — passes through here first.
//! Two rules:
//!
//! - **Keys**: a JSON object key that names a credential (`authorization`,
//!   `api_key`, `password`, `*_token`, `secret`, `cookie`, …) has its value
//!   replaced by `"[REDACTED]"`, whatever the value is.
//! - **Values**: credential-shaped text inside any string (`Bearer …`,
//!   `Basic …`, `sk-…`, `ghp_…`, `github_pat_…`, `glpat-…`, `xoxb-…`,
//!   `AKIA…`, PEM private keys, and `NAME_TOKEN=…`-style assignments) is
//!   replaced by `[REDACTED]`.
//!
//! The scan is one pass over the bytes and allocates only when something is
//! replaced.

use serde_json::Value;
use std::borrow::Cow;

/// The replacement text.
pub const REDACTED: &str = "[REDACTED]";

/// Key suffixes (after lower-casing and mapping `-` to `_`) that name a
/// credential.
const KEY_SUFFIXES: &[&str] = &[
    "authorization",
    "api_key",
    "apikey",
    "access_token",
    "refresh_token",
    "id_token",
    "auth_token",
    "session_token",
    "token",
    "password",
    "passwd",
    "secret",
    "cookie",
    "credential",
    "credentials",
    "private_key",
    "privatekey",
    "secret_key",
    "access_key",
    "passphrase",
];

/// Value prefixes of well-known token formats, with the minimum number of
/// token characters that must follow.
const TOKEN_PREFIXES: &[(&str, usize)] = &[
    ("sk-", 16),
    ("sk_live_", 12),
    ("sk_test_", 12),
    ("rk_live_", 12),
    ("AIza", 30),
    ("hf_", 24),
    ("npm_", 24),
    ("pypi-", 24),
    ("ghp_", 16),
    ("gho_", 16),
    ("ghs_", 16),
    ("ghu_", 16),
    ("ghr_", 16),
    ("github_pat_", 16),
    ("glpat-", 12),
    ("xoxb-", 8),
    ("xoxp-", 8),
    ("xoxa-", 8),
    ("xoxs-", 8),
    ("xoxr-", 8),
];

/// Whether an object key names a credential.
pub fn is_secret_key(key: &str) -> bool {
    if key.len() > 256 {
        return false;
    }
    let mut buf = [0u8; 256];
    let norm = &mut buf[..key.len()];
    for (d, s) in norm.iter_mut().zip(key.bytes()) {
        *d = if s == b'-' { b'_' } else { s.to_ascii_lowercase() };
    }
    KEY_SUFFIXES.iter().any(|suf| norm.ends_with(suf.as_bytes()))
}

/// Redact a JSON value in place. Returns whether anything changed.
pub fn redact_value(value: &mut Value) -> bool {
    match value {
        Value::String(s) => {
            if let Cow::Owned(new) = redact_text(s) {
                *s = new;
                true
            } else {
                false
            }
        }
        Value::Array(items) => items.iter_mut().fold(false, |acc, v| redact_value(v) | acc),
        Value::Object(map) => {
            let mut changed = false;
            // A key that is itself a credential is renamed.
            if map.keys().any(|k| matches!(redact_text(k), Cow::Owned(_))) {
                let old = std::mem::take(map);
                for (k, v) in old {
                    let k = match redact_text(&k) {
                        Cow::Owned(_) => REDACTED.to_owned(),
                        Cow::Borrowed(_) => k,
                    };
                    map.insert(k, v);
                }
                changed = true;
            }
            for (k, v) in map.iter_mut() {
                if is_secret_key(k) && !v.is_null() && !is_redacted(v) {
                    *v = Value::String(REDACTED.to_owned());
                    changed = true;
                } else {
                    changed |= redact_value(v);
                }
            }
            changed
        }
        _ => false,
    }
}

fn is_redacted(v: &Value) -> bool {
    v.as_str() == Some(REDACTED)
}

/// Whether a JSON value holds anything credential-shaped (used to refuse
/// credentials in capability requests).
pub fn contains_secret(value: &Value) -> bool {
    let mut copy = value.clone();
    redact_value(&mut copy)
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'+' | b'/' | b'=' | b'~')
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')
}

fn starts_with_ci(hay: &[u8], needle: &str) -> bool {
    hay.len() >= needle.len() && hay[..needle.len()].eq_ignore_ascii_case(needle.as_bytes())
}

fn token_end(b: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < b.len() && is_token_byte(b[j]) {
        j += 1;
    }
    j
}

/// Redact credential-shaped text. Borrowed when nothing matched.
pub fn redact_text(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0; // bytes of `text` already handled into `out`
    let mut i = 0;
    while i < b.len() {
        if let Some((start, end)) = match_at(b, i) {
            let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
            o.push_str(&text[copied..start]);
            o.push_str(REDACTED);
            copied = end;
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

/// If a secret starts at `i`, the byte range to replace.
fn match_at(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let at_boundary = i == 0 || !is_ident_byte(b[i - 1]) || (i >= 2 && b[i - 2] == b'\\');
    let c = b[i];
    if c == b':' && b[i..].starts_with(b"://") {
        return url_password(b, i);
    }
    if !at_boundary && c != b'=' && c != b':' && c != b'-' {
        return None;
    }
    let rest = &b[i..];
    // PEM private keys.
    if c == b'-' && starts_with_ci(rest, "-----BEGIN") {
        let line_end = rest.iter().position(|&x| x == b'\n').unwrap_or(rest.len());
        if rest[..line_end]
            .windows(11)
            .any(|w| w.eq_ignore_ascii_case(b"PRIVATE KEY"))
        {
            let end = find(rest, b"-----END")
                .and_then(|e| find(&rest[e + 8..], b"-----").map(|f| e + 8 + f + 5))
                .unwrap_or(rest.len());
            return Some((i, i + end));
        }
        return None;
    }
    if c == b'=' || c == b':' {
        // `KEY=value` / `key: value` after a credential-named identifier.
        return assignment_value(b, i);
    }
    if !at_boundary {
        return None;
    }
    // JSON Web Tokens: three base64url parts.
    if rest.starts_with(b"eyJ") {
        let end = token_end(b, i);
        let tok = &b[i..end];
        if tok.len() >= 30 && tok.iter().filter(|&&x| x == b'.').count() == 2 {
            return Some((i, end));
        }
    }
    // Authorization schemes.
    for scheme in ["bearer ", "basic ", "token "] {
        if starts_with_ci(rest, scheme) {
            let mut j = i + scheme.len();
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            let end = token_end(b, j);
            let tok = &b[j..end];
            let ok = if scheme == "basic " {
                // Basic credentials are base64: no `-`, `_` or `.`.
                tok.len() >= 8
                    && tok
                        .iter()
                        .all(|x| x.is_ascii_alphanumeric() || matches!(x, b'+' | b'/' | b'='))
                    && (tok
                        .iter()
                        .any(|x| x.is_ascii_digit() || matches!(x, b'+' | b'/' | b'='))
                        || looks_like_credential(tok))
            } else {
                looks_like_credential(tok)
            };
            if ok {
                return Some((j, end));
            }
        }
    }
    for (prefix, min) in TOKEN_PREFIXES {
        if rest.starts_with(prefix.as_bytes()) {
            let end = token_end(b, i + prefix.len());
            if end - (i + prefix.len()) >= *min {
                return Some((i, end));
            }
        }
    }
    if rest.starts_with(b"AKIA") || rest.starts_with(b"ASIA") {
        let end = token_end(b, i);
        if end - i >= 20 && rest[..20].iter().all(|x| x.is_ascii_uppercase() || x.is_ascii_digit()) {
            return Some((i, end));
        }
    }
    None
}

/// At `i` (the `:` of `scheme://user:password@host`): the password.
fn url_password(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let start = i + 3;
    let end = b[start..]
        .iter()
        .position(|&x| x == b'/' || x.is_ascii_whitespace() || x == b'"')
        .map_or(b.len(), |p| start + p);
    let authority = &b[start..end];
    let at = authority.iter().rposition(|&x| x == b'@')?;
    let colon = authority[..at].iter().position(|&x| x == b':')?;
    let (p0, p1) = (start + colon + 1, start + at);
    (p1 > p0 && &b[p0..p1] != REDACTED.as_bytes()).then_some((p0, p1))
}

/// At `i` (a `=` or `:` right after an identifier): if the identifier names a
/// credential, the range of the value that follows.
fn assignment_value(b: &[u8], i: usize) -> Option<(usize, usize)> {
    // Identifier before `i`, allowing spaces and a closing quote (escaped or
    // not): `"api_key": "…"`, `"api_key" : "…"`, `{\"password\":\"…\"}`.
    let mut k_end = i;
    while k_end > 0 && b[k_end - 1] == b' ' {
        k_end -= 1;
    }
    if k_end > 0 && matches!(b[k_end - 1], b'"' | b'\'') {
        k_end -= 1;
        if k_end > 0 && b[k_end - 1] == b'\\' {
            k_end -= 1;
        }
    }
    let mut k_start = k_end;
    while k_start > 0 && is_ident_byte(b[k_start - 1]) {
        k_start -= 1;
    }
    if k_start == k_end || k_end - k_start > 64 {
        return None;
    }
    let key = std::str::from_utf8(&b[k_start..k_end]).ok()?;
    if !is_secret_key(key) {
        return None;
    }
    let mut j = i + 1;
    while j < b.len() && b[j] == b' ' {
        j += 1;
    }
    if j + 1 < b.len() && b[j] == b'\\' && matches!(b[j + 1], b'"' | b'\'') {
        j += 1; // an escaped quote: `\"value\"`
    }
    let quoted = j < b.len() && matches!(b[j], b'"' | b'\'');
    if quoted {
        let q = b[j];
        let start = j + 1;
        let mut end = b[start..].iter().position(|&x| x == q).map_or(b.len(), |p| start + p);
        if end > start && b[end - 1] == b'\\' {
            end -= 1;
        }
        if end > start && &b[start..end] != REDACTED.as_bytes() {
            return Some((start, end));
        }
        return None;
    }
    // Unquoted: up to whitespace or a separator; a following scheme word
    // (`Authorization: Bearer xyz`) is covered by the scheme rule.
    if ["bearer ", "basic ", "token "]
        .iter()
        .any(|w| starts_with_ci(&b[j..], w))
    {
        return None;
    }
    let end = b[j..]
        .iter()
        .position(|&x| x.is_ascii_whitespace() || matches!(x, b',' | b';' | b'&' | b'"' | b'\'' | b'}' | b')'))
        .map_or(b.len(), |p| j + p);
    if end > j && &b[j..end] != REDACTED.as_bytes() {
        Some((j, end))
    } else {
        None
    }
}

/// A scheme credential: long enough, and not an English word (it has a
/// digit or a symbol, or is long).
fn looks_like_credential(tok: &[u8]) -> bool {
    let mixed_case =
        tok.len() >= 12 && tok[1..].iter().any(u8::is_ascii_uppercase) && tok.iter().any(u8::is_ascii_lowercase);
    tok.len() >= 8
        && (tok.len() >= 24
            || mixed_case
            || tok
                .iter()
                .any(|b| b.is_ascii_digit() || matches!(b, b'=' | b'+' | b'/' | b'_' | b'-' | b'.')))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_patterns() {
        let cases = [
            ("Authorization: Bearer abcdef123456", "Authorization: Bearer [REDACTED]"),
            ("Basic dXNlcjpwYXNz", "Basic [REDACTED]"),
            ("key sk-abcdefghijklmnop1234 end", "key [REDACTED] end"),
            ("ghp_ABCDEFGHIJKLMNOPQRST0123", "[REDACTED]"),
            ("github_pat_11ABCDEFG0123456789_abc", "[REDACTED]"),
            ("glpat-abcdefghijklmn", "[REDACTED]"),
            ("slack xoxb-123456789-abc", "slack [REDACTED]"),
            ("AKIAIOSFODNN7EXAMPLE", "[REDACTED]"),
            ("GITHUB_TOKEN=abc123 next", "GITHUB_TOKEN=[REDACTED] next"),
            ("password: hunter2", "password: [REDACTED]"),
            (r#"{"api_key": "s3cr3t-value"}"#, r#"{"api_key": "[REDACTED]"}"#),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nok",
                "[REDACTED]\nok",
            ),
            (
                "key: x\\n-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----",
                "key: x\\n[REDACTED]",
            ),
            (
                "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENG",
                "AWS_SECRET_ACCESS_KEY=[REDACTED]",
            ),
            (
                "Authorization: Token 9f8e7d6c5b4a39281706",
                "Authorization: Token [REDACTED]",
            ),
            (
                "postgres://admin:Sup3rS3cretPw@db:5432/x",
                "postgres://admin:[REDACTED]@db:5432/x",
            ),
            ("sk_live_abcdefghijklmnop", "[REDACTED]"),
            (
                "t eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV",
                "t [REDACTED]",
            ),
            (r#"{\"password\":\"hunter2\"}"#, r#"{\"password\":\"[REDACTED]\"}"#),
            (r#""client_secret" : "abc123xyz""#, r#""client_secret" : "[REDACTED]""#),
        ];
        for (input, want) in cases {
            assert_eq!(redact_text(input), want, "{input}");
        }
    }

    #[test]
    fn harmless_text_is_borrowed() {
        for s in [
            "hello, world",
            "task-list sk- short",
            "tokens: 12 spent",
            "risk-free",
            "Bearer tokens and basic information",
            "the token budget",
            "a basic key-value store",
            "see https://example.com/a:b@c",
        ] {
            assert!(matches!(redact_text(s), Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn keys_and_nested_values() {
        let mut v = json!({
            "headers": {"Authorization": "x", "X-Api-Key": 5},
            "password": "p", "tokens": 12, "token_total": null,
            "list": ["Bearer zzzz1234zzzz", "fine"],
        });
        assert!(redact_value(&mut v));
        assert_eq!(
            v,
            json!({
                "headers": {"Authorization": "[REDACTED]", "X-Api-Key": "[REDACTED]"},
                "password": "[REDACTED]", "tokens": 12, "token_total": null,
                "list": ["Bearer [REDACTED]", "fine"],
            })
        );
    }
}
