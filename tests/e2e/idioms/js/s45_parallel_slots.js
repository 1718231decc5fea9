export const meta = { name: 'parallel-slots', description: 'What each kind of thunk gives, and what the log says about failures' }
const S = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }
class Boom extends Error { constructor(m) { super(m); this.name = 'Boom' } }
const slots = await parallel([
  () => agent('one', { label: 'one', schema: S }),
  () => 7,
  () => undefined,
  async () => { await null; return { nested: [1, undefined, () => 1] } },
  () => { throw new Boom('custom error') },
  () => Promise.reject(new RangeError('rejected')),
  () => { throw 'a bare string' },
  () => { throw 404 },
  () => { throw null },
  () => { throw { message: 'object with message' } },
  () => { throw { message: 12 } },
  () => agent('dead', { label: 'dead' }),
  () => parallel([() => 1, () => { throw new Error('inner') }]),
])
const shape = slots.map((s) => (s === null ? 'null' : Array.isArray(s) ? 'array' : typeof s))
// parallel never rejects, so the usual filter works
const ok = slots.filter(Boolean)
// Thunks start in order, synchronously, before any awaits resolve
const started = []
await parallel([1, 2, 3].map((i) => async () => { started.push(`start ${i}`); await null; started.push(`after ${i}`); return i }))
// The array is read when parallel starts, a turn later: a thunk pushed right after the call runs too
const list = [() => 'x']
const p = parallel(list)
list.push(() => 'y')
const copied = await p
return { slots, shape, okCount: ok.length, started, copied }
