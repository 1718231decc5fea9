//! # hwf-host: run agent workflows as sandboxed WebAssembly components
//!
//! A workflow *harness* is a `wasm32-wasip2` component whose only effects
//! are the `hermes:workflow/host` imports (agent, capability, parallel,
//! pipeline, submit/next/cancel, phase, log, budget). This crate runs such
//! components under wasmtime and answers every import through one
//! *broker* that checks limits and policy, redacts credentials and journals
//! each call durably.
//!
//! ## Embedding in a few lines
//!
//! ```no_run
//! use hwf_host::{agents::FixtureRunner, Hwf, Limits, RunRequest, Target};
//! use std::sync::Arc;
//!
//! # async fn demo() -> Result<(), hwf_host::Error> {
//! let agents = FixtureRunner::from_file("harnesses/hello/fixture.json".as_ref())?;
//! let hwf = Hwf::new("/tmp/hwf-state", Arc::new(agents), Limits::default())?;
//! let outcome = hwf
//!     .run(RunRequest::new(
//!         Target::Path("target/harnesses/hello.wasm".into()),
//!         serde_json::json!({"name": "world"}),
//!     ))
//!     .await?;
//! assert_eq!(outcome.result.unwrap()["result"], "HELLO, WORLD");
//! let status = hwf.status(outcome.snapshot.run_id.as_str())?;
//! println!("{} calls, state {:?}", status.calls.len(), status.state);
//! # Ok(()) }
//! ```
//!
//! ## Your own capabilities
//!
//! A host adapter offers scripts its own effects as *capabilities*: a
//! name, a side-effect class (what the run's policy allows), an optional
//! input JSON Schema (checked before the handler; `invalid_input` naming
//! the pointer otherwise) and an async closure. Runs record the
//! capabilities they need beyond the built-ins ([`CapabilityNeed`]): a
//! stock `hwf runner` on the same state dir leaves such a run as it is
//! (`needs_host`) and this host continues it. A runnable version is
//! `host/examples/custom_capability.rs`.
//!
//! ```no_run
//! use hwf_host::{Capability, CapabilityError, Hwf, Policy, Registry, RunRequest, SideEffect, Target};
//! use serde_json::json;
//!
//! # async fn demo() -> Result<(), hwf_host::Error> {
//! let deploy = Capability::from_fn("deploy", SideEffect::ExternalWrite, |input| async move {
//!     // The schema below has checked `input` already.
//!     let service = input["service"].as_str().unwrap_or_default();
//!     if service == "db" {
//!         return Err(CapabilityError::Failed("the database is deployed by hand".into()));
//!     }
//!     Ok(json!({"deployed": service}))
//! })
//! .describe("Deploy a service: {service} → {deployed}")
//! .with_input_schema(json!({
//!     "type": "object",
//!     "required": ["service"],
//!     "properties": {"service": {"type": "string"}}
//! }))?;
//! let mut registry = Registry::with_builtins(".".as_ref())?;
//! registry.register(deploy)?;
//! let mut policy = Policy::default();
//! policy.allowed_classes.push(SideEffect::ExternalWrite);
//! let hwf = Hwf::builder("/tmp/hwf-state").capabilities(registry).policy(policy).build()?;
//! let outcome = hwf
//!     .run(RunRequest::new(Target::Path("deploy.js".into()), json!({"service": "web"})))
//!     .await?;
//! println!("{:?}", outcome.snapshot.state);
//! # Ok(()) }
//! ```
//!
//! ## Where things are
//!
//! What embedders use is re-exported at the top ([`Hwf`], [`HwfBuilder`],
//! [`RunRequest`], [`RunOutcome`], [`Target`], [`RunStatus`], the control
//! types, the agent and capability types ([`Capability`],
//! [`CapabilityError`], [`SideEffect`], …), [`Policy`], [`Limits`],
//! [`Error`], [`ErrorCode`]). The modules, from the front doors down:
//!
//! - [`facade`] and [`serve`]: the JSON contract of the CLI's `--json`,
//!   the MCP server and the plugin; the web console `hwf serve` and its
//!   JSON API. They parse requests and serialise answers, nothing more;
//! - [`app`]: the application services on [`Hwf`] — the host and its
//!   builder ([`HwfBuilder::from_config`]), runs, resumes
//!   ([`app::resume::ResumePlan`]), the run monitor, targets, and
//!   operating runs (controls, decisions, events: [`app::operate`]);
//! - [`views`] and [`status`]: typed read-only answers ([`RunStatus`],
//!   [`views::Overview`], script listings); [`catalog`]: validating and
//!   saving workflows ([`catalog::ValidationReport`]); [`review`]: the
//!   operator's runs list, review queue and timeline;
//! - [`runner`]: continuing queued, parked and stuck runs (`hwf runner`);
//!   [`triggers`] and [`finalizers`]: runs started by events, resources
//!   finalized when a run ends; [`control`]: recording operator controls;
//! - [`scripts`]: the script runtimes (JavaScript, Python, JSON) that run
//!   a script as a component; [`config`]: `hwf.toml`;
//! - [`agents`]: the [`AgentBackend`] trait and its backends (fixture,
//!   command, OpenAI-compatible, router); [`capabilities`]: the
//!   [`CapabilityHandler`] trait, the [`Registry`] and the built-ins;
//! - [`store`]: the file store (cap-std) — scripts, runs, journals,
//!   controls, events, blobs, the compile cache;
//! - [`telemetry`]: OpenTelemetry trace export (OTLP/HTTP) built from
//!   the journals of ended executions, in the background;
//! - [`broker`] (internal): the per-call pipeline (limits, identity,
//!   journal, replay, redaction, schema checks) and the WIT host; [`vm`]:
//!   engine, import gate, locked-down WASI, limits, instances;
//! - [`runtime`]: the former home of [`Hwf`], re-exporting it;
//! - [`error`] and [`ids`] (from `hwf-core`): [`Error`] with its stable
//!   [`ErrorCode`]s; run, call and script ids.

#![warn(missing_docs)]

pub mod agents;
pub mod app;
#[doc(hidden)]
pub mod broker;
pub mod capabilities;
pub mod config;
pub mod facade;
pub mod scripts;
pub mod serve;
pub mod store;
pub mod telemetry;
pub mod vm;

#[cfg(test)]
mod fuzz_tests;

// The application services' former top-level paths, kept for embedders
// and the binary (`hwf_host::runner::…`, `hwf_host::runtime::Hwf`).
pub use app::{background, catalog, control, finalizers, review, runner, scheduler, status, triggers, views};

/// The embedding API's former home: [`Hwf`] and its builder live in
/// [`app::host`], runs in [`app::runs`], progress in [`app::monitor`],
/// targets in [`scripts`].
pub mod runtime {
    pub use crate::app::host::{Hwf, HwfBuilder};
    pub use crate::app::monitor::{Progress, ProgressFn};
    pub use crate::app::resolve::{Target, read_component};
    pub use crate::app::runs::{RESULT_PREVIEW_BYTES, RunOutcome, RunRequest};
}

pub use agents::{AgentBackend, AgentCall, AgentReply};
pub use app::host::{Hwf, HwfBuilder, Overrides};
pub use app::monitor::{Progress, ProgressFn};
pub use app::operate::{ControlRecorded, ControlRequest, EventRequest, EventSent};
pub use app::resolve::Target;
pub use app::runs::{RunOutcome, RunRequest};
pub use capabilities::{
    CallInfo, Capability, CapabilityCall, CapabilityError, CapabilityHandler, CapabilityInfo, CapabilityNeed, Policy,
    Registry, SideEffect, WaitRequest,
};
pub use control::{Action, Control, Decision};
pub use hwf_core::BoxFuture;
pub use hwf_core::{Error, ErrorCode, Result, error, ids};
pub use status::RunStatus;
pub use vm::Limits;
