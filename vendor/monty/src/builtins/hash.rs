//! Implementation of the hash() builtin function.

use crate::{
    args::ArgValues,
    bytecode::VM,
    defer_drop,
    exception_private::{ExcType, ExcTypeExt, RunResult},
    value::Value,
};

/// Implementation of the hash() builtin function.
///
/// Returns the hash value of an object (if it has one).
/// Raises TypeError for unhashable types like lists and dicts.
pub fn builtin_hash(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("hash", vm.heap)?;
    defer_drop!(value, vm);
    // hwf: CPython 3.11's `hash()` (the seed's, under `PYTHONHASHSEED=0`)
    // wherever it does not depend on the process: `hash("abc")`,
    // `hash((1, "a"))`, `hash(1.5)`, `hash(2 ** 70)` (`hash(name) % n`
    // shards the same way).
    if let Some(hash) = crate::cpython_hash::cpython_hash(value, vm) {
        return Ok(Value::Int(hash.cast_signed()));
    }
    match value.py_hash(vm)? {
        Some(hash) => {
            // Python's hash() returns a signed integer; reinterpret bits for large values
            Ok(Value::Int(hash.raw().cast_signed()))
        }
        None => Err(ExcType::type_error_unhashable(&value.py_type_name(vm))),
    }
}
