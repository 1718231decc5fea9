meta = {"name": "percent_numbers", "description": "printf-style formatting of big and float values"}
out = []
for template, value in [("%d", 1e22), ("%i", -1e19), ("%.2f", 10**30), ("%e", 2**64), ("%g", 2**63), ("%x", 2.5), ("%o", 3.5), ("%d", float("inf"))]:
    try:
        out.append(template % value)
    except Exception as e:
        out.append(("TypeError" if isinstance(e, TypeError) else "OverflowError" if isinstance(e, OverflowError) else "ValueError" if isinstance(e, ValueError) else "other") + ": " + str(e))
for template, value in [("%(a)s %s", {"a": 1}), ("x", [1])]:
    try:
        out.append(template % value)
    except TypeError as e:
        out.append("TypeError: " + str(e))
return out
