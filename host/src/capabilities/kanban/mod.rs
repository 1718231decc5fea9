//! Kanban lanes (issue 19): a `kanban_agent` step — an agent call to the
//! reserved id `kanban.<profile>` with `{profile, task, input, wait,
//! durable}`, as the JSON runtime sends it — becomes a card on a task board,
//! and the run parks durably (a `kanban` wait; no process held) until the
//! card reaches a terminal state; the call then returns the card's outcome.
//!
//! A store opts in with `hwf kanban use builtin|hermes` (the store's
//! [`KanbanStore`](hwf_core::store::KanbanStore): `kanban/config.json` in
//! the state dir, or the shared store's, so every machine on one database
//! sees the same board); without it `kanban.*` calls stay ordinary agent
//! calls (a fixture or an agent route answers them). Boards:
//!
//! - **builtin**: cards in the store (`kanban/cards/<id>.json` on the file
//!   store, `hwf_kanban_cards` on PostgreSQL), driven by
//!   `hwf kanban list|show|move|comment|complete` on any machine;
//! - **hermes**: Hermes Agent's own board, through its `hermes kanban` CLI
//!   as the seed's adapter does (`create --idempotency-key`, then `show
//!   --json` to learn of completion; never `dispatch`). A local mirror card
//!   records the Hermes task id, so `hwf kanban list` shows both.
//!
//! The card id is derived from the call's idempotency key (`<root run>:<call
//! id>`), and Hermes dedups on the same key: a call replayed after a crash
//! or on a continuation finds its card instead of making a second one.
//!
//! Outcome: the seed's `{task_id, profile, status: completed|blocked|failed,
//! result}` plus `card_id, board, summary, links, reason?, hermes_task?` and
//! the result's own fields where they do not collide; with an
//! `output_schema` a completed card's outcome must match it
//! (`schema_mismatch` otherwise).

use crate::capabilities::WaitRequest;
use crate::store::{Store, now_ms};
use hwf_core::error::{Error, ErrorCode, Result};
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::time::Duration;

/// The wait kind a parked Kanban call shows in status.
pub const WAIT_KIND: &str = "kanban";

/// Statuses an operator may move a built-in card to.
pub const STATUSES: &[&str] = &[
    "triage",
    "todo",
    "ready",
    "running",
    "review",
    "blocked",
    "done",
    "failed",
    "cancelled",
    "archived",
];

/// How long one `hermes kanban` invocation may take.
const HERMES_TIMEOUT: Duration = Duration::from_secs(60);

/// Which board a store's Kanban lanes use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Board {
    /// Cards in the store.
    Builtin,
    /// Hermes Agent's board through its CLI.
    Hermes {
        /// The `hermes` executable.
        bin: String,
        /// `HERMES_KANBAN_DB` for the CLI (else Hermes' own resolution).
        db: Option<PathBuf>,
        /// `--board <slug>`.
        board: Option<String>,
    },
}

impl Board {
    /// Parse `kanban/config.json`.
    ///
    /// # Errors
    ///
    /// `invalid_config` naming what is wrong.
    pub fn from_config(v: &Value) -> Result<Self> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        match s("board").as_deref() {
            Some("builtin") => Ok(Self::Builtin),
            Some("hermes") => Ok(Self::Hermes {
                bin: s("hermes").unwrap_or_else(|| "hermes".into()),
                db: s("db").map(PathBuf::from),
                board: s("hermes_board"),
            }),
            other => Err(Error::new(
                ErrorCode::InvalidConfig,
                format!("kanban/config.json: board {other:?} is not builtin or hermes"),
            )),
        }
    }

    /// The config JSON for this board.
    pub fn to_config(&self) -> Value {
        match self {
            Self::Builtin => json!({"board": "builtin"}),
            Self::Hermes { bin, db, board } => {
                json!({"board": "hermes", "hermes": bin, "db": db, "hermes_board": board})
            }
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Self::Builtin => "builtin",
            Self::Hermes { .. } => "hermes",
        }
    }
}

/// Why a Kanban call did not return an outcome.
#[derive(Debug)]
pub enum LaneError {
    /// The card is not terminal yet: park the run.
    Park(WaitRequest),
    /// The call fails with this code and message.
    Failed(&'static str, String),
    /// The store failed: the run ends with its code.
    Store(Error),
}

impl From<Error> for LaneError {
    fn from(e: Error) -> Self {
        Self::Store(e)
    }
}

/// Whether the agent call `request` is a Kanban lane here: its agent id is
/// `kanban.<profile>` and the store has a board configured.
pub fn claims(store: Option<&Store>, request: &Value) -> bool {
    let kanban = request
        .get("agent")
        .and_then(Value::as_str)
        .is_some_and(|a| a.starts_with("kanban."));
    // An unreadable config is claimed, so the call fails with its error
    // instead of silently going to an agent.
    kanban && store.is_some_and(|s| !matches!(s.kanban_config(), Ok(None)))
}

/// The card id for an idempotency key: `kb_` + 16 hex digits of its BLAKE3 hash.
pub fn card_id(key: &str) -> String {
    let hex = blake3::hash(key.as_bytes()).to_hex();
    format!("kb_{}", &hex[..16])
}

/// The outcome status a board status maps to, `None` while it is open.
pub fn terminal(status: &str) -> Option<&'static str> {
    match status.trim().to_ascii_lowercase().as_str() {
        "done" | "completed" | "complete" | "succeeded" => Some("completed"),
        "blocked" => Some("blocked"),
        "failed" | "error" | "errored" | "timed_out" | "timeout" | "crashed" | "gave_up" | "cancelled" | "canceled"
        | "abandoned" | "archived" => Some("failed"),
        _ => None,
    }
}

fn parse_maybe_json(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

/// What a `kanban.<profile>` call asks for.
struct Ask {
    profile: String,
    title: String,
    body: String,
    acceptance: Vec<Value>,
    links: Vec<Value>,
    input: Value,
    task: Value,
    wait: bool,
    schema: Option<Value>,
}

fn ask(request: &Value) -> std::result::Result<Ask, LaneError> {
    let agent = request.get("agent").and_then(Value::as_str).unwrap_or("");
    let payload = parse_maybe_json(request.get("input"));
    let profile = payload
        .get("profile")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .map_or_else(|| agent.trim_start_matches("kanban.").to_owned(), str::to_owned);
    if hwf_core::ids::validate_name("kanban profile", &profile).is_err() {
        return Err(LaneError::Failed(
            "invalid_input",
            format!(
                "kanban profile {:?} is not a plain name",
                profile.chars().take(64).collect::<String>()
            ),
        ));
    }
    let task = payload.get("task").cloned().unwrap_or(Value::Null);
    let field = |k: &str| task.get(k).and_then(Value::as_str).map(str::to_owned);
    let title = match &task {
        Value::String(s) => s.clone(),
        _ => field("title")
            .or_else(|| {
                request
                    .pointer("/context/title")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .or_else(|| request.get("label").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| format!("{profile} task")),
    };
    let list = |k: &str| match task.get(k) {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::Null) | None => Vec::new(),
        Some(v) => vec![v.clone()],
    };
    let body = field("body").or_else(|| field("description")).unwrap_or_default();
    let schema = match request.get("schema") {
        None | Some(Value::Null) => None,
        s => Some(parse_maybe_json(s)),
    };
    Ok(Ask {
        title: hwf_core::redact::clip(title.trim(), 200).to_owned(),
        body,
        acceptance: list("acceptance"),
        links: list("links"),
        input: payload.get("input").cloned().unwrap_or(Value::Null),
        task: task.clone(),
        wait: payload.get("wait").and_then(Value::as_bool).unwrap_or(true),
        schema,
        profile,
    })
}

/// The outcome of a terminal card (`status` is the canonical one): the
/// seed's shape `{task_id, profile, status, result}` plus `card_id`,
/// `board`, `summary`, `links`, `reason?`, `hermes_task?`, and the result's
/// own fields where they do not collide. With a schema, a completed card is
/// checked: the whole outcome (`payload == false`, the JSON step's
/// `output_schema`, which names `task_id`/`status`/`result`) or the result
/// alone (`payload == true`, Python's `kanban_agent(schema=…)`).
fn outcome(
    card: &Value,
    canonical: &str,
    schema: Option<&Value>,
    payload: bool,
    rules: &hwf_core::schema::AnswerRules,
) -> std::result::Result<Value, LaneError> {
    let result = card.get("result").cloned().unwrap_or(Value::Null);
    let mut out = Map::new();
    out.insert("task_id".into(), card.get("id").cloned().unwrap_or(Value::Null));
    out.insert("profile".into(), card.get("assignee").cloned().unwrap_or(Value::Null));
    out.insert("status".into(), json!(canonical));
    out.insert("card_id".into(), card.get("id").cloned().unwrap_or(Value::Null));
    out.insert("board".into(), card.get("board").cloned().unwrap_or(Value::Null));
    out.insert("summary".into(), card.get("summary").cloned().unwrap_or(Value::Null));
    out.insert("links".into(), card.get("links").cloned().unwrap_or(json!([])));
    out.insert("result".into(), result.clone());
    if let Some(t) = card.get("hermes_task").filter(|t| !t.is_null()) {
        out.insert("hermes_task".into(), t.clone());
    }
    let raw = card.get("status").and_then(Value::as_str).unwrap_or("");
    if canonical != "completed" || raw != "done" {
        out.insert("reason".into(), json!(raw));
    }
    if let Value::Object(fields) = &result {
        for (k, v) in fields {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let out = Value::Object(out);
    if canonical == "completed"
        && let Some(schema) = schema
    {
        let compiled = hwf_core::schema::OutputSchema::compile_with(schema, rules)
            .map_err(|e| LaneError::Failed("invalid_schema", e))?;
        compiled.check(if payload { &result } else { &out }).map_err(|e| {
            LaneError::Failed(
                "schema_mismatch",
                format!(
                    "card {}: its outcome does not match the output schema: {e}",
                    card["id"].as_str().unwrap_or("")
                ),
            )
        })?;
    }
    Ok(out)
}

fn park(card: &Value, board: &Board) -> LaneError {
    let id = card["id"].as_str().unwrap_or("");
    LaneError::Park(WaitRequest {
        kind: WAIT_KIND.into(),
        summary: format!(
            "kanban card {id} for {}: {}",
            card["assignee"].as_str().unwrap_or("?"),
            hwf_core::redact::clip(card["title"].as_str().unwrap_or(""), 160)
        ),
        wake_at_ms: None,
        detail: json!({"board": board.name(), "card": id, "task": card.get("hermes_task")}),
    })
}

/// The board a store is configured with.
///
/// # Errors
///
/// `invalid_config` when none is (or it is malformed), the store's errors.
pub fn board(store: &Store) -> Result<Board> {
    match store.kanban_config()? {
        Some(v) => Board::from_config(&v),
        None => Err(Error::new(
            ErrorCode::InvalidConfig,
            "no kanban board is configured: `hwf kanban use builtin` or `hwf kanban use hermes`",
        )),
    }
}

/// Run one Kanban call: find or create its card, return the outcome when
/// the card is terminal (or at once, with `wait: false`), else park. A
/// completed card meets the request's schema with its whole outcome, or
/// with its result alone when the request says `schema_on: payload` (the
/// `kanban.task` capability) or its answer rules say `card_result`.
///
/// # Errors
///
/// [`LaneError`]: park, a typed failure, or the store's error.
pub async fn card_call(
    store: Option<&Store>,
    key: &str,
    request: &Value,
    rules: &hwf_core::schema::AnswerRules,
) -> std::result::Result<Value, LaneError> {
    let store = store.ok_or_else(|| LaneError::Failed("invalid_config", "a kanban lane needs a store".into()))?;
    let board = board(store).map_err(|e| LaneError::Failed("invalid_config", e.message().to_owned()))?;
    let ask = ask(request)?;
    let id = card_id(key);
    let (run, call) = key.rsplit_once(':').unwrap_or((key, ""));
    let now = now_ms();
    let fresh = json!({
        "id": id,
        "board": board.name(),
        "idempotency_key": key,
        "run": run,
        "call": call,
        "assignee": ask.profile,
        "title": ask.title,
        "body": ask.body,
        "acceptance": ask.acceptance,
        "links": ask.links,
        "input": ask.input,
        "task": ask.task,
        "status": "ready",
        "result": null,
        "summary": null,
        "comments": [],
        "history": [{"status": "ready", "actor": "hwf", "at_ms": now}],
        "created_at_ms": now,
        "updated_at_ms": now,
    });
    let mut card = match store.read_card(&id) {
        Ok(c) => c,
        Err(e) if e.code() == ErrorCode::NotFound => store.create_card(&fresh)?.0,
        Err(e) => return Err(e.into()),
    };
    if let Board::Hermes { .. } = &board {
        card = hermes_sync(store, &board, card).await?;
    }
    if !ask.wait {
        return Ok(
            json!({"task_id": id, "status": "created", "card_id": id, "board": board.name(),
                         "hermes_task": card.get("hermes_task"), "links": card.get("links")}),
        );
    }
    match card.get("status").and_then(Value::as_str).and_then(terminal) {
        Some(canonical) => outcome(
            &card,
            canonical,
            ask.schema.as_ref(),
            request["schema_on"] == "payload" || rules.card_result,
            rules,
        ),
        None => Err(park(&card, &board)),
    }
}

/// Whether a `kanban` wait has resolved (its card is terminal). A card or
/// board that cannot be read resolves nothing (it is logged).
pub fn wait_resolved(store: &Store, detail: &Value) -> bool {
    let id = detail.get("card").and_then(Value::as_str).unwrap_or("");
    let card = match store.read_card(id) {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(card = id, error = %e, "a kanban card cannot be read");
            return false;
        }
    };
    if card.get("status").and_then(Value::as_str).and_then(terminal).is_some() {
        return true;
    }
    if card.get("board").and_then(Value::as_str) != Some("hermes") {
        return false;
    }
    let Ok(board @ Board::Hermes { .. }) = board(store) else {
        return false;
    };
    let Some(task) = card.get("hermes_task").and_then(Value::as_str) else {
        return false;
    };
    match hermes_blocking(&board, &["show", task, "--json"]) {
        Ok(shown) => shown
            .pointer("/task/status")
            .and_then(Value::as_str)
            .and_then(terminal)
            .is_some(),
        Err(e) => {
            tracing::warn!(card = id, error = %e, "the Hermes board cannot be read");
            false
        }
    }
}

/// A status change on a built-in card (`hwf kanban move|complete`).
///
/// # Errors
///
/// `invalid_args` for an unknown status or a Hermes card, `not_found`, `io`.
pub fn update(
    store: &Store,
    id: &str,
    status: &str,
    result: Option<Value>,
    summary: Option<String>,
    actor: &str,
) -> Result<Value> {
    if !STATUSES.contains(&status) {
        return Err(Error::new(
            ErrorCode::InvalidArgs,
            format!("status {status:?} is not one of {}", STATUSES.join(", ")),
        ));
    }
    let mut card = store.read_card(id)?;
    if card.get("board").and_then(Value::as_str) == Some("hermes") {
        return Err(Error::new(
            ErrorCode::InvalidArgs,
            format!(
                "card {id} lives on the Hermes board (task {}): change it there, e.g. `hermes kanban complete {}`",
                card["hermes_task"].as_str().unwrap_or("?"),
                card["hermes_task"].as_str().unwrap_or("?")
            ),
        ));
    }
    let now = now_ms();
    card["status"] = json!(status);
    if let Some(r) = result {
        if card["summary"].is_null()
            && let Some(s) = r.get("summary").and_then(Value::as_str)
        {
            card["summary"] = json!(s);
        }
        card["result"] = r;
    }
    if let Some(s) = summary {
        card["summary"] = json!(s);
    }
    card["updated_at_ms"] = json!(now);
    if let Some(h) = card.get_mut("history").and_then(Value::as_array_mut) {
        h.push(json!({"status": status, "actor": actor, "at_ms": now}));
    }
    store.write_card(&card)?;
    Ok(card)
}

/// Add a comment to a card (built-in; a Hermes card's comment also goes to
/// Hermes with `hermes kanban comment`).
///
/// # Errors
///
/// `not_found`, `io`, `agent_failed` when Hermes refuses.
pub fn comment(store: &Store, id: &str, text: &str, actor: &str) -> Result<Value> {
    let mut card = store.read_card(id)?;
    if let Some(task) = card.get("hermes_task").and_then(Value::as_str) {
        let board = board(store)?;
        hermes_blocking(&board, &["comment", task, text]).map_err(|e| Error::new(ErrorCode::Io, e))?;
    }
    let now = now_ms();
    let c = json!({"author": actor, "body": text, "at_ms": now});
    match card.get_mut("comments").and_then(Value::as_array_mut) {
        Some(a) => a.push(c),
        None => card["comments"] = json!([c]),
    }
    card["updated_at_ms"] = json!(now);
    store.write_card(&card)?;
    Ok(card)
}

// --- Hermes ---------------------------------------------------------------

fn hermes_cmd(board: &Board, args: &[&str]) -> Option<std::process::Command> {
    let Board::Hermes { bin, db, board } = board else {
        return None;
    };
    let mut cmd = std::process::Command::new(bin);
    cmd.arg("kanban");
    if let Some(b) = board {
        cmd.args(["--board", b]);
    }
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if let Some(db) = db {
        cmd.env("HERMES_KANBAN_DB", db);
    }
    Some(cmd)
}

fn hermes_parse(sub: &str, out: &std::process::Output) -> std::result::Result<Value, String> {
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "hermes kanban {sub} exited {}: {}",
            out.status.code().unwrap_or(-1),
            hwf_core::redact::redact_text(hwf_core::redact::clip(err.trim(), 400))
        ));
    }
    if sub == "comment" {
        return Ok(Value::Null);
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("hermes kanban {sub} did not print JSON: {e}"))
}

/// `hermes kanban …` from synchronous code (the runner's wait check).
fn hermes_blocking(board: &Board, args: &[&str]) -> std::result::Result<Value, String> {
    let mut cmd = hermes_cmd(board, args).ok_or("not a Hermes board")?;
    let mut child = cmd.spawn().map_err(|e| format!("cannot start hermes: {e}"))?;
    let deadline = std::time::Instant::now() + HERMES_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if std::time::Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("hermes kanban {} took over {HERMES_TIMEOUT:?}", args[0]));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("hermes: {e}")),
        }
    }
    let out = child.wait_with_output().map_err(|e| format!("hermes: {e}"))?;
    hermes_parse(args[0], &out)
}

async fn hermes_async(board: &Board, args: &[&str]) -> std::result::Result<Value, LaneError> {
    let cmd =
        hermes_cmd(board, args).ok_or_else(|| LaneError::Failed("invalid_config", "not a Hermes board".into()))?;
    let mut cmd = tokio::process::Command::from(cmd);
    cmd.kill_on_drop(true);
    let out = tokio::time::timeout(HERMES_TIMEOUT, cmd.output())
        .await
        .map_err(|_| {
            LaneError::Failed(
                "agent_timeout",
                format!("hermes kanban {} took over {HERMES_TIMEOUT:?}", args[0]),
            )
        })?
        .map_err(|e| LaneError::Failed("agent_failed", format!("cannot start hermes: {e}")))?;
    hermes_parse(args[0], &out).map_err(|e| LaneError::Failed("agent_failed", e))
}

/// The body of a Hermes task: the card's body, acceptance, links, input.
fn hermes_body(card: &Value) -> String {
    let mut body = card["body"].as_str().unwrap_or("").to_owned();
    let list = |k: &str| card.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
    let render = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
    for (k, head) in [("acceptance", "Acceptance"), ("links", "Links")] {
        let items = list(k);
        if !items.is_empty() {
            body.push_str(&format!("\n\n{head}:\n"));
            for i in &items {
                body.push_str(&format!("- {}\n", render(i)));
            }
        }
    }
    if card["body"].as_str().is_none_or(str::is_empty) && card["task"].is_object() {
        body.push_str(&format!("Task:\n```json\n{}\n```", card["task"]));
    }
    if !card["input"].is_null() && card["input"] != json!({}) {
        body.push_str(&format!("\n\nInput:\n```json\n{}\n```\n", card["input"]));
    }
    body.push_str(&format!(
        "\n\nhwf card {} (run {}, call {}). Finish with `hermes kanban complete <task> --result TEXT --metadata '{{\"workflow_result\": {{...}}}}'`.",
        card["id"].as_str().unwrap_or(""),
        card["run"].as_str().unwrap_or(""),
        card["call"].as_str().unwrap_or("")
    ));
    body
}

/// Create the Hermes task (idempotently, with the call's key) if the mirror
/// has none yet, then copy its status and outcome into the mirror.
async fn hermes_sync(store: &Store, board: &Board, mut card: Value) -> std::result::Result<Value, LaneError> {
    let task = match card.get("hermes_task").and_then(Value::as_str) {
        Some(t) => t.to_owned(),
        None => {
            let body = hermes_body(&card);
            let (assignee, key, title) = (
                card["assignee"].as_str().unwrap_or("").to_owned(),
                card["idempotency_key"].as_str().unwrap_or("").to_owned(),
                card["title"].as_str().unwrap_or("").to_owned(),
            );
            let created = hermes_async(
                board,
                &[
                    "create",
                    "--assignee",
                    &assignee,
                    "--idempotency-key",
                    &key,
                    "--created-by",
                    "hwf",
                    "--body",
                    &body,
                    "--json",
                    "--",
                    &title,
                ],
            )
            .await?;
            let t = created
                .get("id")
                .and_then(Value::as_str)
                .filter(|t| t.starts_with("t_"))
                .ok_or_else(|| {
                    LaneError::Failed("agent_failed", "hermes kanban create returned no t_* task id".into())
                })?
                .to_owned();
            card["hermes_task"] = json!(t);
            store.write_card(&card)?;
            t
        }
    };
    if terminal(card["status"].as_str().unwrap_or("")).is_some() {
        return Ok(card);
    }
    let shown = hermes_async(board, &["show", &task, "--json"]).await?;
    let status = shown
        .pointer("/task/status")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if status.is_empty() || status == card["status"].as_str().unwrap_or("") {
        return Ok(card);
    }
    if terminal(&status).is_some() {
        // The closing run's structured result (`metadata.workflow_result`),
        // else the task's result text.
        let last_run = shown
            .get("runs")
            .and_then(Value::as_array)
            .and_then(|r| r.last())
            .cloned();
        let structured = last_run
            .as_ref()
            .and_then(|r| r.pointer("/metadata/workflow_result"))
            .cloned();
        let text = shown.pointer("/task/result").cloned().unwrap_or(Value::Null);
        card["result"] = structured.unwrap_or_else(|| parse_maybe_json(Some(&text)));
        card["summary"] = shown
            .get("latest_summary")
            .filter(|s| !s.is_null())
            .cloned()
            .or_else(|| last_run.and_then(|r| r.get("summary").cloned()))
            .unwrap_or(text);
    }
    let now = now_ms();
    card["status"] = json!(status);
    card["updated_at_ms"] = json!(now);
    if let Some(h) = card.get_mut("history").and_then(Value::as_array_mut) {
        h.push(json!({"status": status, "actor": "hermes", "at_ms": now}));
    }
    store.write_card(&card)?;
    Ok(card)
}

// --- the `kanban.task` capability -----------------------------------------

/// A seed-style schema (`{"field": "string"}`) as a JSON Schema; a JSON
/// Schema (it has `type` or `properties`) as it is.
fn schema_of(s: &Value) -> Option<Value> {
    let m = s.as_object()?;
    if m.contains_key("type") || m.contains_key("properties") {
        return Some(s.clone());
    }
    let ty = |t: &str| match t {
        "str" | "string" => Some("string"),
        "int" | "integer" => Some("integer"),
        "float" | "number" => Some("number"),
        "bool" | "boolean" => Some("boolean"),
        "list" | "array" => Some("array"),
        "dict" | "object" => Some("object"),
        _ => None,
    };
    let props: Map<String, Value> = m
        .iter()
        .map(|(k, v)| {
            let t = v.as_str().and_then(ty).map_or(json!({}), |t| json!({"type": t}));
            (k.clone(), t)
        })
        .collect();
    Some(json!({"type": "object", "required": m.keys().collect::<Vec<_>>(), "properties": props}))
}

struct KanbanTask;

impl crate::capabilities::CapabilityHandler for KanbanTask {
    fn call<'a>(
        &'a self,
        call: crate::capabilities::CapabilityCall<'a>,
    ) -> crate::agents::BoxFuture<'a, std::result::Result<Value, crate::capabilities::CapabilityError>> {
        use crate::capabilities::CapabilityError;
        Box::pin(async move {
            let input = call.input;
            let profile = input.get("profile").and_then(Value::as_str).unwrap_or("");
            let request = json!({
                "agent": format!("kanban.{profile}"),
                "input": input,
                "label": call.label,
                "schema": input.get("schema").and_then(schema_of),
                "schema_on": "payload",
            });
            let store = call.durable.store();
            match card_call(
                store,
                call.idempotency_key,
                &request,
                &hwf_core::schema::AnswerRules::default(),
            )
            .await
            {
                Ok(v) => Ok(v),
                Err(LaneError::Park(w)) => Err(CapabilityError::Park(w)),
                Err(LaneError::Failed("invalid_input", m)) => Err(CapabilityError::InvalidInput(m)),
                Err(LaneError::Failed(code, m)) => Err(CapabilityError::Failed(format!("{code}: {m}"))),
                Err(LaneError::Store(e)) => Err(CapabilityError::Store(e)),
            }
        })
    }
}

/// The `kanban.task` capability (`session_launch`: it hands work to another
/// agent): `{profile, task, input, wait?, schema?}` → the card's outcome,
/// parking on a `kanban` wait meanwhile, for a script that calls it by
/// name (`kanban_agent` makes a `kanban.<profile>` agent call instead).
pub fn capability() -> crate::capabilities::Capability {
    crate::capabilities::Capability {
        name: "kanban.task".into(),
        class: crate::capabilities::SideEffect::SessionLaunch,
        description: "A card on the store's Kanban board, waited on durably: {profile, task: {title, body, acceptance, links}, input, wait?, schema?} → {status, card_id, summary, links, result}".into(),
        replayable: true,
        handler: std::sync::Arc::new(KanbanTask),
        input_schema: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_ids_are_stable_and_file_safe() {
        let a = card_id("r1:c1");
        assert_eq!(a, card_id("r1:c1"));
        assert_ne!(a, card_id("r1:c2"));
        assert!(crate::store::valid_card_id(&a) && a.len() == 19, "{a}");
    }

    #[test]
    fn statuses_map_like_the_seed() {
        assert_eq!(terminal("done"), Some("completed"));
        assert_eq!(terminal("Blocked"), Some("blocked"));
        assert_eq!(terminal("timed_out"), Some("failed"));
        assert_eq!(terminal("running"), None);
        assert_eq!(terminal("ready"), None);
    }

    #[test]
    fn outcomes_check_the_schema_and_keep_the_status() {
        let card = json!({"id": "kb_1", "board": "builtin", "status": "done",
                          "result": {"status": "pass", "n": 2}, "summary": "ok", "links": []});
        let out = outcome(&card, "completed", None, false, &Default::default()).expect("outcome");
        assert_eq!(
            (out["status"].as_str(), out["n"].as_u64()),
            (Some("completed"), Some(2))
        );
        assert_eq!(out["result"]["status"], "pass");
        let schema = json!({"type": "object", "required": ["missing"]});
        assert!(matches!(
            outcome(&card, "completed", Some(&schema), true, &Default::default()),
            Err(LaneError::Failed("schema_mismatch", _))
        ));
    }
}
