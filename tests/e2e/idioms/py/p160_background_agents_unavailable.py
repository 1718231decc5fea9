meta = {
    "name": "background_review",
    "description": "start reviewers in the background, fall back to blocking calls when the host has no async runner",
    "phases": ["start", "collect"],
}

files = args.get("files", ["api.py", "db.py", "ui.py"])
phase("start")
handles = {}
fallback = []
for f in files:
    try:
        started = await agent_start("hermes.reviewer", {"file": f}, {"model": "fast"})
        handles[f] = started["handle"]
    except CapabilityError as e:
        log(f"{f}: {e.code} ({e.retryable}) {e}")
        fallback.append(f)

errors = []
for bad in [None, "", 7]:
    try:
        await agent_check(bad)
    except CapabilityError as e:
        errors.append([repr(bad), e.code, str(e)])
for bad in ["ah_0123456789abcdef", "it's"]:
    try:
        await agent_cancel(bad)
    except CapabilityError as e:
        errors.append([bad, e.code, str(e)])
for target, inp, opts in [("", {}, None), ("hermes.x", [1], None), ("hermes.x", [], {}), ("hermes.x", None, ["o"])]:
    try:
        await agent_start(target, inp, opts)
    except CapabilityError as e:
        errors.append([target, e.code, str(e), isinstance(e, RuntimeError)])

listed = await agent_list()
phase("collect")
reviews = await parallel([lambda f=f: agent("hermes.reviewer", {"file": f}, label="review") for f in fallback])
return {
    "background": handles,
    "listed": listed,
    "errors": errors,
    "reviews": {f: r["verdict"] for f, r in zip(fallback, reviews)},
}
