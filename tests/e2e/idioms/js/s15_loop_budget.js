export const meta = {
  name: 'loop-until-dry',
  description: 'find bugs until two dry rounds',
  phases: [{ title: 'Find' }, { title: 'Verify' }],
}
const FINDERS = [{ area: 'cart' }, { area: 'checkout' }]
const BUGS = { type: 'object', properties: { bugs: { type: 'array', items: { type: 'object' } } }, required: ['bugs'] }
const VERDICT = { type: 'object', properties: { real: { type: 'boolean' } }, required: ['real'] }
const key = b => `${b.file}:${b.line}`
const seen = new Set(), confirmed = []
let dry = 0, round = 0
while (dry < 2 && round < 5) {
  round++
  phase('Find')
  const found = (await parallel(FINDERS.map(f => () => agent(`Find bugs in ${f.area}`, { label: `find:${f.area}`, phase: 'Find', schema: BUGS })))).filter(Boolean).flatMap(r => r.bugs)
  const fresh = found.filter(b => !seen.has(key(b)))
  if (!fresh.length) { dry++; log(`round ${round}: dry ${dry}`); continue }
  dry = 0; fresh.forEach(b => seen.add(key(b)))
  const judged = await parallel(fresh.map(b => () => agent(`Judge ${key(b)}`, { label: `judge:${key(b)}`, phase: 'Verify', schema: VERDICT }).then(v => ({ b, real: v?.real === true }))))
  confirmed.push(...judged.filter(j => j?.real).map(j => j.b))
  log(`round ${round}: ${fresh.length} fresh, ${confirmed.length} confirmed`)
}
const FLEET = budget.total ? Math.floor(budget.total / 100_000) : 5
let budgetLoops = 0
while (budget.total && budget.remaining() > 50_000) budgetLoops++
return { round, confirmed: confirmed.map(key).sort(), seen: seen.size, FLEET, budgetLoops, remaining: budget.remaining(), total: budget.total, spent: budget.spent() }
