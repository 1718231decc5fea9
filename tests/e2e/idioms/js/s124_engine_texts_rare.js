export const meta = { name: 'engine-texts-rare', description: "Rarer engine texts as V8 writes them: non-extensible prototypes, lookbehind quantifiers, methods called on null, PromiseResolve, BigInt exponents, super of extends null" }
const res = await agent('Give the list', { label: 'list' })
const out = []
const attempt = (label, f) => { try { out.push(`${label}: ${JSON.stringify(f())}`) } catch (e) { out.push(`${label}: ${e.name}: ${e.message}`) } }
attempt('setPrototypeOf frozen', () => Object.setPrototypeOf(Object.preventExtensions({}), {}))
attempt('setPrototypeOf sealed array', () => Object.setPrototypeOf(Object.seal([1]), {}))
attempt('setPrototypeOf same proto', () => Object.getPrototypeOf(Object.setPrototypeOf(Object.freeze({}), Object.prototype)) === Object.prototype)
attempt('Reflect.setPrototypeOf frozen', () => Reflect.setPrototypeOf(Object.freeze({}), {}))
attempt('__proto__ of frozen', () => { const o = Object.freeze({}); o.__proto__ = {}; return 1 })
attempt('lookbehind +', () => new RegExp('(?<=a)+'))
attempt('negative lookbehind *', () => new RegExp('(?<!a)*b'))
attempt('lookbehind {2}', () => new RegExp('x(?<=a){2}'))
attempt('lookbehind {2,}', () => new RegExp('(?<=a){2,}'))
attempt('lookahead + is Annex B', () => String(new RegExp('(?=a)+a').exec('aa')))
attempt('unicode lookahead ?', () => new RegExp('(?=a)?', 'u'))
attempt('lookbehind then literal {', () => String(new RegExp('(?<=a){').exec('a{')))
attempt('star first', () => new RegExp('*a'))
for (const m of ['map', 'forEach', 'filter', 'reduce', 'some', 'every', 'find', 'findIndex', 'findLast', 'indexOf', 'concat', 'reduceRight', 'at', 'join', 'slice', 'includes', 'lastIndexOf', 'flat', 'sort', 'keys']) {
  attempt(`Array.prototype.${m}`, () => Array.prototype[m].call(res.missing, (x) => x))
}
for (const m of ['concat', 'trim', 'split', 'slice', 'padStart', 'replace', 'includes', 'startsWith', 'toUpperCase', 'charAt', 'at', 'repeat', 'substring', 'localeCompare', 'normalize', 'match', 'search', 'matchAll', 'codePointAt', 'isWellFormed']) {
  attempt(`String.prototype.${m}`, () => String.prototype[m].call(res.missing, 'a'))
}
attempt('String iterator', () => String.prototype[Symbol.iterator].call(null))
attempt('String valueOf', () => String.prototype.valueOf.call(null))
attempt('Promise.resolve.call(1)', () => Promise.resolve.call(1))
attempt('Promise.reject.call("x")', () => Promise.reject.call('x'))
attempt('Promise.all.call(1)', () => Promise.all.call(1, []))
attempt('2n ** -1n', () => String(2n ** -1n))
attempt('BigInt exponent 0', () => String(2n ** 0n))
attempt('extends null', () => { class B extends null {} return new B() })
attempt('anonymous extends null', () => { const C = class extends null {}; return new C() })
attempt('extends null with constructor', () => { class D extends null { constructor() { super() } } return new D() })
attempt('extends a function made non-constructor', () => { function F() {} class E extends F {} Object.setPrototypeOf(E, Math.max); return new E() })
attempt('extends an arrow', () => { class G extends Object {} Object.setPrototypeOf(G, () => 1); return new G() })
attempt('new of an arrow', () => { const h = () => 1; return new h() })
log(out[0])
return out
