export const meta = { name: 'default-param-scope', description: 'A closure in a default value shares the parameter with the body unless the body declares it again' }
function withDefaults(a, b = a * 2, c = () => a + b) { a = 10; return [a, b, c()] }
function lazyGetter(a, get = () => a) { a = 10; return get() }
function redeclared(a, get = () => a) { var a = 10; return [a, get()] }
function destructured({ x, y } = {}, sum = () => x + y) { x = 100; return sum() }
function setter(a, set = (v) => { a = v }) { set(7); return a }
function fnDecl(a, get = () => a) { function a() { return 'fn' } return [typeof a, get()] }
const arrow = (a, get = () => a) => { a++; return get() }
function* gen(a, get = () => a) { a = 5; yield get(); a = 6; yield get() }
async function later(a, get = () => a) { await null; a = 9; return get() }
function tdz() { try { (function (a = b, b) { return [a, b] })() } catch (e) { return e.name } }
function bodyClosure(a, b = 1) { const read = () => a; a = 'body'; return [read(), b] }
function rest(a, ...more) { a = 3; return [a, more] }
function blockShadow(a, get = () => a) { { let a = 2; a++ } a = 'set'; return get() }
function retry(task, attempts = 3, log = (m) => `${task}: ${m} (${attempts} left)`) {
  const lines = []
  while (attempts > 0) { attempts--; lines.push(log('try')) }
  return lines
}
return {
  withDefaults: withDefaults(1),
  lazy: lazyGetter(1),
  redeclared: redeclared(1),
  destructured: destructured({ x: 1, y: 2 }),
  setter: setter(1),
  fnDecl: fnDecl(1),
  arrow: arrow(1),
  gen: [...gen(1)],
  later: await later(1),
  tdz: tdz(),
  bodyClosure: bodyClosure(0),
  rest: rest(1, 2),
  blockShadow: blockShadow(0),
  retry: retry('fetch'),
}
