meta = {
    "name": "retry_budget",
    "description": "scan components in parallel, retry transient failures, read the budget",
    "phases": ["scan", "summarize"],
}

phase("scan")
components = args.get("components", ["api", "web", "db", "cli"])
max_attempts = args.get("max_attempts", 3)

async def scan(component):
    attempts = 0
    last_error = None
    while attempts < max_attempts:
        attempts += 1
        try:
            res = await agent(f"Scan the {component} component for defects (attempt {attempts})", label=f"scan-{component}", schema={"issues": "number"})
            return {"component": component, "issues": res["issues"], "attempts": attempts}
        except CapabilityError as e:
            last_error = e
            if not e.retryable:
                break
    return {"component": component, "issues": None, "attempts": attempts, "gave_up": last_error.retryable if last_error else None}

results = await parallel([lambda c=c: scan(c) for c in components])
ok = [r for r in results if r["issues"] is not None]
failed = [r["component"] for r in results if r["issues"] is None]
log(f"scanned {len(ok)}/{len(results)}; failed: {', '.join(failed) or 'none'}")
phase("summarize")
spent_before = budget.spent()
summary = await agent("Summarize the scan", label="summary")
total_issues = sum(r["issues"] for r in ok)
return {
    "results": results,
    "failed": failed,
    "total_issues": total_issues,
    "summary": summary["text"].strip(),
    "budget": {"total": budget.total, "spent_before": spent_before, "spent": budget.spent(), "remaining_inf": budget.remaining() == math.inf},
    "per_attempt": {r["component"]: r["attempts"] for r in results},
}
