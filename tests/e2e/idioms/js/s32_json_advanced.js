export const meta = { name: 'json-advanced', description: 'Parsing messy agent JSON and writing reports' }
const raw = await agent('Return the findings as JSON', { label: 'json' })
const extract = (text) => { const m = text.match(/```(?:json)?\s*([\s\S]*?)```/); return JSON.parse(m ? m[1] : text) }
const data = extract(raw)
const revived = JSON.parse('{"when":"2024-01-02T03:04:05.000Z","n":"42","nested":{"n":"7"}}', (k, v) => (k === 'n' ? Number(v) : k === 'when' ? v.slice(0, 10) : v))
const order = []
JSON.parse('{"a":{"b":1},"c":[2]}', function (k, v) { order.push(k === '' ? '(root)' : k); return v })
const removed = JSON.parse('{"keep":1,"drop":2}', (k, v) => (k === 'drop' ? undefined : v))
const errors = []
for (const bad of ['{a:1}', "{'a':1}", '[1,]', '', '{"a":1}x', 'NaN', '01']) {
  try { JSON.parse(bad); errors.push('ok') } catch (e) { errors.push(e.name) }
}
const circular = { name: 'c' }; circular.self = circular
let circErr = null
try { JSON.stringify(circular) } catch (e) { circErr = e.name }
return {
  data,
  pretty: JSON.stringify(data, null, 2),
  tabs: JSON.stringify({ a: [1, { b: 2 }], e: [] , o: {} }, null, '\t'),
  longIndent: JSON.stringify({ a: 1 }, null, 20).split('\n')[1].length,
  strIndent: JSON.stringify([1], null, '--'),
  replacerArr: JSON.stringify({ b: 1, a: 2, c: { a: 3, z: 4 } }, ['a', 'c']),
  replacerFn: JSON.stringify({ internal: 'x', n: 2, list: [1, 'two'] }, (k, v) => (k === 'internal' ? '***' : typeof v === 'number' ? v * 10 : v)),
  specials: JSON.stringify([undefined, function () {}, Symbol('s'), NaN, -0, Infinity, null, new Date(0), /re/g, new Map([[1, 2]]), new Set([1]), [, 1]]),
  topLevel: [JSON.stringify(undefined), JSON.stringify(() => 1), JSON.stringify('s'), JSON.stringify(null), JSON.stringify(1e21), JSON.stringify(-0)],
  escapes: JSON.stringify('line\nbreak "q" \\ \u0001 \u2028 \u007f é 😀 \ud800'),
  revived, order, removed, errors, circErr,
  keyOrder: Object.keys(JSON.parse('{"b":1,"a":2,"10":3,"9":4}')),
  dupKeys: JSON.parse('{"a":1,"a":2}'),
  bigNum: JSON.parse('12345678901234567890'),
  protoKey: (() => { const o = JSON.parse('{"__proto__":{"x":1}}'); return [Object.keys(o), o.x ?? null, JSON.stringify(o)] })(),
  toJSONArgs: JSON.stringify({ k: { toJSON(key) { return `key=${key}` } }, arr: [{ toJSON(key) { return `idx=${key}` } }] }),
  roundTrip: JSON.parse(JSON.stringify({ d: new Date(Date.UTC(2020, 0, 1)), u: undefined, n: null })),
}
