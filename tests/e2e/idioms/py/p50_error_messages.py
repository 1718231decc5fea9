meta = {"name": "error_messages", "description": "the builtin error messages scripts log when they catch"}

def attempt(fn):
    try:
        fn()
        return "ok"
    except Exception as e:
        return f"{type_name(e)}: {e}"

def type_name(e):
    for cls, name in [(KeyError, "KeyError"), (IndexError, "IndexError"), (ZeroDivisionError, "ZeroDivisionError"),
                      (ValueError, "ValueError"), (TypeError, "TypeError"), (AttributeError, "AttributeError"),
                      (NameError, "NameError"), (AssertionError, "AssertionError"), (RuntimeError, "RuntimeError"),
                      (StopIteration, "StopIteration"), (OverflowError, "OverflowError")]:
        if isinstance(e, cls):
            return name
    return "Exception"

def unpack2(value):
    first, second = value
    return first

cases = [
    lambda: int("abc"),
    lambda: int("12.5"),
    lambda: int(""),
    lambda: float("x1"),
    lambda: [].pop(),
    lambda: [1, 2].pop(5),
    lambda: {}.popitem(),
    lambda: "abc".index("z"),
    lambda: [1, 2].remove(3),
    lambda: [1, 2].index(3),
    lambda: undefined_name + 1,
    lambda: len(5),
    lambda: 1 + "a",
    lambda: "a" + 1,
    lambda: None(),
    lambda: None[0],
    lambda: {[1]: 2},
    lambda: {}.foo,
    lambda: "x".nope(),
    lambda: 1 / 0,
    lambda: 1 // 0,
    lambda: 1 % 0,
    lambda: 1.0 / 0,
    lambda: [1][2],
    lambda: (1, 2)[3],
    lambda: "ab"[5],
    lambda: {"a": 1}["b"],
    lambda: next(iter([])),
    lambda: sorted([1, "a"]),
    lambda: max([]),
    lambda: min(1),
    lambda: sum(["a", "b"]),
    lambda: "a" * 2.5,
    lambda: [1, 2] + (3,),
    lambda: int(None),
    lambda: float([]),
    lambda: abs("x"),
    lambda: round("x"),
    lambda: chr(-1),
    lambda: ord("ab"),
    lambda: list(5),
    lambda: "x" < 1,
    lambda: [1] < "a",
    lambda: 2 ** 10000.5,
    lambda: math.sqrt(-1),
    lambda: math.log(0),
    lambda: "%d" % "x",
    lambda: tuple(1),
    lambda: {1, 2}.remove(3),
    lambda: set().pop(),
    lambda: "a,b".split(""),
    lambda: range(0, 10, 0),
    lambda: divmod(1, 0),
    lambda: pow(0, -1),
    lambda: int("5", 1),
    lambda: "abc".encode("nope") if False else "".join([1, 2]),
    lambda: json.loads(5),
    lambda: [].sort(key=1),
    lambda: [1][None],
    lambda: "abc"[1.5],
    lambda: (1, 2)["a"],
    lambda: unpack2([1, 2, 3]),
    lambda: unpack2([1]),
    lambda: unpack2(5),
    lambda: None.get("x"),
    lambda: (lambda a: a)(),
    lambda: (lambda: 0)(1),
]
results = [attempt(c) for c in cases]

def checks(x):
    assert x > 0, f"x must be positive, got {x}"
    assert x < 10
    return x

results.append(attempt(lambda: checks(-1)))
results.append(attempt(lambda: checks(11)))
try:
    raise KeyError("k")
except LookupError as e:
    results.append([str(e), repr(e)])
try:
    try:
        1 / 0
    except ZeroDivisionError as e:
        raise RuntimeError("wrapped") from e
except RuntimeError as e:
    results.append([str(e)])
try:
    raise CapabilityError("denied by policy", code="policy_denied")
except RuntimeError as e:
    results.append([str(e), e.code, e.retryable, isinstance(e, CapabilityError)])
try:
    raise
except RuntimeError as e:
    results.append(str(e))
try:
    raise KeyError(7)
except KeyError as e:
    results.append([str(e), repr(e)])
results.append([repr(ValueError(3)), repr(IndexError(-1)), str(RuntimeError([1, "a"]))])
shards = {}
for name in ["api", "web", "db", "cli", "docs", (1, "a"), 2.5, 2 ** 70]:
    shards.setdefault(hash(name) % 4, []).append(str(name))
results.append(sorted(shards.items()))
return results
