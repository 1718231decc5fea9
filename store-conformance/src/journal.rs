//! `JournalSink` and `Claim`: append order and seqs, conflicts, reading
//! after a seq, torn and damaged tails, exclusive claims, fencing.

use crate::{Check, Outcome, Subject, Verdict, created, ensure, fails_with, ok};
use hwf_core::error::ErrorCode;
use hwf_core::journal::{Entry, JournalEntry};
use hwf_core::store::{Artifact, ArtifactRef, Claim, JournalSink, SaveMode};

pub(crate) const CHECKS: [(&str, Check); 11] = [
    ("journal: appends get consecutive seqs and read back in order", |s| {
        Box::pin(order(s))
    }),
    ("journal: an append at a wrong seq is refused and writes nothing", |s| {
        Box::pin(wrong_seq(s))
    }),
    ("journal: entries(after_seq) returns only later entries", |s| {
        Box::pin(after(s))
    }),
    (
        "journal: a torn last line is no entry and is cut before the next append",
        |s| Box::pin(torn(s)),
    ),
    ("journal: a damaged line before the end is corrupt_store", |s| {
        Box::pin(damaged(s))
    }),
    ("claim: exclusive while held, free after drop and after release", |s| {
        Box::pin(exclusive(s))
    }),
    ("claim: each claim's fencing token is greater than the last", |s| {
        Box::pin(tokens(s))
    }),
    ("claim: a released claim's sink and snapshot writes are fenced", |s| {
        Box::pin(fenced(s))
    }),
    ("claim: exclusive across two handles on the same data", |s| {
        Box::pin(two_handles(s))
    }),
    (
        "journal: payload chunks are kept once by content, and a line's payload ref reads back through them",
        |s| Box::pin(payload_chunks(s)),
    ),
    (
        "claim: an artifact written under a released or superseded claim is refused",
        |s| Box::pin(fenced_artifact(s)),
    ),
];

/// A large request kept by content: its chunks stored once (a prompt that
/// extends it adds only its own), found by id through this handle and the
/// other, and the journal line naming its root read back as written.
async fn payload_chunks(s: &Subject) -> Outcome {
    use hwf_core::payload::{ChunkId, split};
    let blobs = &s.stores.blobs;
    let prompt: String = (0..20_000u32)
        .map(|i| format!("{} ", i.wrapping_mul(2_654_435_761) % 9973))
        .collect();
    let request = serde_json::json!({"agent": "a", "prompt": prompt});
    let text = serde_json::to_vec(&request).map_err(|e| e.to_string())?;
    let (root, chunks) = split(&text);
    let total: u64 = chunks.iter().map(|c| c.bytes.len() as u64).sum();
    let added = ok(blobs.put_chunks(&chunks).await, "put_chunks")?;
    ensure!(added == total, "put_chunks said {added} new bytes, not {total}");
    ensure!(
        ok(blobs.put_chunks(&chunks).await, "put_chunks again")? == 0,
        "putting the same chunks again stored bytes"
    );
    let ids: Vec<ChunkId> = chunks.iter().map(|c| c.id).collect();
    let got = ok(blobs.get_chunks(&ids).await, "get_chunks")?;
    ensure!(
        got.iter().zip(&chunks).all(|(g, c)| *g == c.bytes) && got.len() == chunks.len(),
        "get_chunks returned other bytes"
    );
    let never = ChunkId::of(b"never put");
    let held = ok(blobs.has_chunks(&[ids[0], never]).await, "has_chunks")?;
    ensure!(held == [true, false], "has_chunks said {held:?}");
    fails_with(
        blobs.get_chunks(&[ids[0], never]).await,
        ErrorCode::NotFound,
        "a chunk never put",
    )?;
    // A prompt that extends this one shares all but its last chunks.
    let longer = serde_json::json!({"agent": "a", "prompt": format!("{prompt} and one more answer")});
    let (_, more) = split(&serde_json::to_vec(&longer).map_err(|e| e.to_string())?);
    let extra = ok(blobs.put_chunks(&more).await, "put the longer prompt")?;
    ensure!(
        extra * 4 < total,
        "the longer prompt stored {extra} of {total} bytes again"
    );
    if let Some(other) = &s.other {
        let seen = ok(
            other.blobs.get_chunks(&ids).await,
            "get_chunks through the other handle",
        )?;
        ensure!(seen == got, "the other handle reads other chunk bytes");
    }
    // The journal keeps the ref as written; resolving it gives the request.
    let (id, _claim, mut sink) = claimed(s).await?;
    let entry = JournalEntry {
        seq: 1,
        ts_ms: 1_700_000_000_001,
        entry: Entry::CallStarted {
            call: "1".into(),
            kind: "agent".into(),
            label: None,
            phase: None,
            fingerprint: "b3:00".into(),
            request: serde_json::json!({"agent": "a"}),
            request_ref: Some(root),
        },
    };
    ok(
        sink.append(1, std::slice::from_ref(&entry)).await,
        "append a line with a payload ref",
    )?;
    let mut read = ok(s.stores.runs.entries(&id, 0).await, "entries")?;
    ensure!(read == [entry], "the line read back differently: {read:?}");
    // The store's chunks as read above, by id (resolving is synchronous).
    let kept: std::collections::HashMap<ChunkId, Vec<u8>> = ids.iter().copied().zip(got).collect();
    let mut get = |ids: &[ChunkId]| -> hwf_core::error::Result<Vec<Vec<u8>>> {
        ids.iter()
            .map(|id| {
                kept.get(id)
                    .cloned()
                    .ok_or_else(|| hwf_core::error::Error::new(ErrorCode::NotFound, id.to_hex()))
            })
            .collect()
    };
    let mut resolved = read.remove(0);
    ok(
        resolved.resolve(&mut get).map_err(hwf_core::store::StoreError::from),
        "resolve",
    )?;
    match &resolved.entry {
        Entry::CallStarted {
            request: r,
            request_ref: None,
            ..
        } => {
            ensure!(*r == request, "the resolved request differs");
        }
        other => return Err(format!("resolved to {other:?}")),
    }
    Ok(Verdict::Pass)
}

fn phase(seq: u64, title: &str) -> JournalEntry {
    JournalEntry {
        seq,
        ts_ms: 1_700_000_000_000 + seq,
        entry: Entry::Phase { title: title.into() },
    }
}

fn line(seq: u64, title: &str) -> Vec<u8> {
    let mut v = serde_json::to_vec(&phase(seq, title)).unwrap_or_default();
    v.push(b'\n');
    v
}

async fn claimed(s: &Subject) -> Result<(hwf_core::ids::RunId, Box<dyn Claim>, Box<dyn JournalSink>), String> {
    let id = created(s).await?;
    let claim = ok(s.stores.runs.claim(&id).await, "claim")?.ok_or("a new run's claim is free")?;
    let sink = ok(s.stores.runs.open_journal(claim.as_ref()).await, "open_journal")?;
    Ok((id, claim, sink))
}

fn seqs(entries: &[JournalEntry]) -> Vec<u64> {
    entries.iter().map(|e| e.seq).collect()
}

async fn order(s: &Subject) -> Outcome {
    let (id, _claim, mut sink) = claimed(s).await?;
    ensure!(
        sink.next_seq() == 1,
        "an empty journal's next seq is {}",
        sink.next_seq()
    );
    let batch = [phase(1, "a"), phase(2, "b"), phase(3, "c")];
    let last = ok(sink.append(1, &batch).await, "append 1..3")?;
    ensure!(
        last == 3 && sink.next_seq() == 4,
        "append returned {last}, next {}",
        sink.next_seq()
    );
    let mut lines = line(4, "d");
    lines.extend(line(5, "e"));
    let last = ok(sink.append_lines(4, &lines).await, "append_lines 4..5")?;
    ensure!(
        last == 5 && sink.next_seq() == 6,
        "append_lines returned {last}, next {}",
        sink.next_seq()
    );
    ok(sink.sync().await, "sync")?;
    let read = ok(s.stores.runs.entries(&id, 0).await, "entries")?;
    let titles: Vec<String> = read
        .iter()
        .map(|e| match &e.entry {
            Entry::Phase { title } => title.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    ensure!(seqs(&read) == [1, 2, 3, 4, 5], "seqs {:?}", seqs(&read));
    ensure!(titles == ["a", "b", "c", "d", "e"], "order {titles:?}");
    ensure!(read[0] == batch[0], "an entry reads back equal: {:?}", read[0]);
    // A sink opened again continues after the last entry.
    drop(sink);
    let again = ok(s.stores.runs.open_journal(_claim.as_ref()).await, "reopen")?;
    ensure!(
        again.next_seq() == 6,
        "a reopened sink's next seq is {}",
        again.next_seq()
    );
    Ok(Verdict::Pass)
}

async fn wrong_seq(s: &Subject) -> Outcome {
    let (id, _claim, mut sink) = claimed(s).await?;
    ok(sink.append(1, &[phase(1, "a")]).await, "append 1")?;
    for expected in [1, 3, 0] {
        let r = sink.append(expected, &[phase(expected, "x")]).await;
        fails_with(
            r,
            ErrorCode::Conflict,
            &format!("append at seq {expected} when next is 2"),
        )?;
        fails_with(
            sink.append_lines(expected, &line(expected, "x")).await,
            ErrorCode::Conflict,
            &format!("append_lines at seq {expected}"),
        )?;
    }
    // Entries whose own seqs are out of line are refused too.
    fails_with(
        sink.append(2, &[phase(2, "b"), phase(4, "d")]).await,
        ErrorCode::Conflict,
        "entries with a gap",
    )?;
    ensure!(
        sink.next_seq() == 2,
        "refused appends moved next_seq to {}",
        sink.next_seq()
    );
    let read = ok(s.stores.runs.entries(&id, 0).await, "entries")?;
    ensure!(seqs(&read) == [1], "refused appends wrote {:?}", seqs(&read));
    Ok(Verdict::Pass)
}

async fn after(s: &Subject) -> Outcome {
    let (id, _claim, mut sink) = claimed(s).await?;
    let batch: Vec<JournalEntry> = (1..=6).map(|i| phase(i, "p")).collect();
    ok(sink.append(1, &batch).await, "append")?;
    for (after, want) in [(0, vec![1, 2, 3, 4, 5, 6]), (4, vec![5, 6]), (6, vec![]), (99, vec![])] {
        let read = ok(s.stores.runs.entries(&id, after).await, "entries")?;
        ensure!(seqs(&read) == want, "entries after {after}: {:?}", seqs(&read));
    }
    Ok(Verdict::Pass)
}

async fn torn(s: &Subject) -> Outcome {
    let Some(damage) = &s.damage else {
        return Ok(Verdict::Skip("the store cannot hold a torn write".into()));
    };
    let (id, claim, mut sink) = claimed(s).await?;
    ok(sink.append(1, &[phase(1, "a"), phase(2, "b")]).await, "append")?;
    ok(sink.sync().await, "sync")?;
    drop(sink);
    // A crash in the middle of writing line 3.
    let full = line(3, "torn");
    damage.append_raw_journal(&id, &full[..full.len() / 2]);
    let read = ok(s.stores.runs.entries(&id, 0).await, "entries with a torn tail")?;
    ensure!(seqs(&read) == [1, 2], "a torn tail read as {:?}", seqs(&read));
    // A complete but unterminated line is torn as well.
    let mut sink = ok(s.stores.runs.open_journal(claim.as_ref()).await, "reopen")?;
    ensure!(
        sink.next_seq() == 3,
        "after a torn tail the next seq is {}",
        sink.next_seq()
    );
    ok(sink.append(3, &[phase(3, "c")]).await, "append after repair")?;
    drop(sink);
    damage.append_raw_journal(&id, &full[..full.len() - 1]);
    let read = ok(s.stores.runs.entries(&id, 0).await, "entries")?;
    ensure!(
        seqs(&read) == [1, 2, 3],
        "after repair and a new torn tail: {:?}",
        seqs(&read)
    );
    Ok(Verdict::Pass)
}

async fn damaged(s: &Subject) -> Outcome {
    let Some(damage) = &s.damage else {
        return Ok(Verdict::Skip("the store cannot hold a damaged line".into()));
    };
    let (id, _claim, mut sink) = claimed(s).await?;
    ok(sink.append(1, &[phase(1, "a")]).await, "append")?;
    drop(sink);
    damage.append_raw_journal(&id, b"{not json}\n");
    damage.append_raw_journal(&id, &line(3, "after"));
    fails_with(
        s.stores.runs.entries(&id, 0).await,
        ErrorCode::CorruptStore,
        "entries over a damaged line",
    )?;
    // An unknown event type in a complete line is damage too.
    let id2 = created(s).await?;
    damage.append_raw_journal(&id2, b"{\"seq\":1,\"ts_ms\":1,\"type\":\"teleported\"}\n");
    damage.append_raw_journal(&id2, &line(2, "after"));
    fails_with(
        s.stores.runs.entries(&id2, 0).await,
        ErrorCode::CorruptStore,
        "an unknown type",
    )?;
    Ok(Verdict::Pass)
}

async fn exclusive(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let id = created(s).await?;
    ensure!(
        !ok(runs.is_claimed(&id).await, "is_claimed")?,
        "a new run is not claimed"
    );
    let claim = ok(runs.claim(&id).await, "claim")?.ok_or("a new run's claim is free")?;
    ensure!(
        claim.fence().run() == &id,
        "the claim names run {}",
        claim.fence().run()
    );
    ok(claim.check().await, "check a held claim")?;
    ensure!(ok(runs.is_claimed(&id).await, "is_claimed")?, "a held claim is claimed");
    ensure!(
        ok(runs.claim(&id).await, "second claim")?.is_none(),
        "a second claim while held"
    );
    // Another run is not affected.
    let other = created(s).await?;
    ensure!(
        ok(runs.claim(&other).await, "claim another run")?.is_some(),
        "claims are per run"
    );
    drop(claim);
    ensure!(!ok(runs.is_claimed(&id).await, "is_claimed")?, "free after drop");
    let again = ok(runs.claim(&id).await, "claim after drop")?.ok_or("the claim is free after drop")?;
    ok(again.release().await, "release")?;
    ensure!(!ok(runs.is_claimed(&id).await, "is_claimed")?, "free after release");
    ensure!(
        ok(runs.claim(&id).await, "claim after release")?.is_some(),
        "free after release"
    );
    Ok(Verdict::Pass)
}

async fn tokens(s: &Subject) -> Outcome {
    let id = created(s).await?;
    let mut last = None;
    for _ in 0..4 {
        let claim = ok(s.stores.runs.claim(&id).await, "claim")?.ok_or("free")?;
        let token = claim.fence().token();
        if let Some(prev) = last {
            ensure!(token > prev, "token {token} after {prev}");
        }
        last = Some(token);
    }
    Ok(Verdict::Pass)
}

async fn fenced(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let (id, claim, mut sink) = claimed(s).await?;
    let mut snap = ok(runs.load(&id).await, "load")?;
    snap.phase = Some("owned".into());
    ok(
        runs.save(&snap, SaveMode::Durable, Some(claim.as_ref())).await,
        "save under the claim",
    )?;
    ok(sink.append(1, &[phase(1, "a")]).await, "append under the claim")?;
    let fence = claim.fence().clone();
    drop(claim);
    ensure!(!fence.is_held(), "a dropped claim's fence still reads held");
    fails_with(
        sink.append(2, &[phase(2, "late")]).await,
        ErrorCode::Conflict,
        "append after release",
    )?;
    fails_with(
        sink.append_lines(2, &line(2, "late")).await,
        ErrorCode::Conflict,
        "append_lines after release",
    )?;
    let read = ok(runs.entries(&id, 0).await, "entries")?;
    ensure!(seqs(&read) == [1], "a fenced append wrote: {:?}", seqs(&read));
    // A newer claim fences the snapshot writes of an older one.
    fails_with(
        runs.open_journal(&StaleClaim(fence.clone())).await.map(|_| ()),
        ErrorCode::Conflict,
        "open_journal with a released claim",
    )?;
    let newer = ok(runs.claim(&id).await, "claim again")?.ok_or("free")?;
    // The old owner, paused past its claim, still believes it holds it.
    let stale = StaleClaim(hwf_core::store::Fence::new(id.clone(), fence.token()));
    fails_with(
        runs.open_journal(&stale).await.map(|_| ()),
        ErrorCode::Conflict,
        "open_journal with a superseded claim",
    )?;
    snap.phase = Some("stale".into());
    fails_with(
        runs.save(&snap, SaveMode::Durable, Some(&stale)).await,
        ErrorCode::Conflict,
        "save under a stale claim",
    )?;
    let loaded = ok(runs.load(&id).await, "load")?;
    ensure!(
        loaded.phase.as_deref() == Some("owned"),
        "a fenced save wrote {:?}",
        loaded.phase
    );
    ok(
        runs.save(&snap, SaveMode::Durable, Some(newer.as_ref())).await,
        "save under the new claim",
    )?;
    Ok(Verdict::Pass)
}

async fn fenced_artifact(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let id = created(s).await?;
    let transcript = Artifact::Transcript { call: "3" };
    let claim = ok(runs.claim(&id).await, "claim")?.ok_or("a new run's claim is free")?;
    let r = ok(
        runs.write_artifact_fenced(claim.as_ref(), transcript, b"owner").await,
        "write under the claim",
    )?;
    let want = ArtifactRef::of(transcript).map_err(|e| e.to_string())?;
    ensure!(r == want, "the ref {} of a transcript", r.as_str());
    let fence = claim.fence().clone();
    drop(claim);
    fails_with(
        runs.write_artifact_fenced(&StaleClaim(fence.clone()), transcript, b"released")
            .await,
        ErrorCode::Conflict,
        "write under a released claim",
    )?;
    let newer = ok(runs.claim(&id).await, "claim again")?.ok_or("free")?;
    ok(
        runs.write_artifact_fenced(newer.as_ref(), transcript, b"new owner")
            .await,
        "write under the new claim",
    )?;
    // The old owner, paused past its claim, still believes it holds it.
    let stale = StaleClaim(hwf_core::store::Fence::new(id.clone(), fence.token()));
    fails_with(
        runs.write_artifact_fenced(&stale, transcript, b"stale").await,
        ErrorCode::Conflict,
        "write under a superseded claim",
    )?;
    let read = ok(runs.read_artifact(&id, &r).await, "read")?;
    ensure!(
        read == b"new owner",
        "a fenced write replaced the artifact: {:?}",
        String::from_utf8_lossy(&read)
    );
    let unknown = StaleClaim(hwf_core::store::Fence::new(hwf_core::ids::RunId::generate(), 1));
    fails_with(
        runs.write_artifact_fenced(&unknown, transcript, b"x").await,
        ErrorCode::NotFound,
        "write to an unknown run",
    )?;
    Ok(Verdict::Pass)
}

/// A claim value carrying an old fence, as a paused owner would still hold.
#[derive(Debug)]
struct StaleClaim(hwf_core::store::Fence);

#[hwf_core::store::async_trait]
impl Claim for StaleClaim {
    fn fence(&self) -> &hwf_core::store::Fence {
        &self.0
    }
    async fn check(&self) -> hwf_core::store::StoreResult<()> {
        self.0.check()
    }
    async fn release(self: Box<Self>) -> hwf_core::store::StoreResult<()> {
        Ok(())
    }
}

async fn two_handles(s: &Subject) -> Outcome {
    let Some(other) = &s.other else {
        return Ok(Verdict::Skip("the backend opens no second handle".into()));
    };
    let id = created(s).await?;
    let claim = ok(s.stores.runs.claim(&id).await, "claim")?.ok_or("free")?;
    ensure!(
        ok(other.runs.is_claimed(&id).await, "other is_claimed")?,
        "the other handle sees the claim"
    );
    ensure!(
        ok(other.runs.claim(&id).await, "other claim")?.is_none(),
        "the other handle claimed a held run"
    );
    let token = claim.fence().token();
    drop(claim);
    let theirs = ok(other.runs.claim(&id).await, "other claim after drop")?.ok_or("free after drop")?;
    ensure!(
        theirs.fence().token() > token,
        "the other handle's token {} after {token}",
        theirs.fence().token()
    );
    ensure!(
        ok(s.stores.runs.claim(&id).await, "claim back")?.is_none(),
        "claimed while the other holds it"
    );
    Ok(Verdict::Pass)
}
