meta = {"name": "functions_args", "description": "star-args, keyword-only args, defaults, closures and lambdas"}

def fmt(*parts, sep=", ", end=""):
    return sep.join(str(p) for p in parts) + end

def kwonly(a, *, b=2, c):
    return [a, b, c]

def posonly(a, b, /, c=3):
    return a + b + c

def collect(*args, **kwargs):
    return {"args": list(args), "kwargs": kwargs}

def accumulate(x, bucket=[]):
    bucket.append(x)
    return list(bucket)

def make_counter():
    state = {"n": 0}
    def inc(by=1):
        state["n"] += by
        return state["n"]
    return inc

def compose(*fns):
    def run(x):
        for f in reversed(fns):
            x = f(x)
        return x
    return run

def apply_all(fns, value):
    return [f(value) for f in fns]

def retry_decorator(times):
    def wrap(fn):
        def inner(*a, **kw):
            errors = []
            for i in range(times):
                try:
                    return fn(i, *a, **kw), errors
                except ValueError as e:
                    errors.append(str(e))
            return None, errors
        return inner
    return wrap

@retry_decorator(3)
def flaky(attempt, label):
    if attempt < 2:
        raise ValueError(f"{label} attempt {attempt}")
    return f"{label} ok on {attempt}"

counter = make_counter()
counter()
counter(5)
adders = [lambda x, n=n: x + n for n in range(3)]
late = [lambda x: x + n for n in range(3)]
opts = {"sep": "|", "end": "!"}
nums = [1, 2, 3]
out = {
    "fmt": [fmt(1, 2, 3), fmt(*nums, **opts), fmt(), fmt("a", sep="")],
    "kwonly": [kwonly(1, c=3), kwonly(1, b=5, c=0), kwonly(c=1, a=0)],
    "posonly": [posonly(1, 2), posonly(1, 2, c=10)],
    "collect": [collect(1, *[2, 3], x=1, **{"y": 2}), collect()],
    "mutable_default": [accumulate(1), accumulate(2), accumulate(3, [])],
    "counter": counter(),
    "compose": compose(lambda x: x + 1, lambda x: x * 2)(5),
    "adders": apply_all(adders, 10),
    "late": apply_all(late, 10),
    "flaky": list(flaky("deploy")),
    "sorted_lambda": sorted(["bb", "a", "ccc"], key=lambda s: (-len(s), s)),
    "recursive": None,
    "unpack_call": [max(*nums), divmod(*[17, 5]), "{}".join(["x", "y"])],
}

def fib(n, memo={}):
    if n in memo:
        return memo[n]
    memo[n] = n if n < 2 else fib(n - 1) + fib(n - 2)
    return memo[n]

out["recursive"] = [fib(30), fib(90)]
errors = []
for call in [lambda: kwonly(1), lambda: fmt(bad=1), lambda: kwonly(1, 2, c=3), lambda: accumulate(), lambda: make_counter()(1, 2), lambda: compose()(1, 2)]:
    try:
        call()
        errors.append("ok")
    except TypeError as e:
        errors.append(str(e))
out["errors"] = errors
return out
