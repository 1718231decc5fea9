//! hwf patch: `VTable` implementation for [`RopeString`], the lazy
//! concatenation of two strings.
//!
//! `s += piece` in a loop copied the whole of `s` every time (quadratic: a
//! 3 MB report built from 200k pieces copied ~300 GB). A rope records the
//! two halves and copies them once, into one flat sequence string, the
//! first time its characters are read (`as_str`); its length is known
//! without that. Flattening and dropping walk the tree with an explicit
//! stack, so a rope 200k levels deep needs no call stack.
use crate::iter::CodePointsIter;
use crate::r#type::{Latin1, Utf16};
use crate::vtable::{JsStringVTable, SequenceString};
use crate::{JsStr, JsStrVariant, JsString, JsStringKind};
use std::cell::{Cell, OnceCell, UnsafeCell};
use std::process::abort;
use std::ptr::{self, NonNull};

/// Concatenations shorter than this are copied at once (as before): a rope
/// node costs an allocation of its own, and short strings are read often.
pub(crate) const ROPE_MIN_LEN: usize = 256;

/// The lazy concatenation of `left` and `right`.
#[repr(C)]
pub(crate) struct RopeString {
    /// Embedded `VTable` - must be the first field for vtable dispatch.
    vtable: JsStringVTable,
    refcount: Cell<usize>,
    /// Whether every character is Latin1 (both halves are).
    latin1: bool,
    /// The halves, until the rope is flattened (then `None`). Only this
    /// module touches them: read while flattening a rope that contains
    /// this one, taken when this one is flattened or dropped.
    left: UnsafeCell<Option<JsString>>,
    right: UnsafeCell<Option<JsString>>,
    /// The characters, once read.
    flat: OnceCell<JsString>,
}

impl RopeString {
    /// A rope of `left` followed by `right` (neither empty, the total
    /// length already checked for overflow).
    pub(crate) fn new(left: JsString, right: JsString, len: usize) -> Self {
        let latin1 = is_latin1(&left) && is_latin1(&right);
        RopeString {
            vtable: JsStringVTable {
                clone: rope_clone,
                drop: rope_drop,
                as_str: rope_as_str,
                code_points: rope_code_points,
                refcount: rope_refcount,
                len,
                kind: JsStringKind::Rope,
            },
            refcount: Cell::new(1),
            latin1,
            left: UnsafeCell::new(Some(left)),
            right: UnsafeCell::new(Some(right)),
            flat: OnceCell::new(),
        }
    }
}

/// Whether `s` is Latin1, without flattening a rope.
fn is_latin1(s: &JsString) -> bool {
    if s.kind() == JsStringKind::Rope {
        // SAFETY: the kind says this is a `RopeString`.
        unsafe { s.as_inner::<RopeString>() }.latin1
    } else {
        s.as_str().is_latin1()
    }
}

#[inline]
fn rope_clone(vtable: NonNull<JsStringVTable>) -> JsString {
    // SAFETY: This is part of the correct vtable which is validated on construction.
    let this: &RopeString = unsafe { vtable.cast().as_ref() };
    let Some(strong) = this.refcount.get().checked_add(1) else {
        abort();
    };
    this.refcount.set(strong);
    // SAFETY: validated the string outside this function.
    unsafe { JsString::from_ptr(vtable) }
}

fn rope_drop(vtable: NonNull<JsStringVTable>) {
    // SAFETY: This is part of the correct vtable which is validated on construction.
    let this: &RopeString = unsafe { vtable.cast().as_ref() };
    let Some(new) = this.refcount.get().checked_sub(1) else {
        abort();
    };
    this.refcount.set(new);
    if new != 0 {
        return;
    }
    // SAFETY: This is the last reference: nothing reads the halves any more.
    let mut work: Vec<JsString> = unsafe { take_halves(this) };
    // SAFETY: This is the last reference, so we can deallocate (its halves
    // are taken: dropping the box drops no string but `flat`).
    unsafe {
        drop(Box::from_raw(vtable.cast::<RopeString>().as_ptr()));
    }
    drop_all(&mut work);
}

/// Take the halves of `rope` out (leaving `None`).
///
/// # Safety
/// Nothing may hold a reference into the halves (no flatten of a rope
/// containing this one is under way: flattening never drops strings while
/// it reads).
unsafe fn take_halves(rope: &RopeString) -> Vec<JsString> {
    // SAFETY: guaranteed by the caller.
    unsafe { [(*rope.left.get()).take(), (*rope.right.get()).take()] }
        .into_iter()
        .flatten()
        .collect()
}

/// Drop every string of `work`, taking apart ropes held only there first,
/// so that dropping a deep rope recurses no deeper than one level.
fn drop_all(work: &mut Vec<JsString>) {
    while let Some(s) = work.pop() {
        if s.kind() == JsStringKind::Rope && s.refcount() == Some(1) {
            // SAFETY: the kind says this is a `RopeString`; with a refcount
            // of 1, `s` is its only reference, so nothing reads its halves.
            let rope = unsafe { s.as_inner::<RopeString>() };
            // SAFETY: as above.
            work.extend(unsafe { take_halves(rope) });
        }
        drop(s);
    }
}

fn rope_as_str(vtable: NonNull<JsStringVTable>) -> JsStr<'static> {
    // SAFETY: This is part of the correct vtable which is validated on construction.
    let this: &RopeString = unsafe { vtable.cast().as_ref() };
    let flat = this.flat.get_or_init(|| flatten(this));
    // The characters are in `flat` now: the halves are no longer needed.
    // SAFETY: `flatten` has returned; no reference into the halves is live
    // (a `JsStr` of this rope borrows `flat`, never a half).
    let mut halves = unsafe { take_halves(this) };
    drop_all(&mut halves);
    // SAFETY: `flat` lives as long as this rope and is never replaced; the
    // `JsString` API ties the returned `JsStr` to the rope's lifetime.
    unsafe { flat.as_str().as_static() }
}

/// The characters of `rope`, copied once into a new sequence string.
fn flatten(rope: &RopeString) -> JsString {
    let len = rope.vtable.len;
    if rope.latin1 {
        let seq = SequenceString::<Latin1>::allocate(len);
        // SAFETY: `allocate` returned room for `len` bytes after the header.
        let data = unsafe { (&raw mut (*seq.as_ptr()).data).cast::<u8>() };
        let mut at = 0usize;
        for_each_leaf(rope, |piece| match piece.variant() {
            JsStrVariant::Latin1(s) => {
                assert!(at + s.len() <= len, "rope length mismatch");
                // SAFETY: in bounds (checked above); the pieces are other
                // allocations than `seq`.
                unsafe { ptr::copy_nonoverlapping(s.as_ptr(), data.add(at), s.len()) };
                at += s.len();
            }
            JsStrVariant::Utf16(_) => unreachable!("a Latin1 rope has Latin1 pieces"),
        });
        assert_eq!(at, len, "rope length mismatch");
        // SAFETY: a fully written sequence string.
        unsafe { JsString::from_ptr(seq.cast()) }
    } else {
        let seq = SequenceString::<Utf16>::allocate(len);
        // SAFETY: `allocate` returned room for `len` code units after the
        // header, aligned for `u16`.
        #[allow(clippy::cast_ptr_alignment)]
        let data = unsafe { (&raw mut (*seq.as_ptr()).data).cast::<u16>() };
        let mut at = 0usize;
        for_each_leaf(rope, |piece| {
            assert!(at + piece.len() <= len, "rope length mismatch");
            match piece.variant() {
                JsStrVariant::Latin1(s) => {
                    for (i, b) in s.iter().enumerate() {
                        // SAFETY: in bounds (checked above).
                        unsafe { *data.add(at + i) = u16::from(*b) };
                    }
                }
                JsStrVariant::Utf16(s) => {
                    // SAFETY: in bounds (checked above), distinct allocations.
                    unsafe { ptr::copy_nonoverlapping(s.as_ptr(), data.add(at), s.len()) };
                }
            }
            at += piece.len();
        });
        assert_eq!(at, len, "rope length mismatch");
        // SAFETY: a fully written sequence string.
        unsafe { JsString::from_ptr(seq.cast()) }
    }
}

/// The halves of `r` (`None` once taken).
///
/// # Safety
/// The halves must not be taken while the references live: they are taken
/// only by the rope's own `as_str` (after its flatten) or its last drop,
/// neither of which runs while a rope holding `r` is being flattened.
unsafe fn halves(r: &RopeString) -> (Option<&JsString>, Option<&JsString>) {
    // SAFETY: guaranteed by the caller.
    unsafe { ((*r.left.get()).as_ref(), (*r.right.get()).as_ref()) }
}

/// Call `f` with every flat piece of `rope`, left to right.
fn for_each_leaf(rope: &RopeString, mut f: impl FnMut(JsStr<'_>)) {
    let mut stack: Vec<&JsString> = Vec::new();
    // SAFETY: see `halves`: nothing takes them while `rope` is flattened.
    let (left, right) = unsafe { halves(rope) };
    stack.extend(right);
    stack.extend(left);
    while let Some(s) = stack.pop() {
        if s.kind() == JsStringKind::Rope {
            // SAFETY: the kind says this is a `RopeString`.
            let inner = unsafe { s.as_inner::<RopeString>() };
            if let Some(flat) = inner.flat.get() {
                f(flat.as_str());
            } else {
                // SAFETY: as above.
                let (left, right) = unsafe { halves(inner) };
                stack.extend(right);
                stack.extend(left);
            }
        } else {
            f(s.as_str());
        }
    }
}

fn rope_code_points(vtable: NonNull<JsStringVTable>) -> CodePointsIter<'static> {
    CodePointsIter::new(rope_as_str(vtable))
}

/// `VTable` function for refcount, need to return an `Option<usize>`.
#[inline]
#[allow(clippy::unnecessary_wraps)]
fn rope_refcount(vtable: NonNull<JsStringVTable>) -> Option<usize> {
    // SAFETY: This is part of the correct vtable which is validated on construction.
    let this: &RopeString = unsafe { vtable.cast().as_ref() };
    Some(this.refcount.get())
}
