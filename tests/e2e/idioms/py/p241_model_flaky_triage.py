meta = {
    "name": "flaky_test_triage",
    "description": "Rank flaky tests from CI history, rerun each, diagnose the reproducible ones",
    "phases": ["scan", "rerun", "diagnose"],
}

phase("scan")
scan = await agent(
    "hermes.ci_scanner",
    {"days": args.get("days", 14), "branch": args.get("branch", "main")},
    schema={"tests": "list"},
)
candidates = []
for t in scan["tests"]:
    rate = t["failures"] / t["runs"] if t["runs"] else 0.0
    if 0 < rate < 1:
        candidates.append({**t, "rate": round(rate, 3)})
candidates.sort(key=lambda t: (-t["rate"], t["name"]))
log("candidates: " + "; ".join(f"{t['name']} {t['rate']:.1%}" for t in candidates))


async def rerun(test):
    return await agent(
        f"Rerun {test['name']} 20 times and count outcomes",
        label=f"rerun:{test['name']}",
        phase="rerun",
        schema={"passes": "integer", "fails": "integer"},
    )


async def diagnose(result, test):
    total = result["passes"] + result["fails"]
    if result["fails"] == 0:
        return {"name": test["name"], "status": "not_reproduced", "repro": f"0/{total}"}
    fix = await agent(
        f"{test['name']} failed {result['fails']}/{total} reruns. Diagnose the flakiness and propose a fix.",
        label=f"diagnose:{test['name']}",
        phase="diagnose",
        schema={"cause": "string", "patch": "string"},
    )
    return {"name": test["name"], "status": "flaky", "repro": f"{result['fails']}/{total}", "cause": fix["cause"], "patch": fix["patch"]}


try:
    results = await pipeline(candidates, rerun, diagnose)
except PipelineStageError as exc:
    log(f"triage aborted: item {exc.item_index} stage {exc.stage_index} ({exc.cause_type})")
    results = []

by_cause = {}
for r in results:
    if r["status"] == "flaky":
        by_cause.setdefault(r["cause"], []).append(r["name"])
summary = {
    "flaky": [r for r in results if r["status"] == "flaky"],
    "not_reproduced": [r["name"] for r in results if r["status"] == "not_reproduced"],
    "by_cause": dict(sorted(by_cause.items())),
    "worst": candidates[0]["name"] if candidates else None,
}
log(f"{len(summary['flaky'])} flaky, {len(summary['not_reproduced'])} not reproduced")
return summary
