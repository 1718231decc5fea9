//! Running a script in Monty: the script body becomes the body of an
//! `async def` (top-level `await` and `return` work, as in the seed), a
//! small Python prelude defines `parallel`, `pipeline` and `budget` over
//! `asyncio.gather`, and every `agent` / `capability` / `workflow` /
//! `kanban_agent` call is a Monty external function that is submitted to
//! the host at once (`submit`) and handed back to Python as a pending
//! future. When every Python task is blocked, Monty yields the futures it
//! waits on and the host's `next` says which finished first — completion
//! order live, the journaled order on replay.

use crate::source;
use crate::source::py_str_repr;
use hwf_guest::runtime::{self, AgentField, python, wit};
use monty::{MontyRun, RunProgress};
use monty_types::{
    AssertMessageAnnotations, CompileOptions, DictPairs, ExcAttr, ExcData, ExcType, ExtFunctionResult, MontyException,
    MontyObject, NameLookupResult, PrintWriter, PrintWriterCallback, ResourceLimits, ResourceTracker,
};
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::collections::BTreeMap;
use wit::{CallError, CapabilityRequest, Diagnostic, LogLevel, Task, WorkflowCall, host};

/// The file name Monty reports in tracebacks.
const FILE: &str = "workflow.py";
/// The entry function the body is wrapped in (one line above the body, so
/// script line N is program line N + 1).
const ENTRY: &str = "_hermes_wf_entry";
/// Python call depth, CPython's default (Monty's frames live on its heap;
/// nested values compared, printed or dumped this deep fit the 1 MiB wasm
/// stack the host allows, measured in the twelfth session).
const MAX_RECURSION: usize = 1000;
/// Nesting depth of a value converted to or from JSON.
const MAX_DEPTH: usize = 128;

/// Names the runtime answers as external functions.
const HOST_FUNCTIONS: &[&str] = &[
    "_hwf_agent",
    "_hwf_kanban_agent",
    "_hwf_capability",
    "_hwf_workflow",
    "_hwf_phase",
    "_hwf_budget_spent",
    "_hwf_budget_remaining",
    "_hwf_check_items",
];

/// The host calls that are tasks.
const TASKS: &[&str] = &["agent", "kanban_agent", "capability", "workflow"];

/// The API written in Python, after the entry function (so it does not
/// shift the script's lines). Its names are globals of the program; the
/// script cannot import anything itself.
const PRELUDE: &str = r#"
import asyncio
import asyncio as _hwf_asyncio
import json
import math
from dataclasses import dataclass as _hwf_dataclass


# The seed's typed errors are builtins of hwf's Monty: CapabilityError
# (.code, .retryable) and PipelineStageError (.item_index, .stage_index,
# .cause_type, .code, .retryable), both RuntimeError subclasses.


def format(value, format_spec=""):
    if not isinstance(format_spec, str):
        kind = "None" if format_spec is None else type(format_spec).__name__
        raise TypeError(f"format() argument 2 must be str, not {kind}")
    return f"{value:{format_spec}}"


# As the seed's `log(message)` / `phase(title)`: the text is `str()` of the
# value (`None`, `{'a': 1}`, an exception's message), not its JSON.
# `print` (which the script itself may not call) hands the line to the host
# without pausing the interpreter, so `log` also works where a host call
# cannot: in a generator's body, a `sorted` key, a `map` callback.
def log(*messages, **keywords):
    if keywords:
        messages = _hwf_keyword("log", "message", messages, keywords)
    print(" ".join(str(m) for m in messages))


def phase(*titles, **keywords):
    if keywords:
        titles = _hwf_keyword("phase", "title", titles, keywords)
    _hwf_phase(" ".join(str(t) for t in titles))


# The seed's `log(message)` / `phase(title)` by keyword.
def _hwf_keyword(function, name, given, keywords):
    for key in keywords:
        if key != name:
            raise TypeError(function + "() got an unexpected keyword argument '" + key + "'")
    if given:
        raise TypeError(function + "() got multiple values for argument '" + name + "'")
    return (keywords[name],)


# As in the seed, the host calls are coroutines: nothing starts until the
# call is awaited (or handed to parallel / pipeline / asyncio.gather).
async def agent(*args, **kwargs):
    return await _hwf_agent(*args, **kwargs)


async def kanban_agent(*args, **kwargs):
    return await _hwf_kanban_agent(*args, **kwargs)


async def capability(*args, **kwargs):
    return await _hwf_capability(*args, **kwargs)


async def workflow(*args, **kwargs):
    return await _hwf_workflow(*args, **kwargs)


# The seed's background child agents (`agent_start` / `agent_check` /
# `agent_cancel` / `agent_list`) need an async child-agent runner, which
# its Hermes plugin never wires in: there `agent_start` is refused with
# `async_child_agent_unavailable` once its arguments pass, and no handle
# ever exists. These give the same answers and errors.
async def agent_start(target, input=None, opts=None):
    input = input or {}
    opts = opts or {}
    if not isinstance(target, str) or not target:
        raise CapabilityError("agent_start requires a non-empty 'target'", "bad_request", False)
    if not isinstance(input, dict):
        raise CapabilityError("agent_start option 'input' must be an object", "bad_request", False)
    if not isinstance(opts, dict):
        raise CapabilityError("agent_start option 'opts' must be an object", "bad_request", False)
    raise CapabilityError(
        "no async child agent runner configured for agent_start", "async_child_agent_unavailable", False
    )


def _hwf_no_handle(handle):
    if not isinstance(handle, str) or not handle:
        raise CapabilityError("call requires a non-empty 'handle'", "bad_request", False)
    raise CapabilityError("unknown async agent handle " + repr(handle), "unknown_handle", False)


async def agent_check(handle):
    _hwf_no_handle(handle)


async def agent_cancel(handle):
    _hwf_no_handle(handle)


async def agent_list():
    return {"handles": []}


# The seed's read-only `_Budget`: `total` cannot be assigned (a frozen
# dataclass here), `remaining()` is a float (`inf` without a ceiling).
@_hwf_dataclass(frozen=True)
class _Budget:
    total: object

    def spent(self):
        return _hwf_budget_spent()

    def remaining(self):
        return _hwf_budget_remaining()


budget = _Budget(_hwf_total)


def _hwf_awaitable(value):
    name = type(value).__name__
    return name == "coroutine" or "uture" in name or name == "Task"


async def _hwf_settle(value):
    if _hwf_awaitable(value):
        return await value
    return value


async def parallel(thunks):
    items = list(thunks)
    _hwf_check_items(len(items))

    # As the seed's `run_one`: `thunk()` (`'int' object is not callable`
    # for a value that is not a function); a coroutine is awaited, an hwf
    # extension.
    async def one(thunk):
        if _hwf_awaitable(thunk):
            return await thunk
        return await _hwf_settle(thunk())

    # As the seed's `parallel` (a task per branch, the rest cancelled when
    # one fails), `_hwf_gather`: every branch starts before a failure is
    # seen, and then the branches still running are cancelled (their pending
    # awaits never resume; `run` cancels the host calls they were waiting
    # on) as the failure propagates.
    return list(await _hwf_asyncio._hwf_gather(_hwf_window, *[one(t) for t in items]))


# The seed's `_call_stage`: a stage gets as many of (prev, item, index) as
# it has positional parameters (`inspect.signature`), at least one; one when
# it has no signature (`int`, `max`) or only `*args`.
def _hwf_stage(stage, prev, item, index):
    n = _hwf_arity(stage)
    if n is None or n < 2:
        return stage(prev)
    if n == 2:
        return stage(prev, item)
    return stage(prev, item, index)


async def pipeline(items, *stages):
    item_list = list(items)
    _hwf_check_items(len(item_list))

    async def run_item(index, item):
        current = item
        stage_index = 0
        for stage in stages:
            try:
                current = await _hwf_settle(_hwf_stage(stage, current, item, index))
            except Exception as e:
                raise PipelineStageError(index, stage_index, e)
            stage_index += 1
        return current

    # As the seed's `pipeline` (a task per item, the rest cancelled when one
    # fails), as `parallel`'s: every item starts before a failure is seen,
    # then the items still running are cancelled as it propagates.
    return list(await _hwf_asyncio._hwf_gather(_hwf_window, *[run_item(i, x) for i, x in enumerate(item_list)]))
"#;

/// The program Monty runs for `src`. Line ends are CPython's: `\r\n` and a
/// lone `\r` read as `\n` (its tokenizer's universal newlines), so a
/// triple-quoted string in a script saved with Windows line ends holds
/// `\n`.
pub fn program(src: &str) -> String {
    let normalized;
    let src = if src.contains('\r') {
        normalized = src.replace("\r\n", "\n").replace('\r', "\n");
        normalized.as_str()
    } else {
        src
    };
    let mut out = String::with_capacity(src.len() * 2 + PRELUDE.len() + 64);
    out.push_str("async def ");
    out.push_str(ENTRY);
    out.push_str("():\n");
    // `textwrap.indent`, as the seed does: every line that is not blank.
    for line in src.split_inclusive('\n') {
        if !line.trim().is_empty() {
            out.push_str("    ");
        }
        out.push_str(line);
    }
    if !src.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("    pass\n");
    out.push_str(PRELUDE);
    out.push_str("\nawait ");
    out.push_str(ENTRY);
    out.push_str("()\n");
    out
}

/// The script line of a program line, if it is one.
fn script_line(program_line: u32, script_lines: u32) -> Option<u32> {
    let l = program_line.checked_sub(1)?;
    (1..=script_lines).contains(&l).then_some(l)
}

/// The deepest traceback frame inside the script.
fn exc_line(e: &MontyException, script_lines: u32) -> Option<u32> {
    e.traceback()
        .iter()
        .rev()
        .filter(|f| f.filename == FILE)
        .find_map(|f| script_line(f.start.line, script_lines))
}

fn compile_with(src: &str) -> Result<MontyRun, MontyException> {
    MontyRun::new(
        program(src),
        FILE,
        vec!["args".to_owned(), "_hwf_total".to_owned(), "_hwf_window".to_owned()],
        // CPython's messages: `assert x, "msg"` fails with exactly "msg"
        // (Monty's default appends the introspected expression).
        CompileOptions {
            assert_message_annotations: AssertMessageAnnotations::Off,
        },
    )
}

/// Compile `src` in Monty: syntax Monty does not support is an
/// `unsupported_syntax` diagnostic with the script's line.
pub fn compile(src: &str) -> Result<MontyRun, Diagnostic> {
    let lines = source::Lines::new(src).count();
    compile_with(src).map_err(|e| {
        source::error(
            "unsupported_syntax",
            format!(
                "{}: {}",
                e.exc_type(),
                e.message().unwrap_or("the Python runtime cannot compile this")
            ),
            exc_line(&e, lines),
        )
    })
}

/// A legacy agent id (`hermes.x`, `kanban.x`), as the seed tells them from
/// prompts.
pub fn is_agent_id(s: &str) -> bool {
    (s.starts_with("hermes.") || s.starts_with("kanban."))
        && s.split_once('.').is_some_and(|(_, rest)| !rest.is_empty())
        && !s.chars().any(char::is_whitespace)
}

// ---- values ---------------------------------------------------------------

/// A dict key as the seed writes it, `str(key)` (`_jsonable`): a string
/// as it is, else its repr (`1`, `1.5`, `True`, `None`, `('a', 1)`).
fn dict_key(k: &MontyObject) -> String {
    match k {
        MontyObject::String(s) => s.clone(),
        other => py_repr(other),
    }
}

fn to_json(o: &MontyObject, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("the value is nested more than {MAX_DEPTH} levels deep"));
    }
    let seq = |items: &[MontyObject]| -> Result<Value, String> {
        Ok(Value::Array(
            items.iter().map(|x| to_json(x, depth + 1)).collect::<Result<_, _>>()?,
        ))
    };
    Ok(match o {
        MontyObject::None => Value::Null,
        MontyObject::Bool(b) => Value::Bool(*b),
        MontyObject::Int(i) => Value::from(*i),
        // Exact: serde_json keeps an integer's digits (`arbitrary_precision`).
        MontyObject::BigInt(b) => b
            .to_string()
            .parse::<serde_json::Number>()
            .map(Value::Number)
            .map_err(|e| format!("the int {b} is not a JSON number: {e}"))?,
        MontyObject::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        MontyObject::String(s) => Value::String(s.clone()),
        MontyObject::List(items)
        | MontyObject::Tuple(items)
        | MontyObject::Set(items)
        | MontyObject::FrozenSet(items) => seq(items)?,
        MontyObject::Dict(pairs) => {
            let mut m = Map::new();
            for (k, v) in pairs {
                m.insert(dict_key(k), to_json(v, depth + 1)?);
            }
            Value::Object(m)
        }
        // The seed reports only the type name (no repr: it may hold a heap
        // address, which would make results differ between runs).
        other => json!({"_unserializable_type": type_name(other)}),
    })
}

/// The script's result as the seed's `_jsonable` writes it: dicts (keys as
/// `str(key)`), lists and tuples are followed, `str`, `int`, `float`,
/// `bool` and `None` are themselves, anything else is
/// `{"_unserializable_type": <its type's name>}` — a `set` too (`"set"`,
/// where agent options and capability inputs take a set as a list).
fn result_json(o: &MontyObject, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("the value is nested more than {MAX_DEPTH} levels deep"));
    }
    Ok(match o {
        MontyObject::List(items) | MontyObject::Tuple(items) => Value::Array(
            items
                .iter()
                .map(|x| result_json(x, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        MontyObject::NamedTuple { values, .. } => Value::Array(
            values
                .iter()
                .map(|x| result_json(x, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        MontyObject::Dict(pairs) => {
            let mut m = Map::new();
            for (k, v) in pairs {
                m.insert(dict_key(k), result_json(v, depth + 1)?);
            }
            Value::Object(m)
        }
        MontyObject::None
        | MontyObject::Bool(_)
        | MontyObject::Int(_)
        | MontyObject::BigInt(_)
        | MontyObject::Float(_)
        | MontyObject::String(_) => to_json(o, depth)?,
        other => json!({"_unserializable_type": result_type_name(other)}),
    })
}

/// CPython's `type(value).__name__` of a value the result cannot hold.
fn result_type_name(o: &MontyObject) -> String {
    match o {
        MontyObject::Set(_) => "set".to_owned(),
        MontyObject::FrozenSet(_) => "frozenset".to_owned(),
        MontyObject::Bytes(_) => "bytes".to_owned(),
        MontyObject::Ellipsis => "ellipsis".to_owned(),
        MontyObject::NotImplemented => "NotImplementedType".to_owned(),
        MontyObject::Type(_) => "type".to_owned(),
        MontyObject::BuiltinFunction(_) => "builtin_function_or_method".to_owned(),
        MontyObject::Function { .. } => "function".to_owned(),
        MontyObject::Exception { exc_type, .. } => {
            let name = exc_type.to_string();
            name.rsplit('.').next().unwrap_or(&name).to_owned()
        }
        MontyObject::Repr(r) => {
            let head = r.strip_prefix('<').unwrap_or(r);
            if is_complex_repr(r) {
                // `(1-2j)`, `1j`: a `complex`.
                "complex".to_owned()
            } else if head.starts_with("function ") {
                "function".to_owned()
            } else if head.starts_with("bound method") || head.starts_with("built-in ") {
                // A method of a builtin value (`labels.append`; the seed's
                // scripts define no classes) or a builtin function.
                "builtin_function_or_method".to_owned()
            } else if let Some((kind, _)) = head.split_once(" object") {
                // `<generator object f at 0x…>`, `<coroutine object …>`
                kind.to_owned()
            } else if let Some((kind, _)) = r.split_once('(') {
                // `range(0, 3)`, `slice(1, 2, None)`
                kind.to_owned()
            } else {
                "object".to_owned()
            }
        }
        _ => "object".to_owned(),
    }
}

/// Whether `r` is the repr of a `complex` (`1j`, `(1-2j)`, `(nan+infj)`).
fn is_complex_repr(r: &str) -> bool {
    let body = r.strip_prefix('(').and_then(|b| b.strip_suffix(')')).unwrap_or(r);
    body.ends_with('j')
        && body.len() > 1
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '+' | '-' | 'e' | 'j' | 'i' | 'n' | 'f' | 'a'))
}

/// Python's `repr()` of a dict key (`str()` for everything but strings,
/// which only appear inside tuples here).
fn py_repr(o: &MontyObject) -> String {
    match o {
        MontyObject::None => "None".to_owned(),
        MontyObject::Bool(true) => "True".to_owned(),
        MontyObject::Bool(false) => "False".to_owned(),
        MontyObject::Int(i) => i.to_string(),
        MontyObject::BigInt(b) => b.to_string(),
        MontyObject::Float(f) => py_float_repr(*f),
        MontyObject::String(s) => py_str_repr(s),
        MontyObject::Tuple(items) => {
            let inner: Vec<String> = items.iter().map(py_repr).collect();
            if inner.len() == 1 {
                format!("({},)", inner[0])
            } else {
                format!("({})", inner.join(", "))
            }
        }
        other => to_json(other, 0).map_or_else(|_| "<value>".to_owned(), |v| v.to_string()),
    }
}

/// `repr(float)`: the shortest round-tripping digits, in exponent form
/// below 1e-4 and from 1e16 (`1e-07`, `1e+16`, `0.0001`, `2.0`).
fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    let sci = format!("{:e}", f.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let body = if (-4..16).contains(&exp) {
        if exp >= 0 {
            let point = usize::try_from(exp).unwrap_or(0) + 1;
            if digits.len() <= point {
                format!("{digits}{}.0", "0".repeat(point - digits.len()))
            } else {
                format!("{}.{}", &digits[..point], &digits[point..])
            }
        } else {
            format!("0.{}{digits}", "0".repeat(usize::try_from(-exp - 1).unwrap_or(0)))
        }
    } else {
        let frac = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        format!("{frac}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    };
    format!("{sign}{body}")
}

fn type_name(o: &MontyObject) -> &'static str {
    match o {
        MontyObject::Bytes(_) => "bytes",
        MontyObject::Function { .. } => "function",
        MontyObject::Exception { .. } => "exception",
        _ => "object",
    }
}

fn from_json(v: &Value) -> MontyObject {
    match v {
        Value::Null => MontyObject::None,
        Value::Bool(b) => MontyObject::Bool(*b),
        Value::Number(n) => number_from_json(n),
        Value::String(s) => MontyObject::String(s.clone()),
        Value::Array(items) => MontyObject::List(items.iter().map(from_json).collect()),
        Value::Object(m) => MontyObject::Dict(DictPairs::from(
            m.iter()
                .map(|(k, v)| (MontyObject::String(k.clone()), from_json(v)))
                .collect::<Vec<_>>(),
        )),
    }
}

/// A JSON number as a Python number: an integer stays an `int` however
/// large (serde_json keeps its digits, `arbitrary_precision`), anything with
/// a fraction or an exponent is a `float`, as `json.loads` reads them.
fn number_from_json(n: &serde_json::Number) -> MontyObject {
    if let Some(i) = n.as_i64() {
        return MontyObject::Int(i);
    }
    let text = n.to_string();
    let digits = text.strip_prefix('-').unwrap_or(&text);
    if !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && let Ok(big) = text.parse::<num_bigint::BigInt>()
    {
        return MontyObject::BigInt(big);
    }
    MontyObject::Float(n.as_f64().unwrap_or(f64::NAN))
}

fn type_error(msg: impl Into<String>) -> MontyException {
    MontyException::new(ExcType::TypeError, Some(msg.into()))
}

/// A call's arguments: positional values and keywords by name.
struct Args {
    pos: Vec<Value>,
    kw: Map<String, Value>,
}

impl Args {
    fn of(f: &str, args: &[MontyObject], kwargs: &[(MontyObject, MontyObject)]) -> Result<Self, MontyException> {
        let conv = |o: &MontyObject| to_json(o, 0).map_err(|e| type_error(format!("{f}(): {e}")));
        let mut kw = Map::new();
        for (k, v) in kwargs {
            let MontyObject::String(k) = k else {
                return Err(type_error(format!("{f}(): keyword names must be strings")));
            };
            let v = conv(v)?;
            if !v.is_null() {
                kw.insert(k.clone(), v);
            }
        }
        Ok(Self {
            pos: args.iter().map(conv).collect::<Result<_, _>>()?,
            kw,
        })
    }

    /// Positional `i`, else keyword `name`.
    fn get(&self, i: usize, name: &str) -> Option<&Value> {
        self.pos.get(i).filter(|v| !v.is_null()).or_else(|| self.kw.get(name))
    }
}

fn opt_str(m: &Map<String, Value>, key: &str) -> Option<String> {
    m.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// A `schema` built at run time, read as the seed's broker reads it
/// (`schema_subset.normalize_schema`, [`source::seed_schema`]): `None`
/// when it declares nothing (`None`, `{}`, anything not a dict), else the
/// normalized JSON Schema the host checks the output against (a flat
/// `{field: type}` dict as an object requiring every field; a type word the
/// seed does not know leaves its field unchecked). A malformed one is the
/// seed's refusal: for a prompt agent `bad_request`, `invalid 'schema'
/// argument: …`, before the agent starts; for a legacy `hermes.x` agent or
/// a capability `schema` with the problem alone (the seed finds it when it
/// checks the output, `_validate_output`).
fn seed_schema_of(schema: Option<&Value>, prompt: bool) -> Result<Option<Value>, MontyException> {
    let Some(s) = schema.filter(|s| !s.is_null()) else {
        return Ok(None);
    };
    match source::seed_schema(&source::Lit::from_json(s)) {
        Ok(normalized) => Ok(normalized),
        Err(problem) if prompt => Err(bad_request(format!("invalid 'schema' argument: {problem}"))),
        Err(problem) => Err(refused("schema", problem)),
    }
}

/// An agent's options with their schema as the seed reads it
/// ([`seed_schema_of`]): every schema option name is replaced by `schema`
/// holding the normalized schema, or dropped when it declares nothing.
///
/// The schema carries the seed broker's answer rules for the host
/// (`x-hwf`, `hwf_core::schema::AnswerRules`): an `integer` is an `int`
/// (`4.0` is refused, as `isinstance(v, int)` refuses it), a prompt agent
/// gets 3 attempts (`max_schema_retries=2`), each retry carrying
/// `context.schema_validation_error`, and must answer a dict whatever the
/// schema's root, and a legacy agent's output is checked once (`_invoke`).
fn with_seed_schema(opts: &mut Map<String, Value>, prompt: bool) -> Result<(), MontyException> {
    let keys = runtime::option_keys(AgentField::Schema);
    let raw = keys.iter().find_map(|k| opts.get(*k).filter(|v| !v.is_null())).cloned();
    let normalized = seed_schema_of(raw.as_ref(), prompt)?;
    for k in keys {
        opts.remove(*k);
    }
    if let Some(mut schema) = normalized {
        // The seed checks `enum` with Python's `in` (`True in [1]`).
        python::widen_enums(&mut schema, false);
        if let Value::Object(root) = &mut schema {
            let rules = if prompt {
                json!({"attempts": SEED_SCHEMA_ATTEMPTS, "whole_integers": true, "object_answer": true, "retry_context": true})
            } else {
                json!({"attempts": 1, "whole_integers": true})
            };
            root.insert("x-hwf".into(), rules);
        }
        opts.insert("schema".into(), schema);
    }
    Ok(())
}

/// The seed broker's attempts at a prompt agent's schema-checked answer
/// (`VMLimits.max_schema_retries` = 2, plus the first).
const SEED_SCHEMA_ATTEMPTS: u32 = 3;

/// The options the seed's broker takes in a prompt agent's options
/// (`CHILD_AGENT_OPTION_KEYS` and `prompt`, `vm.py`'s
/// `_prompt_agent_request`), and hwf's own `agent_type` and `fresh`.
const PROMPT_OPTIONS: &[&str] = &[
    "prompt",
    "label",
    "phase",
    "schema",
    "model",
    "effort",
    "isolation",
    "context",
    "tools",
    "agentType",
    "agent_type",
    "fresh",
];

/// The seed's refusal of a malformed call: `CapabilityError(message,
/// code=code, retryable=False)`.
fn refused(code: &str, message: impl Into<String>) -> MontyException {
    let attrs = vec![
        ("code".to_owned(), ExcAttr::Str(code.to_owned())),
        ("retryable".to_owned(), ExcAttr::Bool(false)),
    ];
    MontyException::new(ExcType::CapabilityError, Some(message.into())).with_data(ExcData::Attrs(Box::new(attrs)))
}

/// The seed's `bad_request` refusal of a prompt agent call.
fn bad_request(message: impl Into<String>) -> MontyException {
    refused("bad_request", message)
}

/// The checks of the seed's `_prompt_agent_request` (`vm.py`), in its
/// order, on the merged options (`None` values are absent): a non-empty
/// prompt, no unknown option, strings, objects, `tools` a list of non-empty
/// strings (deduplicated, first occurrence kept, as `_optional_tools`
/// does) and a non-empty `agentType`. `dict_keys` are the option dict's
/// keys (an unknown one is refused even when its value is `None`).
fn check_prompt_options(opts: &mut Map<String, Value>, dict_keys: &[String]) -> Result<(), MontyException> {
    match opts.get("prompt") {
        Some(Value::String(p)) if !p.trim().is_empty() => {}
        _ => return Err(bad_request("prompt agent call requires a non-empty 'prompt'")),
    }
    let mut unknown: Vec<&str> = dict_keys
        .iter()
        .map(String::as_str)
        .filter(|k| !PROMPT_OPTIONS.contains(k))
        .collect();
    unknown.sort_unstable();
    unknown.dedup();
    if !unknown.is_empty() {
        return Err(bad_request(format!(
            "unsupported prompt agent option(s): {}",
            unknown.join(", ")
        )));
    }
    for key in ["label", "phase", "schema", "model", "effort", "isolation", "context"] {
        match (key, opts.get(key)) {
            (_, None | Some(Value::Null)) | ("schema" | "context", Some(Value::Object(_))) => {}
            (_, Some(Value::String(_))) if !matches!(key, "schema" | "context") => {}
            ("schema" | "context", Some(_)) => {
                return Err(bad_request(format!("prompt agent option '{key}' must be an object")));
            }
            _ => return Err(bad_request(format!("prompt agent option '{key}' must be a string"))),
        }
    }
    let tools_error = || bad_request("prompt agent option 'tools' must be a list of non-empty strings");
    match opts.get_mut("tools") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            let mut seen: Vec<Value> = Vec::with_capacity(items.len());
            for item in items.drain(..) {
                match &item {
                    Value::String(s) if !s.is_empty() => {
                        if !seen.contains(&item) {
                            seen.push(item);
                        }
                    }
                    _ => return Err(tools_error()),
                }
            }
            *items = seen;
        }
        Some(_) => return Err(tools_error()),
    }
    for key in ["agentType", "agent_type"] {
        match opts.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if !s.is_empty() => {}
            Some(_) => {
                return Err(bad_request(format!(
                    "prompt agent option '{key}' must be a non-empty string"
                )));
            }
        }
    }
    Ok(())
}

/// `agent(agent_id, input, label=, schema=, …)` or the prompt form
/// `agent(prompt, {options})` / `agent(prompt, label=, phase=, …)`, built
/// as the seed's guest builds its call (`vm_guest.agent`): the prompt, then
/// the options dict (whose `prompt` wins over the first argument), then
/// the keywords that are not `None`.
fn agent_task(a: &Args) -> Result<Task, MontyException> {
    let target = a.get(0, "target").or_else(|| a.kw.get("prompt")).cloned();
    let legacy = matches!(&target, Some(Value::String(s)) if is_agent_id(s));
    let input = a.pos.get(1).cloned().or_else(|| a.kw.get("input").cloned());
    if legacy {
        let Some(Value::String(id)) = target else {
            return Err(type_error("agent(): give an agent id (hermes.<name>) or a prompt"));
        };
        // The seed's broker keeps `kanban.*` ids for `kanban_agent`.
        if id.starts_with("kanban.") {
            return Err(refused(
                "reserved_agent",
                format!(
                    "reserved kanban runner id {} must be reached via kanban_agent",
                    py_str_repr(&id)
                ),
            ));
        }
        // `agent("hermes.x", input, prompt=…)`: the id, and the input
        // (`{}` when none).
        let mut opts = Map::new();
        opts.extend(a.kw.iter().map(|(k, v)| (k.clone(), v.clone())));
        opts.insert("agent".into(), Value::String(id));
        opts.insert("input".into(), input.unwrap_or_else(|| json!({})));
        with_seed_schema(&mut opts, false)?;
        let opts = Value::Object(opts);
        let req = runtime::agent_request_from_json(&opts).map_err(|e| type_error(format!("agent(): {e}")))?;
        return Ok(Task::Agent(req));
    }
    let mut opts = Map::new();
    opts.insert("prompt".into(), target.unwrap_or(Value::Null));
    let mut dict_keys: Vec<String> = Vec::new();
    match input {
        Some(Value::Object(m)) => {
            dict_keys = m.keys().cloned().collect();
            // `None` options are absent, as the seed drops them.
            opts.extend(m.into_iter().filter(|(_, v)| !v.is_null()));
        }
        Some(Value::Null) | None => {}
        // The seed's guest sends a non-dict second argument as an option
        // of its own, which its broker then refuses by that name.
        Some(_) => dict_keys.push("_invalid_opts_type".to_owned()),
    }
    // Keywords win over the options dict.
    opts.extend(
        a.kw.iter()
            .filter(|(k, _)| !matches!(k.as_str(), "target" | "input"))
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    if a.pos.is_empty() && !a.kw.contains_key("target") && opts.get("prompt").is_none_or(Value::is_null) {
        return Err(type_error("agent() missing 1 required positional argument: 'target'"));
    }
    check_prompt_options(&mut opts, &dict_keys)?;
    with_seed_schema(&mut opts, true)?;
    let opts = Value::Object(opts);
    // The options are the SDK's agent-option table (with its aliases).
    let req = runtime::agent_request_from_json(&opts).map_err(|e| type_error(format!("agent(): {e}")))?;
    Ok(Task::Agent(req))
}

/// `capability(name, input, label=, approval_id=)`.
fn capability_task(a: &Args) -> Result<Task, MontyException> {
    let Some(Value::String(name)) = a.get(0, "name") else {
        return Err(type_error("capability(name, input, ...): name must be a string"));
    };
    seed_schema_of(a.kw.get("schema"), false)?;
    Ok(Task::Capability(CapabilityRequest {
        name: name.clone(),
        input: a.get(1, "input").cloned().unwrap_or_else(|| json!({})).to_string(),
        label: opt_str(&a.kw, "label"),
        approval_id: opt_str(&a.kw, "approval_id").or_else(|| opt_str(&a.kw, "approvalId")),
    }))
}

/// `kanban_agent(profile, task, input, schema=, label=, …)`, as the seed's
/// broker makes it without a Kanban backend (`_handle_kanban`): an agent
/// call to the reserved id `kanban.<profile>` with `{profile, task, input,
/// wait: true, durable: true}` (`wait=False` is hwf's card that does not
/// wait), its output checked once against the schema (`_invoke`). The
/// keywords the seed's durable backend reads for a card (`title`, `board`,
/// `tenant`, `workspace`, `on_block`, …) go in the call's `context`. A
/// store with a board takes the call as a card (the host's Kanban lane),
/// whose result the schema then checks, as the seed's durable backend
/// does (answer rule `card_result`).
fn kanban_task(a: &Args) -> Result<Task, MontyException> {
    // The seed broker's checks (`_handle_kanban`), in its order: a profile
    // that is a non-empty str, then an `on_block` it knows.
    let profile = match a.get(0, "profile") {
        None => {
            return Err(type_error(
                "kanban_agent() missing 1 required positional argument: 'profile'",
            ));
        }
        Some(Value::String(p)) if !p.is_empty() => p,
        Some(_) => return Err(bad_request("kanban_agent call requires a non-empty 'profile'")),
    };
    if let Some(on_block) = a.kw.get("on_block").filter(|v| !v.is_null())
        && !matches!(on_block.as_str(), Some("pause" | "raise" | "return"))
    {
        return Err(bad_request(format!(
            "on_block={} is not one of ['pause', 'raise', 'return']",
            python::repr(on_block)
        )));
    }
    let mut payload = Map::new();
    payload.insert("profile".into(), Value::String(profile.clone()));
    payload.insert("task".into(), a.get(1, "task").cloned().unwrap_or_else(|| json!({})));
    payload.insert("input".into(), a.get(2, "input").cloned().unwrap_or_else(|| json!({})));
    let mut card = Map::new();
    for (k, v) in &a.kw {
        if !matches!(k.as_str(), "profile" | "task" | "input" | "label" | "schema" | "wait") {
            card.insert(k.clone(), v.clone());
        }
    }
    payload.insert("wait".into(), a.kw.get("wait").cloned().unwrap_or(Value::Bool(true)));
    payload.insert("durable".into(), Value::Bool(true));
    let mut opts = Map::new();
    if !card.is_empty() {
        opts.insert("context".into(), Value::Object(card));
    }
    opts.insert("agent".into(), Value::String(format!("kanban.{profile}")));
    opts.insert("input".into(), Value::Object(payload));
    if let Some(label) = a.kw.get("label") {
        opts.insert("label".into(), label.clone());
    }
    // A schema that is not a dict declares nothing (the seed's kanban
    // runner reads a dict schema field by field).
    if let Some(schema) = a.kw.get("schema").filter(|s| s.is_object()) {
        opts.insert("schema".into(), schema.clone());
    }
    with_seed_schema(&mut opts, false)?;
    if let Some(Value::Object(rules)) = opts.get_mut("schema").and_then(|s| s.get_mut("x-hwf")) {
        rules.insert("card_result".into(), Value::Bool(true));
    }
    let req = runtime::agent_request_from_json(&Value::Object(opts))
        .map_err(|e| type_error(format!("kanban_agent(): {e}")))?;
    Ok(Task::Agent(req))
}

/// `workflow(name, args)`: a saved workflow's name, or `{"scriptPath": …}`.
fn workflow_task(a: &Args) -> Result<Task, MontyException> {
    let name = match a.get(0, "name") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::Object(m)) => match opt_str(m, "scriptPath").or_else(|| opt_str(m, "script_path")) {
            Some(p) if !p.is_empty() => p,
            _ => {
                return Err(type_error(
                    "workflow(name, args): a dict needs a non-empty \"scriptPath\"",
                ));
            }
        },
        _ => {
            return Err(type_error(
                "workflow(name, args): name must be a saved workflow's name (a str) or {\"scriptPath\": str}",
            ));
        }
    };
    Ok(Task::Workflow(WorkflowCall {
        name,
        args: a.get(1, "args").cloned().unwrap_or(Value::Null).to_string(),
    }))
}

fn text_of(args: &[MontyObject]) -> String {
    args.iter()
        .map(|a| match a {
            MontyObject::String(s) => s.clone(),
            other => to_json(other, 0).map_or_else(|_| "<value>".to_owned(), |v| v.to_string()),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where the prelude's `log` prints: each `print(text)` is one write of the
/// text and a pushed `'\n'`, which sends the line to the host's log (a text
/// holding newlines stays one line: those come in the write).
#[derive(Default)]
struct LogSink {
    line: String,
}

impl PrintWriterCallback for LogSink {
    fn stdout_write(&mut self, output: Cow<'_, str>) -> Result<(), MontyException> {
        self.line.push_str(&output);
        Ok(())
    }

    fn stdout_push(&mut self, end: char) -> Result<(), MontyException> {
        if end == '\n' {
            host::log(LogLevel::Info, &std::mem::take(&mut self.line));
        } else {
            self.line.push(end);
        }
        Ok(())
    }

    /// The synchronous host functions (`phase`, `budget.spent()` /
    /// `remaining()`) answered where Monty cannot suspend: in a generator's
    /// body, a `sorted(key=)` or `map` callback. A task (`agent`, …) is not
    /// answered here; it stays Monty's `NotImplementedError` there.
    fn call_in_place(
        &mut self,
        name: &str,
        args: &[MontyObject],
        _kwargs: &[(MontyObject, MontyObject)],
    ) -> Option<Result<MontyObject, MontyException>> {
        match sync_call(name, args) {
            ExtFunctionResult::Return(v) => Some(Ok(v)),
            ExtFunctionResult::Error(e) => Some(Err(e)),
            _ => None,
        }
    }
}

/// A synchronous host function's answer.
fn sync_call(name: &str, args: &[MontyObject]) -> ExtFunctionResult {
    match name {
        "_hwf_phase" => {
            host::phase(&text_of(args));
            ExtFunctionResult::Return(MontyObject::None)
        }
        "_hwf_budget_spent" => ExtFunctionResult::Return(MontyObject::Int(
            i64::try_from(hwf_guest::budget().tokens_spent).unwrap_or(i64::MAX),
        )),
        // A float, as the seed's `float(...)` (`960.0`).
        #[allow(
            clippy::cast_precision_loss,
            reason = "a token count past 2^53 is not a budget; CPython's float() rounds the same way"
        )]
        "_hwf_budget_remaining" => ExtFunctionResult::Return(MontyObject::Float(
            hwf_guest::budget().tokens_left().map_or(f64::INFINITY, |t| t as f64),
        )),
        // Claude Code's item rule (the SDK's); the calls the items make
        // are limited by the host.
        "_hwf_check_items" => match args.first() {
            Some(MontyObject::Int(n)) => match runtime::check_items(u64::try_from(*n).unwrap_or(0)) {
                Ok(()) => ExtFunctionResult::Return(MontyObject::None),
                Err(msg) => ExtFunctionResult::Error(MontyException::new(ExcType::ValueError, Some(msg))),
            },
            _ => ExtFunctionResult::Return(MontyObject::None),
        },
        other => ExtFunctionResult::NotFound(other.to_owned()),
    }
}

/// A finished host call as the Python result: the value, or the seed's
/// `CapabilityError` whose text starts with the host's code, with `.code`
/// and `.retryable` set.
fn outcome(o: Result<String, CallError>) -> ExtFunctionResult {
    match o {
        Ok(raw) => match serde_json::from_str(&raw) {
            Ok(v) => ExtFunctionResult::Return(from_json(&v)),
            // The host sends JSON text; anything else is its fault, named.
            Err(e) => ExtFunctionResult::Error(capability_error(&CallError::Failed(format!(
                "internal: the host's answer is not JSON: {e}"
            )))),
        },
        Err(e) => ExtFunctionResult::Error(capability_error(&e)),
    }
}

/// A named agent's answer as the seed's broker takes it (`_invoke`): a
/// dict, else `CapabilityError("agent 'hermes.x' returned list, expected
/// dict", code="bad_output")`, also where the host's schema check refused
/// the answer for not being an object.
fn named_agent_outcome(agent: &str, o: Result<String, CallError>) -> Result<String, CallError> {
    let got = match &o {
        Ok(raw) => match serde_json::from_str::<Value>(raw) {
            Ok(Value::Object(_)) => return o,
            Ok(v) => python::type_name(&v).to_owned(),
            Err(_) => return o,
        },
        Err(e) if runtime::call_error_code(e) == "schema_mismatch" => {
            let rest = runtime::call_error_text(e)
                .strip_prefix("schema_mismatch: ")
                .unwrap_or_default();
            match python::not_a_dict(python::schema_refusal(rest).0) {
                Some(got) => got,
                None => return o,
            }
        }
        Err(_) => return o,
    };
    Err(CallError::Failed(format!(
        "bad_output: agent {} returned {got}, expected dict",
        py_str_repr(agent)
    )))
}

/// Whether the same call could succeed on a fresh attempt (the seed's
/// `retryable`, true only for its `runner_error`): a timeout, or an agent or
/// capability that failed while running. A refusal, a spent budget, a
/// schema mismatch or a bad request fails the same way again.
fn retryable(e: &CallError) -> bool {
    // The seed marks every failure its agent runner raised `runner_error`,
    // retryable, whatever the cause (a crash, a timeout, an agent that is not
    // installed or not logged in, a refusal by the model): each `agent_*`
    // code here. The broker's own refusals (policy, budget, schema, limits)
    // are not.
    let code = runtime::call_error_code(e);
    matches!(e, CallError::TimedOut(_))
        || (code.starts_with("agent_") && code != "agent_unknown")
        || matches!(code, "capability_failed" | "capability_timeout")
}

/// The seed's code and text for a host refusal the seed's broker also
/// makes, in its words: an output that failed its schema after the
/// retries (`schema`, `schema validation failed after N attempt(s): …`;
/// the host's own is `schema_mismatch: … (after N attempts)`) and an
/// unknown agent type (`unknown_agent_type`, `unknown agentType: 'x'`)
/// and the run's agent-call limit (`limit_agent`, `max_agent_calls (2)
/// exceeded`).
/// Every other error keeps the host's code and text.
fn seed_words(e: &CallError) -> Option<(&'static str, String)> {
    let code = runtime::call_error_code(e);
    let text = runtime::call_error_text(e);
    let rest = text
        .strip_prefix(code)
        .and_then(|r| r.strip_prefix(": "))
        .unwrap_or(text);
    match code {
        // An agent's retried output in the words of the seed's retry loop;
        // a check made once (a legacy agent's output, a kanban card's
        // outcome) as the seed's
        // `_validate_output` words it, the reason alone.
        "schema_mismatch" => Some((
            "schema",
            match python::schema_refusal(rest) {
                (problem, Some(attempts)) => format!(
                    "schema validation failed after {attempts} attempt(s): {}",
                    seed_schema_reason(problem)
                ),
                // Checked once (a legacy agent): the reason alone.
                (problem, None) => seed_schema_reason(problem),
            },
        )),
        // A named agent no agent answers: the seed's registry refusal.
        "agent_unknown" => {
            let quoted = rest.strip_prefix("unknown agent id ")?;
            let end = quoted.find("\": ")? + 1;
            let id: String = serde_json::from_str(&quoted[..end]).ok()?;
            Some(("unknown_agent", format!("unknown agent id {}", py_str_repr(&id))))
        }
        // A named agent's answer that is not a dict (`named_agent_outcome`).
        "bad_output" => Some(("bad_output", rest.to_owned())),
        // The seed's `max_agent_calls` refusal (`vm.py`'s `_handle_agent`).
        "limit_agent" => {
            let n = rest
                .strip_prefix("the run may make at most ")?
                .strip_suffix(" agent calls")?;
            Some(("limit_agent", format!("max_agent_calls ({n}) exceeded")))
        }
        "invalid_agent_type" => {
            let quoted = rest.strip_prefix("unknown agent type ")?;
            let name: String = serde_json::from_str(quoted).ok()?;
            Some((
                "unknown_agent_type",
                format!("unknown agentType: {}", py_str_repr(&name)),
            ))
        }
        _ => None,
    }
}

/// The host validator's reason in the words of the seed's schema subset
/// ([`python::schema_reason`]: `output.a[0] missing required field 'b'`,
/// `output.score expected integer, got str`), and an output that is not an
/// object as the seed's broker refuses it before its schema: `prompt child
/// agent returned list, expected dict`.
fn seed_schema_reason(problem: &str) -> String {
    let reason = python::schema_reason(problem);
    match reason.strip_prefix("output expected object, got ") {
        Some(got) => format!("prompt child agent returned {got}, expected dict"),
        None => reason,
    }
}

/// What the seed's broker says of any failure its agent or capability
/// runner raised (`vm.py`: `f"{type(exc).__name__} raised while
/// dispatching brokered call"`; hwf's fixture and agent failures are a
/// `RuntimeError` there).
const RUNNER_ERROR_TEXT: &str = "RuntimeError raised while dispatching brokered call";

/// `CapabilityError(<host text>, code=<host code>, retryable=…)`, in the
/// seed's words where it has its own ([`seed_words`]). A failure of the
/// agent or capability itself (the retryable ones) is the seed's
/// `runner_error`, `RuntimeError raised while dispatching brokered call`,
/// whatever it said; what it said is the exception's `detail` (an hwf
/// extension) and ends the run's error when the script does not catch it.
fn capability_error(e: &CallError) -> MontyException {
    let runner = retryable(e);
    let (code, text) = match seed_words(e) {
        _ if runner => ("runner_error".to_owned(), RUNNER_ERROR_TEXT.to_owned()),
        Some((code, text)) => (code.to_owned(), text),
        None => (
            runtime::call_error_code(e).to_owned(),
            runtime::call_error_text(e).to_owned(),
        ),
    };
    let mut attrs = vec![
        ("code".to_owned(), ExcAttr::Str(code)),
        ("retryable".to_owned(), ExcAttr::Bool(runner)),
    ];
    if runner {
        attrs.push((
            "detail".to_owned(),
            ExcAttr::Str(runtime::call_error_text(e).to_owned()),
        ));
    }
    MontyException::new(ExcType::CapabilityError, Some(text)).with_data(ExcData::Attrs(Box::new(attrs)))
}

/// Whether an uncaught exception's message is the host's (or the
/// runtime's) own error, led by its code: a `CapabilityError` whose text
/// starts with its `code` (`policy_denied: …`), or the runtime's
/// `sandbox_denied` refusal. A script's own message that merely looks
/// coded (`RuntimeError("failed: tests red")`) is not one: it keeps its
/// type, as the seed reports it.
fn host_coded(e: &MontyException, msg: &str) -> bool {
    match e.exc_type() {
        ExcType::CapabilityError => match e.data().attr("code") {
            Some(ExcAttr::Str(code)) => msg
                .strip_prefix(code.as_str())
                .is_some_and(|rest| rest.starts_with(": ")),
            _ => false,
        },
        ExcType::PermissionError => msg.starts_with("sandbox_denied: "),
        _ => false,
    }
}

/// An uncaught exception as the run's error: a stable code first.
fn describe(e: &MontyException, script_lines: u32) -> String {
    let line = exc_line(e, script_lines)
        .map(|l| format!(" (line {l})"))
        .unwrap_or_default();
    let ty = e.exc_type();
    // The prelude's host functions by the names the script calls
    // (`'_hwf_phase'` is the script's `phase`).
    let unprefixed = e.message().map(|m| m.replace("'_hwf_", "'"));
    let msg = unprefixed.as_deref().unwrap_or("");
    // `str()` of a KeyError is the repr of its key, as the seed reports it
    // (`KeyError: 'value'`, `KeyError: 3`).
    let key_text;
    // Several keys (`KeyError('a', 1)`) show their tuple, the message.
    let several = e.data().attr("\0args_repr").is_some();
    let shown = if ty == ExcType::KeyError && unprefixed.is_some() && !several {
        key_text = match e.data().attr("\0key_repr") {
            Some(ExcAttr::Str(repr)) => repr.clone(),
            _ => py_str_repr(msg),
        };
        key_text.as_str()
    } else {
        msg
    };
    // The class's own name, as the seed reports it (`JSONDecodeError`, not
    // the `json.JSONDecodeError` Monty names the type by).
    let full_name = ty.to_string();
    let name = full_name.rsplit('.').next().unwrap_or(&full_name);
    let text = if shown.is_empty() {
        name.to_owned()
    } else {
        format!("{name}: {shown}")
    };
    match ty {
        ExcType::RecursionError => format!("recursion_limit: {text}{line}"),
        ExcType::MemoryError => format!("memory_limit: {text}{line}"),
        // Something hwf's Monty does not support at run time (a generator
        // body calling the host, …): named, with its line.
        ExcType::NotImplementedError => format!("unsupported: {text}{line}"),
        _ if host_coded(e, msg) => format!("{msg}{line}"),
        // A PipelineStageError carries its cause's code.
        _ => match e.data().attr("code") {
            // A runner failure says what the call failed with.
            Some(ExcAttr::Str(code)) => match e.data().attr("detail") {
                Some(ExcAttr::Str(detail)) => format!("{code}: {text}{line}; the call failed with {detail}"),
                _ => format!("{code}: {text}{line}"),
            },
            _ => format!("script_error: {text}{line}"),
        },
    }
}

/// `run(source, args)`.
pub fn run(src: &str, args: &str) -> Result<String, String> {
    let checked = source::analyse(src);
    if !checked.diags.is_empty() {
        return Err(source::first_error(&checked.diags));
    }
    // A meta the seed's validator accepts but its run cannot send as JSON.
    if let Some(refusal) = checked.run_refusal {
        return Err(source::first_error(&[refusal]));
    }
    let lines = checked.lines.count();
    let runner = compile(src).map_err(|d| source::first_error(&[d]))?;
    // The host sends the run's arguments as JSON text (`null` for none).
    let args: Value =
        serde_json::from_str(args).map_err(|e| format!("internal: the run's arguments are not JSON: {e}"))?;
    let total = hwf_guest::budget().token_total.map_or(MontyObject::None, |t| {
        MontyObject::Int(i64::try_from(t).unwrap_or(i64::MAX))
    });
    // The seed's `parallel` / `pipeline` start at most `max_parallel`
    // branches at once: the run's, as the host bounds its own tasks.
    let window = MontyObject::Int(i64::from(hwf_guest::max_parallel()));
    let limits = ResourceLimits {
        max_recursion_depth: MAX_RECURSION,
        // The host counts and limits calls itself (limit_calls).
        max_suspensions: usize::MAX,
        ..ResourceLimits::default()
    };
    let fail = |e: MontyException| describe(&e, lines);
    let mut sink = LogSink::default();
    let mut progress = runner
        .start(
            vec![from_json(&args), total, window],
            ResourceTracker::new(limits),
            PrintWriter::Callback(&mut sink),
        )
        .map_err(fail)?;
    // Monty call id -> host call number, for calls in flight, and back.
    let mut pending: BTreeMap<u32, u64> = BTreeMap::new();
    let mut monty_id: BTreeMap<u64, u32> = BTreeMap::new();
    // Host call -> agent id, for calls to a named agent (`hermes.x`,
    // `kanban.x`), whose answer must be a dict ([`named_agent_outcome`]).
    let mut named: BTreeMap<u64, String> = BTreeMap::new();
    loop {
        progress = match progress {
            RunProgress::Complete(value) => {
                let leftover: Vec<u64> = pending.values().copied().collect();
                if !leftover.is_empty() {
                    host::cancel(&leftover);
                }
                let out = result_json(&value, 0).map_err(|e| format!("script_error: the result is not JSON: {e}"))?;
                return Ok(out.to_string());
            }
            RunProgress::FunctionCall(call) => {
                // The prelude's coroutines call `_hwf_<task>`.
                let name = match call.function_name.strip_prefix("_hwf_") {
                    Some(task) if TASKS.contains(&task) => task.to_owned(),
                    _ => call.function_name.clone(),
                };
                let task = match name.as_str() {
                    "agent" | "capability" | "workflow" | "kanban_agent" => Some(
                        Args::of(&name, &call.args, &call.kwargs).and_then(|a| match name.as_str() {
                            "agent" => agent_task(&a),
                            "capability" => capability_task(&a),
                            "workflow" => workflow_task(&a),
                            _ => kanban_task(&a),
                        }),
                    ),
                    _ => None,
                };
                match task {
                    Some(Ok(task)) => {
                        let id = host::submit(&task);
                        pending.insert(call.call_id, id);
                        monty_id.insert(id, call.call_id);
                        if let Task::Agent(wit::AgentRequest { agent: Some(agent), .. }) = &task {
                            named.insert(id, agent.clone());
                        }
                        call.resume_pending(PrintWriter::Callback(&mut sink))
                    }
                    Some(Err(e)) => call.resume(ExtFunctionResult::Error(e), PrintWriter::Callback(&mut sink)),
                    None => {
                        let r = sync_call(&name, &call.args);
                        call.resume(r, PrintWriter::Callback(&mut sink))
                    }
                }
                .map_err(fail)?
            }
            RunProgress::NameLookup(lookup) => {
                let r = if HOST_FUNCTIONS.contains(&lookup.name.as_str()) {
                    NameLookupResult::Value(MontyObject::Function {
                        name: lookup.name.clone(),
                        docstring: None,
                    })
                } else {
                    NameLookupResult::Undefined
                };
                lookup.resume(r, PrintWriter::Callback(&mut sink)).map_err(fail)?
            }
            RunProgress::OsCall(call) => {
                let what = call.function_call.name().to_owned();
                call.abort(
                    MontyException::new(
                        ExcType::PermissionError,
                        Some(format!(
                            "sandbox_denied: {what} is not available in workflow scripts; use capability()"
                        )),
                    ),
                    PrintWriter::Callback(&mut sink),
                )
                .map_err(fail)?
            }
            RunProgress::ResolveFutures(state) => {
                // A call Monty no longer waits on (a `parallel` branch it
                // cancelled when a sibling failed) is cancelled at the host.
                // Monty cancels only while it runs, so this happens at the
                // same turn on replay.
                if state.pending_call_ids().len() != pending.len() {
                    let waited: std::collections::BTreeSet<u32> = state.pending_call_ids().iter().copied().collect();
                    let gone: Vec<u32> = pending.keys().copied().filter(|m| !waited.contains(m)).collect();
                    if !gone.is_empty() {
                        let calls: Vec<u64> = gone.iter().filter_map(|m| pending.remove(m)).collect();
                        for call in &calls {
                            monty_id.remove(call);
                            named.remove(call);
                        }
                        // The host never delivers a cancelled call, so
                        // `next(&[])` below stays right.
                        host::cancel(&calls);
                    }
                }
                if pending.is_empty() {
                    return Err("script_error: the script is waiting on a call that can never finish".into());
                }
                // Monty waits on the calls this loop submitted and has not
                // resumed: the same set as `pending` (both are maps' keys),
                // so the host's empty list — every call of this instance
                // not yet delivered — says it without sending (and the host
                // searching) thousands of numbers on every turn. A count
                // that differs (not expected) sends the list it waits on;
                // a call Monty does not know would be refused by `resume`.
                let done = if state.pending_call_ids().len() == pending.len() {
                    host::next(&[])
                } else {
                    let waiting: Vec<u64> = state
                        .pending_call_ids()
                        .iter()
                        .filter_map(|m| pending.get(m).copied())
                        .collect();
                    if waiting.is_empty() {
                        return Err("script_error: the script is waiting on a call that can never finish".into());
                    }
                    host::next(&waiting)
                };
                let Some(mid) = monty_id.remove(&done.call) else {
                    return Err(format!(
                        "internal: the host delivered call {} that is not pending",
                        done.call
                    ));
                };
                pending.remove(&mid);
                if let Err(e) = &done.outcome
                    && runtime::call_error_ends_run(e)
                {
                    let leftover: Vec<u64> = pending.values().copied().collect();
                    if !leftover.is_empty() {
                        host::cancel(&leftover);
                    }
                    return Err(runtime::call_error_text(e).to_owned());
                }
                let answer = match named.remove(&done.call) {
                    Some(agent) => named_agent_outcome(&agent, done.outcome),
                    None => done.outcome,
                };
                state
                    .resume(vec![(mid, outcome(answer))], PrintWriter::Callback(&mut sink))
                    .map_err(fail)?
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_refusals_the_seed_also_makes_are_in_its_words() {
        let schema =
            CallError::SchemaMismatch("schema_mismatch: \"score\" is a required property (after 5 attempts)".into());
        assert_eq!(
            seed_words(&schema),
            Some((
                "schema",
                "schema validation failed after 5 attempt(s): output missing required field 'score'".to_owned()
            ))
        );
        let unknown = CallError::Failed(
            "agent_unknown: unknown agent id \"hermes.x\": no fixture rule names it (no fixture response for hermes.x)"
                .into(),
        );
        assert_eq!(
            seed_words(&unknown),
            Some(("unknown_agent", "unknown agent id 'hermes.x'".to_owned()))
        );
        assert!(!retryable(&unknown));
        let limit = CallError::BudgetExhausted("limit_agent: the run may make at most 2 agent calls".into());
        assert_eq!(
            seed_words(&limit),
            Some(("limit_agent", "max_agent_calls (2) exceeded".to_owned()))
        );
        // A check made once (a kanban card's outcome): the reason alone.
        let card =
            CallError::Failed("schema_mismatch: card c1: its outcome does not match the output schema: x".into());
        assert_eq!(
            seed_words(&card),
            Some((
                "schema",
                "card c1: its outcome does not match the output schema: x".to_owned()
            ))
        );
        let kind = CallError::Failed("invalid_agent_type: unknown agent type \"no-such\"".into());
        assert_eq!(
            seed_words(&kind),
            Some(("unknown_agent_type", "unknown agentType: 'no-such'".to_owned()))
        );
        assert_eq!(
            seed_schema_reason("field /a/0: \"b\" is a required property"),
            "output.a[0] missing required field 'b'"
        );
        assert_eq!(
            seed_schema_reason("field /score: \"four\" is not of type \"integer\""),
            "output.score expected integer, got str"
        );
        assert_eq!(
            seed_schema_reason("[1] is not of type \"object\""),
            "prompt child agent returned list, expected dict"
        );
        assert_eq!(seed_schema_reason("something else"), "something else");
        // Other refusals of the type keep the host's words.
        let unsafe_name = CallError::Failed("invalid_agent_type: agent type name \"../x\" is not allowed".into());
        assert_eq!(seed_words(&unsafe_name), None);
        assert_eq!(seed_words(&CallError::Failed("agent_failed: down".into())), None);
    }
}
