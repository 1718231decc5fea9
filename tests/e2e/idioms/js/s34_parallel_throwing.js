export const meta = { name: 'parallel-throwing', description: 'parallel and pipeline with thunks and stages that throw' }
const S = { type: 'object', properties: { ok: { type: 'boolean' }, n: { type: 'number' } }, required: ['ok'] }
const checks = ['lint', 'types', 'unit', 'e2e', 'audit']
const results = await parallel(checks.map((c, i) => () => {
  if (c === 'types') throw new TypeError('types unavailable')
  if (c === 'audit') return Promise.reject('plain string rejection')
  if (c === 'e2e') throw { message: 'object with message' }
  return agent(`Run ${c}`, { label: c, schema: S })
}))
// A slot that fails late is still said in the log before a later slot that failed early.
const lateFirst = await parallel([async () => { await null; await null; throw new Error('slot 0, late') }, () => { throw new Error('slot 1, early') }])
const lateItem = await pipeline([1, 2], async (x) => { if (x === 1) { await null; await null; throw new Error('item 0, late') } throw new Error('item 1, early') })
// Neither a parallel thunk nor a pipeline stage runs before the caller's own synchronous code.
const order = []
const started = pipeline([1, 2], x => { order.push(`s1:${x}`); return x }, x => { order.push(`s2:${x}`); return x })
const startedPar = parallel([() => { order.push('thunk') }])
order.push('sync')
await Promise.all([started, startedPar])
const odd = await parallel([() => { throw 42 }, async () => { throw null }, () => undefined, () => 'sync value', async () => ({ nested: { v: [1, 2] } })])
const staged = await pipeline(
  checks,
  async (c, item, i) => ({ c, i, item }),
  (prev) => (prev.c === 'unit' ? null : prev),
  (prev) => { if (prev.c === 'e2e') throw new RangeError(`stage3 ${prev.c}`); return agent(`Report ${prev.c}`, { label: `report:${prev.c}`, schema: S }).then(r => ({ ...prev, r })) },
)
const promisedItems = await pipeline([Promise.resolve('p1'), 'p2', null], (x, item, i) => `${x}|${typeof item}|${i}`)
const nestedPar = await pipeline(['a', 'b'], x => parallel([() => `${x}1`, () => `${x}2`]), pair => pair.join('+'))
const misuse = []
for (const bad of [() => parallel('x'), () => parallel([1]), () => parallel([agent('Run lint', { label: 'lint', schema: S })]), () => pipeline({}), () => pipeline([1], 'notfn'), () => parallel()]) {
  try { await bad(); misuse.push('no error') } catch (e) { misuse.push(`${e.name}: ${e.message}`) }
}
const okCount = results.filter(r => r?.ok).length
return { results, order, lateFirst, lateItem, odd, staged, promisedItems, nestedPar, misuse, okCount, empty: [await parallel([]), await pipeline([], x => x)] }
