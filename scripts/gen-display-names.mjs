#!/usr/bin/env node
// Generates harnesses/js-runtime/src/display_names.js: ICU's English names
// (as Node 20 gives them through `Intl.DisplayNames`) of the regions
// (ISO 3166 and UN M.49), languages (ISO 639, with the dialect names of
// `languageDisplay: "dialect"` and the aliases ICU canonicalizes),
// currencies (ISO 4217), scripts (ISO 15924), calendars, date-time fields
// and the variants ICU names, with the short and narrow forms where they
// differ, and the locales ICU has display names for (`supportedLocalesOf`,
// `resolvedOptions().locale`). Every code Node names is found by asking for
// all the well-formed codes with `fallback: "none"`.
// Usage: node scripts/gen-display-names.mjs [out.js]
import { writeFileSync } from 'node:fs'

const D = Intl.DisplayNames
const A = 'abcdefghijklmnopqrstuvwxyz'
const UP = A.toUpperCase()
const STYLES = ['long', 'short', 'narrow']
const namer = (type, style, extra = {}) => new D('en', { type, style, fallback: 'none', ...extra })

// The codes of a type Node names, and the table {long, short, narrow}
// (short: where it differs from long; narrow: where it differs from short).
function table (type, codes, extra = {}) {
  const [l, s, n] = STYLES.map((style) => namer(type, style, extra))
  const out = { long: {}, short: {}, narrow: {} }
  for (const c of codes) {
    const ln = l.of(c)
    if (ln === undefined) continue
    out.long[c] = ln
    const sn = s.of(c) ?? ln
    if (sn !== ln) out.short[c] = sn
    const nn = n.of(c) ?? sn
    if (nn !== sn) out.narrow[c] = nn
  }
  return out
}
const all = (alphabets) => alphabets.reduce((acc, abc) => acc.flatMap((p) => [...abc].map((x) => p + x)), [''])
const digits = '0123456789'

const region = table('region', [...all([UP, UP]), ...all([digits, digits, digits])])
const script = table('script', all([UP, A, A, A]))
const currency = table('currency', all([UP, UP, UP]))
const CALENDARS = `buddhist chinese coptic dangi ethioaa ethiopic gregory hebrew indian islamic islamic-civil
  islamic-rgsa islamic-tbla islamic-umalqura iso8601 japanese persian roc`.split(/\s+/)
const calendar = table('calendar', CALENDARS)
const calendarAlias = {}
for (const c of ['ethiopic-amete-alem']) {
  const x = namer('calendar', 'long').of(c)
  const k = CALENDARS.find((k) => calendar.long[k] === x)
  if (x !== undefined && k !== undefined) calendarAlias[c] = k
}
const FIELDS = 'era year quarter month weekOfYear weekday day dayPeriod hour minute second timeZoneName'.split(' ')
const dateTimeField = table('dateTimeField', FIELDS)

// Languages: the 2- and 3-letter codes Node names in their canonical form;
// an alias (`iw`, `mo`, `sh`, `cmn`) maps to the tag it canonicalizes to.
const langCodes = [...all([A, A]), ...all([A, A, A])]
const languageAlias = {}
const canonical = []
for (const c of langCodes) {
  let k
  try { k = Intl.getCanonicalLocales(c)[0] } catch { continue }
  if (k !== c) { if (namer('language', 'long').of(c) !== undefined) languageAlias[c] = k } else canonical.push(c)
}
const GRANDFATHERED = ['i-klingon', 'art-lojban', 'zh-min-nan', 'i-ami', 'i-bnn', 'i-hak', 'i-lux', 'i-navajo', 'i-pwn', 'i-tao', 'i-tay', 'i-tsu',
  'no-bok', 'no-nyn', 'sgn-be-fr', 'sgn-be-nl', 'sgn-ch-de', 'zh-guoyu', 'zh-hakka', 'zh-xiang', 'en-gb-oed', 'i-default', 'i-enochian', 'i-mingo', 'cel-gaulish', 'zh-min']
const language = table('language', canonical, { languageDisplay: 'standard' })
// A grandfathered tag (`i-klingon`) maps to the language of its name.
for (const c of GRANDFATHERED) {
  const x = namer('language', 'long').of(c)
  const k = Object.keys(language.long).find((k) => language.long[k] === x)
  if (x !== undefined && k !== undefined) languageAlias[c] = k
}
const langs = Object.keys(language.long)
// Region aliases in a language tag (`en-UK` is `en-GB`).
const regionAlias = {}
for (const r of Object.keys(region.long)) {
  let k
  try { k = Intl.getCanonicalLocales(`und-${r}`)[0].slice(4) } catch { continue }
  if (k !== r && /^([A-Z]{2}|[0-9]{3})$/.test(k)) regionAlias[r] = k
}
// A region alias that depends on the language (`lv-SU` is `lv-LV`): per language.
for (const r of Object.keys(regionAlias)) {
  for (const l of langs) {
    let k
    try { k = Intl.getCanonicalLocales(`${l}-${r}`)[0].split('-').pop() } catch { continue }
    if (k !== regionAlias[r]) regionAlias[`${l}-${r}`] = k
  }
}
// Dialect names (`en-US` "American English", `zh-Hant` "Traditional Chinese"):
// language-region and language-script keys whose dialect name is not the
// standard one, per style.
const dialect = { long: {}, short: {}, narrow: {} }
{
  const dl = STYLES.map((style) => namer('language', style))
  const sl = STYLES.map((style) => namer('language', style, { languageDisplay: 'standard' }))
  const tails = [...Object.keys(region.long), ...Object.keys(script.long)]
  for (const lang of langs) {
    for (const t of tails) {
      const tag = `${lang}-${t}`
      const names = dl.map((n) => n.of(tag))
      const std = sl.map((n) => n.of(tag))
      if (names[0] === std[0] && names[1] === std[1] && names[2] === std[2]) continue
      dialect.long[tag] = names[0]
      if (names[1] !== names[0]) dialect.short[tag] = names[1]
      if (names[2] !== names[1]) dialect.narrow[tag] = names[2]
    }
  }
}
// Variants (`posix` "Computer", `valencia` "Valencian"): IANA's, those ICU names.
const VARIANTS = `1901 1994 1996 1606nict 1694acad 1959acad abl1943 akuapem alalc97 aluku ao1990 aranes arevela arevmda arkaika
  asante auvern baku1926 balanka barla basiceng bauddha biscayan biske bohoric boont bornholm cisaup colb1945 cornu creiss
  dajnko ekavsk emodeng fonipa fonkirsh fonnapa fonupa fonxsamp gascon grclass grital grmistr hepburn heploc hognorsk
  hsistemo ijekavsk itihasa ivanchov jauer jyutping kkcor kociewie kscor laukika lemosin lengadoc lipaw luna1918 metelko
  monoton ndyuka nedis newfound nicard njiva nulik osojs oxendict pahawh2 pahawh3 pahawh4 pamaka peano petr1708 pinyin
  polyton posix provenc puter rigik rozaj rumgr scotland scouse simple solba sotav spanglis surmiran sursilv sutsilv
  synnejyl tarask tongyong tunumiit uccor ucrcor ulster unifon vaidika valencia vallader vecdruka vivaraup wadegile xsistemo`.split(/\s+/)
const variant = { long: {}, short: {}, narrow: {} }
{
  const ns = STYLES.map((style) => namer('language', style, { languageDisplay: 'standard' }))
  for (const v of VARIANTS) {
    const names = ns.map((n) => n.of(`en-${v}`))
    const m = names.map((x) => /^English \((.*)\)$/.exec(x ?? '')?.[1])
    if (m[0] === undefined || m[0] === v.toUpperCase()) continue
    const V = v.toUpperCase()
    variant.long[V] = m[0]
    if (m[1] !== m[0]) variant.short[V] = m[1]
    if (m[2] !== m[1]) variant.narrow[V] = m[2]
  }
}
// The locales ICU has display names for: languages, language-script,
// language-region and language-script-region that resolve to themselves.
const available = new Set()
{
  const resolved = (tag) => new D(tag, { type: 'region' }).resolvedOptions().locale
  const base = langs.filter((l) => D.supportedLocalesOf(l).length > 0 && resolved(l) === l)
  for (const l of base) available.add(l)
  const regions = Object.keys(region.long), scripts = Object.keys(script.long)
  for (const l of base) {
    for (const r of regions) if (resolved(`${l}-${r}`) === `${l}-${r}`) available.add(`${l}-${r}`)
    for (const s of scripts) {
      if (resolved(`${l}-${s}`) !== `${l}-${s}`) continue
      available.add(`${l}-${s}`)
      for (const r of regions) if (resolved(`${l}-${s}-${r}`) === `${l}-${s}-${r}`) available.add(`${l}-${s}-${r}`)
    }
  }
}

const data = { region, language, dialect, variant, script, currency, calendar, dateTimeField, languageAlias, regionAlias, calendarAlias, available: [...available].join(' ') }
const out = process.argv[2] ?? new URL('../harnesses/js-runtime/src/display_names.js', import.meta.url)
writeFileSync(out, `// Generated by scripts/gen-display-names.mjs from Node ${process.version} (ICU ${process.versions.icu}): do not edit.
// Per type: {long, short, narrow}, short where it differs from long, narrow where it
// differs from short. dialect: language-region / language-script names of
// languageDisplay "dialect"; variant: ICU's variant names (upper case keys);
// available: the locales ICU has display names for.
globalThis.__hwf_display_names = ${JSON.stringify(data)};
`)
