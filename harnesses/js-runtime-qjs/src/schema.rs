//! Checking an `agent({schema})` before the agent starts: a schema that is
//! not a JSON Schema (or the simple `{field: "type"}` form), or one that
//! contradicts itself, makes `agent()` throw a `TypeError`.

use serde_json::{Map, Value};

const TYPES: &[&str] = &["object", "array", "string", "number", "integer", "boolean", "null"];
/// Type names of the simple form (the host's list).
const SIMPLE: &[&str] = &[
    "string", "str", "text", "number", "float", "integer", "int", "boolean", "bool", "list", "array", "object", "dict",
    "map", "null", "any",
];
const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "prefixItems",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "additionalProperties",
    "patternProperties",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "format",
    "$defs",
    "definitions",
    "$ref",
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
];

fn subschema(v: &Value, path: &str) -> Result<(), String> {
    match v {
        Value::Bool(_) => Ok(()),
        Value::Object(m) => node(m, path),
        _ => Err(format!("{path}: a schema must be an object or a boolean")),
    }
}

fn number(m: &Map<String, Value>, key: &str, path: &str, whole: bool) -> Result<Option<f64>, String> {
    match m.get(key) {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(f) if !whole || (f >= 0.0 && f.fract() == 0.0) => Ok(Some(f)),
            _ => Err(format!(
                "{path}/{key}: must be a {}",
                if whole { "non-negative integer" } else { "number" }
            )),
        },
    }
}

fn node(m: &Map<String, Value>, path: &str) -> Result<(), String> {
    if let Some(t) = m.get("type") {
        let ok = match t {
            Value::String(s) => TYPES.contains(&s.as_str()),
            Value::Array(a) => !a.is_empty() && a.iter().all(|x| x.as_str().is_some_and(|s| TYPES.contains(&s))),
            _ => false,
        };
        if !ok {
            return Err(format!(
                "{path}/type: must be one of {} (or a list of them)",
                TYPES.join(", ")
            ));
        }
    }
    if let Some(p) = m.get("properties") {
        let Some(props) = p.as_object() else {
            return Err(format!("{path}/properties: must be an object"));
        };
        for (k, sub) in props {
            subschema(sub, &format!("{path}/properties/{k}"))?;
        }
    }
    if let Some(r) = m.get("required") {
        let Some(req) = r.as_array().filter(|a| a.iter().all(Value::is_string)) else {
            return Err(format!("{path}/required: must be a list of strings"));
        };
        if m.get("additionalProperties") == Some(&Value::Bool(false)) {
            let props = m.get("properties").and_then(Value::as_object);
            if let Some(k) = req
                .iter()
                .filter_map(Value::as_str)
                .find(|k| props.is_none_or(|p| !p.contains_key(*k)))
            {
                return Err(format!(
                    "{path}/required: {k:?} is required but ruled out by additionalProperties: false"
                ));
            }
        }
    }
    match m.get("items") {
        None | Some(Value::Bool(_)) => {}
        Some(Value::Array(list)) => {
            for (i, sub) in list.iter().enumerate() {
                subschema(sub, &format!("{path}/items/{i}"))?;
            }
        }
        Some(sub) => subschema(sub, &format!("{path}/items"))?,
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(v) = m.get(key) {
            let Some(list) = v.as_array().filter(|a| !a.is_empty()) else {
                return Err(format!("{path}/{key}: must be a non-empty list of schemas"));
            };
            for (i, sub) in list.iter().enumerate() {
                subschema(sub, &format!("{path}/{key}/{i}"))?;
            }
        }
    }
    for key in ["not", "additionalProperties"] {
        if let Some(v) = m.get(key) {
            subschema(v, &format!("{path}/{key}"))?;
        }
    }
    for key in ["$defs", "definitions", "patternProperties"] {
        if let Some(v) = m.get(key) {
            let Some(defs) = v.as_object() else {
                return Err(format!("{path}/{key}: must be an object of schemas"));
            };
            for (k, sub) in defs {
                subschema(sub, &format!("{path}/{key}/{k}"))?;
            }
        }
    }
    if m.get("enum").is_some_and(|e| !e.is_array()) {
        return Err(format!("{path}/enum: must be a list"));
    }
    for key in ["pattern", "format", "$ref"] {
        if m.get(key).is_some_and(|v| !v.is_string()) {
            return Err(format!("{path}/{key}: must be a string"));
        }
    }
    for (lo, hi, whole) in [
        ("minimum", "maximum", false),
        ("minLength", "maxLength", true),
        ("minItems", "maxItems", true),
        ("minProperties", "maxProperties", true),
    ] {
        let (a, b) = (number(m, lo, path, whole)?, number(m, hi, path, whole)?);
        if let (Some(a), Some(b)) = (a, b)
            && a > b
        {
            return Err(format!("{path}: {lo} {a} is greater than {hi} {b}"));
        }
    }
    for key in ["exclusiveMinimum", "exclusiveMaximum", "multipleOf"] {
        number(m, key, path, false)?;
    }
    Ok(())
}

/// Check a schema given to `agent()`.
///
/// # Errors
///
/// What is wrong with it, naming the keyword's path (`#/properties/x/type`).
pub fn check(schema: &Value) -> Result<(), String> {
    let Some(m) = schema.as_object() else {
        return Err("the schema must be an object (a JSON Schema with type: \"object\")".into());
    };
    let keyword = |k: &String| k.starts_with('$') || KEYWORDS.contains(&k.as_str());
    if !m.is_empty() && !m.keys().any(keyword) {
        // The simple form: `{field: "type"}` (a `?` suffix marks a field
        // that may be absent).
        for (field, ty) in m {
            let known = ty.as_str().is_some_and(|t| SIMPLE.contains(&t.trim_end_matches('?')));
            if !known {
                return Err(format!(
                    "field {field:?}: {ty} is not a type (use string, number, integer, boolean, array, object, null or any, or a JSON Schema)"
                ));
            }
        }
        return Ok(());
    }
    if let Some(t) = m.get("type")
        && t != "object"
    {
        return Err(format!(
            "the root of an agent schema must be {{type: \"object\"}}, not {t}"
        ));
    }
    node(m, "#")
}
