//! The store conformance suite against the file store, in a temp dir.

use hwf_host::store::{CONTROLS_POLL, FileStore};
mod common;

use common::Files;
use hwf_store_conformance::{Stores, Subject, run_all};
use std::sync::Arc;

fn stores(store: FileStore) -> Stores {
    let store = Arc::new(store);
    Stores {
        runs: store.clone(),
        scripts: store.clone(),
        events: store.clone(),
        blobs: store.clone(),
        triggers: store.clone(),
        kanban: store,
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
