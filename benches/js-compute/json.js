export const meta = { name: "bench-json", description: "JSON.stringify and JSON.parse of a few MB of agent results" };
let seed = 0x7777;
const rnd = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 4294967296; };
const n = (args && args.n) || 20000;
const results = [];
for (let i = 0; i < n; i++) {
  results.push({
    id: `R-${i}`,
    agent: `reviewer-${i % 7}`,
    verdict: rnd() < 0.5 ? "pass" : "fail",
    score: Math.round(rnd() * 10000) / 100,
    tags: ["ui", "api", "db", "perf"].filter(() => rnd() < 0.5),
    finding: { file: `src/mod${i % 300}/file${i % 41}.ts`, line: Math.floor(rnd() * 2000), note: "looks off by one in the totals; check the boundary" },
  });
}
let bytes = 0, count = 0;
for (let round = 0; round < 3; round++) {
  const text = JSON.stringify(results);
  bytes += text.length;
  const back = JSON.parse(text);
  count += back.length;
  const pretty = JSON.stringify(back[round], null, 2);
  bytes += pretty.length;
}
return { bytes, count };
