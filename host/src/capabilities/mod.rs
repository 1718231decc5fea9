//! Capabilities: named effects a harness may ask the host for, each with a
//! side-effect class, behind the broker's policy.
//!
//! - [`Registry`]: what host adapters register (name, class, description,
//!   replayable flag, async handler, optional input schema), and what a
//!   run needs of its host ([`Registry::needs`], [`Registry::missing`]);
//! - [`from_fn`]: capabilities from async closures
//!   ([`Capability::from_fn`]); [`input_schema`]: their input JSON Schema;
//!   [`catalog`]: the listing and TypeScript declarations authors see;
//! - [`policy`]: the checks every capability call passes, in a fixed order;
//! - [`bash`], [`fs`]: the built-in adapters, confined to a cap-std
//!   workspace directory.

pub mod bash;
pub mod catalog;
pub mod confine;
pub mod durable;
pub mod from_fn;
pub mod fs;
pub mod grants;
pub mod input_schema;
pub mod kanban;
pub mod resources;

pub use catalog::CapabilityInfo;
pub use from_fn::CallInfo;
pub use hwf_core::model::CapabilityNeed;
pub use input_schema::InputSchema;

use hwf_core::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

pub use hwf_core::policy::{self, Policy, SideEffect, valid_name};

impl hwf_core::policy::Classified for Capability {
    fn class(&self) -> SideEffect {
        self.class
    }
}

/// One capability call as the handler sees it.
#[derive(Clone, Copy)]
pub struct CapabilityCall<'a> {
    /// The input JSON (already checked by policy).
    pub input: &'a Value,
    /// The call's label, if any.
    pub label: Option<&'a str>,
    /// The approval id the call carried, if any.
    pub approval_id: Option<&'a str>,
    /// `<root run id>:<call id>`, the same on retries and resumes.
    pub idempotency_key: &'a str,
    /// The durable context of the call (decisions, events, timers).
    pub durable: &'a dyn Durable,
    /// The terms of the grant this call runs under (`grant.act`), if any:
    /// a capability may read what the operator approved (`bash` reads
    /// `sandbox`).
    pub grant: Option<&'a Value>,
}

impl std::fmt::Debug for CapabilityCall<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CapabilityCall")
            .field("idempotency_key", &self.idempotency_key)
            .finish_non_exhaustive()
    }
}

/// What a durable capability can see about its call beyond the input:
/// when it first started, the operator's decision on it, the event log.
pub trait Durable: Send + Sync {
    /// The call id.
    fn call_id(&self) -> &str;
    /// When this call first started (ms since the epoch), across resumes.
    fn first_started_ms(&self) -> u64;
    /// The operator's last decision on this call, if any.
    ///
    /// # Errors
    ///
    /// [`CapabilityError::Store`] when the run's controls cannot be read.
    fn decision(&self) -> Result<Option<hwf_core::control::Control>, CapabilityError>;
    /// Every external event so far, in version order.
    ///
    /// # Errors
    ///
    /// [`CapabilityError::Store`] when the event log cannot be read.
    fn events(&self) -> Result<Vec<hwf_core::model::ExternalEvent>, CapabilityError>;
    /// Now, in ms since the epoch.
    fn now_ms(&self) -> u64;
    /// The run the call belongs to, when it has a journal (grants name
    /// their run).
    fn run_id(&self) -> Option<&hwf_core::ids::RunId> {
        None
    }
    /// The host's store the run lives in, when there is one (the Kanban
    /// lanes keep their board there).
    fn store(&self) -> Option<&crate::store::Store> {
        None
    }
    /// The terms of the run's grant made by the `grant.request` call
    /// `grant_call`, as the run's journal recorded them (`None`: the
    /// journal records no such grant). Read through the host's store, so
    /// the same on whichever machine continues the run.
    ///
    /// # Errors
    ///
    /// [`CapabilityError::Store`] when the journal cannot be read;
    /// `grant_invalid` when the call has no run journal.
    fn grant_terms<'a>(&'a self, grant_call: &'a str) -> BoxFuture<'a, Result<Option<Value>, CapabilityError>> {
        let _ = grant_call;
        Box::pin(async { Err(grants::no_journal()) })
    }
    /// Charge this call one use of the grant `grant_call` allowing `count`
    /// uses: a durable `grant_used` record in the run's journal, appended
    /// under the run's claim before the granted effect runs. A call that
    /// was charged before (a re-run after a crash) is not charged again;
    /// a grant already used `count` times by other calls is
    /// [`GrantCharge::Exhausted`].
    ///
    /// # Errors
    ///
    /// [`CapabilityError::Store`] when the record cannot be made durable
    /// (`conflict`: the claim was taken over; the effect must not run);
    /// `grant_invalid` when the call has no run journal.
    fn charge_grant<'a>(
        &'a self,
        grant_call: &'a str,
        count: u64,
    ) -> BoxFuture<'a, Result<GrantCharge, CapabilityError>> {
        let _ = (grant_call, count);
        Box::pin(async { Err(grants::no_journal()) })
    }
}

/// What [`Durable::charge_grant`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantCharge {
    /// The call holds a use (charged now or before); `uses` of the grant
    /// are spent, this one included.
    Charged {
        /// Uses spent.
        uses: u64,
    },
    /// Every use was spent by other calls; nothing was charged.
    Exhausted {
        /// Uses spent.
        used: u64,
    },
}

/// Why a call must park the run, and what resolves it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitRequest {
    /// `event`, `human`, `approval`, `timer`, `pause`.
    pub kind: String,
    /// One line for status.
    pub summary: String,
    /// When a timer wait resolves (ms since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wake_at_ms: Option<u64>,
    /// The predicate or question.
    #[serde(default)]
    pub detail: Value,
}

/// Why a capability call failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CapabilityError {
    /// The input is not what the capability accepts (code `invalid_input`).
    #[error("{0}")]
    InvalidInput(String),
    /// The capability ran and failed (code `capability_failed`).
    #[error("{0}")]
    Failed(String),
    /// The capability ran past its timeout (code `capability_timeout`).
    #[error("{0}")]
    TimedOut(String),
    /// The call cannot finish yet: park the run until the wait resolves.
    #[error("waiting: {}", .0.summary)]
    Park(WaitRequest),
    /// The store behind the call (controls, events) could not be read: the
    /// run ends with the store's code (`corrupt_store`, `io`) instead of
    /// acting as if nothing was recorded.
    #[error("{0}")]
    Store(crate::Error),
}

/// An async capability handler. Dropping the future cancels the call (and
/// must clean up: child processes are killed).
pub trait CapabilityHandler: Send + Sync + 'static {
    /// Run one call.
    fn call<'a>(&'a self, call: CapabilityCall<'a>) -> BoxFuture<'a, Result<Value, CapabilityError>>;
}

/// A registered capability.
#[derive(Clone)]
pub struct Capability {
    /// Name (`[A-Za-z0-9._:/-]`, 1–128 characters).
    pub name: String,
    /// Side-effect class.
    pub class: SideEffect,
    /// What it does (shown to agents and operators).
    pub description: String,
    /// Whether a completed call may be answered from the journal on replay
    /// (true for nearly everything; false for reads whose answer must be
    /// fresh on every resume).
    pub replayable: bool,
    /// The handler.
    pub handler: Arc<dyn CapabilityHandler>,
    /// The input JSON Schema the broker checks each call against before
    /// the handler runs (`invalid_input` naming the pointer otherwise);
    /// see [`Capability::with_input_schema`].
    pub input_schema: Option<Arc<InputSchema>>,
}

impl std::fmt::Debug for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capability")
            .field("name", &self.name)
            .field("class", &self.class)
            .finish_non_exhaustive()
    }
}

/// The capabilities a host offers.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    caps: BTreeMap<String, Arc<Capability>>,
    /// The names registered by [`Registry::with_builtins_sandboxed`] and
    /// not replaced since: the stock built-ins every `hwf` offers.
    builtins: std::collections::BTreeSet<String>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The built-in adapters: `bash`, `fs.read`, `fs.list`, `fs.write`
    /// (confined to `workspace`) and the durable ones, `events.wait`,
    /// `human.ask`, `timer.sleep`.
    ///
    /// # Errors
    ///
    /// `io` when the workspace cannot be opened.
    pub fn with_builtins(workspace: &std::path::Path) -> crate::Result<Self> {
        Self::with_builtins_sandboxed(workspace, hwf_core::policy::CommandSandbox::default())
    }

    /// [`with_builtins`](Self::with_builtins) with `bash` commands confined
    /// as `sandbox` says (see [`confine`]).
    ///
    /// # Errors
    ///
    /// `io` when the workspace cannot be opened.
    pub fn with_builtins_sandboxed(
        workspace: &std::path::Path,
        sandbox: hwf_core::policy::CommandSandbox,
    ) -> crate::Result<Self> {
        let mut r = Self::new();
        for cap in durable::capabilities() {
            r.register(cap)?;
        }
        r.register(resources::capability())?;
        r.register(kanban::capability())?;
        let ws = Arc::new(fs::Workspace::open(workspace)?);
        r.register(bash::capability_sandboxed(ws.clone(), sandbox))?;
        for cap in fs::capabilities(ws) {
            r.register(cap)?;
        }
        let inner = Arc::new(r.clone());
        for cap in grants::capabilities(inner) {
            r.register(cap)?;
        }
        r.builtins = r.caps.keys().cloned().collect();
        Ok(r)
    }

    /// This registry with the built-ins of `builtins` in place of its own
    /// (a continuation re-roots them in the run's recorded workspace) and
    /// every other capability it has kept (an embedder's own).
    pub fn with_builtins_from(&self, builtins: &Registry) -> Registry {
        let mut r = self.clone();
        for name in &builtins.builtins {
            if let Some(cap) = builtins.caps.get(name) {
                r.caps.insert(name.clone(), cap.clone());
                r.builtins.insert(name.clone());
            }
        }
        r
    }

    /// Every capability this registry offers, by name and class.
    pub fn offered(&self) -> Vec<CapabilityNeed> {
        self.iter()
            .map(|c| CapabilityNeed {
                name: c.name.clone(),
                class: c.class,
            })
            .collect()
    }

    /// Whether `name` is one of the stock built-ins in this registry.
    pub fn is_builtin(&self, name: &str) -> bool {
        self.builtins.contains(name)
    }

    /// What a run created by this host needs of the host that continues
    /// it ([`hwf_core::model::RunSnapshot::needs`]): every capability
    /// beyond the stock built-ins, by name and class (empty for the stock
    /// binary's registry).
    pub fn needs(&self) -> Vec<CapabilityNeed> {
        self.iter()
            .filter(|c| !self.is_builtin(&c.name))
            .map(|c| CapabilityNeed {
                name: c.name.clone(),
                class: c.class,
            })
            .collect()
    }

    /// The needs in `needs` this registry does not meet: no capability of
    /// that name, or one of another class.
    pub fn missing(&self, needs: &[CapabilityNeed]) -> Vec<CapabilityNeed> {
        needs
            .iter()
            .filter(|n| self.get(&n.name).is_none_or(|c| c.class != n.class))
            .cloned()
            .collect()
    }

    /// Register a capability (replacing one of the same name).
    ///
    /// # Errors
    ///
    /// `invalid_name` when the name is not `[A-Za-z0-9._:/-]{1,128}`.
    pub fn register(&mut self, cap: Capability) -> crate::Result<()> {
        if !valid_name(&cap.name) {
            return Err(crate::Error::new(
                crate::ErrorCode::InvalidName,
                format!(
                    "capability name {:?} must be 1-128 characters of [A-Za-z0-9._:/-]",
                    cap.name
                ),
            ));
        }
        // An adapter's capability under a built-in's name is its own.
        self.builtins.remove(&cap.name);
        self.caps.insert(cap.name.clone(), Arc::new(cap));
        Ok(())
    }

    /// Look a capability up.
    pub fn get(&self, name: &str) -> Option<&Arc<Capability>> {
        self.caps.get(name)
    }

    /// Every capability, by name.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Capability>> {
        self.caps.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deploy(class: SideEffect) -> Capability {
        Capability::from_fn("deploy", class, |_| async { Ok(json!({})) })
    }

    #[test]
    fn a_run_needs_what_its_host_offers_beyond_the_builtins() {
        let ws = tempfile::tempdir().expect("tempdir");
        let stock = Registry::with_builtins(ws.path()).expect("builtins");
        assert!(
            stock.needs().is_empty(),
            "a stock run needs nothing: {:?}",
            stock.needs()
        );
        assert!(stock.is_builtin("bash") && stock.is_builtin("events.wait"));

        let mut embedder = stock.clone();
        embedder.register(deploy(SideEffect::ExternalWrite)).expect("register");
        let needs = embedder.needs();
        assert_eq!(
            needs,
            vec![CapabilityNeed {
                name: "deploy".into(),
                class: SideEffect::ExternalWrite
            }]
        );
        assert_eq!(stock.missing(&needs), needs, "the stock host lacks it");
        assert!(embedder.missing(&needs).is_empty());
        // The same name with another class does not meet the need.
        let mut other = Registry::new();
        other.register(deploy(SideEffect::ReadOnly)).expect("register");
        assert_eq!(other.missing(&needs), needs);

        // An adapter's capability under a built-in's name is its own.
        let mut replaced = stock.clone();
        replaced
            .register(Capability::from_fn("bash", SideEffect::ExternalWrite, |_| async {
                Ok(json!({}))
            }))
            .expect("register");
        assert!(!replaced.is_builtin("bash"));
        assert_eq!(replaced.needs().len(), 1);

        // Re-rooting the built-ins keeps the adapter's own.
        let rerooted = embedder.with_builtins_from(&stock);
        assert!(rerooted.get("deploy").is_some() && rerooted.is_builtin("fs.read"));
        assert_eq!(rerooted.needs(), needs);
    }
}
