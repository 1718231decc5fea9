export const meta = { name: 'misc-syntax', description: 'Tagged templates, labels, closures, switch, hoisting' }
const files = await agent('List changed files', { label: 'files', schema: { type: 'object', properties: { files: { type: 'array' } }, required: ['files'] } })
function sql(strings, ...vals) { return { text: strings.reduce((a, s, i) => a + '$' + i + s), raw: strings.raw, vals } }
const q = sql`SELECT * FROM t WHERE a = ${1} AND b = ${'x'}\n`
const tagFirst = ((s) => s.raw[0])`\u00e9\n`
const matrix = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
let found = null
outer: for (let i = 0; i < matrix.length; i++) {
  for (let j = 0; j < matrix[i].length; j++) {
    if (matrix[i][j] % 2 === 0 && i > 0) { found = [i, j]; break outer }
    if (j === 1) continue outer
  }
}
const skipped = []
rows: for (const row of matrix) { for (const v of row) { if (v === 5) continue rows; skipped.push(v) } }
const fns = []
for (let i = 0; i < 3; i++) fns.push(() => i)
var hoisted = typeof laterFn
function laterFn() { return 'hoisted' }
const kind = (f) => {
  switch (f.split('.').pop()) {
    case 'js': case 'mjs': return 'script'
    case 'md': return 'doc'
    case 'json': { const x = 'config'; return x }
    default: return 'other'
  }
}
let fall = []
switch (2) { case 1: fall.push(1); case 2: fall.push(2); case 3: fall.push(3); break; case 4: fall.push(4) }
const byKind = files.files.reduce((acc, f) => ((acc[kind(f)] ||= []).push(f), acc), {})
const comma = (1, 2, 3)
const { a = 10, b: { c = 'deflt' } = {}, ...others } = { a: undefined, d: 4, e: 5 }
const [x = 1, , z = 3, ...tail] = [undefined, 'skip', null, 4, 5]
const swap = (() => { let p = 1, q = 2; [p, q] = [q, p]; return [p, q] })()
const counter = (() => { let n = 0; return { inc: () => ++n, get: () => n } })(); counter.inc(); counter.inc()
const args_ = (function () { return [arguments.length, Array.from(arguments)] })(1, 'two')
const defaults = ((p, q = p * 2, r = q + 1) => [p, q, r])(5)
const rest = ((first, ...others) => others.length)(1, 2, 3)
const chained = [1, 2, 3, 4].filter(n => n % 2).map(n => n ** 2).reduce((s, n) => s + n, 0)
const ternaryChain = [5, 50, 500].map(n => n < 10 ? 'small' : n < 100 ? 'medium' : 'large')
const voided = void 0
const inOp = ['length' in [], 0 in [1], 'x' in { x: undefined }]
const typeofUndeclared = typeof notDeclaredAnywhere
const dowhile = (() => { let i = 0, s = ''; do { s += i } while (++i < 3); return s })()
const forIn = (() => { const out = []; for (const k in { b: 1, a: 2 }) out.push(k); return out })()
const strict = (function () { return this === undefined })()
let strictErr = null
try { undeclaredVar = 1 } catch (e) { strictErr = e.name }
const getterDestructure = (({ length }) => length)('hello')
const numericSep = [1_000_000, 0xff_ff, 0b1010_0001, 1_0.5_0]
const spreadString = (() => { const { 0: first, ...others } = 'xyz'; return [{ ...'hi' }, first, others] })()
const exp = 2 ** 3 ** 2
const nullish = [0 ?? 'a', '' ?? 'b', null ?? 'c', 0 || 'd', '' && 'e']
return { q, tagFirst, found, skipped, closures: fns.map(f => f()), hoisted, byKind, fall, comma, a, c, others, x, z, tail, swap, count: counter.get(), args_, defaults, rest, chained, ternaryChain, voided: voided ?? 'undef', inOp, typeofUndeclared, dowhile, forIn, strict, strictErr, getterDestructure, numericSep, exp, nullish, spreadString }
