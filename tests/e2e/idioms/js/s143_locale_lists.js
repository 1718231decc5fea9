export const meta = { name: 'locale-lists', description: 'a list of locales formats numbers in the first tag with data, as V8' }
return {
  a: new Intl.NumberFormat(['xx-YY', 'de']).format(1234.5),
  b: (1234.5).toLocaleString(['tlh', 'fr']),
  c: new Intl.NumberFormat(['xx-YY', 'de']).resolvedOptions().locale,
  d: (1234.5).toLocaleString(['de', 'en']),
  e: (1234.5).toLocaleString(['xx', 'yy']),
  f: new Intl.NumberFormat(['xx-YY', 'de'], { style: 'currency', currency: 'EUR' }).format(1234.5),
}
