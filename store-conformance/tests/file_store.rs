//! The store conformance suite against the file store, in a temp dir.

use hwf_core::ids::RunId;
use hwf_host::store::{CONTROLS_POLL, FileStore};
use hwf_store_conformance::{Damage, Stores, Subject, run_all};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

struct Files(PathBuf);

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

fn stores(store: FileStore) -> Stores {
    let store = Arc::new(store);
    Stores {
        runs: store.clone(),
        scripts: store.clone(),
        events: store.clone(),
        blobs: store,
    }
}

async fn fresh() -> Subject {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("state");
    let store = FileStore::open(&root).expect("open");
    // A second FileStore on the same directory shares no memory with the
    // first: to the store it is another process.
    let other = FileStore::open(&root).expect("open again");
    Subject {
        stores: stores(store),
        other: Some(stores(other)),
        damage: Some(Box::new(Files(root))),
        watch_delay: CONTROLS_POLL,
        guard: Box::new(tmp),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_file_store_keeps_every_contract() {
    let report = run_all(fresh).await;
    report.assert_ok();
    assert!(
        report.skipped.is_empty(),
        "the file store can run every check: {:?}",
        report.skipped
    );
    assert_eq!(report.passed.len(), hwf_store_conformance::checks().len());
}
