export const meta = { name: 'thunk-args-this', description: 'What thunks and stages are called with' }
const thunks = await parallel([
  function (...a) { return { n: a.length, thisType: typeof this } },
  (...a) => a.length,
])
const stages = await pipeline(['x'], function (...a) { return { n: a.length, thisType: typeof this, a: a.map(String) } })
const stages2 = await pipeline([10, 20], (v, item, i, extra) => [v, item, i, extra === undefined ? 'undef' : extra])
return { thunks, stages, stages2 }
