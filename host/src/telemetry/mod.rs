//! OpenTelemetry trace export, built from the journal.
//!
//! With `OTEL_EXPORTER_OTLP_ENDPOINT` (or `[telemetry]` in `hwf.toml`) a
//! run is one trace in any OTLP/HTTP backend (Langfuse, Logfire,
//! Braintrust, Phoenix, Honeycomb, Jaeger, an OpenTelemetry Collector): an
//! `invoke_workflow` root, `invoke_agent` spans with model, tokens and
//! cost, `execute_tool` spans per capability, and spans for executions,
//! phases, branches, nested workflows and waits, under the GenAI semantic
//! conventions. The spans are made from journal entries, so what leaves
//! the machine is redacted exactly like what is stored.
//!
//! - [`settings`]: `[telemetry]` and the `OTEL_*` variables →
//!   [`ExportSettings`];
//! - [`spans`]: journal entries → spans (pure; ids derived from the run id,
//!   so a continued run adds to the same trace);
//! - [`exporter`]: the bounded queue and background task that read the
//!   journals of ended executions and post them (`http/protobuf` or
//!   `http/json`), off every call's path.
//!
//! The application layer calls [`Exporter::execution_ended`] when an
//! execution has journaled its final record; the binary calls
//! [`flush_all`] before it exits.

pub mod exporter;
pub mod settings;
pub mod spans;

pub use exporter::{Exporter, flush_all};
pub use settings::{ExportSettings, Protocol, TelemetryConfig};
pub use spans::{RunInfo, TraceParent};
