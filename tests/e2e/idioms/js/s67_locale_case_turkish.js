export const meta = { name: 'locale-case-turkish', description: "toLocaleUpperCase / toLocaleLowerCase with Turkish and Azerbaijani dotted and dotless i" }
const words = ['istanbul', 'Iğdır', 'İzmir', 'DİYARBAKIR', 'ılık', 'kIşI', 'I\u0307', 'Straße', 'ǆemal', 'title case']
const up = (locale) => words.map((w) => w.toLocaleUpperCase(locale))
const down = (locale) => words.map((w) => w.toLocaleLowerCase(locale))
const errors = []
for (const bad of ['', 'not a locale!', 'x_']) {
  try { 'i'.toLocaleUpperCase(bad); errors.push('ok') } catch (e) { errors.push(`${e.name}: ${e.message}`) }
}
let nullReceiver
try { String.prototype.toLocaleLowerCase.call(null) } catch (e) { nullReceiver = `${e.name}: ${e.message}` }
return {
  tr: up('tr'), trTR: up('tr-TR'), az: up(['az', 'en']), en: up('en-US'), none: up(), empty: up([]),
  trLower: down('tr'), azLower: down('az-Latn-AZ'), enLower: down('en'), deLower: down('de'),
  errors, nullReceiver,
  fn: [String.prototype.toLocaleUpperCase.name, String.prototype.toLocaleLowerCase.length],
}
