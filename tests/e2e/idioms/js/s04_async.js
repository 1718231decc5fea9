export const meta = { name: 'async-order', description: 'promise ordering' }
const order = []
const p1 = Promise.resolve().then(() => order.push('then1')).then(() => order.push('then2'))
queueOrNot: {
  order.push('sync')
}
await null
order.push('after await null')
await p1
const vals = await Promise.all([1, Promise.resolve(2), (async () => 3)()])
const settled = await Promise.allSettled([Promise.reject(new Error('no')), Promise.resolve('yes')])
const raced = await Promise.race([new Promise(r => setTimeout(() => r('slow'), 10)), Promise.resolve('fast')])
const anyOf = await Promise.any([Promise.reject(new Error('a')), Promise.resolve('b')])
let agg
try { await Promise.any([Promise.reject(new Error('x')), Promise.reject(new Error('y'))]) } catch (e) { agg = [e.constructor.name, e.errors.map(x => x.message)] }
async function* gen() { yield 1; await null; yield 2; yield* [3, 4] }
const fromGen = []
for await (const v of gen()) fromGen.push(v)
const forAwaitArr = []
for await (const v of [Promise.resolve('p'), 'q']) forAwaitArr.push(v)
const timers = []
setTimeout(() => timers.push('t20'), 20)
setTimeout(() => timers.push('t0'), 0)
setTimeout(() => timers.push('t10'), 10)
await new Promise(r => setTimeout(r, 30))
const sleep = (ms, v) => new Promise(r => setTimeout(() => r(v), ms))
const seq = []
for (const ms of [3, 1, 2]) seq.push(await sleep(ms, ms))
const conc = await Promise.all([sleep(3, 'a'), sleep(1, 'b')])
const thenable = await { then(res) { res('thenable!') } }
let caught
try { await (async () => { throw new TypeError('bad') })() } catch (e) { caught = `${e.name}: ${e.message}` }
const chained = await Promise.resolve(1).then(x => x + 1).then(x => { throw new Error('e' + x) }).catch(e => e.message).finally(() => order.push('finally'))
return { order, vals, settled: settled.map(s => s.status + ':' + (s.value ?? s.reason.message)), raced, anyOf, agg, fromGen, forAwaitArr, timers, seq, conc, thenable, caught, chained }
