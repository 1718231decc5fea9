export const meta = { name: 'regex', description: 'RegExp features' }
const log1 = '2024-03-10 ERROR [auth] login failed for user=ada id=42; 2024-03-11 WARN [db] slow query id=7'
const dated = [...log1.matchAll(/(?<date>\d{4}-\d{2}-\d{2}) (?<level>[A-Z]+) \[(?<mod>\w+)\]/g)].map(m => ({ ...m.groups, at: m.index }))
const ids = log1.match(/(?<=id=)\d+/g)
const notPrefixed = 'x1 $2 y3 $4'.match(/(?<!\$)\b\d/g)
const price = '$42.50 and €13'.match(/(?<=\$)\d+(\.\d+)?/)[0]
const swapped = '2024-03-10'.replace(/(?<y>\d+)-(?<m>\d+)-(?<d>\d+)/, '$<d>/$<m>/$<y>')
const named = /(?<word>\w+)\s\k<word>/.exec('say hello hello world')
const uni = 'naïve café Ωmega 123'.match(/\p{L}+/gu)
const emoji = '😀😃x'.match(/./gu).length
const emojiNoU = '😀😃x'.match(/./g).length
const sticky = (() => { const r = /foo/y; r.lastIndex = 3; return [r.test('barfoo'), r.lastIndex, r.test('barfoo'), r.lastIndex] })()
const globalState = (() => { const r = /a/g; return [r.test('aa'), r.lastIndex, r.test('aa'), r.lastIndex, r.test('aa'), r.lastIndex] })()
const dotAll = [/a.b/.test('a\nb'), /a.b/s.test('a\nb')]
const flags = [/x/gimsuy.flags, new RegExp('a+', 'g').source, String(/a\/b/), new RegExp('/').source]
const indices = /b(c)/d.exec('abcd').indices.map(p => [...p])
const multiline = 'one\ntwo\nthree'.match(/^\w+$/gm)
const splitKeep = 'a1b22c'.split(/(\d+)/)
const fnReplace = 'John Smith'.replace(/(\w+)\s(\w+)/, (m, f, l, off, str) => `${l}, ${f} @${off}/${str.length}`)
const special = 'a.b*c'.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const lazy = '<a><b>'.match(/<.+?>/g)
const backrefs = /(\w)\1/.exec('hello')[0]
const nonCapture = 'abab'.match(/(?:ab)+/)[0]
const lookahead = 'price: 100USD 200EUR'.match(/\d+(?=EUR)/)[0]
const caseIns = 'ÄBC'.match(/äbc/iu)?.[0] ?? null
const replaceDollar = 'cost'.replace('cost', '$$5 $& $` $\'')
const email = /^[\w.+-]+@[\w-]+\.[\w.]+$/.test('a.b+c@ex-ample.co.uk')
const unicodeClass = [/\p{Lu}/u.test('É'), /\p{Script=Greek}/u.test('λ'), /^\p{N}+$/u.test('١٢٣')]
const matchNull = 'abc'.match(/z/)
const execLoop = []
const re = /(\d)/g
let m
while ((m = re.exec('a1b2c3')) !== null) execLoop.push(m[1] + '@' + m.index)
return { dated, ids, notPrefixed, price, swapped, named: named?.groups, uni, emoji, emojiNoU, sticky, globalState, dotAll, flags, indices, multiline, splitKeep, fnReplace, special, lazy, backrefs, nonCapture, lookahead, caseIns, replaceDollar, email, unicodeClass, matchNull, execLoop }
