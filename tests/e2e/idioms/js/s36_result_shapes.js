export const meta = { name: 'result-shapes', description: 'Returning rich objects: what the caller receives' }
class Finding {
  constructor(file, line) { this.file = file; this.line = line; this.createdAt = new Date(Date.UTC(2024, 5, 1)) }
  get key() { return `${this.file}:${this.line}` }
  toJSON() { return { key: this.key } }
  describe() { return `finding at ${this.key}` }
}
const f = new Finding('a.js', 3)
const byFile = new Map([['a.js', [f]]])
const summary = await agent('Summarize', { label: 'sum', schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } })
const withAccessor = { base: 2, get doubled() { return this.base * 2 } }
const arr = [1, 2]; arr.extra = 'ignored?'
const fromParallel = await parallel([() => f, () => new Date(Date.UTC(2024, 0, 2)), () => ({ when: new Date(0), m: new Map([[1, 1]]), fn() {} })])
return {
  finding: f,
  findings: [f],
  byFile,
  entries: Object.fromEntries(byFile),
  asArray: [...byFile],
  date: new Date(Date.UTC(2024, 0, 1)),
  dateIso: new Date(Date.UTC(2024, 0, 1)).toISOString(),
  summary, withAccessor, arr, fromParallel,
  boxed: [new Number(3), new Boolean(false), Object('str')],
  regex: /a+/g,
  err: new Error('kept?'),
  nestedUndef: { a: undefined, b: [undefined], c: null },
  objWithToJSON: { toJSON() { return 'replaced' } },
  frozenClass: Object.freeze(new Finding('b.js', 9)),
  described: f.describe(),
  symbolKey: { [Symbol('hidden')]: 1, visible: 2 },
  set: new Set(['x']),
  typed: new Uint8Array([7, 8]),
  promise: Promise.resolve(1),
  nullProto: Object.assign(Object.create(null), { z: 1 }),
}
