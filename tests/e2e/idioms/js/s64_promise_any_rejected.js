export const meta = { name: 'promise-any-rejected', description: "Promise.any over failing mirrors rejects with V8's AggregateError" }
const fetchFrom = (mirror) => (mirror.ok ? Promise.resolve(`${mirror.name}: ok`) : Promise.reject(new Error(`${mirror.name} timed out`)))
const mirrors = [{ name: 'eu', ok: false }, { name: 'us', ok: false }, { name: 'ap', ok: false }]
let failure
try {
  await Promise.any(mirrors.map(fetchFrom))
} catch (e) {
  failure = {
    name: e.name,
    message: e.message,
    text: String(e),
    firstLine: e.stack.split('\n')[0],
    isAggregate: e instanceof AggregateError,
    reasons: e.errors.map((x) => x.message),
    messageDescriptor: Object.getOwnPropertyDescriptor(e, 'message'),
  }
}
const empty = await Promise.any([]).catch((e) => `${e.name}: ${e.message} (${e.errors.length})`)
const recovered = await Promise.any([fetchFrom(mirrors[0]), fetchFrom({ name: 'backup', ok: true })])
const own = new AggregateError([new Error('a')], 'custom text')
return { failure, empty, recovered, own: [own.message, String(own), own.errors.length] }
