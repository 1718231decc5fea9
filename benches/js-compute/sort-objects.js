export const meta = { name: "bench-sort-objects", description: "Sort 200k result objects by two keys" };
let seed = 0x1234567;
const rnd = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 4294967296; };
const n = (args && args.n) || 200000;
const sev = ["low", "medium", "high", "critical"];
const rows = [];
for (let i = 0; i < n; i++) {
  rows.push({ id: i, score: Math.floor(rnd() * 1000), name: `item-${Math.floor(rnd() * 50000)}`, severity: sev[i % 4] });
}
rows.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || a.id - b.id);
const byName = rows.slice().sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
return { first: rows.slice(0, 3).map((r) => r.id), last: rows[n - 1].id, firstName: byName[0].name, lastName: byName[n - 1].name };
