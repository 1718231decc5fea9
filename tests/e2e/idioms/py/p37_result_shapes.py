meta = {"name": "result_shapes", "description": "what the result JSON and log look like for Python values"}

log(42)
log({"a": 1, "b": [True, None]})
log(["x", 1.5])
log(("t", 1))
log(None)
log(3.0)
counts = {}
for pair in [("a", 1), ("b", 2), ("a", 1)]:
    counts[pair] = counts.get(pair, 0) + 1
return {
    "tuple": (1, (2, 3)), "nested": [(1, "a"), [2, "b"]], "int_keys": {1: "one", 2: "two"}, "float_key": {1.5: "x", 2.0: "y"},
    "big": 2 ** 80, "neg_zero": -0.0, "floats": [1.0, 2.50, 1e21, 1e-7, 1 / 3], "str_keys_mixed": {"10": 1, "9": 2},
    "tuple_keys": counts, "bytes_in": [1], "range_list": list(range(3)), "empty": [{}, [], "", ()],
    "unicode": "naïve ✓ 日本", "escaped": "quote \" backslash \\ newline \n tab \t",
}
