export const meta = { name: 'dates', description: 'Date handling with explicit timestamps' }
const start = new Date(args.startedAt)
const d = new Date(Date.UTC(2024, 0, 31, 23, 59, 30))
const addDays = (dt, n) => new Date(dt.getTime() + n * 86400000)
const plusMonth = new Date(d)
plusMonth.setUTCMonth(plusMonth.getUTCMonth() + 1)
const iso = ['2024-03-10', '2024-03-10T12:00:00Z', '2024-03-10T12:00:00.123+02:00', '2024-03-10T12:00', 'March 7, 2024 10:00 UTC', '2024/03/10', 'nonsense',
  'Thu, 07 Mar 2024 10:00:00 +0000', '7 Mar 2024', 'Mar 7 2024 3:30 PM', '2024-03-10 12:00', 'Mon Mar 11 2024 09:00:00 GMT+0100 (Central European Standard Time)',
  '12/25/2024', '2024/3/5 14:05:09', 'Sat, 01 Jun 2024 00:00:00 GMT', 'June 1, 2024 12:00 AM', '1 January 99', 'Jan 15, 2024, 08:30:00 EST', '2024.03.10', 'Tuesday, March 5, 2024']
return {
  start: start.toISOString(), startParts: [start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate(), start.getUTCDay(), start.getUTCHours()],
  utc: d.toISOString(), ms: d.getTime(), valueOf: +d, json: JSON.stringify({ d }),
  addDays: addDays(d, 1).toISOString(), plusMonth: plusMonth.toISOString(), leap: new Date(Date.UTC(2024, 1, 29)).toISOString(),
  overflow: new Date(Date.UTC(2023, 13, 35)).toISOString(), negative: new Date(-1).toISOString(), epoch: new Date(0).toISOString(),
  parsed: iso.map(s => { const t = Date.parse(s); return Number.isNaN(t) ? null : new Date(t).toISOString() }),
  invalid: [String(new Date(NaN)), new Date('x').getTime(), (() => { try { return new Date(NaN).toISOString() } catch (e) { return e.name } })()],
  utcString: d.toUTCString(),
  diffDays: Math.round((new Date('2024-12-25T00:00:00Z') - new Date('2024-03-10T00:00:00Z')) / 86400000),
  sorted: ['2024-05-01T00:00:00Z', '2023-12-31T23:59:59Z', '2024-01-15T08:00:00Z'].map(s => new Date(s)).sort((a, b) => a - b).map(x => x.toISOString().slice(0, 10)),
  compare: [new Date(5) < new Date(6), new Date(5).getTime() === new Date(5).getTime(), new Date(5) == new Date(5)],
  weekday: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][new Date('2024-07-04T00:00:00Z').getUTCDay()],
  fromParts: new Date(Date.UTC(2000, 0, 1, 0, 0, 0, 5)).toISOString(), year2: Date.UTC(99, 0), big: new Date(8.64e15).toISOString(), tooBig: String(new Date(8.64e15 + 1).getTime()),
  setters: (() => { const x = new Date(0); x.setUTCFullYear(2030, 5, 15); x.setUTCHours(25); return x.toISOString() })(),
  age: Math.floor((Date.UTC(2024, 5, 1) - Date.UTC(1990, 6, 15)) / (365.25 * 86400000)),
  nowThrows: (() => { try { Date.now(); return 'no' } catch (e) { return 'threw' } })(),
}
