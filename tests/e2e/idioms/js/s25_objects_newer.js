export const meta = { name: 'objects-newer', description: 'Object idioms: accessors, logical assignment, entries' }
const config = await agent('Return the config', { label: 'cfg', schema: { type: 'object', properties: { retries: { type: 'number' } } } })
const defaults = { retries: 3, timeout: 30, tags: ['a'], nested: { deep: true } }
const merged = { ...defaults, ...config, tags: [...defaults.tags, ...(config.tags ?? [])] }
const opts = { name: '' }
opts.name ||= 'anon'; opts.count ??= 0; opts.count &&= 5; opts.flag ??= false; opts.flag ||= 'set'
const counter = {
  _n: 0,
  get value() { return this._n },
  set value(v) { this._n = Math.max(0, v) },
  inc() { this._n++; return this },
}
counter.inc().inc(); counter.value = -5; const afterNeg = counter.value; counter.value = 7
const frozen = Object.freeze({ a: 1, inner: { b: 2 } })
let frozenErr = null
try { frozen.a = 2 } catch (e) { frozenErr = e.name }
frozen.inner.b = 3
const sealed = Object.seal({ x: 1 }); let sealErr = null
try { delete sealed.x } catch (e) { sealErr = e.name }
const order = { b: 1, 2: 'two', a: 2, 1: 'one', [Symbol('s')]: 3, '-1': 'neg', '01': 'lead' }
const described = Object.getOwnPropertyDescriptor(counter, 'value')
const hidden = Object.defineProperty({ shown: 1 }, 'hidden', { value: 2, enumerable: false })
const grouped = {}
for (const [k, v] of Object.entries({ x1: 1, y1: 2, x2: 3 })) (grouped[k[0]] ??= []).push(v)
const inverted = Object.fromEntries(Object.entries({ a: 'x', b: 'y' }).map(([k, v]) => [v, k]))
const picked = (({ retries, timeout }) => ({ retries, timeout }))(merged)
const { nested: { deep }, ...rest } = merged
const optional = [config?.missing?.deep, config.fn?.(), config.list?.[0], (null)?.x ?? 'dflt']
const proto = Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true } })
const computed = { [`key_${1 + 1}`]: true, ['a' + 'b']: 1 }
const same = [Object.is(NaN, NaN), Object.is(0, -0), NaN === NaN]
const hasOwn = [Object.hasOwn(proto, 'inherited'), 'inherited' in proto, Object.hasOwn(proto, 'own')]
const assigned = Object.assign({}, null, { a: 1 }, undefined, 'hi')
const clone = JSON.parse(JSON.stringify(merged)); clone.nested.deep = false
const entriesSorted = Object.entries({ c: 3, a: 1, b: 2 }).sort(([a], [b]) => a.localeCompare(b))
return {
  merged, opts, counter: [counter.value, afterNeg, JSON.stringify(counter)], frozenErr, frozenInner: frozen.inner.b, isFrozen: Object.isFrozen(frozen),
  sealErr, keys: Object.keys(order), json: JSON.stringify(order), described: [typeof described.get, typeof described.set, described.enumerable],
  hidden: [Object.keys(hidden), hidden.hidden, JSON.stringify(hidden)], grouped, inverted, picked, deep, rest: Object.keys(rest), optional,
  proto: [Object.keys(proto), JSON.stringify(proto), proto.inherited], computed, same, hasOwn, assigned, originalDeep: merged.nested.deep, entriesSorted,
  typeofs: [typeof null, typeof [], typeof (() => 1), typeof Symbol(), typeof 1n, typeof undefined, Array.isArray([]), typeof structuredClone],
}
