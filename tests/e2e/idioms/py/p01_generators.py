meta = {"name": "gen_batches", "description": "batch work items lazily", "phases": ["plan"]}

def chunks(xs, n):
    batch = []
    for x in xs:
        batch.append(x)
        if len(batch) == n:
            yield batch
            batch = []
    if batch:
        yield batch

def numbered(lines, start=1):
    n = start
    for line in lines:
        if not line.strip():
            continue
        yield f"{n:>3}. {line.strip()}"
        n += 1

def flatten(tree):
    for node in tree:
        if isinstance(node, list):
            yield from flatten(node)
        else:
            yield node

def running_total():
    total = 0
    while True:
        x = yield total
        if x is None:
            return
        total += x

files = [f"src/mod_{i}.py" for i in range(7)]
batches = list(chunks(files, 3))
lines = list(numbered(["alpha", "", "  beta  ", "gamma", "   "]))
flat = list(flatten([1, [2, [3, [4, 5]], 6], [[7]]]))
acc = running_total()
next(acc)
totals = [acc.send(v) for v in [5, 10, -3]]
evens = sum(x for x in range(20) if x % 2 == 0)
first_big = next((x for x in flat if x > 4), None)
missing = next((x for x in flat if x > 100), "none")
squares = dict((k, k * k) for k in range(4))
g = (c.upper() for c in "abc")
part = [next(g)]
rest = list(g)
opts = {"depth": 1, "fast": True}
overrides = {"depth": 3}
merged = opts | overrides
opts |= {"extra": [1]}
scratch = {"a": 1, "b": 2, "c": 3}
del scratch["b"]
items = list(range(8))
del items[1:3]
del items[-1]
tmp = "gone"
del tmp
try:
    tmp
    unbound = False
except NameError:
    unbound = True
return {"batches": batches, "lines": lines, "flat": flat, "totals": totals, "evens": evens,
        "first_big": first_big, "missing": missing, "squares": squares, "part": part, "rest": rest,
        "merged": merged, "opts": opts, "scratch": scratch, "items": items, "unbound": unbound}
