export const meta = { name: 'errors', description: 'error handling patterns' }
const results = []
function risky(kind) {
  switch (kind) {
    case 'type': return null.prop
    case 'ref': return notDefined + 1
    case 'range': return new Array(-1)
    case 'syntax': return JSON.parse('{')
    case 'custom': throw new Error('custom failure')
    case 'string': throw 'a string'
    case 'object': throw { code: 42 }
    default: return 'fine'
  }
}
for (const k of ['type', 'ref', 'range', 'syntax', 'custom', 'string', 'object', 'ok']) {
  try { results.push(['ok', risky(k)]) }
  catch (e) { results.push([e?.name ?? typeof e, e instanceof Error, e?.code ?? null]) }
  finally { results.push('f') }
}
const finallyOverride = (() => { try { return 'try' } finally { results.push('finally ran') } })()
const finallyWins = (() => { try { throw new Error('x') } catch { return 'catch' } finally { return 'finally' } })()
let optionalCatch = 'none'
try { JSON.parse('x') } catch { optionalCatch = 'caught without binding' }
const nested = (() => { try { try { throw new Error('inner') } finally { results.push('inner finally') } } catch (e) { return 'outer caught ' + e.message } })()
const withCause = new Error('outer', { cause: 'root' })
const agg = new AggregateError([new Error('a'), new TypeError('b')], 'many')
const rethrown = (() => { try { try { throw new RangeError('r') } catch (e) { e.message += ' (context)'; throw e } } catch (e) { return `${e.name}: ${e.message}` } })()
const msgs = [String(new TypeError('t')), new Error().message, new Error(undefined).message, String(new Error('')), Object.prototype.toString.call(new Error('x'))]
const errorProps = Object.keys(new Error('x'))
const stackIsString = typeof new Error('s').stack
let agentErr = null, agentResult
try { agentResult = await agent('this one fails', { label: 'doomed' }) } catch (e) { agentErr = e instanceof Error }
return { results, finallyOverride, finallyWins, optionalCatch, nested, cause: withCause.cause, agg: [agg.name, agg.message, agg.errors.length, agg.errors[1].name], rethrown, msgs, errorProps, stackIsString, agentErr, agentResult: agentResult ?? null }
