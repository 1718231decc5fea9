//! Capability calls (bash, fs.read, events.wait, human.ask, …).

use crate::bindings::hermes::workflow::{host, types::CapabilityRequest};
use crate::flow::Task;
use crate::{Error, Result};
use serde_json::Value;

/// Start building a call to a registered capability.
///
/// ```no_run
/// use hwf_guest::{capability, json};
/// let listing = capability("fs.list", json!({"path": "."})).call()?;
/// # Ok::<(), hwf_guest::Error>(())
/// ```
pub fn capability(name: impl Into<String>, input: Value) -> Capability {
    Capability {
        name: name.into(),
        input,
        label: None,
        approval_id: None,
    }
}

/// A pending capability call.
#[derive(Debug, Clone)]
#[must_use = "a capability call does nothing until `.call()` or `.task()`"]
pub struct Capability {
    name: String,
    input: Value,
    label: Option<String>,
    approval_id: Option<String>,
}

impl Capability {
    /// A short label shown in status and journals.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
    /// A pre-approved approval id for an approval-gated capability.
    pub fn approval_id(mut self, id: impl Into<String>) -> Self {
        self.approval_id = Some(id.into());
        self
    }

    /// Run the call and wait for its JSON result.
    ///
    /// # Errors
    ///
    /// Denied by policy (`unknown_capability`, `capability_denied`,
    /// `side_effect_denied`, `approval_required`, …), failed, timed out or
    /// cancelled.
    pub fn call(self) -> Result<Value> {
        let raw = host::capability(&self.into_request()).map_err(Error::from)?;
        Ok(serde_json::from_str(&raw)?)
    }

    /// Turn the call into a task for [`parallel`](crate::parallel).
    pub fn task(self) -> Task {
        Task::Capability(self)
    }

    pub(crate) fn into_request(self) -> CapabilityRequest {
        CapabilityRequest {
            name: self.name,
            input: self.input.to_string(),
            label: self.label,
            approval_id: self.approval_id,
        }
    }
}

impl From<Capability> for Task {
    fn from(cap: Capability) -> Self {
        Task::Capability(cap)
    }
}
