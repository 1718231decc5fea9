meta = {"name": "p174", "description": "A pipeline stage or parallel thunk that is not callable fails as the seed calls it; CapabilityError needs its message"}
out = []
try:
    await pipeline([1], 5)
    out.append("ran")
except PipelineStageError as e:
    out.append([str(e), e.item_index, e.stage_index, e.cause_type, e.code, e.retryable])
out.append(await pipeline([], 5))
try:
    await pipeline(["a", "b"], str.upper, None)
except PipelineStageError as e:
    out.append(str(e))
try:
    await parallel([lambda: 1, 2])
except TypeError as e:
    out.append(str(e))
try:
    CapabilityError()
    out.append("built")
except TypeError as e:
    out.append(str(e))
for call in [lambda: agent(), lambda: agent(label="x"), lambda: agent(None)]:
    try:
        await call()
        out.append("called")
    except TypeError:
        out.append("TypeError")
    except CapabilityError as e:
        out.append(e.code)
made = CapabilityError("quota", code="limit_x")
out.append([str(made), made.code, made.retryable])
return out
