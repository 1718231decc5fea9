meta = {"name": "e03", "description": "PipelineStageError attributes when the cause is itself a pipeline or capability error"}
async def inner(x):
    return await pipeline([x], lambda p: 10 // p)
out = []
try:
    await pipeline([1, 0], inner)
except PipelineStageError as e:
    out.append([e.item_index, e.stage_index, e.cause_type, e.code, e.retryable, str(e)])
async def failing(p):
    return await agent("hermes.broken", {"p": p})
try:
    await pipeline(["a"], lambda p: p, failing)
except PipelineStageError as e:
    out.append([e.item_index, e.stage_index, e.cause_type, e.code, e.retryable, str(e)])
try:
    await parallel([lambda: pipeline([2], lambda p: p.upper())])
except PipelineStageError as e:
    out.append([e.item_index, e.stage_index, e.cause_type, e.code, e.retryable, str(e), repr(e), e.args])
e = PipelineStageError(3, 1, CapabilityError("nope", code="limit_agent", retryable=True))
out.append([e.code, e.retryable, e.cause_type, str(e)])
e = PipelineStageError(0, 0, KeyError("k"))
out.append([e.code, e.retryable, e.cause_type, str(e)])
c = CapabilityError("m", "c")
out.append([c.code, c.retryable, str(c), repr(c), c.args, isinstance(c, RuntimeError)])
try:
    raise CapabilityError("boom", code="x", retryable=True)
except RuntimeError as err:
    out.append([err.code, err.retryable, str(err)])
return out
