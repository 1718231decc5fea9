export const meta = { name: 'locale-number-grouping', description: 'Locale number forms: Indian grouping, minimum grouping digits, full-width yen, percent spacing, Swedish minus, malformed tags, option errors' }
const f = (v, l, o) => { try { return v.toLocaleString(l, o) } catch (e) { return `${e.name}: ${e.message}` } }
const out = {}
for (const l of ['de-DE', 'en-IN', 'hi-IN', 'ja-JP', 'es-ES', 'pt-BR', 'pt-PT', 'it-IT', 'pl-PL', 'en-US', 'en-GB', 'nl-NL', 'sv-SE', 'fr-FR']) {
  out[l] = [1234.5, 12345678.9, 1234, -0.5, 123, 99999.5].map((v) => [f(v, l), f(v, l, { style: 'percent' }), f(v, l, { maximumFractionDigits: 0 })])
}
out.jpy = [f(123456.7, 'ja-JP', { style: 'currency', currency: 'JPY' }), f(-5, 'ja-JP', { style: 'currency', currency: 'JPY' }), f(5, 'ja-JP', { style: 'currency', currency: 'USD' })]
out.inr = [f(12345678.9, 'en-IN', { style: 'currency', currency: 'INR' }), f(12345678.9, 'hi-IN', { style: 'currency', currency: 'INR' })]
out.bad = ['xx-INVALID-TAG-@@', '', 'en_US', 'i', 'toolonglanguage', ['en', 'x!'], 'de-CH-1996', 'zh-Hant-TW'].map((l) => { try { return new Intl.NumberFormat(l).format(1) } catch (e) { return `${e.name}: ${e.message}` } })
out.named = [f(1, 'en-US', { style: 'bogus' }), f(1, 'en-US', { notation: 'x' }), f(1, 'en-US', { signDisplay: 'x' }), (() => { try { return new Intl.NumberFormat('en', { style: 'bogus' }) } catch (e) { return e.message } })()]
return out
