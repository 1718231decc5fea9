export const meta = {
  name: 'incident-timeline',
  description: 'Build an incident timeline from several sources and compute MTTD/MTTR',
  phases: [{ title: 'Collect' }, { title: 'Merge' }, { title: 'Write' }],
}
const EVENTS = {
  type: 'object',
  properties: { events: { type: 'array', items: { type: 'object', properties: { at: { type: 'string' }, what: { type: 'string' }, kind: { type: 'string' } }, required: ['at', 'what'] } } },
  required: ['events'],
}
const SOURCES = ['pagerduty', 'slack', 'deploys', 'grafana']
phase('Collect')
const collected = await parallel(SOURCES.map(src => () =>
  agent(`Extract timestamped events about incident ${args.incident} from ${src}. Use ISO 8601 UTC.`, { label: `collect:${src}`, phase: 'Collect', schema: EVENTS })
    .then(r => (r?.events ?? []).map(e => ({ ...e, source: src })))))

phase('Merge')
const events = collected.flat().filter(Boolean)
  .map(e => ({ ...e, t: new Date(e.at).getTime() }))
  .filter(e => !Number.isNaN(e.t))
  .sort((a, b) => a.t - b.t || a.source.localeCompare(b.source))
const dropped = collected.flat().length - events.length
// collapse events within 60s with the same text
const merged = []
for (const e of events) {
  const last = merged[merged.length - 1]
  if (last && e.t - last.t <= 60_000 && last.what.toLowerCase() === e.what.toLowerCase()) { last.sources.push(e.source); continue }
  merged.push({ t: e.t, what: e.what, kind: e.kind ?? 'note', sources: [e.source] })
}
const first = kind => merged.find(e => e.kind === kind)?.t
const start = new Date(args.startedAt).getTime()
const mins = ms => (ms == null || Number.isNaN(ms) ? null : Math.round(ms / 6000) / 10)
const metrics = { mttd: mins(first('detect') - start), mttm: mins(first('mitigate') - start), mttr: mins(first('resolve') - start) }
const fmt = t => new Date(t).toISOString().slice(11, 19)
const lines = merged.map(e => `${fmt(e.t)}  [${e.kind}] ${e.what}${e.sources.length > 1 ? ` (${e.sources.join('+')})` : ''}`)
log(`${merged.length} timeline entries (${dropped} unparseable), MTTR ${metrics.mttr} min`)

phase('Write')
const summary = await agent(`Write a blameless summary for ${args.incident}:\n${lines.join('\n')}\nMetrics: ${JSON.stringify(metrics)}`, { label: 'summary', phase: 'Write' })
return { timeline: lines, metrics, day: new Date(start).toUTCString(), summary, durationH: ((merged.at(-1).t - merged[0].t) / 36e5).toFixed(2) }
