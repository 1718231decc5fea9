meta = {"name": "parallel_agent_failure_stops_siblings", "description": "An agent failure in one parallel branch: the siblings make no further call"}

trace = []

async def audit(name):
    trace.append(f"scan {name}")
    found = await agent(f"Scan {name} for secrets", label=f"scan:{name}")
    trace.append(f"scanned {name}")
    fixed = await agent(f"Fix what the scan of {name} found", label="fix")
    trace.append(f"fixed {name}")
    return {"name": name, "found": found["count"], "fixed": fixed["ok"]}

repos = ["api", "web", "cli"]
try:
    results = await parallel([lambda r=r: audit(r) for r in repos])
except CapabilityError as e:
    results = None
    trace.append(f"failed, retryable={e.retryable}")

summary = await agent("Summarise the audit", label="summary")
trace.append("summary " + summary["text"])
return {"trace": trace, "results": results}
