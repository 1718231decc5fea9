//! The `$ref:` mini-grammar of the format: `$ref:inputs.<key>` or
//! `$ref:<step_id>.output[.<field>...]`.
//!
//! The seed matches it with a Python regex anchored by `$`, which also
//! matches just before a final newline: `"$ref:inputs.x\n"` is the
//! reference `inputs.x`. An input key and a step id start with an ASCII
//! letter or `_` (the regex's `[A-Za-z_]`), then word characters (`\w`,
//! Unicode, as Python reads it: `crate::alnum`): `$ref:inputs.clé` is a
//! reference, `$ref:étape.output` and `$ref:inputs.k_नेपाल` (a vowel sign)
//! are not. The regex tries the input form first, then the step form, so
//! `$ref:inputs.cfg.output` reads the output of a step whose id is
//! `inputs.cfg`.

/// A parsed reference.
#[derive(Debug, PartialEq, Eq)]
pub enum Ref<'a> {
    /// `$ref:inputs.<key>`.
    Input(&'a str),
    /// `$ref:<step>.output[.<field path>]`.
    Step {
        /// The step id.
        step: &'a str,
        /// The dotted field path after `output`, if any.
        field: Option<&'a str>,
    },
    /// Starts with `$ref:` but does not follow the grammar.
    Invalid,
}

/// The regex's `[A-Za-z_]`: ASCII only.
fn ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// The regex's `\w`: Python's `isalnum()` or `_` (not Rust's
/// `is_alphanumeric`, which also takes combining vowel signs).
fn word(c: char) -> bool {
    crate::alnum::is_alnum(c) || c == '_'
}

/// Parse `s` if it is a `$ref:` string (`None` when it is not one).
pub fn parse(s: &str) -> Option<Ref<'_>> {
    let body = s.strip_prefix("$ref:")?;
    // Python's `$` matches before one final newline.
    let body = body.strip_suffix('\n').unwrap_or(body);
    if let Some(key) = body.strip_prefix("inputs.")
        && key.chars().next().is_some_and(ident_start)
        && key.chars().all(|c| word(c) || c == '-')
    {
        return Some(Ref::Input(key));
    }
    // Not an input reference: the step form, as the regex's second branch.
    // The first `.output` that ends the step id (ids may contain dots).
    let mut from = 0;
    while let Some(at) = body[from..].find(".output") {
        let at = from + at;
        let step = &body[..at];
        let rest = &body[at + ".output".len()..];
        let step_ok =
            step.chars().next().is_some_and(ident_start) && step.chars().all(|c| word(c) || c == '.' || c == '-');
        if step_ok {
            if rest.is_empty() {
                return Some(Ref::Step { step, field: None });
            }
            if let Some(field) = rest.strip_prefix('.')
                && !field.is_empty()
                && field.chars().all(|c| word(c) || c == '.' || c == '-')
            {
                return Some(Ref::Step {
                    step,
                    field: Some(field),
                });
            }
        }
        from = at + 1;
    }
    Some(Ref::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One final newline is allowed, as Python's `$` allows it; two are not.
    #[test]
    fn a_final_newline_ends_a_reference() {
        assert_eq!(parse("$ref:inputs.x\n"), Some(Ref::Input("x")));
        assert_eq!(
            parse("$ref:a.output.f\n"),
            Some(Ref::Step {
                step: "a",
                field: Some("f")
            })
        );
        assert_eq!(parse("$ref:a.output\n"), Some(Ref::Step { step: "a", field: None }));
        assert_eq!(parse("$ref:inputs.x\n\n"), Some(Ref::Invalid));
        assert_eq!(parse("$ref:inputs.x \n"), Some(Ref::Invalid));
    }

    /// A key or id starts with an ASCII letter or `_`, as the regex's
    /// `[A-Za-z_]`; the rest may be any word character.
    #[test]
    fn a_name_starts_with_an_ascii_letter() {
        assert_eq!(parse("$ref:inputs.clé"), Some(Ref::Input("clé")));
        assert_eq!(parse("$ref:inputs.été"), Some(Ref::Invalid));
        assert_eq!(parse("$ref:étape.output"), Some(Ref::Invalid));
        assert_eq!(
            parse("$ref:_étape.output.é"),
            Some(Ref::Step {
                step: "_étape",
                field: Some("é")
            })
        );
        assert_eq!(parse("$ref:inputs.9lives"), Some(Ref::Invalid));
        // Python's `\w` has no combining vowel signs (U+0947, U+093E).
        assert_eq!(parse("$ref:inputs.k_नेपाल"), Some(Ref::Invalid));
        assert_eq!(parse("$ref:inputs.k_ключ"), Some(Ref::Input("k_ключ")));
    }

    /// The input form first, then the step form: `inputs.cfg.output` is
    /// the output of a step with the id `inputs.cfg`.
    #[test]
    fn an_input_path_with_output_is_a_step_reference() {
        assert_eq!(
            parse("$ref:inputs.cfg.output"),
            Some(Ref::Step {
                step: "inputs.cfg",
                field: None
            })
        );
        assert_eq!(
            parse("$ref:inputs.cfg.output.ok"),
            Some(Ref::Step {
                step: "inputs.cfg",
                field: Some("ok")
            })
        );
        assert_eq!(parse("$ref:inputs.output"), Some(Ref::Input("output")));
        assert_eq!(parse("$ref:inputs.cfg.name"), Some(Ref::Invalid));
    }
}
