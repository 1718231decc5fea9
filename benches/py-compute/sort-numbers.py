meta = {"name": "bench-sort-numbers", "description": "Sort 200k floats, and 200k integers descending"}
state = [0x2545F491]


def rnd():
    s = state[0]
    s ^= (s << 13) & 0xFFFFFFFF
    s ^= s >> 17
    s ^= (s << 5) & 0xFFFFFFFF
    state[0] = s
    return s / 4294967296


n = (args or {}).get("n", 200000)
floats = [rnd() for _ in range(n)]
floats.sort()
ints = []
for i in range(n):
    ints.append(int(rnd() * 1000000))
ints.sort(reverse=True)
ordered = all(floats[i - 1] <= floats[i] and ints[i - 1] >= ints[i] for i in range(1, n))
return {"ordered": ordered, "min": floats[0], "max": floats[n - 1], "top": ints[:3]}
