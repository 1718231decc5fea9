//! Application services on [`crate::Hwf`]: what the front doors (CLI,
//! facade/MCP, web console) call, each of them only parsing its input and
//! serialising the typed answer.
//!
//! - [`host`]: [`crate::Hwf`] and its builder, including
//!   [`crate::HwfBuilder::from_config`];
//! - [`resolve`]: what to run ([`crate::Target`]) and reading components;
//! - [`runs`]: starting, queueing and executing runs;
//! - [`resume`]: what a resumed run takes from its source
//!   ([`resume::ResumePlan`]);
//! - [`monitor`]: live progress and controls while a run executes;
//! - [`operate`]: controls and decisions, external events, grant
//!   revocations.

pub mod host;
pub mod monitor;
pub mod operate;
pub mod resolve;
pub mod resume;
pub mod runs;
