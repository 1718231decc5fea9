export const meta = { name: 'collator-compare-shape', description: "An Intl.Collator's compare as V8 has it: an anonymous function of length 2 without a prototype, ToString on its arguments (a Symbol throws), usable directly as a sort comparator" }
const coll = new Intl.Collator('en', { sensitivity: 'base', numeric: true })
const c = coll.compare
let sym
try { sym = c(Symbol('x'), 'a') } catch (e) { sym = `${e.name}: ${e.message}` }
const titles = ['Item 10', 'item 9', 'Ítem 2', 'item 1', 'ITEM 2', 'item-3']
return {
  name: c.name, length: c.length, own: Object.getOwnPropertyNames(c), proto: typeof c.prototype, same: c === coll.compare,
  noArgs: c(), oneArg: c('undefined'), numbers: [c(10, 9), c(2, '2'), c(null, 'null'), c(true, 'TRUE')],
  objects: [c({ toString: () => 'b' }, 'a'), c([1, 2], '1,2')],
  sym,
  sorted: titles.toSorted(c), sortedDefault: titles.toSorted(new Intl.Collator().compare),
  detached: ['b', 'a', 'C', 'ä'].map((x) => ['a', 'A', 'b'].map((y) => c(x, y)).join(',')),
}
