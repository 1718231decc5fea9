meta = {"name": "functions_closures", "description": "helpers, closures, decorators, defaults, star-args"}

def retry(times):
    def deco(fn):
        def wrapper(*a, **kw):
            last = None
            for attempt in range(times):
                try:
                    return fn(*a, **kw)
                except ValueError as e:
                    last = e
            return f"gave up: {last}"
        return wrapper
    return deco

calls = []

@retry(3)
def flaky(n):
    calls.append(n)
    if len(calls) < 3:
        raise ValueError(f"try {len(calls)}")
    return n * 2

@retry(2)
def always_bad():
    raise ValueError("nope")

def counter():
    count = [0]
    def inc(step=1):
        count[0] += step
        return count[0]
    return inc

c = counter()
c(); c(5)

def fmt(name, *tags, sep=", ", upper=False, **extra):
    s = name + (": " + sep.join(tags) if tags else "")
    if extra:
        s += " {" + ", ".join(f"{k}={v}" for k, v in sorted(extra.items())) + "}"
    return s.upper() if upper else s

def append_to(x, acc=[]):
    acc.append(x)
    return acc

append_to(1)
shared = append_to(2)
adders = [lambda x, i=i: x + i for i in range(3)]
late = [lambda x: x + i for i in range(3)]

def fib(n, memo={}):
    if n < 2:
        return n
    if n not in memo:
        memo[n] = fib(n - 1) + fib(n - 2)
    return memo[n]

def walk(tree, depth=0):
    out = [("  " * depth) + tree["name"]]
    for child in tree.get("children", []):
        out.extend(walk(child, depth + 1))
    return out

tree = {"name": "root", "children": [{"name": "a", "children": [{"name": "a1"}]}, {"name": "b"}]}
compose = lambda *fs: (lambda x: [x := f(x) for f in fs][-1])
pipeline_fn = compose(str.strip, str.lower, lambda s: s.replace(" ", "_"))
args_list = [1, 2, 3]
kw = {"sep": "|", "upper": True}
return {
    "flaky": flaky(21), "calls": calls, "bad": always_bad(), "counter": c(), "fmt": [fmt("x"), fmt("x", "a", "b"), fmt("x", *["p", "q"], **kw), fmt("n", z=1, a=2)],
    "shared": shared, "adders": [f(10) for f in adders], "late": [f(10) for f in late], "fib": fib(80),
    "walk": walk(tree), "compose": pipeline_fn("  Hello World  "), "star": max(*args_list), "unpack": [*args_list, *"ab", *{"k": 1}],
    "sorted_fns": sorted(["bb", "a", "ccc"], key=len, reverse=True), "map": list(map(lambda a, b: a * b, [1, 2, 3], [4, 5, 6])),
    "filter": list(filter(None, [0, 1, "", "x", None, [], [0]])), "callable": [callable(fib), callable(3), callable(str.upper)],
}
