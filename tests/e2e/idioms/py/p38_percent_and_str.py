meta = {"name": "percent_and_str", "description": "printf-style formatting and str() of containers in prompts"}

rows = [("build", 12.3456, 3), ("test", 0.5, 120), ("deploy", 100.0, 1)]
lines = ["%-8s %8.2f %5d" % r for r in rows]
lines.append("%s has %d%% coverage (%.1f)" % ("api", 87, 87.25))
lines.append("%(name)s=%(val)05.1f" % {"name": "x", "val": 3.14159})
lines.append("%r %s %a" % ("q", [1, "a"], "é"))
lines.append("%x %o %X %e %g %G" % (255, 8, 255, 12345.678, 0.00001234, 1e20))
lines.append("%+d % d %i %u" % (5, 5, -3, 7))
lines.append("%c%c" % (72, "i"))
lines.append("%*d|%-*d|%.*f" % (5, 42, 4, 7, 2, 3.14159))
ctx = {"files": ["a.py", "b.py"], "n": 2, "opts": {"deep": True, "depth": None}, "t": (1, "x"), "s": {"only"}}
prompt = f"Review these files: {ctx['files']} with options {ctx['opts']} tuple {ctx['t']} set {ctx['s']}"
reprs = [str([1, 2.0, "three", None, True]), str({"k": "v", 1: [()]}), repr(["it's"]), str((1,)), str(()), str([]), str({}),
         str(set()), str([[]]), str({"nested": {"a": [1, {"b": 'q"uote'}]}}), repr(1.0), str(-0.0), repr(1e100), str([0.1, 1 / 3]),
         str(range(3)), repr("multi\nline"), str(frozenset()), str([float("inf"), float("-inf")])]
return {"lines": lines, "prompt": prompt, "reprs": reprs}
