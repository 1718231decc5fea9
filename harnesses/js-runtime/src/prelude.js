// The script API on the runtime's native functions (`engine.rs`). It runs
// once per instance, before any run (the build snapshots the instance
// after it: `cli/build/preinit.rs`), and evaluates to the helpers the
// event loop uses; `begin` then gives it the run's `args` and budget.
(() => {
  "use strict";
  const g = globalThis;
  const nativeAgent = g.__hwf_agent, nativeCapability = g.__hwf_capability, nativeWorkflow = g.__hwf_workflow;
  const nativePhase = g.__hwf_phase, nativeLog = g.__hwf_log, checkItems = g.__hwf_check_items;
  const spent = g.__hwf_budget_spent, remaining = g.__hwf_budget_remaining;
  // The run's token budget (`begin`); `null` when it has none.
  let total = null;
  const NONDETERMINISM = g.__hwf_nondeterminism;
  const stringify = JSON.stringify, parse = JSON.parse, isArray = Array.isArray;
  const construct = Reflect.construct, defineProperty = Object.defineProperty, freeze = Object.freeze;
  const MapCtor = Map, PromiseCtor = Promise, ErrorCtor = Error, TypeErrorCtor = TypeError, StringCtor = String;

  // Plain data as JSON text for the natives ("null" for undefined, a
  // function or a symbol, as JSON.stringify leaves them out).
  const json = (v) => {
    if (v === undefined || v === null) return "null";
    const s = stringify(v);
    return s === undefined ? "null" : s;
  };

  // Claude Code's copy of a value crossing its VM boundary (the script's
  // result, what `parallel` / `pipeline` resolve to): arrays by index (a
  // function item is undefined), any other object by `Object.keys` with
  // function values and `__proto__` left out, getters read; no `toJSON`,
  // so a `Date`, a `Map` or a class instance is plain data (`{}` for a
  // `Date`). A getter that throws leaves its slot out (undefined in an
  // array). Shared objects stay shared (a cycle stays a cycle, and
  // `JSON.stringify` refuses it). Iterative, so deep data does not use the
  // stack.
  const keysOf = Object.keys, WeakMapCtor = WeakMap;
  const copy = (root) => {
    if (typeof root === "function") return undefined;
    if (root === null || typeof root !== "object") return root;
    const seen = new WeakMapCtor(), work = [];
    const make = (v) => {
      const hit = seen.get(v);
      if (hit !== undefined) return hit;
      if (isArray(v)) {
        const out = [];
        seen.set(v, out);
        let len = 0;
        try { len = toLength(v.length); } catch { /* a length that cannot be read is 0 */ }
        work.push([v, out, null, len]);
        return out;
      }
      const out = {};
      seen.set(v, out);
      let ks = [];
      try { ks = keysOf(v); } catch { /* an object whose keys cannot be read is {} */ }
      work.push([v, out, ks, 0]);
      return out;
    };
    const item = (x) => (typeof x === "function" ? undefined : x !== null && typeof x === "object" ? make(x) : x);
    const top = make(root);
    while (work.length > 0) {
      const [src, out, ks, len] = work.pop();
      if (ks === null) {
        for (let i = 0; i < len; i++) {
          let x;
          try { x = src[i]; } catch { out[i] = undefined; continue; }
          out[i] = item(x);
        }
      } else {
        for (const k of ks) {
          if (k === "__proto__") continue;
          let x;
          try { x = src[k]; } catch { continue; }
          if (typeof x === "function") continue;
          defineProperty(out, k, { value: item(x), writable: true, enumerable: true, configurable: true });
        }
      }
    }
    return top;
  };
  const toLength = (n) => { const x = Math.trunc(Number(n)); return x > 0 ? Math.min(x, Number.MAX_SAFE_INTEGER) : 0; };

  // The error a failed host call rejects with (the engine keeps the
  // pending calls and settles them: `settle` in engine.rs). The helpers
  // the event loop calls (`failure`, `fireNext`, `nextTurn`) use no method
  // or setter a script can replace (`Map.prototype.get`, a setter for
  // `code` on `Error.prototype`, an `Object.prototype.get` that turns a
  // descriptor into an accessor's…): objects without a prototype,
  // properties defined rather than assigned, functions taken before the
  // script runs. A script that replaces builtins breaks its own calls to
  // them, never the runtime.
  const create = Object.create, apply = Reflect.apply;
  const dataProperty = (o, k, v) =>
    defineProperty(o, k, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true });
  const failure = (message, code, kind) => {
    const e = code === "token_budget" || code === "cost_budget" ? budgetError(message, code)
      : code === "limit_agent" ? agentCapError(message)
      : code === "workflow_failed" ? childError(message)
      : code === "nesting_too_deep" && apply(reExec, nestedWorkflow, [StringCtor(message)]) !== null
        ? new ErrorCtor("workflow() cannot be called from within a child workflow \u2014 nesting is limited to one level. " +
          "Inline the inner script or call its agents directly.")
      : new ErrorCtor(message);
    dataProperty(e, "code", code);
    dataProperty(e, "kind", kind);
    return reseal(e);
  };
  // A spent token or cost budget, as Claude Code says it: an error named
  // `WorkflowBudgetExceededError` the script may catch; a `parallel` or
  // `pipeline` slot it ends is `null`, counted in one log line. Uncaught,
  // it fails the run with the budget's code (`describe`). Built, like
  // `failure`, from nothing a script can replace.
  const weakSet = WeakMap.prototype.set, weakGet = WeakMap.prototype.get, weakHas = WeakMap.prototype.has;
  const strSlice = String.prototype.slice; // `toLocale` (grouping) is taken below, after the runtime defines it
  const budgetErrors = new WeakMapCtor(); // error -> its code
  const budgetError = (hostText, code) => {
    const grouped = (n) => apply(toLocale, n, []);
    const hostSaid = StringCtor(hostText);
    const what = code === "token_budget"
      ? `token budget exceeded (${grouped(spent())} / ${total === null ? "?" : grouped(total)} output tokens)`
      : `cost budget exceeded (${apply(strSlice, hostSaid, [hostSaid.length > 13 && hostSaid[11] === ":" ? 13 : 0])})`;
    const e = new ErrorCtor(`Workflow ${what}. Stopping further agent() calls. ` +
      "In-flight agents will complete; their results are preserved.");
    defineProperty(e, "name", { __proto__: null, value: "WorkflowBudgetExceededError", writable: true, enumerable: false, configurable: true });
    apply(weakSet, budgetErrors, [e, code]);
    return e;
  };
  // What the script's calls to the API reject with, as Claude Code's VM
  // boundary has it (its `reseal`): not the error itself but a frozen
  // plain object without a prototype holding its `name`, `message`,
  // `stack` and a `toString` giving `Name: message`, so `e.message`,
  // `e.name` and `String(e)` read as usual and `e instanceof Error` is
  // false. hwf's `code` and `kind` ride along, not enumerable.
  const setPrototypeOf = Object.setPrototypeOf, getOwnDescriptor = Object.getOwnPropertyDescriptor;
  const bare = (f) => { setPrototypeOf(f, null); return f; }; // a function without a prototype
  const reseal = (e) => {
    let name = "Error", message = "", stack;
    try { const v = e?.name; if (typeof v === "string") name = v; } catch { /* keep "Error" */ }
    try { const v = e?.message; if (typeof v === "string") message = v; else if (typeof e === "string") message = e; } catch { /* none */ }
    try { const v = e?.stack; if (typeof v === "string") stack = v; } catch { /* none */ }
    const toStr = () => name + ": " + message;
    setPrototypeOf(toStr, null);
    freeze(toStr);
    const out = { __proto__: null, name, message, stack: stack === undefined ? name + ": " + message : stack, toString: toStr };
    for (const k of ["code", "kind"]) {
      let d;
      try { d = e !== null && typeof e === "object" ? getOwnDescriptor(e, k) : undefined; } catch { d = undefined; }
      if (d !== undefined && "value" in d) defineProperty(out, k, { __proto__: null, value: d.value, writable: false, enumerable: false, configurable: false });
    }
    if (isBudgetError(e)) apply(weakSet, budgetErrors, [out, budgetCode(e)]);
    if (isCapError(e)) apply(weakSet, capErrors, [out, true]);
    return freeze(out);
  };
  // The run's agent-call cap (`--max-agent-calls`, 1000 by default) as
  // Claude Code says its fixed cap of 1000: a `WorkflowAgentCapError`
  // explaining the usual cause.
  const reExec = RegExp.prototype.exec;
  const capErrors = new WeakMapCtor(); // uncaught, the run fails with `limit_agent` (`describe`)
  const capCount = /at most (\d+) agent calls/;
  const agentCapError = (hostText) => {
    const m = apply(reExec, capCount, [StringCtor(hostText)]);
    const e = new ErrorCtor(`Workflow agent() call cap reached (${m === null ? 1000 : m[1]}). This usually means a loop ` +
      "using budget.remaining() never terminates because no token budget was set \u2014 remaining() returns Infinity " +
      "when budget.total is null. Add a hard iteration cap to the loop, or pass a token budget.");
    defineProperty(e, "name", { __proto__: null, value: "WorkflowAgentCapError", writable: true, enumerable: false, configurable: true });
    apply(weakSet, capErrors, [e, true]);
    return e;
  };
  // A child workflow that threw, as Claude Code's parent sees it: the
  // child's own error name and message (`RangeError` / `child blew up`),
  // read from the host's `workflow_failed: <ref>: script_error: <Name>:
  // <message> (line N)`. Other failures of the child (a limit, a refused
  // call) keep hwf's text.
  const childThrew = /^workflow_failed: .*?: script_error: ([A-Za-z_$][\w$]*)(?:: ([\s\S]*?))?(?: \(line \d+\))?$/;
  const hostCode = /^[a-z_]+$/;
  // A child's own `workflow()`: the host's one-level refusal, in Claude
  // Code's words (`failure`).
  const nestedWorkflow = /cannot start another workflow/;
  const childError = (hostText) => {
    const text = StringCtor(hostText);
    const m = apply(reExec, childThrew, [text]);
    if (m === null || apply(reExec, hostCode, [m[1]]) !== null) return new ErrorCtor(text);
    const e = new ErrorCtor(m[2] === undefined ? "" : m[2]);
    defineProperty(e, "name", { __proto__: null, value: m[1], writable: true, enumerable: false, configurable: true });
    return e;
  };
  const isCapError = (e) => e !== null && typeof e === "object" && apply(weakHas, capErrors, [e]);
  const isBudgetError = (e) => e !== null && typeof e === "object" && apply(weakHas, budgetErrors, [e]);
  const budgetCode = (e) => apply(weakGet, budgetErrors, [e]);

  // Methods of an object literal: not constructors, as native functions.
  // A call Claude Code makes from an async function: whatever goes wrong
  // is a rejected promise, never a synchronous throw.
  const rejected = (e) => PromiseCtor.reject(reseal(e));
  const api = {
    agent(prompt, options) {
      // The prompt's text as Claude Code takes it: `String(prompt)` for a
      // primitive, `[object]` / `[function]` for anything else.
      try {
        const text = typeof prompt === "string" ? prompt : plain(prompt);
        const opts = options !== null && typeof options === "object" ? options : null;
        // Claude Code reads three options itself: `String(label)` (its
        // whitespace runs collapsed natively), `String(phase)`, and a falsy
        // `schema` (`false`, `0`, `""`) asks for a text answer.
        let label, phase, textOnly = false;
        if (opts !== null) {
          const l = opts.label, p = opts.phase;
          if (l != null) label = StringCtor(l);
          if (p != null) phase = StringCtor(p);
          textOnly = !opts.schema;
        }
        return nativeAgent(text, opts, label, phase, textOnly);
      } catch (e) { return rejected(e); }
    },
    capability(name, input, options) {
      const n = arguments.length > 0 ? `${name}` : ""; // ToString: a Symbol throws
      return nativeCapability(n, json(input), json(options));
    },
    workflow(nameOrRef, args) {
      // Claude Code's message, word for word; hwf also refuses an empty name.
      const wrong = () => new TypeErrorCtor("workflow() expects a workflow name (string) or {scriptPath: string}");
      try {
        let name;
        if (typeof nameOrRef === "string") name = nameOrRef;
        else if (nameOrRef !== null && typeof nameOrRef === "object") {
          const p = nameOrRef.scriptPath;
          if (typeof p !== "string") throw wrong();
          // Always a path to the host, even a bare file name.
          name = p === "" || p.includes("/") ? p : "./" + p;
        } else throw wrong();
        if (name === "") throw wrong();
        return nativeWorkflow(name, json(args));
      } catch (e) { return rejected(e); }
    },
    phase(title) { nativePhase(arguments.length > 0 ? StringCtor(title) : ""); }, // Claude Code's `String(title)`
    // As Claude Code: one argument, `String(x)` for a primitive, `[object]`
    // or `[function]` for anything else.
    log(message) { nativeLog(0, plain(message)); },
  };
  const plain = (m) => {
    if (m === null || (typeof m !== "object" && typeof m !== "function")) {
      try { return StringCtor(m); } catch { return `[${typeof m}]`; }
    }
    return `[${typeof m}]`;
  };
  // `console.*` as Claude Code writes its arguments: a string as it is, any
  // other primitive as JSON (`undefined` and symbols as nothing), an object
  // as the JSON of its copy, or `String(x)` where that JSON is `{}` and
  // `String(x)` says more (`Error: boom`, a date, `[object Map]`).
  const ObjectToString = Object.prototype.toString;
  const text = (parts) => parts.map((h) => {
    if (typeof h === "string") return h;
    if (h === null || (typeof h !== "object" && typeof h !== "function")) {
      try { return stringify(h); } catch { return `[${typeof h}]`; }
    }
    let fallback;
    try {
      const o = stringify(copy(h));
      if (o !== undefined && o !== "{}") return o;
      fallback = o ?? `[${typeof h}]`;
    } catch { return `[${typeof h}]`; }
    let a;
    try { a = StringCtor(h); } catch { a = "<unprintable>"; }
    return a === "[object Object]" || a === "<unprintable>" ? fallback : a;
  }).join(" ");
  bare(api.phase);
  bare(api.log);
  for (const k of ["agent", "capability", "workflow", "phase", "log"]) {
    defineProperty(g, k, { value: api[k], writable: true, enumerable: false, configurable: true });
  }
  const narrate = (line) => nativeLog(0, line);

  // A slot that threw is null, and said in the narrator log as Claude
  // Code says it (`parallel[2] failed: <message>`).
  const failed = (what, i, e) => {
    // The message as Claude Code reads a thrown value.
    let msg;
    try { const m = e?.message; msg = typeof m === "string" ? m : typeof e === "string" ? e : "<non-string error>"; }
    catch { msg = "<unprintable thrown value>"; }
    narrate(`${what}[${i}] failed: ${msg}`);
    return null;
  };
  // A slot ended by a spent budget is null without a line of its own; the
  // count is said once (`parallel: 3 slots dropped — token budget
  // exceeded`), as Claude Code records it.
  const slotValue = (what, r, i, dropped) => {
    if (r.ok) return r.v;
    if (isBudgetError(r.e)) { dropped.n++; return null; }
    return failed(what, i, r.e);
  };
  const saidDropped = (what, dropped) => {
    if (dropped.n > 0) narrate(`${what}: ${dropped.n} ${dropped.n === 1 ? "slot" : "slots"} dropped \u2014 token budget exceeded`);
  };
  // Claude Code's `parallel` and `pipeline` start after a macrotask (`await
  // sleep(0)`): a call begins once the microtasks queued before it have
  // run, one call per turn, before any host call's answer is delivered.
  // The event loop calls `nextTurn` when the job queue is empty.
  const turns = [];
  const afterTurn = () => new PromiseCtor((resolve) => { turns.push(resolve); });
  const nextTurn = () => {
    if (turns.length === 0) return false;
    turns.shift()();
    return true;
  };
  // More than 4,096 items is refused with Claude Code's words (its VM
  // boundary's limit, hwf's too).
  const tooMany = (list) => {
    const n = list.length;
    try { checkItems(n); } catch {
      throw reseal(new ErrorCtor(`array length ${n} exceeds the maximum of 4096 supported across the workflow VM boundary`));
    }
  };
  // Claude Code's messages, word for word (scripts may show `e.message`).
  g.parallel = async (thunks) => {
    await afterTurn();
    if (!isArray(thunks)) throw reseal(new TypeErrorCtor("parallel() expects an array of functions"));
    tooMany(thunks);
    const list = [...thunks];
    for (const t of list) {
      if (typeof t !== "function") {
        throw reseal(new TypeErrorCtor("parallel() expects an array of functions, not promises. Wrap each call: () => agent(...)"));
      }
    }
    // Every thunk starts in order; once all have settled, the failed slots
    // are null and said in the log in slot order, as Claude Code does.
    const run = (t) => PromiseCtor.resolve().then(() => t()).then((v) => ({ ok: true, v }), (e) => ({ ok: false, e }));
    const settled = await PromiseCtor.all(list.map(run));
    const dropped = { n: 0 };
    const out = settled.map((r, i) => slotValue("parallel", r, i, dropped));
    saidDropped("parallel", dropped);
    return copy(out);
  };
  g.pipeline = async (items, ...stages) => {
    await afterTurn();
    if (!isArray(items)) throw reseal(new TypeErrorCtor("pipeline() expects an array as the first argument"));
    tooMany(items);
    const list = [...items];
    if (list.length === 0) return [];
    for (const s of stages) {
      if (typeof s !== "function") throw reseal(new TypeErrorCtor("pipeline() stages must be functions: pipeline(items, item => ..., result => ...)"));
    }
    // As Claude Code: every item is awaited (so no stage runs before the
    // caller's own synchronous code), and a null item (or a stage resolving
    // null) ends that item before the next stage runs; stage 1 starts in
    // item order. The failed items are said in the log once all have
    // settled, in order.
    const run = async (item, index) => {
      let prev = await item;
      for (const stage of stages) {
        if (prev === null) return null;
        prev = await stage(prev, item, index);
      }
      return prev;
    };
    const settled = await PromiseCtor.all(list.map((item, index) => run(item, index).then((v) => ({ ok: true, v }), (e) => ({ ok: false, e }))));
    const dropped = { n: 0 };
    const out = settled.map((r, i) => slotValue("pipeline", r, i, dropped));
    saidDropped("pipeline", dropped);
    return copy(out);
  };
  // As Claude Code's (host functions wrapped by its `q4e`): `log`,
  // `phase`, the timers, `console`'s and `budget`'s functions have no
  // prototype (`console.log.bind` is undefined there too); `console` is a
  // plain prototype-less object, `budget` a frozen one.
  const makeBudget = () => freeze({ __proto__: null, total, spent: bare(() => spent()), remaining: bare(() => remaining()) });
  g.budget = makeBudget();
  const consoleFn = (level, prefix) => bare({ f(...parts) { nativeLog(level, prefix + text(parts)); } }.f);
  g.console = {
    __proto__: null,
    log: consoleFn(0, ""), info: consoleFn(0, ""), debug: consoleFn(1, ""),
    error: consoleFn(3, "[error] "), warn: consoleFn(2, "[warn] "),
  };

  // Timers on a virtual clock: a timer fires once the script has nothing
  // else to run and no host call in flight, earliest due first, then in
  // the order they were set. Nothing waits real time, so replay matches.
  // The timers are a binary heap on (due, id), so a script with thousands
  // of timers pays log n per timer (a scan of every timer at each firing
  // made 4,000 sleeps cost 7 s of CPU). A cleared timer leaves the heap
  // when it comes up, or when cleared ones outnumber the set ones. Objects
  // without a prototype, never an array's methods or iterator: nothing a
  // script can replace.
  const live = create(null);
  let heap = create(null), heapSize = 0, liveCount = 0, nextTimer = 0, virtualNow = 0;
  const before = (a, b) => a.due < b.due || (a.due === b.due && a.id < b.id);
  const push = (t) => {
    let i = heapSize++;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!before(t, heap[up])) break;
      heap[i] = heap[up];
      i = up;
    }
    heap[i] = t;
  };
  const pop = () => {
    const top = heap[0], last = heap[--heapSize];
    delete heap[heapSize];
    if (heapSize > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        if (l >= heapSize) break;
        const c = r < heapSize && before(heap[r], heap[l]) ? r : l;
        if (!before(heap[c], last)) break;
        heap[i] = heap[c];
        i = c;
      }
      heap[i] = last;
    }
    return top;
  };
  // As Claude Code's: the delay is a number, a numeric string or else 0,
  // then as Bun and Node take it (below 1 or past 2^31 - 1 ms is 1 ms); the
  // callback is called with no arguments (extra ones are not passed on),
  // and one that is not a function does nothing when it comes due.
  g.setTimeout = (fn, ms) => {
    const n = typeof ms === "number" ? ms : typeof ms === "string" ? +ms || 0 : 0;
    const d = n >= 1 && n <= 2147483647 ? n : 1;
    const id = ++nextTimer;
    const t = { due: virtualNow + d, id, fn };
    dataProperty(live, id, t);
    liveCount++;
    push(t);
    return id;
  };
  bare(g.setTimeout);
  g.clearTimeout = (timer) => {
    const id = typeof timer === "number" ? timer : typeof timer === "string" ? +timer : NaN;
    if (live[id] === undefined) return;
    delete live[id];
    liveCount--;
    if (heapSize > 2 * liveCount + 64) {
      const old = heap, n = heapSize;
      heap = create(null);
      heapSize = 0;
      for (let i = 0; i < n; i++) if (live[old[i].id] === old[i]) push(old[i]);
    }
  };
  bare(g.clearTimeout);
  const fireNext = () => {
    while (heapSize > 0) {
      const t = pop();
      if (live[t.id] !== t) continue; // cleared
      delete live[t.id];
      liveCount--;
      if (t.due > virtualNow) virtualNow = t.due;
      if (typeof t.fn === "function") apply(t.fn, undefined, []);
      return true;
    }
    return false;
  };

  // Array sorting on the host's merge sort (`sort` in engine.rs): stable,
  // never a crash on an inconsistent comparator, about as few comparator
  // calls as V8. As ECMA-262's SortIndexedProperties: values sorted,
  // then the undefined ones, then the holes (deleted).
  const nativeSort = g.__hwf_sort;
  // A comparator that answers booleans (`(a, b) => a > b`, a common slip)
  // sorts in JavaScriptCore, which Claude Code runs: its merge takes the
  // right item first when `compare(right, left)` is `false` or negative.
  // The native sort stops at the first boolean (it returns null) and the
  // values are sorted again here, as JavaScriptCore's merge does: the
  // result is its result for any consistent comparator (V8 and the native
  // sort leave such an array as it was).
  const booleanSafeSort = (values, cmp) => {
    const sorted = nativeSort(values, cmp);
    if (sorted !== null) return sorted;
    const n = values.length;
    let src = [...values], dst = new Array(n);
    for (let width = 1; width < n; width *= 2) {
      for (let start = 0; start < n; start += 2 * width) {
        let left = start, right = Math.min(start + width, n);
        const leftEnd = right, rightEnd = Math.min(right + width, n);
        for (let d = start; d < rightEnd; d++) {
          if (right < rightEnd) {
            if (left >= leftEnd) { dst[d] = src[right++]; continue; }
            const r = cmp(src[right], src[left]);
            if ((typeof r === "boolean" && !r) || r < 0) { dst[d] = src[right++]; continue; }
          }
          dst[d] = src[left++];
        }
      }
      const t = src; src = dst; dst = t;
    }
    return src;
  };
  const defaultCompare = (x, y) => { const a = StringCtor(x), b = StringCtor(y); return a < b ? -1 : a > b ? 1 : 0; };
  const comparator = (comparefn) => {
    if (comparefn === undefined) return defaultCompare;
    if (typeof comparefn !== "function") throw new TypeErrorCtor("The comparison function must be either a function or undefined");
    return comparefn;
  };
  const arrayMethod = (name, f) => defineProperty(Array.prototype, name, { value: f, writable: true, enumerable: false, configurable: true });
  arrayMethod("sort", { sort(comparefn) {
    const cmp = comparator(comparefn);
    if (this === undefined || this === null) throw new TypeErrorCtor("Cannot convert undefined or null to object");
    const o = Object(this), len = toLength(o.length);
    const values = [];
    let undefs = 0;
    for (let i = 0; i < len; i++) {
      if (i in o) { const v = o[i]; if (v === undefined) undefs++; else values.push(v); }
    }
    const sorted = booleanSafeSort(values, cmp);
    let k = 0;
    for (; k < sorted.length; k++) o[k] = sorted[k];
    for (let u = 0; u < undefs; u++, k++) o[k] = undefined;
    for (; k < len; k++) delete o[k];
    return o;
  } }.sort);
  arrayMethod("toSorted", { toSorted(comparefn) {
    const cmp = comparator(comparefn);
    if (this === undefined || this === null) throw new TypeErrorCtor("Cannot convert undefined or null to object");
    const o = Object(this), len = toLength(o.length);
    const values = [];
    let undefs = 0;
    for (let i = 0; i < len; i++) { const v = o[i]; if (v === undefined) undefs++; else values.push(v); }
    const sorted = booleanSafeSort(values, cmp);
    for (let u = 0; u < undefs; u++) sorted.push(undefined);
    return sorted;
  } }.toSorted);

  // `localeCompare` and `toLocaleString` as ICU (root collation, en-US and
  // a few locales' separators), in Rust (`collation.rs`,
  // `number_format.rs`, ported from the Boa runtime's patches); their
  // options are read here, with the same errors.
  const nativeCompare = g.__hwf_locale_compare, nativeFormat = g.__hwf_to_locale_string;
  const collatorFlags = g.__hwf_collator_flags, collate = g.__hwf_collate, bindFunction = Function.prototype.bind;
  // A (tag, options text) pair parsed once by the native, then numbers
  // formatted by its plan's number (-1: the native keeps no more plans).
  const planNumber = g.__hwf_number_plan, formatNumber = g.__hwf_format_number;
  const planned = (x, id, tag, json) => (id >= 0 ? formatNumber(x, id) : nativeFormat(x, tag, json));
  const RangeErrorCtor = RangeError, isObject = (v) => v !== null && (typeof v === "object" || typeof v === "function");
  const stringMethod = (name, f) => defineProperty(String.prototype, name, { value: f, writable: true, enumerable: false, configurable: true });
  stringMethod("localeCompare", nativeCompare);
  // `toLocaleUpperCase` / `toLocaleLowerCase` as ICU: Turkish and
  // Azerbaijani dotted and dotless i (`'i'` → `'İ'`, `'I'` → `'ı'`,
  // `'İ'` → `'i'`); any other locale cases as `toUpperCase` does.
  const nativeUpper = String.prototype.toUpperCase, nativeLower = String.prototype.toLowerCase;
  const casingLanguage = (locales) => {
    const tag = isObject(locales) ? locales[0] : locales;
    if (tag === undefined) return "";
    return canonicalLocale(tag).split("-")[0];
  };
  const receiverText = (self, name) => {
    if (self === null || self === undefined) throw new TypeErrorCtor(`String.prototype.${name} called on null or undefined`);
    return StringCtor(self);
  };
  stringMethod("toLocaleUpperCase", { toLocaleUpperCase(...args) {
    const text = receiverText(this, "toLocaleUpperCase");
    const language = casingLanguage(args[0]);
    if (language === "tr" || language === "az") return nativeUpper.call(text.replace(/i/g, "\u0130"));
    return nativeUpper.call(text);
  } }.toLocaleUpperCase);
  stringMethod("toLocaleLowerCase", { toLocaleLowerCase(...args) {
    const text = receiverText(this, "toLocaleLowerCase");
    const language = casingLanguage(args[0]);
    if (language === "tr" || language === "az") return nativeLower.call(text.replace(/\u0130|I\u0307?/g, (m) => (m === "I" ? "\u0131" : "i")));
    return nativeLower.call(text);
  } }.toLocaleLowerCase);
  // Which API an option's error names, as V8 (`Value bogus out of range
  // for Number.prototype.toLocaleString options property style`).
  let numberOwner = "Number.prototype.toLocaleString";
  // `style: "unit"`: ICU's English forms (Node 20) of ECMA-402's units,
  // each `short one|short other|narrow one|narrow other|long one|long
  // other|short per|narrow per` (the last two as the unit of a compound
  // `X-per-Y`: `kB/s`). Other languages have `UNIT_LOCAL` (below); a
  // unit it lacks is refused rather than written in English.
  const UNIT_FORMS = {
    acre: " ac| ac|ac|ac| acre| acres|/ac|/ac",
    bit: " bit| bit|bit|bit| bit| bits|/bit|/bit",
    byte: " byte| byte|B|B| byte| bytes|/byte|/B",
    celsius: "°C|°C|°C|°C| degree Celsius| degrees Celsius|/°C|/°C",
    centimeter: " cm| cm|cm|cm| centimeter| centimeters|/cm|/cm",
    day: " day| days|d|d| day| days|/d|/d",
    degree: " deg| deg|°|°| degree| degrees|/deg|/°",
    fahrenheit: "°F|°F|°|°| degree Fahrenheit| degrees Fahrenheit|/°F|/°",
    "fluid-ounce": " fl oz| fl oz|fl oz|fl oz| fluid ounce| fluid ounces|/fl oz|/fl oz",
    foot: " ft| ft|′|′| foot| feet|/ft|/ft",
    gallon: " gal| gal|gal|gal| gallon| gallons|/gal US|/gal",
    gigabit: " Gb| Gb|Gb|Gb| gigabit| gigabits|/Gb|/Gb",
    gigabyte: " GB| GB|GB|GB| gigabyte| gigabytes|/GB|/GB",
    gram: " g| g|g|g| gram| grams|/g|/g",
    hectare: " ha| ha|ha|ha| hectare| hectares|/ha|/ha",
    hour: " hr| hr|h|h| hour| hours|/h|/h",
    inch: " in| in|″|″| inch| inches|/in|/in",
    kilobit: " kb| kb|kb|kb| kilobit| kilobits|/kb|/kb",
    kilobyte: " kB| kB|kB|kB| kilobyte| kilobytes|/kB|/kB",
    kilogram: " kg| kg|kg|kg| kilogram| kilograms|/kg|/kg",
    kilometer: " km| km|km|km| kilometer| kilometers|/km|/km",
    liter: " L| L|L|L| liter| liters|/L|/L",
    megabit: " Mb| Mb|Mb|Mb| megabit| megabits|/Mb|/Mb",
    megabyte: " MB| MB|MB|MB| megabyte| megabytes|/MB|/MB",
    meter: " m| m|m|m| meter| meters|/m|/m",
    microsecond: " μs| μs|μs|μs| microsecond| microseconds|/μs|/μs",
    mile: " mi| mi|mi|mi| mile| miles|/mi|/mi",
    "mile-scandinavian": " smi| smi|smi|smi| mile-scandinavian| miles-scandinavian|/smi|/smi",
    milliliter: " mL| mL|mL|mL| milliliter| milliliters|/mL|/mL",
    millimeter: " mm| mm|mm|mm| millimeter| millimeters|/mm|/mm",
    millisecond: " ms| ms|ms|ms| millisecond| milliseconds|/ms|/ms",
    minute: " min| min|m|m| minute| minutes|/min|/min",
    month: " mth| mths|m|m| month| months|/m|/m",
    nanosecond: " ns| ns|ns|ns| nanosecond| nanoseconds|/ns|/ns",
    ounce: " oz| oz|oz|oz| ounce| ounces|/oz|/oz",
    percent: "%|%|%|%| percent| percent|/%|/%",
    petabyte: " PB| PB|PB|PB| petabyte| petabytes|/PB|/PB",
    pound: " lb| lb|#|#| pound| pounds|/lb|/lb",
    second: " sec| sec|s|s| second| seconds|/s|/s",
    stone: " st| st|st|st| stone| stones|/st|/st",
    terabit: " Tb| Tb|Tb|Tb| terabit| terabits|/Tb|/Tb",
    terabyte: " TB| TB|TB|TB| terabyte| terabytes|/TB|/TB",
    week: " wk| wks|w|w| week| weeks|/w|/w",
    yard: " yd| yd|yd|yd| yard| yards|/yd|/yd",
    year: " yr| yrs|y|y| year| years|/y|/y",
  };
  // Other languages' forms of the simple units (ICU's, Node 20): per
  // language its plural categories and, per unit, `short~narrow~long`,
  // each one pattern or one per category (`{0} Stunde|{0} Stunden`).
  const UNIT_LOCAL = {
    de: { cats: ["one", "other"], forms: { byte: "{0} Byte|{0} Byte~{0} B~{0} Byte|{0} Byte", kilobyte: "{0} kB~{0} kB~{0} Kilobyte|{0} Kilobyte", megabyte: "{0} MB~{0} MB~{0} Megabyte|{0} Megabyte", gigabyte: "{0} GB~{0} GB~{0} Gigabyte|{0} Gigabyte", terabyte: "{0} TB~{0} TB~{0} Terabyte|{0} Terabyte", petabyte: "{0} PB~{0} PB~{0} Petabyte", bit: "{0} Bit|{0} Bit~{0} b~{0} Bit|{0} Bit", kilobit: "{0} kb~{0} kb~{0} Kilobit|{0} Kilobit", megabit: "{0} Mb~{0} Mb~{0} Megabit|{0} Megabit", gigabit: "{0} Gb~{0} Gb~{0} Gigabit|{0} Gigabit", millisecond: "{0} ms~{0}ms|{0} ms~{0} Millisekunde|{0} Millisekunden", second: "{0} Sek.~{0} Sek.~{0} Sekunde|{0} Sekunden", minute: "{0} Min.~{0} Min.~{0} Minute|{0} Minuten", hour: "{0} Std.~{0}h~{0} Stunde|{0} Stunden", day: "{0} Tg.~{0} T~{0} Tag|{0} Tage", week: "{0} Wo.~{0} W~{0} Woche|{0} Wochen", month: "{0} Mon.~{0} M~{0} Monat|{0} Monate", year: "{0} J~{0} J~{0} Jahr|{0} Jahre", percent: "{0} %~{0} %~{0} Prozent" } },
    fr: { cats: ["many", "one", "other"], forms: { byte: "{0} o~{0}o~{0} octets|{0} octet|{0} octets", kilobyte: "{0} ko~{0}ko~{0} kilooctets|{0} kilooctet|{0} kilooctets", megabyte: "{0} Mo~{0}Mo~{0} mégaoctets|{0} mégaoctet|{0} mégaoctets", gigabyte: "{0} Go~{0}Go~{0} gigaoctets|{0} gigaoctet|{0} gigaoctets", terabyte: "{0} To~{0}To~{0} téraoctets|{0} téraoctet|{0} téraoctets", petabyte: "{0} Po~{0}Po~{0} pétaoctets|{0} pétaoctet|{0} pétaoctets", bit: "{0} bit~{0}bit~{0} bits|{0} bit|{0} bits", kilobit: "{0} kbit~{0}kbit~{0} kilobits|{0} kilobit|{0} kilobits", megabit: "{0} Mbit~{0}Mbit~{0} mégabits|{0} mégabit|{0} mégabits", gigabit: "{0} Gbit~{0}Gbit~{0} gigabits|{0} gigabit|{0} gigabits", millisecond: "{0} ms~{0}ms~{0} millisecondes|{0} milliseconde|{0} millisecondes", second: "{0} s~{0}s~{0} secondes|{0} seconde|{0} secondes", minute: "{0} min~{0}min~{0} minutes|{0} minute|{0} minutes", hour: "{0} h~{0}h~{0} heures|{0} heure|{0} heures", day: "{0} j~{0}j~{0} jours|{0} jour|{0} jours", week: "{0} sem.~{0}sem.~{0} semaines|{0} semaine|{0} semaines", month: "{0} m.~{0}m.~{0} mois", year: "{0} ans|{0} an|{0} ans~{0}a~{0} ans|{0} an|{0} ans", percent: "{0} %~{0} %~{0} pour cent" } },
    es: { cats: ["many", "one", "other"], forms: { byte: "{0} B~{0}B~{0} bytes|{0} byte|{0} bytes", kilobyte: "{0} kB~{0}kB~{0} kilobytes|{0} kilobyte|{0} kilobytes", megabyte: "{0} MB~{0}MB~{0} megabytes|{0} megabyte|{0} megabytes", gigabyte: "{0} GB~{0}GB~{0} gigabytes|{0} gigabyte|{0} gigabytes", terabyte: "{0} TB~{0}TB~{0} terabytes|{0} terabyte|{0} terabytes", petabyte: "{0} PB~{0}PB~{0} petabytes|{0} petabyte|{0} petabytes", bit: "{0} b~{0}b~{0} bits|{0} bit|{0} bits", kilobit: "{0} kb~{0}kb~{0} kilobits|{0} kilobit|{0} kilobits", megabit: "{0} Mb~{0}Mb~{0} megabits|{0} megabit|{0} megabits", gigabit: "{0} Gb~{0}Gb~{0} gigabits|{0} gigabit|{0} gigabits", millisecond: "{0} ms~{0}ms~{0} milisegundos|{0} milisegundo|{0} milisegundos", second: "{0} s~{0}s~{0} segundos|{0} segundo|{0} segundos", minute: "{0} min~{0}min~{0} minutos|{0} minuto|{0} minutos", hour: "{0} h~{0}h~{0} horas|{0} hora|{0} horas", day: "{0} d~{0}d~{0} días|{0} día|{0} días", week: "{0} sem.~{0}sem~{0} semanas|{0} semana|{0} semanas", month: "{0} m.~{0}m~{0} meses|{0} mes|{0} meses", year: "{0} a~{0}a~{0} años|{0} año|{0} años", percent: "{0} %~{0} %~{0} por ciento" } },
    it: { cats: ["many", "one", "other"], forms: { byte: "{0} byte~{0}B~{0} byte", kilobyte: "{0} kB~{0}kB~{0} kilobyte", megabyte: "{0} MB~{0}MB~{0} megabyte", gigabyte: "{0} GB~{0}GB~{0} gigabyte", terabyte: "{0} TB~{0}TB~{0} terabyte", petabyte: "{0} PB~{0}PB~{0} petabyte", bit: "{0} bit~{0}bit~{0} bit", kilobit: "{0} kb~{0}kb~{0} kilobit", megabit: "{0} Mb~{0}Mb~{0} megabit", gigabit: "{0} Gb~{0}Gb~{0} gigabit", millisecond: "{0} ms~{0}ms~{0} millisecondi|{0} millisecondo|{0} millisecondi", second: "{0} s~{0}s~{0} secondi|{0} secondo|{0} secondi", minute: "{0} min~{0}min~{0} minuti|{0} minuto|{0} minuti", hour: "{0} h~{0}h~{0} ore|{0} ora|{0} ore", day: "{0} giorni|{0} giorno|{0} giorni~{0}gg|{0}g|{0}gg~{0} giorni|{0} giorno|{0} giorni", week: "{0} sett.~{0}sett.~{0} settimane|{0} settimana|{0} settimane", month: "{0} mesi|{0} mese|{0} mesi~{0} mesi|{0} mese|{0} mesi~{0} mesi|{0} mese|{0} mesi", year: "{0} anni|{0} anno|{0} anni~{0}anni|{0}anno|{0}anni~{0} anni|{0} anno|{0} anni", percent: "{0}%~{0}%~{0} percento" } },
    pt: { cats: ["many", "one", "other"], forms: { byte: "{0} bytes~{0} B~{0} bytes|{0} byte|{0} bytes", kilobyte: "{0} kB~{0} kB~{0} kilobytes|{0} kilobyte|{0} kilobytes", megabyte: "{0} MB~{0} MB~{0} megabytes|{0} megabyte|{0} megabytes", gigabyte: "{0} GB~{0} GB~{0} gigabytes|{0} gigabyte|{0} gigabytes", terabyte: "{0} TB~{0} TB~{0} terabytes|{0} terabyte|{0} terabytes", petabyte: "{0} PB~{0} PB~{0} petabytes|{0} petabyte|{0} petabytes", bit: "{0} bits~{0} bits|{0} bit|{0} bits~{0} bits|{0} bit|{0} bits", kilobit: "{0} kb~{0} kb~{0} kilobits|{0} kilobit|{0} kilobits", megabit: "{0} Mb~{0} Mb~{0} megabits|{0} megabit|{0} megabits", gigabit: "{0} Gb~{0} Gb~{0} gigabits|{0} gigabit|{0} gigabits", millisecond: "{0} ms~{0} ms~{0} milissegundos|{0} milissegundo|{0} milissegundos", second: "{0} s~{0} s~{0} segundos|{0} segundo|{0} segundos", minute: "{0} min~{0} min~{0} minutos|{0} minuto|{0} minutos", hour: "{0} h~{0} h~{0} horas|{0} hora|{0} horas", day: "{0} dias|{0} dia|{0} dias~{0} dias|{0} dia|{0} dias~{0} dias|{0} dia|{0} dias", week: "{0} sem.~{0} sem.~{0} semanas|{0} semana|{0} semanas", month: "{0} meses|{0} mês|{0} meses~{0} meses|{0} mês|{0} meses~{0} meses|{0} mês|{0} meses", year: "{0} anos|{0} ano|{0} anos~{0} anos|{0} ano|{0} anos~{0} anos|{0} ano|{0} anos", percent: "{0}%~{0}%~{0} por cento" } },
    "pt-PT": { cats: ["many", "one", "other"], forms: { byte: "{0} byte~{0} B~{0} bytes|{0} byte|{0} bytes", kilobyte: "{0} kB~{0} kB~{0} kilobytes|{0} kilobyte|{0} kilobytes", megabyte: "{0} MB~{0} MB~{0} megabytes|{0} megabyte|{0} megabytes", gigabyte: "{0} GB~{0} GB~{0} gigabytes|{0} gigabyte|{0} gigabytes", terabyte: "{0} TB~{0} TB~{0} terabytes|{0} terabyte|{0} terabytes", petabyte: "{0} PB~{0} PB~{0} petabytes|{0} petabyte|{0} petabytes", bit: "{0} bit~{0} bits|{0} bit|{0} bits~{0} bits|{0} bit|{0} bits", kilobit: "{0} kb~{0} kb~{0} kilobits|{0} kilobit|{0} kilobits", megabit: "{0} Mb~{0} Mb~{0} megabits|{0} megabit|{0} megabits", gigabit: "{0} Gb~{0} Gb~{0} gigabits|{0} gigabit|{0} gigabits", millisecond: "{0} ms~{0} ms~{0} milissegundos|{0} milissegundo|{0} milissegundos", second: "{0} s~{0} s~{0} segundos|{0} segundo|{0} segundos", minute: "{0} min~{0} min~{0} minutos|{0} minuto|{0} minutos", hour: "{0} h~{0} h~{0} horas|{0} hora|{0} horas", day: "{0} dias|{0} dia|{0} dias~{0} dias|{0} dia|{0} dias~{0} dias|{0} dia|{0} dias", week: "{0} sem.~{0} sem.~{0} semanas|{0} semana|{0} semanas", month: "{0} meses|{0} mês|{0} meses~{0} meses|{0} mês|{0} meses~{0} meses|{0} mês|{0} meses", year: "{0} anos|{0} ano|{0} anos~{0} anos|{0} ano|{0} anos~{0} anos|{0} ano|{0} anos", percent: "{0}%~{0}%~{0} por cento" } },
    nl: { cats: ["one", "other"], forms: { byte: "{0} byte~{0} byte~{0} byte", kilobyte: "{0} kB~{0} kB~{0} kilobyte", megabyte: "{0} MB~{0} MB~{0} megabyte", gigabyte: "{0} GB~{0} GB~{0} gigabyte", terabyte: "{0} TB~{0} TB~{0} terabyte", petabyte: "{0} PB~{0} PB~{0} petabyte", bit: "{0} bit|{0} bits~{0} bit|{0} bits~{0} bit|{0} bits", kilobit: "{0} kb~{0} kb~{0} kilobit|{0} kilobits", megabit: "{0} Mb~{0} Mb~{0} megabit|{0} megabits", gigabit: "{0} Gb~{0} Gb~{0} gigabit|{0} gigabits", millisecond: "{0} ms~{0} ms~{0} milliseconde|{0} milliseconden", second: "{0} sec~{0} s~{0} seconde|{0} seconden", minute: "{0} min~{0} m~{0} minuut|{0} minuten", hour: "{0} uur~{0} u~{0} uur", day: "{0} dag|{0} dagen~{0} d~{0} dag|{0} dagen", week: "{0} wk|{0} wkn~{0} w~{0} week|{0} weken", month: "{0} mnd~{0} m~{0} maand|{0} maanden", year: "{0} jr~{0} jr~{0} jaar", percent: "{0}%~{0}%~{0} procent" } },
    sv: { cats: ["one", "other"], forms: { byte: "{0} B~{0}B~{0} byte", kilobyte: "{0} kB~{0}kB~{0} kilobyte", megabyte: "{0} MB~{0}MB~{0} megabyte", gigabyte: "{0} GB~{0}GB~{0} gigabyte", terabyte: "{0} TB~{0}TB~{0} terabyte", petabyte: "{0} PB~{0}PB~{0} petabyte", bit: "{0} b~{0}b~{0} bit", kilobit: "{0} kb~{0}kb~{0} kilobit", megabit: "{0} Mb~{0}Mb~{0} megabit", gigabit: "{0} Gb~{0}Gb~{0} gigabit", millisecond: "{0} ms~{0}ms~{0} millisekund|{0} millisekunder", second: "{0} s~{0}s~{0} sekund|{0} sekunder", minute: "{0} min~{0}m~{0} minut|{0} minuter", hour: "{0} tim~{0}h~{0} timme|{0} timmar", day: "{0} d~{0}d~{0} dygn", week: "{0} v~{0}v~{0} vecka|{0} veckor", month: "{0} mån~{0}m~{0} månad|{0} månader", year: "{0} år~{0}å~{0} år", percent: "{0} %~{0} %~{0} procent" } },
    nb: { cats: ["one", "other"], forms: { byte: "{0} B~{0}B~{0} byte", kilobyte: "{0} kB~{0}kB~{0} kilobyte", megabyte: "{0} MB~{0}MB~{0} megabyte", gigabyte: "{0} GB~{0}GB~{0} gigabyte", terabyte: "{0} TB~{0}TB~{0} terabyte", petabyte: "{0} PB~{0}PB~{0} petabyte", bit: "{0} bit~{0}bit~{0} bit", kilobit: "{0} kb~{0}kb~{0} kilobit", megabit: "{0} Mb~{0}Mb~{0} megabit", gigabit: "{0} Gb~{0}Gb~{0} gigabit", millisecond: "{0} ms~{0}ms~{0} millisekund|{0} millisekunder", second: "{0} sek~{0}s~{0} sekund|{0} sekunder", minute: "{0} min~{0}m~{0} minutt|{0} minutter", hour: "{0} t~{0}t~{0} time|{0} timer", day: "{0} d~{0}d~{0} døgn", week: "{0} u~{0}u~{0} uke|{0} uker", month: "{0} md.~{0} m~{0} måned|{0} måneder", year: "{0} år~{0}å~{0} år", percent: "{0} %~{0} %~{0} prosent" } },
    tr: { cats: ["one", "other"], forms: { byte: "{0} bayt~{0} bayt~{0} bayt", kilobyte: "{0} kB~{0} kB~{0} kilobayt", megabyte: "{0} MB~{0} MB~{0} megabayt", gigabyte: "{0} GB~{0} GB~{0} gigabayt", terabyte: "{0} TB~{0} TB~{0} terabayt", petabyte: "{0} PB~{0} PB~{0} petabayt", bit: "{0} bit~{0} bit~{0} bit", kilobit: "{0} kb~{0} kb~{0} kilobit", megabit: "{0} Mb~{0} Mb~{0} megabit", gigabit: "{0} Gb~{0} Gb~{0} gigabit", millisecond: "{0} msn~{0}msn~{0} milisaniye", second: "{0} sn.~{0}sn~{0} saniye", minute: "{0} dk.~{0}d~{0} dakika", hour: "{0} sa.~{0} sa|{0}s~{0} saat", day: "{0} gün~{0}g~{0} gün", week: "{0} hf.~{0}h~{0} hafta", month: "{0} ay~{0}a~{0} ay", year: "{0} yıl~{0}y~{0} yıl", percent: "%{0}~%{0}~yüzde {0}" } },
    fi: { cats: ["one", "other"], forms: { byte: "{0} t~{0}t~{0} tavu|{0} tavua", kilobyte: "{0} kt~{0}kt~{0} kilotavu|{0} kilotavua", megabyte: "{0} Mt~{0}Mt~{0} megatavu|{0} megatavua", gigabyte: "{0} Gt~{0}Gt~{0} gigatavu|{0} gigatavua", terabyte: "{0} Tt~{0}Tt~{0} teratavu|{0} teratavua", petabyte: "{0} Pt~{0}Pt~{0} petatavu|{0} petatavua", bit: "{0} b~{0}b~{0} bitti|{0} bittiä", kilobit: "{0} kb~{0}kb~{0} kilobitti|{0} kilobittiä", megabit: "{0} Mb~{0}Mb~{0} megabitti|{0} megabittiä", gigabit: "{0} Gb~{0}Gb~{0} gigabitti|{0} gigabittiä", millisecond: "{0} ms~{0}ms~{0} millisekunti|{0} millisekuntia", second: "{0} s~{0}s~{0} sekunti|{0} sekuntia", minute: "{0} min~{0}min~{0} minuutti|{0} minuuttia", hour: "{0} t~{0}t~{0} tunti|{0} tuntia", day: "{0} pv~{0}pv~{0} päivä|{0} päivää", week: "{0} vk~{0}vk~{0} viikko|{0} viikkoa", month: "{0} kk~{0}kk~{0} kuukausi|{0} kuukautta", year: "{0} v~{0}v~{0} vuosi|{0} vuotta", percent: "{0} %~{0} %~{0} prosentti|{0} prosenttia" } },
    ru: { cats: ["few", "many", "one", "other"], forms: { byte: "{0} Б~{0} Б~{0} байта|{0} байт|{0} байт|{0} байта", kilobyte: "{0} кБ~{0} кБ~{0} килобайта|{0} килобайт|{0} килобайт|{0} килобайта", megabyte: "{0} МБ~{0} МБ~{0} мегабайта|{0} мегабайт|{0} мегабайт|{0} мегабайта", gigabyte: "{0} ГБ~{0} ГБ~{0} гигабайта|{0} гигабайт|{0} гигабайт|{0} гигабайта", terabyte: "{0} ТБ~{0} ТБ~{0} терабайта|{0} терабайт|{0} терабайт|{0} терабайта", petabyte: "{0} ПБ~{0} ПБ~{0} петабайта|{0} петабайт|{0} петабайт|{0} петабайта", bit: "{0} бита|{0} бит|{0} бит|{0} бита~{0} бита|{0} бит|{0} бит|{0} бита~{0} бита|{0} бит|{0} бит|{0} бита", kilobit: "{0} кбит~{0} кбит~{0} килобита|{0} килобит|{0} килобит|{0} килобита", megabit: "{0} Мбит~{0} Мбит~{0} мегабита|{0} мегабит|{0} мегабит|{0} мегабита", gigabit: "{0} Гбит~{0} Гбит~{0} гигабита|{0} гигабит|{0} гигабит|{0} гигабита", millisecond: "{0} мс~{0} мс~{0} миллисекунды|{0} миллисекунд|{0} миллисекунда|{0} миллисекунды", second: "{0} с~{0} с~{0} секунды|{0} секунд|{0} секунда|{0} секунды", minute: "{0} мин~{0} мин~{0} минуты|{0} минут|{0} минута|{0} минуты", hour: "{0} ч~{0} ч~{0} часа|{0} часов|{0} час|{0} часа", day: "{0} дн.~{0} д.~{0} дня|{0} дней|{0} день|{0} дня", week: "{0} нед.~{0} н.~{0} недели|{0} недель|{0} неделя|{0} недели", month: "{0} мес.~{0} м.~{0} месяца|{0} месяцев|{0} месяц|{0} месяца", year: "{0} г.|{0} л.|{0} г.|{0} г.~{0} г.|{0} л.|{0} г.|{0} г.~{0} года|{0} лет|{0} год|{0} года", percent: "{0} %~{0} %~{0} процента|{0} процентов|{0} процент|{0} процента" } },
    uk: { cats: ["few", "many", "one", "other"], forms: { byte: "{0} Б~{0}Б~{0} байти|{0} байтів|{0} байт|{0} байта", kilobyte: "{0} кБ~{0}кБ~{0} кілобайти|{0} кілобайтів|{0} кілобайт|{0} кілобайта", megabyte: "{0} МБ~{0}МБ~{0} мегабайти|{0} мегабайтів|{0} мегабайт|{0} мегабайта", gigabyte: "{0} ГБ~{0}ГБ~{0} гігабайти|{0} гігабайтів|{0} гігабайт|{0} гігабайта", terabyte: "{0} ТБ~{0}ТБ~{0} терабайти|{0} терабайтів|{0} терабайт|{0} терабайта", petabyte: "{0} ПБ~{0}ПБ~{0} петабайти|{0} петабайтів|{0} петабайт|{0} петабайта", bit: "{0} б~{0}б~{0} біти|{0} бітів|{0} біт|{0} біта", kilobit: "{0} кб~{0}кб~{0} кілобіти|{0} кілобітів|{0} кілобіт|{0} кілобіта", megabit: "{0} Мб~{0}Мб~{0} мегабіти|{0} мегабітів|{0} мегабіт|{0} мегабіта", gigabit: "{0} Гб~{0}Гб~{0} гігабіти|{0} гігабітів|{0} гігабіт|{0} гігабіта", millisecond: "{0} мс~{0}мс~{0} мілісекунди|{0} мілісекунд|{0} мілісекунда|{0} мілісекунди", second: "{0} с~{0}с~{0} секунди|{0} секунд|{0} секунда|{0} секунди", minute: "{0} хв~{0}х~{0} хвилини|{0} хвилин|{0} хвилина|{0} хвилини", hour: "{0} год~{0}г~{0} години|{0} годин|{0} година|{0} години", day: "{0} дн.~{0}д~{0} дні|{0} днів|{0} день|{0} дня", week: "{0} тиж.~{0}т~{0} тижні|{0} тижнів|{0} тиждень|{0} тижня", month: "{0} міс.~{0}м~{0} місяці|{0} місяців|{0} місяць|{0} місяця", year: "{0} р.~{0}р~{0} роки|{0} років|{0} рік|{0} року", percent: "{0}%~{0}%~{0} відсотки|{0} відсотків|{0} відсоток|{0} відсотка" } },
    pl: { cats: ["few", "many", "one", "other"], forms: { byte: "{0} B~{0} B~{0} bajty|{0} bajtów|{0} bajt|{0} bajta", kilobyte: "{0} kB~{0} kB~{0} kilobajty|{0} kilobajtów|{0} kilobajt|{0} kilobajta", megabyte: "{0} MB~{0} MB~{0} megabajty|{0} megabajtów|{0} megabajt|{0} megabajta", gigabyte: "{0} GB~{0} GB~{0} gigabajty|{0} gigabajtów|{0} gigabajt|{0} gigabajta", terabyte: "{0} TB~{0} TB~{0} terabajty|{0} terabajtów|{0} terabajt|{0} terabajta", petabyte: "{0} PB~{0} PB~{0} petabajty|{0} petabajtów|{0} petabajt|{0} petabajta", bit: "{0} b~{0} b~{0} bity|{0} bitów|{0} bit|{0} bita", kilobit: "{0} kb~{0} kb~{0} kilobity|{0} kilobitów|{0} kilobit|{0} kilobita", megabit: "{0} Mb~{0} Mb~{0} megabity|{0} megabitów|{0} megabit|{0} megabita", gigabit: "{0} Gb~{0} Gb~{0} gigabity|{0} gigabitów|{0} gigabit|{0} gigabita", millisecond: "{0} ms~{0} ms~{0} milisekundy|{0} milisekund|{0} milisekunda|{0} milisekundy", second: "{0} sek.~{0} s~{0} sekundy|{0} sekund|{0} sekunda|{0} sekundy", minute: "{0} min~{0} min~{0} minuty|{0} minut|{0} minuta|{0} minuty", hour: "{0} godz.~{0} h~{0} godziny|{0} godzin|{0} godzina|{0} godziny", day: "{0} dni|{0} dni|{0} dzień|{0} dnia~{0} d.~{0} dni|{0} dni|{0} dzień|{0} dnia", week: "{0} tyg.|{0} tyg.|{0} tydz.|{0} tyg.~{0} t.~{0} tygodnie|{0} tygodni|{0} tydzień|{0} tygodnia", month: "{0} mies.~{0} m-ce|{0} m-cy|{0} m-c|{0} m-ca~{0} miesiące|{0} miesięcy|{0} miesiąc|{0} miesiąca", year: "{0} lata|{0} lat|{0} rok|{0} roku~{0} l.|{0} l.|{0} r.|{0} r.~{0} lata|{0} lat|{0} rok|{0} roku", percent: "{0}%~{0}%~{0} procent" } },
    ja: { cats: ["other"], forms: { byte: "{0} byte~{0}B~{0} バイト", kilobyte: "{0} KB~{0}KB~{0} キロバイト", megabyte: "{0} MB~{0}MB~{0} メガバイト", gigabyte: "{0} GB~{0}GB~{0} ギガバイト", terabyte: "{0} TB~{0}TB~{0} テラバイト", petabyte: "{0} PB~{0}PB~{0} ペタバイト", bit: "{0} bit~{0}b~{0} ビット", kilobit: "{0} kb~{0}kb~{0} キロビット", megabit: "{0} Mb~{0}Mb~{0} メガビット", gigabit: "{0} Gb~{0}Gb~{0} ギガビット", millisecond: "{0} ms~{0}ms~{0} ミリ秒", second: "{0} 秒~{0}s~{0} 秒", minute: "{0} 分~{0}m~{0} 分", hour: "{0} 時間~{0}h~{0} 時間", day: "{0} 日~{0}d~{0} 日", week: "{0} 週間~{0}w~{0} 週間", month: "{0} か月~{0}m~{0} か月", year: "{0} 年~{0}y~{0} 年", percent: "{0}%~{0}%~{0} パーセント" } },
    zh: { cats: ["other"], forms: { byte: "{0} B~{0} B~{0}字节", kilobyte: "{0} kB~{0} kB~{0}千字节", megabyte: "{0} MB~{0} MB~{0}兆字节", gigabyte: "{0} GB~{0} GB~{0}吉字节", terabyte: "{0} TB~{0} TB~{0}太字节", petabyte: "{0} PB~{0} PB~{0}拍字节", bit: "{0} b~{0} b~{0}比特", kilobit: "{0} kb~{0} kb~{0}千比特", megabit: "{0} Mb~{0} Mb~{0}兆比特", gigabit: "{0} Gb~{0} Gb~{0}吉比特", millisecond: "{0}毫秒~{0}ms~{0}毫秒", second: "{0}秒~{0}秒~{0}秒钟", minute: "{0}分钟~{0}分钟~{0}分钟", hour: "{0}小时~{0}小时~{0}小时", day: "{0}天~{0}天~{0}天", week: "{0}周~{0}周~{0}周", month: "{0}个月~{0}个月~{0}个月", year: "{0}年~{0}年~{0}年", percent: "{0}%~{0}%~{0}%" } },
    ko: { cats: ["other"], forms: { byte: "{0}byte~{0}byte~{0}바이트", kilobyte: "{0}kB~{0}kB~{0}킬로바이트", megabyte: "{0}MB~{0}MB~{0}메가바이트", gigabyte: "{0}GB~{0}GB~{0}기가바이트", terabyte: "{0}TB~{0}TB~{0}테라바이트", petabyte: "{0}PB~{0}PB~{0}페타바이트", bit: "{0}bit~{0}bit~{0}비트", kilobit: "{0}kb~{0}kb~{0}킬로비트", megabit: "{0}Mb~{0}Mb~{0}메가비트", gigabit: "{0}Gb~{0}Gb~{0}기가비트", millisecond: "{0}ms~{0}ms~{0}밀리초", second: "{0}초~{0}초~{0}초", minute: "{0}분~{0}분~{0}분", hour: "{0}시간~{0}시간~{0}시간", day: "{0}일~{0}일~{0}일", week: "{0}주~{0}주~{0}주", month: "{0}개월~{0}개월~{0}개월", year: "{0}년~{0}년~{0}년", percent: "{0}%~{0}%~{0}%" } },
    id: { cats: ["other"], forms: { byte: "{0} byte~{0} B~{0} byte", kilobyte: "{0} kB~{0} kB~{0} kilobyte", megabyte: "{0} MB~{0} MB~{0} megabyte", gigabyte: "{0} GB~{0} GB~{0} gigabyte", terabyte: "{0} TB~{0} TB~{0} terabyte", petabyte: "{0} PB~{0} PB~{0} petabyte", bit: "{0} bit~{0} bit~{0} bit", kilobit: "{0} kb~{0} kb~{0} kilobit", megabit: "{0} Mb~{0} Mb~{0} megabit", gigabit: "{0} Gb~{0} Gb~{0} gigabit", millisecond: "{0} md~{0} md~{0} milidetik", second: "{0} dtk~{0} dtk~{0} detik", minute: "{0} mnt~{0} mnt~{0} menit", hour: "{0} j~{0} j~{0} jam", day: "{0} hr~{0} hr~{0} hari", week: "{0} mgg~{0} mgg~{0} minggu", month: "{0} bln~{0} bln~{0} bulan", year: "{0} thn~{0} thn~{0} tahun", percent: "{0}%~{0}%~{0} persen" } },
  };
  const UNIT_DISPLAYS = ["short", "narrow", "long"], hasOwn = Object.hasOwn;
  const CURRENCY_DIGITS_0 = ["AFN", "ALL", "BIF", "CLP", "COP", "DJF", "GNF", "HUF", "IDR", "IQD", "IRR", "ISK", "JPY", "KMF", "KPW", "KRW", "LAK", "LBP",
    "MGA", "MMK", "PKR", "PYG", "RWF", "SLL", "SOS", "SYP", "UGX", "VND", "VUV", "XAF", "XOF", "XPF", "YER"];
  const CURRENCY_DIGITS_3 = ["BHD", "JOD", "KWD", "LYD", "OMR", "TND"];
  const ROUNDING_INCREMENTS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000];
  const ROUNDING_MODES = ["ceil", "floor", "expand", "trunc", "halfCeil", "halfFloor", "halfExpand", "halfTrunc", "halfEven"];
  // The unit option's check: a sanctioned unit or `X-per-Y` of two.
  const checkUnit = (name) => {
    if (name === undefined) throw new TypeErrorCtor(`Invalid unit argument for ${numberOwner}() ''`);
    const [num, den, ...more] = name.split("-per-");
    if (more.length > 0 || !hasOwn(UNIT_FORMS, num) || (den !== undefined && !hasOwn(UNIT_FORMS, den))) {
      throw new RangeErrorCtor(`Invalid unit argument for ${numberOwner}() '${name}'`);
    }
    return name;
  };
  // The text after a number written `digits` (no sign): English's one form
  // for exactly `1`, ICU's own compounds (`mph`, `mpg`), `%` alone for a
  // percent per anything in the short forms, as ICU.
  const unitSuffix = (name, display, digits) => {
    const k = UNIT_DISPLAYS.indexOf(display), one = digits === "1" ? 0 : 1;
    const [num, den] = name.split("-per-");
    const forms = UNIT_FORMS[num].split("|");
    if (den === undefined) return forms[2 * k + one];
    if (k < 2 && (name === "mile-per-hour" || name === "mile-per-gallon")) return (k === 0 ? " " : "") + (den === "hour" ? "mph" : "mpg");
    if (k < 2 && num === "percent") return "%";
    const per = UNIT_FORMS[den].split("|");
    return forms[2 * k + one] + (k === 2 ? ` per${per[4]}` : per[6 + k]);
  };
  const numberFormat = (options) => {
    if (!isObject(options)) return { minFraction: 0, maxFraction: 3, minInteger: 1, grouping: "auto", percent: false, currency: null, unit: null, roundingMode: "halfExpand", trailingZeroDisplay: "auto", roundingIncrement: 1, roundingPriority: "auto" };
    const text = (name) => { const v = options[name]; return v === undefined ? undefined : `${v}`; };
    const digits = (name, low, high) => {
      const v = options[name];
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!(n >= low && n <= high)) throw new RangeErrorCtor(`${name} value is out of range.`);
      return Math.floor(n);
    };
    const style = text("style") ?? "decimal";
    // As V8: the style, then the currency code, the unit and its display
    // checked whatever the style, then what the style needs.
    if (!["decimal", "percent", "currency", "unit"].includes(style)) {
      throw new RangeErrorCtor(`Value ${style} out of range for ${numberOwner} options property style`);
    }
    let currency = null, unit = null, narrow = false;
    const code = text("currency");
    if (code !== undefined && !/^[A-Za-z]{3}$/.test(code)) throw new RangeErrorCtor(`Invalid currency code : ${code}`);
    const unitName = text("unit");
    if (unitName !== undefined) checkUnit(unitName);
    const unitDisplay = text("unitDisplay") ?? "short";
    if (!UNIT_DISPLAYS.includes(unitDisplay)) throw new RangeErrorCtor(`Value ${unitDisplay} out of range for ${numberOwner} options property unitDisplay`);
    if (style === "unit") {
      unit = { name: checkUnit(unitName), display: unitDisplay };
    } else if (style === "currency") {
      if (code === undefined) throw new TypeErrorCtor("Currency code is required with currency style.");
      currency = code.toUpperCase();
      narrow = text("currencyDisplay") === "narrowSymbol";
    }
    const percent = style === "percent";
    // ICU's currency digits (Node 20): none for yen, won, forint, …, three
    // for the dinars of Bahrain, Jordan, Kuwait, Libya, Tunisia and Oman's rial.
    const defaultFraction = currency === null ? 0 : CURRENCY_DIGITS_0.includes(currency) ? 0 : CURRENCY_DIGITS_3.includes(currency) ? 3 : 2;
    const minInteger = digits("minimumIntegerDigits", 1, 21) ?? 1;
    const min = digits("minimumFractionDigits", 0, 100), max = digits("maximumFractionDigits", 0, 100);
    // `roundingIncrement` (1, 2, 5, 10, 20, 25, 50, … 5000): the fraction
    // digits default to the minimum's default, and must be equal.
    let roundingIncrement = 1;
    if (options.roundingIncrement !== undefined) {
      const n = Math.floor(NumberCtor(options.roundingIncrement));
      if (!(n >= 1 && n <= 5000) || !ROUNDING_INCREMENTS.includes(n)) throw new RangeErrorCtor("roundingIncrement value is out of range.");
      roundingIncrement = n;
    }
    const defaultMax = roundingIncrement !== 1 ? defaultFraction : percent ? 0 : currency !== null ? defaultFraction : 3;
    let minFraction, maxFraction;
    if (min !== undefined && max !== undefined) {
      if (min > max) throw new RangeErrorCtor("maximumFractionDigits value is out of range.");
      minFraction = min; maxFraction = max;
    } else if (min !== undefined) { minFraction = min; maxFraction = Math.max(min, defaultMax); }
    else if (max !== undefined) { minFraction = Math.min(defaultFraction, max); maxFraction = max; }
    else { minFraction = defaultFraction; maxFraction = defaultMax; }
    if (roundingIncrement !== 1) {
      if (options.minimumSignificantDigits !== undefined || options.maximumSignificantDigits !== undefined || text("notation") === "compact") {
        throw new TypeErrorCtor("RoundingType is not fractionDigits");
      }
      if (minFraction !== maxFraction) throw new RangeErrorCtor("maximumFractionDigits not equal to minimumFractionDigits");
    }
    // `useGrouping` as ECMA-402 reads it: `true` is `"always"`, a falsy
    // value `false`, `"true"` / `"false"` the default (`"min2"` for
    // compact notation, else `"auto"`).
    const defaultGrouping = text("notation") === "compact" ? "min2" : "auto";
    let grouping = options.useGrouping;
    if (grouping === undefined) grouping = defaultGrouping;
    else if (grouping === true) grouping = "always";
    else if (!grouping) grouping = false;
    else {
      grouping = StringCtor(grouping);
      if (grouping === "true" || grouping === "false") grouping = defaultGrouping;
      else if (!["min2", "auto", "always"].includes(grouping)) throw new RangeErrorCtor(`Value ${grouping} out of range for ${numberOwner} options property useGrouping`);
    }
    const roundingMode = text("roundingMode") ?? "halfExpand";
    if (!ROUNDING_MODES.includes(roundingMode)) throw new RangeErrorCtor(`Value ${roundingMode} out of range for ${numberOwner} options property roundingMode`);
    const roundingPriority = text("roundingPriority") ?? "auto";
    if (!["auto", "morePrecision", "lessPrecision"].includes(roundingPriority)) {
      throw new RangeErrorCtor(`Value ${roundingPriority} out of range for SetNumberFormatDigitOptions options property roundingPriority`);
    }
    const trailingZeroDisplay = text("trailingZeroDisplay") ?? "auto";
    if (trailingZeroDisplay !== "auto" && trailingZeroDisplay !== "stripIfInteger") {
      throw new RangeErrorCtor(`Value ${trailingZeroDisplay} out of range for ${numberOwner} options property trailingZeroDisplay`);
    }
    return { minFraction, maxFraction, minInteger, grouping, percent, currency, narrow, unit, roundingMode, trailingZeroDisplay, roundingIncrement, roundingPriority };
  };
  const NumberCtor = Number, numberValueOf = Number.prototype.valueOf;
  // `signDisplay` and `currencySign: "accounting"` as ICU: the sign (or
  // English's parentheses) around the magnitude's text, decided on the
  // rounded value (`exceptZero` and `negative` leave a zero unsigned).
  const SIGN_DISPLAYS = ["auto", "always", "exceptZero", "never", "negative"];
  // ICU's English plural currency names (the form every amount with
  // fraction digits takes; yen and won do not change).
  const CURRENCY_NAMES = {
    USD: "US dollars", EUR: "euros", GBP: "British pounds", JPY: "Japanese yen", CAD: "Canadian dollars", AUD: "Australian dollars",
    CHF: "Swiss francs", INR: "Indian rupees", CNY: "Chinese yuan", MXN: "Mexican pesos", BRL: "Brazilian reals", KRW: "South Korean won",
    SEK: "Swedish kronor", NOK: "Norwegian kroner", DKK: "Danish kroner", NZD: "New Zealand dollars", SGD: "Singapore dollars", HKD: "Hong Kong dollars",
    PLN: "Polish zlotys", RUB: "Russian rubles", TWD: "New Taiwan dollars", CZK: "Czech korunas", TRY: "Turkish Lira", ZAR: "South African rand",
    ILS: "Israeli new shekels", THB: "Thai baht", PHP: "Philippine pesos", IDR: "Indonesian rupiahs", AED: "UAE dirhams", SAR: "Saudi riyals",
    ARS: "Argentine pesos", CLP: "Chilean pesos", COP: "Colombian pesos", EGP: "Egyptian pounds", NGN: "Nigerian nairas", VND: "Vietnamese dong",
    HUF: "Hungarian forints", MYR: "Malaysian ringgits",
  };
  const signed = (x, locales, options) => {
    const display = options.signDisplay === undefined ? "auto" : StringCtor(options.signDisplay);
    if (!SIGN_DISPLAYS.includes(display)) throw new RangeErrorCtor(`Value ${display} out of range for ${numberOwner} options property signDisplay`);
    const accounting = options.currencySign !== undefined && StringCtor(options.currencySign) === "accounting";
    if (options.currencySign !== undefined && !accounting && StringCtor(options.currencySign) !== "standard") {
      throw new RangeErrorCtor(`Value ${StringCtor(options.currencySign)} out of range for ${numberOwner} options property currencySign`);
    }
    if (display === "auto" && !accounting) return null;
    const negative = x < 0 || (x === 0 && 1 / x < 0);
    const text = localeNumber(x !== x ? x : Math.abs(x), locales, options);
    const zero = NumberCtor.isFinite(x) && !/[1-9]/.test(text);
    const tag = isObject(locales) ? locales[0] : locales;
    const language = tag === undefined ? "en" : nativeLower.call(StringCtor(tag).split(/[-_]/)[0]);
    const parens = accounting && options.style !== undefined && StringCtor(options.style) === "currency" && (language === "en" || language === "ja" || language === "fr" || language === "nl");
    let sign = "";
    if (x !== x) sign = display === "always" ? "+" : "";
    else if (display === "auto") sign = negative ? "-" : "";
    else if (display === "always") sign = negative ? "-" : "+";
    else if (display === "exceptZero") sign = zero ? "" : negative ? "-" : "+";
    else if (display === "negative") sign = negative && !zero ? "-" : "";
    if (sign === "-" && parens) return `(${text})`;
    // The locale's minus (Swedish's U+2212), after Dutch's currency.
    if (sign === "-") sign = nativeFormat(-1, tag === undefined ? "" : StringCtor(tag), "{}")[0];
    const afterSymbol = language === "nl" && options.style !== undefined && StringCtor(options.style) === "currency" ? /^([^\d\u00a0]+\u00a0)(.*)$/.exec(text) : null;
    if (afterSymbol !== null) return afterSymbol[1] + sign + afterSymbol[2];
    return sign + text;
  };
  // The default options as the native reads them (`x.toLocaleString()`
  // and `x.toLocaleString("de")` go straight to it).
  const DEFAULT_NUMBER = stringify(numberFormat(undefined)), DEFAULT_PLAN = planNumber("", DEFAULT_NUMBER);
  // Locale tags (strings) already checked, with their default format's
  // plan: checking one is pure, so a tag seen before is not parsed again
  // (bounded; cleared when full).
  const checkedTags = new MapCtor();
  const checkLocales = (locales) => {
    if (typeof locales !== "string") return void canonicalLocales(locales);
    let id = checkedTags.get(locales);
    if (id === undefined) {
      canonicalLocales(locales);
      id = planNumber(locales, DEFAULT_NUMBER);
      if (checkedTags.size >= 256) checkedTags.clear();
      checkedTags.set(locales, id);
    }
    return id;
  };
  // A list of several tags formats in the first one with data (ECMA-402's
  // lookup), as `resolvedOptions().locale` says: `["xx-YY", "de"]` is `de`.
  const firstAvailable = (locales) => (isArray(locales) && locales.length > 1 ? resolveLocale(locales, "NumberFormat") : locales);
  defineProperty(Number.prototype, "toLocaleString", { value: { toLocaleString(locales, options) {
    locales = firstAvailable(locales);
    let x = this;
    if (typeof x !== "number") {
      try { x = numberValueOf.call(this); } catch { throw new TypeErrorCtor("Number.prototype.toLocaleString requires that 'this' be a Number"); }
    }
    if (options === undefined) {
      // No options: the default format, in the tag's separators.
      if (locales === undefined) return DEFAULT_PLAN >= 0 ? formatNumber(x, DEFAULT_PLAN) : nativeFormat(x, "", DEFAULT_NUMBER);
      if (typeof locales === "string") return planned(x, checkLocales(locales), locales, DEFAULT_NUMBER);
    }
    if (locales !== undefined) checkLocales(locales); // V8's errors for a malformed tag
    if (isObject(options) && (options.signDisplay !== undefined || options.currencySign !== undefined)) {
      localeNumber(0, locales, options); // the options' errors first
      const text = signed(x, locales, options);
      if (text !== null) return text;
    }
    return localeNumber(x, locales, options);
  } }.toLocaleString, writable: true, enumerable: false, configurable: true });
  // Whether a number's magnitude rounds up past its last kept digit
  // `last`, by its first dropped digit `first` (`rest`: any later one is
  // non-zero), as ECMA-402's `roundingMode` says (`number_format.rs`'s
  // `Rounding` for fraction digits).
  const roundsUp = (mode, first, rest, last, negative) => {
    if (first === 0 && !rest) return false;
    if (mode === "ceil") return !negative;
    if (mode === "floor") return negative;
    if (mode === "expand") return true;
    if (mode === "trunc") return false;
    if (first !== 5 || rest) return first >= 5;
    if (mode === "halfCeil") return !negative;
    if (mode === "halfFloor") return negative;
    if (mode === "halfTrunc") return false;
    if (mode === "halfEven") return last % 2 === 1;
    return true;
  };
  // `v` (not 0) rounded to `digits` significant digits of its shortest
  // decimal: the digits and the exponent of the first.
  const roundSignificant = (v, digits, mode) => {
    const [m, e] = Math.abs(v).toExponential().split("e");
    let ds = m.replace(".", "").split("").map(NumberCtor), exp = NumberCtor(e);
    if (ds.length > digits) {
      const up = roundsUp(mode, ds[digits], ds.slice(digits + 1).some((d) => d !== 0), ds[digits - 1], v < 0);
      ds = ds.slice(0, digits);
      if (up) {
        let i = digits - 1;
        for (; i >= 0; i--) { ds[i]++; if (ds[i] < 10) break; ds[i] = 0; }
        if (i < 0) { ds.unshift(1); ds.pop(); exp++; }
      }
    }
    return { ds, exp };
  };
  // ICU's short compact suffixes for thousand, million, billion, trillion
  // (Node 20); English's (`K`, `M`, `B`, `T`) for any other tag.
  const COMPACT_SHORT = {
    de: [null, "\u00a0Mio.", "\u00a0Mrd.", "\u00a0Bio."],
    es: ["\u00a0mil", "\u00a0M", null, "\u00a0B"],
    it: ["K", "\u00a0Mln", "\u00a0Mld", "\u00a0Bln"],
    nl: ["K", "\u00a0mln.", "\u00a0mld.", "\u00a0bln."],
    pt: ["\u00a0mil", "\u00a0mi", "\u00a0bi", "\u00a0tri"],
    "pt-PT": ["\u00a0mil", "\u00a0M", "\u00a0mM", "\u00a0Bi"],
    id: ["\u00a0rb", "\u00a0jt", "\u00a0M", "\u00a0T"],
    tr: ["\u00a0B", "\u00a0Mn", "\u00a0Mr", "\u00a0Tn"],
    da: ["\u00a0t", "\u00a0mio.", "\u00a0mia.", "\u00a0bio."],
    fr: ["\u00a0k", "\u00a0M", "\u00a0Md", "\u00a0Bn"],
    ru: ["\u00a0тыс.", "\u00a0млн", "\u00a0млрд", "\u00a0трлн"],
    uk: ["\u00a0тис.", "\u00a0млн", "\u00a0млрд", "\u00a0трлн"],
    pl: ["\u00a0tys.", "\u00a0mln", "\u00a0mld", "\u00a0bln"],
    cs: ["\u00a0tis.", "\u00a0mil.", "\u00a0mld.", "\u00a0bil."],
    sv: ["\u00a0tn", "\u00a0mn", "\u00a0md", "\u00a0bn"],
    nb: ["k", "\u00a0mill.", "\u00a0mrd.", "\u00a0bill."],
    fi: ["\u00a0t.", "\u00a0milj.", "\u00a0mrd.", "\u00a0bilj."],
    "en-GB": ["k", "m", "bn", "tn"],
  };
  // ICU's compact forms by myriads in Japanese, Chinese and Korean (`1.2万`,
  // `123万`, `1億`; Korean's `1.2천` too) and by lakhs and crores in Indian
  // English (`12L`, `1.2Cr`, `1KCr`): [divisor, short form, long form],
  // largest first.
  const COMPACT_POWERS = {
    ja: [[1e12, "兆"], [1e8, "億"], [1e4, "万"]], zh: [[1e12, "万亿"], [1e8, "亿"], [1e4, "万"]],
    "zh-Hant": [[1e12, "兆"], [1e8, "億"], [1e4, "萬"]], ko: [[1e12, "조"], [1e8, "억"], [1e4, "만"], [1e3, "천"]],
    "en-IN": [[1e12, "LCr", " lakh crore"], [1e10, "KCr", " thousand crore"], [1e7, "Cr", " crore"], [1e5, "L", " lakh"], [1e3, "K", " thousand"]],
  };
  const compactPowers = (tag) => {
    if (tag === undefined) return undefined;
    const parts = StringCtor(tag).split(/[-_]/), lang = nativeLower.call(parts[0]);
    const rest = parts.slice(1).map((p) => nativeUpper.call(p));
    if (lang === "en") return rest.includes("IN") ? COMPACT_POWERS["en-IN"] : undefined;
    if (lang === "zh" && (rest.includes("HANT") || rest.includes("TW") || rest.includes("HK") || rest.includes("MO"))) return COMPACT_POWERS["zh-Hant"];
    return COMPACT_POWERS[lang];
  };
  // ICU's long compact forms (`compactDisplay: "long"`) of thousand,
  // million, billion, trillion by the plural category of the number shown
  // ([one, other]); English's for the other languages.
  const COMPACT_LONG = {
    de: [["Tausend"], ["Million", "Millionen"], ["Milliarde", "Milliarden"], ["Billion", "Billionen"]],
    es: [["mil"], ["millón", "millones"], ["mil millones"], ["billón", "billones"]],
    pt: [["mil"], ["milhão", "milhões"], ["bilhão", "bilhões"], ["trilhão", "trilhões"]],
    nl: [["duizend"], ["miljoen"], ["miljard"], ["biljoen"]],
    // French: `mille` for exactly a thousand, `1,5 millier`, `2 mille`.
    fr: [["millier", "mille"], ["million", "millions"], ["milliard", "milliards"], ["billion", "billions"]],
  };
  const compactForms = (tag) => {
    if (tag === undefined) return undefined;
    const parts = StringCtor(tag).split(/[-_]/), lang = nativeLower.call(parts[0]);
    const region = parts.length > 1 ? nativeUpper.call(parts[parts.length - 1]) : "";
    return COMPACT_SHORT[`${lang}-${region}`] ?? (lang === "en" ? undefined : COMPACT_SHORT[lang]);
  };
  // The pattern of a simple unit in a language of `UNIT_LOCAL` for a
  // number written `digits` (its plural category on the operands as
  // written); a RangeError for another language or a compound unit.
  const localUnitTable = (language) => {
    const parts = language.split(/[-_]/), lang = nativeLower.call(parts[0]);
    const key = lang === "pt" && parts.slice(1).some((p) => nativeUpper.call(p) === "PT") ? "pt-PT" : lang;
    return hasOwn(UNIT_LOCAL, key) ? [key, UNIT_LOCAL[key]] : null;
  };
  const localUnitCategory = (language, digits) => {
    const found = localUnitTable(language);
    if (found === null) return "other";
    const point = nativeFormat(1.5, language, "{}")[1];
    const plain = digits.split("").filter((c) => (c >= "0" && c <= "9") || c === point).join("").replace(point, ".");
    const [int = "", frac = ""] = plain.split(".");
    const n = NumberCtor(plain);
    return plain === "" || n !== n ? "other" : PLURALS[found[0]][0](n, NumberCtor(int), frac.length);
  };
  const localUnitPattern = (language, name, display, digits, category = localUnitCategory(language, digits)) => {
    let found = localUnitTable(language);
    // A region with its own forms (`fr-CA`: `1 h`, `1sem`) takes them from the generated table.
    const regional = patternLocale(language);
    if (regional !== null && regional.includes("-") && !hasOwn(UNIT_LOCAL, regional)) found = null;
    if (found === null || !hasOwn(found[1].forms, name)) {
      // The other units: ICU's forms generated into `date_patterns.js` (its `units`).
      const key = regional;
      const generated = key === null ? undefined : dpLocale(key);
      if (generated === undefined || !hasOwn(generated.units.forms, name)) throw new RangeErrorCtor(`hwf writes this unit in English only, not for the locale ${language}`);
      found = [key, generated.units];
    }
    const table = found[1];
    const forms = table.forms[name].split("~")[UNIT_DISPLAYS.indexOf(display)].split("|");
    return forms.length === 1 ? forms[0] : forms[Math.max(0, table.cats.indexOf(category))];
  };
  // CLDR's plural ranges (as ICU applies them, Node 20): the category of
  // `start–end` from the ends' categories.
  const rangeCategory = (key, start, end) => {
    if (["es", "sv", "nb", "fi", "pt-PT", "nl", "tr"].includes(key)) return "other";
    if ((key === "fr" || key === "pt") && end === "one" && start !== "one") return "other";
    if (key === "pl" && end === "one" && start === "few") return "few";
    return end;
  };
  function localeNumber(x, locales, options) {
    const tag = isObject(locales) ? locales[0] : locales;
    const language = tag === undefined ? "" : `${tag}`;
    const base = numberFormat(options);
    if (base.unit !== null) {
      // The number as a decimal, then the unit's English form.
      const digits = localeNumber(x, locales, { ...options, style: "decimal" });
      if (/^(en)?([-_]|$)/i.test(language)) return digits + unitSuffix(base.unit.name, base.unit.display, digits.replace(/^[-\u2212]/, ""));
      const bare = digits.replace(/^[-\u2212]/, "");
      const pattern = localUnitPattern(language, base.unit.name, base.unit.display, bare);
      // The sign before a symbol (Turkish `-%1`), after a word (`yüzde -1`).
      if (/^[\p{L}]/u.test(pattern)) return pattern.replace("{0}", digits);
      return digits.slice(0, digits.length - bare.length) + pattern.replace("{0}", bare);
    }
    if (isObject(options) && NumberCtor.isFinite(x)) {
      const display = options.currencyDisplay === undefined ? "symbol" : StringCtor(options.currencyDisplay);
      if (!["symbol", "narrowSymbol", "code", "name"].includes(display)) throw new RangeErrorCtor(`Value ${display} out of range for ${numberOwner} options property currencyDisplay`);
      // `currencyDisplay: "code"` (`EUR 1,249.50`, `5,00 EUR`) and, in
      // English, `"name"` (`1,249.50 US dollars`), as ICU.
      if (base.currency !== null && (display === "code" || display === "name")) {
        let digits = nativeFormat(Math.abs(x), language, stringify({ ...base, currency: null }));
        // Austria groups money with dots (`EUR 1.234,50`), other numbers with spaces.
        if (/^de[-_]AT\b/i.test(language)) digits = digits.replace(/\u00a0/g, ".");
        const minus = x < 0 || (x === 0 && 1 / x < 0) ? nativeFormat(-1, language, "{}")[0] : "";
        if (display === "name") {
          // The languages of `date_patterns.js` (its `money`): ICU's names by plural category (`5,00 Euro`).
          const key = /^en(-|$)/i.test(language) || language === "" ? null : patternLocale(language);
          const names = key === null ? undefined : dpLocale(key)?.money;
          if (names !== undefined && hasOwn(names, base.currency)) {
            const forms = names[base.currency];
            const pattern = typeof forms === "string" ? forms
              : forms[new PluralRules(language, { minimumFractionDigits: base.minFraction, maximumFractionDigits: base.maxFraction }).select(Math.abs(x))] ?? forms.other;
            return pattern.replace("{0}", minus + digits);
          }
          return `${minus}${digits} ${CURRENCY_NAMES[base.currency] ?? base.currency}`;
        }
        const prefix = !/^[0-9]/.test(nativeFormat(1, language, stringify(base)));
        if (/^nl\b/i.test(language)) return `${base.currency}\u00a0${minus}${digits}`;
        if (/^(de|it)[-_]CH\b/i.test(language)) return `${base.currency}${minus === "" ? "\u00a0" : minus}${digits}`;
        return prefix ? `${minus}${base.currency}\u00a0${digits}` : `${minus}${digits}\u00a0${base.currency}`;
      }
      // `notation: "scientific"` / `"engineering"` (`4.821E4`, `48.213E3`).
      const notation = options.notation === undefined ? "standard" : StringCtor(options.notation);
      if ((notation === "scientific" || notation === "engineering") && base.currency === null && !base.percent &&
        options.maximumSignificantDigits === undefined && options.minimumSignificantDigits === undefined) {
        const step = notation === "engineering" ? 3 : 1, limit = notation === "engineering" ? 1000 : 10;
        if (x === 0) return nativeFormat(x, language, stringify({ ...base, grouping: false })) + "E0";
        const [mant, ex] = Math.abs(x).toExponential().split("e");
        const e0 = NumberCtor(ex);
        let e = step * Math.floor(e0 / step);
        let m = NumberCtor(`${mant}e${e0 - e}`);
        if (NumberCtor(m.toFixed(base.maxFraction)) >= limit) { e += step; m = NumberCtor(`${mant}e${e0 - e}`); }
        return nativeFormat(x < 0 ? -m : m, language, stringify({ ...base, grouping: false })) + "E" + e;
      }
    }
    if (isObject(options) && !base.percent && NumberCtor.isFinite(x)) {
      const sig = (name) => {
        const v = options[name];
        if (v === undefined) return undefined;
        const n = NumberCtor(v);
        if (!(n >= 1 && n <= 21)) throw new RangeErrorCtor(`${name} value is out of range.`);
        return Math.floor(n);
      };
      const minSig = sig("minimumSignificantDigits"), maxSig = sig("maximumSignificantDigits");
      const notation = options.notation === undefined ? "standard" : StringCtor(options.notation);
      if (!["standard", "compact", "scientific", "engineering"].includes(notation)) {
        throw new RangeErrorCtor(`Value ${notation} out of range for ${numberOwner} options property notation`);
      }
      // `x` rounded to `digits` significant digits (half away from zero on
      // its shortest decimal, as ICU), written with `minDigits` at least.
      const significant = (v, digits, minDigits, grouping = base.grouping) => {
        if (v === 0) return nativeFormat(v, language, stringify({ ...base, grouping, minFraction: Math.max(0, minDigits - 1), maxFraction: Math.max(0, minDigits - 1) }));
        let { ds, exp } = roundSignificant(v, digits, base.roundingMode);
        while (ds.length > 1 && ds[ds.length - 1] === 0) ds.pop();
        const shown = Math.max(ds.length, minDigits);
        const fraction = Math.max(0, shown - 1 - exp);
        const value = (v < 0 ? -1 : 1) * NumberCtor(`${ds[0]}.${ds.slice(1).join("")}e${exp}`);
        return nativeFormat(value, language, stringify({ ...base, grouping, minFraction: fraction, maxFraction: fraction }));
      };
      if (notation === "compact") {
        // ICU's English short and long compact forms: 1.2K, 12K, 123K,
        // 1.2M … (two significant digits below 100, whole numbers above).
        const long = options.compactDisplay !== undefined && StringCtor(options.compactDisplay) === "long";
        // Other languages' short forms (`1,2 Mio.`, `12 k`); `null`: none
        // at that power (German's thousands stay `12.345`).
        if (base.currency !== null) {
          // Money: the compact number in the currency's pattern, the sign
          // first (`-€2.5B`, `1,2 Mio. €`, `-€ 2,5 mld.`, `€0`).
          const { style: _s, currency: _c, currencyDisplay: _d, currencySign: _g, ...plain } = options;
          const digits = localeNumber(Math.abs(x), locales, plain);
          const negative = x < 0 || (x === 0 && 1 / x < 0);
          // Swiss money keeps its own negative form (`EUR-15'300`).
          const swiss = negative && /^(de|it)[-_]CH\b/i.test(language);
          const template = nativeFormat(swiss ? -1 : 1, language, stringify({ ...base, minFraction: 0, maxFraction: 0 }));
          return (negative && !swiss ? "-" : "") + template.replace("1", digits);
        }
        const shortForms = compactForms(tag), powers = compactPowers(tag);
        const lang = tag === undefined ? "en" : nativeLower.call(StringCtor(tag).split(/[-_]/)[0]);
        const longForms = hasOwn(COMPACT_LONG, lang) ? COMPACT_LONG[lang] : null;
        const units = powers !== undefined ? [...powers.map(([u, short, word]) => [u, short, word ?? short]), [1, "", ""]]
          : [[1e12, "T", " trillion"], [1e9, "B", " billion"], [1e6, "M", " million"], [1e3, "K", " thousand"], [1, "", ""]]
            .map(([u, short, word], i) => [u, shortForms === undefined || i === 4 ? short : shortForms[3 - i], longForms === null || i === 4 ? word : longForms[3 - i]]);
        // A long form by the plural category of the number as written
        // (`1 Million`, `1,5 Millionen`, `1,5 milhão`).
        const longWord = (word, text) => {
          if (!isArray(word)) return word;
          const point = nativeFormat(1.5, language, "{}")[1];
          const plain = text.split("").filter((c) => (c >= "0" && c <= "9") || c === point).join("").replace(point, ".");
          const [int = "", frac = ""] = plain.split(".");
          const rule = PLURALS[lang]?.[0];
          return " " + word[word.length > 1 && rule !== undefined && rule(NumberCtor(plain), NumberCtor(int), frac.length) === "one" ? 0 : word.length - 1];
        };
        // French writes exactly a thousand `mille`, without the number.
        const compactText = (text, word, short) => !long ? text + short
          : lang === "fr" && text === "1" && isArray(word) && word[1] === "mille" ? "mille" : text + longWord(word, text);
        const defined = (i) => long || units[i][1] !== null;
        let k = units.findIndex(([u], i) => Math.abs(x) >= u && defined(i));
        if (k < 0) k = units.length - 1;
        // With fraction digits asked for, ICU rounds to them (12.5M with
        // `maximumFractionDigits: 1`) instead of to two significant digits.
        const byFraction = maxSig === undefined && minSig === undefined &&
          (options.maximumFractionDigits !== undefined || options.minimumFractionDigits !== undefined);
        // Rounding up to a higher power moves to its form (`1M`, not `1000K`).
        const up = (magnitude) => units.findIndex(([w], i) => i < k && magnitude >= w && defined(i));
        for (;;) {
          const [u, short, word] = units[k];
          const v = x / u;
          if (byFraction) {
            const text = nativeFormat(v, language, stringify(base));
            const shown = NumberCtor(Math.abs(v).toFixed(base.maxFraction));
            if (shown >= 1000 && up(shown * u) >= 0) { k = up(shown * u); continue; }
            return compactText(text, word, short);
          }
          const digits = maxSig ?? (Math.abs(v) >= 100 ? Math.floor(Math.log10(Math.abs(v))) + 1 : 2);
          const r = v === 0 ? null : roundSignificant(v, Math.max(1, digits), base.roundingMode);
          const rounded = r === null ? 0 : NumberCtor(`${r.ds[0]}.${r.ds.slice(1).join("")}e${r.exp}`);
          if (Math.abs(rounded) >= 1000 && up(Math.abs(rounded) * u) >= 0) { k = up(Math.abs(rounded) * u); continue; }
          const text = v === 0 ? (1 / v < 0 ? "-0" : "0") : significant(v, digits, minSig ?? 1);
          return compactText(text, word, short);
        }
      }
      if ((notation === "scientific" || notation === "engineering") && base.currency === null && (maxSig !== undefined || minSig !== undefined)) {
        // Scientific and engineering notation with significant digits
        // (`1.23E-4`, `123E3`, `5.00E0`): the mantissa rounded to them,
        // then moved to the exponent (a multiple of 3 for engineering).
        if (x === 0) return significant(x, maxSig ?? 21, minSig ?? 1, false) + "E0";
        const step = notation === "engineering" ? 3 : 1;
        const { ds, exp } = roundSignificant(x, maxSig ?? 21, base.roundingMode);
        const e = step * Math.floor(exp / step);
        const m = (x < 0 ? -1 : 1) * NumberCtor(`${ds[0]}.${ds.slice(1).join("")}e${exp - e}`);
        return significant(m, maxSig ?? 21, minSig ?? 1, false) + "E" + e;
      }
      if (base.roundingPriority !== "auto") {
        // `lessPrecision` / `morePrecision`: significant digits or
        // fraction digits, whichever rounds at the higher (lower) digit;
        // a tie goes to the significant digits for `morePrecision`.
        const p = maxSig ?? 21;
        const sMag = (x === 0 ? 0 : roundSignificant(x, p, base.roundingMode).exp) - p + 1, fMag = -base.maxFraction;
        const fixed = base.roundingPriority === "morePrecision" ? sMag > fMag : sMag <= fMag;
        return fixed ? nativeFormat(x, language, stringify(base)) : significant(x, p, minSig ?? 1);
      }
      if (maxSig !== undefined || minSig !== undefined) return significant(x, maxSig ?? 21, minSig ?? 1);
    }
    return nativeFormat(x, language, stringify(base));
  }

  // `Intl` without ICU's data (the runtime would grow by megabytes): the
  // two constructors scripts use for reports and sorting, on the
  // `toLocaleString` and `localeCompare` above (with `formatToParts`,
  // `formatRange` and `formatRangeToParts` cut from its text). Anything else
  // (`DateTimeFormat`, …) is absent rather than wrong.
  const toLocale = Number.prototype.toLocaleString;
  const localeOf = (locales) => {
    const tag = isArray(locales) ? locales[0] : locales;
    return tag === undefined ? "en-US" : StringCtor(tag);
  };
  // A formatter's options resolved once, when every number takes the
  // native's plain path (`localeNumber`'s last line): the tag, the
  // native's options and their plan. `null` for anything else (units, signs, notations,
  // significant digits, a currency's code or name, an option that is an
  // object, whose conversion runs again each time), formatted per call.
  const numberPlan = (locales, o) => {
    if (o !== undefined) {
      for (const k of keysOf(o)) { const v = o[k]; if (v !== null && (typeof v === "object" || typeof v === "function" || typeof v === "symbol")) return null; }
      if (o.signDisplay !== undefined || o.currencySign !== undefined || o.minimumSignificantDigits !== undefined || o.maximumSignificantDigits !== undefined) return null;
      if (o.notation !== undefined && `${o.notation}` !== "standard") return null;
      if (o.currencyDisplay !== undefined && `${o.currencyDisplay}` !== "symbol" && `${o.currencyDisplay}` !== "narrowSymbol") return null;
    }
    const base = numberFormat(o);
    if (base.unit !== null || base.roundingPriority !== "auto") return null;
    const tag = isObject(locales) ? locales[0] : locales;
    if (tag !== undefined && typeof tag !== "string") return null;
    const text = tag === undefined ? "" : tag, json = stringify(base);
    return { id: planNumber(text, json), tag: text, json };
  };
  class NumberFormat {
    #locales; #options; #format; #plan = null;
    constructor(locales, options) {
      canonicalLocales(locales); // V8's errors for a malformed tag
      locales = firstAvailable(locales);
      this.#locales = locales;
      this.#options = options === undefined ? undefined : { ...options };
      numberOwner = "Intl.NumberFormat";
      try {
        toLocale.call(0, locales, this.#options);
        this.#plan = numberPlan(locales, this.#options);
      } finally { numberOwner = "Number.prototype.toLocaleString"; }
    }
    // ECMA-402's `format` getter: a function bound to this formatter, the
    // same each time (`values.map(nf.format)`); a BigInt keeps its digits.
    // With a plan (above) a number goes straight to the native.
    get format() {
      if (this.#format === undefined) {
        const locales = this.#locales, options = this.#options, plan = this.#plan;
        const id = plan === null ? -1 : plan.id;
        this.#format = id >= 0
          ? (x) => (typeof x === "number" ? formatNumber(x, id) : typeof x === "bigint" ? bigintToLocale.call(x, locales, options) : formatNumber(NumberCtor(x), id))
          : plan !== null
          ? (x) => (typeof x === "bigint" ? bigintToLocale.call(x, locales, options) : nativeFormat(NumberCtor(x), plan.tag, plan.json))
          : (x) => (typeof x === "bigint" ? bigintToLocale.call(x, locales, options) : toLocale.call(NumberCtor(x), locales, options));
      }
      return this.#format;
    }
    formatToParts(x) { return numberParts(this.format(x), this.#locales, this.#options); }
    // ICU's number ranges (`3–5`, `$3.00 – $5.00`, `3–5 kB`, `~3`), as
    // `formatRangeToParts` below.
    formatRange(start, end) { return this.formatRangeToParts(start, end).map((p) => p.value).join(""); }
    formatRangeToParts(start, end) {
      const a = rangeEnd(start, "start"), b = rangeEnd(end, "end");
      const language = nativeLower.call(localeOf(this.#locales).split(/[-_]/)[0]);
      const pa = this.formatToParts(a), pb = this.formatToParts(b);
      const join = (ps) => ps.map((p) => p.value).join("");
      const tag = (ps, source) => ps.map((p) => ({ type: p.type, value: p.value, source }));
      if (join(pa) === join(pb) && (a < 0 || 1 / a < 0) === (b < 0 || 1 / b < 0)) {
        // Equal once rounded: the one number, approximately.
        const approx = { de: "\u2248", ru: "\u2248", fr: "\u2243", ja: "\u7d04" }[language] ?? "~";
        return tag([{ type: "approximatelySign", value: approx }, ...pa], "shared");
      }
      // ICU's modifiers: the unit (or a currency's name) after the number
      // is the outer one, always shared; the sign, the currency symbol,
      // `%` and the compact suffix are the middle one, shared when both
      // ends have the same and it is more than one character.
      const o = this.#options ?? {};
      const named = o.style !== undefined && StringCtor(o.style) === "currency" && o.currencyDisplay !== undefined && StringCtor(o.currencyDisplay) === "name";
      const isUnit = o.style !== undefined && StringCtor(o.style) === "unit";
      const split = (ps) => {
        let outer = [];
        const last = ps.length - 1;
        if ((isUnit && ps[last].type === "unit" && ps[last].value !== "%") || (named && ps[last].type === "currency")) {
          outer = ps[last - 1]?.type === "literal" ? ps.slice(last - 1) : ps.slice(last);
          ps = ps.slice(0, ps.length - outer.length);
        }
        const core = (p) => /^(integer|group|decimal|fraction|nan|infinity|exponent)/.test(p.type);
        const first = ps.findIndex(core);
        let end = ps.length;
        while (end > first && !core(ps[end - 1])) end--;
        return { pre: ps.slice(0, first), core: ps.slice(first, end), suf: ps.slice(end), outer };
      };
      const sa = split(pa), sb = split(pb);
      if (isUnit && sa.outer.length > 0 && language !== "en") {
        // Elsewhere CLDR's plural ranges pick the form (`2–1 Stunde`).
        const tagText = localeOf(this.#locales), base = numberFormat(o), found = localUnitTable(tagText);
        const category = rangeCategory(found[0], localUnitCategory(tagText, join(sa.core)), localUnitCategory(tagText, join(sb.core)));
        const [, space, unitText] = /^(\s*)([^]*)$/.exec(localUnitPattern(tagText, base.unit.name, base.unit.display, "", category).replace("{0}", ""));
        sa.outer = space === "" ? [{ type: "unit", value: unitText }] : [{ type: "literal", value: space }, { type: "unit", value: unitText }];
      } else if (isUnit && sa.outer.length > 0) {
        // A range takes English's other form (`1–2 hours`, `2–1 hours`).
        const base = numberFormat(o);
        const text = unitSuffix(base.unit.name, base.unit.display, "2");
        const unitText = text.replace(/^ /, "");
        sa.outer = text === unitText ? [{ type: "unit", value: unitText }] : [{ type: "literal", value: " " }, { type: "unit", value: unitText }];
      }
      const middle = join(sa.pre) + join(sa.suf);
      const collapse = middle === join(sb.pre) + join(sb.suf) && [...middle].length > 1;
      const dash = /^pt[-_]PT\b/i.test(localeOf(this.#locales)) ? "-" : { es: "-", it: "-", nl: "-", zh: "-", ja: "\uff5e", ko: "~" }[language] ?? "\u2013";
      const spaced = (!collapse && middle !== "") || sa.core.some((p) => p.type === "exponentSeparator");
      // Portugal's range pattern is `{0} - {1}`, spaced whatever the ends.
      const portugal = /^pt[-_]PT\b/i.test(localeOf(this.#locales));
      const sep = { type: "literal", value: spaced || portugal ? ` ${dash} ` : dash };
      // V8 joins a literal run across the ends (`($3.00) – $5.00`: a shared
      // `) – `).
      const merged = (ps) => ps.reduce((out, p) => {
        const last = out[out.length - 1];
        if (last !== undefined && last.type === "literal" && p.type === "literal") {
          last.value += p.value;
          if (last.source !== p.source) last.source = "shared";
        }
        else out.push(p);
        return out;
      }, []);
      if (collapse) {
        return merged([...tag(sa.pre, "shared"), ...tag(sa.core, "startRange"), ...tag([sep], "shared"), ...tag(sb.core, "endRange"),
          ...tag(sa.suf, "shared"), ...tag(sa.outer, "shared")]);
      }
      return merged([...tag([...sa.pre, ...sa.core, ...sa.suf], "startRange"), ...tag([sep], "shared"),
        ...tag([...sb.pre, ...sb.core, ...sb.suf], "endRange"), ...tag(sa.outer, "shared")]);
    }
    resolvedOptions() {
      // ECMA-402's fields in V8's order (standard notation's digits).
      const o = this.#options ?? {}, base = numberFormat(this.#options);
      const str = (k, d) => (o[k] === undefined ? d : StringCtor(o[k]));
      const r = { locale: resolveLocale(this.#locales, "NumberFormat"), numberingSystem: "latn", style: str("style", "decimal") };
      if (base.currency !== null) { r.currency = base.currency; r.currencyDisplay = str("currencyDisplay", "symbol"); r.currencySign = str("currencySign", "standard"); }
      if (base.unit !== null) { r.unit = base.unit.name; r.unitDisplay = base.unit.display; }
      r.minimumIntegerDigits = base.minInteger;
      const bySignificant = o.minimumSignificantDigits !== undefined || o.maximumSignificantDigits !== undefined;
      if (bySignificant || base.roundingPriority !== "auto") {
        r.minimumSignificantDigits = o.minimumSignificantDigits === undefined ? 1 : Math.floor(NumberCtor(o.minimumSignificantDigits));
        r.maximumSignificantDigits = o.maximumSignificantDigits === undefined ? 21 : Math.floor(NumberCtor(o.maximumSignificantDigits));
      }
      if (!bySignificant || base.roundingPriority !== "auto") {
        r.minimumFractionDigits = base.minFraction; r.maximumFractionDigits = base.maxFraction;
      }
      r.useGrouping = base.grouping;
      r.notation = str("notation", "standard");
      if (r.notation === "compact") r.compactDisplay = str("compactDisplay", "short");
      r.signDisplay = str("signDisplay", "auto");
      Object.assign(r, { roundingMode: base.roundingMode, roundingIncrement: base.roundingIncrement, trailingZeroDisplay: base.trailingZeroDisplay, roundingPriority: base.roundingPriority });
      return r;
    }
  }
  // An end of `formatRange`: a number (a BigInt, a string or a boolean
  // read as one), with V8's errors for undefined and NaN.
  const rangeEnd = (v, which) => {
    const shown = () => { try { return StringCtor(v); } catch { return typeof v; } };
    if (v === undefined) throw new TypeErrorCtor(`Invalid ${which} : undefined`);
    const x = typeof v === "bigint" ? NumberCtor(v) : NumberCtor(v);
    if (x !== x) throw new RangeErrorCtor(`Invalid ${which} : ${shown()}`);
    return x;
  };
  // `formatToParts`: the formatted `text` cut into ECMA-402's parts
  // (`integer`, `group`, `decimal`, `fraction`, `minusSign`, `plusSign`,
  // `percentSign`, `currency`, `compact`, `unit`, `exponent…`, `literal`),
  // knowing the locale's separators and the options' words.
  const numberParts = (text, locales, options) => {
    const o = isObject(options) ? options : {};
    const style = o.style === undefined ? "decimal" : StringCtor(o.style);
    const notation = o.notation === undefined ? "standard" : StringCtor(o.notation);
    const tag = isObject(locales) ? locales[0] : locales;
    const sample = nativeFormat(12345.5, tag === undefined ? "" : StringCtor(tag), stringify({ minFraction: 1, maxFraction: 1, minInteger: 1, grouping: true, percent: false, currency: null }));
    const groupChar = sample[2], decimalChar = sample[6];
    const parts = [];
    let rest = text;
    const tail = [];
    if (style === "unit") {
      // The unit's form is the text's end: after the number (and its space).
      const base = numberFormat(o), tagText = tag === undefined ? "" : StringCtor(tag);
      const local = /^(en)?([-_]|$)/i.test(tagText) ? null : localUnitTable(tagText);
      const forms = (local === null
        ? [unitSuffix(base.unit.name, base.unit.display, "1"), unitSuffix(base.unit.name, base.unit.display, "2")]
        : local[1].forms[base.unit.name].split("~")[UNIT_DISPLAYS.indexOf(base.unit.display)].split("|").filter((f) => f.startsWith("{0}")).map((f) => f.slice(3))
      ).sort((x, y) => y.length - x.length);
      const form = forms.find((f) => rest.endsWith(f));
      if (form !== undefined) {
        rest = rest.slice(0, rest.length - form.length);
        const [, space, unitText] = /^(\s*)([^]*)$/.exec(form);
        if (space !== "") tail.push({ type: "literal", value: space });
        tail.push({ type: "unit", value: unitText });
      }
    }
    const named = style === "currency" && o.currencyDisplay !== undefined && StringCtor(o.currencyDisplay) === "name";
    const digit = (c) => c !== undefined && c >= "0" && c <= "9";
    let afterDecimal = false, afterExponent = false;
    for (let i = 0; i < rest.length;) {
      const c = rest[i];
      const push = (type, value) => { parts.push({ type, value }); i += value.length; };
      if (digit(c)) {
        let j = i;
        while (digit(rest[j])) j++;
        push(afterExponent ? "exponentInteger" : afterDecimal ? "fraction" : "integer", rest.slice(i, j));
      } else if (c === groupChar && digit(rest[i - 1]) && digit(rest[i + 1]) && !afterDecimal && !afterExponent) push("group", c);
      else if (c === decimalChar && digit(rest[i + 1]) && !afterExponent) { afterDecimal = true; push("decimal", c); }
      else if (c === "-" || c === "\u2212") push(parts.length > 0 && parts[parts.length - 1].type === "exponentSeparator" ? "exponentMinusSign" : "minusSign", c);
      else if (c === "+") push("plusSign", c);
      else if (c === "%") push("percentSign", c);
      else if (c === "E" && (notation === "scientific" || notation === "engineering") && digit(rest[i - 1])) { afterExponent = true; push("exponentSeparator", c); }
      else if (rest.startsWith("NaN", i)) push("nan", "NaN");
      else if (c === "\u221e") push("infinity", c);
      else if (c === "(" || c === ")") push("literal", c);
      else if (/\s/.test(c)) {
        let j = i;
        while (j < rest.length && /\s/.test(rest[j])) j++;
        push("literal", rest.slice(i, j));
      } else {
        let j = i;
        if (named) j = rest.length - (/\)$/.test(rest) ? 1 : 0);
        else while (j < rest.length && !digit(rest[j]) && !/[\s()+\-\u2212%\u221e]/.test(rest[j]) && !rest.startsWith("NaN", j)) j++;
        const compact = notation === "compact" && parts.some((p) => p.type === "integer");
        push(compact ? "compact" : style === "currency" ? "currency" : "literal", rest.slice(i, j));
      }
    }
    return [...parts, ...tail];
  };
  defineProperty(NumberFormat.prototype, Symbol.toStringTag, { value: "Intl.NumberFormat", configurable: true });
  class Collator {
    #locales; #options;
    constructor(locales, options) {
      canonicalLocales(locales); // V8's errors for a malformed tag
      locales = firstAvailable(locales);
      this.#locales = locales;
      this.#options = options === undefined ? undefined : { ...options };
      // The locale checked and the options read once, into one word the
      // native comparison takes (`localeCompare` reads them every call).
      const flags = collatorFlags(locales, this.#options);
      // As Intl's `compare` getter: a function bound to this collator
      // (the native itself, bound to its word: one call per comparison),
      // named "" with length 2 as V8's.
      const compare = apply(bindFunction, collate, [undefined, flags]);
      defineProperty(compare, "name", { value: "", configurable: true });
      defineProperty(compare, "length", { value: 2, configurable: true });
      defineProperty(this, "compare", { value: compare, enumerable: false });
    }
    resolvedOptions() {
      const o = this.#options ?? {};
      const caseFirst = o.caseFirst === undefined ? "false" : StringCtor(o.caseFirst);
      return { locale: resolveLocale(this.#locales, "Collator"), usage: "sort", sensitivity: o.sensitivity ?? "variant", ignorePunctuation: Boolean(o.ignorePunctuation), collation: "default", numeric: Boolean(o.numeric), caseFirst };
    }
  }
  // Dates as ICU writes them for en-US (in UTC, or a `timeZone`'s wall clock), for
  // `toLocaleDateString` / `toLocaleTimeString` / `toLocaleString` and
  // `Intl.DateTimeFormat`: the default forms (`7/4/2024, 3:30:45 PM`), the
  // component options (`weekday`, `year`, `month`, `day`, `hour`, `minute`,
  // `second`, `hour12`, `timeZoneName`) and `dateStyle` / `timeStyle`.
  // QuickJS-ng writes `07/04/2024, 03:30:45 PM` whatever the options. Other
  // locales are en-US (as numbers, above); a time zone not in `tz_data.js`
  // is refused (V8's RangeError) rather than ignored.
  const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  const dateValueOf = Date.prototype.valueOf;
  const pad2 = (n) => (n < 10 ? "0" : "") + n;
  // IANA time zones: the offsets, transitions (1970-2037) and ICU's English
  // names of the zones in `tz_data.js` (generated by scripts/gen-tz.py from
  // zoneinfo, the names from Node), ICU's `GMT±h` forms for the rest; names
  // are case-insensitive and resolve to ICU's canonical IDs (V8's
  // `resolvedOptions().timeZone`: `Asia/Kolkata` is `Asia/Calcutta`). A
  // date after 2037 takes the offset of the same day 28 years (a whole
  // cycle of the calendar) before; one before 1970 that of 1970.
  // The table is read on a script's first time zone (the native parses
  // `tz_data.js` then): a run that never names one does not carry it.
  const loadTz = g.__hwf_load_tz;
  let tzTable;
  const TZ = () => (tzTable ??= loadTz?.() ?? { zones: {}, names: {} });
  const UTC_ZONE = freeze({ id: "UTC", utc: true, offset: 0 });
  const UTC_NAMES = /^(etc\/)?(utc|uct|gmt|gmt[+-]?0|universal|zulu|greenwich)$/;
  const zoneRecords = new MapCtor();
  const resolveZone = (value) => {
    if (value === undefined) return UTC_ZONE;
    const name = StringCtor(value), key = nativeLower.call(name);
    if (UTC_NAMES.test(key)) return UTC_ZONE;
    const fixed = /^etc\/gmt([+-])([1-9]|1[0-4])$/.exec(key);
    if (fixed !== null && (fixed[1] === "-" || NumberCtor(fixed[2]) <= 12)) {
      return { id: `Etc/GMT${fixed[1]}${fixed[2]}`, utc: false, offset: (fixed[1] === "+" ? -60 : 60) * NumberCtor(fixed[2]) };
    }
    const link = TZ().names[key];
    if (link === undefined) throw new RangeErrorCtor(`Invalid time zone specified: ${name}`);
    const data = link[1] ?? link[0];
    let record = zoneRecords.get(data);
    if (record === undefined) {
      const [types, transitions, sequence] = TZ().zones[data];
      const tokens = transitions.split(","), starts = [], kinds = [];
      let at = 0;
      for (let i = 0; i < sequence.length; i++) {
        const token = tokens[sequence.charCodeAt(i) - 0x100];
        at += NumberCtor.parseInt(token.slice(1), 36) * 60000;
        starts.push(at);
        kinds.push(types[NumberCtor.parseInt(token[0], 36)]);
      }
      record = { starts, kinds };
      zoneRecords.set(data, record);
    }
    return { id: link[0], data, utc: false, offset: null, record };
  };
  const TZ_END = 2145916800000, TZ_CYCLE = 10227 * 86400000; // 2038-01-01; 28 years
  // The zone's type at `t`: [offset minutes, names…] (`tz_data.js`).
  const zoneType = (zone, t) => {
    if (zone.offset !== null) return [zone.offset];
    const { starts, kinds } = zone.record;
    // Daylight saving time still observed in 2037 repeats (the rules of the
    // 28 years before); a zone whose last change is older stays as it is.
    if (t >= TZ_END && starts[starts.length - 1] >= TZ_END - 366 * 86400000) while (t >= TZ_END) t -= TZ_CYCLE;
    let lo = 0, hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= t) lo = mid; else hi = mid - 1;
    }
    return kinds[lo];
  };
  // ICU's `GMT+5:30` (short) / `GMT+05:30` (long).
  const gmtName = (offset, long) => {
    const sign = offset < 0 ? "-" : "+", a = offset < 0 ? -offset : offset, m = a % 60, h = (a - m) / 60;
    return long ? `GMT${sign}${pad2(h)}:${pad2(m)}` : `GMT${sign}${h}${m === 0 ? "" : `:${pad2(m)}`}`;
  };
  // The zone's name at `t` for a `timeZoneName` style, as ICU writes it in en-US or en-GB.
  const zoneText = (zone, t, style, gb) => {
    if (zone.utc && style === "short") return "UTC";
    if (zone.utc && style === "long") return "Coordinated Universal Time";
    const type = zoneType(zone, t), short = gmtName(type[0], false), long = gmtName(type[0], true);
    const at = (i) => type[i] || "";
    if (style === "short") return (gb && at(2)) || at(1) || short;
    if (style === "long") return at(3) || long;
    if (style === "shortGeneric") return (gb && at(5)) || at(4) || short;
    if (style === "longGeneric") return at(6) || long;
    return style === "longOffset" ? long : short;
  };
  // The zone's name at `t` in a table locale (`date_patterns.js`'s `tz`:
  // names by English long name and by zone, the GMT form's prefix and
  // minus), as the generator's `zoneNameOf` writes it.
  const zoneTextLocal = (T, zone, t, style) => {
    if (zone.utc && style === "short") return T.utc[0];
    if (zone.utc && style === "long") return T.utc[1];
    const type = zoneType(zone, t);
    const local = (name) => name.replace("GMT", T.off[0]).replace("-", T.off[1]);
    const long = local(gmtName(type[0], true)), short = local(gmtName(type[0], false));
    if (style === "longOffset") return long;
    if (style === "shortOffset") return short;
    const v = (zone.data !== undefined && T.n[`${zone.data}|${type[3]}`]) || (type[3] ? T.n[type[3]] : undefined);
    if (style === "short") return (v && v[0]) || short;
    if (style === "long") return (v && v[1]) || long;
    const gv = zone.data === undefined ? undefined : T.g[zone.data];
    if (style === "shortGeneric") return (gv && gv[0]) || short;
    return (gv && gv[1]) || long;
  };
  // The wall-clock time at `t` in the zone, as a UTC time value.
  const wallTime = (t, r) => t + (r.zone.offset !== null ? r.zone.offset : zoneType(r.zone, t)[0]) * 60000;
  // ICU's names of `timeZoneName` styles and of `dateStyle` / `timeStyle`.
  const ZONE_NAME_STYLES = freeze({ short: 1, long: 1, shortOffset: 1, longOffset: 1, shortGeneric: 1, longGeneric: 1 });
  const ZONE_STYLE_BITS = ["short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"];
  const DATE_STYLES = freeze({ full: 1, long: 1, medium: 1, short: 1 });
  // A locale tag's date facts: [en-GB, numeric dates, pattern locale, canonical tag].
  const dateLocaleFacts = new MapCtor();
  const dateOptions = (options, required, defaults, locales) => {
    const o = isObject(options) ? options : {};
    const pick = (k) => { const v = o[k]; return v === undefined ? undefined : StringCtor(v); };
    const r = {
      gb: false,
      weekday: pick("weekday"), year: pick("year"), month: pick("month"), day: pick("day"),
      hour: pick("hour"), minute: pick("minute"), second: pick("second"),
      dateStyle: pick("dateStyle"), timeStyle: pick("timeStyle"), timeZoneName: pick("timeZoneName"),
      era: pick("era"), dayPeriod: pick("dayPeriod"),
      hour12: o.hour12 === undefined ? (o.hourCycle === undefined ? null : /^h(11|12)$/.test(StringCtor(o.hourCycle))) : Boolean(o.hour12),
    };
    r.zone = resolveZone(o.timeZone);
    // `fractionalSecondDigits` (1-3): the milliseconds after the seconds
    // (`05:09.123`); with minutes and no seconds, the seconds are shown.
    if (o.fractionalSecondDigits !== undefined) {
      const n = Math.floor(NumberCtor(o.fractionalSecondDigits));
      if (!(n >= 1 && n <= 3)) throw new RangeErrorCtor("fractionalSecondDigits value is out of range.");
      r.fractional = n;
      if (r.minute !== undefined && r.second === undefined) r.second = "numeric";
    }
    for (const k of ["era", "dayPeriod"]) {
      if (r[k] !== undefined && !["narrow", "short", "long"].includes(r[k])) throw new RangeErrorCtor(`Value ${r[k]} out of range for Intl.DateTimeFormat options property ${k}`);
    }
    if (r.timeZoneName !== undefined && !hasOwn(ZONE_NAME_STYLES, r.timeZoneName)) throw new RangeErrorCtor(`Value ${r.timeZoneName} out of range for Intl.DateTimeFormat options property timeZoneName`);
    if (r.dateStyle !== undefined && !hasOwn(DATE_STYLES, r.dateStyle)) throw new RangeErrorCtor(`Value ${r.dateStyle} out of range for Intl.DateTimeFormat options property dateStyle`);
    if (r.timeStyle !== undefined && !hasOwn(DATE_STYLES, r.timeStyle)) throw new RangeErrorCtor(`Value ${r.timeStyle} out of range for Intl.DateTimeFormat options property timeStyle`);
    // A list: the first tag the service has (`["xx", "de"]` is German).
    const tag = isArray(locales) ? (locales.length > 1 ? resolveLocale(locales, "DateTimeFormat") : locales[0]) : locales;
    if (tag === undefined) { r.gb = false; r.numeric = null; r.patterns = null; r.locale = "en-US"; }
    else {
      // A string tag's facts are pure, so kept (`dateLocaleFacts`); any
      // other tag is converted each time, as before.
      let facts = typeof tag === "string" ? dateLocaleFacts.get(tag) : undefined;
      if (facts === undefined) {
        // British English (`en-GB`): day first, 24-hour time; other locales are en-US.
        // The locale as given, canonicalized (`resolvedOptions().locale`); ICU's default `en-US`.
        facts = [/^en-GB\b/i.test(StringCtor(tag)), numericDates(StringCtor(tag)), patternLocale(StringCtor(tag)), resolveLocale(tag, "DateTimeFormat")];
        if (typeof tag === "string") {
          if (dateLocaleFacts.size >= 256) dateLocaleFacts.clear();
          dateLocaleFacts.set(tag, facts);
        }
      }
      [r.gb, r.numeric, r.patterns, r.locale] = facts;
      // The tag's hour cycle (`en-US-u-hc-h23`), unless the options give one.
      const hc = /-u-(?:.*-)?hc-(h11|h12|h23|h24)\b/.exec(r.locale);
      if (hc !== null && r.hour12 === null) r.hour12 = hc[1] === "h11" || hc[1] === "h12";
    }
    r.hour12Given = r.hour12 !== null;
    if (r.hour12 === null) r.hour12 = !r.gb;
    if (r.dateStyle !== undefined || r.timeStyle !== undefined) return r;
    const hasDate = r.weekday !== undefined || r.year !== undefined || r.month !== undefined || r.day !== undefined;
    const hasTime = r.hour !== undefined || r.minute !== undefined || r.second !== undefined || r.fractional !== undefined || r.dayPeriod !== undefined;
    const need = required === "date" ? !hasDate : required === "time" ? !hasTime : !hasDate && !hasTime;
    if (need && (defaults === "date" || defaults === "all")) { r.year = "numeric"; r.month = "numeric"; r.day = "numeric"; }
    if (need && (defaults === "time" || defaults === "all")) { r.hour = "numeric"; r.minute = "numeric"; r.second = "numeric"; }
    return r;
  };
  // ICU's all-numeric dates and times for some locales (`8.3.2024,
  // 09:05:09` in German, `2024/3/8 9:05:09` in Japanese, `2024-03-08` in
  // Swedish and Canadian English): the order, the separator, which of day
  // and month are zero-padded, the hour's form (`HH`, `H`, or 12-hour
  // with the locale's day periods) and the date-time joiner.
  const NUMERIC_DATES = {
    de: ["dmy", ".", 0, 0, "H", ", "], ja: ["ymd", "/", 0, 0, "h", " "], sv: ["ymd", "-", 1, 1, "H", " "],
    fr: ["dmy", "/", 1, 1, "H", " "], es: ["dmy", "/", 0, 0, "h", ", "], it: ["dmy", "/", 1, 1, "H", ", "],
    nl: ["dmy", "-", 0, 0, "H", ", "], pt: ["dmy", "/", 1, 1, "H", ", "], zh: ["ymd", "/", 0, 0, "H", " "],
    ru: ["dmy", ".", 1, 1, "H", ", "], pl: ["dmy", ".", 0, 1, "H", ", "], tr: ["dmy", ".", 1, 1, "H", " "],
    "en-CA": ["ymd", "-", 1, 1, ["a.m.", "p.m."], ", "], "en-IN": ["dmy", "/", 0, 0, ["am", "pm"], ", "],
    "en-AU": ["dmy", "/", 1, 1, ["am", "pm"], ", "], "es-MX": ["dmy", "/", 0, 0, ["a.m.", "p.m."], ", "],
  };
  const numericDates = (tag) => {
    const parts = tag.split(/[-_]/), language = nativeLower.call(parts[0]);
    const region = parts.length > 1 ? nativeUpper.call(parts[parts.length - 1]) : "";
    if (NUMERIC_DATES[`${language}-${region}`]) return NUMERIC_DATES[`${language}-${region}`];
    if (language === "en" || (language === "fr" && region === "CA")) return null;
    return NUMERIC_DATES[language] ?? null;
  };
  const formatNumericDate = (t, r) => {
    const L = r.numeric;
    if (L === null || r.dateStyle !== undefined || r.timeStyle !== undefined || r.weekday !== undefined || r.timeZoneName !== undefined || r.hour12Given || r.fractional !== undefined) return null;
    const dateKeys = [r.year, r.month, r.day].filter((x) => x !== undefined), timeKeys = [r.hour, r.minute, r.second].filter((x) => x !== undefined);
    if ((dateKeys.length !== 0 && dateKeys.length !== 3) || (timeKeys.length !== 0 && timeKeys.length !== 3)) return null;
    if (![r.month, r.day].every((x) => x === undefined || x === "numeric" || x === "2-digit")) return null;
    const d = new RealDate(t);
    const Y = d.getUTCFullYear(), M = d.getUTCMonth() + 1, D = d.getUTCDate(), h = d.getUTCHours();
    let date = "", time = "";
    if (dateKeys.length === 3) {
      const localePad = !(L === NUMERIC_DATES["en-AU"] && r.year === "2-digit"); // `d/M/yy`
      const day = (L[2] && localePad) || r.day === "2-digit" ? pad2(D) : StringCtor(D);
      const month = (L[3] && localePad) || r.month === "2-digit" ? pad2(M) : StringCtor(M);
      const year = r.year === "2-digit" ? pad2(Y % 100) : StringCtor(Y);
      date = (L[0] === "ymd" ? [year, month, day] : [day, month, year]).join(L[1]);
    }
    if (timeKeys.length === 3) {
      const rest = `${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
      time = L[4] === "H" ? `${pad2(h)}:${rest}` : L[4] === "h" ? `${h}:${rest}` : `${(h + 11) % 12 + 1}:${rest} ${L[4][h < 12 ? 0 : 1]}`;
    }
    return date === "" ? time : time === "" ? date : date + L[5] + time;
  };
  // The components `dateStyle` / `timeStyle` stand for (ICU's en-US and
  // en-GB patterns); the options as given without them.
  const dateComponents = (r) => {
    let o = r;
    if (r.dateStyle !== undefined || r.timeStyle !== undefined) {
      o = { hour12: r.hour12, gb: r.gb };
      if (r.dateStyle === "full") Object.assign(o, { weekday: "long", month: "long", day: "numeric", year: "numeric" });
      else if (r.dateStyle === "long") Object.assign(o, { month: "long", day: "numeric", year: "numeric" });
      else if (r.dateStyle === "medium") Object.assign(o, { month: "short", day: "numeric", year: "numeric" });
      else if (r.dateStyle === "short") Object.assign(o, { month: "numeric", day: "numeric", year: r.gb ? "numeric" : "2-digit" });
      if (r.timeStyle !== undefined) Object.assign(o, { hour: r.gb ? "2-digit" : "numeric", minute: "2-digit", second: r.timeStyle === "short" ? undefined : "2-digit" });
      if (r.timeStyle === "full") o.timeZoneName = "long";
      else if (r.timeStyle === "long") o.timeZoneName = "short";
    }
    return o;
  };
  const dateName = (list, i, style) => (style === "long" ? list[i] : style === "short" ? list[i].slice(0, 3) : list[i][0]);
  const dateNumber = (n, style) => (style === "2-digit" ? pad2(n % 100) : StringCtor(n));
  // ICU's patterns and names for the most used languages beyond English
  // (`date_patterns.js`, generated by scripts/gen-date-patterns.mjs from
  // Node: `5. März 2024`, `mardi 5 mars 2024 à 14:07`, `2024年3月5日`),
  // over a grid of options (DATE_GRID, the generator's order), and with a
  // time zone's name (`zi`, `tz`: `5.3.2024, 14:07:08 MEZ`); options off
  // the grid (`narrow`, a zone's name with a weekday or `hour12`) keep the
  // English forms.
  // Read on the first date such a locale formats.
  const loadDp = g.__hwf_load_date_patterns;
  let dpTable;
  const DP = () => (dpTable ??= loadDp?.() ?? {});
  // One locale's table (`de`, `fr-CA`), parsed from its JSON text on first use.
  const dpParsed = new MapCtor();
  const dpLocale = (key) => {
    let hit = dpParsed.get(key);
    if (hit === undefined) {
      let text = DP()[key];
      if (typeof text === "string" && text[0] === "=") text = DP()[text.slice(1)];
      if (typeof text !== "string") return undefined;
      hit = parse(text);
      dpParsed.set(key, hit);
    }
    return hit;
  };
  const PATTERN_LOCALES = ["de", "fr", "es", "it", "pt", "nl", "ja", "zh", "ko", "ru", "pl", "sv"];
  const PATTERN_REGIONS = { "pt-PT": 1, "fr-CA": 1, "zh-TW": 1, "es-MX": 1, "de-AT": 1 };
  const patternLocale = (tag) => {
    const parts = tag.split(/[-_]/), lang = nativeLower.call(parts[0]);
    if (!PATTERN_LOCALES.includes(lang)) return null;
    const rest = parts.slice(1).map((x) => nativeUpper.call(x));
    // Hong Kong's and Macau's Chinese write their own forms (`5/3/2024`).
    if (lang === "zh" && (rest.includes("HK") || rest.includes("MO"))) return "zh-HK";
    if (lang === "zh" && (rest.includes("HANT") || rest.includes("TW"))) return "zh-TW";
    const region = rest.find((x) => /^[A-Z]{2}$/.test(x));
    return region !== undefined && PATTERN_REGIONS[`${lang}-${region}`] ? `${lang}-${region}` : lang;
  };
  const DATE_GRID = {
    weekday: ["", "long", "short"], year: ["", "numeric", "2-digit"], month: ["", "numeric", "2-digit", "long", "short"], day: ["", "numeric", "2-digit"],
    time: ["", "numeric", "2-digit", "numeric,numeric", "numeric,2-digit", "2-digit,numeric", "2-digit,2-digit", "numeric,2-digit,2-digit", "2-digit,2-digit,2-digit", "numeric,numeric,numeric", "2-digit,numeric,numeric"],
    styles: ["", "full", "long", "medium", "short"],
  };
  // The grid entry of the options, or -1 off the grid.
  const gridEntry = (r) => {
    if (r.timeZoneName !== undefined || r.fractional !== undefined) return -1;
    if (r.dateStyle !== undefined || r.timeStyle !== undefined) {
      const ds = DATE_GRID.styles.indexOf(r.dateStyle ?? ""), ts = DATE_GRID.styles.indexOf(r.timeStyle ?? "");
      return r.hour12Given || ds < 0 || ts < 0 ? -1 : 4455 + ds * 5 + ts;
    }
    const at = (k) => DATE_GRID[k].indexOf(r[k] ?? "");
    const w = at("weekday"), y = at("year"), m = at("month"), d = at("day");
    const t = DATE_GRID.time.indexOf([r.hour, r.minute, r.second].filter((x) => x !== undefined).join(","));
    if (w < 0 || y < 0 || m < 0 || d < 0 || t < 0 || (r.hour === undefined && (r.minute !== undefined || r.second !== undefined))) return -1;
    if (r.minute === undefined && r.second !== undefined) return -1;
    const h12 = r.hour12Given ? (r.hour12 ? 1 : 2) : 0;
    return ((((w * 3 + y) * 5 + m) * 3 + d) * 11 + t) * 3 + h12;
  };
  // A pattern's typed parts for the wall-clock date `d` (the generator's `render`).
  const patternParts = (pattern, d, lists, zoneName) => {
    const Y = d.getUTCFullYear(), Mo = d.getUTCMonth(), Da = d.getUTCDate(), h = d.getUTCHours();
    const value = {
      y: ["year", StringCtor(Y)], yy: ["year", pad2(Y % 100)], M: ["month", StringCtor(Mo + 1)], MM: ["month", pad2(Mo + 1)],
      d: ["day", StringCtor(Da)], dd: ["day", pad2(Da)], H: ["hour", StringCtor(h)], HH: ["hour", pad2(h)],
      h: ["hour", StringCtor((h + 11) % 12 + 1)], hh: ["hour", pad2((h + 11) % 12 + 1)], K: ["hour", StringCtor(h % 12)], KK: ["hour", pad2(h % 12)],
      k: ["hour", StringCtor(h === 0 ? 24 : h)], kk: ["hour", pad2(h === 0 ? 24 : h)],
      m: ["minute", StringCtor(d.getUTCMinutes())], mm: ["minute", pad2(d.getUTCMinutes())], s: ["second", StringCtor(d.getUTCSeconds())], ss: ["second", pad2(d.getUTCSeconds())],
    };
    const out = [];
    const re = /\{([a-zA-Z]+)(?::(\d+))?\}/g;
    let last = 0, m;
    while ((m = re.exec(pattern)) !== null) {
      if (m.index > last) out.push({ type: "literal", value: pattern.slice(last, m.index) });
      last = re.lastIndex;
      const k = m[2] === undefined ? -1 : NumberCtor(m[2]);
      if (m[1] === "M" && k >= 0) out.push({ type: "month", value: lists[k][Mo] });
      else if (m[1] === "E") out.push({ type: "weekday", value: lists[k][d.getUTCDay()] });
      else if (m[1] === "a") out.push({ type: "dayPeriod", value: lists[k][h] });
      else if (m[1] === "z") out.push({ type: "timeZoneName", value: zoneName });
      else out.push({ type: value[m[1]][0], value: value[m[1]][1] });
    }
    if (last < pattern.length) out.push({ type: "literal", value: pattern.slice(last) });
    return out;
  };
  // The parts of `instant` in the locale's ICU pattern, or null (English's forms).
  const localeDateParts = (instant, r) => {
    if (r.patterns === null) return null;
    const table = dpLocale(r.patterns);
    if (table === undefined) return null;
    const at = (i) => { const c = table.index.slice(i * 2, i * 2 + 2); return c === "~~" ? null : table.patterns[NumberCtor.parseInt(c, 36)]; };
    // A zone's name (`{z}`): `timeZoneName`'s style, or the `timeStyle`'s.
    const zoneName = () => (table.tz === undefined ? "" : zoneTextLocal(table.tz, r.zone, instant, r.timeZoneName ?? (r.timeStyle === "full" ? "long" : "short")));
    if (r.timeZoneName !== undefined) {
      // The `zi` patterns: no weekday, no hour12 given (else English's forms).
      if (r.weekday !== undefined || r.hour12Given || table.zi === undefined || table.tz === undefined) return null;
      const entry = gridEntry({ ...r, timeZoneName: undefined });
      if (entry < 0 || entry >= 4455) return null;
      const c = table.zi.slice((entry / 3) * 2, (entry / 3) * 2 + 2);
      // `zs`: the styles the pattern renders (ICU pads the hour for some).
      const styles = table.zs === undefined ? 0 : table.zs.charCodeAt(entry / 3) - 0x100;
      if (c === "~~" || c.length !== 2 || !((styles >> ZONE_STYLE_BITS.indexOf(r.timeZoneName)) & 1)) return null;
      return patternParts(table.zp[NumberCtor.parseInt(c, 36)], new RealDate(wallTime(instant, r)), table.lists, zoneName());
    }
    const entry = gridEntry(r);
    if (entry < 0) return null;
    const pattern = at(entry);
    if (pattern === null) return null;
    const d = new RealDate(wallTime(instant, r));
    if (pattern[0] !== ">" && pattern[0] !== "<") return patternParts(pattern, d, table.lists, pattern.includes("{z}") ? zoneName() : "");
    // A date's pattern, the glue and the time's (the time first for `<`).
    const dateOnly = { ...r, hour: undefined, minute: undefined, second: undefined, hour12Given: false };
    const timeOnly = { ...r, weekday: undefined, year: undefined, month: undefined, day: undefined };
    const datePattern = at(gridEntry(dateOnly)), timePattern = at(gridEntry(timeOnly));
    if (datePattern === null || timePattern === null) return null;
    const glue = pattern.slice(1) === "" ? [] : [{ type: "literal", value: pattern.slice(1) }];
    const [first, second] = pattern[0] === ">" ? [datePattern, timePattern] : [timePattern, datePattern];
    const parts = [...patternParts(first, d, table.lists), ...glue, ...patternParts(second, d, table.lists)];
    // Adjacent literals are one part, as ICU gives them.
    const merged = [];
    for (const p of parts) {
      const prev = merged[merged.length - 1];
      if (p.type === "literal" && prev !== undefined && prev.type === "literal") prev.value += p.value;
      else merged.push(p);
    }
    return merged;
  };
  // The first `n` digits of the milliseconds (`fractionalSecondDigits`).
  const fraction = (d, n) => StringCtor(d.getUTCMilliseconds()).padStart(3, "0").slice(0, n);
  // ICU's English flexible day periods (`dayPeriod`): noon at 12 when the
  // minutes and seconds shown are zero, else morning to 11, afternoon to 17,
  // evening to 20, night after.
  const flexiblePeriod = (h, mi, se, o, width) => {
    if (h === 12 && (o.minute === undefined || mi === 0) && (o.second === undefined || se === 0)) return width === "narrow" ? "n" : "noon";
    return h < 12 ? "in the morning" : h < 18 ? "in the afternoon" : h < 21 ? "in the evening" : "at night";
  };
  const ERAS = { narrow: ["B", "A"], short: ["BC", "AD"], long: ["Before Christ", "Anno Domini"] };
  const formatDate = (instant, r) => {
    const local = localeDateParts(instant, r);
    // V8's `format` writes ICU's narrow no-break spaces as spaces.
    if (local !== null) return local.map((p) => p.value).join("").replace(/\u202f/g, " ");
    const t = wallTime(instant, r);
    const numeric = formatNumericDate(t, r);
    if (numeric !== null) return numeric;
    const d = new RealDate(t);
    // With an era, a year before 1 counts back from it (`-500` is `501 BC`).
    const bc = d.getUTCFullYear() <= 0;
    const Y = r.era !== undefined && bc ? 1 - d.getUTCFullYear() : d.getUTCFullYear(), M = d.getUTCMonth(), D = d.getUTCDate();
    const o = dateComponents(r);
    const name = dateName, num = dateNumber;
    let date = "";
    const textMonth = o.month === "long" || o.month === "short" || o.month === "narrow";
    if (textMonth) {
      const m = name(MONTHS, M, o.month);
      if (o.gb) date = o.day !== undefined ? `${num(D, o.day)} ${m}` : m;
      else date = o.day !== undefined ? `${m} ${num(D, o.day)}` : m;
      if (o.year !== undefined) date += (o.day !== undefined && !o.gb ? ", " : " ") + num(Y, o.year);
    } else if (o.gb) {
      // `dd/MM`, `MM/y`: a numeric month beside a numeric day or a year is
      // padded, and the day with it (with a weekday, whatever the widths);
      // mixed widths stay as asked (`01/1`).
      const two = o.month !== undefined && (o.day !== undefined || o.year !== undefined) &&
        (o.weekday !== undefined || (o.month === "numeric" && o.day !== "2-digit"));
      date = [o.day !== undefined ? (two ? pad2(D) : num(D, o.day)) : null, o.month !== undefined ? (two ? pad2(M + 1) : num(M + 1, o.month)) : null,
        o.year !== undefined ? num(Y, o.year) : null].filter((x) => x !== null).join("/");
    } else {
      date = [o.month !== undefined ? num(M + 1, o.month) : null, o.day !== undefined ? num(D, o.day) : null, o.year !== undefined ? num(Y, o.year) : null]
        .filter((x) => x !== null).join("/");
    }
    if (o.weekday !== undefined) {
      const W = d.getUTCDay();
      const sep = o.gb && o.year === undefined ? " " : ", "; // `Mon 1 Jan`, `Mon 01/01`, `Mon, 01/01/2024`
      date = date === "" ? name(DAYS, W, o.weekday) : `${name(DAYS, W, o.weekday)}${sep}${date}`;
    }
    let time = r.fractional !== undefined && o.hour === undefined && o.minute === undefined && o.second === undefined ? fraction(d, r.fractional) : "";
    if (o.hour !== undefined || o.minute !== undefined || o.second !== undefined) {
      const h = d.getUTCHours(), mi = d.getUTCMinutes(), se = d.getUTCSeconds();
      const parts = [];
      if (o.hour !== undefined) {
        parts.push(o.hour12 ? (o.hour === "2-digit" ? pad2((h + 11) % 12 + 1) : StringCtor((h + 11) % 12 + 1))
          // ICU's en-GB patterns for a numeric hour (Node and Bun alike):
          // `H:mm:ss z`; `H:mm` and `H:mm:ss` for 2-digit minutes (and
          // seconds), unless with a weekday alone; else `HH:…`.
          : o.gb && o.hour === "numeric" && ((o.second !== undefined && (o.timeZoneName === "short" || o.timeZoneName === "long")) ||
            (o.timeZoneName === undefined && o.minute === "2-digit" && (o.second === undefined || o.second === "2-digit") &&
              !(o.weekday !== undefined && o.year === undefined && o.month === undefined && o.day === undefined))) ? StringCtor(h) : pad2(h));
      }
      // ICU's `mm:ss` without an hour.
      if (o.minute !== undefined) parts.push(o.hour !== undefined || o.second !== undefined ? pad2(mi) : num(mi, o.minute));
      if (o.second !== undefined) parts.push(o.hour !== undefined || o.minute !== undefined ? pad2(se) : num(se, o.second));
      if (r.fractional !== undefined && o.second !== undefined) parts[parts.length - 1] += "." + fraction(d, r.fractional);
      time = parts.join(":");
      if (o.hour !== undefined && o.hour12) time += " " + (r.dayPeriod !== undefined ? flexiblePeriod(h, mi, se, o, r.dayPeriod) : o.gb ? (h < 12 ? "am" : "pm") : h < 12 ? "AM" : "PM");
    } else if (r.dayPeriod !== undefined && time === "") {
      time = flexiblePeriod(d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), o, r.dayPeriod);
    }
    // ICU's English era after the date (`2024 AD`, `March 5, 2024 Anno Domini`).
    if (r.era !== undefined && date !== "") date += " " + ERAS[r.era][bc ? 0 : 1];
    const zoneName = o.timeZoneName === undefined ? "" : zoneText(r.zone, instant, o.timeZoneName, o.gb);
    if (time === "") return zoneName === "" ? date : date === "" ? zoneName : `${date}${o.month === "long" ? " at " : ", "}${zoneName}`;
    if (zoneName !== "") time += ` ${zoneName}`;
    if (date === "") return time;
    const onlyWeekday = o.weekday !== undefined && o.year === undefined && o.month === undefined && o.day === undefined;
    // en-GB writes a weekday and a bare hour `Mon, 17`, with minutes
    // `Mon 17:05`; with a zone `Mon, 17:05 UTC` (en-US too).
    return date + (onlyWeekday ? (o.timeZoneName !== undefined || (o.gb && o.minute === undefined) ? ", " : " ") : o.month === "long" ? " at " : ", ") + time;
  };
  const localeDate = (required, defaults) => function (locales, options) {
    const t = dateValueOf.call(this); // a TypeError unless a Date
    const r = dateOptions(options, required, defaults, locales);
    // As ECMA-402: a date method takes no `timeStyle`, a time method no `dateStyle`.
    if (required === "date" && r.timeStyle !== undefined) throw new TypeErrorCtor("Invalid option : timeStyle");
    if (required === "time" && r.dateStyle !== undefined) throw new TypeErrorCtor("Invalid option : dateStyle");
    if (t !== t) return "Invalid Date";
    return formatDate(t, r);
  };
  const dateMethod = (name, f) => defineProperty(Date.prototype, name, { value: f, writable: true, enumerable: false, configurable: true });
  const localeDateOnly = localeDate("date", "date"), localeTimeOnly = localeDate("time", "time"), localeDateTime = localeDate("any", "all");
  dateMethod("toLocaleDateString", { toLocaleDateString(locales, options) { return localeDateOnly.call(this, locales, options); } }.toLocaleDateString);
  dateMethod("toLocaleTimeString", { toLocaleTimeString(locales, options) { return localeTimeOnly.call(this, locales, options); } }.toLocaleTimeString);
  dateMethod("toLocaleString", { toLocaleString(locales, options) { return localeDateTime.call(this, locales, options); } }.toLocaleString);
  // `toString` / `toTimeString` name the zone as V8 and JavaScriptCore do.
  const dateToString = Date.prototype.toString, dateToTimeString = Date.prototype.toTimeString;
  const zoned = (s) => (s === "Invalid Date" || s.endsWith(")") ? s : `${s} (Coordinated Universal Time)`);
  dateMethod("toString", { toString() { return zoned(dateToString.call(this)); } }.toString);
  dateMethod("toTimeString", { toTimeString() { return zoned(dateToTimeString.call(this)); } }.toTimeString);
  // `formatToParts`: the formatted text cut into ICU's typed parts. The
  // numbers are the date's fields in the pattern's order (month, day, year
  // in en-US; day, month, year in en-GB and the numeric locales' `dmy`;
  // day, year around a month's name), then hour, minute, second; the
  // names (weekday, month, day period, zone) are found in the text
  // between them, the rest is literal.
  const formatDateParts = (instant, r) => {
    const local = localeDateParts(instant, r);
    if (local !== null) return local;
    const t = wallTime(instant, r);
    const o = dateComponents(r);
    // The zone's name (which may hold digits, `GMT-5`) stands as one
    // character while the text is cut.
    const zoneName = o.timeZoneName === undefined ? "" : zoneText(r.zone, instant, o.timeZoneName, o.gb);
    const text = zoneName === "" ? formatDate(instant, r) : formatDate(instant, r).replace(zoneName, "\u0000");
    const d = new RealDate(t);
    const has = (k) => o[k] !== undefined;
    const textMonth = o.month === "long" || o.month === "short" || o.month === "narrow";
    let order;
    if (formatNumericDate(t, r) !== null) order = (r.numeric[0] === "ymd" ? ["year", "month", "day"] : ["day", "month", "year"]).filter(has);
    else if (textMonth) order = ["day", "year"].filter(has);
    else order = (o.gb ? ["day", "month", "year"] : ["month", "day", "year"]).filter(has);
    order.push(...["hour", "minute", "second"].filter(has));
    if (r.fractional !== undefined) order.push("fractionalSecond");
    const names = [];
    if (has("weekday")) names.push([dateName(DAYS, d.getUTCDay(), o.weekday), "weekday"]);
    if (textMonth) names.push([dateName(MONTHS, d.getUTCMonth(), o.month), "month"]);
    if (r.dayPeriod !== undefined) for (const p of ["in the morning", "in the afternoon", "in the evening", "at night", "noon", "n"]) names.push([p, "dayPeriod"]);
    if (has("hour")) for (const p of ["AM", "PM", "am", "pm", "a.m.", "p.m."]) names.push([p, "dayPeriod"]);
    if (r.era !== undefined) for (const p of ERAS[r.era]) names.push([p, "era"]);
    if (has("timeZoneName")) names.push(["\u0000", "timeZoneName"]);
    const parts = [];
    const literal = (v) => { if (v !== "") parts.push({ type: "literal", value: v }); };
    for (const run of text.match(/\d+|\D+/g) ?? []) {
      if (/^\d/.test(run)) { parts.push({ type: order.shift() ?? "literal", value: run }); continue; }
      let rest = run;
      for (;;) {
        let best = null;
        for (const [word, type] of names) {
          const at = rest.indexOf(word);
          if (at >= 0 && (best === null || at < best[0])) best = [at, word, type];
        }
        if (best === null) { literal(rest); break; }
        // ICU's narrow no-break space before a day period, which V8's
        // `format` writes as a space but its parts keep (`5:45\u202fPM`).
        literal(best[2] === "dayPeriod" && /^[ap]\.?m\.?$/i.test(best[1]) && rest.slice(0, best[0]) === " " ? "\u202f" : rest.slice(0, best[0]));
        parts.push({ type: best[2], value: best[2] === "timeZoneName" ? zoneName : best[1] });
        rest = rest.slice(best[0] + best[1].length);
      }
    }
    return parts;
  };
  // `formatRangeToParts`: ICU's date intervals for en-US and en-GB (other
  // locales: both dates in full around the dash). Equal at the fields
  // shown, the one date; else the largest field that differs picks the
  // form: `Mar 4 – 15, 2024` / `4 – 15 Mar 2024` (days), `Mar 4 – Apr 2,
  // 2024` (months), both dates with their years (years), `Mar 4, 2024,
  // 9:00 – 10:30 AM` / `09:00–10:30` (times of one day), both dates and
  // times otherwise (a numeric date added where none is shown). en-GB
  // writes a 2-digit hour in a range; the dash has thin spaces (U+2009).
  const formatRangeParts = (x, y, r) => {
    const o = dateComponents(r);
    const tag = (ps, source) => ps.map((p) => ({ type: p.type, value: p.value, source }));
    const lit = (value, source = "shared") => ({ type: "literal", value, source });
    const fields = (t) => { const d = new RealDate(wallTime(t, r)); return [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 0, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()]; };
    const A = fields(x), B = fields(y);
    const hasTime = o.hour !== undefined || o.minute !== undefined || o.second !== undefined;
    const hasDate = o.year !== undefined || o.month !== undefined || o.day !== undefined || o.weekday !== undefined;
    const finest = o.second !== undefined ? 6 : o.minute !== undefined ? 5 : o.hour !== undefined ? 4 : o.day !== undefined || o.weekday !== undefined ? 2 : o.month !== undefined ? 1 : 0;
    let diff = -1;
    for (let i = 0; i <= 6; i++) if (A[i] !== B[i]) { diff = i; break; }
    if (diff === -1 || diff > finest) return tag(formatDateParts(x, r), "shared");
    const rr = { ...r, ...o, dateStyle: undefined, timeStyle: undefined, gb: r.gb, hour12: r.hour12 };
    const dash = lit("\u2009\u2013\u2009");
    // en-GB's range patterns write a long weekday without a comma (`Tuesday 5 March 2024`).
    const dateParts = (t, opts) => {
      const ps = formatDateParts(t, opts);
      if (r.gb && opts.weekday === "long" && o.year !== undefined && ps[1]?.type === "literal" && ps[1].value === ", ") ps[1] = { ...ps[1], value: " " };
      return ps;
    };
    const both = (opts, d = dash) => [...tag(dateParts(x, opts), "startRange"), d, ...tag(dateParts(y, opts), "endRange")];
    const tagLocale = r.numeric !== null ? "other" : "en";
    if (tagLocale !== "en") return both(r);
    if (r.gb && rr.hour !== undefined) rr.hour = "2-digit";
    const textMonth = o.month === "long" || o.month === "short" || o.month === "narrow";
    if (diff <= 2) {
      if (hasTime || !textMonth) {
        if (!hasDate) Object.assign(rr, { year: "numeric", month: "numeric", day: "numeric" });
        else if (diff === 0 && rr.year === undefined && rr.day !== undefined) rr.year = "numeric";
        return both(rr);
      }
      if (diff === 0) return both(rr.day !== undefined && rr.year === undefined ? { ...rr, year: "numeric" } : rr);
      const noYear = { ...rr, year: undefined };
      if (rr.weekday !== undefined || diff === 1 || rr.day === undefined) {
        const start = tag(dateParts(x, noYear), "startRange");
        let d = dash;
        if (r.gb && rr.weekday !== undefined && rr.year !== undefined && diff === 2) {
          // ICU's en-GB pattern has its thin space before the month: `Monday 4 March –\u2009Tuesday 5 March 2024`.
          const m = start.findIndex((p) => p.type === "month");
          if (m > 0 && start[m - 1].type === "literal") start[m - 1] = { ...start[m - 1], value: "\u2009" };
          d = lit(" \u2013\u2009");
        }
        return [...start, d, ...tag(dateParts(y, rr), "endRange")];
      }
      // Days of one month: `Mar 4 – 15, 2024`, `4 – 15 Mar 2024`.
      const month = { type: "month", value: dateName(MONTHS, A[1], o.month), source: "shared" };
      const day = (v, source) => ({ type: "day", value: o.day === "2-digit" ? pad2(v) : StringCtor(v), source });
      const year = rr.year === undefined ? [] : [lit(r.gb ? " " : ", "), { type: "year", value: rr.year === "2-digit" ? pad2(A[0] % 100) : StringCtor(A[0]), source: "shared" }];
      return r.gb ? [day(A[2], "startRange"), dash, day(B[2], "endRange"), lit(" "), month, ...year]
        : [month, lit(" "), day(A[2], "startRange"), dash, day(B[2], "endRange"), ...year];
    }
    // Times of one day: the date once, then the times.
    const dateOnly = { ...rr, hour: undefined, minute: undefined, second: undefined, timeZoneName: undefined };
    const timeOnly = { ...rr, weekday: undefined, year: undefined, month: undefined, day: undefined };
    const head = hasDate ? [...tag(formatDateParts(x, dateOnly), "shared"), lit(", ")] : [];
    if (r.gb || !rr.hour12) return [...head, ...both(timeOnly, lit(r.gb ? "\u2013" : "\u2009\u2013\u2009"))];
    const start = tag(formatDateParts(x, timeOnly), "startRange"), end = tag(formatDateParts(y, timeOnly), "endRange");
    if ((A[4] < 12) === (B[4] < 12)) {
      // One day period: `9:00 – 10:30 AM`, the period shared.
      const at = start.findIndex((p) => p.type === "dayPeriod");
      if (at > 0) start.splice(at - 1, 2);
      const e = end.findIndex((p) => p.type === "dayPeriod");
      if (e > 0) { end[e - 1] = { ...end[e - 1], source: "shared" }; end[e] = { ...end[e], source: "shared" }; }
    }
    return [...head, ...start, dash, ...end];
  };
  class DateTimeFormat {
    #options; #format;
    constructor(locales, options) { this.#options = dateOptions(options, "any", "date", locales); }
    // ECMA-402's `format` getter: a function bound to this formatter
    // (`dates.map(dtf.format)`).
    get format() {
      if (this.#format === undefined) {
        const r = this.#options;
        this.#format = (date) => {
          const t = date === undefined ? NumberCtor.NaN : NumberCtor(date);
          if (t !== t) throw new RangeErrorCtor("Invalid time value");
          return formatDate(t, r);
        };
      }
      return this.#format;
    }
    formatToParts(date) {
      const t = date === undefined ? NumberCtor.NaN : NumberCtor(date);
      if (t !== t) throw new RangeErrorCtor("Invalid time value");
      return formatDateParts(t, this.#options);
    }
    formatRange(start, end) {
      const parts = this.formatRangeToParts(start, end);
      // One date: `format`'s text (V8's plain space before a day period).
      if (parts.every((p) => p.source === "shared")) return formatDate(NumberCtor(start), this.#options);
      return parts.map((p) => p.value).join("");
    }
    formatRangeToParts(start, end) {
      if (start === undefined || end === undefined) throw new TypeErrorCtor("startDate or endDate is undefined");
      const a = NumberCtor(start), b = NumberCtor(end);
      if (a !== a || b !== b) throw new RangeErrorCtor("Invalid time value");
      return formatRangeParts(a, b, this.#options);
    }
    // ECMA-402's fields in its order: the styles, or the components the
    // formatter shows (ICU's 2-digit minutes and seconds beside an hour;
    // the hour cycle in English).
    resolvedOptions() {
      const r = this.#options;
      const out = { locale: r.locale, calendar: "gregory", numberingSystem: "latn", timeZone: r.zone.id };
      const english = /^en(-|$)/.test(r.locale);
      const hasHour = r.hour !== undefined || r.timeStyle !== undefined;
      if (hasHour && (english || r.hour12Given)) { out.hourCycle = r.hour12 ? "h12" : "h23"; out.hour12 = r.hour12; }
      if (r.dateStyle !== undefined || r.timeStyle !== undefined) {
        if (r.dateStyle !== undefined) out.dateStyle = r.dateStyle;
        if (r.timeStyle !== undefined) out.timeStyle = r.timeStyle;
        return out;
      }
      for (const k of ["weekday", "era", "year", "month", "day", "dayPeriod", "hour", "minute", "second"]) if (r[k] !== undefined) out[k] = r[k];
      if (out.minute !== undefined && (out.hour !== undefined || out.second !== undefined)) out.minute = "2-digit";
      if (out.second !== undefined && (out.hour !== undefined || out.minute !== undefined)) out.second = "2-digit";
      if (r.fractional !== undefined) out.fractionalSecondDigits = r.fractional;
      if (r.timeZoneName !== undefined) out.timeZoneName = r.timeZoneName;
      return out;
    }
  }
  // English plural categories and lists, as ICU's `en` (the rest of `Intl`
  // is absent rather than wrong).
  // CLDR's plural rules (ICU 74, Node 20) for the common languages, on
  // the operands of the number as formatted (`i` its integer digits, `v`
  // how many fraction digits show): `select(1)` is "one" in English and
  // "other" with `minimumFractionDigits: 1`. A language not listed has
  // English's rules, as ICU's default locale.
  const million = (i, v) => v === 0 && i !== 0 && i % 1000000 === 0;
  const PLURALS = {
    en: [(n, i, v) => (i === 1 && v === 0 ? "one" : "other"), ["one", "other"],
      (n) => { const t = n % 10, h = n % 100; return t === 1 && h !== 11 ? "one" : t === 2 && h !== 12 ? "two" : t === 3 && h !== 13 ? "few" : "other"; }, ["few", "one", "two", "other"]],
    de: [(n, i, v) => (i === 1 && v === 0 ? "one" : "other"), ["one", "other"]],
    fr: [(n, i, v) => (i === 0 || i === 1 ? "one" : million(i, v) ? "many" : "other"), ["many", "one", "other"], (n) => (n === 1 ? "one" : "other"), ["one", "other"]],
    es: [(n, i, v) => (n === 1 ? "one" : million(i, v) ? "many" : "other"), ["many", "one", "other"]],
    it: [(n, i, v) => (i === 1 && v === 0 ? "one" : million(i, v) ? "many" : "other"), ["many", "one", "other"], (n) => (n === 11 || n === 8 || n === 80 || n === 800 ? "many" : "other"), ["many", "other"]],
    pt: [(n, i, v) => (i === 0 || i === 1 ? "one" : million(i, v) ? "many" : "other"), ["many", "one", "other"]],
    "pt-PT": [(n, i, v) => (i === 1 && v === 0 ? "one" : million(i, v) ? "many" : "other"), ["many", "one", "other"]],
    ru: [(n, i, v) => {
      const t = i % 10, h = i % 100;
      if (v !== 0) return "other";
      return t === 1 && h !== 11 ? "one" : t >= 2 && t <= 4 && (h < 12 || h > 14) ? "few" : "many";
    }, ["few", "many", "one", "other"]],
    pl: [(n, i, v) => {
      const t = i % 10, h = i % 100;
      if (v !== 0) return "other";
      return i === 1 ? "one" : t >= 2 && t <= 4 && (h < 12 || h > 14) ? "few" : "many";
    }, ["few", "many", "one", "other"]],
    ar: [(n, i, v) => {
      const h = n % 100;
      return n === 0 ? "zero" : n === 1 ? "one" : n === 2 ? "two" : h >= 3 && h <= 10 ? "few" : h >= 11 && h <= 99 ? "many" : "other";
    }, ["few", "many", "one", "two", "zero", "other"]],
    ja: [() => "other", ["other"]],
  };
  for (const l of ["nl", "sv", "nb", "tr", "el", "fi", "hu", "et"]) PLURALS[l] = PLURALS.de;
  PLURALS.uk = [PLURALS.ru[0], PLURALS.ru[1], (n) => (n % 10 === 3 && n % 100 !== 13 ? "few" : "other"), ["few", "other"]];
  for (const l of ["zh", "ko", "th", "vi", "id"]) PLURALS[l] = PLURALS.ja;
  class PluralRules {
    #ordinal; #locale; #rules; #minFraction; #maxFraction;
    constructor(locales, options) {
      const list = canonicalLocales(locales);
      const o = isObject(options) ? options : {};
      const type = o.type !== undefined ? StringCtor(o.type) : "cardinal";
      if (type !== "cardinal" && type !== "ordinal") throw new RangeErrorCtor(`Value ${type} out of range for Intl.PluralRules options property type`);
      this.#ordinal = type === "ordinal";
      const base = numberFormat({ minimumFractionDigits: o.minimumFractionDigits, maximumFractionDigits: o.maximumFractionDigits });
      this.#minFraction = base.minFraction; this.#maxFraction = base.maxFraction;
      const tag = list[0] ?? "en-US", language = tag.split("-")[0];
      const key = language === "pt" && /-PT(-|$)/.test(tag) ? "pt-PT" : PLURALS[language] ? language : null;
      this.#locale = resolveLocale(list, "PluralRules");
      this.#rules = PLURALS[key ?? "en"];
    }
    select(x) {
      const n0 = NumberCtor(x);
      if (!NumberCtor.isFinite(n0)) return "other";
      // the operands of the number as written with the fraction digits
      let text = Math.abs(n0).toFixed(this.#maxFraction);
      if (text.includes(".")) {
        let end = text.length;
        while (end > text.indexOf(".") + 1 + this.#minFraction && text[end - 1] === "0") end--;
        if (text[end - 1] === ".") end--;
        text = text.slice(0, end);
      }
      const [int, frac = ""] = text.split(".");
      const n = NumberCtor(text), i = NumberCtor(int), v = frac.length;
      if (this.#ordinal) return this.#rules[2] && v === 0 ? this.#rules[2](n) : "other";
      return this.#rules[0](n, i, v);
    }
    resolvedOptions() {
      return {
        locale: this.#locale, type: this.#ordinal ? "ordinal" : "cardinal", minimumIntegerDigits: 1,
        minimumFractionDigits: this.#minFraction, maximumFractionDigits: this.#maxFraction,
        pluralCategories: [...(this.#ordinal ? this.#rules[3] ?? ["other"] : this.#rules[1])],
      };
    }
  }
  class ListFormat {
    #type; #style; #locale; #british;
    constructor(locales, options) {
      this.#locale = resolveLocale(locales, "ListFormat");
      this.#british = /^en-(?!US\b)[A-Z0-9]/.test(this.#locale);
      const o = isObject(options) ? options : {};
      this.#type = o.type === undefined ? "conjunction" : StringCtor(o.type);
      this.#style = o.style === undefined ? "long" : StringCtor(o.style);
      if (!["conjunction", "disjunction", "unit"].includes(this.#type)) throw new RangeErrorCtor(`Value ${this.#type} out of range for Intl.ListFormat options property type`);
      if (!["long", "short", "narrow"].includes(this.#style)) throw new RangeErrorCtor(`Value ${this.#style} out of range for Intl.ListFormat options property style`);
    }
    format(list) {
      const items = [];
      for (const x of list ?? []) {
        if (typeof x !== "string") throw new TypeErrorCtor("Iterable yielded a value that is not a string");
        items.push(x);
      }
      if (items.length < 2) return items.join("");
      const local = /^en(-|$)/.test(this.#locale) ? null : patternLocale(this.#locale);
      if (local !== null) {
        // ICU's glue for the languages of `date_patterns.js` (its `list`):
        // `A, B und C`, `A、B、またはC`; Spanish's `y` is `e` before an
        // i sound and `o` is `u` before an o sound (`A e Iris`, `7 u 8`).
        const table = dpLocale(local);
        let glue = table.list[this.#type][this.#style];
        while (typeof glue === "string") glue = table.list[this.#type][glue];
        const spanish = (g, next) => {
          if (!/^es(-|$)/.test(this.#locale)) return g;
          if (g === " y " && /^(i|hi)(?![aeou])/i.test(next)) return " e ";
          if (g === " o " && /^(h?o|8|11(?!\d))/i.test(next)) return " u ";
          return g;
        };
        if (items.length === 2) return items[0] + spanish(glue[0], items[1]) + items[1];
        let text = items[0] + glue[1];
        for (let i = 1; i < items.length - 1; i++) text += items[i] + (i === items.length - 2 ? spanish(glue[3], items[i + 1]) : glue[2]);
        return text + items[items.length - 1];
      }
      // ICU's `en-001` (en-GB, en-AU, en-IN, …): no serial comma, `and` for short.
      const british = this.#british;
      const [sep, last2, lastN] = this.#type === "disjunction" ? [", ", " or ", british ? " or " : ", or "]
        : this.#type === "unit" ? (this.#style === "narrow" ? [" ", " ", " "] : [", ", ", ", ", "])
        : british && this.#style !== "narrow" ? [", ", " and ", " and "]
        : this.#style === "long" ? [", ", " and ", ", and "] : this.#style === "short" ? [", ", " & ", ", & "] : [", ", ", ", ", "];
      if (items.length === 2) return items[0] + last2 + items[1];
      return items.slice(0, -1).join(sep) + lastN + items[items.length - 1];
    }
    resolvedOptions() { return { locale: this.#locale, type: this.#type, style: this.#style }; }
  }
  // Locale tags as ECMA-402 canonicalizes them (`EN-us` → `en-US`,
  // `zh-hant-tw` → `zh-Hant-TW`, extensions in lower case, a `-true`
  // keyword value dropped), with V8's errors for a malformed one: a tag
  // that does not start as a language id (`en_US`, `en-GB-oed`, `x-a`) is
  // `Incorrect locale information provided`, one that does but is not a
  // tag (`en-`, `de-1`) `Invalid language tag: <tag in lower case>`.
  const LANGUAGE_ID_PART = /^(?:[A-Za-z]{4}|[A-Za-z]{2}|[0-9]{3}|[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3})$/;
  const startsAsLanguageId = (text) => {
    const parts = text.split("-");
    if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
    if (!/^([A-Za-z]{2,3}|[A-Za-z]{5,8})$/.test(parts[0])) return false;
    for (let i = 1; i < parts.length; i++) {
      if (parts[i].length === 1) return true;
      if (!LANGUAGE_ID_PART.test(parts[i])) return false;
    }
    return true;
  };
  const canonicalLocale = (tag) => {
    if (typeof tag !== "string" && !isObject(tag)) throw new TypeErrorCtor("Language ID should be string or object.");
    const text = StringCtor(tag);
    if (!/^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*(-[A-WY-Za-wy-z0-9](-[A-Za-z0-9]{2,8})+)*(-x(-[A-Za-z0-9]{1,8})+)?$/.test(text)) {
      if (startsAsLanguageId(text)) throw new RangeErrorCtor(`Invalid language tag: ${nativeLower.call(text)}`);
      throw new RangeErrorCtor("Incorrect locale information provided");
    }
    let singleton = false;
    return text.split("-").map((part, i) => {
      if (i === 0 || singleton || part.length === 1) { singleton ||= part.length === 1; return nativeLower.call(part); }
      if (part.length === 4 && /^[A-Za-z]+$/.test(part)) return nativeUpper.call(part[0]) + nativeLower.call(part.slice(1));
      if (part.length === 2) return nativeUpper.call(part);
      return nativeLower.call(part);
    }).join("-").replace(/(-u(?:-[a-z0-9]{3,8})*(?:-[a-z0-9]{2}(?:-[a-z0-9]{3,8})*)*)/, (u) => u.replace(/(-[a-z0-9]{2})-true(?=-|$)/g, "$1"));
  };
  const canonicalLocales = (locales) => {
    if (locales === undefined) return [];
    if (locales === null) throw new TypeErrorCtor("Cannot convert undefined or null to object");
    const list = typeof locales === "string" ? [locales] : Array.from(Object(locales));
    const out = [];
    for (const tag of list) { const c = canonicalLocale(tag); if (!out.includes(c)) out.push(c); }
    return out;
  };
  // ECMA-402's locale negotiation (its LookupMatcher, which is what ICU's
  // best fit gives for these tags): the first requested locale whose tag,
  // less its extensions and then its last subtags one by one (`de-AT-x` →
  // `de-AT` → `de`), ICU has data for in the service (`locales.js`,
  // generated by scripts/gen-intl-locales.mjs from Node), else the default
  // `en-US`; the `-u-` keywords the service reads and hwf writes are kept
  // (`nu-latn`; `ca-gregory` for dates). A language hwf has no tables for
  // is then written in English, as before, not refused.
  const loadLocales = g.__hwf_load_locales;
  let localeTable;
  const localeSets = new MapCtor();
  const availableLocales = (service) => {
    let set = localeSets.get(service);
    if (set === undefined) {
      localeTable ??= loadLocales?.() ?? { all: "", services: {} };
      const spec = localeTable.services[service] ?? "-";
      set = new MapCtor();
      if (spec[0] === "+") for (const t of spec.slice(1).split(" ")) set.set(t, true);
      else {
        for (const t of localeTable.all.split(" ")) set.set(t, true);
        for (const t of spec.slice(1).split(" ")) set.delete(t);
      }
      localeSets.set(service, set);
    }
    return set;
  };
  const LOCALE_KEYWORDS = { NumberFormat: { nu: ["latn"] }, RelativeTimeFormat: { nu: ["latn"] }, DateTimeFormat: { ca: ["gregory"], hc: ["h11", "h12", "h23", "h24"], nu: ["latn"] } };
  // The available locale a canonical tag falls back to, or undefined.
  const availableLocale = (tag, service) => {
    const cut = tag.search(/-[a-z0-9]-/);
    let t = cut < 0 ? tag : tag.slice(0, cut);
    const set = availableLocales(service);
    for (;;) {
      if (set.has(t)) return t;
      const i = t.lastIndexOf("-");
      if (i < 0) return undefined;
      t = t.slice(0, i);
    }
  };
  const negotiated = new MapCtor();
  const resolveLocale = (locales, service) => {
    const list = canonicalLocales(locales);
    const key = list.length === 1 ? `${service}|${list[0]}` : null;
    if (key !== null && negotiated.has(key)) return negotiated.get(key);
    let found = "en-US";
    for (const tag of list) {
      const base = availableLocale(tag, service);
      if (base === undefined) continue;
      found = base;
      const wanted = LOCALE_KEYWORDS[service], u = /-u((?:-[a-z0-9]{2,8})+?)(?=-[a-z0-9]-|$)/.exec(tag);
      if (wanted !== undefined && u !== null) {
        const kept = [], parts = u[1].slice(1).split("-");
        for (let i = 0; i < parts.length; i++) {
          if (parts[i].length !== 2) continue;
          const value = parts[i + 1] !== undefined && parts[i + 1].length > 2 ? parts[i + 1] : "true";
          if (hasOwn(wanted, parts[i]) && wanted[parts[i]].includes(value)) kept.push(`${parts[i]}-${value}`);
        }
        if (kept.length > 0) found += `-u-${kept.join("-")}`;
      }
      break;
    }
    if (key !== null) {
      if (negotiated.size >= 256) negotiated.clear();
      negotiated.set(key, found);
    }
    return found;
  };
  // ECMA-402's `supportedLocalesOf`: the requested tags the service has data for.
  const supportedOf = (service) => ({ supportedLocalesOf(locales) { return canonicalLocales(locales).filter((t) => availableLocale(t, service) !== undefined); } }.supportedLocalesOf);
  // English relative times, as ICU's `en` (`3 days ago`, `in 2 hr.`,
  // `yesterday` with `numeric: "auto"`); another language is refused
  // rather than written in English.
  const RELATIVE_UNITS = {
    second: ["second", "sec.", "s", "now"], minute: ["minute", "min.", "m", "this minute"], hour: ["hour", "hr.", "h", "this hour"],
    day: ["day", "day", "d", null], week: ["week", "wk.", "w", null], month: ["month", "mo.", "mo", null],
    quarter: ["quarter", "qtr.", "q", null], year: ["year", "yr.", "y", null],
  };
  class RelativeTimeFormat {
    #locale; #style; #numeric; #table;
    constructor(locales, options) {
      this.#locale = resolveLocale(locales, "RelativeTimeFormat");
      // The languages of `date_patterns.js` (its `rtf`: ICU's patterns from
      // Node, `vor 3 Tagen`, `übermorgen`); others are English (a language
      // ICU lacks is English in Node too).
      this.#table = /^en(-|$)/.test(this.#locale) ? null : patternLocale(this.#locale);
      const o = isObject(options) ? options : {};
      this.#style = o.style === undefined ? "long" : StringCtor(o.style);
      this.#numeric = o.numeric === undefined ? "always" : StringCtor(o.numeric);
      if (!["long", "short", "narrow"].includes(this.#style)) throw new RangeErrorCtor(`Value ${this.#style} out of range for Intl.RelativeTimeFormat options property style`);
      if (!["always", "auto"].includes(this.#numeric)) throw new RangeErrorCtor(`Value ${this.#numeric} out of range for Intl.RelativeTimeFormat options property numeric`);
    }
    format(value, unit) {
      const v = NumberCtor(value), u0 = StringCtor(unit);
      const u = u0.endsWith("s") && RELATIVE_UNITS[u0.slice(0, -1)] ? u0.slice(0, -1) : u0;
      const names = RELATIVE_UNITS[u];
      if (names === undefined || u0 === "s") throw new RangeErrorCtor(`Invalid unit argument for Intl.RelativeTimeFormat.prototype.format() '${u0}'`);
      if (!NumberCtor.isFinite(v)) throw new RangeErrorCtor("Value need to be finite number for Intl.RelativeTimeFormat.prototype.format()");
      const past = v < 0 || (v === 0 && 1 / v < 0);
      if (this.#table !== null) {
        const table = dpLocale(this.#table);
        let byStyle = table.rtf[this.#style];
        while (typeof byStyle === "string") byStyle = table.rtf[byStyle];
        const entry = byStyle[u];
        if (this.#numeric === "auto" && hasOwn(entry.auto, StringCtor(v))) return entry.auto[StringCtor(v)];
        const n = Math.abs(v);
        const forms = past ? entry.past : entry.future;
        const pattern = typeof forms === "string" ? forms : forms[new PluralRules(this.#locale).select(n)] ?? forms.other;
        return pattern.replace("{0}", toLocale.call(n, this.#locale));
      }
      if (this.#numeric === "auto" && (v === 0 || v === 1 || v === -1)) {
        const s = this.#style === "long" ? names[0] : names[1];
        if (u === "day") return v === 0 ? "today" : v === 1 ? "tomorrow" : "yesterday";
        if (v === 0 && names[3] !== null) return names[3];
        if (names[3] === null) return `${v === 0 ? "this" : v === 1 ? "next" : "last"} ${s}`;
      }
      const n = Math.abs(v);
      const number = toLocale.call(n, "en-US");
      let word;
      if (this.#style === "narrow") return past ? `${number}${names[2]} ago` : `in ${number}${names[2]}`;
      if (this.#style === "short") word = u === "quarter" && n !== 1 ? "qtrs." : u === "day" && n !== 1 ? "days" : names[1];
      else word = n === 1 ? names[0] : `${names[0]}s`;
      return past ? `${number} ${word} ago` : `in ${number} ${word}`;
    }
    // ICU's parts: the text around the number, which is cut as
    // `NumberFormat#formatToParts` cuts it, each part with the unit
    // (`[{literal "vor "}, {integer "3", unit "day"}, {literal " Tagen"}]`);
    // a word (`gestern`) is one literal.
    formatToParts(value, unit) {
      const text = this.format(value, unit);
      const u0 = StringCtor(unit), u = u0.endsWith("s") ? u0.slice(0, -1) : u0;
      const locale = this.#table === null ? "en-US" : this.#locale;
      const number = toLocale.call(Math.abs(NumberCtor(value)), locale);
      const at = text.indexOf(number);
      if (at < 0) return [{ type: "literal", value: text }];
      const parts = [];
      if (at > 0) parts.push({ type: "literal", value: text.slice(0, at) });
      for (const p of numberParts(number, locale, undefined)) parts.push({ type: p.type, value: p.value, unit: u });
      if (at + number.length < text.length) parts.push({ type: "literal", value: text.slice(at + number.length) });
      return parts;
    }
    resolvedOptions() { return { locale: this.#locale, style: this.#style, numeric: this.#numeric, numberingSystem: "latn" }; }
  }
  // `Intl.DisplayNames` with ICU's English names as Node 20 gives them
  // (`display_names.js`, generated by scripts/gen-display-names.mjs from
  // Node): regions, languages (with dialect names, `zh-Hant` "Traditional
  // Chinese", and the parts ICU adds in parentheses), currencies, scripts,
  // calendars and date-time fields, long, short and narrow. Another
  // locale's names are English too; `resolvedOptions().locale` and
  // `supportedLocalesOf` negotiate as ICU's locales do.
  // The tables are read on a script's first DisplayNames (the native parses
  // `display_names.js` then): a run that never uses one does not carry them.
  const loadDn = g.__hwf_load_display_names;
  let dnTable, dnAvailable;
  const DN = () => (dnTable ??= loadDn?.() ?? {});
  const DN_AVAILABLE = () => (dnAvailable ??= new MapCtor((DN().available ?? "").split(" ").map((t) => [t, true])));
  const DN_TYPES = ["language", "region", "script", "currency", "calendar", "dateTimeField"];
  const dnInvalid = () => new RangeErrorCtor("invalid_argument");
  // A name of the table in the style: narrow falls back to short, short to long.
  const dnName = (table, style, key) => {
    if (table === undefined || !hasOwn(table.long, key)) return undefined;
    if (style === "narrow" && hasOwn(table.narrow, key)) return table.narrow[key];
    if (style !== "long" && hasOwn(table.short, key)) return table.short[key];
    return table.long[key];
  };
  const DN_GRANDFATHERED = /^(art-lojban|cel-gaulish|en-gb-oed|i-(ami|bnn|default|enochian|hak|klingon|lux|mingo|navajo|pwn|tao|tay|tsu)|no-(bok|nyn)|sgn-(be-fr|be-nl|ch-de)|zh-(guoyu|hakka|min|min-nan|xiang))$/i;
  const DN_TAG = /^([a-z]{2,3}((?:-[a-z]{3}){0,3})|[a-z]{4,8})(-[a-z]{4})?(-(?:[a-z]{2}|[0-9]{3}))?((?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*)((?:-[a-wyz0-9](?:-[a-z0-9]{2,8})+)*)(-x(?:-[a-z0-9]{1,8})+)?$/i;
  // ICU's name of a locale tag: the dialect name or the language's, then
  // the script, region and variants in parentheses.
  const languageName = (code, style, dialect, fallback) => {
    let lang, script, region, variants = [];
    const lower = nativeLower.call(code);
    if (code === "" || /^x(-[a-z0-9]{1,8})+$/i.test(code)) lang = "und";
    else if (DN_GRANDFATHERED.test(code)) [lang, script, region] = [DN().languageAlias?.[lower] ?? lower, undefined, undefined];
    else {
      const m = DN_TAG.exec(code);
      if (m === null) throw dnInvalid();
      lang = nativeLower.call(m[1]);
      if (m[2]) lang = nativeLower.call(m[2].split("-")[1]);
      if (m[3]) script = nativeUpper.call(m[3][1]) + nativeLower.call(m[3].slice(2));
      if (m[4]) region = nativeUpper.call(m[4].slice(1));
      if (m[5]) variants = m[5].slice(1).split("-").map((v) => nativeUpper.call(v)).sort();
    }
    const alias = DN().languageAlias?.[lang];
    if (alias !== undefined) {
      const [l, ...rest] = alias.split("-");
      lang = l;
      for (const p of rest) {
        if (p.length === 4) script ??= p;
        else if (p.length === 2 || p.length === 3) region ??= nativeUpper.call(p);
      }
    }
    if (region !== undefined) region = DN().regionAlias?.[`${lang}-${region}`] ?? DN().regionAlias?.[region] ?? region;
    if (lang === "und" || lang === "root") {
      if (fallback === "none") return undefined;
      lang = "root";
    }
    let base;
    if (dialect) {
      const key = script !== undefined && region !== undefined ? null : script !== undefined ? `${lang}-${script}` : region !== undefined ? `${lang}-${region}` : null;
      if (key !== null) base = dnName(DN().dialect, style, key);
      if (base !== undefined) { if (script !== undefined) script = undefined; else region = undefined; }
    }
    if (base === undefined) base = dnName(DN().language, style, lang);
    if (base === undefined) {
      if (fallback === "none") return undefined;
      base = lang;
    }
    const parts = [];
    if (script !== undefined) {
      const s = dnName(DN().script, style, script);
      if (s === undefined && fallback === "none") return undefined;
      parts.push(s ?? script);
    }
    if (region !== undefined) {
      const r = dnName(DN().region, style, region);
      if (r === undefined && fallback === "none") return undefined;
      parts.push(r ?? region);
    }
    if (variants.length > 0) {
      const v = variants.join("_"), name = dnName(DN().variant, style, v);
      if (name === undefined && fallback === "none") return undefined;
      parts.push(name ?? v);
    }
    if (parts.length === 0) return base;
    return `${base} (${parts.map((p) => p.replace(/\(/g, "[").replace(/\)/g, "]")).join(", ")})`;
  };
  const DN_FIELDS = ["era", "year", "quarter", "month", "weekOfYear", "weekday", "day", "dayPeriod", "hour", "minute", "second", "timeZoneName"];
  // The first requested locale ICU has names for, less its extensions and
  // the subtags it lacks (`en-XX` is `en`); none: the default, `en-US`.
  const displayLocale = (tag) => {
    let t = tag.replace(/-[a-wyz0-9](-[a-z0-9]{2,8})+.*$|-x(-[a-z0-9]{1,8})+$/i, "");
    for (;;) {
      if (DN_AVAILABLE().has(t)) return t;
      const i = t.lastIndexOf("-");
      if (i < 0) return undefined;
      t = t.slice(0, i);
    }
  };
  const dnOption = (o, key, values) => {
    const v = o[key];
    if (v === undefined) return undefined;
    const s = StringCtor(v);
    if (!values.includes(s)) throw new RangeErrorCtor(`Value ${s} out of range for Intl.DisplayNames options property ${key}`);
    return s;
  };
  const dnBrand = new WeakMapCtor();
  const dnState = (self, method) => {
    const st = isObject(self) ? dnBrand.get(self) : undefined;
    if (st === undefined) {
      // V8's text of the receiver in Claude Code's context: `[object Map]`.
      const shown = isObject(self) ? ObjectToString.call(self) : StringCtor(self);
      throw new TypeErrorCtor(`Method Intl.DisplayNames.prototype.${method} called on incompatible receiver ${shown}`);
    }
    return st;
  };
  // ECMA-402's `supportedLocalesOf`: the requested tags ICU has names for.
  const dnSupportedLocalesOf = { supportedLocalesOf(locales) { return canonicalLocales(locales).filter((t) => displayLocale(t) !== undefined); } }.supportedLocalesOf;
  class DisplayNames {
    constructor(locales, options) {
      const list = canonicalLocales(locales);
      if (options !== undefined && !isObject(options)) throw new TypeErrorCtor("invalid_argument");
      const o = options ?? {};
      dnOption(o, "localeMatcher", ["lookup", "best fit"]);
      const style = dnOption(o, "style", ["narrow", "short", "long"]) ?? "long";
      const type = dnOption(o, "type", DN_TYPES);
      if (type === undefined) throw new TypeErrorCtor("invalid_argument");
      const fallback = dnOption(o, "fallback", ["code", "none"]) ?? "code";
      const languageDisplay = dnOption(o, "languageDisplay", ["dialect", "standard"]) ?? "dialect";
      let locale;
      for (const t of list) if ((locale = displayLocale(t)) !== undefined) break;
      dnBrand.set(this, { locale: locale ?? "en-US", style, type, fallback, languageDisplay });
    }
    resolvedOptions() {
      const st = dnState(this, "resolvedOptions");
      const r = { locale: st.locale, style: st.style, type: st.type, fallback: st.fallback };
      if (st.type === "language") r.languageDisplay = st.languageDisplay;
      return r;
    }
    of(code) {
      const st = dnState(this, "of");
      const c = StringCtor(code), none = st.fallback === "none";
      switch (st.type) {
        case "region":
          if (c !== "" && !/^([A-Za-z]{2}|[0-9]{3})$/.test(c)) throw dnInvalid();
          return dnName(DN().region, st.style, c) ?? (none ? undefined : c);
        case "script":
          if (c !== "" && !/^[A-Za-z]{4}$/.test(c)) throw dnInvalid();
          return dnName(DN().script, st.style, c) ?? (none ? undefined : c);
        case "currency": {
          if (!/^[A-Za-z]{3}$/.test(c)) throw dnInvalid();
          return dnName(DN().currency, st.style, nativeUpper.call(c)) ?? (none ? undefined : c);
        }
        case "calendar": {
          if (!/^[A-Za-z0-9]{3,8}(-[A-Za-z0-9]{3,8})*$/.test(c)) throw dnInvalid();
          return dnName(DN().calendar, st.style, DN().calendarAlias?.[c] ?? c) ?? (none ? undefined : c);
        }
        case "dateTimeField":
          if (!DN_FIELDS.includes(c)) throw dnInvalid();
          return dnName(DN().dateTimeField, st.style, c);
        default:
          return languageName(c, st.style, st.languageDisplay === "dialect", st.fallback);
      }
    }
  }
  defineProperty(DisplayNames.prototype, Symbol.toStringTag, { value: "Intl.DisplayNames", configurable: true });
  // `Intl.Segmenter` by UAX #29's rules, as ICU applies them for `en`
  // (without its data): grapheme clusters (marks, ZWJ emoji sequences,
  // flags, Indic conjuncts), words (letters and digits joined across
  // `.` `'` `’`, `:` between letters, `,` `;` between digits, `"` between
  // Hebrew letters; `_` joins;
  // runs of spaces; CJK by script runs where ICU uses a dictionary) and
  // sentences (a terminator, closing marks and spaces; no break after `.`
  // before a digit, an uppercase letter with no space, or a lowercase word).
  const GRAPHEME_EXTEND = "[\\p{Grapheme_Extend}\\p{Mc}\\u200d\\p{Emoji_Modifier}]";
  const GRAPHEME = new RegExp("\\r\\n|\\p{RI}\\p{RI}|\\p{Extended_Pictographic}" + GRAPHEME_EXTEND + "*(?:(?<=\\u200d)\\p{Extended_Pictographic}" + GRAPHEME_EXTEND + "*)*" +
    "|[^\\p{Cc}\\p{Zl}\\p{Zp}](?:" + GRAPHEME_EXTEND + "|(?<=[\\u094d\\u09cd\\u0a4d\\u0acd\\u0b4d\\u0bcd\\u0c4d\\u0ccd\\u0d4d])\\p{L})*|[\\s\\S]", "gu");
  const CJK = "[\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\u30fc]";
  const WORD_CHAR = "(?:(?!" + CJK + ")[\\p{Alphabetic}\\p{Nd}\\p{Pc}])[\\p{M}\\p{Cf}]*";
  const WORD = new RegExp("(?:" + WORD_CHAR + ")+(?:(?:(?<=\\p{L}[\\p{M}\\p{Cf}]*)[.'\\u2019:\\u00b7](?=(?!" + CJK + ")\\p{L})|(?<=\\p{Nd})[.'\\u2019,;](?=\\p{Nd})|(?<=\\p{sc=Hebrew})\"(?=\\p{sc=Hebrew}))(?:" + WORD_CHAR + ")+)*" +
    "|\\p{sc=Han}+|\\p{sc=Hiragana}+|[\\p{sc=Katakana}\\u30fc]+", "yu");
  const SPACES = /[\p{Zs}]+/yu;
  const graphemeAt = (text, i) => { GRAPHEME.lastIndex = i; return GRAPHEME.exec(text)[0]; };
  const segmentsOf = (text, granularity) => {
    const out = [];
    if (granularity === "grapheme") {
      for (let i = 0; i < text.length;) { const g = graphemeAt(text, i); out.push([i, g]); i += g.length; }
    } else if (granularity === "word") {
      for (let i = 0; i < text.length;) {
        WORD.lastIndex = i;
        let m = WORD.exec(text);
        if (m !== null) { out.push([i, m[0], true]); i += m[0].length; continue; }
        SPACES.lastIndex = i;
        m = SPACES.exec(text);
        const g = m !== null ? m[0] : graphemeAt(text, i);
        out.push([i, g, false]);
        i += g.length;
      }
    } else {
      const isA = (c) => /^[.\u2024\ufe52\uff0e]$/.test(c);
      const isS = (c) => /^[!?\u0589\u061f\u06d4\u0700-\u0702\u07f9\u0964\u0965\u203c\u203d\u2047-\u2049\u3002\ufe56\ufe57\uff01\uff1f\uff61]$/.test(c);
      const isSep = (c) => /^[\n\r\u0085\u2028\u2029]$/.test(c);
      const isClose = (c) => /^[\p{Ps}\p{Pe}\p{Pi}\p{Pf}"']$/u.test(c);
      const isSp = (c) => /^[\p{Zs}\t\v\f]$/u.test(c);
      const isLetter = (c) => /^\p{Alphabetic}$/u.test(c);
      let start = 0;
      for (let i = 0; i < text.length;) {
        const c = text[i];
        if (isSep(c)) {
          i += c === "\r" && text[i + 1] === "\n" ? 2 : 1;
          out.push([start, text.slice(start, i)]);
          start = i;
          continue;
        }
        if (!isA(c) && !isS(c)) { i++; continue; }
        let j = i;
        while (j < text.length && (isA(text[j]) || isS(text[j]))) j++;
        const last = text[j - 1], next = text[j];
        if (isA(last) && j === i + 1 && next !== undefined) {
          // `3.14`; `U.S`, `x.y` (a letter before, no space after).
          if (/^\p{Nd}$/u.test(next)) { i = j; continue; }
          if (isLetter(text[i - 1] ?? "") && isLetter(next)) { i = j; continue; }
        }
        let k = j;
        while (k < text.length && isClose(text[k])) k++;
        while (k < text.length && isSp(text[k])) k++;
        if (isA(last)) {
          // A lowercase word next continues the sentence (`U.S.A. is`).
          let q = k;
          while (q < text.length && !isLetter(text[q]) && !isSep(text[q]) && !isA(text[q]) && !isS(text[q])) q++;
          if (q < text.length && /^\p{Lowercase}$/u.test(text[q])) { i = k; continue; }
        }
        if (k < text.length && /^[,\-:;\u055d\u060c\u060d\u07f8\u1802\u1808\u2013\u2014\u3001\ufe10\ufe11\ufe13\ufe31\ufe32\ufe50\ufe51\ufe55\ufe58\ufe63\uff0c\uff0d\uff1a\uff1b\uff64]$/.test(text[k])) { i = k; continue; }
        if (k < text.length && isSep(text[k])) k += text[k] === "\r" && text[k + 1] === "\n" ? 2 : 1;
        if (k >= text.length) break;
        out.push([start, text.slice(start, k)]);
        start = i = k;
      }
      if (start < text.length) out.push([start, text.slice(start)]);
    }
    return out;
  };
  const segmentData = (seg, input, granularity) => {
    const d = { segment: seg[1], index: seg[0], input };
    if (granularity === "word") d.isWordLike = seg[2];
    return d;
  };
  const SegmentIteratorProto = Object.create(Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())));
  defineProperty(SegmentIteratorProto, Symbol.toStringTag, { value: "Segmenter String Iterator", configurable: true });
  const SegmentsProto = {
    containing(index) {
      const n = NumberCtor(index), i = n !== n ? 0 : Math.trunc(n);
      const { input, granularity, list } = segmentsState(this);
      if (!(i >= 0 && i < input.length)) return undefined;
      const seg = list().find(([at, text]) => i >= at && i < at + text.length);
      return seg === undefined ? undefined : segmentData(seg, input, granularity);
    },
  };
  defineProperty(SegmentsProto, "containing", { enumerable: false });
  const segmentsStates = new WeakMap();
  const segmentsState = (self) => {
    const st = segmentsStates.get(self);
    if (st === undefined) throw new TypeErrorCtor("Method %Segments.prototype%.containing called on incompatible receiver");
    return st;
  };
  defineProperty(SegmentsProto, Symbol.iterator, { value: { [Symbol.iterator]() {
    const { input, granularity, list } = segmentsState(this);
    const segs = list();
    let n = 0;
    const it = Object.create(SegmentIteratorProto);
    defineProperty(it, "next", { value: () => (n < segs.length ? { value: segmentData(segs[n++], input, granularity), done: false } : { value: undefined, done: true }), enumerable: false });
    return it;
  } }[Symbol.iterator], writable: true, enumerable: false, configurable: true });
  class Segmenter {
    #locale; #granularity;
    constructor(locales, options) {
      this.#locale = resolveLocale(locales, "Segmenter");
      const o = isObject(options) ? options : {};
      const g = o.granularity === undefined ? "grapheme" : StringCtor(o.granularity);
      if (!["grapheme", "word", "sentence"].includes(g)) throw new RangeErrorCtor(`Value ${g} out of range for Intl.Segmenter options property granularity`);
      this.#granularity = g;
    }
    segment(string) {
      const input = StringCtor(string), granularity = this.#granularity;
      let cache;
      const segments = Object.create(SegmentsProto);
      segmentsStates.set(segments, { input, granularity, list: () => (cache ??= segmentsOf(input, granularity)) });
      return segments;
    }
    resolvedOptions() { return { locale: this.#locale, granularity: this.#granularity }; }
  }
  defineProperty(Segmenter.prototype, Symbol.toStringTag, { value: "Intl.Segmenter", configurable: true });
  // `BigInt#toLocaleString` as ICU: the digits grouped as the locale groups
  // a number's (exact, however many); with options, a safe integer as the
  // number's `toLocaleString`.
  const bigintValueOf = BigInt.prototype.valueOf;
  defineProperty(BigInt.prototype, "toLocaleString", { value: { toLocaleString(locales, options) {
    let b;
    try { b = bigintValueOf.call(this); } catch { throw new TypeErrorCtor("BigInt.prototype.toLocaleString requires that 'this' be a BigInt"); }
    if (options !== undefined && b <= 9007199254740991n && b >= -9007199254740991n) return toLocale.call(NumberCtor(b), locales, options);
    const thousand = toLocale.call(1000, locales);
    const sep = thousand.length === 5 ? thousand[1] : "";
    const digits = StringCtor(b < 0n ? -b : b);
    let out = "";
    for (let i = digits.length; i > 0; i -= 3) out = (i > 3 ? sep : "") + digits.slice(Math.max(0, i - 3), i) + out;
    return (b < 0n ? "-" : "") + out;
  } }.toLocaleString, writable: true, enumerable: false, configurable: true });
  const bigintToLocale = BigInt.prototype.toLocaleString;
  // `Array#toLocaleString(locales, options)` as ECMA-402 has it (V8): each
  // element's own `toLocaleString(locales, options)`, `null` / `undefined`
  // as "", joined by ","; an array met again inside itself is "", as V8's
  // join does. QuickJS-ng's dropped the arguments (`[1234.5].toLocaleString
  // ("de")` was `1,234.5`). Typed arrays the same way.
  const inLocaleJoin = new Set();
  const setHas = Set.prototype.has, setAdd = Set.prototype.add, setDelete = Set.prototype.delete, toObject = Object;
  const localeJoin = (what) => ({ toLocaleString(locales, options) {
    if (this === null || this === undefined) throw new TypeErrorCtor(`${what}.prototype.toLocaleString called on null or undefined`);
    const o = toObject(this);
    if (apply(setHas, inLocaleJoin, [o])) return "";
    apply(setAdd, inLocaleJoin, [o]);
    try {
      const len = NumberCtor(o.length) || 0;
      let out = "";
      for (let i = 0; i < len; i++) {
        if (i > 0) out += ",";
        const e = o[i];
        if (e !== undefined && e !== null) out += StringCtor(apply(e.toLocaleString, e, [locales, options]));
      }
      return out;
    } finally { apply(setDelete, inLocaleJoin, [o]); }
  } }.toLocaleString);
  defineProperty(Array.prototype, "toLocaleString", { value: localeJoin("Array"), writable: true, enumerable: false, configurable: true });
  defineProperty(Object.getPrototypeOf(Uint8Array.prototype), "toLocaleString", { value: localeJoin("%TypedArray%"), writable: true, enumerable: false, configurable: true });
  // `Intl.supportedValuesOf`: what hwf writes, not all ICU has: the
  // Gregorian calendar, Latin digits, no collation beyond the default, the
  // time zones of `tz_data.js` (their IDs as `resolvedOptions` gives them),
  // ECMA-402's simple units, the currencies ICU names.
  const supportedValues = (key) => {
    const k = StringCtor(key);
    const sorted = (list) => list.filter((x, i) => list.indexOf(x) === i).sort();
    switch (k) {
      case "calendar": return ["gregory"];
      case "collation": return [];
      case "numberingSystem": return ["latn"];
      case "timeZone": return sorted(Object.values(TZ().names ?? {}).map((v) => v[0]).filter((id) => id.includes("/") && !id.startsWith("Etc/")).concat(["UTC"]));
      case "unit": return keysOf(UNIT_FORMS).sort();
      case "currency": return keysOf(DN().currency?.long ?? {}).filter((c) => /^[A-Z]{3}$/.test(c)).sort();
      default: throw new RangeErrorCtor(`Invalid key : ${k}`);
    }
  };
  // `Intl.NumberFormat()`, `Intl.Collator()` and `Intl.DateTimeFormat()`
  // may be called without `new` (ECMA-402); the newer ones may not (V8's error).
  const callable = (Impl, requireNew = false) => {
    const C = function (locales, options) {
      if (requireNew && new.target === undefined) throw new TypeErrorCtor(`Constructor Intl.${Impl.name} requires 'new'`);
      return new Impl(locales, options);
    };
    defineProperty(C, "name", { value: Impl.name });
    defineProperty(C, "supportedLocalesOf", { value: supportedOf(Impl.name), writable: true, enumerable: false, configurable: true });
    defineProperty(C, "prototype", { value: Impl.prototype, writable: false, enumerable: false, configurable: false });
    defineProperty(Impl.prototype, "constructor", { value: C, writable: true, enumerable: false, configurable: true });
    return C;
  };
  const displayNames = callable(DisplayNames, true);
  defineProperty(displayNames, "supportedLocalesOf", { value: dnSupportedLocalesOf, writable: true, enumerable: false, configurable: true });
  defineProperty(g, "Intl", {
    value: freeze({
      NumberFormat: callable(NumberFormat), Collator: callable(Collator), DateTimeFormat: callable(DateTimeFormat),
      PluralRules: callable(PluralRules, true), ListFormat: callable(ListFormat, true), RelativeTimeFormat: callable(RelativeTimeFormat, true),
      Segmenter: callable(Segmenter, true), DisplayNames: displayNames,
      getCanonicalLocales: { getCanonicalLocales(locales) { return canonicalLocales(locales); } }.getCanonicalLocales,
      supportedValuesOf: { supportedValuesOf(key) { return supportedValues(key); } }.supportedValuesOf,
    }),
    writable: true, enumerable: false, configurable: true,
  });

  // The deterministic subset: no clock and no randomness, however reached.
  const RealDate = Date;
  const deny = () => { throw new ErrorCtor(NONDETERMINISM); };
  function SafeDate(...a) {
    if (new.target === undefined || a.length === 0) deny();
    return construct(RealDate, a, new.target);
  }
  SafeDate.prototype = RealDate.prototype;
  SafeDate.now = deny;
  SafeDate.UTC = RealDate.UTC;
  SafeDate.parse = RealDate.parse;
  defineProperty(RealDate.prototype, "constructor", { value: SafeDate, writable: false, enumerable: false, configurable: false });
  // The script's globals in the order Claude Code's context has them
  // (`Object.keys(globalThis)`): the host's (`log` … `clearTimeout`), then
  // `Date` (its shim is assigned to the global), then `agent`,
  // `parallel`, `pipeline`, `workflow` and `args`; hwf's `capability` is
  // not enumerable.
  const again = (k) => { const v = g[k]; delete g[k]; defineProperty(g, k, { value: v, writable: true, enumerable: true, configurable: true }); };
  for (const k of ["log", "phase", "console", "budget", "setTimeout", "clearTimeout"]) again(k);
  delete g.Date;
  defineProperty(g, "Date", { value: SafeDate, writable: false, enumerable: true, configurable: false });
  for (const k of ["agent", "parallel", "pipeline", "workflow", "args"]) again(k);
  defineProperty(Math, "random", { value: deny, writable: false, enumerable: false, configurable: false });
  // `Error.prepareStackTrace`'s call sites: QuickJS-ng's `getFunction()`
  // returns the function of any frame, so a `valueOf` that `new Date(x)`
  // calls took the real `Date` (and its `now`) off the stack, and a getter
  // the prelude's own helpers. V8 returns `undefined` for strict code and
  // never shows builtins; every frame here is one or the other.
  {
    ErrorCtor.prepareStackTrace = (_, sites) => sites;
    const sites = new ErrorCtor().stack;
    ErrorCtor.prepareStackTrace = undefined;
    defineProperty(Object.getPrototypeOf(sites[0]), "getFunction", {
      value: { getFunction() { return undefined; } }.getFunction, writable: true, enumerable: false, configurable: true,
    });
  }
  // Code from strings is refused, as in Claude Code's `vm` context
  // (`codeGeneration: { strings: false }`): `eval(…)`, `Function(…)` and
  // the other function constructors throw `EvalError` with V8's message.
  // (QuickJS evaluates the runtime's own code through the same entry, so
  // the constructors are replaced rather than the engine's eval removed.)
  const EvalErrorCtor = EvalError, getPrototypeOf = Object.getPrototypeOf;
  const noStrings = () => { throw new EvalErrorCtor("Code generation from strings disallowed for this context"); };
  for (const proto of [Function.prototype, getPrototypeOf(async function () {}), getPrototypeOf(function* () {}),
    getPrototypeOf(async function* () {})]) {
    const original = proto.constructor;
    function Refused() { noStrings(); }
    defineProperty(Refused, "name", { value: original.name });
    defineProperty(Refused, "prototype", { value: proto, writable: false, enumerable: false, configurable: false });
    defineProperty(proto, "constructor", { value: Refused, writable: false, enumerable: false, configurable: false });
    if (proto === Function.prototype) defineProperty(g, "Function", { value: Refused, writable: true, enumerable: false, configurable: true });
  }
  defineProperty(g, "eval", { value: { eval(x) { noStrings(); } }.eval, writable: true, enumerable: false, configurable: true });

  // The globals Claude Code deletes from its context ("no use in a
  // workflow": callbacks outside any try, shared memory) are absent here
  // too: `WeakRef`, `FinalizationRegistry`, `SharedArrayBuffer`, `Atomics`
  // (and `queueMicrotask`, `WebAssembly`, `ShadowRealm`, below or never
  // there).
  for (const k of ["WeakRef", "FinalizationRegistry", "SharedArrayBuffer", "Atomics", "WebAssembly", "ShadowRealm"]) {
    try { delete g[k]; } catch { g[k] = undefined; }
  }
  // Claude Code deletes V8's `Error.captureStackTrace` too.
  try { delete Error.captureStackTrace; } catch { /* not there */ }

  // QuickJS's globals beyond Claude Code's: `performance` reads the clock;
  // the web APIs and engine-specific ones are not in hwf's API
  // (`escape`, `unescape`, `Float16Array`, `DisposableStack`,
  // `AsyncDisposableStack` and `SuppressedError` stay: Bun's `vm` context,
  // where Claude Code runs scripts, has them.)
  for (const k of ["performance", "DOMException", "InternalError", "atob", "btoa", "queueMicrotask"]) {
    try { delete g[k]; } catch { g[k] = undefined; }
  }
  for (const k of Object.getOwnPropertyNames(g).filter((k) => k.startsWith("__hwf_"))) delete g[k];

  // Claude Code's hardening of its context (its `vmHardening`), last, once
  // the runtime has defined what it defines: the builtin constructors,
  // their prototypes, the iterator prototypes and the namespaces are
  // frozen, so a script that patches a builtin (`Array.prototype.last =
  // …`, `Math.max = …`) gets a `TypeError` there as here; the common
  // inherited data properties (`toString`, `constructor`, an error's
  // `name` and `message`, …) first become accessors whose setter defines
  // the property on the receiver, so `this.name = "MyError"` in a
  // subclass and `obj.toString = …` still work (the "override mistake").
  // A property the runtime made non-configurable stays as it is.
  {
    // First, as there, a fixed `Error.prepareStackTrace` (QuickJS-ng's is
    // an accessor, which freezing would leave settable).
    defineProperty(Error, "prepareStackTrace", {
      value: (err) => { const s = err.stack; return typeof s === "string" ? s : ""; },
      writable: false, enumerable: false, configurable: false,
    });
    const getOwn = Object.getOwnPropertyDescriptor, names = Object.getOwnPropertyNames;
    const enableOverride = (proto, key) => {
      const d = getOwn(proto, key);
      if (!d || "get" in d || !d.configurable) return;
      const v = d.value;
      defineProperty(proto, key, {
        get() { return v; },
        set(nv) {
          if (this === proto) return;
          defineProperty(this, key, { value: nv, writable: true, enumerable: true, configurable: true });
        },
        enumerable: d.enumerable, configurable: true,
      });
    };
    const errorCtors = [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, AggregateError, g.SuppressedError]
      .filter(Boolean);
    for (const [proto, keys] of [
      [Object.prototype, names(Object.prototype)],
      [Function.prototype, ["toString", "constructor", "name", "length"]],
      [Array.prototype, ["toString", "constructor"]],
      [Date.prototype, ["toString", "toLocaleString", "valueOf", "constructor"]],
      ...errorCtors.map((C) => [C.prototype, ["name", "message", "toString", "constructor"]]),
    ]) for (const k of keys) enableOverride(proto, k);
    const both = (C) => { freeze(C); if (C.prototype) freeze(C.prototype); };
    for (const C of [Promise, Object, Array, Function, g.Iterator, Map, Set, WeakMap, WeakSet, String, Number, Boolean, Symbol, BigInt,
      Date, RegExp, ArrayBuffer, DataView, ...errorCtors].filter(Boolean)) both(C);
    for (const C of [getPrototypeOf(Int8Array), Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
      g.Float16Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array].filter(Boolean)) both(C);
    for (const f of [async () => {}, function* () {}, async function* () {}]) both(f.constructor);
    for (const C of [g.DisposableStack, g.AsyncDisposableStack, g.Intl].filter(Boolean)) both(C);
    for (const ns of [JSON, Math, Reflect, Proxy]) freeze(ns);
    defineProperty(g, "then", { value: undefined, writable: false, configurable: false });
    defineProperty(g, "Error", { value: Error, writable: false, enumerable: false, configurable: false });
    for (const k of names(g.Intl)) { const C = g.Intl[k]; if (typeof C === "function") both(C); }
    for (const it of [[][Symbol.iterator](), ""[Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator](), "a".matchAll(/a/g),
      ...(typeof g.Iterator === "function" && g.Iterator.from ? [[].values().map((x) => x), g.Iterator.from({ next: () => ({ done: true }) })] : []),
      (function* () {})(), (async function* () {})()]) {
      for (let p = getPrototypeOf(it); p; p = getPrototypeOf(p)) freeze(p);
    }
  }

  // An uncaught error as one line, as Claude Code reports it: `Name:
  // message` (`Error: boom`; a thrown string or number is the message of
  // an `Error`; the name alone when there is no message). hwf's own coded
  // errors (`limit_agent: …`, `nondeterminism: …`) stay as they are, their
  // code first. The engine adds the script line.
  const describe = (e) => {
    if (isBudgetError(e)) {
      try { return `${budgetCode(e)}: WorkflowBudgetExceededError: ${StringCtor(e.message)}`; } catch { /* fall through */ }
    }
    if (isCapError(e)) {
      try { return `limit_agent: WorkflowAgentCapError: ${StringCtor(e.message)}`; } catch { /* fall through */ }
    }
    // Claude Code's reading of a thrown value: its `name` if a string, its
    // `message` if a string, a thrown string itself, else `<non-string
    // error>` (`throw 42`, `throw {}`, `throw null`).
    let name = "Error", message;
    try { const v = e?.name; if (typeof v === "string") name = v; } catch { /* keep "Error" */ }
    try {
      const v = e?.message;
      message = typeof v === "string" ? v : typeof e === "string" ? e : "<non-string error>";
    } catch { message = "<unprintable thrown value>"; }
    // Only hwf's own errors lead with their code: a host call's failure
    // (its `code` rides on it) and the clock's refusal. A script's
    // `new Error("failed: tests red")` keeps its name.
    let code;
    try {
      const d = e !== null && typeof e === "object" ? getOwnDescriptor(e, "code") : undefined;
      if (d !== undefined && "value" in d && typeof d.value === "string") code = d.value;
    } catch { /* none */ }
    if (name === "Error" && ((code !== undefined && apply(strSlice, message, [0, code.length + 2]) === `${code}: `) || message === NONDETERMINISM)) {
      return message;
    }
    return message ? `${name}: ${message}` : name;
  };
  // The result as Claude Code makes it: its copy (above), then JSON. A
  // function is refused, as there.
  const result = (v) => {
    if (typeof v === "function") throw new ErrorCtor("workflow result cannot be a function");
    const s = stringify(copy(v));
    return s === undefined ? "null" : s;
  };
  // What Claude Code's compiled scripts call (the engine calls them in the
  // script's functions, `vendor/README.md`): `Promise.resolve` bound to
  // `Promise` on every async function's returned value (its `__wRg$`),
  // and its async-iterator wrapper on what `for await` (and `yield*` in an
  // async generator) iterates (its `__wRg$a`), word for word.
  const R = PromiseCtor.resolve.bind(PromiseCtor);
  const forAwait = (it) => ({ [Symbol.asyncIterator]() {
    const ai = it[Symbol.asyncIterator];
    if (ai != null && typeof ai !== "function") throw new TypeError("@@asyncIterator is not a function");
    const i = ai != null ? ai.call(it) : it[Symbol.iterator]();
    if (i === null || (typeof i !== "object" && typeof i !== "function")) throw new TypeError("Iterator is not an object");
    const nxt = i.next;
    if (typeof nxt !== "function") throw new TypeError("Iterator.next is not a function");
    const ret = i.return;
    const thr = i.throw;
    const w = (s) => R(s).then((s) => {
      if (s === null || (typeof s !== "object" && typeof s !== "function")) throw new TypeError("Iterator result is not an object");
      const done = s.done;
      return R(s.value).then((value) => ({ value, done }));
    });
    return {
      next: (v) => w(nxt.call(i, v)),
      return: (v) => w(typeof ret === "function" ? ret.call(i, v) : { value: v, done: true }),
      throw: (e) => (typeof thr === "function" ? w(thr.call(i, e))
        : R(typeof ret === "function" ? ret.call(i) : undefined).then(() => { throw new TypeError("The iterator does not provide a throw method"); })),
    };
  } });
  // The run's own values, given once before its script: `args` and the
  // budget's total. Both globals are redefined in place, so they keep
  // their place in Claude Code's order of globals (above).
  const begin = (runArgs, budgetTotal) => {
    total = budgetTotal;
    defineProperty(g, "budget", { value: makeBudget(), writable: true, enumerable: true, configurable: true });
    defineProperty(g, "args", { value: runArgs, writable: true, enumerable: true, configurable: true });
  };
  return { begin, fireNext, failure, describe, stringify: result, nextTurn, asyncReturn: R, forAwait };
})();
