//! [`InstanceBroker`]: the broker as one instance sees it — its call scope,
//! its own CPU accounting, its join set — behind the WIT imports.

use super::call::{Call, CallResult, Parent, TaskSpec};
use super::children::Child;
use super::request::{AgentRequest, CapabilityRequest};
use super::{CallFailure, Event, LoadedComponent, RunContext, lock};
use crate::vm::limits::HostTrap;
use hwf_core::fingerprint::Fingerprint;
use hwf_core::ids::CallScope;
use hwf_core::redact::{clip, redact_text};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use tokio::task::{AbortHandle, Id, JoinSet};

/// Longest log line kept (bytes); longer lines are clipped. Neither
/// reference cuts a log line: 1 MiB keeps any report a script logs whole
/// (a 16 KiB cut, until session 19, clipped `log(JSON.stringify(report))`)
/// while one line still cannot swamp the journal (`journal_limit` bounds
/// the whole).
const MAX_LOG_LINE: usize = 1024 * 1024;

/// What `budget()` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetFigures {
    /// Token ceiling.
    pub token_total: Option<u64>,
    /// Tokens spent.
    pub tokens_spent: u64,
    /// Agent calls left.
    pub agent_calls_left: u32,
    /// Host calls left.
    pub calls_left: u32,
}

/// The join set of one instance (`submit` / `next` / `cancel`, in
/// `composite.rs`).
#[derive(Default)]
pub struct Joins {
    /// Each task's result comes with its unit's [`Busy`](super::turns::Busy),
    /// dropped once the waiter is busy again (`turns.rs`).
    pub(super) set: JoinSet<(u64, CallResult, super::turns::Busy)>,
    pub(super) by_task: HashMap<Id, u64>,
    pub(super) handles: HashMap<u64, AbortHandle>,
    pub(super) ready: BTreeMap<u64, Result<Value, CallFailure>>,
    /// Calls `cancel` stopped while they ran: their tasks still join (and
    /// journal the call `cancelled`), but `next` never delivers them.
    pub(super) cancelled: std::collections::HashSet<u64>,
    pub(super) width: Option<Arc<super::width::Pool>>,
}

/// The per-instance side of the broker.
pub struct InstanceBroker {
    pub(super) run: Arc<RunContext>,
    pub(super) scope: CallScope,
    pub(super) component: Option<LoadedComponent>,
    pub(super) depth: u8,
    /// How deep this instance is nested (root 0; each branch or nested
    /// workflow one more).
    pub(super) level: u8,
    pub(super) joins: Joins,
    /// Whether calls are still answered from the replay index (until the
    /// first divergence in this instance).
    pub(super) replaying: bool,
    /// How many completions `next` has delivered.
    pub(super) delivered: usize,
}

impl std::fmt::Debug for InstanceBroker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstanceBroker")
            .field("run", &self.run.run_id())
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

impl InstanceBroker {
    /// The broker of a run's root instance. `component` is what branch
    /// tasks instantiate.
    pub fn root(run: Arc<RunContext>, component: Option<LoadedComponent>) -> Self {
        let replaying = run.replay().is_some();
        Self::new(run, CallScope::root(), component, 0, 0, replaying)
    }

    /// The broker of a branch or nested workflow started as `parent_call`,
    /// nested at `level`.
    pub fn child(
        run: Arc<RunContext>,
        parent_call: &str,
        component: Option<LoadedComponent>,
        depth: u8,
        level: u8,
        replaying: bool,
    ) -> Self {
        Self::new(run, CallScope::child(parent_call), component, depth, level, replaying)
    }

    /// The broker of a child instance a composite call starts;
    /// `component` replaces the inherited one (a nested workflow runs its
    /// own).
    pub fn for_child(child: Child, component: Option<LoadedComponent>) -> Self {
        let component = component.or(child.component);
        Self::child(
            child.run,
            &child.call_id,
            component,
            child.depth,
            child.level,
            child.replay,
        )
    }

    fn new(
        run: Arc<RunContext>,
        scope: CallScope,
        component: Option<LoadedComponent>,
        depth: u8,
        level: u8,
        replaying: bool,
    ) -> Self {
        Self {
            level,
            replaying,
            delivered: 0,
            run,
            scope,
            component,
            depth,
            joins: Joins::default(),
        }
    }

    /// This instance's call-id prefix (`""` at the root).
    pub fn scope_prefix(&self) -> &str {
        self.scope.prefix()
    }

    /// The run this instance belongs to.
    pub fn run(&self) -> &Arc<RunContext> {
        &self.run
    }

    pub(super) fn parent(&self) -> Parent {
        Parent {
            component: self.component.clone(),
            depth: self.depth,
            level: self.level,
            replay: self.replaying,
        }
    }

    /// Before running call `id`: if it diverges from the replay source,
    /// this instance goes live from here on.
    pub(super) fn note_divergence(&mut self, id: &str, fp: &Fingerprint) {
        if !self.replaying {
            return;
        }
        let same = self.run.replay().is_some_and(|idx| idx.knows(id, fp));
        if !same {
            tracing::debug!(call = id, "replay diverged; running live from here");
            self.replaying = false;
        }
    }

    /// Checks made on every epoch tick while this instance runs guest code:
    /// stop and the run's wall clock. (Guest CPU is metered by fuel, see
    /// [`crate::vm::engine::FUEL_PER_CPU_MS`].)
    ///
    /// # Errors
    ///
    /// The trap that ends the instance.
    pub fn check_tick(&self) -> Result<(), HostTrap> {
        self.run.check_run()
    }

    /// `agent`: one agent call through the whole pipeline.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end; call-level failures are the
    /// inner `Err`.
    pub async fn agent(&mut self, req: AgentRequest) -> CallResult {
        self.call(TaskSpec::Agent(Box::new(req))).await
    }

    /// `capability`: policy, budget, the handler, result clean-up.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub async fn capability(&mut self, request: CapabilityRequest) -> CallResult {
        self.call(TaskSpec::Capability(request)).await
    }

    /// Number, run and time one call of this instance.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub async fn call(&mut self, spec: TaskSpec) -> CallResult {
        self.run.count_call()?;
        let call = Call::new(self.scope.next_id(), spec);
        self.note_divergence(&call.id, &call.fingerprint);
        let id = call.id.clone();
        let out = self.run.run_call(call, self.parent()).await;
        // Answered in place: no `next` delivers it (`turns.rs`).
        self.run.turns.delivered(&id);
        out
    }

    /// `phase`: record and journal the current phase.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn phase(&mut self, title: &str) -> Result<(), HostTrap> {
        self.run.count_call()?;
        // Redact before the final clip, so a secret cut at the limit cannot
        // keep a prefix too short to be recognised.
        let redacted = redact_text(clip(title, 2 * 512));
        let title = clip(&redacted, 512);
        self.run.set_phase(title);
        self.run.journal_or_trap(&Event::Phase { title })
    }

    /// `log`: journal a guest log line (redacted, clipped).
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn log(&mut self, level: &str, message: &str) -> Result<(), HostTrap> {
        self.run.count_call()?;
        let redacted = redact_text(clip(message, 2 * MAX_LOG_LINE));
        let message = clip(&redacted, MAX_LOG_LINE);
        let call = if self.scope.prefix().is_empty() {
            None
        } else {
            Some(self.scope.parent())
        };
        self.run.journal_or_trap(&Event::Log {
            call,
            level,
            source: "guest",
            message,
        })
    }

    /// `budget`: live figures.
    ///
    /// # Errors
    ///
    /// A [`HostTrap`] when the run must end.
    pub fn budget(&mut self) -> Result<BudgetFigures, HostTrap> {
        self.run.count_call()?;
        let stats = lock(&self.run.stats);
        let limits = self.run.limits();
        Ok(BudgetFigures {
            token_total: limits.max_tokens,
            tokens_spent: stats.counts.tokens,
            agent_calls_left: u32::try_from(limits.max_agent_calls.saturating_sub(stats.counts.agent_calls))
                .unwrap_or(u32::MAX),
            calls_left: u32::try_from(limits.max_calls.saturating_sub(stats.counts.calls)).unwrap_or(u32::MAX),
        })
    }

    /// How many tasks the run runs at once (its width, at least 1): a
    /// setting, not an effect, so it is neither counted nor journaled.
    pub fn max_parallel(&self) -> u32 {
        u32::try_from(super::width::width_of(self.run.limits())).unwrap_or(u32::MAX)
    }
}
