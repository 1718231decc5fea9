meta = {"name": "tuple_assign_subscripts", "description": "swap list items, fill dict keys and heap slots with one tuple assignment, targets assigned in order after the value is unpacked"}
trace = []
def idx(name, v):
    trace.append(name)
    return v
xs = [1, 2, 3, 4]
xs[0], xs[3] = xs[3], xs[0]
d = {}
d["a"], d["b"] = 1, 2
[d["c"], d["d"]] = "cd"
i = 0
xs[i], i = "x", 2
pair = {"p": [0, 0]}
pair["p"][0], (pair["p"][1], tail) = 9, [8, "t"]
first, *d["rest"] = [1, 2, 3]
xs[idx("t1", 1)], xs[idx("t2", 2)] = idx("r1", "A"), idx("r2", "B")
m = [[1, 2], [3, 4]]
m[0][1], m[1][0] = m[1][0], m[0][1]
h = [5, 3, 8]
top, h[0] = h[0], h.pop()
try:
    d["x"], d["y"] = [1, 2, 3]
except ValueError as e:
    trace.append(str(e))
def swap_in(lst, a, b):
    lst[a], lst[b] = lst[b], lst[a]
    return lst
def outer():
    acc = {"n": 0}
    def inner():
        acc["n"], acc["m"] = acc.get("n", 0) + 1, "set"
    inner()
    return acc
return {"xs": xs, "d": d, "i": i, "pair": pair, "tail": tail, "first": first, "trace": trace, "m": m, "h": h, "top": top,
        "swap": swap_in(list("abc"), 0, 2), "outer": outer()}
