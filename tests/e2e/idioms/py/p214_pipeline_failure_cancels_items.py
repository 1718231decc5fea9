meta = {"name": "pipeline_failure_cancels_items", "description": "A failing pipeline stage cancels the other items: every item has started, none resumes after its pending agent call, and the error keeps its attributes"}

trace = []

quiet = False

async def draft(prev, item, index):
    if not quiet:
        trace.append(f"draft {item['id']}")
    if not item["title"]:
        raise ValueError(f"issue {item['id']} has no title")
    r = await agent(f"Draft a fix for issue {item['id']}: {item['title']}", label="draft")
    if not quiet:
        trace.append(f"drafted {item['id']}")
    return {**item, "patch": r["patch"]}

def review(prev):
    if not quiet:
        trace.append(f"review {prev['id']}")
    return prev["patch"].upper()

issues = [{"id": 7, "title": "crash"}, {"id": 8, "title": ""}, {"id": 9, "title": "slow"}]
try:
    out = await pipeline(issues, draft, review)
except PipelineStageError as e:
    out = None
    trace.append(str(e))
    trace.append([e.item_index, e.stage_index, e.cause_type, e.code, e.retryable, isinstance(e, RuntimeError)])

# The run goes on: the cancelled items' calls are never answered, and a later
# pipeline runs every item to the end (untraced: which of two answers the
# host delivers first is not fixed).
quiet = True
summary = await agent("Summarise what happened", label="summary")
trace.append("summary " + summary["text"])
done = await pipeline(issues[:1] + issues[2:], draft, review)
trace.append(done)
return {"trace": trace, "out": out}
