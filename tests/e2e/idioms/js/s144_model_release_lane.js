export const meta = {
  name: 'release-lane',
  description: 'QA and review gates for a release candidate, fix loop until both pass',
  phases: [{ title: 'QA' }, { title: 'Review' }, { title: 'Fix' }, { title: 'Decide' }],
}

const GATE_SCHEMA = {
  type: 'object',
  properties: {
    pass: { type: 'boolean' },
    blockers: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, summary: { type: 'string' } } } },
  },
  required: ['pass', 'blockers'],
}
const FIX_SCHEMA = { type: 'object', properties: { fixed: { type: 'array', items: { type: 'string' } } }, required: ['fixed'] }

const version = args?.version ?? '0.0.0'
const MAX_ROUNDS = args?.maxRounds ?? 3
const history = []
let round = 0
let verdict = null

while (round < MAX_ROUNDS) {
  round++
  log(`Round ${round}: running gates for ${version}`)
  const [qa, review] = await parallel([
    () => agent(`Run the QA suite against release ${version} (round ${round}). Report blockers.`, { label: `qa:r${round}`, phase: 'QA', schema: GATE_SCHEMA }),
    () => agent(`Review the diff for release ${version} (round ${round}). Report blockers.`, { label: `review:r${round}`, phase: 'Review', schema: GATE_SCHEMA }),
  ])
  const gates = { qa, review }
  const missing = Object.entries(gates).filter(([, g]) => g == null).map(([k]) => k)
  if (missing.length) {
    log(`Gate(s) failed to report: ${missing.join(', ')}`)
    history.push({ round, missing })
    continue
  }
  const blockers = [...qa.blockers, ...review.blockers]
  history.push({ round, qa: qa.pass, review: review.pass, blockers: blockers.length })
  if (qa.pass && review.pass && blockers.length === 0) {
    verdict = 'ship'
    break
  }
  phase('Fix')
  const fixes = await pipeline(
    blockers,
    b => agent(`Fix blocker ${b.id}: ${b.summary}`, { label: `fix:${b.id}`, phase: 'Fix', schema: FIX_SCHEMA }),
    (res, b) => ({ id: b.id, ok: Array.isArray(res?.fixed) && res.fixed.includes(b.id) }),
  )
  const ok = fixes.filter(Boolean).filter(f => f.ok).length
  log(`Round ${round}: fixed ${ok}/${blockers.length}`)
}

phase('Decide')
const summary = await agent(
  `Write a one-line release note for ${version}. Verdict so far: ${verdict ?? 'hold'}. Rounds: ${JSON.stringify(history)}`,
  { label: 'decide', phase: 'Decide' },
)
return {
  version,
  verdict: verdict ?? 'hold',
  rounds: round,
  history,
  note: typeof summary === 'string' ? summary.trim() : null,
}
