//! hwf: unbound methods of builtin types (`str.lower`, `dict.get`,
//! `list.append`, …), as `sorted(xs, key=str.lower)` and `map(str.strip,
//! xs)` use them. Calling one with `(obj, *args)` checks that `obj` is an
//! instance of the type and calls `obj.name(*args)`, as CPython's
//! `method_descriptor` does.

use serde::{Deserialize, Serialize};

use crate::{
    bytecode::VM,
    exception_private::RunResult,
    heap::{HeapId, HeapItem, HeapObjectRead},
    intern::StringId,
    types::{PyTrait, Type},
    value::Value,
};

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
