export const meta = { name: 'collator-sort-names', description: 'Sort 10k owner names with one Intl.Collator per option set, and check compare agrees with localeCompare' }
const first = ['Zoë', 'zoe', 'Zoe', 'zack', 'Émile', 'emile', 'adam', 'Ólafur', 'olafur', 'bea', 'Chloé', 'chloe', 'dan', 'Ærin', 'aerin', 'eve', 'Strauß', 'strauss', 'Łukasz', 'lukasz', 'naïve', 'co-op', 'coop', 'Жанна', 'Ωmega']
let s = 11
const rnd = () => { s ^= s << 13; s ^= s >>> 17; s ^= s << 5; return (s >>> 0) / 4294967296 }
const names = Array.from({ length: 10000 }, () => first[Math.floor(rnd() * first.length)] + (rnd() < 0.5 ? ' ' : '-') + Math.floor(rnd() * 120))
const sets = [undefined, { sensitivity: 'base' }, { sensitivity: 'accent' }, { sensitivity: 'case' }, { numeric: true }, { caseFirst: 'upper' }, { ignorePunctuation: true }, { numeric: true, sensitivity: 'base', ignorePunctuation: true }]
const out = {}
for (const o of sets) {
  const key = o === undefined ? 'default' : JSON.stringify(o)
  const coll = new Intl.Collator('en', o)
  const sorted = names.toSorted(coll.compare)
  // A digest of the whole order, its ends, and how often compare and localeCompare disagree on neighbours.
  let h = 0
  for (const n of sorted) for (let i = 0; i < n.length; i++) h = (h * 31 + n.charCodeAt(i)) | 0
  let disagree = 0, ties = 0
  for (let i = 1; i < sorted.length; i += 7) {
    const c = coll.compare(sorted[i - 1], sorted[i])
    if (c !== sorted[i - 1].localeCompare(sorted[i], 'en', o)) disagree++
    if (c === 0) ties++
  }
  out[key] = { first: sorted.slice(0, 3), last: sorted.slice(-3), h, disagree, ties }
}
// Every pair of first names under every option set: < = > per set.
const colls = sets.map((o) => new Intl.Collator('en', o))
out.pairs = first.flatMap((a, i) => first.slice(i + 1).map((b) => `${a}/${b}:` + colls.map((c) => '<=>'[c.compare(a, b) + 1]).join(''))).join(' ')
out.nonStrings = [new Intl.Collator().compare(10, 9), new Intl.Collator('en', { numeric: true }).compare(10, 9), new Intl.Collator().compare(undefined, 'u'), new Intl.Collator().compare(null, 'nul')]
return out
