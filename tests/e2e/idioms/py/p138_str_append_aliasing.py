meta = {"name": "str-append-aliasing", "description": "s += t appends in place only where nothing else sees s"}
s = "ab"
t = s
s += "cd"
u = s
s += "ef"
d = {"k": "x1"}
k = d["k"]
k += "y"
def f(v):
    v += "!"
    return v
w = "base"
w2 = f(w)
acc = ""
parts = []
for i in range(5):
    acc += str(i)
    parts.append(acc)
def build(n):
    out = ""
    seen = []
    for i in range(n):
        out += f"<{i}>"
        if i % 2 == 0:
            seen.append(out)
    return out, seen


def make_counter():
    text = "c"

    def bump():
        nonlocal_like = text
        nonlocal_like += "+"
        return nonlocal_like
    return bump


built = build(5)
bump = make_counter()
cells = [bump(), bump()]
g = "q"
h = g + "r"
h += h
x = "zz"
x += x
grid = ["a", "b"]
grid[0] += "!"
return [s, t, u, d, k, w, w2, parts, h, x, hash(s) == hash("abcdef"), {s: 1}.get("abcdef"), built, cells, grid]
