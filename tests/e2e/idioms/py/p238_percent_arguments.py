meta = {"name": "percent_arguments", "description": "printf-style formatting: which arguments a template takes, as CPython counts them"}
out = []
for template, value in [("%(a)s %s", {"a": 1}), ("x", [1]), ("x", {"a": 1}), ("x", 5), ("%s %(a)s", {"a": 1}),
                        ("%s", {"a": 1}), ("x", "abc"), ("x", (1,)), ("%s", [1, 2]), ("%(a)s", [1]), ("%(n)d items", {"n": 3.9})]:
    try:
        out.append(template % value)
    except TypeError as e:
        out.append("TypeError: " + str(e))
return out
