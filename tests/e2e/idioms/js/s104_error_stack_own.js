export const meta = { name: 'error-stack-own', description: 'An error\'s stack is its own non-enumerable property: getOwnPropertyNames, keys, in, hasOwnProperty, JSON with the names, the Name: message head' }
class StepError extends Error {
  constructor(step, msg, opts) { super(`${step}: ${msg}`, opts); this.name = 'StepError'; this.step = step }
}
const errors = [new Error('plain'), new TypeError('typed', { cause: 'why' }), new StepError('lint', 'failed', { cause: { code: 3 } }), new AggregateError([new Error('a')], 'agg'), new RangeError()]
try { null.score } catch (e) { errors.push(e) }
try { JSON.parse('Here is the JSON: {}') } catch (e) { errors.push(e) }
try { undefinedFunction() } catch (e) { errors.push(e) }
const r = await Promise.allSettled([Promise.reject(new Error('rejected'))])
errors.push(r[0].reason)
const shape = (e) => {
  const d = Object.getOwnPropertyDescriptor(e, 'stack')
  const json = JSON.parse(JSON.stringify(e, Object.getOwnPropertyNames(e)))
  return {
    names: Object.getOwnPropertyNames(e), keys: Object.keys(e), inE: 'stack' in e, own: e.hasOwnProperty('stack'), objOwn: Object.hasOwn(e, 'stack'),
    desc: d && [typeof d.value, d.writable, d.enumerable, d.configurable], head: e.stack.split('\n')[0],
    jsonKeys: Object.keys(json), jsonHead: json.stack.split('\n')[0], entries: Object.entries(e).map(([k]) => k), spread: Object.keys({ ...e }),
  }
}
const out = errors.map(shape)
const late = new Error('late'); late.name = 'Renamed'
out.push(late.stack.split('\n')[0])
const set = new Error('set'); set.stack = 'custom stack'
out.push([set.stack, Object.getOwnPropertyNames(set), Object.keys(set)])
const serialized = errors.slice(0, 3).map((e) => Object.fromEntries(Object.getOwnPropertyNames(e).filter((k) => k !== 'stack').map((k) => [k, e[k]])))
log(`names: ${Object.getOwnPropertyNames(errors[2]).join(',')}`)
return { out, serialized, propsForLog: Object.getOwnPropertyNames(new Error('x')).join('|') }
