meta = {"name": "error_messages_311", "description": "collect the messages of bad conversions a report builder can hit"}

rows = {"total": 10 ** 400, "parts": 3, "none": None, "tags": ["a"], "pairs": [("k", 1), ("x", 2, 3)]}
checks = [
    ("chr of str", lambda: chr("a")), ("chr of float", lambda: chr(1.5)), ("center none", lambda: "x".center()),
    ("ljust none", lambda: "x".ljust()), ("rjust many", lambda: "x".rjust(1, "-", 3)), ("zfill str", lambda: "x".zfill("3")),
    ("huge ratio", lambda: rows["total"] / rows["parts"]), ("ratio", lambda: rows["total"] / 10 ** 398), ("big exact", lambda: (2 ** 80 + 1) / 3),
    ("neg", lambda: -(10 ** 30) / 7), ("tiny", lambda: 7 / 10 ** 30), ("none spec", lambda: f"{rows['none']:>5}"),
    ("list spec", lambda: f"{rows['tags']:>3}"), ("tuple spec", lambda: f"{(1, 2):^9}"), ("none plain", lambda: f"{rows['none']}|{rows['tags']!s:>6}"),
    ("in int", lambda: 1 in rows["parts"]), ("dict str", lambda: dict(["a"])), ("dict triple", lambda: dict(rows["pairs"])),
    ("dict int", lambda: dict([1])), ("update", lambda: {}.update([("k", 1), "abc"])), ("dict ok", lambda: dict([("a", 1), "bc"])),
]
out = {}
for name, f in checks:
    try:
        out[name] = ["ok", f()]
    except (TypeError, ValueError, OverflowError) as e:
        kind = "overflow" if isinstance(e, OverflowError) else "value" if isinstance(e, ValueError) else "type"
        out[name] = [kind, str(e)]
log(out["huge ratio"][1])
return out
