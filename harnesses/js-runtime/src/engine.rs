//! Running a script: globals over the host's join set, and the event loop
//! that feeds host completions into promises.

use crate::source;
use boa_engine::builtins::promise::{PromiseState, ResolvingFunctions};
use boa_engine::context::HostHooks;
use boa_engine::context::time::{Clock, JsInstant};
use boa_engine::module::{ModuleLoader, ModuleRequest, Referrer};
use boa_engine::object::builtins::JsFunction;
use boa_engine::object::builtins::JsPromise;
use boa_engine::realm::Realm;
use boa_engine::{
    Context, JsError, JsNativeError, JsResult, JsValue, Module, NativeFunction, Source, context::ContextBuilder,
    js_string,
};
use hwf_guest::ErrorKind;
use hwf_guest::runtime::{self, AgentField, wit};
use serde_json::{Map, Value, json};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Boa's value-stack limit. Its default (10 240 values) is reached after
/// about 2 000 exceptions thrown through nested calls (Boa 0.22 leaves a
/// few values on the stack for each), e.g. a `parallel` of 4 096 thunks
/// whose calls throw; memory stays bounded by the instance's memory limit.
const STACK_VALUES: usize = 1 << 20;

/// What a pending host call resolves to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Agent text, or the validated object with a schema; `null` when the
    /// agent died or was stopped.
    Agent,
    /// Capability or workflow result; errors reject.
    Other,
}

struct Pending {
    kind: Kind,
    resolvers: ResolvingFunctions,
}

#[derive(Default)]
struct State {
    pending: BTreeMap<u64, Pending>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
    /// Set when anything read the wall clock (a route around the `Date`
    /// guards); the run then fails with `nondeterminism`.
    static CLOCK_READ: Cell<bool> = const { Cell::new(false) };
}

/// The engine's clock: the epoch, and a note that it was read. Scripts
/// never see a real time; reaching this at all fails the run.
struct GuardClock;

impl Clock for GuardClock {
    fn now(&self) -> JsInstant {
        JsInstant::new(0, 0)
    }

    fn system_time_millis(&self) -> i64 {
        CLOCK_READ.with(|c| c.set(true));
        0
    }
}

/// Code from strings is refused, as in Claude Code's `vm` context
/// (`codeGeneration: { strings: false }`): `eval(…)`, `Function(…)` and the
/// other function constructors throw `EvalError` with V8's message.
struct NoStringCode;

impl HostHooks for NoStringCode {
    fn ensure_can_compile_strings(
        &self,
        _realm: Realm,
        _parameters: &[boa_engine::JsString],
        _body: &boa_engine::JsString,
        _direct: bool,
        _context: &mut Context,
    ) -> JsResult<()> {
        Err(JsNativeError::eval()
            .with_message("Code generation from strings disallowed for this context")
            .into())
    }
}

/// Module loading: refused, so `import()` rejects with Claude Code's
/// message.
struct NoModules;

impl ModuleLoader for NoModules {
    fn load_imported_module(
        self: Rc<Self>,
        _referrer: Referrer,
        _request: ModuleRequest,
        _context: &RefCell<&mut Context>,
    ) -> impl Future<Output = JsResult<Module>> {
        std::future::ready(Err(JsNativeError::typ()
            .with_message("import() is not available in workflow scripts")
            .into()))
    }
}

const NONDETERMINISM: &str =
    "nondeterminism: Date.now(), new Date() and Math.random() are not available in workflows (they would break replay)";

fn js_err(msg: impl Into<String>) -> JsError {
    JsNativeError::error().with_message(msg.into()).into()
}

/// JavaScript numbers are doubles: write whole ones as integers, as
/// `JSON.stringify` does, so `18` stays `18` in results, journals and
/// fingerprints, and `2 ** 60` is `1152921504606847000` (JavaScript's
/// digits: the shortest that read back as the same double, then zeros).
/// Whole numbers beyond `u64` (up to `1e21`, where JavaScript switches to
/// an exponent) keep serde's exponent form: the same value, other text.
pub fn normalize(mut v: Value) -> Value {
    normalize_in_place(&mut v);
    v
}

/// [`normalize`] without rebuilding the arrays and objects around the
/// numbers (every agent call's options pass through it).
fn normalize_in_place(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64()
                && !n.is_i64()
                && !n.is_u64()
                && f.fract() == 0.0
            {
                if f.abs() < 9.0e15 {
                    *v = Value::from(f as i64);
                } else if f.abs() < 1e21 {
                    // Rust writes a double's shortest round-trip digits,
                    // without an exponent: JavaScript's text below 1e21.
                    let digits = format!("{f}");
                    if let Ok(i) = digits.parse::<i64>() {
                        *v = Value::from(i);
                    } else if let Ok(u) = digits.parse::<u64>() {
                        *v = Value::from(u);
                    }
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(normalize_in_place),
        Value::Object(m) => m.values_mut().for_each(normalize_in_place),
        _ => {}
    }
}

/// A JavaScript string as Rust text: unpaired surrogates (not UTF-16
/// text) are written as `\uXXXX` escapes, as `to_std_string_escaped`
/// does; the usual case skips its character-by-character formatting.
fn std_string(s: &boa_engine::JsString) -> String {
    s.to_std_string().unwrap_or_else(|_| s.to_std_string_escaped())
}

fn arg_json(args: &[JsValue], i: usize, ctx: &mut Context) -> JsResult<Option<Value>> {
    match args.get(i) {
        None => Ok(None),
        Some(v) if v.is_undefined() || v.is_null() => Ok(None),
        Some(v) => Ok(v.to_json(ctx)?.map(normalize)),
    }
}

fn opt_str(opts: &Value, key: &str) -> Option<String> {
    opts.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// Submit a task and return a pending promise for it.
fn submit(task: wit::Task, kind: Kind, ctx: &mut Context) -> JsResult<JsValue> {
    let call = wit::host::submit(&task);
    let (promise, resolvers) = JsPromise::new_pending(ctx);
    STATE.with(|s| s.borrow_mut().pending.insert(call, Pending { kind, resolvers }));
    Ok(promise.into())
}

/// `agent(prompt, options)`: the options are the SDK's agent-option table
/// (`hwf_guest::runtime::AGENT_OPTIONS`: `label`, `phase`, `schema`,
/// `model`, `effort`, `agentType`, `tools`, `context`, `isolation`,
/// `fresh`, `agent`, `input`, and their aliases); the prompt is the first
/// argument.
fn agent(_this: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let prompt = match args.first() {
        Some(v) if v.is_string() => std_string(&v.to_string(ctx)?),
        Some(v) if !v.is_undefined() => {
            return Err(JsNativeError::typ()
                .with_message("agent(prompt, options): prompt must be a string")
                .into());
        }
        _ => String::new(),
    };
    // Options that are not an object are no options.
    let mut opts = match arg_json(args, 1, ctx)? {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    // The positional prompt is the prompt (an empty one is none).
    if prompt.is_empty() {
        opts.remove("prompt");
    } else {
        opts.insert("prompt".into(), Value::String(prompt));
    }
    let opts = Value::Object(opts);
    if let Some(schema) = runtime::agent_option(&opts, AgentField::Schema).filter(|s| !s.is_null())
        && let Err(problem) = crate::schema::check(schema)
    {
        return Err(JsNativeError::typ()
            .with_message(format!("agent(): invalid schema: {problem}"))
            .into());
    }
    // The run's agent budget (`--max-agent-calls`) is the host's: a call
    // past it rejects with `limit_agent`.
    let mut req = runtime::agent_request_from_json(&opts).map_err(|e| js_err(e.to_string()))?;
    // Claude Code runs every `agent()` call: a loop asking the same prompt
    // again ("find more bugs") gets a new answer, not the first one. The
    // run's prompt cache (the seed's Python rule) answers a JS call only
    // when the script asks for it with `fresh: false`.
    req.fresh.get_or_insert(true);
    submit(wit::Task::Agent(req), Kind::Agent, ctx)
}

/// `capability(name, input, {label, approvalId})`.
fn capability(_this: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let name = args
        .first()
        .map(|v| v.to_string(ctx))
        .transpose()?
        .map(|s| s.to_std_string_escaped())
        .unwrap_or_default();
    let input = arg_json(args, 1, ctx)?.unwrap_or(json!({}));
    let opts = arg_json(args, 2, ctx)?.unwrap_or(json!({}));
    let req = wit::CapabilityRequest {
        name,
        input: input.to_string(),
        label: opt_str(&opts, "label"),
        approval_id: opt_str(&opts, "approvalId").or_else(|| opt_str(&opts, "approval_id")),
    };
    submit(wit::Task::Capability(req), Kind::Other, ctx)
}

/// `workflow(nameOrRef, args)`: a saved workflow by name, or a script file
/// as `{scriptPath}` (a path the host confines to the workspace and the
/// saved scripts), run inline (one level). Anything else is a `TypeError`.
fn workflow(_this: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let wrong = |what: &str| -> JsError {
        JsNativeError::typ()
            .with_message(format!(
                "workflow(nameOrRef, args): nameOrRef must be a saved workflow's name (a string) or {{ scriptPath: string }}, got {what}"
            ))
            .into()
    };
    let name = match args.first() {
        Some(v) if v.is_string() => v.to_string(ctx)?.to_std_string_escaped(),
        Some(v) if v.is_object() && !v.is_callable() => {
            let path = v
                .as_object()
                .map(|o| o.get(js_string!("scriptPath"), ctx))
                .transpose()?;
            match path {
                // Always a path to the host, even a bare file name.
                Some(p) if p.is_string() => match p.to_string(ctx)?.to_std_string_escaped() {
                    p if p.is_empty() || p.contains('/') => p,
                    p => format!("./{p}"),
                },
                _ => return Err(wrong("an object without a string scriptPath")),
            }
        }
        Some(v) => return Err(wrong(v.type_of())),
        None => return Err(wrong("nothing")),
    };
    if name.is_empty() {
        return Err(wrong("an empty name"));
    }
    let wargs = arg_json(args, 1, ctx)?.unwrap_or(Value::Null);
    submit(
        wit::Task::Workflow(wit::WorkflowCall {
            name,
            args: wargs.to_string(),
        }),
        Kind::Other,
        ctx,
    )
}

fn phase(_this: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let title = args
        .first()
        .map(|v| v.to_string(ctx))
        .transpose()?
        .map(|s| s.to_std_string_escaped())
        .unwrap_or_default();
    hwf_guest::phase(&title);
    Ok(JsValue::undefined())
}

fn log(_this: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    wit::host::log(wit::LogLevel::Info, &log_text(args, ctx)?);
    Ok(JsValue::undefined())
}

/// `console.*`: narrator lines; `warn` and `error` are prefixed and logged
/// at their level.
fn console(level: wit::LogLevel, prefix: &'static str) -> NativeFunction {
    NativeFunction::from_copy_closure(move |_this, args, ctx| {
        let text = log_text(args, ctx)?;
        wit::host::log(level, &format!("{prefix}{text}"));
        Ok(JsValue::undefined())
    })
}

fn log_text(args: &[JsValue], ctx: &mut Context) -> JsResult<String> {
    let mut parts = Vec::new();
    for a in args {
        parts.push(if a.is_string() {
            a.to_string(ctx)?.to_std_string_escaped()
        } else {
            a.to_json(ctx)
                .ok()
                .flatten()
                .map_or_else(|| "undefined".to_owned(), |v| normalize(v).to_string())
        });
    }
    Ok(parts.join(" "))
}

fn budget_spent(_this: &JsValue, _args: &[JsValue], _ctx: &mut Context) -> JsResult<JsValue> {
    Ok(JsValue::from(hwf_guest::budget().tokens_spent as f64))
}

fn budget_remaining(_this: &JsValue, _args: &[JsValue], _ctx: &mut Context) -> JsResult<JsValue> {
    Ok(JsValue::from(
        hwf_guest::budget().tokens_left().map_or(f64::INFINITY, |t| t as f64),
    ))
}

/// Claude Code's item rule for `parallel` / `pipeline`
/// (`hwf_guest::runtime::check_items`); the calls the items make are
/// limited by the host.
fn check_items(_this: &JsValue, args: &[JsValue], ctx: &mut Context) -> JsResult<JsValue> {
    let n = args.first().map(|v| v.to_number(ctx)).transpose()?.unwrap_or(0.0);
    // An array length: a whole number (NaN, were it one, is no items).
    runtime::check_items(n as u64).map_err(js_err)?;
    Ok(JsValue::undefined())
}

fn nondeterministic(_this: &JsValue, _args: &[JsValue], _ctx: &mut Context) -> JsResult<JsValue> {
    Err(js_err(NONDETERMINISM))
}

/// JavaScript that sets up the rest of the API on the native functions. It
/// evaluates to the function that fires the next due timer.
const PRELUDE: &str = r#"
(() => {
  const checkItems = globalThis.__hwf_check_items, narrate = globalThis.log;
  // A slot that threw is null, and said in the narrator log as Claude
  // Code says it (`parallel[2] failed: <message>`).
  const failed = (what, i, e) => {
    const msg = e !== null && typeof e === "object" && "message" in e ? String(e.message) : String(e);
    narrate(`${what}[${i}] failed: ${msg}`);
    return null;
  };
  const construct = Reflect.construct, defineProperty = Object.defineProperty, freeze = Object.freeze;
  const describe = (x) =>
    x === null ? "null" : typeof x === "object" && typeof x.then === "function" ? "a Promise (an already started call)" : `a ${typeof x}`;
  globalThis.parallel = async (thunks) => {
    if (!Array.isArray(thunks)) throw new TypeError("parallel(thunks) takes an array of functions");
    checkItems(thunks.length);
    thunks.forEach((t, i) => {
      if (typeof t !== "function") {
        throw new TypeError(`parallel() takes an array of functions, but item ${i} is ${describe(t)}. ` +
          "Wrap each call in () => so that parallel() starts it: parallel([() => agent(...), () => agent(...)])");
      }
    });
    // The thunk's throw is caught in the frame that calls it (Boa leaks
    // stack values for throws that unwind several frames).
    const call = (t, i) => { try { return t(); } catch (e) { return failed("parallel", i, e); } };
    return Promise.all(thunks.map((t, i) => Promise.resolve().then(() => call(t, i)).catch((e) => failed("parallel", i, e))));
  };
  globalThis.pipeline = async (items, ...stages) => {
    if (!Array.isArray(items)) throw new TypeError("pipeline(items, ...stages): items must be an array");
    checkItems(items.length);
    stages.forEach((s, i) => {
      if (typeof s !== "function") throw new TypeError(`pipeline() stages must be functions, but stage ${i} is ${describe(s)}`);
    });
    // As Claude Code: the item is awaited, and a null item (or a stage
    // resolving null) ends that item before the next stage runs. A plain
    // item is not awaited, so stage 1 starts at once, in item order, as
    // before (runs journaled earlier replay with the same call ids).
    return Promise.all(items.map(async (item, index) => {
      let prev = item;
      if (item !== null && typeof item === "object" && typeof item.then === "function") {
        try { prev = await item; } catch (e) { return failed("pipeline", index, e); }
      }
      for (const stage of stages) {
        if (prev === null) return null;
        try { prev = await stage(prev, item, index); } catch (e) { return failed("pipeline", index, e); }
      }
      return prev;
    }));
  };
  const spent = globalThis.__hwf_budget_spent, remaining = globalThis.__hwf_budget_remaining;
  globalThis.budget = freeze({ total: globalThis.__hwf_budget_total, spent: () => spent(), remaining: () => remaining() });
  globalThis.console = freeze({
    log: globalThis.__hwf_console_log, info: globalThis.__hwf_console_log, debug: globalThis.__hwf_console_debug,
    warn: globalThis.__hwf_console_warn, error: globalThis.__hwf_console_error,
  });

  // Timers on a virtual clock: a timer fires once the script has nothing
  // else to run and no host call in flight, earliest due first, then in
  // the order they were set. Nothing waits real time, so replay matches.
  const timers = new Map();
  let nextTimer = 0, virtualNow = 0;
  globalThis.setTimeout = (fn, ms, ...rest) => {
    if (typeof fn !== "function") throw new TypeError("setTimeout(callback, ms): callback must be a function");
    const d = Number(ms);
    const id = ++nextTimer;
    timers.set(id, { due: virtualNow + (d > 0 ? d : 0), fn, rest });
    return id;
  };
  globalThis.clearTimeout = (id) => { timers.delete(id); };
  const fireNext = () => {
    let bestId = 0, best = null;
    for (const [id, t] of timers) if (best === null || t.due < best.due) { bestId = id; best = t; }
    if (best === null) return false;
    timers.delete(bestId);
    if (best.due > virtualNow) virtualNow = best.due;
    best.fn(...best.rest);
    return true;
  };

  // `Intl` without ICU's data (the runtime would grow by megabytes): the
  // two constructors scripts use for reports and sorting, on the engine's
  // own `toLocaleString` (en-US, and a few locales' separators) and
  // `localeCompare` (an approximation of ICU's root collation). Anything
  // else (`DateTimeFormat`, …) is absent rather than wrong.
  const toLocale = Number.prototype.toLocaleString, localeCompare = String.prototype.localeCompare;
  const localeOf = (locales) => {
    const tag = Array.isArray(locales) ? locales[0] : locales;
    return tag === undefined ? "en-US" : String(tag);
  };
  class NumberFormat {
    #locales; #options;
    constructor(locales, options) {
      this.#locales = locales;
      this.#options = options === undefined ? undefined : { ...options };
      toLocale.call(0, locales, this.#options);
    }
    format(x) { return toLocale.call(Number(x), this.#locales, this.#options); }
    resolvedOptions() {
      const o = this.#options ?? {};
      return { locale: localeOf(this.#locales), numberingSystem: "latn", style: o.style ?? "decimal", ...(o.currency ? { currency: String(o.currency).toUpperCase() } : {}), useGrouping: o.useGrouping ?? "auto" };
    }
  }
  class Collator {
    #locales; #options;
    constructor(locales, options) {
      this.#locales = locales;
      this.#options = options === undefined ? undefined : { ...options };
      localeCompare.call("", "", locales, this.#options);
      // As Intl's `compare` getter: a function bound to this collator.
      const compare = (a, b) => localeCompare.call(String(a), String(b), this.#locales, this.#options);
      defineProperty(this, "compare", { value: compare, enumerable: false });
    }
    resolvedOptions() {
      const o = this.#options ?? {};
      return { locale: localeOf(this.#locales), usage: "sort", sensitivity: o.sensitivity ?? "variant", numeric: Boolean(o.numeric) };
    }
  }
  defineProperty(globalThis, "Intl", { value: freeze({ NumberFormat, Collator }), writable: true, enumerable: false, configurable: true });

  // The deterministic subset: no clock and no randomness, however reached.
  const RealDate = Date, deny = globalThis.__hwf_nondeterministic;
  function SafeDate(...a) {
    if (new.target === undefined || a.length === 0) deny();
    return construct(RealDate, a, new.target);
  }
  SafeDate.prototype = RealDate.prototype;
  SafeDate.now = deny;
  SafeDate.UTC = RealDate.UTC;
  SafeDate.parse = RealDate.parse;
  defineProperty(RealDate.prototype, "constructor", { value: SafeDate, writable: false, enumerable: false, configurable: false });
  defineProperty(globalThis, "Date", { value: SafeDate, writable: false, enumerable: false, configurable: false });
  defineProperty(Math, "random", { value: deny, writable: false, enumerable: false, configurable: false });
  // Every helper, the non-enumerable functions included (Object.keys
  // would miss them): scripts see exactly the API of hwf.d.ts.
  for (const k of Object.getOwnPropertyNames(globalThis).filter((k) => k.startsWith("__hwf_"))) delete globalThis[k];
  return fireNext;
})();
"#;

fn register(ctx: &mut Context, args: &Value) -> JsResult<JsFunction> {
    let fns: [(&str, usize, boa_engine::native_function::NativeFunctionPointer); 9] = [
        ("agent", 2, agent),
        ("capability", 3, capability),
        ("workflow", 2, workflow),
        ("phase", 1, phase),
        ("log", 1, log),
        ("__hwf_check_items", 1, check_items),
        ("__hwf_budget_spent", 0, budget_spent),
        ("__hwf_budget_remaining", 0, budget_remaining),
        ("__hwf_nondeterministic", 0, nondeterministic),
    ];
    for (name, len, f) in fns {
        ctx.register_global_callable(boa_engine::JsString::from(name), len, NativeFunction::from_fn_ptr(f))?;
    }
    for (name, level, prefix) in [
        ("__hwf_console_log", wit::LogLevel::Info, ""),
        ("__hwf_console_debug", wit::LogLevel::Debug, ""),
        ("__hwf_console_warn", wit::LogLevel::Warn, "[warn] "),
        ("__hwf_console_error", wit::LogLevel::Error, "[error] "),
    ] {
        ctx.register_global_callable(boa_engine::JsString::from(name), 0, console(level, prefix))?;
    }
    let total = hwf_guest::budget()
        .token_total
        .map_or(JsValue::null(), |t| JsValue::from(t as f64));
    ctx.register_global_property(
        js_string!("__hwf_budget_total"),
        total,
        boa_engine::property::Attribute::all(),
    )?;
    let args = if args.is_null() {
        JsValue::undefined()
    } else {
        JsValue::from_json(args, ctx)?
    };
    ctx.register_global_property(js_string!("args"), args, boa_engine::property::Attribute::all())?;
    let fire = ctx.eval(Source::from_bytes(PRELUDE))?;
    fire.as_object()
        .and_then(|o| JsFunction::from_object(o.clone()))
        .ok_or_else(|| js_err("the prelude did not return its timer function"))
}

/// Settle the promise of one completed host call.
fn settle(pending: Pending, outcome: Result<String, wit::CallError>, ctx: &mut Context) -> JsResult<()> {
    let (value, ok) = match outcome {
        Ok(raw) => {
            let v: Value = serde_json::from_str(&raw).unwrap_or(Value::Null);
            (JsValue::from_json(&v, ctx)?, true)
        }
        Err(e) => {
            let (kind, msg) = (runtime::call_error_kind(&e), runtime::call_error_text(&e));
            // Agents that die or are stopped resolve to null; a spent
            // budget and exhausted schema retries throw.
            let null_for_agent = matches!(kind, ErrorKind::Failed | ErrorKind::Cancelled | ErrorKind::TimedOut);
            let kind = kind.as_str();
            if pending.kind == Kind::Agent && null_for_agent {
                (JsValue::null(), true)
            } else {
                let err = JsNativeError::error().with_message(msg.to_owned()).into_opaque(ctx);
                let _ = err.set(
                    js_string!("code"),
                    boa_engine::JsString::from(msg.split(':').next().unwrap_or(kind)),
                    false,
                    ctx,
                );
                let _ = err.set(js_string!("kind"), boa_engine::JsString::from(kind), false, ctx);
                (err.into(), false)
            }
        }
    };
    let f = if ok {
        &pending.resolvers.resolve
    } else {
        &pending.resolvers.reject
    };
    f.call(&JsValue::undefined(), &[value], ctx)?;
    Ok(())
}

/// `JSON.stringify` as the engine defines it.
fn original_stringify(ctx: &mut Context) -> JsResult<JsFunction> {
    let json = ctx.global_object().get(js_string!("JSON"), ctx)?;
    json.as_object()
        .map(|o| o.get(js_string!("stringify"), ctx))
        .transpose()?
        .and_then(|f| f.as_object().and_then(|o| JsFunction::from_object(o.clone())))
        .ok_or_else(|| js_err("JSON.stringify is missing"))
}

/// The script's result as `JSON.stringify` writes it, which is what Claude
/// Code's result holds: `toJSON` (a `Date` is its ISO text), getters read,
/// a `Map` or `Set` as `{}`, functions, symbols and `undefined` left out of
/// objects and `null` in arrays, `NaN` and infinities as `null`, numbers
/// with JavaScript's digits (`2 ** 70` as `1180591620717411303424`); a
/// result `JSON.stringify` leaves `undefined` (none, a function) is `null`.
/// Text serde cannot hold (a lone surrogate's escape) takes the engine's
/// value conversion instead.
fn result_json(v: &JsValue, stringify: &JsFunction, ctx: &mut Context) -> JsResult<Value> {
    let text = stringify.call(&JsValue::undefined(), std::slice::from_ref(v), ctx)?;
    if text.is_undefined() {
        return Ok(Value::Null);
    }
    let text = text.to_string(ctx)?.to_std_string_escaped();
    match serde_json::from_str(&text) {
        Ok(value) => Ok(value),
        Err(_) => Ok(normalize(v.to_json(ctx)?.unwrap_or(Value::Null))),
    }
}

fn describe(e: &JsValue, ctx: &mut Context) -> String {
    if let Some(obj) = e.as_object() {
        let msg = obj.get(js_string!("message"), ctx).ok().filter(|m| !m.is_undefined());
        if let Some(m) = msg {
            let msg = m.to_string(ctx).map(|s| s.to_std_string_escaped()).unwrap_or_default();
            let name = obj
                .get(js_string!("name"), ctx)
                .ok()
                .filter(JsValue::is_string)
                .and_then(|n| n.to_string(ctx).ok())
                .map(|n| n.to_std_string_escaped());
            return match name {
                Some(n) if n != "Error" => format!("{n}: {msg}"),
                _ => msg,
            };
        }
    }
    e.to_string(ctx)
        .map(|s| s.to_std_string_escaped())
        .unwrap_or_else(|_| "unknown error".into())
}

/// `run(source, args)`.
pub fn run(src: &str, args: &str) -> Result<String, String> {
    let parts = source::split(src).map_err(|d| format!("invalid_script: {}: {}", d.code, d.message))?;
    if let Err(diags) = source::check(src) {
        let d = &diags[0];
        return Err(format!(
            "invalid_script: {}: {}{}",
            d.code,
            d.message,
            d.line.map(|l| format!(" (line {l})")).unwrap_or_default()
        ));
    }
    let args: Value = serde_json::from_str(args).unwrap_or(Value::Null);
    let mut ctx = ContextBuilder::new()
        .clock(Rc::new(GuardClock))
        .host_hooks(Rc::new(NoStringCode))
        .module_loader(Rc::new(NoModules))
        .build()
        .map_err(|e| format!("internal: {e}"))?;
    ctx.runtime_limits_mut().set_stack_size_limit(STACK_VALUES);
    let fire_timer = register(&mut ctx, &args).map_err(|e| format!("internal: {e}"))?;
    // The engine's own `JSON.stringify`, taken before the script can replace it.
    let stringify = original_stringify(&mut ctx).map_err(|e| format!("internal: {e}"))?;
    let main = ctx
        .eval(Source::from_bytes(&source::wrap(parts.body)))
        .map_err(|e| format!("script_error: {e}"))?;
    let promise = main
        .as_object()
        .and_then(|o| JsPromise::from_object(o.clone()).ok())
        .ok_or_else(|| "internal: the script did not produce a promise".to_owned())?;
    let clock_guard = || {
        if CLOCK_READ.with(Cell::get) {
            Err(format!("{NONDETERMINISM} (the script reached the clock)"))
        } else {
            Ok(())
        }
    };
    loop {
        ctx.run_jobs().map_err(|e| format!("script_error: {e}"))?;
        clock_guard()?;
        match promise.state() {
            PromiseState::Fulfilled(v) => {
                let out = result_json(&v, &stringify, &mut ctx)
                    .map_err(|e| format!("script_error: the result is not JSON: {e}"))?;
                clock_guard()?;
                return Ok(out.to_string());
            }
            PromiseState::Rejected(e) => {
                let msg = describe(&e, &mut ctx);
                return Err(
                    if msg.contains(": ")
                        && msg
                            .split(':')
                            .next()
                            .is_some_and(|c| c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_'))
                    {
                        msg
                    } else {
                        format!("script_error: {msg}")
                    },
                );
            }
            PromiseState::Pending => {}
        }
        let pending: Vec<u64> = STATE.with(|s| s.borrow().pending.keys().copied().collect());
        if pending.is_empty() {
            // Nothing in flight: the virtual clock moves to the next timer.
            let fired = match fire_timer.call(&JsValue::undefined(), &[], &mut ctx) {
                Ok(v) => v,
                Err(e) => {
                    let text = match e.into_opaque(&mut ctx) {
                        Ok(v) => describe(&v, &mut ctx),
                        Err(e) => e.to_string(),
                    };
                    return Err(format!("script_error: in a setTimeout callback: {text}"));
                }
            };
            if fired.to_boolean() {
                continue;
            }
            return Err("script_error: the script is waiting on a promise that can never settle".into());
        }
        let done = wit::host::next(&pending);
        // A spent token or cost budget ends the run, even inside a `try`
        // (the seed's rule, in every hwf runtime).
        if let Err(e) = &done.outcome
            && runtime::call_error_ends_run(e)
        {
            let rest: Vec<u64> = pending.iter().copied().filter(|c| *c != done.call).collect();
            if !rest.is_empty() {
                wit::host::cancel(&rest);
            }
            return Err(runtime::call_error_text(e).to_owned());
        }
        let entry = STATE.with(|s| s.borrow_mut().pending.remove(&done.call));
        if let Some(p) = entry {
            settle(p, done.outcome, &mut ctx).map_err(|e| format!("internal: {e}"))?;
        }
    }
}
