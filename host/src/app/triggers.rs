//! Event-triggered and calendar starts (issue 19): a trigger binds an event
//! pattern (source, type, subject, payload fields — the `events.wait`
//! predicate) or a cron expression to a saved workflow and an args template.
//!
//! - a trigger is kept in the store ([`crate::store::Store::triggers`]):
//!   `triggers/<name>.json` in the state dir (written atomically), or the
//!   shared store's `hwf_triggers` on PostgreSQL, so an event sent on any
//!   machine and the cron pass of any runner see every trigger;
//! - a matching event (`hwf events send`, the webhook ingress) enqueues a
//!   run whose id is derived from (trigger, event source, event id): creating the run
//!   (its directory; its row on PostgreSQL, whose key refuses a second
//!   insert) is the once-only step, so an event sent twice — or handled
//!   by two processes or machines at once — starts exactly one run;
//! - a cron trigger is fired by the runner (`runner_pass`): at most one run
//!   per due minute (UTC), the newest due minute since (and including) the
//!   one the trigger was added in, with the run id derived from (trigger,
//!   minute), so runners on several machines start it once. Cron only
//!   starts runs; it never advances a run's phases (the seed's rule).
//!
//! Args templates: any string `"$event"` or `"$event.<path>"` (also the
//! seed's `"$ref:event.<path>"`) is replaced by that part of the event
//! (`id`, `source`, `type`, `subject`, `payload.…`, `version`); for cron,
//! `"$event.minute_ms"` is the minute's start.

use crate::app::host::Hwf;
use crate::app::runs::RunRequest;
use crate::scripts::Target;
use crate::store::{ExternalEvent, now_ms};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One trigger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trigger {
    /// Its name (a safe name).
    pub name: String,
    /// The saved workflow it starts.
    pub workflow: String,
    /// A pinned version (else the newest at start time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// The event predicate (`{source?, type?, subject?, payload?}`), for event triggers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<Value>,
    /// A five-field cron expression (UTC), for calendar triggers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cron: Option<String>,
    /// The args template.
    #[serde(default)]
    pub args: Value,
    /// When it was added (ms since the epoch); cron fires only after it.
    pub created_at_ms: u64,
}

/// Add (or replace) a trigger after checking it.
///
/// # Errors
///
/// `invalid_name`, `invalid_args` (neither or both of event and cron, a bad
/// cron expression), `not_found` (no such saved workflow), `io`.
pub fn add(hwf: &Hwf, t: &Trigger) -> Result<()> {
    hwf_core::ids::validate_name("trigger name", &t.name)?;
    hwf_core::ids::validate_name("workflow name", &t.workflow)?;
    match (&t.on, &t.cron) {
        (Some(_), Some(_)) | (None, None) => {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                "a trigger needs an event pattern (--source/--type/--subject/--payload) or --cron, not both",
            ));
        }
        (None, Some(c)) => {
            Cron::parse(c)?;
        }
        (Some(on), None) => {
            if !on.is_object() {
                return Err(Error::new(
                    ErrorCode::InvalidArgs,
                    "the event pattern must be an object",
                ));
            }
        }
    }
    if hwf_core::redact::redaction_changes(&t.args) {
        return Err(Error::new(
            ErrorCode::InvalidArgs,
            "trigger args are stored, and these contain something credential-shaped",
        ));
    }
    hwf.store().script_meta(&t.workflow, t.version)?;
    let definition = serde_json::to_value(t).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
    hwf.store().put_trigger(&t.name, &definition)
}

/// Every trigger, by name.
///
/// # Errors
///
/// `corrupt_store` naming a malformed trigger file, `io`.
pub fn list(hwf: &Hwf) -> Result<Vec<Trigger>> {
    let mut out = Vec::new();
    for (name, definition) in hwf.store().triggers()? {
        let t: Trigger = serde_json::from_value(definition)
            .map_err(|e| Error::new(ErrorCode::CorruptStore, format!("trigger {name} is malformed: {e}")))?;
        out.push(t);
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Remove a trigger; whether it existed.
///
/// # Errors
///
/// `invalid_name`, `io`.
pub fn remove(hwf: &Hwf, name: &str) -> Result<bool> {
    hwf_core::ids::validate_name("trigger name", name)?;
    hwf.store().remove_trigger(name)
}

/// The args for one start: the template with `$event…` strings replaced.
pub fn render(template: &Value, event: &Value) -> Value {
    match template {
        Value::String(s) => {
            let path = s
                .strip_prefix("$ref:event")
                .or_else(|| s.strip_prefix("$event"))
                .filter(|rest| rest.is_empty() || rest.starts_with('.'));
            match path {
                Some(rest) => {
                    let pointer = rest.replace('.', "/");
                    event.pointer(&pointer).cloned().unwrap_or(Value::Null)
                }
                None => template.clone(),
            }
        }
        Value::Array(a) => Value::Array(a.iter().map(|v| render(v, event)).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), render(v, event))).collect()),
        other => other.clone(),
    }
}

/// The run id a trigger's start gets: `t` + 31 hex digits of a hash of
/// (trigger, occasion) — the same for the same event or minute.
pub fn run_id_for(trigger: &str, occasion: &str) -> RunId {
    let hex = blake3::hash(format!("{trigger}\u{0}{occasion}").as_bytes()).to_hex();
    RunId::parse(&format!("t{}", &hex[..31])).unwrap_or_else(|_| RunId::generate())
}

/// Enqueue one start; `None` when that run already exists.
fn start(hwf: &Hwf, t: &Trigger, occasion: &str, event: &Value) -> Result<Option<RunId>> {
    let id = run_id_for(&t.name, occasion);
    let mut req = RunRequest::new(
        Target::Saved {
            name: t.workflow.clone(),
            version: t.version,
        },
        render(&t.args, event),
    );
    req.run_id = Some(id.clone());
    match hwf.enqueue(&req) {
        Ok(id) => {
            tracing::info!(trigger = %t.name, run_id = %id, occasion, "trigger started a run");
            Ok(Some(id))
        }
        Err(e) if e.code() == ErrorCode::AlreadyExists => Ok(None),
        Err(e) => Err(e),
    }
}

/// Start a run for every event trigger `event` matches (exactly once per
/// trigger and event id). Returns one entry per matching trigger: `{trigger,
/// run_id, new}`, or `{trigger, error: {code, message}}` for one that could
/// not start (the event stays recorded; the others still start).
///
/// # Errors
///
/// `corrupt_store` or `io` when the triggers cannot be read.
pub fn fire(hwf: &Hwf, event: &ExternalEvent) -> Result<Vec<Value>> {
    let ev = serde_json::to_value(event).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
    let mut started = Vec::new();
    for t in list(hwf)? {
        let Some(on) = &t.on else { continue };
        if !crate::capabilities::durable::matches(on, event) {
            continue;
        }
        // Event ids are unique per source: the source is part of the
        // occasion, so another source's event with the same id starts its
        // own run instead of finding this one's. (Before issue 29 the id
        // alone was: an event recorded by an older hwf and delivered
        // again after the upgrade starts once more.)
        let occasion = format!("event:{}\u{0}{}", event.source, event.id);
        match start(hwf, &t, &occasion, &ev) {
            Ok(new) => started.push(json!({
                "trigger": t.name,
                "run_id": new.clone().unwrap_or_else(|| run_id_for(&t.name, &occasion)),
                "new": new.is_some(),
            })),
            Err(e) => {
                tracing::warn!(trigger = %t.name, error = %e, "a trigger could not start its run");
                started.push(json!({"trigger": t.name, "error": crate::store::ErrorInfo::of(&e)}));
            }
        }
    }
    Ok(started)
}

/// The runner's calendar hook: for each cron trigger, enqueue the newest
/// due minute's run (once; the id is derived from the minute). Errors are
/// logged, never fatal to the pass.
pub fn cron_pass(hwf: &Hwf) -> Vec<RunId> {
    let triggers = match list(hwf) {
        Ok(t) => t,
        Err(e) => {
            tracing::warn!(error = %e, "triggers cannot be read");
            return Vec::new();
        }
    };
    let now = now_ms();
    let mut started = Vec::new();
    for t in triggers {
        let Some(expr) = &t.cron else { continue };
        let Ok(cron) = Cron::parse(expr) else { continue };
        // The newest minute from the one it was added in to now that matches,
        // looking back at most a day.
        let this_minute = now / 60_000;
        let first = (t.created_at_ms / 60_000).max(this_minute.saturating_sub(24 * 60));
        let Some(minute) = (first..=this_minute).rev().find(|m| cron.matches(*m)) else {
            continue;
        };
        let occasion = format!("cron:{minute}");
        let ev = json!({"source": "cron", "type": "tick", "id": occasion, "minute_ms": minute * 60_000});
        match start(hwf, &t, &occasion, &ev) {
            Ok(Some(id)) => started.push(id),
            Ok(None) => {}
            Err(e) => tracing::warn!(trigger = %t.name, error = %e, "a cron trigger could not start its run"),
        }
    }
    started
}

/// A five-field cron expression: minute, hour, day of month, month, day of
/// week (0 = Sunday), each `*`, `*/n`, `a`, `a-b`, `a-b/n`, or a comma list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cron {
    fields: [Vec<bool>; 5],
}

impl Cron {
    /// Parse an expression.
    ///
    /// # Errors
    ///
    /// `invalid_args` naming the bad field.
    pub fn parse(expr: &str) -> Result<Self> {
        let parts: Vec<&str> = expr.split_whitespace().collect();
        let bad = |m: String| Error::new(ErrorCode::InvalidArgs, format!("cron {expr:?}: {m}"));
        if parts.len() != 5 {
            return Err(bad(
                "expected five fields: minute hour day-of-month month day-of-week".into()
            ));
        }
        let ranges = [(0u32, 59u32), (0, 23), (1, 31), (1, 12), (0, 6)];
        let mut fields: [Vec<bool>; 5] = Default::default();
        for (i, (part, (lo, hi))) in parts.iter().zip(ranges).enumerate() {
            let mut set = vec![false; hi as usize + 1];
            for item in part.split(',') {
                let (range, step) = match item.split_once('/') {
                    Some((r, s)) => (
                        r,
                        s.parse::<u32>()
                            .ok()
                            .filter(|s| *s > 0)
                            .ok_or_else(|| bad(format!("bad step in {item:?}")))?,
                    ),
                    None => (item, 1),
                };
                let (a, b) = if range == "*" {
                    (lo, hi)
                } else if let Some((a, b)) = range.split_once('-') {
                    let p = |s: &str| s.parse::<u32>().map_err(|_| bad(format!("bad number in {item:?}")));
                    (p(a)?, p(b)?)
                } else {
                    let a = range
                        .parse::<u32>()
                        .map_err(|_| bad(format!("bad number in {item:?}")))?;
                    (a, a)
                };
                if a < lo || b > hi || a > b {
                    return Err(bad(format!("{item:?} is outside {lo}-{hi}")));
                }
                for v in (a..=b).step_by(step as usize) {
                    set[v as usize] = true;
                }
            }
            fields[i] = set;
        }
        Ok(Self { fields })
    }

    /// Whether the minute `minute` (minutes since the epoch, UTC) matches.
    pub fn matches(&self, minute: u64) -> bool {
        let (min, hour) = ((minute % 60) as usize, ((minute / 60) % 24) as usize);
        let days = minute / (60 * 24);
        let (_, month, day) = civil(days);
        let weekday = ((days + 4) % 7) as usize; // 1970-01-01 was a Thursday.
        let [m, h, dom, mon, dow] = &self.fields;
        m[min] && h[hour] && dom[day as usize] && mon[month as usize] && dow[weekday]
    }
}

/// (year, month 1-12, day 1-31) of a day count since 1970-01-01
/// (Howard Hinnant's civil_from_days).
fn civil(days: u64) -> (i64, u32, u32) {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cron_fields_and_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(19_723), (2024, 1, 1));
        let every_5 = Cron::parse("*/5 * * * *").expect("parse");
        assert!(every_5.matches(0) && every_5.matches(5) && !every_5.matches(3));
        // 2024-01-01 09:30 UTC was a Monday.
        let minute = 19_723 * 1440 + 9 * 60 + 30;
        assert!(Cron::parse("30 9 * * 1-5").expect("parse").matches(minute));
        assert!(!Cron::parse("30 9 * * 0,6").expect("parse").matches(minute));
        assert!(Cron::parse("30 9 1 1 *").expect("parse").matches(minute));
        for bad in ["* * * *", "60 * * * *", "*/0 * * * *", "a * * * *", "5-1 * * * *"] {
            assert!(Cron::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn templates_take_event_fields() {
        let ev = json!({"id": "e1", "payload": {"number": 7, "repo": {"name": "app"}}});
        let t = json!({"pr": "$event.payload.number", "repo": "$ref:event.payload.repo.name",
                       "whole": "$event", "plain": "$eventually", "n": [1, "$event.id"]});
        assert_eq!(
            render(&t, &ev),
            json!({"pr": 7, "repo": "app", "whole": ev, "plain": "$eventually", "n": [1, "e1"]})
        );
        assert_eq!(run_id_for("a", "event:e1"), run_id_for("a", "event:e1"));
        assert_ne!(run_id_for("a", "event:e1"), run_id_for("b", "event:e1"));
        assert_ne!(run_id_for("a", "event:gh\u{0}e1"), run_id_for("a", "event:ci\u{0}e1"));
    }
}
