export const meta = {
  name: 'growth-projection',
  description: 'Project costs with compound growth and scale the fleet to the budget',
  phases: [{ title: 'Estimate' }, { title: 'Project' }],
}
const EST = { type: 'object', properties: { monthly: { type: 'number' }, growth: { type: 'number' } }, required: ['monthly', 'growth'] }
const services = ['search', 'billing', 'ingest']
const ests = await parallel(services.map((s) => () => agent(`Estimate monthly cost and growth for ${s}`, { label: `est:${s}`, schema: EST, phase: 'Estimate' })))
phase('Project')
const months = [1, 3, 6, 12, 24]
const project = (m0, g, n) => m0 * (1 + g) ** n
const table = services.map((s, i) => {
  const e = ests[i]
  if (!e) return { service: s, missing: true }
  return {
    service: s,
    at: Object.fromEntries(months.map((n) => [`m${n}`, project(e.monthly, e.growth, n)])),
    rounded: months.map((n) => Math.round(project(e.monthly, e.growth, n) * 100) / 100),
    doubling: Math.ceil(Math.log(2) / Math.log(1 + e.growth)),
    cagr: ((project(e.monthly, e.growth, 12) / e.monthly) ** (1 / 12) - 1),
  }
})
const powers = [1.1 ** 10, 1.05 ** 3, 0.9 ** 7, (-1.5) ** 5, 2 ** 0.5, Math.pow(1.01, 365), 1.000001 ** 1000, 3 ** 40, 0.1 ** 3, 10 ** -2, Math.pow(7, 1001)]
const backoff = Array.from({ length: 6 }, (_, i) => Math.min(30_000, 250 * 2 ** i))
return { table, powers, backoff }
