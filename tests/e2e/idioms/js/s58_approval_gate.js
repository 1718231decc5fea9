export const meta = {
  name: 'approval-gate',
  description: 'Ask reviewers to approve a change, stop early on a veto, log the tally',
  phases: [{ title: 'Ask', detail: 'one reviewer at a time for vetoes, then the rest at once' }, { title: 'Decide' }],
}
const VOTE = { type: 'object', properties: { decision: { type: 'string', enum: ['approve', 'reject', 'abstain'] }, reason: { type: 'string' }, blocking: { type: 'boolean' } }, required: ['decision'] }
const { change, owners, reviewers, quorum } = args
phase('Ask')
// Owners first, one at a time: a blocking rejection ends the gate.
const ownerVotes = []
let vetoedBy = null
for (const [i, owner] of owners.entries()) {
  const v = await agent(`As owner ${owner}, approve or reject: ${change.title}`, { label: `owner:${owner}`, schema: VOTE })
  ownerVotes.push({ who: owner, ...(v ?? { decision: 'abstain', reason: 'no answer' }) })
  console.log('owner vote', { i, who: owner, decision: ownerVotes.at(-1).decision })
  if (v?.decision === 'reject' && v.blocking) { vetoedBy = owner; break }
}
let reviewerVotes = []
if (!vetoedBy) {
  reviewerVotes = (await pipeline(reviewers,
    (r) => agent(`As reviewer ${r}, vote on: ${change.title}\n${change.summary}`, { label: `review:${r}`, schema: VOTE }),
    (v, r) => ({ who: r, ...v }))).map((v, i) => v ?? { who: reviewers[i], decision: 'abstain', reason: 'no answer' })
}
phase('Decide')
const all = [...ownerVotes, ...reviewerVotes]
const tally = all.reduce((t, v) => ({ ...t, [v.decision]: (t[v.decision] ?? 0) + 1 }), { approve: 0, reject: 0, abstain: 0 })
const cast = tally.approve + tally.reject
const approved = !vetoedBy && cast >= quorum && tally.approve / cast >= 2 / 3
console.info('tally', tally, `quorum ${cast}/${quorum}`)
if (vetoedBy) console.warn(`vetoed by ${vetoedBy}`)
if (!approved && !vetoedBy) console.error('not approved', new Error(`only ${tally.approve} of ${cast} approved`))
const reasons = all.filter((v) => v.reason).map((v) => `${v.who} (${v.decision}): ${v.reason}`)
return { approved, vetoedBy, tally, asked: all.map((v) => v.who), reasons }
