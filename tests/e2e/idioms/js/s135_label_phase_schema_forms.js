export const meta = { name: 'm8', description: 'label and phase forms' }
const a = await agent('one', { label: '  review \n\t part  one ' })
const b = await agent('two', { label: true, phase: 3 })
const c = await agent('three', { label: null })
const d = await agent('four', { schema: false })
const e = await agent('five', { schema: '' , label: 'falsy' })
return [a, b, c, d, e]
