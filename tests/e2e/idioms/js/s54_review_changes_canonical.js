export const meta = {
  name: 'review-changes',
  description: 'Review changed files across dimensions, verify each finding',
  phases: [{ title: 'Review' }, { title: 'Verify' }],
}
const FINDINGS_SCHEMA = {
  type: 'object',
  properties: { findings: { type: 'array', items: { type: 'object', properties: { title: { type: 'string' }, file: { type: 'string' }, line: { type: 'number' } }, required: ['title', 'file'] } } },
  required: ['findings'],
}
const VERDICT_SCHEMA = { type: 'object', properties: { isReal: { type: 'boolean' }, confidence: { type: 'number' } }, required: ['isReal'] }
const DIMENSIONS = [{ key: 'bugs', prompt: 'Find bugs in the diff' }, { key: 'perf', prompt: 'Find performance problems in the diff' }, { key: 'security', prompt: 'Find security issues in the diff' }]
const results = await pipeline(
  DIMENSIONS,
  d => agent(d.prompt, { label: `review:${d.key}`, phase: 'Review', schema: FINDINGS_SCHEMA }),
  review => parallel(review.findings.map(f => () =>
    agent(`Adversarially verify: ${f.title}`, { label: `verify:${f.file}`, phase: 'Verify', schema: VERDICT_SCHEMA })
      .then(v => ({ ...f, verdict: v }))
  ))
)
const confirmed = results.flat().filter(Boolean).filter(f => f.verdict?.isReal)
return { confirmed }
