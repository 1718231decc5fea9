export const meta = { name: 'error-stack-hypot', description: "An error's stack begins with its Name: message line; Math.hypot as V8 computes it" }
function make(m) { return new Error(m) }
class GateError extends Error { constructor(m) { super(m); this.name = 'GateError' } }
class Plain extends Error {}
const first = (e) => e.stack.split('\n')[0]
const renamed = new Error('late'); renamed.name = 'Renamed'
const stacks = {
  plain: first(make('boom')),
  frames: make('boom').stack.split('\n').slice(1).every((l) => l.startsWith('    at ')),
  subclassNamed: first(new GateError('coverage below 80%')),
  subclassUnnamed: first(new Plain('p')),
  typeError: first(new TypeError('t')),
  noMessage: first(new Error()),
  multiLine: new Error('line one\nline two').stack.split('\n').slice(0, 2),
  renamedAfter: first(renamed),
  engine: (() => { try { null.x } catch (e) { return first(e) } })(),
  rangeError: (() => { try { new Array(-1) } catch (e) { return first(e) } })(),
  json: (() => { try { JSON.parse('{') } catch (e) { return first(e) } })(),
  aggregate: first(new AggregateError([], 'all failed')),
  cause: first(new Error('outer', { cause: new Error('inner') })),
  noTrailingNewline: !make('x').stack.endsWith('\n'),
}
// The stack a caught error carries into a log line.
try { JSON.parse('Here is') } catch (e) { log(e.stack.split('\n')[0]) }
let seed = 7
const rnd = () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
const scales = [1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7]
const hypots = []
for (let i = 0; i < 400; i++) {
  const xs = Array.from({ length: 1 + (i % 6) }, () => (rnd() - 0.5) * scales[Math.floor(rnd() * scales.length)])
  hypots.push(Math.hypot(...xs))
}
const named = {
  three: Math.hypot(1, 2, 3),
  tenths: Math.hypot(0.1, 0.2, 0.3),
  fiveOnes: Math.hypot(1, 1, 1, 1, 1),
  pair: Math.hypot(3, 4),
  none: Math.hypot(),
  one: Math.hypot(-5),
  nanInf: Math.hypot(NaN, Infinity),
  nan: Math.hypot(1, NaN),
  huge: Math.hypot(1e308, 1e308),
  tiny: Math.hypot(5e-324, 5e-324),
  coerced: Math.hypot('3', [4]),
  distance: Math.hypot(12.5 - 3.25, 7.75 - 1.5, 0.5),
}
return { stacks, named, hypots }
