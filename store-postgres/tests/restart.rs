//! A database restart under a working store: `pg_ctl restart -m fast`
//! while a claim's holder appends, syncs and saves. The store reconnects
//! (retrying for `PgConfig::reconnect`), every write lands exactly once (a
//! repeated append whose first try committed is recognised), and the
//! claim outlives the restart.
//!
//! It restarts the cluster, so it starts one of its own with
//! scripts/pg-test-cluster.sh (never the shared `HWF_TEST_POSTGRES`). It
//! runs when `HWF_TEST_POSTGRES` is set (the Postgres tests' switch; the
//! binaries are there then) or `HWF_REQUIRE_CLIENTS=1`.

mod common;

use hwf_core::ids::RunId;
use hwf_core::journal::{Entry, JournalEntry};
use hwf_core::model::{RunSnapshot, RunState, ScriptRef};
use hwf_core::store::{RunStore, SaveMode};
use hwf_store_postgres::{PgConfig, PgStore};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/pg-test-cluster.sh")
}

/// A cluster of the test's own, stopped on drop.
struct Cluster {
    dir: String,
    conn: String,
}

impl Cluster {
    fn start() -> Self {
        let out = Command::new(script())
            .arg("start")
            .output()
            .expect("pg-test-cluster.sh");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let conn = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let dir = conn
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix("host="))
            .expect("host=")
            .to_owned();
        Self { dir, conn }
    }

    /// `pg_ctl restart -m fast`, as the data dir's owner.
    fn restart(&self) {
        let data = format!("{}/data", self.dir);
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .ok()
            .and_then(|d| {
                d.flatten()
                    .map(|e| e.path().join("bin"))
                    .filter(|p| p.join("pg_ctl").exists())
                    .max()
            })
            .map_or_else(|| PathBuf::from("pg_ctl"), |d| d.join("pg_ctl"));
        let root = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
        let mut cmd = if root {
            let owner = Command::new("stat").args(["-c", "%U", &data]).output().expect("stat");
            let mut c = Command::new("runuser");
            c.args(["-u", String::from_utf8_lossy(&owner.stdout).trim(), "--"])
                .arg(&bin);
            c
        } else {
            Command::new(&bin)
        };
        let out = cmd
            .args([
                "-D",
                &data,
                "-l",
                &format!("{}/server.log", self.dir),
                "-m",
                "fast",
                "-w",
                "restart",
            ])
            .output()
            .expect("pg_ctl");
        assert!(
            out.status.success(),
            "pg_ctl restart: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(script()).args(["stop", &self.dir]).output();
    }
}

fn phase(seq: u64) -> JournalEntry {
    JournalEntry {
        seq,
        ts_ms: 1_700_000_000_000 + seq,
        entry: Entry::Phase {
            title: format!("p{seq}"),
        },
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_restart_is_ridden_out_and_every_write_lands_once() {
    if common::url("a_database_restart_is_ridden_out").is_none() {
        return;
    }
    let cluster = Cluster::start();
    let mut config = PgConfig::new(cluster.conn.clone());
    config.lease = Duration::from_secs(10);
    config.pool_size = 4;
    let store = PgStore::connect(config).await.expect("connect");
    let mut snap = RunSnapshot::new(
        RunId::generate(),
        RunState::Running,
        ScriptRef {
            name: Some("flow".into()),
            version: Some(1),
            path: None,
            digest: "b3:00".into(),
            language: "wasm".into(),
        },
        serde_json::json!({}),
        None,
    );
    store.create(&snap).await.expect("create");
    let claim = store.claim(&snap.run_id).await.expect("claim").expect("free");
    let mut sink = store.open_journal(claim.as_ref()).await.expect("open journal");
    sink.append(1, &[phase(1)]).await.expect("first append");
    sink.sync().await.expect("first sync");

    let restart = {
        let dir = cluster.dir.clone();
        let conn = cluster.conn.clone();
        std::thread::spawn(move || {
            let c = Cluster { dir, conn };
            c.restart();
            std::mem::forget(c); // the outer value stops it
        })
    };
    let t = Instant::now();
    let mut seq = 2;
    // Write through the restart and a little beyond it.
    while !restart.is_finished() || seq < 40 {
        sink.append(seq, &[phase(seq)])
            .await
            .unwrap_or_else(|e| panic!("append {seq} after {:?}: {e}", t.elapsed()));
        if seq % 3 == 0 {
            sink.sync().await.unwrap_or_else(|e| panic!("sync at {seq}: {e}"));
        }
        if seq % 5 == 0 {
            snap.args = serde_json::json!({"seq": seq});
            store
                .save(&snap, SaveMode::Durable, Some(claim.as_ref()))
                .await
                .unwrap_or_else(|e| panic!("save at {seq}: {e}"));
            store
                .load(&snap.run_id)
                .await
                .unwrap_or_else(|e| panic!("load at {seq}: {e}"));
        }
        seq += 1;
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert!(t.elapsed() < Duration::from_secs(60), "the restart did not finish");
    }
    restart.join().expect("restart thread");
    sink.sync().await.expect("last sync");
    let entries = store.entries(&snap.run_id, 0).await.expect("entries");
    let seqs: Vec<u64> = entries.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..seq).collect::<Vec<_>>(), "every append landed once, in order");
    claim.check().await.expect("the claim outlived the restart");
    println!("restart ridden out: {} appends over {:?}", seq - 1, t.elapsed());
}
