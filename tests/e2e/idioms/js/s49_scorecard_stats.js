export const meta = {
  name: 'vendor-scorecard',
  description: 'Score vendors with a judge panel, aggregate with median and percentiles, rank',
  phases: [{ title: 'Score' }, { title: 'Aggregate' }],
}
const SCORE = {
  type: 'object',
  properties: {
    scores: { type: 'object', properties: { cost: { type: 'number' }, quality: { type: 'number' }, support: { type: 'number' } }, required: ['cost', 'quality', 'support'] },
    notes: { type: 'string' },
  },
  required: ['scores'],
}
const vendors = args.vendors
const judges = ['finance', 'engineering', 'ops']
const weights = { cost: 0.5, quality: 0.3, support: 0.2 }
const cells = await parallel(vendors.flatMap((v) => judges.map((j) => () =>
  agent(`As ${j}, score ${v} on cost, quality, support (1-10)`, { label: `score:${v}:${j}`, phase: 'Score', schema: SCORE })
    .then((r) => (r ? { vendor: v, judge: j, ...r.scores } : null)))))
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2 }
const percentile = (xs, p) => { const s = [...xs].sort((a, b) => a - b); const i = (s.length - 1) * p; const lo = Math.floor(i); return +(s[lo] + (s[Math.ceil(i)] - s[lo]) * (i - lo)).toFixed(3) }
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length
const stdev = (xs) => { const m = mean(xs); return Math.sqrt(mean(xs.map((x) => (x - m) ** 2))) }
const byVendor = Object.fromEntries(vendors.map((v) => [v, cells.filter((c) => c && c.vendor === v)]))
const rows = vendors.map((v) => {
  const cs = byVendor[v]
  const dims = Object.keys(weights).map((d) => [d, median(cs.map((c) => c[d]))])
  const total = dims.reduce((acc, [d, m]) => acc + weights[d] * m, 0)
  return {
    vendor: v, judges: cs.length,
    medians: Object.fromEntries(dims),
    total: Math.round(total * 100) / 100,
    spread: +stdev(cs.map((c) => c.quality)).toFixed(4),
  }
}).filter((r) => r.judges > 0)
rows.sort((a, b) => b.total - a.total || a.vendor.localeCompare(b.vendor))
const totals = rows.map((r) => r.total)
const fmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
phase('Aggregate')
log(`ranked ${rows.length} of ${vendors.length} vendors`)
return {
  ranking: rows.map((r, i) => `${i + 1}. ${r.vendor.padEnd(10, '.')} ${fmt.format(r.total)} (σq=${r.spread})`),
  rows,
  p: { p25: percentile(totals, 0.25), p50: percentile(totals, 0.5), p90: percentile(totals, 0.9) },
  missing: cells.map((c, i) => (c ? null : `${vendors[Math.floor(i / judges.length)]}/${judges[i % judges.length]}`)).filter(Boolean),
  winner: rows[0]?.vendor ?? null,
}
