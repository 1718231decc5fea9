export const meta = { name: 'receiver-errors', description: "Methods detached from their collection or called on the wrong value fail with V8's receiver texts" }
const res = await agent('List the cache keys to warm', { label: 'keys' })
const cache = new Map(res.keys.map((k, i) => [k, i]))
const seen = new Set(res.keys.slice(0, 1))
const problems = []
const attempt = (label, f) => {
  try { problems.push(`${label}: ok ${JSON.stringify(f())}`) } catch (e) { problems.push(`${label}: ${e.name}: ${e.message}`) }
}
// A method passed as a callback loses its receiver.
attempt('map.get as a callback', () => res.keys.map(cache.get))
attempt('set.has as a filter', () => res.keys.filter(seen.has))
attempt('detached size', () => { const { size } = Object.getOwnPropertyDescriptors(Map.prototype); return size.get.call(res) })
attempt('map method on a set', () => Map.prototype.set.call(seen, 'k', 1))
attempt('set method on an array', () => Set.prototype.add.call(res.keys, 'x'))
attempt('weak map on an object', () => WeakMap.prototype.get.call({}, {}))
attempt('exec on an object', () => RegExp.prototype.exec.call({ source: 'a' }, 'a'))
attempt('source getter', () => Object.getOwnPropertyDescriptor(RegExp.prototype, 'source').get.call({}))
attempt('then on a plain object', () => Promise.prototype.then.call({ then() {} }, () => 1))
attempt('toFixed on a string', () => Number.prototype.toFixed.call(res.keys[0], 2))
attempt('toLocaleString on a string', () => Number.prototype.toLocaleString.call('12'))
attempt('String toString on a number', () => String.prototype.toString.call(12))
attempt('Boolean valueOf on a string', () => Boolean.prototype.valueOf.call('true'))
attempt('Symbol description on a string', () => Object.getOwnPropertyDescriptor(Symbol.prototype, 'description').get.call('s'))
attempt('BigInt toString on a number', () => BigInt.prototype.toString.call(10))
attempt('BigInt toLocaleString on a number', () => BigInt.prototype.toLocaleString.call(10))
attempt('slice of a non buffer', () => ArrayBuffer.prototype.slice.call([], 0))
for (const p of problems) log(p)
return problems
