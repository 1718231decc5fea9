meta = {"name": "bench-dict-set", "description": "Dedupe with set, count with dict, aggregate by bucket"}
state = [0x9E3779B9]


def rnd():
    s = state[0]
    s ^= (s << 13) & 0xFFFFFFFF
    s ^= s >> 17
    s ^= (s << 5) & 0xFFFFFFFF
    state[0] = s
    return s / 4294967296


n = (args or {}).get("n", 200000)
ids = [f"id-{int(rnd() * n / 2)}" for _ in range(n)]
unique = list(dict.fromkeys(ids))
counts = {}
for i in ids:
    counts[i] = counts.get(i, 0) + 1
top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
by_bucket = {}
for i in range(n):
    k = "b" + str(i % 997)
    by_bucket[k] = by_bucket.get(k, 0) + i
num_set = set()
for i in range(n):
    num_set.add((i * 7919) % 100003)
hits = sum(1 for i in range(n) if i in num_set)
return {"unique": len(unique), "top": top, "buckets": len(by_bucket), "hits": hits}
