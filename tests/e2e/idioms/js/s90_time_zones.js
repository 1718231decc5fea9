export const meta = { name: 'time-zones', description: 'Show a meeting time in each attendee\'s time zone, with the zone names and offsets' }
const meeting = Date.UTC(2024, 2, 10, 15, 30) // the day the US moves its clocks
const zones = ['America/New_York', 'America/Chicago', 'America/Denver', 'America/Phoenix', 'America/Los_Angeles', 'America/Anchorage', 'Pacific/Honolulu',
  'America/Toronto', 'America/Sao_Paulo', 'Europe/London', 'Europe/Dublin', 'Europe/Lisbon', 'Europe/Berlin', 'Europe/Kyiv', 'Europe/Istanbul', 'Europe/Moscow',
  'Africa/Cairo', 'Asia/Dubai', 'Asia/Kolkata', 'Asia/Tokyo', 'Australia/Adelaide', 'Australia/Sydney', 'Pacific/Auckland', 'Etc/GMT+5', 'UTC']
const rows = zones.map((timeZone) => {
  const local = new Date(meeting).toLocaleString('en-US', { timeZone, dateStyle: 'medium', timeStyle: 'short' })
  const names = ['short', 'long', 'shortOffset', 'longOffset'].map((timeZoneName) => new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName, hour: 'numeric' }).format(meeting))
  return `${timeZone}: ${local} | ${names.join(' | ')} | ${new Date(meeting).toLocaleTimeString('en-GB', { timeZone, timeZoneName: 'short' })}`
})
// Around the transitions: every 30 minutes across New York's, Berlin's and Sydney's changes.
const edges = []
for (const [timeZone, start] of [['America/New_York', Date.UTC(2024, 10, 3, 4)], ['Europe/Berlin', Date.UTC(2025, 2, 30, 0)], ['Australia/Sydney', Date.UTC(2025, 3, 5, 15)]]) {
  const f = new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', minute: '2-digit', timeZoneName: 'short', month: 'short', day: 'numeric' })
  for (let t = start; t <= start + 3 * 3600000; t += 1800000) edges.push(f.format(t))
}
const parts = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', dateStyle: 'full', timeStyle: 'long' }).formatToParts(meeting)
const resolved = ['asia/kolkata', 'Europe/Kiev', 'US/Eastern', 'etc/gmt-14', 'Etc/UTC', 'GMT'].map((timeZone) => new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone)
const errors = []
for (const timeZone of ['Foo/Bar', 'Z', 'Etc/GMT+13']) {
  try { new Date(meeting).toLocaleString('en-US', { timeZone }) } catch (e) { errors.push(`${e.name}: ${e.message}`) }
}
const d = new Date(meeting)
log(rows[0])
return { rows, edges, parts, resolved, errors, own: [d.getHours(), d.getTimezoneOffset(), d.toISOString()],
  dates: ['en-US', 'en-GB', 'de'].map((l) => new Date(Date.UTC(2024, 11, 31, 23, 30)).toLocaleDateString(l, { timeZone: 'Asia/Tokyo' })) }
