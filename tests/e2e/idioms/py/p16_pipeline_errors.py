meta = {"name": "pipeline_errors", "description": "a failing stage raises the seed's typed error"}

items = ["ok-1", "bad-2", "ok-3"]

async def fetch(item):
    return await agent(f"fetch {item}", label=f"fetch:{item}", schema={"size": "int"})

def grade(prev, item):
    return {"item": item, "size": prev["size"], "big": prev["size"] > 10}

try:
    graded = await pipeline(items, fetch, grade)
    failure = None
except PipelineStageError as e:
    graded = None
    failure = {"item_index": e.item_index, "stage_index": e.stage_index, "cause_type": e.cause_type,
               "retryable": e.retryable, "is_runtime": isinstance(e, RuntimeError)}
good = await pipeline(["ok-1", "ok-3"], fetch, grade, lambda prev: {**prev, "label": prev["item"].upper()})
return {"graded": graded, "failure": failure, "good": good}
