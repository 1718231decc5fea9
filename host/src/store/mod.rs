//! Durable state: saved scripts, runs (snapshot + journal), the compile
//! cache.
//!
//! The traits every store implements, by role, are in
//! [`hwf_core::store`]; [`FileStore`] is the embedded default: plain files
//! under one state directory, all access through cap-std, one file per
//! trait (`store/file/`). The host reads and writes through [`Store`]
//! (`shared.rs`): the file store, or a shared database selected by URL
//! (`url.rs`: `--store postgres://…`) reached through the same traits, on
//! its own runtime (`bridge.rs`), with journals written by a writer task
//! (`shared_journal.rs`). Both pass the conformance suite
//! (`hwf-store-conformance`); `transfer.rs` copies between two stores.

mod bridge;
mod file;
pub mod kanban;

/// The file in the state dir that keeps the console's (and `hwf mcp
/// --http`'s) generated token.
pub const TOKEN_FILE: &str = "console-token";

/// Register the state dir's stored console / MCP token (if any) with the
/// redactor, so it is redacted in every run this process executes even
/// when no server runs here.
pub fn register_stored_token(state_dir: &std::path::Path) {
    if let Ok(text) = std::fs::read_to_string(state_dir.join(TOKEN_FILE)) {
        hwf_core::redact::register_secret(text.trim());
    }
}
mod shared;
mod shared_journal;
pub mod transfer;
pub mod url;

pub use bridge::Bridge;
pub use file::{
    CONTROLS_POLL, FileClaim, FileJournalSink, FileStore, JournalFile, JournalFlusher, JournalRepair, LockFile,
    TranscriptLog,
};
pub use hwf_core::model::{
    Counts, ErrorInfo, ExternalEvent, LiveProgress, RunSettings, RunSnapshot, RunState, ScriptMeta, ScriptRef,
    StoredEvent, WaitInfo, now_ms,
};
pub use kanban::valid_card_id;
pub use shared::{SharedClaim, SharedParts, Store, WorkSource};
pub use shared_journal::{JournalOut, SharedJournal};
