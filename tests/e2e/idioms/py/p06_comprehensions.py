meta = {"name": "comprehend", "description": "comprehensions and iteration helpers"}

matrix = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
transposed = [[row[i] for row in matrix] for i in range(3)]
flat = [x for row in matrix for x in row if x % 2]
diag = [matrix[i][i] for i in range(len(matrix))]
pairs = [(a, b) for a in range(3) for b in range(a) ]
inverted = {v: k for k, v in {"a": 1, "b": 2}.items()}
unique_lens = {len(w) for w in ["aa", "b", "cc", "ddd"]}
labels = ["big" if x > 4 else "small" for x in flat]
results = [y for x in range(10) if (y := x * x) > 20]
indexed = list(enumerate(["a", "b", "c"], start=1))
zipped = list(zip([1, 2, 3], "ab", [True, False, None]))
unzipped = [list(t) for t in zip(*[(1, "x"), (2, "y"), (3, "z")])]
checks = [any(x > 8 for x in flat), all(x > 0 for x in flat), any([]), all([]), sum([[1], [2]], []), sum(range(5), 10)]
mapped = list(map(lambda x: x * 2, [1, 2, 3]))
filtered = list(filter(None, [0, 1, "", "a", None, [], [0]]))
people = [{"name": "bo", "age": 31}, {"name": "al", "age": 25}, {"name": "cy", "age": 31}]
by_age = sorted(people, key=lambda p: (-p["age"], p["name"]))
oldest = max(people, key=lambda p: p["age"])
youngest = min(people, key=lambda p: p["age"])["name"]
empty_max = max([], default="none")
rev = list(reversed([1, 2, 3]))
rng = [list(range(10, 0, -3)), list(range(-2, 3)), len(range(0, 100, 7)), range(5)[-1], 5 in range(10)]
sl = [list(range(10))[::3], list(range(10))[-3:], list(range(10))[7:2:-2]]
nested_dict = {k: {i: i * k for i in range(2)} for k in range(1, 3)}
grid = [["." for _ in range(3)] for _ in range(2)]
grid[0][1] = "#"
aliased = [[0] * 2] * 2
aliased[0][0] = 9
it = iter([10, 20, 30])
firsts = [next(it), next(it)]
leftover = list(it)
counter = {}
for ch in "mississippi":
    counter[ch] = counter.get(ch, 0) + 1
common = sorted(counter, key=counter.get, reverse=True)[:2]
return {"transposed": transposed, "flat": flat, "diag": diag, "pairs": pairs, "inverted": inverted,
        "unique_lens": sorted(unique_lens), "labels": labels, "results": results, "indexed": indexed,
        "zipped": zipped, "unzipped": unzipped, "checks": checks, "mapped": mapped, "filtered": filtered,
        "by_age": by_age, "oldest": oldest, "youngest": youngest, "empty_max": empty_max, "rev": rev, "rng": rng,
        "sl": sl, "nested_dict": nested_dict, "grid": grid, "aliased": aliased, "firsts": firsts, "leftover": leftover,
        "counter": counter, "common": common}
