//! `output_schema` as the seed reads it (`schema_subset.py`): the legacy
//! flat `{field: type}` form (every field required, a hint the seed's alias
//! table does not name unconstrained) or a JSON Schema subset (`type`,
//! `properties`, `required`, `items`, `enum`, `additionalProperties`).
//! [`to_json_schema`] turns either into the JSON Schema the host's broker
//! validates agent output against (and retries on); [`validate`] then checks
//! the broker's answer with the seed's own rules, which the broker's JSON
//! Schema does not share: a number is an `int` or a `float` by its text
//! (`2.0` is not an `integer`), and `enum` is Python's `in` (`true` is in
//! `[1, 0]`), for which [`to_json_schema`] widens each `enum` it hands the
//! broker with the Python-equal values.

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
/// `array`, …), or `None` for an unknown hint. Used for `inputs`, where
/// hwf also reads `"type?"` and `"null"`.
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

/// The subset type a flat `output_schema` hint names, by the seed's alias
/// table (`_LEGACY_TYPE_ALIASES`, case-insensitive), or `None`: any other
/// hint (`"string?"`, `"null"`, `"any"`, `"datetime"`) leaves the field
/// unconstrained, though still required.
fn legacy_type(hint: &str) -> Option<&'static str> {
    // The seed's aliases are `type_name`'s without its `?` suffix and `null`.
    let t = type_name(hint)?;
    (!hint.ends_with('?') && t != "null").then_some(t)
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
        return Err(format!(
            "schema{path}: subschema must be an object, got {}",
            crate::py::type_name(node)
        ));
    };
    // Every unknown keyword, sorted, as the seed names them.
    let mut bad: Vec<&String> = map.keys().filter(|k| !KEYWORDS.contains(&k.as_str())).collect();
    if !bad.is_empty() {
        bad.sort();
        let names: Vec<String> = bad.iter().map(|k| format!("{k:?}")).collect();
        return Err(format!(
            "schema{path}: unsupported schema keyword(s) [{}]",
            names.join(", ")
        ));
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

/// The seed's normalized form of an `output_schema` (a flat one as
/// `{type: object, properties, required}`), or `None` when nothing is
/// declared (an empty object).
fn normalize(schema: &Value) -> Option<Value> {
    let map = schema.as_object()?;
    if map.is_empty() {
        return None;
    }
    if is_subset(map) {
        return Some(schema.clone());
    }
    let mut props = Map::new();
    for (field, hint) in map {
        let ty = hint.as_str().and_then(legacy_type);
        props.insert(field.clone(), ty.map_or_else(|| json!({}), |t| json!({"type": t})));
    }
    let required: Vec<Value> = map.keys().cloned().map(Value::String).collect();
    Some(json!({"type": "object", "properties": props, "required": required}))
}

/// The JSON Schema for an `output_schema` as the broker gets it, or `None`
/// when nothing is declared (an empty object): the seed's normalized form,
/// each `enum` widened with the values Python's `in` also finds in it.
pub fn to_json_schema(schema: &Value) -> Option<Value> {
    let mut js = normalize(schema)?;
    // Past its limits an `enum` is left to [`validate`].
    hwf_guest::runtime::python::widen_enums(&mut js, true);
    fit_for_broker(&mut js);
    Some(js)
}

/// Make every node of the seed's (checked) schema one the broker's JSON
/// Schema validator reads as the seed does:
/// - `additionalProperties` goes where the seed never reads it: it checks
///   an object's fields only under a node that says `"type": "object"` or
///   has `properties` or `required` (`schema_subset._check_value`), so
///   `{"additionalProperties": false}` alone admits any object there, which
///   the broker would refuse;
/// - `required` keeps each name once: the seed takes `["a", "a"]`, the
///   broker's validator refuses the whole schema (`non-unique elements`).
fn fit_for_broker(node: &mut Value) {
    let Some(map) = node.as_object_mut() else { return };
    let reads_fields = map.get("type").and_then(Value::as_str) == Some("object")
        || map.contains_key("properties")
        || map.contains_key("required");
    if !reads_fields {
        map.remove("additionalProperties");
    }
    if let Some(Value::Array(names)) = map.get_mut("required") {
        let mut seen: Vec<Value> = Vec::with_capacity(names.len());
        names.retain(|n| {
            let fresh = !seen.contains(n);
            if fresh {
                seen.push(n.clone());
            }
            fresh
        });
    }
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        props.values_mut().for_each(fit_for_broker);
    }
    if let Some(items) = map.get_mut("items") {
        fit_for_broker(items);
    }
}

/// Check an agent's output against its `output_schema` as the seed's
/// `schema_subset.validate` does, after the broker's JSON Schema check:
/// Python's types (`2.0` is a `float`, not an `integer`; a `bool` is no
/// number) and Python's `in` for `enum`.
///
/// # Errors
///
/// The seed's message (`output.n expected integer, got float`,
/// `output missing required field 'x'`, …).
pub fn validate(output: &Value, schema: &Value) -> Result<(), String> {
    match normalize(schema) {
        Some(node) => check_value(output, &node, "output"),
        None => Ok(()),
    }
}

fn check_value(value: &Value, node: &Value, path: &str) -> Result<(), String> {
    let ty = node.get("type").and_then(Value::as_str);
    if let Some(ty) = ty {
        let got = crate::py::type_name(value);
        let ok = match ty {
            "object" => got == "dict",
            "array" => got == "list",
            "string" => got == "str",
            "number" => got == "int" || got == "float",
            "integer" => got == "int",
            "boolean" => got == "bool",
            "null" => got == "NoneType",
            _ => true,
        };
        if !ok {
            return Err(format!("{path} expected {ty}, got {got}"));
        }
    }
    if let Some(members) = node.get("enum").and_then(Value::as_array)
        && !members.iter().any(|m| crate::py::eq(value, m))
    {
        return Err(format!("{path} value is not one of the declared enum values"));
    }
    let has = |k: &str| node.get(k).is_some();
    match value {
        Value::Object(obj) if ty == Some("object") || has("properties") || has("required") => {
            for name in node["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !obj.contains_key(name) {
                    return Err(format!("{path} missing required field {}", crate::py::repr_str(name)));
                }
            }
            let props = node.get("properties").and_then(Value::as_object);
            for (name, sub) in props.into_iter().flatten() {
                if let Some(v) = obj.get(name) {
                    check_value(v, sub, &format!("{path}.{name}"))?;
                }
            }
            if node.get("additionalProperties") == Some(&Value::Bool(false)) {
                let mut extra: Vec<&String> = obj
                    .keys()
                    .filter(|k| !props.is_some_and(|p| p.contains_key(k.as_str())))
                    .collect();
                if !extra.is_empty() {
                    extra.sort();
                    extra.dedup();
                    let list: Vec<String> = extra.iter().map(|k| crate::py::repr_str(k)).collect();
                    return Err(format!(
                        "{path} has unexpected field(s) [{}] (additionalProperties: false)",
                        list.join(", ")
                    ));
                }
            }
        }
        Value::Array(items) if ty == Some("array") || has("items") => {
            if let Some(sub) = node.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check_value(item, sub, &format!("{path}[{i}]"))?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(t: &str) -> Value {
        serde_json::from_str(t).expect("json")
    }

    /// The seed's verdicts and messages (`schema_subset.validate`, run in
    /// CPython on the same schema and payload).
    #[test]
    fn outputs_are_checked_with_the_seeds_python_rules() {
        let check = |out: &str, schema: &str| validate(&v(out), &v(schema));
        // `2.0` is a float to Python, so not an integer.
        assert_eq!(
            check(r#"{"n": 2.0}"#, r#"{"n": "integer"}"#),
            Err("output.n expected integer, got float".into())
        );
        assert_eq!(check(r#"{"n": 2}"#, r#"{"n": "int"}"#), Ok(()));
        assert_eq!(
            check(r#"{"n": 1e3}"#, r#"{"n": "Integer"}"#),
            Err("output.n expected integer, got float".into())
        );
        assert_eq!(
            check(r#"{"n": true}"#, r#"{"n": "number"}"#),
            Err("output.n expected number, got bool".into())
        );
        // `enum` is Python's `in`: `True == 1`, `1.0 == 1`.
        let flags = r#"{"type": "object", "properties": {"on": {"enum": [1, 0]}, "level": {"enum": [1, 2]}}, "required": ["on"]}"#;
        assert_eq!(check(r#"{"on": true, "level": 1.0}"#, flags), Ok(()));
        assert_eq!(
            check(r#"{"on": 2}"#, flags),
            Err("output.on value is not one of the declared enum values".into())
        );
        assert_eq!(
            check(r#"{"on": [true]}"#, r#"{"properties": {"on": {"enum": [[1]]}}}"#),
            Ok(())
        );
        // A flat hint outside the seed's table leaves the field unconstrained,
        // and every flat field is required (`"string?"` too).
        assert_eq!(check(r#"{"note": 5}"#, r#"{"note": "string?"}"#), Ok(()));
        assert_eq!(
            check(r#"{}"#, r#"{"note": "string?"}"#),
            Err("output missing required field 'note'".into())
        );
        assert_eq!(check(r#"{"x": 1}"#, r#"{"x": "null"}"#), Ok(()));
        assert_eq!(
            check(
                r#"{"a": 1, "z": 2, "b": 3}"#,
                r#"{"type": "object", "properties": {"a": {}}, "additionalProperties": false}"#
            ),
            Err("output has unexpected field(s) ['b', 'z'] (additionalProperties: false)".into())
        );
        assert_eq!(
            check(
                r#"{"xs": [1, "a"]}"#,
                r#"{"properties": {"xs": {"items": {"type": "integer"}}}}"#
            ),
            Err("output.xs[1] expected integer, got str".into())
        );
    }

    /// `additionalProperties` under a node without `type: object`,
    /// `properties` or `required` is not read by the seed, so the broker
    /// does not get it either; where the seed reads it, it stays. A
    /// `required` name given twice is handed on once.
    #[test]
    fn the_broker_gets_what_the_seed_reads_additional_properties_and_required() {
        let js = to_json_schema(&v(
            r#"{"type": "object", "properties": {"meta": {"additionalProperties": false}, "tags": {"items": {"additionalProperties": false}}, "cfg": {"required": [], "additionalProperties": false}}, "additionalProperties": false}"#,
        ))
        .expect("schema");
        assert!(js["properties"]["meta"].get("additionalProperties").is_none());
        assert!(js["properties"]["tags"]["items"].get("additionalProperties").is_none());
        assert_eq!(js["properties"]["cfg"]["additionalProperties"], v("false"));
        assert_eq!(js["additionalProperties"], v("false"));
        let root = to_json_schema(&v(r#"{"additionalProperties": false}"#)).expect("schema");
        assert_eq!(root, v("{}"));
        assert_eq!(
            validate(&v(r#"{"x": 1}"#), &v(r#"{"additionalProperties": false}"#)),
            Ok(())
        );
        assert_eq!(
            validate(
                &v(r#"{"meta": {"extra": true}}"#),
                &v(r#"{"properties": {"meta": {"additionalProperties": false}}}"#)
            ),
            Ok(())
        );
        // `required` naming a field twice: the seed takes it, the broker gets
        // each name once.
        let twice = to_json_schema(&v(
            r#"{"type": "object", "required": ["a", "b", "a"], "properties": {"c": {"required": ["x", "x"]}}}"#,
        ))
        .expect("schema");
        assert_eq!(twice["required"], v(r#"["a", "b"]"#));
        assert_eq!(twice["properties"]["c"]["required"], v(r#"["x"]"#));
    }

    /// A malformed schema is named as the seed names it: every unknown
    /// keyword, sorted, and the type of a subschema that is no object.
    #[test]
    fn malformed_schemas_are_named_as_the_seed_names_them() {
        assert_eq!(
            check(&v(
                r#"{"type": "object", "title": "t", "$schema": "x", "description": "d"}"#
            )),
            Err(r#"schema: unsupported schema keyword(s) ["$schema", "description", "title"]"#.into())
        );
        assert_eq!(
            check(&v(r#"{"type": "object", "properties": {"name": "string"}}"#)),
            Err("schema/properties/name: subschema must be an object, got str".into())
        );
        assert_eq!(
            check(&v(r#"{"type": "array", "items": [1]}"#)),
            Err("schema/items: subschema must be an object, got list".into())
        );
    }

    /// The broker gets each `enum` with the Python-equal booleans and
    /// numbers added, so it does not refuse what the seed accepts.
    #[test]
    fn enums_the_broker_gets_admit_python_equal_values() {
        let check_one = |out: &str| {
            validate(
                &v(out),
                &v(r#"{"properties": {"c": {"enum": [{"a": 1, "b": [true]}, "x"]}}}"#),
            )
        };
        let js = to_json_schema(&v(
            r#"{"properties": {"on": {"enum": [1, 0, "x"]}, "f": {"enum": [true, [0]]}}}"#,
        ))
        .expect("schema");
        assert_eq!(js["properties"]["on"]["enum"], v(r#"[1, true, 0, false, "x"]"#));
        assert_eq!(js["properties"]["f"]["enum"], v(r#"[true, 1, [0], [false]]"#));
        // The flat form: every field required, `"string?"` unconstrained.
        let flat = to_json_schema(&v(r#"{"note": "string?", "count": "Integer"}"#)).expect("schema");
        assert_eq!(
            flat,
            v(
                r#"{"type": "object", "properties": {"note": {}, "count": {"type": "integer"}}, "required": ["note", "count"]}"#
            )
        );
        // An object member of two keys: no enum for the broker, which
        // compares keys in order (`{"b": 1, "a": 2}` is Python-equal).
        let objs =
            to_json_schema(&v(r#"{"properties": {"c": {"enum": [{"a": 1, "b": [true]}, "x"]}}}"#)).expect("schema");
        assert!(objs["properties"]["c"].get("enum").is_none());
        assert_eq!(check_one(r#"{"c": {"b": [1], "a": 1.0}}"#), Ok(()));
        // Too many variants: no enum for the broker (the seed's check holds).
        let wide = format!(r#"{{"properties": {{"k": {{"enum": [[{}]]}}}}}}"#, ["1"; 7].join(","));
        assert!(
            to_json_schema(&v(&wide)).expect("schema")["properties"]["k"]
                .get("enum")
                .is_none()
        );
    }
}
