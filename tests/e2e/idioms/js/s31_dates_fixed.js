export const meta = { name: 'dates-fixed', description: 'Date arithmetic on timestamps passed in args' }
const start = new Date(args.start)
const end = new Date(args.end)
const DAY = 24 * 60 * 60 * 1000
const days = Math.round((end - start) / DAY)
const addDays = (d, n) => { const x = new Date(d); x.setUTCDate(x.getUTCDate() + n); return x }
const weekdays = Array.from({ length: 7 }, (_, i) => addDays(start, i)).map(d => ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()])
const endOfMonth = new Date(Date.UTC(2024, 1 + 1, 0))
const rollover = new Date(Date.UTC(2023, 11, 31, 23, 59, 59, 999) + 1)
const iso = (d) => d.toISOString().slice(0, 10)
const businessDays = (() => { let n = 0; for (let d = new Date(start); d < end; d = addDays(d, 1)) if (d.getUTCDay() % 6 !== 0) n++; return n })()
const parsed = [Date.parse('2024-03-10'), Date.parse('2024-03-10T12:00:00Z'), Date.parse('2024-03-10T12:00:00+02:00'), Date.parse('not a date')]
const invalid = new Date('garbage')
const d = new Date('2024-07-04T15:30:45.123Z')
return {
  days, weekdays, endOfMonth: iso(endOfMonth), rollover: rollover.toISOString(), businessDays, parsed,
  invalid: [isNaN(invalid), String(invalid), invalid.getTime(), JSON.stringify({ invalid })],
  parts: [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds(), d.getTimezoneOffset()],
  local: [d.getFullYear(), d.getHours(), d.getDay()],
  strings: [d.toISOString(), d.toJSON(), d.toUTCString(), d.toDateString(), d.toString(), d.toTimeString(), String(d.valueOf())],
  localeStrings: [d.toLocaleDateString('en-US'), d.toLocaleTimeString('en-US'), d.toLocaleString('en-US'), d.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric' }), d.toLocaleDateString('en-GB'), d.toLocaleDateString(undefined, { weekday: 'short' })],
  arithmetic: [new Date(d.getTime() + 90 * 60000).toISOString(), +new Date(0), new Date(2024, 0, 31).getMonth(), new Date(Date.UTC(2024, 0, 31) + DAY * 30).toISOString().slice(0, 10)],
  compare: [start < end, start.getTime() === new Date(args.start).getTime(), [end, start].sort((a, b) => a - b).map(iso)],
  age: Math.floor((end - new Date('1990-05-15')) / (365.25 * DAY)),
  ymd: `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`,
  utcParts: Date.UTC(2024, 1, 29, 12),
  setters: (() => { const x = new Date(0); x.setUTCFullYear(2025, 5, 15); x.setUTCHours(25); return x.toISOString() })(),
}
