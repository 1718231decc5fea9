//! Durable state: saved scripts, runs (snapshot + journal), the compile
//! cache.
//!
//! The traits every store implements, by role, are in
//! [`hwf_core::store`]; [`FileStore`] is the embedded default: plain files
//! under one state directory, all access through cap-std, one file per
//! trait (`store/file/`). A PostgreSQL store with leases comes later behind
//! the same traits and passes the same conformance suite
//! (`hwf-store-conformance`).

mod file;
mod kanban;

pub use file::{CONTROLS_POLL, FileClaim, FileJournalSink, FileStore, JournalFile, LockFile};
pub use hwf_core::model::{
    Counts, ErrorInfo, ExternalEvent, LiveProgress, RunSettings, RunSnapshot, RunState, ScriptMeta, ScriptRef,
    StoredEvent, WaitInfo, now_ms,
};
pub use kanban::valid_card_id;
