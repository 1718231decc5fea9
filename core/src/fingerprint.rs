//! Call fingerprints: `b3:<hex>` of the canonical JSON of `{kind, request}`.
//!
//! Canonical JSON: object keys sorted by their UTF-8 bytes, no whitespace,
//! strings escaped as serde_json escapes them. The JSON is streamed straight
//! into the hasher; nothing is allocated but the 64-character hex digest.

use serde_json::Value;
use std::fmt;
use std::io::Write;

/// A call fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Fingerprint(String);

impl Fingerprint {
    /// Fingerprint a call of `kind` with `request`.
    pub fn of(kind: &str, request: &Value) -> Self {
        let mut hasher = blake3::Hasher::new();
        // {"kind":<kind>,"request":<request>} — keys already in sorted order.
        hasher.update(b"{\"kind\":");
        write_canonical(&mut HashWriter(&mut hasher), &Value::String(kind.to_owned()));
        hasher.update(b",\"request\":");
        write_canonical(&mut HashWriter(&mut hasher), request);
        hasher.update(b"}");
        Self(format!("b3:{}", hasher.finalize().to_hex()))
    }

    /// The `b3:<hex>` text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

struct HashWriter<'a>(&'a mut blake3::Hasher);

impl Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Write `value` as canonical JSON (sorted keys, no whitespace).
pub fn write_canonical(out: &mut impl Write, value: &Value) {
    // Writes into a hasher or a Vec cannot fail.
    let _ = write_inner(out, value);
}

fn write_inner(out: &mut impl Write, value: &Value) -> std::io::Result<()> {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.write_all(b"{")?;
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                serde_json::to_writer(&mut *out, k)?;
                out.write_all(b":")?;
                if let Some(v) = map.get(k) {
                    write_inner(out, v)?;
                }
            }
            out.write_all(b"}")
        }
        Value::Array(items) => {
            out.write_all(b"[")?;
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write_inner(out, v)?;
            }
            out.write_all(b"]")
        }
        // serde_json keeps a number's text (`arbitrary_precision`): a
        // float is written in its shortest form (`1.50` and `15e-1` are one
        // request), an integer with all its digits.
        Value::Number(n) if !n.is_i64() && !n.is_u64() && !is_integer_text(n) => match n.as_f64() {
            Some(f) if f.is_finite() => serde_json::to_writer(&mut *out, &f).map_err(std::io::Error::other),
            _ => serde_json::to_writer(&mut *out, n).map_err(std::io::Error::other),
        },
        scalar => serde_json::to_writer(&mut *out, scalar).map_err(std::io::Error::other),
    }
}

/// Whether a number is written as a whole number (no fraction, no exponent).
fn is_integer_text(n: &serde_json::Number) -> bool {
    let text = n.to_string();
    let digits = text.strip_prefix('-').unwrap_or(&text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Canonical JSON as a string (for tests and tools).
pub fn canonical_string(value: &Value) -> String {
    let mut buf = Vec::new();
    write_canonical(&mut buf, value);
    String::from_utf8(buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_form_sorts_keys() {
        let v = json!({"b": 1, "a": {"d": [1, "x"], "c": null}});
        assert_eq!(canonical_string(&v), r#"{"a":{"c":null,"d":[1,"x"]},"b":1}"#);
    }

    /// serde_json keeps a number's text (`arbitrary_precision`); the
    /// canonical form writes a float in its shortest form, as before, and an
    /// integer with every digit.
    #[test]
    fn canonical_numbers_are_shortest_floats_and_exact_integers() {
        let v: Value =
            serde_json::from_str(r#"[1.50, 15e-1, 1e3, -0.0, 7, 1180591620717411303424, -18446744073709551617]"#)
                .expect("json");
        assert_eq!(
            canonical_string(&v),
            "[1.5,1.5,1000.0,-0.0,7,1180591620717411303424,-18446744073709551617]"
        );
    }

    #[test]
    fn fingerprint_is_stable_and_key_order_free() {
        let a = Fingerprint::of("agent", &json!({"agent": "x", "input": {"a": 1, "b": 2}}));
        let b = Fingerprint::of("agent", &json!({"input": {"b": 2, "a": 1}, "agent": "x"}));
        assert_eq!(a, b);
        assert!(a.as_str().starts_with("b3:") && a.as_str().len() == 67);
        // Same as hashing the canonical text directly.
        let text = r#"{"kind":"agent","request":{"agent":"x","input":{"a":1,"b":2}}}"#;
        assert_eq!(a.as_str(), format!("b3:{}", blake3::hash(text.as_bytes()).to_hex()));
        assert_ne!(
            a,
            Fingerprint::of("capability", &json!({"agent": "x", "input": {"a": 1, "b": 2}}))
        );
    }
}
