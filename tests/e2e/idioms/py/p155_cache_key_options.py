meta = {"name": "rate_by_model", "description": "the same prompt asked of two models and two efforts: each option makes its own call, a repeat is the cache's"}
a = await agent("Rate this change", label="rate", model="small")
b = await agent("Rate this change", label="rate", model="large")
c = await agent("Rate this change", label="rate", effort="high")
d = await agent("Rate this change", label="rate", model="small")
e = await agent("Rate this change", label="rate", isolation="worktree")
f = await agent("Rate this change", label="rate", tools=["grep"])
g = await agent("Rate this change", label="rate", tools=["grep"])
return {"scores": [x["n"] for x in [a, b, c, d, e, f, g]], "spent": budget.spent()}
