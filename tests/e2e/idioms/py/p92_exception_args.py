meta = {"name": "exception_args", "description": "inspect the arguments errors were raised with, as retry logic and reports do"}

def attempt(kind):
    if kind == "int":
        raise ValueError(3)
    if kind == "pair":
        raise ValueError("bad score", 0.25)
    if kind == "status":
        raise RuntimeError("http", 503, {"retry_after": 2.5})
    if kind == "key":
        return {}[("lane", 2)]
    if kind == "keys":
        raise KeyError("a", 1)
    if kind == "custom":
        raise NotImplementedError("step", 4, None)
    if kind == "quota":
        raise ZeroDivisionError(12, -10)
    if kind == "nested":
        raise LookupError(KeyError("inner"))
    if kind == "float":
        return 2.5 ** 2000
    if kind == "none":
        raise TypeError(None)
    if kind == "list":
        raise AssertionError(["x", "y"], True)
    return "fine"

def kind_of(e):
    for name, k in [("KeyError", KeyError), ("LookupError", LookupError), ("ZeroDivisionError", ZeroDivisionError),
                    ("OverflowError", OverflowError), ("ValueError", ValueError), ("TypeError", TypeError),
                    ("NotImplementedError", NotImplementedError), ("RuntimeError", RuntimeError),
                    ("AssertionError", AssertionError)]:
        if isinstance(e, k):
            return name
    return "Exception"

report = []
for kind in ["int", "pair", "status", "key", "keys", "custom", "quota", "nested", "float", "none", "list", "ok"]:
    try:
        report.append([kind, "ok", attempt(kind)])
    except Exception as e:
        first = e.args[0] if e.args else None
        report.append([kind, kind_of(e), str(e), repr(e), len(e.args), repr(first), [isinstance(first, t) for t in (str, int, float, dict, tuple, list, Exception)], f"{e}", f"{e!r}"])

codes = []
for args in [(), ("only",), (404,), ("nf", 404), (1, 2, 3)]:
    err = ValueError(*args)
    codes.append([list(err.args), str(err), repr(err), err.args == args])

retry = []
for e in [RuntimeError("http", 429), RuntimeError("http", 500), RuntimeError("boom")]:
    if len(e.args) == 2 and isinstance(e.args[1], int) and e.args[1] >= 500:
        retry.append(["retry", e.args[1]])
    elif len(e.args) == 2:
        retry.append(["give up", e.args[1] + 1])
    else:
        retry.append(["fatal", e.args[0].upper()])

try:
    try:
        raise ValueError("first", 1)
    except ValueError as inner:
        raise RuntimeError("wrapped", inner.args) from inner
except RuntimeError as outer:
    chained = [str(outer), repr(outer), outer.args[1][1] * 10, isinstance(outer.args[1], tuple)]

log(f"{len(report)} attempts; {report[1][3]}")
return {"report": report, "codes": codes, "retry": retry, "chained": chained}
