meta = {"name": "sets_tuples", "description": "set algebra and unpacking"}

required = {"lint", "test", "build"}
provided = set(args.get("checks", ["test", "lint", "docs"]))
missing = sorted(required - provided)
extra = sorted(provided - required)
both = sorted(required & provided)
either = sorted(required | provided)
sym = sorted(required ^ provided)
rel = [required <= provided, {"lint"} <= provided, {"lint"} < provided, provided >= {"docs"}, required.isdisjoint({"x"}),
       required.issubset(required | {"x"}), frozenset([1, 2]) == frozenset([2, 1]), {1, 2} == {2, 1}, len(set("hello"))]
s = set()
s.add(3)
s.update([1, 2, 3])
s.discard(5)
s.remove(1)
popped_from_empty = None
try:
    set().pop()
except KeyError:
    popped_from_empty = "KeyError"
first, *middle, last = [1, 2, 3, 4, 5]
head, *tail = "abc"
(a, b), c = (1, 2), 3
a, b = b, a
pairs = [(k, v) for k, (v, _) in {"x": (1, 0), "y": (2, 0)}.items()]
t = (3, 1, 2)
tuple_ops = [t + (4,), t * 2, t.index(1), t.count(3), sorted(t), max(t), t[::-1], (1, 2) < (1, 3), (2,) > (1, 9), len(()), tuple("ab")]
nested = [(name, score) for name, score in sorted({"b": 2, "a": 2, "c": 1}.items(), key=lambda kv: (-kv[1], kv[0]))]
coords = [(x, y) for x in range(3) for y in range(3) if (x + y) % 2 == 0]
seen = []
dedup = [x for x in [3, 1, 3, 2, 1] if not (x in seen or seen.append(x))]
return {"missing": missing, "extra": extra, "both": both, "either": either, "sym": sym, "rel": rel, "s": sorted(s),
        "popped_from_empty": popped_from_empty, "first": first, "middle": middle, "last": last, "head": head, "tail": tail,
        "abc": [a, b, c], "pairs": pairs, "tuple_ops": tuple_ops, "nested": nested, "coords": coords, "dedup": dedup}
