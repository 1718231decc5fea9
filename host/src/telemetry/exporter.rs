//! The background exporter: executions that ended are queued (bounded,
//! never waited on), and one task per host reads their journals, builds
//! the spans and posts them to the collector in batches.
//!
//! Nothing here is on a call's path: an execution only hands its run id and
//! final journal position to a channel ([`Exporter::execution_ended`],
//! a `try_send`). A collector that is down, slow or refusing costs the run
//! nothing: the post times out ([`super::ExportSettings::timeout`]), the
//! spans are dropped with a warning, and a full queue drops the newest
//! execution's spans the same way.
//!
//! **Retries.** A post that failed in a way the OTLP specification calls
//! transient — the collector answered 429, 502, 503 or 504, or could not
//! be reached — is sent again, at most [`ATTEMPTS`] times in all, after
//! [`RETRY_BACKOFF`], then four times that (or the collector's
//! `Retry-After`, up to [`MAX_RETRY_AFTER`]). The worker waits, never a
//! run. Once the process is exiting ([`flush_all`]) an unreachable
//! collector is not tried again (it will not come back within the bounded
//! flush), and no retry waits past the flush's deadline.

use super::settings::{ExportSettings, Protocol};
use super::spans::{self, RunInfo};
use crate::store::Store;
use hwf_core::ids::RunId;
use hwf_core::store::RunStore;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::{Notify, mpsc, oneshot};

/// Executions waiting to be exported, at most (a full queue drops the
/// newest with a warning).
pub const QUEUE: usize = 1024;

/// Spans in one export request, at most.
pub const MAX_BATCH: usize = 512;

/// Executions read and exported together, at most.
const JOBS_PER_BATCH: usize = 64;

/// Posts of one batch, at most: the first and two retries.
pub const ATTEMPTS: u32 = 3;

/// The wait before the first retry; each later one waits four times longer.
pub const RETRY_BACKOFF: Duration = Duration::from_millis(250);

/// The longest `Retry-After` a collector's answer is obeyed for.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(5);

/// When the process's final flush gives up (ms since [`clock_origin`]), 0
/// while it is not exiting: retries then stay within it.
static EXIT_DEADLINE_MS: AtomicU64 = AtomicU64::new(0);

/// The origin of [`EXIT_DEADLINE_MS`].
fn clock_origin() -> std::time::Instant {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *ORIGIN.get_or_init(std::time::Instant::now)
}

/// How a post failed.
#[derive(Debug)]
struct PostError {
    /// What happened (redacted).
    message: String,
    /// The collector could not be reached (or did not answer in time).
    unreachable: bool,
    /// Worth sending again: transient by the OTLP specification.
    retry: bool,
    /// The collector's `Retry-After`.
    after: Option<Duration>,
}

impl PostError {
    fn fatal(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            unreachable: false,
            retry: false,
            after: None,
        }
    }
}

/// How long to wait before attempt `attempt` (2, 3, …) after `e`, or
/// `None` to give up: not transient, no attempt left, an unreachable
/// collector while the process exits, or a wait past the exit deadline.
fn retry_wait(e: &PostError, attempt: u32) -> Option<Duration> {
    if !e.retry || attempt > ATTEMPTS {
        return None;
    }
    let wait = e
        .after
        .map(|a| a.min(MAX_RETRY_AFTER))
        .unwrap_or(RETRY_BACKOFF * 4u32.pow(attempt.saturating_sub(2)));
    let deadline = EXIT_DEADLINE_MS.load(Ordering::Acquire);
    if deadline > 0 {
        if e.unreachable {
            return None;
        }
        let now = clock_origin().elapsed().as_millis() as u64;
        if now + wait.as_millis() as u64 >= deadline {
            return None;
        }
    }
    Some(wait)
}

enum Msg {
    Ended(Job),
    Flush(oneshot::Sender<()>),
}

/// One ended execution: whose, and the journal position of its final
/// record.
struct Job {
    run: RunId,
    info: RunInfo,
    upto: u64,
}

/// Exports runs' traces over OTLP/HTTP in the background (see the module
/// docs). One per [`crate::Hwf`] whose configuration names an endpoint.
pub struct Exporter {
    settings: Arc<ExportSettings>,
    tx: mpsc::Sender<Msg>,
    /// The worker's side until the worker starts (on the first ended
    /// execution, inside the runtime that executed it).
    pending: Mutex<Option<(mpsc::Receiver<Msg>, Arc<Store>)>>,
    dropped: AtomicU64,
    exported: Arc<AtomicU64>,
}

impl std::fmt::Debug for Exporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exporter")
            .field("url", &self.settings.url)
            .field("protocol", &self.settings.protocol)
            .finish_non_exhaustive()
    }
}

/// Executions queued in this process and not yet exported or dropped,
/// whichever exporter took them (an exporter's worker outlives the host
/// that queued them, so [`flush_all`] waits on this, not on exporters).
static PENDING: AtomicUsize = AtomicUsize::new(0);

/// Woken whenever a worker finished a batch.
static DRAINED: Notify = Notify::const_new();

impl Exporter {
    /// An exporter posting to `settings.url`, reading journals from
    /// `store`. Its task starts with the first execution that ends.
    pub fn new(settings: ExportSettings, store: Arc<Store>) -> Arc<Self> {
        let (tx, rx) = mpsc::channel(QUEUE);
        Arc::new(Self {
            settings: Arc::new(settings),
            tx,
            pending: Mutex::new(Some((rx, store))),
            dropped: AtomicU64::new(0),
            exported: Arc::new(AtomicU64::new(0)),
        })
    }

    /// The settings it exports with.
    pub fn settings(&self) -> &ExportSettings {
        &self.settings
    }

    /// Spans posted and accepted so far.
    pub fn exported(&self) -> u64 {
        self.exported.load(Ordering::Relaxed)
    }

    /// Executions whose spans were dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// An execution of `run` ended with its final record at `upto`: queue
    /// its spans for export. Never waits; a full queue drops them with a
    /// warning.
    pub fn execution_ended(&self, run: &RunId, info: RunInfo, upto: u64) {
        if !self.start() {
            tracing::debug!(run_id = %run, "trace export: no async runtime to export from; spans dropped");
            return;
        }
        let job = Job {
            run: run.clone(),
            info,
            upto,
        };
        PENDING.fetch_add(1, Ordering::AcqRel);
        if let Err(e) = self.tx.try_send(Msg::Ended(job)) {
            PENDING.fetch_sub(1, Ordering::AcqRel);
            let n = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            let why = match e {
                mpsc::error::TrySendError::Full(_) => "the export queue is full",
                mpsc::error::TrySendError::Closed(_) => "the exporter has stopped",
            };
            tracing::warn!(run_id = %run, dropped = n, "trace export: {why}; this execution's spans are dropped");
        }
    }

    /// Wait until everything queued before this call was posted (or
    /// dropped), at most `timeout`. Returns whether it finished in time.
    pub async fn flush(&self, timeout: Duration) -> bool {
        if self.pending.lock().unwrap_or_else(PoisonError::into_inner).is_some() {
            return true; // nothing was ever queued
        }
        let (done, wait) = oneshot::channel();
        tokio::time::timeout(timeout, async {
            self.tx.send(Msg::Flush(done)).await.is_ok() && wait.await.is_ok()
        })
        .await
        .unwrap_or(false)
    }

    /// Start the worker task, once, on the current runtime; whether it runs.
    fn start(&self) -> bool {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let Some((rx, store)) = pending.take_if(|_| tokio::runtime::Handle::try_current().is_ok()) else {
            return pending.is_none();
        };
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return false;
        };
        let worker = Worker {
            settings: self.settings.clone(),
            store,
            client: client(&self.settings),
            exported: self.exported.clone(),
        };
        handle.spawn(worker.run(rx));
        true
    }
}

/// Wait until every execution this process queued for export was posted
/// (or dropped), at most `timeout` (the binary calls this before it
/// exits). Returns whether all were done in time.
pub async fn flush_all(timeout: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + timeout;
    // Retries from now on stay within this flush.
    let exit_at = clock_origin().elapsed() + timeout;
    EXIT_DEADLINE_MS.store((exit_at.as_millis() as u64).max(1), Ordering::Release);
    loop {
        let drained = DRAINED.notified();
        tokio::pin!(drained);
        drained.as_mut().enable();
        if PENDING.load(Ordering::Acquire) == 0 {
            return true;
        }
        if tokio::time::timeout_at(deadline, drained).await.is_err() {
            return false;
        }
    }
}

fn client(settings: &ExportSettings) -> Option<reqwest::Client> {
    match reqwest::Client::builder()
        .timeout(settings.timeout)
        .connect_timeout(settings.timeout.min(Duration::from_secs(3)))
        .build()
    {
        Ok(c) => Some(c),
        Err(e) => {
            tracing::warn!(error = %e, "trace export: no HTTP client; nothing will be exported");
            None
        }
    }
}

struct Worker {
    settings: Arc<ExportSettings>,
    store: Arc<Store>,
    client: Option<reqwest::Client>,
    exported: Arc<AtomicU64>,
}

impl Worker {
    async fn run(self, mut rx: mpsc::Receiver<Msg>) {
        while let Some(first) = rx.recv().await {
            let mut jobs = Vec::new();
            let mut flushes = Vec::new();
            let mut next = Some(first);
            while let Some(msg) = next.take() {
                match msg {
                    Msg::Ended(job) => jobs.push(job),
                    // A flush answers once what came before it is posted.
                    Msg::Flush(done) => {
                        flushes.push(done);
                        break;
                    }
                }
                if jobs.len() < JOBS_PER_BATCH {
                    next = rx.try_recv().ok();
                }
            }
            let taken = jobs.len();
            let mut batch = Vec::new();
            for job in jobs {
                match RunStore::entries(&*self.store, &job.run, 0).await {
                    Ok(entries) => batch.extend(spans::build(
                        &job.info,
                        &entries,
                        job.upto,
                        self.settings.capture_content,
                    )),
                    Err(e) => {
                        tracing::warn!(run_id = %job.run, error = %e, "trace export: the journal could not be read")
                    }
                }
            }
            for chunk in batch.chunks(MAX_BATCH) {
                self.post_with_retries(chunk).await;
            }
            PENDING.fetch_sub(taken, Ordering::AcqRel);
            DRAINED.notify_waiters();
            for done in flushes {
                let _ = done.send(());
            }
        }
    }

    /// Post one batch, again after a transient failure ([`retry_wait`]);
    /// dropped with a warning in the end.
    async fn post_with_retries(&self, chunk: &[Span]) {
        let mut attempt = 1;
        loop {
            match self.post(chunk.to_vec()).await {
                Ok(()) => {
                    self.exported.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                    if attempt > 1 {
                        tracing::info!(url = %self.settings.url, spans = chunk.len(), attempt, "trace export: taken on a retry");
                    }
                    return;
                }
                Err(e) => {
                    attempt += 1;
                    match retry_wait(&e, attempt) {
                        Some(wait) => {
                            tracing::debug!(url = %self.settings.url, attempt, wait_ms = wait.as_millis() as u64, "trace export failed, retrying: {}", e.message);
                            tokio::time::sleep(wait).await;
                        }
                        None => {
                            tracing::warn!(
                                url = %self.settings.url,
                                spans = chunk.len(),
                                attempts = attempt - 1,
                                "trace export failed, spans dropped: {}",
                                e.message
                            );
                            return;
                        }
                    }
                }
            }
        }
    }

    async fn post(&self, spans: Vec<Span>) -> Result<(), PostError> {
        let Some(client) = &self.client else {
            return Err(PostError::fatal("no HTTP client"));
        };
        let body = encode(&self.settings, spans).map_err(PostError::fatal)?;
        let mut post = client
            .post(&self.settings.url)
            .header(reqwest::header::CONTENT_TYPE, self.settings.protocol.content_type())
            .body(body);
        for (k, v) in &self.settings.headers {
            post = post.header(k.as_str(), v.as_str());
        }
        let response = post.send().await.map_err(|e| PostError {
            message: if e.is_timeout() {
                format!("no answer within {} ms", self.settings.timeout.as_millis())
            } else {
                hwf_core::redact::redact_text(&e.to_string()).into_owned()
            },
            unreachable: e.is_connect() || e.is_timeout(),
            retry: e.is_connect() || e.is_timeout() || e.is_request(),
            after: None,
        })?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        let after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let said = response.text().await.unwrap_or_default();
        let said: String = hwf_core::redact::redact_text(&said).chars().take(200).collect();
        Err(PostError {
            message: format!("the collector answered {status}: {said}"),
            unreachable: false,
            retry: matches!(status.as_u16(), 429 | 502 | 503 | 504),
            after,
        })
    }
}

/// The body of one export request, in the settings' wire format.
///
/// # Errors
///
/// The JSON encoder's message (it does not fail on these types).
pub fn encode(settings: &ExportSettings, spans: Vec<Span>) -> Result<Vec<u8>, String> {
    let request = request(settings, spans);
    match settings.protocol {
        Protocol::HttpProtobuf => Ok(prost::Message::encode_to_vec(&request)),
        Protocol::HttpJson => serde_json::to_vec(&request).map_err(|e| format!("JSON encoding: {e}")),
    }
}

/// One OTLP export request: this process as the resource, hwf as the
/// instrumentation scope.
pub fn request(settings: &ExportSettings, spans: Vec<Span>) -> ExportTraceServiceRequest {
    let attr = |k: &str, v: &str| KeyValue {
        key: k.to_owned(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(v.to_owned())),
        }),
        ..KeyValue::default()
    };
    let mut attributes = vec![
        attr("service.name", &settings.service_name),
        attr("service.version", env!("CARGO_PKG_VERSION")),
        attr("telemetry.sdk.name", "hwf"),
        attr("telemetry.sdk.language", "rust"),
        attr("telemetry.sdk.version", env!("CARGO_PKG_VERSION")),
    ];
    attributes.extend(settings.resource.iter().map(|(k, v)| attr(k, v)));
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes,
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: "hwf".to_owned(),
                    version: env!("CARGO_PKG_VERSION").to_owned(),
                    ..InstrumentationScope::default()
                }),
                spans,
                schema_url: String::new(),
            }],
            schema_url: String::new(),
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(retry: bool, unreachable: bool, after: Option<Duration>) -> PostError {
        PostError {
            message: String::new(),
            unreachable,
            retry,
            after,
        }
    }

    #[test]
    fn transient_failures_are_retried_with_growing_bounded_waits() {
        // Not exiting (no flush has started in this test binary).
        assert_eq!(retry_wait(&err(true, false, None), 2), Some(RETRY_BACKOFF));
        assert_eq!(retry_wait(&err(true, true, None), 3), Some(RETRY_BACKOFF * 4));
        assert_eq!(retry_wait(&err(true, false, None), ATTEMPTS + 1), None, "bounded");
        assert_eq!(retry_wait(&err(false, false, None), 2), None, "a 400 is not retried");
        assert_eq!(
            retry_wait(&err(true, false, Some(Duration::from_secs(60))), 2),
            Some(MAX_RETRY_AFTER),
            "Retry-After is obeyed up to a bound"
        );
    }
}
