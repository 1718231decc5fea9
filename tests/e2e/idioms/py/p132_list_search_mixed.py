meta = {"name": "list_search_mixed", "description": "in / index / count / remove over lists mixing ints, floats, bools, strings, big ints, NaN, tuples and lists"}

nan = float("nan")
big = 2**70
xs = [1, 2.0, True, "a", "é", big, nan, (1, 2), [3, 4], None, 0, False, 1.0, "a", (1, 2.0)]
out = {}
probes = [1, 2, 2.0, True, False, 0, 0.0, "a", "é", "b", big, float(big), 2**70 + 1, nan, (1, 2), (1.0, 2), [3, 4], [3, 4.0], None, -0.0]
out["in"] = [p in xs for p in probes]
out["nan_identity"] = [xs[6] in xs, xs.count(xs[6]), xs.index(nan)]
out["count"] = [xs.count(p) for p in probes]
idx = []
for p in probes:
    try:
        idx.append(xs.index(p))
    except ValueError as e:
        idx.append(str(e))
out["index"] = idx
out["index_window"] = [xs.index("a", 4), xs.index(1, 1), xs.index(0, -5, -1), xs.index((1, 2), 8)]
try:
    xs.index("a", 4, 13)
except ValueError as e:
    out["window_miss"] = str(e)
ys = list(xs)
ys.remove(1.0)
ys.remove("a")
ys.remove((1.0, 2.0))
ys.remove([3, 4])
out["removed"] = [str(y) for y in ys]
try:
    ys.remove("zz")
except ValueError as e:
    out["remove_miss"] = str(e)

words = ["w" + str(i) for i in range(300)]
hits = 0
total = 0
for i in range(20000):
    w = "w" + str(i % 400)
    if w in words:
        hits += 1
        total += words.index(w)
nums = [i * 0.5 for i in range(400)]
out["scale"] = [hits, total, sum(1 for i in range(2000) if i in nums), nums.count(3), words.count("w7")]
return out
