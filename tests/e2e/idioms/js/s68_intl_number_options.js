export const meta = { name: 'intl-number-options', description: 'NumberFormat signDisplay, accounting, currency codes and names, scientific and compact notation, BigInt grouping, resolvedOptions' }
const deltas = [0.053, -0.02, 0, 1.5, -0.0004]
const spend = [0, 19.99, -156.19, 1249.5, 98765.43]
const tokens = [999, 1234, 12500000, 987654, 99999, 1500000000, -12345, 1e15]
const f = (v, o, l = 'en-US') => { try { return v.toLocaleString(l, o) } catch (e) { return `${e.name}: ${e.message}` } }
const nf = (l, o) => { try { return new Intl.NumberFormat(l, o) } catch (e) { return { format: () => `${e.name}: ${e.message}` } } }
const signs = ['auto', 'always', 'exceptZero', 'never', 'negative'].map((signDisplay) => ({
  signDisplay,
  pct: deltas.map((d) => nf('en-US', { style: 'percent', signDisplay, maximumFractionDigits: 1 }).format(d)),
  num: [5, -5, 0, -0, 0.001, -0.001, NaN].map((v) => nf('en-US', { signDisplay, maximumFractionDigits: 2 }).format(v)),
  usd: [5, -5, 0].map((v) => f(v, { style: 'currency', currency: 'USD', signDisplay })),
}))
const money = spend.map((v) => ({
  accounting: nf('en-US', { style: 'currency', currency: 'USD', currencySign: 'accounting' }).format(v),
  accountingDe: f(v, { style: 'currency', currency: 'EUR', currencySign: 'accounting' }, 'de-DE'),
  signedEur: f(v, { style: 'currency', currency: 'EUR', signDisplay: 'exceptZero' }, 'de-DE'),
  code: f(v, { style: 'currency', currency: 'EUR', currencyDisplay: 'code' }),
  codeDe: f(v, { style: 'currency', currency: 'USD', currencyDisplay: 'code' }, 'de-DE'),
  name: f(v, { style: 'currency', currency: 'USD', currencyDisplay: 'name' }),
  names: ['EUR', 'GBP', 'JPY', 'CAD', 'INR'].map((currency) => f(v, { style: 'currency', currency, currencyDisplay: 'name' })),
  narrow: f(v, { style: 'currency', currency: 'USD', currencyDisplay: 'narrowSymbol' }),
}))
const notation = tokens.map((v) => ({
  compact1: nf('en', { notation: 'compact', maximumFractionDigits: 1 }).format(v),
  compact: nf('en', { notation: 'compact' }).format(v),
  compact0: nf('en', { notation: 'compact', maximumFractionDigits: 0 }).format(v),
  compactLong: nf('en', { notation: 'compact', compactDisplay: 'long', maximumFractionDigits: 1 }).format(v),
  sci: f(v, { notation: 'scientific' }),
  sci2: f(v, { notation: 'scientific', maximumFractionDigits: 2 }),
  eng: f(v, { notation: 'engineering' }),
  sciDe: f(v, { notation: 'scientific' }, 'de-DE'),
}))
const small = [0, 0.00123, 999.96, 9.9996, -1500].map((v) => [f(v, { notation: 'scientific' }), f(v, { notation: 'engineering' })])
const bigints = [[1234567n, 'en-US'], [1234567n, 'de-DE'], [-98765432109876543210n, 'en-US'], [12n, 'de'], [123456789012345678901234567890n, 'fr-FR'], [1234567n, undefined], [4200n, 'en-US', { style: 'currency', currency: 'USD' }]].map(([b, l, o]) => b.toLocaleString(l, o))
const resolved = [
  nf('en-US', { style: 'currency', currency: 'usd' }).resolvedOptions(),
  nf('de', undefined).resolvedOptions(),
  nf('en-US', { style: 'percent', signDisplay: 'always', maximumFractionDigits: 1 }).resolvedOptions(),
  nf('en-US', { maximumSignificantDigits: 3 }).resolvedOptions(),
]
const errors = [{ signDisplay: 'sometimes' }, { style: 'currency', currency: 'USD', currencySign: 'loud' }, { style: 'currency', currency: 'USD', currencyDisplay: 'emoji' }].map((o) => nf('en-US', o).format(1))
return { signs, money, notation, small, bigints, resolved, errors }
