meta = {"name": "yield_from_send_throw", "description": "send(), throw() and close() reach the generator a yield from delegates to, as in CPython"}

trace = []

def averager():
    total = 0
    count = 0
    avg = None
    while True:
        value = yield avg
        if value is None:
            break
        total += value
        count += 1
        avg = total / count
    return {"count": count, "avg": avg}

def grouper(results, key):
    while True:
        results[key] = yield from averager()

results = {}
g = grouper(results, "a")
next(g)
for v in [10, 20, 30]:
    trace.append(g.send(v))
g.send(None)
trace.append(dict(results))

def inner():
    try:
        while True:
            try:
                x = yield "ready"
                trace.append(("inner got", x))
            except ValueError as e:
                trace.append(("inner caught", str(e)))
                yield "recovered"
    finally:
        trace.append("inner finally")

def outer():
    try:
        r = yield from inner()
        trace.append(("outer r", r))
    except KeyError as e:
        trace.append(("outer caught", str(e)))
        yield "outer recovered"
    finally:
        trace.append("outer finally")

o = outer()
trace.append(next(o))
trace.append(o.send(5))
trace.append(o.throw(ValueError("bad")))
trace.append(o.send(7))
trace.append(o.throw(KeyError("k")))
o.close()
trace.append("closed")

def sub():
    try:
        yield 1
        yield 2
    finally:
        trace.append("sub finally")
def top():
    try:
        yield from sub()
    finally:
        trace.append("top finally")
t = top()
next(t)
t.close()

def ret_inner():
    x = yield 1
    return x * 2
def ret_outer():
    v = yield from ret_inner()
    yield ("got", v)
ro = ret_outer()
next(ro)
trace.append(ro.send(21))

def thrower():
    yield 1
def wrap():
    try:
        yield from thrower()
    except ZeroDivisionError:
        yield "zde in wrap"
w = wrap()
next(w)
trace.append(w.throw(ZeroDivisionError))
return trace
