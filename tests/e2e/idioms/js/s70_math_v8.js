export const meta = { name: 'math-v8', description: "Math's transcendental functions and non-integer powers give V8's last digits" }
// Inputs a workflow meets: ratios, rates, scores, log-scale buckets.
const xs = Array.from({ length: 60 }, (_, i) => (i + 1) / 7)
const units = Array.from({ length: 40 }, (_, i) => ((i % 2 ? 1 : -1) * (i + 1)) / 41)
const sweep = {}
for (const f of ['exp', 'log', 'log10', 'log2', 'log1p', 'sin', 'cos', 'sinh', 'cosh', 'tanh', 'asinh']) sweep[f] = xs.map((x) => Math[f](x))
sweep.atanh = units.map((x) => Math.atanh(x))
sweep.acosh = xs.map((x) => Math.acosh(1 + x))
sweep.atan2 = xs.map((x, i) => Math.atan2(x - 4, (i % 7) - 3))
sweep.big = [1e6, 123456.789, 1e22, -987654.321].map((x) => [Math.sin(x), Math.cos(x)])
// Growth maths with non-integer exponents (integer ones are JavaScriptCore's
// repeated squaring in hwf, see docs/CONFORMANCE.md).
const rates = [0.012, 0.035, 0.07, 0.15, 0.42]
const growth = rates.map((r) => ({
  monthlyFromAnnual: (1 + r) ** (1 / 12) - 1,
  continuous: Math.exp(r * 12),
  doubling: Math.log(2) / Math.log(1 + r),
  half: Math.pow(1 + r, 2.5),
  root: Math.pow(r * 1000, 1 / 3),
  decay: 0.5 ** (r * 10),
}))
const latencies = [12.5, 48, 3.2, 250, 97.1, 18.4, 1204, 7.7]
const geo = Math.exp(latencies.reduce((a, b) => a + Math.log(b), 0) / latencies.length)
const decibels = latencies.map((x) => 10 * Math.log10(x / 12.5))
log(`geo=${geo} e=${Math.exp(1)} ln10=${Math.log(10)}`)
return { sweep, growth, geo, decibels, e: Math.exp(1), specials: [Math.pow(NaN, 0), Math.pow(1, Infinity), Math.pow(-8, 1 / 3), Math.pow(0, -0.5), Math.pow(-0, -3.5), Math.exp(-745.2), Math.log(-1), Math.atan2(-0, -1)] }
