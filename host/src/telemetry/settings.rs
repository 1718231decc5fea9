//! Where and how traces are exported: `[telemetry]` in `hwf.toml` and the
//! standard `OTEL_*` environment variables, resolved once into
//! [`ExportSettings`].
//!
//! The environment wins over the file (as `--flag`, then `$HWF_…`, then
//! `hwf.toml` everywhere else in hwf). Nothing is exported unless an
//! endpoint is named; `OTEL_SDK_DISABLED=true` or `[telemetry] enabled =
//! false` turns export off even then.

use hwf_core::error::{Error, ErrorCode, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// `[telemetry]` in `hwf.toml`: OpenTelemetry trace export (OTLP over
/// HTTP). Every key has an `OTEL_*` variable that overrides it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetryConfig {
    /// `false` turns export off whatever the environment says (default:
    /// on when an endpoint is named). `OTEL_SDK_DISABLED=true` also does.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// The collector's base URL; traces go to `<endpoint>/v1/traces`
    /// (`OTEL_EXPORTER_OTLP_ENDPOINT`).
    #[serde(default)]
    pub endpoint: Option<String>,
    /// The full URL traces are posted to, used as it is
    /// (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`).
    #[serde(default)]
    pub traces_endpoint: Option<String>,
    /// `http/protobuf` (default) or `http/json`
    /// (`OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`).
    #[serde(default)]
    pub protocol: Option<String>,
    /// Headers sent with every export, e.g. an API key
    /// (`OTEL_EXPORTER_OTLP_HEADERS`: `k1=v1,k2=v2`, values URL-encoded).
    /// Their values are registered as secrets, so they are redacted
    /// wherever they would appear.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The `service.name` resource attribute (`OTEL_SERVICE_NAME`; default
    /// `hwf`).
    #[serde(default)]
    pub service_name: Option<String>,
    /// How long one export may take, ms (`OTEL_EXPORTER_OTLP_TIMEOUT`;
    /// default 10 000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Export prompts and answers (redacted) as `gen_ai.input.messages` /
    /// `gen_ai.output.messages` and tool arguments and results
    /// (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`; default
    /// `false`).
    #[serde(default)]
    pub capture_content: Option<bool>,
}

impl TelemetryConfig {
    /// Check the file's own values (protocol, endpoint scheme, timeout), as
    /// `hwf.toml` is loaded.
    ///
    /// # Errors
    ///
    /// `invalid_config` naming the value.
    pub fn check(&self) -> Result<()> {
        ExportSettings::resolve_with(self, |_| None).map(|_| ())
    }
}

/// The wire format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `application/x-protobuf` (OTLP's default).
    HttpProtobuf,
    /// `application/json` (OTLP/JSON: hex ids, camelCase keys).
    HttpJson,
}

impl Protocol {
    /// Parse `http/protobuf` or `http/json`.
    ///
    /// # Errors
    ///
    /// `invalid_config` naming the value; `grpc` is refused with the
    /// reason (hwf exports over HTTP only).
    pub fn parse(s: &str) -> Result<Self> {
        match s.trim() {
            "http/protobuf" => Ok(Self::HttpProtobuf),
            "http/json" => Ok(Self::HttpJson),
            "grpc" => Err(Error::new(
                ErrorCode::InvalidConfig,
                "OTLP protocol grpc is not supported: hwf exports over HTTP (http/protobuf or http/json; collectors take both on port 4318)",
            )),
            other => Err(Error::new(
                ErrorCode::InvalidConfig,
                format!("OTLP protocol {other:?}: expected http/protobuf or http/json"),
            )),
        }
    }

    /// The request's `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::HttpProtobuf => "application/x-protobuf",
            Self::HttpJson => "application/json",
        }
    }
}

/// Default time one export may take (the OTLP exporter default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Everything the exporter needs, resolved from the environment and
/// `[telemetry]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportSettings {
    /// The URL spans are posted to.
    pub url: String,
    /// The wire format.
    pub protocol: Protocol,
    /// Extra request headers.
    pub headers: Vec<(String, String)>,
    /// `service.name`.
    pub service_name: String,
    /// Other resource attributes (`OTEL_RESOURCE_ATTRIBUTES`).
    pub resource: Vec<(String, String)>,
    /// How long one export may take.
    pub timeout: Duration,
    /// Whether prompts, answers and tool payloads (redacted) are exported.
    pub capture_content: bool,
}

impl ExportSettings {
    /// The settings this process's environment and `config` give; `None`
    /// when no endpoint is named or export is turned off.
    ///
    /// # Errors
    ///
    /// `invalid_config` naming the variable or key: a bad protocol, a
    /// timeout that is not a whole number of ms, a header without `=`, an
    /// endpoint that is not `http://` or `https://`.
    pub fn resolve(config: &TelemetryConfig) -> Result<Option<Self>> {
        Self::resolve_with(config, |k| std::env::var(k).ok())
    }

    /// [`ExportSettings::resolve`] over any variable lookup (for tests).
    ///
    /// # Errors
    ///
    /// As [`ExportSettings::resolve`].
    pub fn resolve_with(config: &TelemetryConfig, env: impl Fn(&str) -> Option<String>) -> Result<Option<Self>> {
        let var = |k: &str| env(k).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        if var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) || config.enabled == Some(false) {
            return Ok(None);
        }
        let url = match (
            var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
            var("OTEL_EXPORTER_OTLP_ENDPOINT"),
            &config.traces_endpoint,
            &config.endpoint,
        ) {
            (Some(full), ..) => full,
            (None, Some(base), ..) => traces_url(&base),
            (None, None, Some(full), _) => full.trim().to_owned(),
            (None, None, None, Some(base)) => traces_url(base),
            (None, None, None, None) => return Ok(None),
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(bad(format!(
                "the OTLP traces endpoint {url:?} must be an http:// or https:// URL"
            )));
        }
        let protocol = match var("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            .or_else(|| var("OTEL_EXPORTER_OTLP_PROTOCOL"))
            .or_else(|| config.protocol.clone())
        {
            Some(p) => Protocol::parse(&p)?,
            None => Protocol::HttpProtobuf,
        };
        let mut headers: Vec<(String, String)> = config.headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        for name in ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"] {
            if let Some(list) = var(name) {
                for (k, v) in pairs(name, &list)? {
                    headers.retain(|(have, _)| !have.eq_ignore_ascii_case(&k));
                    headers.push((k, v));
                }
            }
        }
        // A header value is usually an API key: never shown anywhere.
        headers.iter().for_each(|(_, v)| hwf_core::redact::register_secret(v));
        let timeout = match var("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT").or_else(|| var("OTEL_EXPORTER_OTLP_TIMEOUT")) {
            Some(ms) => Duration::from_millis(ms.parse::<u64>().map_err(|_| {
                bad(format!(
                    "OTEL_EXPORTER_OTLP_TIMEOUT must be a whole number of ms, not {ms:?}"
                ))
            })?),
            None => config.timeout_ms.map_or(DEFAULT_TIMEOUT, Duration::from_millis),
        };
        let resource = match var("OTEL_RESOURCE_ATTRIBUTES") {
            Some(list) => pairs("OTEL_RESOURCE_ATTRIBUTES", &list)?,
            None => Vec::new(),
        };
        let service_name = var("OTEL_SERVICE_NAME")
            .or_else(|| {
                resource
                    .iter()
                    .find(|(k, _)| k == "service.name")
                    .map(|(_, v)| v.clone())
            })
            .or_else(|| config.service_name.clone())
            .unwrap_or_else(|| "hwf".to_owned());
        let capture_content = match var("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT") {
            Some(v) => v.eq_ignore_ascii_case("true"),
            None => config.capture_content.unwrap_or(false),
        };
        Ok(Some(Self {
            url,
            protocol,
            headers,
            service_name,
            resource: resource.into_iter().filter(|(k, _)| k != "service.name").collect(),
            timeout,
            capture_content,
        }))
    }
}

fn bad(message: String) -> Error {
    Error::new(ErrorCode::InvalidConfig, message)
}

/// `<base>/v1/traces` (the signal path appended to a base endpoint, as the
/// OTLP exporter spec says).
fn traces_url(base: &str) -> String {
    format!("{}/v1/traces", base.trim().trim_end_matches('/'))
}

/// `k1=v1,k2=v2` with percent-encoded values (the W3C baggage form the
/// `OTEL_*` lists use).
fn pairs(name: &str, list: &str) -> Result<Vec<(String, String)>> {
    list.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| bad(format!("{name}: {:?} is not key=value", p.trim())))?;
            Ok((percent_decode(k.trim()), percent_decode(v.trim())))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(vars: &[(&str, &str)], config: &TelemetryConfig) -> Result<Option<ExportSettings>> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        ExportSettings::resolve_with(config, |k| {
            vars.iter().find(|(name, _)| name == k).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn nothing_is_exported_without_an_endpoint_or_when_disabled() {
        assert_eq!(resolve(&[], &TelemetryConfig::default()).expect("ok"), None);
        let on = [("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318/")];
        assert!(resolve(&on, &TelemetryConfig::default()).expect("ok").is_some());
        let off = [on[0], ("OTEL_SDK_DISABLED", "true")];
        assert_eq!(resolve(&off, &TelemetryConfig::default()).expect("ok"), None);
        let config = TelemetryConfig {
            enabled: Some(false),
            ..TelemetryConfig::default()
        };
        assert_eq!(resolve(&on, &config).expect("ok"), None);
    }

    #[test]
    fn the_environment_wins_over_the_file_and_the_signal_path_is_appended() {
        let config = TelemetryConfig {
            endpoint: Some("http://collector:4318".into()),
            protocol: Some("http/json".into()),
            service_name: Some("from-file".into()),
            timeout_ms: Some(500),
            capture_content: Some(true),
            ..TelemetryConfig::default()
        };
        let s = resolve(&[], &config).expect("ok").expect("on");
        assert_eq!(s.url, "http://collector:4318/v1/traces");
        assert_eq!(s.protocol, Protocol::HttpJson);
        assert_eq!(s.service_name, "from-file");
        assert_eq!(s.timeout, Duration::from_millis(500));
        assert!(s.capture_content);
        let s = resolve(
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env:4318/"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
                ("OTEL_SERVICE_NAME", "svc"),
                ("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=abc%3D%3D, other = 1"),
                ("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "false"),
                (
                    "OTEL_RESOURCE_ATTRIBUTES",
                    "deployment.environment=ci,service.name=ignored",
                ),
            ],
            &config,
        )
        .expect("ok")
        .expect("on");
        assert_eq!(s.url, "http://env:4318/v1/traces");
        assert_eq!(s.protocol, Protocol::HttpProtobuf);
        assert_eq!(s.service_name, "svc");
        assert!(!s.capture_content);
        assert_eq!(
            s.headers,
            vec![
                ("x-api-key".to_owned(), "abc==".to_owned()),
                ("other".to_owned(), "1".to_owned())
            ]
        );
        assert_eq!(s.resource, vec![("deployment.environment".to_owned(), "ci".to_owned())]);
        // The traces endpoint is used as it is.
        let s = resolve(
            &[
                ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://x.example/otel/traces"),
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://ignored"),
            ],
            &config,
        )
        .expect("ok")
        .expect("on");
        assert_eq!(s.url, "https://x.example/otel/traces");
    }

    #[test]
    fn bad_values_name_their_variable() {
        let e = resolve(
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ],
            &TelemetryConfig::default(),
        )
        .expect_err("grpc");
        assert_eq!(e.code(), ErrorCode::InvalidConfig);
        assert!(e.message().contains("HTTP"), "{e}");
        let e = resolve(
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h"),
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "soon"),
            ],
            &TelemetryConfig::default(),
        )
        .expect_err("timeout");
        assert!(e.message().contains("OTEL_EXPORTER_OTLP_TIMEOUT"), "{e}");
        let e = resolve(
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318")],
            &TelemetryConfig::default(),
        )
        .expect_err("scheme");
        assert!(e.message().contains("http://"), "{e}");
    }
}
