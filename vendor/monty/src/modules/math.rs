//! Implementation of Python's `math` module.
//!
//! Provides mathematical functions and constants matching CPython 3.14 behavior
//! and error messages. All functions are pure computations that don't require
//! host involvement, so they return `Value` directly rather than `AttrCallResult`.
//!
//! ## Implemented functions
//!
//! **Rounding**: `floor`, `ceil`, `trunc`
//! **Roots & powers**: `sqrt`, `isqrt`, `cbrt`, `pow`, `exp`, `exp2`, `expm1`
//! **Logarithms**: `log`, `log2`, `log10`, `log1p`
//! **Trigonometric**: `sin`, `cos`, `tan`, `asin`, `acos`, `atan`, `atan2`
//! **Hyperbolic**: `sinh`, `cosh`, `tanh`, `asinh`, `acosh`, `atanh`
//! **Angular**: `degrees`, `radians`
//! **Float properties**: `fabs`, `isnan`, `isinf`, `isfinite`, `copysign`, `isclose`,
//!   `nextafter`, `ulp`
//! **Integer math**: `factorial`, `gcd`, `lcm`, `comb`, `perm`
//! **Modular**: `fmod`, `remainder`, `modf`, `frexp`, `ldexp`
//! **Special**: `gamma`, `lgamma`, `erf`, `erfc`
//!
//! ## Constants
//!
//! `pi`, `e`, `tau`, `inf`, `nan`

use std::f64::consts;

use num_bigint::BigInt;
use num_traits::ToPrimitive;
use smallvec::smallvec;

use crate::{
    args::{ArgValues, FromArgs},
    bytecode::VM,
    defer_drop, defer_drop_mut,
    exception_private::{ExcType, ExcTypeExt, RunError, RunResult, SimpleException},
    heap::{Heap, HeapData, HeapId},
    intern::StaticStrings,
    modules::ModuleFunctions,
    types::{LongInt, Module, allocate_tuple},
    value::Value,
};

// ==========================
// Shared constants and error helpers
// ==========================

/// Returns a `ValueError` with the standard CPython "math domain error" message.
fn math_domain_error() -> RunError {
    SimpleException::new_msg(ExcType::ValueError, "math domain error").into()
}

/// Returns an `OverflowError` with the standard CPython "math range error" message.
fn math_range_error() -> RunError {
    SimpleException::new_msg(ExcType::OverflowError, "math range error").into()
}

/// Checks whether a computation overflowed (finite input produced infinite result).
///
/// Returns `Err(OverflowError("math range error"))` if `result` is infinite
/// but `input` was finite.
fn check_range_error(result: f64, input: f64) -> RunResult<()> {
    if result.is_infinite() && input.is_finite() {
        Err(math_range_error())
    } else {
        Ok(())
    }
}

/// Checks that a value is in the `[-1, 1]` range, raising `ValueError` if not.
///
/// NaN passes through (it will propagate through the subsequent math operation).
/// Used by `math.asin` and `math.acos`.
fn require_unit_range(f: f64) -> RunResult<()> {
    if !f.is_nan() && !(-1.0..=1.0).contains(&f) {
        Err(
            math_domain_error(), /* hwf: CPython 3.11's message (the seed's Python) */
        )
    } else {
        Ok(())
    }
}

/// Checks for non-positive integer arguments (poles of the Gamma function).
///
/// These are the finite non-positive integers where Gamma diverges to ±∞.
/// Does NOT reject `-inf` — callers that need to reject it (like `math.gamma`)
/// must do so separately, since `lgamma(-inf)` is valid and returns `inf`.
#[expect(
    clippy::float_cmp,
    reason = "exact comparison detects integer poles of gamma function"
)]
fn check_gamma_pole(f: f64) -> RunResult<()> {
    if f <= 0.0 && f == f.floor() && f.is_finite() {
        Err(
            math_domain_error(), /* hwf: CPython 3.11's message (the seed's Python) */
        )
    } else {
        Ok(())
    }
}

/// Math module functions — each variant corresponds to a Python-visible function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::Display, serde::Serialize, serde::Deserialize)]
#[strum(serialize_all = "lowercase")]
pub(crate) enum MathFunctions {
    // Rounding
    Floor,
    Ceil,
    Trunc,
    // Roots & powers
    Sqrt,
    Isqrt,
    Cbrt,
    Pow,
    Exp,
    Exp2,
    Expm1,
    // Logarithms
    Log,
    Log1p,
    Log2,
    Log10,
    // Float properties
    Fabs,
    Isnan,
    Isinf,
    Isfinite,
    Copysign,
    Isclose,
    Nextafter,
    Ulp,
    // Trigonometric
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    // Hyperbolic
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    // Angular conversion
    Degrees,
    Radians,
    // Integer math
    Factorial,
    Gcd,
    Lcm,
    Comb,
    Perm,
    // Modular / decomposition
    Fmod,
    Remainder,
    Modf,
    Frexp,
    Ldexp,
    // Special functions
    Gamma,
    Lgamma,
    Erf,
    Erfc,
    // hwf
    Hypot,
    Fsum,
    Prod,
    Dist,
}

/// Creates the `math` module and allocates it on the heap.
///
/// Registers all math functions and constants (`pi`, `e`, `tau`, `inf`, `nan`)
/// matching CPython's `math` module. Functions are registered as
/// `ModuleFunctions::Math` variants.
///
/// # Panics
/// Panics if the required strings have not been pre-interned during prepare phase.
pub fn create_module(vm: &mut VM<'_>) -> HeapId {
    let mut module = Module::new(StaticStrings::Math);

    // Register all math functions
    for (name, func) in MATH_FUNCTIONS {
        module.set_attr(*name, Value::ModuleFunction(ModuleFunctions::Math(*func)), vm);
    }

    // Constants
    module.set_attr(StaticStrings::Pi, Value::Float(consts::PI), vm);
    module.set_attr(StaticStrings::MathE, Value::Float(consts::E), vm);
    module.set_attr(StaticStrings::Tau, Value::Float(consts::TAU), vm);
    module.set_attr(StaticStrings::MathInf, Value::Float(f64::INFINITY), vm);
    module.set_attr(StaticStrings::MathNan, Value::Float(f64::NAN), vm);

    vm.heap.allocate(HeapData::Module(Box::new(module)))
}

/// Static mapping of attribute names to math functions for module creation.
const MATH_FUNCTIONS: &[(StaticStrings, MathFunctions)] = &[
    // Rounding
    (StaticStrings::Floor, MathFunctions::Floor),
    (StaticStrings::Ceil, MathFunctions::Ceil),
    (StaticStrings::Trunc, MathFunctions::Trunc),
    // Roots & powers
    (StaticStrings::Sqrt, MathFunctions::Sqrt),
    (StaticStrings::Isqrt, MathFunctions::Isqrt),
    (StaticStrings::Cbrt, MathFunctions::Cbrt),
    (StaticStrings::Pow, MathFunctions::Pow),
    (StaticStrings::Exp, MathFunctions::Exp),
    (StaticStrings::Exp2, MathFunctions::Exp2),
    (StaticStrings::Expm1, MathFunctions::Expm1),
    // Logarithms
    (StaticStrings::Log, MathFunctions::Log),
    (StaticStrings::Log1p, MathFunctions::Log1p),
    (StaticStrings::Log2, MathFunctions::Log2),
    (StaticStrings::Log10, MathFunctions::Log10),
    // Float properties
    (StaticStrings::Fabs, MathFunctions::Fabs),
    (StaticStrings::Isnan, MathFunctions::Isnan),
    (StaticStrings::Isinf, MathFunctions::Isinf),
    (StaticStrings::Isfinite, MathFunctions::Isfinite),
    (StaticStrings::Copysign, MathFunctions::Copysign),
    (StaticStrings::Isclose, MathFunctions::Isclose),
    (StaticStrings::Nextafter, MathFunctions::Nextafter),
    (StaticStrings::Ulp, MathFunctions::Ulp),
    // Trigonometric
    (StaticStrings::Sin, MathFunctions::Sin),
    (StaticStrings::Cos, MathFunctions::Cos),
    (StaticStrings::Tan, MathFunctions::Tan),
    (StaticStrings::Asin, MathFunctions::Asin),
    (StaticStrings::Acos, MathFunctions::Acos),
    (StaticStrings::Atan, MathFunctions::Atan),
    (StaticStrings::Atan2, MathFunctions::Atan2),
    // Hyperbolic
    (StaticStrings::Sinh, MathFunctions::Sinh),
    (StaticStrings::Cosh, MathFunctions::Cosh),
    (StaticStrings::Tanh, MathFunctions::Tanh),
    (StaticStrings::Asinh, MathFunctions::Asinh),
    (StaticStrings::Acosh, MathFunctions::Acosh),
    (StaticStrings::Atanh, MathFunctions::Atanh),
    // Angular conversion
    (StaticStrings::Degrees, MathFunctions::Degrees),
    (StaticStrings::Radians, MathFunctions::Radians),
    // Integer math
    (StaticStrings::Factorial, MathFunctions::Factorial),
    (StaticStrings::Gcd, MathFunctions::Gcd),
    (StaticStrings::Lcm, MathFunctions::Lcm),
    (StaticStrings::Comb, MathFunctions::Comb),
    (StaticStrings::Perm, MathFunctions::Perm),
    // Modular / decomposition
    (StaticStrings::Fmod, MathFunctions::Fmod),
    (StaticStrings::Remainder, MathFunctions::Remainder),
    (StaticStrings::Modf, MathFunctions::Modf),
    (StaticStrings::Frexp, MathFunctions::Frexp),
    (StaticStrings::Ldexp, MathFunctions::Ldexp),
    // Special functions
    (StaticStrings::Gamma, MathFunctions::Gamma),
    (StaticStrings::Lgamma, MathFunctions::Lgamma),
    (StaticStrings::Erf, MathFunctions::Erf),
    (StaticStrings::Erfc, MathFunctions::Erfc),
    // hwf
    (StaticStrings::Hypot, MathFunctions::Hypot),
    (StaticStrings::Fsum, MathFunctions::Fsum),
    (StaticStrings::Prod, MathFunctions::Prod),
    (StaticStrings::Dist, MathFunctions::Dist),
];

/// Dispatches a call to a math module function.
///
/// All math functions are pure computations and return `Value` directly.
pub(super) fn call(vm: &mut VM<'_>, function: MathFunctions, args: ArgValues) -> RunResult<Value> {
    match function {
        // Rounding
        MathFunctions::Floor => math_floor(vm, args),
        MathFunctions::Ceil => math_ceil(vm, args),
        MathFunctions::Trunc => math_trunc(vm, args),
        // Roots & powers
        MathFunctions::Sqrt => math_sqrt(vm, args),
        MathFunctions::Isqrt => math_isqrt(vm, args),
        MathFunctions::Cbrt => math_cbrt(vm, args),
        MathFunctions::Pow => math_pow(vm, args),
        MathFunctions::Exp => math_exp(vm, args),
        MathFunctions::Exp2 => math_exp2(vm, args),
        MathFunctions::Expm1 => math_expm1(vm, args),
        // Logarithms
        MathFunctions::Log => math_log(vm, args),
        MathFunctions::Log1p => math_log1p(vm, args),
        MathFunctions::Log2 => math_log2(vm, args),
        MathFunctions::Log10 => math_log10(vm, args),
        // Float properties
        MathFunctions::Fabs => math_fabs(vm, args),
        MathFunctions::Isnan => math_isnan(vm, args),
        MathFunctions::Isinf => math_isinf(vm, args),
        MathFunctions::Isfinite => math_isfinite(vm, args),
        MathFunctions::Copysign => math_copysign(vm, args),
        MathFunctions::Isclose => math_isclose(vm, args),
        MathFunctions::Nextafter => math_nextafter(vm, args),
        MathFunctions::Ulp => math_ulp(vm, args),
        // Trigonometric
        MathFunctions::Sin => math_sin(vm, args),
        MathFunctions::Cos => math_cos(vm, args),
        MathFunctions::Tan => math_tan(vm, args),
        MathFunctions::Asin => math_asin(vm, args),
        MathFunctions::Acos => math_acos(vm, args),
        MathFunctions::Atan => math_atan(vm, args),
        MathFunctions::Atan2 => math_atan2(vm, args),
        // Hyperbolic
        MathFunctions::Sinh => math_sinh(vm, args),
        MathFunctions::Cosh => math_cosh(vm, args),
        MathFunctions::Tanh => math_tanh(vm, args),
        MathFunctions::Asinh => math_asinh(vm, args),
        MathFunctions::Acosh => math_acosh(vm, args),
        MathFunctions::Atanh => math_atanh(vm, args),
        // Angular conversion
        MathFunctions::Degrees => math_degrees(vm, args),
        MathFunctions::Radians => math_radians(vm, args),
        // Integer math
        MathFunctions::Factorial => math_factorial(vm, args),
        MathFunctions::Gcd => math_gcd(vm, args),
        MathFunctions::Lcm => math_lcm(vm, args),
        MathFunctions::Comb => math_comb(vm, args),
        MathFunctions::Perm => math_perm(vm, args),
        // Modular / decomposition
        MathFunctions::Fmod => math_fmod(vm, args),
        MathFunctions::Remainder => math_remainder(vm, args),
        MathFunctions::Modf => math_modf(vm, args),
        MathFunctions::Frexp => math_frexp(vm, args),
        MathFunctions::Ldexp => math_ldexp(vm, args),
        // Special functions
        MathFunctions::Gamma => math_gamma(vm, args),
        MathFunctions::Lgamma => math_lgamma(vm, args),
        MathFunctions::Erf => math_erf(vm, args),
        MathFunctions::Erfc => math_erfc(vm, args),
        MathFunctions::Hypot => math_hypot(vm, args),
        MathFunctions::Fsum => math_fsum(vm, args),
        MathFunctions::Prod => math_prod(vm, args),
        MathFunctions::Dist => math_dist(vm, args),
    }
}

/// hwf: `math.dist(p, q)` — the Euclidean distance between two points
/// given as iterables of coordinates of the same length, as CPython
/// computes it (the norm of the coordinate differences, as `hypot`).
fn math_dist(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (p, q) = args.get_two_args("math.dist", vm.heap)?;
    defer_drop!(p, vm);
    defer_drop!(q, vm);
    let p = crate::types::collect_iterable(p, vm)?;
    defer_drop!(p, vm);
    let q = crate::types::collect_iterable(q, vm)?;
    defer_drop!(q, vm);
    if p.len() != q.len() {
        return Err(SimpleException::new_msg(
            ExcType::ValueError,
            "both points must have the same number of dimensions",
        )
        .into());
    }
    let mut diffs = Vec::with_capacity(p.len());
    for (a, b) in p.iter().zip(q.iter()) {
        diffs.push((value_to_float(a, vm)? - value_to_float(b, vm)?).abs());
    }
    Ok(Value::Float(vector_norm(&diffs)))
}

/// hwf: `math.hypot(*coordinates)` — the Euclidean norm, computed as CPython
/// does to within an ulp: scaled by the largest magnitude (no overflow or
/// underflow), summed with compensation, then one Newton correction of the
/// square root. `inf` wins over `nan`; no arguments is `0.0`.
fn math_hypot(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let positional = args.into_pos_only("math.hypot", vm.heap)?;
    defer_drop_mut!(positional, vm);
    let mut coords: Vec<f64> = Vec::new();
    for arg in positional.by_ref() {
        defer_drop!(arg, vm);
        coords.push(value_to_float(arg, vm)?.abs());
    }
    Ok(Value::Float(vector_norm(&coords)))
}

/// The Euclidean norm of `coords` (non-negative magnitudes).
fn vector_norm(coords: &[f64]) -> f64 {
    if coords.iter().any(|x| x.is_infinite()) {
        return f64::INFINITY;
    }
    if coords.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    let max = coords.iter().copied().fold(0.0_f64, f64::max);
    if max == 0.0 || coords.len() <= 1 {
        return max;
    }
    // Scale so the largest is in [1, 2): squares neither overflow nor underflow.
    let (_, exp) = frexp(max);
    let scale = libm::ldexp(1.0, -exp);
    let mut sum = 0.0_f64;
    let mut compensation = 0.0_f64;
    for &x in coords {
        let v = x * scale;
        // Exact square as hi + lo (Dekker), then Neumaier summation.
        let hi = v * v;
        let lo = v.mul_add(v, -hi);
        for term in [hi, lo] {
            let t = sum + term;
            compensation += if sum.abs() >= term.abs() {
                (sum - t) + term
            } else {
                (term - t) + sum
            };
            sum = t;
        }
    }
    let total = sum + compensation;
    let mut h = total.sqrt();
    // One Newton step on the residual of h*h against the exact total.
    let residual = (-h).mul_add(h, sum) + compensation;
    h += residual / (2.0 * h);
    h / scale
}

/// `frexp` for positive finite `x`: (mantissa in [0.5, 1), exponent).
fn frexp(x: f64) -> (f64, i32) {
    libm::frexp(x)
}

/// hwf: `math.fsum(iterable)` — the correctly rounded sum of the floats
/// (Shewchuk's exact partials, as CPython's `msum`): `fsum([0.1] * 10)` is
/// exactly `1.0`. An infinity of each sign is `ValueError`, as in CPython.
fn math_fsum(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let iterable = args.get_one_arg("math.fsum", vm.heap)?;
    defer_drop!(iterable, vm);
    let items = crate::types::collect_iterable(iterable, vm)?;
    defer_drop!(items, vm);
    let mut values = Vec::with_capacity(items.len());
    for item in items.iter() {
        values.push(value_to_float(item, vm)?);
    }
    fsum(&values).map(Value::Float)
}

/// Shewchuk / CPython `math.fsum` over `values`.
fn fsum(values: &[f64]) -> RunResult<f64> {
    let mut partials: Vec<f64> = Vec::new();
    let mut special = 0.0_f64;
    let mut inf_sum = 0.0_f64;
    for &x0 in values {
        let mut x = x0;
        if !x.is_finite() {
            // Track infinities and nans separately, as CPython does.
            if x.is_infinite() {
                inf_sum += x;
            }
            special += x;
            continue;
        }
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        if !x.is_finite() {
            return Err(SimpleException::new_msg(ExcType::OverflowError, "intermediate overflow in fsum").into());
        }
        partials.truncate(i);
        partials.push(x);
    }
    if special != 0.0 {
        if inf_sum.is_nan() {
            return Err(SimpleException::new_msg(ExcType::ValueError, "-inf + inf in fsum").into());
        }
        return Ok(special);
    }
    // Sum the partials from the top, with CPython's half-way correction.
    let mut n = partials.len();
    let mut hi = 0.0_f64;
    if n > 0 {
        n -= 1;
        hi = partials[n];
        let mut lo = 0.0_f64;
        while n > 0 {
            let x = hi;
            n -= 1;
            let y = partials[n];
            hi = x + y;
            let yr = hi - x;
            lo = y - yr;
            if lo != 0.0 {
                break;
            }
        }
        if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            let yr = x - hi;
            if y == yr {
                hi = x;
            }
        }
    }
    Ok(hi)
}

/// hwf: `math.prod(iterable, *, start=1)` — the product, left to right, with
/// `*` (ints stay exact, floats multiply as floats).
fn math_prod(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (positional, kwargs) = args.into_parts();
    defer_drop_mut!(positional, vm);
    let mut start = Value::Int(1);
    let mut unexpected = false;
    for (key, value) in kwargs {
        let is_start = match &key {
            Value::InternString(id) => vm.interns.get_str(*id) == "start",
            Value::Ref(id) => matches!(vm.heap.get(*id), HeapData::Str(s) if s.as_str() == "start"),
            _ => false,
        };
        key.drop_with(vm);
        if is_start && !unexpected {
            std::mem::replace(&mut start, value).drop_with(vm);
        } else {
            unexpected = true;
            value.drop_with(vm);
        }
    }
    if unexpected {
        start.drop_with(vm);
        return Err(SimpleException::new_msg(ExcType::TypeError, "prod() got an unexpected keyword argument").into());
    }
    let Some(iterable) = positional.next() else {
        start.drop_with(vm);
        return Err(SimpleException::new_msg(
            ExcType::TypeError,
            "prod() takes exactly one positional argument (0 given)",
        )
        .into());
    };
    defer_drop!(iterable, vm);
    let items = crate::types::collect_iterable(iterable, vm);
    let items = match items {
        Ok(items) => items,
        Err(e) => {
            start.drop_with(vm);
            return Err(e);
        }
    };
    defer_drop!(items, vm);
    let mut acc = start;
    for item in items.iter() {
        let next = acc.py_mul(item, vm);
        acc.drop_with(vm);
        acc = next?;
    }
    Ok(acc)
}

// ==========================
// Rounding functions
// ==========================

/// `math.floor(x)` — returns the largest integer less than or equal to x.
///
/// Accepts int, float, or bool. Returns int.
/// Raises `OverflowError` for infinity, `ValueError` for NaN.
fn math_floor(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.floor", vm.heap)?;
    defer_drop!(value, vm);

    match value {
        Value::Float(f) => LongInt::value_from_f64(f.floor(), vm.heap),
        Value::Int(n) => Ok(Value::Int(*n)),
        // hwf: an int beyond 64 bits is its own floor.
        Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::LongInt(_)) => Ok(value.clone_with_heap(vm)),
        Value::Bool(b) => Ok(Value::Int(i64::from(*b))),
        _ => Err(ExcType::type_error(format!(
            "must be real number, not {}",
            value.py_type_name(vm)
        ))),
    }
}

/// `math.ceil(x)` — returns the smallest integer greater than or equal to x.
///
/// Accepts int, float, or bool. Returns int.
/// Raises `OverflowError` for infinity, `ValueError` for NaN.
fn math_ceil(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.ceil", vm.heap)?;
    defer_drop!(value, vm);

    match value {
        Value::Float(f) => LongInt::value_from_f64(f.ceil(), vm.heap),
        Value::Int(n) => Ok(Value::Int(*n)),
        // hwf: an int beyond 64 bits is its own ceil.
        Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::LongInt(_)) => Ok(value.clone_with_heap(vm)),
        Value::Bool(b) => Ok(Value::Int(i64::from(*b))),
        _ => Err(ExcType::type_error(format!(
            "must be real number, not {}",
            value.py_type_name(vm)
        ))),
    }
}

/// `math.trunc(x)` — truncates x to the nearest integer toward zero.
///
/// Accepts int, float, or bool. Returns int.
fn math_trunc(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.trunc", vm.heap)?;
    defer_drop!(value, vm);

    match value {
        Value::Float(f) => LongInt::value_from_f64(f.trunc(), vm.heap),
        Value::Int(n) => Ok(Value::Int(*n)),
        // hwf: an int beyond 64 bits is its own trunc.
        Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::LongInt(_)) => Ok(value.clone_with_heap(vm)),
        Value::Bool(b) => Ok(Value::Int(i64::from(*b))),
        _ => Err(ExcType::type_error(format!(
            "type {} doesn't define __trunc__ method",
            value.py_type_name(vm)
        ))),
    }
}

// ==========================
// Roots & powers
// ==========================

/// `math.sqrt(x)` — returns the square root of x.
///
/// Always returns a float. Raises `ValueError` for negative inputs with a
/// descriptive message matching CPython 3.14: "expected a nonnegative input, got <x>".
fn math_sqrt(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.sqrt", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    if f < 0.0 {
        Err(
            math_domain_error(), /* hwf: CPython 3.11's message (the seed's Python) */
        )
    } else {
        Ok(Value::Float(f.sqrt()))
    }
}

/// `math.isqrt(n)` — returns the integer square root of a non-negative integer.
///
/// Returns the largest integer `r` such that `r * r <= n`.
/// Only accepts non-negative integers (and bools).
fn math_isqrt(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.isqrt", vm.heap)?;
    defer_drop!(value, vm);

    // hwf: an int beyond 64 bits (`math.isqrt(10 ** 20 + 5)`), as CPython.
    if let Value::Ref(id) = value
        && let HeapData::LongInt(li) = vm.heap.get(*id)
    {
        let n = li.inner();
        if n.sign() == num_bigint::Sign::Minus {
            return Err(SimpleException::new_msg(ExcType::ValueError, "isqrt() argument must be nonnegative").into());
        }
        let root = n.sqrt();
        return Ok(LongInt::new(root).into_value(vm.heap));
    }
    let n = value_to_int(value, vm)?;
    if n < 0 {
        return Err(SimpleException::new_msg(ExcType::ValueError, "isqrt() argument must be nonnegative").into());
    }
    if n == 0 {
        return Ok(Value::Int(0));
    }

    // Integer square root via f64 estimate + correction.
    // For i64 inputs, f64 sqrt is accurate to within ±1, so we need to
    // correct both overshoot and undershoot. The cast truncates toward zero,
    // so undershoot is possible for perfect squares near f64 precision limits.
    #[expect(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        reason = "initial estimate doesn't need to be exact, correction refines it"
    )]
    let mut x = (n as f64).sqrt() as i64;
    // Correct overshoot: use `x > n / x` instead of `x * x > n` to avoid i64 overflow.
    while x > n / x {
        x -= 1;
    }
    // Correct undershoot: check if (x+1)² ≤ n using division to avoid overflow.
    while x < n / (x + 1) {
        x += 1;
    }
    Ok(Value::Int(x))
}

/// `math.cbrt(x)` — returns the cube root of x.
///
/// Always returns a float. Unlike `sqrt`, works for negative inputs.
fn math_cbrt(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.cbrt", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    Ok(Value::Float(f.cbrt()))
}

/// `math.pow(x, y)` — returns x raised to the power y.
///
/// Always returns a float. Unlike the builtin `pow()`, does not support
/// three-argument modular exponentiation. Raises `ValueError` for
/// negative base with non-integer exponent.
fn math_pow(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (x_val, y_val) = args.get_two_args("math.pow", vm.heap)?;
    defer_drop!(x_val, vm);
    defer_drop!(y_val, vm);

    let x = value_to_float(x_val, vm)?;
    let y = value_to_float(y_val, vm)?;
    let result = x.powf(y);
    // CPython raises ValueError for domain errors: 0**negative, negative**non-integer
    if result.is_nan() && !x.is_nan() && !y.is_nan() {
        return Err(math_domain_error());
    }
    if result.is_infinite() && x.is_finite() && y.is_finite() {
        // 0**negative is a domain error (ValueError), not overflow
        if x == 0.0 && y < 0.0 {
            return Err(math_domain_error());
        }
        return Err(math_range_error());
    }
    Ok(Value::Float(result))
}

/// `math.exp(x)` — returns e raised to the power x.
fn math_exp(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.exp", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    let result = f.exp();
    check_range_error(result, f)?;
    Ok(Value::Float(result))
}

/// `math.exp2(x)` — returns 2 raised to the power x.
fn math_exp2(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.exp2", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    let result = f.exp2();
    check_range_error(result, f)?;
    Ok(Value::Float(result))
}

/// `math.expm1(x)` — returns e**x - 1.
///
/// More accurate than `exp(x) - 1` for small values of x.
fn math_expm1(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.expm1", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    let result = f.exp_m1();
    check_range_error(result, f)?;
    Ok(Value::Float(result))
}

// ==========================
// Logarithms
// ==========================

/// `math.log(x[, base])` — returns the logarithm of x.
///
/// With one argument, returns the natural logarithm (base e).
/// With two arguments, returns `log(x) / log(base)`.
/// Raises `ValueError` for non-positive inputs (CPython 3.14: "expected a positive input").
fn math_log(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (x_val, base_val) = args.get_one_two_args("math.log", vm.heap)?;
    defer_drop!(x_val, vm);
    defer_drop!(base_val, vm);

    let x = log_helper(x_val, vm, f64::ln)?;
    match base_val {
        Some(base_v) => {
            let base = log_helper(base_v, vm, f64::ln)?;
            // hwf: CPython 3.11 divides the two logarithms as floats, so a
            // base of 1 is `ZeroDivisionError: float division by zero`.
            if base == 0.0 {
                return Err(SimpleException::new_msg(ExcType::ZeroDivisionError, "float division by zero").into());
            }
            Ok(Value::Float(x / base))
        }
        None => Ok(Value::Float(x)),
    }
}

/// hwf: CPython's `loghelper` for `log`, `log2` and `log10`: `func(x)` of a
/// positive number (else `math domain error`); an int too large for a float
/// is `m * 2**e` with `m` in `[0.5, 1)` rounded as `_PyLong_Frexp` rounds it
/// (to nearest, ties to even, over all of its bits), and its logarithm
/// `func(m) + func(2.0) * e`, so `math.log(10 ** 400)` is `921.03…` rather
/// than an `OverflowError`.
fn log_helper(value: &Value, vm: &VM<'_>, func: fn(f64) -> f64) -> RunResult<f64> {
    if let Value::Ref(id) = value
        && let HeapData::LongInt(li) = vm.heap.get(*id)
    {
        let n = li.inner();
        if n.sign() != num_bigint::Sign::Plus {
            return Err(math_domain_error());
        }
        if let Some(f) = n.to_f64().filter(|f| f.is_finite()) {
            return Ok(func(f));
        }
        // The top 64 bits, with a sticky low bit for any bits below them, so
        // rounding to 53 bits is the same as rounding the whole number.
        let bits = n.bits();
        let shift = bits.saturating_sub(64);
        let mut top = (n >> shift).to_u64().unwrap_or(u64::MAX);
        if n.trailing_zeros().is_some_and(|z| z < shift) {
            top |= 1;
        }
        #[expect(clippy::cast_precision_loss, reason = "rounding to 53 bits is the point")]
        let mut m = top as f64 / 18_446_744_073_709_551_616.0;
        #[expect(clippy::cast_precision_loss, reason = "a bit count fits a float exactly")]
        let mut e = (shift + 64) as f64;
        if m >= 1.0 {
            m /= 2.0;
            e += 1.0;
        }
        return Ok(func(m) + func(2.0) * e);
    }
    let x = value_to_float(value, vm)?;
    if x <= 0.0 {
        return Err(math_domain_error() /* hwf: CPython 3.11's message */);
    }
    Ok(func(x))
}

/// `math.log1p(x)` — returns the natural logarithm of 1 + x.
///
/// More accurate than `log(1 + x)` for small values of x.
/// CPython 3.14 raises ValueError with "expected argument value > -1, got <x>".
fn math_log1p(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.log1p", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    if f <= -1.0 {
        return Err(
            math_domain_error(), /* hwf: CPython 3.11's message (the seed's Python) */
        );
    }
    Ok(Value::Float(f.ln_1p()))
}

/// `math.log2(x)` — returns the base-2 logarithm of x.
///
/// Returns `inf` for positive infinity, `nan` for NaN.
/// Raises `ValueError` for non-positive finite inputs.
fn math_log2(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.log2", vm.heap)?;
    defer_drop!(value, vm);
    Ok(Value::Float(log_helper(value, vm, f64::log2)?))
}

/// `math.log10(x)` — returns the base-10 logarithm of x.
///
/// Returns `inf` for positive infinity, `nan` for NaN.
/// Raises `ValueError` for non-positive finite inputs.
fn math_log10(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.log10", vm.heap)?;
    defer_drop!(value, vm);
    Ok(Value::Float(log_helper(value, vm, f64::log10)?))
}

// ==========================
// Float properties
// ==========================

/// `math.fabs(x)` — returns the absolute value as a float.
///
/// Unlike the builtin `abs()`, always returns a float.
fn math_fabs(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.fabs", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    Ok(Value::Float(f.abs()))
}

/// `math.isnan(x)` — returns True if x is NaN.
fn math_isnan(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.isnan", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    Ok(Value::Bool(f.is_nan()))
}

/// `math.isinf(x)` — returns True if x is positive or negative infinity.
fn math_isinf(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.isinf", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    Ok(Value::Bool(f.is_infinite()))
}

/// `math.isfinite(x)` — returns True if x is neither infinity nor NaN.
fn math_isfinite(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.isfinite", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    Ok(Value::Bool(f.is_finite()))
}

/// `math.copysign(x, y)` — returns x with the sign of y.
///
/// Always returns a float.
fn math_copysign(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (x_val, y_val) = args.get_two_args("math.copysign", vm.heap)?;
    defer_drop!(x_val, vm);
    defer_drop!(y_val, vm);

    let x = value_to_float(x_val, vm)?;
    let y = value_to_float(y_val, vm)?;
    Ok(Value::Float(x.copysign(y)))
}

/// `math.isclose(a, b, *, rel_tol=1e-9, abs_tol=0.0)` — returns True if a and b are close.
///
/// Supports keyword-only `rel_tol` and `abs_tol` parameters matching CPython.
/// Raises `ValueError` if either tolerance is negative.
fn math_isclose(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let IscloseArgs { a, b, rel_tol, abs_tol } = IscloseArgs::from_args(args, vm)?;
    defer_drop!(a, vm);
    defer_drop!(b, vm);
    defer_drop!(rel_tol, vm);
    defer_drop!(abs_tol, vm);

    let a = value_to_float(a, vm)?;
    let b = value_to_float(b, vm)?;
    let rel_tol = value_to_float(rel_tol, vm)?;
    let abs_tol = value_to_float(abs_tol, vm)?;

    if rel_tol < 0.0 || abs_tol < 0.0 {
        return Err(SimpleException::new_msg(ExcType::ValueError, "tolerances must be non-negative").into());
    }

    // Exact equality check matches CPython's isclose() behavior — two identical
    // values (including infinities) are always considered close.
    #[expect(
        clippy::float_cmp,
        reason = "exact equality check matches CPython's isclose() semantics"
    )]
    if a == b {
        return Ok(Value::Bool(true));
    }
    if a.is_infinite() || b.is_infinite() {
        return Ok(Value::Bool(false));
    }
    if a.is_nan() || b.is_nan() {
        return Ok(Value::Bool(false));
    }

    let diff = (a - b).abs();
    let result = diff <= (rel_tol * a.abs().max(b.abs())).max(abs_tol);
    Ok(Value::Bool(result))
}

/// Argument shape for `math.isclose(a, b, *, rel_tol=1e-9, abs_tol=0.0)`.
///
/// `a`/`b` are positional-or-keyword (matching CPython); `rel_tol`/`abs_tol`
/// are keyword-only. All four are held as raw `Value` so the function body can
/// run `value_to_float` for the math-specific Int/Float coercion (which
/// `bool::from_value` and `i64::from_value` don't cover).
#[derive(FromArgs)]
#[from_args(name = "isclose")]
struct IscloseArgs {
    a: Value,
    b: Value,
    #[from_args(kw_only, default = Value::Float(1e-9))]
    rel_tol: Value,
    #[from_args(kw_only, default = Value::Float(0.0))]
    abs_tol: Value,
}

/// `math.nextafter(x, y)` — returns the next float after x towards y.
fn math_nextafter(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (x_val, y_val) = args.get_two_args("math.nextafter", vm.heap)?;
    defer_drop!(x_val, vm);
    defer_drop!(y_val, vm);

    let x = value_to_float(x_val, vm)?;
    let y = value_to_float(y_val, vm)?;

    Ok(Value::Float(libm::nextafter(x, y)))
}

/// `math.ulp(x)` — returns the value of the least significant bit of x.
///
/// For finite non-zero x, returns the smallest float `u` such that `x + u != x`.
/// Special cases: `ulp(nan)` returns nan, `ulp(inf)` returns inf.
fn math_ulp(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.ulp", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    if f.is_nan() {
        return Ok(Value::Float(f64::NAN));
    }
    if f.is_infinite() {
        return Ok(Value::Float(f64::INFINITY));
    }
    let f = f.abs();
    if f == 0.0 {
        // CPython returns the smallest positive subnormal: 5e-324
        return Ok(Value::Float(f64::from_bits(1)));
    }
    // ULP = nextafter(f, inf) - f
    let next = libm::nextafter(f, f64::INFINITY);
    Ok(Value::Float(next - f))
}

// ==========================
// Trigonometric functions
// ==========================

/// `math.sin(x)` — returns the sine of x (in radians).
///
/// CPython 3.14 raises ValueError for infinity: "expected a finite input, got inf".
fn math_sin(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.sin", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    require_finite(f)?;
    Ok(Value::Float(f.sin()))
}

/// `math.cos(x)` — returns the cosine of x (in radians).
fn math_cos(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.cos", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    require_finite(f)?;
    Ok(Value::Float(f.cos()))
}

/// `math.tan(x)` — returns the tangent of x (in radians).
fn math_tan(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.tan", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    require_finite(f)?;
    Ok(Value::Float(f.tan()))
}

/// `math.asin(x)` — returns the arc sine of x (in radians).
///
/// CPython 3.14: "expected a number in range from -1 up to 1, got <x>".
fn math_asin(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.asin", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    require_unit_range(f)?;
    Ok(Value::Float(f.asin()))
}

/// `math.acos(x)` — returns the arc cosine of x (in radians).
///
/// CPython 3.14: "expected a number in range from -1 up to 1, got <x>".
fn math_acos(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.acos", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    require_unit_range(f)?;
    Ok(Value::Float(f.acos()))
}

/// `math.atan(x)` — returns the arc tangent of x (in radians).
fn math_atan(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.atan", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    Ok(Value::Float(f.atan()))
}

/// `math.atan2(y, x)` — returns atan(y/x) in radians, using the signs of both
/// to determine the correct quadrant.
fn math_atan2(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (y_val, x_val) = args.get_two_args("math.atan2", vm.heap)?;
    defer_drop!(y_val, vm);
    defer_drop!(x_val, vm);

    let y = value_to_float(y_val, vm)?;
    let x = value_to_float(x_val, vm)?;
    Ok(Value::Float(y.atan2(x)))
}

// ==========================
// Hyperbolic functions
// ==========================

/// `math.sinh(x)` — returns the hyperbolic sine of x.
fn math_sinh(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.sinh", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    let result = f.sinh();
    check_range_error(result, f)?;
    Ok(Value::Float(result))
}

/// `math.cosh(x)` — returns the hyperbolic cosine of x.
fn math_cosh(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.cosh", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    let result = f.cosh();
    check_range_error(result, f)?;
    Ok(Value::Float(result))
}

/// `math.tanh(x)` — returns the hyperbolic tangent of x.
fn math_tanh(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.tanh", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    Ok(Value::Float(f.tanh()))
}

/// `math.asinh(x)` — returns the inverse hyperbolic sine of x.
fn math_asinh(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.asinh", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    Ok(Value::Float(f.asinh()))
}

/// `math.acosh(x)` — returns the inverse hyperbolic cosine of x.
///
/// CPython 3.14: "expected argument value not less than 1, got <x>".
fn math_acosh(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.acosh", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    if f < 1.0 {
        return Err(
            math_domain_error(), /* hwf: CPython 3.11's message (the seed's Python) */
        );
    }
    Ok(Value::Float(f.acosh()))
}

/// `math.atanh(x)` — returns the inverse hyperbolic tangent of x.
///
/// CPython 3.14: "expected a number between -1 and 1, got <x>".
fn math_atanh(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.atanh", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    if f <= -1.0 || f >= 1.0 {
        return Err(
            math_domain_error(), /* hwf: CPython 3.11's message (the seed's Python) */
        );
    }
    Ok(Value::Float(f.atanh()))
}

// ==========================
// Angular conversion
// ==========================

/// `math.degrees(x)` — converts angle x from radians to degrees.
fn math_degrees(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.degrees", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    Ok(Value::Float(f.to_degrees()))
}

/// `math.radians(x)` — converts angle x from degrees to radians.
fn math_radians(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.radians", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    Ok(Value::Float(f.to_radians()))
}

// ==========================
// Integer math
// ==========================

/// `math.factorial(n)` — returns n factorial.
///
/// Only accepts non-negative integers (and bools). Raises `ValueError` for
/// negative values, `TypeError` for non-integer types.
fn math_factorial(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.factorial", vm.heap)?;
    defer_drop!(value, vm);

    let n = match value {
        Value::Int(n) => *n,
        Value::Bool(b) => i64::from(*b),
        _ => {
            return Err(ExcType::type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                value.py_type_name(vm)
            )));
        }
    };

    if n < 0 {
        return Err(
            SimpleException::new_msg(ExcType::ValueError, "factorial() not defined for negative values").into(),
        );
    }

    // hwf: exact, past 64 bits too (CPython's `factorial(25)` is an int of
    // 26 digits); only a count whose result could not be held is refused.
    if n > BIG_INT_MATH_MAX_N {
        return Err(SimpleException::new_msg(ExcType::OverflowError, "int too large to convert to factorial").into());
    }
    Ok(falling_product(n, n).into_value(vm.heap))
}

/// hwf: the largest `n` `factorial`, `comb` and `perm` compute (`factorial(100_000)`
/// has 456,574 digits); beyond it they raise `OverflowError` rather than spend the
/// run's CPU and memory on one number.
const BIG_INT_MATH_MAX_N: i64 = 100_000;

/// hwf: `n * (n - 1) * … * (n - k + 1)` exactly (`k <= n`, both non-negative).
fn falling_product(n: i64, k: i64) -> LongInt {
    let mut result = BigInt::from(1);
    for i in 0..k {
        result *= n - i;
    }
    LongInt::new(result)
}

/// `math.gcd(*integers)` — returns the greatest common divisor of the arguments.
///
/// Supports 0 or more arguments, matching CPython 3.9+. `gcd()` returns 0,
/// `gcd(n)` returns `abs(n)`, and for multiple args reduces pairwise.
/// The result is always non-negative.
fn math_gcd(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let positional = args.into_pos_only("math.gcd", vm.heap)?;
    defer_drop_mut!(positional, vm);

    let mut result: u64 = 0;
    // hwf: past 64 bits (`gcd(2**70, 6)`), exactly, once an argument is.
    let mut big: Option<BigInt> = None;
    for arg in positional.by_ref() {
        defer_drop!(arg, vm);
        if big.is_none() && is_big(arg, vm) {
            big = Some(BigInt::from(result));
        }
        if let Some(acc) = big.as_mut() {
            *acc = num_integer::Integer::gcd(acc, &value_to_bigint(arg, vm)?);
            continue;
        }
        let n = value_to_int(arg, vm)?;
        result = gcd(result, n.unsigned_abs());
    }
    if let Some(acc) = big {
        return Ok(LongInt::new(acc).into_value(vm.heap));
    }
    Ok(u64_to_value(result, vm.heap))
}

/// `math.lcm(*integers)` — returns the least common multiple of the arguments.
///
/// Supports 0 or more arguments, matching CPython 3.9+. `lcm()` returns 1,
/// `lcm(n)` returns `abs(n)`, and for multiple args reduces pairwise.
/// The result is always non-negative. Returns 0 if any argument is 0.
fn math_lcm(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let positional = args.into_pos_only("math.lcm", vm.heap)?;
    defer_drop_mut!(positional, vm);

    let mut result: u64 = 1;
    // hwf: past 64 bits, exactly, once an argument or the result is.
    let mut big: Option<BigInt> = None;
    for arg in positional.by_ref() {
        defer_drop!(arg, vm);
        if big.is_none() && is_big(arg, vm) {
            big = Some(BigInt::from(result));
        }
        if let Some(acc) = big.as_mut() {
            let n = value_to_bigint(arg, vm)?;
            *acc = num_integer::Integer::lcm(acc, &n);
            continue;
        }
        let n = value_to_int(arg, vm)?;
        let abs_n = n.unsigned_abs();
        if abs_n == 0 {
            big = Some(BigInt::from(0));
            continue;
        }
        let g = gcd(result, abs_n);
        // lcm(a, b) = |a| / gcd(a,b) * |b| — dividing first avoids intermediate overflow
        match (result / g).checked_mul(abs_n) {
            Some(r) => result = r,
            None => big = Some(BigInt::from(result / g) * BigInt::from(abs_n)),
        }
    }
    if let Some(acc) = big {
        return Ok(LongInt::new(acc).into_value(vm.heap));
    }
    Ok(u64_to_value(result, vm.heap))
}

/// `math.comb(n, k)` — returns the number of ways to choose k items from n.
///
/// Both arguments must be non-negative integers.
fn math_comb(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (n_val, k_val) = args.get_two_args("math.comb", vm.heap)?;
    defer_drop!(n_val, vm);
    defer_drop!(k_val, vm);

    // hwf: `n` or `k` past 64 bits (`comb(2**70, 2)`), as CPython.
    if is_big(n_val, vm) || is_big(k_val, vm) {
        let n = value_to_bigint(n_val, vm)?;
        let k = value_to_bigint(k_val, vm)?;
        return big_comb_perm(&n, &k, true, vm);
    }
    let n = value_to_int(n_val, vm)?;
    let k = value_to_int(k_val, vm)?;

    if n < 0 {
        return Err(SimpleException::new_msg(ExcType::ValueError, "n must be a non-negative integer").into());
    }
    if k < 0 {
        return Err(SimpleException::new_msg(ExcType::ValueError, "k must be a non-negative integer").into());
    }
    if k > n {
        return Ok(Value::Int(0));
    }

    // hwf: exact, past 64 bits too (CPython's `comb(100, 50)`).
    let k = k.min(n - k);
    if n > BIG_INT_MATH_MAX_N {
        return Err(SimpleException::new_msg(ExcType::OverflowError, "integer overflow in comb").into());
    }
    let numerator = falling_product(n, k);
    let denominator = falling_product(k, k);
    Ok(LongInt::new(numerator.0 / denominator.0).into_value(vm.heap))
}

/// `math.perm(n, k=None)` — returns the number of k-length permutations from n items.
///
/// Both arguments must be non-negative integers. When `k` is omitted, defaults to `n`
/// (i.e., `perm(n)` returns `n!`), matching CPython behavior.
fn math_perm(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (n_val, k_val) = args.get_one_two_args("math.perm", vm.heap)?;
    defer_drop!(n_val, vm);

    // hwf: `n` or `k` past 64 bits (`perm(2**70, 1)`), as CPython.
    if is_big(n_val, vm) || k_val.as_ref().is_some_and(|kv| is_big(kv, vm)) {
        let n = value_to_bigint(n_val, vm);
        let Some(kv) = k_val else {
            let n = n?;
            if n.sign() == num_bigint::Sign::Minus {
                return Err(SimpleException::new_msg(
                    ExcType::ValueError,
                    "factorial() not defined for negative values",
                )
                .into());
            }
            return Err(SimpleException::new_msg(
                ExcType::OverflowError,
                format!("factorial() argument should not exceed {}", i64::MAX),
            )
            .into());
        };
        defer_drop!(kv, vm);
        let k = value_to_bigint(kv, vm)?;
        return big_comb_perm(&n?, &k, false, vm);
    }
    let n = value_to_int(n_val, vm)?;
    let k_explicit = k_val.is_some();
    let k = match k_val {
        Some(kv) => {
            defer_drop!(kv, vm);
            value_to_int(kv, vm)?
        }
        None => n,
    };

    if n < 0 {
        // When called as perm(n) without k, CPython uses the factorial error message
        let msg = if k_explicit {
            "n must be a non-negative integer"
        } else {
            "factorial() not defined for negative values"
        };
        return Err(SimpleException::new_msg(ExcType::ValueError, msg).into());
    }
    if k < 0 {
        return Err(SimpleException::new_msg(ExcType::ValueError, "k must be a non-negative integer").into());
    }
    if k > n {
        return Ok(Value::Int(0));
    }

    // hwf: exact, past 64 bits too.
    if n > BIG_INT_MATH_MAX_N {
        return Err(SimpleException::new_msg(ExcType::OverflowError, "integer overflow in perm").into());
    }
    Ok(falling_product(n, k).into_value(vm.heap))
}

/// hwf: `math.comb(n, k)` / `math.perm(n, k)` with an argument past 64
/// bits: CPython's errors, then the exact product of the `k` (for `comb`,
/// `min(k, n - k)`) falling factors, refused past [`BIG_INT_MATH_MAX_N`]
/// factors as the 64-bit path refuses a large `n`.
fn big_comb_perm(n: &BigInt, k: &BigInt, comb: bool, vm: &mut VM<'_>) -> RunResult<Value> {
    use num_bigint::Sign;
    if n.sign() == Sign::Minus {
        return Err(SimpleException::new_msg(ExcType::ValueError, "n must be a non-negative integer").into());
    }
    if k.sign() == Sign::Minus {
        return Err(SimpleException::new_msg(ExcType::ValueError, "k must be a non-negative integer").into());
    }
    if k > n {
        return Ok(Value::Int(0));
    }
    let k = if comb { k.min(&(n - k)).clone() } else { k.clone() };
    let Some(count) = k.to_i64() else {
        let what = if comb { "min(n - k, k)" } else { "k" };
        return Err(SimpleException::new_msg(ExcType::OverflowError, format!("{what} must not exceed {}", i64::MAX)).into());
    };
    if count > BIG_INT_MATH_MAX_N {
        let what = if comb { "integer overflow in comb" } else { "integer overflow in perm" };
        return Err(SimpleException::new_msg(ExcType::OverflowError, what).into());
    }
    let mut numerator = BigInt::from(1);
    let mut denominator = BigInt::from(1);
    for i in 0..count {
        vm.heap.tracker.check_memory_time_every(usize::try_from(i).unwrap_or(usize::MAX))?;
        numerator *= n - i;
        if comb {
            denominator *= i + 1;
        }
    }
    Ok(LongInt::new(numerator / denominator).into_value(vm.heap))
}

// ==========================
// Modular / decomposition
// ==========================

/// `math.fmod(x, y)` — returns x modulo y as a float.
///
/// Unlike `x % y`, the result has the same sign as x. Raises `ValueError`
/// when y is zero (CPython: "math domain error").
fn math_fmod(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (x_val, y_val) = args.get_two_args("math.fmod", vm.heap)?;
    defer_drop!(x_val, vm);
    defer_drop!(y_val, vm);

    let x = value_to_float(x_val, vm)?;
    let y = value_to_float(y_val, vm)?;

    if y == 0.0 || x.is_infinite() {
        // CPython raises for both fmod(x, 0) and fmod(inf, y)
        // but NaN inputs propagate
        if !x.is_nan() && !y.is_nan() {
            return Err(math_domain_error());
        }
    }
    Ok(Value::Float(x % y))
}

/// `math.remainder(x, y)` — IEEE 754 remainder of x with respect to y.
///
/// The result is `x - n*y` where n is the closest integer to `x/y`.
fn math_remainder(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (x_val, y_val) = args.get_two_args("math.remainder", vm.heap)?;
    defer_drop!(x_val, vm);
    defer_drop!(y_val, vm);

    let x = value_to_float(x_val, vm)?;
    let y = value_to_float(y_val, vm)?;

    // NaN propagates
    if x.is_nan() || y.is_nan() {
        return Ok(Value::Float(f64::NAN));
    }
    if y == 0.0 {
        return Err(math_domain_error());
    }
    if x.is_infinite() {
        return Err(math_domain_error());
    }
    if y.is_infinite() {
        return Ok(Value::Float(x));
    }

    Ok(Value::Float(libm::remainder(x, y)))
}

/// `math.modf(x)` — returns the fractional and integer parts of x as a tuple.
///
/// Both values carry the sign of x. Returns `(fractional, integer)`.
fn math_modf(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.modf", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    let (fractional, integer) = libm::modf(f);
    let tuple = allocate_tuple(smallvec![Value::Float(fractional), Value::Float(integer)], vm.heap);
    Ok(tuple)
}

/// `math.frexp(x)` — returns (mantissa, exponent) such that `x == mantissa * 2**exponent`.
///
/// The mantissa is always in the range [0.5, 1.0) or zero.
/// Returns a tuple `(float, int)`.
fn math_frexp(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.frexp", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    let (m, exp) = libm::frexp(f);
    let tuple = allocate_tuple(smallvec![Value::Float(m), Value::Int(i64::from(exp))], vm.heap);
    Ok(tuple)
}

/// `math.ldexp(x, i)` — returns `x * 2**i`, the inverse of `frexp`.
///
/// Clamps the exponent to `i32` range before calling `libm::ldexp`, which is safe
/// because IEEE 754 double exponents only span -1074 to +1023 — any `i64` outside
/// `i32` range would trivially overflow or underflow anyway.
fn math_ldexp(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let (x_val, i_val) = args.get_two_args("math.ldexp", vm.heap)?;
    defer_drop!(x_val, vm);
    defer_drop!(i_val, vm);

    let x = value_to_float(x_val, vm)?;
    // hwf: an exponent past 64 bits overflows (or underflows to 0.0) as
    // CPython's clamp to a C long does.
    let i = if is_big(i_val, vm) {
        if i_val.long_int_is_negative(vm) { i64::MIN } else { i64::MAX }
    } else {
        value_to_int(i_val, vm)?
    };

    // Special cases: inf/nan/zero pass through regardless of exponent
    if x.is_nan() || x.is_infinite() || x == 0.0 {
        return Ok(Value::Float(x));
    }

    // Clamp i64 to i32 range — exponents beyond ±2 billion trivially overflow/underflow
    #[expect(clippy::cast_possible_truncation, reason = "clamped to i32 range first")]
    let exp = i.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    let result = libm::ldexp(x, exp);

    // If the result overflowed to infinity, CPython raises OverflowError
    if result.is_infinite() {
        return Err(math_range_error());
    }

    Ok(Value::Float(result))
}

// ==========================
// Special functions
// ==========================

/// `math.gamma(x)` — returns the Gamma function at x.
///
/// CPython 3.14 raises ValueError for non-positive integers:
/// "expected a noninteger or positive integer, got <x>".
fn math_gamma(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.gamma", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    // CPython also rejects -inf for gamma (but not lgamma, where lgamma(-inf) = inf)
    if f == f64::NEG_INFINITY {
        return Err(
            math_domain_error(), /* hwf: CPython 3.11's message (the seed's Python) */
        );
    }
    check_gamma_pole(f)?;

    let result = libm::tgamma(f);
    check_range_error(result, f)?;
    Ok(Value::Float(result))
}

/// `math.lgamma(x)` — returns the natural log of the absolute value of Gamma(x).
fn math_lgamma(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.lgamma", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    check_gamma_pole(f)?;

    let result = libm::lgamma(f);
    check_range_error(result, f)?;
    Ok(Value::Float(result))
}

/// `math.erf(x)` — returns the error function at x.
fn math_erf(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.erf", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    Ok(Value::Float(libm::erf(f)))
}

/// `math.erfc(x)` — returns the complementary error function at x (1 - erf(x)).
///
/// More accurate than `1 - erf(x)` for large x.
fn math_erfc(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("math.erfc", vm.heap)?;
    defer_drop!(value, vm);

    let f = value_to_float(value, vm)?;
    Ok(Value::Float(libm::erfc(f)))
}

// ==========================
// Helper functions
// ==========================

/// Converts a `Value` to `f64`, raising `TypeError` if the value is not numeric.
///
/// Accepts `Float`, `Int`, and `Bool` values. For other types, raises a `TypeError`
/// with a message matching CPython's format: "must be real number, not <type>".
#[expect(
    clippy::cast_precision_loss,
    reason = "i64-to-f64 can lose precision for large integers (beyond 2^53), but this matches CPython's conversion semantics"
)]
fn value_to_float(value: &Value, vm: &VM<'_>) -> RunResult<f64> {
    match value {
        Value::Float(f) => Ok(*f),
        Value::Int(n) => Ok(*n as f64),
        Value::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        // hwf: an int past 64 bits is a real number too (`math.log(2 ** 100)`,
        // `math.sqrt(10 ** 30)`), as a float when it fits one.
        Value::Ref(id) if let HeapData::LongInt(li) = vm.heap.get(*id) => li
            .inner()
            .to_f64()
            .filter(|f| f.is_finite())
            .ok_or_else(ExcType::overflow_int_to_float),
        _ => Err(ExcType::type_error(format!(
            "must be real number, not {}",
            value.py_type_name(vm)
        ))),
    }
}

/// Converts a `Value` to `i64`, raising `TypeError` if the value is not an integer.
///
/// Accepts `Int` and `Bool` values. For other types, raises a `TypeError`
/// with a message matching CPython's format.
fn value_to_int(value: &Value, vm: &VM<'_>) -> RunResult<i64> {
    match value {
        Value::Int(n) => Ok(*n),
        Value::Bool(b) => Ok(i64::from(*b)),
        _ => Err(ExcType::type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            value.py_type_name(vm)
        ))),
    }
}

/// hwf: an int argument as a `BigInt`, whatever its size (`Int`, `Bool`,
/// an interned or heap `LongInt`); other types raise as [`value_to_int`].
fn value_to_bigint(value: &Value, vm: &VM<'_>) -> RunResult<BigInt> {
    match value {
        Value::InternLongInt(id) => Ok(vm.interns.get_long_int(*id).clone()),
        Value::Ref(id) => match vm.heap.get(*id) {
            HeapData::LongInt(li) => Ok(li.inner().clone()),
            _ => value_to_int(value, vm).map(BigInt::from),
        },
        _ => value_to_int(value, vm).map(BigInt::from),
    }
}

/// hwf: whether `value` is an int beyond 64 bits.
fn is_big(value: &Value, vm: &VM<'_>) -> bool {
    match value {
        Value::InternLongInt(_) => true,
        Value::Ref(id) => matches!(vm.heap.get(*id), HeapData::LongInt(_)),
        _ => false,
    }
}

/// Requires that a float is finite, raising ValueError if it's inf or nan.
///
/// CPython 3.14 uses "expected a finite input, got inf" for trig functions.
fn require_finite(f: f64) -> RunResult<()> {
    if f.is_infinite() {
        Err(
            math_domain_error(), /* hwf: CPython 3.11's message (the seed's Python) */
        )
    } else {
        Ok(())
    }
}

/// Euclidean GCD algorithm for unsigned 64-bit integers.
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = b;
        b = a % b;
        a = t;
    }
    a
}

/// Converts a `u64` result to a `Value`, promoting to `LongInt` if it exceeds `i64::MAX`.
///
/// This is needed for operations like `gcd(i64::MIN, 0)` where the unsigned result
/// (`2^63`) doesn't fit in a signed `i64`.
fn u64_to_value(n: u64, heap: &mut Heap) -> Value {
    if let Ok(signed) = i64::try_from(n) {
        Value::Int(signed)
    } else {
        LongInt::new(BigInt::from(n)).into_value(heap)
    }
}
