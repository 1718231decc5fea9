meta = {"name": "slicing_steps", "description": "slices with steps, negative indices and slice assignment"}

xs = list(range(10))
s = "abcdefghij"
out = {
    "steps": [xs[::2], xs[1::3], xs[::-1], xs[::-3], xs[8:2:-2], xs[-3:], xs[:-7], xs[-100:100], xs[5:2], xs[2:8:-1]],
    "str": [s[::-1], s[1:9:3], s[-1:-5:-1], s[:0], s[100:], s[-2], s[::5]],
    "tuple": [list((1, 2, 3, 4)[::-2]), list((1, 2, 3)[5:])],
    "slice_obj": [xs[slice(2, 8, 2)], s[slice(None, None, -2)], xs[slice(3)]],
}
ys = list(range(8))
ys[2:5] = ["a", "b"]
zs = list(range(8))
zs[::2] = ["e0", "e2", "e4", "e6"]
ws = list(range(6))
del ws[::2]
vs = list(range(6))
vs[1:1] = [9, 9]
us = list(range(5))
us[-2:] = []
ts = [1, 2, 3]
ts[len(ts):] = [4, 5]
try:
    zz = list(range(5))
    zz[::2] = [1]
    out["extended_err"] = "none"
except ValueError as e:
    out["extended_err"] = str(e)
try:
    out["idx_err"] = xs[20]
except IndexError as e:
    out["idx_err"] = str(e)
try:
    out["str_idx_err"] = s[20]
except IndexError as e:
    out["str_idx_err"] = str(e)
out["assigned"] = [ys, zs, ws, vs, us, ts]
m = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
out["matrix"] = [[row[i] for row in m] for i in range(3)]
out["diag"] = [m[i][i] for i in range(3)]
out["anti"] = [m[i][-1 - i] for i in range(3)]
out["rot"] = [list(r) for r in zip(*m[::-1])]
out["flat_every_other"] = [v for row in m for v in row][::2]
out["chunks"] = [xs[i:i + 3] for i in range(0, len(xs), 3)]
out["pairs"] = list(zip(xs[::2], xs[1::2]))
out["index"] = [xs.index(5), xs.index(5, 3), "abcabc".index("c", 3), [1, 2, 1, 2].count(2)]
lst = [3, 1, 2]
lst.insert(-1, 9)
lst.insert(100, 7)
lst.insert(-100, 0)
out["insert"] = lst
out["neg_mul"] = [[0] * -1, "ab" * -2, [1, 2] * 2]
return out
