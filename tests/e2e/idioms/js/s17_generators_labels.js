export const meta = { name: 'iteration', description: 'generators, iterators, labels' }
function* range(start, end, step = 1) { for (let i = start; i < end; i += step) yield i }
function* take(it, n) { let i = 0; for (const v of it) { if (i++ >= n) return 'early'; yield v } }
function* naturals() { let n = 0; while (true) yield n++ }
function* withReturn() { const got = yield 1; yield got * 2; return 'done' }
const g = withReturn()
const steps = [g.next(), g.next(21), g.next(), g.next()]
const fin = []
function* guarded() { try { yield 1; yield 2 } finally { fin.push('cleanup') } }
for (const v of guarded()) { if (v === 1) break }
const thrower = (function* () { try { yield 1 } catch (e) { yield 'caught ' + e } })()
thrower.next()
const thrown = thrower.throw('boom')
const manual = { from: 1, to: 3, [Symbol.iterator]() { let c = this.from, t = this.to; return { next: () => (c <= t ? { value: c++, done: false } : { value: undefined, done: true }) } } }
const found = []
outer: for (const i of range(0, 5)) {
  for (const j of range(0, 5)) {
    if (j > i) continue outer
    if (i + j === 6) break outer
    found.push(`${i}${j}`)
  }
}
let k = 0
block: { k = 1; if (k) break block; k = 2 }
const [a, b, ...rest] = take(naturals(), 5)
const entriesIt = Object.entries({ x: 1 })[Symbol.iterator]()
const doWhile = (() => { let i = 0, out = []; do { out.push(i) } while (++i < 3); return out })()
return { range: [...range(0, 10, 3)], take: [...take(naturals(), 3)], steps, fin, thrown, manual: [...manual], mapFromIt: Array.from(manual, x => x * 10), found, k, destr: [a, b, rest], entriesIt: entriesIt.next(), doWhile, spreadGen: Math.max(...range(1, 4)) }
