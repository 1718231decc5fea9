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
//! println!("{}", status["calls"]);
//! # Ok(()) }
//! ```
//!
//! ## Where things are
//!
//! - [`vm`]: engine, import gate, locked-down WASI, limits, instances;
//! - [`broker`]: the per-call pipeline (limits, identity, journal, redaction,
//!   schema checks);
//! - [`store`]: the file store (cap-std) — scripts, runs, journals, cache;
//! - [`agents`]: the [`agents::AgentRunner`] trait and the fixture runner;
//! - [`runtime`]: [`Hwf`], which ties them together;
//! - [`review`] and [`serve`]: the operator's views (runs list, review
//!   queue, timeline) and the web console `hwf serve` with its JSON API;
//! - [`error`]: [`Error`] and its stable [`ErrorCode`]s.

#![warn(missing_docs)]

pub mod agents;
pub mod app;
pub mod broker;
pub mod capabilities;
pub mod catalog;
pub mod config;
pub mod control;
pub mod facade;
pub mod finalizers;
pub mod review;
pub mod runner;
pub mod runtime;
pub mod scripts;
pub mod serve;
pub mod status;
pub mod store;
pub mod triggers;
pub mod views;
pub mod vm;

#[cfg(test)]
mod fuzz_tests;

pub use hwf_core::{Error, ErrorCode, Result, error, ids};
pub use runtime::{Hwf, HwfBuilder, Progress, RunOutcome, RunRequest, Target};
pub use vm::Limits;
