//! Implementation of Python's `json` module.
//!
//! This module currently implements the two high-traffic entry points used by
//! most programs:
//! - `json.loads()` for parsing JSON text into Monty values
//! - `json.dumps()` for serializing Monty values to JSON text
//!
//! The implementation is split by direction so parsing and serialization logic
//! stay isolated:
//! - [`load`] handles JSON text -> Monty values
//! - [`dump`] handles Monty values -> JSON text

mod dump;
mod load;
mod scan_error;
mod string_cache;

pub(crate) use string_cache::JsonStringCache;

use super::ModuleFunctions;
use monty_types::JsonErrorData;

use crate::{
    args::ArgValues,
    builtins::Builtins,
    bytecode::VM,
    defer_drop,
    exception_private::{ExcType, ExcTypeExt, RunResult, SimpleException},
    heap::{HeapData, HeapId},
    intern::StaticStrings,
    types::{Module, PyTrait},
    value::Value,
};

/// Functions exposed by the `json` module.
///
/// Each variant corresponds to a module-level callable stored in the module's
/// attribute dictionary. The display form matches the Python-visible function
/// name so reprs look like normal builtins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::Display, serde::Serialize, serde::Deserialize)]
#[strum(serialize_all = "lowercase")]
pub(crate) enum JsonFunctions {
    /// `json.loads()` parses JSON text into Monty values.
    Loads,
    /// `json.dumps()` serializes Monty values into JSON text.
    Dumps,
}

/// Creates the `json` module and allocates it on the heap.
///
/// The module exposes `loads`, `dumps`, and `JSONDecodeError`. These are the
/// most widely used parts of CPython's `json` module and are sufficient for
/// common data interchange and round-tripping use cases inside the sandbox.
pub fn create_module(vm: &mut VM<'_>) -> HeapId {
    let mut module = Module::new(StaticStrings::Json);
    module.set_attr(
        StaticStrings::Loads,
        Value::ModuleFunction(ModuleFunctions::Json(JsonFunctions::Loads)),
        vm,
    );
    module.set_attr(
        StaticStrings::Dumps,
        Value::ModuleFunction(ModuleFunctions::Json(JsonFunctions::Dumps)),
        vm,
    );
    module.set_attr(
        StaticStrings::JsonDecodeError,
        Value::Builtin(Builtins::ExcType(ExcType::JsonDecodeError)),
        vm,
    );
    vm.heap.allocate(HeapData::Module(Box::new(module)))
}

/// hwf: `json.JSONDecodeError(msg, doc, pos)`, as CPython's constructor
/// builds it: the message is `"{msg}: line {lineno} column {colno} (char
/// {pos})"`, with `lineno` / `colno` counted in `doc` up to `pos`, and
/// `msg`, `doc`, `pos`, `lineno`, `colno` are its attributes. The
/// arguments are positional; `doc` must be a `str` and `pos` an `int`.
pub(crate) fn new_decode_error(vm: &mut VM<'_>, args: ArgValues) -> RunResult<Value> {
    const NAME: &str = "JSONDecodeError.__init__";
    let items: Vec<Value> = args.into_pos_only(NAME, vm.heap)?.collect();
    defer_drop!(items, vm);
    if items.len() != 3 {
        let message = match items.len() {
            0 => format!("{NAME}() missing 3 required positional arguments: 'msg', 'doc', and 'pos'"),
            1 => format!("{NAME}() missing 2 required positional arguments: 'doc' and 'pos'"),
            2 => format!("{NAME}() missing 1 required positional argument: 'pos'"),
            n => format!("{NAME}() takes 4 positional arguments but {} were given", n + 1),
        };
        return Err(ExcType::type_error(message));
    }
    let msg = items[0].py_str(vm)?;
    defer_drop!(msg, vm);
    let msg = msg.to_str(vm)?.to_owned();
    let doc = match &items[1] {
        Value::InternString(id) => vm.interns.get_str(*id).to_owned(),
        Value::Ref(id) if matches!(vm.heap.get(*id), HeapData::Str(_)) => match vm.heap.get(*id) {
            HeapData::Str(s) => s.as_str().to_owned(),
            _ => String::new(),
        },
        other => {
            return Err(ExcType::type_error(format!(
                "JSONDecodeError: doc must be a str, not {}",
                other.py_type_name(vm)
            )));
        }
    };
    let pos = match &items[2] {
        Value::Int(_) | Value::Bool(_) => items[2].as_int(vm)?,
        _ => {
            return Err(ExcType::type_error(
                "slice indices must be integers or None or have an __index__ method",
            ));
        }
    };
    // `doc.count('\n', 0, pos)` and `doc.rfind('\n', 0, pos)`: `pos` is a
    // character index, a negative one counted from the end, clamped.
    let chars = doc.chars().count();
    let end = if pos < 0 {
        chars.saturating_sub(usize::try_from(pos.unsigned_abs()).unwrap_or(usize::MAX))
    } else {
        usize::try_from(pos).unwrap_or(usize::MAX).min(chars)
    };
    let before: Vec<char> = doc.chars().take(end).collect();
    let lineno = before.iter().filter(|&&c| c == '\n').count() + 1;
    let last_newline = before.iter().rposition(|&c| c == '\n');
    let colno = match last_newline {
        Some(at) => i64::try_from(at).map_or(pos, |at| pos - at),
        None => pos + 1,
    };
    let data = JsonErrorData::build(
        &msg,
        doc.as_bytes(),
        usize::try_from(pos).unwrap_or(0),
        lineno,
        usize::try_from(colno).unwrap_or(0),
    );
    let exc = SimpleException::new_msg(
        ExcType::JsonDecodeError,
        format!("{msg}: line {lineno} column {colno} (char {pos})"),
    )
    .with_data(data);
    Ok(Value::Ref(vm.heap.allocate(HeapData::Exception(exc))))
}

/// Dispatches a `json` module function call.
///
/// Both functions are pure computations that return ordinary Monty values and
/// never need host involvement, so the dispatcher returns `Value` directly.
pub(super) fn call(vm: &mut VM<'_>, function: JsonFunctions, args: ArgValues) -> RunResult<Value> {
    match function {
        JsonFunctions::Loads => load::call_loads(vm, args),
        JsonFunctions::Dumps => dump::call_dumps(vm, args),
    }
}
