export const meta = { name: 'collator-options-scientific', description: "Sort contributors with caseFirst and ignorePunctuation, refuse a malformed locale, write tiny costs in scientific notation with significant digits" }
const res = await agent('List the contributors and the per-token costs', { label: 'people' })
const upper = new Intl.Collator('en', { caseFirst: 'upper' })
const loose = new Intl.Collator('en', { ignorePunctuation: true, sensitivity: 'base' })
const byName = res.names.toSorted(upper.compare)
const byHandle = res.handles.toSorted((a, b) => a.localeCompare(b, 'en', { ignorePunctuation: true }))
// Handles equal once punctuation and case are ignored are one person.
const people = []
for (const h of byHandle) if (!people.some((p) => loose.compare(p, h) === 0)) people.push(h)
const checks = []
for (const locale of ['en-US', 'en_US', 'bad locale!', 'de-DE-u-co-phonebk', 'x-private', ['en', 'fr-CA'], ['en', 42]]) {
  try { checks.push(`${JSON.stringify(locale)}: ${'a'.localeCompare('B', locale)}`) } catch (e) { checks.push(`${JSON.stringify(locale)}: ${e.name}: ${e.message}`) }
}
try { new Intl.Collator('en', { caseFirst: 'first' }) } catch (e) { checks.push(`${e.name}: ${e.message}`) }
const sci = new Intl.NumberFormat('en', { notation: 'scientific', maximumSignificantDigits: 3 })
const eng = new Intl.NumberFormat('en', { notation: 'engineering', minimumSignificantDigits: 2, maximumSignificantDigits: 4 })
const costs = Object.entries(res.costs).map(([model, c]) => `${model}: ${sci.format(c)} / ${eng.format(c * 1e6)} per M`)
const parts = sci.formatToParts(-0.000123456).map((p) => `${p.type}:${p.value}`)
log(`${people.length} people from ${res.handles.length} handles`)
return { byName, byHandle, people, checks, costs, parts, zero: sci.format(0), carry: new Intl.NumberFormat('en', { notation: 'scientific', maximumSignificantDigits: 2 }).format(999), options: [upper.resolvedOptions(), loose.resolvedOptions()] }
