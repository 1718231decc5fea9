meta = {"name": "async_generator_shapes", "description": "async generators stored in dicts, closures over state, *args, awaiting coroutines in the body and in comprehension elements, break and restart"}

def make_feed(items):
    feed = {"items": items, "pulled": 0}

    async def stream(prefix=""):
        for item in feed["items"]:
            feed["pulled"] += 1
            yield prefix + item

    feed["stream"] = stream
    return feed


async def numbers(*ns):
    for n in ns:
        yield n

async def double(x):
    return x * 2

async def doubled(src):
    async for x in src:
        yield await double(x)

def counter():
    state = {"total": 0}
    async def gen(n):
        for i in range(n):
            state["total"] += i
            yield state["total"]
    def read():
        return state["total"]
    return gen, read

out = {}
feed = make_feed(["a", "b", "c"])
out["method"] = [s async for s in feed["stream"]("> ")]
out["pulled"] = feed["pulled"]
out["static"] = [n async for n in numbers(3, 1, 2)]
out["await_in_body"] = [x async for x in doubled(numbers(1, 2, 3))]
out["await_in_elt"] = [await double(x) async for x in numbers(5, 6)]
gen, read = counter()
out["closure"] = [t async for t in gen(5)]
out["closure_total"] = read()

feed2 = make_feed(["x", "y", "z", "w"])
taken = []
async for s in feed2["stream"]():
    taken.append(s)
    if len(taken) == 2:
        break
out["after_break"] = [taken, feed2["pulled"]]
out["fresh"] = [s async for s in feed2["stream"]("+")]
out["pulled2"] = feed2["pulled"]

async def resumed():
    g = make_feed(["p", "q", "r"])["stream"]()
    first = []
    async for s in g:
        first.append(s)
        break
    rest = [s async for s in g]
    return first, rest

out["resume_same"] = list(await resumed())

async def with_locals(n):
    acc = []
    for i in range(n):
        acc.append(i)
        yield list(acc)

out["locals_kept"] = [a async for a in with_locals(3)]
out["empty"] = [x async for x in numbers()]
out["sum"] = sum([x async for x in numbers(*range(10))])
return out
