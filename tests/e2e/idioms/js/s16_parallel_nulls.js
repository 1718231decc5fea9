export const meta = { name: 'nulls', description: 'parallel and pipeline failure semantics' }
const S = { type: 'object', properties: { v: { type: 'number' } }, required: ['v'] }
const par = await parallel([
  () => agent('one', { label: 'one', schema: S }),
  () => { throw new Error('sync throw') },
  async () => { throw new TypeError('async throw') },
  () => agent('dies', { label: 'dies', schema: S }),
  () => 42,
  () => Promise.resolve({ v: 'plain' }),
])
const piped = await pipeline(
  [1, 2, 3, 4],
  (x, item, i) => (x === 2 ? null : agent(`stage1 ${x}`, { label: `s1:${x}`, schema: S })),
  (prev, item, i) => { if (item === 3) throw new Error('stage2 boom'); return { ...prev, item, i } },
  prev => ({ ...prev, done: true }),
)
const fromParallel = await parallel([() => agent('a', { label: 'pa', schema: S }), () => agent('dies', { label: 'dies', schema: S })])
const overNull = await pipeline(fromParallel, r => agent(`refine ${r.v}`, { label: `refine:${r.v}`, schema: S }))
const empty = [await parallel([]), await pipeline([])]
let typeErr
try { await parallel([agent('x', { label: 'one', schema: S })]) } catch (e) { typeErr = e.name }
let pipeErr
try { await pipeline('notarray', x => x) } catch (e) { pipeErr = e.name }
const counts = { ok: par.filter(Boolean).length, nulls: par.filter(x => x === null).length }
return { par, piped, fromParallel, overNull, empty, typeErr, pipeErr, counts }
