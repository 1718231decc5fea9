//! The file store as the sandbox's compile cache ([`crate::vm::CompileCache`]).

use super::FileStore;
use hwf_core::error::Result;
use std::path::PathBuf;

impl crate::vm::CompileCache for FileStore {
    fn artifact_path(&self, key: &str) -> Option<PathBuf> {
        if !self.cache_has(key) {
            return None;
        }
        self.cache_path(key).ok()
    }

    fn put_artifact(&self, key: &str, artifact: &[u8]) -> Result<()> {
        self.cache_put(key, artifact)
    }
}
