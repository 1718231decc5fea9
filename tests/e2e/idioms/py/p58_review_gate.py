meta = {"name": "review_gate", "description": "Loop reviewers and fixers until every gate approves or rounds run out",
        "phases": [{"title": "review"}, {"title": "fix"}, {"title": "decide"}]}

gates = ["security", "tests", "style"]
max_rounds = 4
history = []
approved = set()
round_no = 0
while round_no < max_rounds and len(approved) < len(gates):
    round_no += 1
    phase("review")
    pending = [g for g in gates if g not in approved]
    reviews = await parallel([lambda g=g: agent(f"Review gate {g}, round {round_no}", label=f"review:{g}", schema={"approved": "boolean", "blockers": "array"}) for g in pending])
    blockers = []
    for g, r in zip(pending, reviews):
        if r["approved"]:
            approved.add(g)
        else:
            blockers.extend((g, b) for b in r["blockers"])
    history.append({"round": round_no, "pending": pending, "blockers": [f"{g}: {b}" for g, b in blockers]})
    if not blockers:
        break
    phase("fix")
    fixes = await parallel([lambda g=g, b=b: agent(f"Fix blocker '{b}' from {g} (round {round_no})", label="fix") for g, b in blockers])
    log(f"round {round_no}: fixed {sum(1 for f in fixes if f['fixed'])} of {len(blockers)}")

phase("decide")
verdict = "approved" if approved == set(gates) else "blocked"
return {
    "verdict": verdict,
    "rounds": round_no,
    "approved_sorted": sorted(approved),
    "history": history,
    "blocker_count": sum(len(h["blockers"]) for h in history),
    "summary": " -> ".join(f"r{h['round']}:{len(h['pending'])}p/{len(h['blockers'])}b" for h in history),
}
