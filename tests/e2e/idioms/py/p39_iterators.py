meta = {"name": "iterators", "description": "iter/next, generators and lazy helpers"}

def batched(seq, n):
    batch = []
    for x in seq:
        batch.append(x)
        if len(batch) == n:
            yield batch
            batch = []
    if batch:
        yield batch

def numbered(lines, start=1):
    for i, line in enumerate(lines, start):
        if line.strip():
            yield f"{i:>3}: {line}"

it = iter([10, 20, 30])
first = next(it)
rest = list(it)
exhausted = next(it, "done")
gen = (x * x for x in range(5))
taken = [next(gen), next(gen)]
remaining = sum(gen)

def countdown(n):
    while n > 0:
        yield n
        n -= 1
    return

def take(n, g):
    out = []
    for x in g:
        if len(out) >= n:
            break
        out.append(x)
    return out

def naturals():
    k = 0
    while True:
        yield k
        k += 1

evens = (n for n in naturals() if n % 2 == 0)
zipped = list(zip(countdown(3), "abc"))
d = {"b": 2, "a": 1}
kit = iter(d)
return {"batches": list(batched(range(7), 3)), "numbered": list(numbered(["x", "", "y"])), "first": first, "rest": rest,
        "exhausted": exhausted, "taken": taken, "remaining": remaining, "countdown": list(countdown(4)), "take": take(4, evens),
        "zipped": zipped, "kit": [next(kit), next(kit)], "map_lazy": list(map(str, countdown(2))),
        "enumerate_gen": list(enumerate(countdown(2))), "sorted_gen": sorted(countdown(3)), "max_gen": max(x % 4 for x in range(10)),
        "join_gen": ",".join(str(x) for x in countdown(3)), "any_gen": any(x > 2 for x in countdown(3)), "dict_gen": dict((k, k * 2) for k in range(3))}
