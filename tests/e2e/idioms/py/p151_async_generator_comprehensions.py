meta = {"name": "async_generator_comprehensions", "description": "async comprehensions over async generators: list/set/dict, filters, several clauses, arguments and closures"}

async def count(n, start=0, step=1):
    i = start
    while i < n:
        yield i
        i += step

def make_scaled(factor):
    async def scaled(xs):
        for x in xs:
            yield x * factor
    return scaled

out = {}
out["list"] = [x async for x in count(5)]
out["filtered"] = [x * x async for x in count(10) if x % 3 == 0 if x > 0]
out["set"] = sorted({x % 4 async for x in count(12, 1, 2)})
out["dict"] = {str(x): x async for x in count(4)}
out["mixed_clauses"] = [(a, b) async for a in count(3) for b in "xy"]
out["sync_then_async"] = [(c, x) for c in "ab" async for x in count(2)]
out["two_async"] = [a * 10 + b async for a in count(3) async for b in count(a)]
out["closure"] = [v async for v in make_scaled(3)([1, 2, 3])]
out["kwargs"] = [x async for x in count(start=2, n=9, step=3)]
out["nested_comp"] = [[y async for y in count(x)] async for x in count(4)]

async def pairs(d):
    for k, v in d.items():
        yield k, v

out["unpack"] = {v: k async for k, v in pairs({"a": 1, "b": 2})}
acc = []
async for i in count(3):
    async for j in count(i):
        acc.append((i, j))
else:
    acc.append("else")
out["nested_loops"] = acc
hit = None
async for i in count(100):
    if i * i > 50:
        hit = i
        break
else:
    hit = "no"
out["break_value"] = hit
seen = []
async for i in count(6):
    if i % 2:
        continue
    seen.append(i)
out["continue"] = seen
g = count(3)
out["repr_prefix"] = repr(g).split(" ")[0]
out["first_pass"] = [x async for x in g]
out["second_pass"] = [x async for x in g]
return out
