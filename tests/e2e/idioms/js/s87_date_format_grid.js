export const meta = { name: 'date-format-grid', description: 'Meeting times for US and UK attendees across the component options' }
const slots = await agent('List the meeting slots as ISO timestamps', { label: 'slots' })
const when = slots.map((s) => Date.parse(s))
const lines = []
for (const locale of ['en-US', 'en-GB']) for (const weekday of [undefined, 'short']) for (const month of [undefined, 'numeric', 'short', 'long']) for (const day of [undefined, 'numeric', '2-digit'])
  for (const year of [undefined, 'numeric']) for (const hour of [undefined, 'numeric']) for (const minute of [undefined, '2-digit', 'numeric']) for (const second of [undefined, '2-digit']) for (const timeZoneName of [undefined, 'short']) {
    if ((minute && !hour) || (second && !minute) || ((day || year) && !month) || (weekday && month && !day)) continue
    // (V8 writes en-GB's bare hour with a zone `00h UTC`, JavaScriptCore `00 UTC`)
    if (locale === 'en-GB' && hour && !minute && timeZoneName) continue
    const options = Object.fromEntries(Object.entries({ weekday, year, month, day, hour, minute, second, timeZoneName }).filter(([, v]) => v !== undefined))
    if (Object.keys(options).length === 0) continue
    const f = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', ...options })
    lines.push(`${locale} ${Object.entries(options).map(([k, v]) => `${k}=${v}`).join(',')}: ${when.map(f.format).join(' | ')}`)
  }
log(`${lines.length} formats`)
return lines
