export const meta = { name: 'map-set', description: 'Map and Set semantics' }
const m = new Map()
const objKey = { id: 1 }
m.set('b', 1).set('a', 2).set(objKey, 'obj').set(NaN, 'nan').set(0, 'zero')
m.set('b', 3)
const order = [...m.keys()].map(k => (typeof k === 'object' ? 'obj' : String(k)))
const s = new Set([3, 1, 3, 2, 1])
s.add(-0)
s.delete(1)
const visited = []
const live = new Set([1, 2, 3])
for (const v of live) { visited.push(v); if (v === 1) { live.delete(2); live.add(4) } }
const byLen = new Map()
for (const w of ['aa', 'b', 'cc', 'ddd', 'e']) byLen.set(w.length, [...(byLen.get(w.length) ?? []), w])
const a = new Set(['x', 'y', 'z']), b = new Set(['y', 'z', 'w'])
const wm = new WeakMap([[objKey, 'weak']])
const counter = new Map()
for (const c of 'abracadabra') counter.set(c, (counter.get(c) || 0) + 1)
const top = [...counter].sort((p, q) => q[1] - p[1] || p[0].localeCompare(q[0])).slice(0, 3)
return {
  order, size: m.size, get: [m.get(NaN), m.get(-0), m.get('b'), m.get({ id: 1 }), m.has(objKey)],
  set: [...s], hasNegZero: s.has(0), visited, byLen: Object.fromEntries(byLen),
  union: [...new Set([...a, ...b])], inter: [...a].filter(x => b.has(x)), diff: [...a].filter(x => !b.has(x)),
  weak: [wm.get(objKey), wm.has({})], entries: [...new Map([[1, 'one']]).entries()], fromObj: [...new Map(Object.entries({ k: 'v' }))],
  json: [JSON.stringify([...m.entries()].filter(([k]) => typeof k === 'string')), JSON.stringify(new Map([[1, 2]]))],
  top, spreadString: [...new Set('hello')].join(''), forEach: (() => { const r = []; new Map([['x', 1]]).forEach((v, k, map) => r.push(k + v + map.size)); return r })(),
  clear: (() => { const t = new Set([1]); t.clear(); return t.size })(),
  mapFromMap: [...new Map(new Map([['q', 1]]))], iteratorNext: new Set(['first']).values().next(),
}
