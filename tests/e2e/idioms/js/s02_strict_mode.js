export const meta = { name: 'strict', description: 'module-style strict semantics' }
const out = {}
const capture = (name, fn) => { try { out[name] = ['ok', fn()] } catch (e) { out[name] = [e.name, e instanceof TypeError || e instanceof ReferenceError] } }
capture('undeclared', () => { undeclaredVar = 1; return undeclaredVar })
const frozen = Object.freeze({ a: 1, nested: { b: 2 } })
capture('frozenWrite', () => { frozen.a = 2; return frozen.a })
capture('frozenAdd', () => { frozen.c = 3; return frozen.c })
capture('frozenNested', () => { frozen.nested.b = 5; return frozen.nested.b })
capture('frozenDelete', () => { delete frozen.a; return frozen.a })
const sealed = Object.seal({ x: 1 })
capture('sealedAdd', () => { sealed.y = 2; return sealed.y })
capture('sealedWrite', () => { sealed.x = 9; return sealed.x })
const ro = {}
Object.defineProperty(ro, 'k', { value: 1, writable: false })
capture('readonly', () => { ro.k = 2; return ro.k })
const getterOnly = { get v() { return 1 } }
capture('getterOnly', () => { getterOnly.v = 2; return getterOnly.v })
capture('thisInFunction', () => { function f() { return this } return f() === undefined })
capture('argumentsUnlinked', () => { function g(a) { a = 2; return arguments[0] } return g(1) })
capture('primitiveProp', () => { const s = 'abc'; s.extra = 1; return s.extra })
capture('nonExtensible', () => { const o = Object.preventExtensions({}); o.z = 1; return o.z })
capture('deleteArrayLength', () => { const a = [1]; delete a.length; return a.length })
capture('frozenArrayPush', () => { const a = Object.freeze([1, 2]); a.push(3); return a.length })
capture('frozenArraySort', () => { const a = Object.freeze([2, 1]); return a.toSorted() })
capture('nanAssign', () => { NaN = 1; return NaN })
capture('undefinedAssign', () => { undefined = 1; return undefined })
capture('callerAccess', () => { function h() { return h.caller } return h() })
capture('typeofUndeclared', () => typeof notDeclaredAnywhere)
capture('globalThisWrite', () => { globalThis.fromScript = 5; return fromScript })
return out
