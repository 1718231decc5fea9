export const meta = {
  name: 'judge-panel',
  description: 'Score design proposals with a panel of judges, using Promise.all and a soft timeout',
  phases: [{ title: 'Judge' }, { title: 'Decide' }],
}
const SCORE = { type: 'object', properties: { score: { type: 'number' }, rationale: { type: 'string' } }, required: ['score'] }
const proposals = args.proposals
const judges = ['pragmatist', 'security', 'performance']
const timeout = (ms, label) => new Promise(resolve => setTimeout(() => resolve({ timedOut: label }), ms))

const panel = await Promise.all(proposals.map(async (p, pi) => {
  const votes = await Promise.allSettled(judges.map(j => Promise.race([
    agent(`As the ${j} judge, score proposal "${p.title}" 0-10`, { label: `judge:${pi}:${j}`, phase: 'Judge', schema: SCORE }),
    timeout(60_000, `${j}@${pi}`),
  ])))
  const scores = votes.map(v => (v.status === 'fulfilled' && v.value && typeof v.value.score === 'number' ? v.value.score : NaN))
  const valid = scores.filter(s => !Number.isNaN(s))
  const mean = valid.length ? valid.reduce((a, b) => a + b, 0) / valid.length : NaN
  const spread = valid.length ? Math.max(...valid) - Math.min(...valid) : -0
  return { title: p.title, scores, mean, spread, missing: judges.filter((_, i) => Number.isNaN(scores[i])) }
}))

const ranked = panel.filter(p => Number.isFinite(p.mean)).sort((a, b) => b.mean - a.mean || a.spread - b.spread)
const contested = panel.filter(p => p.spread >= 4).map(p => p.title)
log(`ranked ${ranked.length}/${panel.length}; contested: ${contested.join(', ') || 'none'}`)
const decision = ranked.length
  ? await agent(`Pick the winner among: ${ranked.map(r => `${r.title} (${r.mean.toFixed(2)})`).join(', ')}`, { label: 'decide', phase: 'Decide' })
  : undefined
return {
  winner: ranked[0]?.title ?? null,
  panel,
  contested,
  decision,
  stats: { best: ranked[0]?.mean, worst: ranked.at(-1)?.mean, ratio: ranked.length ? ranked[0].mean / 0 : null, neg: -0, big: 2 ** 64, tiny: 1e-7 },
  pretty: JSON.stringify(ranked.map(r => [r.title, +r.mean.toFixed(1)]), null, 2),
}
