meta = {"name": "parallel_starts_eight_at_a_time", "description": "parallel and pipeline run at most 8 branches at once, as the seed's max_parallel, starting the next as one finishes; a failure among the first 8 leaves the rest unstarted"}

load = {"running": 0, "peak": 0}
started = []

async def summarise(doc):
    started.append(doc)
    load["running"] += 1
    load["peak"] = max(load["peak"], load["running"])
    r = await agent(f"Summarise {doc}", label="summary")
    load["running"] -= 1
    return f"{doc}: {r['text']}"

docs = [f"doc{i}" for i in range(12)]
summaries = await parallel([lambda d=d: summarise(d) for d in docs])
first = {"peak": load["peak"], "count": len(summaries), "last": summaries[-1], "started": len(started)}

load["peak"] = 0
few = await parallel([lambda d=d: summarise(d) for d in docs[:5]])
second = {"peak": load["peak"], "count": len(few)}

load["peak"] = 0
staged = await pipeline(docs[:10], lambda d: d.upper(), summarise)
third = {"peak": load["peak"], "first": staged[0], "count": len(staged)}

# A branch among the first 8 that fails before any call: the branches after
# the window never start.
started.clear()

def check(doc):
    started.append(doc)
    if doc == "doc3":
        raise ValueError(f"{doc} is empty")
    return len(doc)

try:
    await parallel([lambda d=d: check(d) for d in docs])
except ValueError as e:
    failed = [str(e), list(started)]
started.clear()
try:
    await pipeline(docs, str.lower, check)
except PipelineStageError as e:
    failed_stage = [str(e), list(started)]
return {"first": first, "second": second, "third": third, "failed": failed, "failed_stage": failed_stage}
