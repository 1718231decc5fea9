export const meta = { name: 'intl-plurals-lists', description: "PluralRules for en / fr / ar / ru / pl / pt / es / it with resolvedOptions, ListFormat without the serial comma outside the US" }
const counts = [0, 1, 2, 3, 5, 11, 12, 21, 22, 25, 100, 101, 102, 111, 1000000, 2000000, 1.5, 0.5, 1.0, '1', -1, -2, 1.25, 8, 80, 800]
const rules = {}
for (const locale of ['en-US', 'en', 'fr-FR', 'de', 'ar', 'ru', 'uk', 'ja', 'pt-BR', 'pt-PT', 'es', 'it', 'pl', 'zh-CN', 'nl', 'tr', undefined]) {
  for (const type of ['cardinal', 'ordinal']) {
    const pr = new Intl.PluralRules(locale, { type })
    rules[`${locale}/${type}`] = { select: counts.map((n) => pr.select(n)), resolved: pr.resolvedOptions() }
  }
}
const fraction = [[{ minimumFractionDigits: 1 }, 1], [{ maximumFractionDigits: 0 }, 1.4], [{ maximumFractionDigits: 0 }, 0.6], [{ minimumFractionDigits: 2 }, 1]]
  .map(([o, n]) => [new Intl.PluralRules('en', o).select(n), new Intl.PluralRules('en', o).resolvedOptions()])
const files = (n) => `${n} ${new Intl.PluralRules('en-US').select(n) === 'one' ? 'file' : 'files'} changed`
const reviewers = ['Ana', 'Bo', 'Cy']
const lists = ['en-GB', 'en-AU', 'en-CA', 'en', 'en-US'].map((locale) => ({
  locale,
  forms: [reviewers, reviewers.slice(0, 2), reviewers.slice(0, 1)].map((xs) =>
    ['long', 'short'].map((style) => ['conjunction', 'disjunction', 'unit'].map((type) => new Intl.ListFormat(locale, { style, type }).format(xs)))),
  resolved: new Intl.ListFormat(locale, { type: 'disjunction' }).resolvedOptions(),
}))
return { rules, fraction, summary: [0, 1, 2].map(files), lists }
