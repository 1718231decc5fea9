export const meta = { name: 'async-iteration', description: 'Async generators paging through agent results' }
async function* pages(topic) {
  for (let page = 1; ; page++) {
    const res = await agent(`List ${topic} page ${page}`, { label: `page:${page}`, schema: { type: 'object', properties: { items: { type: 'array' }, more: { type: 'boolean' } }, required: ['items', 'more'] } })
    if (!res) return 'failed'
    yield* res.items
    if (!res.more) return 'done'
  }
}
const collected = []
for await (const item of pages('bugs')) collected.push(item)
const it = pages('bugs')
const firstTwo = [await it.next(), await it.next()]
const early = await it.return('stopped')
const afterReturn = await it.next()
const fromPromises = []
for await (const v of [Promise.resolve('a'), 'b', new Promise(r => setTimeout(() => r('c'), 1))]) fromPromises.push(v)
const custom = {
  from: 1, to: 4,
  [Symbol.asyncIterator]() { let n = this.from; const to = this.to; return { next: async () => (n <= to ? { value: n++, done: false } : { value: undefined, done: true }) } },
}
const customOut = []
for await (const n of custom) customOut.push(n * 10)
function* fib() { let [a, b] = [0, 1]; for (;;) { yield a; [a, b] = [b, a + b] } }
const fibs = []
for (const f of fib()) { if (f > 50) break; fibs.push(f) }
function* gen() { const x = yield 1; try { yield x * 2 } finally { fibs.push('cleanup') } }
const g = gen(); const g1 = g.next(); const g2 = g.next(21); const g3 = g.return(99); const g4 = g.next()
const spreadGen = [...(function* () { yield* [1, 2]; yield* 'ab' })()]
const thrower = (function* () { try { yield 1 } catch (e) { yield `caught ${e}` } })()
thrower.next()
const thrown = thrower.throw('oops')
const entriesIter = new Map([['k', 'v']]).entries()
const iterResult = [entriesIter.next(), entriesIter.next()]
const asyncArr = await Promise.all([1, 2, 3].map(async (x) => { await null; return x * 2 }))
let sequential = ''
for (const x of ['a', 'b', 'c']) sequential += await Promise.resolve(x)
return { collected, firstTwo, early, afterReturn, fromPromises, customOut, fibs, gens: [g1, g2, g3, g4], spreadGen, thrown, iterResult, asyncArr, sequential }
