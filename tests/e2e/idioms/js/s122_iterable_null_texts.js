export const meta = { name: 'iterable-null-texts', description: "Array.from, Object.fromEntries, spreads, for-of and collections over null / undefined / non-iterables: V8's texts" }
const res = await agent('List the items', { label: 'items' })
const out = []
const attempt = (label, f) => { try { out.push(`${label}: ${JSON.stringify(f())}`) } catch (e) { out.push(`${label}: ${e.name}: ${e.message}`) } }
// The agent answered `items: null` and no `tags` at all.
attempt('Array.from(null)', () => Array.from(res.items))
attempt('Array.from(undefined)', () => Array.from(res.tags))
attempt('Array.from with map', () => Array.from(res.items, (x) => x))
attempt('Array.from(5)', () => Array.from(5))
attempt('Array.from({})', () => Array.from({}))
attempt('Array.from bad iterator', () => Array.from({ [Symbol.iterator]: 5 }))
attempt('Array.from null iterator', () => Array.from({ [Symbol.iterator]: null, length: 2, 0: 'a' }))
attempt('Array.from.call', () => Array.from.call(null, null))
attempt('fromEntries(null)', () => Object.fromEntries(res.items))
attempt('fromEntries(undefined)', () => Object.fromEntries(res.tags))
attempt('fromEntries(5)', () => Object.fromEntries(5))
attempt('fromEntries({})', () => Object.fromEntries({}))
attempt('fromEntries([1])', () => Object.fromEntries([1]))
attempt('spread null', () => [...res.items])
attempt('spread undefined', () => [...res.tags])
attempt('spread {}', () => [...{}])
attempt('call spread', () => Math.max(...res.items))
attempt('for of null', () => { for (const x of res.items) out.push(x) })
attempt('for of undefined', () => { for (const x of undefined) out.push(x) })
attempt('array pattern', () => { const [a] = res.items; return a })
attempt('new Set(null)', () => [...new Set(res.items)])
attempt('new Set(5)', () => new Set(5))
attempt('new Map(7)', () => new Map(7))
attempt('new Set({})', () => new Set({}))
attempt('entries of null', () => { for (const [k, v] of Object.entries(res.items)) out.push(k) })
for (const [label, f] of [['all', () => Promise.all(res.tags)], ['allSettled', () => Promise.allSettled(res.items)], ['race', () => Promise.race(5)], ['any', () => Promise.any(null)]]) {
  try { await f(); out.push(`${label}: ok`) } catch (e) { out.push(`${label}: ${e.name}: ${e.message}`) }
}
log(out[0])
return out
