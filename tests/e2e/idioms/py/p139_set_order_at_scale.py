meta = {"name": "set_order_at_scale", "description": "sets of thousands of ints and strings: adds, discards, pops, algebra, iterators"}

state = [0x2545F491]


def rnd():
    s = state[0]
    s ^= (s << 13) & 0xFFFFFFFF
    s ^= s >> 17
    s ^= (s << 5) & 0xFFFFFFFF
    state[0] = s
    return s


def key(x):
    if isinstance(x, int):
        return x
    if isinstance(x, str):
        return sum((j + 1) * ord(c) for j, c in enumerate(x))
    return key(x[0]) * 7 + key(x[1])


def digest(xs):
    # the whole order, folded: a position-weighted checksum plus samples
    h = 0
    for i, x in enumerate(xs):
        h = (h * 31 + (i + 1) * key(x)) % 1000000007
    xs = list(xs)
    return [len(xs), h, xs[:8], xs[len(xs) // 2:len(xs) // 2 + 4], xs[-8:]]


out = {}
ints = set()
for i in range(4000):
    ints.add((i * 7919) % 10007)
for i in range(0, 4000, 3):
    ints.discard((i * 7919) % 10007)
out["ints"] = digest(ints)
out["popped"] = [ints.pop() for _ in range(50)]
for i in range(600):
    ints.add(20000 + i * 13)
out["ints_refilled"] = digest(ints)

words = set()
order = []
for _ in range(3000):
    w = "w" + str(rnd() % 5000)
    if w not in words:
        words.add(w)
        order.append(w)
for w in order[::4]:
    words.remove(w)
out["words"] = digest(words)
out["word_pops"] = [words.pop() for _ in range(30)]
words.update("x" + str(i) for i in range(700))
out["words_updated"] = digest(words)

evens = set(range(0, 3000, 2))
thirds = {i for i in range(0, 3000, 3)}
out["or"] = digest(evens | thirds)
out["and"] = digest(evens & thirds)
out["sub"] = digest(evens - thirds)
out["sub_big"] = digest(evens - {4, 10, 2998})
out["xor"] = digest(evens ^ thirds)
out["union_list"] = digest(evens.union(range(2500, 3500)))
out["copy"] = digest(ints.copy())
out["frozen"] = digest(frozenset(words))
mixed = set()
for i in range(2000):
    mixed.add(i if i % 2 else str(i))
    if i % 5 == 0:
        mixed.discard(i // 2)
        mixed.discard(str(i // 3))
out["mixed"] = digest(mixed)
tup = {(i % 37, "t" + str(i % 11)) for i in range(2000)}
out["tuples"] = digest(tup)

du = set(range(3000))
du.difference_update(range(0, 3000, 7))
du.symmetric_difference_update(set(range(2900, 3100)))
du.intersection_update(range(100, 3050))
out["updates"] = digest(du)

# two iterators over one set interleaved, and a removal plus an add between steps
it1, it2 = iter(evens), iter(evens)
pairs = []
for _ in range(20):
    pairs.append([next(it1), next(it2), next(it2)])
out["iters"] = pairs
churn = set(range(64))
seen = []
try:
    for x in churn:
        seen.append(x)
        if x % 9 == 4:
            churn.discard(x + 1)
            churn.add(1000 + x)
except RuntimeError as e:
    seen.append(str(e))
out["churn"] = seen
out["repr"] = repr({i * 97 % 1009 for i in range(40)})
return out
