export const meta = { name: 'report-strings', description: 'Build a markdown report from agent text' }
const raw = await agent('Summarize the release notes', { label: 'notes' })
const lines = raw.split('\n').map(l => l.trim()).filter(Boolean)
const bullets = lines.filter(l => l.startsWith('- ')).map(l => l.slice(2))
const heading = lines.find(l => l.startsWith('#'))?.replace(/^#+\s*/, '') ?? 'Untitled'
const md = (strings, ...values) => strings.reduce((out, s, i) => out + s + (i < values.length ? `**${values[i]}**` : ''), '')
const summary = md`Release ${heading} has ${bullets.length} changes and ${lines.length - bullets.length - 1} notes.`
const rows = [['Area', 'Change', 'Size'], ...bullets.map(b => { const [area, ...rest] = b.split(':'); return [area.trim(), rest.join(':').trim(), String(rest.join(':').trim().length)] })]
const widths = rows[0].map((_, c) => Math.max(...rows.map(r => r[c].length)))
const table = rows.map((r, i) => '| ' + r.map((cell, c) => (c === 2 ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join(' | ') + ' |' + (i === 0 ? '\n|' + widths.map(w => '-'.repeat(w + 2)).join('|') + '|' : '')).join('\n')
const slug = heading.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')
const wrapped = (text, width) => text.split(' ').reduce((acc, w) => { const last = acc.at(-1); if (last && (last + ' ' + w).length <= width) acc[acc.length - 1] = last + ' ' + w; else acc.push(w); return acc }, [])
const title = heading.split(' ').map(w => w[0].toUpperCase() + w.slice(1).toLowerCase()).join(' ')
const raws = String.raw`C:\path\to\${heading}`
const esc = `Tab:\t|Quote:"|Backslash:\\|Unicode:\u00e9|Hex:\x41`
return {
  heading, title, slug, summary, table,
  wrapped: wrapped(bullets.join(' '), 28),
  counts: { chars: raw.length, words: raw.split(/\s+/).filter(Boolean).length, upper: (raw.match(/[A-Z]/g) || []).length },
  replaced: raw.replaceAll('fix', 'FIX').split('\n')[2], raws, esc,
  trims: ['  x  '.trimStart() + '|', '|' + '  x  '.trimEnd(), 'abc'.at(-1), 'abc'.at(5) ?? 'none'],
  splitLimit: 'a,b,c,d'.split(',', 2), padded: '7'.padStart(3, '0') + '|' + 'ab'.padEnd(5, '.-'),
  search: [raw.indexOf('api'), raw.lastIndexOf('fix'), raw.includes('Perf'), raw.startsWith('#'), raw.endsWith('.')],
  sortedAreas: rows.slice(1).map(r => r[0]).sort((a, b) => a.localeCompare(b)),
  cmp: ['b'.localeCompare('a'), 'a'.localeCompare('B'), 'é'.localeCompare('f'), 'item10'.localeCompare('item9', undefined, { numeric: true })],
  nums: [(1234567.891).toLocaleString('en-US'), (0.256).toLocaleString('en-US', { style: 'percent' }), (42).toLocaleString()],
  listed: [new Intl.ListFormat('en', { style: 'long', type: 'conjunction' }).format(rows.slice(1).map(r => r[0])), new Intl.ListFormat('en-US', { type: 'disjunction' }).format(['x', 'y'])],
  plural: [0, 1, 2].map(n => `${n} ${new Intl.PluralRules('en-US').select(n) === 'one' ? 'change' : 'changes'}`),
  ordinals: [1, 2, 3, 4, 11, 22, 113].map(n => { const s = { one: 'st', two: 'nd', few: 'rd', other: 'th' }[new Intl.PluralRules('en-US', { type: 'ordinal' }).select(n)]; return `${n}${s}` }),
  concat: 'a'.concat(1, null, [2, 3]), repeatJoin: Array(3).fill('ab').join('-'), codes: [...'Añ'].map(c => c.charCodeAt(0)),
}
