export const meta = {
  name: 'flaky-migration',
  description: 'Migrate files with retries and backoff; dead agents are retried, bad answers are not',
  phases: [{ title: 'Migrate' }, { title: 'Report' }],
}
const files = args
if (!Array.isArray(files)) throw new TypeError('args must be a list of files')
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const RESULT = { type: 'object', properties: { ok: { type: 'boolean' }, changed: { type: 'integer' }, reason: { type: 'string' } }, required: ['ok'] }
async function withRetry(fn, { tries = 4, base = 100 } = {}) {
  let lastErr
  for (let i = 0; i < tries; i++) {
    try {
      const v = await fn(i)
      if (v !== null) return { v, tries: i + 1 }
      lastErr = new Error('agent died')
    } catch (e) {
      lastErr = e
      if (e.name === 'PermanentError') break
    }
    await sleep(base * 2 ** i)
  }
  return { v: null, tries: tries, error: String(lastErr) }
}
class PermanentError extends Error { constructor(m) { super(m); this.name = 'PermanentError' } }
phase('Migrate')
const results = await parallel(files.map((f) => () => withRetry(async (attempt) => {
  const r = await agent(`Migrate ${f} to the new API (attempt ${attempt + 1})`, { label: `migrate:${f}`, schema: RESULT })
  if (r && !r.ok && /unsupported/i.test(r.reason ?? '')) throw new PermanentError(`${f}: ${r.reason}`)
  return r
})))
phase('Report')
const table = files.map((f, i) => {
  const { v, tries, error } = results[i]
  return { file: f, status: v?.ok ? 'migrated' : v ? 'failed' : 'gave up', tries, changed: v?.changed ?? 0, error: error ?? null }
})
const changed = table.reduce((n, r) => n + r.changed, 0)
log(`${table.filter((r) => r.status === 'migrated').length}/${files.length} migrated, ${changed} lines changed`)
return { table, changed, retried: table.filter((r) => r.tries > 1).map((r) => r.file) }
