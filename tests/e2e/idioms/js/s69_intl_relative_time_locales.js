export const meta = { name: 'intl-relative-time-locales', description: "English RelativeTimeFormat (numeric auto and always, long / short / narrow), getCanonicalLocales and supportedLocalesOf" }
const units = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year', 'days', 'hours']
const values = [-1, 0, 1, -3, 3, -14, 2.5, -0, -3000.5, 1.23456]
const table = {}
for (const style of ['long', 'short', 'narrow']) {
  for (const numeric of ['always', 'auto']) {
    const rtf = new Intl.RelativeTimeFormat('en', { style, numeric })
    table[`${style}/${numeric}`] = units.map((u) => values.map((v) => rtf.format(v, u)))
  }
}
const activity = [{ who: 'build', daysAgo: 0 }, { who: 'deploy', daysAgo: 1 }, { who: 'review', daysAgo: 3 }, { who: 'audit', daysAgo: 14 }]
const auto = new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' })
const feed = activity.map((a) => `${a.who} ${auto.format(-a.daysAgo, 'day')}`)
const errors = []
const attempt = (f) => { try { errors.push(f()) } catch (e) { errors.push(`${e.name}: ${e.message}`) } }
attempt(() => auto.format(1, 'fortnight'))
attempt(() => auto.format(Infinity, 'day'))
attempt(() => auto.format(NaN, 'day'))
attempt(() => auto.format('2', 'day'))
attempt(() => new Intl.RelativeTimeFormat('en', { style: 'tiny' }))
attempt(() => new Intl.RelativeTimeFormat('en', { numeric: 'sometimes' }))
attempt(() => Intl.RelativeTimeFormat('en'))
attempt(() => Intl.getCanonicalLocales('en_US'))
return {
  table, feed, errors,
  resolved: [auto.resolvedOptions(), new Intl.RelativeTimeFormat().resolvedOptions(), new Intl.RelativeTimeFormat('en-GB', { style: 'narrow' }).resolvedOptions()],
  canonical: Intl.getCanonicalLocales(['EN-us', 'de-de', 'fr', 'zh-hant-tw', 'sr-latn-rs', 'en-US']),
  canonicalOne: Intl.getCanonicalLocales('pt-br'),
  supported: [Intl.NumberFormat.supportedLocalesOf(['en-US', 'de']), Intl.DateTimeFormat.supportedLocalesOf('en-GB'), Intl.RelativeTimeFormat.supportedLocalesOf('en'), Intl.Collator.supportedLocalesOf([])],
}
