#!/usr/bin/env node
// Generates harnesses/js-runtime/src/date_patterns.js: ICU's date and time
// patterns (as Node gives them through `Intl.DateTimeFormat#formatToParts`)
// for the most used languages beyond English, over a grid of options the
// runtime enumerates the same way (`DATE_GRID` in prelude.js): weekday ×
// year × month × day × the hour/minute/second widths × hour12, then
// dateStyle × timeStyle. A pattern is text with tokens: `{y}` `{yy}` year,
// `{M}` `{MM}` numeric month, `{M:k}` a month name from the locale's list
// k, `{d}` `{dd}`, `{E:k}` a weekday name (list k, Sunday first), `{a:k}` a
// day period (list k, one per hour 0-23), `{H}` `{HH}` (0-23) `{h}` `{hh}`
// (1-12) `{K}` `{KK}` (0-11) `{k}` `{kk}` (1-24), `{m}` `{mm}`, `{s}` `{ss}`.
// Each pattern is checked against Node on dates across the year and the
// day; one that does not render them all (or holds a part the runtime does
// not write, as an era) is left out, and the runtime falls back to English.
// The same file holds, per locale, what the runtime's other Intl classes
// write in those languages (each checked against Node as it is made):
// RelativeTimeFormat's patterns (`rtf`), ListFormat's glue (`list`),
// `style: "unit"` forms (`units`) and currency names (`money`).
// A zone's name is `{z}` (its style is `timeZoneName`'s, or that of a
// `timeStyle`: full is long, long is short); `zi` holds the patterns of
// the grid's entries without a weekday or an hour12 plus a `timeZoneName`
// (the `short` one, `~~` for none; `zs`, per entry, U+0100 plus a bit
// per style it renders, in `ZSTYLES` order), and `tz` the zone names
// (`zoneNames`).
// Usage: node scripts/gen-date-patterns.mjs [out.js]
import { writeFileSync } from 'node:fs'

const LOCALES = ['de', 'fr', 'es', 'it', 'pt', 'nl', 'ja', 'zh', 'ko', 'ru', 'pl', 'sv', 'pt-PT', 'fr-CA', 'zh-TW', 'zh-HK', 'es-MX', 'de-AT']
// The grid (prelude.js's DATE_GRID enumerates it in this order).
const W = ['', 'long', 'short']
const Y = ['', 'numeric', '2-digit']
const M = ['', 'numeric', '2-digit', 'long', 'short']
const D = ['', 'numeric', '2-digit']
const T = [[], ['numeric'], ['2-digit'], ['numeric', 'numeric'], ['numeric', '2-digit'], ['2-digit', 'numeric'], ['2-digit', '2-digit'], ['numeric', '2-digit', '2-digit'], ['2-digit', '2-digit', '2-digit'], ['numeric', 'numeric', 'numeric'], ['2-digit', 'numeric', 'numeric']]
const H12 = [undefined, true, false]
const STYLES = [undefined, 'full', 'long', 'medium', 'short']

const G0 = () => grid()
const ZSTYLES = ['short', 'long', 'shortOffset', 'longOffset', 'shortGeneric', 'longGeneric']
function grid () {
  const out = []
  for (const weekday of W) for (const year of Y) for (const month of M) for (const day of D) for (const t of T) for (const hour12 of H12) {
    const o = {}
    if (weekday) o.weekday = weekday
    if (year) o.year = year
    if (month) o.month = month
    if (day) o.day = day
    if (t[0]) o.hour = t[0]
    if (t[1]) o.minute = t[1]
    if (t[2]) o.second = t[2]
    if (hour12 !== undefined) o.hour12 = hour12
    out.push(o)
  }
  for (const dateStyle of STYLES) for (const timeStyle of STYLES) {
    const o = {}
    if (dateStyle) o.dateStyle = dateStyle
    if (timeStyle) o.timeStyle = timeStyle
    out.push(o)
  }
  return out
}

const at = (y, mo, d, h, mi, s) => new Date(Date.UTC(y, mo, d, h, mi, s))
const SAMPLE = at(2024, 2, 5, 4, 7, 8)
// Dates the patterns are checked on: each month, each weekday, each hour.
const CHECKS = [
  ...Array.from({ length: 12 }, (_, m) => at(2023, m, 1 + m * 2, m * 2, m * 5, m * 4)),
  ...Array.from({ length: 24 }, (_, h) => at(2025, 10, 10 + (h % 7), h, 59 - h, h)),
  at(2009, 0, 1, 0, 0, 0), at(1999, 11, 31, 23, 59, 59), at(2024, 1, 29, 12, 0, 30)
]

function build (locale) {
  const lists = []
  const intern = (arr) => {
    const key = JSON.stringify(arr)
    let i = lists.findIndex((l) => JSON.stringify(l) === key)
    if (i < 0) { lists.push(arr); i = lists.length - 1 }
    return i
  }
  const raw = []
  for (const o of grid()) {
    const f = new Intl.DateTimeFormat(locale, { ...o, timeZone: 'UTC' })
    const values = (dates, type) => dates.map((d) => f.formatToParts(d).find((p) => p.type === type)?.value)
    let ok = true
    const tokens = f.formatToParts(SAMPLE).map((p) => {
      switch (p.type) {
        case 'literal': return p.value
        case 'year': return p.value === '24' ? '{yy}' : '{y}'
        case 'day': return p.value === '05' ? '{dd}' : '{d}'
        case 'minute': return p.value === '07' ? '{mm}' : '{m}'
        case 'second': return p.value === '08' ? '{ss}' : '{s}'
        case 'month': {
          if (/^\d+$/.test(p.value)) return p.value === '03' ? '{MM}' : '{M}'
          return `{M:${intern(values(Array.from({ length: 12 }, (_, m) => at(2024, m, 5, 4, 7, 8)), 'month'))}}`
        }
        case 'weekday': return `{E:${intern(values(Array.from({ length: 7 }, (_, i) => at(2024, 2, 3 + i, 4, 7, 8)), 'weekday'))}}`
        case 'dayPeriod': return `{a:${intern(values(Array.from({ length: 24 }, (_, h) => at(2024, 2, 5, h, 7, 8)), 'dayPeriod'))}}`
        case 'hour': {
          const [h0, h13] = values([at(2024, 2, 5, 0, 7, 8), at(2024, 2, 5, 13, 7, 8)], 'hour')
          const two = p.value === '04'
          const c = h13 === '13' ? (h0 === '24' ? 'k' : 'H') : (h0 === '12' ? 'h' : 'K')
          return `{${two ? c + c : c}}`
        }
        case 'timeZoneName': return '{z}'
        default: ok = false; return ''
      }
    })
    let pattern = ok ? tokens.join('') : null
    if (pattern !== null) {
      const style = o.timeStyle === 'full' ? 'long' : o.timeStyle === 'long' ? 'short' : null
      for (const d of CHECKS) {
        if (render(pattern, d, lists, style && zoneNameOf(locale, 'UTC', d, style)) !== f.formatToParts(d).map((p) => p.value).join('')) { pattern = null; break }
      }
      if (pattern !== null && style !== null && !checkZones(pattern, lists, o, locale)) pattern = null
    }
    raw.push(pattern)
  }
  // With a `timeZoneName` (no weekday, no hour12): one pattern for all styles.
  const zpatterns = []
  for (const o of G0().slice(0, 4455)) {
    if (o.weekday !== undefined || o.hour12 !== undefined || o.dateStyle !== undefined || o.timeStyle !== undefined) continue
    const f = new Intl.DateTimeFormat(locale, { ...o, timeZoneName: 'short', timeZone: 'UTC' })
    let ok = true
    const tokens = f.formatToParts(SAMPLE).map((p) => {
      switch (p.type) {
        case 'literal': return p.value
        case 'year': return p.value === '24' ? '{yy}' : '{y}'
        case 'day': return p.value === '05' ? '{dd}' : '{d}'
        case 'minute': return p.value === '07' ? '{mm}' : '{m}'
        case 'second': return p.value === '08' ? '{ss}' : '{s}'
        case 'timeZoneName': return '{z}'
        case 'month': {
          if (/^\d+$/.test(p.value)) return p.value === '03' ? '{MM}' : '{M}'
          const vs = Array.from({ length: 12 }, (_, m) => f.formatToParts(at(2024, m, 5, 4, 7, 8)).find((q) => q.type === 'month').value)
          return `{M:${intern(vs)}}`
        }
        case 'dayPeriod': return `{a:${intern(Array.from({ length: 24 }, (_, h) => f.formatToParts(at(2024, 2, 5, h, 7, 8)).find((q) => q.type === 'dayPeriod').value))}}`
        case 'hour': {
          const [h0, h13] = [0, 13].map((h) => f.formatToParts(at(2024, 2, 5, h, 7, 8)).find((q) => q.type === 'hour').value)
          const c = h13 === '13' ? (h0 === '24' ? 'k' : 'H') : (h0 === '12' ? 'h' : 'K')
          return `{${p.value === '04' ? c + c : c}}`
        }
        default: ok = false; return ''
      }
    })
    let pattern = ok ? tokens.join('') : null
    // The styles the pattern renders (ICU pads an hour for some: `H:mm:ss z`, `HH:mm:ss zzzz`).
    let mask = 0
    if (pattern !== null) ZSTYLES.forEach((style, i) => { if (checkZones(pattern, lists, o, locale, style)) mask |= 1 << i })
    if (mask === 0) pattern = null
    zpatterns.__styles = (zpatterns.__styles ?? '') + String.fromCharCode(0x100 + mask)
    let j = pattern === null ? -1 : zpatterns.indexOf(pattern)
    if (pattern !== null && j < 0) { zpatterns.push(pattern); j = zpatterns.length - 1 }
    zpatterns.length < 36 * 36 - 1 || (() => { throw new Error('too many zone patterns') })()
    zpatterns.__index = (zpatterns.__index ?? '') + (j < 0 ? '~~' : j.toString(36).padStart(2, '0'))
  }
  // A date with a time is most often the date's pattern, a glue and the
  // time's (same hour12): stored as `>glue` (`<glue` for the time first).
  const G = grid()
  const key = (o) => JSON.stringify(o)
  const where = new Map(G.map((o, i) => [key(o), i]))
  const patterns = []
  const index = raw.map((pattern, i) => {
    if (pattern === null) return -1
    const o = G[i]
    const dateKeys = ['weekday', 'year', 'month', 'day'].filter((k) => o[k] !== undefined)
    const timeKeys = ['hour', 'minute', 'second'].filter((k) => o[k] !== undefined)
    let stored = pattern
    if (dateKeys.length && timeKeys.length) {
      const pick = (keys, extra) => { const x = {}; for (const k of ['weekday', 'year', 'month', 'day', 'hour', 'minute', 'second']) if (keys.includes(k)) x[k] = o[k]; return Object.assign(x, extra) }
      const dp = raw[where.get(key(pick(dateKeys, {})))]
      const tp = raw[where.get(key(pick(timeKeys, o.hour12 === undefined ? {} : { hour12: o.hour12 })))]
      if (dp && tp && pattern.startsWith(dp) && pattern.endsWith(tp) && pattern.length >= dp.length + tp.length) stored = '>' + pattern.slice(dp.length, pattern.length - tp.length)
      else if (dp && tp && pattern.startsWith(tp) && pattern.endsWith(dp) && pattern.length >= dp.length + tp.length) stored = '<' + pattern.slice(tp.length, pattern.length - dp.length)
    }
    let j = patterns.indexOf(stored)
    if (j < 0) { patterns.push(stored); j = patterns.length - 1 }
    return j
  })
  if (patterns.length >= 36 * 36 - 1) throw new Error(`${locale}: too many patterns`)
  const code = (i) => (i < 0 ? '~~' : i.toString(36).padStart(2, '0'))
  return { lists, patterns, index: index.map(code).join(''), zp: [...zpatterns], zi: zpatterns.__index, zs: zpatterns.__styles, tz: zoneNames(locale), rtf: relative(locale), list: listPatterns(locale), units: unitForms(locale), money: currencyNames(locale) }
}

// `currencyDisplay: "name"` (the table's `money`): per common currency,
// the pattern by plural category (`{0} Euro`, `{0} dollars des États-Unis`),
// one string where the categories agree.
const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'CNY', 'INR', 'BRL', 'MXN', 'KRW', 'SEK', 'NOK', 'DKK', 'PLN', 'RUB', 'NZD', 'SGD', 'HKD', 'TWD', 'CZK', 'TRY', 'ZAR']
function currencyNames (locale) {
  const out = {}
  for (const code of CURRENCIES) {
    const f = new Intl.NumberFormat(locale, { style: 'currency', currency: code, currencyDisplay: 'name' })
    const digits = new Intl.NumberFormat(locale, { minimumFractionDigits: f.resolvedOptions().minimumFractionDigits, maximumFractionDigits: f.resolvedOptions().maximumFractionDigits })
    const byCat = {}
    for (const n of [1, 2, 5, 21, 1.5, 0, 1000000, 3]) {
      const c = new Intl.PluralRules(locale, { minimumFractionDigits: f.resolvedOptions().minimumFractionDigits }).select(n)
      if (byCat[c] !== undefined) continue
      const text = f.format(n), num = digits.format(n)
      if (!text.includes(num)) throw new Error(`${locale} ${code}: ${text}`)
      byCat[c] = text.replace(num, '{0}')
    }
    const values = new Set(Object.values(byCat))
    out[code] = values.size === 1 ? [...values][0] : byCat
  }
  return out
}

// `style: "unit"` (the table's `units`): ECMA-402's simple units and the
// common compounds, as prelude.js's UNIT_LOCAL writes them: per unit
// "short~narrow~long", each one pattern or one per plural category of
// `cats` joined by "|".
const UNITS = ['acre', 'bit', 'byte', 'celsius', 'centimeter', 'day', 'degree', 'fahrenheit', 'fluid-ounce', 'foot', 'gallon', 'gigabit', 'gigabyte', 'gram', 'hectare', 'hour', 'inch', 'kilobit', 'kilobyte', 'kilogram', 'kilometer', 'liter', 'megabit', 'megabyte', 'meter', 'microsecond', 'mile', 'mile-scandinavian', 'milliliter', 'millimeter', 'millisecond', 'minute', 'month', 'nanosecond', 'ounce', 'percent', 'petabyte', 'pound', 'second', 'stone', 'terabit', 'terabyte', 'week', 'yard', 'year',
  'kilometer-per-hour', 'meter-per-second', 'mile-per-hour', 'liter-per-kilometer', 'mile-per-gallon', 'byte-per-second', 'kilobyte-per-second', 'megabyte-per-second', 'gigabyte-per-second', 'kilobit-per-second', 'megabit-per-second']
function unitForms (locale) {
  const pr = new Intl.PluralRules(locale)
  const cats = pr.resolvedOptions().pluralCategories
  const samples = [1, 2, 3, 5, 11, 21, 22, 25, 100, 101, 1000000, 1.5, 0.5, 0]
  const nf = new Intl.NumberFormat(locale)
  const forms = {}
  for (const unit of UNITS) {
    forms[unit] = ['short', 'narrow', 'long'].map((unitDisplay) => {
      const f = new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay })
      const byCat = cats.map((c) => {
        const n = samples.find((x) => pr.select(x) === c)
        if (n === undefined) return null
        const text = f.format(n), num = nf.format(n)
        if (!text.includes(num)) throw new Error(`${locale} ${unit}: ${text}`)
        return text.replace(num, '{0}')
      })
      const known = byCat.filter((x) => x !== null)
      return new Set(known).size === 1 ? known[0] : byCat.map((x) => x ?? known[known.length - 1]).join('|')
    }).join('~')
  }
  return { cats, forms }
}

// `Intl.ListFormat` (the table's `list`): per type and style, the glue of
// two items, and of a longer list's start, middle and end (`A, B und C`);
// a style equal to the one before it is that style's name.
function listPatterns (locale) {
  const out = {}
  const between = (text, a, b) => text.slice(text.indexOf(a) + a.length, text.indexOf(b))
  for (const type of ['conjunction', 'disjunction', 'unit']) {
    out[type] = {}
    for (const style of ['long', 'short', 'narrow']) {
      const f = new Intl.ListFormat(locale, { type, style })
      const two = f.format(['AAA', 'BBB']), four = f.format(['AAA', 'BBB', 'CCC', 'DDD'])
      if (!two.startsWith('AAA') || !two.endsWith('BBB') || !four.startsWith('AAA') || !four.endsWith('DDD')) throw new Error(`${locale} list: ${two} / ${four}`)
      const glue = [between(two, 'AAA', 'BBB'), between(four, 'AAA', 'BBB'), between(four, 'BBB', 'CCC'), between(four, 'CCC', 'DDD')]
      for (const n of [3, 5]) {
        const items = ['AAA', 'BBB', 'CCC', 'DDD', 'EEE'].slice(0, n)
        const mine = items[0] + glue[1] + items.slice(1, -1).join(glue[2]) + glue[3] + items[n - 1]
        if (mine !== f.format(items)) throw new Error(`${locale} list ${type} ${style}: ${mine} / ${f.format(items)}`)
      }
      const before = style === 'short' ? 'long' : style === 'narrow' ? 'short' : null
      out[type][style] = before !== null && JSON.stringify(glue) === JSON.stringify(out[type][before]) ? before : glue
    }
  }
  return out
}

// `Intl.RelativeTimeFormat` (the table's `rtf`): per style and unit, the future and past
// patterns by plural category (`in {0} Tagen`) and `numeric: "auto"`'s
// words for -2..2 (`vorgestern`, `heute`).
function relative (locale) {
  const cats = new Intl.PluralRules(locale).resolvedOptions().pluralCategories
  const pr = new Intl.PluralRules(locale)
  const nf = new Intl.NumberFormat(locale)
  const samples = [0, 1, 2, 3, 5, 11, 21, 22, 25, 100, 101, 1000000, 1.5, 0.5]
  const out = {}
  for (const style of ['long', 'short', 'narrow']) {
    out[style] = {}
    for (const unit of ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second']) {
      const f = new Intl.RelativeTimeFormat(locale, { style })
      const auto = new Intl.RelativeTimeFormat(locale, { style, numeric: 'auto' })
      const entry = { future: {}, past: {}, auto: {} }
      for (const c of cats) {
        const n = samples.find((x) => pr.select(x) === c)
        if (n === undefined) continue
        const num = nf.format(n)
        for (const [k, v] of [['future', n], ['past', -n]]) {
          const text = f.format(v, unit)
          if (!text.includes(num)) throw new Error(`${locale} ${unit}: ${text}`)
          entry[k][c] = text.replace(num, '{0}')
        }
      }
      for (const v of [-2, -1, 0, 1, 2]) {
        const text = auto.format(v, unit)
        if (!/\d/.test(text)) entry.auto[v] = text
      }
      // One pattern for every category is the string; a style equal to the
      // one before it is that style's name.
      for (const k of ['future', 'past']) if (new Set(Object.values(entry[k])).size === 1) entry[k] = Object.values(entry[k])[0]
      out[style][unit] = entry
    }
    const before = style === 'short' ? 'long' : style === 'narrow' ? 'short' : null
    if (before !== null && JSON.stringify(out[style]) === JSON.stringify(out[before])) out[style] = before
  }
  return out
}

// The runtime's rendering (prelude.js's `renderDatePattern`), to check a pattern.
function render (pattern, d, lists, zone) {
  const Y = d.getUTCFullYear(), Mo = d.getUTCMonth(), Da = d.getUTCDate(), W = d.getUTCDay(), h = d.getUTCHours(), mi = d.getUTCMinutes(), s = d.getUTCSeconds()
  const p2 = (n) => String(n).padStart(2, '0')
  return pattern.replace(/\{([a-zA-Z]+)(?::(\d+))?\}/g, (_, t, k) => {
    switch (t) {
      case 'y': return String(Y)
      case 'yy': return p2(Y % 100)
      case 'M': return k === undefined ? String(Mo + 1) : lists[+k][Mo]
      case 'MM': return p2(Mo + 1)
      case 'd': return String(Da)
      case 'dd': return p2(Da)
      case 'E': return lists[+k][W]
      case 'a': return lists[+k][h]
      case 'H': return String(h)
      case 'HH': return p2(h)
      case 'h': return String((h + 11) % 12 + 1)
      case 'hh': return p2((h + 11) % 12 + 1)
      case 'K': return String(h % 12)
      case 'KK': return p2(h % 12)
      case 'k': return String(h === 0 ? 24 : h)
      case 'kk': return p2(h === 0 ? 24 : h)
      case 'm': return String(mi)
      case 'mm': return p2(mi)
      case 's': return String(s)
      case 'ss': return p2(s)
      case 'z': return zone
      default: return '?'
    }
  })
}

// Zone names (the table's `tz`): `n`, per English long name (tz_data.js's
// type, `zone|name` where two zones differ), the locale's short and long
// names ("" for the GMT form); `g`, per zone, the generic short and long
// names; `utc`, UTC's short and long; `off`, the GMT form's prefix and
// minus sign (`UTC−5` in French).
globalThis.__hwf_tz = undefined
await import(new URL('../harnesses/js-runtime/src/tz_data.js', import.meta.url))
const TZD = globalThis.__hwf_tz
const ZONE_SAMPLES = []
for (let y = 1970; y <= 2037; y++) for (const m of [0, 3, 6, 9]) ZONE_SAMPLES.push(Date.UTC(y, m, 15, 12))
const partOf = (f, t, type) => f.formatToParts(t).find((p) => p.type === type)?.value
const tzCache = new Map()
function zoneNames (locale) {
  if (tzCache.has(locale)) return tzCache.get(locale)
  const fmt = (zone, style, l = locale) => new Intl.DateTimeFormat(l, { timeZone: zone, timeZoneName: style })
  const gmtEn = (t, zone) => partOf(fmt(zone, 'longOffset', 'en-US'), t, 'timeZoneName')
  const off0 = partOf(fmt('Etc/GMT+5', 'shortOffset'), 0, 'timeZoneName')
  const m = /^(.*?)(.)5$/.exec(off0)
  const off = [m[1], m[2]]
  const gmtLocal = (name) => name.replace(/^GMT/, off[0]).replace('-', off[1])
  const n = {}, g = {}
  for (const zone of Object.keys(TZD.zones)) {
    const en = fmt(zone, 'long', 'en-US'), s = fmt(zone, 'short'), l = fmt(zone, 'long'), sg = fmt(zone, 'shortGeneric'), lg = fmt(zone, 'longGeneric'), so = fmt(zone, 'shortOffset')
    for (const t of ZONE_SAMPLES) {
      const key = partOf(en, t, 'timeZoneName')
      if (/^GMT/.test(key)) continue
      const short = partOf(s, t, 'timeZoneName'), long = partOf(l, t, 'timeZoneName'), gmt = partOf(so, t, 'timeZoneName')
      const v = [short === gmt ? '' : short, long === gmtLocal(gmtEn(t, zone)) ? '' : long]
      const prev = n[key]
      if (prev === undefined) n[key] = v
      else if (JSON.stringify(prev) !== JSON.stringify(v)) n[`${zone}|${key}`] = v
    }
    const t = Date.UTC(2024, 0, 15)
    const gs = partOf(sg, t, 'timeZoneName'), gl = partOf(lg, t, 'timeZoneName'), gmt = partOf(so, t, 'timeZoneName')
    g[zone] = [gs === gmt ? '' : gs, gl === gmtLocal(gmtEn(t, zone)) ? '' : gl]
  }
  const out = { n, g, utc: [partOf(fmt('UTC', 'short'), 0, 'timeZoneName'), partOf(fmt('UTC', 'long'), 0, 'timeZoneName')], off }
  tzCache.set(locale, out)
  return out
}
// The name as the runtime writes it (prelude.js's `zoneText`), from the table.
function zoneNameOf (locale, zone, t, style) {
  const T = zoneNames(locale)
  if (zone === 'UTC' && style === 'short') return T.utc[0]
  if (zone === 'UTC' && style === 'long') return T.utc[1]
  const en = partOf(new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }), t, 'timeZoneName')
  const long = (en === 'GMT' ? 'GMT+00:00' : en).replace(/^GMT/, T.off[0]).replace('-', T.off[1])
  const short = long.replace(/([+\u2212-])0?(\d+)(?::00)?/, '$1$2')
  if (style === 'longOffset') return long
  if (style === 'shortOffset') return short
  const key = partOf(new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'long' }), t, 'timeZoneName')
  const v = T.n[`${zone}|${key}`] ?? T.n[key]
  if (style === 'short') return (v && v[0]) || short
  if (style === 'long') return (v && v[1]) || long
  const gv = T.g[zone]
  if (style === 'shortGeneric') return (gv && gv[0]) || short
  return (gv && gv[1]) || long
}
const nameMisses = new Set()
const CHECK_ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Sydney', 'America/Sao_Paulo']
// Every zone name style in a few zones, on dates across the year.
function checkZones (pattern, lists, o, locale, only) {
  const styles = o.timeStyle !== undefined ? [o.timeStyle === 'full' ? 'long' : 'short'] : only !== undefined ? [only] : ['short', 'long', 'shortOffset', 'longOffset', 'shortGeneric', 'longGeneric']
  for (const zone of CHECK_ZONES) for (const style of styles) {
    const f = new Intl.DateTimeFormat(locale, { ...o, ...(o.timeStyle !== undefined ? {} : { timeZoneName: style }), timeZone: zone })
    const off = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    for (const d of [CHECKS[0], CHECKS[6], CHECKS[20], CHECKS[37]]) {
      const m = /GMT(?:([+-])(\d\d):(\d\d))?/.exec(partOf(off, d, 'timeZoneName'))
      const mins = m[1] === undefined ? 0 : (m[1] === '-' ? -1 : 1) * (+m[2] * 60 + +m[3])
      const wall = new Date(d.getTime() + mins * 60000)
      const want = f.format(d)
      // The pattern is checked with Node's name; the table's names are
      // counted where they differ (a generic name of a zone whose rules
      // changed, as São Paulo's in 1999, is the one of 2024).
      if (render(pattern, wall, lists, partOf(f, d, 'timeZoneName')) !== want) return false
      if (render(pattern, wall, lists, zoneNameOf(locale, zone, d.getTime(), style)) !== want) nameMisses.add(`${locale} ${zone} ${style} ${d.getUTCFullYear()}`)
    }
  }
  return true
}

const table = {}
for (const l of LOCALES) {
  const t = build(l)
  // A region with its language's patterns is an alias (`"de-AT": "de"`).
  // Each locale is JSON text the runtime parses when a script first uses
  // that locale (a string literal costs little to read; the objects would).
  const text = JSON.stringify(t)
  const same = Object.keys(table).find((k) => table[k] === text)
  table[l] = same === undefined ? text : `=${same}`
}
if (nameMisses.size) console.error(`zone names not as Node's: ${[...nameMisses].join('; ')}`)
const out = process.argv[2] ?? new URL('../harnesses/js-runtime/src/date_patterns.js', import.meta.url)
writeFileSync(out, `// Generated by scripts/gen-date-patterns.mjs from Node ${process.version} (ICU ${process.versions.icu}): do not edit.
// Per locale: lists (month, weekday and day-period names), patterns (">glue": the date's pattern,
// the glue, the time's; "<glue": the time first), and index: two base-36 characters per grid
// entry (prelude.js's DATE_GRID order), "~~" where the runtime falls back. Each locale is JSON
// text ("=de": an alias), parsed on its first use.
globalThis.__hwf_date_patterns = ${JSON.stringify(table)};
`)
