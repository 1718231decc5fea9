//! hwf: `_hwf_arity(f)`, the number of positional parameters of a callable
//! as CPython's `inspect.signature` counts them (positional-only plus
//! positional-or-keyword; `self` of a bound method excluded), or `None` when
//! CPython's `inspect.signature` has no signature for it (`int`, `max`,
//! `str.find`). The prelude's `pipeline` calls a stage with that many of
//! `(prev, item, index)`, as the seed's `_call_stage` does; builtins follow
//! CPython 3.11's answers, the version the seed's reference runs on.

use crate::{
    args::ArgValues, builtins::Builtins, bytecode::VM, defer_drop, exception_private::RunResult, heap::HeapData,
    modules::ModuleFunctions, types::Type, value::Value,
};

/// How deep a chain of bound methods, partials and classes is followed.
const MAX_DEPTH: usize = 8;

/// `_hwf_arity(f)`: an `int`, or `None` where CPython has no signature.
pub fn builtin_hwf_arity(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let value = args.get_one_arg("_hwf_arity", vm.heap)?;
    defer_drop!(value, vm);
    let n = arity(value, vm, 0);
    Ok(n.and_then(|n| i64::try_from(n).ok()).map_or(Value::None, Value::Int))
}

/// The positional parameter count of `value`, if CPython could inspect it.
fn arity(value: &Value, vm: &VM<'_>, depth: usize) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    match value {
        Value::DefFunction(id) => Some(vm.interns.get_function(*id).signature.positional_count()),
        Value::Builtin(Builtins::Function(b)) => builtin_arity((*b).into()),
        Value::Builtin(Builtins::Type(t)) => builtin_arity(&t.to_string()),
        Value::Builtin(Builtins::ExcType(_)) => None,
        Value::ModuleFunction(ModuleFunctions::Math(f)) => math_arity(&f.to_string()),
        Value::ModuleFunction(ModuleFunctions::Json(_)) => Some(1),
        Value::Ref(id) => match vm.heap.get(*id) {
            HeapData::Closure(c) => Some(vm.interns.get_function(c.func_id).signature.positional_count()),
            HeapData::FunctionDefaults(f) => Some(vm.interns.get_function(f.func_id).signature.positional_count()),
            HeapData::MethodDescriptor(d) => method_arity(d.ty, vm.interns.get_str(d.name)),
            // `self` is bound; a builtin's bound method without a signature
            // has none either.
            HeapData::BoundMethod(m) => arity(&m.func, vm, depth + 1).map(|n| n.saturating_sub(1)),
            HeapData::Partial(p) => {
                let (func, bound) = p.func_and_bound_count();
                arity(func, vm, depth + 1).map(|n| n.saturating_sub(bound))
            }
            // `__init__` without `self`; a class without one takes nothing.
            HeapData::Class(class) => match class.namespace().get_by_str("__init__", vm.heap, vm.interns) {
                Some(init) => arity(init, vm, depth + 1).map(|n| n.saturating_sub(1)),
                None => Some(0),
            },
            _ => None,
        },
        _ => None,
    }
}

/// The count CPython 3.11's `inspect.signature` gives a method of a builtin
/// type taken unbound (`str.strip`: `self` counts); `None` where it has none.
fn method_arity(ty: Type, name: &str) -> Option<usize> {
    match ty {
        Type::Str => match name {
            "capitalize" | "casefold" | "isalnum" | "isalpha" | "isascii" | "isdecimal" | "isdigit"
            | "isidentifier" | "islower" | "isnumeric" | "isprintable" | "isspace" | "istitle" | "isupper"
            | "lower" | "swapcase" | "title" | "upper" => Some(1),
            "expandtabs" | "join" | "lstrip" | "partition" | "removeprefix" | "removesuffix" | "rpartition"
            | "rstrip" | "splitlines" | "strip" | "translate" | "zfill" => Some(2),
            "center" | "encode" | "ljust" | "rjust" | "rsplit" | "split" => Some(3),
            "replace" => Some(4),
            _ => None,
        },
        Type::Bytes => match name {
            "expandtabs" | "join" | "lstrip" | "partition" | "removeprefix" | "removesuffix" | "rpartition"
            | "rstrip" | "splitlines" | "strip" | "zfill" => Some(2),
            "center" | "decode" | "ljust" | "rjust" | "rsplit" | "split" | "translate" => Some(3),
            "replace" => Some(4),
            _ => None,
        },
        Type::List => match name {
            "clear" | "copy" | "reverse" | "sort" => Some(1),
            "append" | "count" | "extend" | "pop" | "remove" => Some(2),
            "insert" => Some(3),
            "index" => Some(4),
            _ => None,
        },
        Type::Dict => match name {
            "popitem" => Some(1),
            "get" | "setdefault" => Some(3),
            _ => None,
        },
        Type::Tuple => match name {
            "count" => Some(2),
            "index" => Some(4),
            _ => None,
        },
        Type::Int => match name {
            "as_integer_ratio" | "bit_count" | "bit_length" => Some(1),
            "to_bytes" => Some(3),
            _ => None,
        },
        Type::Float => match name {
            "as_integer_ratio" | "conjugate" | "hex" | "is_integer" => Some(1),
            _ => None,
        },
        _ => None,
    }
}

/// The count for a builtin function or type by its name (CPython 3.11).
fn builtin_arity(name: &str) -> Option<usize> {
    match name {
        "print" | "object" => Some(0),
        "abs" | "all" | "any" | "bin" | "chr" | "hash" | "hex" | "id" | "len" | "oct" | "ord" | "repr" | "reversed"
        | "sorted" | "callable" | "float" | "list" | "tuple" => Some(1),
        "divmod" | "enumerate" | "hasattr" | "isinstance" | "round" | "sum" | "issubclass" | "complex" => Some(2),
        "pow" | "setattr" => Some(3),
        "open" => Some(8),
        _ => None,
    }
}

/// The count for a `math` function by its name (CPython 3.11).
fn math_arity(name: &str) -> Option<usize> {
    match name {
        "gcd" | "lcm" => Some(0),
        "acos" | "acosh" | "asin" | "asinh" | "atan" | "atanh" | "cbrt" | "ceil" | "cos" | "cosh" | "degrees"
        | "erf" | "erfc" | "exp" | "exp2" | "expm1" | "fabs" | "factorial" | "floor" | "frexp" | "fsum" | "gamma"
        | "isfinite" | "isinf" | "isnan" | "isqrt" | "lgamma" | "log10" | "log1p" | "log2" | "modf" | "prod"
        | "radians" | "sin" | "sinh" | "sqrt" | "tan" | "tanh" | "trunc" | "ulp" => Some(1),
        "atan2" | "comb" | "copysign" | "dist" | "fmod" | "isclose" | "ldexp" | "nextafter" | "perm" | "pow"
        | "remainder" => Some(2),
        _ => None,
    }
}
