export const meta = { name: 'number-format', description: 'Formatting metrics for a report' }
const S = { type: 'object', properties: { latencies: { type: 'array' }, bytes: { type: 'number' } }, required: ['latencies', 'bytes'] }
const { latencies, bytes } = await agent('Collect metrics', { label: 'metrics', schema: S })
const p = (q) => { const s = latencies.toSorted((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))] }
const human = (n) => { const u = ['B', 'KB', 'MB', 'GB']; let i = 0; while (n >= 1024 && i < u.length - 1) { n /= 1024; i++ } return `${n.toFixed(i ? 1 : 0)} ${u[i]}` }
return {
  p50: p(0.5), p95: p(0.95), avg: (latencies.reduce((a, b) => a + b) / latencies.length).toFixed(2), human: human(bytes),
  fixed: [(1.005).toFixed(2), (2.5).toFixed(0), (-1.5).toFixed(0), (0.000001).toFixed(7), (1e21).toFixed(2), (123.456).toFixed(10), (0).toFixed(1), (-0.0001).toFixed(2)],
  precision: [(123.456).toPrecision(4), (0.00012345).toPrecision(2), (123456).toPrecision(2), (1.5).toPrecision(1), (99.99).toPrecision(3)],
  exponential: [(12345).toExponential(2), (0.5).toExponential(), (1e-7).toExponential(3)],
  radix: [(255).toString(16), (255).toString(2), (-10).toString(36), (0.5).toString(2), (3.75).toString(16), (123.456).toString(36)],
  toStr: [String(1e21), String(1e-7), String(123e-20), String(0.1 + 0.2), String(2 ** 53 + 1), String(-0), (1e300 * 1e10).toString(), String(5e-324), String(123456789012345680000)],
  parse: [parseInt('08'), parseInt('0x1F'), parseInt('z', 36), parseInt('12px'), parseFloat('3.14abc'), parseFloat('.5e1'), Number(''), Number(' 42 '), Number('1_000'), Number('0b101'), +'1e3', parseInt(''), Number(null), Number(undefined)],
  rounding: [Math.round(-0.5), Math.round(2.5), Math.round(-2.5), Math.trunc(-4.7), Math.sign(-3), Math.floor(-0.5), Math.ceil(-0.5), Math.round(1.005 * 100) / 100],
  checks: [Number.isInteger(5.0), Number.isSafeInteger(2 ** 53), Number.EPSILON > 0, 0.1 + 0.2 === 0.3, Math.abs(0.3 - (0.1 + 0.2)) < Number.EPSILON, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE],
  math: [Math.hypot(3, 4), Math.cbrt(27), Math.log10(1000), Math.log2(8), Math.max(), Math.min(), Math.clz32(1), Math.fround(5.5), Math.expm1(0), 2 ** -1, (-8) ** (1 / 3), 7 % -3, -7 % 3],
  bigint: [(2n ** 64n).toString(), (10n ** 20n / 3n).toString(), (-7n / 2n).toString(), BigInt('0xff').toString(), BigInt.asUintN(8, 257n).toString(), (123n).toString(16), typeof (5n * 2n), 5n > 4, 2n == 2, BigInt(Number.MAX_SAFE_INTEGER) + 2n + ''],
  bigErr: (() => { try { return JSON.stringify({ n: 1n }) } catch (e) { return e.name } })(),
  mixErr: (() => { try { return 1n + 1 } catch (e) { return e.name } })(),
  percent: latencies.map(l => `${Math.round((l / Math.max(...latencies)) * 100)}%`),
  compact: [999, 1234, 15300, 999999, 2.5e9, -4200].map(n => new Intl.NumberFormat('en-US', { notation: 'compact' }).format(n)).concat((1234567).toLocaleString('en-US', { notation: 'compact', compactDisplay: 'long' })),
  significant: [(123456).toLocaleString('en-US', { maximumSignificantDigits: 3 }), (0.0012345).toLocaleString('en-US', { maximumSignificantDigits: 2 }), (1.5).toLocaleString('en-US', { minimumSignificantDigits: 3 })],
  collatorCall: ['b', 'A', 'c'].sort(Intl.Collator().compare),
  locale: [(1234.5).toLocaleString('en-US', { minimumFractionDigits: 2 }), (0.5).toLocaleString('en-US', { style: 'percent' }), (1e6).toLocaleString('en-US'), (1234.5678).toLocaleString(undefined, { maximumFractionDigits: 1 })],
}
