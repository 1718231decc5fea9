export const meta = { name: 'error-cause', description: 'Wrapping agent failures with causes and custom errors' }
class StepError extends Error {
  constructor(step, message, options) { super(`${step}: ${message}`, options); this.name = 'StepError'; this.step = step }
}
class RetryableError extends StepError { get retryable() { return true } }
async function step(name) {
  const out = await agent(`run ${name}`, { label: name })
  if (out === null) throw new RetryableError(name, 'agent returned null')
  if (out.startsWith('ERR')) throw new StepError(name, out.slice(4))
  return out
}
const results = []
for (const name of ['build', 'test', 'deploy']) {
  try {
    results.push({ name, ok: await step(name) })
  } catch (err) {
    const wrapped = new Error(`pipeline failed at ${name}`, { cause: err })
    const chain = []
    for (let e = wrapped; e; e = e.cause) chain.push(`${e.name}: ${e.message}`)
    results.push({ name, chain, retryable: err.retryable ?? false, isStep: err instanceof StepError, isError: err instanceof Error, step: err.step, keys: Object.keys(err), str: String(err) })
  }
}
const agg = new AggregateError([new Error('one'), 'two'], 'several failed', { cause: 'root' })
const noCause = new Error('x')
const plainThrow = await (async () => { try { throw { code: 'E1', message: 'plain' } } catch (e) { return [e instanceof Error, e.message, e.code] } })()
const props = (() => { const e = new TypeError('t'); return [e.name, e.message, Object.prototype.hasOwnProperty.call(e, 'message'), 'cause' in e, e.toString(), Error.prototype.toString.call({ name: 'N', message: 'M' })] })()
const named = (() => { const e = new Error('m'); e.name = 'Custom'; return String(e) })()
const fromFinally = (() => { const log = []; try { try { throw new Error('inner') } finally { log.push('f1') } } catch (e) { log.push(e.message) } return log })()
const errInJson = JSON.stringify({ err: new Error('hidden') })
const toStrings = [String(new RangeError()), `${new Error('tpl')}`, new Error('a', { cause: 0 }).cause]
return { results, agg: [agg.name, agg.message, agg.errors.length, agg.cause], noCause: 'cause' in noCause, plainThrow, props, named, fromFinally, errInJson, toStrings }
