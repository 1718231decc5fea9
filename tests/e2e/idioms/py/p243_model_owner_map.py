meta = {
    "name": "code_owner_map",
    "description": "Ask agents who owns each directory, merge into an ownership map with review load",
    "phases": ["ask", "merge"],
}

dirs = args["dirs"]
phase("ask")
answers = await parallel([
    lambda d=d: agent(f"Who owns {d}? List GitHub handles and how many PRs each reviewed last quarter.", label=f"owners:{d}", schema={"owners": "list", "reviews": "dict"})
    for d in dirs
])

phase("merge")
owners_by_dir = {}
load = {}
pairs = {}
for d, ans in zip(dirs, answers):
    handles = {h.strip().lstrip("@").lower() for h in ans["owners"]}
    owners_by_dir[d] = handles
    for h, n in ans["reviews"].items():
        key = h.lstrip("@").lower()
        load[key] = load.get(key, 0) + n
    for h in handles:
        pairs[(d, h)] = ans["reviews"].get(h, ans["reviews"].get("@" + h, 0))

everyone = set().union(*owners_by_dir.values())
orphans = [d for d, hs in owners_by_dir.items() if not hs]
busiest = max(load, key=load.get)
shared = {h for h in everyone if sum(h in hs for hs in owners_by_dir.values()) > 1}

match len(orphans):
    case 0:
        health = "all owned"
    case 1:
        health = f"1 orphan: {orphans[0]}"
    case n:
        health = f"{n} orphans"

log(f"{len(everyone)} owners; busiest {busiest} ({load[busiest]:,} reviews); {health}")
report = json.dumps({d: sorted(hs) for d, hs in owners_by_dir.items()}, indent=2, sort_keys=True)
return {
    "owners": sorted(everyone),
    "shared": sorted(shared),
    "load_share": {h: round(n / sum(load.values()) * 100, 1) for h, n in sorted(load.items(), key=lambda kv: (-kv[1], kv[0]))},
    "pairs": {f"{d}|{h}": n for (d, h), n in sorted(pairs.items())},
    "report": report,
    "health": health,
    "title": health.title(),
}
