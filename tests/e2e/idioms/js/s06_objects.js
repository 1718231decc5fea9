export const meta = { name: 'objects', description: 'Object builtins and ordering' }
const o = { b: 1, a: 2, 10: 'ten', 2: 'two', '-1': 'neg', '01': 'lead' }
const withGetter = { x: 1, get double() { return this.x * 2 }, toJSON() { return { x: this.x, d: this.double } } }
const merged = Object.assign({}, { a: 1, b: { c: 1 } }, { b: { d: 2 } }, null, 'hi')
const spreadOrder = { ...{ a: 1, b: 2 }, b: 3, ...{ a: 4 } }
const proto = { greet() { return 'hi ' + this.name } }
const child = Object.create(proto, { name: { value: 'kid', enumerable: true } })
const desc = Object.getOwnPropertyDescriptor({ get g() { return 1 } }, 'g')
const sym = Symbol('s')
const withSym = { [sym]: 1, plain: 2 }
const counts = {}
for (const w of 'a b a c b a'.split(' ')) counts[w] = (counts[w] || 0) + 1
const entries = Object.entries(counts).sort(([, x], [, y]) => y - x)
const frozen = Object.freeze({ k: 1 })
const nullProto = Object.create(null)
nullProto.z = 1
const cloned = JSON.parse(JSON.stringify({ d: new Date(0), u: undefined, f() {}, n: null, nested: [{ a: 1 }] }))
const computed = { [`key_${1 + 1}`]: true, ['a' + 'b']: 'ab' }
const shorthand = (() => { const name = 'n', value = 2; return { name, value, method() { return 1 } } })()
const inTest = ['a' in { a: undefined }, 'toString' in {}, Object.hasOwn({ a: 1 }, 'a'), ({}).hasOwnProperty.call({ b: 1 }, 'b')]
const keysOrder = Object.keys(o)
const valuesOrder = Object.values({ z: 1, y: 2 })
const forIn = []
for (const k in child) forIn.push(k)
const defined = Object.defineProperties({}, { hidden: { value: 1, enumerable: false }, shown: { value: 2, enumerable: true } })
return {
  keysOrder, valuesOrder, json: JSON.stringify(o), withGetter: JSON.stringify(withGetter), double: withGetter.double,
  merged, spreadOrder, greet: child.greet(), childKeys: Object.keys(child), descKeys: Object.keys(desc).sort(),
  withSym: [Object.keys(withSym), JSON.stringify(withSym), Object.getOwnPropertySymbols(withSym).length],
  entries, isFrozen: [Object.isFrozen(frozen), Object.isFrozen({}), Object.isSealed(frozen)], nullProto: [Object.keys(nullProto), typeof nullProto.toString],
  cloned, computed, shorthand: Object.keys(shorthand), inTest, forIn, defined: [Object.keys(defined), JSON.stringify(defined), defined.hidden],
  fromEntries: Object.fromEntries([['a', 1], ['b', [2]]]), groupedCounts: Object.entries(counts).filter(([, n]) => n > 1).map(([k]) => k),
  equality: [Object.is(NaN, NaN), Object.is(0, -0), NaN === NaN, 0 === -0, null == undefined, null === undefined, '1' == 1, [] == false],
  typeofs: [typeof null, typeof [], typeof function () {}, typeof 1n, typeof Symbol(), typeof undefined, typeof NaN],
  toStr: [String({}), String([1, [2]]), String(null), `${{ toString() { return 'custom' } }}`, Object.prototype.toString.call([]), Object.prototype.toString.call(null)],
}
