export const meta = { name: 'promises', description: 'Promise combinators and ordering around agents' }
const order = []
const wait = (ms, v) => new Promise(r => setTimeout(() => { order.push(`t${ms}`); r(v) }, ms))
const settled = await Promise.allSettled([
  agent('ok', { label: 'ok' }),
  Promise.reject(new Error('nope')),
  wait(5, 'timer'),
  agent('dies', { label: 'dies' }),
])
const shape = settled.map(s => s.status === 'fulfilled' ? ['ok', s.value] : ['err', s.reason.message])
const anyOk = await Promise.any([Promise.reject(new Error('a')), wait(10, 'slow'), wait(1, 'fast')])
let anyErr = null
try { await Promise.any([Promise.reject(new Error('x')), Promise.reject(new TypeError('y'))]) } catch (e) { anyErr = [e.name, e.errors.map(x => x.message), e instanceof AggregateError] }
const raced = await Promise.race([wait(30, 'late'), wait(3, 'early')])
const all = await Promise.all([1, Promise.resolve(2), { then(r) { r(3) } }, agent('ok', { label: 'ok' })])
let allErr = null
try { await Promise.all([wait(2, 'x'), Promise.reject(new RangeError('first'))]) } catch (e) { allErr = `${e.name}:${e.message}` }
// Microtask ordering.
const ticks = []
Promise.resolve().then(() => ticks.push('p1')).then(() => ticks.push('p3'))
Promise.resolve().then(() => ticks.push('p2'))
queueMicrotaskLike(() => ticks.push('sync-ish'))
function queueMicrotaskLike(fn) { Promise.resolve().then(fn) }
ticks.push('sync')
await null
ticks.push('after-await-1')
await wait(0)
const chained = await Promise.resolve(1).then(x => x + 1).then(x => { throw new Error(`at ${x}`) }).catch(e => e.message).finally(() => ticks.push('finally'))
const thenable = await { then(res) { res('from thenable') } }
const nested = await Promise.resolve(Promise.resolve('unwrapped'))
let timer
const timeoutRace = await Promise.race([agent('ok', { label: 'ok' }), new Promise((_, rej) => { timer = setTimeout(() => rej(new Error('timeout')), 60000) })]).finally(() => clearTimeout(timer))
const asyncFnErr = await (async () => { throw new SyntaxError('bad') })().catch(e => e.constructor.name)
return { shape, anyOk, anyErr, raced, all, allErr, ticks, firstTimers: order.slice(0, 2), chained, thenable, nested, timeoutRace, asyncFnErr }
