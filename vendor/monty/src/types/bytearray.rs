//! hwf: Python's `bytearray`, a mutable `bytes`.
//!
//! The read-only methods (`find`, `split`, `strip`, `upper`, `decode`,
//! `hex`, ...) are `bytes`'s own, run on a copy of the buffer; the ones that
//! build byte strings return a `bytearray` here, as CPython's do. The
//! mutating ones (`append`, `extend`, `pop`, `insert`, `remove`, `clear`,
//! `reverse`, item and slice assignment, `del`, `+=`) are below. Errors carry
//! CPython 3.11's texts.

use std::fmt::Write;

use super::{PyTrait, Type};
use crate::{
    args::ArgValues,
    bytecode::{CallResult, VM},
    defer_drop,
    exception_private::{ExcType, ExcTypeExt, RunResult, SimpleException},
    heap::{DropWithContext, HeapData, HeapId, HeapItem, HeapObjectRead, HeapRead, HeapReadOutput},
    intern::StaticStrings,
    resource_checks::check_repeat_size,
    types::{
        Bytes, BytesIterator, LazyHeapSet, bytes::call_bytes_method_static, long_int::repeat_count,
        slice::slice_collect_iterator,
    },
    value::{EitherStr, Value, eq_bytes},
};

/// A `bytearray`: its bytes, growable and writable in place.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub(crate) struct ByteArray(Vec<u8>);

impl ByteArray {
    /// A bytearray holding `bytes`.
    #[must_use]
    pub fn new(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }

    /// The bytes.
    #[must_use]
    pub fn as_slice(&self) -> &[u8] {
        &self.0
    }

    /// `bytearray(...)`: the forms `bytes(...)` takes (nothing, a size, a
    /// bytes-like object, an iterable of ints, a str with an encoding), as a
    /// new mutable buffer.
    pub fn init(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
        // `bytearray(2.5)`: CPython names the type it could not make.
        if let ArgValues::One(Value::Float(_)) = &args {
            args.drop_with(vm);
            return Err(ExcType::type_error("cannot convert 'float' object to bytearray"));
        }
        // An iterable of ints: CPython's bytearray names a bad item `byte`
        // (`bytes` says `bytes must be in range(0, 256)`).
        if let ArgValues::One(source) = &args
            && !matches!(source, Value::Int(_) | Value::Bool(_))
            && !source.is_str(vm.heap)
            && bytes_like(source, vm).is_none()
            && source.py_is_iterable(vm)
        {
            let data = bytes_from_iterable(source, vm);
            args.drop_with(vm);
            return Ok(allocate_bytearray(data?.unwrap_or_default(), vm));
        }
        let made = Bytes::init(vm, args)?;
        let data = match &made {
            Value::Ref(id) => match vm.heap.get(*id) {
                HeapData::Bytes(b) => b.as_slice().to_vec(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        made.drop_with(vm);
        Ok(allocate_bytearray(data, vm))
    }
}

/// `repr(bytearray)` as CPython's `bytearray_repr`, which differs from
/// `bytes`'s in one quirk: a `'` is escaped even inside double quotes
/// (`bytearray(b"\\'")`).
pub(crate) fn bytearray_repr_fmt(data: &[u8], f: &mut impl Write) -> std::fmt::Result {
    let quote = if data.contains(&b'\'') && !data.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    f.write_str("bytearray(b")?;
    f.write_char(quote)?;
    for &byte in data {
        match byte {
            b'\'' => f.write_str("\\'")?,
            b'\\' => f.write_str("\\\\")?,
            b'\t' => f.write_str("\\t")?,
            b'\n' => f.write_str("\\n")?,
            b'\r' => f.write_str("\\r")?,
            0x20..0x7f => f.write_char(char::from(byte))?,
            _ => write!(f, "\\x{byte:02x}")?,
        }
    }
    f.write_char(quote)?;
    f.write_char(')')
}

/// Allocates a bytearray on the heap.
pub(crate) fn allocate_bytearray(data: Vec<u8>, vm: &VM<'_>) -> Value {
    Value::Ref(vm.heap.allocate(HeapData::ByteArray(ByteArray::new(data))))
}

/// The bytes of a `bytes` or `bytearray` value (interned or on the heap).
pub(crate) fn bytes_like<'a>(value: &Value, vm: &'a VM<'_>) -> Option<&'a [u8]> {
    match value {
        Value::InternBytes(id) => Some(vm.interns.get_bytes(*id)),
        Value::Ref(id) => match vm.heap.get(*id) {
            HeapData::Bytes(b) => Some(b.as_slice()),
            HeapData::ByteArray(b) => Some(b.as_slice()),
            _ => None,
        },
        _ => None,
    }
}

/// Both operands' bytes when both are bytes-like and at least one is a
/// `bytearray` (plain `bytes` pairs keep their own comparison path).
pub(crate) fn bytes_like_pair<'a>(a: &Value, b: &Value, vm: &'a VM<'_>) -> Option<(&'a [u8], &'a [u8])> {
    let is_bytearray = |v: &Value| matches!(v, Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::ByteArray(_)));
    if !is_bytearray(a) && !is_bytearray(b) {
        return None;
    }
    Some((bytes_like(a, vm)?, bytes_like(b, vm)?))
}

/// `byte must be in range(0, 256)`, CPython's text for a bad byte value.
fn byte_range_error() -> crate::exception_private::RunError {
    ExcType::value_error("byte must be in range(0, 256)")
}

/// One byte from an int-like value (`ba.append(x)`, `ba[i] = x`).
fn byte_of(value: &Value, vm: &mut VM<'_>) -> RunResult<u8> {
    let n = value.as_int(vm)?;
    u8::try_from(n).map_err(|_| byte_range_error())
}

/// The bytes a slice assignment or `extend` takes: a bytes-like value as it
/// is, or an iterable of ints in `range(0, 256)`. `None` when `value` is not
/// iterable (the caller names the error).
fn bytes_from_iterable(value: &Value, vm: &mut VM<'_>) -> RunResult<Option<Vec<u8>>> {
    if let Some(b) = bytes_like(value, vm) {
        return Ok(Some(b.to_vec()));
    }
    if !value.py_is_iterable(vm) {
        return Ok(None);
    }
    let iterator = value.clone_with_heap(vm).into_py_iter(vm)?;
    defer_drop!(iterator, vm);
    let mut iterator = iterator.read(vm);
    let mut data = Vec::new();
    while let Some(item) = iterator.py_next(vm)? {
        defer_drop!(item, vm);
        let byte = byte_of(item, vm)?;
        check_repeat_size(data.len() + 1, 1, &vm.heap.tracker)?;
        data.push(byte);
    }
    Ok(Some(data))
}

/// Normalises `index` (negative from the end) to a position in `0..len`.
fn position(index: i64, len: usize) -> Option<usize> {
    let len = i64::try_from(len).ok()?;
    let normalized = if index < 0 { index + len } else { index };
    if (0..len).contains(&normalized) {
        usize::try_from(normalized).ok()
    } else {
        None
    }
}

/// `bytearray index out of range`.
fn index_error() -> crate::exception_private::RunError {
    SimpleException::new_msg(ExcType::IndexError, "bytearray index out of range").into()
}

/// The positions a slice selects in a sequence of `len` items, in slice order.
fn slice_positions(slice: &super::Slice, len: usize) -> RunResult<Vec<usize>> {
    let (start, stop, step) = slice.indices(len)?;
    let mut positions = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        if let Ok(index) = usize::try_from(i) {
            positions.push(index);
        }
        i += step;
    }
    Ok(positions)
}

impl<'h> HeapRead<'h, ByteArray> {
    /// `del ba[key]`: an index (negative from the end) or a slice (any step).
    pub(crate) fn delete_item(&mut self, key: &Value, vm: &mut VM<'h>) -> RunResult<()> {
        let len = self.get(vm.heap).0.len();
        if let Value::Ref(id) = key
            && let HeapData::Slice(slice) = vm.heap.get(*id)
        {
            let mut doomed = slice_positions(slice, len)?;
            doomed.sort_unstable();
            let data = &mut self.get_mut(vm.heap).0;
            let mut next = doomed.into_iter().peekable();
            let mut index = 0;
            data.retain(|_| {
                let keep = next.peek() != Some(&index);
                if !keep {
                    next.next();
                }
                index += 1;
                keep
            });
            return Ok(());
        }
        let index = key.as_index(vm, Type::ByteArray)?;
        let at = position(index, len).ok_or_else(index_error)?;
        self.get_mut(vm.heap).0.remove(at);
        Ok(())
    }
}

impl<'h> PyTrait<'h> for HeapObjectRead<'h, ByteArray> {
    fn py_contains_impl(&self, item: &Value, vm: &mut VM<'h>) -> RunResult<Option<bool>> {
        let data = self.get(vm.heap).0.clone();
        super::bytes::bytes_contains(&data, item, vm).map(Some)
    }

    fn py_is_iterable(&self, _vm: &VM<'h>) -> bool {
        true
    }

    fn py_type(&self, _vm: &VM<'h>) -> Type {
        Type::ByteArray
    }

    fn py_iter(&self, vm: &mut VM<'h>) -> RunResult<Value> {
        Ok(BytesIterator::from_heap(self.id(), vm))
    }

    fn py_len(&self, vm: &VM<'h>) -> Option<usize> {
        Some(self.get(vm.heap).0.len())
    }

    fn py_getitem(&self, key: &Value, vm: &mut VM<'h>) -> RunResult<Value> {
        if let Value::Ref(id) = key
            && let HeapData::Slice(slice) = vm.heap.get(*id)
        {
            let data = self.get(vm.heap);
            let sliced: Vec<u8> = slice_collect_iterator(vm, slice, data.0.iter(), |b| *b)?;
            return Ok(allocate_bytearray(sliced, vm));
        }
        let index = key.as_index(vm, Type::ByteArray)?;
        let data = self.get(vm.heap);
        let at = position(index, data.0.len()).ok_or_else(index_error)?;
        Ok(Value::Int(i64::from(data.0[at])))
    }

    fn py_setitem(&mut self, key: Value, value: Value, vm: &mut VM<'h>) -> RunResult<()> {
        defer_drop!(key, vm);
        defer_drop!(value, vm);
        if let Value::Ref(id) = key
            && let HeapData::Slice(slice) = vm.heap.get(*id)
        {
            let slice = slice.clone();
            // An int is iterable in no way CPython accepts here, nor is a str.
            let new = if matches!(value, Value::Int(_) | Value::Bool(_)) || value.is_str(vm.heap) {
                None
            } else {
                bytes_from_iterable(value, vm)?
            };
            let Some(new) = new else {
                return Err(ExcType::type_error(
                    "can assign only bytes, buffers, or iterables of ints in range(0, 256)",
                ));
            };
            let len = self.get(vm.heap).0.len();
            let extended = slice.step.is_some_and(|step| step != 1);
            if extended {
                let positions = slice_positions(&slice, len)?;
                if positions.len() != new.len() {
                    return Err(ExcType::value_error(format!(
                        "attempt to assign bytes of size {} to extended slice of size {}",
                        new.len(),
                        positions.len()
                    )));
                }
                let data = &mut self.get_mut(vm.heap).0;
                for (at, byte) in positions.into_iter().zip(new) {
                    data[at] = byte;
                }
            } else {
                let (start, stop, _) = slice.indices(len)?;
                let start = usize::try_from(start).unwrap_or(0);
                let stop = usize::try_from(stop).unwrap_or(0).max(start);
                check_repeat_size(len.saturating_add(new.len()), 1, &vm.heap.tracker)?;
                self.get_mut(vm.heap).0.splice(start..stop, new);
            }
            return Ok(());
        }
        let index = key.as_index(vm, Type::ByteArray)?;
        let byte = byte_of(value, vm)?;
        let len = self.get(vm.heap).0.len();
        let at = position(index, len).ok_or_else(index_error)?;
        self.get_mut(vm.heap).0[at] = byte;
        Ok(())
    }

    fn py_eq_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<bool>> {
        Ok(eq_bytes(self.get(vm.heap).as_slice(), other, vm))
    }

    fn py_bool(&self, vm: &mut VM<'h>) -> RunResult<bool> {
        Ok(!self.get(vm.heap).0.is_empty())
    }

    fn py_repr_fmt(&self, f: &mut impl Write, vm: &mut VM<'h>, _heap_ids: &mut LazyHeapSet) -> RunResult<()> {
        Ok(bytearray_repr_fmt(&self.get(vm.heap).0, f)?)
    }

    fn py_add_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(tail) = bytes_like(other, vm) else {
            return Ok(None);
        };
        let head = self.get(vm.heap).as_slice();
        check_repeat_size(head.len().saturating_add(tail.len()), 1, &vm.heap.tracker)?;
        let mut data = Vec::with_capacity(head.len() + tail.len());
        data.extend_from_slice(head);
        data.extend_from_slice(tail);
        Ok(Some(allocate_bytearray(data, vm)))
    }

    /// `b"x" + bytearray(...)`: `bytes`, as CPython (the left operand's type).
    fn py_radd_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(head) = bytes_like(other, vm) else {
            return Ok(None);
        };
        Ok(Some(super::bytes::concat_bytes(
            head,
            self.get(vm.heap).as_slice(),
            vm.heap,
        )?))
    }

    fn py_mul_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let Some(count) = repeat_count(other, vm)? else {
            return Ok(None);
        };
        let data = self.get(vm.heap).as_slice();
        check_repeat_size(data.len(), count, &vm.heap.tracker)?;
        let repeated = data.repeat(count);
        Ok(Some(allocate_bytearray(repeated, vm)))
    }

    fn py_rmul_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        self.py_mul_impl(other, vm)
    }

    /// `ba += b"..."`: appends in place; anything but bytes-like falls back
    /// to `+`, whose error names it (`can't concat list to bytearray`).
    fn py_iadd_impl(&mut self, other: &Value, vm: &mut VM<'h>) -> RunResult<bool> {
        let Some(tail) = bytes_like(other, vm).map(<[u8]>::to_vec) else {
            return Ok(false);
        };
        let len = self.get(vm.heap).0.len();
        check_repeat_size(len.saturating_add(tail.len()), 1, &vm.heap.tracker)?;
        self.get_mut(vm.heap).0.extend_from_slice(&tail);
        Ok(true)
    }

    fn py_call_attr(&mut self, vm: &mut VM<'h>, attr: &EitherStr, args: ArgValues) -> RunResult<CallResult> {
        let Some(method) = attr.static_string() else {
            args.drop_with(vm);
            return Err(ExcType::attribute_error(Type::ByteArray, attr.as_str(vm.interns)));
        };
        call_bytearray_method(self, method, args, vm).map(CallResult::Value)
    }
}

/// Runs one `bytearray` method.
fn call_bytearray_method<'h>(
    this: &mut HeapObjectRead<'h, ByteArray>,
    method: StaticStrings,
    args: ArgValues,
    vm: &mut VM<'h>,
) -> RunResult<Value> {
    match method {
        StaticStrings::Append => {
            let item = args.get_one_arg("bytearray.append", vm.heap)?;
            defer_drop!(item, vm);
            let byte = byte_of(item, vm)?;
            this.get_mut(vm.heap).0.push(byte);
            Ok(Value::None)
        }
        StaticStrings::Extend => {
            let source = args.get_one_arg("bytearray.extend", vm.heap)?;
            defer_drop!(source, vm);
            let Some(data) = bytes_from_iterable(source, vm)? else {
                return Err(ExcType::type_error(format!(
                    "can't extend bytearray with {}",
                    source.py_type_name(vm)
                )));
            };
            let len = this.get(vm.heap).0.len();
            check_repeat_size(len.saturating_add(data.len()), 1, &vm.heap.tracker)?;
            this.get_mut(vm.heap).0.extend_from_slice(&data);
            Ok(Value::None)
        }
        StaticStrings::Pop => {
            let index = args.get_zero_one_arg("bytearray.pop", vm.heap)?;
            let index = match index {
                Some(v) => {
                    let n = v.as_int(vm);
                    v.drop_with(vm);
                    n?
                }
                None => -1,
            };
            let len = this.get(vm.heap).0.len();
            if len == 0 {
                return Err(SimpleException::new_msg(ExcType::IndexError, "pop from empty bytearray").into());
            }
            let at = position(index, len)
                .ok_or_else(|| SimpleException::new_msg(ExcType::IndexError, "pop index out of range"))?;
            let byte = this.get_mut(vm.heap).0.remove(at);
            Ok(Value::Int(i64::from(byte)))
        }
        StaticStrings::Insert => {
            let (index, item) = args.get_two_args("insert", vm.heap)?;
            defer_drop!(index, vm);
            defer_drop!(item, vm);
            let index = index.as_int(vm)?;
            let byte = byte_of(item, vm)?;
            let len = this.get(vm.heap).0.len();
            let signed = i64::try_from(len).unwrap_or(i64::MAX);
            let at = if index < 0 {
                (index + signed).max(0)
            } else {
                index.min(signed)
            };
            let at = usize::try_from(at).unwrap_or(0);
            this.get_mut(vm.heap).0.insert(at, byte);
            Ok(Value::None)
        }
        StaticStrings::Remove => {
            let item = args.get_one_arg("bytearray.remove", vm.heap)?;
            defer_drop!(item, vm);
            let byte = byte_of(item, vm)?;
            let data = &mut this.get_mut(vm.heap).0;
            let Some(at) = data.iter().position(|b| *b == byte) else {
                return Err(ExcType::value_error("value not found in bytearray"));
            };
            data.remove(at);
            Ok(Value::None)
        }
        StaticStrings::Clear => {
            args.check_zero_args("bytearray.clear", vm.heap)?;
            this.get_mut(vm.heap).0.clear();
            Ok(Value::None)
        }
        StaticStrings::Reverse => {
            args.check_zero_args("bytearray.reverse", vm.heap)?;
            this.get_mut(vm.heap).0.reverse();
            Ok(Value::None)
        }
        StaticStrings::Copy => {
            args.check_zero_args("bytearray.copy", vm.heap)?;
            let data = this.get(vm.heap).0.clone();
            Ok(allocate_bytearray(data, vm))
        }
        other if returns_bytes(other) || reads_bytes(other) => {
            let data = this.get(vm.heap).0.clone();
            let result = call_bytes_method_static(&data, other, args, vm)?;
            if returns_bytes(other) {
                Ok(into_bytearrays(result, vm))
            } else {
                Ok(result)
            }
        }
        other => {
            args.drop_with(vm);
            Err(ExcType::attribute_error(Type::ByteArray, other.into()))
        }
    }
}

/// Whether a `bytes` method answers something other than a byte string
/// (a str, an int, a bool).
fn reads_bytes(method: StaticStrings) -> bool {
    matches!(
        method,
        StaticStrings::Decode
            | StaticStrings::Hex
            | StaticStrings::Count
            | StaticStrings::Find
            | StaticStrings::Rfind
            | StaticStrings::Index
            | StaticStrings::Rindex
            | StaticStrings::Startswith
            | StaticStrings::Endswith
            | StaticStrings::Isalpha
            | StaticStrings::Isdigit
            | StaticStrings::Isalnum
            | StaticStrings::Isspace
            | StaticStrings::Islower
            | StaticStrings::Isupper
            | StaticStrings::Isascii
            | StaticStrings::Istitle
    )
}

/// Whether a `bytes` method builds byte strings, which a `bytearray`'s
/// version returns as bytearrays.
fn returns_bytes(method: StaticStrings) -> bool {
    matches!(
        method,
        StaticStrings::Lower
            | StaticStrings::Upper
            | StaticStrings::Capitalize
            | StaticStrings::Title
            | StaticStrings::Swapcase
            | StaticStrings::Strip
            | StaticStrings::Lstrip
            | StaticStrings::Rstrip
            | StaticStrings::Removeprefix
            | StaticStrings::Removesuffix
            | StaticStrings::Split
            | StaticStrings::Rsplit
            | StaticStrings::Splitlines
            | StaticStrings::Partition
            | StaticStrings::Rpartition
            | StaticStrings::Replace
            | StaticStrings::Center
            | StaticStrings::Ljust
            | StaticStrings::Rjust
            | StaticStrings::Zfill
            | StaticStrings::Join
            | StaticStrings::Fromhex
    )
}

/// `result` with every `bytes` in it (itself, or the items of the list or
/// tuple it is) turned into a `bytearray`.
fn into_bytearrays(result: Value, vm: &mut VM<'_>) -> Value {
    if let Some(data) = bytes_like(&result, vm).map(<[u8]>::to_vec) {
        result.drop_with(vm);
        return allocate_bytearray(data, vm);
    }
    let Value::Ref(id) = &result else {
        return result;
    };
    let id = *id;
    let items: Vec<(usize, Vec<u8>)> = match vm.heap.get(id) {
        HeapData::List(list) => list
            .as_slice()
            .iter()
            .enumerate()
            .filter_map(|(i, v)| bytes_like(v, vm).map(|b| (i, b.to_vec())))
            .collect(),
        // `partition`'s three parts: a new tuple of bytearrays.
        HeapData::Tuple(tuple) => {
            let parts: Vec<Vec<u8>> = tuple
                .as_slice()
                .iter()
                .map(|v| bytes_like(v, vm).map(<[u8]>::to_vec).unwrap_or_default())
                .collect();
            result.drop_with(vm);
            let parts = parts.into_iter().map(|data| allocate_bytearray(data, vm)).collect();
            return super::allocate_tuple(parts, vm.heap);
        }
        _ => return result,
    };
    let replacements: Vec<(usize, Value)> = items
        .into_iter()
        .map(|(i, data)| (i, allocate_bytearray(data, vm)))
        .collect();
    let old = match vm.heap.read(id) {
        HeapReadOutput::List(mut list) => {
            let items = list.get_mut(vm.heap).as_vec_mut();
            replacements
                .into_iter()
                .map(|(i, new)| std::mem::replace(&mut items[i], new))
                .collect::<Vec<_>>()
        }
        _ => replacements.into_iter().map(|(_, new)| new).collect(),
    };
    old.drop_with(vm);
    result
}

impl HeapItem for ByteArray {
    fn py_dec_ref_ids(&mut self, _stack: &mut Vec<HeapId>) {
        // No-op: a bytearray holds no Value references.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `code` and returns its result's strings.
    fn run(code: &str) -> Vec<String> {
        let runner = crate::MontyRun::new(code.to_owned(), "t.py", vec![], monty_types::CompileOptions::default())
            .expect("parses");
        match runner.run_no_limits(vec![]).expect("runs") {
            monty_types::MontyObject::List(items) => items
                .into_iter()
                .map(|item| match item {
                    monty_types::MontyObject::String(s) => s,
                    other => format!("{other:?}"),
                })
                .collect(),
            other => panic!("not a list: {other:?}"),
        }
    }

    #[test]
    fn repr_escapes_a_quote_as_cpython() {
        let mut out = String::new();
        bytearray_repr_fmt(b"it's\\\x00\x7f", &mut out).expect("formats");
        assert_eq!(out, r#"bytearray(b"it\'s\\\x00\x7f")"#);
        out.clear();
        bytearray_repr_fmt(b"'\"", &mut out).expect("formats");
        assert_eq!(out, r#"bytearray(b'\'"')"#);
    }

    #[test]
    fn mutates_in_place_as_cpython() {
        let got = run(r#"
b = bytearray(b"header:")
alias = b
b.extend(b"body")
b.append(33)
b[0] = ord("H")
b += b"!!"
del b[1:3]
b[0:1] = [104, 105]
b.insert(-1, 63)
[repr(alias), str(b.pop()), repr(b[1:4]), repr(b.upper()), repr(b"x" + b), repr(b.split(b":"))]
"#);
        assert_eq!(
            got,
            [
                "bytearray(b'hider:body!!?!')",
                "33",
                "bytearray(b'ide')",
                "bytearray(b'HIDER:BODY!!?')",
                "b'xhider:body!!?'",
                "[bytearray(b'hider'), bytearray(b'body!!?')]",
            ]
        );
    }

    #[test]
    fn errors_carry_cpython_texts() {
        let got = run(r#"
out = []
b = bytearray(b"ab")
for f in [lambda: hash(b), lambda: b[5], lambda: b.append(256), lambda: b.extend(5), lambda: b + "x", lambda: bytearray([300])]:
    try:
        f()
    except Exception as e:
        out.append(str(e))
out
"#);
        assert_eq!(
            got,
            [
                "unhashable type: 'bytearray'",
                "bytearray index out of range",
                "byte must be in range(0, 256)",
                "can't extend bytearray with int",
                "can't concat str to bytearray",
                "byte must be in range(0, 256)",
            ]
        );
    }
}
