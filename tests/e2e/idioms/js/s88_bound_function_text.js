export const meta = { name: 'bound-function-text', description: "Describe the registered handlers: bound functions and proxies print as V8 prints them" }
const handlers = {
  review: function review(x) { return x },
  triage: Math.max,
}
handlers.boundReview = handlers.review.bind(null, 'ctx')
handlers.boundArrow = ((a) => a).bind(null)
handlers.boundMax = Math.max.bind(Math)
handlers.proxied = new Proxy(function audit() {}, {})
const described = Object.entries(handlers).map(([k, f]) => `${k}: ${f.name} / ${f.length} / ${Function.prototype.toString.call(f)}`)
let err
try { Function.prototype.toString.call({ name: 'fake' }) } catch (e) { err = `${e.name}: ${e.message}` }
log(described.join('\n'))
return { described, err }
