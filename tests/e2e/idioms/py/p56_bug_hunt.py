meta = {
    "name": "bug_hunt",
    "description": "Map the codebase, hunt bugs per module in parallel, dedupe, verify, report",
    "phases": [{"title": "map"}, {"title": "hunt", "detail": "one agent per module"}, {"title": "verify"}, {"title": "report"}],
}

SEVERITY = {"critical": 0, "high": 1, "medium": 2, "low": 3}
phase("map")
repo = args.get("repo", "acme/shop")
layout = await agent(f"List the top-level modules of {repo}", label="map", schema={"type": "object", "properties": {"modules": {"type": "array", "items": {"type": "string"}}}, "required": ["modules"]})
modules = layout["modules"]
log(f"mapped {len(modules)} modules: {', '.join(modules)}")

phase("hunt")

async def hunt(module):
    try:
        res = await agent(f"Find bugs in module {module} of {repo}", label=f"hunt:{module}", phase="hunt")
        return res.get("bugs", [])
    except CapabilityError as e:
        log(f"hunt {module} failed (retryable={e.retryable})")
        return []

per_module = await parallel([lambda m=m: hunt(m) for m in modules])
all_bugs = [dict(b, module=m) for m, bugs in zip(modules, per_module) for b in bugs]
seen = {}
for bug in all_bugs:
    key = (bug["file"], bug["title"].casefold())
    if key not in seen or SEVERITY[bug["severity"]] < SEVERITY[seen[key]["severity"]]:
        seen[key] = bug
unique = sorted(seen.values(), key=lambda b: (SEVERITY[b["severity"]], b["file"], b["line"]))
log(f"{len(all_bugs)} raw, {len(unique)} unique")

phase("verify")
to_verify = [b for b in unique if SEVERITY[b["severity"]] <= SEVERITY["medium"]]
verdicts = await parallel([lambda b=b: agent(f"Verify: {b['title']} at {b['file']}:{b['line']}", label=f"verify:{b['file']}:{b['line']}", schema={"confirmed": "boolean", "evidence": "string"}) for b in to_verify])
confirmed = [dict(b, evidence=v["evidence"]) for b, v in zip(to_verify, verdicts) if v["confirmed"]]

phase("report")
lines = [f"{i}. [{b['severity'].upper():>8}] {b['title']} ({b['file']}:{b['line']})" for i, b in enumerate(confirmed, 1)]
report = await agent("Write the report:\n" + "\n".join(lines), label="report")
by_sev = {}
for b in unique:
    by_sev[b["severity"]] = by_sev.get(b["severity"], 0) + 1
return {
    "modules": modules,
    "unique": [f"{b['module']}/{b['line']}" for b in unique],
    "confirmed": [b["title"] for b in confirmed],
    "lines": lines,
    "by_sev": dict(sorted(by_sev.items(), key=lambda kv: SEVERITY[kv[0]])),
    "report_title": report["markdown"].splitlines()[0].lstrip("# "),
    "spent": budget.spent(),
    "ratio": f"{len(confirmed)}/{len(to_verify)} ({len(confirmed) / max(len(to_verify), 1):.0%})",
}
