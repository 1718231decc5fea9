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
        default: ok = false; return ''
      }
    })
    let pattern = ok ? tokens.join('') : null
    if (pattern !== null) {
      for (const d of CHECKS) {
        if (render(pattern, d, lists) !== f.formatToParts(d).map((p) => p.value).join('')) { pattern = null; break }
      }
    }
    raw.push(pattern)
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
  return { lists, patterns, index: index.map(code).join(''), rtf: relative(locale), list: listPatterns(locale), units: unitForms(locale), money: currencyNames(locale) }
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
function render (pattern, d, lists) {
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
      default: return '?'
    }
  })
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
const out = process.argv[2] ?? new URL('../harnesses/js-runtime/src/date_patterns.js', import.meta.url)
writeFileSync(out, `// Generated by scripts/gen-date-patterns.mjs from Node ${process.version} (ICU ${process.versions.icu}): do not edit.
// Per locale: lists (month, weekday and day-period names), patterns (">glue": the date's pattern,
// the glue, the time's; "<glue": the time first), and index: two base-36 characters per grid
// entry (prelude.js's DATE_GRID order), "~~" where the runtime falls back. Each locale is JSON
// text ("=de": an alias), parsed on its first use.
globalThis.__hwf_date_patterns = ${JSON.stringify(table)};
`)
