meta = {
    "name": "generator_stop_iteration",
    "description": "A pairing generator over agent rows: a StopIteration escaping a generator is a RuntimeError (PEP 479)",
    "phases": ["pair"],
}

phase("pair")
rows = (await agent("List the review rows", label="rows"))["rows"]

def pairs(items):
    it = iter(items)
    for first in it:
        yield first, next(it)

def safe_pairs(items):
    it = iter(items)
    for first in it:
        yield first, next(it, None)

outcomes = []
for data in (rows, rows[:-1]):
    try:
        outcomes.append(["ok", [list(p) for p in pairs(data)]])
    except RuntimeError as e:
        outcomes.append(["RuntimeError", str(e)])
try:
    firsts = [x for x in (next(iter([])) for _ in range(2))]
except RuntimeError as e:
    firsts = str(e)
log(f"{len(rows)} rows")
return {"outcomes": outcomes, "safe": [list(p) for p in safe_pairs(rows)], "genexpr": firsts}
