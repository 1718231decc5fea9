meta = {"name": "dict_ops2", "description": "dict manipulation when merging agent findings"}

findings = [
    {"file": "a.py", "sev": "high", "line": 10},
    {"file": "b.py", "sev": "low", "line": 3},
    {"file": "a.py", "sev": "low", "line": 40},
    {"file": "c.py", "sev": "high", "line": 7},
    {"file": "a.py", "sev": "high", "line": 12},
]
by_file = {}
for f in findings:
    by_file.setdefault(f["file"], []).append(f["line"])
counts = {}
for f in findings:
    counts[f["sev"]] = counts.get(f["sev"], 0) + 1
index = {(f["file"], f["line"]): f["sev"] for f in findings}
merged = {"a": 1, "b": 2} | {"b": 3, "c": 4}
merged |= {"d": 5}
upd = dict(a=1)
upd.update({"b": 2}, c=3)
upd.update([("d", 4)])
keys_ops = sorted({"a": 1, "b": 2}.keys() & {"b", "c"})
keys_sub = sorted({"a": 1, "b": 2, "c": 3}.keys() - {"a"})
items_in = ("a", 1) in {"a": 1}.items()
d = {"x": 1, "y": 2, "z": 3}
popped = [d.pop("y"), d.pop("nope", "dflt"), d.popitem(), d]
fromkeys = dict.fromkeys(["a", "b"], 0)
fromkeys_none = dict.fromkeys("xy")
nested = {"cfg": {"retries": 2, "labels": ["a"]}}
shallow = dict(nested)
shallow["cfg"]["retries"] = 5
deep = json.loads(json.dumps(nested))
deep["cfg"]["labels"].append("b")
order = {}
order["z"] = 1
order["a"] = 2
order["z"] = 3
del order["a"]
order["a"] = 4
inverted = {v: k for k, v in {"a": 1, "b": 2, "c": 1}.items()}
grouped = {}
for f in sorted(findings, key=lambda f: (f["sev"], -f["line"])):
    grouped.setdefault(f["sev"], []).append(f"{f['file']}:{f['line']}")
try:
    {}["missing"]
except KeyError as e:
    key_err = [str(e), repr(e), e.args[0]]
try:
    {"a": 1}.pop("b")
except KeyError as e:
    pop_err = str(e)
eq = [{"a": 1, "b": 2} == {"b": 2, "a": 1}, {"a": 1} == {"a": 1.0}, {1: "x"} == {True: "x"}]
bool_key = {1: "int", True: "bool", 1.0: "float"}
stats = {k: {"n": len(v), "max": max(v), "mean": sum(v) / len(v)} for k, v in sorted(by_file.items())}
return {
    "by_file": by_file, "counts": counts, "index": index, "merged": merged, "upd": upd,
    "keys_ops": keys_ops, "keys_sub": keys_sub, "items_in": items_in, "popped": popped,
    "fromkeys": [fromkeys, fromkeys_none], "shallow": nested, "deep": [deep, nested],
    "order": list(order.items()), "inverted": inverted, "grouped": grouped, "key_err": key_err,
    "pop_err": pop_err, "eq": eq, "bool_key": bool_key, "stats": stats,
    "views": [list(d.keys()), list(d.values()), len(d.items()), list(reversed({"p": 1, "q": 2}.items()))],
    "get_chain": [nested.get("cfg", {}).get("retries"), nested.get("x", {}).get("y", "none")],
    "sorted_by_value": [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))],
    "repr": repr({"a": [1, 2], "b": {"c": None}, "d": "it's"}),
}
