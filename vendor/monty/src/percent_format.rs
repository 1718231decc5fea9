//! hwf patch: printf-style formatting, `template % args` on a `str`.
//!
//! Monty 0.0.23 raised `TypeError: unsupported operand type(s) for %` for
//! every `"%d items" % n`, which CPython (and so the seed's scripts) use
//! everywhere. Each directive is turned into the equivalent format spec and
//! rendered by the f-string machinery (`VM::format_runtime_value`), so the
//! digits are exactly `format()`'s; what is printf's own is handled here:
//! right alignment of strings, `%(key)s` lookups in a mapping, `*` widths,
//! `%d` of a float (truncated), and CPython's error messages.

use crate::{
    bytecode::VM,
    defer_drop,
    exception_private::{ExcType, ExcTypeExt, RunResult},
    heap::HeapData,
    types::{PyTrait, Type, str::allocate_string},
    value::Value,
};

/// `template % args`: the formatted string.
///
/// # Errors
///
/// CPython's `TypeError`s (too few or too many arguments, a number expected)
/// and `ValueError`s (an unsupported or incomplete directive).
pub(crate) fn percent_format(template: &str, args: &Value, vm: &mut VM<'_>) -> RunResult<String> {
    let positional: Vec<Value> = match args.py_type(vm) {
        Type::Tuple => {
            let n = args.py_len(vm).unwrap_or(0);
            let mut items = Vec::with_capacity(n);
            for i in 0..n {
                let index = Value::Int(i64::try_from(i).unwrap_or(i64::MAX));
                items.push(args.py_getitem(&index, vm)?);
            }
            items
        }
        _ => vec![args.clone_with_heap(vm)],
    };
    defer_drop!(positional, vm);
    // CPython's `PyMapping_Check` (anything subscriptable but a tuple or a
    // str): `%(key)` reads it, and arguments left over are no error
    // (`'x' % [1]` is `'x'`).
    let mapping = matches!(
        args.py_type(vm),
        Type::Dict | Type::List | Type::Bytes | Type::ByteArray | Type::Range
    );
    let mut next = 0usize;
    let mut used_mapping = false;
    let mut out = String::with_capacity(template.len() + 16);
    let mut chars = template.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // `%(key)`
        let mut key: Option<String> = None;
        if chars.peek().map(|&(_, c)| c) == Some('(') {
            chars.next();
            let mut depth = 1;
            let mut name = String::new();
            loop {
                let Some((_, c)) = chars.next() else {
                    return Err(ExcType::value_error("incomplete format key"));
                };
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                name.push(c);
            }
            key = Some(name);
        }
        let (mut left, mut plus, mut space, mut alternate, mut zero) = (false, false, false, false, false);
        while let Some(&(_, c)) = chars.peek() {
            match c {
                '-' => left = true,
                '+' => plus = true,
                ' ' => space = true,
                '#' => alternate = true,
                '0' => zero = true,
                _ => break,
            }
            chars.next();
        }
        let mut width = String::new();
        if chars.peek().map(|&(_, c)| c) == Some('*') {
            chars.next();
            let n = take_int(&positional, &mut next, vm)?;
            if n < 0 {
                left = true;
            }
            width = n.unsigned_abs().to_string();
        } else {
            while let Some(&(_, c)) = chars.peek().filter(|(_, c)| c.is_ascii_digit()) {
                width.push(c);
                chars.next();
            }
        }
        let mut precision: Option<String> = None;
        if chars.peek().map(|&(_, c)| c) == Some('.') {
            chars.next();
            let mut p = String::new();
            if chars.peek().map(|&(_, c)| c) == Some('*') {
                chars.next();
                p = take_int(&positional, &mut next, vm)?.max(0).to_string();
            } else {
                while let Some(&(_, c)) = chars.peek().filter(|(_, c)| c.is_ascii_digit()) {
                    p.push(c);
                    chars.next();
                }
            }
            precision = Some(if p.is_empty() { "0".to_owned() } else { p });
        }
        // Length modifiers are accepted and ignored, as in CPython.
        while matches!(chars.peek().map(|&(_, c)| c), Some('h' | 'l' | 'L')) {
            chars.next();
        }
        let Some((at, conversion)) = chars.next() else {
            return Err(ExcType::value_error("incomplete format"));
        };
        if conversion == '%' {
            out.push('%');
            continue;
        }
        if !"sradiouxXeEfFgGc".contains(conversion) {
            return Err(ExcType::value_error(format!(
                "unsupported format character '{conversion}' (0x{:x}) at index {at}",
                u32::from(conversion)
            )));
        }
        let _ = start;
        // The value: by key from the mapping, else the next positional one.
        let rendered = if let Some(name) = &key {
            if !mapping {
                return Err(ExcType::type_error("format requires a mapping"));
            }
            used_mapping = true;
            // As CPython's: after a keyed directive no positional one is
            // left (`'%(a)s %s' % d` is `not enough arguments`).
            next = positional.len();
            let key_value = allocate_string(name.as_str(), vm.heap);
            defer_drop!(key_value, vm);
            let found = args.py_getitem(key_value, vm)?;
            defer_drop!(found, vm);
            render_one(
                found,
                conversion,
                left,
                plus,
                space,
                alternate,
                zero,
                &width,
                precision.as_deref(),
                vm,
            )?
        } else {
            let Some(v) = positional.get(next) else {
                return Err(ExcType::type_error("not enough arguments for format string"));
            };
            next += 1;
            render_one(
                v,
                conversion,
                left,
                plus,
                space,
                alternate,
                zero,
                &width,
                precision.as_deref(),
                vm,
            )?
        };
        out.push_str(&rendered);
    }
    if !used_mapping && !mapping && next < positional.len() {
        return Err(ExcType::type_error(
            "not all arguments converted during string formatting",
        ));
    }
    Ok(out)
}

/// The next positional argument as an `int` (a `*` width or precision).
fn take_int(positional: &[Value], next: &mut usize, vm: &mut VM<'_>) -> RunResult<i64> {
    let Some(v) = positional.get(*next) else {
        return Err(ExcType::type_error("not enough arguments for format string"));
    };
    *next += 1;
    match v {
        Value::Int(n) => Ok(*n),
        other => {
            let got = other.py_type_name(vm);
            Err(ExcType::type_error(format!("* wants int, not {got}")))
        }
    }
}

/// One directive's text.
#[expect(clippy::too_many_arguments, reason = "the parts of one printf directive")]
fn render_one(
    value: &Value,
    conversion: char,
    left: bool,
    plus: bool,
    space: bool,
    alternate: bool,
    zero: bool,
    width: &str,
    precision: Option<&str>,
    vm: &mut VM<'_>,
) -> RunResult<String> {
    // hwf: a bare `%s` of a string and `%d` / `%i` / `%u` of an int need no
    // format spec: written at once (the spec parse and the generic format
    // made `'%d-%s' % (i, w)` some 20 times CPython's cost).
    if !(left || plus || space || alternate || zero) && width.is_empty() && precision.is_none() {
        match (conversion, value) {
            ('d' | 'i' | 'u', Value::Int(n)) => return Ok(n.to_string()),
            ('s', Value::InternString(id)) => return Ok(vm.interns.get_str(*id).to_owned()),
            ('s', Value::Ref(id)) if let HeapData::Str(s) = vm.heap.get(*id) => return Ok(s.as_str().to_owned()),
            _ => {}
        }
    }
    let numeric = !matches!(conversion, 's' | 'r' | 'a' | 'c');
    let mut spec = String::new();
    if left {
        spec.push('<');
    } else if !(numeric && zero) {
        spec.push('>');
    }
    if numeric {
        if plus {
            spec.push('+');
        } else if space {
            spec.push(' ');
        }
        if alternate {
            spec.push('#');
        }
        if zero && !left {
            spec.push('0');
        }
    }
    spec.push_str(width);
    match conversion {
        's' | 'r' | 'a' => {
            if let Some(p) = precision {
                spec.push('.');
                spec.push_str(p);
            }
            let code = match conversion {
                's' => 1,
                'r' => 2,
                _ => 3,
            };
            vm.format_runtime_value(value, code, Some(&spec))
        }
        'c' => {
            // hwf: CPython 3.11's errors, an int out of range an
            // `OverflowError` (`'%c' % True` is `'\x01'`).
            let code = match value {
                Value::Int(n) => Some(*n),
                Value::Bool(b) => Some(i64::from(*b)),
                _ => None,
            };
            if let Some(n) = code
                && !(0..0x11_0000).contains(&n)
            {
                return Err(crate::exception_private::SimpleException::new_msg(
                    ExcType::OverflowError,
                    "%c arg not in range(0x110000)",
                )
                .into());
            }
            let ch = match value {
                Value::Int(n) => u32::try_from(*n).ok().and_then(char::from_u32),
                Value::Bool(b) => Some(char::from(u8::from(*b))),
                other if other.py_type(vm) == Type::Str => {
                    let s = other.to_str(vm)?;
                    let mut it = s.chars();
                    match (it.next(), it.next()) {
                        (Some(c), None) => Some(c),
                        _ => None,
                    }
                }
                _ => None,
            };
            let Some(ch) = ch else {
                return Err(ExcType::type_error("%c requires int or char"));
            };
            let text = allocate_string(ch.to_string(), vm.heap);
            defer_drop!(text, vm);
            vm.format_runtime_value(text, 1, Some(&spec))
        }
        'd' | 'i' | 'u' | 'o' | 'x' | 'X' => {
            let as_int = match value {
                Value::Int(_) | Value::Bool(_) => value.clone_with_heap(vm),
                // hwf: CPython 3.11 takes a float for `%d` / `%i` / `%u`
                // only, truncated exactly (`'%d' % 1e22` is all 23
                // digits), infinity an `OverflowError`, NaN a `ValueError`.
                Value::Float(f) if matches!(conversion, 'd' | 'i' | 'u') => {
                    crate::types::long_int::LongInt::value_from_f64(f.trunc(), vm.heap)?
                }
                other if matches!(other.py_type(vm), Type::Int) => other.clone_with_heap(vm),
                other => {
                    let got = other.py_type_name(vm);
                    let kind = if matches!(conversion, 'o' | 'x' | 'X') {
                        "an integer is required"
                    } else {
                        "a real number is required"
                    };
                    return Err(ExcType::type_error(format!("%{conversion} format: {kind}, not {got}")));
                }
            };
            defer_drop!(as_int, vm);
            spec.push(if matches!(conversion, 'i' | 'u') {
                'd'
            } else {
                conversion
            });
            vm.format_runtime_value(as_int, 0, Some(&spec))
        }
        _ => {
            // e E f F g G: a float, precision 6 unless given.
            let as_float = match value {
                Value::Int(n) => Value::Float(*n as f64),
                Value::Bool(b) => Value::Float(f64::from(u8::from(*b))),
                Value::Float(_) => value.clone_with_heap(vm),
                // hwf: an int past 64 bits as its float (`'%.2f' % 10**30`),
                // or CPython's `OverflowError` past the float range.
                Value::Ref(id) if let HeapData::LongInt(li) = vm.heap.get(*id) => Value::Float(
                    num_traits::ToPrimitive::to_f64(li.inner())
                        .filter(|f| f.is_finite())
                        .ok_or_else(ExcType::overflow_int_to_float)?,
                ),
                other => {
                    let got = other.py_type_name(vm);
                    return Err(ExcType::type_error(format!("must be real number, not {got}")));
                }
            };
            spec.push('.');
            spec.push_str(precision.unwrap_or("6"));
            spec.push(conversion);
            vm.format_runtime_value(&as_float, 0, Some(&spec))
        }
    }
}
