meta = {"name": "p188", "description": "A schema built at run time is read as the seed reads it: a flat form with a word it does not know, a root array, keywords outside its subset"}
out = {}
flat = {"verdict": "strang", "score": "INT"}
r = await agent("Judge A", label="flat", schema=flat)
out["flat"] = r
for label, schema in [("missing", {"b": "str", "a": "str"}), ("arr", {"type": "array"})]:
    try:
        out[label] = await agent("Judge " + label, label=label, schema=schema)
    except CapabilityError as e:
        out[label] = [e.code, e.retryable, str(e).startswith("schema validation failed after "), str(e).split(": ", 1)[1]]
bad = []
for schema in [{"type": "object", "minProperties": 1}, {"type": "objekt"}, {"type": "object", "properties": {"a": {"enum": []}}},
               {"properties": {"a": {"type": ["string", "null"]}}}, {"type": "object", "required": "a"},
               {"type": "object", "additionalProperties": {"type": "string"}}, {"items": "x"}]:
    try:
        await agent("Judge bad", label="flat", schema=schema)
        bad.append("accepted")
    except CapabilityError as e:
        bad.append([e.code, e.retryable, str(e)])
out["bad"] = bad
opts = {"schema": {"type": "object", "description": "x"}}
try:
    await agent("Judge opts", opts)
except CapabilityError as e:
    out["opts"] = [e.code, str(e)]
out["empty"] = await agent("Judge empty", label="flat", schema={})
out["spent"] = budget.spent()
return out
