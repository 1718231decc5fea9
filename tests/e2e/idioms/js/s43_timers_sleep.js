export const meta = { name: 'timers', description: 'sleep helpers, timeouts around agents, timer edge cases' }
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const order = []
// Equal delays fire in the order set; 0 and negative delays count as 1 ms.
setTimeout(() => order.push('a:1'), 1)
setTimeout(() => order.push('b:0'), 0)
setTimeout(() => order.push('c:-5'), -5)
setTimeout(() => order.push('d:20'), 20)
setTimeout(() => order.push('e:"10"'), '10')
setTimeout(() => order.push('f:NaN'), NaN)
const cancelled = setTimeout(() => order.push('never'), 5)
clearTimeout(cancelled)
clearTimeout(undefined)
clearTimeout('not an id')
await sleep(50)
// The callback gets no arguments, whatever setTimeout was given.
const got = await new Promise((resolve) => setTimeout((...xs) => resolve(xs.length), 1, 'x', 'y'))
// A throwing callback does not end the workflow.
setTimeout(() => { throw new Error('ignored') }, 1)
await sleep(5)
// A timeout raced against an agent.
const withTimeout = (p, ms, fallback) => {
  let t
  return Promise.race([p.finally(() => clearTimeout(t)), new Promise((resolve) => { t = setTimeout(() => resolve(fallback), ms) })])
}
const answer = await withTimeout(agent('Summarize the incident', { label: 'summary' }), 60_000, 'timed out')
// Debounce: only the last of a burst runs.
const debounced = []
let pending
const debounce = (v) => { clearTimeout(pending); pending = setTimeout(() => debounced.push(v), 10) }
for (const v of ['x', 'y', 'z']) debounce(v)
await sleep(30)
// Polling with backoff until a condition holds.
let polls = 0
const status = ['queued', 'running', 'running', 'done']
let delay = 5
const seen = []
while (true) {
  const s = status[Math.min(polls++, status.length - 1)]
  seen.push(`${s}@${delay}`)
  if (s === 'done') break
  await sleep(delay)
  delay = Math.min(delay * 2, 15)
}
log(`polled ${polls} times`)
return { order, got, answer, debounced, seen, typeofId: typeof cancelled }
