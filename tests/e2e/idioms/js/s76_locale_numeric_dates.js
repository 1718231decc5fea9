export const meta = { name: 'locale-numeric-dates', description: "Numeric dates and times for German, Japanese, Swedish, French, Spanish, … as ICU writes them (UTC)" }
const events = [Date.UTC(2024, 2, 8, 9, 5, 9), Date.UTC(2024, 11, 25, 21, 45, 3), Date.UTC(1999, 0, 1, 0, 0, 0), Date.UTC(2024, 5, 30, 12, 30, 0)].map((t) => new Date(t))
const locales = ['de-DE', 'de', 'ja-JP', 'sv-SE', 'en-CA', 'fr-FR', 'es-ES', 'it-IT', 'nl-NL', 'pt-BR', 'zh-CN', 'ru-RU', 'pl-PL', 'en-IN', 'en-AU', 'tr-TR', 'es-MX', 'en-US', 'en-GB']
const table = {}
for (const locale of locales) {
  table[locale] = events.map((d) => ({
    date: d.toLocaleDateString(locale),
    time: d.toLocaleTimeString(locale),
    both: d.toLocaleString(locale),
    padded: d.toLocaleDateString(locale, { year: 'numeric', month: '2-digit', day: '2-digit' }),
    shortYear: d.toLocaleDateString(locale, { year: '2-digit', month: 'numeric', day: 'numeric' }),
    dtf: new Intl.DateTimeFormat(locale, { timeZone: 'UTC' }).format(d),
    clock: new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: 'numeric', second: 'numeric' }).format(d),
  }))
}
const byDay = events.map((d) => `${d.toLocaleDateString('de-DE')}: ${d.toLocaleTimeString('de-DE')}`)
return { table, byDay, iso: events.map((d) => d.toLocaleDateString('sv-SE')) }
