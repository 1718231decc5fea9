export const meta = { name: 'meta-binding', description: 'Is meta visible in the body?', phases: [{ title: 'A' }] }
let seen
try { seen = typeof meta === 'undefined' ? 'undefined' : JSON.stringify(meta) } catch (e) { seen = `${e.name}: ${e.message}` }
let direct
try { direct = meta.name } catch (e) { direct = `${e.name}: ${e.message}` }
return { seen, direct }
