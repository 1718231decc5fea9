export const meta = { name: 'array-to-locale-string', description: 'Array#toLocaleString passes its locales and options to each element, as V8' }
const a = [1234.5, 0.5, null, undefined, 7]
const cyc = [1, 2]; cyc.push(cyc)
return {
  de: [1234.5, 0.5].toLocaleString('de-DE'),
  plain: a.toLocaleString(),
  cur: [1, 2.5].toLocaleString('en-US', { style: 'currency', currency: 'EUR' }),
  date: [new Date(0)].toLocaleString('en-GB', { timeZone: 'UTC' }),
  nested: [[1000, 2000], 3000].toLocaleString('de'),
  cyc: cyc.toLocaleString(),
  typed: new Float64Array([1234.5, 2]).toLocaleString('de'),
  call: Array.prototype.toLocaleString.call({ length: 2, 0: 1000, 1: 'x' }, 'de'),
}
