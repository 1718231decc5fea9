export const meta = { name: 'schema-oddities', description: 'schema values that are not JSON Schema objects' }
const r = {}
const tryit = async (k, f) => { try { const v = await f(); r[k] = v } catch (e) { r[k] = `threw ${e.name}` } }
await tryit('schemaFalse', () => agent('schema false', { label: 'f', schema: false }))
await tryit('schemaZero', () => agent('schema zero', { label: 'z', schema: 0 }))
await tryit('schemaEmptyStr', () => agent('schema empty', { label: 'e', schema: '' }))
await tryit('schemaUndef', () => agent('schema undef', { label: 'u', schema: undefined }))
return r
