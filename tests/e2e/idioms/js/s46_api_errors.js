export const meta = { name: 'api-errors', description: 'What the API throws, as a script catching it sees it' }
const seen = {}
const inspect = (e) => ({
  name: e.name,
  message: e.message,
  text: String(e),
  tmpl: `${e}`,
  isError: e instanceof Error,
  isTypeError: e instanceof TypeError,
  proto: Object.getPrototypeOf(e) === null ? 'null' : 'Object',
  keys: Object.keys(e),
  frozen: Object.isFrozen(e),
  hasStack: typeof e.stack === 'string',
})
try { await parallel([agent('x', { label: 'x' })]) } catch (e) { seen.parallelPromises = inspect(e) }
try { await parallel('not an array') } catch (e) { seen.parallelString = inspect(e) }
try { await pipeline({ length: 1, 0: 'x' }, (x) => x) } catch (e) { seen.pipelineObject = inspect(e) }
try { await pipeline([1], (x) => x, 'stage') } catch (e) { seen.pipelineStage = inspect(e) }
try { await workflow(42) } catch (e) { seen.workflowNumber = inspect(e) }
try { await workflow({ path: 'x.js' }) } catch (e) { seen.workflowObject = inspect(e) }
try { await parallel(Array.from({ length: 4097 }, () => () => 1)) } catch (e) { seen.tooMany = inspect(e) }
// The calls reject (they never throw synchronously), so .catch works too.
const viaCatch = await parallel(null).catch((e) => `caught: ${e.message}`)
const viaThen = await pipeline('x').then(() => 'resolved', (e) => `rejected: ${e.name}`)
// A script's own errors are ordinary errors.
class GateError extends Error {
  constructor(msg, gate) { super(msg); this.name = 'GateError'; this.gate = gate }
}
let own
try { throw new GateError('coverage below 80%', 'coverage') } catch (e) {
  own = { name: e.name, gate: e.gate, isError: e instanceof Error, isGate: e instanceof GateError, text: String(e), keys: Object.keys(e) }
}
// Rethrowing an API error inside a parallel slot: the slot is null and the log says why.
const slots = await parallel([
  async () => { try { await parallel(1) } catch (e) { throw e } },
  async () => { try { await pipeline(1) } catch (e) { throw new Error(`wrapped: ${e.message}`, { cause: e }) } },
])
return { seen, viaCatch, viaThen, own, slots }
