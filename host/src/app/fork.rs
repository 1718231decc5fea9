//! Forks (issue 30): a new run in a run's lineage with one call's
//! result, input or decision replaced ([`Hwf::fork`]; `hwf fork`, the
//! facade's `workflow` `fork`, the console's fork forms), and what a fork
//! of one call may replace ([`Hwf::fork_options`], the console's forms).
//! The edit is journaled as `call_edited` with its actor; calls whose
//! requests are unchanged replay.

use crate::broker::replay::{CallEdit, EditField};
use crate::{Hwf, RunOutcome, RunRequest};
use hwf_core::cassette::{Cassette, ResolvedCall};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::journal::JournalEntry;
use serde::Serialize;
use serde_json::Value;

/// What to fork (`hwf fork RUN --at CALL --output JSON`).
#[derive(Debug, Clone)]
pub struct ForkRequest {
    /// The run to fork.
    pub source: RunId,
    /// The agent or capability call whose result is replaced.
    pub call: String,
    /// What replaces it.
    pub edit: ForkEdit,
    /// Who makes the edit (journaled).
    pub actor: String,
    /// Why (journaled, redacted).
    pub reason: Option<String>,
    /// Args for the new run (default: the source's).
    pub args: Option<Value>,
    /// The new run's id (generated when absent).
    pub run_id: Option<RunId>,
}

/// What a fork replaces.
#[derive(Debug, Clone, PartialEq)]
pub enum ForkEdit {
    /// The call's whole result.
    Output(Value),
    /// A `human.ask`'s answer (checked against the question's schema and
    /// choices): the result a person's `respond` would have given, with
    /// the fork's actor and channel `fork`.
    Answer(Value),
    /// The call's request input: the call runs live with it (a new
    /// fingerprint); the calls whose requests are unchanged replay.
    Input(Value),
    /// An approval gate's decision (approve or deny), or a `human.ask`
    /// declined (deny): the call runs again through the broker with it,
    /// as if an operator had decided so (a deny: the gated effect does
    /// not run).
    Decision(ForkDecision),
}

/// A fork's decision on an approval gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForkDecision {
    /// Run the gated call.
    Approve,
    /// Refuse it (the script gets `approval_rejected`; a question: declined).
    Deny,
}

impl ForkDecision {
    /// Parse `approve` or `deny` (`reject` is taken as `deny`).
    ///
    /// # Errors
    ///
    /// `invalid_args` for any other word.
    pub fn parse(word: &str) -> Result<Self> {
        match word {
            "approve" => Ok(Self::Approve),
            "deny" | "reject" => Ok(Self::Deny),
            other => Err(Error::new(
                ErrorCode::InvalidArgs,
                format!("decision {other:?}: expected approve or deny"),
            )),
        }
    }

    /// `approve` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::Deny => "deny",
        }
    }
}

/// What a fork of one recorded call may replace: the console's fork forms
/// ask for it before they show ([`Hwf::fork_options`]). Everything in it
/// is redacted.
#[derive(Debug, Clone, Serialize)]
pub struct ForkOptions {
    /// The run.
    pub run_id: String,
    /// The call's id.
    pub call: String,
    /// `agent` or `capability`.
    pub kind: String,
    /// Its label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The capability's name (capability calls).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The recorded result (absent when the call failed or never
    /// completed): what an output fork starts from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// The recorded request input: what an input fork starts from (an
    /// agent call's `input` object, `null` when it had none).
    pub input: Value,
    /// JSON pointers of the input's values that were redacted: the
    /// journal never stored them, so an input fork must give them again
    /// (one that still holds `[REDACTED]` is refused, `invalid_args`).
    pub redacted: Vec<String>,
    /// A `human.ask`'s question (prompt, choices, schema): an answer fork
    /// is checked against it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<Value>,
    /// The decisions a fork may give: `approve` and `deny` for an approval
    /// gate, `deny` (decline) for a question, none otherwise.
    pub decisions: Vec<&'static str>,
}

impl ForkOptions {
    /// The options as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The JSON pointers of a value's strings that hold the redaction marker.
fn redacted_pointers(v: &Value) -> Vec<String> {
    fn walk(v: &Value, at: &mut String, out: &mut Vec<String>) {
        match v {
            Value::String(s) if s.contains(hwf_core::redact::REDACTED) => {
                out.push(if at.is_empty() { "/".to_owned() } else { at.clone() });
            }
            Value::Array(xs) => {
                for (i, x) in xs.iter().enumerate() {
                    let n = at.len();
                    at.push_str(&format!("/{i}"));
                    walk(x, at, out);
                    at.truncate(n);
                }
            }
            Value::Object(m) => {
                for (k, x) in m {
                    let n = at.len();
                    at.push('/');
                    at.push_str(&k.replace('~', "~0").replace('/', "~1"));
                    walk(x, at, out);
                    at.truncate(n);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut String::new(), &mut out);
    out
}

impl Hwf {
    /// Fork a run: a new run resumed from `req.source` (same script, same
    /// args unless given) in which call `req.call` replays the edit
    /// (a whole output, or a question's answer) instead of its recorded
    /// result; the edit is journaled with its
    /// actor. Calls whose requests are unchanged replay; a call whose
    /// request depends on the edited output runs live (it needs a backend).
    ///
    /// # Errors
    ///
    /// `not_found` (no such run, or no agent or capability call `call` in
    /// it), `fork_mismatch` (an answer for a call that is not a
    /// `human.ask`; a decision on a call that is not an approval gate or a
    /// question, or an approval on a question), `invalid_args` (args with
    /// credentials that were not stored; an answer its question's schema
    /// or choices refuse; an input equal to the recorded one, or one that
    /// still holds `[REDACTED]`: a value the journal never stored),
    /// and [`Hwf::run`]'s.
    pub async fn fork(&self, req: &ForkRequest) -> Result<RunOutcome> {
        let (call, journals) = self.recorded_call(&req.source, &req.call)?;
        let call = &call;
        let is_ask = call.kind == "capability" && call.request.get("name").and_then(Value::as_str) == Some("human.ask");
        let mut changes = None;
        let (field, value) = match &req.edit {
            ForkEdit::Output(v) => (EditField::Output, v.clone()),
            ForkEdit::Input(input) => {
                let unstored = redacted_pointers(input);
                if !unstored.is_empty() {
                    return Err(Error::new(
                        ErrorCode::InvalidArgs,
                        format!(
                            "--input for call {}: {} still {} {}: the journal never stored the redacted value; give it again",
                            call.call,
                            unstored.join(", "),
                            if unstored.len() == 1 { "holds" } else { "hold" },
                            hwf_core::redact::REDACTED
                        ),
                    ));
                }
                // The journal keeps requests redacted: compare (and show)
                // the new input redacted too.
                let mut now = call.request.clone();
                if let Some(o) = now.as_object_mut() {
                    o.insert("input".into(), hwf_core::redact::redacted(input).into_owned());
                }
                let diff = hwf_core::cassette::diff(&call.request, &now);
                if diff.is_empty() {
                    return Err(Error::new(
                        ErrorCode::InvalidArgs,
                        format!("--input for call {}: it is the recorded input", call.call),
                    ));
                }
                changes = Some(serde_json::to_value(&diff).unwrap_or(Value::Null));
                (EditField::Input, input.clone())
            }
            ForkEdit::Decision(d) => {
                let gated = self.is_approval_gate(call, &journals);
                match (gated, is_ask, d) {
                    (true, _, _) | (false, true, ForkDecision::Deny) => {}
                    (false, true, ForkDecision::Approve) => {
                        return Err(Error::new(
                            ErrorCode::ForkMismatch,
                            format!(
                                "call {} of run {} is a question (human.ask): give its answer with --answer, or --decision deny to decline it",
                                call.call, req.source
                            ),
                        ));
                    }
                    (false, false, _) => {
                        return Err(Error::new(
                            ErrorCode::ForkMismatch,
                            format!(
                                "call {} of run {} is {} call{}, not an approval gate or a question: --decision needs one (use --output or --input)",
                                call.call,
                                req.source,
                                if call.kind == "agent" {
                                    "an agent"
                                } else {
                                    "an ungated capability"
                                },
                                call.label.as_deref().map(|l| format!(" ({l})")).unwrap_or_default()
                            ),
                        ));
                    }
                }
                (EditField::Decision, Value::String(d.as_str().to_owned()))
            }
            ForkEdit::Answer(answer) => {
                let question = match is_ask {
                    true => call.request.get("input").cloned().unwrap_or(Value::Null),
                    false => {
                        return Err(Error::new(
                            ErrorCode::ForkMismatch,
                            format!(
                                "call {} of run {} is not a human.ask: pass --output",
                                call.call, req.source
                            ),
                        ));
                    }
                };
                crate::capabilities::durable::check_answer(&question, answer).map_err(|why| {
                    Error::new(
                        ErrorCode::InvalidArgs,
                        format!("--answer for call {}: {why}", call.call),
                    )
                })?;
                (
                    EditField::Output,
                    serde_json::json!({
                        "answer": answer,
                        "actor": req.actor,
                        "channel": "fork",
                        "message_id": null,
                        "decided_at_ms": crate::store::now_ms(),
                    }),
                )
            }
        };
        let source = self.resume_source(&req.source)?;
        let args = source.args_or(req.args.clone(), &req.source, ErrorCode::InvalidArgs, "pass --args")?;
        let mut run = RunRequest::new(source.target, args);
        run.resume_from = Some(req.source.clone());
        run.run_id = req.run_id.clone();
        run.edit = Some(CallEdit {
            call: call.call.clone(),
            fingerprint: call.fingerprint.clone(),
            field,
            value,
            changes,
            actor: req.actor.clone(),
            reason: req.reason.clone(),
            source_run: req.source.to_string(),
        });
        self.run(run).await
    }

    /// What a fork of `call` in `run` may replace (the console's fork
    /// forms): the recorded output and input (redacted, with the pointers
    /// of the input's redacted values), a `human.ask`'s question, and the
    /// decisions [`Hwf::fork`] would take for it. Reads the run's lineage;
    /// writes nothing.
    ///
    /// # Errors
    ///
    /// `not_found` (no such run, or no agent or capability call `call` in
    /// its lineage), `io`.
    pub fn fork_options(&self, run: &RunId, call: &str) -> Result<ForkOptions> {
        let (c, journals) = self.recorded_call(run, call)?;
        let name = c.request.get("name").and_then(Value::as_str).map(str::to_owned);
        let is_ask = c.kind == "capability" && name.as_deref() == Some("human.ask");
        let decisions = if self.is_approval_gate(&c, &journals) {
            vec!["approve", "deny"]
        } else if is_ask {
            vec!["deny"]
        } else {
            Vec::new()
        };
        let input = c.request.get("input").cloned().unwrap_or(Value::Null);
        let mut options = ForkOptions {
            run_id: run.to_string(),
            call: c.call.clone(),
            kind: c.kind.clone(),
            label: c.label.clone(),
            name,
            output: match &c.outcome {
                Some(Ok(v)) => Some(v.clone()),
                _ => None,
            },
            redacted: redacted_pointers(&input),
            question: is_ask.then(|| input.clone()),
            input,
            decisions,
        };
        // The journal holds these redacted already; a value that became
        // credential-shaped since (a newly registered secret) is hidden too.
        for v in [
            options.output.as_mut(),
            Some(&mut options.input),
            options.question.as_mut(),
        ]
        .into_iter()
        .flatten()
        {
            hwf_core::redact::redact_value(v);
        }
        Ok(options)
    }

    /// A recorded agent or capability call of `run`'s lineage, with the
    /// lineage's journals.
    fn recorded_call(&self, run: &RunId, call: &str) -> Result<(ResolvedCall, Vec<Vec<JournalEntry>>)> {
        let snap = self.store.read_snapshot(run)?;
        let journals = self.whole_lineage(&snap)?;
        let mut recorded = Cassette::recorded_calls(&journals);
        let Some(i) = recorded.iter().position(|c| c.call == call) else {
            let known: Vec<&str> = recorded.iter().map(|c| c.call.as_str()).take(20).collect();
            return Err(Error::new(
                ErrorCode::NotFound,
                format!(
                    "run {run} has no agent or capability call {call:?} (its calls: {})",
                    known.join(", ")
                ),
            ));
        };
        Ok((recorded.swap_remove(i), journals))
    }

    /// Whether a recorded call is an approval gate: it parked its run on
    /// an approval, or it calls a capability whose class the policy gates.
    fn is_approval_gate(&self, call: &ResolvedCall, journals: &[Vec<JournalEntry>]) -> bool {
        if call.kind != "capability" {
            return false;
        }
        let parked_on_approval = journals.iter().flatten().any(|e| {
            matches!(&e.entry, hwf_core::journal::Entry::WaitStarted { call: c, kind, .. } if *c == call.call && kind == "approval")
        });
        parked_on_approval
            || call
                .request
                .get("name")
                .and_then(Value::as_str)
                .and_then(|n| self.services.capabilities.get(n))
                .is_some_and(|c| self.services.policy.approval_classes.contains(&c.class))
    }
}
