export const meta = { name: 'engine-error-messages', description: 'TypeError, ReferenceError and RangeError texts a script sees in e.message and in parallel/pipeline failure logs' }
const msg = (f) => { try { f(); return 'no error' } catch (e) { return `${e.name}: ${e.message}` } }
const S = { type: 'object', properties: { score: { type: 'number' }, issues: { type: 'array' } }, required: ['score'] }
// A reviewer that died resolves null; reading its fields fails, and the failure log says so.
const reviews = await parallel(['security', 'perf', 'style'].map((dim) => async () => {
  const r = await agent(`Review ${dim}`, { label: dim, schema: S })
  return { dim, score: r.score, first: r.issues[0].title }
}))
const staged = await pipeline(['a', 'b', 'c'],
  (x) => agent(`Summarize ${x}`, { label: `sum:${x}` }),
  (text, x) => text.trim().split('\n').map((l) => l.toUpperCase()),
  (lines, x) => lines.report(),
)
const cfg = { retries: 3, limits: null, hooks: { before: null }, list: [null], fn() { return { x: 1 } } }
let missing
const sym = Symbol('id')
const key = 'token'
const cases = {
  readNull: msg(() => cfg.limits.max),
  readUndefined: msg(() => missing.length),
  readIndex: msg(() => cfg.list[0].name),
  readNumericKey: msg(() => missing[0]),
  readComputed: msg(() => missing[key]),
  readSymbol: msg(() => cfg.limits[sym]),
  setNull: msg(() => { cfg.limits.max = 5 }),
  setUndefinedIndex: msg(() => { missing[2] = 1 }),
  callUndefinedVar: msg(() => missing()),
  callMethod: msg(() => cfg.run()),
  callNested: msg(() => cfg.hooks.before()),
  callResult: msg(() => cfg.fn().y()),
  callComputed: msg(() => cfg[key]()),
  callIndexed: msg(() => cfg.list[0]()),
  callStringMethod: msg(() => 'abc'.shout()),
  callThis: msg(function () { return this.nope() }.bind({})),
  callOptional: msg(() => cfg.hooks?.after()),
  callSpread: msg(() => cfg.run(...[1, 2])),
  callChain: msg(() => [3, 1].map((x) => x).sort().top()),
  mapNotFn: msg(() => [1].map(5)),
  forEachObject: msg(() => [1].forEach({})),
  newNotCtor: msg(() => new cfg.retries()),
  newArrow: msg(() => { const make = () => ({}); return new make() }),
  destructureNull: msg(() => { const { max } = cfg.limits; return max }),
  destructureUndefined: msg(() => { const { a, b } = missing; return a + b }),
  destructureCall: msg(() => { const { data } = JSON.parse('null'); return data }),
  destructureParam: msg(() => [null].map(({ id }) => id)),
  destructureParamUndefined: msg(() => { const f = ({ id }) => id; return f() }),
  destructureEmpty: msg(() => { const { ...rest } = cfg.limits; return rest }),
  destructureNested: msg(() => { const { hooks: { before: { fn } } } = cfg; return fn }),
  destructureDefault: msg(() => { const { retries = 1 } = cfg.limits; return retries }),
  notIterableObject: msg(() => { for (const x of cfg.hooks) return x }),
  notIterableNull: msg(() => { for (const x of cfg.limits) return x }),
  spreadNull: msg(() => [...cfg.limits]),
  spreadArgs: msg(() => Math.max(...cfg.hooks)),
  arrayPattern: msg(() => { const [first] = cfg.limits; return first }),
  mapFromObject: msg(() => new Map(cfg.hooks)),
  constAssign: msg(() => { const n = 1; n = 2 }),
  constIncrement: msg(() => { const n = 1; n++ }),
  tdz: msg(() => { total; let total = 0 }),
  undeclared: msg(() => notDeclaredAnywhere + 1),
  classWithoutNew: msg(() => { class Report {} return Report() }),
  thisBeforeSuper: msg(() => { class A {} class B extends A { constructor() { this.x = 1; super() } } return new B() }),
  toFixed: msg(() => (1.5).toFixed(101)),
  toPrecision: msg(() => (1.5).toPrecision(0)),
  toExponential: msg(() => (1.5).toExponential(-1)),
  arrayLength: msg(() => new Array(-1)),
  arrayLengthSet: msg(() => { const a = []; a.length = 2 ** 32 }),
  bigintMix: msg(() => 10n + 1),
  bigintMixMul: msg(() => 2 * 3n),
  bigintToNumber: msg(() => +10n),
  bigintMath: msg(() => Math.max(1n)),
  bigintDivZero: msg(() => 1n / 0n),
  symbolString: msg(() => `${sym}`),
  repeatNegative: msg(() => 'ab'.repeat(-1)),
  repeatInfinite: msg(() => 'ab'.repeat(Infinity)),
  reduceEmpty: msg(() => [].reduce((a, b) => a + b)),
  instanceofNumber: msg(() => ({}) instanceof 5),
  inPrimitive: msg(() => 'a' in 'abc'),
  normalize: msg(() => 'x'.normalize('NFX')),
  uri: msg(() => decodeURIComponent('%E0%A4%A')),
  invalidDate: msg(() => new Date(NaN).toISOString()),
  stackOverflow: msg(() => { const deep = (n) => deep(n + 1) + 1; return deep(0) }),
}
const circular = {}
{
  const report = { title: 'r', sections: [{ name: 's', findings: { items: [] } }] }
  report.sections[0].findings.items.push({ parent: report.sections[0] })
  circular.nested = msg(() => JSON.stringify(report))
  const self = { name: 'self' }
  self.me = self
  circular.self = msg(() => JSON.stringify(self))
  class Node { constructor() { this.children = [this] } }
  circular.classArray = msg(() => JSON.stringify(new Node()))
  const long = { a: { b: { c: { d: { e: {} } } } } }
  long.a.b.c.d.e.back = long.a
  circular.long = msg(() => JSON.stringify(long))
  circular.bigint = msg(() => JSON.stringify({ n: 1n }))
}
// In a log line, as a workflow reports a failed step.
for (const [k, v] of Object.entries({ a: cases.readNull, b: cases.callMethod, c: cases.destructureNull })) log(`${k}: ${v}`)
return { reviews, staged, cases, circular }
