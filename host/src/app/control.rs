//! Operator controls: append-only records in `runs/<id>/controls.jsonl`.
//!
//! `pause` (the run parks at its next call), `resume`, `stop` (terminal;
//! interrupts a running guest), `task_stop <call>` (that call returns
//! `cancelled`), `retry <call>` (a failed call runs live on the next
//! resume), `decide <call> approve|reject|edit|respond` (answers an
//! approval or a `human.ask`). Each record carries an id (idempotent: the
//! same id twice is recorded once), the actor, a reason, and for decisions
//! the channel and message id they came from.

use crate::store::Store;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::journal::Entry;
use serde_json::Value;
use std::collections::HashSet;

pub use hwf_core::control::{Action, Control, Controls, Decision};

/// Read a run's controls.
///
/// # Errors
///
/// `not_found`, `io`, `corrupt_store`.
pub fn read_controls(store: &Store, run: &RunId) -> Result<Controls> {
    Ok(Controls(store.read_controls(run)?))
}

/// Call ids a `retry` control names: they run live on the next resume.
pub fn retried_calls(store: &Store, run: &RunId) -> HashSet<String> {
    crate::app::control::read_controls(store, run)
        .map(|c| c.retried_calls())
        .unwrap_or_default()
}

/// Record a control (idempotent by id). Returns whether it was new.
///
/// # Errors
///
/// `invalid_args` for a control that lacks what it needs, `invalid_name`,
/// `not_found`, `io`.
pub fn record(store: &Store, run: &RunId, mut control: Control) -> Result<bool> {
    let needs_call = matches!(control.action, Action::TaskStop | Action::Retry | Action::Decide);
    if needs_call {
        match &control.call {
            Some(c) => hwf_core::ids::validate_name("call ref", c)?,
            None => {
                return Err(Error::new(
                    ErrorCode::InvalidArgs,
                    format!("{:?} needs a call ref", control.action),
                ));
            }
        }
    }
    // The same id again is the same control: already recorded, whatever
    // the run has done since. Only a stop is recorded on damaged controls
    // (and honoured); anything else is refused with the store's code.
    let existing = if control.action == Action::Stop {
        store.read_controls_lenient(run)?.0
    } else {
        store.read_controls(run)?
    };
    if existing.iter().any(|c| c.id == control.id) {
        return Ok(false);
    }
    if control.action == Action::Decide {
        match control.decision {
            None => {
                return Err(Error::new(
                    ErrorCode::InvalidArgs,
                    "decide needs approve, reject, edit or respond",
                ));
            }
            Some(Decision::Edit | Decision::Respond) if control.value.is_none() => {
                return Err(Error::new(ErrorCode::InvalidArgs, "edit and respond need --value JSON"));
            }
            Some(d) => check_decision(
                store,
                run,
                control.call.as_deref().unwrap_or(""),
                d,
                control.value.as_ref(),
            )?,
        }
    }
    if let Some(v) = &mut control.value {
        hwf_core::redact::redact_value(v);
    }
    if let Some(r) = &control.reason {
        control.reason = Some(hwf_core::redact::redact_text(r).into_owned());
    }
    store.append_control(run, &control)
}

/// The kind of the wait a call of a run is parked on now (`human`,
/// `approval`, `event`, `timer`), from the run's journal: its last
/// `wait_started` not followed by `wait_resolved` or its completion.
///
/// # Errors
///
/// `not_found`, `io`, `corrupt_store` when the journal cannot be read.
pub fn open_wait(store: &Store, run: &RunId, call: &str) -> Result<Option<String>> {
    let mut open = None;
    for e in store.read_entries_compact(run)? {
        if e.call() != Some(call) {
            continue;
        }
        match e.entry {
            Entry::WaitStarted { kind, .. } => open = Some(kind),
            Entry::WaitResolved { .. } | Entry::CallCompleted { .. } => open = None,
            _ => {}
        }
    }
    Ok(open)
}

/// A decision fits the wait it answers: a question (`human.ask`) takes
/// `respond` or `reject`, an approval `approve`, `reject` or `edit` (with
/// an object: the call's new input); a call that is not waiting for a
/// decision takes none.
///
/// # Errors
///
/// `invalid_args` naming the call, what it waits for and what it accepts.
pub fn check_decision(store: &Store, run: &RunId, call: &str, decision: Decision, value: Option<&Value>) -> Result<()> {
    let refuse = |msg: String| Err(Error::new(ErrorCode::InvalidArgs, msg));
    let name = serde_json::to_value(decision)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    match (open_wait(store, run, call)?.as_deref(), decision) {
        (Some("human"), Decision::Respond | Decision::Reject) => Ok(()),
        (Some("human"), _) => refuse(format!(
            "call {call} of run {run} is a question (human.ask): answer it with `respond` and a value, or `reject` it; `{name}` is for approvals"
        )),
        (Some("approval"), Decision::Edit) if !value.is_some_and(Value::is_object) => refuse(format!(
            "`edit` on call {call} needs the call's new input as a JSON object"
        )),
        (Some("approval"), Decision::Approve | Decision::Reject | Decision::Edit) => Ok(()),
        (Some("approval"), _) => refuse(format!(
            "call {call} of run {run} waits for an approval: `approve`, `reject` or `edit` it; `respond` answers questions"
        )),
        (Some(kind), _) => refuse(format!(
            "call {call} of run {run} waits for {} {kind}, not for a decision",
            if kind == "event" { "an" } else { "a" }
        )),
        (None, _) => refuse(format!(
            "call {call} of run {run} is not waiting for a decision (see `hwf status {run}` for its waits)"
        )),
    }
}
