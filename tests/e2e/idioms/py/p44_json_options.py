meta = {"name": "json_options", "description": "json.dumps and json.loads with the options scripts pass"}

data = {"b": [1, 2.5, None, True], "a": {"z": "é", "y": "日本"}, "c": "quote\" and \\ slash / tab\t", "n": -0.0, "big": 2 ** 70, "f": 1e-7}
out = {}
out["default"] = json.dumps(data)
out["sorted"] = json.dumps(data, sort_keys=True)
out["indent2"] = json.dumps(data, indent=2, sort_keys=True)
out["indent0"] = json.dumps({"a": [1, {"b": []}], "c": {}}, indent=0)
out["indent_str"] = json.dumps({"a": [1, 2]}, indent="\t")
out["compact"] = json.dumps(data, separators=(",", ":"), sort_keys=True)
out["seps"] = json.dumps([1, {"a": 2}], separators=("; ", " = "))
out["ascii_off"] = json.dumps(data, ensure_ascii=False, sort_keys=True)
out["indent_seps"] = json.dumps({"a": 1, "b": [1]}, indent=1, separators=(",", ": "))
out["default_str"] = json.dumps({"s": {3, 1, 2}, "t": (1, 2)}, default=sorted)
out["default_fn"] = json.dumps({"x": {"k"}}, default=lambda o: "<" + ",".join(sorted(o)) + ">")
out["keys"] = json.dumps({1: "a", 2.5: "b", True: "c", None: "d"})
out["nested_empty"] = json.dumps({"a": [], "b": {}, "c": [[]]}, indent=2)
out["floats"] = json.dumps([1.0, 0.1, 1e100, 3.14159, 100.0, 1e16, -1e-10])
out["strs"] = json.dumps(["\n", "\u0001", "\u2028", "😀", "a/b"])
out["strs_raw"] = json.dumps(["😀", "é"], ensure_ascii=False)
try:
    json.dumps({"x": {1, 2}})
except TypeError as e:
    out["type_error"] = str(e)
try:
    json.dumps([float("nan")], allow_nan=False)
except ValueError as e:
    out["nan_error"] = str(e)
out["nan_ok"] = json.dumps([float("inf"), float("-inf")])
loads = []
for text in ['{"a": 1, "a": 2}', '[1, 2.0, -3e2, 1E+2]', '"\\u00e9\\ud83d\\ude00"', ' {"x" : [ ] } ', 'null', '12345678901234567890', '1.5e400', '{"t": true, "f": false}', '[NaN, Infinity, -Infinity]']:
    v = json.loads(text)
    loads.append(repr(v) if not isinstance(v, float) or v == v else "nan")
out["loads"] = loads
errors = []
for bad in ['{"a": 1,}', "[1, 2", "{'a': 1}", "", "tru", '{"a" 1}', "[1] x", '"abc']:
    try:
        json.loads(bad)
        errors.append("ok")
    except json.JSONDecodeError as e:
        errors.append([e.msg, e.pos, e.lineno, e.colno])
    except ValueError as e:
        errors.append(["value", str(e)])
out["errors"] = errors
roundtrip = json.loads(json.dumps(data))
out["roundtrip_eq"] = roundtrip == data
out["roundtrip_keys"] = list(roundtrip)
return out
