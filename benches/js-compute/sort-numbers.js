export const meta = { name: "bench-sort-numbers", description: "Sort 200k numbers with a comparator, and 200k integers" };
// Deterministic data (Math.random is not available in workflows).
let seed = 0x2545f491;
const rnd = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 4294967296; };
const n = (args && args.n) || 200000;
const floats = Array.from({ length: n }, rnd);
floats.sort((a, b) => a - b);
const ints = [];
for (let i = 0; i < n; i++) ints.push(Math.floor(rnd() * 1000000));
ints.sort((a, b) => b - a);
let ordered = true;
for (let i = 1; i < n; i++) if (floats[i - 1] > floats[i] || ints[i - 1] < ints[i]) ordered = false;
return { ordered, min: floats[0], max: floats[n - 1], top: ints.slice(0, 3) };
