//! Concurrency: `parallel`, `pipeline`, and the [`JoinSet`] over the host's
//! `submit` / `next` / `cancel`.
//!
//! All of it runs on the host: agent and capability tasks as host tasks, and
//! branch tasks in fresh instances of this component calling its `branch`
//! export. Results come back in input order (or, for a [`JoinSet`], in
//! completion order, which replay reproduces exactly).

use crate::agent::Agent;
use crate::bindings::hermes::workflow::{host, types};
use crate::capability::Capability;
use crate::{Error, Result};
use serde_json::Value;

/// A unit of work for [`parallel`] or a [`JoinSet`].
#[derive(Debug, Clone)]
#[non_exhaustive]
#[expect(
    clippy::large_enum_variant,
    reason = "a task lives only from its builder to the host call that consumes it; boxing the agent would change the public variant for no measurable gain"
)]
pub enum Task {
    /// An agent call (see [`agent`](crate::agent), [`prompt`](crate::prompt)).
    Agent(Agent),
    /// A capability call (see [`capability`](crate::capability())).
    Capability(Capability),
    /// A branch of this component, run in a fresh instance.
    Branch {
        /// Name passed to the `branch` export.
        name: String,
        /// Branch input.
        input: Value,
    },
    /// A saved workflow run as a nested child.
    Workflow {
        /// Saved script name.
        name: String,
        /// Arguments for the child.
        args: Value,
    },
}

/// A task that runs this component's `branch` export with `name` and `input`
/// in a fresh instance.
pub fn branch(name: impl Into<String>, input: Value) -> Task {
    Task::Branch {
        name: name.into(),
        input,
    }
}

/// A task that runs a saved workflow as a nested child (one level deep).
pub fn workflow(name: impl Into<String>, args: Value) -> Task {
    Task::Workflow {
        name: name.into(),
        args,
    }
}

impl Task {
    fn into_wit(self) -> types::Task {
        match self {
            Task::Agent(a) => types::Task::Agent(a.into_request()),
            Task::Capability(c) => types::Task::Capability(c.into_request()),
            Task::Branch { name, input } => types::Task::Branch(types::BranchCall {
                name,
                input: input.to_string(),
            }),
            Task::Workflow { name, args } => types::Task::Workflow(types::WorkflowCall {
                name,
                args: args.to_string(),
            }),
        }
    }
}

fn decode(raw: std::result::Result<String, types::CallError>) -> Result<Value> {
    let raw = raw.map_err(Error::from)?;
    Ok(serde_json::from_str(&raw)?)
}

/// Run tasks concurrently (bounded by the run's `max_parallel`) and wait for
/// all of them. Each slot holds its own result, in input order. With
/// `fail_fast`, the first error cancels the running tasks and the queued ones
/// are skipped (their slots hold `cancelled`).
///
/// ```no_run
/// use hwf_guest::{parallel, prompt, branch, json};
/// let results = parallel([
///     prompt("Review the diff").label("review").task(),
///     branch("scan", json!({"area": "totals"})),
/// ], false);
/// ```
pub fn parallel<I>(tasks: I, fail_fast: bool) -> Vec<Result<Value>>
where
    I: IntoIterator,
    I::Item: Into<Task>,
{
    let tasks: Vec<types::Task> = tasks.into_iter().map(|t| t.into().into_wit()).collect();
    host::parallel(&tasks, fail_fast).into_iter().map(decode).collect()
}

/// Send each item through the named branch stages in order. Stage `k`
/// receives `{"input": <previous output>, "item": <item>, "index": i}`; items
/// do not wait for each other. Results in item order.
pub fn pipeline<I, S>(items: I, stages: &[S]) -> Vec<Result<Value>>
where
    I: IntoIterator<Item = Value>,
    S: AsRef<str>,
{
    let items: Vec<String> = items.into_iter().map(|v| v.to_string()).collect();
    let stages: Vec<String> = stages.iter().map(|s| s.as_ref().to_owned()).collect();
    host::pipeline(&items, &stages).into_iter().map(decode).collect()
}

/// A set of running tasks whose results are taken in completion order.
///
/// ```no_run
/// use hwf_guest::{JoinSet, prompt};
/// let mut set = JoinSet::new();
/// for area in ["totals", "state"] {
///     set.spawn(prompt(format!("Find bugs in {area}")).label(area));
/// }
/// while let Some((call, result)) = set.next() {
///     // first finished, first served; replay delivers the same order
/// }
/// ```
#[derive(Debug, Default)]
pub struct JoinSet {
    pending: Vec<u64>,
}

impl JoinSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Start a task now; returns its call number.
    pub fn spawn(&mut self, task: impl Into<Task>) -> u64 {
        let call = host::submit(&task.into().into_wit());
        self.pending.push(call);
        call
    }

    /// Number of tasks not yet taken.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether every task has been taken.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Cancel every pending task.
    pub fn cancel_all(&mut self) {
        if !self.pending.is_empty() {
            host::cancel(&self.pending);
            self.pending.clear();
        }
    }
}

/// The tasks as they finish: each call number with its result, first
/// finished first (replay delivers the same order); `None` when every
/// task has been taken.
impl Iterator for JoinSet {
    type Item = (u64, Result<Value>);

    /// Wait for the next task to finish; `None` when the set is empty.
    fn next(&mut self) -> Option<Self::Item> {
        if self.pending.is_empty() {
            return None;
        }
        let done = host::next(&self.pending);
        self.pending.retain(|c| *c != done.call);
        Some((done.call, decode(done.outcome)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.pending.len(), Some(self.pending.len()))
    }
}
