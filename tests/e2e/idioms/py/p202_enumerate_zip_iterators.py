meta = {"name": "enumerate_zip_iterators", "description": "enumerate and zip objects are iterators: next() takes the first item, the rest still iterates, in loops, comprehensions, dict(), sorted() and star-unzip"}
out = []
e = enumerate(["a", "b", "c"], 1)
out.append(next(e))
out.append(list(e))
out.append(next(e, "done"))
z = zip([1, 2], [3, 4])
out.append(next(z))
out.append([a + b for a, b in z])
out.append(list(zip()))
out.append(next(zip(), "empty"))
out.append(dict(enumerate("xy")))
out.append(sorted(zip([2, 1], "ab")))
out.append(list(zip(*[[1, 2], [3, 4]])))
header, *rows = enumerate(["h", "r1", "r2"])
out.append([header, rows])
pairs = zip("ab", [1, 2])
first_key, first_val = next(pairs)
out.append({first_key: first_val, **dict(pairs)})
try:
    next(iter([]))
except StopIteration:
    out.append("stop")
return out
