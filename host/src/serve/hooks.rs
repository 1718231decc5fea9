//! Webhook ingress: `POST /hooks/<source>` with an HMAC-SHA256 signature,
//! stored as an event (idempotent by delivery id) that `events.wait`
//! calls see; the in-process runner is woken at once.
//!
//! The secret of a source comes from the environment:
//! `HWF_WEBHOOK_SECRET_<SOURCE>` (upper case, `-` and `.` as `_`), else
//! `HWF_WEBHOOK_SECRET`. A source without a secret is refused (404): an
//! unsigned hook is never accepted.
//!
//! Two schemes:
//!
//! - **GitHub**: `X-Hub-Signature-256: sha256=<hex HMAC of the body>`;
//!   the delivery id is `X-GitHub-Delivery`, the type `X-GitHub-Event`
//!   plus `.<action>` when the payload has one (`pull_request.closed`), the
//!   subject `<repository.full_name>#<number>` when the payload names them.
//!   GitHub signs the body alone, so a captured delivery could be sent
//!   again under a new `X-GitHub-Delivery`: the body's BLAKE3 digest is
//!   kept with the event ([`hwf_core::model::ExternalEvent::digest`]) and
//!   a second delivery of the same body from the same source is the same
//!   event (`new: false`), on every store.
//! - **Generic**: `X-Hwf-Signature: sha256=<hex HMAC of
//!   "<timestamp>.<source>.<delivery id>.<type>.<body>">` with
//!   `X-Hwf-Timestamp` (seconds since the epoch, within [`MAX_SKEW_SECS`]
//!   of now), `X-Hwf-Delivery` (else the body's `id`), `X-Hwf-Event` (else
//!   the body's `type`); the body's `subject` and `payload` (else the whole
//!   body) are the event's. The signature covers the source (the path's
//!   `<source>`), the delivery id and the type as resolved, so a captured
//!   delivery cannot come back as another id, another type, or at another
//!   source sharing the secret; the same request again is the same event.
//!   (Before issue 29 only `<timestamp>.<body>` was signed.)

use super::{AppState, api::store_event, error_response, refuse};
use crate::app::operate::EventRequest;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use hmac::{Hmac, Mac};
use hwf_core::error::{Error, ErrorCode};
use serde_json::{Value, json};
use sha2::Sha256;
use std::collections::HashMap;
use std::sync::Arc;

/// How far a generic hook's timestamp may be from now.
pub const MAX_SKEW_SECS: u64 = 300;

/// Webhook secrets by source (and a default).
#[derive(Clone, Default)]
pub struct Secrets {
    by_source: HashMap<String, Vec<u8>>,
    default: Option<Vec<u8>>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Secrets")
            .field("sources", &self.by_source.keys().collect::<Vec<_>>())
            .field("default", &self.default.is_some())
            .finish()
    }
}

/// The environment name of a source's secret.
pub fn env_name(source: &str) -> String {
    let up: String = source
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("HWF_WEBHOOK_SECRET_{up}")
}

impl Secrets {
    /// Read `HWF_WEBHOOK_SECRET[_<SOURCE>]` from the environment (each is
    /// also registered with the redactor).
    pub fn from_env() -> Self {
        let mut s = Secrets::default();
        for (k, v) in std::env::vars() {
            if v.is_empty() {
                continue;
            }
            if k == "HWF_WEBHOOK_SECRET" {
                hwf_core::redact::register_secret(&v);
                s.default = Some(v.into_bytes());
            } else if let Some(src) = k.strip_prefix("HWF_WEBHOOK_SECRET_") {
                hwf_core::redact::register_secret(&v);
                s.by_source.insert(src.to_owned(), v.into_bytes());
            }
        }
        s
    }

    fn get(&self, source: &str) -> Option<&[u8]> {
        let key = env_name(source);
        let key = key.strip_prefix("HWF_WEBHOOK_SECRET_").unwrap_or(&key);
        self.by_source.get(key).or(self.default.as_ref()).map(Vec::as_slice)
    }
}

/// Check `sha256=<hex>` against the HMAC of `message` (constant time).
pub fn verify(secret: &[u8], message: &[u8], signature: &str) -> bool {
    let Some(hex) = signature.trim().strip_prefix("sha256=") else {
        return false;
    };
    let Some(sig) = decode_hex(hex) else {
        return false;
    };
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret) else {
        return false;
    };
    mac.update(message);
    mac.verify_slice(&sig).is_ok()
}

/// What the generic scheme signs: `<ts>.<source>.<delivery id>.<type>.<body>`.
pub fn generic_message(ts: u64, source: &str, id: &str, kind: &str, body: &[u8]) -> Vec<u8> {
    let mut message = format!("{ts}.{source}.{id}.{kind}.").into_bytes();
    message.extend_from_slice(body);
    message
}

/// `sha256=<hex>` of the HMAC of `message` (for clients and tests).
pub fn sign(secret: &[u8], message: &[u8]) -> String {
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret) {
        Ok(m) => m,
        Err(_) => return String::new(),
    };
    mac.update(message);
    let bytes = mac.finalize().into_bytes();
    format!(
        "sha256={}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

fn decode_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

fn header<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

fn bad(msg: impl Into<String>) -> Response {
    error_response(&Error::new(ErrorCode::InvalidParams, msg))
}

/// `POST /hooks/{source}`.
pub async fn hook(
    State(app): State<Arc<AppState>>,
    Path(source): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if hwf_core::ids::validate_name("hook source", &source).is_err() {
        return refuse(StatusCode::NOT_FOUND, "not_found", "no such hook");
    }
    let Some(secret) = app.hook_secrets.get(&source) else {
        return refuse(
            StatusCode::NOT_FOUND,
            "not_found",
            &format!("no webhook secret is configured for {source:?} ({})", env_name(&source)),
        );
    };
    let payload: Value = match serde_json::from_slice(&body) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return bad("the webhook body must be a JSON object"),
        Err(e) => return bad(format!("the webhook body is not valid JSON: {e}")),
    };
    let event = if let Some(sig) = header(&headers, "x-hub-signature-256") {
        if !verify(secret, &body, sig) {
            return refuse(StatusCode::UNAUTHORIZED, "unauthorized", "bad X-Hub-Signature-256");
        }
        let Some(delivery) = header(&headers, "x-github-delivery") else {
            return bad("a GitHub hook needs X-GitHub-Delivery");
        };
        let base = header(&headers, "x-github-event").unwrap_or("event");
        let kind = match payload.get("action").and_then(Value::as_str) {
            Some(a) => format!("{base}.{a}"),
            None => base.to_owned(),
        };
        let number = payload
            .get("number")
            .or_else(|| payload.pointer("/pull_request/number"))
            .or_else(|| payload.pointer("/issue/number"))
            .and_then(Value::as_u64);
        let subject = payload
            .pointer("/repository/full_name")
            .and_then(Value::as_str)
            .map(|r| match number {
                Some(n) => format!("{r}#{n}"),
                None => r.to_owned(),
            });
        EventRequest {
            id: Some(delivery.to_owned()),
            source: source.clone(),
            kind,
            subject,
            payload,
            digest: Some(blake3::hash(&body).to_hex().to_string()),
        }
    } else if let Some(sig) = header(&headers, "x-hwf-signature") {
        let Some(ts) = header(&headers, "x-hwf-timestamp").and_then(|t| t.parse::<u64>().ok()) else {
            return bad("a signed hook needs X-Hwf-Timestamp (seconds since the epoch)");
        };
        let now = crate::store::now_ms() / 1000;
        if now.abs_diff(ts) > MAX_SKEW_SECS {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "X-Hwf-Timestamp is too far from now",
            );
        }
        let field = |k: &str| payload.get(k).and_then(Value::as_str).map(str::to_owned);
        let Some(id) = header(&headers, "x-hwf-delivery")
            .map(str::to_owned)
            .or_else(|| field("id"))
        else {
            return bad("a hook needs a delivery id (X-Hwf-Delivery or the body's \"id\")");
        };
        let Some(kind) = header(&headers, "x-hwf-event")
            .map(str::to_owned)
            .or_else(|| field("type"))
        else {
            return bad("a hook needs a type (X-Hwf-Event or the body's \"type\")");
        };
        if !verify(secret, &generic_message(ts, &source, &id, &kind, &body), sig) {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "bad X-Hwf-Signature (HMAC-SHA256 of \"<timestamp>.<source>.<delivery id>.<type>.<body>\")",
            );
        }
        EventRequest {
            id: Some(id),
            source: source.clone(),
            kind,
            subject: field("subject"),
            payload: payload.get("payload").cloned().unwrap_or(payload),
            digest: None,
        }
    } else {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a hook needs X-Hub-Signature-256 or X-Hwf-Signature",
        );
    };
    let app2 = app.clone();
    match tokio::task::spawn_blocking(move || store_event(&app2, event)).await {
        Ok(Ok(v)) => {
            let mut v = json!({"success": true, "data": v});
            hwf_core::redact::redact_value(&mut v);
            (StatusCode::OK, axum::Json(v)).into_response()
        }
        Ok(Err(e)) => error_response(&e),
        Err(e) => error_response(&Error::new(ErrorCode::Internal, format!("task: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_verify_only_with_the_secret_and_the_body() {
        // GitHub's documented example: secret "It's a Secret to Everybody",
        // payload "Hello, World!".
        let sig = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
        assert_eq!(sign(b"It's a Secret to Everybody", b"Hello, World!"), sig);
        assert!(verify(b"It's a Secret to Everybody", b"Hello, World!", sig));
        assert!(!verify(b"another", b"Hello, World!", sig));
        assert!(!verify(b"It's a Secret to Everybody", b"Hello, World?", sig));
        assert!(!verify(b"k", b"m", "sha1=00"));
        assert!(!verify(b"k", b"m", "sha256=abc"));
        assert!(!verify(b"k", b"m", "sha256=zz"));
    }

    #[test]
    fn secret_names_follow_the_source() {
        assert_eq!(env_name("github"), "HWF_WEBHOOK_SECRET_GITHUB");
        assert_eq!(env_name("my-ci.prod"), "HWF_WEBHOOK_SECRET_MY_CI_PROD");
    }
}
