//! Application services on [`crate::Hwf`]: what the front doors (CLI,
//! facade/MCP, web console) call, each of them only parsing its input and
//! serialising the typed answer.
//!
//! - [`host`]: [`crate::Hwf`] and its builder, including
//!   [`crate::HwfBuilder::from_config`];
//! - [`resolve`]: what to run ([`crate::Target`]) and reading components;
//! - [`runs`]: starting, queueing and executing runs;
//! - [`cassette`]: journals as tests and plans (`hwf test`, `hwf
//!   cassette export`, `--resume-from … --plan`, `hwf replay-check`);
//! - [`fork`]: forks (`hwf fork`, the console's fork forms);
//! - [`resume`]: what a resumed run takes from its source
//!   ([`resume::ResumePlan`]);
//! - [`monitor`]: live progress and controls while a run executes;
//! - [`operate`]: controls and decisions, external events, grant
//!   revocations;
//! - [`control`]: recording and validating operator controls;
//! - [`runner`]: the queue executor (queued, parked, stuck runs; in place
//!   continuations, replay index of a lineage);
//! - [`catalog`]: validating and saving scripts;
//! - [`views`], [`status`], [`review`]: typed status, overview, the review
//!   queue and the timeline;
//! - [`run_page`]: the console's run page in one answer;
//! - [`finalizers`]: finalizing declared resources when a run ends;
//! - [`triggers`]: starting runs from external events.
//!
//! One room of the layering: the services here call each other freely and
//! everything below (broker, capabilities, agents, store, vm); nothing
//! below calls them.

pub mod background;
pub mod cassette;
pub mod catalog;
pub mod claim;
pub mod control;
pub mod finalizers;
pub mod fork;
pub mod host;
pub mod monitor;
pub mod operate;
pub mod resolve;
pub mod resume;
pub mod review;
pub mod run_page;
pub mod runner;
pub mod runs;
pub mod scheduler;
pub mod status;
pub mod triggers;
pub mod views;
