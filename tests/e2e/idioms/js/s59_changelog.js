export const meta = {
  name: 'changelog',
  description: 'Group commits by type, compute the next version, let an agent polish each section',
  phases: [{ title: 'Parse' }, { title: 'Polish' }],
}
const { commits, current } = args
const RE = /^(?<type>\w+)(?:\((?<scope>[^)]+)\))?(?<bang>!)?: (?<subject>.+?)(?: \(#(?<pr>\d+)\))?$/
const parsed = commits.map((line) => {
  const [sha, ...rest] = line.split(' ')
  const msg = rest.join(' ')
  const m = msg.match(RE)
  return m ? { sha: sha.slice(0, 7), ...m.groups, breaking: Boolean(m.groups.bang) || /BREAKING CHANGE/.test(msg) } : { sha: sha.slice(0, 7), type: 'other', subject: msg, breaking: false }
})
const TITLES = { feat: 'Features', fix: 'Bug fixes', perf: 'Performance', docs: 'Documentation', other: 'Other' }
const groups = new Map()
for (const c of parsed) {
  const key = TITLES[c.type] ? c.type : 'other'
  if (!groups.has(key)) groups.set(key, [])
  groups.get(key).push(c)
}
const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true })
for (const list of groups.values()) list.sort((a, b) => collator.compare(a.scope ?? '', b.scope ?? '') || collator.compare(a.subject, b.subject))
const [maj, min, pat] = current.split('.').map(Number)
const next = parsed.some((c) => c.breaking) ? `${maj + 1}.0.0` : groups.has('feat') ? `${maj}.${min + 1}.0` : `${maj}.${min}.${pat + 1}`
phase('Polish')
const order = ['feat', 'fix', 'perf', 'docs', 'other'].filter((k) => groups.has(k))
const sections = await parallel(order.map((k) => () => {
  const lines = groups.get(k).map((c) => `- ${c.scope ? `**${c.scope}:** ` : ''}${c.subject}${c.pr ? ` (#${c.pr})` : ''} (${c.sha})`)
  return agent(`Polish this changelog section "${TITLES[k]}":\n${lines.join('\n')}`, { label: `polish:${k}` })
    .then((text) => `### ${TITLES[k]}\n\n${text ?? lines.join('\n')}`)
}))
const breaking = parsed.filter((c) => c.breaking).map((c) => `- ${c.subject}`)
const md = [`## ${next}`, '', ...(breaking.length ? ['### ⚠ Breaking', '', ...breaking, ''] : []), sections.join('\n\n')].join('\n')
return { next, counts: Object.fromEntries([...groups].map(([k, v]) => [k, v.length])), md, scopes: [...new Set(parsed.map((c) => c.scope).filter(Boolean))].sort(collator.compare) }
