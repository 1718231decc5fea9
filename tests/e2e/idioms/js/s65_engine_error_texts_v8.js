export const meta = { name: 'engine-error-texts-v8', description: "Frozen writes, instanceof and RegExp syntax errors give V8's texts" }
const config = Object.freeze({ model: 'sonnet', retries: 3, tags: Object.freeze(['a', 'b']) })
const problems = []
const attempt = (label, f) => {
  try { f(); problems.push(`${label}: ok`) } catch (e) { problems.push(`${label}: ${e.name}: ${e.message}`) }
}
attempt('frozen write', () => { config.model = 'opus' })
attempt('frozen add', () => { config.extra = true })
attempt('frozen index', () => { config.tags[0] = 'z' })
attempt('frozen push', () => { config.tags.push('c') })
attempt('frozen length', () => { config.tags.length = 0 })
attempt('frozen delete', () => { delete config.retries })
attempt('sealed add', () => { const s = Object.seal({ a: 1 }); s.b = 2 })
attempt('inherited read-only', () => { const o = Object.create(config); o.retries = 9 })
attempt('defined read-only', () => { const o = {}; Object.defineProperty(o, 'id', { value: 7, enumerable: true }); o.id = 8 })
attempt('symbol key', () => { const k = Symbol('secret'); const o = Object.freeze({ [k]: 1 }); o[k] = 2 })
attempt('class instance', () => { class Job { constructor() { this.state = 'new' } } const j = Object.freeze(new Job()); j.state = 'done' })
attempt('getter only', () => { const o = { get total() { return 3 } }; o.total = 4 })
attempt('Math.PI', () => { Math.PI = 3 })
attempt('string index', () => { const s = 'abc'; s[0] = 'x' })
attempt('string prop', () => { const s = 'abc'; s.note = 'x' })
attempt('number prop', () => { const n = 5; n.note = 'x' })
attempt('function name', () => { function handler() {} handler.name = 'other' })
attempt('redefine', () => { Object.defineProperty(config, 'model', { value: 'haiku' }) })
attempt('instanceof object', () => ({}) instanceof {})
attempt('instanceof primitive', () => ({}) instanceof 'Error')
attempt('instanceof undefined', () => ({}) instanceof undefined)
attempt('instanceof arrow', () => ({}) instanceof (() => {}))
for (const [pattern, flags] of [['[a-', ''], ['(unclosed', 'g'], ['a**', ''], ['*star', ''], ['+plus', 'i'], ['?', ''], ['(?<na', ''], ['(?x)', ''], ['closed)', ''], ['a{2,1}', ''], ['[z-a]', ''], ['trailing\\', ''], ['(?<n>a)(?<n>b)', ''], ['\\p{Foo}', 'u'], ['\\-', 'u'], ['\\q', 'u'], ['{', 'u'], [']', 'u'], ['[\\d-z]', 'u'], ['\\k', 'u'], ['\\k<a>(?<b>x)', ''], ['\\00', 'u'], ['a{1', 'u'], ['(?ii:a)', ''], ['[a-]]', 'v'], ['x', 'gg'], ['x', 'q'], ['x', 'uv'], ['a(b', 'dgimsy'], ['ok(\\d+)', 'g']]) {
  attempt(`regex /${pattern}/${flags}`, () => new RegExp(pattern, flags))
}
attempt('regex from user text', () => new RegExp('price: $5 (approx'))
return problems
