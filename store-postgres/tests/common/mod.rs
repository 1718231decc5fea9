//! Test support: a fresh schema per store on the cluster named by
//! `HWF_TEST_POSTGRES` (a libpq connection string; CI starts one with
//! scripts/pg-test-cluster.sh). Without it the Postgres tests are skipped.

#![allow(dead_code, reason = "each test target uses a part")]

use hwf_store_postgres::{PgConfig, PgStore};
use std::time::Duration;

/// The connection string, or `None` (and a note that `test` was skipped).
pub fn url(test: &str) -> Option<String> {
    match std::env::var("HWF_TEST_POSTGRES") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            // CI (HWF_REQUIRE_CLIENTS=1, as for the Python clients) must not
            // pass by skipping.
            assert!(
                std::env::var("HWF_REQUIRE_CLIENTS").as_deref() != Ok("1"),
                "{test}: HWF_TEST_POSTGRES is not set and HWF_REQUIRE_CLIENTS=1"
            );
            println!("skipped {test}: HWF_TEST_POSTGRES is not set (scripts/pg-test-cluster.sh start prints one)");
            None
        }
    }
}

/// A schema of its own, dropped when the value is.
pub struct Schema {
    pub url: String,
    pub name: String,
}

impl Schema {
    pub fn new(url: &str) -> Self {
        Self {
            url: url.to_owned(),
            name: format!("hwf_t_{}", uuid::Uuid::now_v7().simple()),
        }
    }

    /// A config for a store in this schema.
    pub fn config(&self, lease: Duration) -> PgConfig {
        let mut c = PgConfig::new(self.url.clone());
        c.schema = Some(self.name.clone());
        c.lease = lease;
        c.pool_size = 4;
        c
    }

    /// A store object on this schema (each call: another "process").
    pub async fn store(&self, lease: Duration) -> PgStore {
        PgStore::connect(self.config(lease))
            .await
            .expect("connect to HWF_TEST_POSTGRES")
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let (url, name) = (self.url.clone(), self.name.clone());
        // Off the runtime: a plain thread with its own.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            rt.block_on(async {
                let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.ok()?;
                tokio::spawn(conn);
                client
                    .batch_execute(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
                    .await
                    .ok()
            })
        })
        .join();
    }
}
