//! Inline scripts by content: `inline/<blake3>.<ext>`; journal payload
//! chunks by content: `chunks/<blake3>` ([`FileChunks`]); [`BlobStore`]
//! for the file store.

use super::FileStore;
use super::fsutil::write_atomic;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::lang::Language;
use hwf_core::payload::{Chunk, ChunkId};
use hwf_core::store::{BlobRef, BlobStore, StoreError, StoreResult, async_trait, blob_ext};
use std::path::PathBuf;

/// The state directory's `chunks/`: journal payload chunks
/// ([`hwf_core::payload`]), one file per chunk named by its digest,
/// store-wide (a resumed run shares its source's). A chunk is written to a
/// temp file, fsync'd and renamed, and the directory is fsync'd after a
/// batch, before the journal line naming the chunks is written: a line
/// never names a chunk a crash could lose.
#[derive(Debug)]
pub struct FileChunks {
    dir: cap_std::fs::Dir,
}

impl FileChunks {
    pub(super) fn new(dir: cap_std::fs::Dir) -> Self {
        Self { dir }
    }

    /// Keep `chunks` (see [`BlobStore::put_chunks`]); the bytes newly
    /// written.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn put(&self, chunks: &[Chunk]) -> Result<u64> {
        let mut added = 0u64;
        for c in chunks {
            let name = c.id.to_hex();
            if self.dir.is_file(&name) {
                continue;
            }
            write_atomic(&self.dir, &name, &c.bytes)?;
            added += c.bytes.len() as u64;
        }
        if added > 0 {
            // The directory's own handle is `O_PATH` (no fsync): open it
            // for reading to flush its entries.
            let sync = |e| Error::io("sync chunks/", e);
            self.dir.open(".").and_then(|d| d.sync_all()).map_err(sync)?;
        }
        Ok(added)
    }

    /// The bytes of `ids`, in order.
    ///
    /// # Errors
    ///
    /// `not_found` for a chunk not kept, `io`.
    pub fn get(&self, ids: &[ChunkId]) -> Result<Vec<Vec<u8>>> {
        ids.iter()
            .map(|id| {
                self.dir.read(id.to_hex()).map_err(|e| {
                    if e.kind() == std::io::ErrorKind::NotFound {
                        Error::new(ErrorCode::NotFound, format!("no journal payload chunk {id}"))
                    } else {
                        Error::io(format!("chunks/{id}"), e)
                    }
                })
            })
            .collect()
    }

    /// Which of `ids` are kept.
    pub fn has(&self, ids: &[ChunkId]) -> Vec<bool> {
        ids.iter().map(|id| self.dir.is_file(id.to_hex())).collect()
    }
}

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

    async fn put_chunks(&self, chunks: &[Chunk]) -> StoreResult<u64> {
        Ok(self.chunks.put(chunks)?)
    }

    async fn get_chunks(&self, ids: &[ChunkId]) -> StoreResult<Vec<Vec<u8>>> {
        Ok(self.chunks.get(ids)?)
    }

    async fn has_chunks(&self, ids: &[ChunkId]) -> StoreResult<Vec<bool>> {
        Ok(self.chunks.has(ids))
    }
}
