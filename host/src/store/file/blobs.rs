//! Inline scripts by content: `inline/<blake3>.<ext>`; [`BlobStore`] for
//! the file store.

use super::FileStore;
use super::fsutil::write_atomic;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::lang::Language;
use hwf_core::store::{BlobRef, BlobStore, StoreError, StoreResult, async_trait, blob_ext};
use std::path::PathBuf;

impl FileStore {
    /// Keep component bytes or a script sent inline (facade
    /// `script_source`, `definition`) under `inline/<digest>.<ext>`; returns
    /// the file's path. A script holding a credential is refused (see
    /// [`hwf_core::redact::refuse_credentials_in_script`]).
    ///
    /// # Errors
    ///
    /// `invalid_script`, `io`.
    pub fn put_inline(&self, bytes: &[u8], ext: &str) -> Result<PathBuf> {
        let ext = if matches!(ext, "wasm" | "js" | "json" | "py") {
            ext
        } else {
            "bin"
        };
        let name = self.put_blob(bytes, ext)?;
        Ok(self.root.join("inline").join(name))
    }

    /// Write `inline/<blake3>.<ext>` unless present; its file name.
    fn put_blob(&self, bytes: &[u8], ext: &str) -> Result<String> {
        if ext != "wasm" && ext != "bin" {
            hwf_core::redact::refuse_credentials_in_script(bytes)?;
        }
        let name = format!("{}.{ext}", blake3::hash(bytes).to_hex());
        let dir = self.dir.open_dir("inline").map_err(|e| Error::io("inline dir", e))?;
        if !dir.is_file(&name) {
            write_atomic(&dir, &name, bytes)?;
        }
        Ok(name)
    }
}

#[async_trait]
impl BlobStore for FileStore {
    async fn put(&self, bytes: &[u8], language: Language) -> StoreResult<BlobRef> {
        let name = self.put_blob(bytes, blob_ext(language))?;
        Ok(BlobRef::parse(&name)?)
    }

    async fn get(&self, blob: &BlobRef) -> StoreResult<Vec<u8>> {
        let dir = self.dir.open_dir("inline").map_err(|e| Error::io("inline dir", e))?;
        dir.read(blob.as_str()).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                StoreError::NotFound(format!("no blob {}", blob.as_str()))
            } else {
                StoreError::from(Error::new(ErrorCode::Io, format!("blob {}: {e}", blob.as_str())))
            }
        })
    }
}
