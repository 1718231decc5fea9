export const meta = { name: 'regional-money-compact', description: 'Costs per team in Swiss, Austrian and Canadian French forms, compact figures in Japanese, Chinese, Korean and Indian English, long compact words and compact money' }
const res = await agent('Costs by team', { label: 'costs' })
const total = res.rows.reduce((a, r) => a + r.amount, 0)
const report = {}
for (const [loc, cur] of [['de-CH', 'CHF'], ['de-AT', 'EUR'], ['fr-CA', 'CAD'], ['it-CH', 'EUR'], ['de-LI', 'CHF']]) {
  const money = new Intl.NumberFormat(loc, { style: 'currency', currency: cur })
  const pct = new Intl.NumberFormat(loc, { style: 'percent', minimumFractionDigits: 1 })
  report[loc] = res.rows.map((r) => `${r.team}: ${money.format(r.amount)} (${pct.format(r.amount / total)}) ${r.amount.toLocaleString(loc)}`)
  report[loc].push(`${money.format(-total)} / ${(-total).toLocaleString(loc, { style: 'currency', currency: 'EUR', currencyDisplay: 'code' })} / ${(1234.5).toLocaleString(loc, { style: 'currency', currency: 'USD' })}`)
}
const figures = [0, 999, 1234, 12345, 123456.7, 1234567, 98765432, 2.5e9, 7.77e12, -15300]
const compact = {}
for (const loc of ['ja-JP', 'zh-CN', 'zh-TW', 'ko-KR', 'en-IN']) compact[loc] = figures.map((n) => new Intl.NumberFormat(loc, { notation: 'compact' }).format(n)).join(' ')
for (const loc of ['de-DE', 'es-ES', 'pt-BR', 'nl-NL', 'fr-FR']) compact[`${loc} long`] = figures.map((n) => new Intl.NumberFormat(loc, { notation: 'compact', compactDisplay: 'long' }).format(n)).join(' | ')
for (const loc of ['en-US', 'de-DE', 'nl-NL', 'ja-JP', 'de-CH']) compact[`${loc} money`] = figures.map((n) => new Intl.NumberFormat(loc, { notation: 'compact', style: 'currency', currency: 'EUR' }).format(n)).join(' | ')
log(report['de-CH'].at(-1))
return { report, compact }
