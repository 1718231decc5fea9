//! `hwf kanban …`: choose the store's board and drive built-in cards
//! (list, show, move, comment, complete) as an operator or a test would.

use super::Cli;
use super::output::Out;
use hwf_host::capabilities::kanban::{self, Board};
use hwf_host::config::Config;
use hwf_host::{Error, ErrorCode};
use serde_json::{Value, json};
use std::path::PathBuf;

/// `hwf kanban` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum KanbanCommand {
    /// Choose the board kanban_agent steps use: builtin, hermes, or off.
    Use {
        /// builtin | hermes | off.
        board: String,
        /// The hermes executable (hermes board).
        #[arg(long, value_name = "PATH")]
        hermes: Option<String>,
        /// HERMES_KANBAN_DB for the hermes CLI (default: Hermes' own ~/.hermes/kanban.db).
        #[arg(long, value_name = "FILE")]
        db: Option<PathBuf>,
        /// A named Hermes board (`hermes kanban --board SLUG`).
        #[arg(long, value_name = "SLUG")]
        hermes_board: Option<String>,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// List cards, oldest first.
    List {
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show one card.
    Show {
        /// Card id (kb_…).
        card: String,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Move a built-in card to a status (done, blocked and failed end its wait).
    Move {
        /// Card id.
        card: String,
        /// triage, todo, ready, running, review, blocked, done, failed, cancelled, archived.
        status: String,
        /// Who moves it (recorded).
        #[arg(long, default_value = "cli")]
        actor: String,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Comment on a card.
    Comment {
        /// Card id.
        card: String,
        /// The comment.
        text: String,
        /// Who comments (recorded).
        #[arg(long, default_value = "cli")]
        actor: String,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
    /// Complete a built-in card with its result (its run continues at once: see `hwf control decide`).
    Complete {
        /// Card id.
        card: String,
        /// The result JSON (what the kanban_agent step returns; checked against its output_schema).
        #[arg(long, value_name = "JSON")]
        result: String,
        /// A one-line summary (default: the result's `summary`).
        #[arg(long)]
        summary: Option<String>,
        /// Who completes it (recorded).
        #[arg(long, default_value = "cli")]
        actor: String,
        /// Print the facade JSON.
        #[arg(long)]
        json: bool,
    },
}

impl KanbanCommand {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match self {
            Self::Use { json, .. }
            | Self::List { json }
            | Self::Show { json, .. }
            | Self::Move { json, .. }
            | Self::Comment { json, .. }
            | Self::Complete { json, .. } => *json,
        }
    }
}

fn line(c: &Value) -> String {
    format!(
        "{}  {:<9} {:<12} {}{}",
        c["id"].as_str().unwrap_or(""),
        c["status"].as_str().unwrap_or(""),
        c["assignee"].as_str().unwrap_or(""),
        c["title"].as_str().unwrap_or(""),
        c["hermes_task"]
            .as_str()
            .map(|t| format!("  (hermes {t})"))
            .unwrap_or_default()
    )
}

/// A card just moved to an end (done, blocked, failed…) resolves the wait
/// of the run parked on it: hand that run to a runner now, as a decision
/// is (see `ops::ensure_runner`).
fn wake_its_run(cli: &Cli, config: &Config, hwf: &hwf_host::Hwf, card: &Value) -> Result<(), Error> {
    let ended = card["status"].as_str().and_then(kanban::terminal).is_some();
    let run = card["run"].as_str().and_then(|r| hwf_host::ids::RunId::parse(r).ok());
    if let Some(run) = run.filter(|_| ended)
        && hwf
            .store()
            .read_snapshot(&run)
            .is_ok_and(|s| s.state == hwf_host::store::RunState::Waiting)
    {
        super::ops::ensure_runner(cli, config)?;
    }
    Ok(())
}

/// Run one `hwf kanban` command.
///
/// # Errors
///
/// `invalid_args` (bad status, bad result JSON, a Hermes card), `not_found`,
/// `invalid_config`, `io`.
pub fn run(cli: &Cli, config: &Config, cmd: &KanbanCommand, out: &Out) -> Result<i32, Error> {
    let hwf = super::open_plain_host(cli, config)?;
    let store = hwf.store();
    match cmd {
        KanbanCommand::Use {
            board,
            hermes,
            db,
            hermes_board,
            ..
        } => {
            let chosen = match board.as_str() {
                "off" => None,
                "builtin" => Some(Board::Builtin),
                "hermes" => Some(Board::Hermes {
                    bin: hermes.clone().unwrap_or_else(|| "hermes".into()),
                    db: db.clone(),
                    board: hermes_board.clone(),
                }),
                other => {
                    return Err(Error::new(
                        ErrorCode::InvalidArgs,
                        format!("board {other:?}: expected builtin, hermes or off"),
                    ));
                }
            };
            if let Some(Board::Hermes { board: Some(b), .. }) = &chosen {
                hwf_host::ids::validate_name("hermes board", b)?;
            }
            let v = chosen.as_ref().map(Board::to_config);
            store.write_kanban_config(v.as_ref())?;
            let data = json!({"board": v});
            out.data(&data, |_| format!("kanban board: {board}"));
        }
        KanbanCommand::List { .. } => {
            let cards = store.list_cards()?;
            let data = json!({"cards": cards, "board": store.kanban_config()?});
            out.data(&data, |_| cards.iter().map(line).collect::<Vec<_>>().join("\n"));
        }
        KanbanCommand::Show { card, .. } => {
            let c = store.read_card(card)?;
            out.data(&c, |c| serde_json::to_string_pretty(c).unwrap_or_default());
        }
        KanbanCommand::Move {
            card, status, actor, ..
        } => {
            let c = kanban::update(store, card, status, None, None, actor)?;
            wake_its_run(cli, config, &hwf, &c)?;
            out.data(&c, line);
        }
        KanbanCommand::Comment { card, text, actor, .. } => {
            let text = hwf_core::redact::redact_text(text);
            let c = kanban::comment(store, card, &text, actor)?;
            out.data(&c, line);
        }
        KanbanCommand::Complete {
            card,
            result,
            summary,
            actor,
            ..
        } => {
            let mut result: Value = serde_json::from_str(result)
                .map_err(|e| Error::new(ErrorCode::InvalidArgs, format!("--result is not valid JSON: {e}")))?;
            hwf_core::redact::redact_value(&mut result);
            let c = kanban::update(store, card, "done", Some(result), summary.clone(), actor)?;
            wake_its_run(cli, config, &hwf, &c)?;
            out.data(&c, line);
        }
    }
    Ok(0)
}
