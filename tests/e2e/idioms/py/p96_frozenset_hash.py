meta = {"name": "frozenset_hash", "description": "dedupe label groups with frozensets and shard them by hash"}

groups = [["bug", "ui"], ["ui", "bug"], ["perf"], [], ["bug", "ui", "perf"], ["perf"], [1, 2], [2, 1], [(1, "a"), (2, "b")]]
keys = [frozenset(g) for g in groups]
hashes = [hash(k) for k in keys]
unique = []
seen = set()
for k in keys:
    if k not in seen:
        seen.add(k)
        unique.append(sorted(k, key=str))
shards = {}
for k in keys:
    shards.setdefault(hash(k) % 4, []).append(sorted(k, key=str))
numeric = [hash(frozenset()), hash(frozenset([1, 2])), hash(frozenset(range(10))), hash(frozenset([-1, 2 ** 61, 1.5, True])),
           hash(frozenset([frozenset([1]), frozenset([2, 3])])), hash((frozenset([1]), 2)), hash(frozenset("abc")) == hash(frozenset("cba"))]
order = [sorted(s) for s in {frozenset([1]), frozenset([2, 3]), frozenset(), frozenset([7, 8, 9]), frozenset([4])}]
nested = [sorted(map(sorted, s)) for s in [{frozenset([1, 2]), frozenset([3])}]]
log(f"{len(unique)} unique groups over {len(shards)} shards")
return {"hashes": hashes, "unique": unique, "shards": {str(k): v for k, v in sorted(shards.items())}, "numeric": numeric, "order": order,
        "nested": nested, "same": [hashes[0] == hashes[1], hashes[6] == hashes[7]]}
