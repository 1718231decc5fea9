meta = {"name": "set_order", "description": "sets iterate in CPython's order (the seed runs with PYTHONHASHSEED=0)"}

labels = ["bug", "ui", "bug", "perf", "docs", "ui", "security", "p1"]
unique = list(set(labels))
ids = list(set([42, 7, 19, 7, 3, 1001, 256, 42]))
REQUIRED = {"title", "summary", "risk", "owner"}
result = {"title": "x", "owner": "y"}
missing = [k for k in REQUIRED if k not in result]
seen = set()
for w in "the quick brown fox jumps over the lazy dog".split():
    seen.add(w)
tags = {"alpha", "beta"} | {"gamma", "delta", "beta"}
common = set("workflow") & set("overflow")
only = set(range(0, 40, 3)) - set(range(0, 40, 4))
either = {"a", "b", "c"} ^ {"c", "d"}
pairs = list({(1, "x"), (2, "y"), (0, "z")})
popped = set(["k1", "k2", "k3", "k4", "k5", "k6"])
first = popped.pop()
popped.discard("k3")
popped.add("k9")
floats = list({0.5, 1.25, 3.0, -2.5})
return {
    "unique": unique, "ids": ids, "missing": missing, "seen": list(seen), "tags": list(tags),
    "common": "".join(common), "only": list(only), "either": sorted(either) + list(either),
    "pairs": [list(p) for p in pairs], "popped": [first, list(popped)], "floats": floats,
    "repr": str({"x", "y", "z"}), "joined": ", ".join({"red", "green", "blue"}), "copy": list(set(tags)),
    "frozen": list(frozenset(labels)), "comp": list({w[0] for w in labels}),
}
