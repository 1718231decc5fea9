meta = {"name": "call_error_qualnames", "description": "forward options to helpers and report the TypeErrors of bad calls"}

def describe(*args, sep=" ", **kw):
    return sep.join(str(a) for a in args) + str(sorted(kw))

def pair(a, b=2):
    return [a, b]

def need(a, *, c):
    return [a, c]

def pos(x, /, y=0):
    return x + y

def make():
    def inner(v, w):
        return v * w
    return inner

helper = make()
scale = lambda v, k=2: v * k
defaults = {"sep": "-"}
more = {"sep": "+", "z": 1}

cases = {
    "dup_merge": lambda: describe(1, **defaults, **more),
    "dup_named_and_merge": lambda: describe(1, sep=":", **defaults),
    "dup_positional": lambda: pair(1, a=3),
    "dup_positional_merge": lambda: pair(1, **{"a": 3}),
    "missing": lambda: pair(),
    "missing_kwonly": lambda: need(1),
    "unexpected": lambda: pair(1, c=2),
    "unexpected_merge": lambda: pair(1, **{"q": 2}),
    "too_many": lambda: pair(1, 2, 3),
    "too_many_star": lambda: pair(*[1, 2, 3, 4]),
    "inner_missing": lambda: helper(1),
    "inner_dup": lambda: helper(1, **{"v": 2}),
    "lambda_many": lambda: scale(1, 2, 3),
    "lambda_dup": lambda: scale(1, **{"k": 1}, **{"k": 2}),
    "posonly_kw": lambda: pos(x=1),
    "ok": lambda: describe("a", "b", **defaults, z=1),
}
report = {}
for name, call in cases.items():
    try:
        report[name] = ["ok", call()]
    except TypeError as e:
        report[name] = ["TypeError", str(e)]
log(report["dup_merge"][1])
return report
