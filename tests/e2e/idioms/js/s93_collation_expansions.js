export const meta = { name: 'collation-expansions', description: 'Sort names by accent only: æ, ß and œ sort after the letters they stand for' }
const res = await agent('List the names', { label: 'names' })
const accent = (a, b) => a.localeCompare(b, 'en', { sensitivity: 'accent' })
const sorted = res.names.toSorted(accent)
const pairs = [['æ', 'ae'], ['Æsir', 'aesir'], ['ß', 'ss'], ['œuvre', 'oeuvre'], ['æ', 'áe'], ['æ', 'aé'], ['ßa', 'sa']]
  .map(([a, b]) => `${a}/${b}: ${['base', 'accent', 'case', 'variant'].map((s) => a.localeCompare(b, 'en', { sensitivity: s })).join(' ')}`)
log(sorted.join(', '))
return { sorted, pairs, base: res.names.toSorted((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })) }
