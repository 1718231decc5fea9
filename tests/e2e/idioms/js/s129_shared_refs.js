export const meta = { name: 'shared-refs', description: 'The same object twice in a result (not a cycle)' }
const tag = { id: 't1' }
const rows = [{ tag }, { tag }]
const viaParallel = await parallel([() => tag, () => tag, () => ({ a: tag, b: tag })])
return { rows, viaParallel, same: viaParallel[0] === viaParallel[1], sameInner: viaParallel[2].a === viaParallel[2].b }
