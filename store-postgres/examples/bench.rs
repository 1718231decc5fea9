//! The PostgreSQL store's durable journal append against one local commit,
//! measured in the same run on the same database:
//!
//! ```text
//! HWF_TEST_POSTGRES="$(scripts/pg-test-cluster.sh start)" \
//!   cargo run -j2 -p hwf-store-postgres --example bench [-- <iterations>]
//! ```
//!
//! Figures (median and p99, µs): a durable append (one `call_completed`
//! line appended and synced under a claim), the same with 8 runs appending
//! at once (their syncs share the WAL flush), an INSERT commit (one
//! synchronous commit, the floor a durable append can reach), and a
//! committed `SELECT 1` (a round trip with no flush). Tables live in a
//! schema of their own, dropped at the end.

use hwf_core::ids::RunId;
use hwf_core::model::{RunSnapshot, RunState, ScriptRef};
use hwf_core::store::RunStore;
use hwf_store_postgres::{PgConfig, PgStore};
use std::time::{Duration, Instant};

fn line(seq: u64) -> Vec<u8> {
    let mut v = serde_json::to_vec(&serde_json::json!({
        "seq": seq,
        "ts_ms": 1_700_000_000_000u64 + seq,
        "type": "call_completed",
        "call": format!("{seq}"),
        "kind": "agent",
        "fingerprint": "b3:5f0c6a1e2d3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d",
        "ok": true,
        "result": {"text": "a short agent answer of about this size, as a completion records it"},
        "tokens": 412,
        "attempts": 1,
        "duration_us": 1834,
    }))
    .unwrap_or_default();
    v.push(b'\n');
    v
}

fn summary(name: &str, mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    let (p50, p99) = (at(0.5), at(0.99));
    println!(
        "{name:<44} p50 {:>7.1} µs   p99 {:>7.1} µs   (n = {})",
        p50.as_secs_f64() * 1e6,
        p99.as_secs_f64() * 1e6,
        samples.len()
    );
    p50
}

async fn new_run(store: &PgStore) -> anyhow::Result<RunId> {
    let snap = RunSnapshot::new(
        RunId::generate(),
        RunState::Running,
        ScriptRef::default(),
        serde_json::json!({}),
        None,
    );
    store.create(&snap).await?;
    Ok(snap.run_id)
}

/// `n` durable appends on one run; each sample is append + sync.
async fn appends(store: &PgStore, n: usize) -> anyhow::Result<Vec<Duration>> {
    let id = new_run(store).await?;
    let claim = store.claim(&id).await?.ok_or_else(|| anyhow::anyhow!("claim"))?;
    let mut sink = store.open_journal(claim.as_ref()).await?;
    let mut samples = Vec::with_capacity(n);
    for _ in 0..n {
        let seq = sink.next_seq();
        let l = line(seq);
        let t = Instant::now();
        sink.append_lines(seq, &l).await?;
        sink.sync().await?;
        samples.push(t.elapsed());
    }
    Ok(samples)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let url = std::env::var("HWF_TEST_POSTGRES")
        .map_err(|_| anyhow::anyhow!("set HWF_TEST_POSTGRES (scripts/pg-test-cluster.sh start prints one)"))?;
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let schema = format!("hwf_bench_{}", uuid::Uuid::now_v7().simple());
    let mut config = PgConfig::new(url.clone());
    config.schema = Some(schema.clone());
    let store = PgStore::connect(config).await?;
    let (admin, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await?;
    tokio::spawn(conn);
    admin
        .batch_execute(&format!(
            "SET search_path = {schema}; CREATE TABLE bench_commit (id bigserial PRIMARY KEY, line text NOT NULL)"
        ))
        .await?;
    let settings = admin
        .query_one(
            "SELECT current_setting('fsync'), current_setting('synchronous_commit'), version()",
            &[],
        )
        .await?;
    println!(
        "PostgreSQL: fsync={} synchronous_commit={} ({})",
        settings.get::<_, String>(0),
        settings.get::<_, String>(1),
        settings.get::<_, String>(2).split(" on ").next().unwrap_or("")
    );

    // Warm up: connections and prepared statements.
    appends(&store, 50).await?;
    let insert = admin.prepare("INSERT INTO bench_commit (line) VALUES ($1)").await?;
    let select = admin.prepare("SELECT 1").await?;
    let text = String::from_utf8_lossy(&line(1)).trim_end().to_owned();

    // Interleaved rounds, so drift in the machine's load hits all alike.
    let (mut durable, mut commit, mut select1) = (Vec::new(), Vec::new(), Vec::new());
    let rounds = 10;
    for _ in 0..rounds {
        durable.extend(appends(&store, n / rounds).await?);
        for _ in 0..n / rounds {
            let t = Instant::now();
            admin.execute(&insert, &[&text]).await?;
            commit.push(t.elapsed());
        }
        for _ in 0..n / rounds {
            let t = Instant::now();
            admin.batch_execute("BEGIN").await?;
            admin.query_one(&select, &[]).await?;
            admin.batch_execute("COMMIT").await?;
            select1.push(t.elapsed());
        }
    }
    // 8 runs appending at once: each sample is still one append + sync.
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move { appends(&store, n / 8).await }));
    }
    let started = Instant::now();
    let mut concurrent = Vec::new();
    for t in tasks {
        concurrent.extend(t.await??);
    }
    let wall = started.elapsed();
    let total = concurrent.len();

    let d = summary("durable append (append + sync), 1 run", durable);
    let c = summary("local commit (INSERT, synchronous commit)", commit);
    summary("committed SELECT 1 (no flush)", select1);
    summary("durable append, 8 runs at once", concurrent);
    println!(
        "8 runs at once: {:.0} durable appends/s; durable append p50 / commit p50 = {:.2}",
        total as f64 / wall.as_secs_f64(),
        d.as_secs_f64() / c.as_secs_f64()
    );
    drop(store);
    admin.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await?;
    Ok(())
}
