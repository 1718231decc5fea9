meta = {"name": "dict_deletes_at_scale", "description": "dicts of thousands of keys: del, pop, popitem, re-inserts, iteration after deletes, size-change errors, counting and grouping dicts"}


def digest(xs):
    # the whole order, folded: a position-weighted checksum plus samples
    h = 0
    xs = list(xs)
    for i, x in enumerate(xs):
        h = (h * 31 + (i + 1) * (hash(x) % 1000003 if isinstance(x, int) else sum(ord(c) for c in x))) % 1000000007
    return [len(xs), h, xs[:6], xs[len(xs) // 2:len(xs) // 2 + 3], xs[-6:]]


out = {}
n = 3000
d = {f"k{i}": i for i in range(n)}
for i in range(0, n, 2):
    del d[f"k{i}"]
for i in range(1, n, 4):
    d.pop(f"k{i}")
out["after_deletes"] = digest(d)
out["len"] = len(d)
out["pop_default"] = [d.pop("k0", "gone"), d.pop("k3", "gone")]
# re-inserting a deleted key puts it at the end; an existing key keeps its place
for i in range(0, 60, 3):
    d[f"k{i}"] = -i
d["k7"] = "still seventh"
out["reinserted"] = digest(d)
out["values_tail"] = list(d.values())[-5:]
out["items_head"] = list(d.items())[:4]
# positional reads across holes: next(iter()), reversed, enumerate
out["first"] = next(iter(d))
out["reversed"] = list(reversed(d))[:5]
out["enum"] = [(i, k) for i, k in enumerate(d) if i % 400 == 0]

# popitem is LIFO, also after deleting the tail
e = {i: i * i for i in range(2000)}
for i in range(1990, 2000):
    del e[i]
out["popitem"] = [e.popitem() for _ in range(5)]
for i in range(1500, 1985):
    e.pop(i)
out["popitem_after_tail"] = [e.popitem(), len(e)]

# a FIFO queue and an LRU move-to-end over one dict
q = {i: str(i) for i in range(2500)}
taken = []
while len(q) > 500:
    k = next(iter(q))
    taken.append(q.pop(k))
out["fifo"] = [taken[:3], taken[-3:], digest(q)]
lru = {i: i for i in range(1000)}
for step in range(3000):
    k = (step * 37) % 1000
    lru[k] = lru.pop(k)
out["lru"] = digest(lru)

# deleting every key, then refilling
f = {i: i for i in range(1200)}
for i in range(1200):
    del f[i]
out["emptied"] = [len(f), list(f), bool(f)]
for i in range(5, 0, -1):
    f[i] = i
out["refilled"] = list(f.items())

# size changes while iterating raise; a same-size update does not
g = {i: i for i in range(100)}
for i in range(0, 100, 3):
    del g[i]
errors = []
try:
    for k in g:
        if k == 50:
            del g[k]
except RuntimeError as ex:
    errors.append(str(ex))
try:
    for k in g.values():
        g["new"] = 1
except RuntimeError as ex:
    errors.append(str(ex))
try:
    for k, v in g.items():
        g.pop(k)
except RuntimeError as ex:
    errors.append(str(ex))
for k in g:
    g[k] = "same size"
out["errors"] = errors
out["g"] = [len(g), list(g)[:5], list(g)[-3:], g[2]]
it = iter(g)
next(it)
g.popitem()
try:
    next(it)
except RuntimeError as ex:
    out["iter_after_popitem"] = str(ex)
out["keys_view"] = [len(g.keys()), 1 in g.keys(), 51 in g, list(g.keys())[-2:]]

# equality, copies, comprehension and merges of dicts with holes
h1 = {i: i for i in range(300)}
for i in range(0, 300, 2):
    del h1[i]
h2 = {i: i for i in range(1, 300, 2)}
out["eq"] = [h1 == h2, list(h1) == list(h2), h1.copy() == h2, dict(h1) == h2]
m = h1 | {1: "one", 1000: "k"}
out["merge"] = [len(m), list(m)[:3], list(m)[-2:]]
h1.update({0: "zero", 3: "three"})
out["update"] = [list(h1)[:3], list(h1)[-2:]]
out["setdefault"] = [h1.setdefault(2, "two"), h1.setdefault(5, "x"), list(h1)[-1]]
out["repr"] = repr({k: h1[k] for k in list(h1)[:4]})

# counting and grouping dicts (the Counter / defaultdict shapes; scripts import nothing)
c = {}
for i in range(5000):
    w = f"w{i % 97}"
    c[w] = c.get(w, 0) + 1
for i in range(0, 97, 2):
    del c[f"w{i}"]
c.pop("w1")
c["w0"] = c.get("w0", 0) + 3
top = sorted(c.items(), key=lambda kv: -kv[1])[:3]
out["counter"] = [len(c), list(c)[:4], list(c)[-3:], top, c.get("w2", 0), sum(c.values())]
dd = {}
for i in range(3000):
    dd.setdefault(i % 211, []).append(i)
for i in range(0, 211, 5):
    del dd[i]
dd.setdefault(0, []).append("back")
out["grouping"] = [len(dd), list(dd)[:4], list(dd)[-2:], dd.popitem()[0], len(dd[1])]
d2 = {}
for i in range(4000):
    d2[i % 50] = d2.pop((i + 25) % 50, 0) + 1
out["churn"] = [len(d2), list(d2.items())[:6]]
return out
