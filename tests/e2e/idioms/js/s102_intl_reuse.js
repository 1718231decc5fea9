export const meta = { name: 'intl-reuse', description: 'Formatting the same way many times is invisible: options with getters are read on each toLocaleString call and once by a formatter, formatters of several locales and options interleaved, options and locales changed after a formatter is made, and the errors after good calls' }
const out = {}
const err = (f) => { try { return f() } catch (e) { return `${e.constructor.name}: ${e.message}` } }
const kind = (f) => { try { return f() } catch (e) { return e.constructor.name } }

// Getters on a toLocaleString options object: read on every call, the value of the moment.
let digits = 0, reads = 0
const live = { get maximumFractionDigits() { reads++; return digits } }
const seen = []
for (const d of [0, 2, 0, 3, 3, 1]) { digits = d; seen.push((1234.56789).toLocaleString('en-US', live)) }
out.liveDigits = seen
out.liveReads = reads
let month = 'short', monthReads = 0
const dateLive = { get month() { monthReads++; return month }, day: 'numeric' }
const d0 = new Date(Date.UTC(2024, 2, 5, 12))
const dates = []
for (const m of ['short', 'long', 'short', 'numeric', '2-digit']) { month = m; dates.push(d0.toLocaleDateString('en-US', dateLive)) }
out.liveDates = dates
out.liveDateRead = monthReads >= dates.length

// A formatter reads its options once: a getter is not read again by format.
let fmtReads = 0
const once = { style: 'currency', currency: 'USD', get minimumFractionDigits() { fmtReads++; return 3 } }
const nfOnce = new Intl.NumberFormat('en-US', once)
const afterMake = fmtReads
const formatted = [1, 2.5, -3.25, 1234567.891].map((x) => nfOnce.format(x))
for (let i = 0; i < 50; i++) nfOnce.format(i)
out.formatterReads = [afterMake, fmtReads, formatted]

// Several formatters and plain calls interleaved: none takes another's format.
const fmts = [
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }),
  new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }),
  new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 }),
  new Intl.NumberFormat('ja-JP', { style: 'currency', currency: 'JPY' }),
  new Intl.NumberFormat('en-IN'),
  new Intl.NumberFormat(['sv-SE'], { style: 'percent' }),
  new Intl.NumberFormat(undefined, { minimumIntegerDigits: 3, useGrouping: false }),
  new Intl.NumberFormat('de-CH', { style: 'currency', currency: 'CHF', currencyDisplay: 'narrowSymbol' }),
]
const rows = []
for (const x of [0, -0, 1234.5, -9876543.21, 0.125, NaN, Infinity, -Infinity]) {
  rows.push([...fmts.map((f) => f.format(x)), x.toLocaleString(), x.toLocaleString('de-DE'), x.toLocaleString('en-US', { style: 'currency', currency: 'EUR' }), x.toLocaleString('fr-FR')].join(' ; '))
}
out.interleaved = rows
out.inputs = [fmts[0].format('12.5'), fmts[0].format(12n), fmts[0].format(true), fmts[0].format(null), fmts[0].format({ valueOf: () => 7 }), fmts[1].format(-1234567890123n)]
out.mapped = [3, 1.5, 2e6].map(fmts[1].format)
out.sameGetter = fmts[0].format === fmts[0].format

// Options and locales changed after the formatter is made: it keeps what it was given.
const opts = { style: 'currency', currency: 'USD' }
const locs = ['de-DE']
const nfKept = new Intl.NumberFormat(locs, opts)
opts.currency = 'EUR'; opts.style = 'percent'; locs[0] = 'en-US'
out.kept = [nfKept.format(1234.5), nfKept.resolvedOptions().currency, nfKept.resolvedOptions().style, (1234.5).toLocaleString(locs, opts)]
const dOpts = { month: 'long', day: 'numeric', timeZone: 'America/New_York' }
const dtf = new Intl.DateTimeFormat('en-US', dOpts)
dOpts.month = 'short'; dOpts.timeZone = 'Asia/Tokyo'
out.keptDate = [dtf.format(d0), d0.toLocaleDateString('en-US', dOpts)]

// Dates in several locales with the same options, interleaved.
const dateRows = []
for (const loc of ['en-US', 'en-GB', 'de-DE', 'en-US', 'ja-JP', 'en-gb', 'fr-FR', 'en-US']) {
  dateRows.push(`${loc}: ${d0.toLocaleDateString(loc, { month: 'short', day: 'numeric' })} / ${d0.toLocaleDateString(loc)} / ${d0.toLocaleTimeString(loc)} / ${d0.toLocaleString(loc)}`)
}
out.dates = dateRows

// Errors after good calls are the same errors.
out.errors = [
  err(() => (1).toLocaleString('en-US')),
  err(() => (1).toLocaleString('en_US')),
  err(() => (1).toLocaleString('en_US')),
  err(() => (1).toLocaleString('en-US', { style: 'bogus' })),
  err(() => (1).toLocaleString('en-US', { style: 'currency' })),
  err(() => (1).toLocaleString('en-US', { maximumFractionDigits: 101 })),
  err(() => new Intl.NumberFormat('en-US', { style: 'currency' })),
  err(() => new Intl.NumberFormat('en-US', { currency: 'US' })),
  err(() => new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 1 })),
  err(() => Number.prototype.toLocaleString.call('5')),
  err(() => Number.prototype.toLocaleString.call(new Number(5))),
  err(() => d0.toLocaleDateString('en-US', { timeStyle: 'short' })),
  err(() => d0.toLocaleDateString('xx_YY')),
  kind(() => d0.toLocaleDateString('en-US', { timeZoneName: 'toString' })),
  err(() => new Date(NaN).toLocaleDateString('en-US', { month: 'short' })),
  kind(() => fmts[0].format(Symbol('s'))),
  err(() => (2.5).toLocaleString('en-US', { minimumFractionDigits: 1 })),
]
return out
