meta = {"name": "exceptions", "description": "error handling the way workflow authors write it"}

log_lines = []

def parse_score(raw):
    try:
        value = float(raw)
    except (TypeError, ValueError) as e:
        log_lines.append(f"bad score {raw!r}: {e!r}")
        return None
    else:
        if not 0 <= value <= 10:
            raise ValueError(f"score out of range: {value}")
        return value
    finally:
        log_lines.append(f"parsed {raw!r}")

scores = []
for raw in ["7.5", "x", None, "11", " 3 ", "1e1"]:
    try:
        scores.append(parse_score(raw))
    except ValueError as e:
        scores.append(str(e))

def lookup(d, key):
    try:
        return d[key]
    except KeyError as e:
        return f"missing {e}"

caught = []
for fn in [lambda: [1, 2][5], lambda: {"a": 1}["b"], lambda: 1 / 0, lambda: int("4.5"), lambda: "x" + 1,
           lambda: None.get("k"), lambda: [].pop(), lambda: {}.popitem(), lambda: "abc".index("z"),
           lambda: max([]), lambda: next(iter([])), lambda: (1, 2).append(3), lambda: float("nan!"),
           lambda: int("12", 2), lambda: [1, 2, 3].remove(9), lambda: {"a"}.remove("b"), lambda: "a" * "b",
           lambda: len(5), lambda: sorted([1, "a"]), lambda: divmod(1, 0), lambda: chr(-1), lambda: math.sqrt(-1),
           lambda: json.loads("{bad"), lambda: undefined_name]:
    try:
        fn()
        caught.append("ok")
    except Exception as e:
        caught.append(f"{e!r}")

def chain():
    try:
        {}["cfg"]
    except KeyError as e:
        raise RuntimeError("config missing") from e

try:
    chain()
except RuntimeError as e:
    chained = [str(e), isinstance(e, Exception)]

err = CapabilityError("agent refused", code="refused", retryable=False)
typed = [str(err), err.code, err.retryable, isinstance(err, RuntimeError)]
try:
    raise CapabilityError("rate limited", "rate_limit", True)
except RuntimeError as e:
    typed.append([str(e), e.code, e.retryable])

retries = 0
while True:
    try:
        retries += 1
        if retries < 3:
            raise CapabilityError(f"attempt {retries} failed", code="flaky", retryable=True)
        break
    except CapabilityError as e:
        if not e.retryable:
            raise
        log_lines.append(str(e))

def reraiser():
    try:
        raise KeyError("k")
    except KeyError:
        raise

try:
    reraiser()
except LookupError as e:
    typed.append(["lookup", repr(e), str(e), e.args])

e1 = ValueError("one")
typed.append([repr(e1), repr(KeyError("x")), repr(RuntimeError()), str(KeyError())])
try:
    assert len(scores) == 99, f"expected 99, got {len(scores)}"
except AssertionError as e:
    typed.append(str(e))
return {"scores": scores, "lookup": [lookup({"a": 1}, "a"), lookup({}, "b")], "caught": caught,
        "chained": chained, "typed": typed, "retries": retries, "log": log_lines}
