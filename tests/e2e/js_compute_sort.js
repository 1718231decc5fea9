export const meta = { name: "sorting", description: "Array sorting as Node does it" };
// Array sorting as scripts written for Node do it (issue 28): stable,
// never a crash on an inconsistent comparator, errors propagate, and about
// as few comparator calls as V8's TimSort.
let seed = 7;
const rnd = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 4294967296; };
const out = {};

// `a < b ? -1 : 1` never answers 0: not a consistent comparator when keys
// repeat, still the most common way to write one.
const xs = Array.from({ length: 5000 }, (_, i) => ({ k: Math.floor(rnd() * 10), i }));
xs.sort((a, b) => (a.k < b.k ? -1 : 1));
out.noZeroSorted = xs.every((x, i) => i === 0 || xs[i - 1].k <= x.k);

// A shuffle comparator, and comparators that always say the same thing.
const ys = Array.from({ length: 5000 }, (_, i) => i);
ys.sort(() => rnd() - 0.5);
out.shuffleKeepsItems = ys.slice().sort((a, b) => a - b).every((y, i) => y === i);
out.constant = [() => 1, () => -1, () => 0, () => NaN, () => "x"].map((f) => {
  const zs = Array.from({ length: 3000 }, (_, i) => i);
  zs.sort(f);
  return zs.length === 3000 && new Set(zs).size === 3000;
});
out.toSorted = Array.from({ length: 3000 }, () => rnd()).toSorted(() => 1).length;
out.typed = Array.from(new Float64Array(Array.from({ length: 3000 }, () => rnd())).sort(() => rnd() - 0.5)).length;

// Stable: equal keys keep their order.
const st = Array.from({ length: 20000 }, (_, i) => ({ k: Math.floor(rnd() * 50), i }));
st.sort((a, b) => a.k - b.k);
out.stable = st.every((x, i) => i === 0 || st[i - 1].k < x.k || (st[i - 1].k === x.k && st[i - 1].i < x.i));

// A throwing comparator: the error reaches the script, the array is untouched.
const before = Array.from({ length: 1000 }, () => rnd());
const copy = before.slice();
let calls = 0;
try {
  before.sort((a, b) => { if (++calls === 100) throw new Error("comparator failed"); return a - b; });
  out.thrown = null;
} catch (e) {
  out.thrown = e.message;
}
out.untouched = before.every((v, i) => v === copy[i]);
out.callsAfterThrow = calls;

// Holes and undefined go last, undefined before holes.
const holes = [3, undefined, , 1, , 2];
holes.sort((a, b) => a - b);
out.holes = [holes.length, holes[0], holes[1], holes[2], holes[3] === undefined, 3 in holes, 4 in holes, 5 in holes];

// Comparator calls: n - 1 for sorted and strictly descending input; for
// random input at most n·log2(n) − n (V8: 3,258,600 for these 200k).
const count = (arr) => { let c = 0; arr.sort((a, b) => { c++; return a - b; }); return c; };
out.sortedCalls = count(Array.from({ length: 10000 }, (_, i) => i));
out.descendingCalls = count(Array.from({ length: 10000 }, (_, i) => -i));
seed = 0x2545f491;
out.randomCalls = count(Array.from({ length: 200000 }, rnd));
out.defaultSort = [10, 9, 1, 100, "b", "a", undefined].sort();
return out;
