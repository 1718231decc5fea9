export const meta = { name: 'destructure', description: 'patterns people write' }
const res = { data: { items: [1, 2, 3], total: 3 }, meta: { page: 1 }, ok: true, extra: 'x' }
const { data: { items, total: count = 0 }, ...restOfRes } = res
const [first, , third = 'none', ...others] = items
const { missing = 'dflt', ok: isOk } = res
const key = 'page'
const { meta: { [key]: pageNo } } = res
let a = 1, b = 2;
[a, b] = [b, a]
function opts({ name = 'anon', tags: [mainTag = 'untagged'] = [], ...more } = {}) { return { name, mainTag, more } }
const calls = [opts(), opts({ name: 'x', tags: ['t1', 't2'], level: 3 }), opts({ tags: [] })]
const pairs = Object.entries({ x: 1, y: 2 }).map(([k, v]) => `${k}=${v}`)
const swapped = Object.fromEntries(Object.entries({ a: 'A', b: 'B' }).map(([k, v]) => [v, k]))
const [[x1, y1], [x2, y2]] = [[1, 2], [3, 4]]
const { length } = 'hello'
const [c0, ...chars] = 'héllo'
const nestedDefaults = (({ a: { b = 5 } = {} } = {}) => b)()
const mapEntries = []
for (const [k, { v }] of new Map([['m1', { v: 1 }], ['m2', { v: 2 }]])) mapEntries.push(k + v)
let assigned = {};
({ p: assigned.p, q: assigned['q-key'] = 'dq' } = { p: 'P' })
return { items, count, restOfRes, first, third, others, missing, isOk, pageNo, a, b, calls, pairs, swapped, sums: [x1 + y1, x2 + y2], length, c0, chars, nestedDefaults, mapEntries, assigned }
