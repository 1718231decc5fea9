export const meta = { name: 'classes', description: 'classes, private fields, iterators' }
class Queue {
  #items = []
  static created = 0
  static { Queue.kind = 'fifo' }
  constructor(...xs) { this.#items.push(...xs); Queue.created++ }
  get size() { return this.#items.length }
  set first(v) { this.#items.unshift(v) }
  push(x) { this.#items.push(x); return this }
  #peek() { return this.#items[0] }
  peek() { return this.#peek() }
  *[Symbol.iterator]() { yield* this.#items }
  static from(arr) { return new Queue(...arr) }
  toString() { return `Queue(${this.#items.join(',')})` }
  toJSON() { return { items: [...this], size: this.size } }
  has(q) { return #items in q }
}
class Priority extends Queue {
  constructor(...xs) { super(...xs.sort((a, b) => a - b)) }
  push(x) { super.push(x); return this }
  get label() { return 'prio:' + super.toString() }
}
class HttpError extends Error {
  constructor(status, msg, opts) { super(msg, opts); this.name = 'HttpError'; this.status = status }
}
const q = Queue.from([3, 1]).push(2)
q.first = 0
const p = new Priority(5, 1, 3)
let err
try { throw new HttpError(404, 'not found', { cause: new Error('missing row') }) } catch (e) { err = { name: e.name, msg: e.message, status: e.status, isErr: e instanceof Error, cause: e.cause?.message, str: String(e) } }
class Counter { count = 0; inc = () => { this.count++; return this.count } }
const c = new Counter()
const { inc } = c
inc(); inc()
const acc = { total: 0, add(n) { this.total += n; return this } }
const getterObj = new (class { #v = 41; get v() { return ++this.#v } })()
let privateErr
try { Queue.prototype.peek.call({}) } catch (e) { privateErr = e.name }
return {
  spread: [...q], size: q.size, peek: q.peek(), str: `${q}`, json: JSON.stringify(q), created: Queue.created, kind: Queue.kind,
  prio: [...p], label: p.label, inst: [p instanceof Queue, p instanceof Priority, Object.getPrototypeOf(p) === Priority.prototype],
  has: [q.has(p), q.has({})], err, counter: c.count, chain: acc.add(1).add(2).total, getter: [getterObj.v, getterObj.v],
  privateErr, className: [Queue.name, p.constructor.name, typeof Queue], methods: Object.getOwnPropertyNames(Queue.prototype).sort(),
}
