export const meta = { name: 'units-locales', description: 'Speeds, volumes, temperatures, weights, distances and durations in reports in German, French, Spanish, Italian, Portuguese, Dutch, Japanese, Chinese, Korean, Russian, Polish, Swedish, Austrian German and Canadian French' }
const units = ['kilometer-per-hour', 'liter', 'celsius', 'kilogram', 'meter', 'mile', 'percent', 'hour', 'day', 'megabyte-per-second', 'foot', 'fahrenheit', 'kilometer', 'gram', 'second', 'week', 'month', 'year']
const out = {}
for (const loc of ['de-DE', 'fr-FR', 'es-ES', 'it-IT', 'pt-BR', 'nl-NL', 'ja-JP', 'zh-CN', 'ko-KR', 'ru-RU', 'pl-PL', 'sv-SE', 'de-AT', 'fr-CA']) {
  out[loc] = ['short', 'narrow', 'long'].map((unitDisplay) => units.map((unit) => [1, 2, 5, 1.5, 21, 1234.5].map((n) => { try { return new Intl.NumberFormat(loc, { style: 'unit', unit, unitDisplay }).format(n) } catch (e) { return `ERR ${e.message}` } }).join(',')).join(' | '))
}
log(out['de-DE'][0].slice(0, 80))
return out
