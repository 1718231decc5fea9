export const meta = { name: 'currency-names-locales', description: 'Amounts written with currency names (currencyDisplay name) in German, French, Spanish, Italian, Portuguese, Dutch, Japanese, Chinese, Korean, Russian, Polish, Swedish, Canadian French and English' }
const out = {}
for (const loc of ['de-DE', 'fr-FR', 'es-ES', 'it-IT', 'pt-BR', 'nl-NL', 'ja-JP', 'zh-CN', 'ko-KR', 'ru-RU', 'pl-PL', 'sv-SE', 'fr-CA', 'en-US']) {
  out[loc] = ['EUR', 'USD', 'GBP', 'JPY', 'CHF', 'PLN', 'RUB'].map((c) => [1, 2, 5, 21, 1.5, 0, -3.25, 1000000].map((n) => n.toLocaleString(loc, { style: 'currency', currency: c, currencyDisplay: 'name' })).join(', ')).join(' | ')
}
return out
