export const meta = { name: "recursion", description: "Deep recursion in every shape ends in a catchable RangeError, never a trap" };
// Run by tests/e2e/js.rs (deep_recursion_…): each shape recurses until the engine
// stops it; the script must get the error back (a trap would fail the run).
// `{only: NAME}` runs one shape.
const out = {};
const probe = (name, fn) => {
  if (args && args.only !== undefined && args.only !== name) return;
  let d = 0;
  try { fn(() => d++); out[name] = `no error @${d}`; } catch (e) { out[name] = `${e instanceof RangeError ? "RangeError" : String(e)} @${d}`; }
};
probe("plain", (t) => { const g = () => { t(); g(); }; g(); });
probe("map", (t) => { const g = () => { t(); [1].map(g); }; g(); });
probe("sort", (t) => { const g = () => { t(); [2, 1].sort(() => (g(), 0)); }; g(); });
probe("replace", (t) => { const g = () => { t(); "a".replace(/a/, g); }; g(); });
probe("getter", (t) => { const o = { get x() { t(); return o.x; } }; o.x; });
probe("toString", (t) => { const o = { toString() { t(); return `${o}`; } }; String(o); });
probe("proxy", (t) => { const p = new Proxy({}, { get(_, k) { t(); return p[k]; } }); p.a; });
probe("new", (t) => { class A { constructor() { t(); new A(); } } new A(); });
probe("apply", (t) => { const g = () => { t(); g.apply(null, []); }; g(); });
probe("reflect", (t) => { const g = () => { t(); Reflect.apply(g, null, []); }; g(); });
probe("bound", (t) => { const g = function () { t(); h(); }; const h = g.bind(null); g(); });
probe("generator", (t) => { function* g() { t(); yield* g(); } [...g()]; });
probe("jsonParse", () => { JSON.parse("[".repeat(200000) + "]".repeat(200000)); });
probe("jsonStringify", () => { let a = []; for (let i = 0; i < 200000; i++) a = [a]; JSON.stringify(a); });
probe("jsonStringifyObject", () => { let o = {}; for (let i = 0; i < 200000; i++) o = { o }; JSON.stringify(o, null, 1); });
probe("flat", () => { let a = []; for (let i = 0; i < 200000; i++) a = [a]; a.flat(Infinity); });
probe("arrayToString", () => { let a = []; for (let i = 0; i < 200000; i++) a = [a]; String(a); });
return out;
