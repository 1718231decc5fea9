meta = {"name": "budget_tokens", "description": "spend tokens and adapt to the remaining budget"}

spent_before = budget.spent()
r1 = await agent("draft the plan", label="plan")
r2 = await agent("critique the plan", label="critique")
spent_after = budget.spent()
remaining = budget.remaining()
mode = "unbounded" if remaining == math.inf else ("low" if remaining < 100 else "ok")
rounds = 0
while rounds < 5 and (budget.total is None or budget.remaining() > 50):
    rounds += 1
    r = await agent(f"improve round {rounds}", label=f"improve-{rounds}")
    if r.get("done"):
        break
return {"spent_before": spent_before, "spent_after": spent_after, "mode": mode, "rounds": rounds,
        "total": budget.total, "plan": r1["text"], "critique": r2["text"], "inf": str(remaining)}
