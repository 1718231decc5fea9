export const meta = { name: 'phase-of-any-value', description: 'phase() takes String() of any value, as Claude Code does: a symbol, a number, an object' }
phase(Symbol('triage'))
phase(3)
phase({ toString() { return 'review' } })
const r = await agent('go', { label: 'go' })
return { r }
