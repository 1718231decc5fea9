export const meta = { name: 'newer-builtins', description: 'ES2023-2025 builtins that Claude Code (Bun/JavaScriptCore) has' }
const S = { type: 'object', properties: { tickets: { type: 'array' } }, required: ['tickets'] }
const { tickets } = await agent('List open tickets', { label: 'tickets', schema: S })
const byTeam = Object.groupBy(tickets, t => t.team)
const byPrio = Map.groupBy(tickets, t => (t.prio <= 1 ? 'urgent' : 'later'))
const { promise, resolve } = Promise.withResolvers()
setTimeout(() => resolve('resolved later'), 5)
const later = await promise
const a = new Set(tickets.filter(t => t.team === 'web').map(t => t.owner))
const b = new Set(tickets.filter(t => t.prio <= 1).map(t => t.owner))
const sets = {
  union: [...a.union(b)].sort(), inter: [...a.intersection(b)].sort(), diff: [...a.difference(b)].sort(), sym: [...a.symmetricDifference(b)].sort(),
  sub: a.isSubsetOf(new Set([...a, 'zz'])), disjoint: a.isDisjointFrom(new Set(['nobody'])),
}
const fromAsync = await Array.fromAsync((async function* () { yield 1; yield Promise.resolve(2) })())
const helpers = tickets.values().filter(t => t.prio > 1).map(t => t.id).take(2).toArray()
const firstTwo = Iterator.from([5, 6, 7]).drop(1).reduce((s, x) => s + x, 0)
return {
  byTeam: Object.fromEntries(Object.entries(byTeam).map(([k, v]) => [k, v.map(t => t.id)])),
  protoOfGroups: Object.getPrototypeOf(byTeam) === null,
  byPrio: [...byPrio].map(([k, v]) => [k, v.length]),
  later, sets, fromAsync, helpers, firstTwo,
  lastUrgent: tickets.findLast(t => t.prio === 0)?.id ?? null,
  present: ['structuredClone', 'WeakRef', 'FinalizationRegistry', 'queueMicrotask', 'SharedArrayBuffer', 'Atomics', 'WebAssembly', 'setInterval', 'TextEncoder', 'URL', 'AbortController', 'fetch', 'process', 'require', 'Buffer', 'globalThis', 'Intl', 'Proxy', 'Reflect']
    .filter(k => typeof globalThis[k] !== 'undefined'),
}
