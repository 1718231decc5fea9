export const meta = { name: "bench-map-set", description: "Dedupe with Set, aggregate with Map and with plain objects" };
let seed = 0x9e3779b9;
const rnd = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 4294967296; };
const n = (args && args.n) || 200000;
const ids = [];
for (let i = 0; i < n; i++) ids.push(`id-${Math.floor(rnd() * n / 2)}`);
const unique = [...new Set(ids)];
const counts = new Map();
for (const id of ids) counts.set(id, (counts.get(id) || 0) + 1);
const top = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
const byBucket = {};
for (let i = 0; i < n; i++) {
  const k = "b" + (i % 997);
  byBucket[k] = (byBucket[k] || 0) + i;
}
const numSet = new Set();
for (let i = 0; i < n; i++) numSet.add((i * 7919) % 100003);
let hits = 0;
for (let i = 0; i < n; i++) if (numSet.has(i)) hits++;
return { unique: unique.length, top, buckets: Object.keys(byBucket).length, hits };
