export const meta = {
  name: 'aggregate-findings',
  description: 'Fan out reviewers, dedupe and rank their findings, build a summary table',
  phases: [{ title: 'Review' }, { title: 'Rank' }],
}
const SCHEMA = {
  type: 'object',
  properties: { findings: { type: 'array', items: { type: 'object' } } },
  required: ['findings'],
}
const reviewers = ['security', 'correctness', 'style', 'perf']
phase('Review')
const reports = await parallel(reviewers.map(r => () => agent(`Review the diff for ${r} issues`, { label: `review:${r}`, schema: SCHEMA })))
const all = reports.flatMap((rep, i) => (rep?.findings ?? []).map(f => ({ ...f, reviewer: reviewers[i] })))
const SEV = { critical: 0, high: 1, medium: 2, low: 3 }
// Dedupe by file+line, keeping the most severe and remembering who saw it.
const byKey = new Map()
for (const f of all) {
  const key = `${f.file}:${f.line}`
  const prev = byKey.get(key)
  if (!prev) byKey.set(key, { ...f, seenBy: [f.reviewer] })
  else {
    prev.seenBy.push(f.reviewer)
    if (SEV[f.severity] < SEV[prev.severity]) Object.assign(prev, { severity: f.severity, title: f.title })
  }
}
phase('Rank')
const ranked = [...byKey.values()].sort((a, b) =>
  SEV[a.severity] - SEV[b.severity] || b.seenBy.length - a.seenBy.length || a.file.localeCompare(b.file) || a.line - b.line)
const counts = ranked.reduce((acc, f) => ({ ...acc, [f.severity]: (acc[f.severity] ?? 0) + 1 }), {})
const files = [...new Set(ranked.map(f => f.file))].sort()
const width = Math.max(...ranked.map(f => f.file.length))
const table = ranked.map((f, i) => `${String(i + 1).padStart(2)}. ${f.severity.toUpperCase().padEnd(8)} ${f.file.padEnd(width)}:${String(f.line).padStart(4, '0')}  ${f.title}`).join('\n')
const failed = reports.map((r, i) => (r === null ? reviewers[i] : null)).filter(Boolean)
const pct = (n) => `${((n / ranked.length) * 100).toFixed(1)}%`
log(`${ranked.length} unique findings from ${all.length} raw`)
return {
  top: ranked.slice(0, 3).map(({ file, line, severity, seenBy }) => ({ file, line, severity, seenBy })),
  counts, files, failed, table,
  share: Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, pct(v)])),
  duplicates: all.length - ranked.length,
  multiSeen: ranked.filter(f => f.seenBy.length > 1).map(f => `${f.file}:${f.line}`),
}
