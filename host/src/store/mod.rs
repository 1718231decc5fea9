//! Durable state: saved scripts, runs (snapshot + journal), the compile
//! cache.
//!
//! [`FileStore`] is the embedded default: plain files under one state
//! directory, all access through cap-std. A PostgreSQL store with leases
//! comes later behind the same operations.

mod file;
mod kanban;
mod vm_cache;

pub use file::{FileStore, JournalFile, LockFile};
pub use hwf_core::model::{
    Counts, ErrorInfo, LiveProgress, RunSettings, RunSnapshot, RunState, ScriptMeta, ScriptRef, StoredEvent, WaitInfo,
    now_ms,
};
pub use kanban::valid_card_id;
