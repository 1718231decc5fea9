export const meta = { name: 'arrays-newer', description: 'Newer Array methods on agent data' }
const S = { type: 'object', properties: { scores: { type: 'array' } }, required: ['scores'] }
const { scores } = await agent('Score each candidate', { label: 'score', schema: S })
const names = scores.map(s => s.name)
const last = scores.findLast(s => s.score > 50)
const lastIdx = scores.findLastIndex(s => s.score < 0)
const sorted = scores.toSorted((a, b) => b.score - a.score)
const reversed = names.toReversed()
const spliced = names.toSpliced(1, 2, 'X')
const replaced = names.with(-1, 'LAST')
const chunks = Array.from({ length: Math.ceil(names.length / 2) }, (_, i) => names.slice(i * 2, i * 2 + 2))
const flat = [[1, [2]], [3, [4, [5]]]].flat(Infinity)
const pairs = names.flatMap((n, i) => (i % 2 ? [] : [[n, i]]))
const zipped = names.map((n, i) => [n, scores[i].score])
const uniq = [...new Set([3, 1, 3, 2, 1])]
const range = [...Array(5).keys()].map(i => i * i)
const filled = new Array(3).fill().map((_, i) => i)
const includesNaN = [[NaN].includes(NaN), [NaN].indexOf(NaN), [0].includes(-0)]
const defaultSort = [10, 9, 1, 100, 25].sort()
const withUndef = [3, undefined, 1, , 2].sort()
const entries = [...['a', 'b'].entries()]
const reducedRight = ['a', 'b', 'c'].reduceRight((acc, x) => acc + x, '')
const empties = [[].every(x => false), [].some(x => true), [].reduce((a, b) => a + b, 'init')]
let reduceErr = null
try { [].reduce((a, b) => a + b) } catch (e) { reduceErr = e.name }
const copyWithin = [1, 2, 3, 4, 5].copyWithin(0, 3)
const lastOf = [names.at(-1), names.at(-100), names.at(0)]
const sparse = [1, , 3]
const sparseInfo = [sparse.length, 1 in sparse, sparse.map(x => x * 2), Object.keys(sparse), sparse.findIndex(x => x === undefined)]
const ofFrom = [Array.of(7), Array.from('hey'), Array.from(new Map([[1, 'a']])), Array.from({ length: 2, 0: 'x' })]
const stats = (() => {
  const xs = scores.map(s => s.score).filter(Number.isFinite)
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length)
  const med = xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]
  return { mean: +mean.toFixed(3), sd: +sd.toFixed(3), med, max: Math.max(...xs), min: Math.min(...xs) }
})()
return { last, lastIdx, top: sorted.slice(0, 2).map(s => s.name), reversed, spliced, replaced, chunks, flat, pairs, zipped, uniq, range, filled, includesNaN, defaultSort, withUndef, entries, reducedRight, empties, reduceErr, copyWithin, lastOf, sparseInfo, ofFrom, stats, original: names }
