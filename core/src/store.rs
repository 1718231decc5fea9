//! The store traits, one per role, and the contract every store keeps.
//!
//! hwf keeps its durable state behind these traits so the application,
//! the broker and the runner never name a concrete store: the file store
//! (`hwf_host::store::FileStore`, the embedded default) implements them
//! today, a PostgreSQL store with leases next. One conformance suite
//! (crate `hwf-store-conformance`) checks every sentence of the contracts
//! below against each store, the way obelisk runs one `db-tests` suite on
//! SQLite and Postgres.
//!
//! | trait | role | held by |
//! |---|---|---|
//! | [`RunStore`] | run snapshots, the journal (read), claims, controls, artifacts | the application, the runner, status |
//! | [`JournalSink`] | appending one run's journal under a claim | the broker's journal writer |
//! | [`Claim`] | exclusive ownership of a run, with a fencing token | whoever executes the run |
//! | [`ScriptCatalog`] | saved scripts and their immutable versions | the catalog |
//! | [`EventLog`] | external events, idempotent by source + id | `events.wait`, the triggers, the webhooks |
//! | [`BlobStore`] | inline scripts by content; journal payload chunks | the facade; the journal writer and readers |
//! | [`TriggerStore`] | trigger definitions, by name | `hwf triggers`, events, the runner's cron pass |
//! | [`KanbanStore`] | the built-in Kanban board: its configuration and cards | the Kanban lanes, `hwf kanban`, the runner |
//! | [`CompileCache`] | precompiled components (machine-local, never shared) | the sandbox |
//!
//! Methods are async and object-safe (`#[async_trait]`, so each returns a
//! boxed `Send` future, as [`crate::BoxFuture`]): a network store must not
//! block the executor, and callers hold `Arc<dyn RunStore>`. Errors are
//! typed ([`StoreError`]) and map onto stable codes.
//!
//! Words used in the contracts: a *fresh* store holds nothing; *unknown* id
//! means never created in this store; *in order* means ascending by the
//! field named.

mod error;

pub use async_trait::async_trait;
pub use error::{StoreError, StoreResult};

use crate::control::Control;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{RunId, validate_name};
use crate::journal::JournalEntry;
use crate::lang::Language;
use crate::model::{ExternalEvent, RunSnapshot, ScriptMeta};
use crate::payload::{Chunk, ChunkId};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// How far a snapshot write must reach before [`RunStore::save`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveMode {
    /// On stable storage (fsync; a committed transaction): state changes.
    Durable,
    /// Visible to readers at once, may be lost on power loss: progress
    /// figures that the next durable write supersedes.
    Fast,
}

/// A run's stored by-products, named by role rather than by path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Artifact<'a> {
    /// The run's result, when too large to keep inline in the snapshot.
    Result,
    /// The transcript of one agent call (`call` is its call id, `3.1`).
    Transcript {
        /// The call id.
        call: &'a str,
    },
}

/// Where an artifact is kept, relative to its run: `result` or
/// `transcripts/<call>`. A ref holds no file path, so it means the same in
/// every store; serialised as that string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ArtifactRef(String);

impl ArtifactRef {
    /// The ref of `artifact`.
    ///
    /// # Errors
    ///
    /// `invalid_name` when a transcript's call id is not a safe name.
    pub fn of(artifact: Artifact<'_>) -> Result<Self> {
        match artifact {
            Artifact::Result => Ok(Self("result".into())),
            Artifact::Transcript { call } => {
                validate_name("call id", call)?;
                Ok(Self(format!("transcripts/{call}")))
            }
        }
    }

    /// Parse a stored ref.
    ///
    /// # Errors
    ///
    /// `invalid_name` for anything but `result` or `transcripts/<safe name>`.
    pub fn parse(s: &str) -> Result<Self> {
        match s.strip_prefix("transcripts/") {
            _ if s == "result" => Ok(Self(s.into())),
            Some(call) => Self::of(Artifact::Transcript { call }),
            None => Err(Error::new(
                ErrorCode::InvalidName,
                format!("artifact ref {s:?}: expected result or transcripts/<call id>"),
            )),
        }
    }

    /// The artifact this ref names.
    pub fn artifact(&self) -> Artifact<'_> {
        match self.0.strip_prefix("transcripts/") {
            Some(call) => Artifact::Transcript { call },
            None => Artifact::Result,
        }
    }

    /// The ref as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ArtifactRef {
    type Error = Error;
    fn try_from(s: String) -> Result<Self> {
        Self::parse(&s)
    }
}

impl From<ArtifactRef> for String {
    fn from(r: ArtifactRef) -> Self {
        r.0
    }
}

/// A blob's content address: `<blake3 hex>.<ext>`, the extension from its
/// language (`wasm`, `js`, `json`, `py`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct BlobRef(String);

impl BlobRef {
    /// The ref of `bytes` in `language`.
    pub fn of(bytes: &[u8], language: Language) -> Self {
        Self(format!("{}.{}", blake3::hash(bytes).to_hex(), blob_ext(language)))
    }

    /// Parse a stored ref.
    ///
    /// # Errors
    ///
    /// `invalid_name` unless it is 64 hex digits, a dot and a known
    /// extension.
    pub fn parse(s: &str) -> Result<Self> {
        let ok = s.split_once('.').is_some_and(|(hex, ext)| {
            hex.len() == 64
                && hex.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
                && matches!(ext, "wasm" | "js" | "json" | "py" | "bin")
        });
        if ok {
            Ok(Self(s.to_owned()))
        } else {
            Err(Error::new(
                ErrorCode::InvalidName,
                format!(
                    "blob ref {:?}: expected <blake3 hex>.<wasm|js|json|py>",
                    crate::redact::clip(s, 80)
                ),
            ))
        }
    }

    /// The ref as text (also the file store's file name).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for BlobRef {
    type Error = Error;
    fn try_from(s: String) -> Result<Self> {
        Self::parse(&s)
    }
}

impl From<BlobRef> for String {
    fn from(r: BlobRef) -> Self {
        r.0
    }
}

/// The extension a blob in `language` is kept under.
pub fn blob_ext(language: Language) -> &'static str {
    language.extension()
}

/// A claim's identity and liveness, shared by the claim and every
/// [`JournalSink`] opened under it (cloning shares the liveness).
///
/// The `token` is the fencing token: each claim of a run gets a token
/// greater than every earlier claim's, so a store can refuse a write that
/// carries an older one (a lease store compares it in the same
/// transaction as the write).
#[derive(Debug, Clone)]
pub struct Fence {
    run: RunId,
    token: u64,
    held: Arc<AtomicBool>,
}

impl Fence {
    /// A held fence for `run` with `token` (for store implementations).
    pub fn new(run: RunId, token: u64) -> Self {
        Self {
            run,
            token,
            held: Arc::new(AtomicBool::new(true)),
        }
    }

    /// The claimed run.
    pub fn run(&self) -> &RunId {
        &self.run
    }

    /// The fencing token.
    pub fn token(&self) -> u64 {
        self.token
    }

    /// Whether the claim is still held, as far as this process knows.
    pub fn is_held(&self) -> bool {
        self.held.load(Ordering::SeqCst)
    }

    /// Mark the claim released or lost (every clone sees it at once).
    pub fn release(&self) {
        self.held.store(false, Ordering::SeqCst);
    }

    /// `Ok` while held, else [`StoreError::Fenced`].
    ///
    /// # Errors
    ///
    /// [`StoreError::Fenced`] once released or lost.
    pub fn check(&self) -> StoreResult<()> {
        if self.is_held() {
            Ok(())
        } else {
            Err(StoreError::Fenced {
                run: self.run.to_string(),
                token: self.token,
            })
        }
    }
}

/// Exclusive ownership of one run: whoever holds it may execute the run
/// and append to its journal.
///
/// Contract:
/// - While a claim is held, [`RunStore::claim`] of the same run returns
///   `None`, through this store object and any other on the same data, and
///   [`RunStore::is_claimed`] is `true`.
/// - Its [`Fence::token`] is greater than the token of every earlier claim
///   of the run in this store.
/// - [`Claim::release`], or dropping the claim, releases it: its fence
///   reads not held at once, a [`JournalSink`] opened under it refuses
///   appends with [`StoreError::Fenced`], and a later `claim` of the run
///   through the same store object succeeds. (A lease store may finish a
///   release from a background task, but must finish pending releases
///   before answering `claim`; others see a dropped lease free at the
///   latest when it expires.)
/// - A claim whose holder dies is freed without its help (the kernel drops
///   a flock; a lease expires).
#[async_trait]
pub trait Claim: Send + Sync + std::fmt::Debug {
    /// The claim's run, token and liveness.
    fn fence(&self) -> &Fence;

    /// `Ok` while the claim is held; [`StoreError::Fenced`] once it was
    /// released or taken over (a lease store asks the database, renewing
    /// the lease).
    ///
    /// # Errors
    ///
    /// [`StoreError::Fenced`], or the store's I/O errors.
    async fn check(&self) -> StoreResult<()>;

    /// Release the claim now (as dropping it does, but waits until the
    /// release is visible to every other store object).
    ///
    /// # Errors
    ///
    /// The store's I/O errors (the claim is released locally regardless).
    async fn release(self: Box<Self>) -> StoreResult<()>;
}

/// Appends to one run's journal, opened under a [`Claim`] by
/// [`RunStore::open_journal`].
///
/// Contract:
/// - [`next_seq`](Self::next_seq) is 1 for an empty journal and else one
///   more than the last complete entry's seq (a torn tail left by a crash
///   is cut off when the sink is opened, never glued onto).
/// - An append at `expected_seq != next_seq()` writes nothing and fails
///   with [`StoreError::SeqConflict`]; one under a claim that is no longer
///   held writes nothing and fails with [`StoreError::Fenced`].
/// - A successful append of `n` entries gives them seqs `expected_seq ..
///   expected_seq + n`, in order; [`RunStore::entries`] returns them at
///   once (same store object), and after [`sync`](Self::sync) they survive
///   a crash of the process and of the machine.
#[async_trait]
pub trait JournalSink: Send + std::fmt::Debug {
    /// The run and claim this sink writes under.
    fn fence(&self) -> &Fence;

    /// The seq the next appended entry gets.
    fn next_seq(&self) -> u64;

    /// Append typed entries; `entries[i].seq` must be `expected_seq + i`.
    /// Returns the seq of the last entry (`expected_seq - 1` for none).
    ///
    /// # Errors
    ///
    /// [`StoreError::SeqConflict`] (also when an entry's seq is out of
    /// line), [`StoreError::Fenced`], I/O errors.
    async fn append(&mut self, expected_seq: u64, entries: &[JournalEntry]) -> StoreResult<u64>;

    /// Append journal lines already serialised by the writer (the hot
    /// path: the broker writes borrowed events): `lines` holds `n`
    /// newline-terminated JSON objects whose `seq`s are `expected_seq ..
    /// expected_seq + n`. A store may trust the writer's seqs (the file
    /// store counts lines) or parse them (a database keys rows by them).
    /// Returns the seq of the last line.
    ///
    /// # Errors
    ///
    /// As [`append`](Self::append); [`StoreError::Corrupt`] when `lines`
    /// does not end with a newline.
    async fn append_lines(&mut self, expected_seq: u64, lines: &[u8]) -> StoreResult<u64>;

    /// Make everything appended so far durable (fsync; a commit).
    ///
    /// # Errors
    ///
    /// I/O errors; [`StoreError::Fenced`] when the claim was lost.
    async fn sync(&mut self) -> StoreResult<()>;
}

/// Runs: snapshots, journal reading, claims, controls and artifacts.
///
/// Contract (each sentence is one check in `hwf-store-conformance`):
/// - `create` stores a new run with `snap` as its snapshot, an empty
///   journal and no controls; a taken id fails with
///   [`StoreError::AlreadyExists`] and changes nothing.
/// - `load` returns the snapshot last saved (equal field by field);
///   `save` replaces it and fails with [`StoreError::NotFound`] for a run
///   never created. Every method taking a run id fails with `NotFound` for
///   an unknown one.
/// - `save` with a claim fails with [`StoreError::Fenced`] and writes
///   nothing when the claim is not the run's current one.
/// - `list` returns every run id, in order.
/// - `entries(id, after)` returns the journal's complete entries with
///   `seq > after`, in order; a torn (unterminated) last line is not an
///   entry; a damaged line before the end fails with
///   [`StoreError::Corrupt`].
/// - `append_control` stores a control unless one with the same id is
///   stored (then it returns `false` and changes nothing); `controls`
///   returns them in append order. Free-text fields are stored redacted
///   and a credential-shaped id is refused ([`stored_control`]).
/// - `watch_controls`'s value grows after every `append_control` that
///   returned `true`: at once for appends through this store object,
///   within the store's documented delay for others.
/// - `write_artifact` replaces the run's artifact and returns its ref;
///   `read_artifact` returns the bytes last written under that ref.
/// - `write_artifact_fenced` does the same for the claim's run only while
///   the claim is the run's current one (compared in the same step as the
///   write); under a released or superseded claim it fails with
///   [`StoreError::Fenced`] and writes nothing.
#[async_trait]
pub trait RunStore: Send + Sync {
    /// Create a run with its first snapshot.
    ///
    /// # Errors
    ///
    /// [`StoreError::AlreadyExists`] for a taken id; I/O errors.
    async fn create(&self, snap: &RunSnapshot) -> StoreResult<()>;

    /// The run's current snapshot.
    ///
    /// # Errors
    ///
    /// `NotFound`, `Corrupt`, I/O errors.
    async fn load(&self, id: &RunId) -> StoreResult<RunSnapshot>;

    /// Replace the run's snapshot; with `claim`, only while it is the run's
    /// current claim.
    ///
    /// # Errors
    ///
    /// `NotFound`, `Fenced`, I/O errors.
    async fn save(&self, snap: &RunSnapshot, mode: SaveMode, claim: Option<&dyn Claim>) -> StoreResult<()>;

    /// Every run id, in order (generated ids sort by creation time).
    ///
    /// # Errors
    ///
    /// I/O errors.
    async fn list(&self) -> StoreResult<Vec<RunId>>;

    /// The ids of the runs whose snapshot is in one of `states`, in order
    /// (a runner asks for the unfinished ones each pass). The default
    /// reads every snapshot (a run being created, with none yet, is left
    /// out); a store with an index on the state answers in one query.
    ///
    /// # Errors
    ///
    /// `Corrupt`, I/O errors.
    async fn list_in_states(&self, states: &[crate::model::RunState]) -> StoreResult<Vec<RunId>> {
        let mut ids = Vec::new();
        for id in self.list().await? {
            match self.load(&id).await {
                Ok(snap) if states.contains(&snap.state) => ids.push(id),
                Ok(_) | Err(StoreError::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(ids)
    }

    /// The journal entries after `after_seq` (0: all).
    ///
    /// # Errors
    ///
    /// `NotFound`, `Corrupt`, I/O errors.
    async fn entries(&self, id: &RunId, after_seq: u64) -> StoreResult<Vec<JournalEntry>>;

    /// Open the claimed run's journal for appending.
    ///
    /// # Errors
    ///
    /// `NotFound`, `Fenced` for a claim not held, I/O errors.
    async fn open_journal(&self, claim: &dyn Claim) -> StoreResult<Box<dyn JournalSink>>;

    /// Take the run's claim if nobody holds it (`None` when held).
    ///
    /// # Errors
    ///
    /// `NotFound`, I/O errors.
    async fn claim(&self, id: &RunId) -> StoreResult<Option<Box<dyn Claim>>>;

    /// A number that changes whenever a run is created, a snapshot saved,
    /// a control appended or a journal made durable: what a console polls
    /// to learn that something changed (`None`: the store offers none).
    ///
    /// # Errors
    ///
    /// I/O errors.
    async fn change_marker(&self) -> StoreResult<Option<u64>> {
        Ok(None)
    }

    /// Create a run and hold its claim as one step, so nobody (a runner
    /// looking for stuck runs) can take it in between. The default creates,
    /// then claims; a store that can do both in one transaction does.
    ///
    /// # Errors
    ///
    /// `AlreadyExists` (the id is taken, or another process claimed the
    /// run first), I/O errors.
    async fn create_claimed(&self, snap: &RunSnapshot) -> StoreResult<Box<dyn Claim>> {
        self.create(snap).await?;
        self.claim(&snap.run_id).await?.ok_or_else(|| {
            StoreError::AlreadyExists(format!(
                "run {} was claimed by another process as it was created",
                snap.run_id
            ))
        })
    }

    /// Whether someone holds the run's claim.
    ///
    /// # Errors
    ///
    /// `NotFound`, I/O errors.
    async fn is_claimed(&self, id: &RunId) -> StoreResult<bool>;

    /// The run's controls, in append order.
    ///
    /// # Errors
    ///
    /// `NotFound`, `Corrupt`, I/O errors.
    async fn controls(&self, id: &RunId) -> StoreResult<Vec<Control>>;

    /// Store a control unless its id is stored; whether it was stored.
    ///
    /// # Errors
    ///
    /// `NotFound`, `invalid_args` for a credential-shaped id, I/O errors.
    async fn append_control(&self, id: &RunId, control: &Control) -> StoreResult<bool>;

    /// A receiver whose value grows whenever a control is appended to the
    /// run (its number means nothing else; re-read `controls`).
    ///
    /// # Errors
    ///
    /// `NotFound`, I/O errors.
    async fn watch_controls(&self, id: &RunId) -> StoreResult<tokio::sync::watch::Receiver<u64>>;

    /// Store (replace) one of the run's artifacts.
    ///
    /// # Errors
    ///
    /// `NotFound`, `InvalidName` for a bad call id, I/O errors.
    async fn write_artifact(&self, id: &RunId, artifact: Artifact<'_>, bytes: &[u8]) -> StoreResult<ArtifactRef>;

    /// Store (replace) one of the claimed run's artifacts while `claim` is
    /// its current claim: what an execution writes as it runs (agent-call
    /// transcripts), so an executor that lost the run cannot overwrite what
    /// the new owner wrote.
    ///
    /// # Errors
    ///
    /// `Fenced` for a claim that is not the run's current one, `NotFound`,
    /// `InvalidName` for a bad call id, I/O errors.
    async fn write_artifact_fenced(
        &self,
        claim: &dyn Claim,
        artifact: Artifact<'_>,
        bytes: &[u8],
    ) -> StoreResult<ArtifactRef>;

    /// The bytes of one of the run's artifacts.
    ///
    /// # Errors
    ///
    /// `NotFound`, I/O errors.
    async fn read_artifact(&self, id: &RunId, artifact: &ArtifactRef) -> StoreResult<Vec<u8>>;
}

/// Saved scripts: immutable, numbered versions per name.
///
/// Contract:
/// - `save` stores a new version numbered one past the name's last (1 for
///   a new name) with `meta.name` and `meta.version` set by the store, and
///   returns that meta; without `replace` a name with versions fails with
///   [`StoreError::AlreadyExists`] and changes nothing.
/// - Old versions stay readable: `meta` and `bytes` of every saved version
///   return what was saved (`meta(name, None)`: the latest).
/// - `versions` is ascending; `names` lists every name with a version, in
///   order.
/// - An unsafe name (`../x`, empty, over 128 bytes) fails with
///   [`StoreError::InvalidName`]; an unknown name or version with
///   [`StoreError::NotFound`].
#[async_trait]
pub trait ScriptCatalog: Send + Sync {
    /// Save a new version.
    ///
    /// # Errors
    ///
    /// `InvalidName`, `AlreadyExists`, I/O errors.
    async fn save(&self, name: &str, bytes: &[u8], meta: ScriptMeta, replace: bool) -> StoreResult<ScriptMeta>;

    /// The metadata of one version (`None`: the latest).
    ///
    /// # Errors
    ///
    /// `InvalidName`, `NotFound`, `Corrupt`, I/O errors.
    async fn meta(&self, name: &str, version: Option<u32>) -> StoreResult<ScriptMeta>;

    /// The bytes of one version.
    ///
    /// # Errors
    ///
    /// `InvalidName`, `NotFound`, I/O errors.
    async fn bytes(&self, name: &str, version: u32) -> StoreResult<Vec<u8>>;

    /// Every saved script's name, in order.
    ///
    /// # Errors
    ///
    /// I/O errors.
    async fn names(&self) -> StoreResult<Vec<String>>;

    /// A name's versions, ascending.
    ///
    /// # Errors
    ///
    /// `InvalidName`, `NotFound`, I/O errors.
    async fn versions(&self, name: &str) -> StoreResult<Vec<u32>>;
}

/// External events (webhooks, `hwf event send`), store-wide.
///
/// Contract:
/// - `append` stores the event with the next store-wide version (1, 2, …)
///   and returns it with `true`; an event whose `(source, id)` is stored
///   returns the stored one with `false` and changes nothing. Free text is
///   stored redacted and a credential-shaped id is refused
///   ([`stored_event`]).
/// - `since(v)` returns the events with `version > v`, in order.
#[async_trait]
pub trait EventLog: Send + Sync {
    /// Store an event unless its `(source, id)` is stored.
    ///
    /// # Errors
    ///
    /// `invalid_args` for a credential-shaped id, `Corrupt`, I/O errors.
    async fn append(&self, event: ExternalEvent) -> StoreResult<(ExternalEvent, bool)>;

    /// The events after `version` (0: all), in order.
    ///
    /// # Errors
    ///
    /// `Corrupt`, I/O errors.
    async fn since(&self, version: u64) -> StoreResult<Vec<ExternalEvent>>;
}

/// Scripts sent inline (facade `script_source`, `definition`), kept by
/// content; and the chunks of large journal payloads
/// ([`crate::payload`]), kept by content store-wide so that runs, resumes
/// and copies share them.
///
/// Contract:
/// - `put` returns [`BlobRef::of`] the bytes and language; putting the
///   same again returns the same ref; `get` returns the bytes.
/// - A script in a text language holding a credential is refused with
///   `invalid_script` (nothing is stored).
/// - `get` of a ref never put fails with [`StoreError::NotFound`].
#[async_trait]
pub trait BlobStore: Send + Sync {
    /// Keep `bytes`; their content address.
    ///
    /// # Errors
    ///
    /// `invalid_script`, I/O errors.
    async fn put(&self, bytes: &[u8], language: Language) -> StoreResult<BlobRef>;

    /// The bytes under `blob`.
    ///
    /// # Errors
    ///
    /// `NotFound`, I/O errors.
    async fn get(&self, blob: &BlobRef) -> StoreResult<Vec<u8>>;

    /// Keep journal payload chunks ([`crate::payload`]), in the order
    /// given (children before the nodes naming them), each under its id;
    /// a chunk already kept is left as it is. Returns the bytes newly
    /// stored. When it returns, the chunks are as durable as a synced
    /// journal line (a line naming them may be written next).
    ///
    /// Contract: `get_chunks` then returns the bytes put, `has_chunks`
    /// says `true` for them, and putting them again stores nothing more
    /// (returns 0). Chunks are store-wide and never deleted.
    ///
    /// # Errors
    ///
    /// I/O errors.
    async fn put_chunks(&self, chunks: &[Chunk]) -> StoreResult<u64>;

    /// The bytes of the chunks `ids`, in the same order.
    ///
    /// # Errors
    ///
    /// `NotFound` when one is not kept; I/O errors.
    async fn get_chunks(&self, ids: &[ChunkId]) -> StoreResult<Vec<Vec<u8>>>;

    /// Which of `ids` are kept, in the same order.
    ///
    /// # Errors
    ///
    /// I/O errors.
    async fn has_chunks(&self, ids: &[ChunkId]) -> StoreResult<Vec<bool>>;
}

/// Trigger definitions (a saved workflow started by an event pattern or a
/// cron expression), kept as JSON documents by name: the host parses them.
///
/// Contract:
/// - `put_trigger` stores the definition under `name`, replacing one
///   stored there; `triggers` returns every stored `(name, definition)`,
///   in name order; `remove_trigger` deletes one and says whether it was
///   there.
/// - An unsafe name (`../x`, empty, over 128 bytes) fails with
///   [`StoreError::InvalidName`].
#[async_trait]
pub trait TriggerStore: Send + Sync {
    /// Store (replace) a trigger definition.
    ///
    /// # Errors
    ///
    /// `InvalidName`, I/O errors.
    async fn put_trigger(&self, name: &str, definition: &serde_json::Value) -> StoreResult<()>;

    /// Every trigger definition, in name order.
    ///
    /// # Errors
    ///
    /// `Corrupt` (a definition that is not JSON), I/O errors.
    async fn triggers(&self) -> StoreResult<Vec<(String, serde_json::Value)>>;

    /// Remove a trigger definition; whether it was stored.
    ///
    /// # Errors
    ///
    /// `InvalidName`, I/O errors.
    async fn remove_trigger(&self, name: &str) -> StoreResult<bool>;
}

/// Whether a Kanban card id is one every store accepts (`kb_` + hex, or any
/// `[A-Za-z0-9_-]{1,64}`).
pub fn valid_card_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The built-in Kanban board of the Kanban lanes: which board the lanes use
/// (a JSON configuration) and one JSON card per id (`card["id"]`).
///
/// Contract:
/// - `put_kanban_board(Some(c))` stores the configuration, `None` clears
///   it; `kanban_board` returns what was stored last (`None`: none).
/// - `create_card` stores a card unless one with its id is stored, and
///   returns the stored card with whether it was created now: creators
///   racing on one id (a replay, two runners on two machines) get one card,
///   the first's.
/// - `card` returns the card last stored ([`StoreError::NotFound`] for an
///   unknown id); `replace_card` replaces a stored card (`NotFound` when
///   there is none); `cards` returns every card, by `created_at_ms` then id.
/// - A card id that is not `[A-Za-z0-9_-]{1,64}` is refused with
///   `invalid_args`.
#[async_trait]
pub trait KanbanStore: Send + Sync {
    /// The board configuration, if one is stored.
    ///
    /// # Errors
    ///
    /// `Corrupt`, I/O errors.
    async fn kanban_board(&self) -> StoreResult<Option<serde_json::Value>>;

    /// Store (`Some`) or clear (`None`) the board configuration.
    ///
    /// # Errors
    ///
    /// I/O errors.
    async fn put_kanban_board(&self, config: Option<&serde_json::Value>) -> StoreResult<()>;

    /// Create a card unless its id is stored; the stored card and whether
    /// it was created now.
    ///
    /// # Errors
    ///
    /// `invalid_args` for a bad id, `Corrupt`, I/O errors.
    async fn create_card(&self, card: &serde_json::Value) -> StoreResult<(serde_json::Value, bool)>;

    /// One card.
    ///
    /// # Errors
    ///
    /// `NotFound`, `invalid_args` for a bad id, `Corrupt`, I/O errors.
    async fn card(&self, id: &str) -> StoreResult<serde_json::Value>;

    /// Replace a stored card (by its id).
    ///
    /// # Errors
    ///
    /// `NotFound`, `invalid_args` for a bad id, I/O errors.
    async fn replace_card(&self, card: &serde_json::Value) -> StoreResult<()>;

    /// Every card, by creation time then id.
    ///
    /// # Errors
    ///
    /// `Corrupt`, I/O errors.
    async fn cards(&self) -> StoreResult<Vec<serde_json::Value>>;
}

/// The sandbox's compile cache: precompiled components keyed by digest
/// and engine. Machine-local (the artifacts are mmapped from a file and
/// only valid for this engine build), so synchronous and never in a
/// shared database.
pub trait CompileCache: Send + Sync {
    /// The file holding the artifact for `key`, when present (`None` for
    /// an unsafe key).
    fn artifact_path(&self, key: &str) -> Option<PathBuf>;

    /// Keep `artifact` under `key`, written atomically.
    ///
    /// # Errors
    ///
    /// `invalid_name` for an unsafe key, `io`.
    fn put_artifact(&self, key: &str, artifact: &[u8]) -> Result<()>;
}

/// A control as every store keeps it: the free-text fields (`actor`,
/// `reason`, `channel`, `message_id`, `value`) redacted.
///
/// # Errors
///
/// `invalid_args` when the id or call ref looks like a credential (an id
/// is matched on, so it cannot be redacted).
pub fn stored_control(control: &Control) -> Result<Control> {
    refuse_credential_id("control id", &control.id)?;
    if let Some(call) = &control.call {
        refuse_credential_id("call ref", call)?;
    }
    let mut c = control.clone();
    redact_string(&mut c.actor);
    for s in [&mut c.reason, &mut c.channel, &mut c.message_id].into_iter().flatten() {
        redact_string(s);
    }
    if let Some(v) = &mut c.value {
        crate::redact::redact_value(v);
    }
    Ok(c)
}

/// An external event as every store keeps it: source, type, subject and
/// payload redacted.
///
/// # Errors
///
/// `invalid_args` when the id looks like a credential.
pub fn stored_event(mut event: ExternalEvent) -> Result<ExternalEvent> {
    refuse_credential_id("event id", &event.id)?;
    redact_string(&mut event.source);
    redact_string(&mut event.kind);
    if let Some(s) = &mut event.subject {
        redact_string(s);
    }
    crate::redact::redact_value(&mut event.payload);
    Ok(event)
}

fn redact_string(s: &mut String) {
    if let std::borrow::Cow::Owned(r) = crate::redact::redact_text(s) {
        *s = r;
    }
}

fn refuse_credential_id(what: &str, id: &str) -> Result<()> {
    if matches!(crate::redact::redact_text(id), std::borrow::Cow::Owned(_)) {
        return Err(Error::new(
            ErrorCode::InvalidArgs,
            format!("the {what} looks like a credential; ids are stored and shown as they are, so use another id"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_refs_round_trip_and_refuse_paths() {
        for a in [Artifact::Result, Artifact::Transcript { call: "3.1" }] {
            let r = ArtifactRef::of(a).expect("ref");
            assert_eq!(ArtifactRef::parse(r.as_str()).expect("parse"), r);
            assert_eq!(r.artifact(), a);
            let json = serde_json::to_string(&r).expect("json");
            assert_eq!(serde_json::from_str::<ArtifactRef>(&json).expect("back"), r);
        }
        for bad in [
            "runs/r1/result.json",
            "transcripts/../x",
            "transcripts/",
            "../result",
            "",
        ] {
            assert_eq!(
                ArtifactRef::parse(bad).expect_err(bad).code(),
                ErrorCode::InvalidName,
                "{bad}"
            );
        }
        assert!(serde_json::from_str::<ArtifactRef>("\"/etc/passwd\"").is_err());
    }

    #[test]
    fn blob_refs_are_content_addresses() {
        let a = BlobRef::of(b"export default 1", Language::Js);
        assert_eq!(a, BlobRef::of(b"export default 1", Language::Js));
        assert_ne!(a, BlobRef::of(b"export default 2", Language::Js));
        assert!(a.as_str().ends_with(".js"));
        assert_eq!(BlobRef::parse(a.as_str()).expect("parse"), a);
        for bad in ["../x.js", "abc.js", &format!("{}.exe", "0".repeat(64))] {
            assert_eq!(BlobRef::parse(bad).expect_err(bad).code(), ErrorCode::InvalidName);
        }
    }

    #[test]
    fn a_released_fence_refuses_in_every_clone() {
        let f = Fence::new(RunId::generate(), 7);
        let g = f.clone();
        assert!(g.check().is_ok());
        f.release();
        let e = g.check().expect_err("fenced");
        assert_eq!(e.code(), ErrorCode::Conflict);
        assert!(e.to_string().contains("token 7"), "{e}");
    }

    #[test]
    fn stored_records_are_redacted_and_credential_ids_refused() {
        let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH";
        let mut c = Control::new(crate::control::Action::Pause, format!("alice {key}"));
        let stored = stored_control(&c).expect("stored");
        assert!(!stored.actor.contains(key), "{}", stored.actor);
        c.id = key.into();
        assert_eq!(stored_control(&c).expect_err("id").code(), ErrorCode::InvalidArgs);
    }
}
