//! Capabilities from async closures ([`Capability::from_fn`],
//! [`Capability::from_fn_with_call`]): what a host adapter writes instead
//! of a [`CapabilityHandler`] impl with explicit lifetimes.

use super::{Capability, CapabilityCall, CapabilityError, CapabilityHandler, SideEffect};
use hwf_core::BoxFuture;
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;

/// What a closure capability sees of its call besides the input, owned so
/// the closure's future may keep it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallInfo {
    /// `<root run id>:<call id>`: the same on retries and continuations,
    /// so an external write can be made idempotent with it.
    pub idempotency_key: String,
    /// The call's label, if any.
    pub label: Option<String>,
    /// The approval id the call carried, if any.
    pub approval_id: Option<String>,
}

impl CallInfo {
    fn of(call: &CapabilityCall<'_>) -> Self {
        Self {
            idempotency_key: call.idempotency_key.to_owned(),
            label: call.label.map(str::to_owned),
            approval_id: call.approval_id.map(str::to_owned),
        }
    }
}

/// A handler calling a closure with the input and the call's [`CallInfo`].
struct FnHandler<F>(F);

impl<F, Fut> CapabilityHandler for FnHandler<F>
where
    F: Fn(Value, CallInfo) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, CapabilityError>> + Send + 'static,
{
    fn call<'a>(&'a self, call: CapabilityCall<'a>) -> BoxFuture<'a, Result<Value, CapabilityError>> {
        Box::pin((self.0)(call.input.clone(), CallInfo::of(&call)))
    }
}

impl Capability {
    /// A capability whose handler is an async closure over the call's
    /// input (checked against the [input schema](Self::with_input_schema) first,
    /// when there is one). Dropping the future cancels the call.
    ///
    /// ```
    /// use hwf_host::{Capability, CapabilityError, SideEffect};
    /// use serde_json::json;
    ///
    /// let cap = Capability::from_fn("greet", SideEffect::ReadOnly, |input| async move {
    ///     let name = input["name"].as_str().ok_or_else(|| CapabilityError::InvalidInput("name".into()))?;
    ///     Ok(json!({"greeting": format!("hello, {name}")}))
    /// })
    /// .describe("Greet someone: {name} → {greeting}");
    /// assert_eq!(cap.name, "greet");
    /// ```
    pub fn from_fn<F, Fut>(name: impl Into<String>, class: SideEffect, f: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, CapabilityError>> + Send + 'static,
    {
        Self::from_fn_with_call(name, class, move |input, _call| f(input))
    }

    /// [`from_fn`](Self::from_fn) with the call's [`CallInfo`] (its
    /// idempotency key, label and approval id) as a second argument.
    pub fn from_fn_with_call<F, Fut>(name: impl Into<String>, class: SideEffect, f: F) -> Self
    where
        F: Fn(Value, CallInfo) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, CapabilityError>> + Send + 'static,
    {
        Self {
            name: name.into(),
            class,
            description: String::new(),
            replayable: true,
            handler: Arc::new(FnHandler(f)),
            input_schema: None,
        }
    }

    /// Say what the capability does (shown to agents, operators and script
    /// authors).
    pub fn describe(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Check every call's input against this JSON Schema before the
    /// handler runs: a call whose input does not match fails with
    /// `invalid_input` naming the JSON pointer of the mismatch, and the
    /// handler never sees it. `hwf capabilities` and
    /// [`Registry::typescript`](super::Registry::typescript) show it.
    ///
    /// # Errors
    ///
    /// `invalid_args` when `schema` is not a valid JSON Schema.
    pub fn with_input_schema(mut self, schema: Value) -> hwf_core::error::Result<Self> {
        self.input_schema = Some(Arc::new(super::InputSchema::compile(&self.name, schema)?));
        Ok(self)
    }
}
