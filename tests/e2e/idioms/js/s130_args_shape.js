export const meta = { name: 'args-shape', description: 'args as the script sees it' }
const r = {}
r.type = typeof args
r.frozen = Object.isFrozen(args)
r.isArray = Array.isArray(args.list)
r.proto = Object.getPrototypeOf(args) === Object.prototype
try { args.added = 1; r.assign = args.added } catch (e) { r.assign = `${e.name}: ${e.message}` }
try { args.list.push('z'); r.push = args.list.length } catch (e) { r.push = `${e.name}: ${e.message}` }
r.keys = Object.keys(args)
r.desc = Object.getOwnPropertyDescriptor(globalThis, 'args') ? Object.keys(Object.getOwnPropertyDescriptor(globalThis, 'args')) : null
try { args = { replaced: true }; r.reassign = args } catch (e) { r.reassign = `${e.name}: ${e.message}` }
return r
