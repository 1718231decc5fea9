export const meta = { name: 'locale-negotiation', description: 'Intl constructors and toLocale* given locales the tables lack: fallback along the tag, then en-US; resolved locales, supportedLocalesOf, canonical tags and malformed-tag errors' }
const d = new Date(Date.UTC(2024, 2, 5, 15, 7, 9))
const tryit = (f) => { try { return f() } catch (e) { return `${e.name}: ${e.message}` } }
const out = {}
// A user's or agent's locale setting: languages ICU lacks, regions it lacks, extensions.
for (const t of ['xx', 'tlh', 'en-XX', 'de-XX', 'fr-ZZ', 'zz-Latn', 'xx-YY', 'de-AT-u-nu-latn', 'de-CH-1996', 'EN-us', 'pt', 'zh-Hant', 'de-Latn-DE', 'en-US-u-hc-h23', 'ja-JP-u-nu-latn', 'it-IT-x-private']) {
  out[t] = {
    canon: tryit(() => Intl.getCanonicalLocales(t)),
    rtf: tryit(() => { const f = new Intl.RelativeTimeFormat(t); return [f.format(-2, 'day'), f.resolvedOptions().locale] }),
    rtfAuto: tryit(() => new Intl.RelativeTimeFormat(t, { numeric: 'auto', style: 'short' }).format(-1, 'day')),
    nf: tryit(() => { const f = new Intl.NumberFormat(t); return [f.format(1234.5), f.resolvedOptions().locale] }),
    num: tryit(() => (1234.5).toLocaleString(t)),
    money: tryit(() => (1234.5).toLocaleString(t, { style: 'currency', currency: 'EUR' })),
    dtf: tryit(() => { const f = new Intl.DateTimeFormat(t, { timeZone: 'UTC' }); return [f.format(d), f.resolvedOptions().locale] }),
    date: tryit(() => d.toLocaleString(t, { timeZone: 'UTC' })),
    long: tryit(() => d.toLocaleDateString(t, { dateStyle: 'long', timeZone: 'UTC' })),
    plural: tryit(() => { const f = new Intl.PluralRules(t); return [f.select(1), f.resolvedOptions().locale] }),
    list: tryit(() => { const f = new Intl.ListFormat(t); return [f.format(['a', 'b', 'c']), f.resolvedOptions().locale] }),
    collator: tryit(() => { const f = new Intl.Collator(t); return [['b', 'a', 'B'].sort(f.compare), f.resolvedOptions().locale] }),
    segmenter: tryit(() => new Intl.Segmenter(t).resolvedOptions().locale),
    names: tryit(() => new Intl.DisplayNames(t, { type: 'region' }).resolvedOptions().locale),
    upper: tryit(() => 'i'.toLocaleUpperCase(t)),
    supported: tryit(() => [Intl.NumberFormat.supportedLocalesOf(t), Intl.PluralRules.supportedLocalesOf(t), Intl.Collator.supportedLocalesOf(t), Intl.ListFormat.supportedLocalesOf(t)]),
  }
}
out.canonical = Intl.getCanonicalLocales(['de-u-kn-true', 'EN-latn-us-U-NU-LATN', 'zh-hant-tw', 'en-US-u-nu-latn-x-foo'])
// The first requested locale the service has, as a list.
out.lists = [['xx', 'de'], ['tlh', 'fr-CA', 'en'], ['zz', 'yy']].map((l) => [new Intl.NumberFormat(l).resolvedOptions().locale, new Intl.DateTimeFormat(l).resolvedOptions().locale, new Intl.RelativeTimeFormat(l).resolvedOptions().locale, Intl.DateTimeFormat.supportedLocalesOf(l)])
// Malformed tags: V8's two errors.
out.bad = ['en-', 'de_DE', 'en-GB-oed', '', 'a', 'toolongtag1', 'en--US', 'x-private', 'de-1', 'en-US-'].map((t) => [tryit(() => Intl.getCanonicalLocales(t)), tryit(() => new Intl.RelativeTimeFormat(t)), tryit(() => (1).toLocaleString(t)), tryit(() => new Intl.Collator(t)), tryit(() => 'i'.toLocaleLowerCase(t))])
log(`rtf xx: ${new Intl.RelativeTimeFormat('xx', { numeric: 'auto' }).format(1, 'day')}`)
return out
