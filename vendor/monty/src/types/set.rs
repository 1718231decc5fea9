use std::{cell::Cell, fmt::Write, mem};

use crate::hash::PyHashTable;
use ahash::AHashSet;
use monty_types::{ResourceError, ResourceTracker};
use smallvec::SmallVec;

use super::{PyTrait, iter::checked_preallocation_hint};
use crate::{
    args::ArgValues,
    bytecode::{CallResult, ContainsVM, RecursionToken, VM},
    defer_drop, defer_drop_mut,
    exception_private::{ExcType, ExcTypeExt, RunResult},
    hash::HashValue,
    heap::{
        BorrowedHeapRead, BorrowedHeapReadMut, ContainsHeap, DropGuard, DropWithContext, HeapData, HeapId, HeapItem,
        HeapObjectRead, HeapRead, HeapReadOutput, heap_read_ref_as_field, heap_read_ref_as_field_mut,
    },
    identity::Identity,
    intern::StaticStrings,
    types::{
        LazyHeapSet, Type,
        dict::{ProbeOutcome, eq_is_native, probe_native_eq},
        list::repr_items_fmt,
    },
    value::{EitherStr, VALUE_SIZE, Value},
};

/// Entry in the set storage, containing a value and its cached hash.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct SetEntry {
    pub(crate) value: Value,
    /// Cached hash for efficient lookup and reinsertion.
    pub(crate) hash: u64,
    /// hwf: CPython's `hash()` of the value (Monty's where CPython's is not
    /// reproducible), which places it in [`SetLayout`].
    pyhash: u64,
    /// hwf: the slot of CPython's table the value occupies.
    slot: u32,
}

/// hwf: CPython 3.11's set table (`Objects/setobject.c`), simulated so a set
/// iterates, prints and pops in CPython's order: `list({3, 1, 2})` is
/// `[1, 2, 3]`, `list(set(["b", "a"]))` what the seed's VM
/// (`PYTHONHASHSEED=0`) gives. Each slot holds its state, and a live slot
/// the index of its value in [`SetStorage::entries`] (a dense vector in no
/// particular order), so walking the slots is iterating CPython's table, an
/// insertion writes one slot and a removal turns one slot into a dummy.
///
/// The rules are CPython's: open addressing from `hash & mask` with 9 linear
/// probes, then `i = i * 5 + 1 + perturb` (`perturb >>= 5`); an insertion
/// takes the last deleted ("dummy") slot its probe passed, else the empty
/// slot it stopped at; the table grows (dummies dropped, entries reinserted
/// in slot order) when `fill * 5 >= mask * 3`, to the smallest power of two
/// above `used * 4`; `pop()` takes the first live slot from its finger.
#[derive(Debug, Clone)]
struct SetLayout {
    /// One cell per slot: [`EMPTY`], [`DUMMY`], or the index in
    /// [`SetStorage::entries`] of the value living there; a power of two long.
    table: Vec<u32>,
    /// Live and dummy slots (CPython's `fill`).
    fill: usize,
    /// Where `pop()` starts looking (CPython's `finger`).
    finger: usize,
    /// Where [`SetStorage::value_at`]'s last walk stopped: how many values
    /// precede which slot (back to the start on every change).
    cursor: Cell<(usize, usize)>,
}

/// A never-used slot.
const EMPTY: u32 = u32::MAX;
/// A slot whose value was removed (CPython's `dummy`).
const DUMMY: u32 = u32::MAX - 1;

/// Whether a [`SetLayout::table`] cell holds a value (an entry index).
fn is_live(cell: u32) -> bool {
    cell < DUMMY
}

/// An entry index as a [`SetLayout::table`] cell (a set never holds
/// `u32::MAX - 1` values: they would not fit in memory).
fn cell_of(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(DUMMY - 1).min(DUMMY - 1)
}
/// `PySet_MINSIZE`.
const SET_MINSIZE: usize = 8;
/// `LINEAR_PROBES`.
const LINEAR_PROBES: u64 = 9;

impl Default for SetLayout {
    fn default() -> Self {
        Self {
            table: vec![EMPTY; SET_MINSIZE],
            fill: 0,
            finger: 0,
            cursor: Cell::default(),
        }
    }
}

impl SetLayout {
    fn mask(&self) -> u64 {
        self.table.len() as u64 - 1
    }

    /// `set_add_entry` for a value known to be absent: stores `cell` (its
    /// entry index) in its slot and returns the slot, and whether the table
    /// must now grow.
    fn insert(&mut self, pyhash: u64, cell: u32) -> (u32, bool) {
        self.cursor.set((0, 0));
        let mask = self.mask();
        let mut i = pyhash & mask;
        let mut perturb = pyhash;
        let mut freeslot: Option<usize> = None;
        loop {
            let mut probes = if i + LINEAR_PROBES <= mask { LINEAR_PROBES } else { 0 };
            let mut j = i;
            loop {
                #[expect(clippy::cast_possible_truncation, reason = "j <= mask < table.len()")]
                let at = j as usize;
                match self.table[at] {
                    EMPTY => {
                        if let Some(free) = freeslot {
                            self.table[free] = cell;
                            return (slot_u32(free), false);
                        }
                        self.table[at] = cell;
                        self.fill += 1;
                        #[expect(clippy::cast_possible_truncation, reason = "mask < table.len()")]
                        let grow = self.fill * 5 >= (mask as usize) * 3;
                        return (slot_u32(at), grow);
                    }
                    // CPython 3.11 remembers the last dummy its probe passed.
                    DUMMY => freeslot = Some(at),
                    _live => {}
                }
                if probes == 0 {
                    break;
                }
                probes -= 1;
                j += 1;
            }
            perturb >>= 5;
            i = i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb) & mask;
        }
    }

    /// `set_insert_clean`: stores `cell` (an entry index) in the first empty
    /// slot of `pyhash`'s probe (a table without dummies, which never needs to
    /// grow) and returns that slot.
    fn insert_clean(&mut self, pyhash: u64, cell: u32) -> u32 {
        let mask = self.mask();
        let mut i = pyhash & mask;
        let mut perturb = pyhash;
        loop {
            let probes = if i + LINEAR_PROBES <= mask { LINEAR_PROBES } else { 0 };
            for j in i..=i + probes {
                #[expect(clippy::cast_possible_truncation, reason = "j <= mask < table.len()")]
                let at = j as usize;
                if self.table[at] == EMPTY {
                    self.table[at] = cell;
                    self.fill += 1;
                    return slot_u32(at);
                }
            }
            perturb >>= 5;
            i = i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb) & mask;
        }
    }

    /// An empty table of the smallest power-of-two size above `minused`
    /// (`set_table_resize`'s sizing).
    fn sized_for(minused: usize, finger: usize) -> Self {
        let mut size = SET_MINSIZE;
        while size <= minused {
            size <<= 1;
        }
        Self {
            table: vec![EMPTY; size],
            fill: 0,
            finger,
            cursor: Cell::default(),
        }
    }
}

/// hwf: the `minused` `set_merge` resizes an empty set's table to before
/// merging `n` values (none, so the minimum size, below 5).
fn merge_presize(n: usize) -> usize {
    if n * 5 >= (SET_MINSIZE - 1) * 3 { n * 2 } else { 0 }
}

fn slot_u32(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

/// Internal storage shared between Set and FrozenSet.
///
/// Uses a `PyHashTable<usize>` for O(1) lookups combined with a dense `Vec<SetEntry>`.
/// The hash table maps value hashes to indices in the entries vector. hwf: the
/// order is CPython's, given by [`SetLayout`]'s slots, each of which names its
/// entry; adding and removing are O(1) (amortised over resizes).
#[derive(Debug, Default)]
pub(crate) struct SetStorage {
    /// Maps hash to index in entries vector.
    indices: PyHashTable<usize>,
    /// Dense vector of entries (hwf: in no particular order, a removal moves
    /// the last entry into the gap; Monty kept insertion order).
    entries: Vec<SetEntry>,
    /// hwf: CPython's table, which orders `entries`: iterate through
    /// [`Self::ordered`] (boxed: `HeapData` stays within its size budget).
    layout: Box<SetLayout>,
}

impl SetStorage {
    /// Creates a new empty set storage.
    fn new() -> Self {
        Self::default()
    }

    /// Creates a new set storage with pre-allocated capacity.
    fn with_capacity(capacity: usize) -> Self {
        Self {
            indices: PyHashTable::with_capacity(capacity),
            entries: Vec::with_capacity(capacity),
            layout: Box::default(),
        }
    }

    /// Creates a SetStorage from a vector of (value, hash, CPython hash)
    /// triples, in order.
    ///
    /// This is used to avoid borrow conflicts when we need to copy another set's
    /// contents and then perform operations requiring mutable heap access.
    /// The caller is responsible for handling reference counting. hwf: the
    /// values are placed as `set_merge` copies a set into an empty one.
    fn from_entries(entries: Vec<(Value, u64, u64)>) -> Self {
        let mut storage = Self::with_capacity(entries.len());
        *storage.layout = SetLayout::sized_for(merge_presize(entries.len()), 0);
        for (value, hash, pyhash) in entries {
            let slot = storage.layout.insert_clean(pyhash, cell_of(storage.entries.len()));
            storage.entries.push(SetEntry {
                value,
                hash,
                pyhash,
                slot,
            });
        }
        storage.reindex();
        storage
    }

    /// Clones entries with proper reference counting (hwf: in CPython's
    /// order).
    fn clone_entries(&self, heap: &impl ContainsHeap) -> Vec<(Value, u64, u64)> {
        self.ordered()
            .map(|e| (e.value.clone_with_heap(heap), e.hash, e.pyhash))
            .collect()
    }

    /// hwf: the entries in CPython's order (its table's live slots).
    fn ordered(&self) -> impl Iterator<Item = &SetEntry> {
        self.layout
            .table
            .iter()
            .filter(|&&cell| is_live(cell))
            .filter_map(|&cell| self.entries.get(cell as usize))
    }

    /// hwf: the first live slot at or after `slot`, with its entry (`None`
    /// past the last). A walk in CPython's order keeps only the next slot
    /// between steps, so user code may change the set in between, as in
    /// CPython's `set_next`.
    fn live_from(&self, slot: usize) -> Option<(usize, &SetEntry)> {
        let table = &self.layout.table;
        let at = slot + table.get(slot..)?.iter().position(|&cell| is_live(cell))?;
        Some((at, self.entries.get(table[at] as usize)?))
    }

    /// hwf: the slot after the `count`-th live slot (0 for none): where a
    /// walk that has yielded `count` values resumes.
    fn slot_after(&self, count: usize) -> usize {
        if count == 0 {
            return 0;
        }
        self.layout
            .table
            .iter()
            .enumerate()
            .filter(|(_, cell)| is_live(**cell))
            .nth(count - 1)
            .map_or(self.layout.table.len(), |(at, _)| at + 1)
    }

    /// hwf: rebuilds `indices` from `entries`.
    fn reindex(&mut self) {
        self.indices.clear();
        for (idx, e) in self.entries.iter().enumerate() {
            self.indices.insert_unique(e.hash, idx, |&i| self.entries[i].hash);
        }
    }

    /// hwf: places a new entry at the end of `entries` and in its slot of
    /// CPython's table, growing the table as CPython does.
    fn place(&mut self, value: Value, hash: u64, pyhash: u64) {
        let pos = self.entries.len();
        let (slot, grow) = self.layout.insert(pyhash, cell_of(pos));
        self.entries.push(SetEntry {
            value,
            hash,
            pyhash,
            slot,
        });
        self.indices.insert_unique(hash, pos, |&i| self.entries[i].hash);
        if grow {
            let used = self.entries.len();
            self.resize(if used > 50_000 { used * 2 } else { used * 4 });
        }
    }

    /// hwf: `set_table_resize`: a new table for `minused`, the live entries
    /// reinserted in slot order, dummies dropped.
    fn resize(&mut self, minused: usize) {
        let finger = self.layout.finger;
        let old = mem::replace(&mut *self.layout, SetLayout::sized_for(minused, finger));
        for cell in old.table {
            if is_live(cell)
                && let Some(e) = self.entries.get_mut(cell as usize)
            {
                e.slot = self.layout.insert_clean(e.pyhash, cell);
            }
        }
    }

    /// hwf: `set_merge`'s one resize before merging `incoming` values.
    fn presize_for_merge(&mut self, incoming: usize) {
        #[expect(clippy::cast_possible_truncation, reason = "the mask fits in usize")]
        let mask = self.layout.mask() as usize;
        if (self.layout.fill + incoming) * 5 >= mask * 3 {
            self.resize((self.entries.len() + incoming) * 2);
        }
    }

    /// hwf: a copy as CPython makes one (`set.copy()`, `set(s)`,
    /// `frozenset(s)`, the left side of `|`): `set_merge` into an empty set,
    /// which keeps the slots when the table size stays and there are no
    /// dummies, else reinserts in slot order.
    fn cpython_copy(&self, heap: &impl ContainsHeap) -> Self {
        let n = self.entries.len();
        let mut layout = SetLayout::sized_for(merge_presize(n), 0);
        let same = layout.table.len() == self.layout.table.len() && self.layout.fill == n;
        let mut entries = Vec::with_capacity(n);
        for e in self.ordered() {
            let cell = cell_of(entries.len());
            let slot = if same {
                layout.table[e.slot as usize] = cell;
                layout.fill += 1;
                e.slot
            } else {
                layout.insert_clean(e.pyhash, cell)
            };
            entries.push(SetEntry {
                value: e.value.clone_with_heap(heap),
                hash: e.hash,
                pyhash: e.pyhash,
                slot,
            });
        }
        let mut out = Self {
            indices: PyHashTable::with_capacity(n),
            entries,
            layout: Box::new(layout),
        };
        out.reindex();
        out
    }

    /// hwf: removes the entry at `index` (its slot becomes a dummy); the last
    /// entry moves into its place in `entries`, and its slot and `indices`
    /// follow.
    fn take_at(&mut self, index: usize) -> SetEntry {
        let removed = self.entries.swap_remove(index);
        self.layout.table[removed.slot as usize] = DUMMY;
        self.layout.cursor.set((0, 0));
        if let Ok(found) = self.indices.find_entry(removed.hash, |&i| i == index) {
            found.remove();
        }
        if let Some(moved) = self.entries.get(index) {
            let last = self.entries.len();
            self.layout.table[moved.slot as usize] = cell_of(index);
            if let Some(i) = self.indices.find_mut(moved.hash, |&i| i == last) {
                *i = index;
            }
        }
        removed
    }

    /// Returns the number of elements in the set.
    fn len(&self) -> usize {
        self.entries.len()
    }

    /// Returns true if the set is empty.
    fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds an element to the set, transferring ownership.
    ///
    /// Returns `Ok(true)` if the element was added (not already present),
    /// `Ok(false)` if the element was already in the set.
    /// Returns `Err` if the element is unhashable.
    ///
    /// The caller transfers ownership of `value`. If the value is already in
    /// the set, it will be dropped.
    fn add(&mut self, value: Value, vm: &mut VM<'_>) -> RunResult<bool> {
        let mut value_guard = DropGuard::new(value, vm);
        let (value, vm) = value_guard.as_parts_mut();
        let hash = set_element_hash(value, vm)?;

        // Check if value already exists. CPython compares the stored element on
        // the left, which an asymmetric user `__eq__` can tell apart — the
        // mutation-safe twin ([`HeapRead::find_index`]) does the same.
        let existing = self
            .indices
            .find(hash, |&idx| self.entries[idx].value.py_eq(value, vm).unwrap_or(false));

        if existing.is_some() {
            Ok(false)
        } else {
            let pyhash = crate::cpython_hash::cpython_hash(value, vm).unwrap_or(hash);
            let value = value_guard.into_inner();
            self.place(value, hash, pyhash);
            Ok(true)
        }
    }
}

impl<'h> HeapRead<'h, SetStorage> {
    /// Removes an element from the set.
    ///
    /// Returns `Ok(true)` if the element was removed, `Ok(false)` if not found.
    /// Returns `Err` if the key is unhashable.
    fn remove(&mut self, value: &Value, vm: &mut VM<'h>) -> RunResult<bool> {
        let hash = set_element_hash(value, vm)?;

        let Some(index) = self.find_index(value, hash, vm)? else {
            return Ok(false);
        };

        // Remove via short-lived mutable borrow
        let removed_entry = self.get_mut(vm.heap).take_at(index);
        removed_entry.value.drop_with(vm);
        Ok(true)
    }

    /// Removes an element from the set without raising an error if not found.
    ///
    /// Returns `Ok(())` always (unless the key is unhashable).
    fn discard(&mut self, value: &Value, vm: &mut VM<'h>) -> RunResult<()> {
        self.remove(value, vm)?;
        Ok(())
    }

    /// Removes and returns an arbitrary element from the set.
    ///
    /// Returns `Err(KeyError)` if the set is empty.
    fn pop(&mut self, vm: &mut VM<'h>) -> RunResult<Value> {
        if self.get(vm.heap).is_empty() {
            return Err(ExcType::key_error_pop_empty_set());
        }

        // hwf: CPython's `set_pop`: the first live slot from the finger
        // (wrapping), which becomes a dummy; the finger moves past it.
        let storage = self.get_mut(vm.heap);
        let start = storage.layout.finger & (storage.layout.table.len() - 1);
        let slot = (start..storage.layout.table.len())
            .chain(0..start)
            .find(|&at| is_live(storage.layout.table[at]))
            .expect("checked non-empty");
        let index = storage.layout.table[slot] as usize;
        let entry = storage.take_at(index);
        storage.layout.finger = slot + 1;
        Ok(entry.value)
    }

    /// Removes all elements from the set.
    fn clear(&mut self, vm: &mut VM<'h>) {
        let entries = mem::take(&mut self.get_mut(vm.heap).entries);
        self.get_mut(vm.heap).indices.clear();
        // hwf: CPython's `set_clear_internal`: back to the smallest table.
        let finger = self.get(vm.heap).layout.finger;
        *self.get_mut(vm.heap).layout = SetLayout {
            finger,
            ..SetLayout::default()
        };
        entries.drop_with(vm);
    }
}

impl SetStorage {
    /// Creates a deep clone with proper reference counting.
    fn clone_with_heap(&self, heap: &impl ContainsHeap) -> Self {
        Self {
            indices: self.indices.clone(),
            entries: self
                .entries
                .iter()
                .map(|entry| SetEntry {
                    value: entry.value.clone_with_heap(heap),
                    hash: entry.hash,
                    pyhash: entry.pyhash,
                    slot: entry.slot,
                })
                .collect(),
            layout: self.layout.clone(),
        }
    }
}

impl<'h> HeapRead<'h, SetStorage> {
    /// Checks if the set contains a value.
    pub fn contains(&self, value: &Value, vm: &mut VM<'h>) -> RunResult<bool> {
        let hash = set_element_hash(value, vm)?;
        Ok(self.find_index(value, hash, vm)?.is_some())
    }

    /// Finds the index of the entry equal to `value`, or `None` if absent.
    ///
    /// Snapshots candidates so each can be validated around user `__eq__`
    /// without holding a borrow of the hash table; only one that moved restarts
    /// the probe. The twin of [`HeapRead::<Dict>::find_index_hash`], which
    /// carries the full reasoning — the two must stay in sync.
    fn find_index(&self, value: &Value, hash: u64, vm: &mut VM<'h>) -> RunResult<Option<usize>> {
        // When no comparison can dispatch to user code, nothing can mutate the
        // set mid-probe: skip revalidation and the miss continuation, as in
        // the dict twin.
        let value_native = eq_is_native(value, vm.heap);

        'restart: loop {
            // Collected inline rather than through `probe_candidates`, for the
            // reason given in the dict twin.
            let mut candidate_indices: SmallVec<[usize; 2]> = SmallVec::new();
            let mut candidate_values: SmallVec<[Value; 2]> = SmallVec::new();
            let mut all_native = value_native;
            let storage = self.get(vm.heap);
            // Native pairs are compared inline during the probe walk; only
            // pairs that may need user code are cloned for the guarded loop —
            // see the dict twin.
            let found = storage
                .indices
                .find(hash, |&idx| {
                    let entry = &storage.entries[idx];
                    if entry.hash != hash {
                        return false;
                    }
                    if candidate_indices.is_empty()
                        && let Some(eq) = probe_native_eq(&entry.value, value, vm)
                    {
                        eq
                    } else {
                        candidate_indices.push(idx);
                        candidate_values.push(entry.value.clone_with_heap(vm.heap));
                        all_native = all_native && eq_is_native(&entry.value, vm.heap);
                        false
                    }
                })
                .copied();
            // Guarded before the early returns — see the dict twin.
            defer_drop!(candidate_values, vm);
            if let Some(index) = found {
                return Ok(Some(index));
            }
            if candidate_indices.is_empty() {
                return Ok(None);
            }

            for (&candidate_index, candidate_value) in candidate_indices.iter().zip(candidate_values.iter()) {
                if !all_native && !self.probe_valid(candidate_index, hash, candidate_value, vm) {
                    vm.heap.tracker.check_memory_time()?;
                    continue 'restart;
                }
                // CPython compares the stored value on the left.
                let eq = candidate_value.py_eq(value, vm)?;
                if !all_native && !self.probe_valid(candidate_index, hash, candidate_value, vm) {
                    vm.heap.tracker.check_memory_time()?;
                    continue 'restart;
                }
                if eq {
                    return Ok(Some(candidate_index));
                }
            }

            // A comparison can itself have added a colliding value the snapshot
            // never saw, so a pass that ran any hands over to the mutation-aware
            // continuation — unless none could run user code.
            if all_native {
                return Ok(None);
            }
            match self.probe_after_compare(hash, value, candidate_values, vm)? {
                ProbeOutcome::Found(index) => return Ok(Some(index)),
                ProbeOutcome::Missing => return Ok(None),
                // a candidate moved: fall through to the next probe from scratch
                ProbeOutcome::Restart => (),
            }
        }
    }

    /// Continues a probe whose comparisons all missed, in case one of them
    /// mutated the set and added a colliding value.
    ///
    /// The twin of [`HeapRead::<Dict>::probe_after_compare`]: re-reads the
    /// candidates until a pass finds nothing new, never re-running user
    /// `__eq__` on a value. Inline-compared native pairs may repeat — see there.
    fn probe_after_compare(
        &self,
        hash: u64,
        value: &Value,
        already_compared: &[Value],
        vm: &mut VM<'h>,
    ) -> RunResult<ProbeOutcome> {
        // The clones keep every compared value alive so its heap slot cannot
        // be recycled into a new value that would then be skipped by identity.
        let compared: SmallVec<[Value; 2]> = already_compared.iter().map(|v| v.clone_with_heap(vm.heap)).collect();
        defer_drop_mut!(compared, vm);
        // Identity set for O(1) seen-checks; see the dict twin for why the
        // linear alternative is quadratic.
        let mut compared_ids: AHashSet<Identity> = compared.iter().map(Value::id).collect();

        loop {
            // Polled up front so every entry checks the limits at least once —
            // see the dict twin.
            vm.heap.tracker.check_memory_time()?;
            let (candidate_indices, candidate_values) = self.probe_candidates(hash, vm);
            defer_drop!(candidate_values, vm);
            let mut compared_any = false;

            for (&candidate_index, candidate_value) in candidate_indices.iter().zip(candidate_values.iter()) {
                if !compared_ids.insert(candidate_value.id()) {
                    continue;
                }
                if !self.probe_valid(candidate_index, hash, candidate_value, vm) {
                    vm.heap.tracker.check_memory_time()?;
                    return Ok(ProbeOutcome::Restart);
                }
                compared.push(candidate_value.clone_with_heap(vm.heap));
                compared_any = true;
                // CPython compares the stored value on the left.
                let eq = candidate_value.py_eq(value, vm)?;
                if !self.probe_valid(candidate_index, hash, candidate_value, vm) {
                    vm.heap.tracker.check_memory_time()?;
                    return Ok(ProbeOutcome::Restart);
                }
                if eq {
                    return Ok(ProbeOutcome::Found(candidate_index));
                }
            }

            if !compared_any {
                return Ok(ProbeOutcome::Missing);
            }
        }
    }

    /// Snapshots the live entries colliding on `hash`: their indices, plus an
    /// owned reference to each of their values.
    ///
    /// Cloning the values lets `py_eq` run without the hash-table borrow held;
    /// the caller owns the returned values and must drop them. Only the
    /// mutation-aware continuation calls this — the fast path above inlines the
    /// same collection.
    fn probe_candidates(&self, hash: u64, vm: &VM<'h>) -> (SmallVec<[usize; 2]>, SmallVec<[Value; 2]>) {
        let mut indices: SmallVec<[usize; 2]> = SmallVec::new();
        let mut values: SmallVec<[Value; 2]> = SmallVec::new();
        let storage = self.get(vm.heap);
        storage.indices.find(hash, |&idx| {
            if storage.entries[idx].hash == hash {
                indices.push(idx);
                values.push(storage.entries[idx].value.clone_with_heap(vm.heap));
            }
            false
        });
        (indices, values)
    }

    /// Checks that a snapshotted candidate still names the same live entry.
    ///
    /// The caller checks before and after `py_eq`; a mismatch restarts the probe.
    #[inline]
    fn probe_valid(&self, index: usize, hash: u64, value: &Value, vm: &VM<'h>) -> bool {
        let storage = self.get(vm.heap);
        storage
            .entries
            .get(index)
            .is_some_and(|entry| entry.hash == hash && entry.value.is(value))
    }
}

impl SetStorage {
    /// Returns an iterator over the values in the set (hwf: in CPython's
    /// order).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Value> {
        self.ordered().map(|e| &e.value)
    }

    /// Returns the value at the given position (hwf: in CPython's order), if
    /// valid.
    ///
    /// Used for positional snapshots (`object_bridge`). hwf: a walk of the
    /// table, which resumes where the last call stopped when `index` is not
    /// before it, so asking for 0, 1, 2, ... walks the table once.
    pub(crate) fn value_at(&self, index: usize) -> Option<&Value> {
        let (seen, slot) = self.layout.cursor.get();
        let (mut count, mut from) = if index >= seen { (seen, slot) } else { (0, 0) };
        loop {
            let (at, entry) = self.live_from(from)?;
            if count == index {
                self.layout.cursor.set((index, at));
                return Some(&entry.value);
            }
            count += 1;
            from = at + 1;
        }
    }

    /// Collects heap IDs for reference counting cleanup.
    fn collect_dec_ref_ids(&mut self, stack: &mut Vec<HeapId>) {
        for entry in &mut self.entries {
            if let Value::Ref(id) = &entry.value {
                stack.push(*id);
                #[cfg(feature = "memory-model-checks")]
                entry.value.dec_ref_forget();
            }
        }
    }
}

impl<'h> HeapRead<'h, SetStorage> {
    /// Compares two sets for equality.
    fn eq(&self, other: &Self, vm: &mut VM<'h>) -> RunResult<bool> {
        if self.get(vm.heap).len() != other.get(vm.heap).len() {
            return Ok(false);
        }
        let iter = self.iter(vm)?;
        defer_drop_mut!(iter, vm);
        while let Some(elem) = iter.next(vm)? {
            if !other.contains(elem, vm)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Returns a stack-borrowed lending iterator over the set's elements in
    /// insertion order, holding a recursion-depth token for its lifetime.
    ///
    /// Named `iter` despite returning a non-stdlib lending iterator (see
    /// [`SetIter`]) because that's the obvious entry point for "iterate
    /// this container".
    #[expect(clippy::iter_not_returning_iterator)]
    pub(crate) fn iter(&self, vm: &mut VM<'h>) -> RunResult<SetIter<'_, 'h>> {
        SetIter::new(self, vm)
    }
}

/// Stack-borrowed lending iterator over a heap-allocated set's elements in
/// insertion order.
///
/// Borrows a [`HeapRead`] for its lifetime, so the heap entry is pinned by
/// the reader count for the duration of iteration.
///
/// **Lending shape.** [`next`](Self::next) returns `Option<&Value>`. The
/// iterator itself owns the most-recently-yielded element (using
/// [`Value::Undefined`] as the empty sentinel) and drops the previous
/// element at the start of each `next` call, so call sites do **not** need
/// a per-item `defer_drop!`.
///
/// **Recursion guard.** Acquires a [`RecursionToken`] at construction and
/// releases it via [`DropWithContext`]. The iterator MUST be wrapped in
/// [`defer_drop_mut!`] so the token (and any in-flight element) is released
/// on every exit path — set iteration usually feeds into `py_eq` /
/// `py_hash` / membership checks which recurse on cyclic structures (e.g.
/// frozensets of frozensets).
///
/// **Mutation policy.** The initial length is captured at construction. If
/// the set's size changes between [`next`](Self::next) calls, the next step
/// returns `RuntimeError: Set changed size during iteration` (matching
/// CPython and Monty's set-iterator behavior).
pub(crate) struct SetIter<'a, 'h> {
    storage: &'a HeapRead<'h, SetStorage>,
    /// hwf: the slot of CPython's table the walk resumes at.
    slot: usize,
    /// Values yielded so far.
    index: usize,
    expected_len: usize,
    token: RecursionToken,
    /// Most-recently-yielded element. `Value::Undefined` when nothing is
    /// held — drops on that variant are no-ops, so `next` can
    /// unconditionally release the previous slot before fetching the next.
    current: Value,
}

impl<'a, 'h> SetIter<'a, 'h> {
    fn new(storage: &'a HeapRead<'h, SetStorage>, vm: &mut VM<'h>) -> RunResult<Self> {
        let expected_len = storage.get(vm.heap).entries.len();
        let token = vm.recursion_token()?;
        Ok(Self {
            storage,
            slot: 0,
            index: 0,
            expected_len,
            token,
            current: Value::Undefined,
        })
    }

    /// Advances the iterator and returns a borrow of the next element, or
    /// `Ok(None)` on exhaustion. The returned reference is valid until the
    /// next call to `next` (or until the iterator is dropped).
    ///
    /// Returns `Err(RuntimeError)` if the set's size has changed since
    /// construction.
    pub(crate) fn next<'i>(&'i mut self, vm: &mut VM<'h>) -> RunResult<Option<&'i Value>> {
        // Drop the previously-yielded element (no-op when `current` is `Undefined`).
        mem::replace(&mut self.current, Value::Undefined).drop_with(vm.heap);
        vm.heap.tracker.check_time_every(self.index)?;
        let current = self.storage.get(vm.heap);
        if current.entries.len() != self.expected_len {
            return Err(ExcType::runtime_error_set_changed_size());
        }
        let Some((at, entry)) = current.live_from(self.slot) else {
            return Ok(None);
        };
        self.current = entry.value.clone_with_heap(vm.heap);
        self.slot = at + 1;
        self.index += 1;
        Ok(Some(&self.current))
    }
}

impl<'h, C: ContainsVM<'h>> DropWithContext<C> for SetIter<'_, 'h> {
    fn drop_with(self, container: &mut C) {
        self.current.drop_with(container);
        self.token.drop_with(container);
    }
}

impl SetStorage {
    /// Returns true if this set is a subset of other.
    fn is_subset(&self, other: &Self, vm: &mut VM<'_>) -> RunResult<bool> {
        for value in self.iter() {
            if !vm.heap.protect(other).contains(value, vm)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Returns true if this set is a superset of other.
    fn is_superset(&self, other: &Self, vm: &mut VM<'_>) -> RunResult<bool> {
        other.is_subset(self, vm)
    }

    /// Returns true if this set has no elements in common with other.
    fn is_disjoint(&self, other: &Self, vm: &mut VM<'_>) -> RunResult<bool> {
        // Iterate over the smaller set for efficiency
        let (smaller, larger) = if self.len() <= other.len() {
            (self, other)
        } else {
            (other, self)
        };

        for value in smaller.iter() {
            if vm.heap.protect(larger).contains(value, vm)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

impl<'h> HeapRead<'h, SetStorage> {
    /// hwf: a step of a walk in CPython's order: the value in the first live
    /// slot at or after `*slot` (a new reference), with `*slot` moved past
    /// it. The set is read afresh at each step, so user code run between
    /// steps (an `__eq__`) may change it, as in CPython's `set_next`.
    fn next_value(&self, slot: &mut usize, vm: &VM<'h>) -> Option<Value> {
        let (at, entry) = self.get(vm.heap).live_from(*slot)?;
        *slot = at + 1;
        Some(entry.value.clone_with_heap(vm.heap))
    }

    /// Returns a new set containing elements in either set (union).
    fn union(&self, other: &Self, vm: &mut VM<'h>) -> RunResult<SetStorage> {
        // hwf: CPython's `set_or`: a copy of `self`, then `set_merge` of
        // `other` (an empty copy takes `other`'s copy; else one resize, then
        // `other`'s values in its order).
        let start = if self.get(vm.heap).is_empty() {
            other.get(vm.heap).cpython_copy(vm.heap)
        } else {
            let mut copy = self.get(vm.heap).cpython_copy(vm.heap);
            copy.presize_for_merge(other.get(vm.heap).len());
            copy
        };
        let mut result_guard = DropGuard::new(start, vm);
        let (result, vm) = result_guard.as_parts_mut();
        let mut slot = 0;
        while let Some(value) = other.next_value(&mut slot, vm) {
            result.add(value, vm)?;
        }
        Ok(result_guard.into_inner())
    }

    /// Returns a new set containing elements in both sets (intersection).
    fn intersection(&self, other: &Self, vm: &mut VM<'h>) -> RunResult<SetStorage> {
        let mut result_guard = DropGuard::new(SetStorage::new(), vm);
        let (result, vm) = result_guard.as_parts_mut();
        // Iterate over the smaller set for efficiency. CPython swaps only when
        // `other` is strictly larger, so on a tie it walks `other` and tests
        // membership in `self` — observable through an asymmetric `__eq__`.
        let (smaller, larger) = if self.get(vm.heap).len() < other.get(vm.heap).len() {
            (self, other)
        } else {
            (other, self)
        };

        let mut slot = 0;
        while let Some(value) = smaller.next_value(&mut slot, vm) {
            let mut value_guard = DropGuard::new(value, vm);
            let (value, vm) = value_guard.as_parts_mut();
            if larger.contains(value, vm)? {
                let (value, vm) = value_guard.into_parts();
                result.add(value, vm)?;
            }
        }
        Ok(result_guard.into_inner())
    }

    /// Returns a new set containing elements in self but not in other (difference).
    fn difference(&self, other: &Self, vm: &mut VM<'h>) -> RunResult<SetStorage> {
        // hwf: CPython's `set_difference`: when `self` is more than four
        // times larger, a copy of it with `other`'s values removed (leaving
        // dummies), else `self`'s values not in `other`, added in order.
        if self.get(vm.heap).len() >> 2 > other.get(vm.heap).len() {
            let mut result_guard = DropGuard::new(self.get(vm.heap).cpython_copy(vm.heap), vm);
            let (result, vm) = result_guard.as_parts_mut();
            let mut slot = 0;
            while let Some(value) = other.next_value(&mut slot, vm) {
                defer_drop!(value, vm);
                let hash = set_element_hash(value, vm)?;
                let found = result
                    .indices
                    .find(hash, |&i| result.entries[i].value.py_eq(value, vm).unwrap_or(false))
                    .copied();
                if let Some(index) = found {
                    let removed = result.take_at(index);
                    removed.value.drop_with(vm);
                }
            }
            return Ok(result_guard.into_inner());
        }
        let mut result_guard = DropGuard::new(SetStorage::new(), vm);
        let (result, vm) = result_guard.as_parts_mut();
        let mut slot = 0;
        while let Some(value) = self.next_value(&mut slot, vm) {
            let mut value_guard = DropGuard::new(value, vm);
            let (value, vm) = value_guard.as_parts_mut();
            if !other.contains(value, vm)? {
                let (value, vm) = value_guard.into_parts();
                result.add(value, vm)?;
            }
        }
        Ok(result_guard.into_inner())
    }

    /// Returns a new set containing elements in either set but not both (symmetric difference).
    fn symmetric_difference(&self, other: &Self, vm: &mut VM<'h>) -> RunResult<SetStorage> {
        // hwf: CPython's `set_symmetric_difference`: a copy of `other`, then
        // each of `self`'s values, in order, removed from it when there and
        // added when not.
        let mut result_guard = DropGuard::new(other.get(vm.heap).cpython_copy(vm.heap), vm);
        let (result, vm) = result_guard.as_parts_mut();
        let mut slot = 0;
        while let Some(value) = self.next_value(&mut slot, vm) {
            let mut value_guard = DropGuard::new(value, vm);
            let (value, vm) = value_guard.as_parts_mut();
            let hash = set_element_hash(value, vm)?;
            let found = result
                .indices
                .find(hash, |&i| result.entries[i].value.py_eq(value, vm).unwrap_or(false))
                .copied();
            if let Some(index) = found {
                let removed = result.take_at(index);
                removed.value.drop_with(vm);
            } else {
                let (value, vm) = value_guard.into_parts();
                result.add(value, vm)?;
            }
        }
        Ok(result_guard.into_inner())
    }
}

impl<'h> HeapRead<'h, SetStorage> {
    /// hwf: `self <op> other` for the method forms, which take any iterable,
    /// in CPython's order: a set or frozenset operand (and a dict for
    /// `difference`, a set or any iterable for `symmetric_difference`, which
    /// CPython makes a set first) goes through the set algorithms; any other
    /// iterable is walked in its own order, as CPython walks it: `union`
    /// adds its values to a copy (after one resize for a dict's size),
    /// `intersection` adds those found here to a new set, `difference`
    /// discards them from a copy. Consumes `other`.
    fn algebra(&self, other: Value, op: SetAlgebra, vm: &mut VM<'h>) -> RunResult<SetStorage> {
        let (setlike, dict_len) = match &other {
            Value::Ref(id) => match vm.heap.get(*id) {
                HeapData::Set(_) | HeapData::FrozenSet(_) => (true, None),
                HeapData::Dict(d) => (false, Some(d.len())),
                _ => (false, None),
            },
            _ => (false, None),
        };
        let walk = !setlike
            && match op {
                SetAlgebra::Union | SetAlgebra::Intersection => true,
                SetAlgebra::Difference => dict_len.is_none(),
                SetAlgebra::SymmetricDifference => false,
            };
        if !setlike && matches!(op, SetAlgebra::SymmetricDifference) {
            // CPython toggles this set's values in `set(other)` itself.
            let start = Set::from_iterable(other, vm)?.0;
            let mut result_guard = DropGuard::new(start, vm);
            let (result, vm) = result_guard.as_parts_mut();
            let mut slot = 0;
            while let Some(value) = self.next_value(&mut slot, vm) {
                let mut value_guard = DropGuard::new(value, vm);
                let (value, vm) = value_guard.as_parts_mut();
                let hash = set_element_hash(value, vm)?;
                let found = result
                    .indices
                    .find(hash, |&i| result.entries[i].value.py_eq(value, vm).unwrap_or(false))
                    .copied();
                if let Some(index) = found {
                    let removed = result.take_at(index);
                    removed.value.drop_with(vm);
                } else {
                    let (value, vm) = value_guard.into_parts();
                    result.add(value, vm)?;
                }
            }
            return Ok(result_guard.into_inner());
        }
        if !walk {
            let other_storage = Set::get_storage_from_value(other, vm)?;
            defer_drop!(other_storage, vm);
            let other_storage = vm.heap.protect(other_storage);
            return match op {
                SetAlgebra::Union => self.union(&other_storage, vm),
                SetAlgebra::Intersection => self.intersection(&other_storage, vm),
                SetAlgebra::Difference => self.difference(&other_storage, vm),
                SetAlgebra::SymmetricDifference => self.symmetric_difference(&other_storage, vm),
            };
        }
        let values = iterable_values(other, vm)?;
        let start = match op {
            SetAlgebra::Intersection => SetStorage::new(),
            _ => {
                let mut copy = self.get(vm.heap).cpython_copy(vm.heap);
                if let (SetAlgebra::Union, Some(n)) = (op, dict_len) {
                    copy.presize_for_merge(n);
                }
                copy
            }
        };
        let mut result_guard = DropGuard::new(start, vm);
        let (result, vm) = result_guard.as_parts_mut();
        let mut rest = values.into_iter();
        while let Some(value) = rest.next() {
            let step = match op {
                SetAlgebra::Union => result.add(value, vm).map(|_| ()),
                SetAlgebra::Intersection => match self.contains(&value, vm) {
                    Ok(true) => result.add(value, vm).map(|_| ()),
                    other => {
                        value.drop_with(vm);
                        other.map(|_| ())
                    }
                },
                _ => {
                    let found = set_element_hash(&value, vm).map(|hash| {
                        result
                            .indices
                            .find(hash, |&i| result.entries[i].value.py_eq(&value, vm).unwrap_or(false))
                            .copied()
                    });
                    value.drop_with(vm);
                    found.map(|found| {
                        if let Some(index) = found {
                            let removed = result.take_at(index);
                            removed.value.drop_with(vm);
                        }
                    })
                }
            };
            if let Err(e) = step {
                for value in rest {
                    value.drop_with(vm);
                }
                return Err(e);
            }
        }
        Ok(result_guard.into_inner())
    }
}

impl<'h> HeapRead<'h, SetStorage> {
    /// Writes the repr format to a formatter.
    fn repr_fmt(
        &self,
        f: &mut impl Write,
        vm: &mut VM<'h>,
        heap_ids: &mut LazyHeapSet,
        type_name: &str,
    ) -> RunResult<()> {
        let len = self.get(vm.heap).len();
        if len == 0 {
            return Ok(write!(f, "{type_name}()")?);
        }

        // Check depth limit before recursing
        let Ok(mut guard) = vm.recursion_guard() else {
            return Ok(f.write_str("{...}")?);
        };
        let vm = &mut *guard;

        // frozenset needs type prefix: frozenset({...}), but set doesn't: {...}
        let needs_prefix = type_name != "set";
        if needs_prefix {
            write!(f, "{type_name}(")?;
        }

        // Format a refcount-bumped snapshot of the elements: CPython's set repr
        // copies to a list first, so a user `__repr__` mutating the set
        // mid-format changes nothing (and can't invalidate indices here).
        vm.heap.tracker.check_allocation(len.saturating_mul(VALUE_SIZE))?;
        let items = Vec::with_capacity(len);
        defer_drop_mut!(items, vm);
        let mut slot = 0;
        for i in 0..len {
            // The whole snapshot runs before `repr_items_fmt` reaches its first
            // checkpoint, so it polls the deadline itself — otherwise a big set
            // overshoots the time limit by the entire copy.
            vm.heap.tracker.check_time_every(i)?;
            // No user code runs during the snapshot, so `len` is still current.
            let Some((at, entry)) = self.get(vm.heap).live_from(slot) else {
                break;
            };
            slot = at + 1;
            items.push(entry.value.clone_with_heap(vm.heap));
        }

        f.write_char('{')?;
        repr_items_fmt(items, f, vm, heap_ids)?;
        f.write_char('}')?;

        if needs_prefix {
            f.write_char(')')?;
        }

        Ok(())
    }
}

/// Python set type - mutable, unordered collection of unique hashable elements.
///
/// Sets support standard operations like add, remove, discard, pop, clear, as well
/// as set algebra operations like union, intersection, difference, and symmetric
/// difference.
///
/// # Reference Counting
/// When values are added, their reference counts are NOT incremented by the set -
/// the caller transfers ownership. When values are removed or the set is cleared,
/// their reference counts are decremented.
#[derive(Debug, Default)]
pub(crate) struct Set(SetStorage);

impl Set {
    /// Creates a new empty set.
    #[must_use]
    pub fn new() -> Self {
        Self(SetStorage::new())
    }

    /// Creates a set with pre-allocated capacity.
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Self {
        Self(SetStorage::with_capacity(capacity))
    }

    /// hwf: a copy as CPython makes one (its table size and slots).
    pub(crate) fn cpython_copy(&self, heap: &impl ContainsHeap) -> Self {
        Self(self.0.cpython_copy(heap))
    }

    /// Validates and clamps a capacity before native set preallocation.
    pub(crate) fn preallocation_capacity(requested: usize, tracker: &ResourceTracker) -> Result<usize, ResourceError> {
        checked_preallocation_hint(requested, mem::size_of::<SetEntry>(), tracker)
    }

    /// Returns the number of elements in the set.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Returns true if the set is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds an element to the set, transferring ownership.
    ///
    /// Returns `Ok(true)` if added, `Ok(false)` if already present.
    pub fn add(&mut self, value: Value, vm: &mut VM<'_>) -> RunResult<bool> {
        self.0.add(value, vm)
    }
}

impl<'h> HeapRead<'h, Set> {
    /// Removes an element from the set.
    ///
    /// Returns `Err(KeyError)` if the element is not present.
    pub fn remove(&mut self, value: &Value, vm: &mut VM<'h>) -> RunResult<()> {
        if self.storage_mut().remove(value, vm)? {
            Ok(())
        } else {
            Err(ExcType::key_error(value, vm))
        }
    }

    /// Removes an element from the set if present.
    ///
    /// Does not raise an error if the element is not found.
    pub fn discard(&mut self, value: &Value, vm: &mut VM<'h>) -> RunResult<()> {
        self.storage_mut().discard(value, vm)
    }

    /// Removes and returns an arbitrary element from the set.
    ///
    /// Returns `Err(KeyError)` if the set is empty.
    pub fn pop(&mut self, vm: &mut VM<'h>) -> RunResult<Value> {
        self.storage_mut().pop(vm)
    }

    /// Removes all elements from the set.
    pub fn clear(&mut self, vm: &mut VM<'h>) {
        self.storage_mut().clear(vm);
    }

    /// Returns a shallow copy of the set.
    #[must_use]
    pub fn copy(&self, vm: &VM<'h>) -> Set {
        // hwf: as CPython copies (its table size and slots).
        Set(self.get(vm.heap).0.cpython_copy(vm.heap))
    }

    /// hwf: `set.difference_update(*others)`: CPython 3.11's
    /// `set_difference_update_internal` with each in turn: the receiver
    /// itself clears the set; else each value of the other is discarded, its
    /// slot left a dummy (3.11 does not resize afterwards), so the values
    /// that stay keep their order. Every value of `others` is consumed.
    fn difference_update(&mut self, others: Vec<Value>, vm: &mut VM<'h>) -> RunResult<()> {
        let mut rest = others.into_iter();
        while let Some(other) = rest.next() {
            let step = self.difference_update_one(other, vm);
            if let Err(e) = step {
                for value in rest {
                    value.drop_with(vm);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// hwf: whether `other` is this very set (CPython's `so == other`).
    fn is_self(&self, other: &Value, vm: &VM<'h>) -> bool {
        let Value::Ref(id) = other else {
            return false;
        };
        matches!(vm.heap.get(*id), HeapData::Set(s) if std::ptr::eq(s, self.get(vm.heap)))
    }

    /// One step of [`Self::difference_update`].
    fn difference_update_one(&mut self, other: Value, vm: &mut VM<'h>) -> RunResult<()> {
        if self.is_self(&other, vm) {
            other.drop_with(vm);
            self.clear(vm);
            return Ok(());
        }
        let values = update_operand_values(other, vm)?;
        let mut rest = values.into_iter();
        while let Some(value) = rest.next() {
            let step = self.discard(&value, vm);
            value.drop_with(vm);
            if let Err(e) = step {
                for value in rest {
                    value.drop_with(vm);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// hwf: `set.intersection_update(*others)`: CPython computes
    /// `set.intersection(*others)` (a copy when there are none) and swaps its
    /// table into the receiver, so the order is the intersection's. The
    /// receiver keeps its `pop()` finger (`set_swap_bodies` does not swap it).
    fn intersection_update(&mut self, mut others: Vec<Value>, vm: &mut VM<'h>) -> RunResult<()> {
        let result = if others.len() == 1
            && let Some(other) = others.pop()
        {
            self.storage().algebra(other, SetAlgebra::Intersection, vm)?
        } else {
            let start = self.storage().get(vm.heap).cpython_copy(vm.heap);
            set_algebra_fold(start, others, SetAlgebra::Intersection, vm)?
        };
        let finger = self.get(vm.heap).0.layout.finger;
        let old = mem::replace(&mut self.get_mut(vm.heap).0, result);
        self.get_mut(vm.heap).0.layout.finger = finger;
        old.drop_with(vm);
        Ok(())
    }

    /// hwf: `set.symmetric_difference_update(other)`: CPython's
    /// `set_symmetric_difference_update`: the receiver itself clears the set;
    /// else each value of the other (a dict's keys in insertion order, a
    /// set's in its table order, any other iterable made a set first) is
    /// discarded when present (its slot left a dummy) and added when not
    /// (into the first dummy its probe passes).
    fn symmetric_difference_update(&mut self, other: Value, vm: &mut VM<'h>) -> RunResult<()> {
        if self.is_self(&other, vm) {
            other.drop_with(vm);
            self.clear(vm);
            return Ok(());
        }
        let values = update_operand_values(other, vm)?;
        let mut rest = values.into_iter();
        while let Some(value) = rest.next() {
            let step = match self.storage_mut().remove(&value, vm) {
                Ok(true) => {
                    value.drop_with(vm);
                    Ok(())
                }
                Ok(false) => self.add(value, vm).map(|_| ()),
                Err(e) => {
                    value.drop_with(vm);
                    Err(e)
                }
            };
            if let Err(e) = step {
                for value in rest {
                    value.drop_with(vm);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    fn storage(&self) -> BorrowedHeapRead<'_, 'h, SetStorage> {
        heap_read_ref_as_field!(self, Set, 0)
    }

    fn storage_mut(&mut self) -> BorrowedHeapReadMut<'_, 'h, SetStorage> {
        heap_read_ref_as_field_mut!(self, Set, 0)
    }
}

impl Set {
    /// Returns the internal storage (for set operations between Set and FrozenSet).
    pub(crate) fn storage(&self) -> &SetStorage {
        &self.0
    }

    /// Returns an iterator over the set's elements in insertion order.
    ///
    /// This is primarily used by other runtime helpers that need to implement
    /// set-like protocols while still preserving Monty's single canonical set
    /// storage implementation.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Value> {
        self.0.iter()
    }

    /// Creates a set from the `set()` constructor call.
    ///
    /// - `set()` with no args returns an empty set
    /// - `set(iterable)` creates a set from any iterable (list, tuple, set, dict, range, str, bytes)
    pub fn init(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
        let value = args.get_zero_one_arg("set", vm.heap)?;
        let set = match value {
            None => Self::new(),
            Some(v) => Self::from_iterable(v, vm)?,
        };
        let heap_id = vm.heap.allocate(HeapData::Set(set));
        Ok(Value::Ref(heap_id))
    }

    /// Creates a set from an iterable value, adding and hashing items incrementally.
    fn from_iterable(iterable: Value, vm: &mut VM<'_>) -> RunResult<Self> {
        // hwf: `set(s)` / `frozenset(s)` of a set copies its table, as CPython.
        let copy = match &iterable {
            Value::Ref(id) => match vm.heap.get(*id) {
                HeapData::Set(s) => Some(s.0.cpython_copy(vm.heap)),
                HeapData::FrozenSet(fs) => Some(fs.storage.cpython_copy(vm.heap)),
                _ => None,
            },
            _ => None,
        };
        if let Some(copy) = copy {
            iterable.drop_with(vm);
            return Ok(Self(copy));
        }
        // hwf: `set(d)` of a dict resizes once for its size first, as
        // CPython's `set_update_internal`.
        let dict_len = match &iterable {
            Value::Ref(id) => match vm.heap.get(*id) {
                HeapData::Dict(d) => Some(d.len()),
                _ => None,
            },
            _ => None,
        };
        let iterator = iterable.into_py_iter(vm)?;
        defer_drop!(iterator, vm);
        let mut iterator = iterator.read(vm);
        let hint = iterator.iter_size_hint(vm);
        let capacity = checked_preallocation_hint(hint, mem::size_of::<SetEntry>(), &vm.heap.tracker)?;
        let mut set = Self::with_capacity(capacity);
        if let Some(n) = dict_len {
            set.0.presize_for_merge(n);
        }
        while let Some(item) = iterator.py_next(vm)? {
            set.add(item, vm)?;
        }
        Ok(set)
    }
}

impl<'h> HeapRead<'h, Set> {
    /// Adds an element to the set, transferring ownership.
    ///
    /// Returns `Ok(true)` if the element was added (not already present),
    /// `Ok(false)` if the element was already in the set (and the value is dropped).
    /// Returns `Err` if the element is unhashable (and the value is dropped).
    ///
    /// Uses the mutation-safe storage lookup ([`HeapRead::find_index`]) to
    /// detect duplicates, so a user `__eq__` mutating the set mid-add cannot
    /// leave the probe holding stale indices.
    pub fn add(&mut self, value: Value, vm: &mut VM<'h>) -> RunResult<bool> {
        let mut value_guard = DropGuard::new(value, vm);
        let (value, vm) = value_guard.as_parts();
        let hash = set_element_hash(value, vm)?;

        if self.storage().find_index(value, hash, vm)?.is_some() {
            return Ok(false);
        }

        // Add new entry
        let pyhash = crate::cpython_hash::cpython_hash(value, vm).unwrap_or(hash);
        let (value, vm) = value_guard.into_parts();
        self.get_mut(vm.heap).0.place(value, hash, pyhash);
        Ok(true)
    }

    pub(crate) fn contains(&self, value: &Value, vm: &mut VM<'h>) -> RunResult<bool> {
        self.storage().contains(value, vm)
    }

    /// `set.update(iterable)` via HeapRead.
    fn hr_update(&mut self, other: Value, vm: &mut VM<'h>) -> RunResult<()> {
        // Try direct extraction from Set/FrozenSet
        let entries_opt = {
            match &other {
                Value::Ref(id) => match vm.heap.get(*id) {
                    HeapData::Set(s) => Some(s.0.clone_entries(vm.heap)),
                    HeapData::FrozenSet(fs) => Some(fs.storage.clone_entries(vm.heap)),
                    _ => None,
                },
                _ => None,
            }
        };

        if let Some(entries) = entries_opt {
            // hwf: CPython's `set_merge`: into an empty set, a copy of the
            // other's table; else one resize up front, then its values.
            let copy = if self.get(vm.heap).0.layout.fill == 0 {
                match &other {
                    Value::Ref(id) => match vm.heap.get(*id) {
                        HeapData::Set(s) => Some(s.0.cpython_copy(vm.heap)),
                        HeapData::FrozenSet(fs) => Some(fs.storage.cpython_copy(vm.heap)),
                        _ => None,
                    },
                    _ => None,
                }
            } else {
                None
            };
            other.drop_with(vm);
            if let Some(copy) = copy {
                for (value, _, _) in entries {
                    value.drop_with(vm);
                }
                let old = mem::replace(&mut self.get_mut(vm.heap).0, copy);
                old.drop_with(vm);
                return Ok(());
            }
            self.get_mut(vm.heap).0.presize_for_merge(entries.len());
            for (value, _hash, _pyhash) in entries {
                self.add(value, vm)?;
            }
            return Ok(());
        }

        // hwf: any other iterable's values are added in its order, as
        // CPython's `set_update_internal` (after one resize for a dict).
        let dict_len = match &other {
            Value::Ref(id) => match vm.heap.get(*id) {
                HeapData::Dict(d) => Some(d.len()),
                _ => None,
            },
            _ => None,
        };
        let values = iterable_values(other, vm)?;
        if let Some(n) = dict_len {
            self.get_mut(vm.heap).0.presize_for_merge(n);
        }
        let mut rest = values.into_iter();
        while let Some(value) = rest.next() {
            if let Err(e) = self.add(value, vm) {
                for value in rest {
                    value.drop_with(vm);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// Set algebra operations (union, intersection, difference, symmetric_difference)
    /// via HeapRead. Clones self's storage once, then calls the existing `SetStorage`
    /// methods on the standalone copy.
    fn set_algebra(&self, other: Value, op: SetAlgebra, vm: &mut VM<'h>) -> RunResult<Value> {
        let result = self.storage().algebra(other, op, vm)?;

        let heap_id = vm.heap.allocate(HeapData::Set(Set(result)));
        Ok(Value::Ref(heap_id))
    }

    /// Set comparison operations (issubset, issuperset, isdisjoint) via HeapRead.
    /// Clones self's storage once for the comparison.
    fn comparison_op(&self, other: &Value, op: SetComparison, vm: &mut VM<'h>) -> RunResult<bool> {
        // Get other's storage
        let entries_opt = match other {
            Value::Ref(id) => match vm.heap.get(*id) {
                HeapData::Set(s) => Some(s.0.clone_entries(vm.heap)),
                HeapData::FrozenSet(fs) => Some(fs.storage.clone_entries(vm.heap)),
                _ => None,
            },
            _ => None,
        };

        let other_storage = if let Some(entries) = entries_opt {
            SetStorage::from_entries(entries)
        } else {
            let temp = Set::from_iterable(other.clone_with_heap(vm), vm)?;
            temp.0
        };
        defer_drop!(other_storage, vm);

        let self_storage = self.get(vm.heap).0.clone_with_heap(vm.heap);
        defer_drop!(self_storage, vm);

        match op {
            SetComparison::Subset => self_storage.is_subset(other_storage, vm),
            SetComparison::Superset => self_storage.is_superset(other_storage, vm),
            SetComparison::Disjoint => self_storage.is_disjoint(other_storage, vm),
        }
    }
}

/// hwf: `a <= b`, `a < b`, `a >= b`, `a > b` between sets and frozensets:
/// the subset order, as CPython. Equal sets are `Equal`, a proper subset is
/// `Less`, a proper superset `Greater`; two sets neither inside the other are
/// `Unordered`, so all four comparisons are `False`. `None` when either value
/// is not a set.
pub(crate) fn subset_order(a: HeapId, b: HeapId, vm: &mut VM<'_>) -> RunResult<Option<super::CmpOrder>> {
    fn storage(id: HeapId, vm: &VM<'_>) -> Option<SetStorage> {
        match vm.heap.get(id) {
            HeapData::Set(s) => Some(SetStorage::from_entries(s.0.clone_entries(vm.heap))),
            HeapData::FrozenSet(fs) => Some(SetStorage::from_entries(fs.storage.clone_entries(vm.heap))),
            _ => None,
        }
    }
    let Some(a) = storage(a, vm) else {
        return Ok(None);
    };
    defer_drop!(a, vm);
    let Some(b) = storage(b, vm) else {
        return Ok(None);
    };
    defer_drop!(b, vm);
    let order = match a.len().cmp(&b.len()) {
        std::cmp::Ordering::Greater if b.is_subset(a, vm)? => std::cmp::Ordering::Greater,
        std::cmp::Ordering::Greater => return Ok(Some(super::CmpOrder::Unordered)),
        ord if a.is_subset(b, vm)? => ord,
        _ => return Ok(Some(super::CmpOrder::Unordered)),
    };
    Ok(Some(super::CmpOrder::Ordered(order)))
}

/// hwf: whether `value` is a set or frozenset (CPython's `PyAnySet_Check`).
fn is_set_or_frozenset(value: &Value, vm: &VM<'_>) -> bool {
    matches!(value, Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::Set(_) | HeapData::FrozenSet(_)))
}

/// hwf: the values of an iterable, in its iteration order (a dict's keys in
/// insertion order). Consumes `value`.
fn iterable_values(value: Value, vm: &mut VM<'_>) -> RunResult<Vec<Value>> {
    let iterator = value.into_py_iter(vm)?;
    defer_drop!(iterator, vm);
    let mut iterator = iterator.read(vm);
    let mut out = Vec::new();
    loop {
        match iterator.py_next(vm) {
            Ok(Some(item)) => out.push(item),
            Ok(None) => return Ok(out),
            Err(e) => {
                out.drop_with(vm);
                return Err(e);
            }
        }
    }
}

/// hwf: the values an in-place set update walks, in CPython's order: a
/// dict's keys in insertion order, a set's or frozenset's in its table order,
/// any other iterable's as `set(iterable)` orders them (its errors:
/// not iterable, unhashable). Consumes `other`.
fn update_operand_values(other: Value, vm: &mut VM<'_>) -> RunResult<Vec<Value>> {
    let dict_keys = match &other {
        Value::Ref(id) => match vm.heap.get(*id) {
            HeapData::Dict(d) => Some(d.iter().map(|(k, _)| k.clone_with_heap(vm.heap)).collect::<Vec<_>>()),
            _ => None,
        },
        _ => None,
    };
    if let Some(keys) = dict_keys {
        other.drop_with(vm);
        return Ok(keys);
    }
    let storage = Set::get_storage_from_value(other, vm)?;
    let mut entries = storage.entries;
    entries.sort_unstable_by_key(|e| e.slot);
    Ok(entries.into_iter().map(|e| e.value).collect())
}

/// hwf: `set.union(*others)`, `intersection(*others)` and
/// `difference(*others)` take any number of iterables, as in CPython: the
/// operation is applied to `start` (a copy of the receiver) with each in
/// turn, left to right. Every value of `others` is consumed, also on error.
fn set_algebra_fold(start: SetStorage, others: Vec<Value>, op: SetAlgebra, vm: &mut VM<'_>) -> RunResult<SetStorage> {
    let mut acc = start;
    let mut rest = others.into_iter();
    while let Some(other) = rest.next() {
        let step = vm.heap.protect(&acc).algebra(other, op, vm);
        match step {
            Ok(next) => {
                let old = mem::replace(&mut acc, next);
                old.drop_with(vm);
            }
            Err(e) => {
                acc.drop_with(vm);
                for value in rest {
                    value.drop_with(vm);
                }
                return Err(e);
            }
        }
    }
    Ok(acc)
}

/// Which set algebra operation to perform.
#[derive(Debug, Clone, Copy)]
enum SetAlgebra {
    Union,
    Intersection,
    Difference,
    SymmetricDifference,
}

/// Which set comparison operation to perform.
#[derive(Debug, Clone, Copy)]
enum SetComparison {
    Subset,
    Superset,
    Disjoint,
}

impl<C: ContainsHeap> DropWithContext<C> for Set {
    fn drop_with(self, heap: &mut C) {
        self.0.drop_with(heap);
    }
}

impl<C: ContainsHeap> DropWithContext<C> for SetStorage {
    fn drop_with(self, heap: &mut C) {
        self.entries.drop_with(heap);
    }
}

impl<C: ContainsHeap> DropWithContext<C> for FrozenSet {
    fn drop_with(self, heap: &mut C) {
        self.storage.drop_with(heap);
    }
}

impl<'h> HeapRead<'h, FrozenSet> {
    /// Checks if the frozenset contains a value, using the candidate collection pattern
    /// to avoid holding a borrow on the storage during `py_eq` calls.
    pub(crate) fn contains(&self, value: &Value, vm: &mut VM<'h>) -> RunResult<bool> {
        self.storage().contains(value, vm)
    }

    /// Binary set operation via HeapRead. Creates a new frozenset from the result.
    ///
    /// Clones self's storage entries to release the heap borrow before calling
    /// the set operations (which need `&mut VM` for hashing and equality checks).
    /// Applies set sub when the other value is a set operand.
    fn sub_value(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<FrozenSet>> {
        let Some(other_storage) = get_storage_from_set_operand(other, vm)? else {
            return Ok(None);
        };
        defer_drop!(other_storage, vm);
        let other_storage = vm.heap.protect(other_storage);
        Ok(Some(FrozenSet::wrap(self.storage().difference(&other_storage, vm)?)))
    }

    /// Applies set and when the other value is a set operand.
    fn and_value(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<FrozenSet>> {
        let Some(other_storage) = get_storage_from_set_operand(other, vm)? else {
            return Ok(None);
        };
        defer_drop!(other_storage, vm);
        let other_storage = vm.heap.protect(other_storage);
        Ok(Some(FrozenSet::wrap(self.storage().intersection(&other_storage, vm)?)))
    }

    /// Applies set or when the other value is a set operand.
    fn or_value(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<FrozenSet>> {
        let Some(other_storage) = get_storage_from_set_operand(other, vm)? else {
            return Ok(None);
        };
        defer_drop!(other_storage, vm);
        let other_storage = vm.heap.protect(other_storage);
        Ok(Some(FrozenSet::wrap(self.storage().union(&other_storage, vm)?)))
    }

    /// Applies set xor when the other value is a set operand.
    fn xor_value(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<FrozenSet>> {
        let Some(other_storage) = get_storage_from_set_operand(other, vm)? else {
            return Ok(None);
        };
        defer_drop!(other_storage, vm);
        let other_storage = vm.heap.protect(other_storage);
        Ok(Some(FrozenSet::wrap(
            self.storage().symmetric_difference(&other_storage, vm)?,
        )))
    }

    /// Set algebra operations for frozenset via HeapRead.
    fn set_algebra(&self, other: Value, op: SetAlgebra, vm: &mut VM<'h>) -> RunResult<Value> {
        let result = self.storage().algebra(other, op, vm)?;

        let heap_id = vm.heap.allocate(HeapData::FrozenSet(FrozenSet::wrap(result)));
        Ok(Value::Ref(heap_id))
    }

    /// Set comparison operations for frozenset via HeapRead.
    fn comparison_op(&self, other: &Value, op: SetComparison, vm: &mut VM<'h>) -> RunResult<bool> {
        let entries_opt = match other {
            Value::Ref(id) => match vm.heap.get(*id) {
                HeapData::Set(s) => Some(s.0.clone_entries(vm.heap)),
                HeapData::FrozenSet(fs) => Some(fs.storage.clone_entries(vm.heap)),
                _ => None,
            },
            _ => None,
        };

        let other_storage = if let Some(entries) = entries_opt {
            SetStorage::from_entries(entries)
        } else {
            let temp = Set::from_iterable(other.clone_with_heap(vm), vm)?;
            temp.0
        };
        defer_drop!(other_storage, vm);

        let self_storage = self.get(vm.heap).storage.clone_with_heap(vm.heap);
        defer_drop!(self_storage, vm);

        match op {
            SetComparison::Subset => self_storage.is_subset(other_storage, vm),
            SetComparison::Superset => self_storage.is_superset(other_storage, vm),
            SetComparison::Disjoint => self_storage.is_disjoint(other_storage, vm),
        }
    }

    fn storage(&self) -> BorrowedHeapRead<'_, 'h, SetStorage> {
        heap_read_ref_as_field!(self, FrozenSet, storage)
    }
}

impl<C: ContainsHeap> DropWithContext<C> for SetEntry {
    fn drop_with(self, heap: &mut C) {
        self.value.drop_with(heap);
    }
}

impl<'h> PyTrait<'h> for HeapObjectRead<'h, Set> {
    fn py_is_iterable(&self, _vm: &VM<'h>) -> bool {
        true
    }

    fn py_contains_impl(&self, item: &Value, vm: &mut VM<'h>) -> RunResult<Option<bool>> {
        self.contains(item, vm).map(Some)
    }

    fn py_type(&self, _vm: &VM<'h>) -> Type {
        Type::Set
    }

    fn py_iter(&self, vm: &mut VM<'h>) -> RunResult<Value> {
        Ok(SetIterator::from_set(self.id(), self.get(vm.heap).len(), vm))
    }

    fn py_len(&self, vm: &VM<'h>) -> Option<usize> {
        Some(self.get(vm.heap).len())
    }

    fn py_eq_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<bool>> {
        // `set` and `frozenset` compare equal by their members, regardless of
        // mutability. `set == dict_keys`/`dict_items` is handled by the reflected
        // pass via the dict-view impls.
        match other.read_heap(vm) {
            Some(HeapReadOutput::Set(other)) => Ok(Some(self.storage().eq(&other.storage(), vm)?)),
            Some(HeapReadOutput::FrozenSet(other)) => Ok(Some(self.storage().eq(&other.storage(), vm)?)),
            _ => Ok(None),
        }
    }

    fn py_bool(&self, vm: &mut VM<'h>) -> RunResult<bool> {
        Ok(!self.get(vm.heap).is_empty())
    }

    fn py_sub_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(result) = self.sub_value(other, vm)? else {
            return Ok(None);
        };
        let result_id = vm.heap.allocate(HeapData::Set(result));
        Ok(Some(Value::Ref(result_id)))
    }

    fn py_and_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(result) = self.and_value(other, vm)? else {
            return Ok(None);
        };
        let result_id = vm.heap.allocate(HeapData::Set(result));
        Ok(Some(Value::Ref(result_id)))
    }

    fn py_or_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(result) = self.or_value(other, vm)? else {
            return Ok(None);
        };
        let result_id = vm.heap.allocate(HeapData::Set(result));
        Ok(Some(Value::Ref(result_id)))
    }

    fn py_xor_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(result) = self.xor_value(other, vm)? else {
            return Ok(None);
        };
        let result_id = vm.heap.allocate(HeapData::Set(result));
        Ok(Some(Value::Ref(result_id)))
    }

    fn py_repr_fmt(&self, f: &mut impl Write, vm: &mut VM<'h>, heap_ids: &mut LazyHeapSet) -> RunResult<()> {
        self.storage().repr_fmt(f, vm, heap_ids, "set")
    }

    /// hwf: `s -= t` in place, as CPython's `set_isub` (a set or frozenset
    /// operand only; anything else falls back to binary `-`).
    fn py_isub_impl(&mut self, other: &Value, vm: &mut VM<'h>) -> RunResult<bool> {
        if !is_set_or_frozenset(other, vm) {
            return Ok(false);
        }
        self.difference_update_one(other.clone_with_heap(vm), vm)?;
        Ok(true)
    }

    /// hwf: `s &= t` in place, as CPython's `set_iand`.
    fn py_iand_impl(&mut self, other: &Value, vm: &mut VM<'h>) -> RunResult<bool> {
        if !is_set_or_frozenset(other, vm) {
            return Ok(false);
        }
        self.intersection_update(vec![other.clone_with_heap(vm)], vm)?;
        Ok(true)
    }

    /// hwf: `s |= t` in place, as CPython's `set_ior`.
    fn py_ior_impl(&mut self, other: &Value, vm: &mut VM<'h>) -> RunResult<bool> {
        if !is_set_or_frozenset(other, vm) {
            return Ok(false);
        }
        self.hr_update(other.clone_with_heap(vm), vm)?;
        Ok(true)
    }

    /// hwf: `s ^= t` in place, as CPython's `set_ixor` (another name for
    /// the set sees the change).
    fn py_ixor_impl(&mut self, other: &Value, vm: &mut VM<'h>) -> RunResult<bool> {
        if !is_set_or_frozenset(other, vm) {
            return Ok(false);
        }
        self.symmetric_difference_update(other.clone_with_heap(vm), vm)?;
        Ok(true)
    }

    fn py_call_attr(&mut self, vm: &mut VM<'h>, attr: &EitherStr, args: ArgValues) -> RunResult<CallResult> {
        let value = match attr.static_string() {
            Some(StaticStrings::Add) => {
                let value = args.get_one_arg("set.add", vm.heap)?;
                self.add(value, vm)?;
                Ok(Value::None)
            }
            Some(StaticStrings::Remove) => {
                let value = args.get_one_arg("set.remove", vm.heap)?;
                defer_drop!(value, vm);
                self.remove(value, vm)?;
                Ok(Value::None)
            }
            Some(StaticStrings::Discard) => {
                let value = args.get_one_arg("set.discard", vm.heap)?;
                defer_drop!(value, vm);
                self.discard(value, vm)?;
                Ok(Value::None)
            }
            Some(StaticStrings::Pop) => {
                args.check_zero_args("set.pop", vm.heap)?;
                self.pop(vm)
            }
            Some(StaticStrings::Clear) => {
                args.check_zero_args("set.clear", vm.heap)?;
                self.clear(vm);
                Ok(Value::None)
            }
            Some(StaticStrings::Copy) => {
                args.check_zero_args("set.copy", vm.heap)?;
                let copy = self.copy(vm);
                let heap_id = vm.heap.allocate(HeapData::Set(copy));
                Ok(Value::Ref(heap_id))
            }
            Some(StaticStrings::Update) => {
                // hwf: any number of iterables, as in CPython.
                let mut others = args.into_pos_only("set.update", vm.heap)?;
                while let Some(other) = others.next() {
                    if let Err(e) = self.hr_update(other, vm) {
                        for value in others {
                            value.drop_with(vm);
                        }
                        return Err(e);
                    }
                }
                Ok(Value::None)
            }
            Some(StaticStrings::Union) => {
                // hwf: any number of iterables, as in CPython.
                let mut others: Vec<Value> = args.into_pos_only("set.union", vm.heap)?.collect();
                if others.len() == 1
                    && let Some(other) = others.pop()
                {
                    self.set_algebra(other, SetAlgebra::Union, vm)
                } else {
                    let start = self.storage().get(vm.heap).cpython_copy(vm.heap);
                    let result = set_algebra_fold(start, others, SetAlgebra::Union, vm)?;
                    Ok(Value::Ref(vm.heap.allocate(HeapData::Set(Set(result)))))
                }
            }
            Some(StaticStrings::Intersection) => {
                // hwf: any number of iterables, as in CPython.
                let mut others: Vec<Value> = args.into_pos_only("set.intersection", vm.heap)?.collect();
                if others.len() == 1
                    && let Some(other) = others.pop()
                {
                    self.set_algebra(other, SetAlgebra::Intersection, vm)
                } else {
                    let start = self.storage().get(vm.heap).cpython_copy(vm.heap);
                    let result = set_algebra_fold(start, others, SetAlgebra::Intersection, vm)?;
                    Ok(Value::Ref(vm.heap.allocate(HeapData::Set(Set(result)))))
                }
            }
            Some(StaticStrings::Difference) => {
                // hwf: any number of iterables, as in CPython.
                let mut others: Vec<Value> = args.into_pos_only("set.difference", vm.heap)?.collect();
                if others.len() == 1
                    && let Some(other) = others.pop()
                {
                    self.set_algebra(other, SetAlgebra::Difference, vm)
                } else {
                    let start = self.storage().get(vm.heap).cpython_copy(vm.heap);
                    let result = set_algebra_fold(start, others, SetAlgebra::Difference, vm)?;
                    Ok(Value::Ref(vm.heap.allocate(HeapData::Set(Set(result)))))
                }
            }
            Some(StaticStrings::SymmetricDifference) => {
                let other = args.get_one_arg("set.symmetric_difference", vm.heap)?;
                self.set_algebra(other, SetAlgebra::SymmetricDifference, vm)
            }
            Some(StaticStrings::Issubset) => {
                let other = args.get_one_arg("set.issubset", vm.heap)?;
                defer_drop!(other, vm);
                Ok(Value::Bool(self.comparison_op(other, SetComparison::Subset, vm)?))
            }
            Some(StaticStrings::Issuperset) => {
                let other = args.get_one_arg("set.issuperset", vm.heap)?;
                defer_drop!(other, vm);
                Ok(Value::Bool(self.comparison_op(other, SetComparison::Superset, vm)?))
            }
            Some(StaticStrings::Isdisjoint) => {
                let other = args.get_one_arg("set.isdisjoint", vm.heap)?;
                defer_drop!(other, vm);
                Ok(Value::Bool(self.comparison_op(other, SetComparison::Disjoint, vm)?))
            }
            _ => match attr.as_str(vm.interns) {
                // hwf: the in-place updates, as CPython.
                "difference_update" => {
                    let others: Vec<Value> = args.into_pos_only("set.difference_update", vm.heap)?.collect();
                    self.difference_update(others, vm).map(|()| Value::None)
                }
                "intersection_update" => {
                    let others: Vec<Value> = args.into_pos_only("set.intersection_update", vm.heap)?.collect();
                    self.intersection_update(others, vm).map(|()| Value::None)
                }
                "symmetric_difference_update" => {
                    let other = args.get_one_arg("set.symmetric_difference_update", vm.heap)?;
                    self.symmetric_difference_update(other, vm).map(|()| Value::None)
                }
                name => {
                    let err = ExcType::attribute_error(Type::Set, name);
                    args.drop_with(vm);
                    return Err(err);
                }
            },
        };
        value.map(CallResult::Value)
    }
}

/// Helper methods for set operations with arbitrary iterables.
impl<'h> HeapRead<'h, Set> {
    /// Implements operator-form set algebra, which only accepts set/frozenset operands.
    ///
    /// Unlike method forms such as `set.union(iterable)`, the binary operators
    /// `& | ^ -` are intentionally strict and return `None` for operands outside
    /// the set-like values CPython accepts here (`set`, `frozenset`,
    /// `dict_keys`, and `dict_items`) so the VM can raise the standard
    /// unsupported-operands `TypeError`.
    /// Applies set sub when the other value is a set operand.
    fn sub_value(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Set>> {
        let Some(other_storage) = get_storage_from_set_operand(other, vm)? else {
            return Ok(None);
        };
        defer_drop!(other_storage, vm);
        let other_storage = vm.heap.protect(other_storage);
        Ok(Some(Set(self.storage().difference(&other_storage, vm)?)))
    }

    /// Applies set and when the other value is a set operand.
    fn and_value(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Set>> {
        let Some(other_storage) = get_storage_from_set_operand(other, vm)? else {
            return Ok(None);
        };
        defer_drop!(other_storage, vm);
        let other_storage = vm.heap.protect(other_storage);
        Ok(Some(Set(self.storage().intersection(&other_storage, vm)?)))
    }

    /// Applies set or when the other value is a set operand.
    fn or_value(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Set>> {
        let Some(other_storage) = get_storage_from_set_operand(other, vm)? else {
            return Ok(None);
        };
        defer_drop!(other_storage, vm);
        let other_storage = vm.heap.protect(other_storage);
        Ok(Some(Set(self.storage().union(&other_storage, vm)?)))
    }

    /// Applies set xor when the other value is a set operand.
    fn xor_value(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Set>> {
        let Some(other_storage) = get_storage_from_set_operand(other, vm)? else {
            return Ok(None);
        };
        defer_drop!(other_storage, vm);
        let other_storage = vm.heap.protect(other_storage);
        Ok(Some(Set(self.storage().symmetric_difference(&other_storage, vm)?)))
    }
}

impl Set {
    /// Helper to get SetStorage from a Value (either directly or by conversion).
    fn get_storage_from_value(value: Value, vm: &mut VM<'_>) -> RunResult<SetStorage> {
        // Try to get entries from a Set/FrozenSet directly
        // hwf: an exact clone (its CPython table too: a symmetric
        // difference starts from a copy of it).
        let storage_opt = match &value {
            Value::Ref(id) => match vm.heap.get(*id) {
                HeapData::Set(set) => Some(set.0.clone_with_heap(vm.heap)),
                HeapData::FrozenSet(set) => Some(set.storage.clone_with_heap(vm.heap)),
                _ => None,
            },
            _ => None,
        };

        if let Some(storage) = storage_opt {
            value.drop_with(vm);
            return Ok(storage);
        }

        // Convert iterable to set
        let temp_set = Self::from_iterable(value, vm)?;
        Ok(temp_set.0)
    }
}

impl HeapItem for Set {
    fn py_dec_ref_ids(&mut self, stack: &mut Vec<HeapId>) {
        self.0.collect_dec_ref_ids(stack);
    }
}

/// Python frozenset type - immutable, unordered collection of unique hashable elements.
///
/// FrozenSets support the same set algebra operations as sets (union, intersection,
/// difference, symmetric difference) but are immutable and therefore hashable.
///
/// # Hashability
/// Unlike mutable sets, frozensets can be used as dict keys or set elements because
/// they are immutable. The hash is computed as the XOR of element hashes (order-independent).
#[derive(Debug, Default)]
pub(crate) struct FrozenSet {
    storage: SetStorage,
    /// Lazily-computed Python hash.
    cached_hash: Cell<Option<HashValue>>,
}

impl FrozenSet {
    /// Wraps an existing `SetStorage` as a frozenset.
    ///
    /// The freshly-wrapped frozenset starts with an empty hash cache; the
    /// hash is computed lazily on first `py_hash` call. Inherited cache
    /// state is *not* propagated from a source frozenset — each instance
    /// manages its own cache.
    #[must_use]
    pub fn wrap(storage: SetStorage) -> Self {
        Self {
            storage,
            cached_hash: Cell::new(None),
        }
    }

    /// Creates a new empty frozenset.
    #[must_use]
    pub fn new() -> Self {
        Self::wrap(SetStorage::new())
    }

    /// Returns the number of elements in the frozenset.
    #[must_use]
    pub fn len(&self) -> usize {
        self.storage.len()
    }

    /// Returns true if the frozenset is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.storage.is_empty()
    }

    /// Returns the internal storage.
    pub(crate) fn storage(&self) -> &SetStorage {
        &self.storage
    }
}

impl FrozenSet {
    /// Creates a frozenset from a Set, consuming the Set's storage.
    ///
    /// This is used when we need to convert a mutable set to an immutable frozenset
    /// without cloning.
    pub fn from_set(set: Set) -> Self {
        Self::wrap(set.0)
    }

    /// Creates a frozenset from the `frozenset()` constructor call.
    ///
    /// - `frozenset()` with no args returns an empty frozenset
    /// - `frozenset(iterable)` creates a frozenset from any iterable (list, tuple, set, dict, range, str, bytes)
    pub fn init(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
        let value = args.get_zero_one_arg("frozenset", vm.heap)?;
        let frozenset = match value {
            None => Self::new(),
            Some(v) => Self::from_set(Set::from_iterable(v, vm)?),
        };
        let heap_id = vm.heap.allocate(HeapData::FrozenSet(frozenset));
        Ok(Value::Ref(heap_id))
    }
}

impl<'h> PyTrait<'h> for HeapObjectRead<'h, FrozenSet> {
    fn py_is_iterable(&self, _vm: &VM<'h>) -> bool {
        true
    }

    fn py_contains_impl(&self, item: &Value, vm: &mut VM<'h>) -> RunResult<Option<bool>> {
        self.contains(item, vm).map(Some)
    }

    fn py_type(&self, _vm: &VM<'h>) -> Type {
        Type::FrozenSet
    }

    fn py_iter(&self, vm: &mut VM<'h>) -> RunResult<Value> {
        Ok(SetIterator::from_frozen_set(self.id(), self.get(vm.heap).len(), vm))
    }

    fn py_len(&self, vm: &VM<'h>) -> Option<usize> {
        Some(self.get(vm.heap).len())
    }

    fn py_eq_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<bool>> {
        // `frozenset` and `set` compare equal by their members, regardless of
        // mutability. `frozenset == dict_keys`/`dict_items` is handled by the
        // reflected pass via the dict-view impls.
        match other.read_heap(vm) {
            Some(HeapReadOutput::FrozenSet(other)) => Ok(Some(self.storage().eq(&other.storage(), vm)?)),
            Some(HeapReadOutput::Set(other)) => Ok(Some(self.storage().eq(&other.storage(), vm)?)),
            _ => Ok(None),
        }
    }

    /// Hashes the frozenset by XORing all element hashes.
    ///
    /// XOR is commutative, so the hash is independent of insertion order — two
    /// frozensets with the same members hash equally regardless of how they were built.
    /// Caches the computed hash on first call (frozensets are immutable).
    fn py_hash(&self, vm: &mut VM<'h>) -> RunResult<Option<HashValue>> {
        if let Some(cached) = self.get(vm.heap).cached_hash.get() {
            return Ok(Some(cached));
        }
        let mut hash: u64 = 0;
        let storage = self.storage();
        let iter = storage.iter(vm)?;
        defer_drop_mut!(iter, vm);
        while let Some(item) = iter.next(vm)? {
            hash ^= set_element_hash(item, vm)?;
        }
        let hash = HashValue::new(hash);
        self.get(vm.heap).cached_hash.set(Some(hash));
        Ok(Some(hash))
    }

    fn py_bool(&self, vm: &mut VM<'h>) -> RunResult<bool> {
        Ok(!self.get(vm.heap).is_empty())
    }

    fn py_sub_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(result) = self.sub_value(other, vm)? else {
            return Ok(None);
        };
        let result_id = vm.heap.allocate(HeapData::FrozenSet(result));
        Ok(Some(Value::Ref(result_id)))
    }

    fn py_and_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(result) = self.and_value(other, vm)? else {
            return Ok(None);
        };
        let result_id = vm.heap.allocate(HeapData::FrozenSet(result));
        Ok(Some(Value::Ref(result_id)))
    }

    fn py_or_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(result) = self.or_value(other, vm)? else {
            return Ok(None);
        };
        let result_id = vm.heap.allocate(HeapData::FrozenSet(result));
        Ok(Some(Value::Ref(result_id)))
    }

    fn py_xor_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(result) = self.xor_value(other, vm)? else {
            return Ok(None);
        };
        let result_id = vm.heap.allocate(HeapData::FrozenSet(result));
        Ok(Some(Value::Ref(result_id)))
    }

    fn py_repr_fmt(&self, f: &mut impl Write, vm: &mut VM<'h>, heap_ids: &mut LazyHeapSet) -> RunResult<()> {
        self.storage().repr_fmt(f, vm, heap_ids, "frozenset")
    }

    fn py_call_attr(&mut self, vm: &mut VM<'h>, attr: &EitherStr, args: ArgValues) -> RunResult<CallResult> {
        let value = match attr.static_string() {
            Some(StaticStrings::Copy) => {
                args.check_zero_args("frozenset.copy", vm.heap)?;
                let cloned = self.get(vm.heap).storage.clone_with_heap(vm.heap);
                let heap_id = vm.heap.allocate(HeapData::FrozenSet(FrozenSet::wrap(cloned)));
                Ok(Value::Ref(heap_id))
            }
            Some(StaticStrings::Union) => {
                // hwf: any number of iterables, as in CPython.
                let mut others: Vec<Value> = args.into_pos_only("frozenset.union", vm.heap)?.collect();
                if others.len() == 1
                    && let Some(other) = others.pop()
                {
                    self.set_algebra(other, SetAlgebra::Union, vm)
                } else {
                    let start = self.storage().get(vm.heap).cpython_copy(vm.heap);
                    let result = set_algebra_fold(start, others, SetAlgebra::Union, vm)?;
                    Ok(Value::Ref(
                        vm.heap.allocate(HeapData::FrozenSet(FrozenSet::wrap(result))),
                    ))
                }
            }
            Some(StaticStrings::Intersection) => {
                // hwf: any number of iterables, as in CPython.
                let mut others: Vec<Value> = args.into_pos_only("frozenset.intersection", vm.heap)?.collect();
                if others.len() == 1
                    && let Some(other) = others.pop()
                {
                    self.set_algebra(other, SetAlgebra::Intersection, vm)
                } else {
                    let start = self.storage().get(vm.heap).cpython_copy(vm.heap);
                    let result = set_algebra_fold(start, others, SetAlgebra::Intersection, vm)?;
                    Ok(Value::Ref(
                        vm.heap.allocate(HeapData::FrozenSet(FrozenSet::wrap(result))),
                    ))
                }
            }
            Some(StaticStrings::Difference) => {
                // hwf: any number of iterables, as in CPython.
                let mut others: Vec<Value> = args.into_pos_only("frozenset.difference", vm.heap)?.collect();
                if others.len() == 1
                    && let Some(other) = others.pop()
                {
                    self.set_algebra(other, SetAlgebra::Difference, vm)
                } else {
                    let start = self.storage().get(vm.heap).cpython_copy(vm.heap);
                    let result = set_algebra_fold(start, others, SetAlgebra::Difference, vm)?;
                    Ok(Value::Ref(
                        vm.heap.allocate(HeapData::FrozenSet(FrozenSet::wrap(result))),
                    ))
                }
            }
            Some(StaticStrings::SymmetricDifference) => {
                let other = args.get_one_arg("frozenset.symmetric_difference", vm.heap)?;
                self.set_algebra(other, SetAlgebra::SymmetricDifference, vm)
            }
            Some(StaticStrings::Issubset) => {
                let other = args.get_one_arg("frozenset.issubset", vm.heap)?;
                defer_drop!(other, vm);
                Ok(Value::Bool(self.comparison_op(other, SetComparison::Subset, vm)?))
            }
            Some(StaticStrings::Issuperset) => {
                let other = args.get_one_arg("frozenset.issuperset", vm.heap)?;
                defer_drop!(other, vm);
                Ok(Value::Bool(self.comparison_op(other, SetComparison::Superset, vm)?))
            }
            Some(StaticStrings::Isdisjoint) => {
                let other = args.get_one_arg("frozenset.isdisjoint", vm.heap)?;
                defer_drop!(other, vm);
                Ok(Value::Bool(self.comparison_op(other, SetComparison::Disjoint, vm)?))
            }
            _ => {
                args.drop_with(vm);
                return Err(ExcType::attribute_error(Type::FrozenSet, attr.as_str(vm.interns)));
            }
        };
        value.map(CallResult::Value)
    }
}

impl HeapItem for FrozenSet {
    fn py_dec_ref_ids(&mut self, stack: &mut Vec<HeapId>) {
        self.storage.collect_dec_ref_ids(stack);
    }
}

/// Returns temporary set storage only for operator-valid set operands.
///
/// This is stricter than `Set::get_storage_from_value(...)`: operator forms
/// only accept CPython's set-like operands (`set`, `frozenset`, `dict_keys`,
/// and `dict_items`), while method forms accept any iterable.
fn get_storage_from_set_operand(value: &Value, vm: &mut VM<'_>) -> RunResult<Option<SetStorage>> {
    let Value::Ref(id) = value else {
        return Ok(None);
    };

    match vm.heap.read(*id) {
        HeapReadOutput::Set(set) => Ok(Some(SetStorage::from_entries(
            set.get(vm.heap).0.clone_entries(vm.heap),
        ))),
        HeapReadOutput::FrozenSet(set) => Ok(Some(SetStorage::from_entries(
            set.get(vm.heap).storage.clone_entries(vm.heap),
        ))),
        HeapReadOutput::DictKeysView(view) => {
            let Set(storage) = view.to_set(vm)?;
            Ok(Some(storage))
        }
        HeapReadOutput::DictItemsView(view) => {
            let Set(storage) = view.to_set(vm)?;
            Ok(Some(storage))
        }
        _ => Ok(None),
    }
}

// Custom serde implementations for SetStorage, Set, and FrozenSet.
// Only serialize entries; rebuild the indices hash table on deserialize.

impl serde::Serialize for SetStorage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // hwf: the entries in CPython's order, with its table size and finger
        // (its dummies are dropped).
        let entries: Vec<&SetEntry> = self.ordered().collect();
        (entries, self.layout.table.len(), self.layout.finger).serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for SetStorage {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (entries, size, finger): (Vec<SetEntry>, usize, usize) = serde::Deserialize::deserialize(deserializer)?;
        // Rebuild the indices hash table and the slot states from the entries
        let size = size.max(SET_MINSIZE).next_power_of_two();
        if entries.iter().any(|e| e.slot as usize >= size) {
            return Err(serde::de::Error::custom("set entry outside its table"));
        }
        let mut layout = SetLayout {
            table: vec![EMPTY; size],
            fill: entries.len(),
            finger,
            cursor: Cell::default(),
        };
        for (index, e) in entries.iter().enumerate() {
            let cell = &mut layout.table[e.slot as usize];
            if *cell != EMPTY {
                return Err(serde::de::Error::custom("two set entries in one slot"));
            }
            *cell = cell_of(index);
        }
        let mut storage = Self {
            indices: PyHashTable::with_capacity(entries.len()),
            entries,
            layout: Box::new(layout),
        };
        storage.reindex();
        Ok(storage)
    }
}

impl serde::Serialize for Set {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for Set {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Self(SetStorage::deserialize(deserializer)?))
    }
}

impl serde::Serialize for FrozenSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Skip `cached_hash` — it's recomputable from the entries and we
        // don't want to lock the snapshot format to the current hash function.
        self.storage.serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for FrozenSet {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Self::wrap(SetStorage::deserialize(deserializer)?))
    }
}

/// Set-like source retained by a set iterator.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
enum SetIteratorSource {
    Set(HeapId),
    FrozenSet(HeapId),
}

/// Iterator over set or frozen-set storage.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct SetIterator {
    source: SetIteratorSource,
    /// Values yielded so far.
    index: usize,
    expected_len: usize,
    /// hwf: the slot of CPython's table the walk resumes at (CPython's
    /// `si_pos`); not dumped: a loaded iterator finds it again from `index`
    /// ([`SLOT_FROM_INDEX`]).
    #[serde(skip, default = "slot_from_index")]
    slot: usize,
}

/// hwf: [`SetIterator::slot`] still to be found from its `index`.
const SLOT_FROM_INDEX: usize = usize::MAX;

/// The [`SetIterator::slot`] of a loaded iterator.
fn slot_from_index() -> usize {
    SLOT_FROM_INDEX
}

impl SetIterator {
    /// Allocates an iterator retaining a mutable set.
    fn from_set(id: HeapId, expected_len: usize, vm: &mut VM<'_>) -> Value {
        Self::allocate(SetIteratorSource::Set(id), expected_len, vm)
    }

    /// Allocates an iterator retaining a frozen set.
    fn from_frozen_set(id: HeapId, expected_len: usize, vm: &mut VM<'_>) -> Value {
        Self::allocate(SetIteratorSource::FrozenSet(id), expected_len, vm)
    }

    /// Returns the retained set-like source id for GC tracing.
    pub(crate) fn source_id(&self) -> HeapId {
        match self.source {
            SetIteratorSource::Set(id) | SetIteratorSource::FrozenSet(id) => id,
        }
    }

    /// Returns the captured number of values not yet yielded.
    pub(crate) fn size_hint(&self) -> usize {
        self.expected_len.saturating_sub(self.index)
    }

    /// Allocates an iterator and retains its source.
    fn allocate(source: SetIteratorSource, expected_len: usize, vm: &mut VM<'_>) -> Value {
        let source_id = match source {
            SetIteratorSource::Set(id) | SetIteratorSource::FrozenSet(id) => id,
        };
        let id = vm.heap.allocate(HeapData::SetIterator(Self {
            source,
            index: 0,
            expected_len,
            slot: 0,
        }));
        vm.heap.inc_ref(source_id);
        Value::Ref(id)
    }
}

impl HeapItem for SetIterator {
    fn py_dec_ref_ids(&mut self, stack: &mut Vec<HeapId>) {
        stack.push(self.source_id());
    }
}

impl<'h> PyTrait<'h> for HeapObjectRead<'h, SetIterator> {
    fn py_is_iterable(&self, _: &VM<'h>) -> bool {
        true
    }

    fn py_type(&self, _: &VM<'h>) -> Type {
        Type::SetIterator
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
        let (source_id, index, slot, expected_len, mutable) = {
            let iter = self.get(vm.heap);
            (
                iter.source_id(),
                iter.index,
                iter.slot,
                iter.expected_len,
                matches!(iter.source, SetIteratorSource::Set(_)),
            )
        };
        let storage = match vm.heap.get(source_id) {
            HeapData::Set(set) => {
                if mutable && set.len() != expected_len {
                    return Err(ExcType::runtime_error_set_changed_size());
                }
                set.storage()
            }
            HeapData::FrozenSet(set) => set.storage(),
            _ => unreachable!("set iterator must retain set-like storage"),
        };
        // hwf: CPython's `setiter_iternext`: the next live slot.
        let from = if slot == SLOT_FROM_INDEX {
            storage.slot_after(index)
        } else {
            slot
        };
        let item = storage
            .live_from(from)
            .map(|(at, entry)| (at, entry.value.clone_with_heap(vm.heap)));
        let iter = self.get_mut(vm.heap);
        Ok(match item {
            Some((at, value)) => {
                iter.index += 1;
                iter.slot = at + 1;
                Some(value)
            }
            None => {
                iter.slot = from;
                None
            }
        })
    }
}

fn set_element_hash(value: &Value, vm: &mut VM<'_>) -> RunResult<u64> {
    if let Some(hash) = value.py_hash(vm)? {
        Ok(hash.raw())
    } else {
        let element_type = value.py_type_name(vm).into_owned();
        let unhashable_type = unhashable_type_name(value, vm)?;
        Err(ExcType::type_error_unhashable_set_element(
            &element_type,
            &unhashable_type,
        ))
    }
}

/// Finds the nested value responsible for a tuple-like element being unhashable.
fn unhashable_type_name(value: &Value, vm: &mut VM<'_>) -> RunResult<String> {
    let Value::Ref(id) = value else {
        return Ok(value.py_type_name(vm).into_owned());
    };
    let len = match vm.heap.get(*id) {
        HeapData::Tuple(tuple) => tuple.as_slice().len(),
        HeapData::NamedTuple(namedtuple) => namedtuple.as_vec().len(),
        _ => return Ok(value.py_type_name(vm).into_owned()),
    };

    for index in 0..len {
        let item = match vm.heap.get(*id) {
            HeapData::Tuple(tuple) => tuple.as_slice()[index].clone_with_heap(vm.heap),
            HeapData::NamedTuple(namedtuple) => namedtuple.as_vec()[index].clone_with_heap(vm.heap),
            _ => unreachable!("tuple-like heap value changed type"),
        };
        defer_drop!(item, vm);
        if item.py_hash(vm)?.is_none() {
            return unhashable_type_name(item, vm);
        }
    }

    Ok(value.py_type_name(vm).into_owned())
}

#[cfg(test)]
mod tests {
    use monty_types::{CompileOptions, MontyObject, PrintWriter, ResourceTracker};

    use crate::{Dump, MontyRepl, Session, SessionRef, dump};

    /// A set with dummies, a frozenset and an iterator over each, half
    /// walked (CPython 3.11, `PYTHONHASHSEED=0`).
    const BUILD: &str = r#"s = set()
for i in range(120):
    s.add((i * 37) % 211)
    s.add('k' + str(i % 20))
for i in range(0, 120, 4):
    s.discard((i * 37) % 211)
fs = frozenset(s)
it = iter(s)
fit = iter(fs)
first = [next(it) for _ in range(15)]
ffirst = [next(fit) for _ in range(10)]
"#;
    /// The walks finished, `pop()`s and the orders.
    const FINISH: &str = r#"r = repr((first, [next(it) for _ in range(15)], ffirst, [next(fit) for _ in range(10)], [s.pop() for _ in range(5)], list(s), list(fs)[:12]))"#;
    const CPYTHON: &str = r#"([2, 7, 10, 11, 13, 14, 17, 18, 21, 24, 29, 32, 33, 35, 36], [37, 39, 40, 43, 48, 51, 54, 55, 58, 59, 61, 62, 65, 70, 73], [2, 7, 10, 11, 13, 14, 17, 18, 21, 24], [29, 'k15', 32, 33, 35, 36, 37, 39, 40, 'k3'], [2, 7, 10, 11, 13], [14, 17, 18, 21, 24, 29, 32, 33, 35, 36, 37, 39, 40, 43, 48, 51, 54, 55, 58, 59, 61, 62, 65, 70, 73, 74, 76, 77, 80, 81, 84, 87, 92, 95, 96, 98, 99, 'k2', 102, 103, 106, 109, 111, 114, 117, 118, 121, 122, 124, 125, 128, 133, 136, 139, 140, 143, 144, 146, 147, 150, 'k7', 'k14', 155, 158, 159, 161, 162, 165, 166, 169, 172, 177, 180, 181, 183, 184, 185, 187, 188, 191, 196, 199, 202, 203, 206, 207, 209, 210, 'k15', 'k3', 'k10', 'k5', 'k16', 'k11', 'k13', 'k4', 'k1', 'k8', 'k18', 'k9', 'k0', 'k19', 'k17', 'k6', 'k12'], [2, 7, 10, 11, 13, 14, 17, 18, 21, 24, 29, 'k15'])"#;

    fn finish(repl: &mut MontyRepl) -> String {
        repl.feed_run(FINISH, vec![], PrintWriter::Disabled).expect("runs");
        match repl.feed_run("r", vec![], PrintWriter::Disabled) {
            Ok(MontyObject::String(s)) => s,
            other => format!("{other:?}"),
        }
    }

    /// hwf: the slot table and the iterators' positions survive a dump:
    /// after a round trip the walks go on where they were, in CPython's
    /// order, as without one.
    #[test]
    fn sets_and_their_iterators_survive_a_dump() {
        let mut repl = MontyRepl::new("t.py", ResourceTracker::default(), CompileOptions::default());
        repl.feed_run(BUILD, vec![], PrintWriter::Disabled).expect("runs");
        let bytes = dump("t.py", None, SessionRef::Idle(&repl)).expect("dumps");
        let Session::Idle(mut loaded) = Dump::load(&bytes).expect("loads").state else {
            panic!("an idle session");
        };
        assert_eq!(finish(&mut repl), CPYTHON);
        assert_eq!(finish(&mut loaded), CPYTHON);
    }
}
