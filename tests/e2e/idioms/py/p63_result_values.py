meta = {"name": "result_values", "description": "a result holding values JSON has no form for, as scripts return them by accident"}

labels = ["bug", "ui", "bug", "p1"]

def score(x):
    return x * 2

findings = [{"id": i, "tags": set(labels[: i + 1])} for i in range(2)]
return {
    "unique_labels": set(labels),
    "frozen": frozenset(["a"]),
    "sorted_labels": sorted(set(labels)),
    "scorer": score,
    "lam": lambda: 0,
    "lazy": (x for x in range(3)),
    "span": range(3),
    "error": ValueError("bad input"),
    "key_error": KeyError("k"),
    "raw": b"\x00ok",
    "findings": findings,
    "nested": [[{1, 2}], ({"k": frozenset()},)],
    "builtin": len,
    "method": labels.append,
}
