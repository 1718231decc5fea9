//! JSON parsing support for `json.loads()`.
//!
//! This module owns conversion from JSON bytes into Monty runtime values,
//! including CPython-compatible `JSONDecodeError` construction.

use std::{borrow::Cow, mem};

use jiter::{Jiter, JiterError, JiterErrorType, JsonErrorType, NumberAny, NumberInt, Peek};

use super::JsonStringCache;
use crate::{
    args::{ArgValues, FromArgs},
    bytecode::VM,
    defer_drop, defer_drop_mut,
    exception_private::{ExcType, ExcTypeExt, RunError, RunResult},
    heap::{ContainsHeap, DropGuard, HeapData, HeapReader},
    types::{
        Dict, List, LongInt, PyTrait,
        long_int::{check_decimal_digit_count, decimal_digit_count_ascii},
        str::allocate_string,
        tuple::allocate_tuple,
    },
    value::Value,
};

/// Internal error used while building Monty values from streamed JSON.
///
/// JSON syntax failures remain as raw `JiterError` values until
/// `parse_json_bytes()`, while ordinary VM/runtime failures still propagate
/// immediately without being misreported as `JSONDecodeError`.
enum JsonLoadError {
    Parse(JiterError),
    Run(RunError),
}

impl From<JiterError> for JsonLoadError {
    fn from(error: JiterError) -> Self {
        Self::Parse(error)
    }
}

impl From<RunError> for JsonLoadError {
    fn from(error: RunError) -> Self {
        Self::Run(error)
    }
}

/// Result type used internally while streaming JSON from `jiter`.
type ParseResult<T> = Result<T, JsonLoadError>;

/// Maximum JSON nesting depth accepted by `json.loads()`.
///
/// hwf: CPython's default recursion limit (1000) rather than `jiter`'s 200,
/// so a document CPython parses parses here; the wasm guest's stack holds a
/// parse this deep (measured with hwf's 1 MiB `max_wasm_stack`).
const JSON_RECURSION_LIMIT: usize = 1000;

/// Implements `json.loads(s, *, cls=None, object_hook=None, parse_float=None,
/// parse_int=None, parse_constant=None, object_pairs_hook=None, strict=True)`.
///
/// Input may be `str` or `bytes`; parsed JSON values are converted
/// recursively into Monty `Value`s. `NaN`, `Infinity` and `-Infinity` are
/// accepted, as CPython's default `parse_constant` does.
///
/// hwf: the hooks of CPython's `JSONDecoder` are called as CPython calls
/// them (each number's text to `parse_int` / `parse_float` /
/// `parse_constant`; each finished object, innermost first, to
/// `object_pairs_hook` as a list of `(key, value)` tuples, or else to
/// `object_hook` as a dict), and `strict=False` lets a raw control
/// character stand in a string. `cls` may only be `None`: a workflow script
/// cannot define a decoder class.
pub(super) fn call_loads(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    let JsonLoadsArgs {
        s,
        cls,
        object_hook,
        parse_float,
        parse_int,
        parse_constant,
        object_pairs_hook,
        strict,
    } = JsonLoadsArgs::from_args(args, vm)?;
    let options = vec![
        cls,
        object_hook,
        parse_float,
        parse_int,
        parse_constant,
        object_pairs_hook,
        strict,
    ];
    defer_drop!(options, vm);
    defer_drop_mut!(s, vm);
    let given = |i: usize| Some(&options[i]).filter(|v| !matches!(v, Value::None));
    if given(0).is_some() {
        return Err(ExcType::type_error(
            "json.loads(): only cls=None is supported (a workflow script cannot define a decoder class)",
        ));
    }
    let hooks = Hooks {
        object_hook: given(1),
        parse_float: given(2),
        parse_int: given(3),
        parse_constant: given(4),
        object_pairs_hook: given(5),
        strict: options[6].py_bool(vm)?,
    };
    parse_json_input(s, &hooks, vm)
}

/// Argument shape for `json.loads(s, *, …)`.
///
/// CPython's `loads` is a pure-Python `def loads(s, *, cls=None, …, **kw)`,
/// so `s` is positional-or-keyword (`json.loads(s='1')` works) and signature
/// errors use `style = def` wording; an unknown keyword reaches
/// `JSONDecoder.__init__`, which names itself in the error (`strict` is one
/// of its keywords).
#[derive(FromArgs)]
#[from_args(name = "loads", style = def, kwarg_error_name = "JSONDecoder.__init__")]
struct JsonLoadsArgs {
    s: Value,
    #[from_args(kw_only, default = Value::None)]
    cls: Value,
    #[from_args(kw_only, default = Value::None)]
    object_hook: Value,
    #[from_args(kw_only, default = Value::None)]
    parse_float: Value,
    #[from_args(kw_only, default = Value::None)]
    parse_int: Value,
    #[from_args(kw_only, default = Value::None)]
    parse_constant: Value,
    #[from_args(kw_only, default = Value::None)]
    object_pairs_hook: Value,
    #[from_args(kw_only, default = Value::Bool(true))]
    strict: Value,
}

/// hwf: the `json.loads` hooks given (not `None`) and `strict`.
struct Hooks<'a> {
    object_hook: Option<&'a Value>,
    parse_float: Option<&'a Value>,
    parse_int: Option<&'a Value>,
    parse_constant: Option<&'a Value>,
    object_pairs_hook: Option<&'a Value>,
    strict: bool,
}

/// hwf: `hook(arg)`, its error raised from `json.loads` as CPython raises it.
fn call_hook(hook: &Value, arg: Value, vm: &mut VM<'_>) -> ParseResult<Value> {
    vm.evaluate_function("json.loads() hook", hook, ArgValues::One(arg))
        .map_err(JsonLoadError::Run)
}

/// Parses a `json.loads()` input value and converts it into a Monty value.
///
/// The parser works directly on the underlying byte slice. Decoded strings from
/// `jiter` are copied into Monty's heap immediately before any further parser
/// movement so borrowed tape-backed data never escapes.
fn parse_json_input(value: &Value, hooks: &Hooks<'_>, vm: &mut VM<'_>) -> RunResult<Value> {
    let bytes: Cow<'_, [u8]> = match value {
        Value::InternString(string_id) => Cow::Borrowed(vm.interns.get_str(*string_id).as_bytes()),
        Value::InternBytes(bytes_id) => Cow::Borrowed(vm.interns.get_bytes(*bytes_id)),
        Value::Ref(heap_id) => match vm.heap.get(*heap_id) {
            HeapData::Str(s) => Cow::Owned(s.as_str().as_bytes().to_vec()),
            HeapData::Bytes(b) => Cow::Owned(b.as_slice().to_vec()),
            _ => return Err(ExcType::json_loads_type_error(&value.py_type_name(vm))),
        },
        _ => return Err(ExcType::json_loads_type_error(&value.py_type_name(vm))),
    };
    // hwf: a BOM, as CPython: a `str` that starts with one is refused at
    // char 0, and `bytes` are decoded as `utf-8-sig` (the BOM dropped).
    let is_str = !matches!(value, Value::InternBytes(_))
        && !matches!(value, Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::Bytes(_)));
    if let Some(rest) = bytes.strip_prefix("\u{feff}".as_bytes()) {
        if is_str {
            return Err(ExcType::json_decode_error(
                "Unexpected UTF-8 BOM (decode using utf-8-sig)",
                bytes.as_ref(),
                1,
                1,
                0,
            ));
        }
        return parse_json_bytes(rest, hooks, vm);
    }
    parse_json_bytes(bytes.as_ref(), hooks, vm)
}

/// Parses raw JSON bytes using `jiter` and converts the result to a Monty value.
///
/// The VM's per-run string cache is temporarily extracted so that it can be
/// passed alongside the VM through the recursive parse functions without
/// borrow conflicts. It is always restored before returning.
///
/// Syntax errors are wrapped in `json.JSONDecodeError` using the same
/// line/column/character suffix as CPython.
fn parse_json_bytes(original: &[u8], hooks: &Hooks<'_>, vm: &mut VM<'_>) -> RunResult<Value> {
    // hwf: `strict=False`: `jiter` always refuses a raw control character
    // in a string, so each becomes a `\u00XX` escape first, and an error's
    // place is mapped back to the text as given.
    let escaped = if hooks.strict {
        None
    } else {
        escape_control_chars(original)
    };
    let (bytes, escapes): (&[u8], &[usize]) = match &escaped {
        Some((text, at)) => (text, at),
        None => (original, &[]),
    };
    let to_error = |error: &JiterError| {
        let (message, index) = json_error_location(error, bytes);
        let (pos, line, column) = error_coordinates(original, unescaped_index(escapes, index));
        ExcType::json_decode_error(&message, original, line, column, pos)
    };
    let mut jiter = Jiter::new(bytes).with_allow_inf_nan();
    // Take the cache out of the VM so we can pass it alongside &mut VM
    // without conflicting borrows. `mem::take` leaves `Default` in its place.
    let mut cache = mem::take(&mut vm.json_string_cache);
    let result = parse_json_value(&mut jiter, 0, &mut cache, hooks, vm);
    // Always restore the cache before returning, regardless of success/failure.
    vm.json_string_cache = cache;
    let value = result.map_err(|error| match error {
        JsonLoadError::Parse(error) => {
            json_number_out_of_range_to_run_error(&error, bytes).unwrap_or_else(|| to_error(&error))
        }
        JsonLoadError::Run(error) => error,
    })?;
    // The successfully parsed `value` must be dropped via `drop_with` if
    // `finish()` detects trailing data — a plain `?` would leak its refcount.
    if let Err(error) = jiter.finish() {
        value.drop_with(vm);
        return Err(to_error(&error));
    }
    Ok(value)
}

/// hwf: `text` with each raw control character (below U+0020) inside a
/// string written as a `\u00XX` escape, and where each escape starts in the
/// new text; `None` when there is none.
fn escape_control_chars(text: &[u8]) -> Option<(Vec<u8>, Vec<usize>)> {
    let mut out: Option<(Vec<u8>, Vec<usize>)> = None;
    let (mut in_string, mut escaped) = (false, false);
    for (i, &byte) in text.iter().enumerate() {
        if in_string && byte < 0x20 {
            let (buf, at) = out.get_or_insert_with(|| (text[..i].to_vec(), Vec::new()));
            at.push(buf.len());
            buf.extend_from_slice(format!("\\u{byte:04x}").as_bytes());
            escaped = false;
            continue;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
        } else if byte == b'"' {
            in_string = true;
        }
        if let Some((buf, _)) = &mut out {
            buf.push(byte);
        }
    }
    out
}

/// hwf: the offset in the original text of `index` in the text
/// [`escape_control_chars`] made (each escape is 6 bytes for 1).
fn unescaped_index(escapes: &[usize], index: usize) -> usize {
    let mut shift = 0;
    for &at in escapes {
        if index >= at + 6 {
            shift += 5;
        } else if index > at {
            return at - shift;
        } else {
            break;
        }
    }
    index - shift
}

/// Parses the next JSON value from a `Jiter` and converts it into a Monty value.
///
/// Strings are allocated immediately because `jiter` may reuse its internal
/// tape buffer on the next parser step.
fn parse_json_value(
    jiter: &mut Jiter<'_>,
    depth: usize,
    cache: &mut JsonStringCache,
    hooks: &Hooks<'_>,
    vm: &mut VM<'_>,
) -> ParseResult<Value> {
    let peek = jiter.peek()?;
    parse_json_value_from_peek(peek, jiter, depth, cache, hooks, vm)
}

/// Converts a peeked JSON token into a Monty value.
///
/// The caller provides the `Peek` so container iteration can avoid reparsing
/// the next token after `array_step()`.
fn parse_json_value_from_peek(
    peek: Peek,
    jiter: &mut Jiter<'_>,
    depth: usize,
    cache: &mut JsonStringCache,
    hooks: &Hooks<'_>,
    vm: &mut VM<'_>,
) -> ParseResult<Value> {
    match peek {
        Peek::Null => {
            jiter.known_null()?;
            Ok(Value::None)
        }
        Peek::True | Peek::False => jiter.known_bool(peek).map(Value::Bool).map_err(Into::into),
        Peek::String => Ok(allocate_cached_string(parse_json_string(jiter)?, cache, vm.heap)),
        Peek::Array => parse_json_array(jiter, depth, cache, hooks, vm),
        Peek::Object => parse_json_object(jiter, depth, cache, hooks, vm),
        _ if peek.is_num() => parse_json_number(peek, jiter, hooks, vm),
        _ => Err(JsonLoadError::Parse(JiterError {
            error_type: JiterErrorType::JsonError(JsonErrorType::ExpectedSomeValue),
            index: jiter.current_index(),
        })),
    }
}

/// Allocates a string using the cache when eligible, falling back to direct
/// allocation for empty/single-char strings (already interned by
/// `allocate_string`).
fn allocate_cached_string(s: String, cache: &mut JsonStringCache, heap: &HeapReader<'_>) -> Value {
    if s.len() < 2 {
        // Empty and single-char strings are interned by allocate_string.
        allocate_string(s, heap.heap())
    } else {
        cache.get_or_allocate(s, heap)
    }
}

/// Parses a JSON number into the corresponding Monty numeric value.
///
/// Oversized integers that exceed Monty's digit limit are rejected with a `ValueError`
fn parse_json_number(peek: Peek, jiter: &mut Jiter<'_>, hooks: &Hooks<'_>, vm: &mut VM<'_>) -> ParseResult<Value> {
    let start = jiter.current_index();
    // Parse to bytes so that we can check the digit count before any BigInt allocation occurs.
    let token = jiter.known_number_bytes(peek)?;
    // hwf: a hook gets the number's text, as CPython's scanner passes it
    // (no digit limit applies then: `parse_int=str` reads any integer).
    let hook = if matches!(token, b"NaN" | b"Infinity" | b"-Infinity") {
        hooks.parse_constant
    } else if is_json_integer_token(token) {
        hooks.parse_int
    } else {
        hooks.parse_float
    };
    if let Some(hook) = hook {
        let text = String::from_utf8_lossy(token).into_owned();
        let arg = allocate_string(text, vm.heap);
        return call_hook(hook, arg, vm);
    }
    if is_json_integer_token(token) {
        let digit_count = decimal_digit_count_ascii(token);
        check_decimal_digit_count(digit_count).map_err(JsonLoadError::Run)?;
    }
    // `known_number_bytes` already validated the token, so `NumberAny::from_bytes`
    // only re-parses the same byte range. Errors here are mapped back into the
    // outer document's coordinate space so `json_error_location` reports
    // the correct line/column.
    let number = NumberAny::from_bytes(token, true).map_err(|error| {
        JsonLoadError::Parse(JiterError {
            error_type: JiterErrorType::JsonError(error.error_type),
            index: start + error.index,
        })
    })?;
    match number {
        NumberAny::Int(NumberInt::Int(value)) => Ok(Value::Int(value)),
        NumberAny::Int(NumberInt::BigInt(value)) => Ok(LongInt::new(value).into_value(vm.heap)),
        NumberAny::Float(value) => Ok(Value::Float(value)),
    }
}

/// Parses a JSON array and allocates the resulting Monty list directly.
///
/// Elements are converted one by one as the iterator advances, avoiding any
/// intermediate `JsonValue` tree.
fn parse_json_array(
    jiter: &mut Jiter<'_>,
    depth: usize,
    cache: &mut JsonStringCache,
    hooks: &Hooks<'_>,
    vm: &mut VM<'_>,
) -> ParseResult<Value> {
    check_json_recursion_limit(jiter, depth)?;

    let Some(mut next) = jiter.known_array()? else {
        let list_id = vm.heap.allocate(HeapData::List(List::new(Vec::new())));
        return Ok(Value::Ref(list_id));
    };

    let values = Vec::new();
    let mut values_guard = DropGuard::new(values, vm);
    {
        let (values, vm) = values_guard.as_parts_mut();
        loop {
            values.push(parse_json_value_from_peek(next, jiter, depth + 1, cache, hooks, vm)?);
            let Some(array_peek) = jiter.array_step()? else {
                break;
            };
            next = array_peek;
        }
    }

    let values = values_guard.into_inner();
    let list_id = vm.heap.allocate(HeapData::List(List::new(values)));
    Ok(Value::Ref(list_id))
}

/// Parses a JSON string and immediately copies it into an owned `String`.
///
/// `Jiter` may reuse its internal tape for the next decoded string, so callers
/// must not hold onto the borrowed `&str` beyond the current parser step.
fn parse_json_string(jiter: &mut Jiter<'_>) -> ParseResult<String> {
    Ok(jiter.known_str().map(ToOwned::to_owned)?)
}

/// Parses a JSON object and allocates the resulting Monty dict directly.
///
/// Keys are allocated before parsing their values because `jiter` may reuse its
/// temporary string storage on the next parser step.
fn parse_json_object(
    jiter: &mut Jiter<'_>,
    depth: usize,
    cache: &mut JsonStringCache,
    hooks: &Hooks<'_>,
    vm: &mut VM<'_>,
) -> ParseResult<Value> {
    check_json_recursion_limit(jiter, depth)?;
    if let Some(pairs_hook) = hooks.object_pairs_hook {
        let pairs = parse_json_object_pairs(jiter, depth, cache, hooks, vm)?;
        return call_hook(pairs_hook, pairs, vm);
    }

    let dict = match parse_first_object_key(jiter)? {
        None => Value::Ref(vm.heap.allocate(HeapData::Dict(Dict::new()))),
        Some(mut key) => {
            let mut dict_guard = DropGuard::new(Dict::new(), vm);
            {
                let (dict, vm) = dict_guard.as_parts_mut();
                loop {
                    let mut key_guard = DropGuard::new(allocate_cached_string(key, cache, vm.heap), &mut *vm);
                    let value = parse_json_value(jiter, depth + 1, cache, hooks, key_guard.ctx())?;
                    let (key_value, vm) = key_guard.into_parts();
                    if let Some(old_value) = dict.set_json_string_key(key_value, value, vm)? {
                        old_value.drop_with(vm);
                    }

                    let Some(next_key) = parse_next_object_key(jiter)? else {
                        break;
                    };
                    key = next_key;
                }
            }
            let dict = dict_guard.into_inner();
            Value::Ref(vm.heap.allocate(HeapData::Dict(dict)))
        }
    };
    match hooks.object_hook {
        Some(hook) => call_hook(hook, dict, vm),
        None => Ok(dict),
    }
}

/// hwf: a JSON object as the list of its `(key, value)` tuples, in order and
/// with repeated keys kept, for `object_pairs_hook`.
fn parse_json_object_pairs(
    jiter: &mut Jiter<'_>,
    depth: usize,
    cache: &mut JsonStringCache,
    hooks: &Hooks<'_>,
    vm: &mut VM<'_>,
) -> ParseResult<Value> {
    let mut pairs_guard = DropGuard::new(Vec::new(), vm);
    {
        let (pairs, vm) = pairs_guard.as_parts_mut();
        let mut next = parse_first_object_key(jiter)?;
        while let Some(key) = next {
            let mut key_guard = DropGuard::new(allocate_cached_string(key, cache, vm.heap), &mut *vm);
            let value = parse_json_value(jiter, depth + 1, cache, hooks, key_guard.ctx())?;
            let (key_value, vm) = key_guard.into_parts();
            pairs.push(allocate_tuple(smallvec::smallvec![key_value, value], vm.heap));
            next = parse_next_object_key(jiter)?;
        }
    }
    let pairs = pairs_guard.into_inner();
    Ok(Value::Ref(vm.heap.allocate(HeapData::List(List::new(pairs)))))
}

/// Parses the first key of a JSON object and copies it into owned storage.
///
/// Returning `None` indicates an empty object.
fn parse_first_object_key(jiter: &mut Jiter<'_>) -> ParseResult<Option<String>> {
    Ok(jiter.known_object().map(|key| key.map(ToOwned::to_owned))?)
}

/// Parses the next key of a JSON object and copies it into owned storage.
///
/// Returning `None` indicates that the object has no more items.
fn parse_next_object_key(jiter: &mut Jiter<'_>) -> ParseResult<Option<String>> {
    Ok(jiter.next_key().map(|key| key.map(ToOwned::to_owned))?)
}

/// Rejects JSON that nests arrays/objects more deeply than Monty supports.
///
/// The limit matches `jiter`'s `JsonValue` parser so this lower-level iterator
/// implementation preserves the same stack-safety boundary.
fn check_json_recursion_limit(jiter: &Jiter<'_>, depth: usize) -> ParseResult<()> {
    if depth >= JSON_RECURSION_LIMIT {
        return Err(JsonLoadError::Parse(JiterError {
            error_type: JiterErrorType::JsonError(JsonErrorType::RecursionLimitExceeded),
            index: jiter.current_index(),
        }));
    }
    Ok(())
}

/// Converts `jiter`'s oversized-integer parse error into CPython's digit-limit
/// `ValueError` when the offending token is a decimal integer literal.
fn json_number_out_of_range_to_run_error(error: &JiterError, bytes: &[u8]) -> Option<RunError> {
    if error.error_type != JiterErrorType::JsonError(JsonErrorType::NumberOutOfRange) {
        return None;
    }

    let token = slice_json_number_around(bytes, error.index);
    if !is_json_integer_token(token) {
        return None;
    }

    let digit_count = decimal_digit_count_ascii(token);
    check_decimal_digit_count(digit_count).err()
}

/// Returns whether a raw JSON number token is an integer literal rather than a
/// float or exponent form.
fn is_json_integer_token(token: &[u8]) -> bool {
    !token.is_empty() && !token.contains(&b'.') && !token.contains(&b'e') && !token.contains(&b'E')
}

/// Returns the JSON number token that surrounds `index`.
///
/// `jiter` reports `NumberOutOfRange` at or just after the failing position, so
/// this scans outward to recover the original token for CPython-compatible
/// integer digit-limit handling.
fn slice_json_number_around(bytes: &[u8], index: usize) -> &[u8] {
    let mut start = index.min(bytes.len());
    while start > 0 && is_json_number_byte(bytes[start - 1]) {
        start -= 1;
    }

    let mut end = index.min(bytes.len());
    while end < bytes.len() && is_json_number_byte(bytes[end]) {
        end += 1;
    }

    &bytes[start..end]
}

/// Returns whether `byte` can appear in a JSON number token.
fn is_json_number_byte(byte: u8) -> bool {
    matches!(byte, b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E')
}

/// The length of the number CPython's `json` reads at the start of `b`
/// (`-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`), 0 when there is none.
fn cpython_number_len(b: &[u8]) -> usize {
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let mut i = usize::from(b.first() == Some(&b'-'));
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while digit(i) {
                i += 1;
            }
        }
        _ => return 0,
    }
    if b.get(i) == Some(&b'.') && digit(i + 1) {
        i += 1;
        while digit(i) {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if digit(j) {
            while digit(j) {
                j += 1;
            }
            i = j;
        }
    }
    i
}

/// A `jiter` parse error as `json.JSONDecodeError`'s message and the byte
/// offset it is reported at.
///
/// `jiter` exposes the error byte index; [`error_coordinates`] converts it to
/// the character-based `pos`/`lineno`/`colno` CPython reports.
fn json_error_location(error: &JiterError, bytes: &[u8]) -> (String, usize) {
    // hwf: CPython's own scan names the refusal and its place; `jiter`'s
    // error is read below only where that scan accepts the document.
    if let Some((message, index)) = super::scan_error::first_refusal(bytes) {
        return (message.to_owned(), index);
    }
    let (message, index) = match &error.error_type {
        JiterErrorType::JsonError(JsonErrorType::KeyMustBeAString) => (
            "Expecting property name enclosed in double quotes".to_owned(),
            error.index,
        ),
        JiterErrorType::JsonError(JsonErrorType::TrailingComma) => {
            // hwf: CPython 3.11's report (the seed's Python): the bracket
            // after the comma is where a key or a value was expected.
            // (3.13 says `Illegal trailing comma …` at the comma.)
            let comma_index = find_trailing_comma_index(bytes, error.index).unwrap_or(error.index);
            let close = bytes
                .get(comma_index.saturating_add(1)..)
                .and_then(|rest| rest.iter().position(|byte| !byte.is_ascii_whitespace()))
                .map(|at| comma_index + 1 + at);
            let message = match close.and_then(|at| bytes.get(at)) {
                Some(b'}') => "Expecting property name enclosed in double quotes",
                _ => "Expecting value",
            };
            (message.to_owned(), close.unwrap_or(error.index))
        }
        JiterErrorType::JsonError(JsonErrorType::EofWhileParsingString) => (
            "Unterminated string starting at".to_owned(),
            find_unterminated_string_start(bytes, error.index).unwrap_or(error.index),
        ),
        JiterErrorType::JsonError(JsonErrorType::EofWhileParsingValue | JsonErrorType::ExpectedSomeValue) => {
            // hwf: a cut-off literal (`nul`, `tru`) is reported where the
            // value starts, as CPython does (`jiter` points past it).
            let mut start = error.index.min(bytes.len());
            while start > 0 && bytes[start - 1].is_ascii_alphabetic() {
                start -= 1;
            }
            ("Expecting value".to_owned(), start)
        }
        JiterErrorType::JsonError(JsonErrorType::ExpectedColon) => ("Expecting ':' delimiter".to_owned(), error.index),
        JiterErrorType::JsonError(
            kind @ (JsonErrorType::EofWhileParsingList | JsonErrorType::EofWhileParsingObject),
        ) => {
            // hwf: right after `{` / `[` (or a comma) CPython expects a key or
            // a value there, not a delimiter (`json.loads("{")`).
            let before = bytes[..error.index.min(bytes.len())]
                .iter()
                .rev()
                .find(|b| !b.is_ascii_whitespace());
            let message = match (kind, before) {
                (JsonErrorType::EofWhileParsingObject, Some(b'{' | b',')) => {
                    "Expecting property name enclosed in double quotes"
                }
                (JsonErrorType::EofWhileParsingList, Some(b'[' | b',')) => "Expecting value",
                _ => "Expecting ',' delimiter",
            };
            (message.to_owned(), error.index)
        }
        JiterErrorType::JsonError(JsonErrorType::ExpectedListCommaOrEnd | JsonErrorType::ExpectedObjectCommaOrEnd) => {
            ("Expecting ',' delimiter".to_owned(), error.index)
        }
        JiterErrorType::JsonError(JsonErrorType::InvalidEscape) => {
            let escape_index = find_string_escape_start(bytes, error.index).unwrap_or(error.index);
            let is_unicode_escape = bytes.get(escape_index.saturating_add(1)) == Some(&b'u');
            let message = if is_unicode_escape {
                "Invalid \\uXXXX escape"
            } else {
                "Invalid \\escape"
            };
            let index = if is_unicode_escape {
                escape_index.saturating_add(1)
            } else {
                escape_index
            };
            (message.to_owned(), index)
        }
        JiterErrorType::JsonError(JsonErrorType::TrailingCharacters) => ("Extra data".to_owned(), error.index),
        // hwf: CPython's text for a raw control character (a newline, a
        // tab) inside a string, at the character.
        JiterErrorType::JsonError(JsonErrorType::ControlCharacterWhileParsingString) => {
            ("Invalid control character at".to_owned(), error.index)
        }
        JiterErrorType::JsonError(JsonErrorType::InvalidNumber) => {
            // hwf: CPython reads the longest number its pattern allows
            // (`-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`) and reports what
            // follows it: a missing delimiter inside a container, `Extra
            // data` at the top level (`{"a": 01}`, `[1.]`, `-01`).
            let mut start = error.index.min(bytes.len());
            while start > 0 && is_json_number_byte(bytes[start - 1]) {
                start -= 1;
            }
            match cpython_number_len(&bytes[start..]) {
                0 => ("Expecting value".to_owned(), start),
                len if bytes[..start].iter().all(u8::is_ascii_whitespace) => ("Extra data".to_owned(), start + len),
                len => ("Expecting ',' delimiter".to_owned(), start + len),
            }
        }
        JiterErrorType::JsonError(error_type) => (error_type.to_string(), error.index),
        JiterErrorType::WrongType { .. } => (error.error_type.to_string(), error.index),
    };
    (message, index)
}

/// CPython-style error coordinates `(pos, lineno, colno)` for a byte offset
/// into `bytes`: `pos` counts characters (UTF-8 sequence starts, not bytes),
/// and `colno` is characters since the last newline + 1 — locked to `pos`
/// exactly as `json.JSONDecodeError.__init__` derives them from `doc`.
///
/// This deliberately replaces `jiter`'s `error_position`, which counts bytes
/// (wrong for multibyte documents) and clamps at end of input (wrong column
/// for EOF errors).
fn error_coordinates(bytes: &[u8], byte_index: usize) -> (usize, usize, usize) {
    let prefix = &bytes[..byte_index.min(bytes.len())];
    let mut pos = 0;
    let mut lineno = 1;
    let mut column_chars = 0;
    for &byte in prefix {
        // a character starts at every byte that is not a UTF-8 continuation byte
        if !matches!(byte, 0x80..=0xBF) {
            pos += 1;
            column_chars += 1;
        }
        if byte == b'\n' {
            lineno += 1;
            column_chars = 0;
        }
    }
    (pos, lineno, column_chars + 1)
}

/// Finds the opening quote for an unterminated JSON string.
///
/// `jiter` reports the error at the EOF position, but CPython formats this
/// specific error using the location of the starting quote instead.
fn find_unterminated_string_start(bytes: &[u8], end_index: usize) -> Option<usize> {
    let mut in_string = false;
    let mut escaped = false;
    let mut string_start = None;

    for (index, byte) in bytes.iter().copied().enumerate().take(end_index) {
        if !in_string {
            if byte == b'"' {
                in_string = true;
                string_start = Some(index);
            }
            continue;
        }

        if escaped {
            escaped = false;
            continue;
        }

        match byte {
            b'\\' => escaped = true,
            b'"' => {
                in_string = false;
                string_start = None;
            }
            _ => {}
        }
    }

    if in_string { string_start } else { None }
}

/// Finds the comma that triggered a trailing-comma error.
///
/// `jiter` reports the error at the closing delimiter after any intervening
/// whitespace, while CPython points at the comma itself.
fn find_trailing_comma_index(bytes: &[u8], end_index: usize) -> Option<usize> {
    bytes
        .get(..end_index)?
        .iter()
        .rposition(|byte| !byte.is_ascii_whitespace())
        .filter(|&index| bytes[index] == b',')
}

/// Finds the start of the current JSON escape sequence.
///
/// CPython reports invalid escape errors at the `\` for generic escapes and at
/// the `u` for malformed `\uXXXX` escapes.
fn find_string_escape_start(bytes: &[u8], end_index: usize) -> Option<usize> {
    find_unterminated_string_start(bytes, end_index).and_then(|string_start| {
        bytes
            .get(string_start.saturating_add(1)..end_index)?
            .iter()
            .rposition(|byte| *byte == b'\\')
            .map(|relative_index| string_start + 1 + relative_index)
    })
}
