export const meta = { name: 'relative-parts-resolved', description: 'Relative time parts in English, German, French, Japanese and Mexican Spanish; the locale and fields DateTimeFormat resolves' }
const out = {}
for (const loc of ['en-US', 'de-DE', 'fr-FR', 'ja-JP', 'es-MX']) {
  const f = new Intl.RelativeTimeFormat(loc, { numeric: 'auto' }), g = new Intl.RelativeTimeFormat(loc, { style: 'short' })
  out[loc] = [[-1, 'day'], [3, 'hours'], [-1234.5, 'second'], [0, 'week'], [1000000, 'minute'], [-2, 'quarter']].map(([v, u]) => JSON.stringify([f.formatToParts(v, u), g.formatToParts(v, u)]))
}
out.resolved = ['de-DE', 'en-GB', 'ja', 'en', 'fr-CA'].map((l) => new Intl.DateTimeFormat(l).resolvedOptions().locale)
out.fields = [{}, { hour: 'numeric', minute: 'numeric' }, { dateStyle: 'medium' }, { timeStyle: 'short' }, { weekday: 'long', month: 'short', day: '2-digit' }, { minute: 'numeric', second: 'numeric', fractionalSecondDigits: 2 }, { hour: '2-digit', hour12: true }].map((o) => JSON.stringify(new Intl.DateTimeFormat('en-US', { ...o, timeZone: 'UTC' }).resolvedOptions()))
out.fieldsGb = JSON.stringify(new Intl.DateTimeFormat('en-GB', { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' }).resolvedOptions())
return out
