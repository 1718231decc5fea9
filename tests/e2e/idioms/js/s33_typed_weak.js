export const meta = { name: 'typed-weak', description: 'Typed arrays, DataView, WeakMap caches' }
const bytes = new TextLikeEncoder().encode('Hi é')
function TextLikeEncoder() { this.encode = (s) => Uint8Array.from(unescape_(encodeURIComponent(s)), c => c.charCodeAt(0)) }
function unescape_(s) { return s.replace(/%([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))) }
const u8 = new Uint8Array([1, 2, 3, 250])
const sub = u8.subarray(1, 3); sub[0] = 99
const i8 = Int8Array.from(u8)
const clamped = Uint8ClampedArray.of(-5, 300, 1.5, 2.5)
const f32 = new Float32Array([0.1, 1 / 3])
const buf = new ArrayBuffer(8)
const view = new DataView(buf)
view.setUint16(0, 0x1234); view.setUint16(2, 0x1234, true); view.setFloat32(4, 1.5)
const hex = [...new Uint8Array(buf)].map(b => b.toString(16).padStart(2, '0')).join('')
const u16 = new Uint16Array(buf, 0, 2)
const sorted = new Int32Array([5, -1, 10, 2]).sort()
const mapped = u8.map(x => x * 2)
const sliced = u8.slice(-2)
const big = new BigInt64Array([2n ** 62n, -1n])
const cache = new WeakMap()
const memo = (obj) => { if (!cache.has(obj)) cache.set(obj, Object.keys(obj).length); return cache.get(obj) }
const key = { a: 1, b: 2 }
const seen = new WeakSet([key])
const objKeys = new Map([[key, 'obj'], ['k', 'str'], [NaN, 'nan'], [0, 'zero']])
const dedupByJson = [...new Map([{ id: 1 }, { id: 2 }, { id: 1 }].map(o => [JSON.stringify(o), o])).values()]
const sum = u8.reduce((a, b) => a + b, 0)
return {
  bytes: [...bytes], u8: Array.from(u8), i8: [...i8], clamped: [...clamped], f32: [...f32], hex, u16: [...u16], sorted: [...sorted], mapped: [...mapped], sliced: [...sliced],
  big: [...big].map(String), memo: [memo(key), memo(key), cache.has(key)], seen: seen.has(key), objKeys: [objKeys.get(key), objKeys.get(NaN), objKeys.get(-0), objKeys.size],
  dedupByJson, sum, json: JSON.stringify(u8), str: String(u8), tag: Object.prototype.toString.call(u8), lens: [u8.byteLength, f32.BYTES_PER_ELEMENT, buf.slice(2).byteLength],
  includes: [u8.includes(99), u8.indexOf(250), u8.join('-'), u8.at(-1)], isView: [ArrayBuffer.isView(view), ArrayBuffer.isView(buf)],
}
