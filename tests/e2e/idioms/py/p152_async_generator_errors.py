meta = {"name": "async_generator_errors", "description": "async generators: exceptions out of the body, try/finally and except inside it, exhaustion, misuse errors"}

events = []

async def risky(n):
    try:
        for i in range(n):
            if i == 2:
                raise ValueError(f"bad {i}")
            yield i
    finally:
        events.append("risky finally")

out = {}
got = []
try:
    async for x in risky(5):
        got.append(x)
except ValueError as e:
    got.append(str(e))
out["raised"] = got
out["events"] = list(events)

async def guarded():
    for i in range(4):
        try:
            if i == 1:
                {}["missing"]
            yield i
        except KeyError as e:
            yield f"caught {e}"
        finally:
            events.append(f"step {i}")

out["guarded"] = [x async for x in guarded()]
out["events2"] = list(events)

g = risky(5)
first = []
try:
    async for x in g:
        first.append(x)
except ValueError:
    first.append("stopped")
first.append([x async for x in g])
out["after_error"] = first

async def outer_raise():
    yield 1
    [x async for x in risky(9)]
    yield 2

try:
    out["propagated"] = [x async for x in outer_raise()]
except ValueError as e:
    out["propagated"] = ["ValueError", str(e)]

errors = {}
try:
    async for x in [1, 2]:
        pass
except TypeError as e:
    errors["list"] = str(e)

def sync_gen():
    yield 1

try:
    async for x in sync_gen():
        pass
except TypeError as e:
    errors["sync_gen"] = str(e)
try:
    for x in risky(1):
        pass
except TypeError as e:
    errors["sync_for"] = str(e)
try:
    list(risky(1))
except TypeError as e:
    errors["list_call"] = str(e)
try:
    [x async for x in 5]
except TypeError as e:
    errors["int_comp"] = str(e)
out["errors"] = errors
out["events_final"] = [e for e in events if e != "risky finally"]

async def stops():
    yield 1
    return

out["bare_return"] = [x async for x in stops()]
return out
