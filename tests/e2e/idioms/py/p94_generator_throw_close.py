meta = {"name": "generator_throw_close", "description": "drive generator-based workers with send, throw and close, and read their return values"}

events = []

def worker(name):
    events.append(f"{name} start")
    done = 0
    try:
        while True:
            try:
                task = yield done
            except KeyError as e:
                events.append(f"{name} skipped {e.args[0]}")
                continue
            except Exception as e:
                events.append(f"{name} swallowed {e!r}")
                continue
            if task is None:
                break
            done += task
    finally:
        events.append(f"{name} cleanup at {done}")
    return {"name": name, "done": done}

w = worker("a")
got = [next(w), w.send(3), w.throw(KeyError("t1")), w.send(4), w.throw(ValueError), w.throw(RuntimeError("bad", 7))]
try:
    w.send(None)
except StopIteration as stop:
    got.append(stop.value)
    got.append(len(stop.args))

w2 = worker("b")
next(w2)
w2.send(5)
w2.close()
w2.close()
closed = [next(w2, "exhausted")]

def stubborn():
    try:
        yield 1
    except GeneratorExit:
        events.append("stubborn refuses")
        yield 2

s = stubborn()
next(s)
try:
    s.close()
    closed.append("closed")
except RuntimeError as e:
    closed.append(str(e))

def fragile():
    yield "ok"
    yield "never"

f = fragile()
next(f)
try:
    f.throw(TypeError("boom"))
except TypeError as e:
    closed.append(["propagated", str(e)])
closed.append(next(f, "finished"))

fresh = worker("c")
try:
    fresh.throw(IndexError("early"))
except IndexError as e:
    closed.append(["fresh", str(e)])
closed.append(next(fresh, "fresh finished"))
never_started = worker("d")
never_started.close()

def counter(limit):
    n = 0
    while n < limit:
        n += 1
        yield n
    return n * 10

c = counter(2)
values = []
while True:
    try:
        values.append(next(c))
    except StopIteration as e:
        values.append(e.value)
        break
try:
    next(c)
except StopIteration as e:
    values.append([e.value, len(e.args)])

def delegate():
    total = yield from counter(3)
    yield total

values.append(list(delegate()))
log(f"{len(events)} events")
return {"got": got, "closed": closed, "values": values, "events": events}
