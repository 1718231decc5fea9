meta = {"name": "list_slice_deletes_at_scale", "description": "del xs[a:b], del xs[::k] and negative steps on long and short lists"}

# Monty removed a slice's items one Vec::remove at a time, so `del xs[::2]`
# on 400,000 items took 8 s; CPython compacts the list in one pass.


def digest(xs):
    h = 0
    for i, x in enumerate(xs):
        h = (h * 31 + (i + 1) * x) % 1000000007
    return [len(xs), h, xs[:4], xs[-4:]]


out = {}
xs = list(range(400000))
del xs[::2]
out["every_other"] = digest(xs)
del xs[:1000]
del xs[-1000:]
for k in range(300):
    del xs[k * 10:k * 10 + 5]
out["runs"] = digest(xs)
del xs[-1::-3]
out["back_by_3"] = digest(xs)
del xs[10:100000:7]
del xs[500:50:-11]
out["bounded"] = digest(xs)

cases = []
for start in [None, -7, -1, 0, 2, 5, 12]:
    for stop in [None, -9, -2, 0, 3, 8, 20]:
        for step in [None, -3, -2, -1, 1, 2, 4]:
            ys = list(range(10))
            del ys[start:stop:step]
            cases.append(ys)
out["small"] = [len(cases), sum(len(c) for c in cases), cases[::37]]

objs = [{"i": i} for i in range(30000)]
keep = objs[::5]
del objs[1::2]
out["objs"] = [len(objs), objs[7]["i"], keep[3]["i"], sum(o["i"] for o in objs) % 1000003]
return out
