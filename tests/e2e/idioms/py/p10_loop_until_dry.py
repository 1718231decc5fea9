meta = {
    "name": "bughunt_until_dry",
    "description": "keep finding until two dry rounds",
    "phases": ["find", "verify"],
}

areas = args.get("areas", ["api", "ui"])
seen = set()
confirmed = []
dry = 0
rounds = 0
while dry < 2 and rounds < 6:
    rounds += 1
    phase(f"round {rounds}")
    found = await parallel([lambda a=a: agent(f"Find bugs in {a}", label=f"find:{a}", phase="find", schema={"bugs": "list"}) for a in areas])
    fresh = []
    for r in found:
        for b in r["bugs"]:
            key = (b["file"], b["line"])
            if key not in seen:
                seen.add(key)
                fresh.append(b)
    if not fresh:
        dry += 1
        log(f"round {rounds}: dry ({dry})")
        continue
    dry = 0
    verdicts = await parallel([lambda b=b: agent(f"Is {b['file']}:{b['line']} real?", label=f"verify:{b['file']}:{b['line']}", schema={"real": "bool"}) for b in fresh])
    confirmed.extend(b for b, v in zip(fresh, verdicts) if v["real"])
    log(f"round {rounds}: {len(fresh)} fresh, {len(confirmed)} confirmed")
return {"rounds": rounds, "confirmed": sorted(confirmed, key=lambda b: (b["file"], b["line"])), "seen": len(seen)}
