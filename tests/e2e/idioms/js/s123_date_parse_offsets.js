export const meta = { name: 'date-parse-offsets', description: 'Date.parse of timestamps with UTC offsets as agents write them: the ISO forms V8 takes or rejects (+01 is NaN after a T), and the free forms with offsets after a time or GMT' }
const res = await agent('When did each incident start?', { label: 'incidents' })
// Sort the incidents by start; a timestamp that does not parse is reported.
const parsed = res.incidents.map((i) => ({ id: i.id, at: Date.parse(i.start) }))
const bad = parsed.filter((p) => Number.isNaN(p.at)).map((p) => p.id)
const order = parsed.filter((p) => !Number.isNaN(p.at)).sort((a, b) => a.at - b.at).map((p) => p.id)
log(`unparseable: ${bad.join(', ')}`)
const base = ['2024-03-08T10:00:00', '2024-03-08T10:00', '2024-03-08T10:00:00.123', '2024-03-08 10:00:00', '2024-03-08 10:00', '2024-03-08', '2024-03', '2024', 'Mar 8 2024 10:00', '2024/03/08 10:00:00', '2024-03-08T10']
const offs = ['+01', '-05', '+1', '-5', '+0100', '+01:00', '+01:0', '+1:00', '+100', '+01000', '+010000', 'Z', 'z', ' +01', ' +0100', ' +01:00', ' GMT+01', ' GMT+0100', ' GMT+1', 'GMT+01:00', ' UTC+01', '+23:59', ' Z', ' EST', ' CEST']
const forms = []
for (const b of base) for (const o of offs) {
  const s = b + o
  // V8's legacy parser takes GMT+hh:mm glued to a time as NaN; hwf reads it
  if (o === 'GMT+01:00' && /\d:\d\d$/.test(b)) continue
  forms.push(`${s} => ${Date.parse(s)}`)
}
return { bad, order, forms }
