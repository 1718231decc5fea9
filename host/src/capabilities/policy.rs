//! Capability policy: which calls may run, checked in a fixed order, each
//! refusal a typed `denied` (or `approval-required`) error with a stable
//! code that the harness can catch and that is journaled.
//!
//! Order:
//! 1. `unknown_capability` — bad name, or nothing registered under it;
//! 2. `capability_denied` — the name is not allowed (or explicitly denied);
//! 3. `side_effect_denied` — its side-effect class is not allowed
//!    (default: only `read_only`);
//! 4. `credential_in_request` — the input holds something credential-shaped
//!    (it is refused, never forwarded);
//! 5. `approval_required` — its class needs an approval id and the call has
//!    none that is pre-approved.
//!
//! After the call: stream strings (`stdout`, `stderr`, `summary`, `error`)
//! are clipped to `max_stream_bytes` with a sibling `<key>_truncated: true`,
//! the result is redacted, and a result over `max_result_bytes` is refused
//! (`result_too_large`).

use super::{Capability, SideEffect, valid_name};
use crate::broker::redact;
use crate::broker::{CallErrorKind, CallFailure};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The policy of a run (from `hwf.toml` `[policy]` plus per-run overrides).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Policy {
    /// Allowed capability names; `*` alone allows every registered name, a
    /// trailing `*` matches a prefix (`fs.*`).
    pub allowed_names: Vec<String>,
    /// Names refused even when allowed above.
    pub denied_names: Vec<String>,
    /// Allowed side-effect classes.
    pub allowed_classes: Vec<SideEffect>,
    /// Classes whose calls need a pre-approved approval id.
    pub approval_classes: Vec<SideEffect>,
    /// Approval ids granted in advance.
    pub approved_ids: Vec<String>,
    /// Largest capability result, in bytes of JSON.
    pub max_result_bytes: u64,
    /// Longest `stdout`/`stderr`/`summary`/`error` string kept, in bytes.
    pub max_stream_bytes: u64,
    /// What an approval-gated call without a pre-approved id does: `park`
    /// the run until an operator decides (default), or `deny` at once.
    pub on_approval_required: ApprovalMode,
}

/// See [`Policy::on_approval_required`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    /// Park until `decide … approve|reject|edit`.
    #[default]
    Park,
    /// Return `approval-required` to the harness.
    Deny,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            allowed_names: vec!["*".into()],
            denied_names: Vec::new(),
            allowed_classes: vec![SideEffect::ReadOnly],
            approval_classes: vec![SideEffect::ExternalWrite],
            approved_ids: Vec::new(),
            max_result_bytes: 16 * 1024,
            max_stream_bytes: 8 * 1024,
            on_approval_required: ApprovalMode::Park,
        }
    }
}

fn name_matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

fn denied(code: &str, msg: String) -> CallFailure {
    CallFailure::new(CallErrorKind::Denied, code, msg)
}

/// Keys whose string values are clipped.
const STREAM_KEYS: &[&str] = &["stdout", "stderr", "summary", "error"];

impl Policy {
    /// Run checks 1–5 for a call of `name` with `input`.
    ///
    /// # Errors
    ///
    /// The first refusal, as a journaled-ready [`CallFailure`].
    pub fn check<'r>(
        &self,
        name: &str,
        cap: Option<&'r Capability>,
        input: &Value,
        approval_id: Option<&str>,
        approved: bool,
    ) -> Result<&'r Capability, CallFailure> {
        let cap = match cap {
            Some(c) if valid_name(name) => c,
            _ => {
                return Err(denied(
                    "unknown_capability",
                    format!("no capability named {name:?} is registered"),
                ));
            }
        };
        if self.denied_names.iter().any(|p| name_matches(p, name))
            || !self.allowed_names.iter().any(|p| name_matches(p, name))
        {
            return Err(denied(
                "capability_denied",
                format!("capability {name:?} is not allowed by this run's policy"),
            ));
        }
        if !self.allowed_classes.contains(&cap.class) {
            return Err(denied(
                "side_effect_denied",
                format!(
                    "capability {name:?} is {}, which this run's policy does not allow",
                    cap.class.as_str()
                ),
            ));
        }
        if redact::contains_secret(input) {
            return Err(denied(
                "credential_in_request",
                format!(
                    "the input of {name:?} contains something credential-shaped; pass secrets through the host's configuration, not the request"
                ),
            ));
        }
        if self.approval_classes.contains(&cap.class) && !approved {
            match approval_id {
                Some(id) if self.approved_ids.iter().any(|a| a == id) => {}
                Some(id) => {
                    return Err(CallFailure::new(
                        CallErrorKind::ApprovalRequired,
                        "approval_required",
                        format!(
                            "approval id {id:?} is not approved for {name:?} ({})",
                            cap.class.as_str()
                        ),
                    ));
                }
                None => {
                    return Err(CallFailure::new(
                        CallErrorKind::ApprovalRequired,
                        "approval_required",
                        format!("{name:?} is {} and needs an approval id", cap.class.as_str()),
                    ));
                }
            }
        }
        Ok(cap)
    }

    /// Clip stream strings, redact, and enforce the result size.
    ///
    /// # Errors
    ///
    /// `result_too_large` (denied).
    pub fn finish_result(&self, name: &str, mut result: Value) -> Result<Value, CallFailure> {
        if let Value::Object(map) = &mut result {
            let max = usize::try_from(self.max_stream_bytes).unwrap_or(usize::MAX);
            for key in STREAM_KEYS {
                let clipped = match map.get_mut(*key) {
                    Some(Value::String(s)) if s.len() > max => {
                        let mut end = max;
                        while !s.is_char_boundary(end) {
                            end -= 1;
                        }
                        s.truncate(end);
                        true
                    }
                    _ => false,
                };
                if clipped {
                    map.insert(format!("{key}_truncated"), Value::Bool(true));
                }
            }
        }
        redact::redact_value(&mut result);
        let size = serde_json::to_string(&result).map(|s| s.len()).unwrap_or(usize::MAX) as u64;
        if size > self.max_result_bytes {
            return Err(denied(
                "result_too_large",
                format!(
                    "the result of {name:?} is {size} bytes; the policy allows {}",
                    self.max_result_bytes
                ),
            ));
        }
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::BoxFuture;
    use crate::capabilities::{CapabilityCall, CapabilityError, CapabilityHandler};
    use serde_json::json;
    use std::sync::Arc;

    struct Nop;
    impl CapabilityHandler for Nop {
        fn call<'a>(&'a self, _c: CapabilityCall<'a>) -> BoxFuture<'a, Result<Value, CapabilityError>> {
            Box::pin(async { Ok(Value::Null) })
        }
    }

    fn cap(name: &str, class: SideEffect) -> Capability {
        Capability {
            name: name.into(),
            class,
            description: String::new(),
            replayable: true,
            handler: Arc::new(Nop),
        }
    }

    fn code(r: Result<&Capability, CallFailure>) -> String {
        r.err()
            .map(|f| f.message.split(':').next().unwrap_or("").to_owned())
            .unwrap_or_else(|| "ok".into())
    }

    #[test]
    fn checks_run_in_order() {
        let p = Policy::default();
        let read = cap("fs.read", SideEffect::ReadOnly);
        let bash = cap("bash", SideEffect::ExternalWrite);
        assert_eq!(
            code(p.check("nope", None, &json!({}), None, false)),
            "unknown_capability"
        );
        assert_eq!(
            code(p.check("fs.read", Some(&read), &json!({"path": "a"}), None, false)),
            "ok"
        );
        assert_eq!(
            code(p.check("bash", Some(&bash), &json!({}), None, false)),
            "side_effect_denied"
        );
        let p = Policy {
            allowed_names: vec!["fs.*".into()],
            ..Policy::default()
        };
        assert_eq!(
            code(p.check("bash", Some(&bash), &json!({}), None, false)),
            "capability_denied"
        );
        let p = Policy {
            allowed_classes: vec![SideEffect::ReadOnly, SideEffect::ExternalWrite],
            approved_ids: vec!["ok-1".into()],
            ..Policy::default()
        };
        assert_eq!(
            code(p.check("bash", Some(&bash), &json!({"env": {"TOKEN": "x"}}), None, false)),
            "credential_in_request"
        );
        assert_eq!(
            code(p.check("bash", Some(&bash), &json!({}), None, false)),
            "approval_required"
        );
        assert_eq!(
            code(p.check("bash", Some(&bash), &json!({}), Some("other"), false)),
            "approval_required"
        );
        assert_eq!(
            code(p.check("bash", Some(&bash), &json!({}), Some("ok-1"), false)),
            "ok"
        );
        let p = Policy {
            denied_names: vec!["fs.read".into()],
            ..Policy::default()
        };
        assert_eq!(
            code(p.check("fs.read", Some(&read), &json!({}), None, false)),
            "capability_denied"
        );
    }

    #[test]
    fn results_are_clipped_redacted_and_bounded() {
        let p = Policy {
            max_stream_bytes: 4,
            max_result_bytes: 200,
            ..Policy::default()
        };
        let out = p
            .finish_result("bash", json!({"stdout": "abcdefgh", "stderr": "ok", "password": "x"}))
            .expect("ok");
        assert_eq!(
            out,
            json!({"stdout": "abcd", "stdout_truncated": true, "stderr": "ok", "password": "[REDACTED]"})
        );
        let big = json!({"data": "x".repeat(500)});
        assert!(
            p.finish_result("bash", big)
                .expect_err("big")
                .message
                .starts_with("result_too_large")
        );
    }
}
