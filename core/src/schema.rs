//! Agent output schemas: the simple `{"field": "type"}` form or a JSON
//! Schema, and the output clean-up done before validation.
//!
//! Simple form: every value is a type name — `string`, `number`,
//! `integer`, `boolean`, `list`/`array`, `object`, `null`, `any` — with an
//! optional `?` suffix for "may be absent". It becomes an object schema with
//! those properties required. Anything with JSON Schema keywords (`type`,
//! `properties`, `$schema`, …) is used as a JSON Schema. Remote `$ref`s are
//! never fetched.
//!
//! A script runtime may ask for its reference's rules for one call in an
//! `x-hwf` entry at the schema's root ([`AnswerRules`]); the broker takes it
//! off at the door, so it reaches neither the agent nor the fingerprint.

use serde_json::{Map, Value, json};

/// The key of the answer rules at a schema's root ([`AnswerRules`]).
pub const ANSWER_RULES_KEY: &str = "x-hwf";

/// The custom JSON Schema keyword that refuses an integer written as a
/// float (`4.0`, `4e0`): added where a schema asks for an `integer` when
/// [`AnswerRules::whole_integers`] is set.
const WHOLE_INTEGER_KEYWORD: &str = "x-hwf-whole-integer";

/// How the broker checks one agent call's answer, beyond its schema: what
/// a script runtime asks for so a script gets its reference's behaviour
/// (the seed's Python broker makes 3 attempts, refuses `4.0` for an
/// `integer` and any answer that is not an object; the seed's JSON runtime
/// checks an output once, itself).
///
/// Written in the schema as `{"x-hwf": {"attempts": 3, "whole_integers":
/// true, "object_answer": true}, …}`; [`take_answer_rules`] reads and
/// removes it. A rule only ever makes the check stricter or shorter: none
/// skips it, so an answer the broker accepts always met its schema, and a
/// refused one is a failed call (a resume asks the agent again).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AnswerRules {
    /// At most this many attempts (1 or more); the run's
    /// `max_schema_retries` + 1 when absent, and never more than that.
    pub attempts: Option<u32>,
    /// An `integer` must be written as one: `4.0` is a float (Python's
    /// `isinstance(v, int)`), where JSON Schema counts it as an integer.
    pub whole_integers: bool,
    /// The answer must be an object, whatever the schema's root says.
    pub object_answer: bool,
    /// A `kanban.<profile>` call a board takes as a card checks the card's
    /// result against the schema, not its whole outcome (the seed's
    /// durable `kanban_agent` in Python; a JSON step's `output_schema`
    /// names the outcome's fields).
    pub card_result: bool,
    /// A retry carries its reason in the request's `context`, as
    /// `schema_validation_error: {attempt, max_retries, code, message}`
    /// (the seed's broker), besides the feedback every retry gets.
    pub retry_context: bool,
}

impl AnswerRules {
    /// Whether an answer these rules accept is one `other` accepts too:
    /// the same checks (the attempts and a retry's context change how an
    /// answer is asked for, not what is accepted).
    pub fn checks_like(&self, other: &Self) -> bool {
        self.whole_integers == other.whole_integers
            && self.object_answer == other.object_answer
            && self.card_result == other.card_result
    }
}

/// The most attempts [`AnswerRules::attempts`] may name (the largest
/// `max_schema_retries`, 100, plus one).
pub const MAX_ANSWER_ATTEMPTS: u32 = 101;

/// Take the [`AnswerRules`] off a schema's root (`x-hwf`), leaving the
/// schema itself. A schema without the entry gives the default rules.
///
/// # Errors
///
/// A message naming what is wrong with the entry: not an object, an
/// unknown rule, or a value of the wrong kind or out of range. The entry is
/// removed either way.
pub fn take_answer_rules(schema: &mut Value) -> Result<AnswerRules, String> {
    let Some(entry) = schema.as_object_mut().and_then(|m| m.shift_remove(ANSWER_RULES_KEY)) else {
        return Ok(AnswerRules::default());
    };
    let Value::Object(entry) = entry else {
        return Err(format!(
            "`{ANSWER_RULES_KEY}` must be an object of answer rules (attempts, whole_integers, object_answer, card_result, retry_context)"
        ));
    };
    let mut rules = AnswerRules::default();
    for (key, value) in &entry {
        let flag = || {
            value
                .as_bool()
                .ok_or_else(|| format!("`{ANSWER_RULES_KEY}.{key}` must be true or false, not {value}"))
        };
        match key.as_str() {
            "attempts" => {
                let n = value
                    .as_u64()
                    .filter(|n| (1..=u64::from(MAX_ANSWER_ATTEMPTS)).contains(n))
                    .ok_or_else(|| {
                        format!("`{ANSWER_RULES_KEY}.attempts` must be an integer from 1 to {MAX_ANSWER_ATTEMPTS}, not {value}")
                    })?;
                rules.attempts = u32::try_from(n).ok();
            }
            "whole_integers" => rules.whole_integers = flag()?,
            "object_answer" => rules.object_answer = flag()?,
            "card_result" => rules.card_result = flag()?,
            "retry_context" => rules.retry_context = flag()?,
            other => {
                return Err(format!(
                    "`{ANSWER_RULES_KEY}` has no rule {other:?} (attempts, whole_integers, object_answer, card_result, retry_context)"
                ));
            }
        }
    }
    Ok(rules)
}

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
    /// Refuse an integer written as a float ([`AnswerRules::whole_integers`]).
    whole_integers: bool,
    /// Refuse an answer that is not an object ([`AnswerRules::object_answer`]).
    object_answer: bool,
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
        Self::compile_with(schema, &AnswerRules::default())
    }

    /// Compile a schema (either form) to be checked under `rules` (its
    /// `whole_integers` and `object_answer`; the broker applies the rest).
    ///
    /// # Errors
    ///
    /// A message naming what is wrong with the schema.
    pub fn compile_with(schema: &Value, rules: &AnswerRules) -> Result<Self, String> {
        let mut json_schema = to_json_schema(schema);
        name_extra_fields(&mut json_schema);
        if rules.whole_integers {
            mark_integers(&mut json_schema);
        }
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
            whole_integers: rules.whole_integers,
            object_answer: rules.object_answer,
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
                let schema = finite.as_ref().unwrap_or(&self.json_schema);
                let built = if self.whole_integers {
                    jsonschema::options()
                        .with_keyword(WHOLE_INTEGER_KEYWORD, |_, _, path| Ok(Box::new(WholeInteger { path })))
                        .build(schema)
                } else {
                    jsonschema::validator_for(schema)
                };
                built.map_err(|e| format!("invalid schema: {e}"))
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
                "integer" | "int" => v.as_number().is_some_and(written_as_integer),
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
        // In the validator's words for a root of another type, which a
        // runtime may reword (`[1] is not of type "object"`).
        if self.object_answer && !output.is_object() {
            return Err(format!("{output} is not of type \"object\""));
        }
        if let Some(fields) = &self.simple
            && Self::simple_accepts(fields, output)
        {
            return Ok(());
        }
        let finite = finite_numbers(output);
        let instance = finite.as_ref().unwrap_or(output);
        let validator = self.validator()?;
        if validator.is_valid(instance) {
            return Ok(());
        }
        match first_problem(&self.json_schema, validator.iter_errors(instance)) {
            // Refused without a reported problem (not expected): the
            // validator's own first error, never an acceptance.
            None => Err(match validator.validate(instance) {
                Err(e) => e.to_string(),
                Ok(()) => "the answer does not match its schema".to_owned(),
            }),
            Some(e) => {
                let path = e.instance_path.to_string();
                let what = match &e.kind {
                    jsonschema::error::ValidationErrorKind::AdditionalProperties { .. } => {
                        unexpected_fields(validator, instance, &e.instance_path)
                    }
                    _ => e.to_string(),
                };
                if path.is_empty() {
                    Err(what)
                } else {
                    Err(format!("field {path}: {what}"))
                }
            }
        }
    }
}

/// Where the seed's schema subset checks a keyword at one place
/// (`schema_subset._check_value`): `type`, then `enum`, then `required`,
/// then each property's value, then `additionalProperties`.
fn keyword_rank(kind: &jsonschema::error::ValidationErrorKind) -> u8 {
    use jsonschema::error::ValidationErrorKind as K;
    match kind {
        K::Type { .. } | K::Custom { .. } => 0,
        K::Enum { .. } | K::Constant { .. } => 1,
        K::Required { .. } => 2,
        K::AdditionalProperties { .. } => 4,
        _ => 3,
    }
}

/// The problem to report of an answer's several: the one a depth-first
/// check meets first, as the seed's (and most people's) reading goes: a
/// place's own type, enum and required fields before its fields' values,
/// its refused extra fields after them; fields in the order the schema's
/// `properties` declares them, items in index order; anything else keeps
/// the validator's order.
fn first_problem<'a>(
    schema: &Value,
    errors: impl Iterator<Item = jsonschema::ValidationError<'a>>,
) -> Option<jsonschema::ValidationError<'a>> {
    let before = |a: &jsonschema::ValidationError<'_>, b: &jsonschema::ValidationError<'_>| -> bool {
        let (pa, pb) = (a.instance_path.to_string(), b.instance_path.to_string());
        let (ra, rb) = (keyword_rank(&a.kind), keyword_rank(&b.kind));
        let under = |outer: &str, inner: &str| inner.starts_with(outer) && inner[outer.len()..].starts_with('/');
        if pa == pb {
            ra < rb
        } else if under(&pa, &pb) {
            // `a` is at a place holding `b`.
            ra < 4
        } else if under(&pb, &pa) {
            rb >= 4
        } else {
            sibling_before(schema, &pa, &pb)
        }
    };
    errors.fold(None, |best, e| match best {
        Some(b) if !before(&e, &b) => Some(b),
        _ => Some(e),
    })
}

/// Whether, of two places neither of which holds the other, the seed's
/// reading reaches `a` first: where their paths part, two items by index,
/// two fields by their order in the schema's `properties` there.
fn sibling_before(schema: &Value, a: &str, b: &str) -> bool {
    let segments = |p: &str| -> Vec<String> {
        p.split('/')
            .skip(1)
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect()
    };
    let (sa, sb) = (segments(a), segments(b));
    let Some(i) = sa.iter().zip(&sb).position(|(x, y)| x != y) else {
        return false;
    };
    if let (Ok(x), Ok(y)) = (sa[i].parse::<u64>(), sb[i].parse::<u64>()) {
        return x < y;
    }
    // The schema node at the place both paths share.
    let mut node = schema;
    for seg in &sa[..i] {
        node = match node.get("properties").and_then(|p| p.get(seg.as_str())) {
            Some(sub) => sub,
            None => match node.get("items") {
                Some(items) if items.is_object() => items,
                _ => return false,
            },
        };
    }
    let Some(props) = node.get("properties").and_then(Value::as_object) else {
        return false;
    };
    match (
        props.keys().position(|k| *k == sa[i]),
        props.keys().position(|k| *k == sb[i]),
    ) {
        (Some(x), Some(y)) => x < y,
        _ => false,
    }
}

/// Every field `additionalProperties` refuses at one place, in one
/// message, sorted (`Additional properties are not allowed ('i', 'j' were
/// unexpected)`): the validator reports one error per field.
fn unexpected_fields(validator: &jsonschema::Validator, instance: &Value, at: &jsonschema::paths::Location) -> String {
    let mut names: Vec<String> = validator
        .iter_errors(instance)
        .filter(|e| &e.instance_path == at)
        .filter_map(|e| match e.kind {
            jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } => Some(unexpected),
            _ => None,
        })
        .flatten()
        .collect();
    names.sort();
    names.dedup();
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    let verb = if names.len() == 1 { "was" } else { "were" };
    format!(
        "Additional properties are not allowed ({} {verb} unexpected)",
        quoted.join(", ")
    )
}

/// Whether a number is written as an integer: digits alone, after an
/// optional sign (`arbitrary_precision` keeps the text, so an integer past
/// 2^64 is one too; `4.0` and `4e0` are not).
fn written_as_integer(n: &serde_json::Number) -> bool {
    if n.is_i64() || n.is_u64() {
        return true;
    }
    let text = n.to_string();
    let digits = text.strip_prefix('-').unwrap_or(&text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Call `visit` on every subschema of `schema` (an object node), its own
/// subschemas first. A schema's `enum`, `const`, `default` and `examples`
/// are data, not schemas, and are left alone; a map from names to schemas
/// (`properties`, `$defs`, …) is read name by name, so a field named
/// `default` is a schema like any other.
fn for_each_subschema(schema: &mut Value, visit: &mut impl FnMut(&mut serde_json::Map<String, Value>)) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match key.as_str() {
                    "enum" | "const" | "default" | "examples" => {}
                    "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                        if let Value::Object(named) = value {
                            named.values_mut().for_each(|sub| for_each_subschema(sub, visit));
                        }
                    }
                    _ => for_each_subschema(value, visit),
                }
            }
            visit(map);
        }
        Value::Array(items) => items.iter_mut().for_each(|sub| for_each_subschema(sub, visit)),
        _ => {}
    }
}

/// Add [`WHOLE_INTEGER_KEYWORD`] to every subschema whose `type` asks for
/// an `integer` and not for a `number` (which would take the float).
fn mark_integers(schema: &mut Value) {
    for_each_subschema(schema, &mut |map| {
        let integer_only = match map.get("type") {
            Some(Value::String(t)) => t == "integer",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer") && !ts.iter().any(|t| t == "number"),
            _ => false,
        };
        if integer_only {
            map.insert(WHOLE_INTEGER_KEYWORD.to_owned(), Value::Bool(true));
        }
    });
}

/// Give every `additionalProperties: false` without `properties` an empty
/// `properties`, which validates the same: the validator then reports the
/// refused fields as extra fields (`Additional properties are not allowed
/// ('a', 'b' were unexpected)`, which the runtimes word as the seed does)
/// rather than each as `False schema does not allow 1`.
fn name_extra_fields(schema: &mut Value) {
    for_each_subschema(schema, &mut |map| {
        if map.get("additionalProperties") == Some(&Value::Bool(false))
            && !map.contains_key("properties")
            && !map.contains_key("patternProperties")
        {
            map.insert("properties".to_owned(), Value::Object(serde_json::Map::new()));
        }
    });
}

/// [`WHOLE_INTEGER_KEYWORD`]: a number written as a float is not an integer.
struct WholeInteger {
    path: jsonschema::paths::Location,
}

impl jsonschema::Keyword for WholeInteger {
    fn validate<'i>(
        &self,
        instance: &'i Value,
        location: &jsonschema::paths::LazyLocation,
    ) -> Result<(), jsonschema::ValidationError<'i>> {
        if self.is_valid(instance) {
            return Ok(());
        }
        Err(jsonschema::ValidationError::custom(
            self.path.clone(),
            location.into(),
            instance,
            format!("{instance} is not of type \"integer\""),
        ))
    }

    fn is_valid(&self, instance: &Value) -> bool {
        !matches!(instance, Value::Number(n) if !written_as_integer(n))
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
    fn answer_rules_come_off_the_schema_root() {
        let mut schema =
            json!({"x-hwf": {"attempts": 3, "whole_integers": true, "object_answer": true}, "n": "integer"});
        let rules = take_answer_rules(&mut schema).expect("rules");
        assert_eq!(
            rules,
            AnswerRules {
                attempts: Some(3),
                whole_integers: true,
                object_answer: true,
                card_result: false,
                retry_context: false,
            }
        );
        assert_eq!(schema, json!({"n": "integer"}));
        let mut plain = json!({"type": "object"});
        assert_eq!(take_answer_rules(&mut plain), Ok(AnswerRules::default()));
        assert_eq!(take_answer_rules(&mut json!("text")), Ok(AnswerRules::default()));
        for (bad, says) in [
            (json!({"x-hwf": 3}), "must be an object"),
            (json!({"x-hwf": {"attempts": 0}}), "from 1 to 101, not 0"),
            (json!({"x-hwf": {"attempts": 102}}), "not 102"),
            (json!({"x-hwf": {"attempts": 2.5}}), "not 2.5"),
            (
                json!({"x-hwf": {"object_answer": "yes"}}),
                "`x-hwf.object_answer` must be true or false",
            ),
            (json!({"x-hwf": {"unchecked": true}}), "no rule \"unchecked\""),
            (json!({"x-hwf": {"retries": 1}}), "no rule \"retries\""),
        ] {
            let mut schema = bad;
            let err = take_answer_rules(&mut schema).expect_err("refused");
            assert!(err.contains(says), "{err}");
            assert!(schema.get(ANSWER_RULES_KEY).is_none());
        }
    }

    #[test]
    fn whole_integers_refuse_an_integer_written_as_a_float() {
        let parse = |s: &str| serde_json::from_str::<Value>(s).expect("json");
        let strict = AnswerRules {
            whole_integers: true,
            ..AnswerRules::default()
        };
        let schemas = [
            json!({"n": "integer"}),
            json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
            json!({"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}),
            json!({"type": "object", "properties": {"n": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}}),
        ];
        for schema in &schemas {
            let lenient = OutputSchema::compile(schema).expect("schema");
            let whole = OutputSchema::compile_with(schema, &strict).expect("schema");
            for ok in [
                r#"{"n": 4}"#,
                r#"{"n": -4}"#,
                r#"{"n": 123456789012345678901234567890}"#,
            ] {
                // Whole numbers are checked as before (jsonschema's own
                // rules for an integer past 2^64 included).
                assert_eq!(
                    whole.check(&parse(ok)).is_ok(),
                    lenient.check(&parse(ok)).is_ok(),
                    "{schema} {ok}"
                );
            }
            for float in [r#"{"n": 4.0}"#, r#"{"n": 4e0}"#, r#"{"n": -4.0}"#, r#"{"n": 1e400}"#] {
                let err = whole.check(&parse(float)).expect_err("a float");
                assert!(err.starts_with("field /n: "), "{err}");
            }
        }
        // JSON Schema's own rule takes `4.0` for an `integer`.
        let lenient = OutputSchema::compile(&schemas[1]).expect("schema");
        assert!(lenient.check(&parse(r#"{"n": 4.0}"#)).is_ok());
        let err = OutputSchema::compile_with(&json!({"n": "integer"}), &strict)
            .expect("schema")
            .check(&parse(r#"{"n": 4.0}"#))
            .expect_err("a float");
        assert_eq!(err, r#"field /n: 4.0 is not of type "integer""#);
        // A number field takes the float, and data is never marked.
        let number = OutputSchema::compile_with(
            &json!({"type": "object", "properties": {"n": {"type": ["integer", "number"]}, "e": {"enum": [{"type": "integer"}]}}}),
            &strict,
        )
        .expect("schema");
        assert!(number.check(&parse(r#"{"n": 4.0, "e": {"type": "integer"}}"#)).is_ok());
        // A field named like a data keyword is a field.
        let named = OutputSchema::compile_with(
            &json!({"type": "object", "properties": {"default": {"type": "integer"}, "enum": {"type": "integer"}}}),
            &strict,
        )
        .expect("schema");
        assert!(named.check(&parse(r#"{"default": 4.0}"#)).is_err());
        assert!(named.check(&parse(r#"{"enum": 4.0}"#)).is_err());
        assert!(named.check(&parse(r#"{"default": 4, "enum": 5}"#)).is_ok());
    }

    #[test]
    fn an_object_answer_is_required_whatever_the_root() {
        let rules = AnswerRules {
            object_answer: true,
            ..AnswerRules::default()
        };
        let list = OutputSchema::compile_with(&json!({"type": "array"}), &rules).expect("schema");
        assert_eq!(
            list.check(&json!([1])),
            Err(r#"[1] is not of type "object""#.to_owned())
        );
        assert!(
            OutputSchema::compile(&json!({"type": "array"}))
                .expect("schema")
                .check(&json!([1]))
                .is_ok()
        );
        let flat = OutputSchema::compile_with(&json!({"a": "string"}), &rules).expect("schema");
        assert_eq!(
            flat.check(&json!("a")),
            Err(r#""a" is not of type "object""#.to_owned())
        );
        assert!(flat.check(&json!({"a": "x"})).is_ok());
    }

    #[test]
    fn the_first_problem_is_the_one_a_depth_first_reading_meets() {
        let s = OutputSchema::compile(&json!({"a": "string", "b": "integer"})).expect("schema");
        assert_eq!(
            s.check(&json!({"a": 5})),
            Err("\"b\" is a required property".to_owned())
        );
        let nested = OutputSchema::compile(&json!({"type": "object", "additionalProperties": false,
            "properties": {"a": {"type": "object", "properties": {"n": {"type": "integer"}}}}}))
        .expect("schema");
        assert_eq!(
            nested.check(&json!({"a": {"n": "x"}, "z": 1})),
            Err("field /a/n: \"x\" is not of type \"integer\"".to_owned()),
            "a field's value before the extra fields around it"
        );
        // Fields in the schema's order, whatever the answer's.
        let ordered = OutputSchema::compile(&json!({"type": "object", "additionalProperties": false,
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}))
        .expect("schema");
        assert_eq!(
            ordered.check(&json!({"b": 1, "a": 2})),
            Err("field /a: 2 is not of type \"string\"".to_owned())
        );
        let items = OutputSchema::compile(&json!({"type": "array", "items": {"type": "integer"}})).expect("schema");
        assert_eq!(
            items.check(&json!([1, "x", "y"])),
            Err("field /1: \"x\" is not of type \"integer\"".to_owned())
        );
    }

    #[test]
    fn every_unexpected_field_is_named_once() {
        let s = OutputSchema::compile(
            &json!({"type": "object", "properties": {"k": {"type": "integer"}}, "additionalProperties": false}),
        )
        .expect("schema");
        assert_eq!(
            s.check(&json!({"k": 1, "j": 2, "i": 3})),
            Err("Additional properties are not allowed ('i', 'j' were unexpected)".to_owned())
        );
        assert_eq!(
            s.check(&json!({"k": 1, "j": 2})),
            Err("Additional properties are not allowed ('j' was unexpected)".to_owned())
        );
        // Without `properties` too, at the root and deeper (the validator
        // alone says `False schema does not allow 1` per field).
        let bare = OutputSchema::compile(&json!({"type": "object", "additionalProperties": false})).expect("schema");
        assert_eq!(
            bare.check(&json!({"b": 1, "a": 2})),
            Err("Additional properties are not allowed ('a', 'b' were unexpected)".to_owned())
        );
        assert_eq!(bare.check(&json!({})), Ok(()));
        let deep = OutputSchema::compile(&json!({"type": "object", "properties": {
            "meta": {"type": "object", "additionalProperties": false}
        }}))
        .expect("schema");
        assert_eq!(
            deep.check(&json!({"meta": {"x": 1}})),
            Err("field /meta: Additional properties are not allowed ('x' was unexpected)".to_owned())
        );
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
