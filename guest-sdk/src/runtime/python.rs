//! Python's words for what a runtime following a Python reference shows:
//! a string's `repr`, a JSON value's Python type name, and the host's
//! schema refusals as the seed's schema subset words them. Shared by the
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
