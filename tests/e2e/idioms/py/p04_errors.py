meta = {"name": "error_paths", "description": "exceptions the way scripts use them"}

caught = []
def risky(kind):
    if kind == "key":
        return {}["missing"]
    if kind == "index":
        return [1, 2][5]
    if kind == "zero":
        return 1 / 0
    if kind == "value":
        return int("abc")
    if kind == "type":
        return "a" + 1
    if kind == "attr":
        return [].nope
    if kind == "custom":
        raise ValueError("bad input: " + kind)
    return "ok"

for kind in ["key", "index", "zero", "value", "type", "attr", "custom", "fine"]:
    try:
        r = risky(kind)
    except (KeyError, IndexError) as e:
        caught.append(["lookup", isinstance(e, KeyError), str(e)])
    except ZeroDivisionError as e:
        caught.append(["zero", str(e)])
    except ValueError as e:
        caught.append(["value", str(e)])
    except Exception as e:
        caught.append(["other", isinstance(e, TypeError), isinstance(e, AttributeError)])
    else:
        caught.append(["else", r])
    finally:
        caught.append("finally")

def chained():
    try:
        int("x")
    except ValueError as e:
        raise RuntimeError("wrapped") from e

try:
    chained()
    chain = None
except RuntimeError as e:
    chain = [str(e), repr(e)]

order = []
def f():
    try:
        order.append("try")
        return "from try"
    finally:
        order.append("finally")
ret = f()

retries = 0
result = None
while True:
    try:
        retries += 1
        if retries < 3:
            raise RuntimeError(f"attempt {retries} failed")
        result = "ok after " + str(retries)
        break
    except RuntimeError as e:
        order.append(str(e))
        continue

try:
    out = await agent("hermes.flaky", {"x": 1}, label="flaky")
    agent_err = None
except CapabilityError as e:
    agent_err = {"is_runtime": isinstance(e, RuntimeError), "retryable": e.retryable, "has_code": e.code is not None}

try:
    assert 1 + 1 == 3, "math is broken"
except AssertionError as e:
    order.append(str(e))

kinds = [IndexError, KeyError, ValueError, StopIteration, LookupError]
errs = []
for bad in [lambda: [].pop(), lambda: {}.pop("k"), lambda: "abc".index("z"), lambda: [1].remove(2), lambda: next(iter([]))]:
    try:
        bad()
    except Exception as e:
        errs.append([isinstance(e, k) for k in kinds])
return {"caught": caught, "chain": chain, "ret": ret, "order": order, "result": result, "agent_err": agent_err, "errs": errs}
