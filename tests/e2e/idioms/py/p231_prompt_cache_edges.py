meta = {"name": "i01", "description": "the prompt fingerprint cache: failures, mutation, key order"}
out = {}
try:
    await agent("flaky question", label="f")
except CapabilityError as e:
    out["first"] = e.code
out["second"] = await agent("flaky question", label="f")
out["third"] = await agent("flaky question", label="f")
r = await agent("mutable", context={"a": 1, "b": 2})
r["x"] = 99
r2 = await agent("mutable", context={"b": 2, "a": 1})
out["mut"] = [r, r2]
out["tools_order"] = [await agent("tools", tools=["Read", "Grep"]), await agent("tools", tools=["Grep", "Read"])]
out["none_vs_missing"] = [await agent("nm", label=None), await agent("nm")]
out["opts_dict_vs_kw"] = [await agent("dk", {"label": "L", "model": "m"}), await agent("dk", label="L", model="m")]
out["spent"] = budget.spent()
return out
