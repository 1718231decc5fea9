meta = {
    "name": "loop_until_dry",
    "description": "Keep asking finders for new bugs until two dry rounds or the round cap",
    "phases": ["find", "judge"],
}

FINDERS = ["correctness", "security"]
seen = set()
confirmed = []
dry = 0
rounds = 0
while dry < 2 and rounds < args.get("max_rounds", 5):
    rounds += 1
    phase("find")
    found = await parallel([
        lambda f=f: agent(f"Find {f} bugs in cart.js that are not in this list: {sorted(seen)}", label=f"find:{f}", schema={"bugs": "list"})
        for f in FINDERS
    ])
    fresh = []
    for r in found:
        for b in r["bugs"]:
            key = f"{b['file']}:{b['line']}"
            if key not in seen and key not in [f"{x['file']}:{x['line']}" for x in fresh]:
                fresh.append(b)
    if not fresh:
        dry += 1
        log(f"round {rounds}: dry ({dry})")
        continue
    dry = 0
    seen.update(f"{b['file']}:{b['line']}" for b in fresh)
    phase("judge")
    verdicts = await parallel([lambda b=b: agent(f"Judge {b['file']}:{b['line']} {b['desc']}", label="judge", schema={"real": "boolean"}) for b in fresh])
    confirmed += [b for b, v in zip(fresh, verdicts) if v["real"]]
    log(f"round {rounds}: {len(fresh)} fresh, {len(confirmed)} confirmed so far")
return {"rounds": rounds, "confirmed": confirmed, "seen": sorted(seen), "spent": budget.spent()}
