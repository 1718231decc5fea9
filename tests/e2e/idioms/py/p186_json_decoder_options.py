meta = {"name": "json-decoder-options", "description": "json.loads hooks (parse_float, parse_int, parse_constant, object_hook, object_pairs_hook), strict=False, and json.dumps check_circular / cls=None, as CPython 3.11"}
out = []
def attempt(label, make):
    try:
        out.append([label, make()])
    except Exception as e:
        out.append([label, "error", repr(e)])

attempt("parse_float=str", lambda: json.loads('{"amount": 10.10, "n": 3, "e": 1e5}', parse_float=str))
attempt("parse_int=str", lambda: json.loads('[1, -0, 12345678901234567890123, 2.5]', parse_int=str))
attempt("parse_constant", lambda: json.loads('[NaN, Infinity, -Infinity, 1.5]', parse_constant=lambda c: "const:" + c))
attempt("all three", lambda: json.loads('[1, 2.0, NaN, -Infinity, 1e5, -0]', parse_int=str, parse_float=str, parse_constant=str))
attempt("object_hook=sorted", lambda: json.loads('{"a": {"b": 1}, "c": [{}]}', object_hook=sorted))
attempt("object_hook tags", lambda: json.loads('{"kind": "point", "x": 1, "inner": {"kind": "leaf"}}', object_hook=lambda d: d.get("kind", "?") + ":" + ",".join(d)))
attempt("pairs_hook=list", lambda: [list(p) for p in json.loads('{"a": 1, "a": 2}', object_pairs_hook=list)])
attempt("pairs over object_hook", lambda: repr(json.loads('{"a": 1, "a": 2, "b": {}}', object_pairs_hook=lambda p: p, object_hook=len)))
attempt("pairs dedupe check", lambda: json.loads('{"x": 1, "y": {"x": 2, "x": 3}}', object_pairs_hook=lambda p: {k: v for k, v in p} if len({k for k, _ in p}) == len(p) else "dup:" + ",".join(k for k, _ in p)))
attempt("empty objects", lambda: json.loads('[{}, {"a": {}}]', object_hook=lambda d: len(d)))
attempt("strict=False", lambda: repr(json.loads('["a\tb\x01", {"k\n": "v"}]', strict=False)))
attempt("strict=True", lambda: json.loads('["a\tb"]', strict=True))
attempt("strict=False error place", lambda: json.loads('["a\tb\tc" x]', strict=False))
attempt("strict=False error after", lambda: json.loads('{"a\t": 1,\n "b\x02": }', strict=False))
attempt("hook not callable", lambda: json.loads('[1.5]', parse_float=5))
attempt("hook raises", lambda: json.loads('{"a": 1}', object_hook=lambda d: d["missing"]))
attempt("unknown keyword", lambda: json.loads('1', foo=1))
attempt("cls=None", lambda: json.loads('[1]', cls=None, parse_int=float))
attempt("check_circular=False", lambda: json.dumps({"a": [1, 2]}, check_circular=False))
attempt("cls=None dumps", lambda: json.dumps([1], cls=None, check_circular=True))
loop = []
loop.append(loop)
attempt("circular checked", lambda: json.dumps(loop))
attempt("circular unchecked", lambda: json.dumps(loop, check_circular=False))
try:
    json.loads('{"a": 1,}', parse_int=str)
except json.JSONDecodeError as e:
    out.append(["decode error with hook", e.msg, e.pos, e.lineno, e.colno])
return out
