//! The store conformance suite (hwf-store-conformance) against PostgreSQL:
//! every check on a fresh schema, with a second store object on the same
//! schema as the "other process". Skipped without `HWF_TEST_POSTGRES`.

mod common;

use hwf_store_conformance::{Stores, Subject, run_all};
use hwf_store_postgres::{CONTROLS_POLL, DEFAULT_LEASE, PgStore};
use std::sync::Arc;

fn stores(store: PgStore) -> Stores {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_keeps_every_store_contract() {
    let Some(url) = common::url("postgres_keeps_every_store_contract") else {
        return;
    };
    let report = run_all(|| {
        let url = url.clone();
        async move {
            let schema = common::Schema::new(&url);
            let store = schema.store(DEFAULT_LEASE).await;
            let other = schema.store(DEFAULT_LEASE).await;
            Subject {
                stores: stores(store),
                other: Some(stores(other)),
                // Rows are written whole: there is no torn line to repair
                // (a damaged row is tested in tests/postgres.rs).
                damage: None,
                watch_delay: CONTROLS_POLL,
                guard: Box::new(schema),
            }
        }
    })
    .await;
    report.assert_ok();
    let skipped: Vec<&str> = report.skipped.iter().map(|(n, _)| *n).collect();
    assert!(
        skipped
            .iter()
            .all(|n| n.starts_with("journal: a torn") || n.starts_with("journal: a damaged")),
        "only the torn-write checks may be skipped: {skipped:?}"
    );
    assert_eq!(
        report.passed.len() + report.skipped.len(),
        hwf_store_conformance::checks().len()
    );
}
