export const meta = { name: 'classes-private', description: 'A task queue class with private state' }
class TaskQueue {
  static #instances = 0
  static DEFAULT_LIMIT
  static { TaskQueue.DEFAULT_LIMIT = 2 }
  #items = []
  #done = new Map()
  #limit
  constructor(limit = TaskQueue.DEFAULT_LIMIT) { this.#limit = limit; TaskQueue.#instances++ }
  static get count() { return TaskQueue.#instances }
  static isQueue(x) { return #items in x }
  add(...tasks) { this.#items.push(...tasks); return this }
  get size() { return this.#items.length }
  #next() { return this.#items.splice(0, this.#limit) }
  async drain(run) {
    while (this.size) {
      const batch = this.#next()
      const outs = await parallel(batch.map(t => () => run(t)))
      batch.forEach((t, i) => this.#done.set(t, outs[i]))
    }
    return this
  }
  *[Symbol.iterator]() { yield* this.#done }
  toJSON() { return { done: this.#done.size } }
  get [Symbol.toStringTag]() { return 'TaskQueue' }
}
class PriorityQueue extends TaskQueue {
  #prio
  constructor(prio) { super(1); this.#prio = prio }
  add(...tasks) { return super.add(...tasks.toSorted((a, b) => this.#prio(a) - this.#prio(b))) }
}
const q = new PriorityQueue(t => t.length)
await q.add('deploy', 'lint', 'test').drain(t => agent(`run ${t}`, { label: t }))
const q2 = new TaskQueue()
let privErr = null
try { TaskQueue.prototype.add.call({}, 1) } catch (e) { privErr = e.name }
class Money {
  constructor(cents) { this.cents = cents }
  [Symbol.toPrimitive](hint) { return hint === 'number' ? this.cents / 100 : `$${(this.cents / 100).toFixed(2)}` }
  static [Symbol.hasInstance](x) { return typeof x?.cents === 'number' }
}
const m = new Money(1999)
const accessor = new (class { #v = 1; get v() { return this.#v } set v(x) { this.#v = x * 10 } })()
accessor.v = 4
return {
  done: [...q], count: TaskQueue.count, isQueue: [TaskQueue.isQueue(q), TaskQueue.isQueue({})], privErr,
  json: JSON.stringify(q2), tag: Object.prototype.toString.call(q), limit: TaskQueue.DEFAULT_LIMIT,
  money: [`${m}`, +m, m + 1, { cents: 5 } instanceof Money], accessor: accessor.v,
  names: [q.constructor.name, Object.getPrototypeOf(PriorityQueue) === TaskQueue, typeof TaskQueue, PriorityQueue.name],
  ownKeys: Object.keys(q), proto: Object.getOwnPropertyNames(TaskQueue.prototype),
}
