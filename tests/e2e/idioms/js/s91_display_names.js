export const meta = { name: 'display-names', description: 'Label a customer table with region, language, currency and script names, as Intl.DisplayNames gives them' }
const customers = [
  { id: 1, region: 'US', lang: 'en-US', currency: 'USD', script: 'Latn' },
  { id: 2, region: 'GB', lang: 'en-GB', currency: 'GBP', script: 'Latn' },
  { id: 3, region: 'DE', lang: 'de-CH', currency: 'CHF', script: 'Latn' },
  { id: 4, region: 'TW', lang: 'zh-Hant', currency: 'TWD', script: 'Hant' },
  { id: 5, region: 'BR', lang: 'pt-BR', currency: 'brl', script: 'Latn' },
  { id: 6, region: '419', lang: 'es-419', currency: 'MXN', script: 'Latn' },
  { id: 7, region: 'HK', lang: 'zh-Hant-HK', currency: 'HKD', script: 'Hani' },
  { id: 8, region: 'RS', lang: 'sr-Latn-RS', currency: 'RSD', script: 'Cyrl' },
  { id: 9, region: 'IN', lang: 'hi', currency: 'INR', script: 'Deva' },
  { id: 10, region: 'ZZ', lang: 'xx-US', currency: 'XYZ', script: 'Zzzz' },
]
const styles = ['long', 'short', 'narrow']
const make = (type, extra = {}) => styles.map((style) => new Intl.DisplayNames(['en'], { type, style, ...extra }))
const regions = make('region'), languages = make('language'), standard = make('language', { languageDisplay: 'standard' })
const currencies = make('currency'), scripts = make('script')
const rows = customers.map((c) => [c.id, ...[regions, languages, standard, currencies, scripts].map((ns, i) => ns.map((n) => n.of([c.region, c.lang, c.lang, c.currency, c.script][i])).join(' / '))].join(' | '))
const none = new Intl.DisplayNames('en-GB', { type: 'region', fallback: 'none' })
const lookups = ['US', 'us', 'UK', 'EU', 'UN', '001', '150', '999', 'XK', 'AA', 'ZZ', 'QO'].map((code) => `${code}=${none.of(code)}/${regions[0].of(code)}`)
const langs = ['en', 'EN', 'en-us', 'fr-CA', 'nl-BE', 'ar-001', 'ro-MD', 'zh-Hans', 'zh-TW', 'iw', 'sh', 'cmn', 'en-US-posix', 'i-klingon', 'und', 'qaa', 'en-u-ca-gregory', 'de-1996']
  .map((code) => `${code}=${languages[0].of(code)} | ${standard[1].of(code)}`)
const calendars = ['gregory', 'islamic-umalqura', 'ethiopic-amete-alem', 'roc', 'iso8601', 'GREGORY', 'foo'].map((c) => new Intl.DisplayNames('en', { type: 'calendar' }).of(c))
const fields = ['era', 'year', 'quarter', 'month', 'weekOfYear', 'weekday', 'day', 'dayPeriod', 'hour', 'minute', 'second', 'timeZoneName']
  .map((f) => styles.map((style) => new Intl.DisplayNames('en', { type: 'dateTimeField', style }).of(f)).join('/'))
const errors = []
const attempt = (f) => { try { errors.push(String(f())) } catch (e) { errors.push(`${e.name}: ${e.message}`) } }
attempt(() => new Intl.DisplayNames(['en']))
attempt(() => new Intl.DisplayNames(['en'], {}))
attempt(() => new Intl.DisplayNames('en', 'region'))
attempt(() => Intl.DisplayNames('en', { type: 'region' }))
attempt(() => new Intl.DisplayNames('en', { type: 'country' }))
attempt(() => new Intl.DisplayNames('en', { type: 'region', style: 'tiny' }))
attempt(() => new Intl.DisplayNames('en', { type: 'region', fallback: 'empty' }))
attempt(() => new Intl.DisplayNames('en_US', { type: 'region' }))
for (const [type, code] of [['region', 'USA'], ['region', 'u'], ['region', undefined], ['script', 'Latin'], ['currency', 'US'], ['currency', ''], ['calendar', 'gregorian'], ['dateTimeField', 'week'], ['language', 'en_US'], ['language', 'en-']]) {
  attempt(() => new Intl.DisplayNames('en', { type }).of(code))
}
attempt(() => Intl.DisplayNames.prototype.of.call(new Map(), 'US'))
attempt(() => Intl.DisplayNames.prototype.resolvedOptions.call('en'))
const resolved = [['en-GB', 'language'], [undefined, 'region'], [['xx', 'de-XX'], 'currency'], ['en-US-u-nu-arab', 'dateTimeField']]
  .map(([l, type]) => new Intl.DisplayNames(l, { type, style: 'short' }).resolvedOptions())
log(rows[0])
return {
  rows, lookups, langs, calendars, fields, errors, resolved,
  supported: Intl.DisplayNames.supportedLocalesOf(['en-US', 'xx', 'fr-CA', 'zz-Latn']),
  shape: [typeof Intl.DisplayNames, Intl.DisplayNames.length, Object.prototype.toString.call(regions[0]), Object.getOwnPropertyNames(Intl.DisplayNames.prototype).join()],
}
