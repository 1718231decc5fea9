export const meta = {
  name: 'release-calendar',
  description: 'Collect team release dates, sort versions, render a schedule in each team timezone',
  phases: [{ title: 'Collect' }],
}
const REL = { type: 'object', properties: { version: { type: 'string' }, at: { type: 'string' }, tz: { type: 'string' } }, required: ['version', 'at'] }
const teams = args.teams
const rels = await parallel(teams.map(t => () => agent(`When is ${t}'s next release? Give version, ISO time and IANA timezone.`, { label: `rel:${t}`, schema: REL })))
const rows = teams.map((t, i) => rels[i] && { team: t, ...rels[i] }).filter(Boolean)
rows.sort((a, b) => a.version.localeCompare(b.version, undefined, { numeric: true, sensitivity: 'base' }))
const fmt = (iso, tz) => new Intl.DateTimeFormat('en-US', { timeZone: tz, weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false, timeZoneName: 'short' }).format(new Date(iso))
const schedule = rows.map(r => {
  let local
  try { local = fmt(r.at, r.tz ?? 'UTC') } catch (e) { local = `bad tz ${r.tz}: ${e.constructor.name}` }
  return `${r.version.padEnd(8)} ${r.team.padEnd(8)} ${local}`
})
const first = rows.reduce((m, r) => (Date.parse(r.at) < Date.parse(m.at) ? r : m))
const daysBetween = Math.round((Date.parse(rows.at(-1).at) - Date.parse(rows[0].at)) / 864e5)
log(schedule.join('\n'))
return {
  order: rows.map(r => r.version),
  schedule,
  first: `${first.team} on ${new Date(first.at).toUTCString()}`,
  daysBetween,
  isoWeekday: new Date(first.at).toLocaleDateString('en-GB', { weekday: 'long', timeZone: 'Europe/London' }),
  nycTime: new Date(first.at).toLocaleTimeString('en-US', { timeZone: 'America/New_York' }),
}
