meta = {"name": "bench-sort-objects", "description": "Sort 200k result dicts by two keys"}
state = [0x1234567]


def rnd():
    s = state[0]
    s ^= (s << 13) & 0xFFFFFFFF
    s ^= s >> 17
    s ^= (s << 5) & 0xFFFFFFFF
    state[0] = s
    return s / 4294967296


n = (args or {}).get("n", 200000)
sev = ["low", "medium", "high", "critical"]
rows = []
for i in range(n):
    rows.append({"id": i, "score": int(rnd() * 1000), "name": f"item-{int(rnd() * 50000)}", "severity": sev[i % 4]})
rows.sort(key=lambda r: (-r["score"], r["name"], r["id"]))
by_name = sorted(rows, key=lambda r: (r["name"].lower(), r["id"]))
return {"first": [r["id"] for r in rows[:3]], "last": rows[n - 1]["id"],
        "first_name": by_name[0]["name"], "last_name": by_name[n - 1]["name"]}
