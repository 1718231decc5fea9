//! [`TriggerStore`] on the file store: `triggers/<name>.json`, one file per
//! trigger, written atomically (the layout hwf has always used, so a state
//! dir's triggers stay readable).

use super::FileStore;
use super::fsutil::write_atomic;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::validate_name;
use hwf_core::store::{StoreResult, TriggerStore, async_trait};
use serde_json::Value;
use std::io::Read as _;

/// The largest trigger file read (a definition is a few hundred bytes).
const MAX_TRIGGER_BYTES: u64 = 1 << 20;

impl FileStore {
    fn triggers_dir(&self, create: bool) -> Result<Option<cap_std::fs::Dir>> {
        if create {
            self.dir
                .create_dir_all("triggers")
                .map_err(|e| Error::io("triggers directory", e))?;
        }
        match self.dir.open_dir("triggers") {
            Ok(d) => Ok(Some(d)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io("triggers directory", e)),
        }
    }

    /// Store (replace) `triggers/<name>.json`, atomically and durably.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `io`.
    pub fn save_trigger(&self, name: &str, definition: &Value) -> Result<()> {
        validate_name("trigger name", name)?;
        let bytes = serde_json::to_vec(definition).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        let Some(dir) = self.triggers_dir(true)? else {
            return Err(Error::new(ErrorCode::Io, "the triggers directory cannot be created"));
        };
        write_atomic(&dir, &format!("{name}.json"), &bytes)?;
        // The rename is durable once the directory is.
        self.dir
            .open("triggers")
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::io("triggers directory", e))?;
        Ok(())
    }

    /// Every `triggers/<name>.json`, in name order.
    ///
    /// # Errors
    ///
    /// `corrupt_store` naming a malformed file, `io`.
    pub fn trigger_definitions(&self) -> Result<Vec<(String, Value)>> {
        let Some(dir) = self.triggers_dir(false)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for entry in dir.entries().map_err(|e| Error::io("triggers directory", e))? {
            let entry = entry.map_err(|e| Error::io("triggers directory", e))?;
            let file = entry.file_name().to_string_lossy().into_owned();
            let Some(name) = file.strip_suffix(".json").filter(|_| !file.starts_with('.')) else {
                continue;
            };
            let corrupt = |m: String| Error::new(ErrorCode::CorruptStore, format!("triggers/{file} {m}"));
            let mut text = String::new();
            let f = dir.open(&file).map_err(|e| Error::io(format!("triggers/{file}"), e))?;
            f.take(MAX_TRIGGER_BYTES + 1)
                .read_to_string(&mut text)
                .map_err(|e| Error::io(format!("triggers/{file}"), e))?;
            if text.len() as u64 > MAX_TRIGGER_BYTES {
                return Err(corrupt(format!("is over {MAX_TRIGGER_BYTES} bytes")));
            }
            let definition: Value = serde_json::from_str(&text).map_err(|e| corrupt(format!("is malformed: {e}")))?;
            out.push((name.to_owned(), definition));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// Remove `triggers/<name>.json`; whether it was there.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `io`.
    pub fn delete_trigger(&self, name: &str) -> Result<bool> {
        validate_name("trigger name", name)?;
        let Some(dir) = self.triggers_dir(false)? else {
            return Ok(false);
        };
        match dir.remove_file(format!("{name}.json")) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(Error::io("trigger", e)),
        }
    }
}

#[async_trait]
impl TriggerStore for FileStore {
    async fn put_trigger(&self, name: &str, definition: &Value) -> StoreResult<()> {
        Ok(self.save_trigger(name, definition)?)
    }

    async fn triggers(&self) -> StoreResult<Vec<(String, Value)>> {
        Ok(self.trigger_definitions()?)
    }

    async fn remove_trigger(&self, name: &str) -> StoreResult<bool> {
        Ok(self.delete_trigger(name)?)
    }
}
