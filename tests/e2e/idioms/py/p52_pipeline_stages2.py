meta = {"name": "pipeline_stages2", "description": "pipeline stages of each arity, sync and async, and how a failed stage reports"}

issues = [{"id": 1, "title": "Crash on start"}, {"id": 2, "title": "slow SEARCH"}, {"id": 4, "title": "typo"}]

def normalize(issue):
    return {**issue, "title": issue["title"].lower()}

async def triage(prev, item):
    res = await agent(f"Triage issue #{item['id']}: {prev['title']}", label=f"triage-{item['id']}")
    return {**prev, **res}

def rank(prev, item, index):
    return {"id": item["id"], "rank": index, "sev": prev["severity"], "title": prev["title"]}

ranked = await pipeline(issues, normalize, triage, rank)
lam = await pipeline([1, 2, 3], lambda x: x * 10, lambda prev, item: prev + item, lambda p, i, n: f"{n}:{p}")
empty = await pipeline([], normalize)
no_stages = await pipeline([5, 6])

def boom(prev):
    if prev == 2:
        raise ValueError(f"cannot handle {prev}")
    return prev

caught = []
try:
    await pipeline([1, 2, 3], lambda x: x + 1, boom)
except PipelineStageError as e:
    caught.append({"item": e.item_index, "stage": e.stage_index, "cause": e.cause_type, "code": e.code, "retryable": e.retryable, "msg": str(e), "is_runtime": isinstance(e, RuntimeError)})

try:
    await pipeline([{"id": 3, "title": "Bad"}], normalize, triage)
except PipelineStageError as e:
    caught.append({"item": e.item_index, "stage": e.stage_index, "cause": e.cause_type, "code": e.code, "retryable": e.retryable})

async def plan(prev):
    return await agent("Fix plan for " + prev["title"], {"label": "plan", "schema": {"plan": "string", "steps": "number"}})

plans = await pipeline(ranked, plan, lambda p: p["steps"] * 2)
gen_items = await pipeline((x for x in range(3)), lambda x: x ** 2)
return {"ranked": ranked, "lam": lam, "empty": empty, "no_stages": no_stages, "caught": caught, "plans": plans, "gen_items": gen_items}
