export const meta = { name: 'frozen-builtins', description: 'Helpers written without patching builtins, and what patching does' }
const attempts = {}
const attempt = (name, f) => { try { f(); attempts[name] = 'ok' } catch (e) { attempts[name] = e.name } }
attempt('arrayProto', () => { Array.prototype.unique = function () { return [...new Set(this)] } })
attempt('stringProto', () => { String.prototype.capitalize = function () { return this[0].toUpperCase() + this.slice(1) } })
attempt('objectStatic', () => { Object.deepFreeze = (o) => o })
attempt('mathMethod', () => { Math.clamp = (x, a, b) => Math.min(Math.max(x, a), b) })
attempt('jsonParse', () => { JSON.parse = () => ({}) })
attempt('promiseThen', () => { Promise.prototype.then = () => null })
attempt('deleteMethod', () => { delete Array.prototype.map })
attempt('defineOnProto', () => Object.defineProperty(Object.prototype, 'extra', { value: 1 }))
attempt('globalVar', () => { globalThis.shared = { count: 0 } })
attempt('dateProto', () => { Date.prototype.addDays = function (n) { return new Date(this.getTime() + n * 864e5) } })
// What people do instead: plain helpers.
const unique = (xs) => [...new Set(xs)]
const capitalize = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s)
const clamp = (x, a, b) => Math.min(Math.max(x, a), b)
// Instances may still shadow inherited methods and fields.
class ReviewError extends Error {
  constructor(message, file) { super(message); this.name = 'ReviewError'; this.file = file }
}
const re = new ReviewError('bad diff', 'a.js')
const obj = { toString() { return 'obj!' } }
const assigned = {}
assigned.toString = () => 'assigned!'
assigned.valueOf = () => 42
assigned.constructor = 'not a function'
const fromJson = Object.assign({}, JSON.parse('{"constructor": "c", "hasOwnProperty": 1, "toString": "t"}'))
const spreadCopy = { ...{ toString: 'x' } }
const frozenFlags = [Array.prototype, Object.prototype, Function.prototype, Promise.prototype, Map.prototype, JSON, Math, Reflect, Object, Array, Error, TypeError.prototype, Object.getPrototypeOf([][Symbol.iterator]())].map(Object.isFrozen)
const notFrozen = [globalThis, {}, [], console, args].map(Object.isFrozen)
// The API's host functions and objects have no prototype, as Claude Code's.
const apiShape = {
  consoleKeys: Object.keys(console), budgetKeys: Object.keys(budget),
  protos: [console, budget, log, console.log, setTimeout, budget.spent].map((x) => Object.getPrototypeOf(x) === null),
  bind: [typeof console.log.bind, typeof log.call, typeof agent.bind, typeof parallel.apply],
}
let silenced = 'no'
try { const original = console.log; console.log = () => {}; console.log('hidden'); console.log = original; silenced = 'yes' } catch (e) { silenced = e.name }
const agentOut = await agent('Give me three tags', { label: 'tags' })
const tags = unique(agentOut.split(',').map((t) => capitalize(t.trim().toLowerCase())))
return {
  attempts, frozenFlags, notFrozen,
  errorShape: [re.name, re.file, String(re), re instanceof ReviewError, re instanceof Error, Object.keys(re)],
  shadowed: [String(obj), `${assigned}`, assigned + 1, typeof assigned.constructor, Object.keys(assigned)],
  fromJson, fromJsonKeys: Object.keys(fromJson), spreadCopy,
  tags, clamped: [clamp(5, 1, 3), clamp(-1, 0, 10)],
  shared: typeof shared === 'object' ? shared.count : 'none',
  apiShape, silenced,
}
