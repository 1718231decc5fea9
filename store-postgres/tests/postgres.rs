//! PostgreSQL-specific behaviour beyond the conformance suite: leases
//! taken over after expiry fence the old holder, claims race to exactly one
//! winner, the controls watch is woken by NOTIFY, migrations, damaged rows.
//! Skipped without `HWF_TEST_POSTGRES`.

mod common;

use hwf_core::error::ErrorCode;
use hwf_core::ids::RunId;
use hwf_core::journal::{Entry, JournalEntry};
use hwf_core::model::{RunSnapshot, RunState, ScriptRef};
use hwf_core::store::{Claim, Fence, RunStore, SaveMode, StoreResult, async_trait};
use hwf_store_postgres::{DEFAULT_LEASE, PgStore};
use std::collections::HashSet;
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn snapshot() -> RunSnapshot {
    RunSnapshot::new(
        RunId::generate(),
        RunState::Queued,
        ScriptRef {
            name: Some("flow".into()),
            version: Some(1),
            path: None,
            digest: "b3:00".into(),
            language: "wasm".into(),
        },
        serde_json::json!({"n": 1}),
        None,
    )
}

fn phase(seq: u64, title: &str) -> JournalEntry {
    JournalEntry {
        seq,
        ts_ms: 1_700_000_000_000 + seq,
        entry: Entry::Phase { title: title.into() },
    }
}

/// A claim value carrying a given fence (what a paused owner still holds).
#[derive(Debug)]
struct Stale(Fence);

#[async_trait]
impl Claim for Stale {
    fn fence(&self) -> &Fence {
        &self.0
    }
    async fn check(&self) -> StoreResult<()> {
        self.0.check()
    }
    async fn release(self: Box<Self>) -> StoreResult<()> {
        Ok(())
    }
}

/// The old owner runs on a runtime of its own, on its own thread; blocking
/// that thread stops its heartbeat as SIGSTOP would stop the process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_taken_over_after_expiry_fences_the_paused_holder() {
    let Some(url) = common::url("a_lease_taken_over_after_expiry_fences_the_paused_holder") else {
        return;
    };
    let lease = Duration::from_millis(400);
    let schema = common::Schema::new(&url);
    let new_owner = schema.store(lease).await;
    let snap = snapshot();
    new_owner.create(&snap).await.expect("create");
    let id = snap.run_id.clone();

    let (to_main, from_old) = mpsc::channel::<&'static str>();
    let (to_old, from_main) = mpsc::channel::<&'static str>();
    let config = schema.config(lease);
    let old = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move {
            let store = PgStore::connect(config).await.expect("connect");
            let claim = store.claim(&id).await.expect("claim").expect("free");
            let mut sink = store.open_journal(claim.as_ref()).await.expect("open");
            sink.append(1, &[phase(1, "old")]).await.expect("append while held");
            sink.sync().await.expect("sync while held");
            let mut snap = store.load(&id).await.expect("load");
            snap.phase = Some("old".into());
            store
                .save(&snap, SaveMode::Durable, Some(claim.as_ref()))
                .await
                .expect("save while held");
            let old_token = claim.fence().token();
            to_main.send("claimed").expect("send");
            // Paused: this whole runtime (the heartbeat too) stands still
            // until the new owner has the lease.
            assert_eq!(from_main.recv().expect("recv"), "taken");
            // Resumed: nothing has run here since, so the claim still reads
            // held locally; the database refuses the writes.
            assert!(
                sink.fence().is_held(),
                "the paused owner still believes it holds the run"
            );
            let e = sink.append(2, &[phase(2, "stale")]).await.expect_err("fenced append");
            assert_eq!(e.code(), ErrorCode::Conflict, "{e}");
            assert!(e.to_string().contains("no longer held"), "{e}");
            let stale = Stale(Fence::new(id.clone(), old_token));
            snap.phase = Some("stale".into());
            let e = store
                .save(&snap, SaveMode::Durable, Some(&stale))
                .await
                .expect_err("fenced save");
            assert_eq!(e.code(), ErrorCode::Conflict, "{e}");
            let e = store
                .save(&snap, SaveMode::Fast, Some(claim.as_ref()))
                .await
                .expect_err("fenced fast save");
            assert_eq!(e.code(), ErrorCode::Conflict, "{e}");
            assert!(claim.check().await.is_err(), "check reports the claim lost");
            assert!(!claim.fence().is_held());
            drop(claim); // must not free the new owner's lease
            to_main.send("refused").expect("send");
        });
    });

    let from_old = tokio::task::spawn_blocking(move || {
        assert_eq!(from_old.recv().expect("claimed"), "claimed");
        from_old
    })
    .await
    .expect("join");
    let paused_at = Instant::now();
    // The new owner polls until the old lease expires.
    let claim = loop {
        if let Some(c) = new_owner.claim(&snap.run_id).await.expect("claim") {
            break c;
        }
        assert!(
            paused_at.elapsed() < lease * 10,
            "the expired lease was never taken over"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let takeover = paused_at.elapsed();
    assert!(
        takeover >= lease - Duration::from_millis(100),
        "taken over after {takeover:?}, before the lease ({lease:?}) expired"
    );
    println!("lease takeover after {takeover:?} (lease {lease:?})");
    to_old.send("taken").expect("send");
    let refused = tokio::task::spawn_blocking(move || {
        let r = from_old.recv();
        old.join().expect("the old owner's asserts");
        r
    })
    .await
    .expect("join")
    .expect("recv");
    assert_eq!(refused, "refused");

    // Nothing of the stale owner's landed; the new owner goes on.
    let entries = new_owner.entries(&snap.run_id, 0).await.expect("entries");
    assert_eq!(entries.iter().map(|e| e.seq).collect::<Vec<_>>(), [1]);
    assert_eq!(
        new_owner.load(&snap.run_id).await.expect("load").phase.as_deref(),
        Some("old")
    );
    assert!(new_owner.is_claimed(&snap.run_id).await.expect("is_claimed"));
    let mut sink = new_owner.open_journal(claim.as_ref()).await.expect("open");
    assert_eq!(sink.next_seq(), 2);
    sink.append(2, &[phase(2, "new")]).await.expect("the new owner appends");
    sink.sync().await.expect("sync");
    claim.check().await.expect("the new owner holds the run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_owners_lease_expires_and_a_live_ones_is_renewed() {
    let Some(url) = common::url("a_dead_owners_lease_expires_and_a_live_ones_is_renewed") else {
        return;
    };
    let lease = Duration::from_millis(300);
    let schema = common::Schema::new(&url);
    let store = schema.store(lease).await;
    let other = schema.store(lease).await;
    let (live, dead) = (snapshot(), snapshot());
    store.create(&live).await.expect("create");
    store.create(&dead).await.expect("create");
    let held = store.claim(&live.run_id).await.expect("claim").expect("free");
    // A runner that dies: its runtime (and heartbeat) is gone, the claim
    // never released.
    let config = schema.config(lease);
    let dead_id = dead.run_id.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move {
            let s = PgStore::connect(config).await.expect("connect");
            let c = s.claim(&dead_id).await.expect("claim").expect("free");
            std::mem::forget(c);
        });
    })
    .join()
    .expect("the dying runner");
    assert!(
        other.claim(&dead.run_id).await.expect("claim").is_none(),
        "held until the lease expires"
    );
    tokio::time::sleep(lease * 3).await;
    let taken = other.claim(&dead.run_id).await.expect("claim");
    assert!(taken.is_some(), "a dead owner's lease expires");
    // Three leases later the live claim is still held: renewed.
    assert!(
        other.claim(&live.run_id).await.expect("claim").is_none(),
        "the heartbeat renews the lease"
    );
    held.check().await.expect("still held");
    assert!(other.is_claimed(&live.run_id).await.expect("is_claimed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_concurrent_claims_of_one_run_have_exactly_one_winner() {
    let Some(url) = common::url("two_concurrent_claims_of_one_run_have_exactly_one_winner") else {
        return;
    };
    let schema = common::Schema::new(&url);
    let a = schema.store(DEFAULT_LEASE).await;
    let b = schema.store(DEFAULT_LEASE).await;
    let mut wins = [0, 0];
    let mut held = Vec::new();
    for _ in 0..30 {
        let snap = snapshot();
        a.create(&snap).await.expect("create");
        let (ca, cb) = tokio::join!(a.claim(&snap.run_id), b.claim(&snap.run_id));
        let (ca, cb) = (ca.expect("claim a"), cb.expect("claim b"));
        assert!(ca.is_some() != cb.is_some(), "exactly one claim wins");
        wins[usize::from(cb.is_some())] += 1;
        let claim = ca.or(cb).expect("a winner");
        assert_eq!(claim.fence().token(), 1);
        held.push(claim);
    }
    println!("two claimants, 30 runs: wins {wins:?}");
    assert_eq!(wins[0] + wins[1], 30);
}

/// A run that needs a capability is handed out only to a host offering it
/// with the same class (issue 32: routed like a task queue).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claim_next_hands_a_run_only_to_a_host_offering_its_needs() {
    use hwf_core::model::CapabilityNeed;
    use hwf_core::policy::SideEffect;
    let Some(url) = common::url("claim_next_hands_a_run_only_to_a_host_offering_its_needs") else {
        return;
    };
    let schema = common::Schema::new(&url);
    let store = schema.store(DEFAULT_LEASE).await;
    let deploy = CapabilityNeed {
        name: "deploy".into(),
        class: SideEffect::ExternalWrite,
    };
    let mut snap = snapshot();
    snap.needs = vec![deploy.clone()];
    store.create(&snap).await.expect("create");
    // Carried as written.
    assert_eq!(
        store.load(&snap.run_id).await.expect("load").needs,
        vec![deploy.clone()]
    );
    // A stock host (no `deploy`), and one with `deploy` of another class.
    assert!(
        store
            .claim_next(&[RunState::Queued], &[])
            .await
            .expect("claim_next")
            .is_none()
    );
    let other_class = CapabilityNeed {
        class: SideEffect::ReadOnly,
        ..deploy.clone()
    };
    assert!(
        store
            .claim_next(&[RunState::Queued], &[other_class])
            .await
            .expect("claim_next")
            .is_none()
    );
    // The embedder's host gets it.
    let claim = store
        .claim_next(&[RunState::Queued], &[deploy])
        .await
        .expect("claim_next")
        .expect("handed out");
    assert_eq!(claim.fence().run(), &snap.run_id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_runners_racing_for_100_runs_claim_each_once() {
    let Some(url) = common::url("four_runners_racing_for_100_runs_claim_each_once") else {
        return;
    };
    let schema = common::Schema::new(&url);
    let setup = schema.store(DEFAULT_LEASE).await;
    let mut ids = HashSet::new();
    for _ in 0..100 {
        let snap = snapshot();
        setup.create(&snap).await.expect("create");
        ids.insert(snap.run_id);
    }
    // A run in another state is not work.
    let mut done = snapshot();
    done.state = RunState::Succeeded;
    setup.create(&done).await.expect("create");
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let store = schema.store(DEFAULT_LEASE).await;
        tasks.push(tokio::spawn(async move {
            let mut claims = Vec::new();
            while let Some(c) = store.claim_next(&[RunState::Queued], &[]).await.expect("claim_next") {
                claims.push(c);
            }
            claims
        }));
    }
    // Every claim is held until all runners are done, so no run is freed
    // and claimed again by a runner still scanning.
    let mut held = Vec::new();
    let mut per_runner = Vec::new();
    for t in tasks {
        let got = t.await.expect("runner");
        per_runner.push(got.len());
        held.extend(got);
    }
    let seen: Vec<(RunId, u64)> = held
        .iter()
        .map(|c| (c.fence().run().clone(), c.fence().token()))
        .collect();
    println!("4 runners, 100 runs: claimed {per_runner:?}");
    assert_eq!(seen.len(), 100, "every run claimed once: {per_runner:?}");
    let unique: HashSet<RunId> = seen.iter().map(|(r, _)| r.clone()).collect();
    assert_eq!(unique, ids, "each run exactly once, and only the queued ones");
    assert!(seen.iter().all(|(_, t)| *t == 1), "one claim per run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_handles_control_wakes_the_watch_through_notify() {
    let Some(url) = common::url("another_handles_control_wakes_the_watch_through_notify") else {
        return;
    };
    let schema = common::Schema::new(&url);
    let store = schema.store(DEFAULT_LEASE).await;
    let other = schema.store(DEFAULT_LEASE).await;
    let snap = snapshot();
    store.create(&snap).await.expect("create");
    let mut rx = store.watch_controls(&snap.run_id).await.expect("watch");
    tokio::time::sleep(Duration::from_millis(200)).await; // the listener is up
    let mut worst = Duration::ZERO;
    for i in 0..5 {
        rx.borrow_and_update();
        let c = hwf_core::control::Control::new(hwf_core::control::Action::Pause, format!("cli {i}"));
        let t = Instant::now();
        assert!(other.append_control(&snap.run_id, &c).await.expect("append"));
        tokio::time::timeout(Duration::from_secs(5), rx.changed())
            .await
            .expect("woken")
            .expect("sender");
        worst = worst.max(t.elapsed());
    }
    println!("controls watch across handles: worst {worst:?} of 5");
    // The poll runs every 500 ms: five wakes this fast came from NOTIFY.
    assert!(worst < Duration::from_millis(150), "worst wake {worst:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_row_is_corrupt_store_and_migrations_are_versioned() {
    let Some(url) = common::url("a_damaged_row_is_corrupt_store_and_migrations_are_versioned") else {
        return;
    };
    let schema = common::Schema::new(&url);
    let store = schema.store(DEFAULT_LEASE).await;
    // Connecting again applies nothing twice.
    let again = schema.store(DEFAULT_LEASE).await;
    let newest = hwf_store_postgres::MIGRATIONS
        .iter()
        .map(|m| m.version)
        .max()
        .expect("migrations");
    assert_eq!(again.schema_version().await.expect("version"), (newest, newest));
    let snap = snapshot();
    store.create(&snap).await.expect("create");
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(conn);
    let s = &schema.name;
    client
        .execute(
            &format!(
                "INSERT INTO {s}.hwf_journal (run_id, seq, ts_ms, kind, line) VALUES ($1, 1, 1, 'phase', '{{not json}}')"
            ),
            &[&snap.run_id.as_str()],
        )
        .await
        .expect("damage");
    let e = store.entries(&snap.run_id, 0).await.expect_err("corrupt");
    assert_eq!(e.code(), ErrorCode::CorruptStore, "{e}");
    assert!(e.to_string().contains("seq 1"), "names the row: {e}");
    // A row whose line holds another seq is damage too.
    let other = snapshot();
    store.create(&other).await.expect("create");
    let line = serde_json::to_string(&phase(7, "x")).expect("json");
    client
        .execute(
            &format!("INSERT INTO {s}.hwf_journal (run_id, seq, ts_ms, kind, line) VALUES ($1, 1, 1, 'phase', $2)"),
            &[&other.run_id.as_str(), &line],
        )
        .await
        .expect("damage");
    let e = store.entries(&other.run_id, 0).await.expect_err("corrupt");
    assert_eq!(e.code(), ErrorCode::CorruptStore, "{e}");
    // A database migrated by a newer build is refused.
    client
        .execute(
            &format!("INSERT INTO {s}.hwf_schema_migrations (version, name) VALUES (99, 'future')"),
            &[],
        )
        .await
        .expect("future");
    let e = PgStore::connect(schema.config(DEFAULT_LEASE))
        .await
        .expect_err("newer schema");
    assert_eq!(e.code(), ErrorCode::InvalidConfig, "{e}");
    assert!(e.to_string().contains("99"), "{e}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_dropped_claim_on_a_current_thread_runtime_is_released_before_the_next_claim() {
    let Some(url) = common::url("a_dropped_claim_on_a_current_thread_runtime_is_released_before_the_next_claim") else {
        return;
    };
    let schema = common::Schema::new(&url);
    let store = schema.store(DEFAULT_LEASE).await;
    let snap = snapshot();
    store.create(&snap).await.expect("create");
    let claim = store.claim(&snap.run_id).await.expect("claim").expect("free");
    let fence = claim.fence().clone();
    drop(claim);
    assert!(!fence.is_held());
    assert!(!store.is_claimed(&snap.run_id).await.expect("is_claimed"));
    let again = store
        .claim(&snap.run_id)
        .await
        .expect("claim")
        .expect("free after drop");
    assert!(again.fence().token() > fence.token());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_jsonb_cannot_hold_is_kept_as_text() {
    let Some(url) = common::url("a_snapshot_jsonb_cannot_hold_is_kept_as_text") else {
        return;
    };
    let schema = common::Schema::new(&url);
    let store = schema.store(DEFAULT_LEASE).await;
    let mut snap = snapshot();
    snap.args = serde_json::json!({"nul": "a\u{0}b"});
    store.create(&snap).await.expect("create with a NUL");
    assert_eq!(store.load(&snap.run_id).await.expect("load"), snap);
    snap.args = serde_json::json!({"plain": true});
    store.save(&snap, SaveMode::Durable, None).await.expect("save");
    assert_eq!(store.load(&snap.run_id).await.expect("load"), snap);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_syncs_share_commits_and_each_is_fenced_on_its_own() {
    let Some(url) = common::url("concurrent_syncs_share_commits_and_each_is_fenced_on_its_own") else {
        return;
    };
    let schema = common::Schema::new(&url);
    let store = schema.store(DEFAULT_LEASE).await;
    let mut held = Vec::new();
    for _ in 0..8 {
        let snap = snapshot();
        store.create(&snap).await.expect("create");
        let claim = store.claim(&snap.run_id).await.expect("claim").expect("free");
        let mut sink = store.open_journal(claim.as_ref()).await.expect("open");
        sink.append(1, &[phase(1, "a")]).await.expect("append");
        held.push((snap.run_id, claim, sink));
    }
    // Another owner takes run 3 (its lease bumped behind this store's back).
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(conn);
    let taken = held[3].0.clone();
    client
        .execute(
            &format!(
                "UPDATE {}.hwf_claims SET token = token + 1, holder = 'elsewhere' WHERE run_id = $1",
                schema.name
            ),
            &[&taken.as_str()],
        )
        .await
        .expect("take over");
    let results = futures_util::future::join_all(held.iter_mut().map(|(_, _, sink)| sink.sync())).await;
    for ((id, _, _), r) in held.iter().zip(&results) {
        if *id == taken {
            let e = r.as_ref().expect_err("the taken run's sync is fenced");
            assert_eq!(e.code(), ErrorCode::Conflict, "{e}");
        } else {
            assert!(r.is_ok(), "run {id}: {r:?}");
        }
    }
    let synced: Vec<(String, i64)> = client
        .query(
            &format!(
                "SELECT run_id, synced_seq FROM {}.hwf_claims ORDER BY run_id",
                schema.name
            ),
            &[],
        )
        .await
        .expect("read")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    for (run, seq) in synced {
        assert_eq!(seq, i64::from(run != taken.as_str()), "run {run}");
    }
}

/// Runners started together on a fresh database all migrate it at once:
/// each connects (one applies the schema, the others find it), none fails
/// on a concurrent `CREATE … IF NOT EXISTS`. The default search path (no
/// schema of our own), so the test makes a database for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_migrating_a_fresh_database_at_once_all_connect() {
    let Some(url) = common::url("processes_migrating_a_fresh_database_at_once_all_connect") else {
        return;
    };
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(conn);
    let db = format!("hwf_t_{}", uuid::Uuid::now_v7().simple());
    client
        .batch_execute(&format!("CREATE DATABASE {db}"))
        .await
        .expect("create database");
    let mut config: tokio_postgres::Config = url.parse().expect("url");
    config.dbname(&db);
    // The key/value form of the same connection, with the new database.
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|h| match h {
            tokio_postgres::config::Host::Tcp(h) => h.clone(),
            tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
        })
        .collect();
    let mut conn_str = format!("host={} dbname={db}", hosts.join(","));
    if let Some(user) = config.get_user() {
        conn_str.push_str(&format!(" user={user}"));
    }
    if let Some(port) = config.get_ports().first() {
        conn_str.push_str(&format!(" port={port}"));
    }
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let c = conn_str.clone();
            tokio::spawn(async move {
                let mut config = hwf_store_postgres::PgConfig::new(c);
                config.pool_size = 2;
                PgStore::connect(config).await.map(|s| s.owner().to_owned())
            })
        })
        .collect();
    for t in tasks {
        let owner = t
            .await
            .expect("task")
            .expect("a concurrent first connect migrates or finds the schema");
        assert!(!owner.is_empty());
    }
    // The connections of those stores close as they drop; then the
    // database can go.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let _ = client
        .batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
        .await;
}
