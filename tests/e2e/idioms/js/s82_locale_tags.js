export const meta = { name: 'locale-tags', description: 'Format totals for the locales a config names, skipping the malformed ones' }
const configured = ['en-US', 'de', 'EN-gb', 'en_US', 'x-private', '', 'en-US-u-nu-latn', ['de', 'en'], 5, null]
const rows = configured.map((tag) => {
  try {
    return { tag, text: (1234567.891).toLocaleString(tag), big: (12345678901234567890n).toLocaleString(tag) }
  } catch (e) {
    return { tag, error: `${e.name}: ${e.message}` }
  }
})
const nf = (() => { try { return new Intl.NumberFormat('en_GB').format(1) } catch (e) { return `${e.name}: ${e.message}` } })()
return { rows, nf }
