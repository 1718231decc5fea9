//! The compile cache: `<state>/cache/<key>` (or a shared directory);
//! [`CompileCache`] for the file store.

use super::FileStore;
use super::fsutil::write_atomic;
use hwf_core::error::Result;
use hwf_core::ids::validate_name;
use hwf_core::store::CompileCache;
use std::path::PathBuf;

impl FileStore {
    /// Path of a cache entry (the key must be a safe name).
    ///
    /// # Errors
    ///
    /// `invalid_name`.
    pub fn cache_path(&self, key: &str) -> Result<PathBuf> {
        validate_name("cache key", key)?;
        Ok(self.cache_root.join(key))
    }

    /// Whether a cache entry exists.
    pub fn cache_has(&self, key: &str) -> bool {
        validate_name("cache key", key).is_ok() && self.cache.is_file(key)
    }

    /// Write a cache entry atomically.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `io`.
    pub fn cache_put(&self, key: &str, bytes: &[u8]) -> Result<()> {
        validate_name("cache key", key)?;
        write_atomic(&self.cache, key, bytes)
    }
}

impl CompileCache for FileStore {
    fn artifact_path(&self, key: &str) -> Option<PathBuf> {
        if self.cache_has(key) {
            self.cache_path(key).ok()
        } else {
            None
        }
    }

    fn put_artifact(&self, key: &str, artifact: &[u8]) -> Result<()> {
        self.cache_put(key, artifact)
    }
}
