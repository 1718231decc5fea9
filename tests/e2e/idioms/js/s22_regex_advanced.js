export const meta = { name: 'regex-advanced', description: 'Parse agent output with modern regex features' }
const log1 = `2024-03-07 10:00:01 ERROR [auth] login failed user=alice ip=10.0.0.1
2024-03-07 10:00:05 WARN [db] slow query 1200ms
2024-03-07 10:01:00 ERROR [auth] login failed user=bob ip=10.0.0.2
2024-03-08 09:00:00 INFO [api] started v2.3.1`
const LINE = /^(?<date>\d{4}-\d{2}-\d{2}) (?<time>[\d:]+) (?<level>[A-Z]+) \[(?<mod>\w+)\] (?<msg>.*)$/gm
const entries = [...log1.matchAll(LINE)].map(m => ({ ...m.groups }))
const errorsByMod = entries.filter(e => e.level === 'ERROR').reduce((a, e) => { a[e.mod] = (a[e.mod] || 0) + 1; return a }, {})
const users = [...log1.matchAll(/(?<=user=)\w+/g)].map(m => m[0])
const notAfterIp = log1.match(/(?<!ip=)\b10\.\d+/g)
const ms = log1.match(/(\d+)(?=ms)/)?.[1]
const swapped = '2024-03-07'.replace(/(?<y>\d+)-(?<m>\d+)-(?<d>\d+)/, '$<d>/$<m>/$<y>')
const fnRepl = 'a1b22c333'.replace(/\d+/g, (m, offset) => `[${m.length}@${offset}]`)
const namedFn = 'x=1, y=22'.replace(/(?<k>\w)=(?<v>\d+)/g, (...args) => { const g = args.at(-1); return `${g.k.toUpperCase()}:${Number(g.v) * 2}` })
const sticky = /\w+/y; sticky.lastIndex = 4; const st = sticky.exec('abc def'); const st2 = sticky.exec('abc def')
const withIdx = /(?<word>quick)/d.exec('the quick fox')
const uni = 'Grüße, 世界! 123 café'.match(/\p{L}+/gu)
const emoji = '👍 ok 🎉'.match(/\p{Extended_Pictographic}/gu)
const splitCap = 'one, two;three'.split(/([,;])\s*/)
const global = /o/g; const positions = []; let m; while ((m = global.exec('foo boo')) !== null) positions.push(m.index)
const flags = [/a/gimsuy.flags, new RegExp('a.b', 's').test('a\nb'), /^b/m.test('a\nb')]
let bad = null
try { new RegExp('(') } catch (e) { bad = e.name }
const escaped = 'price: $5.00 (approx)'.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const vflag = /[\p{L}--[a-z]]/v.test('Q')
const src = [/a\/b/.source, String(/x/gi), new RegExp('/', 'g').source]
return { entries, errorsByMod, users, notAfterIp, ms, swapped, fnRepl, namedFn, sticky: [st?.[0], st2, sticky.lastIndex], indices: withIdx.indices.groups.word, uni, emoji, splitCap, positions, flags, bad, escaped, vflag, src, caseIns: 'ÉCOLE'.match(/école/i)?.[0] ?? null }
