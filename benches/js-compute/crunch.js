export const meta = { name: "bench-crunch", description: "The 200k data crunch: dedupe, group, aggregate and rank agent findings" };
let seed = 0xdeadbeef;
const rnd = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 4294967296; };
const n = (args && args.n) || 200000;
const severities = ["info", "low", "medium", "high", "critical"];
const agents = ["finder-a", "finder-b", "finder-c", "verifier"];
// 200k findings as agents return them: 50k distinct ones, each reported
// by several agents with their own confidence.
const distinct = [];
for (let i = 0; i < n / 4; i++) {
  distinct.push({
    file: `src/area${Math.floor(rnd() * 40)}/file${Math.floor(rnd() * 60)}.ts`,
    line: Math.floor(rnd() * 500),
    severity: severities[Math.floor(rnd() * severities.length)],
    title: `possible issue ${Math.floor(rnd() * 3000)}`,
  });
}
const findings = [];
for (let i = 0; i < n; i++) {
  const d = distinct[Math.floor(rnd() * distinct.length)];
  findings.push({ agent: agents[i % agents.length], file: d.file, line: d.line, severity: d.severity, confidence: rnd(), title: d.title });
}
// Dedupe by file:line:title, keeping the most confident.
const best = new Map();
for (const f of findings) {
  const key = `${f.file}:${f.line}:${f.title}`;
  const prev = best.get(key);
  if (!prev || f.confidence > prev.confidence) best.set(key, f);
}
const unique = [...best.values()];
// Group by area, aggregate severities and mean confidence.
const rank = { info: 0, low: 1, medium: 2, high: 3, critical: 4 };
const areas = {};
for (const f of unique) {
  const area = f.file.split("/")[1];
  const a = areas[area] || (areas[area] = { area, count: 0, conf: 0, bySeverity: {}, worst: 0, files: new Set() });
  a.count += 1;
  a.conf += f.confidence;
  a.bySeverity[f.severity] = (a.bySeverity[f.severity] || 0) + 1;
  a.worst = Math.max(a.worst, rank[f.severity]);
  a.files.add(f.file);
}
const table = Object.values(areas)
  .map(({ area, count, conf, bySeverity, worst, files }) => ({ area, count, mean: Math.round((conf / count) * 1000) / 1000, bySeverity, worst, files: files.size }))
  .sort((x, y) => y.worst - x.worst || y.count - x.count || x.area.localeCompare(y.area));
// Rank the serious ones and render a report.
const serious = unique
  .filter((f) => rank[f.severity] >= 3 && f.confidence > 0.5)
  .sort((x, y) => rank[y.severity] - rank[x.severity] || y.confidence - x.confidence || x.file.localeCompare(y.file) || x.line - y.line);
const lines = serious.slice(0, 2000).map((f, i) => `${i + 1}. [${f.severity}] ${f.file}:${f.line} ${f.title} (${f.confidence.toFixed(2)})`);
const report = lines.join("\n");
const perAgent = findings.reduce((acc, f) => { acc[f.agent] = (acc[f.agent] || 0) + 1; return acc; }, {});
return { total: findings.length, unique: unique.length, serious: serious.length, areas: table.length, top: table.slice(0, 3), reportLength: report.length, perAgent };
