//! `hwf triggers add|list|remove`: event-triggered and calendar starts of
//! saved workflows (see `hwf_host::triggers`).

use super::Cli;
use super::output::Out;
use hwf_host::config::Config;
use hwf_host::triggers::{self, Trigger};
use hwf_host::{Error, ErrorCode};
use serde_json::{Map, Value, json};

/// `hwf triggers` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum TriggersCommand {
    /// Add (or replace) a trigger: an event pattern or --cron, a saved workflow, an args template.
    Add {
        /// Trigger name.
        name: String,
        /// The saved workflow to start (`hwf script save`).
        #[arg(long)]
        workflow: String,
        /// Pin a version of it (default: the newest at each start).
        #[arg(long)]
        version: Option<u32>,
        /// Event source to match (e.g. github).
        #[arg(long)]
        source: Option<String>,
        /// Event type to match (e.g. pull_request.opened).
        #[arg(long = "type")]
        kind: Option<String>,
        /// Event subject to match.
        #[arg(long)]
        subject: Option<String>,
        /// Payload fields to match, as JSON (`{"action": "opened"}`; dotted keys reach nested fields).
        #[arg(long, value_name = "JSON")]
        payload: Option<String>,
        /// A five-field cron expression (UTC) instead of an event pattern.
        #[arg(long, value_name = "EXPR")]
        cron: Option<String>,
        /// The args template JSON: "$event.payload.x" strings take the event's fields.
        #[arg(long, value_name = "JSON", default_value = "{}")]
        args: String,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// List triggers.
    List {
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove a trigger.
    Remove {
        /// Trigger name.
        name: String,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
}

impl TriggersCommand {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            Self::Add { json, .. } | Self::List { json } | Self::Remove { json, .. } => *json,
        }
    }
}

fn parse_json(flag: &str, text: &str) -> Result<Value, Error> {
    serde_json::from_str(text).map_err(|e| Error::new(ErrorCode::InvalidArgs, format!("{flag} is not valid JSON: {e}")))
}

/// Run one `hwf triggers` command.
///
/// # Errors
///
/// `invalid_args`, `invalid_name`, `not_found` (no such workflow), `io`.
pub fn run(cli: &Cli, config: &Config, cmd: &TriggersCommand, out: &Out) -> Result<i32, Error> {
    let hwf = super::open_plain_host(cli, config)?;
    match cmd {
        TriggersCommand::Add {
            name,
            workflow,
            version,
            source,
            kind,
            subject,
            payload,
            cron,
            args,
            ..
        } => {
            let mut on = Map::new();
            for (k, v) in [("source", source), ("type", kind), ("subject", subject)] {
                if let Some(v) = v {
                    on.insert(k.into(), json!(v));
                }
            }
            if let Some(p) = payload {
                let p = parse_json("--payload", p)?;
                if !p.is_object() {
                    return Err(Error::new(ErrorCode::InvalidArgs, "--payload must be a JSON object"));
                }
                on.insert("payload".into(), p);
            }
            let t = Trigger {
                name: name.clone(),
                workflow: workflow.clone(),
                version: *version,
                on: (!on.is_empty()).then_some(Value::Object(on)),
                cron: cron.clone(),
                args: parse_json("--args", args)?,
                created_at_ms: hwf_host::store::now_ms(),
            };
            triggers::add(&hwf, &t)?;
            let v = serde_json::to_value(&t).unwrap_or(Value::Null);
            out.data(&v, |_| format!("trigger {name} → {workflow}"));
        }
        TriggersCommand::List { .. } => {
            let all = triggers::list(&hwf)?;
            let v = json!({"triggers": all});
            out.data(&v, |_| {
                all.iter()
                    .map(|t| {
                        let when = t.cron.as_ref().map_or_else(
                            || t.on.as_ref().map(Value::to_string).unwrap_or_default(),
                            |c| format!("cron {c}"),
                        );
                        format!("{}  {}  {when}", t.name, t.workflow)
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            });
        }
        TriggersCommand::Remove { name, .. } => {
            let removed = triggers::remove(&hwf, name)?;
            if !removed {
                return Err(Error::new(ErrorCode::NotFound, format!("no trigger {name}")));
            }
            out.data(&json!({"removed": name}), |_| format!("trigger {name} removed"));
        }
    }
    Ok(0)
}
