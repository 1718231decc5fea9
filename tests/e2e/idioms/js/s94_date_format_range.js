export const meta = { name: 'date-ranges', description: 'Sprint and meeting spans with Intl.DateTimeFormat formatRange and formatRangeToParts in en-US and en-GB' }
const a = new Date('2024-03-04T09:00:00Z')
const ends = ['2024-03-04T10:30:00Z', '2024-03-04T21:00:00Z', '2024-03-04T09:00:30Z', '2024-03-05T09:00:00Z', '2024-03-14T09:00:00Z', '2024-04-14T19:00:00Z', '2025-03-04T09:00:00Z', '2024-03-04T09:45:00Z']
const out = []
for (const loc of ['en-US', 'en-GB']) for (const o of [{ hour: 'numeric', minute: '2-digit' }, { hour: 'numeric' }, { timeStyle: 'short' }, { dateStyle: 'medium', timeStyle: 'short' }, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }, { year: 'numeric', month: 'numeric', day: 'numeric' }, { month: 'numeric', day: 'numeric' }, { dateStyle: 'short' }, { dateStyle: 'full' }, { dateStyle: 'long' }, { year: 'numeric' }, { weekday: 'long', month: 'long', day: 'numeric' }, { month: 'long', day: 'numeric', year: 'numeric' }, { hour: '2-digit', minute: '2-digit', hour12: false }, { month: 'short', year: '2-digit' }]) {
  const f = new Intl.DateTimeFormat(loc, { ...o, timeZone: 'UTC' })
  out.push(`${loc} ${JSON.stringify(o)} ${ends.map((b) => f.formatRange(a, new Date(b))).join(' || ')}`)
}
const p = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).formatRangeToParts(a, new Date(ends[0]))
log(out[0])
return { out, p, p2: new Intl.DateTimeFormat('en-GB', { month: 'short', day: 'numeric', timeZone: 'UTC' }).formatRangeToParts(a, new Date(ends[4])) }
