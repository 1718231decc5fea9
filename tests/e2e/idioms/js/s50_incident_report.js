export const meta = {
  name: 'incident-report',
  description: 'Collect timelines from responders, merge by timestamp, write a markdown postmortem',
  phases: [{ title: 'Collect' }, { title: 'Merge' }, { title: 'Write' }],
  whenToUse: 'After an incident is resolved',
}
const TL = { type: 'object', properties: { events: { type: 'array', items: { type: 'object', properties: { at: { type: 'string' }, what: { type: 'string' }, sev: { type: 'string', enum: ['info', 'warn', 'crit'] } }, required: ['at', 'what'] } } }, required: ['events'] }
const { incident, responders, startedAt } = args
phase('Collect')
const timelines = await pipeline(responders,
  (r) => agent(`List what ${r} saw during ${incident}`, { label: `timeline:${r}`, schema: TL }),
  (tl, r) => tl.events.map((e) => ({ ...e, by: r, t: Date.parse(e.at) })))
phase('Merge')
const start = Date.parse(startedAt)
const merged = timelines.filter(Boolean).flat()
  .filter((e) => !Number.isNaN(e.t))
  .sort((a, b) => a.t - b.t || a.by.localeCompare(b.by))
const dedup = merged.filter((e, i, all) => i === 0 || !(all[i - 1].t === e.t && all[i - 1].what.toLowerCase() === e.what.toLowerCase()))
const rel = (t) => {
  const m = Math.round((t - start) / 60000)
  return `${m < 0 ? '-' : '+'}${String(Math.floor(Math.abs(m) / 60)).padStart(2, '0')}:${String(Math.abs(m) % 60).padStart(2, '0')}`
}
const hhmm = (t) => new Date(t).toISOString().slice(11, 16)
const sevIcon = { info: '·', warn: '!', crit: '‼' }
phase('Write')
const md = [
  `## Postmortem: ${incident}`,
  '',
  `Started ${new Date(start).toUTCString()}; ${dedup.length} events from ${new Set(dedup.map((e) => e.by)).size} responders.`,
  '',
  '| time (UTC) | T | sev | who | what |',
  '|:--|:--|:-:|--|--|',
  ...dedup.map((e) => `| ${hhmm(e.t)} | ${rel(e.t)} | ${sevIcon[e.sev ?? 'info']} | ${e.by} | ${e.what.replace(/\|/g, '\\|')} |`),
]
const crit = dedup.filter((e) => e.sev === 'crit')
const ttd = crit.length ? Math.round((crit[0].t - start) / 60000) : null
const summary = await agent(`Summarize:\n${md.join('\n')}`, { label: 'summary', phase: 'Write' })
md.push('', '### Summary', '', summary.trim().split(/\n+/).map((l) => `> ${l}`).join('\n'))
return {
  markdown: md.join('\n'),
  timeToDetectMin: ttd,
  bad: merged.length - dedup.length,
  invalid: timelines.filter(Boolean).flat().filter((e) => Number.isNaN(e.t)).map((e) => e.at),
  silent: responders.filter((r, i) => timelines[i] === null),
}
