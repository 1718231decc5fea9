export const meta = { name: 'returns', description: 'what a returned value becomes' }
class Point { constructor(x, y) { this.x = x; this.y = y } get len() { return Math.hypot(this.x, this.y) } }
const out = await agent('summarize', { label: 'sum' })
console.log('summary:', out, { n: 1 })
return {
  date: new Date(Date.UTC(2024, 4, 1)), map: new Map([[1, 2]]), set: new Set([1]), undef: undefined, fn() { return 1 },
  nan: NaN, inf: -Infinity, big: 2 ** 60, neg0: -0, arr: [undefined, () => 1, null, NaN], point: new Point(3, 4),
  nested: { deeper: { list: [1, [2, [3]]] } }, text: out, typed: Array.from(new Uint8Array([1, 2])), sym: Symbol('x'), boxed: new String('s'),
  withToJSON: { toJSON() { return 'custom' } }, str: 'multi\nline\t"quoted"', emoji: '😀', frozen: Object.freeze({ f: 1 }),
}
