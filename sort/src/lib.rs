//! The sort behind the script runtimes' `Array.prototype.sort` (the
//! QuickJS runtime's `__hwf_sort`; Boa's before it) and `sorted()` /
//! `list.sort()` (Monty, vendored under `vendor/`).
//!
//! Both used `slice::sort_by`, which (since Rust 1.81) **panics** when the
//! comparator is not a total order. A script that sorted with
//! `(a, b) => a.k < b.k ? -1 : 1` (never `0`), a shuffle comparator, or a
//! Python list holding a `NaN` then crashed the engine (the run failed with
//! `guest_trap`), where Node and CPython return an order (ECMA-262: "if
//! comparefn is not a consistent comparator, the sort order is
//! implementation-defined"). `sort_by` also called the comparator ~13 % more
//! often than a merge sort does (3.70 M against 3.26 M calls for 200k random
//! numbers), and in JavaScript each call is a whole function call.
//!
//! [`merge_sort_by`] is a stable natural merge sort in the manner of TimSort:
//! - ascending runs are taken as they are and strictly descending ones are
//!   reversed (an already sorted array costs `n - 1` calls);
//! - short runs are extended to `min_run` elements by binary insertion,
//!   which places each element with `log2` calls;
//! - runs are merged pairwise, depth first (a run is merged with its
//!   neighbour as soon as both are sorted, while their items are still in
//!   the cache), and two runs already in order are joined after one call.
//!
//! It never panics, whatever the comparator answers, and stops at the first
//! error the comparator throws (the caller then discards the items).

use std::cmp::Ordering;

/// Runs shorter than this are extended by binary insertion (TimSort's
/// bounds: `min_run` is in `MIN_MERGE / 2 ..= MIN_MERGE`).
const MIN_MERGE: usize = 64;

/// Sorts `items` stably by `compare` (`Less` puts its first argument
/// first). Items are moved, never cloned; `T::default()` fills a slot while
/// its item is in the scratch buffer.
///
/// # Errors
///
/// The first error `compare` returns; no call follows it, and `items` then
/// holds every item in an unspecified order.
pub fn merge_sort_by<T, E, F>(items: &mut [T], mut compare: F) -> Result<(), E>
where
    T: Default,
    F: FnMut(&T, &T) -> Result<Ordering, E>,
{
    let len = items.len();
    if len < 2 {
        return Ok(());
    }
    let min_run = min_run_length(len);

    // Runs are merged as soon as they can be, depth first: a stack of runs,
    // each with the number of runs it was merged from; two of the same count
    // on top are merged (a binary counter), and what is left at the end is
    // merged from the top down. That is the same merge tree, hence the same
    // comparator calls and the same result, as merging adjacent pairs level
    // by level (the order before), but the runs merged last are still in the
    // cache: each level over the whole input touched every item (and the
    // object each refers to) again, in memory order unrelated to the sort,
    // and a script's sort of 100k objects spent a third of its time there.
    let mut stack: Vec<(usize, usize, usize)> = Vec::new();
    let mut scratch: Vec<T> = Vec::new();
    let mut start = 0;
    while start < len {
        // 1. The next run of at least `min_run` (or the rest), sorted.
        let mut end = natural_run_end(items, start, &mut compare)?;
        let forced = (start + min_run).min(len);
        if end < forced {
            binary_insertion_sort(&mut items[start..forced], end - start, &mut compare)?;
            end = forced;
        }
        stack.push((start, end, 1));
        start = end;
        // 2. Merge the two runs on top while they count as many runs.
        while let [.., (lo, mid, left), (_, hi, right)] = stack[..]
            && left == right
        {
            merge_into(items, lo, mid, hi, &mut scratch, &mut compare)?;
            stack.truncate(stack.len() - 2);
            stack.push((lo, hi, left + right));
        }
    }
    // 3. Merge what is left, from the top of the stack down.
    while let [.., (lo, mid, left), (_, hi, right)] = stack[..] {
        merge_into(items, lo, mid, hi, &mut scratch, &mut compare)?;
        stack.truncate(stack.len() - 2);
        stack.push((lo, hi, left + right));
    }
    Ok(())
}

/// TimSort's minimum run length for `len` items: `len` itself when small,
/// else a length in `MIN_MERGE / 2 ..= MIN_MERGE` such that `len / min_run`
/// is a power of two or just below one (balanced merges).
fn min_run_length(mut len: usize) -> usize {
    let mut low_bits = 0;
    while len >= MIN_MERGE {
        low_bits |= len & 1;
        len >>= 1;
    }
    len + low_bits
}

/// The end of the natural run starting at `start`: ascending (each element
/// not less than the one before), or strictly descending, which is reversed
/// in place (strictness keeps the sort stable).
fn natural_run_end<T, E, F>(items: &mut [T], start: usize, compare: &mut F) -> Result<usize, E>
where
    F: FnMut(&T, &T) -> Result<Ordering, E>,
{
    let len = items.len();
    let mut end = start + 1;
    if end == len {
        return Ok(end);
    }
    if compare(&items[end], &items[end - 1])? == Ordering::Less {
        end += 1;
        while end < len && compare(&items[end], &items[end - 1])? == Ordering::Less {
            end += 1;
        }
        items[start..end].reverse();
    } else {
        end += 1;
        while end < len && compare(&items[end], &items[end - 1])? != Ordering::Less {
            end += 1;
        }
    }
    Ok(end)
}

/// Sorts `run` whose first `sorted` elements are already in order: each
/// further element goes after every element not greater than it (stable),
/// found by binary search.
fn binary_insertion_sort<T, E, F>(run: &mut [T], sorted: usize, compare: &mut F) -> Result<(), E>
where
    F: FnMut(&T, &T) -> Result<Ordering, E>,
{
    for i in sorted.max(1)..run.len() {
        let (mut lo, mut hi) = (0, i);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if compare(&run[i], &run[mid])? == Ordering::Less {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        run[lo..=i].rotate_right(1);
    }
    Ok(())
}

/// Merges the sorted ranges `lo..mid` and `mid..hi` of `items` in place,
/// through `scratch`. On equal elements the left one comes first.
fn merge_into<T, E, F>(
    items: &mut [T],
    lo: usize,
    mid: usize,
    hi: usize,
    scratch: &mut Vec<T>,
    compare: &mut F,
) -> Result<(), E>
where
    T: Default,
    F: FnMut(&T, &T) -> Result<Ordering, E>,
{
    // Already in order: the right run's first is not less than the left's last.
    if compare(&items[mid], &items[mid - 1])? != Ordering::Less {
        return Ok(());
    }
    scratch.clear();
    let (mut i, mut j) = (lo, mid);
    // Every slot before `i` and before `j` (from `mid`) has been moved out;
    // `items[i]` and `items[j]` are still in place.
    let result = loop {
        if i == mid || j == hi {
            break Ok(());
        }
        match compare(&items[j], &items[i]) {
            Ok(Ordering::Less) => {
                scratch.push(std::mem::take(&mut items[j]));
                j += 1;
            }
            Ok(_) => {
                scratch.push(std::mem::take(&mut items[i]));
                i += 1;
            }
            Err(err) => break Err(err),
        }
    };
    // Whatever is left of either run follows in order (also after an
    // error, so no item is lost before the caller drops them all).
    scratch.extend(items[i..mid].iter_mut().map(std::mem::take));
    scratch.extend(items[j..hi].iter_mut().map(std::mem::take));
    for (slot, item) in items[lo..hi].iter_mut().zip(scratch.drain(..)) {
        *slot = item;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::merge_sort_by;
    use std::cmp::Ordering;
    use std::convert::Infallible;

    fn numbers(n: usize, mut seed: u32) -> Vec<(u32, usize)> {
        (0..n)
            .map(|i| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                (seed % 97, i)
            })
            .collect()
    }

    #[test]
    fn sorts_stably_as_the_standard_library_does() {
        for n in [0, 1, 2, 3, 31, 64, 65, 1000, 4097, 20_000] {
            let mut ours = numbers(n, 0x2545_f491);
            let mut std = ours.clone();
            let mut calls = 0usize;
            merge_sort_by(&mut ours, |a, b| -> Result<Ordering, Infallible> {
                calls += 1;
                Ok(a.0.cmp(&b.0))
            })
            .expect("no error");
            std.sort_by_key(|x| x.0);
            assert_eq!(ours, std, "n = {n}");
            let log2 = (usize::BITS - n.leading_zeros()) as usize;
            assert!(calls <= n * log2, "n = {n}: {calls} calls");
        }
    }

    #[test]
    fn sorted_and_strictly_descending_input_costs_n_minus_one_calls() {
        for input in [(0..1000).collect::<Vec<i32>>(), (0..1000).rev().collect()] {
            let mut items = input;
            let mut calls = 0;
            merge_sort_by(&mut items, |a, b| -> Result<Ordering, Infallible> {
                calls += 1;
                Ok(a.cmp(b))
            })
            .expect("no error");
            assert_eq!(items, (0..1000).collect::<Vec<_>>());
            assert_eq!(calls, 999);
        }
    }

    #[test]
    fn inconsistent_comparators_neither_panic_nor_lose_items() {
        let flipping = {
            let mut flip = false;
            move |_: &(u32, usize), _: &(u32, usize)| {
                flip = !flip;
                if flip { Ordering::Less } else { Ordering::Greater }
            }
        };
        // `a < b ? -1 : 1`, and "NaN is equal to everything".
        let never_equal =
            |a: &(u32, usize), b: &(u32, usize)| if a.0 < b.0 { Ordering::Less } else { Ordering::Greater };
        let nan_equal = |a: &(u32, usize), b: &(u32, usize)| {
            if a.0.is_multiple_of(3) || b.0.is_multiple_of(3) {
                Ordering::Equal
            } else {
                a.0.cmp(&b.0)
            }
        };
        type Comparator = Box<dyn FnMut(&(u32, usize), &(u32, usize)) -> Ordering>;
        let comparators: Vec<Comparator> = vec![Box::new(flipping), Box::new(never_equal), Box::new(nan_equal)];
        for mut compare in comparators {
            for n in [20, 100, 5000] {
                let mut items = numbers(n, 7);
                merge_sort_by(&mut items, |a, b| -> Result<Ordering, Infallible> { Ok(compare(a, b)) })
                    .expect("no error");
                let mut seen: Vec<usize> = items.iter().map(|x| x.1).collect();
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn the_first_error_stops_the_sort_and_keeps_every_item() {
        let mut items = numbers(1000, 9);
        let mut calls = 0;
        let result = merge_sort_by(&mut items, |a, b| {
            calls += 1;
            if calls == 50 { Err("stop") } else { Ok(a.0.cmp(&b.0)) }
        });
        assert_eq!(result, Err("stop"));
        assert_eq!(calls, 50);
        let mut seen: Vec<usize> = items.iter().map(|x| x.1).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..1000).collect::<Vec<_>>());
    }

    /// The merge tree of merging adjacent runs level by level (pairs, an odd
    /// one carried up), as nested run indices.
    #[derive(Debug, PartialEq)]
    enum Tree {
        Run(usize),
        Merge(Box<Tree>, Box<Tree>),
    }

    fn level_by_level(runs: usize) -> Tree {
        let mut level: Vec<Tree> = (0..runs).map(Tree::Run).collect();
        while level.len() > 1 {
            let mut next = Vec::new();
            let mut it = level.into_iter();
            while let Some(left) = it.next() {
                next.push(match it.next() {
                    Some(right) => Tree::Merge(Box::new(left), Box::new(right)),
                    None => left,
                });
            }
            level = next;
        }
        level.pop().expect("one run at least")
    }

    fn binary_counter(runs: usize) -> Tree {
        let mut stack: Vec<(Tree, usize)> = Vec::new();
        let merge_top = |stack: &mut Vec<(Tree, usize)>| {
            let (right, r) = stack.pop().expect("two");
            let (left, l) = stack.pop().expect("two");
            stack.push((Tree::Merge(Box::new(left), Box::new(right)), l + r));
        };
        for i in 0..runs {
            stack.push((Tree::Run(i), 1));
            while stack.len() >= 2 && stack[stack.len() - 1].1 == stack[stack.len() - 2].1 {
                merge_top(&mut stack);
            }
        }
        while stack.len() >= 2 {
            merge_top(&mut stack);
        }
        stack.pop().expect("one run at least").0
    }

    /// Merging depth first (`merge_sort_by`'s stack) builds the same merge
    /// tree as merging level by level, for any number of runs: the same
    /// comparator calls, in another order.
    #[test]
    fn depth_first_merges_build_the_level_by_level_tree() {
        for runs in 1..600 {
            assert_eq!(binary_counter(runs), level_by_level(runs), "{runs} runs");
        }
    }

    /// The calls for 200k random numbers, as `js_compute`'s e2e test and
    /// docs/BENCHMARKS.md count them (3,261,520 before this change).
    #[test]
    fn comparator_calls_for_200k_random_numbers_are_unchanged() {
        let mut seed = 0x2545_f491_u32;
        let mut items: Vec<f64> = (0..200_000)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                f64::from(seed) / 4_294_967_296.0
            })
            .collect();
        let mut calls = 0usize;
        merge_sort_by(&mut items, |a, b| -> Result<Ordering, Infallible> {
            calls += 1;
            Ok(a.total_cmp(b))
        })
        .expect("no error");
        assert!(items.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(calls, 3_261_520);
    }
}
