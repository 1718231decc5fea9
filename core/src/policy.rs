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
//!    none that is pre-approved *for this request* (see [`Grant`]).
//!
//! An approval id approves what its grant names, in the run it was given
//! to (the grants are part of the run's recorded policy): `ID=NAME:FP`
//! exactly one request (its approval fingerprint, [`approval_fingerprint`]),
//! `ID=NAME` every call of the capabilities `NAME` matches, and a plain
//! `ID` the first request that presents it in the run — any other request
//! presenting it needs an approval of its own. A plain id's binding is
//! kept in memory and re-derived from the run's journal on a continuation.
//!
//! After the call: stream strings (`stdout`, `stderr`, `summary`, `error`)
//! are clipped to `max_stream_bytes` with a sibling `<key>_truncated: true`,
//! the result is redacted, and a result over `max_result_bytes` is refused
//! (`result_too_large`).

use crate::call::{CallErrorKind, CallFailure};
use crate::fingerprint::Fingerprint;
use crate::journal::{Entry, JournalEntry};
use crate::redact;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What a capability can do to the world, from least to most dangerous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SideEffect {
    /// Reads only (fs.read, fs.list, events.wait).
    ReadOnly,
    /// Starts an agent session or similar long-lived work.
    SessionLaunch,
    /// Steers an existing session.
    SessionControl,
    /// Changes something outside hwf (bash, fs.write, kanban).
    ExternalWrite,
}

impl SideEffect {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read_only",
            Self::SessionLaunch => "session_launch",
            Self::SessionControl => "session_control",
            Self::ExternalWrite => "external_write",
        }
    }
}

/// Which `human.ask` questions the model may answer through the facade
/// ([`Policy::agent_may_answer`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentAnswers {
    /// Every question.
    #[default]
    All,
    /// Only questions addressed to the agent (`"to": "agent"`).
    Addressed,
}

/// Whether `name` is a valid capability name.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'/' | b'-'))
}

/// What the policy needs to know of a registered capability.
pub trait Classified {
    /// Its side-effect class.
    fn class(&self) -> SideEffect;
}

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
    /// Approval ids granted in advance, each a [`Grant`]: `ID` (the first
    /// request presenting it in a run), `ID=NAME` (every call of the
    /// capabilities NAME matches: `bash`, `fs.*`, `*`) or `ID=NAME:FP`
    /// (exactly the request whose approval fingerprint starts with FP).
    pub approved_ids: Vec<String>,
    /// Largest capability result, in bytes of JSON.
    pub max_result_bytes: u64,
    /// Longest `stdout`/`stderr`/`summary`/`error` string kept, in bytes.
    pub max_stream_bytes: u64,
    /// What an approval-gated call without a pre-approved id does: `park`
    /// the run until an operator decides (default), or `deny` at once.
    pub on_approval_required: ApprovalMode,
    /// The side-effect classes whose approval gates the model may approve
    /// or edit itself, through the facade's `workflow_control decide` (the
    /// MCP server's tool, the Hermes plugin's). Every other gate needs a
    /// person: the CLI, the console, an MCP client's elicitation. Default:
    /// `read_only` only. Rejecting a gate is always allowed.
    pub agent_may_approve: Vec<SideEffect>,
    /// Which `human.ask` questions the model may answer through the
    /// facade: `all` (the default), or `addressed` (only a question whose
    /// input says `"to": "agent"`).
    pub agent_may_answer: AgentAnswers,
    /// Which request each plain approval id is bound to, per run (not
    /// configuration: never serialized, shared by clones).
    #[serde(skip)]
    pub bindings: Bindings,
}

/// How the commands `bash` runs are confined by the kernel
/// (`[capabilities.bash]` in `hwf.toml`, recorded with each run; a grant's
/// `sandbox` terms may lift parts of it for the calls made under it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CommandSandbox {
    /// Confine commands at all (Landlock, network and PID namespaces):
    /// default `true`. `false` runs them with the user's authority inside
    /// the workspace, as hwf did before.
    pub confine: bool,
    /// Let commands open network connections: default `false`.
    pub network: bool,
}

impl Default for CommandSandbox {
    fn default() -> Self {
        Self {
            confine: true,
            network: false,
        }
    }
}

impl CommandSandbox {
    /// This sandbox loosened by a grant's `sandbox` terms
    /// (`{"network": true}`, `{"confine": false}`); terms never tighten
    /// what the host allows, and anything else in them is ignored here
    /// (the grant checks its terms' shape when it is requested).
    #[must_use]
    pub fn loosened_by(self, terms: Option<&serde_json::Value>) -> Self {
        let flag = |k: &str| terms.and_then(|t| t.get(k)).and_then(serde_json::Value::as_bool);
        Self {
            confine: self.confine && flag("confine") != Some(false),
            network: self.network || flag("network") == Some(true),
        }
    }
}

/// Plain approval ids' bindings: run id → approval id → the approval
/// fingerprint of the request it approves. Clones share one table.
#[derive(Clone, Default)]
pub struct Bindings(Arc<Mutex<HashMap<String, RunBindings>>>);

#[derive(Default)]
struct RunBindings {
    /// Whether the run's journal has been read for earlier bindings.
    seeded: bool,
    ids: HashMap<String, String>,
}

impl std::fmt::Debug for Bindings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Bindings")
    }
}

/// Bindings are run state, not configuration: policies compare equal
/// whatever their bindings.
impl PartialEq for Bindings {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}
impl Eq for Bindings {}

/// One parsed entry of [`Policy::approved_ids`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The id a call presents (`approval_id`).
    pub id: String,
    /// What it approves.
    pub scope: GrantScope,
}

/// What a [`Grant`] approves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantScope {
    /// A plain `ID`: the first request that presents it in a run.
    FirstRequest,
    /// `ID=NAME`: every call of the capabilities the pattern matches.
    Names(String),
    /// `ID=NAME:FP`: the one request of NAME whose approval fingerprint's
    /// hex starts with FP (12–64 lowercase hex digits, `b3:` optional).
    Request {
        /// Capability name pattern.
        name: String,
        /// Fingerprint prefix (hex, without `b3:`).
        fingerprint: String,
    },
}

impl Grant {
    /// Parse `ID`, `ID=NAME` or `ID=NAME:FP`.
    ///
    /// # Errors
    ///
    /// A message naming what is wrong (empty id or name, bad fingerprint).
    pub fn parse(text: &str) -> Result<Self, String> {
        let (id, scope) = match text.split_once('=') {
            None => (text, GrantScope::FirstRequest),
            Some((id, rest)) => {
                let scope = match rest.split_once(':') {
                    None => GrantScope::Names(rest.to_owned()),
                    Some((name, fp)) => {
                        let fp = fp.strip_prefix("b3:").unwrap_or(fp);
                        if !(12..=64).contains(&fp.len()) || !fp.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
                        {
                            return Err(format!(
                                "approval grant {text:?}: the fingerprint must be 12 to 64 lowercase hex digits"
                            ));
                        }
                        GrantScope::Request {
                            name: name.to_owned(),
                            fingerprint: fp.to_owned(),
                        }
                    }
                };
                (id, scope)
            }
        };
        if id.is_empty() {
            return Err(format!("approval grant {text:?} has an empty id"));
        }
        if let GrantScope::Names(n) | GrantScope::Request { name: n, .. } = &scope
            && n.is_empty()
        {
            return Err(format!("approval grant {text:?} names no capability"));
        }
        Ok(Self {
            id: id.to_owned(),
            scope,
        })
    }
}

/// The approval fingerprint of a capability request: `b3:` hex of the
/// canonical JSON of `{name, input}` (label and approval id left out, so
/// an operator can grant it before the call exists). Shown in
/// `approval_required` messages and approval waits.
pub fn approval_fingerprint(name: &str, input: &Value) -> String {
    Fingerprint::of("approval", &json!({"name": name, "input": input}))
        .as_str()
        .to_owned()
}

/// An approval id presented by a call, with what binding it needs: the run
/// and, for a continuation, that run's journal (read at most once per run).
pub struct Presented<'a> {
    /// The call's `approval_id`.
    pub id: &'a str,
    /// The run the call belongs to.
    pub run: &'a str,
    /// The run's journal so far (for bindings made by earlier executions).
    pub journal: &'a (dyn Fn() -> Vec<JournalEntry> + Sync),
}

/// Codes of refusals by the policy: a call that ended with one of these did
/// not run, so it bound nothing.
const REFUSALS: &[&str] = &[
    "approval_required",
    "approval_rejected",
    "capability_denied",
    "side_effect_denied",
    "credential_in_request",
    "unknown_capability",
    "limit_capability",
];

/// The request a plain approval id `id` was bound to by an earlier
/// execution of the run: the first capability call presenting `id` whose
/// completion shows it passed the policy.
fn binding_in_journal(events: &[JournalEntry], id: &str) -> Option<String> {
    let mut started: HashMap<&str, String> = HashMap::new();
    for e in events {
        match &e.entry {
            Entry::CallStarted {
                call, kind, request, ..
            } if kind == "capability" => {
                if request.get("approval_id").and_then(Value::as_str) == Some(id) {
                    let name = request.get("name").and_then(Value::as_str).unwrap_or("");
                    let input = request.get("input").unwrap_or(&Value::Null);
                    started.insert(call, approval_fingerprint(name, input));
                } else {
                    started.remove(call.as_str());
                }
            }
            Entry::CallCompleted {
                call, kind, ok, error, ..
            } if kind == "capability" => {
                let Some(fp) = started.remove(call.as_str()) else {
                    continue;
                };
                let msg = error.as_ref().map_or("", |f| f.message.as_str());
                let code = msg.split(':').next().unwrap_or("");
                if *ok || !REFUSALS.contains(&code) {
                    return Some(fp);
                }
            }
            _ => {}
        }
    }
    None
}

impl Bindings {
    /// Whether the plain id `p.id` approves the request `fp` in `p.run`:
    /// it does when it is bound to it, or is not bound yet (it is bound now).
    fn approve(&self, p: &Presented<'_>, fp: &str) -> Result<(), String> {
        let mut runs = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let run = runs.entry(p.run.to_owned()).or_default();
        if !run.seeded {
            run.seeded = true;
            let events = (p.journal)();
            let mut ids: Vec<&str> = Vec::new();
            for e in &events {
                if let Entry::CallStarted { request, .. } = &e.entry
                    && let Some(i) = request.get("approval_id").and_then(Value::as_str)
                    && !ids.contains(&i)
                {
                    ids.push(i);
                }
            }
            for i in ids {
                if let Some(bound) = binding_in_journal(&events, i) {
                    run.ids.insert(i.to_owned(), bound);
                }
            }
        }
        match run.ids.get(p.id) {
            Some(bound) if bound == fp => Ok(()),
            Some(bound) => Err(bound.clone()),
            None => {
                run.ids.insert(p.id.to_owned(), fp.to_owned());
                Ok(())
            }
        }
    }
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
            agent_may_approve: vec![SideEffect::ReadOnly],
            agent_may_answer: AgentAnswers::All,
            bindings: Bindings::default(),
        }
    }
}

fn name_matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// The first 16 hex digits of a `b3:` fingerprint (enough to grant it).
fn short(fp: &str) -> &str {
    let hex = fp.strip_prefix("b3:").unwrap_or(fp);
    hex.get(..16).unwrap_or(hex)
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
    pub fn check<'r, C: Classified>(
        &self,
        name: &str,
        cap: Option<&'r C>,
        input: &Value,
        presented: Option<&Presented<'_>>,
        approved: bool,
    ) -> Result<&'r C, CallFailure> {
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
        if !self.allowed_classes.contains(&cap.class()) {
            return Err(denied(
                "side_effect_denied",
                format!(
                    "capability {name:?} is {}, which this run's policy does not allow",
                    cap.class().as_str()
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
        if self.approval_classes.contains(&cap.class()) && !approved {
            let needs = |why: String| {
                CallFailure::new(
                    CallErrorKind::ApprovalRequired,
                    "approval_required",
                    format!(
                        "{why}; approve this request with --approval-id ID={name}:{} or an operator decision",
                        short(&approval_fingerprint(name, input))
                    ),
                )
            };
            let Some(p) = presented else {
                return Err(needs(format!(
                    "{name:?} is {} and needs an approval id",
                    cap.class().as_str()
                )));
            };
            self.approve(name, input, p).map_err(needs)?;
        }
        Ok(cap)
    }

    /// Whether a grant for the presented id approves this request.
    fn approve(&self, name: &str, input: &Value, p: &Presented<'_>) -> Result<(), String> {
        let fp = approval_fingerprint(name, input);
        let hex = fp.strip_prefix("b3:").unwrap_or(&fp);
        let mut why = None;
        for text in &self.approved_ids {
            let grant = match Grant::parse(text) {
                Ok(g) if g.id == p.id => g,
                Ok(_) => continue,
                Err(e) => {
                    tracing::warn!("ignoring a malformed approval grant: {e}");
                    continue;
                }
            };
            match &grant.scope {
                GrantScope::Names(pattern) if name_matches(pattern, name) => return Ok(()),
                GrantScope::Request {
                    name: pattern,
                    fingerprint,
                } if name_matches(pattern, name) && hex.starts_with(fingerprint.as_str()) => return Ok(()),
                GrantScope::FirstRequest => match self.bindings.approve(p, &fp) {
                    Ok(()) => return Ok(()),
                    Err(bound) => {
                        why = Some(format!(
                            "approval id {:?} is bound to another request ({}) in this run",
                            p.id,
                            short(&bound)
                        ));
                    }
                },
                _ => {
                    why.get_or_insert_with(|| format!("approval id {:?} is not granted for this request", p.id));
                }
            }
        }
        Err(why.unwrap_or_else(|| format!("approval id {:?} is not approved for {name:?}", p.id)))
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
    use serde_json::json;

    /// A registered capability as the policy sees it.
    #[derive(Debug)]
    struct Capability {
        #[expect(dead_code, reason = "names the capability in test failure output")]
        name: String,
        class: SideEffect,
    }
    impl Classified for Capability {
        fn class(&self) -> SideEffect {
            self.class
        }
    }

    fn cap(name: &str, class: SideEffect) -> Capability {
        Capability {
            name: name.into(),
            class,
        }
    }

    fn code(r: Result<&Capability, CallFailure>) -> String {
        r.err()
            .map(|f| f.message.split(':').next().unwrap_or("").to_owned())
            .unwrap_or_else(|| "ok".into())
    }

    fn no_journal() -> Vec<JournalEntry> {
        Vec::new()
    }

    fn presented<'a>(id: &'a str, run: &'a str) -> Presented<'a> {
        Presented {
            id,
            run,
            journal: &no_journal,
        }
    }

    #[test]
    fn grants_parse() {
        assert_eq!(Grant::parse("a").expect("plain").scope, GrantScope::FirstRequest);
        assert_eq!(
            Grant::parse("a=fs.*").expect("names").scope,
            GrantScope::Names("fs.*".into())
        );
        let g = Grant::parse("rel=bash:b3:0123456789abcdef").expect("request");
        assert_eq!(g.id, "rel");
        assert_eq!(
            g.scope,
            GrantScope::Request {
                name: "bash".into(),
                fingerprint: "0123456789abcdef".into()
            }
        );
        for bad in [
            "",
            "=bash",
            "a=",
            "a=bash:xyz",
            "a=bash:0123",
            "a=bash:0123456789ABCDEF",
            "a=:0123456789abcdef",
        ] {
            assert!(Grant::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn approval_ids_are_bound_to_requests_and_runs() {
        let bash = cap("bash", SideEffect::ExternalWrite);
        let fs_write = cap("fs.write", SideEffect::ExternalWrite);
        let pwd = json!({"argv": ["pwd"]});
        let rm = json!({"argv": ["rm", "-rf", "x"]});
        let fp = approval_fingerprint("bash", &pwd);
        let p = Policy {
            allowed_classes: vec![SideEffect::ReadOnly, SideEffect::ExternalWrite],
            approved_ids: vec!["a".into(), format!("exact=bash:{}", &fp[3..20]), "any-bash=bash".into()],
            ..Policy::default()
        };
        // A plain id: the first request binds it, in its run only.
        assert_eq!(
            code(p.check("bash", Some(&bash), &pwd, Some(&presented("a", "r1")), false)),
            "ok"
        );
        assert_eq!(
            code(p.check("bash", Some(&bash), &pwd, Some(&presented("a", "r1")), false)),
            "ok"
        );
        assert_eq!(
            code(p.check("bash", Some(&bash), &rm, Some(&presented("a", "r1")), false)),
            "approval_required"
        );
        assert_eq!(
            code(p.check("bash", Some(&bash), &rm, Some(&presented("a", "r2")), false)),
            "ok"
        );
        // Clones (a continuation's services) share the bindings.
        let q = p.clone();
        assert_eq!(
            code(q.check("bash", Some(&bash), &pwd, Some(&presented("a", "r2")), false)),
            "approval_required"
        );
        // An exact grant: that request and nothing else.
        assert_eq!(
            code(p.check("bash", Some(&bash), &pwd, Some(&presented("exact", "r1")), false)),
            "ok"
        );
        assert_eq!(
            code(p.check("bash", Some(&bash), &rm, Some(&presented("exact", "r1")), false)),
            "approval_required"
        );
        // A name scope: every call of that capability, no other.
        assert_eq!(
            code(p.check("bash", Some(&bash), &rm, Some(&presented("any-bash", "r1")), false)),
            "ok"
        );
        assert_eq!(
            code(p.check(
                "fs.write",
                Some(&fs_write),
                &json!({"path": "x", "content": ""}),
                Some(&presented("any-bash", "r1")),
                false
            )),
            "approval_required"
        );
        // A refusal names the request's fingerprint so it can be granted.
        let msg = p
            .check("bash", Some(&bash), &rm, Some(&presented("a", "r1")), false)
            .expect_err("bound")
            .message;
        assert!(msg.contains(&approval_fingerprint("bash", &rm)[3..19]), "{msg}");
    }

    #[test]
    fn a_continuation_finds_the_binding_in_the_journal() {
        let bash = cap("bash", SideEffect::ExternalWrite);
        let pwd = json!({"argv": ["pwd"]});
        let rm = json!({"argv": ["rm", "x"]});
        let journal = move || {
            crate::journal::sketch::entries(vec![
                json!({"type": "run_started"}),
                json!({"type": "call_started", "call": "1", "kind": "capability", "request": {"name": "bash", "approval_id": "a", "input": {"argv": ["ls"]}}}),
                json!({"type": "call_completed", "call": "1", "kind": "capability", "ok": false, "error": {"kind": "approval_required", "message": "approval_required: no"}}),
                json!({"type": "call_started", "call": "2", "kind": "capability", "request": {"name": "bash", "approval_id": "a", "input": {"argv": ["pwd"]}}}),
                json!({"type": "call_completed", "call": "2", "kind": "capability", "ok": true, "result": {}}),
                json!({"type": "run_started"}),
            ])
        };
        let p = Policy {
            allowed_classes: vec![SideEffect::ReadOnly, SideEffect::ExternalWrite],
            approved_ids: vec!["a".into()],
            ..Policy::default()
        };
        let pr = Presented {
            id: "a",
            run: "r1",
            journal: &journal,
        };
        assert_eq!(
            code(p.check("bash", Some(&bash), &rm, Some(&pr), false)),
            "approval_required"
        );
        assert_eq!(code(p.check("bash", Some(&bash), &pwd, Some(&pr), false)), "ok");
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
            code(p.check("bash", Some(&bash), &json!({}), Some(&presented("other", "r1")), false)),
            "approval_required"
        );
        assert_eq!(
            code(p.check("bash", Some(&bash), &json!({}), Some(&presented("ok-1", "r1")), false)),
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
