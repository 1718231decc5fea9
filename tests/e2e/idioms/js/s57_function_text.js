export const meta = { name: 'function-text', description: 'Describing helpers and checks by their source, as a report does' }
const checks = {
  nonEmpty: (s) => s.trim().length > 0,
  short(s) { return s.length < 80 },
  noTodo: function noTodo(s) { return !/TODO/.test(s) },
}
class Rule { constructor(name) { this.name = name } test() { return true } }
const builtins = [Math.max, JSON.parse, Array.prototype.map, Object, Promise.resolve, parseInt, Symbol, Date.UTC]
const text = await agent('Write a commit message', { label: 'msg' })
return {
  results: Object.fromEntries(Object.entries(checks).map(([k, f]) => [k, f(text)])),
  sources: Object.values(checks).map(String),
  names: Object.values(checks).map((f) => f.name),
  lengths: Object.values(checks).map((f) => f.length),
  builtinText: builtins.map((f) => String(f)),
  builtinNames: builtins.map((f) => f.name),
  classText: String(Rule).split('\n')[0],
  bound: checks.short.bind(null).name,
  arrow: String((a, b = 2, ...rest) => a + b + rest.length),
}
