//! hwf: the `callable()` builtin.

use crate::{args::ArgValues, bytecode::VM, defer_drop, exception_private::RunResult, value::Value};

/// `callable(obj)`: whether calling `obj` would dispatch (a function, a
/// builtin, a class, a bound method, a partial…), as CPython answers it.
pub fn builtin_callable(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("callable", vm.heap)?;
    defer_drop!(value, vm);
    Ok(Value::Bool(value.is_callable(vm.heap)))
}
