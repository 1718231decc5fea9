export const meta = {
  name: 'pipeline-stages',
  description: 'Stage signature, promise items, nulls, undefined, throws of every kind',
  phases: [{ title: 'Draft' }, { title: 'Review' }, { title: 'Polish' }],
}
const S = { type: 'object', properties: { text: { type: 'string' }, score: { type: 'number' } }, required: ['text', 'score'] }
const topics = ['caching', 'auth', 'billing', 'search', 'export']
const calls = []
const out = await pipeline(
  topics,
  (topic, item, i) => {
    calls.push(`draft:${i}:${topic === item}`)
    if (topic === 'billing') return null // ends this item, no more stages
    return agent(`Draft a design note on ${topic}`, { label: `draft:${topic}`, phase: 'Draft', schema: S })
  },
  async (draft, topic, i) => {
    calls.push(`review:${i}:${typeof draft}`)
    if (draft.score < 3) throw `draft for ${topic} too weak (${draft.score})` // a thrown string
    if (topic === 'export') throw { code: 42 } // no message at all
    const review = await agent(`Review: ${draft.text}`, { label: `review:${topic}`, phase: 'Review' })
    return review === 'LGTM' ? undefined : { ...draft, review }
  },
  (reviewed, topic, i) => {
    calls.push(`polish:${i}:${reviewed === undefined ? 'undefined' : 'object'}`)
    return reviewed === undefined ? `${topic}: approved as drafted` : `${topic}: ${reviewed.review.toLowerCase()}`
  },
)
// Items may be promises: each is awaited before the first stage; stage 2 still sees the original item.
const fromPromises = await pipeline(
  [Promise.resolve(2), 3, new Promise((r) => setTimeout(() => r(5), 5))],
  (n, item, i) => n * 10 + i,
  (n, item) => `${n}/${item instanceof Promise ? 'promise' : item}`,
)
const noStages = await pipeline([1, Promise.resolve('two'), null])
const empty = await pipeline([], (x) => x)
log(`pipeline done: ${out.filter((x) => x !== null).length} of ${topics.length}`)
return { out, calls: calls.sort(), fromPromises, noStages, empty }
