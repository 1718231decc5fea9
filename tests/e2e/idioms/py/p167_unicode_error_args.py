meta = {"name": "unicode_error_args", "description": "UnicodeDecodeError / UnicodeEncodeError keep CPython's five arguments"}

out = []
cases = [
    lambda: b"\xff".decode("utf-8"),
    lambda: b"ok \xc3\x28 tail".decode("utf-8"),
    lambda: b"abc\x80".decode("ascii"),
    lambda: "caf\u00e9".encode("ascii"),
    lambda: "snow \u2603 man".encode("latin-1"),
]
for f in cases:
    try:
        f()
        out.append("no error")
    except ValueError as e:
        enc, obj, start, end, reason = e.args
        shown = obj.hex() if isinstance(obj, bytes) else obj
        out.append([repr(e), str(e), len(e.args), enc, shown, start, end, reason, e.start, e.end, e.reason])
try:
    b"\xfe".decode("utf-8")
except ValueError as e:
    out.append([e.args[0], e.args[4], e.args[2:4]])
return out
