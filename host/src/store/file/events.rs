//! External events: `events/events.jsonl`, appended under `events/lock`;
//! [`EventLog`] for the file store.

use super::FileStore;
use super::fsutil::{LockFile, parse_journal, repair_tail};
use cap_std::fs::OpenOptions;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::model::ExternalEvent;
use hwf_core::store::{EventLog, StoreResult, async_trait, stored_event};
use std::io::Write;

impl FileStore {
    /// Every event, in version order (a torn last line is ignored).
    ///
    /// # Errors
    ///
    /// `corrupt_store`, `io`.
    pub fn read_events(&self) -> Result<Vec<ExternalEvent>> {
        let text = match self.dir.read_to_string("events/events.jsonl") {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io("events", e)),
        };
        let lines = parse_journal(&text).map_err(|line| {
            Error::new(
                ErrorCode::CorruptStore,
                format!("events/events.jsonl: line {line} is not valid JSON"),
            )
        })?;
        lines
            .into_iter()
            .map(|v| {
                serde_json::from_value(v)
                    .map_err(|e| Error::new(ErrorCode::CorruptStore, format!("events/events.jsonl: {e}")))
            })
            .collect()
    }

    /// The events with a version above `version`, in order.
    ///
    /// # Errors
    ///
    /// `corrupt_store`, `io`.
    pub fn events_since(&self, version: u64) -> Result<Vec<ExternalEvent>> {
        let mut events = self.read_events()?;
        events.retain(|e| e.version > version);
        Ok(events)
    }

    /// Append an event unless one with its source and id exists; returns
    /// the stored event (the existing one for a repeat) and whether it is
    /// new. Free text is redacted ([`hwf_core::store::stored_event`]).
    ///
    /// # Errors
    ///
    /// `invalid_args` for a credential-shaped id, `io`, `corrupt_store`.
    pub fn append_event(&self, event: ExternalEvent) -> Result<(ExternalEvent, bool)> {
        let mut event = stored_event(event)?;
        let dir = self.dir.open_dir("events").map_err(|e| Error::io("events", e))?;
        let lock = LockFile::acquire(&dir, "lock")?;
        repair_tail(&dir, "events.jsonl")?;
        let existing = self.read_events()?;
        // One event per (source, id), and per (source, body digest) for
        // webhooks signed over their body alone.
        if let Some(e) = existing.iter().find(|e| {
            e.source == event.source && (e.id == event.id || (event.digest.is_some() && e.digest == event.digest))
        }) {
            return Ok((e.clone(), false));
        }
        event.version = existing.last().map_or(1, |e| e.version + 1);
        let mut line = serde_json::to_vec(&event).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        line.push(b'\n');
        let mut f = dir
            .open_with("events.jsonl", OpenOptions::new().create(true).append(true))
            .map_err(|e| Error::io("events", e))?;
        f.write_all(&line).map_err(|e| Error::io("events", e))?;
        f.sync_data().map_err(|e| Error::io("events", e))?;
        drop(lock);
        Ok((event, true))
    }
}

#[async_trait]
impl EventLog for FileStore {
    async fn append(&self, event: ExternalEvent) -> StoreResult<(ExternalEvent, bool)> {
        Ok(self.append_event(event)?)
    }

    async fn since(&self, version: u64) -> StoreResult<Vec<ExternalEvent>> {
        Ok(self.events_since(version)?)
    }
}
