meta = {"name": "fstring_spec_errors", "description": "a report formatter whose rarely-used branches carry bad format specs"}

def render(kind, value):
    if kind == "pct":
        return f"{value:.1%}"
    if kind == "typo":
        return f"{value:abc}"
    if kind == "two":
        return f"{value:kk}"
    if kind == "tail":
        return f"{value:.2fz}"
    if kind == "code":
        return f"{value:q}"
    if kind == "huge":
        return f"{value:999999999999999999999999}"
    return f"{value:>6}"

out = []
for kind, value in [("pct", 0.25), ("plain", 7), ("typo", 3), ("typo", 1.5), ("typo", "s"), ("two", 3), ("tail", 2.0), ("code", 4),
                    ("code", "x"), ("huge", 1)]:
    try:
        out.append([kind, render(kind, value)])
    except ValueError as e:
        out.append([kind, "ValueError", str(e)])
never = False
if never:
    out.append(f"{1:zz}")
log(f"{len(out)} rendered")
return out
