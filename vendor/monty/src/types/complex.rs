//! hwf: Python's `complex`, a pair of floats.
//!
//! Built by `complex(re, im)` or `complex("1+2j")` (the parser has no `1j`
//! literal). Arithmetic with `int`, `float`, `bool` and `complex` follows
//! CPython 3.11's `complexobject.c` (an operand is widened to `complex` first;
//! `**` by a small integral exponent multiplies, any other uses the polar
//! form), as do the reprs (`(1-2j)`, `1j`, `(-0-0j)`), `abs`, `==`, `hash`
//! and the error texts. Ordering is a `TypeError`, as in CPython.

use std::fmt::Write;

use super::{PyTrait, Type};
use crate::{
    args::ArgValues,
    bytecode::{CallResult, VM},
    defer_drop,
    exception_private::{ExcType, ExcTypeExt, RunError, RunResult, SimpleException},
    fstring::FormatFloat,
    hash::HashValue,
    heap::{DropWithContext, HeapData, HeapId, HeapItem, HeapObjectRead},
    types::LazyHeapSet,
    value::{EitherStr, Value},
};

/// A `complex` number.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Complex {
    /// The real part.
    pub re: f64,
    /// The imaginary part.
    pub im: f64,
}

impl Complex {
    /// `re + im*j`.
    #[must_use]
    pub const fn new(re: f64, im: f64) -> Self {
        Self { re, im }
    }

    /// `abs(z)`: the length of the vector, `hypot(re, im)`.
    #[must_use]
    pub fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }

    /// `complex()`, `complex(x)`, `complex(re, im)` and `complex("1+2j")`.
    pub fn init(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
        if args.count() == 0 {
            args.drop_with(vm);
            return Ok(allocate_complex(Self::new(0.0, 0.0), vm));
        }
        let (first, second) = args.get_one_two_args("complex", vm.heap)?;
        defer_drop!(first, vm);
        defer_drop!(second, vm);
        if first.is_str(vm.heap) {
            if second.is_some() {
                return Err(ExcType::type_error(
                    "complex() can't take second arg if first is a string",
                ));
            }
            let parsed = parse_complex(first.to_str(vm)?)
                .ok_or_else(|| ExcType::value_error("complex() arg is a malformed string"))?;
            return Ok(allocate_complex(parsed, vm));
        }
        let Some(real) = to_complex(first, vm)? else {
            return Err(ExcType::type_error(format!(
                "complex() first argument must be a string or a number, not '{}'",
                first.py_type_name(vm)
            )));
        };
        let Some(second) = second else {
            return Ok(allocate_complex(real, vm));
        };
        if second.is_str(vm.heap) {
            return Err(ExcType::type_error("complex() second arg can't be a string"));
        }
        let Some(imag) = to_complex(second, vm)? else {
            return Err(ExcType::type_error(format!(
                "complex() second argument must be a number, not '{}'",
                second.py_type_name(vm)
            )));
        };
        // `re + im*1j` as CPython's `complex_new` adds the parts: a part is
        // added only where an argument is complex, so `complex(-0.0, -0.0)`
        // keeps both signs.
        let re = if is_complex(second, vm) {
            real.re - imag.im
        } else {
            real.re
        };
        let im = if is_complex(first, vm) {
            imag.re + real.im
        } else {
            imag.re
        };
        let value = Self::new(re, im);
        Ok(allocate_complex(value, vm))
    }
}

/// Allocates a complex number on the heap.
pub(crate) fn allocate_complex(value: Complex, vm: &VM<'_>) -> Value {
    Value::Ref(vm.heap.allocate(HeapData::Complex(value)))
}

/// A number widened to `complex` (`int`, `bool`, `float`, `complex`), or
/// `None` when `value` is not one.
fn to_complex(value: &Value, vm: &VM<'_>) -> RunResult<Option<Complex>> {
    Ok(match value {
        Value::Bool(b) => Some(Complex::new(f64::from(u8::from(*b)), 0.0)),
        #[expect(clippy::cast_precision_loss, reason = "CPython widens an int to the nearest double")]
        Value::Int(i) => Some(Complex::new(*i as f64, 0.0)),
        Value::Float(f) => Some(Complex::new(*f, 0.0)),
        Value::InternLongInt(id) => {
            let f = num_traits::ToPrimitive::to_f64(vm.interns.get_long_int(*id)).filter(|f| f.is_finite());
            Some(Complex::new(f.ok_or_else(ExcType::overflow_int_to_float)?, 0.0))
        }
        Value::Ref(id) => match vm.heap.get(*id) {
            HeapData::Complex(c) => Some(*c),
            HeapData::LongInt(li) => {
                let f = li.to_f64().filter(|f| f.is_finite());
                Some(Complex::new(f.ok_or_else(ExcType::overflow_int_to_float)?, 0.0))
            }
            _ => None,
        },
        _ => None,
    })
}

/// Whether `value` is a `complex`.
fn is_complex(value: &Value, vm: &VM<'_>) -> bool {
    matches!(value, Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::Complex(_)))
}

/// Parses `complex("...")`: `1`, `2j`, `1+2j`, `-j`, `(1-2.5e3j)`, with
/// blanks around (not inside) it. `None` when malformed.
fn parse_complex(text: &str) -> Option<Complex> {
    let mut s = text.trim();
    if let Some(inner) = s.strip_prefix('(') {
        s = inner.strip_suffix(')')?.trim();
    }
    if s.is_empty() || s.contains(char::is_whitespace) {
        return None;
    }
    let Some(body) = s.strip_suffix(['j', 'J']) else {
        return Some(Complex::new(parse_part(s)?, 0.0));
    };
    // The split between the parts: the last sign not at the start and not
    // an exponent's.
    let bytes = body.as_bytes();
    let split = (1..bytes.len())
        .rev()
        .find(|&i| matches!(bytes[i], b'+' | b'-') && !matches!(bytes[i - 1], b'e' | b'E'));
    let (real, imag) = match split {
        Some(i) => (parse_part(&body[..i])?, &body[i..]),
        None => (0.0, body),
    };
    let imag = match imag {
        "" | "+" => 1.0,
        "-" => -1.0,
        other => parse_part(other)?,
    };
    Some(Complex::new(real, imag))
}

/// One float of a complex literal (`1.5`, `-2e3`, `inf`, `nan`).
fn parse_part(s: &str) -> Option<f64> {
    if s.is_empty() || s.ends_with(['+', '-']) {
        return None;
    }
    s.parse::<f64>().ok()
}

/// One part of a complex repr: a float's repr without a trailing `.0`.
fn part_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_owned();
    }
    let text = format!("{}", FormatFloat(x));
    match text.strip_suffix(".0") {
        Some(whole) => whole.to_owned(),
        None => text,
    }
}

/// `repr(z)` as CPython: `1j` when the real part is `+0.0`, `(re±imj)` otherwise.
pub(crate) fn complex_repr(z: Complex) -> String {
    if z.re == 0.0 && z.re.is_sign_positive() {
        return format!("{}j", part_repr(z.im));
    }
    let imag = part_repr(z.im);
    let sign = if imag.starts_with('-') { "" } else { "+" };
    format!("({}{sign}{imag}j)", part_repr(z.re))
}

/// `a * b`.
fn mul(a: Complex, b: Complex) -> Complex {
    Complex::new(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
}

/// `a / b` as CPython's `_Py_c_quot`; `None` when `b` is zero.
fn quot(a: Complex, b: Complex) -> Option<Complex> {
    let abs_breal = b.re.abs();
    let abs_bimag = b.im.abs();
    if abs_breal >= abs_bimag {
        if abs_breal == 0.0 {
            return None;
        }
        let ratio = b.im / b.re;
        let denom = b.re + b.im * ratio;
        Some(Complex::new(
            (a.re + a.im * ratio) / denom,
            (a.im - a.re * ratio) / denom,
        ))
    } else if abs_bimag >= abs_breal {
        let ratio = b.re / b.im;
        let denom = b.re * ratio + b.im;
        Some(Complex::new(
            (a.re * ratio + a.im) / denom,
            (a.im * ratio - a.re) / denom,
        ))
    } else {
        Some(Complex::new(f64::NAN, f64::NAN))
    }
}

/// `0.0 to a negative or complex power`, CPython's `ZeroDivisionError`.
fn zero_power_error() -> RunError {
    ExcType::zero_division_msg("0.0 to a negative or complex power").into()
}

/// `a ** b` as CPython's `complex_pow`.
fn pow(a: Complex, b: Complex) -> RunResult<Complex> {
    if b.im == 0.0 && b.re == b.re.floor() && b.re.abs() <= 100.0 {
        #[expect(clippy::cast_possible_truncation, reason = "checked integral and within ±100")]
        let n = b.re as i64;
        let positive = powu(a, n.unsigned_abs());
        return if n >= 0 {
            Ok(positive)
        } else {
            quot(Complex::new(1.0, 0.0), positive).ok_or_else(zero_power_error)
        };
    }
    if b.re == 0.0 && b.im == 0.0 {
        return Ok(Complex::new(1.0, 0.0));
    }
    if a.re == 0.0 && a.im == 0.0 {
        if b.im != 0.0 || b.re < 0.0 {
            return Err(zero_power_error());
        }
        return Ok(Complex::new(0.0, 0.0));
    }
    let vabs = a.re.hypot(a.im);
    let mut len = vabs.powf(b.re);
    let at = a.im.atan2(a.re);
    let mut phase = at * b.re;
    if b.im != 0.0 {
        len /= (at * b.im).exp();
        phase += b.im * vabs.ln();
    }
    Ok(Complex::new(len * phase.cos(), len * phase.sin()))
}

/// `x ** n` by repeated squaring (CPython's `c_powu`).
fn powu(x: Complex, n: u64) -> Complex {
    let mut r = Complex::new(1.0, 0.0);
    let mut p = x;
    let mut mask: u64 = 1;
    while mask > 0 && n >= mask {
        if n & mask != 0 {
            r = mul(r, p);
        }
        mask <<= 1;
        p = mul(p, p);
    }
    r
}

/// `base ** exp` for a negative finite `base` and a finite fractional `exp`:
/// CPython's float `**` hands these to complex `**`, so `(-8) ** (1/3)` is
/// `(1.0000000000000002+1.7320508075688772j)`. `None` for any other pair.
pub(crate) fn negative_base_pow(base: f64, exp: f64, vm: &VM<'_>) -> Option<RunResult<Value>> {
    if !(base.is_finite() && base < 0.0 && exp.is_finite() && exp != exp.floor()) {
        return None;
    }
    Some(pow(Complex::new(base, 0.0), Complex::new(exp, 0.0)).map(|z| allocate_complex(z, vm)))
}

/// Which arithmetic operation a binary helper runs.
#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

/// `a op b` with both widened to complex; `None` when `other` is no number.
fn binary(this: Complex, other: &Value, op: Op, reflected: bool, vm: &VM<'_>) -> RunResult<Option<Value>> {
    let Some(other) = to_complex(other, vm)? else {
        return Ok(None);
    };
    let (a, b) = if reflected { (other, this) } else { (this, other) };
    let result = match op {
        Op::Add => Complex::new(a.re + b.re, a.im + b.im),
        Op::Sub => Complex::new(a.re - b.re, a.im - b.im),
        Op::Mul => mul(a, b),
        Op::Div => quot(a, b).ok_or_else(|| ExcType::zero_division_msg("complex division by zero"))?,
        Op::Pow => pow(a, b)?,
    };
    if matches!(op, Op::Pow) && (!result.re.is_finite() || !result.im.is_finite()) && a.re.is_finite() {
        if a.im.is_finite() && b.re.is_finite() && b.im.is_finite() {
            return Err(SimpleException::new_msg(ExcType::OverflowError, "complex exponentiation").into());
        }
    }
    Ok(Some(allocate_complex(result, vm)))
}

impl<'h> PyTrait<'h> for HeapObjectRead<'h, Complex> {
    fn py_type(&self, _vm: &VM<'h>) -> Type {
        Type::Complex
    }

    fn py_len(&self, _vm: &VM<'h>) -> Option<usize> {
        None
    }

    fn py_eq_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<bool>> {
        let this = *self.get(vm.heap);
        Ok(match other {
            Value::Bool(_) | Value::Int(_) | Value::Float(_) => {
                let other = to_complex(other, vm)?.unwrap_or(Complex::new(f64::NAN, 0.0));
                Some(this.im == 0.0 && this.re == other.re)
            }
            Value::Ref(id) => match vm.heap.get(*id) {
                HeapData::Complex(c) => Some(this.re == c.re && this.im == c.im),
                _ => None,
            },
            _ => None,
        })
    }

    /// CPython's `hash(re) + 1000003 * hash(im)` is what `hash()` reports
    /// (`cpython_hash`); this is Monty's own, equal to the float's for a
    /// zero imaginary part so `{3: x}[3+0j]` finds the key.
    fn py_hash(&self, vm: &mut VM<'h>) -> RunResult<Option<HashValue>> {
        let this = *self.get(vm.heap);
        let real = Value::Float(this.re).py_hash(vm)?;
        if this.im == 0.0 {
            return Ok(real);
        }
        let imag = Value::Float(this.im).py_hash(vm)?;
        Ok(match (real, imag) {
            (Some(r), Some(i)) => Some(HashValue::new(r.raw().wrapping_add(i.raw().wrapping_mul(1_000_003)))),
            _ => None,
        })
    }

    fn py_bool(&self, vm: &mut VM<'h>) -> RunResult<bool> {
        let this = self.get(vm.heap);
        Ok(this.re != 0.0 || this.im != 0.0)
    }

    fn py_repr_fmt(&self, f: &mut impl Write, vm: &mut VM<'h>, _heap_ids: &mut LazyHeapSet) -> RunResult<()> {
        f.write_str(&complex_repr(*self.get(vm.heap)))?;
        Ok(())
    }

    fn py_neg_impl(&self, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let this = self.get(vm.heap);
        let negated = Complex::new(-this.re, -this.im);
        Ok(Some(allocate_complex(negated, vm)))
    }

    fn py_pos_impl(&self, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        let this = *self.get(vm.heap);
        Ok(Some(allocate_complex(this, vm)))
    }

    fn py_add_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        binary(*self.get(vm.heap), other, Op::Add, false, vm)
    }

    fn py_radd_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        binary(*self.get(vm.heap), other, Op::Add, true, vm)
    }

    fn py_sub_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        binary(*self.get(vm.heap), other, Op::Sub, false, vm)
    }

    fn py_rsub_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        binary(*self.get(vm.heap), other, Op::Sub, true, vm)
    }

    fn py_mul_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        binary(*self.get(vm.heap), other, Op::Mul, false, vm)
    }

    fn py_rmul_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        binary(*self.get(vm.heap), other, Op::Mul, true, vm)
    }

    fn py_truediv_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        binary(*self.get(vm.heap), other, Op::Div, false, vm)
    }

    fn py_rtruediv_impl(&self, other: &Value, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        binary(*self.get(vm.heap), other, Op::Div, true, vm)
    }

    fn py_pow_impl(&self, other: &Value, modulus: Option<&Value>, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        if modulus.is_some() {
            return Err(ExcType::value_error("complex modulo"));
        }
        binary(*self.get(vm.heap), other, Op::Pow, false, vm)
    }

    fn py_rpow_impl(&self, other: &Value, modulus: Option<&Value>, vm: &mut VM<'h>) -> RunResult<Option<Value>> {
        if modulus.is_some() {
            return Err(ExcType::value_error("complex modulo"));
        }
        binary(*self.get(vm.heap), other, Op::Pow, true, vm)
    }

    fn py_getattr(&self, attr: &EitherStr, vm: &mut VM<'h>) -> RunResult<Option<CallResult>> {
        let this = *self.get(vm.heap);
        Ok(match attr.as_str(vm.interns) {
            "real" => Some(CallResult::Value(Value::Float(this.re))),
            "imag" => Some(CallResult::Value(Value::Float(this.im))),
            _ => None,
        })
    }

    fn py_call_attr(&mut self, vm: &mut VM<'h>, attr: &EitherStr, args: ArgValues) -> RunResult<CallResult> {
        if attr.as_str(vm.interns) == "conjugate" {
            args.check_zero_args("complex.conjugate", vm.heap)?;
            let this = self.get(vm.heap);
            let conjugate = Complex::new(this.re, -this.im);
            return Ok(CallResult::Value(allocate_complex(conjugate, vm)));
        }
        args.drop_with(vm);
        Err(ExcType::attribute_error(Type::Complex, attr.as_str(vm.interns)))
    }
}

impl HeapItem for Complex {
    fn py_dec_ref_ids(&mut self, _stack: &mut Vec<HeapId>) {
        // No-op: a complex number holds no Value references.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reprs_match_cpython() {
        let cases = [
            (Complex::new(1.0, -2.0), "(1-2j)"),
            (Complex::new(0.0, 1.0), "1j"),
            (Complex::new(-0.0, -0.0), "(-0-0j)"),
            (Complex::new(0.0, -0.0), "-0j"),
            (Complex::new(f64::NAN, f64::INFINITY), "(nan+infj)"),
            (Complex::new(1e16, 1e-5), "(1e+16+1e-05j)"),
            (Complex::new(1000.0, 0.0), "(1000+0j)"),
            (Complex::new(0.0, 2.5), "2.5j"),
        ];
        for (z, want) in cases {
            assert_eq!(complex_repr(z), want);
        }
    }

    #[test]
    fn parses_cpython_forms() {
        assert_eq!(parse_complex(" ( 1-2.5e3J ) "), Some(Complex::new(1.0, -2500.0)));
        assert_eq!(parse_complex("-j"), Some(Complex::new(0.0, -1.0)));
        assert_eq!(parse_complex("1e3"), Some(Complex::new(1000.0, 0.0)));
        assert_eq!(parse_complex("1+j"), Some(Complex::new(1.0, 1.0)));
        assert_eq!(parse_complex("1e-3+2e+3j"), Some(Complex::new(0.001, 2000.0)));
        assert_eq!(parse_complex("x"), None);
        assert_eq!(parse_complex("1 + 2j"), None);
        assert_eq!(parse_complex("1+"), None);
    }

    #[test]
    fn arithmetic_matches_cpython() {
        let z = Complex::new(1.0, 2.0);
        assert_eq!(powu(z, 2), Complex::new(-3.0, 4.0));
        assert_eq!(
            quot(Complex::new(1.0, 1.0), Complex::new(2.0, -1.0)).map(complex_repr),
            Some("(0.2+0.6j)".to_owned())
        );
        assert_eq!(
            quot(Complex::new(1.0, 0.0), Complex::new(0.0, 1.0)).map(complex_repr),
            Some("-1j".to_owned())
        );
        assert!(quot(z, Complex::new(0.0, 0.0)).is_none());
        let root = pow(z, Complex::new(0.5, 0.0)).map(complex_repr).ok();
        assert_eq!(root.as_deref(), Some("(1.272019649514069+0.7861513777574233j)"));
    }
}
