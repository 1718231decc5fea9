//! Python's words for what a runtime following a Python reference shows:
//! a string's and a JSON value's `repr`, a JSON value's Python type name,
//! Python's `==` of JSON values, the seed's `enum` widening, and the
//! host's schema refusals as the seed's schema subset words them. Shared by the
//! Python runtime (whose reference is the seed's VM) and the JSON runtime
//! (the seed's JSON runtime), whose messages are those of Python f-strings.

use serde_json::{Map, Value, json};

/// The name of the Python type the seed sees for a JSON value
/// (`type(v).__name__`): `int` or `float` by the number's text.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.to_string().contains(['.', 'e', 'E']) => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python's `repr` of a string (`{x!r}` in the seed's messages): single
/// quotes unless the text has a `'` and no `"`, backslash escapes for
/// `\\`, the quote, `\t`, `\n`, `\r` and what does not print (`\x85`,
/// `\u200b`, `\U000e0001`); other characters as they are.
pub fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if unprintable(c) => {
                let n = u32::from(c);
                if n <= 0xFF {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n <= 0xFFFF {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Whether Python's `str.isprintable` says no (and `repr` escapes the
/// character): the categories Cc, Cf, Co, Zs (but the space), Zl, Zp and
/// the noncharacters and unassigned planes of Cn, from Unicode 14 (CPython
/// 3.11's database; checked against `str.isprintable` for every code
/// point): the one difference is an unassigned code point inside an
/// assigned block, which Python escapes and this prints as it is.
fn unprintable(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00..=0x1F
            | 0x7F..=0xA0
            | 0xAD
            | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x890..=0x891
            | 0x8E2
            | 0x1680
            | 0x180E
            | 0x2000..=0x200F
            | 0x2028..=0x202F
            | 0x205F..=0x206F
            | 0x3000
            | 0xE000..=0xF8FF
            | 0xFDD0..=0xFDEF
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x13438
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0x3134B..=0xE00FF
            | 0xE01F0..=0x10FFFF
    ) || u32::from(c) & 0xFFFE == 0xFFFE
}

/// A host schema refusal (the broker's `schema_mismatch` reason, `field
/// /a/0: "b" is a required property`) in the words of the seed's schema
/// subset (`schema_subset._check_value`): a missing field is `output.a[0]
/// missing required field 'b'`, a wrong type `output.score expected
/// integer, got str` (the value named by its Python type, [`type_name`]),
/// a value outside an `enum` `output.r value is not one of the declared
/// enum values`, fields `additionalProperties: false` refuses `output has
/// unexpected field(s) ['i', 'j'] (additionalProperties: false)`. The root
/// is `output`. Any other reason is returned as it is.
pub fn schema_reason(problem: &str) -> String {
    let (path, what) = match problem.strip_prefix("field ").and_then(|p| p.split_once(": ")) {
        Some((pointer, what)) if pointer.starts_with('/') => {
            let mut path = "output".to_owned();
            for part in pointer.split('/').skip(1) {
                let part = part.replace("~1", "/").replace("~0", "~");
                if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
                    path.push('[');
                    path.push_str(&part);
                    path.push(']');
                } else {
                    path.push('.');
                    path.push_str(&part);
                }
            }
            (path, what)
        }
        _ => ("output".to_owned(), problem),
    };
    if let Some(field) = what.strip_suffix(" is a required property")
        && let Ok(name) = serde_json::from_str::<String>(field)
    {
        return format!("{path} missing required field {}", repr_str(&name));
    }
    if let Some((value, kind)) = what.rsplit_once(" is not of type ")
        && let Ok(kind) = serde_json::from_str::<String>(kind)
        && let Ok(value) = serde_json::from_str::<Value>(value)
    {
        return format!("{path} expected {kind}, got {}", type_name(&value));
    }
    if what.contains(" is not one of ") {
        return format!("{path} value is not one of the declared enum values");
    }
    if let Some(list) = what
        .strip_prefix("Additional properties are not allowed (")
        .and_then(|l| {
            l.strip_suffix(" was unexpected)")
                .or_else(|| l.strip_suffix(" were unexpected)"))
        })
        .and_then(|l| l.strip_prefix('\'')?.strip_suffix('\''))
    {
        let mut names: Vec<&str> = list.split("', '").collect();
        names.sort_unstable();
        names.dedup();
        let quoted: Vec<String> = names.iter().map(|n| repr_str(n)).collect();
        return format!(
            "{path} has unexpected field(s) [{}] (additionalProperties: false)",
            quoted.join(", ")
        );
    }
    problem.to_owned()
}

/// The Python type of an answer a host schema refusal says is not a dict:
/// text with no JSON in it (`str`), or a value the schema's object root
/// refused (`[1] is not of type "object"`: `list`). `None` for any other
/// reason. The runtimes word it as their reference refuses a non-dict
/// answer (`prompt child agent returned list, expected dict`, `agent 'x'
/// returned str, expected dict`).
pub fn not_a_dict(reason: &str) -> Option<String> {
    if reason.starts_with("the agent's output is not JSON") {
        return Some("str".to_owned());
    }
    schema_reason(reason)
        .strip_prefix("output expected object, got ")
        .map(str::to_owned)
}

/// The reason of a host schema refusal after its retries (`<reason> (after
/// N attempts)`, or the reason alone after one attempt) and the attempts.
pub fn schema_refusal(text: &str) -> (&str, Option<u32>) {
    match text
        .strip_suffix(" attempts)")
        .and_then(|r| r.rsplit_once(" (after "))
        .and_then(|(reason, n)| Some((reason, n.parse::<u32>().ok()?)))
    {
        Some((reason, n)) => (reason, Some(n)),
        None => (text, None),
    }
}

// ---- Python's view of JSON values (the seed's `==` and `repr`) --------------

/// A JSON number as Python's `json` reads it: an `int` of any size
/// (sign and digits, no leading zeros; `-0` is `0`) when its text has no
/// fraction or exponent, else a `float`.
#[derive(Debug, PartialEq)]
enum PyNum {
    Int { negative: bool, digits: String },
    Float(f64),
}

impl PyNum {
    fn of(v: &Value) -> Option<Self> {
        let text = match v {
            Value::Bool(b) => return Some(Self::int(false, if *b { "1" } else { "0" })),
            Value::Number(n) => n.to_string(),
            _ => return None,
        };
        if text.contains(['.', 'e', 'E']) {
            // `1e400` is `inf`, as Python's `float()` reads it.
            return text.parse::<f64>().ok().map(Self::Float);
        }
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text.as_str()),
        };
        Some(Self::int(negative, digits))
    }

    fn int(negative: bool, digits: &str) -> Self {
        let digits = digits.trim_start_matches('0');
        Self::Int {
            negative: negative && !digits.is_empty(),
            digits: digits.to_owned(),
        }
    }

    /// A float's exact value as an `Int`, if it is a whole number.
    fn whole(f: f64) -> Option<Self> {
        if !f.is_finite() || f.fract() != 0.0 {
            return None;
        }
        // mantissa · 2^exp, the mantissa below 2^53.
        let bits = f.abs().to_bits();
        let exp_bits = i32::try_from(bits >> 52).ok()?;
        let frac = bits & ((1 << 52) - 1);
        let (mut mantissa, mut exp) = if exp_bits == 0 {
            (frac, -1074)
        } else {
            (frac | (1 << 52), exp_bits - 1075)
        };
        while exp < 0 {
            // Whole, so the low bits shifted out are zeros.
            mantissa >>= 1;
            exp += 1;
        }
        // Little-endian decimal digits, doubled `exp` times.
        let mut digits: Vec<u8> = mantissa.to_string().bytes().rev().map(|b| b - b'0').collect();
        for _ in 0..exp {
            let mut carry = 0;
            for d in &mut digits {
                let x = *d * 2 + carry;
                *d = x % 10;
                carry = x / 10;
            }
            if carry > 0 {
                digits.push(carry);
            }
        }
        let text: String = digits.iter().rev().map(|d| char::from(b'0' + d)).collect();
        Some(Self::int(f.is_sign_negative(), &text))
    }
}

/// Python's `==` on two numbers: ints by their digits, floats by value, an
/// int and a float exactly (`9007199254740993 != 9007199254740992.0`).
fn py_num_eq(a: &PyNum, b: &PyNum) -> bool {
    match (a, b) {
        (PyNum::Float(x), PyNum::Float(y)) => x == y,
        (PyNum::Float(f), i @ PyNum::Int { .. }) | (i @ PyNum::Int { .. }, PyNum::Float(f)) => {
            PyNum::whole(*f).is_some_and(|w| w == *i)
        }
        (x, y) => x == y,
    }
}

/// Python-style equality, as the seed compares in Python: numbers by value
/// (`1 == 1.0`, exactly: big ints by their digits, an int and a float
/// without rounding), a `bool` as the `int` it is (`true == 1`,
/// `false == 0`), lists item by item and objects key by key with the same
/// rule (`[1, 2] == [1.0, 2.0]`).
pub fn eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, p)| y.get(k).is_some_and(|q| eq(p, q)))
        }
        _ => match (PyNum::of(a), PyNum::of(b)) {
            (Some(x), Some(y)) => py_num_eq(&x, &y),
            _ => a == b,
        },
    }
}

/// Python's `repr` of a float: the shortest text that reads back, fixed
/// between 1e-4 and 1e16 (`0.0001`, `1e+16`, `1.0`, `-0.0`, `inf`).
fn repr_float(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    // `{:e}` is the shortest round-trip digits: `-1.25e-5`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let point = exp + 1; // digits before the decimal point
    if !(-3..=16).contains(&point) {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{esign}{:02}", exp.abs());
    }
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(usize::try_from(-point).unwrap_or(0)))
    } else {
        let point = usize::try_from(point).unwrap_or(0);
        if digits.len() <= point {
            format!("{digits}{}.0", "0".repeat(point - digits.len()))
        } else {
            format!("{}.{}", &digits[..point], &digits[point..])
        }
    };
    format!("{sign}{body}")
}

/// Python's `repr` of a JSON value as the seed loads it (`{x!r}`):
/// `None`, `True`, `1`, `2.5`, `'s'`, `[1, 'a']`, `{'k': None}`.
pub fn repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Number(n) => match PyNum::of(v) {
            Some(PyNum::Int { digits, .. }) if digits.is_empty() => "0".into(),
            Some(PyNum::Int { negative, digits }) => format!("{}{digits}", if negative { "-" } else { "" }),
            Some(PyNum::Float(f)) => repr_float(f),
            None => n.to_string(),
        },
        Value::String(s) => repr_str(s),
        Value::Array(items) => format!("[{}]", items.iter().map(repr).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, x)| format!("{}: {}", repr_str(k), repr(x)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reprs_quote_as_python() {
        assert_eq!(repr_str("a"), "'a'");
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("both ' \""), "'both \\' \"'");
        assert_eq!(repr_str("tab\there\n"), "'tab\\there\\n'");
        assert_eq!(repr_str("\u{85}\u{200b}é"), "'\\x85\\u200bé'");
    }

    #[test]
    fn type_names_are_pythons() {
        let n = |s: &str| serde_json::from_str::<Value>(s).expect("json");
        assert_eq!(type_name(&n("4")), "int");
        assert_eq!(type_name(&n("4.0")), "float");
        assert_eq!(type_name(&n("4e0")), "float");
        assert_eq!(type_name(&n("123456789012345678901234567890")), "int");
        assert_eq!(type_name(&json!(null)), "NoneType");
        assert_eq!(type_name(&json!([1])), "list");
    }

    #[test]
    fn schema_refusals_in_the_seeds_words() {
        assert_eq!(
            schema_reason("field /a/0: \"b\" is a required property"),
            "output.a[0] missing required field 'b'"
        );
        assert_eq!(
            schema_reason("\"score\" is a required property"),
            "output missing required field 'score'"
        );
        assert_eq!(
            schema_reason("field /findings/1/score: \"9\" is not of type \"number\""),
            "output.findings[1].score expected number, got str"
        );
        assert_eq!(
            schema_reason("field /n: 4.0 is not of type \"integer\""),
            "output.n expected integer, got float"
        );
        assert_eq!(
            schema_reason("[1] is not of type \"object\""),
            "output expected object, got list"
        );
        assert_eq!(
            schema_reason("field /r: \"c\" is not one of \"a\" or \"b\""),
            "output.r value is not one of the declared enum values"
        );
        assert_eq!(
            schema_reason("Additional properties are not allowed ('j', 'i' were unexpected)"),
            "output has unexpected field(s) ['i', 'j'] (additionalProperties: false)"
        );
        assert_eq!(
            schema_reason("field /a/0: Additional properties are not allowed ('x' was unexpected)"),
            "output.a[0] has unexpected field(s) ['x'] (additionalProperties: false)"
        );
        assert_eq!(
            schema_reason("field /a~1b: 3 is less than 5"),
            "field /a~1b: 3 is less than 5"
        );
        assert_eq!(schema_refusal("x is wrong (after 3 attempts)"), ("x is wrong", Some(3)));
        assert_eq!(schema_refusal("x is wrong"), ("x is wrong", None));
        assert_eq!(not_a_dict("[1] is not of type \"object\""), Some("list".to_owned()));
        assert_eq!(
            not_a_dict("the agent's output is not JSON (expected value at line 1 column 1)"),
            Some("str".to_owned())
        );
        assert_eq!(not_a_dict("field /n: 4.0 is not of type \"integer\""), None);
    }

    #[test]
    fn enums_widen_to_what_pythons_in_finds() {
        let mut s = json!({"type": "object", "properties": {
            "v": {"enum": [1, "x"]},
            "l": {"enum": [[true, 2]]},
            "o": {"enum": [{"k": 0}]},
            "many": {"enum": [{"a": 1, "b": 2}]}
        }});
        widen_enums(&mut s, false);
        assert_eq!(s["properties"]["v"]["enum"], json!([1, true, "x"]));
        assert_eq!(s["properties"]["l"]["enum"], json!([[true, 2], [1, 2]]));
        assert_eq!(s["properties"]["o"]["enum"], json!([{"k": 0}, {"k": false}]));
        // An object of several keys cannot be widened: kept, or dropped
        // for a caller that checks it itself.
        assert_eq!(s["properties"]["many"]["enum"], json!([{"a": 1, "b": 2}]));
        widen_enums(&mut s, true);
        assert!(s["properties"]["many"].get("enum").is_none());
    }
}

/// The most values a widened `enum` member may stand for.
const MAX_VARIANTS: usize = 64;

/// Widen every `enum` under a seed schema node (its `properties` and
/// `items`), so that the broker's check finds what Python's `in` finds: a
/// member that is a number equal to 1 or 0 also admits `true` / `false`,
/// and a boolean also admits `1` / `0` (`True == 1`), inside lists and
/// objects too (the broker compares JSON values, where `true != 1`). An
/// `enum` whose members stand for more than 64 values (`MAX_VARIANTS`), or
/// hold an object of several keys (which the broker compares in key
/// order), is dropped when `drop_unwidenable` (the caller checks it
/// itself, as the JSON runtime does) and kept as it is otherwise.
pub fn widen_enums(node: &mut Value, drop_unwidenable: bool) {
    let Some(map) = node.as_object_mut() else { return };
    if let Some(Value::Array(members)) = map.get("enum") {
        let mut widened: Vec<Value> = Vec::new();
        let mut whole = true;
        for m in members {
            match variants(m) {
                Some(vs) => {
                    for v in vs {
                        if !widened.contains(&v) {
                            widened.push(v);
                        }
                    }
                }
                None => whole = false,
            }
        }
        if whole {
            map.insert("enum".into(), Value::Array(widened));
        } else if drop_unwidenable {
            map.remove("enum");
        }
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        props.values_mut().for_each(|p| widen_enums(p, drop_unwidenable));
    }
    if let Some(items) = map.get_mut("items") {
        widen_enums(items, drop_unwidenable);
    }
}

/// `v` and every value that differs from it only by booleans and the
/// numbers 1 / 0 standing for each other (`v` first), or `None` past
/// [`MAX_VARIANTS`] or for an object of more than one key.
fn variants(v: &Value) -> Option<Vec<Value>> {
    let out = match v {
        Value::Bool(b) => vec![v.clone(), json!(u8::from(*b))],
        Value::Number(n) if n.as_f64() == Some(1.0) => vec![v.clone(), json!(true)],
        Value::Number(n) if n.as_f64() == Some(0.0) => vec![v.clone(), json!(false)],
        Value::Array(items) => {
            let mut acc: Vec<Vec<Value>> = vec![Vec::new()];
            for item in items {
                let vs = variants(item)?;
                acc = acc
                    .iter()
                    .flat_map(|pre| {
                        vs.iter().map(move |x| {
                            let mut next = pre.clone();
                            next.push(x.clone());
                            next
                        })
                    })
                    .collect();
                if acc.len() > MAX_VARIANTS {
                    return None;
                }
            }
            acc.into_iter().map(Value::Array).collect()
        }
        // The broker's validator compares objects key by key in their order
        // (the keys keep the order they were written in), where Python's `==`
        // ignores it: an object of two keys or more is no member the broker
        // can match, so that `enum` is the seed's check alone.
        Value::Object(m) if m.len() > 1 => return None,
        // One key (or none): its value's variants, each under the key.
        Value::Object(m) => match m.iter().next() {
            None => vec![v.clone()],
            Some((k, item)) => variants(item)?
                .into_iter()
                .map(|x| Value::Object(Map::from_iter([(k.clone(), x)])))
                .collect(),
        },
        _ => vec![v.clone()],
    };
    Some(out)
}
