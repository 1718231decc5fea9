//! A capability's input JSON Schema: compiled once when the capability is
//! built, checked by the broker after policy and before the handler runs
//! (a call whose input does not match is `invalid_input`, naming the JSON
//! pointer of the first mismatch), and shown to script authors
//! (`hwf capabilities`, [`super::catalog`]'s TypeScript declarations).

use hwf_core::error::{Error, ErrorCode, Result};
use serde_json::Value;

/// A compiled input schema.
pub struct InputSchema {
    schema: Value,
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for InputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputSchema")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl InputSchema {
    /// Compile `schema` (any JSON Schema draft `jsonschema` knows; remote
    /// `$ref`s are not fetched) for the capability `name`.
    ///
    /// # Errors
    ///
    /// `invalid_args` naming the capability when `schema` is not a valid
    /// JSON Schema.
    pub fn compile(name: &str, schema: Value) -> Result<Self> {
        // Numbers past the float range would panic jsonschema (`finite_numbers`).
        let finite = hwf_core::schema::finite_numbers(&schema);
        let validator = jsonschema::validator_for(finite.as_ref().unwrap_or(&schema)).map_err(|e| {
            Error::new(
                ErrorCode::InvalidArgs,
                format!("capability {name:?}: its input schema is not a valid JSON Schema: {e}"),
            )
        })?;
        Ok(Self { schema, validator })
    }

    /// The schema as given.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Check a call's input: `Err` names the JSON pointer of the first
    /// value that does not match (`/` for the input itself) and why.
    ///
    /// # Errors
    ///
    /// The mismatch, as one line.
    pub fn check(&self, input: &Value) -> std::result::Result<(), String> {
        let finite = hwf_core::schema::finite_numbers(input);
        match self.validator.iter_errors(finite.as_ref().unwrap_or(input)).next() {
            None => Ok(()),
            Some(e) => {
                let pointer = e.instance_path.to_string();
                let at = if pointer.is_empty() { "/".to_owned() } else { pointer };
                Err(format!("input does not match the capability's schema at {at}: {e}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_the_pointer_of_the_first_mismatch() {
        let s = InputSchema::compile(
            "deploy",
            json!({"type": "object", "required": ["env"], "properties": {"env": {"enum": ["staging", "prod"]}}}),
        )
        .expect("compiles");
        assert!(s.check(&json!({"env": "prod"})).is_ok());
        let e = s.check(&json!({"env": "moon"})).expect_err("refused");
        assert!(e.contains("at /env"), "{e}");
        let e = s.check(&json!({})).expect_err("refused");
        assert!(e.contains("at /:") && e.contains("env"), "{e}");
    }

    #[test]
    fn an_invalid_schema_is_invalid_args() {
        let e = InputSchema::compile("deploy", json!({"type": 7})).expect_err("refused");
        assert_eq!(e.code(), ErrorCode::InvalidArgs);
        assert!(e.message().contains("deploy"));
    }
}
