meta = {"name": "bench-crunch", "description": "The 200k data crunch: dedupe, group, aggregate and rank agent findings"}
state = [0xDEADBEEF]


def rnd():
    s = state[0]
    s ^= (s << 13) & 0xFFFFFFFF
    s ^= s >> 17
    s ^= (s << 5) & 0xFFFFFFFF
    state[0] = s
    return s / 4294967296


n = (args or {}).get("n", 200000)
severities = ["info", "low", "medium", "high", "critical"]
agents = ["finder-a", "finder-b", "finder-c", "verifier"]
# 200k findings as agents return them: 50k distinct ones, each reported
# by several agents with their own confidence.
distinct = []
for i in range(n // 4):
    distinct.append({
        "file": f"src/area{int(rnd() * 40)}/file{int(rnd() * 60)}.ts",
        "line": int(rnd() * 500),
        "severity": severities[int(rnd() * len(severities))],
        "title": f"possible issue {int(rnd() * 3000)}",
    })
findings = []
for i in range(n):
    d = distinct[int(rnd() * len(distinct))]
    findings.append({"agent": agents[i % len(agents)], "file": d["file"], "line": d["line"],
                     "severity": d["severity"], "confidence": rnd(), "title": d["title"]})
# Dedupe by file:line:title, keeping the most confident.
best = {}
for f in findings:
    key = f"{f['file']}:{f['line']}:{f['title']}"
    prev = best.get(key)
    if prev is None or f["confidence"] > prev["confidence"]:
        best[key] = f
unique = list(best.values())
# Group by area, aggregate severities and mean confidence.
rank = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}
areas = {}
for f in unique:
    area = f["file"].split("/")[1]
    a = areas.setdefault(area, {"area": area, "count": 0, "conf": 0.0, "by_severity": {}, "worst": 0, "files": set()})
    a["count"] += 1
    a["conf"] += f["confidence"]
    a["by_severity"][f["severity"]] = a["by_severity"].get(f["severity"], 0) + 1
    a["worst"] = max(a["worst"], rank[f["severity"]])
    a["files"].add(f["file"])
table = sorted(
    ({"area": a["area"], "count": a["count"], "mean": round(a["conf"] / a["count"], 3),
      "by_severity": a["by_severity"], "worst": a["worst"], "files": len(a["files"])} for a in areas.values()),
    key=lambda r: (-r["worst"], -r["count"], r["area"]),
)
# Rank the serious ones and render a report.
serious = sorted(
    (f for f in unique if rank[f["severity"]] >= 3 and f["confidence"] > 0.5),
    key=lambda f: (-rank[f["severity"]], -f["confidence"], f["file"], f["line"]),
)
lines = [f"{i + 1}. [{f['severity']}] {f['file']}:{f['line']} {f['title']} ({f['confidence']:.2f})"
         for i, f in enumerate(serious[:2000])]
report = "\n".join(lines)
per_agent = {}
for f in findings:
    per_agent[f["agent"]] = per_agent.get(f["agent"], 0) + 1
return {"total": len(findings), "unique": len(unique), "serious": len(serious), "areas": len(table),
        "top": table[:3], "report_length": len(report), "per_agent": per_agent}
