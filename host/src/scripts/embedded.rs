//! Script runtimes embedded in the binary that runs them: each one's
//! component and, when the build could make it, an artifact precompiled
//! for the build's own target with [`hwf_engine::config`], both
//! zstd-compressed. The `hwf` binary's build script makes them and hands
//! them over with [`embed_runtimes`] at start-up; a library embedder that
//! does not finds the runtimes on disk instead (see
//! [`super::locate_runtime`]).

use super::Language;
use hwf_core::error::{Error, ErrorCode, Result};
use std::sync::OnceLock;

/// One runtime compiled into the binary.
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedRuntime {
    /// The language it runs.
    pub lang: Language,
    /// BLAKE3 of the (uncompressed) component.
    pub digest: [u8; 32],
    /// The component, zstd-compressed.
    pub component: &'static [u8],
    /// The component's size uncompressed, in bytes.
    pub component_len: usize,
    /// The artifact precompiled for the build's target with
    /// [`hwf_engine::config`], zstd-compressed (`None`: a cross build,
    /// which compiles on first use).
    pub precompiled: Option<&'static [u8]>,
    /// The precompiled artifact's size uncompressed, in bytes.
    pub precompiled_len: usize,
    /// [`hwf_engine::compatibility_key`] of the engine that precompiled it.
    pub engine_key: &'static str,
}

static EMBEDDED: OnceLock<&'static [EmbeddedRuntime]> = OnceLock::new();

/// Make `runtimes` the ones [`super::locate_runtime`] finds (after
/// `$HWF_RUNTIME_DIR`). The first call wins.
pub fn embed_runtimes(runtimes: &'static [EmbeddedRuntime]) {
    let _ = EMBEDDED.set(runtimes);
}

/// The embedded runtime of `lang`, if this binary has one.
pub fn embedded_runtime(lang: Language) -> Option<&'static EmbeddedRuntime> {
    EMBEDDED.get()?.iter().find(|r| r.lang == lang)
}

impl EmbeddedRuntime {
    /// Whether the precompiled artifact was made for an engine like the
    /// ones this process builds (same wasmtime, target, CPU flags and
    /// settings): its first run then compiles nothing.
    pub fn precompiled_fits(&self) -> bool {
        static HERE: OnceLock<Option<String>> = OnceLock::new();
        let here = HERE.get_or_init(|| {
            wasmtime::Engine::new(&hwf_engine::config())
                .map(|e| hwf_engine::compatibility_key(&e))
                .map_err(|e| tracing::debug!(error = %e, "no engine to compare the precompiled runtimes with"))
                .ok()
        });
        self.precompiled.is_some() && here.as_deref() == Some(self.engine_key)
    }
}

/// Decompress one embedded blob of `len` bytes.
fn inflate(what: &str, data: &[u8], len: usize) -> Result<Vec<u8>> {
    let started = std::time::Instant::now();
    let out = zstd::bulk::decompress(data, len).map_err(|e| {
        Error::new(
            ErrorCode::Internal,
            format!("the embedded {what} does not decompress: {e}"),
        )
    })?;
    tracing::debug!(
        what,
        bytes = out.len(),
        elapsed_us = started.elapsed().as_micros(),
        "embedded blob decompressed"
    );
    Ok(out)
}

impl crate::vm::Bundle for EmbeddedRuntime {
    fn digest(&self) -> blake3::Hash {
        blake3::Hash::from_bytes(self.digest)
    }

    fn precompiled(&self) -> Option<Vec<u8>> {
        let data = self.precompiled?;
        inflate("precompiled runtime", data, self.precompiled_len)
            .map_err(|e| tracing::warn!(error = %e, "compiling the runtime instead"))
            .ok()
    }

    fn component(&self) -> Result<Vec<u8>> {
        let bytes = inflate("runtime component", self.component, self.component_len)?;
        if blake3::hash(&bytes) != blake3::Hash::from_bytes(self.digest) {
            return Err(Error::new(
                ErrorCode::Internal,
                format!(
                    "the embedded {} runtime is not the one this binary was built with",
                    self.lang.as_str()
                ),
            ));
        }
        Ok(bytes)
    }
}
