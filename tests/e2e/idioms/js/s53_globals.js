export const meta = { name: 'globals', description: 'What a script sees on its global object' }
const present = (names) => names.filter((k) => typeof globalThis[k] !== 'undefined')
return {
  keys: Object.keys(globalThis),
  forIn: (() => { const r = []; for (const k in globalThis) r.push(k); return r })(),
  thisIsGlobal: this === globalThis,
  api: ['agent', 'parallel', 'pipeline', 'workflow', 'log', 'phase', 'setTimeout', 'clearTimeout'].map((k) => `${k}:${typeof globalThis[k]}`),
  objects: { console: Object.keys(console), budget: Object.keys(budget), argsType: Array.isArray(args) ? 'array' : typeof args },
  standard: present(['Iterator', 'AggregateError', 'FinalizationRegistry', 'WeakRef', 'SharedArrayBuffer', 'Atomics', 'Float16Array', 'DisposableStack', 'AsyncDisposableStack', 'SuppressedError', 'escape', 'unescape', 'Intl', 'Proxy', 'Reflect', 'BigInt64Array']),
  absent: ['require', 'process', 'Buffer', 'fetch', 'URL', 'TextEncoder', 'structuredClone', 'setInterval', 'setImmediate', 'queueMicrotask', 'performance', 'crypto', 'WebAssembly', 'ShadowRealm', 'atob', 'navigator', 'Bun', 'Deno', 'window', 'self', 'global'].filter((k) => typeof globalThis[k] === 'undefined'),
  escapes: [escape('a b+c'), unescape('%u00e9t%E9')],
  f16: typeof Float16Array === 'function' ? Array.from(new Float16Array([1.1, 65504, 70000])) : null,
  disposed: (() => {
    if (typeof DisposableStack !== 'function') return null
    const order = []
    const stack = new DisposableStack()
    stack.defer(() => order.push('first registered'))
    stack.defer(() => order.push('second registered'))
    stack.dispose()
    return [order, stack.disposed]
  })(),
  thenOnGlobal: ['then' in globalThis, globalThis.then === undefined],
}
