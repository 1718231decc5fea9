export const meta = { name: 'to-primitive-text', description: "An object without a usable toString or valueOf in a template, a concatenation or a comparison: V8's 'Cannot convert object to primitive value'" }
const res = await agent('Count the findings per file', { label: 'counts' })
// A null-prototype dictionary, a common way to count, has no toString.
const counts = Object.create(null)
for (const f of res.files) counts[f] = (counts[f] || 0) + 1
const out = []
const attempt = (label, f) => { try { out.push(`${label}: ${f()}`) } catch (e) { out.push(`${label}: ${e.name}: ${e.message}`) } }
attempt('template', () => `counts: ${counts}`)
attempt('concat', () => 'counts: ' + counts)
attempt('String()', () => String(counts))
attempt('unary plus', () => +counts)
attempt('compare', () => counts < 1)
attempt('join', () => [counts].join())
attempt('null methods', () => `${{ toString: null, valueOf: null }}`)
attempt('object-returning methods', () => `${{ toString() { return {} }, valueOf() { return {} } }}`)
attempt('toPrimitive returning an object', () => `${{ [Symbol.toPrimitive]() { return [] } }}`)
attempt('number hint', () => Math.max({ valueOf() { return {} }, toString() { return {} } }))
attempt('date of such an object', () => new Date(counts).getTime())
attempt('keys still work', () => Object.keys(counts).join(','))
log(out[0])
return out
