meta = {"name": "functions", "description": "closures, defaults, varargs, recursion"}

def make_counter(start=0, step=1):
    count = [start]
    def bump(times=1):
        count[0] += step * times
        return count[0]
    return bump

c = make_counter(10, step=5)
bumps = [c(), c(2), c()]

def describe(name, *tags, sep=", ", **extra):
    parts = [name]
    if tags:
        parts.append(sep.join(tags))
    for k in sorted(extra):
        parts.append(f"{k}={extra[k]}")
    return " | ".join(parts)

descs = [describe("a"), describe("b", "x", "y"), describe("c", "x", sep="/", level=2, ok=True), describe(*["d", "t1"], **{"k": "v"})]

def kw_only(a, *, b=2, c):
    return a + b + c

def pos_defaults(a, b=[]):
    b = b + [a]
    return b

memo = {}
def fib(n):
    if n in memo:
        return memo[n]
    r = n if n < 2 else fib(n - 1) + fib(n - 2)
    memo[n] = r
    return r

def apply_all(fns, x):
    return [f(x) for f in fns]

ops = {"double": lambda x: x * 2, "square": lambda x: x ** 2, "neg": lambda x: -x}
dispatch = {name: fn(7) for name, fn in ops.items()}
adders = [lambda x, i=i: x + i for i in range(3)]
late = [lambda x: x + i for i in range(3)]

def compose(*fns):
    def run(x):
        for f in reversed(fns):
            x = f(x)
        return x
    return run

inc_then_double = compose(ops["double"], lambda x: x + 1)

def walk(tree, depth=0):
    out = [("  " * depth) + tree["name"]]
    for child in tree.get("children", []):
        out.extend(walk(child, depth + 1))
    return out

tree = {"name": "root", "children": [{"name": "a", "children": [{"name": "a1"}]}, {"name": "b"}]}

def gcd(a, b):
    return a if b == 0 else gcd(b, a % b)

return {"bumps": bumps, "descs": descs, "kw": kw_only(1, c=3), "kw2": kw_only(1, b=10, c=0),
        "defaults": [pos_defaults(1), pos_defaults(2)], "fib": [fib(n) for n in [0, 1, 10, 50, 90]],
        "apply": apply_all([abs, str, bool], -3), "dispatch": dispatch, "adders": [f(10) for f in adders],
        "late": [f(10) for f in late], "composed": inc_then_double(5), "walk": walk(tree), "gcd": gcd(1071, 462),
        "callable": [callable(fib), callable(3)], "sorted_fn": sorted([3, -1, 2], key=abs)}
