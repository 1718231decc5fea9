export const meta = { name: 'locale-date-patterns', description: 'Release dates in German, French, Spanish, Italian, Portuguese, Dutch, Japanese, Chinese, Korean, Russian, Polish, Swedish and regional forms, with styles, components, hour12 and parts' }
const dates = ['2024-03-05T14:07:09Z', '2024-12-25T00:00:00Z', '2025-07-14T09:30:15Z', '2023-01-01T23:59:59Z'].map((s) => new Date(s))
const opts = [{}, { dateStyle: 'full' }, { dateStyle: 'long' }, { dateStyle: 'medium' }, { dateStyle: 'short' }, { timeStyle: 'short' }, { timeStyle: 'medium' }, { dateStyle: 'long', timeStyle: 'short' }, { dateStyle: 'full', timeStyle: 'medium' }, { dateStyle: 'short', timeStyle: 'short' },
  { weekday: 'long' }, { month: 'long' }, { month: 'short' }, { month: 'long', year: 'numeric' }, { month: 'short', day: 'numeric' }, { weekday: 'short', day: 'numeric', month: 'short' }, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }, { year: 'numeric', month: '2-digit', day: '2-digit' }, { year: '2-digit', month: 'short' }, { day: 'numeric', month: 'long', hour: 'numeric', minute: '2-digit' }, { hour: 'numeric', minute: '2-digit' }, { hour: '2-digit', minute: '2-digit', second: '2-digit' }, { hour: 'numeric', hour12: true }, { hour: 'numeric', minute: '2-digit', hour12: false }, { month: 'short', day: 'numeric', year: 'numeric', hour: 'numeric', minute: '2-digit', hour12: true }]
const out = {}
for (const loc of ['de-DE', 'fr-FR', 'es-ES', 'it-IT', 'pt-BR', 'nl-NL', 'ja-JP', 'zh-CN', 'ko-KR', 'ru-RU', 'pl-PL', 'sv-SE', 'pt-PT', 'fr-CA', 'zh-TW', 'es-MX', 'de-AT', 'de-CH', 'zh-Hant-HK']) {
  out[loc] = opts.map((o) => { const f = new Intl.DateTimeFormat(loc, { ...o, timeZone: 'UTC' }); return dates.map((d) => f.format(d)).join(' | ') })
  out[loc].push(dates.map((d) => [d.toLocaleDateString(loc), d.toLocaleTimeString(loc), d.toLocaleString(loc)].join(' / ')).join(' | '))
  out[loc].push(JSON.stringify(new Intl.DateTimeFormat(loc, { dateStyle: 'full', timeStyle: 'short', timeZone: 'UTC' }).formatToParts(dates[0])))
}
out.tz = ['de-DE', 'fr-FR', 'ja-JP'].map((l) => dates[0].toLocaleString(l, { timeZone: 'Europe/Berlin', dateStyle: 'long', timeStyle: 'short' }))
log(out['de-DE'][1])
return out
