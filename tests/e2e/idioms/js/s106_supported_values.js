export const meta = { name: 'supported-values', description: 'Intl.supportedValuesOf as a script checks an option before using it: units, the Gregorian calendar, Latin digits, common currencies and time zones, the error for an unknown key' }
const t = (f) => { try { return f() } catch (e) { return `${e.name}: ${e.message}` } }
const units = Intl.supportedValuesOf('unit')
const pick = (key, wanted) => wanted.map((w) => Intl.supportedValuesOf(key).includes(w))
return {
  type: typeof Intl.supportedValuesOf, units, sortedUnits: units.join() === [...units].sort().join(),
  calendar: pick('calendar', ['gregory']), digits: pick('numberingSystem', ['latn']),
  currency: pick('currency', ['EUR', 'USD', 'JPY', 'GBP', 'CHF', 'INR', 'BRL']),
  zones: pick('timeZone', ['America/New_York', 'Europe/Berlin', 'Asia/Tokyo', 'Australia/Sydney', 'Europe/London', 'America/Los_Angeles']),
  fresh: Intl.supportedValuesOf('unit') !== units,
  errors: [t(() => Intl.supportedValuesOf('units')), t(() => Intl.supportedValuesOf()), t(() => Intl.supportedValuesOf('Calendar'))],
  usable: units.filter((u) => u.endsWith('byte')).map((u) => (1.5).toLocaleString('en-US', { style: 'unit', unit: u })),
}
