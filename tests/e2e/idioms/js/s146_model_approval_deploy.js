export const meta = {
  name: 'approval-gated-deploy',
  description: 'Plan a deploy, get approval from a reviewer agent, roll out region by region with canary checks',
  phases: [{ title: 'Plan' }, { title: 'Approve' }, { title: 'Rollout' }, { title: 'Report' }],
}
class GateError extends Error {
  constructor(gate, reason) { super(`${gate} gate refused: ${reason}`); this.name = 'GateError'; this.gate = gate }
}
const APPROVAL = { type: 'object', properties: { approved: { type: 'boolean' }, reason: { type: 'string' }, conditions: { type: 'array', items: { type: 'string' } } }, required: ['approved', 'reason'] }
const HEALTH = { type: 'object', properties: { errorRate: { type: 'number' }, p99ms: { type: 'number' } }, required: ['errorRate', 'p99ms'] }
const { service, version, regions = ['us-east-1'], slo = { errorRate: 0.01, p99ms: 800 } } = args

phase('Plan')
const plan = await agent(`Write a rollout plan for ${service}@${version} across ${regions.join(', ')}`, { label: 'plan', phase: 'Plan' })

const events = []
let outcome
try {
  phase('Approve')
  const approval = await agent(`You are the change approver. Approve or reject this plan:\n${plan}`, { label: 'approve', phase: 'Approve', schema: APPROVAL })
  if (!approval) throw new GateError('approval', 'approver unavailable')
  if (!approval.approved) throw new GateError('approval', approval.reason)
  events.push(`approved: ${approval.reason}${approval.conditions?.length ? ` [${approval.conditions.join('; ')}]` : ''}`)

  phase('Rollout')
  for (const [i, region] of regions.entries()) {
    const deployed = await agent(`Deploy ${service}@${version} to ${region} (canary 10%)`, { label: `deploy:${region}`, phase: 'Rollout' })
    if (deployed === null) throw new GateError('deploy', `${region} deploy agent died`)
    const checks = await parallel([1, 2, 3].map(n => () => agent(`Read canary health for ${service} in ${region}, sample ${n}`, { label: `health:${region}:${n}`, phase: 'Rollout', schema: HEALTH })))
    const ok = checks.filter(Boolean)
    if (ok.length < 2) throw new GateError('canary', `${region}: only ${ok.length} health samples`)
    const avg = k => ok.reduce((s, c) => s + c[k], 0) / ok.length
    const health = { errorRate: +avg('errorRate').toFixed(4), p99ms: Math.round(avg('p99ms')) }
    events.push(`${i + 1}/${regions.length} ${region}: err=${(health.errorRate * 100).toFixed(2)}% p99=${health.p99ms}ms`)
    if (health.errorRate > slo.errorRate || health.p99ms > slo.p99ms) {
      await agent(`Roll back ${service} in ${region}`, { label: `rollback:${region}`, phase: 'Rollout' })
      throw new GateError('canary', `${region} breached SLO (${JSON.stringify(health)})`)
    }
  }
  outcome = { status: 'deployed', regions: regions.length }
} catch (e) {
  if (!(e instanceof GateError)) throw e
  log(`stopped at ${e.gate}: ${e.message}`)
  outcome = { status: 'halted', gate: e.gate, error: String(e) }
} finally {
  events.push(`finished: ${outcome?.status ?? 'crashed'}`)
}
phase('Report')
const report = await agent(`Summarize the deploy of ${service}@${version}: ${events.join(' | ')}`, { label: 'report', phase: 'Report' })
return { ...outcome, events, report }
