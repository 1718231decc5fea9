export const meta = { name: 'recursion-depth', description: 'How deep plain recursion goes; what overflow throws' }
const depth = (n) => (n === 0 ? 0 : 1 + depth(n - 1))
const r = {}
for (const n of [1000, 5000, 9000]) { try { r[n] = depth(n) } catch (e) { r[n] = `${e.name}: ${e.message}` } }
const inf = () => inf()
try { inf() } catch (e) { r.inf = `${e.name}: ${e.message}`; r.isRange = e instanceof RangeError }
const nest = (d) => (d === 0 ? { leaf: true } : { child: nest(d - 1) })
const walk = (o) => (o.leaf ? 0 : 1 + walk(o.child))
try { r.tree = walk(nest(3000)) } catch (e) { r.tree = `${e.name}: ${e.message}` }
return r
