//! Copying a whole store into another through the store traits only
//! (`hwf store export` / `hwf store import`): file ↔ file, file ↔
//! PostgreSQL, PostgreSQL ↔ PostgreSQL.
//!
//! What is copied, in this order (so a runner on the target never sees a
//! run whose script is missing):
//!
//! 1. **scripts**: every name with every version and its meta, under the
//!    same version numbers ([`ScriptCatalog::save`] numbers them, so the
//!    versions are saved in order; a source whose numbers have a gap, or a
//!    target whose version `n` holds other bytes, is a `conflict`);
//! 2. **events**: every external event, in order ([`EventLog::append`] is
//!    idempotent by source + id; the target gives them its own versions);
//! 3. **runs**, each with the blob of the script its snapshot runs from a
//!    file or inline (by its digest, as a shared store keeps it for
//!    runners on other machines: from the source's [`BlobStore`], else from
//!    the file itself when it is on this machine with that digest), its
//!    snapshot ([`RunStore::create`]), its journal, its controls and its
//!    artifacts (the spilled result when the snapshot names one; the
//!    transcript of every agent call the journal completed).
//!
//! The journal is the record and is never rewritten: the target run is
//! claimed, its journal opened under that claim and the source's entries
//! appended with their own seqs (`expected_seq` 1, 2, …), then synced. The
//! controls and artifacts are copied under the same claim, so a runner on
//! the target sees the run whole once the claim is released. The snapshot
//! is copied as it is (it still names the source's paths, such as an
//! inline script's file: the host resolves those on the machine that
//! wrote them).
//!
//! **Idempotent.** A second transfer copies nothing twice: a run present in
//! the target with the same journal is skipped (its missing controls and
//! artifacts are still added, so an interrupted copy is completed); one
//! whose target journal is a prefix of the source's and whose snapshot is
//! the source's (a copy interrupted after its snapshot) gets the rest of
//! its journal; any other difference is a typed `conflict` naming the run,
//! and nothing is overwritten. Conflicts are looked for before anything is
//! written: a transfer that finds one writes nothing.
//!
//! **Runs being executed are skipped, with a warning, and counted.** A run
//! that someone holds the claim of in the source (it is executing) is not
//! copied: it is listed in [`TransferReport::refused`] with the reason,
//! and the rest is copied (run the transfer again once it ended or parked;
//! the CLI exits 1 while any run was refused). A run that has not ended is
//! claimed in the source while it is copied, so no executor can start it
//! half-way through the copy.

use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::journal::{Entry, JournalEntry};
use hwf_core::lang::Language;
use hwf_core::model::RunSnapshot;
use hwf_core::payload::ChunkId;
use hwf_core::store::{
    Artifact, ArtifactRef, BlobRef, BlobStore, Claim, EventLog, RunStore, ScriptCatalog, StoreError, blob_ext,
};
use serde::Serialize;
use std::collections::HashSet;
use std::path::Path;

/// The roles a transfer reads or writes, each a trait object: one store
/// implementing them all ([`StoreRefs::of`]: the file store, the
/// PostgreSQL store) or a shared store's separate parts.
#[derive(Clone, Copy)]
pub struct StoreRefs<'a> {
    /// Runs, journals, claims, controls, artifacts.
    pub runs: &'a dyn RunStore,
    /// Saved scripts.
    pub scripts: &'a dyn ScriptCatalog,
    /// External events.
    pub events: &'a dyn EventLog,
    /// Inline script blobs.
    pub blobs: &'a dyn BlobStore,
}

impl<'a> StoreRefs<'a> {
    /// Every role from one store.
    pub fn of<T: RunStore + ScriptCatalog + EventLog + BlobStore>(store: &'a T) -> Self {
        Self {
            runs: store,
            scripts: store,
            events: store,
            blobs: store,
        }
    }
}

impl std::fmt::Debug for StoreRefs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreRefs").finish_non_exhaustive()
    }
}

/// Journal entries appended per call.
const CHUNK: usize = 512;

/// How many of one kind were copied and how many were already there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Written to the target.
    pub copied: u64,
    /// Already in the target, left as they were.
    pub skipped: u64,
}

/// A run the transfer left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refused {
    /// The run.
    pub run: String,
    /// Why (it is executing in the source).
    pub reason: String,
}

/// What a transfer did, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TransferReport {
    /// Runs (a run whose interrupted copy was completed counts as copied).
    pub runs: Tally,
    /// Journal entries.
    pub journal_entries: Tally,
    /// Operator controls.
    pub controls: Tally,
    /// Artifacts (spilled results, transcripts).
    pub artifacts: Tally,
    /// Script versions.
    pub script_versions: Tally,
    /// External events.
    pub events: Tally,
    /// Inline script blobs.
    pub blobs: Tally,
    /// Journal payload chunks (large requests and results, kept by
    /// content): a chunk the target holds is not read from the source, and
    /// a node it holds is not walked (its subtree is there).
    pub payload_chunks: Tally,
    /// Runs left out because they are executing in the source.
    pub refused: Vec<Refused>,
    /// Things copied as well as could be (a blob the source does not hold,
    /// an artifact the target holds another version of).
    pub warnings: Vec<String>,
}

impl TransferReport {
    /// Whether everything was copied or already present (nothing refused).
    pub fn complete(&self) -> bool {
        self.refused.is_empty()
    }
}

/// Copy everything in `from` into `to` (see the module docs).
///
/// # Errors
///
/// `conflict` naming the runs or scripts the target holds differently
/// (then nothing was written), or when a target run is claimed by someone
/// else during its copy; the stores' errors (`io`, `corrupt_store`, …).
pub async fn transfer(from: StoreRefs<'_>, to: StoreRefs<'_>) -> Result<TransferReport> {
    let ids = from.runs.list().await?;
    let names = from.scripts.names().await?;
    // Look for every conflict before writing anything.
    let mut conflicts = Vec::new();
    for name in &names {
        if let Err(e) = plan_script(from, to, name).await {
            if e.code() != ErrorCode::Conflict {
                return Err(e);
            }
            conflicts.push(e.message().to_owned());
        }
    }
    for id in &ids {
        if to.runs.load(id).await.is_err_and(|e| e.code() == ErrorCode::NotFound) {
            continue;
        }
        let snap = from.runs.load(id).await?;
        let entries = from.runs.entries(id, 0).await?;
        if let RunPlan::Conflict(why) = plan_run(to, &snap, &entries).await? {
            conflicts.push(why);
        }
    }
    if !conflicts.is_empty() {
        let shown: Vec<&str> = conflicts.iter().take(5).map(String::as_str).collect();
        let more = conflicts.len().saturating_sub(shown.len());
        return Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "the target holds {} thing(s) differently, nothing was copied: {}{}",
                conflicts.len(),
                shown.join("; "),
                if more > 0 {
                    format!("; and {more} more")
                } else {
                    String::new()
                }
            ),
        ));
    }

    let mut report = TransferReport::default();
    for name in &names {
        copy_script(from, to, name, &mut report).await?;
    }
    for event in from.events.since(0).await? {
        let (_, inserted) = to.events.append(event).await?;
        count(&mut report.events, inserted);
    }
    let mut blobs_done = HashSet::new();
    for id in &ids {
        copy_run(from, to, id, &mut blobs_done, &mut report).await?;
    }
    Ok(report)
}

fn count(t: &mut Tally, copied: bool) {
    if copied {
        t.copied += 1;
    } else {
        t.skipped += 1;
    }
}

fn conflict(message: String) -> Error {
    Error::new(ErrorCode::Conflict, message)
}

fn is_not_found(e: &StoreError) -> bool {
    e.code() == ErrorCode::NotFound
}

/// The target's versions of `name` (none when it has no such script).
async fn target_versions(to: StoreRefs<'_>, name: &str) -> Result<Vec<u32>> {
    match to.scripts.versions(name).await {
        Ok(v) => Ok(v),
        Err(e) if is_not_found(&e) => Ok(Vec::new()),
        Err(e) => Err(e.into()),
    }
}

/// The source versions of `name` the target lacks, checked to keep their
/// numbers: `conflict` when a version both hold differs, or when a lacking
/// version would get another number in the target.
async fn plan_script(from: StoreRefs<'_>, to: StoreRefs<'_>, name: &str) -> Result<Vec<u32>> {
    let source = from.scripts.versions(name).await?;
    let target = target_versions(to, name).await?;
    let mut last = target.last().copied().unwrap_or(0);
    let mut missing = Vec::new();
    for v in source {
        if target.contains(&v) {
            let (a, b) = (
                from.scripts.meta(name, Some(v)).await?,
                to.scripts.meta(name, Some(v)).await?,
            );
            if a.digest != b.digest || a.language != b.language {
                return Err(conflict(format!(
                    "script {name:?} v{v} is {} in the source and {} in the target",
                    a.digest, b.digest
                )));
            }
        } else if v == last + 1 {
            missing.push(v);
            last = v;
        } else {
            return Err(conflict(format!(
                "script {name:?} v{v} would be saved as v{} in the target (its versions are {})",
                last + 1,
                if target.is_empty() {
                    "none".to_owned()
                } else {
                    format!("up to v{}", target.last().copied().unwrap_or(0))
                }
            )));
        }
    }
    Ok(missing)
}

async fn copy_script(from: StoreRefs<'_>, to: StoreRefs<'_>, name: &str, report: &mut TransferReport) -> Result<()> {
    let source = from.scripts.versions(name).await?;
    let missing = plan_script(from, to, name).await?;
    report.script_versions.skipped += (source.len() - missing.len()) as u64;
    for v in missing {
        let meta = from.scripts.meta(name, Some(v)).await?;
        let bytes = from.scripts.bytes(name, v).await?;
        let saved = to.scripts.save(name, &bytes, meta, true).await?;
        if saved.version != v {
            return Err(conflict(format!(
                "script {name:?} v{v} was saved as v{} in the target (someone saved it meanwhile)",
                saved.version
            )));
        }
        report.script_versions.copied += 1;
    }
    Ok(())
}

/// What to do with one run.
#[derive(Debug, PartialEq)]
enum RunPlan {
    /// Not in the target.
    Copy,
    /// The target holds the first `have` entries and the same snapshot: a
    /// copy that was interrupted.
    Finish {
        /// Entries the target holds.
        have: usize,
    },
    /// The target holds the same journal.
    Present,
    /// The target holds it differently.
    Conflict(String),
}

async fn plan_run(to: StoreRefs<'_>, snap: &RunSnapshot, entries: &[JournalEntry]) -> Result<RunPlan> {
    let id = &snap.run_id;
    let there = match to.runs.load(id).await {
        Ok(s) => s,
        Err(e) if is_not_found(&e) => return Ok(RunPlan::Copy),
        Err(e) => return Err(e.into()),
    };
    let theirs = to.runs.entries(id, 0).await?;
    Ok(if theirs.len() == entries.len() {
        if theirs == entries {
            RunPlan::Present
        } else {
            RunPlan::Conflict(format!(
                "run {id}: the target's journal has the same length ({}) but other entries",
                theirs.len()
            ))
        }
    } else if theirs.len() < entries.len() && entries.starts_with(&theirs) && there == *snap {
        RunPlan::Finish { have: theirs.len() }
    } else {
        RunPlan::Conflict(format!(
            "run {id}: its journal has {} entries in the target and {} in the source",
            theirs.len(),
            entries.len()
        ))
    })
}

/// The blob a run's script is kept as: its digest in its language (a
/// shared store keeps a run's script file so, for runners on other
/// machines; an inline script is kept so in every store). A saved
/// script is in the catalog instead.
fn script_blob(snap: &RunSnapshot) -> Option<(BlobRef, Language)> {
    if snap.script.name.is_some() || snap.script.path.is_none() {
        return None;
    }
    let language = Language::parse(&snap.script.language).ok()?;
    let hex = snap.script.digest.strip_prefix("b3:")?;
    let blob = BlobRef::parse(&format!("{hex}.{}", blob_ext(language))).ok()?;
    Some((blob, language))
}

/// The largest script file read from this machine for a run's blob.
const MAX_SCRIPT_FILE: u64 = 256 << 20;

/// The bytes of the run's script file on this machine, when they are the
/// ones the run recorded.
fn script_file(snap: &RunSnapshot, blob: &BlobRef, language: Language) -> Option<Vec<u8>> {
    let path = Path::new(snap.script.path.as_deref()?);
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SCRIPT_FILE {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    (BlobRef::of(&bytes, language) == *blob).then_some(bytes)
}

/// Copy the run's script blob: from the source's blobs, else from its file
/// on this machine (a file store keeps no copy of a script run from a
/// file), so a runner on another machine of the target can resolve it.
async fn copy_blob(
    from: StoreRefs<'_>,
    to: StoreRefs<'_>,
    snap: &RunSnapshot,
    (blob, language): (&BlobRef, Language),
    report: &mut TransferReport,
) -> Result<()> {
    match to.blobs.get(blob).await {
        Ok(_) => {
            report.blobs.skipped += 1;
            return Ok(());
        }
        Err(e) if is_not_found(&e) => {}
        Err(e) => return Err(e.into()),
    }
    let bytes = match from.blobs.get(blob).await {
        Ok(b) => b,
        Err(e) if is_not_found(&e) => match script_file(snap, blob, language) {
            Some(b) => b,
            None => {
                report.warnings.push(format!(
                    "run {}: its script {} is neither in the source's blobs nor on this machine with the run's \
                     digest; only a machine that has the file can continue it",
                    snap.run_id,
                    snap.script.path.as_deref().unwrap_or("")
                ));
                return Ok(());
            }
        },
        Err(e) => return Err(e.into()),
    };
    match to.blobs.put(&bytes, language).await {
        Ok(put) if put == *blob => {
            report.blobs.copied += 1;
            Ok(())
        }
        Ok(put) => Err(Error::new(
            ErrorCode::Internal,
            format!("blob {} was stored as {}", blob.as_str(), put.as_str()),
        )),
        // A script holding a credential is kept in no store.
        Err(e) if e.code() == ErrorCode::InvalidScript => {
            report
                .warnings
                .push(format!("run {}: its script was not copied: {e}", snap.run_id));
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

/// Take the source run's claim while it is copied (`Err` with the reason
/// when it is executing). An ended run is only checked, not claimed.
async fn hold_source(from: StoreRefs<'_>, id: &RunId) -> Result<std::result::Result<Option<Box<dyn Claim>>, String>> {
    let snap = from.runs.load(id).await?;
    if snap.state.is_terminal() {
        return Ok(if from.runs.is_claimed(id).await? {
            Err(format!("it is being finalized in the source ({})", snap.state.as_str()))
        } else {
            Ok(None)
        });
    }
    Ok(match from.runs.claim(id).await? {
        Some(c) => Ok(Some(c)),
        None => Err(format!(
            "it is executing in the source ({}); transfer again once it ended or parked",
            snap.state.as_str()
        )),
    })
}

async fn copy_run(
    from: StoreRefs<'_>,
    to: StoreRefs<'_>,
    id: &RunId,
    blobs_done: &mut HashSet<BlobRef>,
    report: &mut TransferReport,
) -> Result<()> {
    let source_claim = match hold_source(from, id).await? {
        Ok(c) => c,
        Err(reason) => {
            tracing::warn!(run = %id, "not copied: {reason}");
            report.refused.push(Refused {
                run: id.to_string(),
                reason,
            });
            return Ok(());
        }
    };
    let copied = copy_held(from, to, id, blobs_done, report).await;
    // Released whatever happened (a lease store would otherwise keep the
    // run from its runners until the lease expires).
    let released = match source_claim {
        Some(c) => c.release().await.map_err(Error::from),
        None => Ok(()),
    };
    copied.and(released)
}

/// [`copy_run`] once the source run is held.
async fn copy_held(
    from: StoreRefs<'_>,
    to: StoreRefs<'_>,
    id: &RunId,
    blobs_done: &mut HashSet<BlobRef>,
    report: &mut TransferReport,
) -> Result<()> {
    // Read under the claim: nothing changes it while it is copied.
    let snap = from.runs.load(id).await?;
    let entries = from.runs.entries(id, 0).await?;
    let plan = plan_run(to, &snap, &entries).await?;
    if let RunPlan::Conflict(why) = plan {
        return Err(conflict(why));
    }
    if let Some((blob, language)) = script_blob(&snap)
        && blobs_done.insert(blob.clone())
    {
        copy_blob(from, to, &snap, (&blob, language), report).await?;
    }
    let have = match plan {
        RunPlan::Copy => {
            to.runs.create(&snap).await?;
            Some(0)
        }
        RunPlan::Finish { have } => Some(have),
        RunPlan::Present | RunPlan::Conflict(_) => None,
    };
    let Some(have) = have else {
        // Present with the same journal: the run is the target's now (it
        // may be executing there); only its missing controls and
        // artifacts are added, which needs no claim.
        report.runs.skipped += 1;
        report.journal_entries.skipped += entries.len() as u64;
        return copy_rest(from, to, &snap, &entries, report).await;
    };
    let Some(claim) = to.runs.claim(id).await? else {
        return Err(conflict(format!(
            "run {id}: someone claimed it in the target while it was being copied"
        )));
    };
    // Under the target's claim, so a runner there sees the run whole.
    let copied = async {
        // The chunks first: a copied line never names a missing chunk.
        copy_payloads(from, to, &entries[have..], report).await?;
        append_journal(to, &*claim, &entries[have..]).await?;
        report.runs.copied += 1;
        report.journal_entries.copied += (entries.len() - have) as u64;
        report.journal_entries.skipped += have as u64;
        copy_rest(from, to, &snap, &entries, report).await
    }
    .await;
    let released = claim.release().await.map_err(Error::from);
    copied.and(released)
}

/// A run's controls and artifacts.
async fn copy_rest(
    from: StoreRefs<'_>,
    to: StoreRefs<'_>,
    snap: &RunSnapshot,
    entries: &[JournalEntry],
    report: &mut TransferReport,
) -> Result<()> {
    for control in from.runs.controls(&snap.run_id).await? {
        let added = to.runs.append_control(&snap.run_id, &control).await?;
        count(&mut report.controls, added);
    }
    copy_artifacts(from, to, snap, entries, report).await
}

/// Copy the payload chunks `entries` name that the target does not hold,
/// by reference: a tree is walked from its root, and a node the target
/// holds is skipped with its subtree (stores keep chunks children first,
/// so holding a node means holding what is under it). Chunks are put
/// children first too.
async fn copy_payloads(
    from: StoreRefs<'_>,
    to: StoreRefs<'_>,
    entries: &[JournalEntry],
    report: &mut TransferReport,
) -> Result<()> {
    let mut done: HashSet<ChunkId> = HashSet::new();
    for e in entries {
        for r in e.payload_refs() {
            // Nodes to visit: (id, is a node).
            let mut level = vec![r.b3];
            let mut is_node = true;
            // Chunks to put, level by level from the root; put in reverse.
            let mut found: Vec<Vec<hwf_core::payload::Chunk>> = Vec::new();
            while !level.is_empty() {
                level.retain(|id| done.insert(*id));
                if level.is_empty() {
                    break;
                }
                let held = to.blobs.has_chunks(&level).await?;
                let missing: Vec<ChunkId> = level.iter().zip(held).filter(|(_, h)| !h).map(|(id, _)| *id).collect();
                report.payload_chunks.skipped += (level.len() - missing.len()) as u64;
                if missing.is_empty() {
                    break;
                }
                let bytes = from.blobs.get_chunks(&missing).await?;
                let mut next = Vec::new();
                let mut chunks = Vec::with_capacity(missing.len());
                let mut leaves = false;
                for (id, b) in missing.into_iter().zip(bytes) {
                    if ChunkId::of(&b) != id {
                        return Err(Error::new(
                            ErrorCode::CorruptStore,
                            format!("journal payload chunk {id} in the source does not match its digest"),
                        ));
                    }
                    if is_node {
                        let (lvl, children) = hwf_core::payload::parse_node(&b)?;
                        leaves |= lvl == 1;
                        next.extend(children.into_iter().map(|c| c.0));
                    }
                    chunks.push(hwf_core::payload::Chunk { id, bytes: b });
                }
                found.push(chunks);
                if !is_node {
                    break;
                }
                is_node = !leaves;
                level = next;
            }
            for chunks in found.iter().rev() {
                to.blobs.put_chunks(chunks).await?;
                report.payload_chunks.copied += chunks.len() as u64;
            }
        }
    }
    Ok(())
}

/// Append `entries` (their own seqs) to the claimed target run's journal
/// and sync it.
async fn append_journal(to: StoreRefs<'_>, claim: &dyn Claim, entries: &[JournalEntry]) -> Result<()> {
    let mut sink = to.runs.open_journal(claim).await?;
    for chunk in entries.chunks(CHUNK) {
        let Some(first) = chunk.first() else { continue };
        if first.seq != sink.next_seq() {
            return Err(StoreError::SeqConflict {
                run: claim.fence().run().to_string(),
                expected: first.seq,
                next: sink.next_seq(),
            }
            .into());
        }
        sink.append(first.seq, chunk).await?;
    }
    sink.sync().await?;
    Ok(())
}

/// The artifacts a run's snapshot and journal refer to: its spilled
/// result, the transcript of each completed agent call.
fn artifact_refs(snap: &RunSnapshot, entries: &[JournalEntry]) -> Vec<ArtifactRef> {
    let mut refs = Vec::new();
    if snap.result_path.is_some()
        && let Ok(r) = ArtifactRef::of(Artifact::Result)
    {
        refs.push(r);
    }
    let mut seen = HashSet::new();
    for e in entries {
        if let Entry::CallCompleted { call, kind, .. } = &e.entry
            && kind == "agent"
            && seen.insert(call.as_str())
            && let Ok(r) = ArtifactRef::of(Artifact::Transcript { call })
        {
            refs.push(r);
        }
    }
    refs
}

async fn copy_artifacts(
    from: StoreRefs<'_>,
    to: StoreRefs<'_>,
    snap: &RunSnapshot,
    entries: &[JournalEntry],
    report: &mut TransferReport,
) -> Result<()> {
    let id = &snap.run_id;
    for r in artifact_refs(snap, entries) {
        let bytes = match from.runs.read_artifact(id, &r).await {
            Ok(b) => b,
            // A transcript is best effort (a replayed or cached call has none).
            Err(e) if is_not_found(&e) => {
                if r.artifact() == Artifact::Result {
                    report.warnings.push(format!(
                        "run {id}: its snapshot names a spilled result the source does not hold"
                    ));
                }
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        match to.runs.read_artifact(id, &r).await {
            Ok(theirs) if theirs == bytes => report.artifacts.skipped += 1,
            Ok(_) => {
                report.artifacts.skipped += 1;
                report.warnings.push(format!(
                    "run {id}: the target holds another {}, left as it is",
                    r.as_str()
                ));
            }
            Err(e) if is_not_found(&e) => {
                to.runs.write_artifact(id, r.artifact(), &bytes).await?;
                report.artifacts.copied += 1;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::FileStore;
    use hwf_core::control::{Action, Control};
    use hwf_core::journal::sketch;
    use hwf_core::model::{ExternalEvent, RunState, ScriptMeta, ScriptRef};
    use serde_json::json;

    fn meta(bytes: &[u8]) -> ScriptMeta {
        ScriptMeta {
            name: String::new(),
            version: 0,
            digest: format!("b3:{}", blake3::hash(bytes).to_hex()),
            size: bytes.len() as u64,
            language: "js".into(),
            saved_at_ms: 1,
            meta: json!({"name": "w"}),
            imports: Vec::new(),
        }
    }

    /// A store with one finished run (journal, control, result, a
    /// transcript, an inline blob), one parked run, two script versions and
    /// an event.
    async fn seeded(dir: &Path) -> (FileStore, RunId, RunId) {
        let store = FileStore::open(dir).expect("open");
        for v in [&b"export default 1"[..], b"export default 2"] {
            ScriptCatalog::save(&store, "w", v, meta(v), true).await.expect("save");
        }
        let blob = BlobStore::put(&store, b"export default 3", Language::Js)
            .await
            .expect("blob");
        EventLog::append(
            &store,
            ExternalEvent {
                version: 0,
                id: "e1".into(),
                source: "ci".into(),
                kind: "build.done".into(),
                subject: None,
                payload: json!({"ok": true}),
                ts_ms: 5,
                digest: None,
            },
        )
        .await
        .expect("event");
        let mut ids = Vec::new();
        for (state, n) in [(RunState::Succeeded, 3), (RunState::Waiting, 2)] {
            let script = ScriptRef {
                path: Some(dir.join("inline").join(blob.as_str()).display().to_string()),
                digest: format!("b3:{}", blake3::hash(b"export default 3").to_hex()),
                language: "js".into(),
                ..ScriptRef::default()
            };
            let mut snap = RunSnapshot::new(RunId::generate(), state, script, json!({"n": n}), None);
            RunStore::create(&store, &snap).await.expect("create");
            let mut sketches = vec![json!({"type": "run_started", "run_id": snap.run_id.as_str()})];
            for i in 1..=n {
                sketches.push(json!({"type": "call_started", "call": i.to_string(), "kind": "agent"}));
                sketches.push(json!({"type": "call_completed", "call": i.to_string(), "kind": "agent", "ok": true, "result": {"i": i}}));
                RunStore::write_artifact(
                    &store,
                    &snap.run_id,
                    Artifact::Transcript { call: &i.to_string() },
                    format!("{{\"call\": {i}}}").as_bytes(),
                )
                .await
                .expect("transcript");
            }
            let claim = RunStore::claim(&store, &snap.run_id)
                .await
                .expect("claim")
                .expect("free");
            let mut sink = RunStore::open_journal(&store, &*claim).await.expect("sink");
            sink.append(1, &sketch::entries(sketches)).await.expect("append");
            sink.sync().await.expect("sync");
            drop(sink);
            claim.release().await.expect("release");
            if state == RunState::Succeeded {
                RunStore::write_artifact(&store, &snap.run_id, Artifact::Result, b"{\"big\": true}")
                    .await
                    .expect("result");
                snap.result_path = Some(format!("runs/{}/result.json", snap.run_id));
                RunStore::save(&store, &snap, hwf_core::store::SaveMode::Durable, None)
                    .await
                    .expect("save");
            }
            RunStore::append_control(&store, &snap.run_id, &Control::new(Action::Pause, "alice"))
                .await
                .expect("control");
            ids.push(snap.run_id);
        }
        let waiting = ids.pop().expect("waiting");
        let done = ids.pop().expect("done");
        (store, done, waiting)
    }

    #[tokio::test]
    async fn a_file_store_is_copied_whole_and_a_second_copy_copies_nothing() {
        let (a, b) = (tempfile::tempdir().expect("tmp"), tempfile::tempdir().expect("tmp"));
        let (from, done, waiting) = seeded(a.path()).await;
        let to = FileStore::open(b.path()).expect("open");
        let report = transfer(StoreRefs::of(&from), StoreRefs::of(&to))
            .await
            .expect("transfer");
        assert_eq!(report.runs, Tally { copied: 2, skipped: 0 });
        assert_eq!(report.journal_entries, Tally { copied: 12, skipped: 0 });
        assert_eq!(report.controls, Tally { copied: 2, skipped: 0 });
        assert_eq!(report.artifacts, Tally { copied: 6, skipped: 0 }, "{report:?}");
        assert_eq!(report.script_versions, Tally { copied: 2, skipped: 0 });
        assert_eq!(report.events, Tally { copied: 1, skipped: 0 });
        assert_eq!(report.blobs, Tally { copied: 1, skipped: 0 }, "one blob for two runs");
        assert!(report.complete() && report.warnings.is_empty(), "{report:?}");

        for id in [&done, &waiting] {
            assert_eq!(
                RunStore::load(&to, id).await.expect("load"),
                RunStore::load(&from, id).await.expect("load")
            );
            assert_eq!(
                RunStore::entries(&to, id, 0).await.expect("entries"),
                RunStore::entries(&from, id, 0).await.expect("entries")
            );
            assert_eq!(
                RunStore::controls(&to, id).await.expect("controls"),
                RunStore::controls(&from, id).await.expect("controls")
            );
            let t = ArtifactRef::of(Artifact::Transcript { call: "2" }).expect("ref");
            assert_eq!(
                RunStore::read_artifact(&to, id, &t).await.expect("transcript"),
                b"{\"call\": 2}"
            );
            assert!(!RunStore::is_claimed(&to, id).await.expect("claimed"), "released");
            assert!(!RunStore::is_claimed(&from, id).await.expect("claimed"), "released");
        }
        let r = ArtifactRef::of(Artifact::Result).expect("ref");
        assert_eq!(
            RunStore::read_artifact(&to, &done, &r).await.expect("result"),
            b"{\"big\": true}"
        );
        assert_eq!(ScriptCatalog::versions(&to, "w").await.expect("versions"), vec![1, 2]);
        for v in [1, 2] {
            assert_eq!(
                ScriptCatalog::bytes(&to, "w", v).await.expect("bytes"),
                ScriptCatalog::bytes(&from, "w", v).await.expect("bytes")
            );
            assert_eq!(
                ScriptCatalog::meta(&to, "w", Some(v)).await.expect("meta"),
                ScriptCatalog::meta(&from, "w", Some(v)).await.expect("meta")
            );
        }
        let events = EventLog::since(&to, 0).await.expect("events");
        assert_eq!(events.len(), 1);
        assert_eq!((events[0].source.as_str(), events[0].id.as_str()), ("ci", "e1"));
        let blob = BlobRef::of(b"export default 3", Language::Js);
        assert_eq!(BlobStore::get(&to, &blob).await.expect("blob"), b"export default 3");

        // Again: nothing is copied twice.
        let again = transfer(StoreRefs::of(&from), StoreRefs::of(&to)).await.expect("again");
        assert_eq!(again.runs, Tally { copied: 0, skipped: 2 });
        assert_eq!(again.journal_entries, Tally { copied: 0, skipped: 12 });
        assert_eq!(again.controls, Tally { copied: 0, skipped: 2 });
        assert_eq!(again.artifacts, Tally { copied: 0, skipped: 6 });
        assert_eq!(again.script_versions, Tally { copied: 0, skipped: 2 });
        assert_eq!(again.events, Tally { copied: 0, skipped: 1 });
        assert_eq!(again.blobs, Tally { copied: 0, skipped: 1 });
        assert_eq!(RunStore::entries(&to, &done, 0).await.expect("entries").len(), 7);
        assert_eq!(EventLog::since(&to, 0).await.expect("events").len(), 1);
        assert_eq!(ScriptCatalog::versions(&to, "w").await.expect("versions"), vec![1, 2]);
    }

    #[tokio::test]
    async fn an_interrupted_copy_is_finished_and_a_different_journal_is_a_conflict() {
        let (a, b) = (tempfile::tempdir().expect("tmp"), tempfile::tempdir().expect("tmp"));
        let (from, done, waiting) = seeded(a.path()).await;
        let to = FileStore::open(b.path()).expect("open");
        // An interrupted copy: the snapshot and the first two entries.
        let snap = RunStore::load(&from, &done).await.expect("load");
        RunStore::create(&to, &snap).await.expect("create");
        let entries = RunStore::entries(&from, &done, 0).await.expect("entries");
        {
            let claim = RunStore::claim(&to, &done).await.expect("claim").expect("free");
            append_journal(StoreRefs::of(&to), &*claim, &entries[..2])
                .await
                .expect("append");
        }
        let report = transfer(StoreRefs::of(&from), StoreRefs::of(&to))
            .await
            .expect("finish");
        assert_eq!(report.runs, Tally { copied: 2, skipped: 0 });
        assert_eq!(report.journal_entries, Tally { copied: 10, skipped: 2 });
        assert_eq!(RunStore::entries(&to, &done, 0).await.expect("entries"), entries);

        // The target's run went on differently: a conflict naming it, and
        // nothing written (not even what would not conflict).
        let claim = RunStore::claim(&to, &waiting).await.expect("claim").expect("free");
        let mut sink = RunStore::open_journal(&to, &*claim).await.expect("sink");
        let next = sink.next_seq();
        let mut extra = sketch::entries(vec![json!({"type": "phase", "title": "later"})]);
        extra[0].seq = next;
        sink.append(next, &extra).await.expect("append");
        drop(sink);
        drop(claim);
        ScriptCatalog::save(&from, "w", b"export default 9", meta(b"export default 9"), true)
            .await
            .expect("v3");
        let before = RunStore::entries(&to, &waiting, 0).await.expect("entries");
        let e = transfer(StoreRefs::of(&from), StoreRefs::of(&to))
            .await
            .expect_err("conflict");
        assert_eq!(e.code(), ErrorCode::Conflict);
        assert!(e.message().contains(waiting.as_str()), "{e}");
        assert!(!e.message().contains(done.as_str()), "{e}");
        assert_eq!(RunStore::entries(&to, &waiting, 0).await.expect("entries"), before);
        assert_eq!(
            ScriptCatalog::versions(&to, "w").await.expect("versions"),
            vec![1, 2],
            "nothing is written when a conflict is found"
        );

        // A script version that differs is a conflict too.
        let c = tempfile::tempdir().expect("tmp");
        let other = FileStore::open(c.path()).expect("open");
        ScriptCatalog::save(&other, "w", b"export default 7", meta(b"export default 7"), false)
            .await
            .expect("save");
        let e = transfer(StoreRefs::of(&from), StoreRefs::of(&other))
            .await
            .expect_err("script conflict");
        assert_eq!(e.code(), ErrorCode::Conflict);
        assert!(e.message().contains("script \"w\" v1"), "{e}");
    }

    #[tokio::test]
    async fn a_run_from_a_file_takes_the_file_along_as_its_blob_when_it_is_the_one_it_ran() {
        let (a, b) = (tempfile::tempdir().expect("tmp"), tempfile::tempdir().expect("tmp"));
        let from = FileStore::open(a.path().join("state")).expect("open");
        let to = FileStore::open(b.path()).expect("open");
        let mut ids = Vec::new();
        for (file, ran) in [("same.js", "export default 4"), ("changed.js", "export default 5")] {
            let path = a.path().join(file);
            std::fs::write(&path, "export default 4").expect("write");
            let script = ScriptRef {
                path: Some(path.display().to_string()),
                digest: format!("b3:{}", blake3::hash(ran.as_bytes()).to_hex()),
                language: "js".into(),
                ..ScriptRef::default()
            };
            let snap = RunSnapshot::new(RunId::generate(), RunState::Queued, script, json!({}), None);
            RunStore::create(&from, &snap).await.expect("create");
            ids.push(snap.run_id);
        }
        let report = transfer(StoreRefs::of(&from), StoreRefs::of(&to))
            .await
            .expect("transfer");
        assert_eq!(report.runs.copied, 2);
        assert_eq!(report.blobs, Tally { copied: 1, skipped: 0 }, "{report:?}");
        let blob = BlobRef::of(b"export default 4", Language::Js);
        assert_eq!(BlobStore::get(&to, &blob).await.expect("blob"), b"export default 4");
        // The file changed since the run started: not taken for its script.
        assert_eq!(report.warnings.len(), 1, "{report:?}");
        assert!(report.warnings[0].contains(ids[1].as_str()), "{report:?}");
        let changed = BlobRef::of(b"export default 5", Language::Js);
        assert!(BlobStore::get(&to, &changed).await.is_err());
    }

    #[tokio::test]
    async fn a_run_executing_in_the_source_is_skipped_counted_and_copied_later() {
        let (a, b) = (tempfile::tempdir().expect("tmp"), tempfile::tempdir().expect("tmp"));
        let (from, done, waiting) = seeded(a.path()).await;
        let to = FileStore::open(b.path()).expect("open");
        let claim = RunStore::claim(&from, &waiting).await.expect("claim").expect("free");
        let report = transfer(StoreRefs::of(&from), StoreRefs::of(&to))
            .await
            .expect("transfer");
        assert!(!report.complete());
        assert_eq!(report.refused.len(), 1);
        assert_eq!(report.refused[0].run, waiting.as_str());
        assert!(report.refused[0].reason.contains("executing"), "{report:?}");
        assert_eq!(report.runs, Tally { copied: 1, skipped: 0 });
        assert!(RunStore::load(&to, &done).await.is_ok());
        assert_eq!(
            RunStore::load(&to, &waiting).await.expect_err("not copied").code(),
            ErrorCode::NotFound
        );
        drop(claim);
        let report = transfer(StoreRefs::of(&from), StoreRefs::of(&to)).await.expect("again");
        assert!(report.complete());
        assert_eq!(report.runs, Tally { copied: 1, skipped: 1 });
    }
}
