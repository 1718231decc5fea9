//! Operator controls recorded per run (`controls.jsonl`).

use crate::ids::RunId;
use crate::store::FileStore;
use std::collections::HashSet;

/// Call ids a `retry` control names: they run live on the next resume.
pub fn retried_calls(_store: &FileStore, _run: &RunId) -> HashSet<String> {
    HashSet::new()
}
