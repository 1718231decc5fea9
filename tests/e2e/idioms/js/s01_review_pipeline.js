export const meta = {
  name: 'review-changes',
  description: 'Review changed files across dimensions, verify each finding',
  phases: [{ title: 'Review' }, { title: 'Verify' }],
}
const FINDINGS_SCHEMA = { type: 'object', properties: { findings: { type: 'array' } }, required: ['findings'] }
const VERDICT_SCHEMA = { type: 'object', properties: { isReal: { type: 'boolean' } }, required: ['isReal'] }
const DIMENSIONS = [{ key: 'bugs', prompt: 'find bugs' }, { key: 'perf', prompt: 'find perf issues' }, { key: 'docs', prompt: 'find doc gaps' }]
const results = await pipeline(
  DIMENSIONS,
  d => agent(d.prompt, { label: `review:${d.key}`, phase: 'Review', schema: FINDINGS_SCHEMA }),
  review => parallel(review.findings.map(f => () =>
    agent(`Adversarially verify: ${f.title}`, { label: `verify:${f.file}`, phase: 'Verify', schema: VERDICT_SCHEMA })
      .then(v => ({ ...f, verdict: v }))
  ))
)
const confirmed = results.flat().filter(Boolean).filter(f => f.verdict?.isReal)
log(`${confirmed.length} confirmed of ${results.flat().length}`)
return { confirmed, byDim: Object.fromEntries(DIMENSIONS.map((d, i) => [d.key, results[i]?.length ?? 0])) }
