//! Unary, binary and in-place operation helpers for the VM.

use super::VM;
use crate::{
    bytecode::op::Opcode,
    defer_drop,
    exception_private::{ExcType, ExcTypeExt, RunError, RunResult},
    heap::{DropGuard, HeapData},
    resource_checks::check_repeat_size,
    types::{PyTrait, Str},
    value::Value,
};

impl VM<'_> {
    /// Unary minus (`-x`).
    pub(super) fn unary_neg(&mut self) -> Result<(), RunError> {
        self.unary_op(PyTrait::py_neg_impl, "-")
    }

    /// Unary plus (`+x`) — an identity for numbers, but not for `bool`
    /// (`+True` is `1`) or a `Counter` (which drops its non-positive counts).
    pub(super) fn unary_pos(&mut self) -> Result<(), RunError> {
        self.unary_op(PyTrait::py_pos_impl, "+")
    }

    /// Binary addition.
    pub(super) fn binary_add(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_add(rhs, vm))
    }

    /// Binary subtraction.
    pub(super) fn binary_sub(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_sub(rhs, vm))
    }

    /// Binary multiplication.
    pub(super) fn binary_mult(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_mul(rhs, vm))
    }

    /// Binary division.
    pub(super) fn binary_div(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_truediv(rhs, vm))
    }

    /// Binary floor division.
    pub(super) fn binary_floordiv(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_floordiv(rhs, vm))
    }

    /// Binary modulo.
    pub(super) fn binary_mod(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_mod(rhs, vm))
    }

    /// Binary power.
    #[inline(never)]
    pub(super) fn binary_pow(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_pow(rhs, None, vm))
    }

    /// Binary `&`.
    pub(super) fn binary_and(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_and(rhs, vm))
    }

    /// Binary `|`.
    pub(super) fn binary_or(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_or(rhs, vm))
    }

    /// Binary `^`.
    pub(super) fn binary_xor(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_xor(rhs, vm))
    }

    /// Binary left shift.
    pub(super) fn binary_lshift(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_lshift(rhs, vm))
    }

    /// Binary right shift.
    pub(super) fn binary_rshift(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_rshift(rhs, vm))
    }

    /// In-place addition.
    ///
    /// Mutable types (a list, a `Counter`, a `deque` whose `+=` is `extend`)
    /// mutate through `py_iadd_impl` and keep their identity, so an alias sees
    /// the update; immutable ones fall back to ordinary addition. Uses lazy type
    /// capture: only calls `py_type()` in error paths.
    pub(super) fn inplace_add(&mut self) -> Result<(), RunError> {
        if self.append_str_in_place()? {
            return Ok(());
        }
        self.inplace_op(PyTrait::py_iadd_impl, |lhs, rhs, vm| {
            if let Some(value) = lhs.py_add_result(rhs, vm)? {
                Ok(value)
            } else {
                let lhs_type = lhs.py_type(vm);
                Err(ExcType::binary_type_error(
                    "+=",
                    lhs_type,
                    lhs.py_type_name(vm),
                    rhs.py_type_name(vm),
                ))
            }
        })
    }

    /// hwf: `s += t` for strings, appended to `s`'s own buffer when nothing
    /// can tell: `s` is a heap string held only by the operand stack and by
    /// the variable the next instruction stores the result into (a local
    /// or a global), and no reader borrows it. CPython makes the same
    /// check (`unicode_concatenate`) and resizes the string in place, which
    /// makes the report-building loop `s += f"..."` linear; a new string
    /// per step made it quadratic (200,000 lines took 18 s, CPython 0.1 s).
    /// Returns whether it appended (then `t` is popped and `s` stays on the
    /// stack for the store); anything else goes the ordinary way.
    fn append_str_in_place(&mut self) -> RunResult<bool> {
        let len = self.stack.len();
        let Value::Ref(lhs_id) = self.stack[len - 2] else {
            return Ok(false);
        };
        let HeapData::Str(lhs) = self.heap.get(lhs_id) else {
            return Ok(false);
        };
        let lhs_len = lhs.len();
        let tail_len = match &self.stack[len - 1] {
            Value::InternString(id) => self.interns.get_str(*id).len(),
            Value::Ref(id) => match self.heap.get(*id) {
                HeapData::Str(tail) => tail.len(),
                _ => return Ok(false),
            },
            _ => return Ok(false),
        };
        // The store that follows must overwrite the very variable `s` came from.
        let frame = &self.current_frame;
        let operand = |at: usize| frame.bytecode.get(frame.ip + at).copied();
        let wide = || Some(usize::from(u16::from_le_bytes([operand(1)?, operand(2)?])));
        let target = match operand(0).and_then(Opcode::from_repr) {
            Some(Opcode::StoreLocal) => {
                operand(1).and_then(|slot| self.stack.get(frame.stack_base + usize::from(slot)))
            }
            Some(Opcode::StoreLocalW) => wide().and_then(|slot| self.stack.get(frame.stack_base + slot)),
            Some(Opcode::StoreGlobal) => wide().and_then(|slot| self.globals.get(slot)),
            _ => None,
        };
        if !matches!(target, Some(Value::Ref(id)) if *id == lhs_id) || !self.heap.held_only_by(lhs_id, 2) {
            return Ok(false);
        }
        check_repeat_size(lhs_len.saturating_add(tail_len), 1, &self.heap.tracker)?;
        let Some(mut lhs) = self.heap.read_as::<Str>(lhs_id) else {
            return Ok(false);
        };
        let mut buffer = lhs.get_mut(self.heap).take_to_append();
        match &self.stack[len - 1] {
            Value::InternString(id) => buffer.push_str(self.interns.get_str(*id)),
            Value::Ref(id) => {
                if let HeapData::Str(tail) = self.heap.get(*id) {
                    buffer.push_str(tail.as_str());
                }
            }
            _ => {}
        }
        lhs.get_mut(self.heap).put_back(buffer);
        drop(lhs);
        let tail = self.pop();
        tail.drop_with(self);
        Ok(true)
    }

    /// `-=` — an in-place mutation (a `Counter` subtracts counts), or binary `-`.
    pub(super) fn inplace_sub(&mut self) -> Result<(), RunError> {
        self.inplace_op(PyTrait::py_isub_impl, |lhs, rhs, vm| {
            lhs.py_inplace_fallback(rhs, vm, "-=")
        })
    }

    /// `&=` — an in-place mutation (a `Counter` intersects counts), or binary `&`.
    pub(super) fn inplace_and(&mut self) -> Result<(), RunError> {
        self.inplace_op(PyTrait::py_iand_impl, |lhs, rhs, vm| {
            lhs.py_inplace_fallback(rhs, vm, "&=")
        })
    }

    /// `|=` — an in-place mutation (a `Counter` unions counts), or binary `|`.
    pub(super) fn inplace_or(&mut self) -> Result<(), RunError> {
        self.inplace_op(PyTrait::py_ior_impl, |lhs, rhs, vm| {
            lhs.py_inplace_fallback(rhs, vm, "|=")
        })
    }

    /// hwf: `^=` — an in-place mutation (a set's symmetric difference), or
    /// binary `^`.
    pub(super) fn inplace_xor(&mut self) -> Result<(), RunError> {
        self.inplace_op(PyTrait::py_ixor_impl, |lhs, rhs, vm| {
            lhs.py_inplace_fallback(rhs, vm, "^=")
        })
    }

    /// Binary matrix multiplication (`@` operator).
    pub(super) fn binary_matmul(&mut self) -> Result<(), RunError> {
        self.binary_op(|lhs, rhs, vm| lhs.py_matmul(rhs, vm))
    }

    /// hwf: the fast path of an arithmetic or comparison opcode whose two
    /// operands are both `int` (64-bit; a `bool` counts as its 0 or 1, as
    /// CPython's `bool` is an `int`) or both `float`, or an int below 2^53
    /// and a float (the int converts exactly, as CPython converts it), as
    /// CPython's specialised `BINARY_OP_ADD_INT` & co.: `int_op` / `float_op`
    /// give the result, which replaces the two operands on the stack without
    /// the `py_*` dispatch. Returns `false`, the stack untouched, for any
    /// other operands (two bools among them) or when the op declines
    /// (`None`: an int overflow, a zero divisor), so the general path runs
    /// with its long ints and errors.
    #[inline(always)]
    pub(super) fn fast_numeric(
        &mut self,
        int_op: impl FnOnce(i64, i64) -> Option<Value>,
        float_op: impl FnOnce(f64, f64) -> Option<Value>,
    ) -> bool {
        let len = self.stack.len();
        if len < 2 {
            return false;
        }
        let result = match (&self.stack[len - 2], &self.stack[len - 1]) {
            (Value::Int(a), Value::Int(b)) => int_op(*a, *b),
            (Value::Float(a), Value::Float(b)) => float_op(*a, *b),
            (Value::Int(a), Value::Bool(b)) => int_op(*a, i64::from(*b)),
            (Value::Bool(a), Value::Int(b)) => int_op(i64::from(*a), *b),
            (Value::Int(a), Value::Float(b)) if a.unsigned_abs() < EXACT_IN_F64 => float_op(*a as f64, *b),
            (Value::Float(a), Value::Int(b)) if b.unsigned_abs() < EXACT_IN_F64 => float_op(*a, *b as f64),
            _ => None,
        };
        let Some(result) = result else {
            return false;
        };
        // Both operands are immediates: nothing to release.
        self.stack.truncate(len - 1);
        self.stack[len - 2] = result;
        true
    }

    /// hwf: `xs[i]` for a list or tuple `xs` and an int `i` in range, as
    /// CPython's `BINARY_SUBSCR_LIST_INT`: the item replaces the two
    /// operands. `false`, the stack untouched, for anything else (the
    /// general path raises `IndexError` and handles slices, dicts, ...).
    #[inline(always)]
    pub(super) fn fast_subscr(&mut self) -> bool {
        let len = self.stack.len();
        if len < 2 {
            return false;
        }
        let (Value::Ref(id), Value::Int(index)) = (&self.stack[len - 2], &self.stack[len - 1]) else {
            return false;
        };
        let items = match self.heap.get(*id) {
            HeapData::List(list) => list.as_slice(),
            HeapData::Tuple(tuple) => tuple.as_slice(),
            _ => return false,
        };
        let count = items.len() as i64;
        let at = if *index < 0 { *index + count } else { *index };
        if at < 0 || at >= count {
            return false;
        }
        #[expect(clippy::cast_sign_loss, clippy::cast_possible_truncation, reason = "0 <= at < len")]
        let item = items[at as usize].clone_with_heap(self.heap);
        self.stack.truncate(len - 1);
        let container = self.pop();
        container.drop_with(self);
        self.push(item);
        true
    }

    /// Applies a unary operation while owning stack-value cleanup, raising
    /// CPython's `TypeError` (naming `symbol`) when the type has no such form.
    fn unary_op(
        &mut self,
        operation: impl FnOnce(&Value, &mut Self) -> RunResult<Option<Value>>,
        symbol: &str,
    ) -> Result<(), RunError> {
        let this = self;

        let value = this.pop();
        defer_drop!(value, this);

        if let Some(result) = operation(value, this)? {
            this.push(result);
            Ok(())
        } else {
            Err(ExcType::unary_type_error(symbol, &value.py_type_name(this)))
        }
    }

    /// Applies a binary operation while owning stack-value cleanup.
    fn binary_op(
        &mut self,
        operation: impl FnOnce(&Value, &Value, &mut Self) -> RunResult<Value>,
    ) -> Result<(), RunError> {
        let this = self;

        let rhs = this.pop();
        defer_drop!(rhs, this);
        let lhs = this.pop();
        defer_drop!(lhs, this);

        let result = operation(lhs, rhs, this)?;
        this.push(result);
        Ok(())
    }

    /// Applies an in-place operation, offering the left operand `inplace` (its
    /// `py_i*_impl` hook) first and otherwise falling back to `binary`.
    ///
    /// A hook reporting `true` has mutated the left operand, which is pushed
    /// back so it keeps its identity; `false` means the type has no in-place
    /// form and the ordinary binary operator produces a fresh value.
    fn inplace_op(
        &mut self,
        inplace: impl FnOnce(&mut Value, &Value, &mut Self) -> RunResult<bool>,
        binary: impl FnOnce(&Value, &Value, &mut Self) -> RunResult<Value>,
    ) -> Result<(), RunError> {
        let this = self;

        let rhs = this.pop();
        defer_drop!(rhs, this);
        // A `DropGuard` rather than `defer_drop!`: a successful in-place operation
        // reclaims the left operand to push it back onto the stack.
        let mut lhs_guard = DropGuard::new(this.pop(), this);
        let (lhs, this) = lhs_guard.as_parts_mut();

        if inplace(lhs, rhs, this)? {
            let (lhs, this) = lhs_guard.into_parts();
            this.push(lhs);
            Ok(())
        } else {
            let result = binary(lhs, rhs, this)?;
            this.push(result);
            Ok(())
        }
    }
}

/// Magnitudes below this convert to an `f64` exactly.
const EXACT_IN_F64: u64 = 1 << 53;

/// hwf: `a / b` of two ints as a float when both are exact in an `f64`
/// (below 2^53, so the one rounding of the division is CPython's correctly
/// rounded result); `None` (the general path) otherwise or for `b == 0`.
pub(super) fn int_true_div(a: i64, b: i64) -> Option<Value> {
    if b == 0 || a.unsigned_abs() >= EXACT_IN_F64 || b.unsigned_abs() >= EXACT_IN_F64 {
        return None;
    }
    Some(Value::Float(a as f64 / b as f64))
}

/// hwf: Python's `a // b` of two ints (rounding toward negative infinity);
/// `None` for `b == 0` and the one overflow (`i64::MIN // -1`).
pub(super) fn int_floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        Some(q - 1)
    } else {
        Some(q)
    }
}

/// hwf: Python's `a % b` of two ints (the sign of `b`); `None` for `b == 0`.
pub(super) fn int_mod(a: i64, b: i64) -> Option<i64> {
    let r = a.checked_rem(b)?;
    if r != 0 && ((r < 0) != (b < 0)) {
        Some(r + b)
    } else {
        Some(r)
    }
}
