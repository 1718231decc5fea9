//! Saved scripts: `scripts/<name>/vNNNNNN.<ext>` + `vNNNNNN.meta.json`,
//! immutable once written; [`ScriptCatalog`] for the file store.

use super::FileStore;
use super::fsutil::{list_dir_names, write_atomic};
use cap_std::fs::Dir;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::validate_name;
use hwf_core::model::ScriptMeta;
use hwf_core::store::{ScriptCatalog, StoreResult, async_trait};
use std::path::Path;

impl FileStore {
    fn script_dir(&self, name: &str, create: bool) -> Result<Dir> {
        validate_name("script name", name)?;
        let path = Path::new("scripts").join(name);
        if create {
            self.dir
                .create_dir_all(&path)
                .map_err(|e| Error::io(format!("script {name:?}"), e))?;
        }
        self.dir.open_dir(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::new(ErrorCode::NotFound, format!("no saved script named {name:?}"))
            } else {
                Error::io(format!("script {name:?}"), e)
            }
        })
    }

    /// Saved versions of `name`, ascending.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `io`.
    pub fn script_versions(&self, name: &str) -> Result<Vec<u32>> {
        let dir = self.script_dir(name, false)?;
        let mut versions = Vec::new();
        for entry in dir.entries().map_err(|e| Error::io(format!("script {name:?}"), e))? {
            let entry = entry.map_err(|e| Error::io(format!("script {name:?}"), e))?;
            let file = entry.file_name();
            let file = file.to_string_lossy();
            if let Some(v) = file.strip_prefix('v').and_then(|r| r.strip_suffix(".meta.json"))
                && let Ok(v) = v.parse::<u32>()
            {
                versions.push(v);
            }
        }
        versions.sort_unstable();
        Ok(versions)
    }

    /// Save a new immutable version of a script. Without `replace`, a name
    /// that already exists is refused.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `already_exists`, `io`.
    pub fn save_script(&self, name: &str, wasm: &[u8], mut meta: ScriptMeta, replace: bool) -> Result<ScriptMeta> {
        let dir = self.script_dir(name, true)?;
        let versions = self.script_versions(name)?;
        if let Some(last) = versions.last()
            && !replace
        {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("script {name:?} already exists (latest v{last:06}); pass --replace to save a new version"),
            ));
        }
        let version = versions.last().map_or(1, |v| v + 1);
        meta.version = version;
        meta.name = name.to_owned();
        write_atomic(&dir, &format!("v{version:06}.{}", file_ext(&meta.language)), wasm)?;
        let json = serde_json::to_vec_pretty(&meta).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        // The meta file is written last: a version exists once its meta does.
        write_atomic(&dir, &format!("v{version:06}.meta.json"), &json)?;
        Ok(meta)
    }

    /// Metadata of one version (latest when `version` is `None`).
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `corrupt_store`, `io`.
    pub fn script_meta(&self, name: &str, version: Option<u32>) -> Result<ScriptMeta> {
        let dir = self.script_dir(name, false)?;
        let version = match version {
            Some(v) => v,
            None => *self
                .script_versions(name)?
                .last()
                .ok_or_else(|| Error::new(ErrorCode::NotFound, format!("script {name:?} has no versions")))?,
        };
        let file = format!("v{version:06}.meta.json");
        let text = dir.read_to_string(&file).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::new(ErrorCode::NotFound, format!("script {name:?} has no version {version}"))
            } else {
                Error::io(format!("script {name:?} {file}"), e)
            }
        })?;
        serde_json::from_str(&text)
            .map_err(|e| Error::new(ErrorCode::CorruptStore, format!("scripts/{name}/{file}: {e}")))
    }

    /// The component bytes of one version.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `io`.
    pub fn script_bytes(&self, name: &str, version: u32) -> Result<Vec<u8>> {
        let language = self.script_meta(name, Some(version))?.language;
        let dir = self.script_dir(name, false)?;
        dir.read(format!("v{version:06}.{}", file_ext(&language)))
            .map_err(|e| Error::io(format!("script {name:?} v{version}"), e))
    }

    /// Names of all saved scripts, sorted.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn script_names(&self) -> Result<Vec<String>> {
        list_dir_names(&self.dir, "scripts")
    }
}

/// The file extension a saved version of `language` is stored under.
fn file_ext(language: &str) -> &'static str {
    // (The seed's name for a saved Python script is `v000001.workflow.py`.)
    hwf_core::lang::Language::parse(language).map_or("wasm", |l| l.info().stored_extension)
}

#[async_trait]
impl ScriptCatalog for FileStore {
    async fn save(&self, name: &str, bytes: &[u8], meta: ScriptMeta, replace: bool) -> StoreResult<ScriptMeta> {
        Ok(self.save_script(name, bytes, meta, replace)?)
    }

    async fn meta(&self, name: &str, version: Option<u32>) -> StoreResult<ScriptMeta> {
        Ok(self.script_meta(name, version)?)
    }

    async fn bytes(&self, name: &str, version: u32) -> StoreResult<Vec<u8>> {
        Ok(self.script_bytes(name, version)?)
    }

    async fn names(&self) -> StoreResult<Vec<String>> {
        Ok(self.script_names()?)
    }

    async fn versions(&self, name: &str) -> StoreResult<Vec<u32>> {
        Ok(self.script_versions(name)?)
    }
}
