//! Operating runs: controls and decisions, external events, grant
//! revocations — the checks every front door (CLI, facade/MCP, console)
//! shares, so each of them only parses its input and serialises the
//! answer.

use crate::Hwf;
use crate::app::control::{Action, Control, Decision};
use crate::store::{ExternalEvent, RunState};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use serde::Serialize;
use serde_json::Value;

/// A control (pause, resume, stop, task stop, retry, decision) an operator
/// asks for.
#[derive(Debug, Clone)]
pub struct ControlRequest {
    /// The run it is about.
    pub run: RunId,
    /// What it asks for.
    pub action: Action,
    /// Who asks.
    pub actor: String,
    /// The caller's idempotency id (a fresh one when `None`).
    pub control_id: Option<String>,
    /// Why.
    pub reason: Option<String>,
    /// The call it names (`task_stop`, `retry`, `decide`).
    pub call: Option<String>,
    /// The decision (`decide`).
    pub decision: Option<Decision>,
    /// The edited input or the answer (`decide` with `edit`/`respond`).
    pub value: Option<Value>,
    /// Where a decision came from (`cli`, `facade`, `web`, `slack`, …).
    pub channel: Option<String>,
    /// The message that carried a decision.
    pub message_id: Option<String>,
    /// Who stands behind it: a person at an operator surface, or the model.
    pub surface: Surface,
}

/// Who stands behind a control. Set by the front door, never by a
/// parameter a caller passes: the CLI and the console are
/// [`Surface::Operator`]; the facade's `workflow_control` tool, which the
/// MCP server and the Hermes plugin give the model, is [`Surface::Agent`].
/// The model may not approve the gates `[policy] agent_may_approve` keeps
/// for a person (see [`Hwf::control`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Surface {
    /// A person: the CLI, the console, an MCP client's elicitation.
    #[default]
    Operator,
    /// The model, through a tool.
    Agent,
}

impl ControlRequest {
    /// A request for `action` on `run` by `actor`, everything else unset.
    pub fn new(run: RunId, action: Action, actor: impl Into<String>) -> Self {
        Self {
            run,
            action,
            actor: actor.into(),
            control_id: None,
            reason: None,
            call: None,
            decision: None,
            value: None,
            channel: None,
            message_id: None,
            surface: Surface::Operator,
        }
    }
}

/// The answer to a [`ControlRequest`]: the control as stored (redacted).
#[derive(Debug, Clone, Serialize)]
pub struct ControlRecorded {
    /// The run.
    pub run_id: RunId,
    /// The control as stored; for a repeated id, the one recorded first.
    pub control: Control,
    /// Whether it was new (`false`: that id was recorded before).
    pub recorded: bool,
    /// The run's state when the control was recorded (a queued or parked
    /// run has no executor watching its controls: a front door hands it to
    /// a runner).
    #[serde(skip)]
    pub run_state: RunState,
}

impl ControlRecorded {
    /// Whether the run needs a runner to act on the control (it is queued
    /// or parked; a running one applies controls itself).
    pub fn needs_runner(&self) -> bool {
        self.recorded && matches!(self.run_state, RunState::Waiting | RunState::Queued)
    }
}

/// An external event to record (`hwf events send`, `POST /api/events`).
#[derive(Debug, Clone)]
pub struct EventRequest {
    /// Its id (idempotency; a fresh one when `None`).
    pub id: Option<String>,
    /// Where it came from (`github`, `ci`, …).
    pub source: String,
    /// What happened (`pull_request.merged`, …).
    pub kind: String,
    /// What it is about.
    pub subject: Option<String>,
    /// Payload (redacted before it is stored).
    pub payload: Value,
    /// The body digest of a webhook whose signature covers only the body
    /// (see [`ExternalEvent::digest`]).
    pub digest: Option<String>,
}

/// The answer to an [`EventRequest`]: the stored event, whether it was
/// new, and the runs its triggers started.
#[derive(Debug, Clone, Serialize)]
pub struct EventSent {
    /// The event as stored (for a repeated id, the one stored first).
    #[serde(flatten)]
    pub event: ExternalEvent,
    /// Whether it was new.
    pub new: bool,
    /// The runs triggers started for it (one entry per matching trigger).
    pub started: Vec<Value>,
}

/// The answer to [`Hwf::revoke_grant`].
#[derive(Debug, Clone, Serialize)]
pub struct GrantRevoked {
    /// The run that holds the grant.
    pub run_id: RunId,
    /// The grant (`<run>:<call>`).
    pub grant: String,
    /// Always `true`.
    pub revoked: bool,
    /// Whether this revocation was new.
    pub new: bool,
    /// The `grant.revoked` event.
    pub event: ExternalEvent,
}

/// Parse a decision name (`approve`, `reject`, `edit`, `respond`).
///
/// # Errors
///
/// `invalid_args` naming what is accepted.
pub fn parse_decision(name: &str) -> Result<Decision> {
    serde_json::from_value(Value::String(name.to_owned())).map_err(|_| {
        Error::new(
            ErrorCode::InvalidArgs,
            format!("decision {name:?}: expected approve, reject, edit or respond"),
        )
    })
}

/// An action's name as recorded (`task_stop`).
fn action_name(action: Action) -> String {
    serde_json::to_value(action)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A control as it is stored (values and text redacted).
fn as_stored(control: &Control) -> Result<Control> {
    let v = serde_json::to_value(control).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
    let v = hwf_core::redact::redacted(&v);
    serde_json::from_value(v.into_owned()).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))
}

impl Hwf {
    /// Record an operator control on a run. A control id seen before is
    /// that control, already recorded (even if the run has ended since); a
    /// finished run takes no control but `retry`; a decision must fit the
    /// wait its call is parked on and is bound to the fingerprint of the
    /// request it decides.
    ///
    /// # Errors
    ///
    /// `invalid_name` (run, control id, call ref), `not_found` (run, call),
    /// `invalid_args` (an ended run, a missing call ref or decision, a
    /// decision that does not fit the wait), `io`, `corrupt_store`.
    pub fn control(&self, req: ControlRequest) -> Result<ControlRecorded> {
        let run = req.run;
        let snap = self.store().read_snapshot(&run)?;
        if let Some(id) = &req.control_id {
            hwf_core::ids::validate_name("control id", id)?;
            if let Some(existing) = self
                .store()
                .read_controls_lenient(&run)?
                .0
                .into_iter()
                .find(|c| &c.id == id)
            {
                return Ok(ControlRecorded {
                    run_id: run,
                    control: existing,
                    recorded: false,
                    run_state: snap.state,
                });
            }
        }
        if snap.state.is_terminal() && req.action != Action::Retry {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                format!("run {run} already ended ({})", snap.state.as_str()),
            ));
        }
        let mut c = Control::new(req.action, req.actor);
        if let Some(id) = req.control_id {
            c.id = id;
        }
        c.reason = req.reason;
        if matches!(req.action, Action::TaskStop | Action::Retry | Action::Decide) {
            let call = req.call.ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidArgs,
                    format!("{} needs the call it is about (\"call\")", action_name(req.action)),
                )
            })?;
            hwf_core::ids::validate_name("call ref", &call)?;
            c.call = Some(call);
        }
        if req.action == Action::Decide {
            let d = req
                .decision
                .ok_or_else(|| Error::new(ErrorCode::InvalidArgs, "decide needs approve, reject, edit or respond"))?;
            let call = c.call.clone().unwrap_or_default();
            if req.surface == Surface::Agent {
                self.check_agent_decision(&snap, &call, d)?;
            }
            c.fingerprint = Some(crate::app::runner::validate_decision(
                self,
                &run,
                &call,
                d,
                req.value.as_ref(),
            )?);
            c.decision = Some(d);
            c.value = req.value;
            c.channel = req.channel;
            c.message_id = req.message_id;
        }
        let recorded = crate::app::control::record(self.store(), &run, c.clone())?;
        Ok(ControlRecorded {
            run_id: run,
            control: as_stored(&c)?,
            recorded,
            run_state: snap.state,
        })
    }

    /// Whether the model may make this decision ([`Surface::Agent`]):
    /// rejecting always; approving or editing an approval gate only when
    /// its side-effect class is in `[policy] agent_may_approve` (a gate of
    /// unknown class — a grant request, an older run — is a person's);
    /// answering a `human.ask` as `[policy] agent_may_answer` says. A call
    /// that is not parked yet cannot be decided in advance by the model.
    fn check_agent_decision(&self, snap: &crate::store::RunSnapshot, call: &str, d: Decision) -> Result<()> {
        use hwf_core::policy::{AgentAnswers, SideEffect};
        if d == Decision::Reject {
            return Ok(());
        }
        let policy = &self.services.policy;
        let refuse = |why: String| {
            Err(Error::new(
                ErrorCode::DecisionNotAllowed,
                format!(
                    "{why}; a person decides it: `hwf control decide {} {call} …`, the console, or the MCP client's prompt ([policy] agent_may_approve / agent_may_answer)",
                    snap.run_id
                ),
            ))
        };
        let Some(wait) = snap.waits.iter().find(|w| w.call == call) else {
            return refuse(format!(
                "call {call} is not waiting for a decision, and the model may not decide one in advance"
            ));
        };
        match wait.kind.as_str() {
            "human" => {
                let to_agent = wait.detail.pointer("/to").or_else(|| wait.detail.pointer("/input/to"));
                match policy.agent_may_answer {
                    AgentAnswers::All => Ok(()),
                    AgentAnswers::Addressed if to_agent.and_then(Value::as_str) == Some("agent") => Ok(()),
                    AgentAnswers::Addressed => refuse(format!("the question of call {call} is addressed to a person")),
                }
            }
            "approval" => {
                let class = wait
                    .detail
                    .get("class")
                    .and_then(Value::as_str)
                    .and_then(|c| serde_json::from_value::<SideEffect>(Value::String(c.to_owned())).ok());
                match class {
                    Some(c) if policy.agent_may_approve.contains(&c) => Ok(()),
                    Some(c) => refuse(format!(
                        "call {call} is an approval gate of a {} capability ({}), which the model may not approve itself",
                        c.as_str(),
                        wait.detail["capability"].as_str().unwrap_or("?")
                    )),
                    None => refuse(format!(
                        "call {call} is an approval gate the model may not approve itself"
                    )),
                }
            }
            other => refuse(format!("call {call} waits on {other}, not on a decision")),
        }
    }

    /// Record an external event (idempotent by id; payload redacted) and
    /// start a run for each trigger it matches (once per event id).
    ///
    /// # Errors
    ///
    /// `invalid_name` for a bad id, `io`, `corrupt_store`; a trigger's
    /// failure to start is reported in [`EventSent::started`].
    pub fn send_event(&self, req: EventRequest) -> Result<EventSent> {
        let id = req.id.unwrap_or_else(|| format!("e{}", uuid::Uuid::now_v7().simple()));
        hwf_core::ids::validate_name("event id", &id)?;
        let mut payload = req.payload;
        hwf_core::redact::redact_value(&mut payload);
        let event = ExternalEvent {
            version: 0,
            id,
            source: req.source,
            kind: req.kind,
            subject: req.subject,
            payload,
            ts_ms: crate::store::now_ms(),
            digest: req.digest,
        };
        let (stored, new) = self.store().append_event(event)?;
        // Triggers (issue 19): a run per matching trigger, once per event id.
        let started = crate::app::triggers::fire(self, &stored)?;
        Ok(EventSent {
            event: stored,
            new,
            started,
        })
    }

    /// The recorded external events, oldest first.
    ///
    /// # Errors
    ///
    /// `io`, `corrupt_store`.
    pub fn events(&self) -> Result<Vec<ExternalEvent>> {
        self.store().read_events()
    }

    /// Revoke a grant of a run (`<run>:<call>`): a `grant.revoked` event,
    /// idempotent by grant; the grant's next `grant.act` fails with
    /// `grant_revoked`.
    ///
    /// # Errors
    ///
    /// `not_found` (run), `invalid_args` (not a grant of that run), `io`.
    pub fn revoke_grant(&self, run: &RunId, grant: &str, actor: &str, reason: Option<&str>) -> Result<GrantRevoked> {
        self.store().read_snapshot(run)?;
        if grant.strip_prefix(&format!("{run}:")).is_none_or(str::is_empty) {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                format!("{grant:?} is not a grant of run {run} (expected {run}:<call>)"),
            ));
        }
        let id = format!("revoke-{}", &blake3::hash(grant.as_bytes()).to_hex()[..24]);
        let (source, kind) = crate::capabilities::grants::REVOKED;
        let mut payload = serde_json::json!({"run": run, "actor": actor, "reason": reason});
        hwf_core::redact::redact_value(&mut payload);
        let event = ExternalEvent {
            version: 0,
            id,
            source: source.into(),
            kind: kind.into(),
            subject: Some(grant.to_owned()),
            payload,
            ts_ms: crate::store::now_ms(),
            digest: None,
        };
        let (event, new) = self.store().append_event(event)?;
        Ok(GrantRevoked {
            run_id: run.clone(),
            grant: grant.to_owned(),
            revoked: true,
            new,
            event,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{RunSnapshot, ScriptRef};
    use serde_json::json;

    fn host_with_run(state: RunState) -> (tempfile::TempDir, Hwf, RunId) {
        let dir = tempfile::tempdir().expect("tempdir");
        let hwf = Hwf::open(dir.path()).expect("host");
        let id = RunId::generate();
        hwf.store().local().create_run(&id).expect("run");
        let snap = RunSnapshot::new(id.clone(), state, ScriptRef::default(), json!({}), None);
        hwf.store().write_snapshot(&snap).expect("snapshot");
        (dir, hwf, id)
    }

    #[test]
    fn a_finished_run_takes_no_control_but_retry() {
        let (_dir, hwf, id) = host_with_run(RunState::Succeeded);
        let e = hwf
            .control(ControlRequest::new(id.clone(), Action::Pause, "ana"))
            .expect_err("ended");
        assert_eq!(e.code(), ErrorCode::InvalidArgs);
        assert!(e.message().contains("already ended (succeeded)"), "{e}");
        let mut retry = ControlRequest::new(id.clone(), Action::Retry, "ana");
        retry.call = Some("3".into());
        let r = hwf.control(retry).expect("retry");
        assert!(r.recorded && !r.needs_runner());
        assert_eq!(r.control.call.as_deref(), Some("3"));
    }

    #[test]
    fn a_repeated_control_id_is_the_control_recorded_first() {
        let (_dir, hwf, id) = host_with_run(RunState::Waiting);
        let mut pause = ControlRequest::new(id.clone(), Action::Pause, "ana");
        pause.control_id = Some("c-1".into());
        pause.reason = Some("key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".into());
        let first = hwf.control(pause).expect("pause");
        assert!(first.recorded && first.needs_runner());
        // Shown as stored: the reason's credential is redacted.
        assert!(
            !first.control.reason.as_deref().unwrap_or("").contains("AAAAAAAA"),
            "{:?}",
            first.control.reason
        );
        let mut again = ControlRequest::new(id.clone(), Action::Stop, "bo");
        again.control_id = Some("c-1".into());
        let second = hwf.control(again).expect("again");
        assert!(!second.recorded && !second.needs_runner());
        assert_eq!(second.control.action, Action::Pause);
        assert_eq!(second.control.actor, "ana");
        assert_eq!(hwf.store().read_controls(&id).expect("controls").len(), 1);
    }

    #[test]
    fn calls_and_decisions_are_required_and_checked() {
        let (_dir, hwf, id) = host_with_run(RunState::Waiting);
        let e = hwf
            .control(ControlRequest::new(id.clone(), Action::TaskStop, "ana"))
            .expect_err("no call");
        assert_eq!(e.code(), ErrorCode::InvalidArgs);
        assert!(e.message().contains("task_stop needs the call"), "{e}");
        let mut bad = ControlRequest::new(id.clone(), Action::TaskStop, "ana");
        bad.call = Some("../x".into());
        assert_eq!(hwf.control(bad).expect_err("bad ref").code(), ErrorCode::InvalidName);
        let mut decide = ControlRequest::new(id.clone(), Action::Decide, "ana");
        decide.call = Some("1".into());
        let e = hwf.control(decide.clone()).expect_err("no decision");
        assert_eq!(e.code(), ErrorCode::InvalidArgs);
        decide.decision = Some(Decision::Approve);
        // The run has no call 1 in its journal.
        assert_eq!(hwf.control(decide).expect_err("no call 1").code(), ErrorCode::NotFound);
        assert_eq!(parse_decision("approve").expect("approve"), Decision::Approve);
        assert_eq!(
            parse_decision("maybe").expect_err("maybe").code(),
            ErrorCode::InvalidArgs
        );
    }

    #[test]
    fn events_are_redacted_and_recorded_once_per_id() {
        let (_dir, hwf, _id) = host_with_run(RunState::Waiting);
        let req = EventRequest {
            id: Some("e-1".into()),
            source: "ci".into(),
            kind: "build.done".into(),
            subject: None,
            payload: json!({"token": "s3cr3t-value", "ok": true}),
            digest: None,
        };
        let sent = hwf.send_event(req.clone()).expect("send");
        assert!(sent.new && sent.started.is_empty());
        assert_eq!(sent.event.payload["ok"], true);
        assert_ne!(sent.event.payload["token"], "s3cr3t-value");
        let v = serde_json::to_value(&sent).expect("json");
        assert_eq!(
            (v["id"].as_str(), v["type"].as_str(), v["new"].as_bool()),
            (Some("e-1"), Some("build.done"), Some(true))
        );
        let again = hwf.send_event(req).expect("again");
        assert!(!again.new);
        assert_eq!(again.event.version, sent.event.version);
        assert_eq!(hwf.events().expect("events").len(), 1);
        let bad = EventRequest {
            id: Some("a b".into()),
            ..EventRequest {
                id: None,
                source: "ci".into(),
                kind: "x".into(),
                subject: None,
                payload: Value::Null,
                digest: None,
            }
        };
        assert_eq!(hwf.send_event(bad).expect_err("bad id").code(), ErrorCode::InvalidName);
    }

    #[test]
    fn a_grant_is_revoked_once_and_only_for_its_run() {
        let (_dir, hwf, id) = host_with_run(RunState::Waiting);
        let e = hwf.revoke_grant(&id, "other:2", "ana", None).expect_err("not ours");
        assert_eq!(e.code(), ErrorCode::InvalidArgs);
        let grant = format!("{id}:2");
        let first = hwf.revoke_grant(&id, &grant, "ana", Some("done")).expect("revoke");
        assert!(first.new && first.revoked);
        assert_eq!(first.event.subject.as_deref(), Some(grant.as_str()));
        assert!(!hwf.revoke_grant(&id, &grant, "bo", None).expect("again").new);
    }
}
