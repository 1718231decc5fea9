export const meta = { name: 'unicode', description: 'Unicode-aware text handling of agent output' }
const text = await agent('Translate the greeting', { label: 'tr' })
const words = ['zebra', 'Äpfel', 'apple', 'Zürich', 'éclair', 'eclair', 'Ökonomie', 'ørsted']
return {
  text,
  lengths: { units: text.length, points: [...text].length, bytesApprox: encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, 'x').length },
  first: [text[0], text.at(-1), text.codePointAt(text.length - 2), [...text].at(-1)],
  upper: ['straße'.toUpperCase(), 'İ'.toLowerCase().length, 'ǅ'.toLowerCase(), 'ΣΑΣ'.toLowerCase()],
  normalized: ['e\u0301' === 'é', 'e\u0301'.normalize() === 'é', 'é'.normalize('NFD').length, 'ﬁ'.normalize('NFKC')],
  fromPoints: String.fromCodePoint(0x1F600, 0x41), surrogates: ['\uD83D\uDE00'.length, '😀'.charCodeAt(0), '😀'.codePointAt(0).toString(16)],
  wellFormed: ['ab\uD800'.isWellFormed(), 'ab\uD800'.toWellFormed().codePointAt(2).toString(16), 'ok😀'.isWellFormed()],
  reversed: [...'añb😀'].reverse().join(''),
  sorted: words.toSorted((a, b) => a.localeCompare(b)),
  sortedBase: words.toSorted((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })),
  sortedPlain: words.toSorted(),
  eq: ['a'.localeCompare('A', undefined, { sensitivity: 'base' }), 'é'.localeCompare('e', undefined, { sensitivity: 'accent' })],
  uri: [encodeURIComponent('a b&c/é'), decodeURIComponent('%F0%9F%98%80'), encodeURI('https://x.y/a b?q=ü')],
  json: JSON.stringify({ s: 'é😀\u2028\u0007' }),
  escapes: JSON.stringify('\uD800'),
  trimmed: '\u00A0\u2003 hi \uFEFF'.trim(),
  slug: 'Ünïcödé Tëxt — 2024!'.normalize('NFKD').replace(/\p{M}/gu, '').replace(/[^\w]+/g, '-').toLowerCase(),
  caseFold: 'ΜΆΙΟΣ'.toLowerCase(),
  padUnicode: '日本'.padStart(4, '*'),
}
