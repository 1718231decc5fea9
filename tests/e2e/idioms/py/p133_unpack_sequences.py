meta = {"name": "unpack_sequences", "description": "a, b = tuple / list of the right and wrong sizes, loops unpacking items, zip and enumerate pairs, swaps, nested targets"}

out = {}
a, b = 1, 2
a, b = b, a
xs = [10, 20, 30]
p, q, r = xs
xs[0], xs[2] = xs[2], xs[0]
(m, n), o = (1, [2, 3]), "s"
[u, v] = "uv"
out["basic"] = [a, b, p, q, r, xs, m, n, o, u, v]

errs = []
for src in [(1, 2, 3), [1], [], (1,), "abc", {"k": 1, "j": 2, "l": 3}, range(5), (i for i in range(4))]:
    try:
        s, t = src
        errs.append([s, t])
    except ValueError as e:
        errs.append(str(e))
try:
    s, t = 5
except TypeError as e:
    errs.append(str(e))
out["errors"] = errs

d = {"k" + str(i): i for i in range(2000)}
tot = 0
for k, v in d.items():
    tot += v + len(k)
for i, (k, v) in enumerate(d.items()):
    tot += i * v % 7
for x, y in zip(range(1000), range(1000, 2000)):
    tot += y - x
pairs = [[i, -i] for i in range(500)]
for lo, hi in pairs:
    tot += lo - hi
rows = [(i, str(i), i * 0.5) for i in range(500)]
acc = [f"{n}:{s}:{f}" for n, s, f in rows][-3:]
first, *rest = [1, 2, 3, 4]
*init, last = (5, 6, 7)
out["loops"] = [tot, acc, first, rest, init, last]

shared = [[1, 2]] * 3
for w, z in shared:
    shared[0][0] += 1
out["shared"] = shared
return out
