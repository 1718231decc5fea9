export const meta = { name: 'nullans', description: 'd' }
const r = await agent('x', { label: 'x' })
return { r, isNull: r === null }
