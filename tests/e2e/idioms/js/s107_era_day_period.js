export const meta = { name: 'era-day-period', description: 'English era and flexible day periods in DateTimeFormat and toLocale*String: 2 in the afternoon, 12 noon, 2024 AD, their parts and resolved options' }
const at = (h, m = 0, s = 0) => Date.UTC(2024, 2, 5, h, m, s)
const hours = [0, 1, 5, 6, 9, 11, 12, 13, 17, 18, 20, 21, 23]
const out = {}
for (const loc of ['en-US', 'en']) {
  for (const dayPeriod of ['narrow', 'short', 'long']) {
    const f = new Intl.DateTimeFormat(loc, { hour: 'numeric', dayPeriod, timeZone: 'UTC' })
    const g = new Intl.DateTimeFormat(loc, { hour: 'numeric', minute: '2-digit', dayPeriod, timeZone: 'UTC' })
    out[`${loc} ${dayPeriod}`] = [hours.map((h) => f.format(at(h))), hours.map((h) => g.format(at(h, 7))), g.format(at(12)), f.format(at(12, 30)), new Intl.DateTimeFormat(loc, { dayPeriod, timeZone: 'UTC' }).format(at(15, 7))]
  }
}
out.mixed = [
  new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: 'numeric', second: 'numeric', dayPeriod: 'short', timeZone: 'UTC' }).format(at(14, 7, 9)),
  new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', dayPeriod: 'short', timeZone: 'UTC' }).format(at(14)),
  new Intl.DateTimeFormat('en-US', { hour: '2-digit', dayPeriod: 'long', timeZone: 'UTC' }).format(at(14)),
  new Intl.DateTimeFormat('en-GB', { hour: 'numeric', dayPeriod: 'short', timeZone: 'UTC' }).format(at(14)),
  new Intl.DateTimeFormat('en-US', { hour: 'numeric', dayPeriod: 'short', hour12: false, timeZone: 'UTC' }).format(at(14)),
  new Date(at(19, 30)).toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit', dayPeriod: 'short', timeZone: 'UTC' }),
]
for (const era of ['narrow', 'short', 'long']) {
  const f = (o) => new Intl.DateTimeFormat('en-US', { ...o, era, timeZone: 'UTC' }).format(at(9))
  out[`era ${era}`] = [f({ year: 'numeric' }), f({}), f({ year: 'numeric', month: 'long', day: 'numeric' }), f({ year: 'numeric', month: 'numeric', day: 'numeric' }), f({ year: 'numeric', month: 'short' }), new Date(at(9)).toLocaleDateString('en-US', { year: 'numeric', era, timeZone: 'UTC' }), new Date(Date.UTC(-500, 0, 1)).toLocaleDateString('en-US', { year: 'numeric', era, timeZone: 'UTC' }), new Date('0000-07-01T00:00:00Z').toLocaleDateString('en-US', { year: 'numeric', month: 'short', era, timeZone: 'UTC' })]
}
out.parts = [
  new Intl.DateTimeFormat('en-US', { hour: 'numeric', dayPeriod: 'short', timeZone: 'UTC' }).formatToParts(at(14)),
  new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', dayPeriod: 'long', timeZone: 'UTC' }).formatToParts(at(21, 5)),
  new Intl.DateTimeFormat('en-US', { year: 'numeric', era: 'short', timeZone: 'UTC' }).formatToParts(at(9)),
  new Intl.DateTimeFormat('en-US', { hour: 'numeric', dayPeriod: 'narrow', timeZone: 'UTC' }).formatToParts(at(12)),
  new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: 'numeric', timeZone: 'UTC' }).formatToParts(at(12)),
  new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', day: 'numeric', era: 'long', timeZone: 'UTC' }).formatToParts(at(9)),
].map((p) => JSON.stringify(p))
out.resolved = [{ hour: 'numeric', dayPeriod: 'short' }, { year: 'numeric', era: 'long' }, { era: 'narrow' }].map((o) => JSON.stringify(new Intl.DateTimeFormat('en-US', { ...o, timeZone: 'UTC' }).resolvedOptions()))
let bad
try { new Intl.DateTimeFormat('en-US', { dayPeriod: 'medium' }) } catch (e) { bad = `${e.name}: ${e.message}` }
out.bad = bad
log(`afternoon: ${new Intl.DateTimeFormat('en', { hour: 'numeric', dayPeriod: 'short', timeZone: 'UTC' }).format(at(14))}`)
return out
