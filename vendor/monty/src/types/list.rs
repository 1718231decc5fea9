use std::{cmp::Ordering, fmt::Write, mem};

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::{CmpOrder, PyTrait, iter::collect_owned_iterable};
use crate::{
    args::ArgValues,
    bytecode::{CallResult, ContainsVM, RecursionToken, VM},
    defer_drop, defer_drop_mut,
    exception_private::{ExcType, ExcTypeExt, RunError, RunResult, SimpleException},
    heap::{
        DropGuard, DropWithContext, Heap, HeapData, HeapId, HeapItem, HeapObjectRead, HeapRead, HeapReadOutput,
        HeapReader,
    },
    intern::StaticStrings,
    resource_checks::check_repeat_size,
    sorting::parse_and_sort,
    types::{
        LazyHeapSet, Type,
        long_int::repeat_count,
        slice::{normalize_sequence_index, slice_collect_iterator, value_to_i64_bound},
    },
    value::{EitherStr, VALUE_SIZE, Value},
};

/// Python list type, wrapping a Vec of Values.
///
/// This type provides Python list semantics including dynamic growth,
/// reference counting for heap values, and standard list methods.
///
/// # Implemented Methods
/// - `append(item)` - Add item to end
/// - `insert(index, item)` - Insert item at index
/// - `pop([index])` - Remove and return item (default: last)
/// - `remove(value)` - Remove first occurrence of value
/// - `clear()` - Remove all items
/// - `copy()` - Shallow copy
/// - `extend(iterable)` - Append items from iterable
/// - `index(value[, start[, end]])` - Find first index of value
/// - `count(value)` - Count occurrences
/// - `reverse()` - Reverse in place
/// - `sort([key][, reverse])` - Sort in place
///
/// Note: `sort(key=...)` supports builtin key functions (len, abs, etc.)
/// but not user-defined functions. This is handled at VM level for access
/// to function calling machinery.
///
/// All list methods from Python's builtins are implemented.
///
/// # Reference Counting
/// When values are added to the list (via append, insert, etc.), their
/// reference counts are incremented if they are heap-allocated (Ref variants).
/// This ensures values remain valid while referenced by the list.
///
/// # GC Optimization
/// The `contains_refs` flag tracks whether the list contains any `Value::Ref` items.
/// This allows `collect_child_ids` and `py_dec_ref_ids` to skip iteration when the
/// list contains only primitive values (ints, bools, None, etc.), significantly
/// improving GC performance for lists of primitives.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct List {
    items: Vec<Value>,
    /// True if any item in the list is a `Value::Ref`. Used to skip iteration
    /// in `collect_child_ids` and `py_dec_ref_ids` when no refs are present.
    contains_refs: bool,
}

impl List {
    /// Creates a new list from a vector of values.
    ///
    /// Automatically computes the `contains_refs` flag by checking if any value
    /// is a `Value::Ref`.
    ///
    /// Note: This does NOT increment reference counts - the caller must
    /// ensure refcounts are properly managed.
    #[must_use]
    pub fn new(vec: Vec<Value>) -> Self {
        let contains_refs = vec.iter().any(|v| matches!(v, Value::Ref(_)));
        Self {
            items: vec,
            contains_refs,
        }
    }

    /// Returns a reference to the underlying vector.
    #[must_use]
    pub fn as_slice(&self) -> &[Value] {
        &self.items
    }

    /// Returns a mutable reference to the underlying vector.
    ///
    /// # Safety Considerations
    /// Be careful when mutating the vector directly - you must manually
    /// manage reference counts for any heap values you add or remove.
    /// The `contains_refs` flag is NOT automatically updated by direct
    /// vector mutations. Prefer using `append()` or `insert()` instead.
    pub fn as_vec_mut(&mut self) -> &mut Vec<Value> {
        &mut self.items
    }

    /// Returns the number of elements in the list.
    #[must_use]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Returns whether the list contains any heap references.
    ///
    /// When false, `collect_child_ids` and `py_dec_ref_ids` can skip iteration.
    #[inline]
    #[must_use]
    pub fn contains_refs(&self) -> bool {
        self.contains_refs
    }

    /// Marks that the list contains heap references.
    ///
    /// This should be called when directly mutating the list's items vector
    /// (via `as_vec_mut()`) with values that include `Value::Ref` variants.
    #[inline]
    pub fn set_contains_refs(&mut self) {
        self.contains_refs = true;
    }
}

impl<'h> HeapRead<'h, List> {
    /// hwf: `list += iterable` for an operand that is not a list: CPython's
    /// `list.__iadd__` is `extend`, so a tuple, string, generator or dict
    /// extends the list in place; a non-iterable raises `'int' object is not
    /// iterable`.
    fn extend_from_iterable(&mut self, other: &Value, vm: &mut VM<'h>) -> RunResult<bool> {
        let items: SmallVec<[Value; 2]> = collect_owned_iterable(other.clone_with_heap(vm.heap), vm)?;
        if items.iter().any(|v| matches!(v, Value::Ref(_))) {
            self.get_mut(vm.heap).set_contains_refs();
        }
        self.get_mut(vm.heap).as_vec_mut().extend(items);
        Ok(true)
    }

    /// Appends an element to the end of the list.
    ///
    /// The caller transfers ownership of `item` to the list. The item's refcount
    /// is NOT incremented here - the caller is responsible for ensuring the refcount
    /// was already incremented (e.g., via `clone_with_heap` or `evaluate_use`).
    pub fn append(&mut self, vm: &mut VM<'h>, item: Value) {
        // Track whether the list now contains heap refs so child-walk fast paths
        // can short-circuit; cycle-collector seeding is handled by `dec_ref`,
        // not at mutation time.
        if matches!(item, Value::Ref(_)) {
            self.get_mut(vm.heap).contains_refs = true;
        }
        // Ownership transfer - refcount was already handled by caller
        self.get_mut(vm.heap).items.push(item);
    }

    /// Inserts an element at the specified index.
    ///
    /// The caller transfers ownership of `item` to the list. The item's refcount
    /// is NOT incremented here - the caller is responsible for ensuring the refcount
    /// was already incremented.
    ///
    /// # Arguments
    /// * `index` - The position to insert at (0-based). If index >= len(),
    ///   the item is appended to the end (matching Python semantics).
    pub fn insert(&mut self, vm: &mut VM<'h>, index: usize, item: Value) {
        // Track whether the list now contains heap refs so child-walk fast paths
        // can short-circuit; cycle-collector seeding is handled by `dec_ref`.
        if matches!(item, Value::Ref(_)) {
            self.get_mut(vm.heap).contains_refs = true;
        }
        // Ownership transfer - refcount was already handled by caller
        // Python's insert() appends if index is out of bounds
        let this = self.get_mut(vm.heap);
        if index >= this.items.len() {
            this.items.push(item);
        } else {
            this.items.insert(index, item);
        }
    }
}

impl List {
    /// Creates a list from the `list()` constructor call.
    ///
    /// - `list()` with no args returns an empty list
    /// - `list(iterable)` creates a list from any iterable (list, tuple, range, str, bytes, dict)
    pub fn init(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
        let value = args.get_zero_one_arg("list", vm.heap)?;
        match value {
            None => {
                let heap_id = vm.heap.allocate(HeapData::List(Self::new(Vec::new())));
                Ok(Value::Ref(heap_id))
            }
            Some(v) => {
                let items = collect_owned_iterable(v, vm)?;
                let heap_id = vm.heap.allocate(HeapData::List(Self::new(items)));
                Ok(Value::Ref(heap_id))
            }
        }
    }
}

impl<'h> HeapRead<'h, List> {
    /// hwf: `del lst[key]` — an index (negative from the end) or a slice
    /// (any step). Returns the removed items for the caller to release.
    pub(crate) fn delete_item(&mut self, key: &Value, vm: &mut VM<'h>) -> RunResult<Vec<Value>> {
        let len = self.get(vm.heap).len();
        if let Value::Ref(id) = key
            && let HeapData::Slice(slice) = vm.heap.get(*id)
        {
            let (start, stop, step) = slice.indices(len)?;
            let mut doomed: Vec<usize> = Vec::new();
            let mut i = start;
            while (step > 0 && i < stop) || (step < 0 && i > stop) {
                if let Ok(index) = usize::try_from(i) {
                    doomed.push(index);
                }
                i += step;
            }
            doomed.sort_unstable();
            let items = &mut self.get_mut(vm.heap).items;
            // hwf: one pass over the tail from the first doomed index (a
            // `Vec::remove` per item made `del xs[::2]` and `del xs[:k]`
            // quadratic); the removed items keep their last-first order.
            let Some(&first) = doomed.first() else {
                return Ok(Vec::new());
            };
            let mut removed = Vec::with_capacity(doomed.len());
            let last = doomed.last().copied().unwrap_or(first);
            if last - first + 1 == doomed.len() && last < items.len() {
                // a run of neighbours (`del xs[a:b]`, a step of 1 or -1)
                removed.extend(items.drain(first..=last).rev());
            } else if first < items.len() {
                let tail: Vec<Value> = items.drain(first..).collect();
                let mut next = doomed.iter().copied().peekable();
                for (index, item) in (first..).zip(tail) {
                    if next.peek() == Some(&index) {
                        next.next();
                        removed.push(item);
                    } else {
                        items.push(item);
                    }
                }
                removed.reverse();
            }
            return Ok(removed);
        }
        let index = key.as_index(vm, Type::List)?;
        let signed_len = i64::try_from(len).expect("list length exceeds i64::MAX");
        let normalized = if index < 0 { index + signed_len } else { index };
        if normalized < 0 || normalized >= signed_len {
            return Err(ExcType::list_assignment_index_error());
        }
        let index = usize::try_from(normalized).expect("index validated non-negative");
        Ok(vec![self.get_mut(vm.heap).items.remove(index)])
    }

    /// hwf: `lst[slice] = iterable`, as CPython: a step of 1 replaces the
    /// range with the items (any number of them); any other step needs
    /// exactly one item per position (`ValueError` otherwise). The items are
    /// collected before the list is read, so `xs[:] = xs` and a generator
    /// that reads the list see it unchanged.
    fn assign_slice(&mut self, slice: &super::Slice, value: Value, vm: &mut VM<'h>) -> RunResult<()> {
        let extended = slice.step.is_some_and(|step| step != 1);
        if !value.py_is_iterable(vm) {
            value.drop_with(vm);
            let msg = if extended {
                "must assign iterable to extended slice"
            } else {
                "can only assign an iterable"
            };
            return Err(SimpleException::new_msg(ExcType::TypeError, msg).into());
        }
        let new_items: Vec<Value> = collect_owned_iterable(value, vm)?;
        let (start, stop, step) = match slice.indices(self.get(vm.heap).len()) {
            Ok(bounds) => bounds,
            Err(err) => {
                new_items.drop_with(vm);
                return Err(err);
            }
        };
        if new_items.iter().any(|v| matches!(v, Value::Ref(_))) {
            self.get_mut(vm.heap).set_contains_refs();
        }
        let old: Vec<Value> = if step == 1 {
            // `indices` clamps both bounds to `0..=len` for a positive step.
            let start = usize::try_from(start).unwrap_or(0);
            let stop = usize::try_from(stop).unwrap_or(0).max(start);
            self.get_mut(vm.heap)
                .as_vec_mut()
                .splice(start..stop, new_items)
                .collect()
        } else {
            let mut positions: Vec<usize> = Vec::new();
            let mut i = start;
            while (step > 0 && i < stop) || (step < 0 && i > stop) {
                if let Ok(index) = usize::try_from(i) {
                    positions.push(index);
                }
                i += step;
            }
            if positions.len() != new_items.len() {
                let msg = format!(
                    "attempt to assign sequence of size {} to extended slice of size {}",
                    new_items.len(),
                    positions.len()
                );
                new_items.drop_with(vm);
                return Err(SimpleException::new_msg(ExcType::ValueError, msg).into());
            }
            let items = self.get_mut(vm.heap).as_vec_mut();
            positions
                .into_iter()
                .zip(new_items)
                .map(|(index, item)| mem::replace(&mut items[index], item))
                .collect()
        };
        old.drop_with(vm);
        Ok(())
    }

    /// Handles slice-based indexing for lists.
    ///
    /// Returns a new list containing the selected elements.
    fn getitem_slice(&self, slice: &super::Slice, vm: &VM<'h>) -> RunResult<Value> {
        let items = slice_collect_iterator(vm, slice, self.get(vm.heap).items.iter(), |item| {
            item.clone_with_heap(vm.heap)
        })?;
        let heap_id = vm.heap.allocate(HeapData::List(List::new(items)));
        Ok(Value::Ref(heap_id))
    }

    /// Clones the item at the given index with proper refcount management.
    ///
    /// Panics if `index` is out of bounds, so only use it where the length was
    /// read without a user callback running since — the comparison walks below
    /// use [`Self::try_clone_item`] instead.
    pub(crate) fn clone_item(&self, index: usize, vm: &mut VM<'h>) -> Value {
        self.get(vm.heap).items[index].clone_with_heap(vm.heap)
    }

    /// Clones the item at `index`, or `None` once the list has shrunk past it.
    ///
    /// The comparison walks index the *other* list directly while a user
    /// `__eq__` may be shrinking it, so its length cannot be trusted between
    /// iterations.
    pub(crate) fn try_clone_item(&self, index: usize, vm: &mut VM<'h>) -> Option<Value> {
        self.get(vm.heap)
            .items
            .get(index)
            .map(|item| item.clone_with_heap(vm.heap))
    }

    /// Lexicographic comparison for lists — the ordering behind `<`/`<=`/`>`/`>=`.
    ///
    /// Element-by-element left-to-right; the first non-equal pair decides. If all
    /// compared elements are equal, the shorter list is less (`[1] < [1, 2]`).
    /// The first differing pair's [`CmpOrder`] propagates: a `NaN` element makes
    /// the list [`CmpOrder::Unordered`] (`[nan] < [1]` is `False`), a
    /// type-mismatched element makes it [`CmpOrder::Incomparable`] (`[1] < ['a']`
    /// raises `TypeError`). Mirrors [`Tuple::py_cmp`](super::Tuple) — the
    /// `ListIter` holds the recursion token that bounds nested-container depth.
    pub(crate) fn py_cmp(&self, other: &Self, vm: &mut VM<'h>) -> RunResult<CmpOrder> {
        let a_len = self.get(vm.heap).items.len();
        let b_len = other.get(vm.heap).items.len();
        let min_len = a_len.min(b_len);
        let iter = self.iter(vm)?;
        defer_drop_mut!(iter, vm);
        while let Some((i, av)) = iter.next_with_index(vm)? {
            if i >= min_len {
                break;
            }
            // `other` may have been shrunk past `i` by a user comparison on a
            // previous iteration; CPython stops at whichever list ran out.
            let Some(bv) = other.try_clone_item(i, vm) else {
                break;
            };
            defer_drop!(bv, vm);
            match av.py_cmp(bv, vm)? {
                CmpOrder::Ordered(Ordering::Equal) => {}
                CmpOrder::Ordered(ord) => return Ok(CmpOrder::Ordered(ord)),
                // A `NaN` element is never `==`-equal, so it is the first
                // differing pair and the list is unordered (yields `False`).
                CmpOrder::Unordered => return Ok(CmpOrder::Unordered),
                // CPython checks `__eq__` first and only orders non-equal pairs, so
                // equal-but-unorderable elements (e.g. `None == None`) don't block.
                CmpOrder::Incomparable => {
                    if !av.py_eq(bv, vm)? {
                        return Ok(CmpOrder::Incomparable);
                    }
                }
            }
        }
        // Re-read: a user comparison may have resized either list, and CPython
        // settles an all-equal prefix on the lengths as they are now.
        let a_len = self.get(vm.heap).items.len();
        let b_len = other.get(vm.heap).items.len();
        Ok(CmpOrder::Ordered(a_len.cmp(&b_len)))
    }

    /// Clones all items from this list with proper refcount management.
    ///
    /// Preflights the slot bytes so an over-budget clone raises a graceful
    /// `MemoryError` instead of bursting past the allocator's hard limit.
    fn clone_all_items(&self, vm: &mut VM<'h>) -> RunResult<Vec<Value>> {
        let len = self.get(vm.heap).items.len();
        vm.heap.tracker.check_allocation(len.saturating_mul(VALUE_SIZE))?;
        let mut result = Vec::with_capacity(len);
        for i in 0..len {
            result.push(self.clone_item(i, vm));
        }
        Ok(result)
    }

    /// Returns a stack-borrowed lending iterator over the list's items,
    /// holding a recursion-depth token for its entire lifetime.
    ///
    /// Named `iter` despite returning a non-stdlib lending iterator (see
    /// [`ListIter`]) because that's the obvious entry point for "iterate
    /// this container" — the lending shape is documented on the returned
    /// type, and exposing `next(vm)` makes it self-evident the result is
    /// not a [`Iterator`](core::iter::Iterator).
    #[expect(clippy::iter_not_returning_iterator)]
    pub(crate) fn iter(&self, vm: &mut VM<'h>) -> RunResult<ListIter<'_, 'h>> {
        ListIter::new(self, vm)
    }
}

/// Stack-borrowed lending iterator over a [`List`]'s items.
///
/// Borrows a [`HeapRead`] for its lifetime, so the heap entry is pinned by the
/// reader count for the duration of iteration — no extra refcount on the
/// container is needed.
///
/// **Lending shape.** [`next`](Self::next) returns `Option<&Value>` rather
/// than `Option<Value>`. The iterator itself owns the most-recently-yielded
/// item in its `current` slot (using [`Value::Undefined`] as the empty
/// sentinel) and drops the previous item at the start of each `next` call.
/// The held item is also dropped when the iterator itself is released via
/// [`DropWithContext`]. This means call sites do **not** need a per-item
/// `defer_drop!`; the iter manages every item it hands out.
///
/// **Recursion guard.** Acquires a [`RecursionToken`] at construction and
/// releases it via [`DropWithContext`]. The iterator MUST be wrapped in
/// [`defer_drop_mut!`] so the token (and any in-flight item) is released on
/// every exit path (success, early `return`, error via `?`). The token is
/// intentionally non-optional — every iteration of a Python container can
/// transitively trigger `py_eq` / `py_hash` / `py_repr` / `py_cmp` /
/// dict-or-set membership, all of which recurse on cyclic structures.
///
/// **Mutation safety.** The list length is re-read on every call to `next`,
/// so items appended during iteration may be visited and shrinking past the
/// current index halts iteration cleanly rather than panicking on an
/// out-of-bounds index.
pub(crate) struct ListIter<'a, 'h> {
    list: &'a HeapRead<'h, List>,
    index: usize,
    token: RecursionToken,
    /// Most-recently-yielded item. `Value::Undefined` when nothing is held —
    /// drops on that variant are no-ops, so `next` can unconditionally drop
    /// the previous slot before fetching the new one.
    current: Value,
}

impl<'a, 'h> ListIter<'a, 'h> {
    fn new(list: &'a HeapRead<'h, List>, vm: &mut VM<'h>) -> RunResult<Self> {
        let token = vm.recursion_token()?;
        Ok(Self {
            list,
            index: 0,
            token,
            current: Value::Undefined,
        })
    }

    /// Advances the iterator and returns a borrow of the next item, or
    /// `Ok(None)` when the list is exhausted (or has shrunk below the
    /// current index).
    ///
    /// The returned reference is valid until the next call to `next` (or
    /// until the iterator itself is dropped), at which point the held item
    /// is released.
    ///
    /// Performs an amortized time-limit check (a clock read every 64th
    /// call) so long Rust-side loops cannot bypass the configured timeout.
    pub(crate) fn next<'i>(&'i mut self, vm: &mut VM<'h>) -> RunResult<Option<&'i Value>> {
        // Drop the previously-yielded item (no-op when `current` is `Undefined`).
        mem::replace(&mut self.current, Value::Undefined).drop_with(vm.heap);
        vm.heap.tracker.check_time_every(self.index)?;
        if self.index >= self.list.get(vm.heap).len() {
            return Ok(None);
        }
        self.current = self.list.get(vm.heap).items[self.index].clone_with_heap(vm.heap);
        self.index += 1;
        Ok(Some(&self.current))
    }

    /// Like [`next`](Self::next), but also returns the 0-based position of
    /// the yielded item — useful for `zip`-style sibling-container access,
    /// returning the matching position from search methods, or applying
    /// per-position range checks.
    ///
    /// The position is the index of the item being returned (not the next
    /// one to read), so the first yielded item has position 0.
    pub(crate) fn next_with_index<'i>(&'i mut self, vm: &mut VM<'h>) -> RunResult<Option<(usize, &'i Value)>> {
        // Capture before `next` increments `self.index`.
        let position = self.index;
        Ok(self.next(vm)?.map(|item| (position, item)))
    }
}

impl<'h, C: ContainsVM<'h>> DropWithContext<C> for ListIter<'_, 'h> {
    fn drop_with(self, container: &mut C) {
        self.current.drop_with(container);
        self.token.drop_with(container);
    }
}

/// hwf: `a == b` for a list search (`in`, `index`, `count`, `remove`):
/// decided in place when both sides are numbers, strings or bytes, which
/// cannot run user code, else through `py_eq` (a search of 200 strings per
/// `in` spent most of its time in the generic dispatch).
#[inline]
fn search_eq(a: &Value, b: &Value, vm: &mut VM<'_>) -> RunResult<bool> {
    match super::dict::probe_native_eq(a, b, vm) {
        Some(eq) => Ok(eq),
        None => a.py_eq(b, vm),
    }
}

/// hwf: how far [`native_scan`] got.
enum Scan {
    /// `items[i]` equals the value.
    Found(usize),
    /// No item in the window equals the value.
    Missing,
    /// `items[i]` needs the VM to compare (user `__eq__`, a container, a
    /// cross-type pair): search on from there with a [`ListIter`].
    Undecided(usize),
}

/// hwf: searches `items[from..end]` for `value` in place while each pair
/// compares natively (no clone, no iterator step per item), the list
/// searches' fast path; the caller carries on with `py_eq` from an
/// [`Scan::Undecided`] position.
fn native_scan(items: &[Value], value: &Value, from: usize, end: usize, vm: &VM<'_>) -> Scan {
    let end = end.min(items.len());
    let mut i = from;
    while i < end {
        match super::dict::probe_native_eq(&items[i], value, vm) {
            Some(true) => return Scan::Found(i),
            Some(false) => i += 1,
            None => return Scan::Undecided(i),
        }
    }
    Scan::Missing
}

impl<'h> PyTrait<'h> for HeapObjectRead<'h, List> {
    fn py_is_iterable(&self, _vm: &VM<'h>) -> bool {
        true
    }

    /// Linear search by equality, stored element on the left of `==` as CPython's
    /// `list_contains` does. `ListIter` re-reads the length on every step, so a
    /// user `__eq__` re-entering the VM and shrinking the list halts the walk
    /// cleanly instead of indexing out of bounds.
    fn py_contains_impl(&self, item: &Value, vm: &mut VM<'h>) -> RunResult<Option<bool>> {
        let iter = self.iter(vm)?;
        defer_drop_mut!(iter, vm);
        match native_scan(&self.get(vm.heap).items, item, 0, usize::MAX, vm) {
            Scan::Found(_) => return Ok(Some(true)),
            Scan::Missing => return Ok(Some(false)),
            Scan::Undecided(i) => iter.index = i,
        }
        while let Some(el) = iter.next(vm)? {
            if search_eq(el, item, vm)? {
                return Ok(Some(true));
            }
        }
        Ok(Some(false))
    }

    fn py_type(&self, _vm: &VM<'h>) -> Type {
        Type::List
    }

    fn py_len(&self, vm: &VM<'h>) -> Option<usize> {
        Some(self.get(vm.heap).items.len())
    }

    fn py_cmp(&self, other: &Self, vm: &mut VM<'h>) -> RunResult<CmpOrder> {
        HeapRead::py_cmp(self, other, vm)
    }

    fn py_getitem(&self, key: &Value, vm: &mut VM<'h>) -> RunResult<Value> {
        // Check for slice first (Value::Ref pointing to HeapData::Slice)
        if let Value::Ref(id) = key
            && let HeapData::Slice(slice) = vm.heap.get(*id)
        {
            return self.getitem_slice(slice, vm);
        }

        // Extract integer index, accepting Int, Bool (True=1, False=0), and LongInt
        let index = key.as_index(vm, Type::List)?;

        // Convert to usize, handling negative indices (Python-style: -1 = last element)
        let len = i64::try_from(self.get(vm.heap).len()).expect("list length exceeds i64::MAX");
        let normalized_index = if index < 0 { index + len } else { index };

        // Bounds check
        if normalized_index < 0 || normalized_index >= len {
            return Err(ExcType::list_index_error());
        }

        // Return clone of the item with proper refcount increment
        // Safety: normalized_index is validated to be in [0, len) above
        let idx = usize::try_from(normalized_index).expect("list index validated non-negative");
        Ok(self.get(vm.heap).items[idx].clone_with_heap(vm))
    }

    fn py_setitem(&mut self, key: Value, value: Value, vm: &mut VM<'h>) -> RunResult<()> {
        // hwf: `lst[a:b] = iterable` and `lst[::2] = [...]`.
        if let Value::Ref(id) = key
            && let HeapData::Slice(slice) = vm.heap.get(id)
        {
            let slice = slice.clone();
            key.drop_with(vm);
            return self.assign_slice(&slice, value, vm);
        }
        defer_drop!(key, vm);
        defer_drop_mut!(value, vm);

        // Extract integer index, accepting Int, Bool (True=1, False=0), and LongInt.
        // Note: The LongInt-to-i64 conversion is defensive code. In normal execution,
        // heap-allocated LongInt values always exceed i64 range because into_value()
        // demotes i64-fitting values to Value::Int. However, this could be reached via
        // deserialization of crafted snapshot data.
        let index = match *key {
            Value::Int(i) => i,
            Value::Bool(b) => i64::from(b),
            Value::Ref(heap_id) => {
                if let HeapData::LongInt(li) = vm.heap.get(heap_id) {
                    if let Some(i) = li.to_i64() {
                        i
                    } else {
                        return Err(ExcType::index_error_int_too_large());
                    }
                } else {
                    let key_type = key.py_type_name(vm);
                    return Err(ExcType::type_error_list_assignment_indices(&key_type));
                }
            }
            _ => {
                let key_type = key.py_type_name(vm);
                return Err(ExcType::type_error_list_assignment_indices(&key_type));
            }
        };

        // Normalize negative indices (Python-style: -1 = last element)
        let len = i64::try_from(self.get(vm.heap).len()).expect("list length exceeds i64::MAX");
        let normalized_index = if index < 0 { index + len } else { index };

        // Bounds check
        if normalized_index < 0 || normalized_index >= len {
            return Err(ExcType::list_assignment_index_error());
        }

        let idx = usize::try_from(normalized_index).expect("index validated non-negative");

        // Update contains_refs if storing a Ref (must check before swap,
        // since after swap `value` holds the old item)
        if matches!(*value, Value::Ref(_)) {
            self.get_mut(vm.heap).contains_refs = true;
        }

        // Replace value (old one dropped by defer_drop_mut guard)
        mem::swap(&mut self.get_mut(vm.heap).items[idx], value);

        Ok(())
    }

    fn py_eq_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<bool>> {
        let Some(HeapReadOutput::List(other)) = other.read_heap(vm) else {
            return Ok(None);
        };
        if self.get(vm.heap).items.len() != other.get(vm.heap).items.len() {
            return Ok(Some(false));
        }
        let iter = self.iter(vm)?;
        defer_drop_mut!(iter, vm);
        while let Some((i, a)) = iter.next_with_index(vm)? {
            // `ListIter` re-reads `self`'s length each step, but `other` is
            // indexed directly and a user `__eq__` may have shrunk it.
            let Some(b) = other.try_clone_item(i, vm) else {
                break;
            };
            defer_drop!(b, vm);
            if !a.py_eq(b, vm)? {
                return Ok(Some(false));
            }
        }
        // Equal element-wise as far as both lists still reach; a mutating
        // `__eq__` can leave them different lengths, which CPython reports as
        // not equal.
        Ok(Some(self.get(vm.heap).items.len() == other.get(vm.heap).items.len()))
    }

    fn py_bool(&self, vm: &mut VM<'h>) -> RunResult<bool> {
        Ok(!self.get(vm.heap).items.is_empty())
    }

    fn py_repr_fmt(&self, f: &mut impl Write, vm: &mut VM<'h>, heap_ids: &mut LazyHeapSet) -> RunResult<()> {
        repr_sequence_fmt('[', ']', |heap, i| self.get(heap).as_slice().get(i), f, vm, heap_ids)
    }

    fn py_add_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(HeapReadOutput::List(other)) = other.read_heap(vm) else {
            return Ok(None);
        };
        let mut items = self.clone_all_items(vm)?;
        items.extend(other.clone_all_items(vm)?);
        let id = vm.heap.allocate(HeapData::List(List::new(items)));
        Ok(Some(Value::Ref(id)))
    }

    fn py_mul_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(count) = repeat_count(other, vm)? else {
            return Ok(None);
        };
        let value = self.get(vm.heap);
        check_repeat_size(value.len().saturating_mul(VALUE_SIZE), count, &vm.heap.tracker)?;
        let mut result = Vec::with_capacity(value.len() * count);
        for rep in 0..count {
            result.extend(value.as_slice().iter().map(|value| value.clone_with_heap(vm.heap)));
            vm.heap.tracker.check_time_every(rep)?;
        }
        Ok(Some(Value::Ref(vm.heap.allocate(HeapData::List(List::new(result))))))
    }

    fn py_rmul_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        self.py_mul_impl(other, vm)
    }

    fn py_iadd_impl(&mut self, other: &Value, vm: &mut VM<'h>) -> RunResult<bool> {
        let Value::Ref(other_id) = other else {
            // hwf: `xs += "ab"` extends with any iterable, as CPython's `list.__iadd__`.
            return self.extend_from_iterable(other, vm);
        };

        if *other_id == self.id() {
            // Self-extend: clone our own items with proper refcounting. Checked
            // at 2× — the temporary clone plus the equal-sized target growth —
            // up front, while no owned values need releasing on failure.
            let len = self.get(vm.heap).items.len();
            vm.heap.tracker.check_allocation(len.saturating_mul(2 * VALUE_SIZE))?;
            let items = self.clone_all_items(vm)?;
            self.get_mut(vm.heap).items.extend(items);
        } else {
            // Read source list via HeapRead, clone items into a temporary Vec.
            // Checked at 2× — the clone plus the target growth — see above.
            let source = vm.heap.read(*other_id);
            let HeapReadOutput::List(source_list) = source else {
                // hwf: `xs += (1, 2)`, a generator, a dict…: `list.__iadd__` is `extend`.
                return self.extend_from_iterable(other, vm);
            };
            let source_len = source_list.get(vm.heap).len();
            vm.heap
                .tracker
                .check_allocation(source_len.saturating_mul(2 * VALUE_SIZE))?;
            let source_items = source_list.clone_all_items(vm)?;
            // Check if new items contain refs
            let has_new_refs = source_items.iter().any(|v| matches!(v, Value::Ref(_)));
            self.get_mut(vm.heap).items.extend(source_items);
            if has_new_refs {
                self.get_mut(vm.heap).contains_refs = true;
            }
        }

        Ok(true)
    }

    /// Delegates methods to `call_list_method`.
    fn py_call_attr(&mut self, vm: &mut VM<'h>, attr: &EitherStr, args: ArgValues) -> RunResult<CallResult> {
        if attr.static_string() == Some(StaticStrings::Sort) {
            do_list_sort(self, args, vm)?;
            return Ok(CallResult::Value(Value::None));
        }

        let Some(method) = attr.static_string() else {
            args.drop_with(vm);
            return Err(ExcType::attribute_error(Type::List, attr.as_str(vm.interns)));
        };

        call_list_method(self, method, args, vm).map(CallResult::Value)
    }

    fn py_iter(&self, vm: &mut VM<'h>) -> RunResult<Value> {
        let list_id = self.id();
        let iterator = vm.heap.allocate(HeapData::ListIterator(ListIterator::new(list_id)));
        vm.heap.inc_ref(list_id);
        Ok(Value::Ref(iterator))
    }
}

impl HeapItem for List {
    fn py_dec_ref_ids(&mut self, stack: &mut Vec<HeapId>) {
        // Skip iteration if no refs - major GC optimization for lists of primitives
        if !self.contains_refs {
            return;
        }
        for obj in &mut self.items {
            if let Value::Ref(id) = obj {
                stack.push(*id);
                #[cfg(feature = "memory-model-checks")]
                obj.dec_ref_forget();
            }
        }
    }
}

/// Dispatches a method call on a list value.
///
/// This is the unified entry point for list method calls.
///
/// # Arguments
/// * `list` - The list to call the method on
/// * `method` - The method to call (e.g., `StaticStrings::Append`)
/// * `args` - The method arguments
/// * `heap` - The heap for allocation and reference counting
fn call_list_method<'h>(
    list: &mut HeapRead<'h, List>,
    method: StaticStrings,
    args: ArgValues,
    vm: &mut VM<'h>,
) -> RunResult<Value> {
    let heap = &mut *vm.heap;
    match method {
        StaticStrings::Append => {
            let item = args.get_one_arg("list.append", heap)?;
            list.append(vm, item);
            Ok(Value::None)
        }
        StaticStrings::Insert => list_insert(list, args, vm),
        StaticStrings::Pop => list_pop(list, args, vm),
        StaticStrings::Remove => list_remove(list, args, vm),
        StaticStrings::Clear => {
            args.check_zero_args("list.clear", heap)?;
            list_clear(list, vm);
            Ok(Value::None)
        }
        StaticStrings::Copy => {
            args.check_zero_args("list.copy", heap)?;
            list_copy(list.get(heap), heap)
        }
        StaticStrings::Extend => list_extend(list, args, vm),
        StaticStrings::Index => list_index(list, args, vm),
        StaticStrings::Count => list_count(list, args, vm),
        StaticStrings::Reverse => {
            args.check_zero_args("list.reverse", heap)?;
            list.get_mut(vm.heap).items.reverse();
            Ok(Value::None)
        }
        // Note: list.sort is handled by py_call_attr which intercepts it before reaching here
        _ => {
            args.drop_with(heap);
            Err(ExcType::attribute_error(Type::List, method.into()))
        }
    }
}

/// Implements Python's `list.insert(index, item)` method.
fn list_insert<'h>(list: &mut HeapRead<'h, List>, args: ArgValues, vm: &mut VM<'h>) -> RunResult<Value> {
    let (index_obj, item) = args.get_two_args("insert", vm.heap)?;
    defer_drop!(index_obj, vm);
    let mut item_guard = DropGuard::new(item, vm);
    let vm = item_guard.ctx();
    // Python's insert() handles negative indices by adding len
    // If still negative after adding len, clamps to 0
    // If >= len, appends to end
    let index_i64 = index_obj.as_int(vm)?;
    let len = list.get(vm.heap).items.len();
    let len_i64 = i64::try_from(len).expect("list length exceeds i64::MAX");
    let index = if index_i64 < 0 {
        // Negative index: add length, clamp to 0 if still negative
        let adjusted = index_i64 + len_i64;
        usize::try_from(adjusted).unwrap_or(0)
    } else {
        // Positive index: clamp to len if too large
        usize::try_from(index_i64).unwrap_or(len)
    };
    let (item, heap) = item_guard.into_parts();
    list.insert(heap, index, item);
    Ok(Value::None)
}

/// Implements Python's `list.pop([index])` method.
///
/// Removes the item at the given index (default: -1) and returns it.
/// Raises IndexError if the list is empty or the index is out of range.
fn list_pop<'h>(list: &mut HeapRead<'h, List>, args: ArgValues, vm: &mut VM<'h>) -> RunResult<Value> {
    let index_arg = args.get_zero_one_arg("list.pop", vm.heap)?;

    // Validate index type FIRST (if provided), matching Python's validation order.
    // Python raises TypeError for bad index type even on empty list.
    let index_i64 = if let Some(v) = index_arg {
        let result = v.as_int(vm);
        v.drop_with(vm);
        result?
    } else {
        -1
    };

    // THEN check empty list
    if list.get(vm.heap).items.is_empty() {
        return Err(ExcType::index_error_pop_empty_list());
    }

    // Normalize index
    let len = list.get(vm.heap).items.len();
    let len_i64 = i64::try_from(len).expect("list length exceeds i64::MAX");
    let normalized = if index_i64 < 0 { index_i64 + len_i64 } else { index_i64 };

    // Bounds check
    if normalized < 0 || normalized >= len_i64 {
        return Err(ExcType::index_error_pop_out_of_range());
    }

    // Remove and return the item
    let idx = usize::try_from(normalized).expect("index validated non-negative");
    Ok(list.get_mut(vm.heap).items.remove(idx))
}

/// Implements Python's `list.remove(value)` method.
///
/// Removes the first occurrence of value. Raises ValueError if not found.
fn list_remove<'h>(list: &mut HeapRead<'h, List>, args: ArgValues, vm: &mut VM<'h>) -> RunResult<Value> {
    let value = args.get_one_arg("list.remove", vm.heap)?;
    defer_drop!(value, vm);

    let mut found_idx = None;
    {
        let iter = list.iter(vm)?;
        defer_drop_mut!(iter, vm);
        match native_scan(&list.get(vm.heap).items, value, 0, usize::MAX, vm) {
            Scan::Found(i) => found_idx = Some(i),
            Scan::Missing => {}
            Scan::Undecided(i) => iter.index = i,
        }
        while found_idx.is_none()
            && let Some((i, item)) = iter.next_with_index(vm)?
        {
            if search_eq(value, item, vm)? {
                found_idx = Some(i);
                break;
            }
        }
    }

    match found_idx {
        Some(idx) => {
            // A matching user `__eq__` may itself have shrunk the list, leaving
            // `idx` stale; CPython clamps the deletion (`list_ass_slice`), so a
            // gone index removes nothing rather than panicking.
            let this = list.get_mut(vm.heap);
            if idx < this.items.len() {
                let removed = this.items.remove(idx);
                removed.drop_with(vm.heap);
            }
            Ok(Value::None)
        }
        None => Err(ExcType::value_error_remove_not_in_list()),
    }
}

/// Implements Python's `list.clear()` method.
///
/// Removes all items from the list.
fn list_clear<'h>(list: &mut HeapRead<'h, List>, vm: &mut VM<'h>) {
    mem::take(&mut list.get_mut(vm.heap).items).drop_with(vm);
    // Note: contains_refs stays true even if all refs removed, per conservative GC strategy
}

/// Implements Python's `list.copy()` method.
///
/// Returns a shallow copy of the list, preflighting the slot bytes like
/// `clone_all_items` so a huge copy fails with a graceful `MemoryError`.
fn list_copy(list: &List, heap: &Heap) -> RunResult<Value> {
    heap.tracker
        .check_allocation(list.items.len().saturating_mul(VALUE_SIZE))?;
    let items: Vec<Value> = list.items.iter().map(|v| v.clone_with_heap(heap)).collect();
    let heap_id = heap.allocate(HeapData::List(List::new(items)));
    Ok(Value::Ref(heap_id))
}

/// Implements Python's `list.extend(iterable)` method.
///
/// Extends the list by appending all items from the iterable.
fn list_extend<'h>(list: &mut HeapRead<'h, List>, args: ArgValues, vm: &mut VM<'h>) -> RunResult<Value> {
    let iterable = args.get_one_arg("list.extend", vm.heap)?;
    let items: SmallVec<[_; 2]> = collect_owned_iterable(iterable, vm)?;

    let has_refs = items.iter().any(|v| matches!(v, Value::Ref(_)));
    if has_refs {
        list.get_mut(vm.heap).set_contains_refs();
    }
    list.get_mut(vm.heap).as_vec_mut().extend(items);

    Ok(Value::None)
}

/// Implements Python's `list.index(value[, start[, end]])` method.
///
/// Returns the index of the first occurrence of value.
/// Raises ValueError if the value is not found.
fn list_index<'h>(list: &HeapRead<'h, List>, args: ArgValues, vm: &mut VM<'h>) -> RunResult<Value> {
    let pos_args = args.into_pos_only("list.index", vm.heap)?;
    defer_drop!(pos_args, vm);

    // Bounds are coerced before the length is read: the coercion may dispatch a
    // user `__index__` that mutates this list, and CPython normalizes against the
    // length *after* argument parsing. Reading it first would resolve a negative
    // bound against a stale length and search the wrong window.
    let (value, start_arg, end_arg) = match pos_args.as_slice() {
        [] => return Err(ExcType::type_error_at_least("list.index", 1, 0)),
        [value] => (value, None, None),
        [value, start_arg] => (value, Some(value_to_i64_bound(start_arg, vm)?), None),
        [value, start_arg, end_arg] => (
            value,
            Some(value_to_i64_bound(start_arg, vm)?),
            Some(value_to_i64_bound(end_arg, vm)?),
        ),
        other => return Err(ExcType::type_error_at_most("list.index", 3, other.len())),
    };

    let len = list.get(vm.heap).items.len();
    let start = start_arg.map_or(0, |i| normalize_sequence_index(i, len));
    let end = end_arg.map_or(len, |i| normalize_sequence_index(i, len)).max(start);

    // Search for the value in the specified range
    let iter = list.iter(vm)?;
    defer_drop_mut!(iter, vm);
    match native_scan(&list.get(vm.heap).items, value, start, end, vm) {
        Scan::Found(i) => return Ok(Value::Int(i64::try_from(i).expect("index exceeds i64::MAX"))),
        Scan::Missing => return Err(ExcType::value_error_is_not_in_list(value, vm)),
        Scan::Undecided(i) => iter.index = i,
    }
    while let Some((idx, item)) = iter.next_with_index(vm)? {
        if idx >= end {
            // No further matches possible inside [start, end).
            break;
        }
        if idx >= start && search_eq(value, item, vm)? {
            let i64_idx = i64::try_from(idx).expect("index exceeds i64::MAX");
            return Ok(Value::Int(i64_idx));
        }
    }
    Err(ExcType::value_error_is_not_in_list(value, vm))
}

/// Implements Python's `list.count(value)` method.
///
/// Returns the number of occurrences of value in the list.
fn list_count<'h>(list: &HeapRead<'h, List>, args: ArgValues, vm: &mut VM<'h>) -> RunResult<Value> {
    let value = args.get_one_arg("list.count", vm.heap)?;
    defer_drop!(value, vm);

    let mut count: usize = 0;
    let iter = list.iter(vm)?;
    defer_drop_mut!(iter, vm);
    let mut from = 0;
    loop {
        match native_scan(&list.get(vm.heap).items, value, from, usize::MAX, vm) {
            Scan::Found(i) => {
                count += 1;
                from = i + 1;
            }
            Scan::Missing => {
                iter.index = usize::MAX;
                break;
            }
            Scan::Undecided(i) => {
                iter.index = i;
                break;
            }
        }
    }
    while let Some(item) = iter.next(vm)? {
        if search_eq(value, item, vm)? {
            count += 1;
        }
    }

    let count_i64 = i64::try_from(count).expect("count exceeds i64::MAX");
    Ok(Value::Int(count_i64))
}

/// Performs an in-place sort on a list with optional key function and reverse flag.
///
/// To safely support user-supplied `key` callbacks (and rich-comparison `__lt__`
/// methods) that may reentrantly mutate the same list, we follow CPython's
/// strategy: the list's `items` vector is **detached** for the duration of the
/// sort so the list looks empty to any reentrant code. All sort work is then
/// performed on the detached buffer, which is always swapped back into the
/// list afterwards. If the user mutated the live (empty) list during the
/// sort, we additionally raise `ValueError: list modified during sort`,
/// matching CPython exactly.
fn do_list_sort<'h>(list: &mut HeapRead<'h, List>, args: ArgValues, vm: &mut VM<'h>) -> Result<(), RunError> {
    // Detach the list's items so reentrant access via the list's heap id sees
    // an empty list. The detached buffer is always swapped back into the list
    // when we're done. Done *before* parsing args so the reentrancy guard is
    // in place if parsing somehow allocates or drops user values that run
    // arbitrary code.
    let items = mem::take(&mut list.get_mut(vm.heap).items);
    defer_drop_mut!(items, vm);

    let sort_result = parse_and_sort("sort() key argument", items, args, vm);

    // Swap our (sorted) buffer back into the list. Whatever the user placed
    // on the live empty list during the sort ends up in `items`; if
    // it's not empty, the user mutated the list. The `contains_refs` flag
    // survives `mem::take`, so it still describes the buffer being swapped
    // back.
    mem::swap(list.get_mut(vm.heap).as_vec_mut(), items);

    // Surface any sort error first; otherwise the modification error (if any).
    sort_result?;
    if items.is_empty() {
        Ok(())
    } else {
        Err(SimpleException::new_msg(ExcType::ValueError, "list modified during sort").into())
    }
}

/// Writes a formatted sequence of values to a formatter.
///
/// This helper function is used to implement `__repr__` for sequence types like
/// lists and tuples. It writes items as comma-separated repr interns.
///
/// There is no length parameter: `get_item` is asked for indices from 0 until
/// it returns `None`. For an immutable sequence (tuple) that is simply its
/// fixed end; for a mutable one (list) it means a user `__repr__` growing or
/// shrinking the sequence mid-format is observed rather than panicking on a
/// stale bound — CPython's list repr re-checks the live length the same way.
///
/// # Arguments
/// * `start` - The opening character (e.g., '[' for lists, '(' for tuples)
/// * `end` - The closing character (e.g., ']' for lists, ')' for tuples)
/// * `get_item` - Returns the i-th value via brief immutable heap access, or
///   `None` once `i` is out of range. The `for<'r>` bound means only
///   heap-derived borrows fit — containers whose repr snapshots up front
///   (deque, set, dict) own their clones already and use [`repr_items_fmt`].
/// * `f` - The formatter to write to
/// * `vm` - The VM for resolving value references and looking up interned strings
/// * `heap_ids` - Set of heap IDs being repr'd (for cycle detection)
pub(crate) fn repr_sequence_fmt<'h>(
    start: char,
    end: char,
    get_item: impl for<'r> Fn(&'r HeapReader<'h>, usize) -> Option<&'r Value>,
    f: &mut impl Write,
    vm: &mut VM<'h>,
    heap_ids: &mut LazyHeapSet,
) -> RunResult<()> {
    // Check depth limit before recursing
    let Ok(mut guard) = vm.recursion_guard() else {
        return Ok(f.write_str("...")?);
    };
    let vm = &mut *guard;

    f.write_char(start)?;
    // The item is fetched before the separator is written so nothing is emitted
    // for an index that turned out to be out of range. `repr_check_time` bounds
    // reprs that keep growing the sequence from inside a user `__repr__`.
    for i in 0.. {
        let Some(item) = get_item(vm.heap, i) else { break };
        // The clone (a refcount bump, not a deep copy) is load-bearing: the
        // recursion below runs user `__repr__` code that may drop the
        // container's reference to this very item — CPython incref's the same
        // way. It also releases the heap borrow the getter's reference holds.
        let item = item.clone_with_heap(vm.heap);
        defer_drop!(item, vm);
        if i > 0 {
            if repr_check_time(i, vm) {
                f.write_str(", ...[timeout]")?;
                break;
            }
            f.write_str(", ")?;
        }
        item.py_repr_fmt(f, vm, heap_ids)?;
    }
    f.write_char(end)?;

    Ok(())
}

/// Writes the comma-separated reprs of an already-snapshotted item slice.
///
/// The slice is a refcount-bumped snapshot owned by the caller (deque, set),
/// so items are formatted by reference with no per-item clone; the caller owns
/// the recursion guard and any surrounding brackets. Live containers must go
/// through [`repr_sequence_fmt`] instead, which re-fetches (and clones) each
/// item so a mutating user `__repr__` is observed safely.
pub(crate) fn repr_items_fmt(
    items: &[Value],
    f: &mut impl Write,
    vm: &mut VM<'_>,
    heap_ids: &mut LazyHeapSet,
) -> RunResult<()> {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            if repr_check_time(i, vm) {
                f.write_str(", ...[timeout]")?;
                break;
            }
            f.write_str(", ")?;
        }
        item.py_repr_fmt(f, vm, heap_ids)?;
    }
    Ok(())
}

/// Polls the time/memory soft limits every 64th item rather than every item,
/// keeping per-item overhead to one branch while still truncating huge reprs
/// promptly with `", ...[timeout]"` (tested in `resource_limits.rs`).
pub(crate) fn repr_check_time(i: usize, vm: &VM<'_>) -> bool {
    vm.heap.tracker.check_memory_time_every(i).is_err()
}

/// Iterates over a list while observing changes to its current contents.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ListIterator {
    /// Owned reference to the list under iteration.
    list: HeapId,
    /// Index of the next item to yield.
    index: usize,
}

impl ListIterator {
    /// Creates an iterator which takes ownership of one reference to `list`.
    pub(crate) fn new(list: HeapId) -> Self {
        Self { list, index: 0 }
    }

    /// Returns the list kept alive by this iterator.
    pub(crate) fn list_id(&self) -> HeapId {
        self.list
    }

    /// Returns the number of items remaining in the list's current contents.
    pub(crate) fn size_hint(&self, heap: &Heap) -> usize {
        let HeapData::List(list) = heap.get(self.list) else {
            unreachable!("list iterator must reference a list")
        };
        list.len().saturating_sub(self.index)
    }
}

impl HeapItem for ListIterator {
    fn py_dec_ref_ids(&mut self, stack: &mut Vec<HeapId>) {
        stack.push(self.list);
    }
}

/// hwf: the next item of a list iterator already unpacked, when it is a
/// tuple of exactly `count` items: its items (new references), last first,
/// so pushing them in order leaves the first on top, as `UNPACK_SEQUENCE`
/// does. `None` when the list is exhausted or the item is no such tuple;
/// the iterator is then not advanced and the caller takes the general path.
/// Used by the VM's fused `for a, b in pairs` step (`VM::for_iter_unpacked`).
pub(crate) fn list_iter_next_unpacked<'h>(
    this: &mut HeapObjectRead<'h, ListIterator>,
    count: usize,
    vm: &mut VM<'h>,
) -> Option<SmallVec<[Value; 4]>> {
    let (list_id, index) = {
        let iterator = this.get(vm.heap);
        (iterator.list, iterator.index)
    };
    let HeapData::List(list) = vm.heap.get(list_id) else {
        return None;
    };
    let Value::Ref(tuple_id) = list.items.get(index)? else {
        return None;
    };
    let HeapData::Tuple(tuple) = vm.heap.get(*tuple_id) else {
        return None;
    };
    let items = tuple.as_slice();
    if items.len() != count {
        return None;
    }
    let unpacked = items.iter().rev().map(|v| v.clone_with_heap(vm.heap)).collect();
    this.get_mut(vm.heap).index += 1;
    Some(unpacked)
}

impl<'h> PyTrait<'h> for HeapObjectRead<'h, ListIterator> {
    fn py_is_iterator(&self, _: &VM<'h>) -> bool {
        true
    }

    fn py_is_iterable(&self, _vm: &VM<'h>) -> bool {
        true
    }

    fn py_type(&self, _: &VM<'h>) -> Type {
        Type::ListIterator
    }

    fn py_len(&self, _: &VM<'h>) -> Option<usize> {
        None
    }

    fn py_eq_impl(&self, _: &Value, _: &mut VM<'h>) -> RunResult<Option<bool>> {
        Ok(None)
    }

    fn py_iter(&self, vm: &mut VM<'h>) -> RunResult<Value> {
        Ok(self.clone_value(vm.heap))
    }

    fn py_next(&mut self, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let (list_id, index) = {
            let iterator = self.get(vm.heap);
            (iterator.list, iterator.index)
        };
        let item = match vm.heap.get(list_id) {
            HeapData::List(list) => list.items.get(index).map(|item| item.clone_with_heap(vm.heap)),
            _ => unreachable!("list iterator must reference a list"),
        };
        if item.is_some() {
            self.get_mut(vm.heap).index += 1;
        }
        Ok(item)
    }
}

#[cfg(test)]
mod tests {
    use monty_types::{AssertMessageAnnotations, PrintWriter, ResourceTracker};
    use num_bigint::BigInt;

    use super::*;
    use crate::{
        bytecode::Code,
        heap::{Heap, HeapReader},
        intern::{InternerBuilder, Interns},
        types::LongInt,
    };

    /// Creates a minimal Interns for testing.
    fn create_test_interns() -> Interns {
        let interner = InternerBuilder::new("");
        Interns::new(interner, vec![])
    }

    /// Creates a heap with a list and a LongInt index, bypassing into_value() demotion.
    ///
    /// This allows testing the defensive code path where a LongInt contains an i64-fitting value.
    fn create_heap_with_list_and_longint(list_items: Vec<Value>, index_value: BigInt) -> (Heap, HeapId, HeapId) {
        let heap = Heap::new(16, ResourceTracker::default());
        let list = List::new(list_items);
        let list_id = heap.allocate(HeapData::List(list));
        let long_int = LongInt::new(index_value);
        let index_id = heap.allocate(HeapData::LongInt(long_int));
        (heap, list_id, index_id)
    }

    /// Tests py_setitem with a LongInt index that fits in i64.
    ///
    /// This is a defensive code path - normally unreachable because LongInt::into_value()
    /// demotes i64-fitting values to Value::Int. However, it could be reached via
    /// deserialization of crafted snapshot data.
    #[test]
    fn py_setitem_longint_fits_in_i64() {
        let (mut heap, list_id, index_id) =
            create_heap_with_list_and_longint(vec![Value::Int(10), Value::Int(20), Value::Int(30)], BigInt::from(1));
        let mut interns = create_test_interns();
        let code = Code::empty();

        let key = Value::Ref(index_id);
        let new_value = Value::Int(99);
        heap.inc_ref(index_id);

        let result = HeapReader::with(&mut heap, &mut (&code, &mut interns), |reader, (code, interns)| {
            let mut vm = VM::new(
                Vec::new(),
                code,
                reader,
                interns,
                PrintWriter::Disabled,
                AssertMessageAnnotations::DEFAULT_MAX_BYTES.get(),
            );
            let HeapReadOutput::List(mut list) = vm.heap.read(list_id) else {
                panic!("expected list");
            };
            list.py_setitem(key, new_value, &mut vm)
        });

        assert!(result.is_ok());

        // Verify the list was updated by checking it matches expected Int value
        let HeapData::List(list) = heap.get(list_id) else {
            panic!("expected list");
        };
        assert!(matches!(list.as_slice()[1], Value::Int(99)));

        // Clean up
        Value::Ref(list_id).drop_with(&mut heap);
    }

    /// Tests py_setitem with a negative LongInt index that fits in i64.
    #[test]
    fn py_setitem_longint_negative_fits_in_i64() {
        let (mut heap, list_id, index_id) = create_heap_with_list_and_longint(
            vec![Value::Int(10), Value::Int(20), Value::Int(30)],
            BigInt::from(-1), // Last element
        );
        let mut interns = create_test_interns();
        let code = Code::empty();

        let key = Value::Ref(index_id);
        let new_value = Value::Int(99);
        heap.inc_ref(index_id);

        let result = HeapReader::with(&mut heap, &mut (&code, &mut interns), |reader, (code, interns)| {
            let mut vm = VM::new(
                Vec::new(),
                code,
                reader,
                interns,
                PrintWriter::Disabled,
                AssertMessageAnnotations::DEFAULT_MAX_BYTES.get(),
            );
            let HeapReadOutput::List(mut list) = vm.heap.read(list_id) else {
                panic!("expected list");
            };
            list.py_setitem(key, new_value, &mut vm)
        });

        assert!(result.is_ok());

        // Verify the last element was updated
        let HeapData::List(list) = heap.get(list_id) else {
            panic!("expected list");
        };
        assert!(matches!(list.as_slice()[2], Value::Int(99)));

        Value::Ref(list_id).drop_with(&mut heap);
    }

    /// Tests py_setitem with i64::MAX as a LongInt index.
    #[test]
    fn py_setitem_longint_at_i64_max() {
        let (mut heap, list_id, index_id) =
            create_heap_with_list_and_longint(vec![Value::Int(10)], BigInt::from(i64::MAX));
        let mut interns = create_test_interns();
        let code = Code::empty();

        let key = Value::Ref(index_id);
        let new_value = Value::Int(99);
        heap.inc_ref(index_id);

        let result = HeapReader::with(&mut heap, &mut (&code, &mut interns), |reader, (code, interns)| {
            let mut vm = VM::new(
                Vec::new(),
                code,
                reader,
                interns,
                PrintWriter::Disabled,
                AssertMessageAnnotations::DEFAULT_MAX_BYTES.get(),
            );
            let HeapReadOutput::List(mut list) = vm.heap.read(list_id) else {
                panic!("expected list");
            };
            list.py_setitem(key, new_value, &mut vm)
        });

        assert!(result.is_err());

        Value::Ref(list_id).drop_with(&mut heap);
    }
}
