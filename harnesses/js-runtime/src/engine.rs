//! Running a script: globals over the host's join set, and the event loop
//! that feeds host completions into promises.
//!
//! The native functions take and return plain text (JSON where the value
//! is data); the prelude (JavaScript) holds the promises of pending host
//! calls, the timers on the virtual clock and the deterministic subset.

use crate::source;
use hwf_guest::ErrorKind;
use hwf_guest::runtime::{self, AgentField, wit};
use rquickjs::FromJs;
use rquickjs::context::EvalOptions;
use rquickjs::convert::Coerced;
use rquickjs::function::{Opt, This};
use rquickjs::loader::{ImportAttributes, Loader, Resolver};
use rquickjs::module::Declared;
use rquickjs::promise::PromiseState;
use rquickjs::{Array, Context, Ctx, Exception, Function, Module, Object, Persistent, Promise, Runtime, Value};
use serde_json::{Map, Value as Json};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// QuickJS's own stack limit (bytes of the C stack in linear memory; the
/// limit is on for WASI by the patch in `vendor/PATCHES.md`): a deep
/// recursion is a catchable `RangeError` ("Maximum call stack size
/// exceeded") before wasmtime's limit on the wasm stack traps.
/// 3 MiB of the 4 MiB C stack the runtime is linked with (`build.rs`),
/// under the engine's 24 MiB wasm stack (`hwf_engine::MAX_WASM_STACK`):
/// recursion as deep as Node's (measured in the sixteenth session: 9,800
/// plain frames, Node ~10,800; a `deepClone` through `map` and
/// `Object.fromEntries` 1,600 levels, Node 800), and every shape of
/// `tests/e2e/js_recursion.js` still ends in the `RangeError`. It was
/// 160 KiB under a 1 MiB wasm stack until then (~630 plain frames, a
/// `deepClone` only 50 levels deep).
pub const JS_STACK: usize = 3 << 20;

/// Module loading: refused, so `import()` rejects with Claude Code's
/// message (a static `import` is refused by `check` before).
struct NoModules;

impl Resolver for NoModules {
    fn resolve<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        _base: &str,
        _name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> rquickjs::Result<String> {
        Err(Exception::throw_type(
            ctx,
            "import() is not available in workflow scripts",
        ))
    }
}

impl Loader for NoModules {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        _name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> rquickjs::Result<Module<'js, Declared>> {
        Err(Exception::throw_type(
            ctx,
            "import() is not available in workflow scripts",
        ))
    }
}

/// A host call submitted and not yet delivered: the functions that settle
/// the promise the script holds for it.
struct Pending {
    /// An agent call (a failed or stopped one resolves to `null`).
    agent: bool,
    /// The agent type an agent call named (`agentType`), for Claude
    /// Code's error when the host has no such type.
    agent_type: Option<String>,
    resolve: Persistent<Function<'static>>,
    reject: Persistent<Function<'static>>,
}

thread_local! {
    /// Host calls submitted and not yet delivered, by call id.
    static PENDING: RefCell<BTreeMap<u64, Pending>> = const { RefCell::new(BTreeMap::new()) };
}

const NONDETERMINISM: &str =
    "nondeterminism: Date.now(), new Date() and Math.random() are not available in workflows (they would break replay)";

/// JavaScript numbers are doubles: write whole ones as integers, as
/// `JSON.stringify` does, so `18` stays `18` in results, journals and
/// fingerprints, and `2 ** 60` is `1152921504606847000` (JavaScript's
/// digits: the shortest that read back as the same double, then zeros).
/// Whole numbers beyond `u64` (up to `1e21`, where JavaScript switches to
/// an exponent) keep serde's exponent form: the same value, other text.
pub fn normalize(mut v: Json) -> Json {
    normalize_in_place(&mut v);
    v
}

fn normalize_in_place(v: &mut Json) {
    match v {
        Json::Number(n) => {
            if let Some(f) = n.as_f64()
                && !n.is_i64()
                && !n.is_u64()
                && f.fract() == 0.0
            {
                if f.abs() < 9.0e15 {
                    *v = Json::from(f as i64);
                } else if f.abs() < 1e21 {
                    let digits = format!("{f}");
                    if let Ok(i) = digits.parse::<i64>() {
                        *v = Json::from(i);
                    } else if let Ok(u) = digits.parse::<u64>() {
                        *v = Json::from(u);
                    }
                }
            }
        }
        Json::Array(a) => a.iter_mut().for_each(normalize_in_place),
        Json::Object(m) => m.values_mut().for_each(normalize_in_place),
        _ => {}
    }
}

/// JSON text from the prelude (`JSON.stringify`'s, or `"null"`) as a
/// normalized value, or why it cannot be one: nested 128 levels deep
/// (serde's limit, and the host's). Never a silent `null`: the caller turns
/// the problem into an error the script sees.
fn parse_json(text: &str) -> Result<Json, String> {
    serde_json::from_str(&replace_lone_surrogates(text))
        .map(normalize)
        .map_err(|e| {
            if e.to_string().starts_with("recursion limit exceeded") {
                "it nests arrays and objects 128 levels deep or more (hwf's JSON data holds 127)".to_owned()
            } else {
                format!("it is not JSON: {e}")
            }
        })
}

/// Host data (a call's result, the prelude's own options) as a value;
/// `null` if it is not JSON, which the host never sends.
fn host_json(text: &str) -> Json {
    parse_json(text).unwrap_or(Json::Null)
}

/// `JSON.stringify` writes a lone surrogate (half of a UTF-16 pair, alone
/// in a string: `"\uD800"`) as the escape `\ud800`, which no UTF-8 text
/// holds, so serde refuses the whole text. Each becomes U+FFFD, as in
/// every conversion of a JavaScript string to UTF-8 (`TextEncoder`,
/// Node's `Buffer`); escaped pairs are kept.
fn replace_lone_surrogates(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("\\u") {
        return std::borrow::Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let unit = |i: usize| text.get(i..i + 4).and_then(|h| u16::from_str_radix(h, 16).ok());
    let escape_at = |i: usize| b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u');
    let (mut out, mut copied, mut i) = (String::new(), 0, 0);
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(u) = unit(i + 2).filter(|_| escape_at(i)) else {
            i += 2; // an escaped character, never a string's end
            continue;
        };
        let pair = (0xD800..0xDC00).contains(&u)
            && escape_at(i + 6)
            && unit(i + 8).is_some_and(|l| (0xDC00..0xE000).contains(&l));
        if pair {
            i += 12;
        } else {
            if (0xD800..0xE000).contains(&u) {
                out.push_str(&text[copied..i]);
                out.push_str("\\ufffd");
                copied = i + 6;
            }
            i += 6;
        }
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
}

fn opt_str(opts: &Json, key: &str) -> Option<String> {
    opts.get(key).and_then(Json::as_str).map(str::to_owned)
}

/// `s.replace(/\s+/g, " ").trim()`: JavaScript's white space (its
/// `WhiteSpace` and `LineTerminator`: Unicode's `White_Space` without
/// U+0085, with U+FEFF).
fn collapse_whitespace(s: &str) -> String {
    let js_space = |c: char| (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}';
    let mut out = String::with_capacity(s.len());
    for word in s.split(js_space).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Submit `task` to the host and return the promise the script holds for
/// it, settled by [`settle`] when the host delivers the call.
fn submit<'js>(ctx: &Ctx<'js>, task: wit::Task, agent: bool) -> rquickjs::Result<Promise<'js>> {
    let (promise, resolve, reject) = ctx.promise()?;
    let agent_type = match &task {
        wit::Task::Agent(req) => req.agent_type.clone(),
        _ => None,
    };
    let call = wit::host::submit(&task);
    let pending = Pending {
        agent,
        agent_type,
        resolve: Persistent::save(ctx, resolve),
        reject: Persistent::save(ctx, reject),
    };
    PENDING.with(|p| p.borrow_mut().insert(call, pending));
    Ok(promise)
}

/// `agent(prompt, options, label, phase, textOnly)`: the prompt (`""` when
/// none) and the options object (or `null`); the options are the SDK's
/// agent-option table (`hwf_guest::runtime::AGENT_OPTIONS`). As Claude
/// Code reads them, the prelude passes `String(label)` and `String(phase)`
/// of options that are not null (here the label's whitespace runs become
/// one space, trimmed), and `textOnly` when `schema` is falsy. Returns the
/// call's promise.
fn agent<'js>(
    ctx: Ctx<'js>,
    prompt: Value<'js>,
    options: Value<'js>,
    label: Value<'js>,
    phase: Value<'js>,
    text_only: bool,
) -> rquickjs::Result<Promise<'js>> {
    let prompt = utf8(&ctx, prompt)?;
    let mut opts = agent_options(&ctx, options)?;
    if label.is_string() {
        opts.insert("label".into(), Json::String(collapse_whitespace(&utf8(&ctx, label)?)));
    }
    if phase.is_string() {
        opts.insert("phase".into(), Json::String(utf8(&ctx, phase)?));
    }
    if text_only {
        opts.remove("schema");
    }
    claude_effort_and_type(&mut opts);
    if prompt.is_empty() {
        opts.remove("prompt");
    } else {
        opts.insert("prompt".into(), Json::String(prompt));
    }
    let opts = Json::Object(opts);
    // The run's agent budget (`--max-agent-calls`) is the host's: a call
    // past it rejects with `limit_agent`.
    let mut req =
        runtime::agent_request_from_json(&opts).map_err(|e| Exception::throw_message(&ctx, &e.to_string()))?;
    // The schema is looked up again only when the options have one.
    if req.schema.is_some()
        && let Some(schema) = runtime::agent_option(&opts, AgentField::Schema).filter(|s| !s.is_null())
        && let Err(problem) = crate::schema::check(schema)
    {
        return Err(Exception::throw_type(
            &ctx,
            &format!("agent(): invalid schema: {problem}"),
        ));
    }
    // Claude Code runs every `agent()` call: a loop asking the same prompt
    // again ("find more bugs") gets a new answer, not the first one. The
    // run's prompt cache (the seed's Python rule) answers a JS call only
    // when the script asks for it with `fresh: false`.
    req.fresh.get_or_insert(true);
    submit(&ctx, wit::Task::Agent(req), true)
}

/// The efforts Claude Code knows (its `ba` list).
const EFFORTS: [&str; 5] = ["low", "medium", "high", "xhigh", "max"];

/// `effort` and `agentType` as Claude Code reads them (its `_ne` and
/// `String(agentType)`): an effort is lower-cased (`med` is `medium`) and
/// kept when it is one of [`EFFORTS`]; anything else (`''`, `null`,
/// `'very high'`, a number, an object) is no override, so the agent runs
/// at its default effort rather than being refused. A number or boolean
/// `agentType` names the type its text spells (`5` is `'5'`).
fn claude_effort_and_type(opts: &mut Map<String, Json>) {
    if let Some(v) = opts.remove("effort") {
        let level = match v {
            Json::String(s) => Some(s.to_lowercase()),
            _ => None,
        }
        .map(|l| if l == "med" { "medium".to_owned() } else { l })
        .filter(|l| EFFORTS.contains(&l.as_str()));
        if let Some(level) = level {
            opts.insert("effort".into(), Json::String(level));
        }
    }
    if let Some(v) = opts.get_mut("agentType")
        && (v.is_number() || v.is_boolean())
    {
        *v = Json::String(v.to_string());
    }
}

/// Claude Code's rejection of an `agent()` call whose `agentType` the host
/// does not have (`invalid_agent_type: unknown agent type "x"`, or a name
/// no type can have, such as `''`): `agent({agentType}): agent type 'x'
/// not found. Available agents: …`. hwf lists the built-in
/// `general-purpose` type; the types in `.hermes/agents/` are the host's,
/// which it does not name to the guest. A type file that exists but cannot
/// be read keeps the host's words after the same prefix.
fn agent_type_error(agent_type: Option<&str>, host_text: &str) -> String {
    let problem = host_text.strip_prefix("invalid_agent_type: ").unwrap_or(host_text);
    if problem.starts_with("unknown agent type") || problem.ends_with("is not allowed") {
        let name = agent_type.unwrap_or_default();
        return format!("agent({{agentType}}): agent type '{name}' not found. Available agents: general-purpose");
    }
    format!("agent({{agentType}}): {problem}")
}

/// `agent()`'s options as `JSON.stringify` writes them: read directly
/// when they are plain data of strings, booleans, `null` and whole numbers
/// (`{ label: "review", phase: "scan" }`, the usual case: no text made and
/// parsed again per call), else through `JSON.stringify`.
fn agent_options<'js>(ctx: &Ctx<'js>, options: Value<'js>) -> rquickjs::Result<Map<String, Json>> {
    if !options.is_object() {
        return Ok(Map::new());
    }
    if let Some(props) = plain_data_properties(ctx, &options) {
        let mut map = Map::new();
        let mut plain = true;
        for (key, v) in props {
            let value = if v.is_undefined() || v.is_function() || v.is_symbol() {
                continue; // left out, as JSON.stringify leaves them out
            } else if v.is_null() {
                Json::Null
            } else if let Some(b) = v.as_bool() {
                Json::Bool(b)
            } else if let Some(i) = v.as_int() {
                Json::from(i)
            } else if let Some(f) = v.as_float().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                Json::from(f as i64)
            } else if v.is_string() {
                Json::String(utf8(ctx, v)?)
            } else {
                plain = false;
                break;
            };
            map.insert(utf8(ctx, key)?, value);
        }
        if plain {
            return Ok(map);
        }
    }
    let text = match ctx.json_stringify(options)? {
        Some(s) => s.to_string()?,
        None => "null".to_owned(),
    };
    match parse_json(&text) {
        Ok(Json::Object(m)) => Ok(m),
        Ok(_) => Ok(Map::new()),
        Err(e) => Err(Exception::throw_type(
            ctx,
            &format!("agent(prompt, options): options cannot be sent: {e}"),
        )),
    }
}

/// `capability(name, input, {label, approvalId})`, input and options as
/// JSON.
fn capability<'js>(ctx: Ctx<'js>, name: Value<'js>, input: String, options: String) -> rquickjs::Result<Promise<'js>> {
    let name = utf8(&ctx, name)?;
    let unsendable = |what: &str, e: String| {
        Exception::throw_type(
            &ctx,
            &format!("capability(name, input, options): {what} cannot be sent: {e}"),
        )
    };
    let input = match parse_json(&input).map_err(|e| unsendable("input", e))? {
        Json::Null => serde_json::json!({}),
        v => v,
    };
    let opts = parse_json(&options).map_err(|e| unsendable("options", e))?;
    let req = wit::CapabilityRequest {
        name,
        input: input.to_string(),
        label: opt_str(&opts, "label"),
        approval_id: opt_str(&opts, "approvalId").or_else(|| opt_str(&opts, "approval_id")),
    };
    submit(&ctx, wit::Task::Capability(req), false)
}

/// `workflow(nameOrRef, args)`, checked by the prelude: a saved
/// workflow's name or a script path, and its arguments as JSON.
fn workflow<'js>(ctx: Ctx<'js>, name: Value<'js>, args: String) -> rquickjs::Result<Promise<'js>> {
    let name = utf8(&ctx, name)?;
    let args = parse_json(&args)
        .map_err(|e| Exception::throw_type(&ctx, &format!("workflow(nameOrRef, args): args cannot be sent: {e}")))?;
    let call = wit::WorkflowCall {
        name,
        args: args.to_string(),
    };
    submit(&ctx, wit::Task::Workflow(call), false)
}

/// Settle the promise of a delivered host call: its value (the host's JSON
/// as `JSON.parse` reads it; `null` if it were not JSON, which the host
/// never sends), `null` for an agent that failed, was stopped or timed
/// out, else a rejection with the error the prelude's `failure` makes
/// (`code`, `kind`, a budget's `WorkflowBudgetExceededError`).
fn settle<'js>(
    ctx: &Ctx<'js>,
    failure: &Function<'js>,
    pending: Pending,
    outcome: Result<String, wit::CallError>,
) -> rquickjs::Result<()> {
    let resolve = pending.resolve.restore(ctx)?;
    let reject = pending.reject.restore(ctx)?;
    match outcome {
        Ok(raw) => {
            let value = match ctx.json_parse(raw) {
                Ok(v) => v,
                Err(_) => {
                    // Not JSON: no value (the pending exception is dropped).
                    let _ = ctx.catch();
                    Value::new_null(ctx.clone())
                }
            };
            resolve.call::<_, ()>((value,))
        }
        Err(e) => {
            let (kind, msg) = (runtime::call_error_kind(&e), runtime::call_error_text(&e));
            let null_for_agent = matches!(kind, ErrorKind::Failed | ErrorKind::Cancelled | ErrorKind::TimedOut);
            let code = msg.split(':').next().unwrap_or(kind.as_str()).to_owned();
            // Claude Code throws for an agent type it does not have.
            let msg = if pending.agent && code == "invalid_agent_type" {
                agent_type_error(pending.agent_type.as_deref(), msg)
            } else if pending.agent && null_for_agent {
                return resolve.call::<_, ()>((Value::new_null(ctx.clone()),));
            } else {
                msg.to_owned()
            };
            let error: Value = failure.call((msg, code, kind.as_str()))?;
            reject.call::<_, ()>((error,))
        }
    }
}

/// `Array.prototype.sort`'s sorting step (the prelude collects the values
/// and writes them back): `hwf_sort`'s stable merge sort, as in the Boa
/// runtime, so an inconsistent comparator never crashes and random input
/// costs about as many comparator calls as V8's TimSort. `compare` returns
/// anything (`ToNumber` is applied here); the first error it throws
/// ends the sort and reaches the script.
fn sort<'js>(ctx: Ctx<'js>, values: Array<'js>, compare: Function<'js>) -> rquickjs::Result<Value<'js>> {
    /// Why the merge stopped early.
    enum Stop {
        /// The comparator threw: the error reaches the script.
        Js(rquickjs::Error),
        /// The comparator answered a boolean (`(a, b) => a > b`): the
        /// prelude sorts as JavaScriptCore does instead.
        Boolean,
    }
    let items = values.iter::<Value>().collect::<rquickjs::Result<Vec<_>>>()?;
    let mut order: Vec<usize> = (0..items.len()).collect();
    let sorted = hwf_sort::merge_sort_by(&mut order, |&a, &b| {
        let (Some(x), Some(y)) = (items.get(a), items.get(b)) else {
            return Ok(Ordering::Equal);
        };
        let answer: Value = compare.call((x.clone(), y.clone())).map_err(Stop::Js)?;
        if answer.is_bool() {
            return Err(Stop::Boolean);
        }
        // ECMA-262's ToNumber of the answer (a NaN is "equal").
        let Coerced(r): Coerced<f64> = Coerced::from_js(&ctx, answer).map_err(Stop::Js)?;
        Ok(if r < 0.0 {
            Ordering::Less
        } else if r > 0.0 {
            Ordering::Greater
        } else {
            Ordering::Equal
        })
    });
    match sorted {
        Ok(()) => {}
        Err(Stop::Js(e)) => return Err(e),
        Err(Stop::Boolean) => return Ok(Value::new_null(ctx)),
    }
    let out = Array::new(ctx)?;
    for (k, i) in order.into_iter().enumerate() {
        if let Some(v) = items.get(i) {
            out.set(k, v.clone())?;
        }
    }
    Ok(out.into_value())
}

/// `ToString(v)` as UTF-8, a lone surrogate (half of a UTF-16 pair) as
/// U+FFFD, as every JavaScript-to-UTF-8 conversion (`TextEncoder`, Node's
/// `Buffer`): rquickjs refuses such text, a TypeError the script could not
/// explain (`log("\uD800")`, a prompt). The natives that take text
/// (prompts, names, log lines) read it so. The engine's own `JSON.stringify`
/// (not the script's, and no `toJSON` for a string) writes the surrogate as
/// an escape that `parse_json` turns into U+FFFD.
fn utf8<'js>(ctx: &Ctx<'js>, v: Value<'js>) -> rquickjs::Result<String> {
    let Coerced(s): Coerced<rquickjs::String<'js>> = Coerced::from_js(ctx, v)?;
    match s.to_string() {
        Err(rquickjs::Error::Utf8(_)) => {
            let escaped = ctx.json_stringify(s)?.map(|j| j.to_string()).transpose()?;
            match escaped.as_deref().map(parse_json) {
                Some(Ok(Json::String(text))) => Ok(text),
                _ => Err(Exception::throw_type(ctx, "a string that cannot be written as UTF-8")),
            }
        }
        text => text,
    }
}

/// [`utf8`], read directly when `v` is a string already (no `ToString`),
/// as comparisons take them.
fn text<'js>(ctx: &Ctx<'js>, v: Value<'js>) -> rquickjs::Result<String> {
    match v.as_string().map(rquickjs::String::to_string) {
        Some(Ok(s)) => Ok(s),
        _ => utf8(ctx, v),
    }
}

/// Whether `tag` is a well-formed BCP 47 language tag, as the prelude's
/// `canonicalLocale` reads one: a 2-3 letter language, then an optional
/// script, region, variants, extensions and a private use part.
fn well_formed_locale(tag: &str) -> bool {
    let alpha = |p: &str| p.bytes().all(|b| b.is_ascii_alphabetic());
    let alnum = |p: &str| p.bytes().all(|b| b.is_ascii_alphanumeric());
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let mut parts = tag.split('-').peekable();
    match parts.next() {
        Some(lang) if (2..=3).contains(&lang.len()) && alpha(lang) => {}
        _ => return false,
    }
    if parts.next_if(|p| p.len() == 4 && alpha(p)).is_some() {}
    if parts
        .next_if(|p| (p.len() == 2 && alpha(p)) || (p.len() == 3 && digits(p)))
        .is_some()
    {}
    while parts
        .next_if(|p| {
            ((5..=8).contains(&p.len()) && alnum(p)) || (p.len() == 4 && p.as_bytes()[0].is_ascii_digit() && alnum(p))
        })
        .is_some()
    {}
    while let Some(singleton) = parts.next() {
        if singleton.len() != 1 || !alnum(singleton) {
            return false;
        }
        let private = singleton.eq_ignore_ascii_case("x");
        let range = if private { 1..=8 } else { 2..=8 };
        let mut any = false;
        while parts.next_if(|p| range.contains(&p.len()) && alnum(p)).is_some() {
            any = true;
        }
        if !any {
            return false;
        }
        if private {
            return parts.next().is_none();
        }
    }
    true
}

/// `localeCompare`'s `locales` checked as `Intl.Collator` checks them: a
/// string, or each string of an array, must be a well-formed tag (V8's
/// `RangeError: Incorrect locale information provided`).
fn check_locales<'js>(ctx: &Ctx<'js>, locales: &Value<'js>) -> rquickjs::Result<()> {
    let check = |v: &Value<'js>| -> rquickjs::Result<()> {
        if let Some(s) = v.as_string() {
            if !well_formed_locale(&s.to_string()?) {
                return Err(Exception::throw_range(ctx, "Incorrect locale information provided"));
            }
        } else if !v.is_object() {
            return Err(Exception::throw_type(ctx, "Language ID should be string or object."));
        }
        Ok(())
    };
    if locales.is_string() {
        return check(locales);
    }
    if let Some(list) = locales.as_array() {
        for v in list.iter::<Value>() {
            check(&v?)?;
        }
    }
    Ok(())
}

/// `String.prototype.localeCompare(that, locales, options)` as ICU's root
/// collation (`collation.rs`), native so that sorting with it costs one
/// call per comparison. `options.numeric`, `sensitivity`, `caseFirst` and
/// `ignorePunctuation` are read as `Intl.Collator` reads them; the locale
/// is checked, not used (one collation).
fn locale_compare<'js>(
    ctx: Ctx<'js>,
    this: This<Value<'js>>,
    that: Opt<Value<'js>>,
    locales: Opt<Value<'js>>,
    options: Opt<Value<'js>>,
) -> rquickjs::Result<i32> {
    if this.0.is_undefined() || this.0.is_null() {
        return Err(Exception::throw_type(
            &ctx,
            "String.prototype.localeCompare called on null or undefined",
        ));
    }
    let s = text(&ctx, this.0)?;
    let t = match that.0 {
        Some(t) => text(&ctx, t)?,
        None => "undefined".to_owned(),
    };
    let o = collation_options(&ctx, locales.0.as_ref(), options.0.as_ref())?;
    Ok(crate::collation::compare(&s, &t, o) as i32)
}

/// The collation `localeCompare` and `Intl.Collator` use for `locales` and
/// `options`, with their errors: the locale checked, the four options
/// read and coerced once each.
fn collation_options<'js>(
    ctx: &Ctx<'js>,
    locales: Option<&Value<'js>>,
    options: Option<&Value<'js>>,
) -> rquickjs::Result<crate::collation::Options> {
    if let Some(locales) = locales {
        check_locales(ctx, locales)?;
    }
    let mut o = crate::collation::Options {
        numeric: false,
        accents: true,
        case: true,
        upper_first: false,
        ignore_punctuation: false,
    };
    if let Some(options) = options.and_then(Value::as_object) {
        let Coerced(ignore): Coerced<bool> = options.get("ignorePunctuation")?;
        o.ignore_punctuation = ignore;
        let case_first: Value = options.get("caseFirst")?;
        if !case_first.is_undefined() {
            let Coerced(v): Coerced<String> = Coerced::from_js(ctx, case_first)?;
            match v.as_str() {
                "upper" => o.upper_first = true,
                "lower" | "false" => {}
                other => {
                    return Err(Exception::throw_range(
                        ctx,
                        &format!("Value {other} out of range for Intl.Collator options property caseFirst"),
                    ));
                }
            }
        }
        let Coerced(numeric): Coerced<bool> = options.get("numeric")?;
        o.numeric = numeric;
        let sensitivity: Value = options.get("sensitivity")?;
        if !sensitivity.is_undefined() {
            let Coerced(v): Coerced<String> = Coerced::from_js(ctx, sensitivity)?;
            match v.as_str() {
                "base" => (o.accents, o.case) = (false, false),
                "accent" => o.case = false,
                "case" => o.accents = false,
                "variant" => {}
                other => {
                    return Err(Exception::throw_range(
                        ctx,
                        &format!("Value {other} out of range for Intl.Collator options property sensitivity"),
                    ));
                }
            }
        }
    }
    Ok(o)
}

/// `Intl.Collator`'s constructor: its `locales` and `options` resolved
/// once, as `localeCompare` resolves them on every call, into the word its
/// `compare` passes to [`collate`].
fn collator_flags<'js>(ctx: Ctx<'js>, locales: Opt<Value<'js>>, options: Opt<Value<'js>>) -> rquickjs::Result<u32> {
    Ok(collation_options(&ctx, locales.0.as_ref(), options.0.as_ref())?.to_flags())
}

/// `Intl.Collator#compare` for the collator's word from [`collator_flags`]
/// (bound first by the prelude) and two values, as strings (`ToString`,
/// which throws for a symbol as V8's does): no locale or option to read
/// again.
fn collate<'js>(ctx: Ctx<'js>, flags: u32, a: Opt<Value<'js>>, b: Opt<Value<'js>>) -> rquickjs::Result<i32> {
    let undefined = || Value::new_undefined(ctx.clone());
    let (a, b) = (a.0.unwrap_or_else(undefined), b.0.unwrap_or_else(undefined));
    let (s, t) = (text(&ctx, a)?, text(&ctx, b)?);
    Ok(crate::collation::compare(&s, &t, crate::collation::Options::from_flags(flags)) as i32)
}

/// JavaScript that sets up the API on the native functions. It evaluates
/// to `{fireNext, settle, describe, stringify}`.
const PRELUDE: &str = include_str!("prelude.js");

/// The time zones' offsets, transitions and names the prelude's date
/// formatting reads (`globalThis.__hwf_tz`, generated by
/// `scripts/gen-tz.py`), parsed on a run's first time zone.
const TZ_DATA: &str = include_str!("tz_data.js");

/// ICU's English display names (regions, languages, currencies, scripts,
/// calendars, date-time fields) the prelude's `Intl.DisplayNames` reads
/// (`globalThis.__hwf_display_names`, generated by
/// `scripts/gen-display-names.mjs` from Node), parsed on a run's first
/// `Intl.DisplayNames`.
const DISPLAY_NAMES: &str = include_str!("display_names.js");

/// ICU's date and time patterns and names for the most used languages
/// beyond English the prelude's date formatting reads, with their relative
/// times, list glue, unit forms and currency names
/// (`globalThis.__hwf_date_patterns`, generated by
/// `scripts/gen-date-patterns.mjs` from Node): read on a run's first use of
/// such a locale, each locale's JSON text parsed when it is first used.
const DATE_PATTERNS: &str = include_str!("date_patterns.js");

/// The locales ICU has data for, per Intl service, that the prelude's
/// locale negotiation falls back along (`globalThis.__hwf_locales`,
/// generated by `scripts/gen-intl-locales.mjs` from Node), read on a run's
/// first negotiation.
const LOCALES: &str = include_str!("locales.js");

/// Defines the natives on the globals and runs the prelude: what every run
/// starts from, with nothing of a run's own (`begin` gives it that).
fn register<'js>(ctx: &Ctx<'js>) -> rquickjs::Result<Object<'js>> {
    let g = ctx.globals();
    g.set("__hwf_agent", Function::new(ctx.clone(), agent)?)?;
    g.set("__hwf_capability", Function::new(ctx.clone(), capability)?)?;
    g.set("__hwf_workflow", Function::new(ctx.clone(), workflow)?)?;
    g.set("__hwf_sort", Function::new(ctx.clone(), sort)?)?;
    g.set(
        "__hwf_locale_compare",
        Function::new(ctx.clone(), locale_compare)?
            .with_name("localeCompare")?
            .with_length(1)?,
    )?;
    g.set("__hwf_collator_flags", Function::new(ctx.clone(), collator_flags)?)?;
    g.set("__hwf_collate", Function::new(ctx.clone(), collate)?)?;
    g.set(
        "__hwf_to_locale_string",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, x: f64, tag: Value<'js>, options: String| -> rquickjs::Result<String> {
                let tag = utf8(&ctx, tag)?;
                Ok(crate::number_format::to_locale_string_cached(
                    x, &tag, &options, host_json,
                ))
            },
        )?,
    )?;
    g.set(
        "__hwf_number_plan",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, tag: Value<'js>, options: String| -> rquickjs::Result<i32> {
                let tag = utf8(&ctx, tag)?;
                let id = crate::number_format::number_plan(&tag, &options, host_json);
                Ok(id.and_then(|id| i32::try_from(id).ok()).unwrap_or(-1))
            },
        )?,
    )?;
    g.set(
        "__hwf_format_number",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, x: f64, id: i32| -> rquickjs::Result<String> {
                u32::try_from(id)
                    .ok()
                    .and_then(|id| crate::number_format::format_with_plan(x, id))
                    .ok_or_else(|| Exception::throw_message(&ctx, "no such number format"))
            },
        )?,
    )?;
    g.set(
        "__hwf_phase",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, title: Value<'js>| -> rquickjs::Result<()> {
                hwf_guest::phase(&utf8(&ctx, title)?);
                Ok(())
            },
        )?,
    )?;
    g.set(
        "__hwf_log",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, level: i32, text: Value<'js>| -> rquickjs::Result<()> {
                let text = utf8(&ctx, text)?;
                let level = match level {
                    1 => wit::LogLevel::Debug,
                    2 => wit::LogLevel::Warn,
                    3 => wit::LogLevel::Error,
                    _ => wit::LogLevel::Info,
                };
                wit::host::log(level, &text);
                Ok(())
            },
        )?,
    )?;
    g.set(
        "__hwf_check_items",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, n: f64| -> rquickjs::Result<()> {
            // An array length: a whole number.
            runtime::check_items(n as u64).map_err(|e| Exception::throw_message(&ctx, &e))
        })?,
    )?;
    g.set(
        "__hwf_budget_spent",
        Function::new(ctx.clone(), || hwf_guest::budget().tokens_spent as f64)?,
    )?;
    g.set(
        "__hwf_budget_remaining",
        Function::new(ctx.clone(), || {
            hwf_guest::budget().tokens_left().map_or(f64::INFINITY, |t| t as f64)
        })?,
    )?;
    g.set("__hwf_nondeterminism", NONDETERMINISM)?;
    // Read on first use, not in the snapshot every run starts from: the
    // tables as objects would add ~1 MB to it and ~1 ms to every start.
    for (loader, source, global) in [
        ("__hwf_load_tz", TZ_DATA, "__hwf_tz"),
        ("__hwf_load_display_names", DISPLAY_NAMES, "__hwf_display_names"),
        ("__hwf_load_date_patterns", DATE_PATTERNS, "__hwf_date_patterns"),
        ("__hwf_load_locales", LOCALES, "__hwf_locales"),
    ] {
        g.set(
            loader,
            Function::new(ctx.clone(), move |ctx: Ctx<'js>| load_table(&ctx, source, global))?,
        )?;
    }
    ctx.eval::<Object, _>(PRELUDE)
}

/// Run a generated table's source (it assigns `globalThis[global]`) and
/// hand the table over, leaving no global behind.
fn load_table<'js>(ctx: &Ctx<'js>, source: &str, global: &str) -> rquickjs::Result<rquickjs::Value<'js>> {
    ctx.eval::<(), _>(source)?;
    let g = ctx.globals();
    let table = g.get::<_, rquickjs::Value>(global)?;
    g.remove(global)?;
    Ok(table)
}

/// QuickJS with the natives defined and the prelude run: what [`prepare`]
/// makes once per instance and a run takes. Fields drop in order: the
/// helpers, then the context, then the runtime.
struct Prepared {
    /// What the prelude evaluated to (`begin`, `settle`, …).
    helpers: Persistent<Object<'static>>,
    context: Context,
    _runtime: Runtime,
}

thread_local! {
    /// This instance's prepared interpreter, until a run takes it.
    static PREPARED: RefCell<Option<Prepared>> = const { RefCell::new(None) };
}

impl Prepared {
    fn new() -> Result<Self, String> {
        let rt = Runtime::new().map_err(|e| format!("internal: {e}"))?;
        rt.set_max_stack_size(JS_STACK);
        // No heap limit of QuickJS's own: the instance's memory limit (the
        // host's, configurable) ends a run that passes it with the typed
        // `memory_limit` error.
        rt.set_loader(NoModules, NoModules);
        let context = Context::full(&rt).map_err(|e| format!("internal: {e}"))?;
        let helpers = context.with(|ctx| {
            let helpers = match register(&ctx) {
                Ok(h) => h,
                Err(e) => {
                    let detail = if ctx.has_exception() {
                        format!("{:?}", ctx.catch())
                    } else {
                        e.to_string()
                    };
                    return Err(format!("internal: the prelude failed: {detail}"));
                }
            };
            // Claude Code compiles `return x` in an async function as
            // `return Promise.resolve(x)`; the vendored QuickJS does the
            // same for the functions compiled from here on, the script's
            // (vendor/README.md).
            let wrap = |name: &str| {
                helpers
                    .get::<_, Value>(name)
                    .map_err(|e| format!("internal: the prelude has no {name}: {e}"))
            };
            set_async_return_wrap(&ctx, &wrap("asyncReturn")?, &wrap("forAwait")?);
            Ok(Persistent::save(&ctx, helpers))
        })?;
        Ok(Self {
            helpers,
            context,
            _runtime: rt,
        })
    }
}

/// `prepare()`: sets this instance's interpreter up (QuickJS, the natives,
/// the prelude) ahead of its run. It calls no host function, so the build
/// runs it once and snapshots the instance (`cli/build/preinit.rs`): every
/// run of the shipped runtime starts with the prelude already run instead
/// of parsing and running 55 KB of JavaScript. Again, it does nothing.
///
/// # Errors
///
/// The prelude failed (a bug of the runtime's, `internal: …`).
pub fn prepare() -> Result<(), String> {
    if PREPARED.with(|p| p.borrow().is_some()) {
        return Ok(());
    }
    let prepared = Prepared::new()?;
    PREPARED.with(|p| *p.borrow_mut() = Some(prepared));
    Ok(())
}

/// The message of an uncaught error, as `describe` in the prelude writes
/// it, with `script_error: ` in front unless it already has a code.
fn failure(msg: String) -> String {
    if msg.contains(": ")
        && msg
            .split(':')
            .next()
            .is_some_and(|c| c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_'))
    {
        msg
    } else {
        format!("script_error: {msg}")
    }
}

fn describe<'js>(helpers: &Object<'js>, e: Value<'js>) -> String {
    helpers
        .get::<_, Function>("describe")
        .and_then(|f| f.call::<_, String>((e,)))
        .unwrap_or_else(|_| "unknown error".into())
}

/// The pending exception of a failed call, described.
fn caught<'js>(ctx: &Ctx<'js>, helpers: &Object<'js>) -> String {
    describe(helpers, ctx.catch())
}

/// The file name the script body is evaluated under; its frames in an
/// error's `stack` read `workflow.js:LINE:COL` (as in Claude Code).
const SCRIPT_FILE: &str = "workflow.js";

/// The script line an error was thrown at: the innermost `workflow.js`
/// frame of its `stack`, mapped from the wrapped body
/// ([`source::wrap`]: body line `n` is wrapped line `n + 1`) to the
/// script's own lines (`body_line` is where the body starts, after the
/// meta). `None` for a thrown value without a stack, or an error made
/// outside the script (a host call's failure).
fn script_line(e: &Value<'_>, body_line: u32) -> Option<u32> {
    let stack: String = e.as_object()?.get::<_, Option<String>>("stack").ok().flatten()?;
    let at = stack.find(&format!("{SCRIPT_FILE}:"))? + SCRIPT_FILE.len() + 1;
    let digits: String = stack[at..].chars().take_while(char::is_ascii_digit).collect();
    let wrapped: u32 = digits.parse().ok()?;
    // Line 1 is the wrapper's own; the last is its closing line.
    (wrapped >= 2).then(|| body_line + wrapped - 2)
}

/// The pending exception, described, with the script line it was thrown
/// at when its stack has one: `TypeError: x is not a function (line 12)`.
fn caught_at<'js>(ctx: &Ctx<'js>, helpers: &Object<'js>, body_line: u32) -> String {
    let e = ctx.catch();
    let line = script_line(&e, body_line);
    let msg = describe(helpers, e);
    match line {
        Some(l) => format!("{msg} (line {l})"),
        None => msg,
    }
}

#[allow(
    unsafe_code,
    reason = "the one entry point of a vendored QuickJS patch, which rquickjs does not bind"
)]
mod ffi {
    unsafe extern "C" {
        /// Set by `vendor/rquickjs-sys/quickjs/quickjs.c` (`hwf patch`).
        pub fn JS_SetAsyncReturnWrap(
            ctx: *mut rquickjs::qjs::JSContext,
            ret: rquickjs::qjs::JSValue,
            for_await: rquickjs::qjs::JSValue,
        );
    }

    /// Functions compiled in `ctx` from now on call `ret` on the value of
    /// every `return x` of an async function (and an async arrow's
    /// expression body), and `for_await` on what `for await` (or `yield*`
    /// in an async generator) iterates.
    pub fn set_async_return_wrap<'js>(
        ctx: &rquickjs::Ctx<'js>,
        ret: &rquickjs::Value<'js>,
        for_await: &rquickjs::Value<'js>,
    ) {
        // SAFETY: `ctx` is a live context and both values are of it; the C
        // side takes its own references (`js_dup`) and releases them with
        // the context.
        unsafe { JS_SetAsyncReturnWrap(ctx.as_raw().as_ptr(), ret.as_raw(), for_await.as_raw()) }
    }

    /// The own enumerable properties of `v`, when `v` is a plain object
    /// (`Object.prototype` its prototype: no `toJSON` there, it is frozen)
    /// of data properties only, so reading them runs no script code and
    /// `JSON.stringify` would read the same; `None` for anything else (a
    /// getter, an own `toJSON`, a proxy, an array, a class instance, …).
    /// Keys in `JSON.stringify`'s order.
    pub fn plain_data_properties<'js>(
        ctx: &rquickjs::Ctx<'js>,
        v: &rquickjs::Value<'js>,
    ) -> Option<Vec<(rquickjs::Value<'js>, rquickjs::Value<'js>)>> {
        use rquickjs::qjs;
        const JS_CLASS_OBJECT: qjs::JSClassID = 1;
        if !v.is_object() {
            return None;
        }
        let c = ctx.as_raw().as_ptr();
        let raw = v.as_raw();
        // SAFETY: `c` is a live context and `raw` a live object of it; every
        // value the calls return is owned (`Value::from_raw` frees it), the
        // property table is freed once, and the descriptor's values are
        // taken over (data properties: the getter and setter are undefined).
        unsafe {
            if qjs::JS_GetClassID(raw) != JS_CLASS_OBJECT {
                return None;
            }
            let proto = rquickjs::Value::from_raw(ctx.clone(), qjs::JS_GetPrototype(c, raw));
            let object_proto = rquickjs::Value::from_raw(ctx.clone(), qjs::JS_GetClassProto(c, JS_CLASS_OBJECT));
            if proto != object_proto {
                return None;
            }
            let mut tab: *mut qjs::JSPropertyEnum = std::ptr::null_mut();
            let mut len: u32 = 0;
            if qjs::JS_GetOwnPropertyNames(c, &mut tab, &mut len, raw, qjs::JS_GPN_STRING_MASK as _) < 0 {
                let _ = ctx.catch();
                return None;
            }
            let mut out = Vec::with_capacity(len as usize);
            let mut plain = true;
            for i in 0..len as usize {
                let atom = (*tab.add(i)).atom;
                let mut desc: qjs::JSPropertyDescriptor = std::mem::zeroed();
                match qjs::JS_GetOwnProperty(c, &mut desc, raw, atom) {
                    0 => continue,
                    1 => {}
                    _ => {
                        let _ = ctx.catch();
                        plain = false;
                        break;
                    }
                }
                let value = rquickjs::Value::from_raw(ctx.clone(), desc.value);
                let getter = rquickjs::Value::from_raw(ctx.clone(), desc.getter);
                let setter = rquickjs::Value::from_raw(ctx.clone(), desc.setter);
                if desc.flags & qjs::JS_PROP_GETSET as i32 != 0 || !getter.is_undefined() || !setter.is_undefined() {
                    plain = false;
                    break;
                }
                if desc.flags & qjs::JS_PROP_ENUMERABLE as i32 == 0 {
                    continue;
                }
                let key = rquickjs::Value::from_raw(ctx.clone(), qjs::JS_AtomToString(c, atom));
                if key.as_string().and_then(|k| k.to_string().ok()).as_deref() == Some("toJSON") {
                    plain = false;
                    break;
                }
                out.push((key, value));
            }
            qjs::JS_FreePropertyEnum(c, tab, len);
            plain.then_some(out)
        }
    }
}
use ffi::{plain_data_properties, set_async_return_wrap};

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
    // The host sends the run's arguments as JSON text (`null` for none).
    let args: Json = serde_json::from_str(args)
        .map(normalize)
        .map_err(|e| format!("internal: the run's arguments are not JSON: {e}"))?;
    // The instance's prepared interpreter (snapshotted at build time), or
    // one made now (a runtime built without the snapshot).
    let Prepared {
        helpers,
        context,
        _runtime,
    } = match PREPARED.with(|p| p.borrow_mut().take()) {
        Some(p) => p,
        None => Prepared::new()?,
    };
    let total = hwf_guest::budget().token_total;
    context.with(|ctx| {
        let helpers = helpers
            .restore(&ctx)
            .map_err(|e| format!("internal: the prelude's helpers: {e}"))?;
        begin(&ctx, &helpers, &args, total)?;
        let outcome = run_in(&ctx, &helpers, parts.body, parts.body_line);
        // Calls still in flight when the script ended: their settling
        // functions go before the context does.
        PENDING.with(|p| p.borrow_mut().clear());
        outcome
    })
}

/// Gives the prelude the run's own values: `args` (undefined for none) and
/// the budget's total (`null` for none).
fn begin<'js>(ctx: &Ctx<'js>, helpers: &Object<'js>, args: &Json, total: Option<u64>) -> Result<(), String> {
    let args = if args.is_null() {
        Value::new_undefined(ctx.clone())
    } else {
        ctx.json_parse(args.to_string())
            .map_err(|e| format!("internal: the run's arguments: {e}"))?
    };
    let total = match total {
        Some(t) => Value::new_float(ctx.clone(), t as f64),
        None => Value::new_null(ctx.clone()),
    };
    helpers
        .get::<_, Function>("begin")
        .and_then(|f| f.call::<_, ()>((args, total)))
        .map_err(|_| format!("internal: the prelude's begin failed: {}", caught(ctx, helpers)))
}

fn run_in<'js>(ctx: &Ctx<'js>, helpers: &Object<'js>, body: &str, body_line: u32) -> Result<String, String> {
    let get = |name: &str| {
        helpers
            .get::<_, Function>(name)
            .map_err(|e| format!("internal: the prelude has no {name}: {e}"))
    };
    let (fire_next, call_failure, stringify) = (get("fireNext")?, get("failure")?, get("stringify")?);
    let next_turn = get("nextTurn")?;
    let mut options = EvalOptions::default();
    options.filename = Some(SCRIPT_FILE.into());
    let promise: Promise = match ctx.eval_with_options(source::wrap(body), options) {
        Ok(p) => p,
        Err(_) => return Err(format!("script_error: {}", caught_at(ctx, helpers, body_line))),
    };
    // A `setTimeout` callback that throws is swallowed, as Claude Code's
    // timers swallow it; the first one is kept to explain a script that
    // then waits forever on what the callback would have settled.
    let mut timer_error: Option<String> = None;
    loop {
        while ctx.execute_pending_job() {}
        match promise.state() {
            PromiseState::Resolved => {
                let value: Value = promise
                    .result()
                    .and_then(Result::ok)
                    .unwrap_or_else(|| Value::new_undefined(ctx.clone()));
                return match stringify.call::<_, String>((value,)) {
                    Ok(text) => parse_json(&text)
                        .map(|v| v.to_string())
                        .map_err(|e| format!("script_error: the result cannot be stored: {e}")),
                    Err(_) => Err(format!(
                        "script_error: the result is not JSON: {}",
                        caught(ctx, helpers)
                    )),
                };
            }
            PromiseState::Rejected => {
                let _ = promise.result::<Value>();
                return Err(failure(caught_at(ctx, helpers, body_line)));
            }
            PromiseState::Pending => {}
        }
        // A `parallel` / `pipeline` call waiting for its turn starts now,
        // before any host call's answer (Claude Code's `await sleep(0)`).
        match next_turn.call::<_, bool>(()) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(_) => {
                return Err(format!(
                    "internal: a parallel/pipeline turn failed: {}",
                    caught(ctx, helpers)
                ));
            }
        }
        if PENDING.with(|p| p.borrow().is_empty()) {
            // Nothing in flight: the virtual clock moves to the next timer.
            match fire_next.call::<_, bool>(()) {
                Ok(true) => continue,
                Ok(false) => {
                    return Err(timer_error.unwrap_or_else(|| {
                        "script_error: the script is waiting on a promise that can never settle".into()
                    }));
                }
                Err(_) => {
                    let e = caught_at(ctx, helpers, body_line);
                    timer_error.get_or_insert_with(|| format!("script_error: in a setTimeout callback: {e}"));
                    continue;
                }
            }
        }
        // A spent token or cost budget is an error the script may catch
        // (`WorkflowBudgetExceededError`, made by the prelude's `failure`),
        // as in Claude Code; the seed's Python ends the run instead.
        // Every call in flight is this script's: an empty list waits for
        // any of them (no list of thousands sent on every turn).
        let done = wit::host::next(&[]);
        if let Some(pending) = PENDING.with(|p| p.borrow_mut().remove(&done.call))
            && settle(ctx, &call_failure, pending, done.outcome).is_err()
        {
            return Err(format!(
                "internal: settling a host call failed: {}",
                caught(ctx, helpers)
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogate_escapes_become_replacement_characters() {
        for (text, want) in [
            (r#""a\ud800b""#, "a\u{fffd}b"),
            (r#""\udc00""#, "\u{fffd}"),
            (r#""\ud83d\ude00""#, "\u{1F600}"),
            (r#""\ud800\ud800""#, "\u{fffd}\u{fffd}"),
            (r#""\\ud800""#, "\\ud800"),
            (r#""\\\ud800""#, "\\\u{fffd}"),
            (r#""\u0041\ud800""#, "A\u{fffd}"),
            (r#""é\ud800""#, "é\u{fffd}"),
            (r#""\ud800"#, ""),
        ] {
            match parse_json(text) {
                Ok(v) => assert_eq!(v, Json::String(want.into()), "{text}"),
                Err(e) => assert_eq!(want, "", "{text}: {e}"),
            }
        }
    }

    #[test]
    fn data_nested_too_deep_is_an_error() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(parse_json(&deep).is_err_and(|e| e.contains("128 levels")));
        let edge = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert!(parse_json(&edge).is_err());
        let ok = format!("{}{}", "[".repeat(127), "]".repeat(127));
        assert!(parse_json(&ok).is_ok());
    }

    /// The options read directly are what `JSON.stringify` makes of them,
    /// and every object the direct read declines (a getter, `toJSON`, a
    /// class instance, no prototype, nesting, fractions, `NaN`) still gives
    /// `JSON.stringify`'s answer; a getter runs once.
    #[test]
    fn a_label_collapses_javascripts_white_space() {
        assert_eq!(collapse_whitespace("  find\n\t bugs \u{a0}now "), "find bugs now");
        assert_eq!(collapse_whitespace("\u{feff}a\u{2028}b"), "a b");
        assert_eq!(
            collapse_whitespace("a\u{85}b"),
            "a\u{85}b",
            "NEL is not JavaScript white space"
        );
        assert_eq!(collapse_whitespace(" \n "), "");
    }

    #[test]
    fn agent_options_are_what_json_stringify_makes_of_them() {
        let rt = Runtime::new().expect("runtime");
        let context = Context::full(&rt).expect("context");
        context.with(|ctx| {
            let cases = [
                r#"({ label: "review", phase: "scan", fresh: false, model: null })"#,
                r#"({ label: "x", n: 3, neg: -0, big: 2 ** 52, skip: undefined, f() {}, [Symbol("s")]: 1 })"#,
                r#"({ 2: "two", b: "b", 1: "one", a: "\ud800 lone" })"#,
                r#"({ label: "frac", t: 1.5 })"#,
                r#"({ label: "nan", t: NaN, i: Infinity })"#,
                r#"({ schema: { type: "object" }, label: "nested" })"#,
                r#"({ get label() { globalThis.reads = (globalThis.reads || 0) + 1; return "got"; } })"#,
                r#"({ label: "json", toJSON() { return { label: "from toJSON" }; } })"#,
                r#"Object.assign(Object.create(null), { label: "no prototype" })"#,
                r#"new (class Opts { constructor() { this.label = "class"; } })()"#,
                r#"Object.defineProperty({ label: "shown" }, "hidden", { value: "h", enumerable: false })"#,
                r#"[1, 2]"#,
                r#"new Map([["label", "m"]])"#,
            ];
            for (i, case) in cases.into_iter().enumerate() {
                ctx.globals().set("reads", 0).expect("reset");
                let value: Value = ctx.eval(case).expect(case);
                // Plain objects of data properties are read (a fraction,
                // NaN or a nested object then sends them to
                // JSON.stringify); the rest are declined unread.
                assert_eq!(
                    plain_data_properties(&ctx, &value).is_some(),
                    i < 6 || i == 10,
                    "{case}"
                );
                let direct = agent_options(&ctx, value.clone()).expect(case);
                let text = ctx
                    .json_stringify(value)
                    .expect(case)
                    .map(|s| s.to_string().expect("utf8"))
                    .unwrap_or_else(|| "null".into());
                let want = match parse_json(&text).expect(case) {
                    Json::Object(m) => m,
                    _ => Map::new(),
                };
                assert_eq!(Json::Object(direct), Json::Object(want), "{case}");
            }
            // The getter ran once for the read above and once for the
            // comparison's own JSON.stringify: the direct read declined it
            // without calling it.
            let reads: i32 = ctx.globals().get("reads").expect("reads");
            assert_eq!(reads, 0, "reset after the last case");
            let getter: Value = ctx.eval(cases[6]).expect("getter");
            agent_options(&ctx, getter).expect("getter");
            let reads: i32 = ctx.globals().get("reads").expect("reads");
            assert_eq!(reads, 1, "the getter ran once");
            // A cycle is JSON.stringify's TypeError.
            let cyclic: Value = ctx
                .eval("(() => { const o = { label: {} }; o.label.o = o; return o; })()")
                .expect("cyclic");
            assert!(agent_options(&ctx, cyclic).is_err());
        });
    }
}
