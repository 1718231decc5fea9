// Claude Code's workflow runtime, reduced to what a result depends on, in
// Node: the body (the script after its `export const meta = {…}`) runs as
// `async () => {'use strict'; …}` in a fresh `vm` context without string
// code generation, with `Date.now()`, argless `new Date()` and
// `Math.random()` throwing; `agent`, `parallel`, `pipeline`, `phase`, `log`,
// `console`, `budget`, `args` as Claude Code defines them. Agents answer
// from a fixture in hwf's format (`label`, `prompt_contains` matches;
// `output`, `error`, `sequence`).
//
// Usage: node cc_ref.js SCRIPT FIXTURE ARGS_JSON
// Prints {"result": …, "logs": […]} (the result as JSON.stringify writes it).
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
const context = vm.createContext({}, { codeGeneration: { strings: false, wasm: false } });
vm.runInContext(`(() => {
  'use strict';
  Math.random = function random() { throw new Error('Math.random() is unavailable in workflow scripts') };
  const RealDate = Date;
  RealDate.now = function now() { throw new Error('Date.now() is unavailable in workflow scripts') };
  function ShimDate(...a) {
    if (!new.target) throw new Error('Date() is unavailable in workflow scripts');
    if (a.length === 0) throw new Error('new Date() is unavailable in workflow scripts');
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
// Values cross into the context as JSON, as Claude Code clones them.
const inContext = (v) => (v === undefined ? undefined : vm.runInContext(`JSON.parse(${JSON.stringify(JSON.stringify(v))})`, context));
const str = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
context.log = (m) => { logs.push(str(m)); };
context.phase = () => {};
context.setTimeout = (fn, ms) => setTimeout(() => { try { fn() } catch {} }, typeof ms === 'number' ? ms : 0);
context.clearTimeout = (id) => clearTimeout(id);
context.workflow = async () => { throw new Error('workflow() is not modelled by this reference'); };
context.console = {
  log: (...a) => logs.push(a.map(str).join(' ')),
  info: (...a) => logs.push(a.map(str).join(' ')),
  debug: (...a) => logs.push(a.map(str).join(' ')),
  warn: (...a) => logs.push('[warn] ' + a.map(str).join(' ')),
  error: (...a) => logs.push('[error] ' + a.map(str).join(' ')),
};
context.budget = Object.freeze({ total: null, spent: () => 0, remaining: () => Infinity });
context.args = inContext(JSON.parse(argsText));
context.agent = async (prompt, opts = {}) => {
  await null;
  return inContext(answer({ prompt, label: opts.label, phase: opts.phase }));
};
context.parallel = async (thunks) => {
  for (const t of thunks) if (typeof t !== 'function') throw new TypeError('parallel() expects an array of functions, not promises. Wrap each call: () => agent(...)');
  const settled = await Promise.allSettled(thunks.map((t) => { try { return Promise.resolve(t()); } catch (e) { return Promise.reject(e); } }));
  return settled.map((s, i) => {
    if (s.status === 'fulfilled') return s.value;
    logs.push(`parallel[${i}] failed: ${s.reason && s.reason.message}`);
    return null;
  });
};
context.pipeline = async (items, ...stages) => {
  if (!Array.isArray(items)) throw new TypeError('pipeline() expects an array as the first argument');
  const settled = await Promise.allSettled(items.map(async (item, index) => {
    let v = await item;
    for (const stage of stages) {
      if (v === null) break;
      v = await stage(v, item, index);
    }
    return v;
  }));
  return settled.map((s, i) => {
    if (s.status === 'fulfilled') return s.value;
    logs.push(`pipeline[${i}] failed: ${s.reason && s.reason.message}`);
    return null;
  });
};

const body = bodyAfterMeta(source);
const run = new vm.Script(`(async () => {'use strict';\n${body}\n})()`, { filename: 'workflow.js' });
run.runInContext(context).then(
  (result) => {
    if (typeof result === 'function') throw new Error('workflow result cannot be a function');
    const text = JSON.stringify(result, (k, v) => (typeof v === 'function' ? undefined : v));
    process.stdout.write(`{"result": ${text === undefined ? 'null' : text}, "logs": ${JSON.stringify(logs)}}\n`);
  },
).catch((e) => {
  process.stdout.write(JSON.stringify({ error: `${e && e.name}: ${e && e.message}`, logs }) + '\n');
});
