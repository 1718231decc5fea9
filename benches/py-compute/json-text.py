meta = {"name": "bench-json-text", "description": "json.dumps and json.loads of a few MB of agent results"}
state = [0x7777]


def rnd():
    s = state[0]
    s ^= (s << 13) & 0xFFFFFFFF
    s ^= s >> 17
    s ^= (s << 5) & 0xFFFFFFFF
    state[0] = s
    return s / 4294967296


n = (args or {}).get("n", 20000)
results = []
for i in range(n):
    results.append({
        "id": f"R-{i}",
        "agent": f"reviewer-{i % 7}",
        "verdict": "pass" if rnd() < 0.5 else "fail",
        "score": round(rnd() * 10000) / 100,
        "tags": [t for t in ["ui", "api", "db", "perf"] if rnd() < 0.5],
        "finding": {"file": f"src/mod{i % 300}/file{i % 41}.ts", "line": int(rnd() * 2000),
                    "note": "looks off by one in the totals; check the boundary"},
    })
size = 0
count = 0
for rnd_i in range(3):
    text = json.dumps(results)
    size += len(text)
    back = json.loads(text)
    count += len(back)
    pretty = json.dumps(back[rnd_i], indent=2)
    size += len(pretty)
return {"bytes": size, "count": count}
