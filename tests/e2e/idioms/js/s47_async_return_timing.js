export const meta = { name: 'async-timing', description: 'When async functions settle, as Claude Code compiles them' }
const log2 = []
const tick = (label) => Promise.resolve().then(() => log2.push(`${label}1`)).then(() => log2.push(`${label}2`)).then(() => log2.push(`${label}3`)).then(() => log2.push(`${label}4`))
// A cached answer wins a race only if it is not behind an async return.
async function cached(key) { return `cached:${key}` }
const fresh = (key) => Promise.resolve(`fresh:${key}`)
const race1 = await Promise.race([cached('a'), fresh('a')])
const race2 = await Promise.race([fresh('b'), cached('b')])
const arrow = async (x) => x * 2
const race3 = await Promise.race([arrow(21), Promise.resolve('plain')])
// No return value, a bare return, an explicit value, an await then return.
async function noReturn() { log2.push('body') }
async function bareReturn() { return }
async function value() { return 1 }
async function awaited() { const v = await 1; return v }
const settled = []
const all = [noReturn(), bareReturn(), value(), awaited()].map((p, i) => p.then(() => { settled.push(i); log2.push(`s${i}`) }))
tick('t')
await Promise.all(all)
await tick('u')
// A returned rejected promise is not caught by the function's own try.
async function risky() {
  try { return Promise.reject(new Error('late failure')) } catch { return 'caught inside' }
}
const riskyResult = await risky().catch((e) => `caught outside: ${e.message}`)
// finally runs before the caller sees the value
const order = []
async function withFinally() { try { return 'v' } finally { order.push('finally') } }
await withFinally().then((v) => order.push(v))
// A first-settled pattern over agents and a cache
const answers = await Promise.all(['x', 'y'].map(async (k) => {
  const hit = k === 'x' ? await cached(k) : null
  return hit ?? agent(`answer ${k}`, { label: `ans:${k}` })
}))
return { race1, race2, race3, settled, log2, riskyResult, order, answers }
