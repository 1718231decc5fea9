//! hwf: unbound methods of builtin types (`str.lower`, `dict.get`,
//! `list.append`, …), as `sorted(xs, key=str.lower)` and `map(str.strip,
//! xs)` use them. Calling one with `(obj, *args)` checks that `obj` is an
//! instance of the type and calls `obj.name(*args)`, as CPython's
//! `method_descriptor` does.
//!
//! hwf: bound methods of builtin values (`xs.append`, `d.get`, `", ".join`)
//! as values, as `max(d, key=d.get)` and `f = xs.append; f(1)` use them: a
//! [`BoundMethod`] of the receiver and its type's descriptor. Only names
//! that are methods of the type bind, so a mistyped `result.summary` on a
//! dict still raises `AttributeError`.

use serde::{Deserialize, Serialize};

use crate::{
    bytecode::VM,
    exception_private::RunResult,
    heap::{HeapData, HeapId, HeapItem, HeapObjectRead},
    intern::StringId,
    types::{BoundMethod, PyTrait, Type},
    value::{EitherStr, Value},
};

/// CPython's public methods of `str` (`dir(str)` without dunders).
const STR_METHODS: &[&str] = &[
    "capitalize", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find", "format", "format_map",
    "index", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower", "isnumeric",
    "isprintable", "isspace", "istitle", "isupper", "join", "ljust", "lower", "lstrip", "maketrans", "partition",
    "removeprefix", "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition", "rsplit", "rstrip", "split",
    "splitlines", "startswith", "strip", "swapcase", "title", "translate", "upper", "zfill",
];
/// CPython's public methods of `bytes`.
const BYTES_METHODS: &[&str] = &[
    "capitalize", "center", "count", "decode", "endswith", "expandtabs", "find", "fromhex", "hex", "index", "isalnum",
    "isalpha", "isascii", "isdigit", "islower", "isspace", "istitle", "isupper", "join", "ljust", "lower", "lstrip",
    "maketrans", "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition",
    "rsplit", "rstrip", "split", "splitlines", "startswith", "strip", "swapcase", "title", "translate", "upper", "zfill",
];
/// CPython's public methods of `list`.
const LIST_METHODS: &[&str] = &[
    "append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove", "reverse", "sort",
];
/// CPython's public methods of `dict` (also `defaultdict`'s).
const DICT_METHODS: &[&str] = &[
    "clear", "copy", "fromkeys", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values",
];
/// What `Counter` adds to `dict`'s methods.
const COUNTER_METHODS: &[&str] = &["elements", "most_common", "subtract", "total"];
/// CPython's public methods of `set`.
const SET_METHODS: &[&str] = &[
    "add", "clear", "copy", "difference", "difference_update", "discard", "intersection", "intersection_update",
    "isdisjoint", "issubset", "issuperset", "pop", "remove", "symmetric_difference", "symmetric_difference_update",
    "union", "update",
];
/// CPython's public methods of `frozenset`.
const FROZENSET_METHODS: &[&str] = &[
    "copy", "difference", "intersection", "isdisjoint", "issubset", "issuperset", "symmetric_difference", "union",
];
/// CPython's public methods of `tuple`.
const TUPLE_METHODS: &[&str] = &["count", "index"];
/// CPython's public methods of `int` (its data attributes `real`, `imag`,
/// `numerator`, `denominator` are not methods).
const INT_METHODS: &[&str] = &["as_integer_ratio", "bit_count", "bit_length", "conjugate", "from_bytes", "to_bytes"];
/// CPython's public methods of `float`.
const FLOAT_METHODS: &[&str] = &["as_integer_ratio", "conjugate", "fromhex", "hex", "is_integer"];

/// Whether `name` is a method of the builtin type `ty`, as CPython's
/// `dir(ty)` lists it. False for every other type.
pub(crate) fn is_builtin_method(ty: Type, name: &str) -> bool {
    let names: &[&str] = match ty {
        Type::Str => STR_METHODS,
        Type::Bytes => BYTES_METHODS,
        Type::List => LIST_METHODS,
        Type::Dict | Type::DefaultDict => DICT_METHODS,
        Type::Counter => return DICT_METHODS.contains(&name) || COUNTER_METHODS.contains(&name),
        Type::Set => SET_METHODS,
        Type::FrozenSet => FROZENSET_METHODS,
        Type::Tuple => TUPLE_METHODS,
        Type::Int | Type::Bool => INT_METHODS,
        Type::Float => FLOAT_METHODS,
        _ => return false,
    };
    names.contains(&name)
}

/// `receiver.attr` as a value when `attr` names a method of the receiver's
/// builtin type: a [`BoundMethod`] whose function is the type's
/// [`MethodDescriptor`], so calling it is `receiver.attr(*args)`. `None`
/// when it names no method (the caller raises `AttributeError`).
pub(crate) fn bind_builtin_method(receiver: &Value, attr: &EitherStr, vm: &mut VM<'_>) -> Option<Value> {
    let EitherStr::Interned(name) = attr else {
        return None;
    };
    let ty = receiver.py_type(vm);
    if !is_builtin_method(ty, vm.interns.get_str(*name)) {
        return None;
    }
    let func = Value::Ref(vm.heap.allocate(HeapData::MethodDescriptor(MethodDescriptor { ty, name: *name })));
    let instance = receiver.clone_with_heap(vm.heap);
    Some(Value::Ref(
        vm.heap.allocate(HeapData::BoundMethod(BoundMethod { instance, func })),
    ))
}

/// `<method 'name' of 'type' objects>`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(crate) struct MethodDescriptor {
    /// The builtin type the method belongs to.
    pub ty: Type,
    /// The method name.
    pub name: StringId,
}

impl MethodDescriptor {
    /// The builtin types whose instance methods can be taken unbound.
    pub(crate) fn supports(ty: Type) -> bool {
        matches!(
            ty,
            Type::Str | Type::Bytes | Type::List | Type::Dict | Type::Set | Type::FrozenSet | Type::Tuple | Type::Int | Type::Float
        )
    }
}

impl HeapItem for MethodDescriptor {
    fn py_dec_ref_ids(&mut self, _stack: &mut Vec<HeapId>) {}
}

impl<'h> PyTrait<'h> for HeapObjectRead<'h, MethodDescriptor> {
    fn py_type(&self, _: &VM<'h>) -> Type {
        Type::BuiltinFunction
    }

    fn py_len(&self, _: &VM<'h>) -> Option<usize> {
        None
    }

    fn py_eq_impl(&self, _: &Value, _: &mut VM<'h>) -> RunResult<Option<bool>> {
        Ok(None)
    }
}
