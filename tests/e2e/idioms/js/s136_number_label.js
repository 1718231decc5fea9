export const meta = { name: 'm2', description: 'numeric label' }
return await parallel([0, 1].map((i) => () => agent('review part ' + i, { label: i })))
