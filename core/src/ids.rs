//! Host-only identifiers: safe names, run ids, call ids.
//!
//! Script names and run ids become path segments under the state directory,
//! so both must match `^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`: no separators,
//! no `..`, nothing hidden, nothing long.

use crate::error::{Error, ErrorCode, Result};
use std::fmt;

/// Check that `name` is a single safe path segment.
///
/// # Errors
///
/// `invalid_name` naming the value and the rule it breaks.
pub fn validate_name(what: &str, name: &str) -> Result<()> {
    let bytes = name.as_bytes();
    let ok = !bytes.is_empty()
        && bytes.len() <= 128
        && bytes[0].is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        && !name.contains("..");
    if ok {
        Ok(())
    } else {
        let shown: String = name.chars().take(64).collect();
        Err(Error::new(
            ErrorCode::InvalidName,
            format!(
                "{what} {shown:?} is not allowed: use 1-128 characters [A-Za-z0-9_.-], starting with a letter or digit, without \"..\""
            ),
        ))
    }
}

/// A run id: a safe name, time-ordered when generated here.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct RunId(String);

impl RunId {
    /// A new, unique, time-ordered run id (`r<uuid v7 hex>`).
    pub fn generate() -> Self {
        Self(format!("r{}", uuid::Uuid::now_v7().simple()))
    }

    /// Parse a caller-supplied run id.
    ///
    /// # Errors
    ///
    /// `invalid_name` when it is not a safe path segment.
    pub fn parse(s: &str) -> Result<Self> {
        validate_name("run id", s)?;
        Ok(Self(s.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The position of an instance in the call tree: the root instance has an
/// empty prefix; a branch started by call `3`, slot `2` numbers its calls
/// `3.2.1`, `3.2.2`, …
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallScope {
    prefix: String,
    next: u64,
}

impl CallScope {
    /// The root instance's scope.
    pub fn root() -> Self {
        Self::default()
    }

    /// A child scope whose calls are numbered `<parent>.1`, `<parent>.2`, …
    pub fn child(parent: &str) -> Self {
        Self {
            prefix: format!("{parent}."),
            next: 0,
        }
    }

    /// Allocate the next call id in this scope.
    pub fn next_id(&mut self) -> String {
        self.next += 1;
        self.id_of(self.next)
    }

    /// The id prefix (`""` at the root, `"3.1."` in a branch).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The call that started this scope (`""` at the root).
    pub fn parent(&self) -> &str {
        self.prefix.strip_suffix('.').unwrap_or("")
    }

    /// The id of call number `n` in this scope.
    pub fn id_of(&self, n: u64) -> String {
        format!("{}{n}", self.prefix)
    }

    /// How many calls this scope has made.
    pub fn count(&self) -> u64 {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["hello", "a", "loop-until-dry", "v1.2_x", &"a".repeat(128)] {
            assert!(validate_name("name", ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "../x",
            "..",
            ".hidden",
            "a/b",
            "a\\b",
            "a b",
            "-x",
            &"a".repeat(129),
            "a..b",
            "é",
        ] {
            let err = validate_name("name", bad).expect_err(bad);
            assert_eq!(err.code(), ErrorCode::InvalidName);
        }
    }

    #[test]
    fn run_ids_are_safe_and_ordered() {
        let a = RunId::generate();
        let b = RunId::generate();
        assert!(validate_name("run id", a.as_str()).is_ok());
        assert!(a < b);
    }

    #[test]
    fn call_scopes() {
        let mut root = CallScope::root();
        assert_eq!(root.next_id(), "1");
        assert_eq!(root.next_id(), "2");
        let mut child = CallScope::child("2.3");
        assert_eq!(child.next_id(), "2.3.1");
    }
}
