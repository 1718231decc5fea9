export const meta = { name: 'number-radix', description: "Number#toString(radix) of fractions and large numbers gives V8's digits" }
let seed = 20241204
const next = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
const shortId = (x) => x.toString(36).slice(2, 10)
const ids = Array.from({ length: 8 }, () => shortId(next()))
const edge = [0.1, 1 / 3, 255.5, -255, 1e21, 2 ** 60, 0.000001, 5135235413265003022600000, 1.4340322421131e-9, -0, 5e-324, 1.7976931348623157e308, 123.456, -0.5, 2 ** 53 + 2, Math.PI, Date.UTC(2024, 2, 8) / 7]
const radixes = [2, 3, 7, 8, 16, 32, 36]
const table = edge.map((v) => radixes.map((r) => v.toString(r)))
const random = []
for (let i = 0; i < 120; i++) {
  const v = (next() - 0.5) * 10 ** Math.floor(next() * 44 - 22)
  random.push(v.toString(radixes[i % radixes.length]))
}
const hexColor = (r, g, b) => '#' + [r, g, b].map((c) => Math.round(c * 255).toString(16).padStart(2, '0')).join('')
return { ids, table, random, color: hexColor(0.2, 0.5, 0.9), frac: (0.75).toString(2), big: (2 ** 64).toString(36) }
