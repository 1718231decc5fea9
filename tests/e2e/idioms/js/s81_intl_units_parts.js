export const meta = { name: 'intl-units-parts', description: 'NumberFormat units (bytes, durations, rates, long plurals), roundingMode, formatToParts and formatRange for a transfer report' }
const transfers = [
  { host: 'db-1', bytes: 512, ms: 1, kbps: 1234.5678 },
  { host: 'db-2', bytes: 1536000, ms: 1250, kbps: 1 },
  { host: 'cache', bytes: 3.75e9, ms: 86400000, kbps: 0 },
  { host: 'edge', bytes: 0.4, ms: 7 * 86400000, kbps: -2.5 },
]
const tryIt = (fn) => { try { return fn() } catch (e) { return `${e.name}: ${e.message}` } }
const size = (bytes) => {
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte']
  let i = 0, v = bytes
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i++ }
  return new Intl.NumberFormat('en-US', { style: 'unit', unit: units[i], maximumFractionDigits: 1 }).format(v)
}
const duration = (ms) => {
  const steps = [['millisecond', 1000], ['second', 60], ['minute', 60], ['hour', 24], ['day', 7], ['week', Infinity]]
  let v = ms
  for (const [unit, next] of steps) {
    if (v < next) return ['short', 'long', 'narrow'].map((unitDisplay) => v.toLocaleString('en-US', { style: 'unit', unit, unitDisplay, maximumFractionDigits: 2 }))
    v /= next
  }
}
const rows = transfers.map((t) => ({
  host: t.host,
  size: size(t.bytes),
  took: duration(t.ms),
  rate: ['short', 'long', 'narrow'].map((unitDisplay) => new Intl.NumberFormat('en-US', { style: 'unit', unit: 'kilobyte-per-second', unitDisplay }).format(t.kbps)),
  bits: (t.kbps * 8).toLocaleString('en-US', { style: 'unit', unit: 'kilobit', unitDisplay: 'long', signDisplay: 'exceptZero' }),
}))
const allUnits = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte', 'petabyte', 'bit', 'kilobit', 'megabit', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'year', 'percent', 'mile-per-hour', 'megabyte-per-second', 'hour-per-day', 'mile', 'celsius']
const table = allUnits.map((unit) => [unit, ...['short', 'long', 'narrow'].map((unitDisplay) => [1, 2, 0, -1, 1.5].map((v) => new Intl.NumberFormat('en-US', { style: 'unit', unit, unitDisplay }).format(v)).join(' | '))])
const errors = [
  tryIt(() => new Intl.NumberFormat('en-US', { style: 'unit', unit: 'kilobytes' })),
  tryIt(() => new Intl.NumberFormat('en-US', { style: 'unit' })),
  tryIt(() => new Intl.NumberFormat('en-US', { style: 'unit', unit: 'byte-per-fortnight' })),
  tryIt(() => new Intl.NumberFormat('en-US', { style: 'unit', unit: 'hour', unitDisplay: 'wide' })),
  tryIt(() => (5).toLocaleString('en-US', { style: 'unit', unit: 'parsec' })),
  tryIt(() => new Intl.NumberFormat('en-US', { roundingMode: 'up' })),
  tryIt(() => new Intl.NumberFormat('en-US', { unitDisplay: 'tiny' }).format(1)),
  tryIt(() => new Intl.NumberFormat('en-US', { unit: 'lightyear' }).format(1)),
  tryIt(() => new Intl.NumberFormat('en-US', { unit: 'kilobyte' }).format(1234.5)),
  tryIt(() => new Intl.NumberFormat('en-US', { style: 'unit', unit: 'kilobyte', currency: 'usd' }).format(1234.5)),
  tryIt(() => new Intl.NumberFormat('en-US', { style: 'unit', unit: 'kilobyte', currency: 'us' }).format(1234.5)),
  tryIt(() => new Intl.NumberFormat('en-US', { currency: 'US' }).format(1)),
  tryIt(() => new Intl.NumberFormat('en-US', { style: 'gauge' }).format(1)),
  tryIt(() => new Intl.NumberFormat('de-DE', { style: 'unit', unit: 'hour', unitDisplay: 'long' }).format(2)),
]
const modes = ['ceil', 'floor', 'expand', 'trunc', 'halfCeil', 'halfFloor', 'halfExpand', 'halfTrunc', 'halfEven']
const rounding = modes.map((roundingMode) => ({
  roundingMode,
  tenths: [1.25, 1.35, -1.25, 1.21, 0.125].map((v) => new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, roundingMode }).format(v)),
  whole: [2.5, -2.5, -0.4, 1234.5].map((v) => v.toLocaleString('en-US', { maximumFractionDigits: 0, roundingMode })),
  usd: (19.995).toLocaleString('en-US', { style: 'currency', currency: 'USD', roundingMode }),
  compact: new Intl.NumberFormat('en-US', { notation: 'compact', roundingMode }).format(-1250),
  sig: new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2, roundingMode }).format(12501),
  resolved: new Intl.NumberFormat('en-US', { roundingMode }).resolvedOptions().roundingMode,
}))
const nf = (o, l = 'en-US') => new Intl.NumberFormat(l, o)
const parts = [
  nf({ style: 'currency', currency: 'USD' }).formatToParts(-1234.5),
  nf({ style: 'currency', currency: 'USD', currencySign: 'accounting' }).formatToParts(-5),
  nf({ style: 'currency', currency: 'USD', currencyDisplay: 'name' }).formatToParts(1249.5),
  nf({ style: 'currency', currency: 'EUR' }, 'de-DE').formatToParts(-1234.5),
  nf({ style: 'percent', signDisplay: 'always' }).formatToParts(0.25),
  nf({ notation: 'compact', compactDisplay: 'long' }).formatToParts(12345),
  nf({ notation: 'scientific' }).formatToParts(0.00123),
  nf({ style: 'unit', unit: 'kilobyte-per-second', unitDisplay: 'long' }).formatToParts(1234),
  nf({ style: 'unit', unit: 'kilobyte', unitDisplay: 'narrow' }).formatToParts(12),
  nf({}, 'fr-FR').formatToParts(1234567.5),
  nf({}).formatToParts(NaN),
].map((ps) => ps.map((p) => `${p.type}:${p.value}`).join(' '))
const ranges = [
  nf({}).formatRange(3, 5), nf({}).formatRange(3, 3), nf({}).formatRange(-3, 5), nf({}).formatRange(1234, 5678),
  nf({ style: 'currency', currency: 'USD' }).formatRange(3, 5), nf({ style: 'currency', currency: 'USD' }).formatRange(-3, -5),
  nf({ style: 'currency', currency: 'EUR' }, 'de-DE').formatRange(3, 5), nf({ style: 'currency', currency: 'CHF' }).formatRange(3, 5),
  nf({ style: 'percent' }).formatRange(0.1, 0.2), nf({ style: 'unit', unit: 'kilobyte' }).formatRange(3, 5),
  nf({ style: 'unit', unit: 'hour', unitDisplay: 'long' }).formatRange(1, 2), nf({ style: 'unit', unit: 'hour', unitDisplay: 'long' }).formatRange(1, 1),
  nf({ notation: 'compact' }).formatRange(1000, 5000000), nf({ notation: 'compact', compactDisplay: 'long' }).formatRange(1000, 5000),
  nf({ maximumFractionDigits: 0 }).formatRange(2.9, 3.1), nf({}, 'es-ES').formatRange(3, 5),
  tryIt(() => nf({}).formatRange(1)), tryIt(() => nf({}).formatRange(NaN, 1)),
  nf({ style: 'currency', currency: 'USD' }).formatRangeToParts(3, 5).map((p) => `${p.source}:${p.type}:${p.value}`).join(' '),
]
const strip = [5, 4.999, 5.5, 1234, 0.1].map((v) => [
  v.toLocaleString('en-US', { style: 'currency', currency: 'USD', trailingZeroDisplay: 'stripIfInteger' }),
  nf({ minimumFractionDigits: 2, trailingZeroDisplay: 'stripIfInteger' }).format(v),
  nf({ minimumSignificantDigits: 3, trailingZeroDisplay: 'stripIfInteger' }).format(v),
  nf({ style: 'unit', unit: 'gigabyte', minimumFractionDigits: 1, trailingZeroDisplay: 'stripIfInteger' }).format(v),
].join(' / '))
strip.push(tryIt(() => nf({ trailingZeroDisplay: 'never' })), nf({ trailingZeroDisplay: 'stripIfInteger' }).resolvedOptions().trailingZeroDisplay)
const increments = [
  ...[[5, 1.23], [25, 1.13], [50, 1.26], [10, 0.99], [5, 1.125]].map(([roundingIncrement, v]) => v.toLocaleString('en-US', { style: 'currency', currency: 'USD', roundingIncrement })),
  nf({ style: 'currency', currency: 'USD', roundingIncrement: 5, roundingMode: 'halfEven' }).format(1.125),
  nf({ roundingIncrement: 5000, maximumFractionDigits: 0 }).format(12345), nf({ roundingIncrement: 5 }).format(-12.5), nf({ roundingIncrement: 5, style: 'percent' }).format(0.123),
  nf({ roundingIncrement: 5, minimumFractionDigits: 1, maximumFractionDigits: 1, style: 'unit', unit: 'hour' }).format(2.33),
  tryIt(() => nf({ roundingIncrement: 5, maximumFractionDigits: 2 })), tryIt(() => nf({ roundingIncrement: 3 })), tryIt(() => nf({ roundingIncrement: 5, maximumSignificantDigits: 2 })),
  JSON.stringify(nf({ roundingIncrement: 25, style: 'currency', currency: 'USD' }).resolvedOptions()),
]
const priority = ['auto', 'lessPrecision', 'morePrecision'].map((roundingPriority) => [
  [1.234, 1234.5678, 0.0012345, 12.5, 1, 100, 999.96].map((v) => nf({ maximumSignificantDigits: 3, maximumFractionDigits: 1, roundingPriority }).format(v)).join(' '),
  [1.234, 1234.5678, 0.5].map((v) => nf({ minimumSignificantDigits: 4, maximumFractionDigits: 1, roundingPriority }).format(v)).join(' '),
  [1.5, 1234.5].map((v) => v.toLocaleString('en-US', { maximumSignificantDigits: 2, minimumFractionDigits: 2, roundingPriority })).join(' '),
  nf({ roundingPriority }).format(1.23456),
  JSON.stringify(nf({ maximumSignificantDigits: 3, roundingPriority }).resolvedOptions()),
])
priority.push(tryIt(() => nf({ roundingPriority: 'most' })))
const sizes = new Intl.NumberFormat('en-US', { style: 'unit', unit: 'megabyte', maximumFractionDigits: 1 })
const formatters = {
  mapped: [1234.56, 7, 0.05].map(sizes.format),
  detached: (({ format }) => format(12345.67))(nf({ maximumFractionDigits: 1 })),
  same: sizes.format === sizes.format,
  bigint: nf({}).format(12345678901234567890n),
  tag: Object.prototype.toString.call(sizes),
  grouping: [false, true, 'min2', 'always', 'auto', '', 'false', undefined].map((useGrouping) => [1234, 12345].map((v) => v.toLocaleString('es-ES', { useGrouping })).join(' ') + ' ' + nf({ useGrouping }).format(1234) + ' ' + nf({ useGrouping }).resolvedOptions().useGrouping),
  compactGrouping: nf({ notation: 'compact' }).resolvedOptions().useGrouping,
  badGrouping: tryIt(() => nf({ useGrouping: 'sometimes' })),
}
const edges = [
  ...[NaN, Infinity, -Infinity].map((v) => nf({ style: 'currency', currency: 'USD' }).formatToParts(v).map((p) => `${p.type}:${p.value}`).join(' ')),
  ...[Infinity, -Infinity].map((v) => nf({ signDisplay: 'exceptZero' }).format(v)),
  nf({ notation: 'compact' }).format(-0), nf({ notation: 'scientific' }).format(-0),
  nf({ signDisplay: 'never' }).formatRange(-1, 1),
  nf({ style: 'currency', currency: 'USD', currencySign: 'accounting' }).formatRangeToParts(-1, 1).map((p) => `${p.source}:${p.type}:${p.value}`).join(' '),
]
const currencies = ['en-US', 'en-GB', 'en-CA', 'en-AU', 'en-IN'].map((l) => ['USD', 'CAD', 'AUD', 'JPY', 'CNY', 'MXN', 'HKD', 'KWD', 'HUF', 'CHF'].map((currency) =>
  [(-1234.5).toLocaleString(l, { style: 'currency', currency }), (1234.5).toLocaleString(l, { style: 'currency', currency, currencyDisplay: 'narrowSymbol' })].join(' ')).join(' | '))
const localCurrencies = ['de-DE', 'es-ES', 'it-IT', 'nl-NL', 'pt-BR', 'pt-PT', 'id-ID', 'tr-TR', 'fr-FR', 'ru-RU', 'pl-PL', 'sv-SE', 'nb-NO', 'fi-FI', 'ja-JP', 'zh-CN', 'ko-KR', 'hi-IN'].map((l) =>
  `${l}: ${['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'CNY'].map((currency) => (-1234.5).toLocaleString(l, { style: 'currency', currency })).join(' | ')} | ${(-1234.5).toLocaleString(l)}`)
const localSigns = ['nl-NL', 'sv-SE', 'fi-FI', 'tr-TR', 'de-DE'].map((l) => [
  ...[-5, 5].map((v) => v.toLocaleString(l, { signDisplay: 'always' })),
  ...[-5, 5].map((v) => v.toLocaleString(l, { style: 'currency', currency: 'EUR', signDisplay: 'always' })),
  (-5).toLocaleString(l, { style: 'currency', currency: 'USD', currencySign: 'accounting' }),
  (-5).toLocaleString(l, { style: 'currency', currency: 'EUR', currencyDisplay: 'code' }),
  ...[-0.5, 0.25].map((v) => v.toLocaleString(l, { style: 'percent', signDisplay: 'exceptZero' })),
].join(' | '))
const compacts = ['en-US', 'en-GB', 'de-DE', 'es-ES', 'fr-FR', 'it-IT', 'nl-NL', 'pt-BR', 'pt-PT', 'ru-RU', 'pl-PL', 'sv-SE', 'nb-NO'].map((l) =>
  `${l}: ${[999.96, 1234, -12345.6, 999999, 1234567, 1.5e9, 2e12, 1e16].map((v) => nf({ notation: 'compact' }, l).format(v)).join(' | ')} | ${nf({ notation: 'compact', maximumSignificantDigits: 3 }, l).format(999999)} | ${nf({ notation: 'compact' }, l).formatRange(1e6, 2.5e6)}`)
const localUnits = ['de-DE', 'fr-FR', 'es-ES', 'pt-BR', 'pt-PT', 'ru-RU', 'pl-PL', 'sv-SE', 'ja-JP', 'tr-TR'].map((l) => [
  ...['kilobyte', 'hour', 'day', 'percent'].flatMap((unit) => ['short', 'long'].map((unitDisplay) => [1, 2, 5, 1.5, 22, -1].map((v) => v.toLocaleString(l, { style: 'unit', unit, unitDisplay })).join('; '))),
  [[1, 2], [2, 1], [5, 1], [1.5, 1], [5, 21]].map(([a, b]) => nf({ style: 'unit', unit: 'hour', unitDisplay: 'long' }, l).formatRange(a, b)).join('; '),
  nf({ style: 'unit', unit: 'megabyte', unitDisplay: 'long' }, l).formatToParts(1234.5).map((p) => `${p.type}:${p.value}`).join(' '),
].join(' | '))
const resolved = nf({ style: 'unit', unit: 'megabyte-per-second', unitDisplay: 'long', roundingMode: 'floor' }).resolvedOptions()
log(`${rows.length} transfers, ${rows[1].size} from ${rows[1].host} in ${rows[1].took[1]}`)
return { rows, table, errors, rounding, parts, ranges, strip, increments, priority, formatters, edges, currencies, localCurrencies, localSigns, compacts, localUnits, resolved }
