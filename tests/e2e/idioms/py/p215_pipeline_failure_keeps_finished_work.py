meta = {"name": "pipeline_failure_keeps_finished_work", "description": "A pipeline stage's own CapabilityError: the items still waiting are cancelled, finished work keeps its effects, the error keeps the cause's code; a stage that handles its failure cancels nothing"}

ledger = []

def plan(env):
    ledger.append(f"plan {env}")
    return {"env": env, "steps": len(env)}

async def gate(prev, item, index):
    ledger.append(f"gate {item} #{index}")
    if item == "prod":
        raise CapabilityError("prod is frozen until Monday", code="deploy_frozen", retryable=True)
    if item == "local":
        return {**prev, "url": None}
    r = await agent(f"Deploy {item} in {prev['steps']} steps", label="deploy")
    ledger.append(f"deployed {item}")
    return {**prev, "url": r["url"]}

def record(prev):
    ledger.append(f"record {prev['env']}")
    return prev["url"]

try:
    urls = await pipeline(["dev", "local", "prod", "qa"], plan, gate, record)
except PipelineStageError as e:
    urls = [str(e), e.item_index, e.stage_index, e.cause_type, e.code, e.retryable]
ledger.append("after")

# A stage that catches its own agent failure: the other items go on.
async def smoke(prev):
    try:
        await agent(f"Smoke test {prev}", label="smoke")
        return "passed"
    except CapabilityError:
        ledger.append(f"smoke {prev} failed, skipped")
        return "skipped"

smoked = await pipeline(["web", "api", "cli"], lambda x: x.upper() if x != "api" else x, lambda p: smoke(p) if p == "api" else p)
status = await agent("Status of the release", label="status")
return {"urls": urls, "smoked": smoked, "status": status["text"], "ledger": ledger}
