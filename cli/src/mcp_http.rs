//! `hwf mcp --http ADDR`: the MCP server over Streamable HTTP at `/mcp`
//! (rmcp's `StreamableHttpService` mounted in axum), beside stdio: the same
//! [`Server`] — tools, resources, the in-process runner — for every
//! connection.
//!
//! - **Revisions**: the 2025 revisions with sessions (`initialize`, then
//!   `Mcp-Session-Id`; `GET /mcp` is the session's notification stream,
//!   `DELETE /mcp` ends it) and 2026-07-28 stateless requests
//!   (`server/discover`, per-request `_meta`), as rmcp serves them. A
//!   response is JSON when nothing precedes it, else an SSE stream
//!   (progress notifications, then the result). `Mcp-Method` / `Mcp-Name`
//!   headers are checked against the body by rmcp (a contradiction is
//!   `-32020`-style `header_mismatch`); nothing here rejects them.
//! - **Where it listens**: `HOST:PORT`, `HOST` (any free port) or `PORT`
//!   (on `127.0.0.1`); the bound address is printed (`hwf mcp: listening
//!   on http://…/mcp`) on stdout, or on stderr with `--stdio` (stdout is
//!   then the stdio client's).
//! - **The token**: `--token` / `HWF_TOKEN`; off loopback, when neither is
//!   given, the console's stored token (`<state>/console-token`) or a new
//!   one (stored 0600 and printed once), as `hwf serve` does. When a token
//!   is in force every request needs `Authorization: Bearer <token>`
//!   (compared in constant time; 401 with `WWW-Authenticate: Bearer`): in
//!   MCP every message is a POST, reads included. On loopback without a
//!   token, anyone on this machine can call the tools — as anyone who can
//!   start `hwf mcp` on stdio can.
//! - **DNS rebinding and CSRF**: on a loopback bind a request whose `Host`
//!   is not a loopback name is refused (403), so a rebound DNS name cannot
//!   reach the server; a request with an `Origin` that is neither a
//!   loopback origin (`http://localhost:*`, `http://127.0.0.1:*`,
//!   `http://[::1]:*`) nor this server's own (the `Host` it was sent to)
//!   is refused (403), as is `Origin: null`. No CORS headers are sent.

use crate::mcp::Server;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hwf_host::serve::{ct_eq, loopback_host, refuse, resolve_token};
use hwf_host::{Error, ErrorCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// The endpoint.
pub const PATH: &str = "/mcp";
/// How long an idle HTTP session (2025 revisions) is kept.
pub const SESSION_IDLE: Duration = Duration::from_secs(3600);

/// How to serve `--http`.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Where to listen (port 0: any free port).
    pub addr: SocketAddr,
    /// `--token` / `HWF_TOKEN`.
    pub token: Option<String>,
    /// Serve stdio too.
    pub stdio: bool,
}

/// Parse `--http`'s value: `HOST:PORT`, `[V6]:PORT`, an IP address (any
/// free port), `localhost[:PORT]`, or a port (on `127.0.0.1`).
///
/// # Errors
///
/// `invalid_args` naming the value.
pub fn parse_addr(text: &str) -> Result<SocketAddr, Error> {
    let loopback = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let s = text.trim();
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Ok(a);
    }
    if let Ok(ip) = s.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, 0));
    }
    if let Ok(port) = s.trim_start_matches(':').parse::<u16>() {
        return Ok(SocketAddr::new(loopback, port));
    }
    let (host, port) = match s.rsplit_once(':') {
        Some((h, p)) => match p.parse::<u16>() {
            Ok(p) => (h, p),
            Err(_) => (s, 0),
        },
        None => (s, 0),
    };
    if host.eq_ignore_ascii_case("localhost") {
        return Ok(SocketAddr::new(loopback, port));
    }
    Err(Error::new(
        ErrorCode::InvalidArgs,
        format!("--http {text:?}: expected HOST:PORT, an IP address (any free port) or a port (on 127.0.0.1)"),
    ))
}

/// What the guard in front of `/mcp` checks.
struct Guard {
    loopback: bool,
    token: Option<String>,
}

/// Whether an `Origin` may call: a loopback origin, or this server's own
/// (`host` is the request's `Host`).
fn origin_allowed(origin: &str, host: &str) -> bool {
    let Some(authority) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        // `null`, another scheme, or garbage.
        return false;
    };
    if authority.is_empty() || authority.contains(['/', '?', '#', '@']) {
        return false;
    }
    loopback_host(authority) || (!host.is_empty() && authority.eq_ignore_ascii_case(host))
}

/// The guard: Host (on loopback), Origin, then the token.
async fn guard(State(g): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let delete = req.method() == axum::http::Method::DELETE;
    let headers = req.headers();
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    if g.loopback && !loopback_host(host) {
        return refuse(
            StatusCode::FORBIDDEN,
            "forbidden",
            "this MCP server answers only to a loopback Host (127.0.0.1, localhost, [::1])",
        );
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ok = origin.to_str().is_ok_and(|o| origin_allowed(o, host));
        if !ok {
            return refuse(
                StatusCode::FORBIDDEN,
                "forbidden",
                "cross-origin request refused: the Origin is neither loopback nor this server",
            );
        }
    }
    if let Some(token) = &g.token {
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        match presented {
            Some(t) if ct_eq(t.as_bytes(), token.as_bytes()) => {}
            Some(_) => {
                let mut r = refuse(StatusCode::UNAUTHORIZED, "unauthorized", "wrong token");
                r.headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                return r;
            }
            None => {
                let mut r = refuse(
                    StatusCode::UNAUTHORIZED,
                    "unauthorized",
                    "this server needs Authorization: Bearer <token> (hwf mcp --token, HWF_TOKEN)",
                );
                r.headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                return r;
            }
        }
    }
    let req = match checked_body(req).await {
        Ok(req) => req,
        Err(refused) => return refused,
    };
    let mut resp = next.run(req).await;
    // A session ended: 204, which clients expect (rmcp answers 202).
    if delete && resp.status() == StatusCode::ACCEPTED {
        *resp.status_mut() = StatusCode::NO_CONTENT;
    }
    let h = resp.headers_mut();
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// A POST's body checked as stdio's lines are (`mcp_filter::verdict`):
/// not UTF-8 or not JSON → 400 with a `-32700` JSON-RPC error, a malformed
/// message (a fractional id, no method…) → 400 with `-32600`, a body over
/// `mcp_filter::MAX_LINE` → 413; else the request, its body put back.
async fn checked_body(req: Request) -> Result<Request, Response> {
    if req.method() != axum::http::Method::POST {
        return Ok(req);
    }
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, crate::mcp_filter::MAX_LINE).await {
        Ok(b) => b,
        Err(_) => {
            return Err(refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                "request_too_large",
                &format!("a message is at most {} bytes", crate::mcp_filter::MAX_LINE),
            ));
        }
    };
    if let Some(reply) = crate::mcp_filter::verdict(&bytes) {
        let mut r = axum::Json(reply).into_response();
        *r.status_mut() = StatusCode::BAD_REQUEST;
        return Err(r);
    }
    Ok(Request::from_parts(parts, axum::body::Body::from(bytes)))
}

/// The token in force: the given one; off loopback, else the stored or a
/// new one (printed when new); on loopback none.
fn token_for(cfg: &HttpConfig, state_dir: &std::path::Path, say: &dyn Fn(String)) -> Result<Option<String>, Error> {
    match cfg.token.as_deref() {
        Some("") => Err(Error::new(ErrorCode::InvalidArgs, "--token is empty")),
        Some(t) => Ok(Some(resolve_token(state_dir, Some(t))?.0)),
        None if cfg.addr.ip().is_loopback() => Ok(None),
        None => {
            let (t, generated) = resolve_token(state_dir, None)?;
            let file = state_dir.join(hwf_host::serve::TOKEN_FILE);
            if generated {
                say(format!(
                    "hwf mcp: a new token was generated and stored in {}: send Authorization: Bearer {t}",
                    file.display()
                ));
            } else {
                say(format!(
                    "hwf mcp: requests need Authorization: Bearer <token> (the token: --token, HWF_TOKEN or {})",
                    file.display()
                ));
            }
            Ok(Some(t))
        }
    }
}

/// Serve `server` over Streamable HTTP (and stdio with `--stdio`) until
/// Ctrl-C or SIGTERM (or the stdio client leaving).
///
/// # Errors
///
/// `invalid_args` for a bad token, `io` when the address cannot be bound.
pub async fn serve(server: Server, cfg: HttpConfig) -> Result<(), Error> {
    let say = |line: String| {
        if cfg.stdio {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    let token = token_for(&cfg, &server.state_dir(), &say)?;
    if let Some(t) = &token {
        hwf_core::redact::register_secret(t);
    }
    let listener = tokio::net::TcpListener::bind(cfg.addr)
        .await
        .map_err(|e| Error::io(format!("bind {}", cfg.addr), e))?;
    let local = listener.local_addr().map_err(|e| Error::io("local address", e))?;
    let shown = match local.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => format!("127.0.0.1:{}", local.port()),
        IpAddr::V6(ip) if ip.is_unspecified() => format!("[::1]:{}", local.port()),
        _ => local.to_string(),
    };

    // rmcp checks Host itself only against a fixed list; the guard does it
    // (loopback names, any port) and the Origin and token as well.
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_json_response(true)
        .with_sse_keep_alive(Some(Duration::from_secs(15)))
        .with_max_request_body_bytes(hwf_host::serve::MAX_BODY * 4);
    let stopped = config.cancellation_token.clone();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(SESSION_IDLE);
    let factory = server.clone();
    let mcp = StreamableHttpService::new(move || Ok(factory.for_connection()), Arc::new(sessions), config);
    let g = Arc::new(Guard {
        loopback: cfg.addr.ip().is_loopback(),
        token,
    });
    let app = axum::Router::new()
        .route_service(PATH, mcp)
        .fallback(|| async { refuse(StatusCode::NOT_FOUND, "not_found", "the MCP endpoint is /mcp") })
        .layer(axum::middleware::from_fn_with_state(g, guard));
    say(format!("hwf mcp: listening on http://{shown}{PATH}"));

    let stdio = cfg.stdio.then(|| tokio::spawn(crate::mcp::serve_stdio(server.clone())));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stop = async move {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        let sigterm = async {
            match term.as_mut() {
                Some(t) => {
                    t.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        let stdio_done = async {
            match stdio {
                Some(task) => {
                    let _ = task.await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            () = sigterm => {}
            () = stdio_done => {}
        }
        // Ends the sessions' streams, so the graceful shutdown can finish.
        stopped.cancel();
        let _ = stop_tx.send(true);
    };
    let http = axum::serve(listener, app).with_graceful_shutdown(stop);
    let grace = async move {
        let mut rx = stop_rx;
        let _ = rx.wait_for(|s| *s).await;
        tokio::time::sleep(Duration::from_secs(2)).await;
    };
    tokio::select! {
        r = http => r.map_err(|e| Error::io("serve", e)),
        () = grace => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse_in_every_short_form() {
        let ok = |s: &str, want: &str| assert_eq!(parse_addr(s).expect(s).to_string(), want, "{s}");
        ok("127.0.0.1:8766", "127.0.0.1:8766");
        ok("127.0.0.1", "127.0.0.1:0");
        ok("0.0.0.0:0", "0.0.0.0:0");
        ok("8766", "127.0.0.1:8766");
        ok(":8766", "127.0.0.1:8766");
        ok("localhost", "127.0.0.1:0");
        ok("localhost:9", "127.0.0.1:9");
        ok("[::1]:9", "[::1]:9");
        ok("::1", "[::1]:0");
        for bad in ["", "example.com:80", "127.0.0.1:99999", "x"] {
            assert_eq!(parse_addr(bad).expect_err(bad).code(), ErrorCode::InvalidArgs, "{bad}");
        }
    }

    #[test]
    fn origins_are_loopback_or_this_server() {
        for ok in [
            "http://localhost:6274",
            "http://127.0.0.1",
            "http://[::1]:3000",
            "https://localhost",
            "http://mcp.example:8766",
        ] {
            assert!(origin_allowed(ok, "mcp.example:8766"), "{ok}");
        }
        for bad in [
            "null",
            "http://evil.example",
            "http://mcp.example:8767",
            "http://localhost.evil.example",
            "file://",
            "http://127.0.0.1@evil.example",
            "http://",
        ] {
            assert!(!origin_allowed(bad, "mcp.example:8766"), "{bad}");
        }
    }
}
