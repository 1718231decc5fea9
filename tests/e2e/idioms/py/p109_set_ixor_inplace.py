meta = {
    "name": "set_ixor_inplace",
    "description": "Toggle label sets with ^= in place (aliases see it) and CPython's in-place operator errors",
    "phases": ["toggle"],
}

phase("toggle")
plan = (await agent("Which labels to toggle per PR?", label="toggles"))["toggles"]
labels = {"bug", "ui", "p1"}
history = labels
for pr, toggles in plan.items():
    labels ^= set(toggles)
    log(f"{pr}: {sorted(labels)}")
frozen = frozenset({"bug", "p2"})
before = frozen
frozen ^= {"p2", "p3"}
errors = []
for op in ("|=", "&=", "-=", "^="):
    current = set(labels)
    try:
        if op == "|=":
            current |= ["x"]
        elif op == "&=":
            current &= ["x"]
        elif op == "-=":
            current -= ["x"]
        else:
            current ^= ["x"]
    except TypeError as e:
        errors.append(str(e))
flags = 0b1010
flags ^= 0b0110
return {"labels": list(labels), "alias_sees": history is labels and list(history) == list(labels),
        "frozen": sorted(frozen), "before": sorted(before), "rebound": frozen is not before, "errors": errors, "flags": flags}
