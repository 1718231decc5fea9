export const meta = { name: "js-compute-fast-paths", description: "What the seventh session's Boa speed paths must leave unchanged" };
// Each entry is compared with Node 20's result for this same file
// (tests/e2e/js_compute_fast_paths.expected.json).
const out = {};

// --- Built-in iterators stepped without result objects ---
const arr = [1, 2, 3];
const seen = [];
for (const x of arr) { seen.push(x); if (x === 1) arr.push(4); }
out.arrayGrowsWhileIterated = seen;
const holes = [1, , 3];
out.spreadHoles = [...holes].map((x) => (x === undefined ? "hole" : x));
out.entries = [...["a", "b"].entries()];
out.keys = [...["a", "b"].keys()];
const [d1, , d3, ...drest] = [10, 20, 30, 40, 50];
out.destructure = [d1, d3, drest];
const s = new Set([1, 2, 3]);
const sseen = [];
for (const x of s) { sseen.push(x); if (x === 1) { s.delete(2); s.add(9); } }
out.setMutatedWhileIterated = sseen;
out.setEntries = [...new Set(["x", "y"]).entries()];
const m = new Map([["a", 1], ["b", 2], ["c", 3]]);
const mseen = [];
for (const [k, v] of m) { mseen.push(k + v); if (k === "a") { m.delete("b"); m.set("d", 4); } }
out.mapMutatedWhileIterated = mseen;
out.mapKeysValues = [[...m.keys()], [...m.values()]];
out.arrayFromSet = Array.from(new Set([3, 1, 3, 2]));
out.mapFromEntries = Object.fromEntries(new Map([["k", 1]]));
// (The array iterator's prototype is frozen, as in Claude Code's context:
// a script cannot patch its `next`.)
const ArrayIteratorProto = Object.getPrototypeOf([][Symbol.iterator]());
const originalNext = ArrayIteratorProto.next;
// An iterator whose `next` is another iterator's `next` (borrowed).
const borrowed = { [Symbol.iterator]() { const it = [5, 6][Symbol.iterator](); return { next: () => it.next() }; } };
out.borrowedNext = [...borrowed];
// A wrong receiver still throws the built-in's TypeError.
try {
  const bad = { [Symbol.iterator]() { return { next: originalNext }; } };
  for (const _ of bad) { /* never */ }
  out.wrongReceiver = "no error";
} catch (e) {
  out.wrongReceiver = e instanceof TypeError;
}
// `yield*` over an array (the result-object opcode) and a generator.
function* gen() { const r = yield* [1, 2]; yield r === undefined; yield* new Set(["s"]); }
out.yieldStar = [...gen()];
// A getter on an array element runs once per step, in order.
const log = [];
const withGetter = [0, 0];
Object.defineProperty(withGetter, 1, { get() { log.push("get"); return 42; } });
out.getterElement = [[...withGetter], log.length];
// Breaking out of a for-of closes the (built-in) iterator: a later one
// starts over.
const again = [1, 2, 3];
for (const x of again) { if (x === 2) break; }
out.afterBreak = [...again];

// --- Map and Set keys (the key hasher) ---
const keys = new Map();
keys.set(0, "zero").set(-0, "minus zero").set(NaN, "nan").set(0 / 0, "nan again");
keys.set(1, "one").set(1.0, "one float").set(2 ** 31, "big").set(0.1 + 0.2, "float");
keys.set("1", "string one").set("é", "latin1").set("e\u0301".normalize("NFC"), "nfc");
keys.set("€", "wide").set("x€".slice(1), "wide slice").set(`id-${3}`, "template");
const o = {};
keys.set(o, "object").set({}, "other object");
out.mapKeys = [...keys].map(([k, v]) => [typeof k, String(k), v]);
out.mapGets = [keys.get(-0), keys.get(NaN), keys.get(1), keys.get("id-3"), keys.get(o), keys.get({}), keys.size];
const many = new Set();
for (let i = 0; i < 5000; i++) { many.add(i); many.add(`k${i % 2500}`); many.add(i / 4); }
out.setSize = many.size;
let found = 0;
for (let i = 0; i < 5000; i++) if (many.has(i / 4) && many.has(`k${i}`)) found++;
out.setHas = found;
for (let i = 0; i < 5000; i += 2) many.delete(i);
out.setAfterDelete = [many.size, many.has(1), many.has(2), [...many].slice(0, 4)];

// --- Comparator calls (the reused call frame) ---
const nums = [5, 3, 9, 1, 7, 3];
out.arrowSort = nums.slice().sort((a, b) => a - b);
let count = 0;
const counted = nums.slice().sort((a, b) => { count++; return b - a; });
out.closureCounts = [counted, count > 0];
out.functionComparator = nums.slice().sort(function (a, b) { return this === undefined || this === globalThis ? a - b : 0; });
out.boundComparator = nums.slice().sort(((k, a, b) => k * (a - b)).bind(null, -1));
out.nestedClosure = nums.slice().sort((a, b) => [a].map((x) => x - b)[0]);
out.reentrant = [[3, 1], [2, 0]].sort((a, b) => a.sort((x, y) => x - y)[0] - b.sort((x, y) => x - y)[0]);
out.objectResult = nums.slice().sort((a, b) => ({ valueOf: () => a - b }));
out.stringResult = nums.slice().sort((a, b) => String(a - b));
out.localVars = nums.slice().sort((a, b) => { let d = a - b; for (const t of [1]) d *= t; return d; });
let throws = 0;
try {
  nums.slice().sort((a, b) => { if (++throws === 4) throw new Error("boom"); return a - b; });
} catch (e) {
  out.thrownAt = [e.message, throws];
}
out.afterThrow = nums.slice().sort((a, b) => a - b);
const asyncComparator = async (a, b) => a - b;
out.asyncComparator = nums.slice().sort(asyncComparator);
const objs = [{ k: "b", n: 2 }, { k: "a", n: 2 }, { k: "C", n: 1 }, { k: "a", n: 1 }];
out.objectsSort = objs.slice().sort((a, b) => b.n - a.n || a.k.localeCompare(b.k)).map((x) => x.k + x.n);
out.toSorted = nums.toSorted((a, b) => b - a);
// The array read and written back in one piece: changed by its comparator.
const frozen = [3, 1, 2];
try {
  frozen.sort((a, b) => { Object.freeze(frozen); return a - b; });
  out.frozenDuringSort = "no error";
} catch (e) {
  out.frozenDuringSort = [e instanceof TypeError, frozen];
}
const growing = [3, 1, 2];
growing.sort((a, b) => { if (growing.length < 5) growing.push(0); return a - b; });
out.grownDuringSort = growing;
const shrinking = [5, 4, 3, 2, 1];
shrinking.sort((a, b) => { shrinking.length = 2; return a - b; });
out.shrunkDuringSort = [shrinking.length, shrinking];
const mixed = [3, "b", 1.5, null, undefined, "a", 2, , 0];
out.mixedWithHoles = [mixed.sort(), mixed.length, 7 in mixed, 8 in mixed];
const arrayLike = { length: 3, 0: "c", 1: "a", 2: "b" };
Array.prototype.sort.call(arrayLike);
out.arrayLike = arrayLike;
const sealed = Object.seal([2, 1]);
out.sealed = sealed.sort((a, b) => a - b);

// --- localeCompare, ASCII (the one-pass path) ---
const words = ["b", "a", "C", "A", "a-b", "ab", "a b", "a_b", "a.b", "A1", "a10", "a2", "", " ", "_", "Zz", "zZ", "a\tb", "~", "$", "9", "0"];
out.localeSorted = words.slice().sort((a, b) => a.localeCompare(b));
out.localeBase = ["a", "A", "b", "B"].map((x) => ["a", "A", "b", "B"].map((y) => x.localeCompare(y, undefined, { sensitivity: "base" })));
out.localeNumeric = ["a10", "a2", "a1"].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
out.localeMixed = ["é", "e", "E", "f"].sort((a, b) => a.localeCompare(b));
// The ASCII path against the general one: the same text as a UTF-16
// string (sliced out of one holding "€") takes the general path in Boa.
const alphabet = ["a", "A", "b", "Z", "z", "0", "9", " ", "_", "-", ".", ",", "'", "\"", "$", "~", "\t", "\u0001", "\u007f"];
const short = [""];
for (const x of alphabet) { short.push(x); for (const y of alphabet) short.push(x + y); }
const wide = (t) => ("€" + t).slice(1);
let pairs = 0;
const disagree = [];
for (let i = 0; i < short.length; i += 3) {
  for (let j = 0; j < short.length; j += 5) {
    for (const o of [undefined, { sensitivity: "base" }, { sensitivity: "accent" }, { sensitivity: "case" }]) {
      pairs++;
      const x = short[i], y = short[j];
      if (Math.sign(x.localeCompare(y, undefined, o)) !== Math.sign(wide(x).localeCompare(wide(y), undefined, o))) disagree.push([x, y]);
    }
  }
}
out.localeAsciiPath = [pairs, disagree.slice(0, 5)];

return out;
