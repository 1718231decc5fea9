export const meta = {
  name: 'find-flaky-tests',
  description: 'Find flaky tests and propose fixes',
  phases: [
    { title: 'Scan', detail: 'grep test logs for retries' },
    { title: 'Fix', detail: 'one agent per flaky test' },
  ],
}
const FLAKY_SCHEMA = { type: 'object', properties: { tests: { type: 'array', items: { type: 'string' } } }, required: ['tests'] }
const BUGS_SCHEMA = { type: 'object', properties: { bugs: { type: 'array', items: { type: 'string' } } }, required: ['bugs'] }
const VERDICT = { type: 'object', properties: { refuted: { type: 'boolean' } }, required: ['refuted'] }
phase('Scan')
const flaky = await agent('grep CI logs for retry markers', { schema: FLAKY_SCHEMA, label: 'scan' })
// Loop-until-count: accumulate to a target
const bugs = []
let rounds = 0
while (bugs.length < 5 && rounds < 10) {
  rounds++
  const result = await agent('Find bugs in this codebase.', { schema: BUGS_SCHEMA, label: 'bugs' })
  bugs.push(...result.bugs)
  log(`${bugs.length}/5 found`)
}
// Loop-until-budget: with no target set the loop does not run
const extra = []
while (budget.total && budget.remaining() > 50_000) {
  extra.push(await agent('Find more', { label: 'more' }))
}
const FLEET = budget.total ? Math.floor(budget.total / 100_000) : 5
// Adversarial verify: 3 skeptics per claim, survives if at least 2 fail to refute
phase('Fix')
const verdicts = await parallel(flaky.tests.map((claim) => async () => {
  const votes = await parallel(Array.from({ length: 3 }, (_, i) => () =>
    agent(`Try to refute: ${claim} is flaky. Default to refuted=true if uncertain.`, { schema: VERDICT, label: `refute:${claim}:${i}` })))
  const survives = votes.filter(Boolean).filter((v) => !v.refuted).length >= 2
  return { claim, survives, votes: votes.map((v) => (v === null ? 'died' : v.refuted ? 'refuted' : 'stands')) }
}))
// No silent caps: say what was dropped
const TOP = 2
const kept = verdicts.filter((v) => v.survives).slice(0, TOP)
const dropped = verdicts.filter((v) => v.survives).length - kept.length
if (dropped > 0) log(`kept top ${TOP}, dropped ${dropped}`)
const fixes = await parallel(kept.map((v) => () => agent(`Propose a fix for flaky ${v.claim}`, { label: `fix:${v.claim}` })))
return { bugs, rounds, extra: extra.length, FLEET, verdicts, fixes, budget: { total: budget.total, remaining: budget.remaining(), spent: budget.spent() } }
