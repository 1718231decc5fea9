meta = {"name": "p175", "description": "An agent output that fails its schema after the retries: CapabilityError code schema, not retryable, the seed's text"}
S = {"type": "object", "properties": {"score": {"type": "integer"}}, "required": ["score"]}
out = {}
good = await agent("Rate A", label="good", schema=S)
out["good"] = [good["score"], budget.spent()]
try:
    await agent("Rate B", label="bad", schema=S)
    out["bad"] = "accepted"
except CapabilityError as e:
    out["bad"] = [e.code, e.retryable, str(e).startswith("schema validation failed after "), "score" in str(e)]
try:
    await agent("Rate C", label="bad", schema={"verdict": "str"})
except RuntimeError as e:
    out["flat"] = [isinstance(e, CapabilityError), e.code, "verdict" in str(e)]
reasons = []
for label, schema in [("nested", {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "object", "required": ["b"]}}}, "required": ["a"]}),
                      ("wrongtype", {"score": "int"}), ("listout", {"type": "object"}), ("bad", S)]:
    try:
        await agent("Rate " + label, label=label, schema=schema)
        reasons.append("accepted")
    except CapabilityError as e:
        reasons.append(str(e).split(": ", 1)[1])
out["reasons"] = reasons
out["spent"] = budget.spent()
return out
