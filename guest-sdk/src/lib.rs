//! # hwf-guest: write hwf workflow harnesses in Rust
//!
//! A harness is a `wasm32-wasip2` component that the `hwf` host runs in a
//! sandbox. Its only effects are the calls in this crate — agents,
//! capabilities, concurrency, phases, logs, budget — and every one of them
//! crosses the host's broker, which checks policy, redacts credentials,
//! journals the call and replays it when a run resumes. There is no clock,
//! randomness, filesystem or network of the guest's own, which is what makes
//! replay exact.
//!
//! ## The hello harness, complete
//!
//! `Cargo.toml`: `crate-type = ["cdylib"]`, one dependency on `hwf-guest`.
//! Build with `cargo build --target wasm32-wasip2 --release`.
//!
//! ```no_run
//! use hwf_guest::{agent, json, phase, Harness, Meta, Result, Value};
//!
//! struct Hello;
//!
//! impl Harness for Hello {
//!     fn meta() -> Meta {
//!         Meta::new("hello", "Greets someone, then shouts the greeting.")
//!             .phase("greet")
//!             .phase("shout")
//!     }
//!
//!     fn run(args: Value) -> Result<Value> {
//!         let name = args["name"].as_str().unwrap_or("world");
//!         phase("greet");
//!         let greeting = agent("hermes.greeter")
//!             .input(json!({"subject": name}))
//!             .label("greet")
//!             .phase("greet")
//!             .schema(json!({"greeting": "string"}))
//!             .call()?;
//!         phase("shout");
//!         let shout = agent("hermes.uppercaser")
//!             .input(json!({"text": greeting["greeting"]}))
//!             .label("shout")
//!             .phase("shout")
//!             .schema(json!({"result": "string"}))
//!             .call()?;
//!         Ok(json!({"greeting": greeting["greeting"], "result": shout["result"]}))
//!     }
//! }
//!
//! hwf_guest::export_harness!(Hello);
//! ```
//!
//! Run it: `hwf run target/harnesses/hello.wasm --args '{"name":"world"}'
//! --agents harnesses/hello/fixture.json`.
//!
//! ## What is here
//!
//! - [`agent`], [`prompt`]: agent calls ([`Agent`] builder).
//! - [`capability()`]: capability calls ([`Capability`] builder).
//! - [`parallel`], [`pipeline`], [`branch`], [`JoinSet`]: concurrency on the host.
//! - [`phase`], [`log`], [`info`], [`warn`], [`budget`], [`max_parallel`]: run-level calls.
//! - [`Harness`], [`Meta`], [`export_harness!`]: declaring the component.
//! - [`Error`]: every failure, with a stable [`code`](Error::code).
//! - [`runtime`]: for script runtimes (interpreter components of the
//!   `script-runtime` world): [`export_script_runtime!`], the
//!   agent-option table, call-error text.

#![deny(missing_docs)]

extern crate self as hwf_guest;

mod agent;
mod capability;
mod error;
mod flow;
mod harness;
mod host;
pub mod runtime;

#[doc(hidden)]
pub mod bindings;

pub use agent::{Agent, agent, prompt};
pub use capability::{Capability, capability};
pub use error::{Error, ErrorKind, Result};
pub use flow::{JoinSet, Task, branch, parallel, pipeline, workflow};
pub use harness::{Harness, Meta};
pub use host::{Budget, Level, budget, info, log, max_parallel, phase, warn};
pub use serde_json::{Value, json};

#[doc(hidden)]
pub mod __private {
    pub use crate::harness::{__branch as branch, __run as run};
    pub use wit_bindgen;
}
