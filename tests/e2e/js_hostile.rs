//! Hostile and careless JavaScript through the real binary (issue 28's red
//! team of the QuickJS runtime): each test is a way a script got around
//! the runtime's rules, or ended in a silent wrong result or an `internal`
//! error, before the fix it names.

use crate::common::{Ctx, Run};
use serde_json::{Value, json};

/// Run a script body (meta added) with a fixture answering every agent.
fn run_body(ctx: &Ctx, name: &str, body: &str) -> Run {
    let s = ctx.write(
        name,
        format!("export const meta = {{ name: \"h\", description: \"hostile\" }};\n{body}"),
    );
    let f = ctx.write(
        &format!("{name}.fixture.json"),
        r#"{"responses": [{"match": {"label": "obj"}, "output": {"k": 1}}, {"match": {}, "output": "ok"}]}"#,
    );
    ctx.run_json(
        s.to_str().expect("utf8"),
        "{}",
        &["--agents", f.to_str().expect("utf8"), "--cpu-limit-ms", "3000"],
    )
}

fn error_text(run: &Run) -> String {
    let v = run.json();
    format!("{} {}", v["error"]["code"], v["error"]["message"])
}

/// QuickJS-ng's `CallSite.getFunction()` (`Error.prepareStackTrace`)
/// returned the function of every frame: a `valueOf` that `new Date(x)`
/// calls took the real `Date` off the stack, and its `now()` read the
/// clock; a `then` getter took the prelude's `settle`. As V8 for strict
/// code, it is `undefined` now; and since the builtins are frozen as in
/// Claude Code's context, a script can no longer install
/// `Error.prepareStackTrace` or a getter on `Object.prototype` at all.
#[test]
fn stack_trace_call_sites_give_away_no_function() {
    let ctx = Ctx::new();
    let out = run_body(
        &ctx,
        "callsites.js",
        "const refused = [];\n\
         try { Error.prepareStackTrace = (e, sites) => sites; } catch (e) { refused.push(e.name); }\n\
         try { Object.defineProperty(Object.prototype, \"then\", { configurable: true, get() { return undefined; } }); } catch (e) { refused.push(e.name); }\n\
         const seen = [];\n\
         const sites = new Error().stack;\n\
         if (Array.isArray(sites)) for (const c of sites) { const f = c.getFunction(); if (f !== undefined) seen.push(String(f.name)); }\n\
         const a = await agent(\"x\", {label: \"obj\"});\n\
         return { refused, seen, a, names: typeof new Error().stack };\n",
    );
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!({"refused": ["TypeError", "TypeError"], "seen": [], "a": {"k": 1}, "names": "string"}),
        "{}",
        out.stdout
    );
}

/// A body that closes the function it is wrapped in ran the rest at the
/// top level: global, non-strict code the check never parsed as such.
/// `check` now refuses it; an HTML-like comment (`<!--`, read as
/// operators by the module parse) no longer hides code from the check;
/// `import.meta` (module code only) passed the check and failed the run.
#[test]
fn a_script_body_cannot_close_the_function_it_runs_in() {
    let ctx = Ctx::new();
    for (i, body) in [
        "})(); globalThis.escaped = (function () { return this; })() === globalThis; (async () => {\nreturn globalThis.escaped;\n",
        "}, globalThis.escaped = true, async () => {\nreturn globalThis.escaped;\n",
    ]
    .into_iter()
    .enumerate()
    {
        let s = ctx.write(
            &format!("escape{i}.js"),
            format!("export const meta = {{ name: \"e\", description: \"escape\" }};\n{body}"),
        );
        let v = ctx.hwf(["validate", s.to_str().expect("utf8"), "--json"]);
        v.expect_code(2);
        let d = &v.json()["data"]["diagnostics"][0];
        assert_eq!(d["code"], "syntax_error", "{body}: {d}");
        assert!(
            d["message"].as_str().unwrap_or("").contains("close the function the script runs in"),
            "{d}"
        );
        assert_eq!(d["line"], 2, "{d}");
        ctx.run_json(s.to_str().expect("utf8"), "{}", &[]).expect_code(2);
    }
    let s = ctx.write(
        "meta.js",
        "export const meta = { name: \"m\", description: \"import.meta\" };\nconst x = 1;\nreturn import.meta;\n",
    );
    let v = ctx.hwf(["validate", s.to_str().expect("utf8"), "--json"]);
    v.expect_code(2);
    let d = &v.json()["data"]["diagnostics"][0];
    assert_eq!(
        (d["code"].clone(), d["line"].clone()),
        (json!("syntax_error"), json!(3)),
        "{d}"
    );
    // `<!--` is the operators `<`, `!`, `--` when the script runs too, as
    // when it was checked: the `/*` after it is a comment in both.
    let out = run_body(
        &ctx,
        "html.js",
        "let x = 1, y = 2;\n\
         const r = x <!--y / 1; /*\n\
         })(); globalThis.escaped = true; (async () => {\n\
         */\n\
         return { r, escaped: globalThis.escaped ?? null, y };\n",
    );
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!({"r": false, "escaped": null, "y": 1}),
        "{}",
        out.stdout
    );
}

/// A lone surrogate (half a UTF-16 pair) made the result, agent options or
/// capability input silently `null` (serde refuses the escape
/// `JSON.stringify` writes), and a prompt, a log line, `localeCompare` or
/// a locale tag a TypeError ("Conversion from string failed"). It is
/// U+FFFD, as in every JavaScript-to-UTF-8 conversion.
#[test]
fn lone_surrogates_become_replacement_characters() {
    let ctx = Ctx::new();
    let out = run_body(
        &ctx,
        "surrogates.js",
        "log(\"line \\uD800\");\n\
         phase(\"p\\uDC00\");\n\
         const a = await agent(\"prompt \\uD800\", {label: \"lone\", context: {s: \"c\\uDFFF\"}});\n\
         const text = { lc: typeof \"\\uD800\".localeCompare(\"a\"), n: (() => { try { return (1234).toLocaleString(\"\\uD800\") } catch (e) { return String(e) } })() };\n\
         return { s: \"a\\uD800b\", pair: \"\\uD83D\\uDE00\", escaped: \"\\\\ud800\", a, text };\n",
    );
    out.expect_code(0);
    let v = out.json();
    assert_eq!(
        v["data"]["result"],
        json!({"s": "a\u{fffd}b", "pair": "\u{1F600}", "escaped": "\\ud800", "a": "ok",
               "text": {"lc": "number", "n": "RangeError: Incorrect locale information provided"}}),
        "{}",
        out.stdout
    );
    let journal = ctx.journal(v["data"]["run_id"].as_str().expect("id"));
    let start = journal
        .iter()
        .find(|e| e["type"] == "call_started" && e["kind"] == "agent")
        .expect("an agent call");
    assert_eq!(start["request"]["prompt"], "prompt \u{fffd}", "{start}");
    assert_eq!(start["request"]["context"], json!({"s": "c\u{fffd}"}), "{start}");
    assert!(
        journal
            .iter()
            .any(|e| e["type"] == "log" && e["source"] == "guest" && e["message"] == "line \u{fffd}"),
        "no log line"
    );
}

/// JSON data nested 128 levels deep (serde's and the host's limit) was a silent `null`
/// (the run's result, an agent's options); now an error that says so.
#[test]
fn data_nested_too_deep_is_an_error_not_null() {
    let ctx = Ctx::new();
    let out = run_body(
        &ctx,
        "deep.js",
        "let a = []; for (let i = 0; i < 200; i++) a = [a];\nreturn a;\n",
    );
    out.expect_code(1);
    assert!(error_text(&out).contains("128 levels deep or more"), "{}", out.stdout);
    let out = run_body(
        &ctx,
        "deepopts.js",
        "let c = {}; for (let i = 0; i < 200; i++) c = {c};\n\
         let e1 = null;\n\
         try { await agent(\"p\", {label: \"x\", context: c}); } catch (e) { e1 = `${e.name}: ${e.message}`; }\n\
         let ok = []; for (let i = 0; i < 100; i++) ok = [ok];\n\
         return { e1, ok: JSON.stringify(ok).length };\n",
    );
    out.expect_code(0);
    let r = out.json()["data"]["result"].clone();
    assert_eq!(r["ok"], 202, "{r}");
    assert!(
        r["e1"].as_str().is_some_and(
            |m| m.starts_with("TypeError: agent(prompt, options): options cannot be sent") && m.contains("128 levels")
        ),
        "{r}"
    );
}

/// The helpers the event loop calls used `Map`, `Set` and assignments a
/// script can replace: `Set.prototype.clear` or `Map.prototype.get`
/// throwing, or a setter for `code` on `Error.prototype`, ended the run as
/// an `internal` error. The helpers now use nothing a script can replace,
/// and the builtins are frozen as in Claude Code's context: each attempt
/// is a `TypeError` the script may catch, and the runtime goes on.
#[test]
fn replaced_builtins_never_break_the_runtime() {
    let ctx = Ctx::new();
    let out = run_body(
        &ctx,
        "builtins.js",
        "const boom = () => { throw new Error(\"replaced\"); };\n\
         const refused = [];\n\
         for (const attempt of [\n\
           () => { Set.prototype.clear = boom; },\n\
           () => { Map.prototype.get = boom; },\n\
           () => Object.defineProperty(Error.prototype, \"code\", { set: boom, configurable: true }),\n\
           () => Object.defineProperty(Object.prototype, \"get\", { value: boom, writable: true, configurable: true }),\n\
           () => { Object.getPrototypeOf([][Symbol.iterator]()).next = boom; },\n\
         ]) { try { attempt(); refused.push(\"replaced\"); } catch (e) { refused.push(e.name); } }\n\
         if (typeof WeakRef === \"function\") new WeakRef({});\n\
         const a = await agent(\"p\", {label: \"x\"});\n\
         let denied = null;\n\
         try { await capability(\"bash\", {argv: [\"ls\"]}); } catch (e) { denied = Object.getOwnPropertyDescriptor(e, \"code\").value; }\n\
         const t = await new Promise((resolve) => setTimeout(() => resolve(\"timer\"), 5));\n\
         return { refused, a, denied, t };\n",
    );
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!({"refused": vec!["TypeError"; 5], "a": "ok", "denied": "side_effect_denied", "t": "timer"}),
        "{}",
        out.stdout
    );
}

/// A parallel slot that throws anything (a revoked Proxy, a Symbol, an
/// object whose `message` throws) is `null`, as any other failed slot; the
/// revoked Proxy made `parallel` itself reject.
#[test]
fn parallel_slots_that_throw_anything_are_null() {
    let ctx = Ctx::new();
    let out = run_body(
        &ctx,
        "throws.js",
        "const { proxy, revoke } = Proxy.revocable({}, {}); revoke();\n\
         return await parallel([() => { throw proxy; }, () => 1, () => { throw Symbol(\"s\"); },\n\
           () => Promise.reject({ get message() { throw 2; } })]);\n",
    );
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!([null, 1, null, null]),
        "{}",
        out.stdout
    );
    let logs: Vec<Value> = ctx
        .journal(out.json()["data"]["run_id"].as_str().expect("id"))
        .into_iter()
        .filter(|e| e["type"] == "log" && e["source"] == "guest")
        .map(|e| e["message"].clone())
        .collect();
    assert_eq!(logs.len(), 3, "{logs:?}");
}

/// Each timer firing scanned every timer set: 5,000 parallel sleeps cost
/// more than 2 s of CPU (`cpu_limit`; 4,000 took 7 s). The timers are a
/// heap now: the same script takes a fraction of a second, in the same
/// order (latest set, earliest due, first).
#[test]
fn thousands_of_timers_cost_log_n_each() {
    let ctx = Ctx::new();
    let s = ctx.write(
        "timers.js",
        "export const meta = { name: \"t\", description: \"many sleeps\" };\n\
         const sleep = (ms) => new Promise((r) => setTimeout(r, ms));\n\
         const order = [];\n\
         await Promise.all(Array.from({ length: 5000 }, async (_, i) => { await sleep(5000 - i); order.push(i); }));\n\
         return { n: order.length, first: order[0], last: order[4999] };\n",
    );
    let out = ctx.run_json(s.to_str().expect("utf8"), "{}", &["--cpu-limit-ms", "2000"]);
    out.expect_code(0);
    assert_eq!(
        out.json()["data"]["result"],
        json!({"n": 5000, "first": 4999, "last": 0}),
        "{}",
        out.stdout
    );
}
