// The script API on the runtime's native functions (`engine.rs`). It runs
// once before the script and evaluates to the helpers the event loop uses.
(() => {
  "use strict";
  const g = globalThis;
  const nativeAgent = g.__hwf_agent, nativeCapability = g.__hwf_capability, nativeWorkflow = g.__hwf_workflow;
  const nativePhase = g.__hwf_phase, nativeLog = g.__hwf_log, checkItems = g.__hwf_check_items;
  const spent = g.__hwf_budget_spent, remaining = g.__hwf_budget_remaining, total = g.__hwf_budget_total;
  const NONDETERMINISM = g.__hwf_nondeterminism;
  const stringify = JSON.stringify, parse = JSON.parse, isArray = Array.isArray;
  const construct = Reflect.construct, defineProperty = Object.defineProperty, freeze = Object.freeze;
  const MapCtor = Map, WeakMapCtor = WeakMap, PromiseCtor = Promise, ErrorCtor = Error, TypeErrorCtor = TypeError, StringCtor = String;

  // Plain data as JSON text for the natives ("null" for undefined, a
  // function or a symbol, as JSON.stringify leaves them out).
  const json = (v) => {
    if (v === undefined || v === null) return "null";
    const s = stringify(v);
    return s === undefined ? "null" : s;
  };

  // Pending host calls: id -> {resolve, reject, agent}.
  // The helpers the event loop calls (`settle`, `isAgent`, `fireNext`,
  // `endJob`) use no method or setter a script can replace
  // (`Map.prototype.get`, a setter for `code` on `Error.prototype`, an
  // `Object.prototype.get` that turns a descriptor into an accessor's…):
  // objects without a prototype, properties defined rather than assigned,
  // functions taken before the script runs. A script that replaces
  // builtins breaks its own calls to them, never the runtime.
  const create = Object.create, apply = Reflect.apply;
  const dataProperty = (o, k, v) =>
    defineProperty(o, k, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true });
  const pending = create(null);
  const track = (id, agent) => new PromiseCtor((resolve, reject) => { dataProperty(pending, id, { resolve, reject, agent }); });
  const settle = (id, text) => {
    const p = pending[id];
    if (p === undefined) return;
    delete pending[id];
    const o = parse(text);
    if (o[0]) {
      p.resolve(o[1]);
    } else {
      const e = o[2] === "token_budget" || o[2] === "cost_budget" ? budgetError(o[1], o[2]) : new ErrorCtor(o[1]);
      dataProperty(e, "code", o[2]);
      dataProperty(e, "kind", o[3]);
      p.reject(e);
    }
  };
  const isAgent = (id) => { const p = pending[id]; return p !== undefined && p.agent; };
  // A spent token or cost budget, as Claude Code says it: an error named
  // `WorkflowBudgetExceededError` the script may catch; a `parallel` or
  // `pipeline` slot it ends is `null`, counted in one log line. Uncaught,
  // it fails the run with the budget's code (`describe`). Built, like
  // `settle`, from nothing a script can replace.
  const weakSet = WeakMap.prototype.set, weakGet = WeakMap.prototype.get, weakHas = WeakMap.prototype.has;
  const toLocale = Number.prototype.toLocaleString, strSlice = String.prototype.slice;
  const budgetErrors = new WeakMapCtor(); // error -> its code
  const budgetError = (hostText, code) => {
    const grouped = (n) => apply(toLocale, n, []);
    const hostSaid = StringCtor(hostText);
    const what = code === "token_budget"
      ? `token budget exceeded (${grouped(spent())} / ${total === null ? "?" : grouped(total)} tokens)`
      : `cost budget exceeded (${apply(strSlice, hostSaid, [hostSaid.length > 13 && hostSaid[11] === ":" ? 13 : 0])})`;
    const e = new ErrorCtor(`Workflow ${what}. Stopping further agent() calls. ` +
      "In-flight agents will complete; their results are preserved.");
    defineProperty(e, "name", { __proto__: null, value: "WorkflowBudgetExceededError", writable: true, enumerable: false, configurable: true });
    apply(weakSet, budgetErrors, [e, code]);
    return e;
  };
  const isBudgetError = (e) => e !== null && typeof e === "object" && apply(weakHas, budgetErrors, [e]);
  const budgetCode = (e) => apply(weakGet, budgetErrors, [e]);

  // Methods of an object literal: not constructors, as native functions.
  const api = {
    agent(prompt, options) {
      let text = "";
      if (typeof prompt === "string") text = prompt;
      else if (prompt !== undefined) throw new TypeErrorCtor("agent(prompt, options): prompt must be a string");
      const opts = options !== null && typeof options === "object" ? json(options) : "null";
      return track(nativeAgent(text, opts), true);
    },
    capability(name, input, options) {
      const n = arguments.length > 0 ? `${name}` : ""; // ToString: a Symbol throws
      return track(nativeCapability(n, json(input), json(options)), false);
    },
    workflow(nameOrRef, args) {
      const wrong = (what) => new TypeErrorCtor(
        "workflow(nameOrRef, args): nameOrRef must be a saved workflow's name (a string) or { scriptPath: string }, got " + what);
      let name;
      if (typeof nameOrRef === "string") name = nameOrRef;
      else if (nameOrRef !== null && typeof nameOrRef === "object") {
        const p = nameOrRef.scriptPath;
        if (typeof p !== "string") throw wrong("an object without a string scriptPath");
        // Always a path to the host, even a bare file name.
        name = p === "" || p.includes("/") ? p : "./" + p;
      } else if (arguments.length === 0) throw wrong("nothing");
      else throw wrong(typeof nameOrRef);
      if (name === "") throw wrong("an empty name");
      return track(nativeWorkflow(name, json(args)), false);
    },
    phase(title) { nativePhase(arguments.length > 0 ? `${title}` : ""); }, // ToString: a Symbol throws
    log(...parts) { nativeLog(0, text(parts)); },
  };
  const text = (parts) => parts.map((a) => typeof a === "string" ? a : (a === undefined ? "undefined" : (() => {
    try { const s = stringify(a); return s === undefined ? "undefined" : s; } catch { return "undefined"; }
  })())).join(" ");
  for (const k of ["agent", "capability", "workflow", "phase", "log"]) {
    defineProperty(g, k, { value: api[k], writable: true, enumerable: false, configurable: true });
  }
  const narrate = api.log;

  // A slot that threw is null, and said in the narrator log as Claude
  // Code says it (`parallel[2] failed: <message>`).
  const failed = (what, i, e) => {
    // Whatever was thrown (a revoked Proxy, a `message` that throws…), the
    // slot is null all the same.
    let msg;
    try { msg = e !== null && typeof e === "object" && "message" in e ? StringCtor(e.message) : StringCtor(e); }
    catch { try { msg = StringCtor(e); } catch { msg = "unknown error"; } }
    narrate(`${what}[${i}] failed: ${msg}`);
    return null;
  };
  // A slot ended by a spent budget is null without a line of its own.
  const slotFailed = (what, i, e, dropped) => {
    if (isBudgetError(e)) { dropped.n++; return null; }
    return failed(what, i, e);
  };
  const saidDropped = (what, dropped) => {
    if (dropped.n > 0) narrate(`${what}: ${dropped.n} ${dropped.n === 1 ? "slot" : "slots"} dropped \u2014 token budget exceeded`);
  };
  const describeArg = (x) =>
    x === null ? "null" : typeof x === "object" && typeof x.then === "function" ? "a Promise (an already started call)" : `a ${typeof x}`;
  g.parallel = async (thunks) => {
    if (!isArray(thunks)) throw new TypeErrorCtor("parallel(thunks) takes an array of functions");
    checkItems(thunks.length);
    thunks.forEach((t, i) => {
      if (typeof t !== "function") {
        throw new TypeErrorCtor(`parallel() takes an array of functions, but item ${i} is ${describeArg(t)}. ` +
          "Wrap each call in () => so that parallel() starts it: parallel([() => agent(...), () => agent(...)])");
      }
    });
    const dropped = { n: 0 };
    const fail = (i, e) => slotFailed("parallel", i, e, dropped);
    const call = (t, i) => { try { return t(); } catch (e) { return fail(i, e); } };
    const out = await PromiseCtor.all(thunks.map((t, i) => PromiseCtor.resolve().then(() => call(t, i)).catch((e) => fail(i, e))));
    saidDropped("parallel", dropped);
    return out;
  };
  g.pipeline = async (items, ...stages) => {
    if (!isArray(items)) throw new TypeErrorCtor("pipeline(items, ...stages): items must be an array");
    checkItems(items.length);
    stages.forEach((s, i) => {
      if (typeof s !== "function") throw new TypeErrorCtor(`pipeline() stages must be functions, but stage ${i} is ${describeArg(s)}`);
    });
    // As Claude Code: the item is awaited, and a null item (or a stage
    // resolving null) ends that item before the next stage runs. A plain
    // item is not awaited, so stage 1 starts at once, in item order.
    const dropped = { n: 0 };
    const fail = (i, e) => slotFailed("pipeline", i, e, dropped);
    const out = await PromiseCtor.all(items.map(async (item, index) => {
      let prev = item;
      if (item !== null && typeof item === "object" && typeof item.then === "function") {
        try { prev = await item; } catch (e) { return fail(index, e); }
      }
      for (const stage of stages) {
        if (prev === null) return null;
        try { prev = await stage(prev, item, index); } catch (e) { return fail(index, e); }
      }
      return prev;
    }));
    saidDropped("pipeline", dropped);
    return out;
  };
  g.budget = freeze({ total, spent: () => spent(), remaining: () => remaining() });
  const consoleFn = (level, prefix) => ({ f(...parts) { nativeLog(level, prefix + text(parts)); } }).f;
  g.console = freeze({
    log: consoleFn(0, ""), info: consoleFn(0, ""), debug: consoleFn(1, ""),
    warn: consoleFn(2, "[warn] "), error: consoleFn(3, "[error] "),
  });

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
  g.setTimeout = (fn, ms, ...rest) => {
    if (typeof fn !== "function") throw new TypeErrorCtor("setTimeout(callback, ms): callback must be a function");
    const d = Number(ms);
    const id = ++nextTimer;
    const t = { due: virtualNow + (d > 0 ? d : 0), id, fn, rest };
    dataProperty(live, id, t);
    liveCount++;
    push(t);
    return id;
  };
  g.clearTimeout = (id) => {
    if (typeof id !== "number" || live[id] === undefined) return;
    delete live[id];
    liveCount--;
    if (heapSize > 2 * liveCount + 64) {
      const old = heap, n = heapSize;
      heap = create(null);
      heapSize = 0;
      for (let i = 0; i < n; i++) if (live[old[i].id] === old[i]) push(old[i]);
    }
  };
  const fireNext = () => {
    while (heapSize > 0) {
      const t = pop();
      if (live[t.id] !== t) continue; // cleared
      delete live[t.id];
      liveCount--;
      if (t.due > virtualNow) virtualNow = t.due;
      apply(t.fn, t, t.rest);
      return true;
    }
    return false;
  };

  // Array sorting on the host's merge sort (`sort` in engine.rs): stable,
  // never a crash on an inconsistent comparator, about as few comparator
  // calls as V8. As ECMA-262's SortIndexedProperties: values sorted,
  // then the undefined ones, then the holes (deleted).
  const nativeSort = g.__hwf_sort;
  const defaultCompare = (x, y) => { const a = StringCtor(x), b = StringCtor(y); return a < b ? -1 : a > b ? 1 : 0; };
  const comparator = (comparefn) => {
    if (comparefn === undefined) return defaultCompare;
    if (typeof comparefn !== "function") throw new TypeErrorCtor("The comparison function must be either a function or undefined");
    return comparefn;
  };
  const toLength = (n) => { const x = Math.trunc(Number(n)); return x > 0 ? Math.min(x, Number.MAX_SAFE_INTEGER) : 0; };
  const arrayMethod = (name, f) => defineProperty(Array.prototype, name, { value: f, writable: true, enumerable: false, configurable: true });
  arrayMethod("sort", { sort(comparefn) {
    const cmp = comparator(comparefn);
    const o = Object(this), len = toLength(o.length);
    const values = [];
    let undefs = 0;
    for (let i = 0; i < len; i++) {
      if (i in o) { const v = o[i]; if (v === undefined) undefs++; else values.push(v); }
    }
    const sorted = nativeSort(values, cmp);
    let k = 0;
    for (; k < sorted.length; k++) o[k] = sorted[k];
    for (let u = 0; u < undefs; u++, k++) o[k] = undefined;
    for (; k < len; k++) delete o[k];
    return o;
  } }.sort);
  arrayMethod("toSorted", { toSorted(comparefn) {
    const cmp = comparator(comparefn);
    const o = Object(this), len = toLength(o.length);
    const values = [];
    let undefs = 0;
    for (let i = 0; i < len; i++) { const v = o[i]; if (v === undefined) undefs++; else values.push(v); }
    const sorted = nativeSort(values, cmp);
    for (let u = 0; u < undefs; u++) sorted.push(undefined);
    return sorted;
  } }.toSorted);

  // `localeCompare` and `toLocaleString` as ICU (root collation, en-US and
  // a few locales' separators), in Rust (`collation.rs`,
  // `number_format.rs`, ported from the Boa runtime's patches); their
  // options are read here, with the same errors.
  const nativeCompare = g.__hwf_locale_compare, nativeFormat = g.__hwf_to_locale_string;
  const RangeErrorCtor = RangeError, isObject = (v) => v !== null && (typeof v === "object" || typeof v === "function");
  const stringMethod = (name, f) => defineProperty(String.prototype, name, { value: f, writable: true, enumerable: false, configurable: true });
  stringMethod("localeCompare", nativeCompare);
  const numberFormat = (options) => {
    if (!isObject(options)) return { minFraction: 0, maxFraction: 3, minInteger: 1, grouping: true, percent: false, currency: null };
    const text = (name) => { const v = options[name]; return v === undefined ? undefined : `${v}`; };
    const digits = (name, low, high) => {
      const v = options[name];
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!(n >= low && n <= high)) throw new RangeErrorCtor(`${name} value is out of range.`);
      return Math.floor(n);
    };
    const style = text("style") ?? "decimal";
    let currency = null;
    if (style === "currency") {
      const code = text("currency");
      if (code === undefined) throw new TypeErrorCtor("Currency code is required with currency style.");
      if (!/^[A-Za-z]{3}$/.test(code)) throw new RangeErrorCtor(`Invalid currency code : ${code}`);
      currency = code.toUpperCase();
    } else if (style !== "decimal" && style !== "percent") {
      throw new RangeErrorCtor(`Value ${style} out of range for Intl.NumberFormat options property style`);
    }
    const percent = style === "percent";
    const defaultFraction = currency === null ? 0 : ["JPY", "KRW", "VND", "CLP", "ISK"].includes(currency) ? 0 : 2;
    const minInteger = digits("minimumIntegerDigits", 1, 21) ?? 1;
    const min = digits("minimumFractionDigits", 0, 100), max = digits("maximumFractionDigits", 0, 100);
    const defaultMax = percent ? 0 : currency !== null ? defaultFraction : 3;
    let minFraction, maxFraction;
    if (min !== undefined && max !== undefined) {
      if (min > max) throw new RangeErrorCtor("maximumFractionDigits value is out of range.");
      minFraction = min; maxFraction = max;
    } else if (min !== undefined) { minFraction = min; maxFraction = Math.max(min, defaultMax); }
    else if (max !== undefined) { minFraction = Math.min(defaultFraction, max); maxFraction = max; }
    else { minFraction = defaultFraction; maxFraction = defaultMax; }
    const grouping = options.useGrouping;
    return { minFraction, maxFraction, minInteger, grouping: grouping === undefined || Boolean(grouping), percent, currency };
  };
  const NumberCtor = Number, numberValueOf = Number.prototype.valueOf;
  defineProperty(Number.prototype, "toLocaleString", { value: { toLocaleString(locales, options) {
    const x = numberValueOf.call(this); // a TypeError unless a Number
    const tag = isObject(locales) ? locales[0] : locales;
    const language = tag === undefined ? "" : `${tag}`;
    return nativeFormat(x, language, stringify(numberFormat(options)));
  } }.toLocaleString, writable: true, enumerable: false, configurable: true });

  // `Intl` without ICU's data (the runtime would grow by megabytes): the
  // two constructors scripts use for reports and sorting, on the
  // `toLocaleString` and `localeCompare` above. Anything else
  // (`DateTimeFormat`, …) is absent rather than wrong.
  const toLocale = Number.prototype.toLocaleString, localeCompare = String.prototype.localeCompare;
  const localeOf = (locales) => {
    const tag = isArray(locales) ? locales[0] : locales;
    return tag === undefined ? "en-US" : StringCtor(tag);
  };
  class NumberFormat {
    #locales; #options;
    constructor(locales, options) {
      this.#locales = locales;
      this.#options = options === undefined ? undefined : { ...options };
      toLocale.call(0, locales, this.#options);
    }
    format(x) { return toLocale.call(NumberCtor(x), this.#locales, this.#options); }
    resolvedOptions() {
      const o = this.#options ?? {};
      return { locale: localeOf(this.#locales), numberingSystem: "latn", style: o.style ?? "decimal", ...(o.currency ? { currency: StringCtor(o.currency).toUpperCase() } : {}), useGrouping: o.useGrouping ?? "auto" };
    }
  }
  class Collator {
    #locales; #options;
    constructor(locales, options) {
      this.#locales = locales;
      this.#options = options === undefined ? undefined : { ...options };
      localeCompare.call("", "", locales, this.#options);
      // As Intl's `compare` getter: a function bound to this collator.
      const compare = (a, b) => localeCompare.call(StringCtor(a), StringCtor(b), this.#locales, this.#options);
      defineProperty(this, "compare", { value: compare, enumerable: false });
    }
    resolvedOptions() {
      const o = this.#options ?? {};
      return { locale: localeOf(this.#locales), usage: "sort", sensitivity: o.sensitivity ?? "variant", numeric: Boolean(o.numeric) };
    }
  }
  defineProperty(g, "Intl", { value: freeze({ NumberFormat, Collator }), writable: true, enumerable: false, configurable: true });

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
  defineProperty(g, "Date", { value: SafeDate, writable: false, enumerable: false, configurable: false });
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

  // WeakRef targets stay alive until the current job ends, as ECMA-262's
  // KeepDuringJob (`new WeakRef({}).deref()` is the object in Node and
  // Boa; QuickJS frees it at once, by reference counting). The event loop
  // calls `endJob` once the job queue is empty.
  const RealWeakRef = WeakRef, SetCtor = Set, setAdd = Set.prototype.add;
  let kept = new SetCtor(), keptAny = false;
  const keep = (v) => { apply(setAdd, kept, [v]); keptAny = true; };
  const KeptWeakRef = class WeakRef extends RealWeakRef {
    constructor(target) { super(target); keep(target); }
    deref() { const v = super.deref(); if (v !== undefined) keep(v); return v; }
  };
  defineProperty(g, "WeakRef", { value: KeptWeakRef, writable: true, enumerable: false, configurable: true });
  const endJob = () => { if (keptAny) { kept = new SetCtor(); keptAny = false; } };

  // QuickJS's globals beyond the Boa runtime's: `performance` reads the
  // clock; the web APIs and engine-specific ones are not in hwf's API; the
  // newer standard ones (ES2025+) wait for the switch, where
  // tests/e2e/authoring.rs's STANDARD_GLOBALS would list them (PROGRESS.md).
  for (const k of ["performance", "DOMException", "InternalError", "atob", "btoa", "queueMicrotask", "escape", "unescape",
    "Float16Array", "DisposableStack", "AsyncDisposableStack", "SuppressedError"]) {
    try { delete g[k]; } catch { g[k] = undefined; }
  }
  for (const k of Object.getOwnPropertyNames(g).filter((k) => k.startsWith("__hwf_"))) delete g[k];

  // An uncaught error as one line: `Name: message` (`message` alone for a
  // plain Error), or the thrown value as text.
  const describe = (e) => {
    if (isBudgetError(e)) {
      try { return `${budgetCode(e)}: WorkflowBudgetExceededError: ${StringCtor(e.message)}`; } catch { /* fall through */ }
    }
    if (e !== null && typeof e === "object") {
      try {
        const msg = e.message;
        if (msg !== undefined) {
          const name = e.name;
          return typeof name === "string" && name !== "Error" ? `${name}: ${StringCtor(msg)}` : StringCtor(msg);
        }
      } catch { /* fall through */ }
    }
    try { return StringCtor(e); } catch { return "unknown error"; }
  };
  const result = (v) => { const s = stringify(v); return s === undefined ? "null" : s; };
  return { fireNext, settle, isAgent, describe, stringify: result, endJob };
})();
