export const meta = { name: 'relative-time-locales', description: 'An activity feed with relative times in German, French, Spanish, Italian, Portuguese, Dutch, Japanese, Chinese, Korean, Russian, Polish, Swedish and regional forms, numeric always and auto, long, short and narrow' }
const events = [[-2, 'day'], [-1, 'day'], [0, 'day'], [1, 'day'], [2, 'day'], [-3, 'hour'], [5, 'minutes'], [-1, 'week'], [1, 'month'], [-2, 'quarter'], [-1, 'year'], [3, 'years'], [-21, 'second'], [1.5, 'hour'], [-0.5, 'day'], [22, 'day'], [101, 'month'], [0, 'year'], [-0, 'second'], [1000000, 'second']]
const out = {}
for (const loc of ['de-DE', 'fr-FR', 'es-ES', 'it-IT', 'pt-BR', 'nl-NL', 'ja-JP', 'zh-CN', 'ko-KR', 'ru-RU', 'pl-PL', 'sv-SE', 'pt-PT', 'fr-CA', 'zh-TW', 'es-MX', 'en-US']) {
  out[loc] = ['long', 'short', 'narrow'].flatMap((style) => ['always', 'auto'].map((numeric) => { const f = new Intl.RelativeTimeFormat(loc, { style, numeric }); return events.map(([v, u]) => f.format(v, u)).join(' | ') }))
}
log(out['de-DE'][1])
return { out, mx: [(1234.5).toLocaleString('es-MX'), (-1234.5).toLocaleString('es-MX', { style: 'currency', currency: 'MXN' }), (-1234.5).toLocaleString('es-MX', { style: 'currency', currency: 'EUR' })] }
