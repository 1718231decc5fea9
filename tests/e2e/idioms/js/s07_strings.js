export const meta = { name: 'strings', description: 'String builtins' }
const s = 'Hello, World'
const tag = (strs, ...vals) => strs.raw.map((r, i) => r + (i < vals.length ? `[${vals[i]}]` : '')).join('')
const n = 3
return {
  pad: ['5'.padStart(3, '0'), 'ab'.padEnd(5, '.'), 'abc'.padStart(2), 'x'.padStart(6, 'ab')],
  repeat: '-='.repeat(3),
  replaceAll: 'a-b-c'.replaceAll('-', '+'), replaceFirst: 'a-b-c'.replace('-', '+'), replaceFn: 'a1b22'.replace(/\d+/g, d => `<${d.length}>`),
  split: ['a,b,,c'.split(','), 'a,b,c'.split(',', 2), 'abc'.split(''), 'a1b2c'.split(/\d/), 'a1b2c'.split(/(\d)/), ''.split(','), 'x'.split()],
  at: [s.at(-1), s.at(0), s.charAt(99), s[99]],
  codes: ['€'.codePointAt(0), '😀'.codePointAt(0), '😀'.length, [...'😀a'].length, '😀'.charCodeAt(0), String.fromCodePoint(128512), String.fromCharCode(72, 105)],
  cases: [s.toUpperCase(), s.toLowerCase(), 'straße'.toUpperCase(), 'İ'.toLowerCase().length, 'ǅ'.toLowerCase(), 'ΣΑΣ'.toLowerCase()],
  trims: ['  x  '.trim(), '  x  '.trimStart(), '  x  '.trimEnd(), '\u00a0\ufeffx\n'.trim()],
  search: [s.indexOf('o'), s.lastIndexOf('o'), s.includes('World'), s.startsWith('World', 7), s.endsWith('Hello', 5), s.search(/W/)],
  slices: [s.slice(-5), s.slice(2, -2), s.substring(5, 2), s.substring(-3), s.slice(5, 2)],
  raw: String.raw`a\nb${n}`, tagged: tag`x${1}y${'z'}\n`, nested: `outer ${`inner ${n * 2}`} end`,
  multiline: `line1
line2`,
  normalize: ['e\u0301'.normalize('NFC') === 'é', 'é'.normalize('NFD').length, 'ﬁ'.normalize('NFKC')],
  localeCmp: ['a'.localeCompare('b'), 'b'.localeCompare('a'), 'a'.localeCompare('a')],
  concat: 'a'.concat(1, null, [2, 3]),
  conv: [String(1e21), String(123.0), String(-0), (0.000001).toString(), (1e-7).toString(), String(2 ** 53), String(0.1 + 0.2), String(1 / 3), String(100), String(1e100)],
  wellFormed: ['ab'.isWellFormed?.() ?? 'n/a', JSON.stringify('\ud800')],
  compare: ['a' < 'B', 'a' < 'b', '10' < '9', 10 < 9, 'abc' < 'abd'],
  words: 'The quick  brown fox'.split(/\s+/).map(w => w[0].toUpperCase() + w.slice(1).toLowerCase()).join(' '),
  truncate: (str => (str.length > 10 ? str.slice(0, 9) + '…' : str))('a long sentence here'),
  countChars: [...'mississippi'].reduce((m, c) => ({ ...m, [c]: (m[c] ?? 0) + 1 }), {}),
  escape: JSON.stringify('quote " backslash \\ newline \n tab \t unicode \u2028'),
}
