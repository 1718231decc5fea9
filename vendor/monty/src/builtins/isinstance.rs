//! Implementation of the isinstance() builtin function.

use super::Builtins;
use crate::{
    args::ArgValues,
    bytecode::VM,
    defer_drop,
    exception_private::{ExcType, ExcTypeExt, RunResult, SimpleException},
    heap::{HeapData, HeapId, HeapRead, HeapReadOutput},
    types::{PyTrait, Tuple, Type, union_type::union_members},
    value::Value,
};

/// Implementation of the isinstance() builtin function.
///
/// Checks if an object is an instance of a class or a tuple of classes.
pub fn builtin_isinstance(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (obj, classinfo) = args.get_two_args("isinstance", vm.heap)?;
    defer_drop!(obj, vm);
    defer_drop!(classinfo, vm);

    isinstance_check(obj, classinfo, vm).map(Value::Bool)
}

/// hwf: `issubclass(cls, classinfo)` for builtin types, exception types and
/// classes (a class is a subclass of itself only: Monty's classes have no
/// bases to walk), with a tuple of them as `classinfo`.
pub fn builtin_issubclass(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (cls, classinfo) = args.get_two_args("issubclass", vm.heap)?;
    defer_drop!(cls, vm);
    defer_drop!(classinfo, vm);
    if !is_class(cls, vm) {
        return Err(SimpleException::new_msg(ExcType::TypeError, "issubclass() arg 1 must be a class").into());
    }
    issubclass_check(cls, classinfo, vm).map(Value::Bool)
}

/// Whether `value` is a class object `issubclass` takes as its first argument.
fn is_class(value: &Value, vm: &VM<'_>) -> bool {
    match value {
        Value::Builtin(Builtins::Type(_) | Builtins::ExcType(_)) => true,
        Value::Ref(id) => matches!(
            vm.heap.get(*id),
            HeapData::Class(_) | HeapData::NamedTupleClass(_) | HeapData::HostClassType(_)
        ),
        _ => false,
    }
}

/// One `classinfo` entry (or a tuple of them) against the class `cls`.
fn issubclass_check(cls: &Value, classinfo: &Value, vm: &mut VM<'_>) -> RunResult<bool> {
    let cls_type = match cls {
        Value::Builtin(Builtins::Type(t)) => Some(*t),
        Value::Builtin(Builtins::ExcType(e)) => Some(Type::Exception(*e)),
        _ => None,
    };
    match classinfo {
        Value::Builtin(Builtins::Type(t)) => Ok(cls_type.is_some_and(|c| c.is_instance_of(*t))),
        Value::Builtin(Builtins::ExcType(handler)) => {
            Ok(matches!(cls_type, Some(Type::Exception(exc)) if exc.is_subclass_of(*handler)))
        }
        Value::Ref(id) if let HeapReadOutput::Tuple(tuple) = vm.heap.read(*id) => {
            let len = tuple.get(vm.heap).as_slice().len();
            let mut guard = vm.recursion_guard()?;
            let vm = &mut *guard;
            for i in 0..len {
                let entry = tuple.get(vm.heap).as_slice()[i].clone_with_heap(vm.heap);
                defer_drop!(entry, vm);
                if issubclass_check(cls, entry, vm)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Value::Ref(id) if is_class(classinfo, vm) => Ok(matches!(cls, Value::Ref(c) if c == id)),
        // hwf: `issubclass(bool, int | str)`.
        Value::Ref(_) if let Some(members) = union_members(classinfo, vm) => {
            for m in members {
                if issubclass_check(cls, &m.value(), vm)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        _ => Err(SimpleException::new_msg(
            ExcType::TypeError,
            "issubclass() arg 2 must be a class, a tuple of classes, or a union",
        )
        .into()),
    }
}

/// Checks if `obj` matches a single classinfo entry.
///
/// Supports:
/// - Single builtin types: `isinstance(x, int)`
/// - Exception types and their hierarchy: `isinstance(err, LookupError)`
/// - User-defined classes: `isinstance(obj, Foo)` (identity of the instance's
///   class; there is no inheritance chain to walk yet)
/// - Host classes: `isinstance(obj, Point)` for a `HostClassType` (exact class
///   id; the host sends no bases)
/// - Tuples (possibly nested) of the above
fn isinstance_check(obj: &Value, classinfo: &Value, vm: &mut VM<'_>) -> RunResult<bool> {
    match classinfo {
        Value::Builtin(Builtins::Type(t)) => Ok(obj.py_type(vm).is_instance_of(*t)),
        Value::Builtin(Builtins::ExcType(handler_type)) => {
            Ok(matches!(obj.py_type(vm), Type::Exception(exc_type) if exc_type.is_subclass_of(*handler_type)))
        }
        // hwf: `map`, `filter`, `zip`, `enumerate`, `reversed` are types in
        // CPython; here `map`, `filter` and `reversed` build lists, so no
        // value is one of them, and `zip` / `enumerate` iterate a list they
        // built (`is_zip_or_enumerate_object`).
        v if is_eager_iterator_type(v) => Ok(is_zip_or_enumerate_object(obj, v, vm)),
        // A user-defined class: true iff `obj` is an instance of exactly this class.
        Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::Class(_)) => Ok(instance_of_class(obj, *id, vm)),
        // A `collections.namedtuple` class, matched by the instance's `class_id`.
        Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::NamedTupleClass(_)) => {
            Ok(instance_of_namedtuple_class(obj, *id, vm))
        }
        Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::HostClassType(_)) => {
            Ok(instance_of_host_class(obj, *id, vm))
        }
        Value::Ref(id) if let HeapReadOutput::Tuple(tuple) = vm.heap.read(*id) => {
            isinstance_check_tuple(obj, &tuple, vm)
        }
        // hwf: `isinstance(x, int | float)`, `isinstance(v, str | None)`.
        Value::Ref(_) if let Some(members) = union_members(classinfo, vm) => {
            for m in members {
                if isinstance_check(obj, &m.value(), vm)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        _ => Err(ExcType::isinstance_arg2_error()),
    }
}

/// hwf: whether `value` names one of CPython's lazy iterator types that hwf
/// implements as functions returning a list (`isinstance(v, (map, zip))` in
/// a "materialise if lazy" helper is then false rather than a `TypeError`).
fn is_eager_iterator_type(value: &Value) -> bool {
    use crate::builtins::BuiltinsFunctions as F;
    matches!(
        value,
        Value::Builtin(Builtins::Function(
            F::Map | F::Filter | F::Zip | F::Enumerate | F::Reversed
        ))
    )
}

/// hwf: whether `obj` may be what `zip(...)` / `enumerate(...)` returned
/// when `classinfo` is one of them: those return a list iterator (over the
/// tuples they built up front), so any list iterator counts; `isinstance(
/// iter(xs), zip)` is true here where CPython says false, which a
/// "materialise if lazy" helper (`list(v) if isinstance(v, zip) else v`)
/// cannot tell apart.
fn is_zip_or_enumerate_object(obj: &Value, classinfo: &Value, vm: &VM<'_>) -> bool {
    use crate::builtins::BuiltinsFunctions as F;
    matches!(classinfo, Value::Builtin(Builtins::Function(F::Zip | F::Enumerate)))
        && matches!(obj, Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::ListIterator(_)))
}

/// Whether `obj` is a host instance whose class entry is `class_id` (exact
/// class only: the host never sends bases, so subclasses are unknown).
fn instance_of_host_class(obj: &Value, class_id: HeapId, vm: &VM<'_>) -> bool {
    matches!(obj, Value::Ref(obj_id) if matches!(vm.heap.get(*obj_id), HeapData::HostClass(hc) if hc.class_id() == class_id))
}

/// Whether `obj` is an instance whose class object is `class_id`.
fn instance_of_class(obj: &Value, class_id: HeapId, vm: &VM<'_>) -> bool {
    matches!(obj, Value::Ref(obj_id) if matches!(vm.heap.get(*obj_id), HeapData::Instance(inst) if inst.class() == class_id))
}

/// Whether `obj` is a namedtuple instance built from the class `class_id`.
///
/// Instances created by Monty internally (`sys.version_info`, host imports)
/// carry no `class_id`, so they never match a factory class.
fn instance_of_namedtuple_class(obj: &Value, class_id: HeapId, vm: &VM<'_>) -> bool {
    matches!(obj, Value::Ref(obj_id) if matches!(vm.heap.get(*obj_id), HeapData::NamedTuple(nt) if nt.class_id() == Some(class_id)))
}

/// Recursively walks a tuple of classinfo entries.
fn isinstance_check_tuple<'h>(obj: &Value, tuple: &HeapRead<'h, Tuple>, vm: &mut VM<'h>) -> RunResult<bool> {
    let len = tuple.get(vm.heap).as_slice().len();
    let mut guard = vm.recursion_guard()?;
    let vm = &mut *guard;
    for i in 0..len {
        match &tuple.get(vm.heap).as_slice()[i] {
            Value::Builtin(Builtins::Type(t)) => {
                if obj.py_type(vm).is_instance_of(*t) {
                    return Ok(true);
                }
            }
            Value::Builtin(Builtins::ExcType(exc)) => {
                if matches!(obj.py_type(vm), Type::Exception(et) if et.is_subclass_of(*exc)) {
                    return Ok(true);
                }
            }
            v if is_eager_iterator_type(v) => {
                if is_zip_or_enumerate_object(obj, v, vm) {
                    return Ok(true);
                }
            }
            Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::Class(_)) => {
                if instance_of_class(obj, *id, vm) {
                    return Ok(true);
                }
            }
            Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::NamedTupleClass(_)) => {
                if instance_of_namedtuple_class(obj, *id, vm) {
                    return Ok(true);
                }
            }
            Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::HostClassType(_)) => {
                if instance_of_host_class(obj, *id, vm) {
                    return Ok(true);
                }
            }
            Value::Ref(nested_id) if let HeapReadOutput::Tuple(nested) = vm.heap.read(*nested_id) => {
                if isinstance_check_tuple(obj, &nested, vm)? {
                    return Ok(true);
                }
            }
            // hwf: `isinstance(x, (str, int | float))`.
            entry if let Some(members) = union_members(entry, vm) => {
                for m in members {
                    if isinstance_check(obj, &m.value(), vm)? {
                        return Ok(true);
                    }
                }
            }
            _ => return Err(ExcType::isinstance_arg2_error()),
        }
    }
    Ok(false)
}
