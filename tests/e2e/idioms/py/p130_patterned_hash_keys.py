meta = {"name": "patterned_hash_keys", "description": "dicts and sets keyed by ints and floats that share their low bits (i << 20, i * 2**32, i * 0.5), at scale"}

# An int hashes as itself and a float as its bits, so these keys agree in
# their low bits; Monty's tables once sent them all to one bucket group and
# each store walked the whole cluster (80,000 `d[i << 20]` took 4 s).


def digest(xs):
    h = 0
    for i, x in enumerate(xs):
        h = (h * 31 + (i + 1) * (int(x * 4) % 1000003)) % 1000000007
    return h


out = {}
shifted = {}
for i in range(80000):
    shifted[i << 20] = i
total = 0
for i in range(0, 80000, 7):
    total += shifted[i << 20]
for i in range(0, 80000, 3):
    del shifted[i << 20]
out["shifted"] = [len(shifted), total, (5 << 20) in shifted, (6 << 20) in shifted, digest(list(shifted)) ]

halves = {}
for i in range(80000):
    halves[i * 0.5] = i
out["halves"] = [len(halves), halves[12345.5], halves.get(0.25), halves[7.0], 3 in halves, digest(list(halves)[:100])]

wide = set()
for i in range(20000):
    wide.add(i * 2**32)
    wide.add(-i << 24)
for i in range(0, 20000, 2):
    wide.discard(i * 2**32)
out["wide"] = [len(wide), digest(sorted(wide)) , (3 * 2**32) in wide, (4 * 2**32) in wide]

quarters = {i * 0.25: i for i in range(-20000, 20000)}
out["quarters"] = [len(quarters), quarters[-0.25], quarters[-1], quarters.get(1e9)]

big = {2**64 + (i << 16): i for i in range(20000)}
out["big"] = [len(big), big[2**64 + (777 << 16)], sum(big.values())]

pairs = {}
for i in range(20000):
    pairs[(i << 20, i * 0.5)] = i
out["pairs"] = [len(pairs), pairs[(19999 << 20, 9999.5)], (1 << 20, 0.5) in pairs, (1 << 20, 1.0) in pairs]

# hash(-1) == hash(-2) in CPython; equal keys of different types still meet
mixed = {-1: "a", -2: "b", 1.0: "c", True: "d", 2**61 - 1: "e", 0: "f", 0.0: "g"}
out["mixed"] = sorted((str(k), v) for k, v in mixed.items())
return out
