export const meta = { name: 'segmenter-digest', description: 'Count words, split sentences and truncate agent summaries by grapheme with Intl.Segmenter' }
const docs = ['auth', 'billing', 'i18n']
const summaries = await parallel(docs.map((d) => () => agent(`Summarize the ${d} changes`, { label: `sum:${d}` })))
const words = new Intl.Segmenter('en', { granularity: 'word' })
const sentences = new Intl.Segmenter('en', { granularity: 'sentence' })
const graphemes = new Intl.Segmenter('en')
const truncate = (text, n) => {
  const gs = Array.from(graphemes.segment(text), (s) => s.segment)
  return gs.length <= n ? text : gs.slice(0, n).join('') + '…'
}
const rows = summaries.map((text, i) => {
  const ws = [...words.segment(text)].filter((s) => s.isWordLike).map((s) => s.segment)
  const ss = Array.from(sentences.segment(text), ({ segment }) => segment.trim())
  const freq = {}
  for (const w of ws) freq[w.toLowerCase()] = (freq[w.toLowerCase()] ?? 0) + 1
  const top = Object.entries(freq).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 3)
  return { doc: docs[i], words: ws.length, sentences: ss, first: ss[0], short: truncate(text, 24), top, tokens: ws.slice(0, 12) }
})
const seg = words.segment(summaries[0])
const at = [0, 7, 30, 500].map((i) => seg.containing(i) ?? null)
const shapes = [Object.keys([...seg][0]), Object.prototype.toString.call(words), Object.prototype.toString.call(seg[Symbol.iterator]()), words.resolvedOptions(), new Intl.Segmenter().resolvedOptions()]
const errors = []
for (const f of [() => new Intl.Segmenter('en', { granularity: 'line' }), () => Intl.Segmenter(), () => new Intl.Segmenter('en_US')]) {
  try { f(); errors.push('ok') } catch (e) { errors.push(`${e.name}: ${e.message}`) }
}
for (const r of rows) log(`${r.doc}: ${r.words} words, ${r.sentences.length} sentences`)
return { rows, at, shapes, errors, emoji: [...graphemes.segment('👩🏾‍💻 🇸🇪 e\u0301 1️⃣ क्ष')].map((s) => s.segment) }
