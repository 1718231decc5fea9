//! What a host's capabilities look like to script authors: a listing
//! (`hwf capabilities`, [`Registry::catalog`]) and TypeScript declarations
//! of the ones with an input schema ([`Registry::typescript`]) that extend
//! `hwf.d.ts`'s `HwfCapabilities`, so `capability("deploy", {...})` is
//! type-checked like a built-in.

use super::{Registry, SideEffect};
use serde::Serialize;
use serde_json::Value;

/// One capability as listed for script authors and operators.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CapabilityInfo {
    /// Its name.
    pub name: String,
    /// Its side-effect class.
    pub class: SideEffect,
    /// What it does.
    pub description: String,
    /// Whether it is one of the stock built-ins (every `hwf` offers them).
    pub builtin: bool,
    /// Its input JSON Schema, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
}

impl Registry {
    /// Every capability, by name.
    pub fn catalog(&self) -> Vec<CapabilityInfo> {
        self.iter()
            .map(|c| CapabilityInfo {
                name: c.name.clone(),
                class: c.class,
                description: c.description.clone(),
                builtin: self.is_builtin(&c.name),
                input_schema: c.input_schema.as_ref().map(|s| s.schema().clone()),
            })
            .collect()
    }

    /// TypeScript declarations of the capabilities with an input schema:
    /// an `interface HwfCapabilities` that merges with `hwf.d.ts`'s (empty
    /// when none has a schema). Put it beside `hwf.d.ts` as
    /// `capabilities.d.ts`.
    pub fn typescript(&self) -> String {
        let mut out = String::new();
        for c in self.iter() {
            let Some(schema) = &c.input_schema else { continue };
            if out.is_empty() {
                out.push_str(
                    "// The host's capabilities (generated from their input schemas).\ninterface HwfCapabilities {\n",
                );
            }
            let doc = format!("{} ({})", c.description, c.class.as_str());
            out.push_str(&format!("  /** {} */\n", doc.replace("*/", "*\\/").trim()));
            out.push_str(&format!(
                "  {}: {{ input: {}; output: any }};\n",
                serde_json::to_string(&c.name).unwrap_or_default(),
                ts_type(schema.schema(), 2)
            ));
        }
        if !out.is_empty() {
            out.push_str("}\n");
        }
        out
    }
}

/// The TypeScript type a JSON Schema describes, as far as a type can say
/// (`any` past what it can).
fn ts_type(schema: &Value, indent: usize) -> String {
    let Some(map) = schema.as_object() else {
        return if schema == &Value::Bool(false) {
            "never".into()
        } else {
            "any".into()
        };
    };
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        return union(values.iter().map(|v| serde_json::to_string(v).unwrap_or_default()));
    }
    if let Some(v) = map.get("const") {
        return serde_json::to_string(v).unwrap_or_default();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(parts) = map.get(key).and_then(Value::as_array) {
            return union(parts.iter().map(|p| ts_type(p, indent)));
        }
    }
    match map.get("type") {
        Some(Value::String(t)) => one_type(t, map, indent),
        Some(Value::Array(ts)) => union(ts.iter().filter_map(Value::as_str).map(|t| one_type(t, map, indent))),
        _ if map.contains_key("properties") => one_type("object", map, indent),
        _ => "any".into(),
    }
}

fn one_type(t: &str, map: &serde_json::Map<String, Value>, indent: usize) -> String {
    match t {
        "string" => "string".into(),
        "number" | "integer" => "number".into(),
        "boolean" => "boolean".into(),
        "null" => "null".into(),
        "array" => match map.get("items") {
            Some(items) => format!("Array<{}>", ts_type(items, indent)),
            None => "any[]".into(),
        },
        "object" => {
            let Some(props) = map.get("properties").and_then(Value::as_object) else {
                return "{ [key: string]: any }".into();
            };
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let pad = " ".repeat(indent + 2);
            let mut s = String::from("{\n");
            for (k, v) in props {
                if let Some(d) = v.get("description").and_then(Value::as_str) {
                    s.push_str(&format!("{pad}/** {} */\n", d.replace("*/", "*\\/")));
                }
                let opt = if required.contains(&k.as_str()) { "" } else { "?" };
                s.push_str(&format!(
                    "{pad}{}{opt}: {};\n",
                    serde_json::to_string(k).unwrap_or_default(),
                    ts_type(v, indent + 2)
                ));
            }
            s.push_str(&" ".repeat(indent));
            s.push('}');
            s
        }
        _ => "any".into(),
    }
}

fn union(parts: impl Iterator<Item = String>) -> String {
    let parts: Vec<String> = parts.collect();
    if parts.is_empty() {
        "never".into()
    } else {
        parts.join(" | ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capabilities::Capability;
    use serde_json::json;

    #[test]
    fn a_schema_becomes_a_typescript_input_type() {
        let mut r = Registry::new();
        r.register(
            Capability::from_fn("deploy", SideEffect::ExternalWrite, |_| async { Ok(json!({})) })
                .describe("Deploy a service")
                .with_input_schema(json!({
                    "type": "object",
                    "required": ["service", "env"],
                    "properties": {
                        "service": {"type": "string", "description": "what to deploy"},
                        "env": {"enum": ["staging", "prod"]},
                        "replicas": {"type": "integer"},
                        "tags": {"type": "array", "items": {"type": "string"}}
                    }
                }))
                .expect("schema"),
        )
        .expect("register");
        r.register(Capability::from_fn("plain", SideEffect::ReadOnly, |_| async {
            Ok(json!(1))
        }))
        .expect("register");
        let ts = r.typescript();
        assert!(ts.starts_with("// The host's capabilities"), "{ts}");
        assert!(ts.contains("\"deploy\": { input: {"), "{ts}");
        assert!(ts.contains("\"service\": string;"), "{ts}");
        assert!(ts.contains("\"env\": \"staging\" | \"prod\";"), "{ts}");
        assert!(ts.contains("\"replicas\"?: number;"), "{ts}");
        assert!(ts.contains("\"tags\"?: Array<string>;"), "{ts}");
        assert!(!ts.contains("plain"), "{ts}");
        let listed = r.catalog();
        assert_eq!(listed.len(), 2);
        assert!(listed.iter().all(|c| !c.builtin));
        assert!(listed[0].input_schema.is_some());
    }
}
