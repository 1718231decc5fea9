export const meta = {
  name: 'deadline-tracker',
  description: 'Read the due dates agents report as free text; flag the unparseable ones',
  phases: [{ title: 'Collect' }, { title: 'Report' }],
}
const SCHEMA = { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, due: { type: 'string' } }, required: ['name', 'due'] } } }, required: ['items'] }
const res = await agent('List the open milestones with their due dates', { label: 'milestones', schema: SCHEMA, phase: 'Collect' })
phase('Report')
const asOf = Date.parse(args.asOf)
const rows = res.items.map((it) => {
  const t = new Date(it.due).getTime()
  if (Number.isNaN(t)) return { name: it.name, due: it.due, status: 'unparseable' }
  const days = Math.round((t - asOf) / 86_400_000)
  return { name: it.name, due: new Date(t).toISOString().slice(0, 10), status: days < 0 ? `${-days}d late` : `in ${days}d` }
})
for (const r of rows) log(`${r.name}: ${r.status}`)
const probes = ['Q3 2024', 'v2 2024', 'H2 2024', '3 2024', '12 2024 5', '2024 3', '3 7 2024', '99 3', '3 99', 'x 3/7/2024', 'Sprint 14, 2024', 'TBD 2025', 'Due Q4 2024', '7 2024 March']
return { rows, probes: Object.fromEntries(probes.map((p) => [p, Date.parse(p)])) }
