export const meta = { name: 'numbers', description: 'number formatting without Intl' }
const nums = [1.005, 1.45, 2.5, -1.5, 0.1 + 0.2, 1234.5678, 1e21, 0.000001234, -0]
return {
  toFixed: nums.map(x => x.toFixed(2)), fixed0: [0.5, 1.5, 2.5, -0.5].map(x => x.toFixed(0)), fixedBig: (1e21).toFixed(2), fixed20: (0.1).toFixed(20),
  toPrecision: [123.456, 0.00012345, 1e21, 5].map(x => x.toPrecision(3)),
  toExponential: [123456, 0.00015, 1].map(x => x.toExponential(2)), expAuto: (123.456).toExponential(),
  radix: [(255).toString(16), (255).toString(2), (-255).toString(36), (0.5).toString(2), (3.75).toString(16)],
  parse: [parseInt('08'), parseInt('0x1f'), parseInt('1e3'), parseInt('  42px'), parseInt('z', 36), parseInt(''), parseFloat('3.14abc'), parseFloat('.5'), parseFloat('-.5e2'), parseInt('123', 5)],
  number: [Number(''), Number(' 12 '), Number('0x10'), Number('0b101'), Number('1_000'), Number(null), Number(undefined), Number([]), Number([7]), Number('1e3'), Number(true), Number('Infinity')],
  checks: [Number.isInteger(5.0), Number.isSafeInteger(2 ** 53), Number.isFinite('5'), isFinite('5'), Number.isNaN('x'), isNaN('x'), Number.EPSILON > 0, Number.MAX_SAFE_INTEGER + 2, Number.MIN_VALUE, -Number.MAX_VALUE],
  math: [Math.round(-0.5), Math.round(2.5), Math.round(-2.5), Math.trunc(-4.7), Math.sign(-3), Math.cbrt(27), Math.hypot(3, 4), Math.log10(1000), Math.log2(8), Math.expm1(0), Math.fround(5.5), Math.clz32(1), Math.imul(3, 4), Math.max(), Math.min(), Math.max(1, NaN), Math.abs(-7.25), Math.ceil(-0.5), Math.floor(-0.5), Math.pow(2, 0.5), 2 ** -1, Math.atan2(1, 1), Math.sqrt(-1)],
  ops: [7 % 3, -7 % 3, 7 % -3, 5.5 % 2, 2 ** 3 ** 2, (-2) ** 2, 1 / 0, -1 / 0, 0 / 0, 0.1 * 3, 9007199254740993, 123456789 * 987654321],
  bits: [5 & 3, 5 | 3, 5 ^ 3, ~5, -8 >> 1, -8 >>> 28, 1 << 31, 2 ** 32 | 0, (2 ** 31) >>> 0],
  bigint: [(2n ** 64n).toString(), (-7n / 2n).toString(), (7n % -3n).toString(), BigInt('123456789012345678901234567890').toString(), BigInt.asUintN(8, 257n).toString(), typeof (5n * 2n), 10n > 9, 10n == 10],
  locale: [(1234567.891).toLocaleString(), (1234.5).toLocaleString('en-US', { minimumFractionDigits: 2 }), (0.256).toLocaleString('en-US', { style: 'percent' })],
  sepLiterals: [1_000_000, 0xff_ff, 0b1010_1010, 1e1_0],
  str: [String(0.1), String(1 / 3), String(2 ** 70), String(123e-20), String(1e-6), String(1.5e-7), (25).toString(), (1e21).toString(), (-1e-7).toString()],
  percent: ((17 / 60) * 100).toFixed(1) + '%',
  money: (n => '$' + n.toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ','))(1234567.891),
  avg: (arr => arr.reduce((a, b) => a + b, 0) / arr.length)([118, 119, 118]),
  unaryPlus: [+'3', +'', +' ', +'3a', +[], +{}, +new Date(5)],
}
