meta = {"name": "comprehensions_unpacking", "description": "comprehensions, unpacking, walrus, sets"}

data = [("a", 3), ("b", 1), ("c", 3), ("d", 0), ("e", 2)]
first, *middle, last = data
(k0, v0), *_ = data
a, b = 1, 2
a, b = b, a
nested = [[i * j for j in range(1, 4)] for i in range(1, 4)]
flat = [x for row in nested for x in row if x % 2]
pairs = {k: v for k, v in data if v}
inv = {v: [k for k, w in data if w == v] for v in sorted({v for _, v in data})}
evens = {x for x in range(10) if x % 2 == 0}
odds = set(range(1, 10, 2))
s = {"ops": [sorted(evens | odds), sorted(evens & {0, 2, 11}), sorted(evens - {0}), sorted(evens ^ {0, 1}),
             {1, 2} <= {1, 2, 3}, {1, 2}.isdisjoint({3}), sorted(frozenset("hello")), len({1, 1.0, True})]}
if (n := len(data)) > 3:
    big = f"{n} items"
chunks = [data[i:i + 2] for i in range(0, len(data), 2)]
transposed = [list(t) for t in zip(*nested)]
windows = [sum(w) for w in zip(range(5), range(1, 6), range(2, 7))]
seen = set()
dedup = [x for x in [3, 1, 3, 2, 1, 5] if not (x in seen or seen.add(x))]
counts = {}
for ch in "mississippi":
    counts[ch] = counts.get(ch, 0) + 1
ranked = sorted(counts, key=lambda c: (-counts[c], c))
idx = {name: i for i, (name, _) in enumerate(data, start=1)}
gen_sum = sum(v for _, v in data)
anyall = [any(v == 0 for _, v in data), all(v >= 0 for _, v in data), any([]), all([])]
cond = [("hi" if v > 2 else "lo" if v else "zero") for _, v in data]
zipped = list(zip("abc", [1, 2, 3, 4]))
enum = list(enumerate("xy", 10))
rev = list(reversed(data))[:2]
rng = [list(range(5, 0, -2)), list(range(0)), len(range(0, 100, 7)), range(10)[3], list(range(10)[2:8:3])]
matrix = [[0] * 3 for _ in range(2)]
matrix[0][1] = 5
star_call = "-".join([*map(str, [1, 2]), *"xy"])
d1 = {"a": 1, "b": 2}
d2 = {**d1, "b": 3, "c": 4}
ks = sorted(d2.keys() - {"a"})
items_list = [list(kv) for kv in d2.items()]
return {"first": first, "middle": middle, "last": last, "k0v0": [k0, v0], "swap": [a, b], "nested": nested, "flat": flat,
        "pairs": pairs, "inv": inv, "sets": s, "big": big, "chunks": chunks, "transposed": transposed, "windows": windows,
        "dedup": dedup, "ranked": ranked, "idx": idx, "gen_sum": gen_sum, "anyall": anyall, "cond": cond, "zipped": zipped,
        "enum": enum, "rev": rev, "rng": rng, "matrix": matrix, "star": star_call, "d2": d2, "ks": ks, "items": items_list}
