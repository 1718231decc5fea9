// Claude Code's workflow runtime, reduced to what a result depends on, in
// Node or Bun (Claude Code itself is a Bun executable: JavaScriptCore): the
// body (the script after its `export const meta = {…}`) runs as
// `async () => {'use strict'; …}` in a fresh `vm` context without string
// code generation, with `Date.now()`, argless `new Date()` and
// `Math.random()` throwing; `agent`, `parallel`, `pipeline`, `phase`, `log`,
// `console`, `budget`, `args` as Claude Code 2.1.332 defines them (read from
// its bundle): the script's result and every value coming back from
// `parallel` / `pipeline` / `agent({schema})` go through its copy (own
// enumerable keys, functions left out, no `toJSON`: a `Date` or a `Map` is
// `{}`), then the result is `JSON.stringify`'s text; `log(x)` writes
// `String(x)` for a primitive and `[object]` for an object; `console.*`
// writes each argument as JSON (strings as they are). Agents answer from a
// fixture in hwf's format (`label`, `prompt_contains` matches; `output`,
// `error`, `sequence`).
//
// Usage: node cc_ref.js SCRIPT FIXTURE ARGS_JSON   (or: bun cc_ref.js …)
// Prints {"result": …, "logs": […]} (the result as JSON.stringify writes it),
// or {"error": "Name: message", "logs": […]} for an uncaught error.
'use strict';
// hwf's engine has no local time zone: it is UTC.
process.env.TZ = 'UTC';
const vm = require('vm');
const fs = require('fs');

const [scriptPath, fixturePath, argsText] = process.argv.slice(2);
const source = fs.readFileSync(scriptPath, 'utf8');
const rules = JSON.parse(fs.readFileSync(fixturePath, 'utf8')).responses || [];
const hits = rules.map(() => 0);

// The end of `export const meta = {…}` (strings, templates and comments skipped).
function bodyAfterMeta(src) {
  const start = src.indexOf('export const meta');
  if (start < 0) throw new Error('no meta');
  let i = src.indexOf('{', start);
  let depth = 0;
  for (; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < src.length && src[i] !== c; i++) if (src[i] === '\\') i++;
    } else if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) break;
    }
  }
  return src.slice(i + 1).replace(/^[;\s]*\n/, '');
}

function at(obj, path) {
  let v = obj;
  for (const p of path.split('.')) {
    if (v === null || typeof v !== 'object' || !(p in v)) return undefined;
    v = v[p];
  }
  return v;
}

function answer(request) {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    const ok = Object.entries(rule.match || {}).every(([k, want]) =>
      k === 'prompt_contains'
        ? String(request.prompt).includes(want)
        : JSON.stringify(at(request, k)) === JSON.stringify(want));
    if (!ok) continue;
    const seq = rule.sequence || [rule];
    const a = seq[Math.min(hits[i], seq.length - 1)];
    hits[i]++;
    // Claude Code: an agent that dies resolves to null.
    if ('error' in a) return null;
    return JSON.parse(JSON.stringify(a.output));
  }
  throw new Error(`no fixture response for ${JSON.stringify(request)}`);
}

const logs = [];
const NOW_ERR = 'Date.now() / new Date() are unavailable in workflow scripts (breaks resume). Stamp results after the workflow returns, or pass timestamps via args.';
const RANDOM_ERR = 'Math.random() is unavailable in workflow scripts (breaks resume). For N independent samples, include the index in the agent label or prompt.';
const context = vm.createContext({}, { codeGeneration: { strings: false, wasm: false } });
vm.runInContext(`(() => {
  'use strict';
  Math.random = function random() { throw new Error(${JSON.stringify(RANDOM_ERR)}) };
  const RealDate = Date;
  RealDate.now = function now() { throw new Error(${JSON.stringify(NOW_ERR)}) };
  function ShimDate(...a) {
    if (!new.target) throw new Error(${JSON.stringify(NOW_ERR)});
    if (a.length === 0) throw new Error(${JSON.stringify(NOW_ERR)});
    return Reflect.construct(RealDate, a, new.target);
  }
  ShimDate.now = RealDate.now;
  ShimDate.parse = RealDate.parse;
  ShimDate.UTC = RealDate.UTC;
  ShimDate.prototype = RealDate.prototype;
  RealDate.prototype.constructor = ShimDate;
  Object.freeze(RealDate);
  globalThis.Date = ShimDate;
})()`, context);
// Claude Code's hardening of the context (vmHardening): globals with no
// use in a workflow deleted, the builtins and their prototypes frozen, with
// the common inherited data properties turned into accessors so that
// assigning them on an instance still works (`this.name = …` in an Error
// subclass).
vm.runInContext(`(() => {
  'use strict';
  for (const g of ['ShadowRealm', 'WebAssembly', 'FinalizationRegistry', 'WeakRef', 'Atomics', 'SharedArrayBuffer', 'queueMicrotask']) delete globalThis[g];
  delete Error.captureStackTrace;
  function enableOverride(proto, key) {
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (!d || 'get' in d) return;
    const v = d.value;
    Object.defineProperty(proto, key, {
      get() { return v },
      set(nv) { if (this === proto) return; Object.defineProperty(this, key, { value: nv, writable: true, enumerable: true, configurable: true }); },
      enumerable: d.enumerable, configurable: true,
    });
  }
  const errorCtors = [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, AggregateError, globalThis.SuppressedError].filter(Boolean);
  for (const [proto, keys] of [
    [Object.prototype, Object.getOwnPropertyNames(Object.prototype)],
    [Function.prototype, ['toString', 'constructor', 'name', 'length']],
    [Array.prototype, ['toString', 'constructor']],
    [Date.prototype, ['toString', 'toLocaleString', 'valueOf', 'constructor']],
    ...errorCtors.map(C => [C.prototype, ['name', 'message', 'toString', 'constructor']]),
  ]) for (const k of keys) enableOverride(proto, k);
  for (const C of [Promise, Object, Array, Function, globalThis.Iterator, Map, Set, WeakMap, WeakSet, String, Number, Boolean, Symbol, BigInt,
    Date, RegExp, ArrayBuffer, DataView, ...errorCtors].filter(Boolean)) { Object.freeze(C); Object.freeze(C.prototype); }
  for (const C of [Object.getPrototypeOf(Int8Array), Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    globalThis.Float16Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array].filter(Boolean)) { Object.freeze(C); Object.freeze(C.prototype); }
  for (const f of [async () => {}, function* () {}, async function* () {}]) { Object.freeze(f.constructor); Object.freeze(f.constructor.prototype); }
  for (const C of [globalThis.DisposableStack, globalThis.AsyncDisposableStack, globalThis.Intl].filter(Boolean)) { Object.freeze(C); if (C.prototype) Object.freeze(C.prototype); }
  for (const ns of [JSON, Math, Reflect, Proxy]) Object.freeze(ns);
  // (and every iterator prototype, reached from instances)
  for (const it of [[][Symbol.iterator](), ''[Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator](), 'a'.matchAll(/a/g),
    ...(typeof Iterator !== 'undefined' && Iterator.from ? [[].values().map(x => x), Iterator.from({ next: () => ({ done: true }) })] : []),
    (function* () {})(), (async function* () {})()]) {
    for (let p = Object.getPrototypeOf(it); p; p = Object.getPrototypeOf(p)) Object.freeze(p);
  }
  // (vmHardening, after the namespaces: a non-writable \`then\` on the
  // global, so nothing awaits it as a thenable, and \`Error\` pinned.)
  Object.defineProperty(globalThis, 'then', { value: undefined, writable: false, configurable: false });
  Object.defineProperty(globalThis, 'Error', { value: Error, writable: false, enumerable: false, configurable: false });
  if (typeof Intl !== 'undefined') for (const k of Object.getOwnPropertyNames(Intl)) { const C = Intl[k]; if (typeof C === 'function') { Object.freeze(C); if (C.prototype) Object.freeze(C.prototype); } }
})()`, context);
// Claude Code's copy across its VM boundary (vmHardening's `copy`), in the
// context: arrays by index (a function item is undefined), other objects by
// `Object.keys` (function values and `__proto__` left out), getters read,
// shared and cyclic references kept.
const copy = vm.runInContext(`(() => {
  'use strict';
  const _keys = Object.keys, _isArray = Array.isArray, _def = Object.defineProperty;
  return (root) => {
    const seen = new WeakMap();
    const c = (v) => {
      if (typeof v === 'function') return undefined;
      if (v === null || typeof v !== 'object') return v;
      const hit = seen.get(v); if (hit !== undefined) return hit;
      if (_isArray(v)) {
        const out = []; seen.set(v, out);
        const len = v.length;
        for (let i = 0; i < len; i++) { try { out[i] = c(v[i]); } catch { out[i] = undefined; } }
        return out;
      }
      const out = {}; seen.set(v, out);
      let ks; try { ks = _keys(v); } catch { return out; }
      for (const k of ks) {
        if (k === '__proto__') continue;
        try { const vk = v[k]; if (typeof vk === 'function') continue; _def(out, k, { value: c(vk), writable: true, enumerable: true, configurable: true }); } catch {}
      }
      return out;
    };
    return c(root);
  };
})()`, context);
// Values cross into the context as JSON, as Claude Code clones them.
const inContext = (v) => (v === undefined ? undefined : vm.runInContext(`JSON.parse(${JSON.stringify(JSON.stringify(v))})`, context));
const toStr = vm.runInContext('(v) => { try { return String(v) } catch { return "<unprintable>" } }', context);
// A thrown value's message as Claude Code reads it.
const msgOf = (e) => {
  try { const m = e?.message; return typeof m === 'string' ? m : typeof e === 'string' ? e : '<non-string error>'; } catch { return '<unprintable thrown value>'; }
};
// `log(x)`: one argument, `String(x)` unless an object.
context.log = (m) => { logs.push(m == null || (typeof m !== 'object' && typeof m !== 'function') ? String(m) : `[${typeof m}]`); };
context.phase = () => {};
// Claude Code's timers (its `ws`): the id is a number, the callback is
// called with no arguments and whatever it throws is swallowed.
const timers = new Set();
context.setTimeout = (fn, ms) => {
  const id = Number(setTimeout(() => { timers.delete(id); try { fn() } catch {} }, typeof ms === 'number' ? ms : typeof ms === 'string' ? +ms || 0 : 0));
  timers.add(id);
  return id;
};
context.clearTimeout = (k) => {
  if (typeof k !== 'number' && typeof k !== 'string') return;
  const id = typeof k === 'number' ? k : +k;
  if (timers.has(id)) { timers.delete(id); clearTimeout(id); }
};
// workflow(): only Claude Code's refusal of a bad first argument (its `vi`)
// is modelled; running a child is not.
context.workflow = async (ref) => {
  if (typeof ref !== 'string' && !(ref && typeof ref === 'object' && 'scriptPath' in ref && typeof ref.scriptPath === 'string')) {
    throw new TypeError('workflow() expects a workflow name (string) or {scriptPath: string}');
  }
  throw new Error('workflow() is not modelled by this reference');
};
// `console.*`: strings as they are, other values as JSON (of the copy),
// `String(x)` where that JSON is `{}` and says more.
const consoleText = (parts) => parts.map((h) => {
  if (typeof h === 'string') return h;
  if (h === null || (typeof h !== 'object' && typeof h !== 'function')) { try { return JSON.stringify(h); } catch { return `[${typeof h}]`; } }
  let fallback;
  try {
    const o = JSON.stringify(copy(h));
    if (o !== undefined && o !== '{}') return o;
    fallback = o ?? `[${typeof h}]`;
  } catch { return `[${typeof h}]`; }
  const a = toStr(h);
  return a === '[object Object]' || a === '<unprintable>' ? fallback : a;
}).join(' ');
context.console = {
  __proto__: null,
  log: (...a) => { logs.push(consoleText(a)); },
  info: (...a) => { logs.push(consoleText(a)); },
  debug: (...a) => { logs.push(consoleText(a)); },
  error: (...a) => { logs.push('[error] ' + consoleText(a)); },
  warn: (...a) => { logs.push('[warn] ' + consoleText(a)); },
};
context.budget = Object.freeze({ __proto__: null, total: null, spent: () => 0, remaining: () => Infinity });
// Claude Code's host functions are wrapped by its `q4e`, which leaves
// them without a prototype (`console.log.bind` is undefined).
for (const f of [context.log, context.phase, context.setTimeout, context.clearTimeout, context.budget.spent, context.budget.remaining,
  ...Object.values(context.console)]) Object.setPrototypeOf(f, null);
context.args = inContext(JSON.parse(argsText));
context.agent = async (prompt, opts = {}) => {
  await null;
  const text = prompt == null || (typeof prompt !== 'object' && typeof prompt !== 'function') ? String(prompt) : `[${typeof prompt}]`;
  // Claude Code's label and phase: `String()` of each that is not null,
  // the label's whitespace runs collapsed and trimmed.
  const label = opts?.label != null ? String(opts.label).replace(/\s+/g, ' ').trim() : undefined;
  const phase = opts?.phase != null ? String(opts.phase) : undefined;
  return inContext(answer({ prompt: text, label, phase }));
};
const sleep0 = () => new Promise((r) => setTimeout(r, 0));
context.parallel = async (thunks) => {
  await sleep0();
  if (!Array.isArray(thunks)) throw new TypeError('parallel() expects an array of functions');
  if (thunks.length > 4096) throw new Error(`array length ${thunks.length} exceeds the maximum of 4096 supported across the workflow VM boundary`);
  const list = [...thunks];
  if (list.length === 0) return copy([]);
  for (const t of list) if (typeof t !== 'function') throw new TypeError('parallel() expects an array of functions, not promises. Wrap each call: () => agent(...)');
  const settled = await Promise.allSettled(list.map((t) => { try { return (async (v) => ({ v: await v }))(t()); } catch (e) { return Promise.reject(e); } }));
  return copy(settled.map((s, i) => {
    if (s.status === 'fulfilled') return s.value.v;
    logs.push(`parallel[${i}] failed: ${msgOf(s.reason)}`);
    return null;
  }));
};
context.pipeline = async (items, ...stages) => {
  await sleep0();
  if (!Array.isArray(items)) throw new TypeError('pipeline() expects an array as the first argument');
  if (items.length > 4096) throw new Error(`array length ${items.length} exceeds the maximum of 4096 supported across the workflow VM boundary`);
  const list = [...items];
  if (list.length === 0) return copy([]);
  for (const s of stages) if (typeof s !== 'function') throw new TypeError('pipeline() stages must be functions: pipeline(items, item => ..., result => ...)');
  const settled = await Promise.allSettled(list.map(async (item, index) => {
    let v = await item;
    for (const stage of stages) {
      if (v === null) break;
      v = await stage(v, item, index);
    }
    return v;
  }));
  return copy(settled.map((s, i) => {
    if (s.status === 'fulfilled') return s.value;
    logs.push(`pipeline[${i}] failed: ${msgOf(s.reason)}`);
    return null;
  }));
};

// Claude Code's VM boundary around agent/parallel/pipeline/workflow (its
// `o1s` and `reseal` in vmHardening): a call rejects not with the
// error but with a frozen prototype-less `{name, message, stack,
// toString}` made in the context (`e instanceof Error` is false).
const reseal = vm.runInContext(`(() => {
  const _freeze = Object.freeze, _setProto = Object.setPrototypeOf;
  return (name, message, stack) => {
    const toStr = () => name + ': ' + message;
    _setProto(toStr, null);
    _freeze(toStr);
    return _freeze({ __proto__: null, name, message, stack: stack === undefined ? name + ': ' + message : stack, toString: toStr });
  };
})()`, context);
// A rejection nobody handles is swallowed there (its `AVl`: "Workflow:
// swallowed an unhandled rejection (not exiting)").
const boundary = (fn) => (...a) => {
  const p = (async () => {
    try {
      return await fn(...a);
    } catch (e) {
      let name = 'Error', stack;
      try { if (typeof e?.name === 'string') name = e.name; } catch {}
      try { if (typeof e?.stack === 'string') stack = e.stack; } catch {}
      throw reseal(name, msgOf(e), stack);
    }
  })();
  p.then(undefined, () => {});
  return p;
};
for (const k of ['agent', 'parallel', 'pipeline', 'workflow']) context[k] = boundary(context[k]);

// The context's own globals in Claude Code's order: its sandbox object's
// (log … clearTimeout), the Date shim (assigned to the global), then
// agent, parallel, pipeline, workflow (defined) and args.
for (const k of ['log', 'phase', 'console', 'budget', 'setTimeout', 'clearTimeout', 'Date', 'agent', 'parallel', 'pipeline', 'workflow', 'args']) {
  const v = context[k];
  delete context[k];
  Object.defineProperty(context, k, { value: v, writable: true, enumerable: true, configurable: true });
}

const rawBody = bodyAfterMeta(source);
// Claude Code compiles the body before it runs it (its `Ti`, with acorn):
// `return x` in an async function and an async arrow's expression body
// become `Promise.resolve(x)` (the function's promise settles two jobs
// later), `await x` awaits `Promise.resolve(x)`, `yield` in an async
// generator likewise, and `for await` goes through its own async-iterator
// wrapper. (Its loop and function-entry checks, for its time limit, change
// no value and are left out.)
const acorn = require('./acorn/acorn.js');
const walk = require('./acorn/walk.js');
function transform(src) {
  const ast = acorn.parse(src, { ecmaVersion: 'latest', sourceType: 'script', allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true });
  const C = [];
  const O = (L) => { if (!L) return; C.push([L.start, ' __wRg$(('], [L.end, '))']); };
  const enclosing = (anc) => { for (let q = anc.length - 2; q >= 0; q--) { const m = anc[q]; if (m && /Function/.test(m.type)) return m; } };
  walk.ancestor(ast, {
    AwaitExpression(L) { O(L.argument); },
    ArrowFunctionExpression(L) { if (L.async && L.expression) O(L.body); },
    ForOfStatement(L) { if (L.await) C.push([L.right.start, ' __wRg$a(('], [L.right.end, '))']); },
    ReturnStatement(L, anc) { const me = enclosing(anc); if (!me?.async) return; if (me.generator) { if (L.argument) C.push([L.argument.start, ' await __wRg$(('], [L.argument.end, '))']); } else O(L.argument); },
    YieldExpression(L, anc) { const me = enclosing(anc); if (!(me?.async && me.generator)) return; if (L.delegate) { if (L.argument) C.push([L.argument.start, ' __wRg$a(('], [L.argument.end, '))']); } else O(L.argument); },
  });
  C.sort((a, b) => b[0] - a[0]);
  let q = src;
  for (const [at, text] of C) q = q.slice(0, at) + text + q.slice(at);
  return q;
}
const body = transform(rawBody);
const oe = '__wRg$';
const wrapped = `(((${oe}, ${oe}l) => ((${oe}a) => async () => {'use strict';
${body}
})(${oe}it => ({[Symbol.asyncIterator](){const ${oe}ai = ${oe}it[Symbol.asyncIterator];
if (${oe}ai != null && typeof ${oe}ai !== 'function') throw new TypeError('@@asyncIterator is not a function');
const ${oe}i = ${oe}ai != null ? ${oe}ai.call(${oe}it) : ${oe}it[Symbol.iterator]();
if (${oe}i === null || (typeof ${oe}i !== 'object' && typeof ${oe}i !== 'function')) throw new TypeError('Iterator is not an object');
const ${oe}nxt = ${oe}i.next;
if (typeof ${oe}nxt !== 'function') throw new TypeError('Iterator.next is not a function');
const ${oe}ret = ${oe}i.return;
const ${oe}thr = ${oe}i.throw;
const ${oe}w = s => ${oe}(s).then(s => { if (s === null || (typeof s !== 'object' && typeof s !== 'function')) throw new TypeError('Iterator result is not an object');
 const done = s.done;
 return ${oe}(s.value).then(value => ({value, done})) });
return {next:v=>${oe}w(${oe}nxt.call(${oe}i,v)),return:v=>${oe}w(typeof ${oe}ret==='function'?${oe}ret.call(${oe}i,v):{value:v,done:true}),throw:e=>typeof ${oe}thr==='function'?${oe}w(${oe}thr.call(${oe}i,e)):${oe}(typeof ${oe}ret==='function'?${oe}ret.call(${oe}i):undefined).then(()=>{throw new TypeError('The iterator does not provide a throw method')})}}})))(Promise.resolve.bind(Promise), () => {}))()`;
const run = new vm.Script(wrapped, { filename: 'workflow.js' });
run.runInContext(context).then(
  (result) => {
    if (typeof result === 'function') throw new Error('workflow result cannot be a function');
    const copied = result !== null && typeof result === 'object' ? copy(result) : result;
    const text = JSON.stringify(copied, (k, v) => (typeof v === 'function' ? undefined : v));
    process.stdout.write(`{"result": ${text === undefined ? 'null' : text}, "logs": ${JSON.stringify(logs)}}\n`);
  },
).catch((e) => {
  let name = 'Error';
  try { if (typeof e?.name === 'string') name = e.name; } catch {}
  const m = msgOf(e);
  process.stdout.write(JSON.stringify({ error: m ? `${name}: ${m}` : name, logs }) + '\n');
});
