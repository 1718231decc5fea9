//! Agent output schemas: the simple `{"field": "type"}` form or a JSON
//! Schema, and the output clean-up done before validation.
//!
//! Simple form: every value is a type name — `string`, `number`,
//! `integer`, `boolean`, `list`/`array`, `object`, `null`, `any` — with an
//! optional `?` suffix for "may be absent". It becomes an object schema with
//! those properties required. Anything with JSON Schema keywords (`type`,
//! `properties`, `$schema`, …) is used as a JSON Schema. Remote `$ref`s are
//! never fetched.

use serde_json::{Map, Value, json};

const SCHEMA_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "additionalProperties",
    "pattern",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "format",
    "$defs",
    "definitions",
    "title",
    "description",
];

/// A compiled output schema.
///
/// A simple-form schema is checked by hand first: an output that passes is
/// one its JSON Schema accepts, so the `jsonschema` validator (whose first
/// use in a process compiles the draft 2020-12 meta-schema, several ms of a
/// run's start-up) is built only to explain an output that does not pass.
#[derive(Debug)]
pub struct OutputSchema {
    /// The simple form's fields: name, type name, whether it may be absent.
    simple: Option<Vec<(String, String, bool)>>,
    json_schema: Value,
    validator: std::sync::OnceLock<std::result::Result<jsonschema::Validator, String>>,
}

fn simple_type(name: &str) -> Option<Value> {
    Some(match name {
        "string" | "str" | "text" => json!({"type": "string"}),
        "number" | "float" => json!({"type": "number"}),
        "integer" | "int" => json!({"type": "integer"}),
        "boolean" | "bool" => json!({"type": "boolean"}),
        "list" | "array" => json!({"type": "array"}),
        "object" | "dict" | "map" => json!({"type": "object"}),
        "null" => json!({"type": "null"}),
        "any" => json!({}),
        _ => return None,
    })
}

/// Whether `schema` is in the simple `{"field": "type"}` form.
fn is_simple_form(map: &Map<String, Value>) -> bool {
    if map.keys().any(|k| k.starts_with('$')) || map.contains_key("properties") {
        return false;
    }
    if map.keys().all(|k| SCHEMA_KEYWORDS.contains(&k.as_str())) && map.contains_key("type") {
        return false;
    }
    map.values().all(|v| {
        v.as_str()
            .is_some_and(|t| simple_type(t.trim_end_matches('?')).is_some())
    })
}

/// Turn a schema in either form into a JSON Schema.
pub fn to_json_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) if is_simple_form(map) => {
            let mut props = Map::new();
            let mut required = Vec::new();
            for (field, ty) in map {
                let ty = ty.as_str().unwrap_or("any");
                let optional = ty.ends_with('?');
                props.insert(
                    field.clone(),
                    simple_type(ty.trim_end_matches('?')).unwrap_or_else(|| json!({})),
                );
                if !optional {
                    required.push(Value::String(field.clone()));
                }
            }
            json!({"type": "object", "properties": props, "required": required})
        }
        other => other.clone(),
    }
}

impl OutputSchema {
    /// Compile a schema (either form).
    ///
    /// # Errors
    ///
    /// A message naming what is wrong with the schema.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        let json_schema = to_json_schema(schema);
        let simple = match schema {
            Value::Object(map) if is_simple_form(map) => Some(
                map.iter()
                    .map(|(field, ty)| {
                        let ty = ty.as_str().unwrap_or("any");
                        (field.clone(), ty.trim_end_matches('?').to_owned(), ty.ends_with('?'))
                    })
                    .collect(),
            ),
            _ => None,
        };
        let compiled = Self {
            simple,
            json_schema,
            validator: std::sync::OnceLock::new(),
        };
        // A simple form's JSON Schema is valid by construction; any other
        // schema is compiled (and so checked) now.
        if compiled.simple.is_none() {
            compiled.validator()?;
        }
        Ok(compiled)
    }

    fn validator(&self) -> Result<&jsonschema::Validator, String> {
        self.validator
            .get_or_init(|| {
                let finite = finite_numbers(&self.json_schema);
                jsonschema::validator_for(finite.as_ref().unwrap_or(&self.json_schema))
                    .map_err(|e| format!("invalid schema: {e}"))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Whether a simple form surely accepts `output` (`false` also when
    /// unsure: the JSON Schema then decides).
    fn simple_accepts(fields: &[(String, String, bool)], output: &Value) -> bool {
        let Value::Object(map) = output else { return false };
        fields.iter().all(|(field, ty, optional)| match map.get(field) {
            None => *optional,
            Some(v) => match ty.as_str() {
                "string" | "str" | "text" => v.is_string(),
                "number" | "float" => v.is_number(),
                // 1.0 is an integer to JSON Schema too: left to it.
                "integer" | "int" => {
                    v.is_i64()
                        || v.is_u64()
                        || v.as_number().is_some_and(|n| {
                            // An integer past 2^64 keeps its digits (`arbitrary_precision`).
                            n.to_string()
                                .trim_start_matches('-')
                                .bytes()
                                .all(|b| b.is_ascii_digit())
                        })
                }
                "boolean" | "bool" => v.is_boolean(),
                "list" | "array" => v.is_array(),
                "object" | "dict" | "map" => v.is_object(),
                "null" => v.is_null(),
                "any" => true,
                _ => false,
            },
        })
    }

    /// Validate an output; the error names the field.
    ///
    /// # Errors
    ///
    /// The first validation error, as `<field path>: <problem>`.
    pub fn check(&self, output: &Value) -> Result<(), String> {
        if let Some(fields) = &self.simple
            && Self::simple_accepts(fields, output)
        {
            return Ok(());
        }
        let finite = finite_numbers(output);
        match self.validator()?.validate(finite.as_ref().unwrap_or(output)) {
            Ok(()) => Ok(()),
            Err(e) => {
                let path = e.instance_path.to_string();
                if path.is_empty() {
                    Err(e.to_string())
                } else {
                    Err(format!("field {path}: {e}"))
                }
            }
        }
    }
}

/// A copy of `value` whose numbers lie beyond the float range (`1e400`,
/// which `arbitrary_precision` keeps as its text) replaced by the largest
/// float of their sign; `None` when `value` has none. jsonschema 0.33
/// panics when it type-checks or compares such a number (`{"type":
/// "integer"}`, an `enum` holding one), so the schema and the instance are
/// both checked through this copy: an overflowing answer compares as the
/// float the seed's Python reads it as (`inf`) does against every bound,
/// and equal to an overflowing `enum` member of its sign.
pub fn finite_numbers(value: &Value) -> Option<Value> {
    fn beyond_floats(n: &serde_json::Number) -> bool {
        n.as_f64().is_none_or(f64::is_infinite) && !n.is_i64() && !n.is_u64()
    }
    fn has_any(value: &Value) -> bool {
        match value {
            Value::Number(n) => beyond_floats(n),
            Value::Array(items) => items.iter().any(has_any),
            Value::Object(map) => map.values().any(has_any),
            _ => false,
        }
    }
    fn replace(value: &Value) -> Value {
        match value {
            Value::Number(n) if beyond_floats(n) => {
                let negative = n.to_string().starts_with('-');
                json!(if negative { f64::MIN } else { f64::MAX })
            }
            Value::Array(items) => Value::Array(items.iter().map(replace).collect()),
            Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), replace(v))).collect()),
            other => other.clone(),
        }
    }
    has_any(value).then(|| replace(value))
}

/// Unwrap an agent's text output: strip a markdown code fence and parse the
/// JSON inside. Non-string outputs are returned as they are.
///
/// # Errors
///
/// The output is text that is not JSON.
pub fn parse_text_output(output: Value) -> Result<Value, String> {
    let Value::String(text) = output else { return Ok(output) };
    let inner = unfence(&text);
    serde_json::from_str(inner).map_err(|e| format!("the agent's output is not JSON ({e})"))
}

fn unfence(text: &str) -> &str {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix("```") {
        // Skip the info string (`json`) up to the first newline.
        let body = rest.split_once('\n').map_or("", |(_, b)| b);
        return body.trim_end().strip_suffix("```").unwrap_or(body).trim();
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_form() {
        let s = OutputSchema::compile(&json!({"bugs": "list", "followups": "list"})).expect("compile");
        assert!(s.check(&json!({"bugs": [], "followups": []})).is_ok());
        let err = s.check(&json!({"bugs": []})).expect_err("missing");
        assert!(err.contains("followups"), "{err}");
        let err = s.check(&json!({"bugs": 3, "followups": []})).expect_err("type");
        assert!(err.contains("/bugs"), "{err}");
        let opt = OutputSchema::compile(&json!({"a": "string?"})).expect("compile");
        assert!(opt.check(&json!({})).is_ok());
    }

    #[test]
    fn the_simple_check_accepts_only_what_the_json_schema_accepts() {
        let types = [
            "string", "str", "text", "number", "float", "integer", "int", "boolean", "bool", "list", "array", "object",
            "dict", "map", "null", "any",
        ];
        let values = [
            json!("s"),
            json!(1),
            json!(-1),
            json!(1.0),
            json!(1.5),
            json!(u64::MAX),
            json!(true),
            json!([]),
            json!({}),
            json!(null),
        ];
        for ty in types {
            for optional in [false, true] {
                let name = if optional { format!("{ty}?") } else { ty.to_owned() };
                let schema = json!({ "f": name, "g": "any" });
                let compiled = OutputSchema::compile(&schema).expect("compile");
                let reference = jsonschema::validator_for(&to_json_schema(&schema)).expect("reference");
                let mut outputs: Vec<Value> = values.iter().map(|v| json!({ "f": v, "g": 1 })).collect();
                outputs.extend([json!({}), json!({ "g": 1 }), json!("text"), json!([1]), json!(null)]);
                for output in &outputs {
                    let fields = compiled.simple.as_deref().expect("simple form");
                    if OutputSchema::simple_accepts(fields, output) {
                        assert!(reference.is_valid(output), "{name} accepted {output}");
                    }
                    assert_eq!(
                        compiled.check(output).is_ok(),
                        reference.is_valid(output),
                        "{name} on {output}"
                    );
                }
            }
        }
    }

    #[test]
    fn json_schema_form() {
        let s = OutputSchema::compile(
            &json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
        )
        .expect("compile");
        assert!(s.check(&json!({"n": 1})).is_ok());
        assert!(s.check(&json!({"n": "x"})).is_err());
        assert!(OutputSchema::compile(&json!({"type": 5})).is_err());
    }

    #[test]
    fn numbers_past_the_float_range_are_checked_not_a_panic() {
        let parse = |s: &str| serde_json::from_str::<Value>(s).expect("json");
        let integer = OutputSchema::compile(&json!({"type": "object", "properties": {"n": {"type": "integer"}}}))
            .expect("schema");
        let number =
            OutputSchema::compile(&json!({"type": "object", "properties": {"n": {"type": "number"}}})).expect("schema");
        let bounded =
            OutputSchema::compile(&json!({"type": "object", "properties": {"n": {"maximum": 10}}})).expect("schema");
        let huge = parse(r#"{"n": 1e400}"#);
        let tiny = parse(r#"{"n": -1e400}"#);
        assert!(number.check(&huge).is_ok());
        assert!(number.check(&tiny).is_ok());
        assert!(bounded.check(&huge).is_err(), "inf is above every bound");
        assert!(bounded.check(&tiny).is_ok());
        // The float the seed reads it as is no integer there; JSON Schema
        // takes an integral float for one, so this is only "no panic".
        let _ = integer.check(&huge);
        let in_enum = OutputSchema::compile(&parse(r#"{"enum": [1e400, 5]}"#)).expect("schema");
        assert!(in_enum.check(&json!(5)).is_ok());
        assert!(in_enum.check(&parse("1e400")).is_ok());
        assert!(in_enum.check(&json!(6)).is_err());
        assert!(in_enum.check(&parse("-1e400")).is_err());
        // A big int keeps its digits and is not touched.
        assert_eq!(finite_numbers(&parse("[123456789012345678901234567890]")), None);
    }

    #[test]
    fn fences() {
        assert_eq!(
            parse_text_output(json!("```json\n{\"a\": 1}\n```")).expect("fenced"),
            json!({"a": 1})
        );
        assert_eq!(
            parse_text_output(json!(" {\"a\": 1} ")).expect("plain"),
            json!({"a": 1})
        );
        assert!(parse_text_output(json!("hello")).is_err());
        assert_eq!(parse_text_output(json!({"a": 1})).expect("object"), json!({"a": 1}));
    }
}
