export const meta = { name: 'date-format-parts', description: 'Build a release calendar from DateTimeFormat parts and the bound format getter' }
const rel = await agent('List the release dates as ISO timestamps', { label: 'releases' })
const when = rel.releases.map((r) => Date.parse(r.at))
const full = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'full', timeStyle: 'short' })
const day = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' })
// `format` is a getter: the function it gives is bound to its formatter.
const headings = when.map(day.format)
const rows = rel.releases.map((r, i) => {
  const parts = Object.fromEntries(full.formatToParts(when[i]).filter((p) => p.type !== 'literal').map((p) => [p.type, p.value]))
  return `${r.name}: ${parts.weekday} ${parts.day} ${parts.month} ${parts.year}, ${parts.hour}:${parts.minute} ${parts.dayPeriod}`
})
const shapes = []
for (const [locale, options] of [['en-US', {}], ['en-US', { timeStyle: 'full' }], ['en-US', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }], ['en-US', { weekday: 'long', hour: '2-digit' }],
  ['en-GB', { dateStyle: 'long', timeStyle: 'long' }], ['en-GB', {}], ['en-GB', { hour: 'numeric', minute: '2-digit', second: '2-digit', timeZoneName: 'short' }], ['de', {}], ['ja', { hour: 'numeric', minute: 'numeric', second: 'numeric' }], ['sv', {}], ['en-CA', {}], ['en-CA', { hour: 'numeric', minute: 'numeric', second: 'numeric' }]]) {
  const f = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', ...options })
  shapes.push(`${locale} ${JSON.stringify(options)}: ${f.formatToParts(when[0]).map((p) => `${p.type}=${p.value}`).join(' | ')}`)
}
let bad
try { full.formatToParts(Date.parse('not a date')) } catch (e) { bad = `${e.name}: ${e.message}` }
log(headings.join(', '))
return { headings, rows, shapes, bad, sameFormat: day.format === day.format, joined: full.formatToParts(when[1]).map((p) => p.value).join('') === full.format(when[1]) }
