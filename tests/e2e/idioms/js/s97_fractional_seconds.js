export const meta = { name: 'log-timestamps-fractional', description: 'Timestamped log lines with milliseconds: fractionalSecondDigits in toLocaleTimeString and Intl.DateTimeFormat, minutes and seconds without an hour' }
const events = (await agent('events', { label: 'ev', schema: { type: 'object', properties: { e: { type: 'array' } }, required: ['e'] } })).e
const opts = [{ hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3, hour12: false }, { minute: 'numeric', second: 'numeric', fractionalSecondDigits: 3 }, { minute: '2-digit', fractionalSecondDigits: 2 }, { second: 'numeric', fractionalSecondDigits: 1 }, { hour: 'numeric', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 2 }, { fractionalSecondDigits: 3 }, { minute: 'numeric', second: 'numeric' }]
const lines = events.map((e) => { const d = new Date(e.at); return `[${d.toLocaleTimeString('en-US', opts[0])}] ${e.msg}` })
const grid = ['en-US', 'en-GB'].flatMap((l) => opts.map((o) => { const f = new Intl.DateTimeFormat(l, { ...o, timeZone: 'UTC' }); const d = new Date(events[0].at); return `${l} ${f.format(d)} ${f.formatToParts(d).map((p) => p.type[0] + p.value).join('')}` }))
let err
try { new Intl.DateTimeFormat('en', { fractionalSecondDigits: 4 }) } catch (e) { err = `${e.name}: ${e.message}` }
lines.forEach((l) => log(l))
return { lines, grid, err, time: new Date(events[1].at).toLocaleTimeString('en-US', { fractionalSecondDigits: 3 }), iso: events.map((e) => new Date(e.at).toISOString().slice(11, 23)) }
