meta = {"name": "p171", "description": "The prompt cache key: tools deduplicated in their first order, dict options kept beside keywords, an empty context the same as none"}
a = await agent("Summarise queue", tools=["Read", "Grep"], label="tq")
b = await agent("Summarise queue", tools=["Read", "Grep", "Read"], label="tq")
c = await agent("Summarise queue", tools=["Grep", "Read"], label="tq")
d = await agent("Plan the sprint", {"effort": "low"}, label="eff")
e = await agent("Plan the sprint", {"effort": "high"}, label="eff")
f = await agent("Plan the sprint", {"effort": "high"}, label="eff")
g = await agent("Plan the sprint", {"model": "m1"}, label="eff", model=None)
return {"tools": [a["n"], b["n"], c["n"]], "effort": [d["n"], e["n"], f["n"], g["n"]], "spent": budget.spent()}
