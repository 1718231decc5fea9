meta = {"name": "sequence_compare_errors", "description": "TypeError texts for ordering lists and tuples whose first differing items do not order, as CPython names them"}
jobs = [(2, "deploy", {"env": "prod"}), (1, "lint", None), (2, "deploy", {"env": "dev"}), (1, "lint", 3)]
out = []
cases = [
    lambda: sorted(jobs),
    lambda: sorted(jobs[:2] + jobs[3:]),
    lambda: max(jobs),
    lambda: min([[1, [2, None]], [1, [2, 3]]]),
    lambda: (1, {"a": 1}) < (1, {"b": 2}),
    lambda: [1, None] < [1, 2],
    lambda: [[1], "a"] > [[1], 3],
    lambda: (1, 2) <= (1, "x"),
    lambda: ((1, 2), [3]) >= ((1, 2), (3,)),
    lambda: [(2, "a"), (1, 3)] < [(2, "a"), (1, "b")],
    lambda: sorted([[0, None], [0, None]]),
    lambda: sorted([("b", 2), ("a", None), ("a", 1)]),
    lambda: sorted([{"k": 1}, {"k": 2}], key=lambda d: (d["k"], d)),
    lambda: sorted([(1, {"x": 1}), (1, {"x": 1})]),
    lambda: [1, 2] < (1, 2),
    lambda: max([(0, None), (0, "a")]),
]
for f in cases:
    try:
        out.append(f())
    except TypeError as e:
        out.append("TypeError: " + str(e))
return out
