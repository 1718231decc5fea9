meta = {
    "name": "parallel_agents",
    "description": "fan out reviewers, vote, and summarize",
    "phases": [{"title": "review", "detail": "three reviewers"}, {"title": "decide"}],
}

phase("review")
doc = args.get("doc", "README.md")
personas = ["security", "performance", "style"]
reviews = await parallel([lambda p=p: agent(f"As a {p} reviewer, review {doc}", label=f"review-{p}", schema={"verdict": "string", "score": "number"}) for p in personas])
by = dict(zip(personas, reviews))
log(f"got {len(reviews)} reviews")
phase("decide")
approve = [p for p, r in by.items() if r["verdict"] == "approve"]
mean = sum(r["score"] for r in reviews) / len(reviews)
decision = "ship" if len(approve) * 2 > len(personas) and mean >= 6 else "hold"

async def summarize(text):
    res = await agent("Summarize: " + text, {"label": "summary"})
    return res["text"].strip()

summary = await summarize("; ".join(f"{p}={r['verdict']}({r['score']})" for p, r in sorted(by.items())))
lowest = min(by.items(), key=lambda kv: kv[1]["score"])
seq = []
for p in personas:
    again = await agent(f"Re-check {p}", label=f"recheck-{p}")
    seq.append(again.get("ok", False))
both = await parallel([lambda: agent("quick a", label="qa"), lambda: agent("quick b", label="qb")])
return {"decision": decision, "approve": approve, "mean": round(mean, 2), "summary": summary,
        "lowest": lowest[0], "rechecks": seq, "both": [b["n"] for b in both], "budget": [budget.total, budget.spent() >= 0]}
