meta = {"name": "for_subscript_targets", "description": "for loops that store into dict keys and list slots, and positional-only names passed to **kwargs, as CPython binds them"}

latest = {}
for latest["event"] in ["queued", "started", "done"]:
    pass
grid = [[0, 0], [0, 0]]
seen = []
for i, grid[1][0] in enumerate(["a", "b"]):
    seen.append((i, grid[1][0]))
counts = {"ok": 0}
for counts["last"], (name, n) in [("x", ("alpha", 1)), ("y", ("beta", 2))]:
    counts["ok"] += n
cells = {}
for row in range(2):
    for cells[row], flag in [(row * 10, True)]:
        pass

def tag(name, /, **attrs):
    return [name, attrs]

def pick(a, /, b, **rest):
    return [a, b, rest]

out = [tag("div", name="menu", cls="wide"), pick(1, 2, a=3)]
for call in [lambda: pick(a=1, b=2), lambda: tag(name="x")]:
    try:
        out.append(call())
    except TypeError as e:
        out.append(str(e))
return {"latest": latest, "grid": grid, "seen": seen, "counts": counts, "cells": cells, "flag": flag, "calls": out}
