meta = {"name": "o02", "description": "constructing the seed's error classes by keyword"}
out = []
e = CapabilityError(message="m", code="c", retryable=True)
out.append([str(e), e.code, e.retryable, e.args, repr(e)])
p = PipelineStageError(item_index=2, stage_index=1, exc=ValueError("v"))
out.append([str(p), p.item_index, p.stage_index, p.cause_type, p.code, p.retryable, p.args])
p2 = PipelineStageError(0, 0, p)
out.append([str(p2), p2.cause_type, p2.code])
out.append([isinstance(p, RuntimeError), isinstance(e, Exception), issubclass(CapabilityError, RuntimeError)])
try:
    raise CapabilityError("x", "code1")
except CapabilityError as err:
    err.code = "changed"
    out.append([err.code, err.retryable])
try:
    raise PipelineStageError(1, 2, KeyError("k")) from None
except RuntimeError as err:
    out.append([str(err), err.stage_index])
return out
