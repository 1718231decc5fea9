export const meta = {
  name: 'release-lanes',
  description: 'Check each release lane in parallel, gate the release, write the notes',
  phases: [{ title: 'Collect', detail: 'one agent per lane' }, { title: 'Gate' }, { title: 'Notes' }],
}
const LANE = {
  type: 'object',
  properties: {
    lane: { type: 'string' },
    version: { type: 'string' },
    checks: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, ok: { type: 'boolean' }, ms: { type: 'number' } }, required: ['name', 'ok'] } },
    blockers: { type: 'array', items: { type: 'string' } },
  },
  required: ['lane', 'version', 'checks'],
}
const { lanes = [], cutoff, train } = args
phase('Collect')
const reports = await parallel(lanes.map((lane) => () =>
  agent(`Report the release status of lane ${lane} for train ${train}`, { label: `lane:${lane}`, schema: LANE, phase: 'Collect' })))
const missing = lanes.filter((_, i) => reports[i] == null)
if (missing.length) log(`no report from: ${missing.join(', ')}`)

phase('Gate')
const parse = (v) => v.replace(/^v/, '').split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p))
const cmpVer = (a, b) => {
  const x = parse(a), y = parse(b)
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i], q = y[i]
    if (p === undefined) return typeof q === 'number' ? -1 : 1
    if (q === undefined) return typeof p === 'number' ? 1 : -1
    if (p === q) continue
    if (typeof p === typeof q) return p < q ? -1 : 1
    return typeof p === 'number' ? 1 : -1
  }
  return 0
}
const gated = reports.filter(Boolean).map((r) => {
  const failed = r.checks.filter((c) => !c.ok).map((c) => c.name)
  const slow = r.checks.filter((c) => (c.ms ?? 0) > 60_000).map((c) => `${c.name} (${(c.ms / 60000).toFixed(1)} min)`)
  const verdict = failed.length === 0 && !(r.blockers?.length) ? 'go' : failed.length > 2 ? 'no-go' : 'hold'
  return { lane: r.lane, version: r.version, verdict, failed, slow, blockers: r.blockers ?? [] }
})
const order = { 'no-go': 0, hold: 1, go: 2 }
gated.sort((a, b) => order[a.verdict] - order[b.verdict] || cmpVer(b.version, a.version) || a.lane.localeCompare(b.lane))
const overall = gated.some((g) => g.verdict === 'no-go') ? 'NO-GO' : gated.every((g) => g.verdict === 'go') && !missing.length ? 'GO' : 'HOLD'
log(`gate: ${overall}`)

phase('Notes')
const cut = new Date(cutoff)
const weekday = cut.toLocaleDateString('en-US', { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' })
const highest = [...gated].map((g) => g.version).sort(cmpVer).at(-1)
const lines = [
  `# Release ${train} — ${overall}`,
  `Cutoff: ${weekday} (${cut.toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
  '',
  '| lane | version | verdict | failed |',
  '|---|---|---|---|',
  ...gated.map((g) => `| ${g.lane} | ${g.version} | ${g.verdict.toUpperCase()} | ${g.failed.join(', ') || '—'} |`),
]
if (missing.length) lines.push('', `Missing lanes: ${missing.map((m) => `\`${m}\``).join(' ')}`)
const notes = await agent(`Write release notes for ${train}:\n${lines.join('\n')}`, { label: 'notes', phase: 'Notes' })
return {
  overall, highest, notes: notes.trim(), table: lines.join('\n'),
  byVerdict: gated.reduce((acc, g) => { (acc[g.verdict] ||= []).push(g.lane); return acc }, {}),
  slow: gated.flatMap((g) => g.slow.map((s) => `${g.lane}: ${s}`)),
  versions: ['1.10.0', '1.9.2', '1.10.0-rc.1', 'v1.2', '1.10.0-beta'].sort(cmpVer),
}
