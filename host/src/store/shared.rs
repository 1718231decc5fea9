//! [`Store`]: where the host keeps runs, scripts and events — the state
//! directory's [`FileStore`], or a shared database reached only through the
//! store traits of [`hwf_core::store`].
//!
//! The state directory is always there: what is the machine's own (the
//! compile cache, inline script copies) stays in it ([`Store::local`]).
//! With a shared store (`--store postgres://…`), runs (snapshots, journals,
//! controls, claims, artifacts), the script catalog, the event log, blobs,
//! trigger definitions and the Kanban board live in the database, so
//! runners on several machines share them.
//!
//! The methods keep the file store's names, so the host reads the same
//! either way. With the file store they are the file store's own calls;
//! with a shared store each one runs on the store's [`Bridge`] runtime
//! (synchronous ones wait for it there). Writes made under a claim go
//! through the async trait impl of [`RunStore`] for `Store`, whose claims
//! ([`SharedClaim`]) also live on the bridge.

use super::bridge::Bridge;
use super::file::FileStore;
use super::shared_journal::SharedJournal;
use hwf_core::control::Control;
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use hwf_core::journal::JournalEntry;
use hwf_core::model::{ExternalEvent, RunSnapshot, RunState, ScriptMeta};
use hwf_core::store::{
    Artifact, ArtifactRef, BlobStore, Claim, EventLog, Fence, JournalSink, KanbanStore, RunStore, SaveMode,
    ScriptCatalog, StoreResult, TriggerStore, async_trait,
};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// The trait objects of a shared store, opened by [`super::url`].
pub struct SharedParts {
    /// How the store is shown (its URL with any password removed).
    pub shown: String,
    /// Runs, journals, controls, claims, artifacts.
    pub runs: Arc<dyn RunStore>,
    /// The script catalog.
    pub scripts: Arc<dyn ScriptCatalog>,
    /// The event log.
    pub events: Arc<dyn EventLog>,
    /// Content-addressed blobs.
    pub blobs: Arc<dyn BlobStore>,
    /// Trigger definitions.
    pub triggers: Arc<dyn TriggerStore>,
    /// The built-in Kanban board.
    pub kanban: Arc<dyn KanbanStore>,
    /// How the store hands out work (a database's `SKIP LOCKED` scan and
    /// its notifications), when it does.
    pub work: Option<Arc<dyn WorkSource>>,
}

impl std::fmt::Debug for SharedParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedParts")
            .field("shown", &self.shown)
            .finish_non_exhaustive()
    }
}

/// A store that hands out work: the next run in one of `states` whose
/// claim is free or expired, claimed (runners racing get different runs),
/// and a wake-up when there may be more.
#[async_trait]
pub trait WorkSource: Send + Sync {
    /// Claim the oldest such run whose recorded needs
    /// (`RunSnapshot::needs`) are all in `offered`, this host's
    /// capabilities (`None`: there is none).
    async fn claim_next(
        &self,
        states: &[RunState],
        offered: &[hwf_core::model::CapabilityNeed],
    ) -> StoreResult<Option<Box<dyn Claim>>>;

    /// A watch bumped when there may be work (a run queued or parked, a
    /// control, an event); `None`: the store only polls. Called on the
    /// store's runtime.
    fn watch_work(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        None
    }
}

struct Shared {
    parts: SharedParts,
    bridge: Arc<Bridge>,
}

/// The host's store (see the module docs).
pub struct Store {
    local: Arc<FileStore>,
    shared: Option<Shared>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("state_dir", &self.local.root())
            .field("shared", &self.shared.as_ref().map(|s| &s.parts.shown))
            .finish()
    }
}

impl Store {
    /// The file store alone (the embedded default).
    pub fn file(local: Arc<FileStore>) -> Self {
        Self { local, shared: None }
    }

    /// Runs, scripts, events and blobs in a shared store; the state
    /// directory keeps what is the machine's own.
    pub fn shared(local: Arc<FileStore>, parts: SharedParts, bridge: Arc<Bridge>) -> Self {
        Self {
            local,
            shared: Some(Shared { parts, bridge }),
        }
    }

    /// The state directory's file store: the compile cache, inline script
    /// copies — and, without a shared store, everything.
    pub fn local(&self) -> &FileStore {
        &self.local
    }

    /// [`Store::local`], shared.
    pub fn local_arc(&self) -> Arc<FileStore> {
        self.local.clone()
    }

    /// Whether runs live in a shared store.
    pub fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// Where runs live, for messages: the state directory, or the shared
    /// store's URL without its password.
    pub fn describe(&self) -> String {
        match &self.shared {
            Some(s) => s.parts.shown.clone(),
            None => self.local.root().display().to_string(),
        }
    }

    /// The state directory's path (for messages and links only).
    pub fn root(&self) -> &Path {
        self.local.root()
    }

    /// The shared store's runtime, when there is one.
    pub fn bridge(&self) -> Option<&Arc<Bridge>> {
        self.shared.as_ref().map(|s| &s.bridge)
    }

    fn block<T, Fut>(&self, s: &Shared, fut: Fut) -> Result<T>
    where
        Fut: std::future::Future<Output = StoreResult<T>> + Send + 'static,
        T: Send + 'static,
    {
        s.bridge.block(fut).map_err(Error::from)
    }

    /// A run's snapshot.
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store`, `io`.
    pub fn read_snapshot(&self, id: &RunId) -> Result<RunSnapshot> {
        let Some(s) = &self.shared else {
            return self.local.read_snapshot(id);
        };
        let (runs, id) = (s.parts.runs.clone(), id.clone());
        self.block(s, async move { runs.load(&id).await })
    }

    /// Create a run with its first snapshot.
    ///
    /// # Errors
    ///
    /// `already_exists`, `io`.
    pub fn create(&self, snap: &RunSnapshot) -> Result<()> {
        let Some(s) = &self.shared else {
            self.local.create_run(&snap.run_id)?;
            return self.local.write_snapshot(snap);
        };
        let (runs, snap) = (s.parts.runs.clone(), snap.clone());
        self.block(s, async move { runs.create(&snap).await })
    }

    /// Create a run and take its claim before anyone can see it (a runner
    /// that found it `running` and unclaimed would take it for stuck).
    ///
    /// # Errors
    ///
    /// `already_exists` (the id is taken, or someone claimed it first),
    /// `io`.
    pub async fn create_claimed(&self, snap: &RunSnapshot) -> Result<Box<dyn Claim>> {
        let taken = || {
            Error::new(
                ErrorCode::AlreadyExists,
                format!("run {} is being executed by another process", snap.run_id),
            )
        };
        let Some(s) = &self.shared else {
            self.local.create_run(&snap.run_id)?;
            let claim = self.local.claim_run(&snap.run_id)?.ok_or_else(taken)?;
            self.local.write_snapshot(snap)?;
            return Ok(Box::new(claim));
        };
        let (runs, owned) = (s.parts.runs.clone(), snap.clone());
        let bridge = s.bridge.clone();
        let claim = s
            .bridge
            .run(async move { runs.create_claimed(&owned).await })
            .await
            .map_err(Error::from)?;
        Ok(Box::new(SharedClaim::new(claim, bridge)))
    }

    /// Replace a run's snapshot (not under a claim: queued runs, repairs).
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn write_snapshot(&self, snap: &RunSnapshot) -> Result<()> {
        let Some(s) = &self.shared else {
            return self.local.write_snapshot(snap);
        };
        let (runs, snap) = (s.parts.runs.clone(), snap.clone());
        self.block(s, async move { runs.save(&snap, SaveMode::Durable, None).await })
    }

    /// A run's journal, typed, with every payload kept by content read
    /// back in place (as if written inline). A journal of large prompts
    /// is then as large in memory as the sum of its prompts: readers that
    /// do not need every payload use [`Store::read_entries_compact`].
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store`, `io`.
    pub fn read_entries(&self, id: &RunId) -> Result<Vec<JournalEntry>> {
        self.entries(id, 0)
    }

    /// A run's journal entries after `after_seq`, payloads read back in
    /// place (see [`Store::read_entries`]).
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store`, `io`.
    pub fn entries(&self, id: &RunId, after_seq: u64) -> Result<Vec<JournalEntry>> {
        let mut entries = self.entries_compact(id, after_seq)?;
        self.resolve_where(&mut entries, |_| true)?;
        Ok(entries)
    }

    /// A run's journal as stored: a large request or result is a ref
    /// (`request_ref`, `result_ref`; a request keeps its small top-level
    /// fields inline, so `agent`, `name` and `label` read without the
    /// chunks). Read what a reader needs with [`Store::resolve`].
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store`, `io`.
    pub fn read_entries_compact(&self, id: &RunId) -> Result<Vec<JournalEntry>> {
        self.entries_compact(id, 0)
    }

    /// [`Store::read_entries_compact`] after `after_seq`.
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store`, `io`.
    pub fn entries_compact(&self, id: &RunId, after_seq: u64) -> Result<Vec<JournalEntry>> {
        let Some(s) = &self.shared else {
            return self.local.entries(id, after_seq);
        };
        let (runs, id) = (s.parts.runs.clone(), id.clone());
        self.block(s, async move { runs.entries(&id, after_seq).await })
    }

    /// Read an entry's payloads kept by content back in place (see
    /// [`JournalEntry::resolve`]); an entry without refs is untouched.
    ///
    /// # Errors
    ///
    /// `corrupt_store` (damaged chunks), `not_found` (missing ones), `io`.
    pub fn resolve(&self, entry: &mut JournalEntry) -> Result<()> {
        if !entry.has_refs() {
            return Ok(());
        }
        entry.resolve(&mut |ids| self.chunks(ids))
    }

    /// A run's journal for a replay index: compact (see
    /// [`Store::read_entries_compact`]), with the results a replay answers
    /// with (successful agent and capability calls) and every capability
    /// call's request read back in place. Replay matches calls by
    /// fingerprint, so the other requests stay refs.
    ///
    /// # Errors
    ///
    /// As [`Store::read_entries`].
    pub fn read_entries_for_replay(&self, id: &RunId) -> Result<Vec<JournalEntry>> {
        let mut entries = self.read_entries_compact(id)?;
        self.resolve_where(&mut entries, |e| match &e.entry {
            hwf_core::journal::Entry::CallCompleted { kind, ok, .. } => {
                *ok && matches!(kind.as_str(), "agent" | "capability")
            }
            _ => e.kind() == Some("capability"),
        })?;
        Ok(entries)
    }

    /// [`Store::resolve`] every entry `which` picks.
    ///
    /// # Errors
    ///
    /// As [`Store::resolve`].
    pub fn resolve_where(&self, entries: &mut [JournalEntry], which: impl Fn(&JournalEntry) -> bool) -> Result<()> {
        for e in entries.iter_mut().filter(|e| e.has_refs()) {
            if which(e) {
                self.resolve(e)?;
            }
        }
        Ok(())
    }

    /// The payload chunks `ids`, in order.
    fn chunks(&self, ids: &[hwf_core::payload::ChunkId]) -> Result<Vec<Vec<u8>>> {
        let Some(s) = &self.shared else {
            return self.local.chunks().get(ids);
        };
        let (blobs, ids) = (s.parts.blobs.clone(), ids.to_vec());
        self.block(s, async move { blobs.get_chunks(&ids).await })
    }

    /// All run ids, oldest first.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn run_ids(&self) -> Result<Vec<RunId>> {
        let Some(s) = &self.shared else {
            return self.local.run_ids();
        };
        let runs = s.parts.runs.clone();
        self.block(s, async move { runs.list().await })
    }

    /// The runs a runner's pass looks at: on a shared store the unfinished
    /// ones (queued, running, waiting), in one query however many have
    /// finished; on the file store every run (reading a run's snapshot is
    /// how it tells, and the pass reads it anyway).
    ///
    /// # Errors
    ///
    /// `corrupt_store`, `io`.
    pub fn unfinished_run_ids(&self) -> Result<Vec<RunId>> {
        let Some(s) = &self.shared else {
            return self.local.run_ids();
        };
        let runs = s.parts.runs.clone();
        self.block(s, async move {
            runs.list_in_states(&[RunState::Queued, RunState::Running, RunState::Waiting])
                .await
        })
    }

    /// A run's controls.
    ///
    /// # Errors
    ///
    /// `not_found`, `corrupt_store`, `io`.
    pub fn read_controls(&self, id: &RunId) -> Result<Vec<Control>> {
        let Some(s) = &self.shared else {
            return self.local.read_controls(id);
        };
        let (runs, id) = (s.parts.runs.clone(), id.clone());
        self.block(s, async move { runs.controls(&id).await })
    }

    /// A run's controls, skipping damaged lines (how many were skipped). A
    /// database holds no damaged rows: there it is [`Store::read_controls`].
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn read_controls_lenient(&self, id: &RunId) -> Result<(Vec<Control>, usize)> {
        if self.shared.is_none() {
            return self.local.read_controls_lenient(id);
        }
        Ok((self.read_controls(id)?, 0))
    }

    /// A number that changes when a run's controls change (0 when they
    /// cannot be read).
    pub fn controls_len(&self, id: &RunId) -> u64 {
        if self.shared.is_none() {
            return self.local.controls_len(id);
        }
        self.read_controls(id).map_or(0, |c| c.len() as u64)
    }

    /// Append a control (`false`: its id was recorded before).
    ///
    /// # Errors
    ///
    /// `not_found`, `invalid_args` (credential-shaped id), `io`.
    pub fn append_control(&self, id: &RunId, control: &Control) -> Result<bool> {
        let Some(s) = &self.shared else {
            return self.local.append_control(id, control);
        };
        let (runs, id, control) = (s.parts.runs.clone(), id.clone(), control.clone());
        self.block(s, async move { runs.append_control(&id, &control).await })
    }

    /// A watch that changes when a control is appended to the run.
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn watch_controls(&self, id: &RunId) -> Result<tokio::sync::watch::Receiver<u64>> {
        let Some(s) = &self.shared else {
            return self.local.watch_controls(id);
        };
        let (runs, id) = (s.parts.runs.clone(), id.clone());
        self.block(s, async move { runs.watch_controls(&id).await })
    }

    /// Whether someone holds the run's claim.
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn is_claimed(&self, id: &RunId) -> Result<bool> {
        let Some(s) = &self.shared else {
            return self.local.is_claimed(id);
        };
        let (runs, id) = (s.parts.runs.clone(), id.clone());
        self.block(s, async move { runs.is_claimed(&id).await })
    }

    /// Store a run's full result; the string the snapshot keeps as
    /// `result_path` (a path under the state dir, or an artifact ref).
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn write_result(&self, id: &RunId, bytes: &[u8]) -> Result<String> {
        let Some(s) = &self.shared else {
            return self.local.write_result(id, bytes);
        };
        let (runs, id, bytes) = (s.parts.runs.clone(), id.clone(), bytes.to_vec());
        self.block(s, async move {
            runs.write_artifact(&id, Artifact::Result, &bytes)
                .await
                .map(|r| r.as_str().to_owned())
        })
    }

    /// A run's full result as stored by [`Store::write_result`].
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn read_result(&self, id: &RunId) -> Result<Vec<u8>> {
        let r = ArtifactRef::of(Artifact::Result)?;
        let Some(s) = &self.shared else {
            return self.local.read_artifact(id, &r);
        };
        let (runs, id) = (s.parts.runs.clone(), id.clone());
        self.block(s, async move { runs.read_artifact(&id, &r).await })
    }

    /// A run's transcripts open for appending, on the file store (`None`
    /// on a shared store, where [`Store::write_transcript`] sends each).
    ///
    /// # Errors
    ///
    /// `not_found`, `io`.
    pub fn open_transcripts(&self, id: &RunId) -> Option<Result<crate::store::TranscriptLog>> {
        self.shared.is_none().then(|| self.local.open_transcripts(id))
    }

    /// Store an agent call's transcript (metadata, redacted).
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `io`.
    pub fn write_transcript(&self, id: &RunId, call_id: &str, transcript: &Value) -> Result<()> {
        let Some(s) = &self.shared else {
            return self.local.write_transcript(id, call_id, transcript);
        };
        let bytes =
            serde_json::to_vec_pretty(transcript).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        let (runs, id, call) = (s.parts.runs.clone(), id.clone(), call_id.to_owned());
        self.block(s, async move {
            runs.write_artifact(&id, Artifact::Transcript { call: &call }, &bytes)
                .await
                .map(drop)
        })
    }

    /// A saved script version's metadata (the newest without `version`).
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `io`.
    pub fn script_meta(&self, name: &str, version: Option<u32>) -> Result<ScriptMeta> {
        let Some(s) = &self.shared else {
            return self.local.script_meta(name, version);
        };
        let (scripts, name) = (s.parts.scripts.clone(), name.to_owned());
        self.block(s, async move { scripts.meta(&name, version).await })
    }

    /// A saved script version's bytes.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `io`.
    pub fn script_bytes(&self, name: &str, version: u32) -> Result<Vec<u8>> {
        let Some(s) = &self.shared else {
            return self.local.script_bytes(name, version);
        };
        let (scripts, name) = (s.parts.scripts.clone(), name.to_owned());
        self.block(s, async move { scripts.bytes(&name, version).await })
    }

    /// A saved script's versions, oldest first.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `not_found`, `io`.
    pub fn script_versions(&self, name: &str) -> Result<Vec<u32>> {
        let Some(s) = &self.shared else {
            return self.local.script_versions(name);
        };
        let (scripts, name) = (s.parts.scripts.clone(), name.to_owned());
        self.block(s, async move { scripts.versions(&name).await })
    }

    /// Save a script version.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `already_exists` (without `replace`), `io`.
    pub fn save_script(&self, name: &str, bytes: &[u8], meta: ScriptMeta, replace: bool) -> Result<ScriptMeta> {
        let Some(s) = &self.shared else {
            return self.local.save_script(name, bytes, meta, replace);
        };
        let (scripts, name, bytes) = (s.parts.scripts.clone(), name.to_owned(), bytes.to_vec());
        self.block(s, async move { scripts.save(&name, &bytes, meta, replace).await })
    }

    /// The saved scripts' names, sorted.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn script_names(&self) -> Result<Vec<String>> {
        let Some(s) = &self.shared else {
            return self.local.script_names();
        };
        let scripts = s.parts.scripts.clone();
        self.block(s, async move { scripts.names().await })
    }

    /// Every external event, oldest first.
    ///
    /// # Errors
    ///
    /// `corrupt_store`, `io`.
    pub fn read_events(&self) -> Result<Vec<ExternalEvent>> {
        self.events_since(0)
    }

    /// The events after `version`.
    ///
    /// # Errors
    ///
    /// `corrupt_store`, `io`.
    pub fn events_since(&self, version: u64) -> Result<Vec<ExternalEvent>> {
        let Some(s) = &self.shared else {
            return self.local.events_since(version);
        };
        let events = s.parts.events.clone();
        self.block(s, async move { events.since(version).await })
    }

    /// Record an event (idempotent by source + id: `false` when it was
    /// there).
    ///
    /// # Errors
    ///
    /// `invalid_args`, `io`.
    pub fn append_event(&self, event: ExternalEvent) -> Result<(ExternalEvent, bool)> {
        let Some(s) = &self.shared else {
            return self.local.append_event(event);
        };
        let events = s.parts.events.clone();
        self.block(s, async move { events.append(event).await })
    }

    /// Every trigger definition, in name order: the state dir's
    /// `triggers/`, or the shared store's (so every machine sees them).
    ///
    /// # Errors
    ///
    /// `corrupt_store`, `io`.
    pub fn triggers(&self) -> Result<Vec<(String, Value)>> {
        let Some(s) = &self.shared else {
            return self.local.trigger_definitions();
        };
        let triggers = s.parts.triggers.clone();
        self.block(s, async move { triggers.triggers().await })
    }

    /// Store (replace) a trigger definition.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `io`.
    pub fn put_trigger(&self, name: &str, definition: &Value) -> Result<()> {
        let Some(s) = &self.shared else {
            return self.local.save_trigger(name, definition);
        };
        let (triggers, name, definition) = (s.parts.triggers.clone(), name.to_owned(), definition.clone());
        self.block(s, async move { triggers.put_trigger(&name, &definition).await })
    }

    /// Remove a trigger definition; whether it was stored.
    ///
    /// # Errors
    ///
    /// `invalid_name`, `io`.
    pub fn remove_trigger(&self, name: &str) -> Result<bool> {
        let Some(s) = &self.shared else {
            return self.local.delete_trigger(name);
        };
        let (triggers, name) = (s.parts.triggers.clone(), name.to_owned());
        self.block(s, async move { triggers.remove_trigger(&name).await })
    }

    /// The Kanban board's configuration (`None`: no board): the state dir's
    /// `kanban/config.json`, or the shared store's.
    ///
    /// # Errors
    ///
    /// `corrupt_store`, `io`.
    pub fn kanban_config(&self) -> Result<Option<Value>> {
        let Some(s) = &self.shared else {
            return self.local.kanban_config();
        };
        let kanban = s.parts.kanban.clone();
        self.block(s, async move { kanban.kanban_board().await })
    }

    /// Store (`Some`) or clear (`None`) the Kanban board's configuration.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn write_kanban_config(&self, config: Option<&Value>) -> Result<()> {
        let Some(s) = &self.shared else {
            return self.local.write_kanban_config(config);
        };
        let (kanban, config) = (s.parts.kanban.clone(), config.cloned());
        self.block(s, async move { kanban.put_kanban_board(config.as_ref()).await })
    }

    /// Create a card unless its id is taken; the stored card and whether
    /// it was created now.
    ///
    /// # Errors
    ///
    /// `invalid_args` for a bad id, `corrupt_store`, `io`.
    pub fn create_card(&self, card: &Value) -> Result<(Value, bool)> {
        let card = &crate::store::kanban::stored_card(card)?;
        let Some(s) = &self.shared else {
            return self.local.create_card(card);
        };
        let (kanban, card) = (s.parts.kanban.clone(), card.clone());
        self.block(s, async move { kanban.create_card(&card).await })
    }

    /// One card.
    ///
    /// # Errors
    ///
    /// `not_found`, `invalid_args` for a bad id, `corrupt_store`, `io`.
    pub fn read_card(&self, id: &str) -> Result<Value> {
        let Some(s) = &self.shared else {
            return self.local.read_card(id);
        };
        let (kanban, id) = (s.parts.kanban.clone(), id.to_owned());
        self.block(s, async move { kanban.card(&id).await })
    }

    /// Replace a card (it must exist).
    ///
    /// # Errors
    ///
    /// `not_found`, `invalid_args`, `io`.
    pub fn write_card(&self, card: &Value) -> Result<()> {
        let card = &crate::store::kanban::stored_card(card)?;
        let Some(s) = &self.shared else {
            return self.local.write_card(card);
        };
        let (kanban, card) = (s.parts.kanban.clone(), card.clone());
        self.block(s, async move { kanban.replace_card(&card).await })
    }

    /// Every card, oldest first.
    ///
    /// # Errors
    ///
    /// `corrupt_store`, `io`.
    pub fn list_cards(&self) -> Result<Vec<Value>> {
        let Some(s) = &self.shared else {
            return self.local.list_cards();
        };
        let kanban = s.parts.kanban.clone();
        self.block(s, async move { kanban.cards().await })
    }

    /// A number that changes when runs change (created, saved, controlled,
    /// journaled and synced): what the console polls. 0 when the store
    /// cannot say (logged).
    pub fn change_marker(&self) -> u64 {
        let Some(s) = &self.shared else {
            return self.local.runs_fingerprint();
        };
        let runs = s.parts.runs.clone();
        match self.block(s, async move { runs.change_marker().await }) {
            Ok(marker) => marker.unwrap_or(0),
            Err(e) => {
                tracing::warn!(error = %e, "the store's change marker cannot be read");
                0
            }
        }
    }

    /// Keep a run's script where every runner can read it: in a shared
    /// store's blobs, by content (a run names a file path on the machine
    /// that started it; a runner elsewhere finds the bytes by the run's
    /// digest). The file store needs nothing.
    ///
    /// # Errors
    ///
    /// `io`.
    pub fn keep_script(&self, bytes: &[u8], language: hwf_core::lang::Language) -> Result<()> {
        let Some(s) = &self.shared else { return Ok(()) };
        let (blobs, bytes) = (s.parts.blobs.clone(), bytes.to_vec());
        self.block(s, async move { blobs.put(&bytes, language).await.map(drop) })
    }

    /// A run's script by its digest (`b3:<hex>`), kept by
    /// [`Store::keep_script`]; `None` for the file store or when it was not
    /// kept.
    ///
    /// # Errors
    ///
    /// `io`; `invalid_name` for a digest that is not `b3:<hex>`.
    pub fn script_by_digest(&self, digest: &str, language: hwf_core::lang::Language) -> Result<Option<Vec<u8>>> {
        let Some(s) = &self.shared else { return Ok(None) };
        let hex = digest.strip_prefix("b3:").unwrap_or(digest);
        let blob = hwf_core::store::BlobRef::parse(&format!("{hex}.{}", hwf_core::store::blob_ext(language)))?;
        let blobs = s.parts.blobs.clone();
        match self.block(s, async move { blobs.get(&blob).await }) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The journal writer's output for an execution holding `claim`: the
    /// run's journal file, or a writer task on the shared store.
    ///
    /// # Errors
    ///
    /// `not_found`, `conflict` (the claim is no longer the run's), `io`.
    pub async fn open_journal_out(&self, id: &RunId, claim: &dyn Claim) -> Result<super::shared_journal::JournalOut> {
        let Some(s) = &self.shared else {
            return Ok(super::shared_journal::JournalOut::File(self.local.open_journal(id)?));
        };
        let runs = s.parts.runs.clone();
        let fence = claim.fence().clone();
        let f = fence.clone();
        let sink: Box<dyn JournalSink> = s
            .bridge
            .run(async move { runs.open_journal(&FenceClaim(f)).await })
            .await
            .map_err(Error::from)?;
        Ok(super::shared_journal::JournalOut::Shared(SharedJournal::start(
            sink,
            s.parts.runs.clone(),
            s.parts.blobs.clone(),
            fence,
            &s.bridge,
        )))
    }

    /// A watch bumped when a shared store says there may be work (a run
    /// queued or parked, a control, an event), for an idle runner to wait
    /// on beside its poll; `None` for the file store.
    pub fn watch_work(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        let s = self.shared.as_ref()?;
        let work = s.parts.work.clone()?;
        s.bridge
            .block(async move { Ok::<_, Error>(work.watch_work()) })
            .ok()
            .flatten()
    }

    /// Claim the next run in one of `states` (queued work, expired leases)
    /// whose needs `offered` meets, when the shared store hands out work;
    /// `None` for stores that do not (the runner then scans).
    ///
    /// # Errors
    ///
    /// `io`.
    pub async fn claim_next(
        &self,
        states: &[hwf_core::model::RunState],
        offered: &[hwf_core::model::CapabilityNeed],
    ) -> Result<Option<Option<Box<dyn Claim>>>> {
        let Some(s) = &self.shared else { return Ok(None) };
        let Some(next) = s.parts.work.clone() else {
            return Ok(None);
        };
        let states = states.to_vec();
        let offered = offered.to_vec();
        let bridge = s.bridge.clone();
        let claim = s
            .bridge
            .run(async move { next.claim_next(&states, &offered).await })
            .await
            .map_err(Error::from)?;
        Ok(Some(
            claim.map(|c| Box::new(SharedClaim::new(c, bridge)) as Box<dyn Claim>),
        ))
    }
}

/// A claim of a shared store, living on its bridge: checked, released
/// and dropped there (a database claim's drop releases its lease).
#[derive(Debug)]
pub struct SharedClaim {
    inner: Option<Arc<Box<dyn Claim>>>,
    fence: Fence,
    bridge: Arc<Bridge>,
}

impl SharedClaim {
    fn new(inner: Box<dyn Claim>, bridge: Arc<Bridge>) -> Self {
        Self {
            fence: inner.fence().clone(),
            inner: Some(Arc::new(inner)),
            bridge,
        }
    }
}

#[async_trait]
impl Claim for SharedClaim {
    fn fence(&self) -> &Fence {
        &self.fence
    }

    async fn check(&self) -> StoreResult<()> {
        let Some(inner) = self.inner.clone() else {
            return self.fence.check();
        };
        self.bridge.run(async move { inner.check().await }).await
    }

    async fn release(mut self: Box<Self>) -> StoreResult<()> {
        let Some(inner) = self.inner.take() else {
            return Ok(());
        };
        match Arc::try_unwrap(inner) {
            Ok(claim) => self.bridge.run(async move { claim.release().await }).await,
            // A check still in flight holds it: it is dropped (and so
            // released) on the bridge when that check ends.
            Err(shared) => {
                self.fence.release();
                self.bridge.handle().spawn(async move { drop(shared) });
                Ok(())
            }
        }
    }
}

impl Drop for SharedClaim {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else { return };
        match Arc::try_unwrap(inner) {
            // Released on the bridge before drop returns, so the next owner
            // (or this process's next claim) finds it free at once, and a
            // process about to exit does not leave it to expire.
            Ok(claim) if !std::thread::panicking() => {
                let released = self.bridge.block(async move { claim.release().await });
                if let Err(e) = released {
                    tracing::warn!(run = %self.fence.run(), error = %e, "releasing a claim failed (its lease expires)");
                }
            }
            // Unwinding, or a check in flight holds it: dropped on the
            // bridge (a database claim's drop releases it there).
            Ok(claim) => {
                self.bridge.handle().spawn(async move { drop(claim) });
            }
            Err(shared) => {
                self.bridge.handle().spawn(async move { drop(shared) });
            }
        }
    }
}

/// A claim carrying only its fence: what a shared store's writes under a
/// claim compare (its token), made to move a write onto the bridge.
#[derive(Debug)]
pub(super) struct FenceClaim(pub(super) Fence);

#[async_trait]
impl Claim for FenceClaim {
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

/// The store traits on the host's store: the file store's own impl, or the
/// shared store's run on its bridge (claims handed out as [`SharedClaim`]).
#[async_trait]
impl RunStore for Store {
    async fn create(&self, snap: &RunSnapshot) -> StoreResult<()> {
        let Some(s) = &self.shared else {
            return RunStore::create(&*self.local, snap).await;
        };
        let (runs, snap) = (s.parts.runs.clone(), snap.clone());
        s.bridge.run(async move { runs.create(&snap).await }).await
    }

    async fn load(&self, id: &RunId) -> StoreResult<RunSnapshot> {
        let Some(s) = &self.shared else {
            return RunStore::load(&*self.local, id).await;
        };
        let (runs, id) = (s.parts.runs.clone(), id.clone());
        s.bridge.run(async move { runs.load(&id).await }).await
    }

    async fn save(&self, snap: &RunSnapshot, mode: SaveMode, claim: Option<&dyn Claim>) -> StoreResult<()> {
        let Some(s) = &self.shared else {
            return RunStore::save(&*self.local, snap, mode, claim).await;
        };
        let (runs, snap) = (s.parts.runs.clone(), snap.clone());
        let fence = claim.map(|c| FenceClaim(c.fence().clone()));
        s.bridge
            .run(async move { runs.save(&snap, mode, fence.as_ref().map(|f| f as &dyn Claim)).await })
            .await
    }

    async fn list(&self) -> StoreResult<Vec<RunId>> {
        let Some(s) = &self.shared else {
            return RunStore::list(&*self.local).await;
        };
        let runs = s.parts.runs.clone();
        s.bridge.run(async move { runs.list().await }).await
    }

    async fn list_in_states(&self, states: &[RunState]) -> StoreResult<Vec<RunId>> {
        let Some(s) = &self.shared else {
            return RunStore::list_in_states(&*self.local, states).await;
        };
        let (runs, states) = (s.parts.runs.clone(), states.to_vec());
        s.bridge.run(async move { runs.list_in_states(&states).await }).await
    }

    async fn entries(&self, id: &RunId, after_seq: u64) -> StoreResult<Vec<JournalEntry>> {
        let Some(s) = &self.shared else {
            return RunStore::entries(&*self.local, id, after_seq).await;
        };
        let (runs, id) = (s.parts.runs.clone(), id.clone());
        s.bridge.run(async move { runs.entries(&id, after_seq).await }).await
    }

    async fn open_journal(&self, claim: &dyn Claim) -> StoreResult<Box<dyn JournalSink>> {
        let Some(s) = &self.shared else {
            return RunStore::open_journal(&*self.local, claim).await;
        };
        let runs = s.parts.runs.clone();
        let f = FenceClaim(claim.fence().clone());
        s.bridge.run(async move { runs.open_journal(&f).await }).await
    }

    async fn claim(&self, id: &RunId) -> StoreResult<Option<Box<dyn Claim>>> {
        let Some(s) = &self.shared else {
            return RunStore::claim(&*self.local, id).await;
        };
        let (runs, id) = (s.parts.runs.clone(), id.clone());
        let bridge = s.bridge.clone();
        let claim = s.bridge.run(async move { runs.claim(&id).await }).await?;
        Ok(claim.map(|c| Box::new(SharedClaim::new(c, bridge)) as Box<dyn Claim>))
    }

    async fn change_marker(&self) -> StoreResult<Option<u64>> {
        let Some(s) = &self.shared else {
            return RunStore::change_marker(&*self.local).await;
        };
        let runs = s.parts.runs.clone();
        s.bridge.run(async move { runs.change_marker().await }).await
    }

    async fn create_claimed(&self, snap: &RunSnapshot) -> StoreResult<Box<dyn Claim>> {
        Store::create_claimed(self, snap)
            .await
            .map_err(hwf_core::store::StoreError::from)
    }

    async fn is_claimed(&self, id: &RunId) -> StoreResult<bool> {
        let Some(s) = &self.shared else {
            return RunStore::is_claimed(&*self.local, id).await;
        };
        let (runs, id) = (s.parts.runs.clone(), id.clone());
        s.bridge.run(async move { runs.is_claimed(&id).await }).await
    }

    async fn controls(&self, id: &RunId) -> StoreResult<Vec<Control>> {
        let Some(s) = &self.shared else {
            return RunStore::controls(&*self.local, id).await;
        };
        let (runs, id) = (s.parts.runs.clone(), id.clone());
        s.bridge.run(async move { runs.controls(&id).await }).await
    }

    async fn append_control(&self, id: &RunId, control: &Control) -> StoreResult<bool> {
        let Some(s) = &self.shared else {
            return RunStore::append_control(&*self.local, id, control).await;
        };
        let (runs, id, control) = (s.parts.runs.clone(), id.clone(), control.clone());
        s.bridge
            .run(async move { runs.append_control(&id, &control).await })
            .await
    }

    async fn watch_controls(&self, id: &RunId) -> StoreResult<tokio::sync::watch::Receiver<u64>> {
        let Some(s) = &self.shared else {
            return RunStore::watch_controls(&*self.local, id).await;
        };
        let (runs, id) = (s.parts.runs.clone(), id.clone());
        s.bridge.run(async move { runs.watch_controls(&id).await }).await
    }

    async fn write_artifact(&self, id: &RunId, artifact: Artifact<'_>, bytes: &[u8]) -> StoreResult<ArtifactRef> {
        let Some(s) = &self.shared else {
            return RunStore::write_artifact(&*self.local, id, artifact, bytes).await;
        };
        let r = ArtifactRef::of(artifact)?;
        let (runs, id, bytes) = (s.parts.runs.clone(), id.clone(), bytes.to_vec());
        s.bridge
            .run(async move { runs.write_artifact(&id, r.artifact(), &bytes).await })
            .await
    }

    async fn write_artifact_fenced(
        &self,
        claim: &dyn Claim,
        artifact: Artifact<'_>,
        bytes: &[u8],
    ) -> StoreResult<ArtifactRef> {
        let Some(s) = &self.shared else {
            return RunStore::write_artifact_fenced(&*self.local, claim, artifact, bytes).await;
        };
        let r = ArtifactRef::of(artifact)?;
        let (runs, bytes) = (s.parts.runs.clone(), bytes.to_vec());
        let f = FenceClaim(claim.fence().clone());
        s.bridge
            .run(async move { runs.write_artifact_fenced(&f, r.artifact(), &bytes).await })
            .await
    }

    async fn read_artifact(&self, id: &RunId, artifact: &ArtifactRef) -> StoreResult<Vec<u8>> {
        let Some(s) = &self.shared else {
            return RunStore::read_artifact(&*self.local, id, artifact).await;
        };
        let (runs, id, r) = (s.parts.runs.clone(), id.clone(), artifact.clone());
        s.bridge.run(async move { runs.read_artifact(&id, &r).await }).await
    }
}
