export const meta = { name: 'array-queue-shift', description: 'Arrays as queues: BFS over findings with push/shift, draining a 10,000-item queue, shift with holes, getters, length writes, unshift and splice after shifts' }
// BFS over a findings graph, as a workflow script walks follow-ups.
const edges = new Map()
for (let i = 0; i < 60000; i++) edges.set(i, [(i * 7 + 1) % 60000, (i * 13 + 5) % 60000, (i * 31 + 11) % 60000])
const seen = new Set([0]), order = [], queue = [0]
while (queue.length) {
  const n = queue.shift()
  order.push(n)
  for (const m of edges.get(n)) if (!seen.has(m)) { seen.add(m); queue.push(m) }
}
// Drain a queue.
const q = []
for (let i = 0; i < 10000; i++) q.push({ id: i, w: i % 17 })
let total = 0, drained = 0
while (q.length) { total += q.shift().w; drained++ }
// A rotating queue: shift one, push one.
const ring = [1, 2, 3, 4, 5]
for (let i = 0; i < 100000; i++) ring.push(ring.shift() * 3 % 1000003)
// Semantics.
const holes = [1, , 3, , 5]
const h1 = holes.shift()
const withGetter = [1, 2, 3]
const setLog = []
Object.defineProperty(withGetter, 1, { get() { return 'got' }, set(v) { setLog.push(v) }, configurable: true })
const g1 = withGetter.shift()
const onlyGetter = [1, 2, 3]
Object.defineProperty(onlyGetter, 1, { get() { return 'g' }, configurable: true })
let getterErr
try { onlyGetter.shift() } catch (e) { getterErr = `${e.name}: ${e.message}` }
const arrLike = { length: 3, 0: 'a', 1: 'b', 2: 'c' }
const a1 = Array.prototype.shift.call(arrLike)
const mixed = ['a', 'b', 'c', 'd', 'e', 'f']
mixed.shift(); mixed.shift(); mixed.unshift('z'); mixed.splice(2, 1, 'y', 'x'); mixed.push('p'); const m1 = mixed.shift()
const cut = [1, 2, 3, 4, 5, 6]; cut.shift(); cut.length = 2; cut.push(9); cut.shift()
const grown = [0, 1, 2]; grown.shift(); grown[6] = 6
const emptied = [1]; const e1 = emptied.shift(); const e2 = emptied.shift()
const frozen = Object.freeze([1, 2])
let frozenErr
try { frozen.shift() } catch (e) { frozenErr = e.constructor.name }
const sorted = [5, 3, 9, 1, 7]; sorted.shift(); sorted.sort((a, b) => a - b)
const typed = ['x', 'y', 'z']; typed.shift()
log(`bfs ${order.length} first ${order.slice(0, 5).join(',')}`)
return {
  bfs: [order.length, order.slice(0, 20), order.slice(-5)], drained, total, queueLen: q.length,
  ring: ring.slice(0, 5), ringLen: ring.length,
  holes: [h1, holes.length, 0 in holes, 1 in holes, JSON.stringify(holes)], withGetter: [g1, withGetter, withGetter.length, setLog, getterErr, onlyGetter],
  arrLike: [a1, JSON.stringify(arrLike)], mixed: [m1, mixed], cut, grown: [grown.length, JSON.stringify(grown), 3 in grown], emptied: [e1, e2, emptied.length],
  frozen: [frozenErr, frozen], sorted, typed: [typed, typed.indexOf('z'), typed.includes('x'), [...typed].reverse(), typed.concat(['w']), typed.join('-'), Object.keys(typed)],
}
