//! hwf: attributes a script sets on a function or an exception instance.
//!
//! CPython gives both a `__dict__`: `wrapper.calls = []` is the usual memo or
//! decorator bookkeeping, and `err.retry_after = 30` is how a script whose
//! validator forbids `class` attaches data to an error. Monty's function
//! values had no attribute storage and its exceptions only their fixed
//! fields, so both raised `AttributeError`.
//!
//! - A function's attributes are a `Dict` owned by the function object: the
//!   heap forms (`Closure`, `FunctionDefaults`) hold it in their `attrs`
//!   field, and a plain `def` (an immediate `Value::DefFunction`) in the
//!   heap's `def_function_attrs` table, keyed by its definition. Values are
//!   shared, as in CPython (`fn.calls.append(x)` mutates the list). One
//!   difference: the same non-capturing nested `def` executed twice gives
//!   one `DefFunction`, so its attributes are shared between the two.
//! - An exception's attributes are kept with its other fields (a
//!   [`SimpleException`](crate::exception_private::SimpleException) is
//!   carried by value through `raise`), so they survive `raise`/`except`
//!   and `raise ... from`; a `list` or `dict` attribute is a copy taken when
//!   it is set, and reading it gives a new copy each time.

use monty_types::{ExcAttr, ExcObject, MontyObject};

use super::{Dict, attribute_name_value};
use crate::{
    args::ArgValues,
    bytecode::VM,
    defer_drop,
    exception_private::{ExcType, ExcTypeExt, RunResult},
    heap::{DropWithContext, HeapData, HeapId, HeapReadOutput},
    intern::FunctionId,
    object_bridge::MontyObjectExt,
    value::{EitherStr, Value},
};

/// The function object whose attributes an access names.
#[derive(Clone, Copy)]
enum Target {
    /// A plain `def` (immediate value).
    Def(FunctionId),
    /// A `Closure` or `FunctionDefaults` on the heap.
    Heap(HeapId),
}

/// The function `obj` is, if it is a script-defined function.
fn function_target(obj: &Value, vm: &VM<'_>) -> Option<Target> {
    match obj {
        Value::DefFunction(id) => Some(Target::Def(*id)),
        Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::Closure(_) | HeapData::FunctionDefaults(_)) => {
            Some(Target::Heap(*id))
        }
        _ => None,
    }
}

/// The attribute `Dict` of `target`, if an attribute was ever set on it.
fn attrs_of(target: Target, vm: &VM<'_>) -> Option<HeapId> {
    match target {
        Target::Def(func_id) => vm.heap.def_function_attrs.get(&func_id).copied(),
        Target::Heap(id) => match vm.heap.get(id) {
            HeapData::Closure(closure) => closure.attrs,
            HeapData::FunctionDefaults(function) => function.attrs,
            _ => None,
        },
    }
}

/// Whether `obj` takes script attributes here (a function or an exception).
pub(crate) fn takes_attrs(obj: &Value, vm: &VM<'_>) -> bool {
    function_target(obj, vm).is_some()
        || matches!(obj, Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::Exception(_)))
}

/// `fn.name` for an attribute a script set on the function `obj` (a new
/// reference), or `None` when `obj` is no function or has no such attribute.
pub(crate) fn get_function_attr(obj: &Value, name: &EitherStr, vm: &VM<'_>) -> Option<Value> {
    let dict_id = attrs_of(function_target(obj, vm)?, vm)?;
    let HeapData::Dict(dict) = vm.heap.get(dict_id) else {
        return None;
    };
    dict.get_by_str(name.as_str(vm.interns), vm.heap, vm.interns)
        .map(|value| value.clone_with_heap(vm.heap))
}

/// `obj.name = value` for an `obj` [`takes_attrs`] accepts; consumes `value`.
pub(crate) fn set_attr(obj: &Value, name: &EitherStr, value: Value, vm: &mut VM<'_>) -> RunResult<()> {
    if let Some(target) = function_target(obj, vm) {
        let dict_id = match attrs_of(target, vm) {
            Some(id) => id,
            None => {
                let id = vm.heap.allocate(HeapData::Dict(Dict::new()));
                match target {
                    Target::Def(func_id) => {
                        vm.heap.def_function_attrs.insert(func_id, id);
                    }
                    Target::Heap(function_id) => match vm.heap.read(function_id) {
                        HeapReadOutput::Closure(mut closure) => closure.get_mut(vm.heap).attrs = Some(id),
                        HeapReadOutput::FunctionDefaults(mut function) => function.get_mut(vm.heap).attrs = Some(id),
                        _ => {}
                    },
                }
                id
            }
        };
        let key = attribute_name_value(name, vm);
        let HeapReadOutput::Dict(mut dict) = vm.heap.read(dict_id) else {
            [key, value].drop_with(vm);
            return Ok(());
        };
        let old = dict.set(key, value, vm)?;
        old.drop_with(vm);
        return Ok(());
    }
    let Value::Ref(exc_id) = obj else {
        value.drop_with(vm);
        return Ok(());
    };
    let attr = exc_attr(&value, vm);
    value.drop_with(vm);
    let stored = match vm.heap.read(*exc_id) {
        HeapReadOutput::Exception(mut exc) => exc.get_mut(vm.heap).set_user_attr(name.as_str(vm.interns), attr),
        _ => false,
    };
    if stored {
        Ok(())
    } else {
        let type_name = obj.py_type_name(vm);
        Err(ExcType::attribute_error_no_setattr(&type_name, name.as_str(vm.interns)))
    }
}

/// `del obj.name` for an `obj` [`takes_attrs`] accepts: `Ok(true)` when it
/// removed the attribute, `Ok(false)` when `obj` has no such attribute.
pub(crate) fn delete_attr(obj: &Value, name: &EitherStr, vm: &mut VM<'_>) -> RunResult<bool> {
    if let Some(target) = function_target(obj, vm) {
        let Some(dict_id) = attrs_of(target, vm) else {
            return Ok(false);
        };
        let key = attribute_name_value(name, vm);
        let removed = match vm.heap.read(dict_id) {
            HeapReadOutput::Dict(mut dict) => dict.pop(&key, vm),
            _ => Ok(None),
        };
        key.drop_with(vm);
        return Ok(match removed? {
            Some((k, v)) => {
                [k, v].drop_with(vm);
                true
            }
            None => false,
        });
    }
    let Value::Ref(exc_id) = obj else {
        return Ok(false);
    };
    Ok(match vm.heap.read(*exc_id) {
        HeapReadOutput::Exception(mut exc) => exc.get_mut(vm.heap).delete_user_attr(name.as_str(vm.interns)),
        _ => false,
    })
}

/// The copy of `value` an exception keeps: scalars as themselves, anything
/// else as the host boundary's object model holds it.
fn exc_attr(value: &Value, vm: &mut VM<'_>) -> ExcAttr {
    match value {
        Value::None => ExcAttr::None,
        Value::Bool(b) => ExcAttr::Bool(*b),
        Value::Int(i) => ExcAttr::Int(*i),
        Value::InternString(id) => ExcAttr::Str(vm.interns.get_str(*id).to_owned()),
        Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::Str(_)) => match vm.heap.get(*id) {
            HeapData::Str(s) => ExcAttr::Str(s.as_str().to_owned()),
            _ => ExcAttr::None,
        },
        _ => ExcAttr::Object(ExcObject(MontyObject::from_value(value, vm))),
    }
}

/// hwf: whether `obj.attr(...)` is `add_note` on an exception instance.
pub(crate) fn is_add_note(obj: &Value, attr: &EitherStr, vm: &VM<'_>) -> bool {
    matches!(obj, Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::Exception(_)))
        && attr.as_str(vm.interns) == "add_note"
}

/// hwf: `exc.add_note(note)` (3.11), with CPython's `TypeError`s: the note
/// joins the exception's `__notes__` list; `str(exc)` is unchanged.
pub(crate) fn add_note(obj: &Value, args: ArgValues, vm: &mut VM<'_>) -> RunResult<Value> {
    let note = match args {
        ArgValues::One(note) => note,
        other => {
            let count = other.count();
            other.drop_with(vm);
            return Err(ExcType::type_error(format!(
                "BaseException.add_note() takes exactly one argument ({count} given)"
            )));
        }
    };
    defer_drop!(note, vm);
    let text = match note {
        Value::InternString(id) => Some(vm.interns.get_str(*id).to_owned()),
        Value::Ref(id) => match vm.heap.get(*id) {
            HeapData::Str(s) => Some(s.as_str().to_owned()),
            _ => None,
        },
        _ => None,
    };
    let Some(text) = text else {
        return Err(ExcType::type_error(format!(
            "note must be a str, not '{}'",
            note.py_type_name(vm)
        )));
    };
    let Value::Ref(exc_id) = obj else {
        return Ok(Value::None);
    };
    let stored = match vm.heap.read(*exc_id) {
        HeapReadOutput::Exception(mut exc) => exc.get_mut(vm.heap).add_note(text),
        _ => false,
    };
    if stored {
        Ok(Value::None)
    } else {
        let type_name = obj.py_type_name(vm);
        Err(ExcType::attribute_error_no_setattr(&type_name, "__notes__"))
    }
}
