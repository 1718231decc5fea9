//! The built-in Kanban board's files ([`KanbanStore`] on the file store):
//! `kanban/config.json` (which board the state dir's Kanban lanes use) and
//! one `kanban/cards/<card id>.json` per card, each written atomically (a temp file, fsync, rename, fsync of the
//! directory). A card is created with a hard link from its temp file, so
//! two processes creating the same card (a replay, two runners) leave one
//! file and both see the first one's card.

use super::FileStore;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::store::{KanbanStore, StoreResult, async_trait};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The largest card file read back (cards hold a result and comments).
/// The largest card a store keeps, in bytes.
pub const MAX_CARD_BYTES: u64 = 4 << 20;

/// Comments a card keeps (the newest; older ones are dropped, counted in
/// `comments_dropped`).
pub const MAX_CARD_COMMENTS: usize = 200;

/// The longest comment kept, in bytes (longer ones are clipped).
pub const MAX_COMMENT_BYTES: usize = 16 << 10;

/// A card as it may be stored, on every store (issue 29): its free text —
/// title, body, summary, task, input, result, links, comments — redacted
/// (a card is a store like any other, shown by `hwf kanban show` and the
/// Hermes board), its comments bounded ([`MAX_CARD_COMMENTS`] newest,
/// each at most [`MAX_COMMENT_BYTES`]), and its whole text at most
/// [`MAX_CARD_BYTES`] (`invalid_args` past that: a card grown by a
/// loop of comments would otherwise break the board for everyone).
/// Identity fields (id, board, assignee, status, hermes_task, times) are
/// kept as they are.
///
/// # Errors
///
/// `invalid_args` for a card past [`MAX_CARD_BYTES`].
pub fn stored_card(card: &Value) -> Result<Value> {
    let mut card = card.clone();
    if let Some(obj) = card.as_object_mut() {
        for key in [
            "title",
            "body",
            "summary",
            "task",
            "input",
            "result",
            "links",
            "acceptance",
            "error",
        ] {
            if let Some(v) = obj.get_mut(key) {
                hwf_core::redact::redact_value(v);
            }
        }
        if let Some(Value::Array(comments)) = obj.get_mut("comments") {
            let excess = comments.len().saturating_sub(MAX_CARD_COMMENTS);
            if excess > 0 {
                comments.drain(..excess);
            }
            for c in comments.iter_mut() {
                if let Some(body) = c.get_mut("body")
                    && let Some(text) = body.as_str()
                {
                    *body = Value::String(hwf_core::redact::clip(text, MAX_COMMENT_BYTES).to_owned());
                }
                hwf_core::redact::redact_value(c);
            }
            if excess > 0 {
                let before = obj.get("comments_dropped").and_then(Value::as_u64).unwrap_or(0);
                obj.insert("comments_dropped".into(), serde_json::json!(before + excess as u64));
            }
        }
    }
    let len = card.to_string().len() as u64;
    if len > MAX_CARD_BYTES {
        return Err(Error::new(
            ErrorCode::InvalidArgs,
            format!(
                "card {} would be {len} bytes, more than the {MAX_CARD_BYTES} a card may hold",
                card["id"].as_str().unwrap_or("?")
            ),
        ));
    }
    Ok(card)
}

fn io(what: &str, path: &Path, e: &std::io::Error) -> Error {
    Error::new(ErrorCode::Io, format!("{what} {}: {e}", path.display()))
}

/// Whether a card id is safe as a file name (`kb_` + hex, or any
/// `[A-Za-z0-9_-]{1,64}`).
pub fn valid_card_id(id: &str) -> bool {
    hwf_core::store::valid_card_id(id)
}

fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io("cannot sync", dir, &e))
}

fn temp_file(dir: &Path, bytes: &[u8]) -> Result<PathBuf> {
    let tmp = dir.join(format!(".tmp-{}-{:x}", std::process::id(), rand_suffix()));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| io("cannot create", &tmp, &e))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| io("cannot write", &tmp, &e))?;
    Ok(tmp)
}

fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(crate::store::now_ms());
    h.finish()
}

impl FileStore {
    /// `<state>/kanban`, created when missing.
    ///
    /// # Errors
    ///
    /// `io` when it cannot be created.
    pub fn kanban_dir(&self) -> Result<PathBuf> {
        let dir = self.root().join("kanban").join("cards");
        std::fs::create_dir_all(&dir).map_err(|e| io("cannot create", &dir, &e))?;
        Ok(self.root().join("kanban"))
    }

    /// `kanban/config.json`, or `None` when no board is configured.
    ///
    /// # Errors
    ///
    /// `corrupt_store` when it is not JSON, `io`.
    pub fn kanban_config(&self) -> Result<Option<Value>> {
        let path = self.root().join("kanban").join("config.json");
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| Error::new(ErrorCode::CorruptStore, format!("{} is not JSON: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io("cannot read", &path, &e)),
        }
    }

    /// Replace `kanban/config.json` atomically (`None` removes it).
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn write_kanban_config(&self, config: Option<&Value>) -> Result<()> {
        let dir = self.kanban_dir()?;
        let path = dir.join("config.json");
        match config {
            Some(v) => {
                let tmp = temp_file(&dir, v.to_string().as_bytes())?;
                std::fs::rename(&tmp, &path).map_err(|e| io("cannot replace", &path, &e))?;
            }
            None => match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io("cannot remove", &path, &e)),
            },
        }
        sync_dir(&dir)
    }

    fn card_path(&self, id: &str) -> Result<PathBuf> {
        if !valid_card_id(id) {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                format!("card id {:?} is not a card id", id.chars().take(64).collect::<String>()),
            ));
        }
        Ok(self.kanban_dir()?.join("cards").join(format!("{id}.json")))
    }

    /// Create a card unless one with its id exists; returns the card on
    /// disk (the new one, or the one that was already there) and whether it
    /// was created now.
    ///
    /// # Errors
    ///
    /// `invalid_args` for a bad id (the card's `id` field), `corrupt_store`, `io`.
    pub fn create_card(&self, card: &Value) -> Result<(Value, bool)> {
        let id = card.get("id").and_then(Value::as_str).unwrap_or("");
        let path = self.card_path(id)?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let tmp = temp_file(&dir, card.to_string().as_bytes())?;
        let linked = std::fs::hard_link(&tmp, &path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => {
                sync_dir(&dir)?;
                Ok((card.clone(), true))
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok((self.read_card(id)?, false)),
            Err(e) => Err(io("cannot create", &path, &e)),
        }
    }

    /// Read a card.
    ///
    /// # Errors
    ///
    /// `not_found`, `invalid_args` for a bad id, `corrupt_store`, `io`.
    pub fn read_card(&self, id: &str) -> Result<Value> {
        let path = self.card_path(id)?;
        if !path.exists() {
            return Err(Error::new(ErrorCode::NotFound, format!("no card {id}")));
        }
        let text = Self::read_input(&path, MAX_CARD_BYTES, "card", ErrorCode::CorruptStore)?;
        serde_json::from_str(&text)
            .map_err(|e| Error::new(ErrorCode::CorruptStore, format!("card {id} is not JSON: {e}")))
    }

    /// Replace a card atomically (it must exist).
    ///
    /// # Errors
    ///
    /// `not_found`, `invalid_args`, `io`.
    pub fn write_card(&self, card: &Value) -> Result<()> {
        let id = card.get("id").and_then(Value::as_str).unwrap_or("");
        let path = self.card_path(id)?;
        if !path.exists() {
            return Err(Error::new(ErrorCode::NotFound, format!("no card {id}")));
        }
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let tmp = temp_file(&dir, card.to_string().as_bytes())?;
        std::fs::rename(&tmp, &path).map_err(|e| io("cannot replace", &path, &e))?;
        sync_dir(&dir)
    }

    /// Every card, oldest first.
    ///
    /// # Errors
    ///
    /// `corrupt_store`, `io`.
    pub fn list_cards(&self) -> Result<Vec<Value>> {
        let dir = self.kanban_dir()?.join("cards");
        let entries = std::fs::read_dir(&dir).map_err(|e| io("cannot list", &dir, &e))?;
        let mut cards = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| io("cannot list", &dir, &e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(id) = name.strip_suffix(".json")
                && !name.starts_with('.')
            {
                // One damaged or oversized card is listed as such; it
                // never takes the board down.
                cards.push(self.read_card(id).unwrap_or_else(|e| unreadable_card(id, &e)));
            }
        }
        cards.sort_by_key(|c| {
            (
                c.get("created_at_ms").and_then(Value::as_u64).unwrap_or(0),
                c["id"].to_string(),
            )
        });
        Ok(cards)
    }
}

/// The listing entry of a card that cannot be read: its id, `status:
/// "unreadable"` and why.
pub fn unreadable_card(id: &str, e: &Error) -> Value {
    tracing::warn!(card = id, error = %e, "a kanban card cannot be read");
    serde_json::json!({"id": id, "status": "unreadable", "title": "(unreadable card)",
        "error": {"code": e.code().as_str(), "message": e.message()}})
}

#[async_trait]
impl KanbanStore for FileStore {
    async fn kanban_board(&self) -> StoreResult<Option<Value>> {
        Ok(self.kanban_config()?)
    }

    async fn put_kanban_board(&self, config: Option<&Value>) -> StoreResult<()> {
        Ok(self.write_kanban_config(config)?)
    }

    async fn create_card(&self, card: &Value) -> StoreResult<(Value, bool)> {
        Ok(FileStore::create_card(self, card)?)
    }

    async fn card(&self, id: &str) -> StoreResult<Value> {
        Ok(self.read_card(id)?)
    }

    async fn replace_card(&self, card: &Value) -> StoreResult<()> {
        Ok(self.write_card(card)?)
    }

    async fn cards(&self) -> StoreResult<Vec<Value>> {
        Ok(self.list_cards()?)
    }
}
