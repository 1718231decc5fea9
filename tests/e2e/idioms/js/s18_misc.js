export const meta = { name: 'misc', description: 'operators and globals' }
const cfg = { retry: { count: 0 }, fn: null, list: [] }
let x = null
x ??= 'set'
let y = 0
y ||= 10
let z = 1
z &&= 'and'
const opt = [cfg.retry?.count, cfg.missing?.deep.deeper, cfg.fn?.(), cfg.list?.[0], cfg?.['retry']?.count ?? 'none', cfg.retry.count || 'falsy', cfg.retry.count ?? 'nullish']
const globalsSeen = ['agent', 'parallel', 'pipeline', 'phase', 'log', 'budget', 'args', 'workflow', 'console', 'setTimeout', 'clearTimeout', 'JSON', 'Math', 'Promise', 'Reflect', 'Proxy', 'Symbol', 'WeakRef', 'globalThis', 'Intl'].map(n => [n, typeof globalThis[n]])
const proxy = new Proxy({}, { get: (t, p) => `prop:${String(p)}` })
const reflect = [Reflect.ownKeys({ a: 1, [Symbol.for('s')]: 2 }).length, Reflect.has({ a: 1 }, 'a')]
const comma = (1, 2, 3)
const voided = void 0
const tern = [1, 2, 3].map(n => (n % 2 ? 'odd' : n > 2 ? 'big even' : 'even'))
const sw = (v => { switch (true) { case v < 0: return 'neg'; case v === 0: return 'zero'; default: return 'pos' } })(5)
const fallthrough = (v => { const out = []; switch (v) { case 1: out.push(1); case 2: out.push(2); break; case 3: out.push(3) } return out })(1)
const incs = (() => { let i = 0; const a = i++; const b = ++i; return [a, b, i] })()
const template = `${[1, 2]}|${{}}|${null}|${undefined}|${1 / 3}`
const spreadArgs = Math.max(...[1, 5, 3], ...new Set([9]))
const defaults = ((a, b = a * 2, c = b + 1) => [a, b, c])(1)
const restParams = ((first, ...others) => others.length)(1, 2, 3)
const argumentsLen = (function () { return arguments.length })(1, 2)
const closures = []
for (let i = 0; i < 3; i++) closures.push(() => i)
const varClosures = []
for (var j = 0; j < 3; j++) varClosures.push(() => j)
const hoisted = hoist()
function hoist() { return 'hoisted' }
const sym = Symbol.for('app')
const wr = typeof WeakRef === 'function' ? new WeakRef({}).deref() !== undefined : 'none'
const structured = typeof structuredClone
const evalBlocked = (() => { try { return eval('1 + 1') } catch (e) { return e.name } })()
const fnCtor = (() => { try { return Function('return 1')() } catch (e) { return e.name } })()
const randomBlocked = (() => { try { Math.random(); return 'allowed' } catch (e) { return 'blocked' } })()
return { x, y, z, opt, globalsSeen, proxy: proxy.anything, reflect, comma, voided: voided === undefined, tern, sw, fallthrough, incs, template, spreadArgs, defaults, restParams, argumentsLen, closures: closures.map(f => f()), varClosures: varClosures.map(f => f()), hoisted, sym: sym.description, wr, structured, evalBlocked, fnCtor, randomBlocked }
