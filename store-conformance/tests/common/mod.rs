//! What the file-store suites share: raw damage to a state dir's journal.

use hwf_core::ids::RunId;
use hwf_store_conformance::Damage;
use std::io::Write;
use std::path::PathBuf;

/// A state dir's journals, damaged as a crash mid-write leaves them.
pub struct Files(pub PathBuf);

impl Damage for Files {
    fn append_raw_journal(&self, run: &RunId, bytes: &[u8]) {
        let path = self.0.join("runs").join(run.as_str()).join("journal.jsonl");
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .expect("open the journal");
        f.write_all(bytes).expect("damage the journal");
    }
}
