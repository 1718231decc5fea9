//! # hwf-core: what every layer of hwf shares
//!
//! The types and formats the sandbox, the broker, the stores, the
//! application services and the front doors all speak, in one crate with no
//! wasmtime and no file I/O, so each of them can depend on it without
//! depending on each other (obelisk's `concepts`, temporal's `common`).
//!
//! - [`error`]: [`Error`] and its stable [`ErrorCode`]s (messages redacted
//!   at construction);
//! - [`ids`]: [`ids::RunId`], [`ids::CallScope`], name validation;
//! - [`redact`]: the credential redactor, [`redact::clip`] and
//!   [`redact::redacted`];
//! - [`schema`]: output schemas and their checks;
//! - [`fingerprint`]: the `b3:` fingerprint of a call's `{kind, request}`;
//! - [`call`]: a call's typed failure ([`call::CallFailure`]);
//! - [`journal`]: the journal format — [`journal::Event`] written,
//!   [`journal::JournalEntry`] read;
//! - [`model`]: the run, script and external-event records a store keeps;
//! - [`payload`]: large journal payloads kept by content, in chunks shared
//!   between payloads;
//! - [`control`]: operator controls as data;
//! - [`limits`]: per-run limits and [`limits::HostTrap`];
//! - [`policy`]: the capability policy;
//! - [`lang`]: the languages a workflow can be written in;
//! - [`store`]: the store traits by role ([`store::RunStore`],
//!   [`store::JournalSink`], [`store::Claim`], [`store::ScriptCatalog`],
//!   [`store::EventLog`], [`store::BlobStore`], [`store::CompileCache`]),
//!   their contracts and typed [`store::StoreError`]s.

#![warn(missing_docs)]

pub mod call;
pub mod cassette;
pub mod control;
pub mod error;
pub mod fingerprint;
pub mod ids;
pub mod journal;
pub mod lang;
pub mod limits;
pub mod model;
pub mod payload;
pub mod policy;
pub mod redact;
pub mod schema;
pub mod store;

pub use error::{Error, ErrorCode, Result};

/// A boxed, `Send` future: what the object-safe async traits (agent
/// backends, capability handlers, stores) return.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;
