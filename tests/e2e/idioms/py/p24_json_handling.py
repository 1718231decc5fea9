meta = {"name": "json_handling", "description": "parse and emit JSON the way a script talks to agents"}

reply = '{"status": "ok", "items": [{"n": 1, "w": 2.50}, {"n": 2, "w": 1e3}], "note": null, "uni": "caf\\u00e9 \\u2713", "big": 12345678901234567890}'
data = json.loads(reply)
out = {
    "parsed": data,
    "types": [isinstance(data["items"][0]["w"], float), isinstance(data["big"], int), data["note"] is None],
    "dumps": [
        json.dumps(data["items"]),
        json.dumps({"b": 1, "a": [True, False, None]}, sort_keys=True),
        json.dumps({"z": 1, "y": {"x": 2}}, indent=2),
        json.dumps([1, [2, [3]]], indent=1),
        json.dumps({"a": 1, "b": 2}, separators=(",", ":")),
        json.dumps("café ✓"),
        json.dumps("café ✓", ensure_ascii=False),
        json.dumps({1: "int key", 2.5: "float key", True: "bool", None: "none"}),
        json.dumps((1, 2)),
        json.dumps([0.1 + 0.2, 1.0, 1e20, 1e-7, -0.0, 100.0, 3.0e16, 2**63]),
        json.dumps("line\nbreak\t\"quoted\" \\ slash /"),
        json.dumps({}), json.dumps([]), json.dumps(""),
        json.dumps({"k": [1, {"m": []}]}, indent=4, sort_keys=True),
        json.dumps([1, 2], indent=0),
        json.dumps("\u0001\u001f\u007f"),
        json.dumps(float("inf")), json.dumps(float("-inf")), json.dumps(float("nan")),
    ],
    "roundtrip": json.loads(json.dumps({"a": [1, 2.0, "x"]})),
    "loads": [json.loads("1"), json.loads("1.0"), json.loads('"s"'), json.loads("[]"), json.loads(" true "),
              json.loads("-0"), json.loads("1E2"), json.loads('{"a": {"b": [1, 2]}}')["a"]["b"][1],
              json.loads('{"dup": 1, "dup": 2}'), json.loads("NaN") != json.loads("NaN")],
}
errors = []
for bad in ["", "{", "[1,]", '{"a" 1}', "tru", '{"a": 1} x', "'single'", "[1 2]", '"unterminated']:
    try:
        json.loads(bad)
        errors.append("ok")
    except json.JSONDecodeError as e:
        errors.append([e.msg, e.pos, e.lineno, e.colno, str(e)])
    except ValueError as e:
        errors.append(["value", str(e)])
out["errors"] = errors
try:
    json.dumps({"s": {1, 2}})
except TypeError as e:
    out["set_error"] = str(e)
return out
