//! hwf: `types.UnionType`, the value of `int | float` or `str | None`
//! (PEP 604), as modern scripts pass it to `isinstance(x, int | float)`.
//!
//! Its members are builtin types and exception types (`None` stands for
//! `NoneType`); a user class in a union is not supported (the seed's scripts
//! cannot define classes). `|` flattens and deduplicates as CPython does:
//! `int | str | int` is `int | str`, `int | int` is `int` itself.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::{
    builtins::Builtins,
    bytecode::VM,
    exception_private::RunResult,
    heap::{HeapData, HeapId, HeapItem, HeapObjectRead, HeapReadOutput},
    types::{LazyHeapSet, PyTrait, Type},
    value::Value,
};

/// One member of a union: a builtin type or an exception type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum UnionMember {
    /// `int`, `str`, `NoneType` (written `None`), …
    Type(Type),
    /// `ValueError`, …
    Exc(crate::exception_private::ExcType),
}

impl UnionMember {
    /// The member as the value `isinstance` takes.
    pub(crate) fn value(self) -> Value {
        match self {
            Self::Type(t) => Value::Builtin(Builtins::Type(t)),
            Self::Exc(e) => Value::Builtin(Builtins::ExcType(e)),
        }
    }
}

/// `int | None`: the members in the order written, without repeats.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct UnionType {
    /// At least two distinct members.
    pub(crate) members: Vec<UnionMember>,
}

/// The members an operand of `|` brings to a union: a type, `None`, or a
/// union's members. `None` when it is none of those (the `|` is then some
/// other operation or a `TypeError`).
fn members_of(value: &Value, vm: &VM<'_>) -> Option<Vec<UnionMember>> {
    match value {
        Value::Builtin(Builtins::Type(t)) => Some(vec![UnionMember::Type(*t)]),
        Value::Builtin(Builtins::ExcType(e)) => Some(vec![UnionMember::Exc(*e)]),
        Value::None => Some(vec![UnionMember::Type(Type::NoneType)]),
        Value::Ref(id) => match vm.heap.get(*id) {
            HeapData::UnionType(u) => Some(u.members.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// `lhs | rhs` when both are types, `None` or unions and at least one is a
/// type or a union (`None | None` stays a `TypeError`): the union, or the
/// single type when both sides are the same one.
pub(crate) fn union_or(lhs: &Value, rhs: &Value, vm: &mut VM<'_>) -> Option<Value> {
    if matches!((lhs, rhs), (Value::None, Value::None)) {
        return None;
    }
    let mut members = members_of(lhs, vm)?;
    for m in members_of(rhs, vm)? {
        if !members.contains(&m) {
            members.push(m);
        }
    }
    if let [only] = members.as_slice() {
        return Some(only.value());
    }
    Some(Value::Ref(vm.heap.allocate(HeapData::UnionType(UnionType { members }))))
}

/// The members of `value` when it is a union (for `isinstance` /
/// `issubclass`).
pub(crate) fn union_members(value: &Value, vm: &VM<'_>) -> Option<Vec<UnionMember>> {
    match value {
        Value::Ref(id) => match vm.heap.read(*id) {
            HeapReadOutput::UnionType(u) => Some(u.get(vm.heap).members.clone()),
            _ => None,
        },
        _ => None,
    }
}

impl HeapItem for UnionType {
    fn py_dec_ref_ids(&mut self, _stack: &mut Vec<HeapId>) {}
}

impl<'h> PyTrait<'h> for HeapObjectRead<'h, UnionType> {
    fn py_type(&self, _: &VM<'h>) -> Type {
        Type::UnionType
    }

    fn py_len(&self, _: &VM<'h>) -> Option<usize> {
        None
    }

    /// Equal to a union of the same members in any order, as CPython.
    fn py_eq_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<bool>> {
        let Some(theirs) = union_members(other, vm) else {
            return Ok(Some(false));
        };
        let ours = &self.get(vm.heap).members;
        Ok(Some(
            ours.len() == theirs.len() && ours.iter().all(|m| theirs.contains(m)),
        ))
    }

    /// `int | None`: each member's name, `None` for `NoneType`.
    fn py_repr_fmt(&self, f: &mut impl Write, vm: &mut VM<'h>, _heap_ids: &mut LazyHeapSet) -> RunResult<()> {
        for (i, m) in self.get(vm.heap).members.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            match m {
                UnionMember::Type(Type::NoneType) => f.write_str("None")?,
                UnionMember::Type(t) => write!(f, "{t}")?,
                UnionMember::Exc(e) => write!(f, "{e}")?,
            }
        }
        Ok(())
    }
}
