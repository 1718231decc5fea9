export const meta = { name: 'parallel-holes-thenables', description: 'Sparse arrays, thenables, array-likes' }
const r = {}
const tryit = async (k, f) => { try { r[k] = await f() } catch (e) { r[k] = `threw ${e.name}: ${e.message}` } }
await tryit('hole', () => parallel([, () => 1]))
await tryit('sparse', () => parallel(new Array(2)))
await tryit('thenable', () => parallel([() => ({ then(res) { res(5) } }), () => ({ then(res, rej) { rej(new Error('thenable no')) } })]))
await tryit('nestedPromise', () => parallel([() => Promise.resolve(Promise.resolve('deep'))]))
await tryit('extraProps', () => { const a = [() => 1]; a.extra = () => 2; return parallel(a) })
await tryit('pipeThenable', () => pipeline([{ then(res) { res('T') } }, 'b'], (x) => `${x}!`, (x) => ({ then(res) { res(x + '?') } })))
await tryit('pipeHole', () => pipeline([, 'b'], (x) => `got ${x}`))
await tryit('pipeUndefItem', () => pipeline([undefined, null, 0, ''], (x, item, i) => `i${i}:${String(x)}`))
await tryit('pipeStageReturnsNullLater', () => pipeline(['a', 'b'], (x) => (x === 'a' ? null : x), (x) => x.toUpperCase()))
await tryit('parallelArgsExtra', () => parallel([() => 'one'], 'ignored', 42))
await tryit('parallelFnCount', () => parallel([() => 1, async () => 2, function () { return 3 }, async function* () {}]))
return r
