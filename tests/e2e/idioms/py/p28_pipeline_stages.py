meta = {"name": "pipeline_stages", "description": "pipeline with 1-, 2- and 3-arg stages and a caught stage failure"}

tickets = [{"id": "T1", "text": "Login fails on Safari"}, {"id": "T2", "text": "Add CSV export"}, {"id": "T3", "text": "Typo on pricing page"}]

async def classify(t):
    r = await agent(f"Classify ticket {t['id']}: {t['text']}", label=f"classify:{t['id']}", schema={"kind": "string"})
    return {**t, "kind": r["kind"]}

def prioritize(prev, item):
    weight = {"bug": 3, "feature": 2}.get(prev["kind"], 1)
    return {**prev, "priority": weight * (2 if "fail" in item["text"].lower() else 1)}

def number(prev, item, index):
    return f"#{index + 1} {prev['id']} [{prev['kind']}] p={prev['priority']}"

lines = await pipeline(tickets, classify, prioritize, number)

async def explode(prev):
    if prev["id"] == "T2":
        raise ValueError("cannot estimate " + prev["id"])
    return prev

try:
    await pipeline(tickets, classify, explode)
    failed = None
except PipelineStageError as e:
    failed = [e.item_index, e.stage_index, e.cause_type, e.code, e.retryable, str(e)]

plain = await pipeline([1, 2, 3], lambda x: x * 10, lambda x, item: x + item, lambda x, item, i: [x, i])
empty = await pipeline([], classify)
return {"lines": lines, "failed": failed, "plain": plain, "empty": empty}
