//! Task scheduler for async execution and call ID allocation.
//!
//! # Task Model
//!
//! - Task 0 is the "main task" which uses the VM's stack/frames directly
//! - Spawned tasks (1+) store their own execution context in the Task struct
//! - When switching tasks, the scheduler swaps contexts with the VM

use std::{collections::VecDeque, mem};

use ahash::AHashMap;
use smallvec::{SmallVec, smallvec};

use crate::{
    asyncio::{Awaiter, CallId, ExternalFutureState, TaskId},
    exception_private::RunError,
    heap::{ContainsHeap, DropWithContext, Heap, HeapId, HeapReadOutput, HeapReader},
    intern::FunctionId,
    value::Value,
};

/// Task execution state for async scheduling.
///
/// Tracks whether a task is ready to run, blocked waiting for something,
/// or has completed (successfully or with an error).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) enum TaskState {
    /// Task is ready to execute (in the ready queue).
    Ready,
    /// Task is blocked waiting for an awaitable on the heap to settle.
    ///
    /// Holds an inc_ref on the awaitable (currently `ExternalFuture` or
    /// `GatherFuture` — `heap.read(id)` recovers the kind) so the heap
    /// entry stays alive while the task is parked. Resolution dispatches
    /// via the awaitable's own awaiter slot (`Awaiter::Task(task_id)` on
    /// `ExternalFuture`, `AwaitedGather.awaiter = Awaiter::Task(task_id)`
    /// on `GatherFuture`) rather than from the variant tag.
    Blocked(HeapId),
    /// Task completed successfully with a return value.
    Completed(Value),
    /// Task failed with an error.
    Failed(RunError),
}

impl<C: ContainsHeap> DropWithContext<C> for TaskState {
    fn drop_with(self, heap: &mut C) {
        match self {
            Self::Ready | Self::Failed(_) => {}
            Self::Blocked(id) => heap.heap_mut().dec_ref(id),
            Self::Completed(value) => value.drop_with(heap),
        }
    }
}

/// A single async task with its own execution context.
///
/// The main task (task 0) doesn't store its own frames/stack - it uses the VM's
/// directly. Spawned tasks store their execution context here so they can be
/// swapped in and out.
///
/// # Context Switching
///
/// When switching away from a non-main task, its context is saved here.
/// When switching to it, the context is loaded into the VM.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Task {
    /// Unique identifier for this task.
    pub id: TaskId,
    /// Serialized call frames for this task's execution.
    /// Empty for the main task (which uses VM's frames directly).
    pub frames: Vec<SerializedTaskFrame>,
    /// Operand stack for this task.
    /// Empty for the main task (which uses VM's stack directly).
    pub stack: Vec<Value>,
    /// Exception stack for nested except blocks.
    pub exception_stack: Vec<Value>,
    /// VM-level instruction_ip (for exception table lookup).
    pub instruction_ip: usize,
    /// Coroutine being executed by this task (if any).
    /// Used to mark the coroutine as Completed when the task finishes.
    pub coroutine_id: Option<HeapId>,
    /// Where this task's result goes, owning whatever the `Awaiter` owns —
    /// for the `GatherSlot` a spawned child gets, an inc_ref on its gather.
    ///
    /// `None` means nothing wants the result: the main task, or a child whose
    /// gather settled before it finished. Such a task still runs to
    /// completion; its result is dropped on arrival.
    pub awaiter: Option<Awaiter>,
    /// Current execution state.
    pub state: TaskState,
    /// hwf: a failing-fast gather (`asyncio._hwf_gather`) this task waits on
    /// failed: the task is queued `Failed`, and when it is loaded the
    /// gather's children still running are cancelled before it raises.
    /// Owns an inc_ref on the gather.
    #[serde(default)]
    pub cancel_on_wake: Option<HeapId>,
}

impl<C: ContainsHeap> DropWithContext<C> for Task {
    fn drop_with(mut self, heap: &mut C) {
        self.stack.drain(..).drop_with(heap);
        self.exception_stack.drain(..).drop_with(heap);
        self.state.drop_with(heap);
        if let Some(coro_id) = self.coroutine_id.take() {
            heap.heap_mut().dec_ref(coro_id);
        }
        if let Some(awaiter) = self.awaiter.take() {
            awaiter.drop_with(heap);
        }
        if let Some(gather) = self.cancel_on_wake.take() {
            heap.heap_mut().dec_ref(gather);
        }
    }
}

/// Serialized call frame for task storage.
///
/// Similar to `SerializedFrame` but used within the scheduler for task context.
/// Cannot store `&Code` references - uses `FunctionId` to look up code on resume.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct SerializedTaskFrame {
    /// Which function's code this frame executes (None = module-level).
    pub function_id: Option<FunctionId>,
    /// Instruction pointer within this frame's bytecode.
    pub ip: usize,
    /// Base index into the VM stack for this frame's locals region.
    pub stack_base: usize,
    /// Number of local variable slots (0 for module-level frames).
    pub locals_count: u16,
    /// Base index into the VM-wide `exception_stack` for this frame.
    /// See `CallFrame.exception_stack_base`.
    pub exception_stack_base: usize,
    /// Caller's bytecode offset at the call site (for tracebacks). See
    /// `CallFrame.call_offset`.
    pub call_offset: Option<u32>,
    /// Whether this frame is a class `__init__` (see `CallFrame.is_initializer`).
    #[serde(default)]
    pub is_initializer: bool,
    /// hwf: the async generator this frame runs (see `CallFrame.generator`).
    #[serde(default)]
    pub generator: Option<crate::heap::HeapId>,
}

impl Task {
    /// Creates a new task in the Ready state.
    ///
    /// # Arguments
    /// * `id` - Unique task identifier
    /// * `coroutine_id` - Optional HeapId of the coroutine being executed
    /// * `awaiter` - Where the task's result goes; owned (see [`Task::awaiter`])
    pub fn new(id: TaskId, coroutine_id: Option<HeapId>, awaiter: Option<Awaiter>) -> Self {
        Self {
            id,
            frames: Vec::new(),
            stack: Vec::new(),
            exception_stack: Vec::new(),
            instruction_ip: 0,
            coroutine_id,
            awaiter,
            state: TaskState::Ready,
            cancel_on_wake: None,
        }
    }

    /// Returns true if this task has completed (successfully or with failure).
    #[inline]
    pub fn is_finished(&self) -> bool {
        matches!(self.state, TaskState::Completed(_) | TaskState::Failed(_))
    }
}

/// Scheduler for managing call IDs, async tasks, and external call tracking.
///
/// Always present on the VM (not optional). Owns the `next_call_id` counter
/// used by both sync and async code paths, plus all async-related state:
/// - Task management (creation, scheduling, completion)
/// - External call tracking and resolution
///
/// # Main Task
///
/// Task 0 is the "main task" which executes using the VM's stack/frames directly.
/// It's always created at scheduler initialization but doesn't store its own context
/// (the VM holds it). Spawned tasks (1+) store their context in the Task struct.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Scheduler {
    /// All tasks keyed by their `TaskId`.
    tasks: AHashMap<TaskId, Task>,
    /// Queue of task IDs ready to execute.
    ready_queue: VecDeque<TaskId>,
    /// Currently executing task (None only during task switching).
    current_task: Option<TaskId>,
    /// Counter for generating new task IDs.
    next_task_id: u32,
    /// Counter for external call IDs (always incremented, even for sync resolution).
    next_call_id: u32,
    /// Host-side index mapping each unresolved external call to its
    /// `HeapData::ExternalFuture` entry. The scheduler holds an inc_ref on
    /// each value until the host resolves or fails the call — that ref keeps
    /// the future entry alive between yield and resume even if no awaiter is
    /// holding a `Value::Ref` to it.
    pending_externals: AHashMap<CallId, HeapId>,
    /// Index mapping a spawned coroutine's `HeapId` to the `TaskId` driving
    /// it. Populated in [`Scheduler::spawn`] and removed in
    /// [`Scheduler::cancel_task`]. Lets `GatherFuture` and other call sites
    /// dispatch from coroutine heap id back to the driving task without
    /// scanning all tasks.
    coroutine_to_task: AHashMap<HeapId, TaskId>,
    /// hwf: refill points of failing-fast gathers (`asyncio._hwf_gather`)
    /// whose window has children waiting: an id queued in `ready_queue`
    /// that is no task, and the gather it refills (an inc_ref owned). When
    /// it comes up, the gather's free slots are filled (see
    /// `VM::next_ready`), as the seed's `parallel` starts tasks when its
    /// `asyncio.wait` wakes, behind the tasks ready when a child finished.
    refill_points: Vec<(TaskId, HeapId)>,
}

impl Scheduler {
    /// Creates a new scheduler with the main task (task 0) as current.
    ///
    /// The main task uses the VM's stack/frames directly and is always present.
    /// It starts as the current task (not in the ready queue) since it runs
    /// immediately without needing to be scheduled.
    pub fn new() -> Self {
        let main_task_id = TaskId::default();
        let mut main_task = Task::new(main_task_id, None, None);
        // Main task starts Running, not Ready (it's the current task, not waiting)
        main_task.state = TaskState::Ready; // Will be set properly when it blocks
        let mut tasks = AHashMap::new();
        tasks.insert(main_task_id, main_task);
        Self {
            tasks,
            ready_queue: VecDeque::new(), // Main task is current, not in ready queue
            current_task: Some(main_task_id),
            next_task_id: 1,
            next_call_id: 0,
            pending_externals: AHashMap::new(),
            coroutine_to_task: AHashMap::new(),
            refill_points: Vec::new(),
        }
    }

    /// Returns the currently executing task ID.
    ///
    /// Returns `None` only during task switching operations.
    #[inline]
    pub fn current_task_id(&self) -> Option<TaskId> {
        self.current_task
    }

    /// Returns a mutable reference to a task by ID.
    ///
    /// # Panics
    /// Panics if the task ID doesn't exist.
    #[inline]
    pub fn get_task_mut(&mut self, task_id: TaskId) -> &mut Task {
        self.tasks
            .get_mut(&task_id)
            .expect("Scheduler::get_task_mut: task not found")
    }

    /// Allocates a new CallId for an external function call.
    ///
    /// The counter always increments, even for sync resolution, to keep IDs unique.
    pub fn allocate_call_id(&mut self) -> CallId {
        let id = CallId::new(self.next_call_id);
        self.next_call_id += 1;
        id
    }

    /// Registers a freshly created `ExternalFuture` for `call_id`.
    ///
    /// The scheduler inc_refs `future_id` so the entry stays alive between
    /// the yield to the host and the matching `resolve_future` / `fail_future`
    /// call, even if no awaiter holds a `Value::Ref` to it.
    pub fn add_pending_external(&mut self, call_id: CallId, future_id: HeapId, heap: &Heap) {
        heap.inc_ref(future_id);
        let prev = self.pending_externals.insert(call_id, future_id);
        debug_assert!(prev.is_none(), "add_pending_external: CallId already registered");
    }

    /// Removes and returns the `ExternalFuture` heap id for `call_id`, if any.
    ///
    /// The caller becomes responsible for the inc_ref previously held by the
    /// scheduler (typically dec_ref'd once the state transition is committed).
    pub fn take_pending_external(&mut self, call_id: CallId) -> Option<HeapId> {
        self.pending_externals.remove(&call_id)
    }

    /// Marks the current task as `Blocked` on the awaitable at `awaitable_id`.
    ///
    /// The task will be unblocked when the awaitable settles and its awaiter
    /// slot routes back here (`Awaiter::Task(task_id)` on either
    /// `ExternalFuture::Pending` or `AwaitedGather`).
    pub fn block_current_on(&mut self, awaitable_id: HeapId, heap: &Heap) {
        if let Some(task_id) = self.current_task {
            let task = self.get_task_mut(task_id);
            heap.inc_ref(awaitable_id);
            task.state = TaskState::Blocked(awaitable_id);
        }
    }

    /// Returns all pending (unresolved) CallIds.
    pub fn pending_call_ids(&self) -> Vec<CallId> {
        self.pending_externals.keys().copied().collect()
    }

    /// Removes a task from the ready queue.
    ///
    /// Used when handling the main task directly (via `prepare_main_task_after_resolve`)
    /// instead of through the normal task switching mechanism.
    pub fn remove_from_ready_queue(&mut self, task_id: TaskId) {
        self.ready_queue.retain(|&id| id != task_id);
    }

    /// Spawns a new task from a coroutine, enforcing one-task-per-coroutine.
    ///
    /// Returns `None` if `coroutine_id` is already driving a task —
    /// caught here because cross-gather reuse can hit two spawns while
    /// both coroutine states are still `New`, so the state check in
    /// `await_coroutine` doesn't catch it. Callers translate `None`
    /// into a `RuntimeError: cannot reuse already awaited coroutine`.
    /// Both `coroutine_id` and the `GatherSlot` built from `gather_id` become
    /// **owning** references held by the new task; the matching `dec_ref`
    /// happens in [`Scheduler::cancel_task`]. It takes `gather_id` rather than
    /// a ready-made `Awaiter` so the `None` return above has nothing to unwind.
    pub fn spawn(&mut self, heap: &Heap, coroutine_id: HeapId, gather_id: Option<HeapId>) -> Option<TaskId> {
        if self.coroutine_to_task.contains_key(&coroutine_id) {
            return None;
        }

        let task_id = TaskId::new(self.next_task_id);
        self.next_task_id += 1;

        // Take ownership of the heap references — the task now holds an inc_ref'd
        // pointer to its coroutine and (if applicable) its enclosing gather.
        // The slot is keyed by the coroutine's own id, which is what
        // `resolve_child` looks up.
        heap.inc_ref(coroutine_id);
        let awaiter = gather_id.map(|gather| {
            heap.inc_ref(gather);
            Awaiter::GatherSlot {
                gather,
                source: coroutine_id,
            }
        });

        let task = Task::new(task_id, Some(coroutine_id), awaiter);
        self.tasks.insert(task_id, task);
        self.coroutine_to_task.insert(coroutine_id, task_id);
        self.ready_queue.push_back(task_id);

        Some(task_id)
    }

    /// Gets the next ready task from the queue.
    ///
    /// Returns `None` if no tasks are ready.
    pub fn next_ready_task(&mut self) -> Option<TaskId> {
        self.ready_queue.pop_front()
    }

    /// Replaces a task's state, properly releasing any heap references owned
    /// by the previous state.
    pub fn set_state(&mut self, task_id: TaskId, new_state: TaskState, heap: &mut Heap) {
        let task = self.get_task_mut(task_id);
        let old_state = mem::replace(&mut task.state, new_state);
        old_state.drop_with(heap);
    }

    /// Adds a task back to the ready queue.
    pub fn make_ready(&mut self, task_id: TaskId, heap: &mut Heap) {
        self.set_state(task_id, TaskState::Ready, heap);
        self.ready_queue.push_back(task_id);
    }

    /// hwf: queues the `Failed` waiter of the failing-fast gather `gather`
    /// behind the ready tasks, without touching its state: when it is loaded,
    /// the gather's children still running are cancelled and it raises
    /// (`VM::load_ready_task`). Takes an inc_ref on `gather`.
    pub fn queue_failed_waiter(&mut self, task_id: TaskId, gather: HeapId, heap: &mut HeapReader<'_>) {
        heap.inc_ref(gather);
        let task = self.get_task_mut(task_id);
        if let Some(old) = task.cancel_on_wake.replace(gather) {
            heap.dec_ref(old);
        }
        self.ready_queue.push_back(task_id);
    }

    /// hwf: takes the failing-fast gather whose children are cancelled when
    /// `task_id` wakes (see [`Task::cancel_on_wake`]), with its inc_ref.
    pub fn take_cancel_on_wake(&mut self, task_id: TaskId) -> Option<HeapId> {
        self.tasks.get_mut(&task_id).and_then(|t| t.cancel_on_wake.take())
    }

    /// hwf: queues a refill point of the failing-fast gather `gather` behind
    /// the ready tasks, unless one is queued already (the seed's
    /// `asyncio.wait` wakes once for the children that finish before it
    /// runs). Takes an inc_ref on `gather`.
    pub fn queue_refill_point(&mut self, gather: HeapId, heap: &mut HeapReader<'_>) {
        if self.refill_points.iter().any(|&(_, g)| g == gather) {
            return;
        }
        heap.inc_ref(gather);
        let id = TaskId::new(self.next_task_id);
        self.next_task_id += 1;
        self.refill_points.push((id, gather));
        self.ready_queue.push_back(id);
    }

    /// hwf: the gather whose refill point `id` is, with its inc_ref, if `id`
    /// (taken from the ready queue) is one.
    pub fn take_refill_point(&mut self, id: TaskId) -> Option<HeapId> {
        let at = self.refill_points.iter().position(|&(p, _)| p == id)?;
        Some(self.refill_points.remove(at).1)
    }

    /// hwf: the task driving the spawned coroutine `coroutine_id`, if it is
    /// still running.
    pub fn task_of_coroutine(&self, coroutine_id: HeapId) -> Option<TaskId> {
        self.coroutine_to_task.get(&coroutine_id).copied()
    }

    /// Sets the current task.
    pub fn set_current_task(&mut self, task_id: Option<TaskId>) {
        self.current_task = task_id;
    }

    /// Marks a task as failed with an error.
    ///
    /// Only the state changes: the task keeps its `Awaiter`, so whoever wanted
    /// its result is still reachable when the failure is delivered.
    pub fn fail_task(&mut self, task_id: TaskId, error: RunError, heap: &mut Heap) {
        self.set_state(task_id, TaskState::Failed(error), heap);
    }

    /// Cancels a task, fully releasing its resources and removing it from the
    /// scheduler.
    ///
    /// Drops the task's stack, exception stack, any pending `Completed`
    /// result, and tears down any inner gather it was blocked on. After this
    /// call the task no longer exists in `Scheduler::tasks`; its owning
    /// references to its coroutine and (outer) gather are released by the
    /// `Task::drop_with` in [`Scheduler::cancel_one`].
    ///
    /// Drains a worklist rather than recursing into inner gathers: a chain of
    /// blocked tasks costs no native stack to *build*, so recursive teardown
    /// turned that stored depth back into frames and overflowed.
    pub fn cancel_task(&mut self, task_id: TaskId, heap: &mut HeapReader<'_>) {
        let mut pending: SmallVec<[TaskId; 4]> = smallvec![task_id];
        while let Some(task_id) = pending.pop() {
            self.cancel_one(task_id, heap, &mut pending);
        }
    }

    /// hwf: cancels one task, leaving the tasks spawned under a gather it was
    /// blocked on running: their results reach that gather and go no further
    /// (its waiter is gone), as a seed task cancelled while its `parallel`
    /// waits in `asyncio.wait` leaves that parallel's branches running.
    pub fn cancel_task_alone(&mut self, task_id: TaskId, heap: &mut HeapReader<'_>) {
        let mut nested: SmallVec<[TaskId; 4]> = SmallVec::new();
        self.cancel_one(task_id, heap, &mut nested);
    }

    /// Cancels one task, queueing the tasks spawned under any gather it was
    /// blocked on for [`Scheduler::cancel_task`] to drain.
    ///
    /// Dropping this task ahead of the children it queued is sound: each owns
    /// an inc_ref on that same gather (see [`Scheduler::spawn`]).
    fn cancel_one(&mut self, task_id: TaskId, heap: &mut HeapReader<'_>, pending: &mut SmallVec<[TaskId; 4]>) {
        // No-op if the task has already been removed (idempotent — finalization
        // sites may iterate task ids that include already-cancelled siblings).
        let Some(task) = self.tasks.remove(&task_id) else {
            return;
        };

        // If we're cancelling the current task, clear `current_task` so callers
        // don't try to look up a task that's about to be dropped (e.g.
        // `resume_with_resolved_futures` after `fail_for_call` tore down the
        // gather containing the previously-current task).
        if self.current_task == Some(task_id) {
            self.current_task = None;
        }

        if let Some(coroutine_id) = task.coroutine_id {
            self.coroutine_to_task.remove(&coroutine_id);
        }

        if !task.is_finished() {
            self.ready_queue.retain(|&id| id != task_id);

            // Blocked on a gather: queue the tasks spawned under it. Blocked
            // on an external future: the call is no longer waited on.
            if let TaskState::Blocked(blocked_id) = task.state {
                self.forget_awaited_external(blocked_id, task_id, heap);
                self.queue_gather_tasks(blocked_id, heap, pending);
            }
        }

        task.drop_with(heap);
    }

    /// hwf: when a task blocked on the external future `future_id` is
    /// cancelled, nothing waits on that call any more: it leaves
    /// `pending_externals` (so [`Self::pending_call_ids`] no longer lists it
    /// and the host can cancel it; a late result is dropped) and the future
    /// forgets the task. A future that is not one, or that another awaiter
    /// holds, is left alone.
    fn forget_awaited_external(&mut self, future_id: HeapId, task_id: TaskId, heap: &mut HeapReader<'_>) {
        let HeapReadOutput::ExternalFuture(mut fut) = heap.read(future_id) else {
            return;
        };
        let call_id = fut.get(heap).call_id;
        let awaiter = match &mut fut.get_mut(heap).state {
            ExternalFutureState::Pending { awaiter } if matches!(&*awaiter, Some(Awaiter::Task(t)) if *t == task_id) => {
                awaiter.take()
            }
            _ => None,
        };
        drop(fut);
        let Some(awaiter) = awaiter else {
            return;
        };
        awaiter.drop_with(heap);
        if let Some(id) = self.pending_externals.remove(&call_id) {
            heap.dec_ref(id);
        }
    }

    /// Queues every task spawned under the gather `root`, walking nested
    /// gathers iteratively.
    ///
    /// A gather item can itself be a gather (`gather(gather(coro()))`), whose
    /// tasks are just as orphaned as direct coroutine children if left in
    /// `self.tasks` — they would keep running and then deliver a result to the
    /// task cancelled here. External children *are* left alone: the owning
    /// `Awaiter::GatherSlot` anchors them.
    ///
    /// Must run while the cancelled task still holds its `Blocked` inc_ref on
    /// `root`, since the walk takes no references of its own: each nested
    /// gather is kept alive by its parent's `items`, and the parent in turn by
    /// the `Awaiter::GatherSlot` inc_ref that nested child holds.
    fn queue_gather_tasks(&self, root: HeapId, heap: &HeapReader<'_>, pending: &mut SmallVec<[TaskId; 4]>) {
        // Gathers nest as a tree — a gather may only be awaited once, so the
        // walk cannot revisit a node and terminates.
        let mut gathers: SmallVec<[HeapId; 4]> = smallvec![root];
        while let Some(gather_id) = gathers.pop() {
            // Coroutine and external children land here too; only gathers have
            // children of their own to walk.
            let HeapReadOutput::GatherFuture(gather) = heap.read(gather_id) else {
                continue;
            };
            if let Some(awaited) = gather.get(heap).as_awaited() {
                for child_id in awaited.pending_children.keys() {
                    match self.coroutine_to_task.get(child_id) {
                        Some(&task_id) => pending.push(task_id),
                        None => gathers.push(*child_id),
                    }
                }
            }
            drop(gather);
        }
    }

    /// Records a host-side failure for `call_id` and returns the awaiter the
    /// caller should walk to propagate the error.
    ///
    /// Looks up the `ExternalFuture` heap entry, transitions it to `Failed`
    /// with a clone of the error, and yields the awaiter that owned the
    /// future's `Pending` slot — except for `Awaiter::Task(t)` where `t` is a
    /// child of a still-running gather: in that case we settle the gather here
    /// (rather than leaving the parked task `Failed` for a sibling's
    /// resolution to discover later) and return the gather's awaiter instead,
    /// so the caller's chain walk picks up at the right level.
    ///
    /// The returned `Awaiter` is owned (callers must walk it via
    /// `deliver_awaiter_failure`, which drops every link).
    ///
    /// Returns `None` when there's nothing to propagate (unknown CallId,
    /// already-resolved future, or the future had no awaiter — the failure
    /// is simply cached on the future for replay).
    #[must_use]
    pub fn fail_for_call(&mut self, call_id: CallId, error: &RunError, heap: &mut HeapReader<'_>) -> Option<Awaiter> {
        let future_id = self.pending_externals.remove(&call_id)?;

        let HeapReadOutput::ExternalFuture(mut fut) = heap.read(future_id) else {
            panic!("pending_externals entry doesn't point to an ExternalFuture")
        };
        let awaiter = match mem::replace(&mut fut.get_mut(heap).state, ExternalFutureState::Failed(error.clone())) {
            ExternalFutureState::Pending { awaiter } => awaiter,
            ExternalFutureState::Resolved(_) | ExternalFutureState::Failed(_) => {
                panic!("fail_for_call: future was already resolved")
            }
        };
        drop(fut);
        heap.dec_ref(future_id);

        match awaiter {
            // Nothing is waiting on this call — it was never awaited. The
            // failure stays cached on the future for a later await to replay.
            None => None,
            // hwf: the failure is raised in the task that awaited the
            // future, as CPython raises it at the `await`: its own
            // `try`/`except` may handle it. (Monty 0.0.23 failed the task's
            // gather directly, so a handler inside a `gather` child never
            // ran.) Uncaught, it fails the task, and that fails the gather.
            Some(Awaiter::Task(task_id)) => Some(Awaiter::Task(task_id)),
            Some(Awaiter::GatherSlot { gather, .. }) => {
                let HeapReadOutput::GatherFuture(mut gather_rd) = heap.read(gather) else {
                    panic!("gather_id doesn't point to a GatherFuture")
                };
                let outer_awaiter = gather_rd.fail(heap, error);
                drop(gather_rd);
                // Release the inc_ref the destructured `GatherSlot` owned
                // on `gather` (we settled that gather above).
                heap.dec_ref(gather);
                outer_awaiter
            }
        }
    }

    /// Returns true if a task has been cancelled or failed.
    #[inline]
    pub fn is_task_failed(&self, task_id: TaskId) -> bool {
        self.tasks
            .get(&task_id)
            .is_some_and(|task| matches!(task.state, TaskState::Failed(_)))
    }

    /// Returns true if a task with `task_id` currently exists in the
    /// scheduler. Cancelled tasks are removed from the map, so this returning
    /// `false` means the task is gone.
    #[inline]
    pub fn has_task(&self, task_id: TaskId) -> bool {
        self.tasks.contains_key(&task_id)
    }

    /// Number of tasks the scheduler still holds.
    ///
    /// Test-only: a task whose await has already failed must not stay parked,
    /// and a finished run tears the scheduler down, so this count while
    /// suspended is the only way a test can see one.
    #[cfg(feature = "test-hooks")]
    pub fn task_count(&self) -> usize {
        self.tasks.len()
    }

    /// Cleans up all scheduler resources: the pending-future inc_refs and
    /// every remaining task (via [`Scheduler::cancel_task`]).
    pub fn cleanup(&mut self, heap: &mut HeapReader<'_>) {
        // Release the inc_refs the scheduler holds on each pending future.
        for (_, future_id) in mem::take(&mut self.pending_externals) {
            heap.dec_ref(future_id);
        }
        for (id, gather) in mem::take(&mut self.refill_points) {
            self.ready_queue.retain(|&t| t != id);
            heap.dec_ref(gather);
        }
        let task_ids: Vec<TaskId> = self.tasks.keys().copied().collect();
        for task_id in task_ids {
            self.cancel_task(task_id, heap);
        }
    }
}

impl Default for Scheduler {
    fn default() -> Self {
        Self::new()
    }
}
