//! `RunStore`: create, load, save, list (all, by state), unknown ids,
//! artifacts.

use crate::{Check, Outcome, Subject, Verdict, created, ensure, fails_with, ok, snapshot};
use hwf_core::control::{Action, Control};
use hwf_core::error::ErrorCode;
use hwf_core::ids::RunId;
use hwf_core::model::RunState;
use hwf_core::store::{Artifact, ArtifactRef, SaveMode};
use serde_json::json;

pub(crate) const CHECKS: [(&str, Check); 8] = [
    (
        "runs: create, load and save round-trip the snapshot (its needs too)",
        |s| Box::pin(round_trip(s)),
    ),
    ("runs: create refuses a taken id and changes nothing", |s| {
        Box::pin(taken_id(s))
    }),
    ("runs: every method fails with not_found for an unknown run", |s| {
        Box::pin(unknown(s))
    }),
    ("runs: list returns every run id in order", |s| Box::pin(list(s))),
    ("runs: artifacts round-trip by ref, replaced on write", |s| {
        Box::pin(artifacts(s))
    }),
    ("runs: create_claimed holds the claim from the start", |s| {
        Box::pin(create_claimed(s))
    }),
    ("runs: the change marker moves on create, save and control", |s| {
        Box::pin(change_marker(s))
    }),
    ("runs: list_in_states lists exactly the runs in those states", |s| {
        Box::pin(list_in_states(s))
    }),
];

async fn list_in_states(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let mut made = Vec::new();
    for state in [
        RunState::Queued,
        RunState::Waiting,
        RunState::Succeeded,
        RunState::Running,
    ] {
        let mut snap = snapshot(json!({"state": state.as_str()}));
        ok(runs.create(&snap).await, "create")?;
        snap.state = state;
        ok(runs.save(&snap, SaveMode::Durable, None).await, "save")?;
        made.push((snap.run_id.clone(), state));
    }
    let listed = ok(
        runs.list_in_states(&[RunState::Queued, RunState::Waiting]).await,
        "list_in_states",
    )?;
    for (id, state) in &made {
        let want = matches!(state, RunState::Queued | RunState::Waiting);
        ensure!(
            listed.contains(id) == want,
            "a {} run {} listed: {listed:?}",
            state.as_str(),
            if want { "is not" } else { "is" }
        );
    }
    let mut sorted = listed.clone();
    sorted.sort();
    ensure!(sorted == listed, "in order: {listed:?}");
    // A state moves the run in and out of the answer.
    let (id, _) = &made[2];
    let mut snap = ok(runs.load(id).await, "load")?;
    snap.state = RunState::Waiting;
    ok(runs.save(&snap, SaveMode::Durable, None).await, "save")?;
    let listed = ok(runs.list_in_states(&[RunState::Waiting]).await, "list_in_states")?;
    ensure!(listed.contains(id), "a run saved waiting is listed waiting: {listed:?}");
    ensure!(!listed.contains(&made[0].0), "a queued run is not listed waiting");
    ensure!(
        ok(runs.list_in_states(&[]).await, "list_in_states of none")?.is_empty(),
        "no state, no run"
    );
    Ok(Verdict::Pass)
}

async fn change_marker(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let Some(mut last) = ok(runs.change_marker().await, "change_marker")? else {
        return Ok(Verdict::Skip("the store offers no change marker".into()));
    };
    let mut snap = snapshot(json!({"marker": 1}));
    let mut moved = |what: &str, now: Option<u64>| -> Outcome {
        let now = now.ok_or_else(|| format!("the marker disappeared after {what}"))?;
        ensure!(now != last, "the change marker did not move after {what}");
        last = now;
        Ok(Verdict::Pass)
    };
    ok(runs.create(&snap).await, "create")?;
    moved("create", ok(runs.change_marker().await, "change_marker")?)?;
    snap.state = RunState::Running;
    snap.phase = Some("a longer phase name than before".into());
    ok(runs.save(&snap, SaveMode::Durable, None).await, "save")?;
    moved("save", ok(runs.change_marker().await, "change_marker")?)?;
    let control = Control::new(Action::Pause, "tester");
    ok(runs.append_control(&snap.run_id, &control).await, "append_control")?;
    moved("append_control", ok(runs.change_marker().await, "change_marker")?)?;
    Ok(Verdict::Pass)
}

async fn create_claimed(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let mut snap = snapshot(json!({"claimed": true}));
    snap.state = RunState::Running;
    let claim = ok(runs.create_claimed(&snap).await, "create_claimed")?;
    ensure!(claim.fence().run() == &snap.run_id, "the claim is the new run's");
    ensure!(claim.fence().is_held(), "the claim is held");
    let loaded = ok(runs.load(&snap.run_id).await, "load")?;
    ensure!(loaded == snap, "load after create_claimed: {loaded:?} != {snap:?}");
    ensure!(
        ok(runs.is_claimed(&snap.run_id).await, "is_claimed")?,
        "claimed at once"
    );
    let handles = std::iter::once(&s.stores).chain(s.other.as_ref());
    for stores in handles {
        ensure!(
            ok(stores.runs.claim(&snap.run_id).await, "claim")?.is_none(),
            "nobody else can claim it while it is held"
        );
    }
    ok(
        runs.save(&snap, SaveMode::Durable, Some(&*claim)).await,
        "save under it",
    )?;
    fails_with(
        runs.create_claimed(&snap).await.map(drop),
        ErrorCode::AlreadyExists,
        "create_claimed with a taken id",
    )?;
    ok(claim.release().await, "release")?;
    ensure!(
        !ok(runs.is_claimed(&snap.run_id).await, "is_claimed")?,
        "free once released"
    );
    Ok(Verdict::Pass)
}

async fn round_trip(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let mut snap = snapshot(json!({"name": "world", "nested": [1, 2, {"x": null}]}));
    // What a host must offer to continue it (issue 32) is carried too.
    snap.needs = vec![hwf_core::model::CapabilityNeed {
        name: "deploy".into(),
        class: hwf_core::policy::SideEffect::ExternalWrite,
    }];
    ok(runs.create(&snap).await, "create")?;
    let loaded = ok(runs.load(&snap.run_id).await, "load")?;
    ensure!(loaded == snap, "load after create: {loaded:?} != {snap:?}");
    for (state, mode) in [
        (RunState::Running, SaveMode::Fast),
        (RunState::Succeeded, SaveMode::Durable),
    ] {
        snap.state = state;
        snap.phase = Some(format!("phase {}", state.as_str()));
        snap.result = Some(json!({"ok": state.as_str()}));
        ok(runs.save(&snap, mode, None).await, "save")?;
        let loaded = ok(runs.load(&snap.run_id).await, "load after save")?;
        ensure!(loaded == snap, "load after save ({mode:?}): {loaded:?} != {snap:?}");
    }
    ensure!(
        ok(runs.entries(&snap.run_id, 0).await, "entries")?.is_empty(),
        "a new run's journal is empty"
    );
    ensure!(
        ok(runs.controls(&snap.run_id).await, "controls")?.is_empty(),
        "a new run has no controls"
    );
    Ok(Verdict::Pass)
}

async fn taken_id(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let first = snapshot(json!({"first": true}));
    ok(runs.create(&first).await, "create")?;
    let mut second = snapshot(json!({"second": true}));
    second.run_id = first.run_id.clone();
    fails_with(
        runs.create(&second).await,
        ErrorCode::AlreadyExists,
        "create with a taken id",
    )?;
    let loaded = ok(runs.load(&first.run_id).await, "load")?;
    ensure!(loaded == first, "the refused create changed the run: {loaded:?}");
    Ok(Verdict::Pass)
}

async fn unknown(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let id = RunId::generate();
    let nf = ErrorCode::NotFound;
    fails_with(runs.load(&id).await, nf, "load")?;
    let mut snap = snapshot(json!({}));
    snap.run_id = id.clone();
    fails_with(runs.save(&snap, SaveMode::Durable, None).await, nf, "save")?;
    fails_with(runs.entries(&id, 0).await, nf, "entries")?;
    fails_with(runs.claim(&id).await.map(|c| c.is_some()), nf, "claim")?;
    fails_with(runs.is_claimed(&id).await, nf, "is_claimed")?;
    fails_with(runs.controls(&id).await, nf, "controls")?;
    fails_with(
        runs.append_control(&id, &Control::new(Action::Pause, "t")).await,
        nf,
        "append_control",
    )?;
    fails_with(runs.watch_controls(&id).await.map(|_| ()), nf, "watch_controls")?;
    fails_with(
        runs.write_artifact(&id, Artifact::Result, b"{}").await,
        nf,
        "write_artifact",
    )?;
    let r = ArtifactRef::of(Artifact::Result).map_err(|e| e.to_string())?;
    fails_with(runs.read_artifact(&id, &r).await, nf, "read_artifact")?;
    ensure!(
        ok(runs.list().await, "list")?.is_empty(),
        "nothing was created by the refused calls"
    );
    Ok(Verdict::Pass)
}

async fn list(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    ensure!(ok(runs.list().await, "list")?.is_empty(), "a fresh store lists no runs");
    let mut ids = Vec::new();
    for _ in 0..5 {
        ids.push(created(s).await?);
    }
    // A caller-chosen id sorts among them by its text.
    let named = RunId::parse("a-named-run").map_err(|e| e.to_string())?;
    let mut snap = snapshot(json!({}));
    snap.run_id = named.clone();
    ok(runs.create(&snap).await, "create named")?;
    ids.push(named);
    ids.sort();
    let listed = ok(runs.list().await, "list")?;
    ensure!(listed == ids, "list: {listed:?}, expected {ids:?}");
    Ok(Verdict::Pass)
}

async fn artifacts(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let id = created(s).await?;
    let result = ok(
        runs.write_artifact(&id, Artifact::Result, b"{\"big\":1}").await,
        "write result",
    )?;
    ensure!(result.as_str() == "result", "result ref {:?}", result.as_str());
    let transcript = ok(
        runs.write_artifact(&id, Artifact::Transcript { call: "3.1" }, b"{\"t\":1}")
            .await,
        "write transcript",
    )?;
    ensure!(
        transcript.as_str() == "transcripts/3.1",
        "transcript ref {:?}",
        transcript.as_str()
    );
    ensure!(
        ok(runs.read_artifact(&id, &result).await, "read result")? == b"{\"big\":1}",
        "result bytes differ"
    );
    ok(
        runs.write_artifact(&id, Artifact::Result, b"{\"big\":2}").await,
        "replace result",
    )?;
    ensure!(
        ok(runs.read_artifact(&id, &result).await, "read replaced result")? == b"{\"big\":2}",
        "a second write replaces the artifact"
    );
    ensure!(
        ok(runs.read_artifact(&id, &transcript).await, "read transcript")? == b"{\"t\":1}",
        "transcript bytes differ"
    );
    let missing = ArtifactRef::of(Artifact::Transcript { call: "9" }).map_err(|e| e.to_string())?;
    fails_with(
        runs.read_artifact(&id, &missing).await,
        ErrorCode::NotFound,
        "an artifact never written",
    )?;
    fails_with(
        runs.write_artifact(&id, Artifact::Transcript { call: "../x" }, b"{}")
            .await,
        ErrorCode::InvalidName,
        "a transcript with an unsafe call id",
    )?;
    Ok(Verdict::Pass)
}
