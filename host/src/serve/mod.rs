//! `hwf serve`: the web console and its JSON API (axum), with an
//! in-process runner, live updates over SSE and webhook ingress.
//!
//! - **Where it listens**: loopback by default (`127.0.0.1`); another
//!   address only on request, and then every `/api/` request needs the
//!   token, reads included.
//! - **The token**: `--token` / `HWF_TOKEN`, else the one stored in
//!   `<state>/console-token` (0600), else a fresh one generated, stored there
//!   and printed once. Every non-GET `/api/` request needs
//!   `Authorization: Bearer <token>` (compared in constant time); the page
//!   reads it from the `#token=` fragment of the URL `hwf serve` prints and
//!   keeps it in the tab's `sessionStorage`.
//! - **CSRF and rebinding**: a POST whose `Origin` is not this server, or
//!   whose `Sec-Fetch-Site` is `cross-site`/`same-site`, is refused (403);
//!   on a loopback bind a request whose `Host` is not a loopback name is
//!   refused (421), so a rebound DNS name cannot read the API. No CORS
//!   headers are sent, so a cross-origin page cannot read responses nor
//!   send the `Authorization` header.
//! - **Bodies**: at most [`MAX_BODY`] bytes (413), JSON objects only (400).
//! - **Decisions and controls** go through the facade's
//!   `workflow_control` (the same checks and records as the CLI and MCP:
//!   `runner::validate_decision`, `control::record`) with channel `web`
//!   and a request id, and wake the in-process runner, which continues
//!   the run at once.
//! - **Webhooks**: `POST /hooks/<source>` with an HMAC-SHA256 signature
//!   ([`hooks`]), stored idempotently by delivery id as events.
//!
//! The page and its script and styles are embedded ([`page`]); nothing is
//! fetched from elsewhere. The API is documented in `docs/CONSOLE.md`.

pub mod api;
pub mod hooks;
pub mod page;

use crate::Hwf;
use crate::facade::Options;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hwf_core::error::{Error, ErrorCode, Result};
use hwf_core::ids::RunId;
use serde_json::json;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// The largest request body accepted (bytes).
pub const MAX_BODY: usize = 1 << 20;
/// How long a client may take to send a request's headers: a connection
/// that opens and sends nothing (or half a request) is closed after this,
/// so idle sockets cannot pile up.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long in-flight requests get to finish after ctrl-c (live streams
/// never do).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// How often the in-process runner and the live stream look at the state
/// dir (both are also woken by what this server records).
pub const SCAN: Duration = Duration::from_millis(200);
/// The file in the state dir that keeps the generated token.
pub use crate::store::TOKEN_FILE;
/// The shortest token accepted.
pub const MIN_TOKEN_LEN: usize = 16;

/// How to run the console.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Address to bind (default loopback).
    pub bind: IpAddr,
    /// Port (0: any free port).
    pub port: u16,
    /// The token given by `--token` / `HWF_TOKEN`.
    pub token: Option<String>,
    /// Runs the in-process runner executes at once.
    pub concurrency: usize,
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            bind: IpAddr::from([127, 0, 0, 1]),
            port: 8765,
            token: None,
            concurrency: crate::app::scheduler::DEFAULT_CONCURRENCY,
        }
    }
}

/// What the handlers share.
pub struct AppState {
    /// The host.
    pub hwf: Arc<Hwf>,
    /// Facade options (wake the in-process runner).
    pub opts: Options,
    /// The bearer token.
    pub token: String,
    /// Whether the server listens on loopback only.
    pub loopback: bool,
    /// The port actually bound.
    pub port: u16,
    /// Wakes the in-process runner and the live streams.
    pub wake: Arc<Notify>,
    /// Bumped on every wake: live streams compare it.
    pub changes: Arc<tokio::sync::watch::Sender<u64>>,
    /// Webhook secrets by source.
    pub hook_secrets: hooks::Secrets,
    /// Journal reads in flight (`GET /api/runs/{id}/journal`): each parses
    /// a whole journal, so at most [`JOURNAL_READS`] at once bound the
    /// memory a burst of requests for a huge run can take.
    pub journal_reads: Arc<tokio::sync::Semaphore>,
}

/// How many journal reads the console serves at once.
pub const JOURNAL_READS: usize = 2;

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("loopback", &self.loopback)
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// Tell the runner and the live streams that something changed.
    pub fn kick(&self) {
        self.wake.notify_one();
        self.changes.send_modify(|v| *v = v.wrapping_add(1));
    }
}

/// The token to use: the given one, else the stored one, else a fresh one
/// (stored 0600). Returns it and whether it was generated now.
///
/// # Errors
///
/// `invalid_args` for a token shorter than [`MIN_TOKEN_LEN`] or with
/// characters outside printable ASCII; `io` when the file cannot be
/// written.
pub fn resolve_token(state_dir: &Path, given: Option<&str>) -> Result<(String, bool)> {
    let check = |t: &str, from: &str| -> Result<()> {
        if t.len() < MIN_TOKEN_LEN || !t.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                format!("the console token ({from}) must be at least {MIN_TOKEN_LEN} printable ASCII characters"),
            ));
        }
        Ok(())
    };
    if let Some(t) = given.filter(|t| !t.is_empty()) {
        check(t, "--token / HWF_TOKEN")?;
        return Ok((t.to_owned(), false));
    }
    let path = state_dir.join(TOKEN_FILE);
    if let Ok(text) = std::fs::read_to_string(&path) {
        let t = text.trim().to_owned();
        check(&t, &path.display().to_string())?;
        return Ok((t, false));
    }
    let mut bytes = [0u8; 24];
    rand::fill(&mut bytes);
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    std::fs::create_dir_all(state_dir).map_err(|e| Error::io("state dir", e))?;
    write_private(&path, &token).map_err(|e| Error::io("console token", e))?;
    Ok((token, true))
}

fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

/// Constant-time comparison of two byte strings.
pub fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// An error as an HTTP response: the facade's error envelope with a
/// status from its code.
pub fn error_response(e: &Error) -> Response {
    let status = match e.code() {
        ErrorCode::NotFound | ErrorCode::InvalidName => StatusCode::NOT_FOUND,
        c if c.is_bad_input() => StatusCode::BAD_REQUEST,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    (status, axum::Json(crate::facade::error_envelope(e, None))).into_response()
}

/// A refusal with its own status and a stable code.
pub fn refuse(status: StatusCode, code: &str, message: &str) -> Response {
    (
        status,
        axum::Json(json!({"success": false, "error": {"code": code, "message": message}})),
    )
        .into_response()
}

/// Whether a `Host` header (or an `Origin`'s authority) names this
/// machine's loopback: `localhost`, `127.0.0.0/8` or `[::1]`, any port.
pub fn loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The bearer token of a request: `Authorization: Bearer …`, or for a GET
/// (`EventSource` cannot set headers) `?access_token=…`.
fn presented_token<'a>(headers: &'a HeaderMap, method: &Method, query: Option<&'a str>) -> Option<&'a str> {
    if let Some(v) = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) {
        return v.strip_prefix("Bearer ").map(str::trim);
    }
    if method == Method::GET {
        return query?.split('&').find_map(|kv| kv.strip_prefix("access_token="));
    }
    None
}

/// The guard in front of every route: Host check, CSRF checks on writes,
/// the token on every `/api/` write (and on every `/api/` read off
/// loopback), security headers on every response.
async fn guard(State(app): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    if app.loopback && !loopback_host(host) {
        return refuse(
            StatusCode::MISDIRECTED_REQUEST,
            "forbidden",
            "this console answers only to a loopback Host (127.0.0.1, localhost, [::1])",
        );
    }
    let write = method != Method::GET && method != Method::HEAD;
    if write {
        if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok())
            && !matches!(site, "same-origin" | "none")
        {
            return refuse(StatusCode::FORBIDDEN, "forbidden", "cross-site request refused");
        }
        if let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
            let same = origin
                .strip_prefix("http://")
                .is_some_and(|o| o.eq_ignore_ascii_case(host));
            if !same {
                return refuse(StatusCode::FORBIDDEN, "forbidden", "cross-origin request refused");
            }
        }
    }
    let needs_token = path.starts_with("/api/") && (write || !app.loopback);
    if needs_token {
        match presented_token(headers, &method, req.uri().query()) {
            Some(t) if ct_eq(t.as_bytes(), app.token.as_bytes()) => {}
            Some(_) => return refuse(StatusCode::UNAUTHORIZED, "unauthorized", "wrong token"),
            None => {
                let mut r = refuse(
                    StatusCode::UNAUTHORIZED,
                    "unauthorized",
                    "this request needs Authorization: Bearer <token> (see hwf serve's output)",
                );
                r.headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                return r;
            }
        }
    }
    let mut resp = next.run(req).await;
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        ),
    );
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    if path.starts_with("/api/") {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    resp
}

/// The router over a shared state (exposed for tests).
pub fn router(app: Arc<AppState>) -> axum::Router {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/", get(page::index))
        .route("/assets/{file}", get(page::asset))
        .route("/api/health", get(api::health))
        .route("/api/runs", get(api::runs))
        .route("/api/runs/{id}", get(api::run))
        .route("/api/runs/{id}/journal", get(api::journal))
        .route("/api/runs/{id}/page", get(api::run_page))
        .route("/api/runs/{id}/result", get(api::run_result))
        .route("/api/runs/{id}/calls/{call}", get(api::call))
        .route("/api/runs/{id}/calls/{call}/fork", get(api::fork_options))
        .route("/api/runs/{id}/controls", post(api::control))
        .route("/api/runs/{id}/decisions", post(api::decision))
        .route("/api/runs/{id}/rerun", post(api::rerun))
        .route("/api/runs/{id}/fork", post(api::fork))
        .route("/api/runs/{id}/plan", get(api::plan))
        .route("/api/runs/{id}/drift", get(api::drift))
        .route("/api/waits", get(api::waits))
        .route("/api/events", get(api::events_list).post(api::event))
        .route("/api/stream", get(api::stream))
        .route("/hooks/{source}", post(hooks::hook))
        .fallback(api::not_found)
        .layer(axum::middleware::from_fn_with_state(app.clone(), guard))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .with_state(app)
}

/// Run the console until the process is ended (or ctrl-c).
///
/// Prints the address (and, when the token was generated now, the URL
/// with it) on stdout.
///
/// # Errors
///
/// `invalid_args` for a bad token, `io` when the address cannot be bound.
pub async fn serve(hwf: Hwf, mut opts: Options, cfg: ServeConfig) -> Result<()> {
    let state_dir: PathBuf = hwf.store().root().to_path_buf();
    let (token, generated) = resolve_token(&state_dir, cfg.token.as_deref())?;
    hwf_core::redact::register_secret(&token);
    let hook_secrets = hooks::Secrets::from_env();
    let addr = SocketAddr::new(cfg.bind, cfg.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::io(format!("bind {addr}"), e))?;
    let local = listener.local_addr().map_err(|e| Error::io("local address", e))?;
    let wake = Arc::new(Notify::new());
    let (changes, _) = tokio::sync::watch::channel(0u64);
    let changes = Arc::new(changes);
    let (w, c) = (wake.clone(), changes.clone());
    opts.wake = Some(Arc::new(move |_run: &RunId| {
        w.notify_one();
        c.send_modify(|v| *v = v.wrapping_add(1));
    }));
    opts.spawn_runner = None;
    // The console is a person's (writes need its token).
    opts.operator = true;
    let hwf = Arc::new(hwf);
    let app = Arc::new(AppState {
        hwf: hwf.clone(),
        opts,
        token: token.clone(),
        loopback: cfg.bind.is_loopback(),
        port: local.port(),
        wake: wake.clone(),
        changes: changes.clone(),
        hook_secrets,
        journal_reads: Arc::new(tokio::sync::Semaphore::new(JOURNAL_READS)),
    });
    let shown = match local.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => format!("127.0.0.1:{}", local.port()),
        IpAddr::V6(ip) if ip.is_unspecified() => format!("[::1]:{}", local.port()),
        _ => local.to_string(),
    };
    println!("hwf serve: listening on http://{shown}/");
    if generated {
        println!(
            "hwf serve: a new token was generated and stored in {}",
            state_dir.join(TOKEN_FILE).display()
        );
        println!("hwf serve: open http://{shown}/#token={token}");
    } else {
        println!(
            "hwf serve: open http://{shown}/#token=<your token> (the token: --token, HWF_TOKEN or {})",
            state_dir.join(TOKEN_FILE).display()
        );
    }
    // One watcher of the store for every live stream (a stream only waits
    // on `changes`), and only while a stream is open.
    let watcher = tokio::spawn(watch_store(hwf.clone(), changes.clone()));
    let runner = tokio::spawn(crate::app::scheduler::run_in_process(
        hwf,
        wake,
        Arc::new(ConsoleHooks { changes }),
        cfg.concurrency,
    ));
    // Ctrl-C: stop accepting, let requests finish; live streams never do,
    // so after a grace period the server ends anyway.
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        let _ = stop_tx.send(true);
    });
    let r = accept_loop(listener, router(app), stop_rx).await;
    watcher.abort();
    runner.abort();
    r
}

/// Bump `changes` whenever the store's change marker moves, checked every
/// [`SCAN`] while at least one live stream listens (none: no reads).
async fn watch_store(hwf: Arc<Hwf>, changes: Arc<tokio::sync::watch::Sender<u64>>) {
    let mut last = None;
    loop {
        tokio::time::sleep(SCAN).await;
        if changes.receiver_count() == 0 {
            // Keep the last marker seen: a stream that opens later hears
            // of what changed while none listened.
            continue;
        }
        let h = hwf.clone();
        let Ok(now) = tokio::task::spawn_blocking(move || h.store().change_marker()).await else {
            continue;
        };
        if last.is_some_and(|l| l != now) {
            changes.send_modify(|v| *v = v.wrapping_add(1));
        }
        last = Some(now);
    }
}

/// Serve HTTP/1.1 connections until `stop` turns true, each with a
/// [`HEADER_READ_TIMEOUT`]; then give open requests [`SHUTDOWN_GRACE`].
async fn accept_loop(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Result<()> {
    use tower::ServiceExt as _;
    let (closing_tx, closing_rx) = tokio::sync::watch::channel(());
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of descriptors and the like: back off, go on.
                    tracing::warn!("console: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = stop.wait_for(|stopped| *stopped) => break,
        };
        let router = router.clone();
        let service = hyper::service::service_fn(move |req: axum::http::Request<hyper::body::Incoming>| {
            router.clone().oneshot(req.map(axum::body::Body::new))
        });
        let mut closing = closing_rx.clone();
        connections.spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT);
            let conn = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::pin!(conn);
            tokio::select! {
                r = conn.as_mut() => {
                    if let Err(e) = r {
                        tracing::debug!("console: connection ended: {e}");
                    }
                }
                _ = closing.changed() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
        while connections.try_join_next().is_some() {}
    }
    drop(closing_tx);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    Ok(())
}

/// What the console does around the shared in-process runner: tell the
/// page's live streams that something changed once a pass ends.
struct ConsoleHooks {
    changes: Arc<tokio::sync::watch::Sender<u64>>,
}

impl crate::app::scheduler::InProcessHooks for ConsoleHooks {
    fn passed(&self, _run: &RunId) {
        self.changes.send_modify(|v| *v = v.wrapping_add(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_pass_on_a_loopback_bind() {
        for ok in ["127.0.0.1:8765", "localhost:1", "LOCALHOST", "[::1]:80", "127.0.0.2"] {
            assert!(loopback_host(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8765",
            "10.0.0.1:80",
            "",
            "[fe80::1]:1",
            "localhost.evil.example",
        ] {
            assert!(!loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn tokens_are_checked_kept_private_and_reused() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(
            resolve_token(dir.path(), Some("short")).expect_err("short").code(),
            ErrorCode::InvalidArgs
        );
        assert!(resolve_token(dir.path(), Some("has a space in it, long")).is_err());
        let (t, new) = resolve_token(dir.path(), None).expect("generated");
        assert!(new && t.len() >= MIN_TOKEN_LEN);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join(TOKEN_FILE))
            .expect("file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(resolve_token(dir.path(), None).expect("again"), (t, false));
        assert!(ct_eq(b"abc", b"abc") && !ct_eq(b"abc", b"abd") && !ct_eq(b"abc", b"ab"));
    }
}
