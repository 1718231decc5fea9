meta = {"name": "json_numbers", "description": "json round trips and number text"}

doc = {"b": [1, 2.5, None, True], "a": {"z": "ü", "y": -0.0}, "n": 10**20}
texts = [json.dumps(doc), json.dumps(doc, sort_keys=True), json.dumps(doc, indent=2, sort_keys=True),
         json.dumps(doc, separators=(",", ":"), ensure_ascii=False), json.dumps([1e16, 1.5e-7, 0.1 + 0.2, 1/3, 2.0, 1e22]),
         json.dumps("tab\tquote\"slash/\u2028"), json.dumps({"k": (1, 2)}), json.dumps({1: "int key", "s": "x"}),
         json.dumps(float("inf")), json.dumps(3.0), json.dumps(-5), json.dumps(None), json.dumps("é", ensure_ascii=True)]
loaded = json.loads('{"a": [1, 2.0, 3e2, -0, 1E-2], "b": {"c": null, "d": false}, "e": "\\u00e9\\n", "big": 123456789012345678901234567890}')
types = [isinstance(loaded["a"][0], int), isinstance(loaded["a"][1], float), isinstance(loaded["a"][2], float), isinstance(loaded["big"], int)]
errors = []
for bad in ['{"a": 1,}', "[1, 2", "", "{'a': 1}", "nul", '{"a" 1}']:
    try:
        json.loads(bad)
        errors.append("parsed")
    except json.JSONDecodeError as e:
        errors.append([e.msg, e.pos, e.lineno, e.colno])
    except ValueError as e:
        errors.append(["value", str(e)])
nums = [str(0.1), str(1e16), str(1e-5), str(123456789.123456789), str(2**63), repr(1.0), str(-0.0), str(float("inf")),
        str(1.7976931348623157e308), str(5e-324), str(0.30000000000000004), str(100.0), str(1e15), str(12345678901234567.0)]
arith = [0.1 * 3, 1.1 + 2.2, 3 * 1.1, math.isinf(1e308 * 10), -1e308 * 10 < 0, 2 ** 53 + 1, float(2 ** 53 + 1), 7 / 7, 9 ** 0.5, (-8) ** 2, 10 ** -2, 1_000_000 + 1]
return {"texts": texts, "loaded": loaded, "types": types, "errors": errors, "nums": nums, "arith": arith}
