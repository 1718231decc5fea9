meta = {
    "name": "approval_gated_deploy",
    "description": "Plan, get an approver agent's sign-off, roll out region by region with canary checks",
    "phases": ["plan", "approve", "rollout", "report"],
}

service = args["service"]
version = args["version"]
regions = args.get("regions", ["us-east-1"])
slo = args.get("slo", {"error_rate": 0.01, "p99_ms": 800})

phase("plan")
plan = await agent("hermes.planner", {"service": service, "version": version, "regions": regions}, schema={"steps": "list"})

events = []
outcome = None
try:
    phase("approve")
    approval = await agent("hermes.approver", {"plan": plan["steps"], "service": service}, schema={"approved": "boolean", "reason": "string"})
    if not approval["approved"]:
        raise RuntimeError(f"approval refused: {approval['reason']}")
    events.append(f"approved: {approval['reason']}")

    phase("rollout")
    for i, region in enumerate(regions, 1):
        await agent("hermes.deployer", {"service": service, "version": version, "region": region, "canary": 10}, schema={"ok": "boolean"})

        async def sample(n, region=region):
            return await agent("hermes.metrics", {"service": service, "region": region, "sample": n}, schema={"error_rate": "number", "p99_ms": "number"})

        checks = await parallel([lambda n=n: sample(n) for n in (1, 2, 3)])
        err = sum(c["error_rate"] for c in checks) / len(checks)
        p99 = round(sum(c["p99_ms"] for c in checks) / len(checks))
        events.append(f"{i}/{len(regions)} {region}: err={err:.2%} p99={p99}ms")
        if err > slo["error_rate"] or p99 > slo["p99_ms"]:
            await agent("hermes.deployer", {"service": service, "region": region, "rollback": True}, schema={"ok": "boolean"})
            raise RuntimeError(f"{region} breached SLO (err={round(err, 4)}, p99={p99})")
    outcome = {"status": "deployed", "regions": len(regions)}
except CapabilityError as exc:
    log(f"capability failure: code={exc.code} retryable={exc.retryable}")
    outcome = {"status": "halted", "error": f"{exc.code}: {exc}"}
except RuntimeError as exc:
    log(f"halted: {exc}")
    outcome = {"status": "halted", "error": str(exc)}
finally:
    events.append("finished: " + (outcome or {}).get("status", "crashed"))

phase("report")
report = await agent("hermes.reporter", {"service": service, "events": events}, schema={"summary": "string"})
return {**outcome, "events": events, "report": report["summary"]}
