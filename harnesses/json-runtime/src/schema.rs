//! `output_schema` as the seed reads it: the legacy flat `{field: type}`
//! form (every field required, unknown hints unconstrained) or a JSON
//! Schema subset (`type`, `properties`, `required`, `items`, `enum`,
//! `additionalProperties`). [`to_json_schema`] turns either into the JSON
//! Schema the host's broker validates agent output against.

use serde_json::{Map, Value, json};

const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "enum",
    "additionalProperties",
];
const STRUCTURAL: &[&str] = &["properties", "items", "enum", "additionalProperties"];
const TYPES: &[&str] = &["object", "array", "string", "number", "integer", "boolean", "null"];

/// The subset type a legacy hint names (`str` → `string`, `list` →
/// `array`, …), or `None` for an unknown hint.
pub fn type_name(hint: &str) -> Option<&'static str> {
    Some(match hint.to_ascii_lowercase().trim_end_matches('?') {
        "string" | "str" => "string",
        "number" | "float" => "number",
        "int" | "integer" => "integer",
        "bool" | "boolean" => "boolean",
        "object" | "dict" => "object",
        "list" | "array" => "array",
        "null" => "null",
        _ => return None,
    })
}

/// Whether a schema reads as a declared subset schema rather than the flat
/// form (the seed's rule).
fn is_subset(map: &Map<String, Value>) -> bool {
    if map.contains_key("type") {
        return true;
    }
    if !map.keys().all(|k| KEYWORDS.contains(&k.as_str())) {
        return false;
    }
    STRUCTURAL.iter().any(|k| map.contains_key(*k)) || map.get("required").is_some_and(Value::is_array)
}

fn check_node(node: &Value, path: &str) -> Result<(), String> {
    let Some(map) = node.as_object() else {
        return Err(format!("schema{path}: a subschema must be an object"));
    };
    if let Some(bad) = map.keys().find(|k| !KEYWORDS.contains(&k.as_str())) {
        return Err(format!("schema{path}: unsupported schema keyword {bad:?}"));
    }
    if let Some(t) = map.get("type")
        && !t.as_str().is_some_and(|t| TYPES.contains(&t))
    {
        return Err(format!(
            "schema{path}/type: must be one of {}, got {t}",
            TYPES.join(", ")
        ));
    }
    if let Some(r) = map.get("required")
        && !r.as_array().is_some_and(|a| a.iter().all(Value::is_string))
    {
        return Err(format!("schema{path}/required: must be a list of strings"));
    }
    if let Some(props) = map.get("properties") {
        let Some(props) = props.as_object() else {
            return Err(format!(
                "schema{path}/properties: must be an object keyed by property name"
            ));
        };
        for (k, sub) in props {
            check_node(sub, &format!("{path}/properties/{k}"))?;
        }
    }
    if let Some(items) = map.get("items") {
        check_node(items, &format!("{path}/items"))?;
    }
    if let Some(e) = map.get("enum")
        && e.as_array().is_none_or(Vec::is_empty)
    {
        return Err(format!("schema{path}/enum: must be a non-empty list"));
    }
    if map.get("additionalProperties").is_some_and(|a| !a.is_boolean()) {
        return Err(format!("schema{path}/additionalProperties: must be a boolean"));
    }
    Ok(())
}

/// Check an `output_schema`.
///
/// # Errors
///
/// What is wrong with it (the seed's wording).
pub fn check(schema: &Value) -> Result<(), String> {
    match schema {
        Value::Object(map) if map.is_empty() => Ok(()),
        Value::Object(map) if is_subset(map) => check_node(schema, ""),
        Value::Object(_) => Ok(()),
        _ => Err("\"output_schema\" must be an object".into()),
    }
}

/// The JSON Schema for an `output_schema`, or `None` when nothing is
/// declared (an empty object).
pub fn to_json_schema(schema: &Value) -> Option<Value> {
    let map = schema.as_object()?;
    if map.is_empty() {
        return None;
    }
    if is_subset(map) {
        return Some(schema.clone());
    }
    let mut props = Map::new();
    let mut required = Vec::new();
    for (field, hint) in map {
        let hint_str = hint.as_str().unwrap_or("");
        props.insert(
            field.clone(),
            type_name(hint_str).map_or_else(|| json!({}), |t| json!({"type": t})),
        );
        // hwf extension: a `?` suffix makes the field optional.
        if !hint_str.ends_with('?') {
            required.push(Value::String(field.clone()));
        }
    }
    Some(json!({"type": "object", "properties": props, "required": required}))
}
