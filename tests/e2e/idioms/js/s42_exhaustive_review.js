export const meta = {
  name: 'exhaustive-review',
  description: 'Find, dedup against everything seen, judge with three lenses, loop until dry',
  phases: [{ title: 'Find' }, { title: 'Verify' }],
}
const BUGS = { type: 'object', properties: { bugs: { type: 'array', items: { type: 'object', properties: { file: { type: 'string' }, line: { type: 'integer' }, desc: { type: 'string' } }, required: ['file', 'line', 'desc'] } } }, required: ['bugs'] }
const VERDICT = { type: 'object', properties: { real: { type: 'boolean' }, why: { type: 'string' } }, required: ['real'] }
const FINDERS = [{ key: 'logic', prompt: 'Find logic bugs' }, { key: 'edge', prompt: 'Find edge-case bugs' }]
const key = (b) => `${b.file}:${b.line}`
const seen = new Set(), confirmed = [], rejected = []
let dry = 0, round = 0
while (dry < 2 && round < 6) {
  round++
  const found = (await parallel(FINDERS.map((f) => () =>
    agent(`${f.prompt} (round ${round})`, { label: `find:${f.key}`, phase: 'Find', schema: BUGS }))))
    .filter(Boolean).flatMap((r) => r.bugs)
  const fresh = found.filter((b) => !seen.has(key(b)))
  if (!fresh.length) { dry++; log(`round ${round}: nothing new (dry ${dry})`); continue }
  dry = 0
  fresh.forEach((b) => seen.add(key(b)))
  log(`round ${round}: ${fresh.length} new of ${found.length}`)
  const judged = await parallel(fresh.map((b) => () =>
    parallel(['correctness', 'security', 'repro'].map((lens) => () =>
      agent(`Judge "${b.desc}" via the ${lens} lens — real?`, { label: `judge:${lens}:${key(b)}`, phase: 'Verify', schema: VERDICT })))
      .then((vs) => ({ b, votes: vs.filter(Boolean).filter((v) => v.real).length, cast: vs.filter(Boolean).length }))))
  for (const j of judged) (j.votes >= 2 ? confirmed : rejected).push({ ...j.b, votes: `${j.votes}/${j.cast}` })
}
const byFile = confirmed.reduce((m, b) => m.set(b.file, [...(m.get(b.file) ?? []), b.line]), new Map())
return {
  rounds: round,
  confirmed: confirmed.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line),
  rejected: rejected.map(key),
  byFile: Object.fromEntries([...byFile].map(([f, ls]) => [f, ls.sort((a, b) => a - b).join(',')])),
  seen: [...seen].sort(),
}
