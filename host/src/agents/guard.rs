//! What a guest may pass as an agent call's `model` and `effort`.
//!
//! Both values reach agent backends verbatim — a command backend puts them
//! in its argv through `{model}` / `{effort}` — so a guest value such as
//! `--dangerously-skip-permissions` would become a flag of the CLI agent.
//! [`check_agent_options`] runs before any backend sees the call: a value
//! must be a plain name (it never starts with `-`, holds no whitespace,
//! `=`, braces, quotes, shell or path-traversal characters) and, when the
//! caller passes an allow-list (a backend's configured models), one of its
//! entries.
//!
//! Refusals are `invalid_model` / `invalid_effort` (the call fails; the
//! backend never runs). The broker checks every agent call
//! (`broker/execute.rs`), whatever backend answers it.

/// Longest accepted model name, in bytes.
pub const MAX_MODEL_LEN: usize = 128;
/// Longest accepted effort, in bytes.
pub const MAX_EFFORT_LEN: usize = 32;

/// Why a `model` or `effort` value was refused: the stable code
/// (`invalid_model` / `invalid_effort`) and a message naming the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionRefused {
    /// `invalid_model` or `invalid_effort`.
    pub code: &'static str,
    /// What is wrong with the value.
    pub message: String,
}

/// A model name: an ASCII letter or digit first, then letters, digits and
/// `.` `_` `-` `:` `/` `@` `+` (`gpt-4o`, `claude-sonnet-4-5`,
/// `hf.co/org/model:Q4_K_M`, `llama3.1@8b`), at most [`MAX_MODEL_LEN`]
/// bytes, and no `..` path segment.
pub fn valid_model(v: &str) -> bool {
    valid_name(v, MAX_MODEL_LEN, |c| {
        matches!(c, '.' | '_' | '-' | ':' | '/' | '@' | '+')
    }) && !v.contains("..")
}

/// An effort level: an ASCII letter first, then letters, digits, `_` and
/// `-` (`low`, `medium`, `high`, `xhigh`, `max`), at most
/// [`MAX_EFFORT_LEN`] bytes.
pub fn valid_effort(v: &str) -> bool {
    v.starts_with(|c: char| c.is_ascii_alphabetic()) && valid_name(v, MAX_EFFORT_LEN, |c| matches!(c, '_' | '-'))
}

fn valid_name(v: &str, max: usize, extra: impl Fn(char) -> bool) -> bool {
    !v.is_empty()
        && v.len() <= max
        && v.starts_with(|c: char| c.is_ascii_alphanumeric())
        && v.chars().all(|c| c.is_ascii_alphanumeric() || extra(c))
}

/// Check a call's `model` and `effort` (from the guest, or its agent type)
/// before a backend sees them: each must be a plain name
/// ([`valid_model`], [`valid_effort`]) and, when an allow-list is given,
/// one of its entries (an entry ending in `*` matches a prefix).
///
/// # Errors
///
/// [`OptionRefused`] with `invalid_model` or `invalid_effort`.
pub fn check_agent_options(
    model: Option<&str>,
    effort: Option<&str>,
    allowed_models: Option<&[String]>,
    allowed_efforts: Option<&[String]>,
) -> Result<(), OptionRefused> {
    if let Some(m) = model {
        check_one("invalid_model", "model", m, valid_model(m), allowed_models)?;
    }
    if let Some(e) = effort {
        check_one("invalid_effort", "effort", e, valid_effort(e), allowed_efforts)?;
    }
    Ok(())
}

fn check_one(
    code: &'static str,
    what: &str,
    value: &str,
    plain: bool,
    allowed: Option<&[String]>,
) -> Result<(), OptionRefused> {
    let shown: String = value.chars().take(64).collect();
    if !plain {
        return Err(OptionRefused {
            code,
            message: format!(
                "{what} {shown:?} is not a plain name (letters, digits and . _ - : / @ +, not starting with '-')"
            ),
        });
    }
    if let Some(list) = allowed
        && !list.iter().any(|a| match a.strip_suffix('*') {
            Some(prefix) => value.starts_with(prefix),
            None => a == value,
        })
    {
        return Err(OptionRefused {
            code,
            message: format!("{what} {shown:?} is not one of the allowed values {list:?}"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_pass_and_flags_do_not() {
        for m in [
            "gpt-4o",
            "claude-sonnet-4-5",
            "hf.co/org/m:Q4_K_M",
            "llama3.1@8b",
            "m1",
            "o3+x",
        ] {
            assert!(valid_model(m), "{m}");
        }
        for m in [
            "",
            "-m",
            "--dangerously-skip-permissions",
            "a b",
            "a=b",
            "{prompt}",
            "a;rm",
            "../x",
            "a/../b",
            "$(id)",
            "é",
            "a\nb",
            &"m".repeat(129),
        ] {
            assert!(!valid_model(m), "{m:?}");
        }
        for e in ["low", "medium", "high", "xhigh", "max", "very-high"] {
            assert!(valid_effort(e), "{e}");
        }
        for e in ["", "-x", "--yolo", "1", "a b", "hi=1", &"e".repeat(33)] {
            assert!(!valid_effort(e), "{e:?}");
        }
    }

    #[test]
    fn allow_lists_and_codes() {
        let models = vec!["gpt-4o".to_owned(), "claude-*".to_owned()];
        assert!(check_agent_options(Some("gpt-4o"), Some("low"), Some(&models), None).is_ok());
        assert!(check_agent_options(Some("claude-opus"), None, Some(&models), None).is_ok());
        let e = check_agent_options(Some("gpt-5"), None, Some(&models), None).expect_err("not listed");
        assert_eq!(e.code, "invalid_model");
        let e = check_agent_options(None, Some("--yolo"), None, None).expect_err("flag");
        assert_eq!(e.code, "invalid_effort");
        let e = check_agent_options(Some("--dangerously-skip-permissions"), None, None, None).expect_err("flag");
        assert_eq!(e.code, "invalid_model");
        assert!(check_agent_options(None, None, Some(&[]), Some(&[])).is_ok());
    }
}
