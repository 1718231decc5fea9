export const meta = { name: 'sort-boolean-comparator', description: 'Ranking agent scores with the comparators people actually write' }
const S = { type: 'object', properties: { candidates: { type: 'array' } }, required: ['candidates'] }
const { candidates } = await agent('Score the candidate fixes', { label: 'score', schema: S })
// A comparator that answers a boolean: JavaScriptCore (Claude Code's engine) sorts with it.
const best = [...candidates].sort((a, b) => a.score < b.score)
const byName = candidates.map(c => c.name).sort((a, b) => a > b)
const byRisk = candidates.toSorted((a, b) => a.risk > b.risk).map(c => `${c.name}:${c.risk}`)
const mixedTies = candidates.map(c => c.score).sort((a, b) => a >= b)
const proper = [...candidates].sort((a, b) => b.score - a.score || a.name.localeCompare(b.name)).map(c => c.name)
return { best: best.map(c => c.name), top: best[0].name, byName, byRisk, mixedTies, proper }
