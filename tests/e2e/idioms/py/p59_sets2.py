meta = {"name": "sets2", "description": "set algebra over labels, files and owners"}

a = {"api", "web", "db", "cli"}
b = {"db", "cli", "docs"}
fs = frozenset(["x", "y"])
out = {
    "ops": [sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b), sorted(a.union(b, {"z"})), sorted(a.intersection(b, {"db"})), sorted(a.difference(b, {"api"})), sorted(a.symmetric_difference(b))],
    "preds": [a.issubset(a | b), {"db"} <= b, {"db"} < {"db"}, a.isdisjoint({"q"}), a.issuperset({"api"}), a > {"api"}, b >= b],
    "frozen": [sorted(fs | {"z"}), fs == frozenset("yx"), {fs: 1}[frozenset(["y", "x"])], "x" in fs, len(fs)],
    "tuples": sorted({(1, "a"), (0, "b"), (1, "a")}),
    "comp": sorted({n % 4 for n in range(10)}),
    "from_str": sorted(set("mississippi")),
    "eq": [{1, 2} == {2, 1}, {1, 2} == frozenset({1, 2}), set() == set([]), {1.0} == {1}, {True} == {1}],
}
c = set()
c.add(3)
c.add(1)
c.update([2, 3], {4})
c.discard(99)
c.remove(4)
d = c.copy()
d.clear()
e = {1, 2, 3, 4}
e -= {1}
e |= {9}
e &= {2, 3, 9, 10}
e ^= {3, 11}
out["mutate"] = [sorted(c), sorted(d), sorted(e)]
try:
    c.remove(42)
except KeyError as err:
    out["remove_err"] = str(err)
labels = ["bug", "p1", "bug", "ui", "p1", "backend"]
seen = set()
ordered_unique = [x for x in labels if not (x in seen or seen.add(x))]
out["ordered_unique"] = ordered_unique
out["counts"] = {x: labels.count(x) for x in sorted(set(labels))}
owners = {"a.py": {"ann", "bob"}, "b.py": {"bob"}, "c.py": {"cy", "ann"}}
everyone = set().union(*owners.values())
common = set.intersection(*owners.values()) if False else owners["a.py"] & owners["c.py"]
out["owners"] = [sorted(everyone), sorted(common), sorted(f for f, o in owners.items() if "bob" in o)]
out["len_bool"] = [len(a), bool(set()), bool({0})]
out["sorted_by_len"] = sorted(a, key=lambda s: (len(s), s))
out["min_max"] = [min(a), max(a)]
return out
