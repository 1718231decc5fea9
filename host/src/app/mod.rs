//! Application services on [`crate::Hwf`]: what the front doors (CLI,
//! facade/MCP, web console) call, each of them only parsing its input and
//! serialising the typed answer.
//!
//! - [`host`]: building a host from the configuration
//!   ([`crate::HwfBuilder::from_config`]);
//! - [`operate`]: controls and decisions, external events, grant
//!   revocations.

pub mod host;
pub mod operate;
