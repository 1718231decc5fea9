meta = {"name": "a03", "description": "which _tokens values the budget counts"}
seen = []
for tag in ["int", "float", "bool", "neg", "str", "zero", "big"]:
    r = await agent(f"count {tag}", label=tag)
    seen.append([tag, r.get("_tokens"), budget.spent()])
legacy = await agent("hermes.tok", {"n": 1})
seen.append(["legacy", legacy["_tokens"], budget.spent()])
return {"seen": seen, "unbounded": budget.remaining() == float("inf"), "total": budget.total}
